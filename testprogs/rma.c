/* One-sided communication on 2 ranks, every rank doing the same, for
 * mpipp's RMA support (tests/context/test_rma.py): windows of each flavor,
 * each kind of epoch, and RMA calls whose target datatype differs from
 * the origin's.
 *
 *   A  MPI_Win_create on a dup of MPI_COMM_WORLD, named "grid_win", fence
 *      epoch: MPI_Get of column 2 of this rank's own grid (the target is in
 *      this process), MPI_Put of a row into the peer's grid
 *   B  exclusive lock on the peer: MPI_Accumulate (MPI_SUM)
 *   C  PSCW on the peer's group (MPI_Comm_group, MPI_Group_incl):
 *      MPI_Rget of the peer's row 3, completed by MPI_Wait
 *   D  MPI_Win_allocate_shared on the node's communicator: MPI_Get of the
 *      peer's segment through a vector (mapped in this process too)
 *   E  MPI_Win_create_dynamic with a region attached
 */
#include <mpi.h>
#include <stdio.h>

#define ROWS 4
#define COLS 6

void __attribute__((noinline)) stop_here(void)
{
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size;
    MPI_Comm grid_comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &grid_comm);

    double grid[ROWS][COLS], column[ROWS], row[COLS], pair[2] = {0.5, 0.25};
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            grid[i][j] = 100 * rank + 10 * i + j;
    for (int j = 0; j < COLS; j++)
        row[j] = -(double)(j + 1);
    MPI_Datatype col_t, pair_t;
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &col_t);
    MPI_Type_commit(&col_t);
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair_t);
    MPI_Type_commit(&pair_t);

    /* A: fence epoch */
    MPI_Win win;
    MPI_Win_create(grid, sizeof grid, sizeof(double), MPI_INFO_NULL, grid_comm, &win);
    MPI_Win_set_name(win, "grid_win");
    MPI_Win_fence(0, win);
    MPI_Get(column, ROWS, MPI_DOUBLE, rank, 2, 1, col_t, win);
    MPI_Put(row, COLS, MPI_DOUBLE, peer, COLS, COLS, MPI_DOUBLE, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

    /* B: passive target */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win);
    MPI_Accumulate(pair, 2, MPI_DOUBLE, peer, 0, 1, pair_t, MPI_SUM, win);
    MPI_Win_unlock(peer, win);
    MPI_Barrier(grid_comm);

    /* C: PSCW */
    MPI_Group all, peer_group;
    MPI_Comm_group(grid_comm, &all);
    MPI_Group_incl(all, 1, &peer, &peer_group);
    MPI_Win_post(peer_group, 0, win);
    MPI_Win_start(peer_group, 0, win);
    MPI_Request req;
    double got[COLS];
    MPI_Rget(got, COLS, MPI_DOUBLE, peer, 3 * COLS, COLS, MPI_DOUBLE, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_complete(win);
    MPI_Win_wait(win);

    /* D: shared memory */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    double *mine, every_other[4];
    MPI_Win shared;
    MPI_Win_allocate_shared(8 * sizeof(double), sizeof(double), MPI_INFO_NULL, node, &mine, &shared);
    for (int k = 0; k < 8; k++)
        mine[k] = 1000 * rank + k;
    MPI_Win_fence(0, shared);
    MPI_Datatype every_other_t;
    MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &every_other_t);
    MPI_Type_commit(&every_other_t);
    int node_rank, node_size;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Get(every_other, 4, MPI_DOUBLE, (node_rank + 1) % node_size, 0, 1, every_other_t, shared);
    MPI_Win_fence(0, shared);

    /* E: dynamic */
    MPI_Win dynamic;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dynamic);
    MPI_Win_attach(dynamic, row, sizeof row);
    stop_here();
    MPI_Win_detach(dynamic, row);
    MPI_Win_free(&dynamic);

    MPI_Win_free(&shared);
    MPI_Win_free(&win);
    MPI_Group_free(&peer_group);
    MPI_Group_free(&all);
    MPI_Type_free(&every_other_t);
    MPI_Type_free(&pair_t);
    MPI_Type_free(&col_t);
    MPI_Comm_free(&node);
    MPI_Comm_free(&grid_comm);
    printf("rma %d: column %g %g, got %g\n", rank, column[0], column[3], got[0]);
    MPI_Finalize();
    return 0;
}
