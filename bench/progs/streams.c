/*
 * bench/progs/streams.c: types and buffers for the where and JSON benchmarks
 * (bench/run.py streams).  Stops in stop_here() with
 *   stacked = vector(5*10^7, 1, 0, MPI_INT): 5*10^7 ints on the same 4 bytes
 *   overlap = hvector(5*10^7, 1, 4, MPI_DOUBLE): doubles overlapping in pairs
 *   tiny    = vector(10, 1, 1, MPI_INT): 10 elements
 *   big7    = contiguous(10^7, MPI_INT), small3 = contiguous(10^3, MPI_INT)
 *   jvec    = vector(10^6, 4, 8, MPI_DOUBLE) over jbuf: 4*10^6 elements
 *   jsmall  = vector(250, 4, 8, MPI_DOUBLE) over jbuf: 10^3 elements
 */
#include <mpi.h>
#include <stdlib.h>

#define NJVEC 1000000

double *jbuf;
MPI_Datatype stacked, overlap, tiny, big7, small3, jvec, jsmall;

__attribute__((noinline)) void stop_here(void) { __asm__ volatile("" ::: "memory"); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    jbuf = malloc(sizeof(double) * 8 * NJVEC);
    /* values that differ from their neighbours: nothing folds */
    for (long k = 0; k < 8L * NJVEC; k++)
        jbuf[k] = k * 0.25 + 1.0 / (k + 3);
    MPI_Type_vector(50000000, 1, 0, MPI_INT, &stacked);
    MPI_Type_create_hvector(50000000, 1, 4, MPI_DOUBLE, &overlap);
    MPI_Type_vector(10, 1, 1, MPI_INT, &tiny);
    MPI_Type_contiguous(10000000, MPI_INT, &big7);
    MPI_Type_contiguous(1000, MPI_INT, &small3);
    MPI_Type_vector(NJVEC, 4, 8, MPI_DOUBLE, &jvec);
    MPI_Type_vector(250, 4, 8, MPI_DOUBLE, &jsmall);
    MPI_Datatype all[7] = {stacked, overlap, tiny, big7, small3, jvec, jsmall};
    for (int k = 0; k < 7; k++)
        MPI_Type_commit(&all[k]);

    stop_here();

    for (int k = 0; k < 7; k++)
        MPI_Type_free(&all[k]);
    free(jbuf);
    MPI_Finalize();
    return 0;
}
