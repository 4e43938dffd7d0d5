/*
 * sleeper: builds a datatype and a buffer, then waits (up to a minute) until
 * a debugger attaches and sets `release`, so tests can attach with -p PID.
 * It prints "ready" once the type exists.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

volatile int release;
double halo[12];

int main(int argc, char **argv)
{
    MPI_Datatype halo_t;
    MPI_Init(&argc, &argv);
    for (int k = 0; k < 12; k++)
        halo[k] = k * 1.5;
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &halo_t);
    MPI_Type_commit(&halo_t);
    MPI_Type_set_name(halo_t, "halo_t");
    printf("ready\n");
    fflush(stdout);
    for (int waited = 0; !release && waited < 600; waited++)
        usleep(100000);
    MPI_Type_free(&halo_t);
    MPI_Finalize();
    return release ? 0 : 1;
}
