/*
 * bench/progs/pictures.c: types and buffers for the layout and dump
 * benchmarks (bench/run.py layout, dump).  Stops in stop_here() with
 *   vec     = vector(250000, 4, 8, MPI_DOUBLE): 10^6 elements, regular
 *   scatter = indexed(10^6 blocks of 1 double, irregular displacements): 10^6
 *             elements that no repetition describes
 *   small   = vector(2, 2, 4, MPI_DOUBLE): 4 elements
 *   pairs   = vector(5 * 10^6, 2, 3, MPI_DOUBLE) over buf: 10^7 elements
 *   mid     = vector(5 * 10^5, 2, 3, MPI_DOUBLE) over buf: 10^6 elements
 *   few     = vector(5 * 10^4, 2, 3, MPI_DOUBLE) over buf: 10^5 elements
 */
#include <mpi.h>
#include <stdlib.h>

#define NBLOCKS 1000000
#define NPAIRS 5000000

double *buf;
MPI_Datatype vec, scatter, small, pairs, mid, few;

__attribute__((noinline)) void stop_here(void) { __asm__ volatile("" ::: "memory"); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    buf = malloc(sizeof(double) * 3 * NPAIRS);
    for (long k = 0; k < 3L * NPAIRS; k++)
        buf[k] = k * 0.25 + 1.0 / (k + 3);
    int *ones = malloc(sizeof(int) * NBLOCKS), *displs = malloc(sizeof(int) * NBLOCKS);
    for (int k = 0; k < NBLOCKS; k++) {
        ones[k] = 1;
        displs[k] = 3 * k + (int)((k * 7919L) % 3); /* irregular gaps between blocks */
    }
    MPI_Type_vector(250000, 4, 8, MPI_DOUBLE, &vec);
    MPI_Type_indexed(NBLOCKS, ones, displs, MPI_DOUBLE, &scatter);
    MPI_Type_vector(2, 2, 4, MPI_DOUBLE, &small);
    MPI_Type_vector(NPAIRS, 2, 3, MPI_DOUBLE, &pairs);
    MPI_Type_vector(NPAIRS / 10, 2, 3, MPI_DOUBLE, &mid);
    MPI_Type_vector(NPAIRS / 100, 2, 3, MPI_DOUBLE, &few);
    MPI_Datatype all[6] = {vec, scatter, small, pairs, mid, few};
    for (int k = 0; k < 6; k++)
        MPI_Type_commit(&all[k]);
    stop_here();
    for (int k = 0; k < 6; k++)
        MPI_Type_free(&all[k]);
    free(ones);
    free(displs);
    free(buf);
    MPI_Finalize();
    return 0;
}
