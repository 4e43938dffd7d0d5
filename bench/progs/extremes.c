/*
 * bench/progs/extremes.c: legal extreme types for the extremes benchmark
 * (bench/run.py extremes).  Stops in stop_here() with
 *   big     = indexed(10^6 blocks of 1..3 ints, irregular displacements)
 *   ten     = the same with 10 blocks
 *   dups    = MPI_INT dup'ed 100 times (100 nested stride-0 loops)
 *   deep    = subarray of 32 dimensions [2]*32, subsizes 1, starts 0 of
 *             MPI_CHAR: one element, at offset 0 of buf
 *   huge    = subarray [2^30, 2^30], subsizes [2, 3], starts [5, 7] of
 *             MPI_CHAR (an extent of 2^60 bytes)
 *   one     = MPI_CHAR
 */
#include <mpi.h>
#include <stdlib.h>

#define NBLOCKS 1000000

int *buf;
MPI_Datatype big, ten, dups, deep, huge, one = MPI_CHAR;

__attribute__((noinline)) void stop_here(void) { __asm__ volatile("" ::: "memory"); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int *bl = malloc(sizeof(int) * NBLOCKS), *displs = malloc(sizeof(int) * NBLOCKS);
    for (int k = 0; k < NBLOCKS; k++) {
        bl[k] = 1 + k % 3;
        displs[k] = 7 * k + k % 5;
    }
    buf = calloc(7L * NBLOCKS + 8, sizeof(int));
    MPI_Type_indexed(NBLOCKS, bl, displs, MPI_INT, &big);
    MPI_Type_indexed(10, bl, displs, MPI_INT, &ten);
    dups = MPI_INT;
    for (int k = 0; k < 100; k++) {
        MPI_Datatype next;
        MPI_Type_dup(dups, &next);
        if (dups != MPI_INT)
            MPI_Type_free(&dups);
        dups = next;
    }
    int sizes[32], subsizes[32], starts[32];
    for (int d = 0; d < 32; d++) {
        sizes[d] = 2;
        subsizes[d] = 1;
        starts[d] = 0;
    }
    MPI_Type_create_subarray(32, sizes, subsizes, starts, MPI_ORDER_C, MPI_CHAR, &deep);
    int huge_sizes[2] = {1 << 30, 1 << 30}, huge_subsizes[2] = {2, 3}, huge_starts[2] = {5, 7};
    MPI_Type_create_subarray(2, huge_sizes, huge_subsizes, huge_starts, MPI_ORDER_C, MPI_CHAR,
                             &huge);
    MPI_Datatype all[5] = {big, ten, dups, deep, huge};
    for (int k = 0; k < 5; k++)
        MPI_Type_commit(&all[k]);
    stop_here();
    for (int k = 0; k < 5; k++)
        MPI_Type_free(&all[k]);
    free(bl);
    free(displs);
    free(buf);
    MPI_Finalize();
    return 0;
}
