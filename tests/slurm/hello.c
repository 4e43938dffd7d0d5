/* Every rank says who it is and where it runs, after an MPI_Allreduce that
 * only completes when every rank reached every other (across the nodes). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, length, sum = 0;
    char node[MPI_MAX_PROCESSOR_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(node, &length);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d on %s: sum %d\n", rank, size, node, sum);
    MPI_Finalize();
    return 0;
}
