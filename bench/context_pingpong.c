/*
 * context_pingpong: cost of libmpireg's communication context on the hot path.
 *
 *   context_pingpong pingpong N   2 ranks, N round trips of 8 bytes
 *                                 (MPI_Send/MPI_Recv); rank 0 prints
 *                                 "pingpong NS_PER_ROUND_TRIP"
 *   context_pingpong procnull N   any rank: N MPI_Send to MPI_PROC_NULL (MPI
 *                                 returns at once, so the wrapper's own cost
 *                                 dominates); prints "procnull NS_PER_CALL"
 *
 * Run with and without LD_PRELOAD=build/libmpireg.so (bench/context_pingpong.py).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    long n = argc > 2 ? atol(argv[2]) : 100000;
    const char *mode = argc > 1 ? argv[1] : "pingpong";
    double msg = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "procnull") == 0) {
        for (long i = 0; i < n / 10; i++) /* warm-up */
            MPI_Send(&msg, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++)
            MPI_Send(&msg, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        if (rank == 0)
            printf("procnull %.3f\n", (t1 - t0) * 1e9 / (double)n);
    } else {
        if (size != 2) {
            if (rank == 0)
                fprintf(stderr, "pingpong needs 2 ranks\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        int peer = 1 - rank;
        double t0 = 0;
        for (long i = -n / 10; i < n; i++) { /* the first n/10 round trips warm up */
            if (i == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            if (rank == 0) {
                MPI_Send(&msg, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(&msg, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&msg, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&msg, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
            }
        }
        double t1 = MPI_Wtime();
        if (rank == 0)
            printf("pingpong %.3f\n", (t1 - t0) * 1e9 / (double)n);
    }
    MPI_Finalize();
    return 0;
}
