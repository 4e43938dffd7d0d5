/*
 * ctx_threads: MPI_THREAD_MULTIPLE, one rank.  Two threads block inside MPI
 * (MPI_Recv with a derived type, MPI_Probe) while the main thread stops in
 * stop_here(); then main sends the messages that release them.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int grid[4][4];
MPI_Datatype col_t;

void stop_here(void) {}

static void *receiver(void *arg)
{
    (void)arg;
    MPI_Recv(&grid[0][1], 1, col_t, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

static void *prober(void *arg)
{
    (void)arg;
    MPI_Status st;
    int x;
    MPI_Probe(0, 22, MPI_COMM_WORLD, &st);
    MPI_Recv(&x, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, col[4] = {7, 8, 9, 10}, x = 5;
    pthread_t a, b;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 0;
    }
    for (int i = 0; i < 16; i++)
        grid[i / 4][i % 4] = i;
    MPI_Type_vector(4, 1, 4, MPI_INT, &col_t);
    MPI_Type_commit(&col_t);
    MPI_Type_set_name(col_t, "col_t");
    pthread_create(&a, NULL, receiver, NULL);
    pthread_create(&b, NULL, prober, NULL);
    usleep(500000); /* both threads are blocked inside MPI by now */
    stop_here();
    MPI_Send(col, 4, MPI_INT, 0, 11, MPI_COMM_WORLD);
    MPI_Send(&x, 1, MPI_INT, 0, 22, MPI_COMM_WORLD);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    MPI_Type_free(&col_t);
    MPI_Finalize();
    return 0;
}
