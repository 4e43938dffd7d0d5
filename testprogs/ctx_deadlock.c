/*
 * ctx_deadlock: two ranks both block in MPI_Recv with a derived datatype
 * (a classic deadlock).  Each rank writes its pid to $CTX_PIDDIR/pid.RANK so
 * a test can attach gdb to it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    double halo[12];
    MPI_Datatype halo_t;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int k = 0; k < 12; k++)
        halo[k] = -1.0 - k;
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &halo_t);
    MPI_Type_commit(&halo_t);
    MPI_Type_set_name(halo_t, "halo_t");
    const char *dir = getenv("CTX_PIDDIR");
    if (dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/pid.%d", dir, rank);
        FILE *f = fopen(path, "w");
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    /* both ranks receive first: nobody ever sends */
    MPI_Recv(halo, 1, halo_t, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(halo, 1, halo_t, 1 - rank, 7, MPI_COMM_WORLD);
    MPI_Type_free(&halo_t);
    MPI_Finalize();
    return 0;
}
