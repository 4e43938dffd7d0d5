/*
 * ctx_requests: pending requests, persistent requests, Alltoallw, comms,
 * ops -- run as a single rank (messages to itself).  Stops in
 * stop_pending() with requests posted, stop_done() after the Waitall, and
 * enters MPI_Alltoallw with per-peer datatypes.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

double rows[4][6];
int ints[8];
char text[16];
double rbuf[4][6];
int rints[8];
MPI_Request reqs[4];
MPI_Request persist_req;
MPI_Status statuses[4];
MPI_Comm dup_comm;
MPI_Op my_op;
MPI_Op sum_op = MPI_SUM;
MPI_Comm world = MPI_COMM_WORLD;
MPI_Datatype row_t, pair_t;
double *row_ptr;

void stop_pending(void) {}
void stop_done(void) {}

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in; (void)inout; (void)len; (void)dt;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            rows[i][j] = 10 * i + j;
    for (int k = 0; k < 8; k++)
        ints[k] = 100 + k;
    strcpy(text, "hello");
    MPI_Type_contiguous(6, MPI_DOUBLE, &row_t);
    MPI_Type_commit(&row_t);
    MPI_Type_set_name(row_t, "row_t");
    MPI_Type_vector(2, 1, 2, MPI_INT, &pair_t);
    MPI_Type_commit(&pair_t);
    MPI_Type_set_name(pair_t, "pair_t");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup_comm);
    MPI_Comm_set_name(dup_comm, "dup_comm");
    MPI_Op_create(my_sum, 1, &my_op);

    MPI_Irecv(rbuf, 2, row_t, 0, 5, dup_comm, &reqs[0]);
    MPI_Irecv(rints, 2, pair_t, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(rows, 2, row_t, 0, 5, dup_comm, &reqs[2]);
    MPI_Isend(ints, 2, pair_t, 0, 6, MPI_COMM_WORLD, &reqs[3]);
    MPI_Send_init(text, 6, MPI_CHAR, 0, 9, MPI_COMM_WORLD, &persist_req);
    row_ptr = &rbuf[1][2];
    stop_pending();
    MPI_Waitall(4, reqs, statuses);
    stop_done();

    /* Alltoallw with per-peer datatypes (one peer: this rank) */
    int scounts[1] = {2}, sdispls[1] = {0}, rcounts[1] = {2}, rdispls[1] = {0};
    MPI_Datatype stypes[1] = {row_t}, rtypes[1] = {row_t};
    MPI_Alltoallw(rows, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
    int in = 1, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, my_op, MPI_COMM_WORLD);
    char packed[256];
    int pos = 0;
    MPI_Pack(rows, 1, row_t, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
    MPI_Request_free(&persist_req);
    MPI_Op_free(&my_op);
    MPI_Comm_free(&dup_comm);
    MPI_Type_free(&row_t);
    MPI_Type_free(&pair_t);
    MPI_Finalize();
    return 0;
}
