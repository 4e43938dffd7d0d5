/*
 * bench/progs/bytes.c: a buffer described as HDF5 describes it, for the
 * "libraries" benchmark (bench/run.py libraries).  Stops in stop_here() with
 *   h5t  = the type parallel HDF5 1.10 builds for a 512 x 1024 block of
 *          doubles inside a 514 x 1026 array (a halo of one cell), from bytes:
 *          resized(hindexed(1, vector(1, 512, 1, resized(hindexed(1,
 *          vector(1, 1024, 1, contiguous(8, MPI_BYTE))))))): 4 MiB of data
 *   dvec = the same bytes as doubles: vector(512, 1024, 1026, MPI_DOUBLE),
 *          used from &buf[1][1]
 * then recurses 18 levels deep and calls MPI_Bcast on MPI_COMM_SELF: a
 * stack of 21 frames inside an MPI call, for the backtrace benchmark.
 */
#include <mpi.h>
#include <stdlib.h>

#define ROWS 512
#define COLS 1024
#define DEPTH 18

double *buf;
MPI_Datatype h5t, dvec;

__attribute__((noinline)) void stop_here(void) { __asm__ volatile("" ::: "memory"); }

/* HDF5's hyperslab type of one dimension: count blocks of `inner`, placed
 * at `start` bytes and resized to the dimension's extent. */
static MPI_Datatype dimension(MPI_Datatype inner, int count, MPI_Aint start, MPI_Aint extent)
{
    MPI_Datatype vec, placed, resized;
    int one = 1;
    MPI_Type_vector(1, count, 1, inner, &vec);
    MPI_Type_create_hindexed(1, &one, &start, vec, &placed);
    MPI_Type_create_resized(placed, 0, extent, &resized);
    MPI_Type_free(&vec);
    MPI_Type_free(&placed);
    return resized;
}

__attribute__((noinline)) int deeper(int depth)
{
    int value = depth;
    if (depth > 0)
        return deeper(depth - 1) + 1;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_SELF);
    return value;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    buf = malloc(sizeof(double) * (ROWS + 2) * (COLS + 2));
    for (long k = 0; k < (long)(ROWS + 2) * (COLS + 2); k++)
        buf[k] = k * 0.25 + 1.0 / (k + 3);
    MPI_Datatype element, row;
    MPI_Type_contiguous(8, MPI_BYTE, &element);
    row = dimension(element, COLS, 8, (COLS + 2) * 8);
    h5t = dimension(row, ROWS, (COLS + 2) * 8, (MPI_Aint)(ROWS + 2) * (COLS + 2) * 8);
    MPI_Type_commit(&h5t);
    MPI_Type_vector(ROWS, COLS, COLS + 2, MPI_DOUBLE, &dvec);
    MPI_Type_commit(&dvec);
    stop_here();
    deeper(DEPTH);
    MPI_Type_free(&dvec);
    MPI_Type_free(&h5t);
    MPI_Type_free(&row);
    MPI_Type_free(&element);
    free(buf);
    MPI_Finalize();
    return 0;
}
