/*
 * ends: a job that ends badly on purpose, for the console's exit status and
 * its notice of ranks gone, and a program whose own MPI_Wait is the first.
 *   ends segv R       rank R dereferences a null pointer after MPI_Init
 *   ends kill R       rank R is killed (SIGKILL: no debugger can stop it)
 *   ends abort R      rank R calls MPI_Abort(MPI_COMM_WORLD, 3)
 *   ends wait         every rank exchanges with its neighbour: MPI_Wait
 * then every rank meets in a barrier and finalizes.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, victim = argc > 2 ? atoi(argv[2]) : -1;
    const char *mode = argc > 1 ? argv[1] : "wait";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == victim && strcmp(mode, "segv") == 0)
        *(volatile int *)(argc > 1000 ? argv : NULL) = 1;
    if (rank == victim && strcmp(mode, "kill") == 0)
        raise(SIGKILL);
    if (rank == victim && strcmp(mode, "abort") == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (strcmp(mode, "wait") == 0) {
        int out = rank, in = -1;
        MPI_Request request;
        MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &request);
        MPI_Send(&out, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        printf("rank %d got %d\n", rank, in);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
