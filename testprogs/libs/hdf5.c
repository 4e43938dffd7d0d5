/* Parallel HDF5 writing a distributed 2-D array of doubles, for mpipp's view
 * of MPI-IO calls made by a library that builds every datatype from MPI_BYTE
 * (tests/libs/test_libs.py).  2 ranks; the dataset is ROWS x COLS, each rank
 * writes its half of the rows from the interior of a local array with a
 * halo of one cell (a hyperslab in memory and in the file), collectively:
 * inside H5Dwrite, HDF5 calls MPI_File_set_view and
 * MPI_File_write_at_all with chains of resized(hindexed(1, vector(...)))
 * over contiguous(8, MPI_BYTE) it built itself.  Element (i, j) of rank r
 * holds 1000 * r + 10 * i + j. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

#define ROWS 8
#define COLS 6
#define LOCAL (ROWS / 2)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *path = argc > 1 ? argv[1] : "grid.h5";
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t dims[2] = {ROWS, COLS};
    hid_t filespace = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate(file, "grid", H5T_NATIVE_DOUBLE, filespace, H5P_DEFAULT, H5P_DEFAULT,
                           H5P_DEFAULT);
    hsize_t start[2] = {rank * LOCAL, 0}, count[2] = {LOCAL, COLS};
    H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, NULL, count, NULL);

    double local[LOCAL + 2][COLS + 2];
    for (int i = 0; i < LOCAL + 2; i++)
        for (int j = 0; j < COLS + 2; j++)
            local[i][j] = i >= 1 && i <= LOCAL && j >= 1 && j <= COLS
                              ? 1000 * rank + 10 * (i - 1) + (j - 1) : -1;
    hsize_t mdims[2] = {LOCAL + 2, COLS + 2}, mstart[2] = {1, 1};
    hid_t memspace = H5Screate_simple(2, mdims, NULL);
    H5Sselect_hyperslab(memspace, H5S_SELECT_SET, mstart, NULL, count, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    H5Dwrite(dset, H5T_NATIVE_DOUBLE, memspace, filespace, dxpl, local);

    H5Pclose(dxpl);
    H5Sclose(memspace);
    H5Sclose(filespace);
    H5Dclose(dset);
    H5Fclose(file);
    H5Pclose(fapl);
    printf("hdf5 %d: wrote rows %d..%d\n", rank, rank * LOCAL, rank * LOCAL + LOCAL - 1);
    MPI_Finalize();
    return 0;
}
