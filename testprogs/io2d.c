/*
 * io2d: four ranks on a 2x2 process grid write an 8x12 global array of
 * ints through MPI-IO file views (run with 4 ranks; files go to the folder
 * $IO2D_DIR, default ".").  Rank r's 4x6 local block holds 1000*r + k for
 * its k-th value, so the files say which rank wrote each byte.
 *
 *   sub.dat      view: disp 0, etype MPI_INT, filetype block_t (a subarray:
 *                the rank's block of the global array); MPI_File_write_all
 *                at the individual file pointer.
 *   darray.dat   a 16-byte header (rank 0, MPI_File_write_at in the default
 *                view), then view: disp 16, etype MPI_INT, filetype darray_t
 *                (rows BLOCK, columns CYCLIC(2) over the 2x2 grid);
 *                MPI_File_write_at_all at offset 0.
 *   pending.dat  default view; MPI_File_iwrite_at of 4 ints at byte offset
 *                16 * rank, and MPI_File_iwrite of the next 4 at the
 *                individual file pointer, moved by MPI_File_seek to byte
 *                64 + 16 * rank: both still pending in stop_pending();
 *                then MPI_File_write_ordered of each rank's first value at
 *                the shared file pointer, moved to byte 128.
 *
 * Stops: stop_here() with the views set and nothing written, the two
 * collective writes, stop_pending() with the iwrites posted.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROWS = 8, COLS = 12, PROWS = 2, PCOLS = 2, LOCAL = (ROWS / PROWS) * (COLS / PCOLS) };

int my_rank;
int local[LOCAL];
MPI_File fh_sub = MPI_FILE_NULL, fh_darray = MPI_FILE_NULL, fh_pending = MPI_FILE_NULL;
MPI_File fh_null = MPI_FILE_NULL;
MPI_Datatype block_t, darray_t;
MPI_Request pending_reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};

void stop_here(void) {}
void stop_pending(void) {}

static MPI_File open_file(const char *dir, const char *name, int amode)
{
    char path[4096];
    MPI_File fh;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "io2d: cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return fh;
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    const int rank = my_rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != PROWS * PCOLS) {
        fprintf(stderr, "io2d: run with %d ranks\n", PROWS * PCOLS);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const char *dir = getenv("IO2D_DIR") ? getenv("IO2D_DIR") : ".";
    for (int k = 0; k < LOCAL; k++)
        local[k] = 1000 * rank + k;

    int sizes[2] = {ROWS, COLS}, subsizes[2] = {ROWS / PROWS, COLS / PCOLS};
    int starts[2] = {(rank / PCOLS) * subsizes[0], (rank % PCOLS) * subsizes[1]};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &block_t);
    MPI_Type_commit(&block_t);
    MPI_Type_set_name(block_t, "block_t");
    int distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {PROWS, PCOLS};
    MPI_Type_create_darray(size, rank, 2, sizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT,
                           &darray_t);
    MPI_Type_commit(&darray_t);
    MPI_Type_set_name(darray_t, "darray_t");

    fh_sub = open_file(dir, "sub.dat", MPI_MODE_WRONLY | MPI_MODE_CREATE);
    MPI_File_set_view(fh_sub, 0, MPI_INT, block_t, "native", MPI_INFO_NULL);

    fh_darray = open_file(dir, "darray.dat", MPI_MODE_RDWR | MPI_MODE_CREATE);
    if (rank == 0) {
        char header[16];
        memset(header, 'H', sizeof header);
        MPI_File_write_at(fh_darray, 0, header, sizeof header, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    MPI_File_set_view(fh_darray, 16, MPI_INT, darray_t, "native", MPI_INFO_NULL);

    fh_pending = open_file(dir, "pending.dat", MPI_MODE_WRONLY | MPI_MODE_CREATE);
    /* the program's types are its own: the files' views keep theirs */
    MPI_Type_free(&darray_t);
    stop_here();

    MPI_File_write_all(fh_sub, local, LOCAL, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_write_at_all(fh_darray, 0, local, LOCAL, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_iwrite_at(fh_pending, 16 * rank, local, 4, MPI_INT, &pending_reqs[0]);
    MPI_File_seek(fh_pending, 64 + 16 * rank, MPI_SEEK_SET);
    MPI_File_iwrite(fh_pending, local + 4, 4, MPI_INT, &pending_reqs[1]);
    stop_pending();
    MPI_Status statuses[2];
    MPI_Waitall(2, pending_reqs, statuses);
    MPI_File_seek_shared(fh_pending, 128, MPI_SEEK_SET);
    MPI_File_write_ordered(fh_pending, local, 1, MPI_INT, MPI_STATUS_IGNORE);

    MPI_File_close(&fh_sub);
    MPI_File_close(&fh_darray);
    MPI_File_close(&fh_pending);
    MPI_Type_free(&block_t);
    MPI_Finalize();
    return 0;
}
