/*
 * ctx_eager: requests MPI completes when they are posted (2 ranks).
 *
 * Rank 0 posts an eager Isend to rank 1 (tag 12), an Isend to MPI_PROC_NULL
 * (tag 14), an Irecv from MPI_PROC_NULL, an Irecv from rank 1 (tag 13) that
 * stays pending until rank 1 sends after the barrier, and two Rputs to
 * MPI_PROC_NULL; it stops in stop_eager(), then waits for all of them.  MPI
 * completes every request but the Irecv from rank 1 at once, handing out the
 * same handle for several of them (MPICH: builtin requests; Open MPI:
 * ompi_request_empty).
 */
#include <mpi.h>

int payload = 42, got13 = -1, got_null = -1, one = 1, window_int;
MPI_Request reqs[6];

void stop_eager(void) {}

int main(int argc, char **argv)
{
    int rank;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&window_int, sizeof window_int, sizeof window_int, MPI_INFO_NULL,
                   MPI_COMM_SELF, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Isend(&payload, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(&payload, 1, MPI_INT, MPI_PROC_NULL, 14, MPI_COMM_WORLD, &reqs[1]);
        MPI_Irecv(&got_null, 1, MPI_INT, MPI_PROC_NULL, 15, MPI_COMM_WORLD, &reqs[2]);
        MPI_Irecv(&got13, 1, MPI_INT, 1, 13, MPI_COMM_WORLD, &reqs[3]);
        MPI_Rput(&one, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &reqs[4]);
        MPI_Rput(&one, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &reqs[5]);
        stop_eager();
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Status statuses[6];
        MPI_Waitall(6, reqs, statuses);
    } else {
        int got12;
        MPI_Recv(&got12, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&got12, 1, MPI_INT, 0, 13, MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
