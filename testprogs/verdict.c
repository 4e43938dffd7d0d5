/*
 * verdict: small MPI jobs (2 ranks) that hang for good, each with its
 * correct twin that ends, for mpipp-job --until-hang: `waits` must call the
 * hang a deadlock with its reason (what `check` knows), and say nothing of
 * the twin.
 *
 *   verdict CASE            the faulty variant: it hangs
 *   verdict CASE twin       the correct twin: it ends (status 0)
 *
 * Cases:
 *   reduce_root         MPI_Reduce, each rank its own root
 *   ibarrier_scatter    rank 0 in MPI_Ibarrier (then MPI_Wait), rank 1 in
 *                       MPI_Scatter: different collectives on one comm
 *   iallreduce_ibcast   rank 0 MPI_Iallreduce, rank 1 MPI_Ibcast, both
 *                       then in MPI_Wait
 *   finalize_peer       rank 0 receives from rank 1, which is in
 *                       MPI_Finalize
 *   gone_member         rank 1 finalizes and exits while rank 0 is in
 *                       MPI_Allreduce (twin: rank 1 joins it first)
 *   init_stuck          rank 1 exits before MPI_Init: rank 0 stays in it
 *                       (twin: rank 1 calls MPI_Init too)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reduce_root(int rank, int twin)
{
    int x = rank, sum = 0;
    return MPI_Reduce(&x, &sum, 1, MPI_INT, MPI_SUM, twin ? 0 : rank, MPI_COMM_WORLD);
}

static int ibarrier_scatter(int rank, int twin)
{
    int send[2] = {1, 2}, got = 0;
    MPI_Request r;
    if (twin || rank == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    if (twin || rank == 1)
        MPI_Scatter(send, 1, MPI_INT, &got, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return 0;
}

static int iallreduce_ibcast(int rank, int twin)
{
    int x = rank, y = 0, z = 7;
    MPI_Request r[2];
    int n = 0;
    if (twin || rank == 0)
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[n++]);
    if (twin || rank == 1)
        MPI_Ibcast(&z, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[n++]);
    for (int k = 0; k < n; k++)
        MPI_Wait(&r[k], MPI_STATUS_IGNORE);
    return 0;
}

static int finalize_peer(int rank, int twin)
{
    int x = 5;
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (twin)
        MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    return 0;
}

static int gone_member(int rank, int twin)
{
    int x = rank, sum = 0;
    if (rank == 0 || twin)
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Finalize();
        exit(0);
    }
    return 0;
}

static const struct {
    const char *name;
    int (*run)(int rank, int twin);
} CASES[] = {
    {"reduce_root", reduce_root},         {"ibarrier_scatter", ibarrier_scatter},
    {"iallreduce_ibcast", iallreduce_ibcast}, {"finalize_peer", finalize_peer},
    {"gone_member", gone_member},
};

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "";
    int twin = argc > 2 && strcmp(argv[2], "twin") == 0, rank;
    if (strcmp(name, "init_stuck") == 0) {
        /* the launcher's rank number: the program has no other before MPI_Init */
        const char *r = getenv("PMI_RANK") ? getenv("PMI_RANK") : getenv("OMPI_COMM_WORLD_RANK");
        if (!twin && r && atoi(r) == 1)
            return 0;
        MPI_Init(&argc, &argv);
        MPI_Finalize();
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++)
        if (strcmp(name, CASES[k].name) == 0) {
            CASES[k].run(rank, twin);
            MPI_Finalize();
            return 0;
        }
    fprintf(stderr, "verdict: unknown case %s\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
}
