/*
 * family: an MPI job whose ranks have threads and a child process of their
 * own, for the job console's stacks, calls and interrupt
 * (tests/job/test_job_readable.py).  Any number of ranks.
 *
 * Before MPI_Init every rank forks a child process that waits for signals
 * (in the rank's process group, as a shell's or a subprocess's child is;
 * it dies with the rank) and writes its pid to $JOB_PIDDIR/child.RANK.
 * Every rank starts two threads that wait in worker(), writes
 * $JOB_PIDDIR/blocking.RANK and blocks for good in MPI_Sendrecv: it sends
 * `outbox` to the next rank with tag 1 and waits for tag 2 from the
 * previous one into `inbox`.
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "piddir.h"

int outbox = 7, inbox = -1;

static void *worker(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size;
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (;;)
            pause();
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    write_pid("child", rank, (int)child);
    pthread_t threads[2];
    for (int k = 0; k < 2; k++)
        pthread_create(&threads[k], NULL, worker, NULL);
    write_pid("blocking", rank, (int)getpid());
    MPI_Sendrecv(&outbox, 1, MPI_INT, (rank + 1) % size, 1, &inbox, 1, MPI_INT,
                 (rank + size - 1) % size, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
