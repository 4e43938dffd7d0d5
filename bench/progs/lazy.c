/*
 * bench/progs/lazy.c: a huge buffer for the MI lazy-expansion benchmark
 * (bench/run.py lazy).  vec = vector(2, 2, 4, MPI_DOUBLE), extent 48 bytes;
 * buf has room for 10^7 repetitions (480 MB of address space, calloc'd, so
 * only the pages gdb touches become real memory).
 */
#include <mpi.h>
#include <stdlib.h>

#define NREP 10000000L

double *buf;
MPI_Datatype vec;

__attribute__((noinline)) void stop_here(void) { __asm__ volatile("" ::: "memory"); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    buf = calloc(NREP * 6, sizeof(double));
    for (long k = 0; k < 6 * 1000; k++)
        buf[k] = k * 0.5;
    MPI_Type_vector(2, 2, 4, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    stop_here();
    MPI_Type_free(&vec);
    free(buf);
    MPI_Finalize();
    return 0;
}
