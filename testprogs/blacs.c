/*
 * blacs: the exchange ScaLAPACK's BLACS makes (4 ranks), where every rank
 * was once reported "blocked for good" at a PMPI_Recv breakpoint.
 *
 * On a duplicate of MPI_COMM_WORLD (BLACS's system context) every rank
 * sends one double with MPI_Isend, completes it with MPI_Testall (the
 * message is small: MPI sends it eagerly), then receives with MPI_Recv, tag
 * 9976 as BLACS's BI_Srecv: rank 0 from 2, 2 from 3, 3 from 1, 1 from 0 --
 * a cycle of receives, each with its message already in flight.
 */
#include <mpi.h>
#include <stdio.h>

/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which gcc takes for a
 * zero-sized array. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#define TAG 9976

int main(int argc, char **argv)
{
    static const int source[4] = {2, 0, 3, 1}, dest[4] = {1, 3, 0, 2};
    int rank, size, flag = 0;
    double out, in = -1;
    MPI_Comm system;
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        fprintf(stderr, "blacs: run on 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &system);
    out = 10.0 * rank;
    MPI_Isend(&out, 1, MPI_DOUBLE, dest[rank], TAG, system, &r);
    while (!flag)
        MPI_Testall(1, &r, &flag, MPI_STATUSES_IGNORE);
    MPI_Barrier(system); /* every message has left its sender */
    MPI_Recv(&in, 1, MPI_DOUBLE, source[rank], TAG, system, MPI_STATUS_IGNORE);
    printf("rank %d got %g\n", rank, in);
    MPI_Comm_free(&system);
    MPI_Finalize();
    return 0;
}
