/*
 * job: a whole MPI job for the job console (mpipp-job), any number of ranks.
 *
 * Every rank writes its pid to $JOB_PIDDIR/started.RANK once MPI is up.
 *
 *   job deadlock   stop_here() with locals that differ by rank parity, then
 *                  writes $JOB_PIDDIR/blocking.RANK and blocks for good: rank 0
 *                  MPI_Ssend tag 9 to 1 while rank 1 waits in MPI_Recv for
 *                  tag 10 from 0 (a tag mismatch), every other rank in
 *                  MPI_Barrier(MPI_COMM_WORLD).
 *   job mismatch   rank 0 sends one particle_t {int; double[2]} to rank 1,
 *                  which receives two wire_t {int; int; double} (the
 *                  signatures differ at element 1); then every rank calls
 *                  MPI_Bcast of 4 ints from root 0, except rank 2: 3 ints.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "piddir.h"

struct particle { int id; double pos[2]; };
struct wire { int id, tag; double value; };

void __attribute__((noinline)) stop_here(void)
{
    __asm__ volatile("");
}

static void deadlock(int rank)
{
    int parity = rank % 2;
    int vals[8];
    MPI_Datatype vals_t = MPI_INT;
    for (int k = 0; k < 8; k++)
        vals[k] = k;
    vals[3] = 100 + parity;
    vals[6] = rank;
    stop_here();
    write_pid("blocking", rank, (int)getpid());
    (void)vals_t;
    if (rank == 0)
        MPI_Ssend(vals, 4, MPI_INT, 1, 9, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(vals, 4, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d parity %d\n", rank, parity);
}

static void mismatch(int rank)
{
    MPI_Datatype particle_t, wire_t;
    int lengths[2] = {1, 2}, wire_lengths[2] = {2, 1};
    MPI_Aint displs[2] = {offsetof(struct particle, id), offsetof(struct particle, pos)};
    MPI_Aint wire_displs[2] = {offsetof(struct wire, id), offsetof(struct wire, value)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, lengths, displs, types, &particle_t);
    MPI_Type_commit(&particle_t);
    MPI_Type_set_name(particle_t, "particle_t");
    MPI_Type_create_struct(2, wire_lengths, wire_displs, types, &wire_t);
    MPI_Type_commit(&wire_t);
    MPI_Type_set_name(wire_t, "wire_t");
    struct particle p = {7, {1.5, 2.5}};
    struct wire w[2];
    memset(w, 0, sizeof w);
    if (rank == 0)
        MPI_Ssend(&p, 1, particle_t, 1, 5, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(w, 2, wire_t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int ints[4] = {rank, rank, rank, rank};
    MPI_Bcast(ints, rank == 2 ? 3 : 4, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Type_free(&particle_t);
    MPI_Type_free(&wire_t);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    write_pid("started", rank, (int)getpid());
    if (argc > 1 && strcmp(argv[1], "mismatch") == 0)
        mismatch(rank);
    else
        deadlock(rank);
    MPI_Finalize();
    return 0;
}
