/*
 * hang: jobs for mpipp-job --until-hang (2 ranks).
 *
 *   hang hang SECONDS    the ranks exchange messages for SECONDS, then each
 *                        writes $JOB_PIDDIR/blocking.RANK and waits for a
 *                        message from the other: rank 0 polling MPI_Test in
 *                        a loop, rank 1 in MPI_Recv -- a deadlock
 *   hang busy SECONDS    for SECONDS: rank 1 computes a second between
 *                        collectives while rank 0 waits in them; then rank 0
 *                        polls MPI_Test in a loop while rank 1 computes a
 *                        second before each message -- no hang; rank 0
 *                        exits with status 3
 *   hang crash SECONDS   the ranks exchange messages for SECONDS, then
 *                        rank 1 dies of SIGSEGV while rank 0 waits for it
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "piddir.h"

/* Computes for about `seconds` without calling MPI. */
static double compute(double seconds)
{
    volatile double x = 0;
    double end = MPI_Wtime() + seconds;
    while (MPI_Wtime() < end)
        for (int k = 0; k < 100000; k++)
            x += k * 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    double seconds = argc > 2 ? atof(argv[2]) : 3, end = MPI_Wtime() + seconds;
    const char *what = argc > 1 ? argv[1] : "hang";
    if (strcmp(what, "hang") == 0 || strcmp(what, "crash") == 0) {
        for (;;) {
            int more = MPI_Wtime() < end; /* rank 0's clock decides */
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (!more)
                break;
            MPI_Sendrecv_replace(&x, 1, MPI_INT, other, 1, other, 1, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
        }
        write_pid("blocking", rank, (int)getpid());
        if (strcmp(what, "crash") == 0 && rank == 1)
            raise(SIGSEGV);
        if (rank == 0) {
            MPI_Request r;
            int flag = 0;
            MPI_Irecv(&x, 1, MPI_INT, other, 2, MPI_COMM_WORLD, &r);
            while (!flag)
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_INT, other, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        double half = MPI_Wtime() + seconds / 2;
        int more = 1;
        while (more) {
            if (rank == 1)
                compute(1);
            more = rank == 0 && MPI_Wtime() < half; /* rank 0's clock decides */
            MPI_Allreduce(MPI_IN_PLACE, &more, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        }
        more = 1;
        while (more) {
            if (rank == 0) {
                MPI_Request r;
                int flag = 0;
                MPI_Irecv(&more, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r);
                while (!flag)
                    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            } else {
                compute(1);
                more = MPI_Wtime() < end;
                MPI_Send(&more, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
            }
        }
    }
    MPI_Finalize();
    return rank == 0 ? 3 : 0;
}
