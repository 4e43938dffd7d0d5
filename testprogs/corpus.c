/*
 * corpus: small MPI deadlocks and type mismatches, one family of calls per
 * case, each with its correct twin, for the job console's `waits` and
 * `check` (tests/job/test_corpus.py keeps the expected verdicts).
 *
 *   corpus CASE...          for each case, on 3 ranks (mpiexec -n 3): the
 *                           faulty variant, then its twin (finalize: last)
 *   corpus real:CASE        the faulty variant only, unarmed: it hangs for
 *                           good (each rank writes $JOB_PIDDIR/blocking.RANK
 *                           first)
 *
 * A case runs on its own communicator of the ranks it needs (the others
 * call idle()).  Each rank makes the calls under test -- the ones that
 * deadlock or mismatch in the faulty variant -- with `armed` set, so that a
 * debugger can stop every rank at their entry (`break PMPI_Recv if armed`,
 * ...).  The faulty variant's calls can then be skipped (gdb `return 1`
 * from the PMPI frame: MPI never sees them; libmpireg records nothing for a
 * failed call) and the next variant runs: a polling loop also ends when
 * the debugger sets `escape`.  Calls before the armed ones complete on their
 * own (eager sends of a few bytes, posted requests).
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "piddir.h"

/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which gcc takes for a
 * zero-sized array. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

volatile int armed, escape, polls;
static int real; /* the faulty variant runs unarmed, for good */

void __attribute__((noinline)) idle(void)
{
    __asm__ volatile("");
}

/* Makes an armed call; its return code (not MPI_SUCCESS when the debugger
 * skipped it: the faulty variant's later calls are then not made either). */
static int armed_rc;
#define ARMED(call) (armed = !real, armed_rc = (call), armed = 0, armed_rc)
#define OK(call) (ARMED(call) == MPI_SUCCESS)

#define BIG (1 << 20) /* doubles: 8 MiB, sent by rendezvous by either MPI */
static double big[2][BIG];
static int v[8], w[8];

/* Polls with Test (or Iprobe) until it finds something or the debugger
 * sets escape; its fourth poll is armed (the thread polls by then). */
static void spin_test(MPI_Request *r)
{
    int flag = 0;
    for (polls = 0; !flag && !escape; polls++) {
        armed = polls == 3 && !real;
        MPI_Test(r, &flag, MPI_STATUS_IGNORE);
    }
    armed = 0;
}

static void spin_iprobe(int source, int tag, MPI_Comm comm)
{
    int flag = 0;
    for (polls = 0; !flag && !escape; polls++) {
        armed = polls == 3 && !real;
        MPI_Iprobe(source, tag, comm, &flag, MPI_STATUS_IGNORE);
    }
    armed = 0;
    if (flag)
        MPI_Recv(v, 1, MPI_INT, source, tag, comm, MPI_STATUS_IGNORE);
}

/* ---- point to point ---- */

static void ssend_tags(int twin, int me, MPI_Comm c)
{
    if (me == 0)
        ARMED(MPI_Ssend(v, 4, MPI_INT, 1, 9, c));
    else
        ARMED(MPI_Recv(v, 4, MPI_INT, 0, twin ? 9 : 10, c, MPI_STATUS_IGNORE));
}

static void recv_recv(int twin, int me, MPI_Comm c)
{
    if (me == 0)
        ARMED(MPI_Recv(v, 1, MPI_INT, 1, 1, c, MPI_STATUS_IGNORE));
    else if (twin)
        ARMED(MPI_Send(v, 1, MPI_INT, 0, 1, c));
    else
        ARMED(MPI_Recv(v, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
}

/* Both send first: 8 MiB goes by rendezvous, so they wait for receives that
 * come after.  The twin receives first on one side. */
static void send_send(int twin, int me, MPI_Comm c)
{
    int other = 1 - me;
    if (twin && me == 1) {
        if (OK(MPI_Recv(big[1], BIG, MPI_DOUBLE, other, 1, c, MPI_STATUS_IGNORE)))
            MPI_Send(big[0], BIG, MPI_DOUBLE, other, 1, c);
    } else if (OK(MPI_Send(big[0], BIG, MPI_DOUBLE, other, 1, c))) {
        MPI_Recv(big[1], BIG, MPI_DOUBLE, other, 1, c, MPI_STATUS_IGNORE);
    }
}

/* Buffered sends complete at once; the receives then find them in flight
 * (faulty: with the wrong tags). */
static void bsend(int twin, int me, MPI_Comm c)
{
    static char space[4096];
    void *old;
    int size;
    MPI_Buffer_attach(space, sizeof space);
    MPI_Bsend(v, 1, MPI_INT, 1 - me, 1, c);
    ARMED(MPI_Recv(w, 1, MPI_INT, 1 - me, twin ? 1 : 2, c, MPI_STATUS_IGNORE));
    MPI_Buffer_detach(&old, &size);
}

/* A ready send: the receive is posted first (faulty: with another tag). */
static void rsend(int twin, int me, MPI_Comm c)
{
    MPI_Request r;
    if (me == 1)
        MPI_Irecv(w, 1, MPI_INT, 0, twin ? 5 : 6, c, &r);
    MPI_Barrier(c);
    if (me == 0)
        ARMED(MPI_Rsend(v, 1, MPI_INT, 1, 5, c));
    else
        ARMED(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

static void isend_wait(int twin, int me, MPI_Comm c)
{
    MPI_Request r;
    if (me == 0)
        MPI_Issend(v, 1, MPI_INT, 1, 1, c, &r);
    else
        MPI_Irecv(w, 1, MPI_INT, 0, twin ? 1 : 2, c, &r);
    ARMED(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

static void persistent(int twin, int me, MPI_Comm c)
{
    MPI_Request r;
    if (me == 0)
        MPI_Ssend_init(v, 1, MPI_INT, 1, 1, c, &r);
    else
        MPI_Recv_init(w, 1, MPI_INT, 0, twin ? 1 : 2, c, &r);
    MPI_Start(&r);
    ARMED(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (twin)
        MPI_Request_free(&r);
}

static void sendrecv(int twin, int me, MPI_Comm c)
{
    int other = 1 - me;
    ARMED(MPI_Sendrecv(v, 1, MPI_INT, other, me ? 3 : 1, w, 1, MPI_INT, other,
                       twin ? (me ? 1 : 3) : (me ? 4 : 2), c, MPI_STATUS_IGNORE));
}

static void sendrecv_replace(int twin, int me, MPI_Comm c)
{
    int other = 1 - me;
    ARMED(MPI_Sendrecv_replace(v, 1, MPI_INT, other, me ? 2 : 1, other,
                               twin ? (me ? 1 : 2) : (me ? 3 : 2), c, MPI_STATUS_IGNORE));
}

static void probe(int twin, int me, MPI_Comm c)
{
    if (me == 0) {
        MPI_Status st;
        if (OK(MPI_Probe(1, 7, c, &st)))
            MPI_Recv(v, 1, MPI_INT, 1, 7, c, MPI_STATUS_IGNORE);
    } else if (twin) {
        ARMED(MPI_Send(w, 1, MPI_INT, 0, 7, c));
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 8, c, MPI_STATUS_IGNORE));
    }
}

static void mprobe(int twin, int me, MPI_Comm c)
{
    if (me == 0) {
        MPI_Message m;
        if (OK(MPI_Mprobe(1, 7, c, &m, MPI_STATUS_IGNORE)))
            MPI_Mrecv(v, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    } else if (twin) {
        ARMED(MPI_Send(w, 1, MPI_INT, 0, 7, c));
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 8, c, MPI_STATUS_IGNORE));
    }
}

/* Rank 1 sends tag 1 (in flight at the stop), then waits for rank 0, whose
 * Waitall also needs tag 2 (faulty: never sent). */
static void waitall(int twin, int me, MPI_Comm c)
{
    MPI_Request r[2];
    if (me == 0) {
        MPI_Irecv(v, 1, MPI_INT, 1, 1, c, &r[0]);
        MPI_Irecv(v + 1, 1, MPI_INT, 1, 2, c, &r[1]);
        if (OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE)))
            MPI_Send(v, 1, MPI_INT, 1, 3, c);
    } else {
        MPI_Send(w, 1, MPI_INT, 0, 1, c);
        if (twin)
            MPI_Send(w, 1, MPI_INT, 0, 2, c);
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 3, c, MPI_STATUS_IGNORE));
    }
}

/* Rank 0 waits for any of two receives from rank 1 (Waitany, or Waitsome),
 * rank 1 for rank 0 (faulty); in the twin rank 1 sent one first. */
static void wait_some_or_any(int twin, int me, MPI_Comm c, int some)
{
    MPI_Request r[2];
    int index[2], count;
    if (me == 0) {
        MPI_Irecv(v, 1, MPI_INT, 1, 1, c, &r[0]);
        MPI_Irecv(v + 1, 1, MPI_INT, 1, 2, c, &r[1]);
        if (OK(some ? MPI_Waitsome(2, r, &count, index, MPI_STATUSES_IGNORE)
                    : MPI_Waitany(2, r, index, MPI_STATUS_IGNORE))) {
            MPI_Send(v, 1, MPI_INT, 1, 5, c);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
    } else {
        if (twin)
            MPI_Send(w, 1, MPI_INT, 0, 2, c);
        if (OK(MPI_Recv(w, 1, MPI_INT, 0, 5, c, MPI_STATUS_IGNORE)) && twin)
            MPI_Send(w, 1, MPI_INT, 0, 1, c);
    }
}

static void waitany(int twin, int me, MPI_Comm c)
{
    wait_some_or_any(twin, me, c, 0);
}

static void waitsome(int twin, int me, MPI_Comm c)
{
    wait_some_or_any(twin, me, c, 1);
}

static void test_spin(int twin, int me, MPI_Comm c)
{
    MPI_Request r;
    if (me == 0) {
        MPI_Irecv(v, 1, MPI_INT, 1, 1, c, &r);
        spin_test(&r);
        MPI_Send(v, 1, MPI_INT, 1, 2, c);
    } else if (twin) {
        if (OK(MPI_Send(w, 1, MPI_INT, 0, 1, c)))
            MPI_Recv(w, 1, MPI_INT, 0, 2, c, MPI_STATUS_IGNORE);
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 2, c, MPI_STATUS_IGNORE));
    }
}

static void iprobe_spin(int twin, int me, MPI_Comm c)
{
    if (me == 0) {
        spin_iprobe(1, 7, c);
        MPI_Send(v, 1, MPI_INT, 1, 8, c);
    } else if (twin) {
        if (OK(MPI_Send(w, 1, MPI_INT, 0, 7, c)))
            MPI_Recv(w, 1, MPI_INT, 0, 8, c, MPI_STATUS_IGNORE);
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 8, c, MPI_STATUS_IGNORE));
    }
}

/* Rank 0 waits for any of 1 and 2; rank 1 for 0, rank 2 for 1 (faulty);
 * in the twin rank 2 sends to 0. */
static void any_source(int twin, int me, MPI_Comm c)
{
    if (me == 0) {
        if (OK(MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, 5, c, MPI_STATUS_IGNORE)))
            MPI_Send(v, 1, MPI_INT, 1, 6, c);
    } else if (me == 1) {
        if (OK(MPI_Recv(w, 1, MPI_INT, 0, 6, c, MPI_STATUS_IGNORE)) && twin)
            MPI_Send(w, 1, MPI_INT, 2, 7, c);
    } else if (twin) {
        if (OK(MPI_Send(w, 1, MPI_INT, 0, 5, c)))
            MPI_Recv(w, 1, MPI_INT, 1, 7, c, MPI_STATUS_IGNORE);
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 1, 7, c, MPI_STATUS_IGNORE));
    }
}

static void any_tag(int twin, int me, MPI_Comm c)
{
    if (me == 0)
        ARMED(MPI_Recv(v, 1, MPI_INT, 1, MPI_ANY_TAG, c, MPI_STATUS_IGNORE));
    else if (twin)
        ARMED(MPI_Send(w, 1, MPI_INT, 0, 3, c));
    else
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
}

/* The faulty variant sends to MPI_PROC_NULL: nobody gets it. */
static void proc_null(int twin, int me, MPI_Comm c)
{
    if (me == 0) {
        MPI_Send(v, 1, MPI_INT, twin ? 1 : MPI_PROC_NULL, 1, c);
        ARMED(MPI_Recv(v, 1, MPI_INT, 1, 2, c, MPI_STATUS_IGNORE));
    } else if (OK(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE))) {
        MPI_Send(w, 1, MPI_INT, 0, 2, c);
    }
}

static void intercomm(int twin, int me, MPI_Comm c)
{
    MPI_Comm half, inter;
    MPI_Comm_split(c, me, 0, &half);
    MPI_Intercomm_create(half, 0, c, 1 - me, 99, &inter);
    if (me == 0)
        ARMED(MPI_Recv(v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE));
    else if (twin)
        ARMED(MPI_Send(w, 1, MPI_INT, 0, 1, inter));
    else
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE));
    if (twin) {
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
}

/* ---- type checks (the calls match; the data does not, in the faulty variant) ---- */

struct particle { int id; double pos[2]; };
struct wire { int id, tag; double value; };

static MPI_Datatype particle_t, wire_t;

static void types(void)
{
    int lengths[2] = {1, 2}, wire_lengths[2] = {2, 1};
    MPI_Aint displs[2] = {offsetof(struct particle, id), offsetof(struct particle, pos)};
    MPI_Aint wire_displs[2] = {offsetof(struct wire, id), offsetof(struct wire, value)};
    MPI_Datatype t[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, lengths, displs, t, &particle_t);
    MPI_Type_commit(&particle_t);
    MPI_Type_set_name(particle_t, "particle_t");
    MPI_Type_create_struct(2, wire_lengths, wire_displs, t, &wire_t);
    MPI_Type_commit(&wire_t);
    MPI_Type_set_name(wire_t, "wire_t");
}

static void pair_type(int twin, int me, MPI_Comm c)
{
    struct particle p[2] = {{7, {1.5, 2.5}}, {8, {3.5, 4.5}}};
    struct wire q[2];
    if (me == 0)
        ARMED(MPI_Ssend(p, 1, particle_t, 1, 5, c));
    else
        ARMED(MPI_Recv(twin ? (void *)p : (void *)q, twin ? 1 : 2, twin ? particle_t : wire_t, 0,
                       5, c, MPI_STATUS_IGNORE));
}

/* The message is in flight when the receive is checked: the eager Isend
 * completed (Testall) before the receiver reached its receive; the sender
 * waits in a barrier. */
static void inflight_type(int twin, int me, MPI_Comm c)
{
    struct particle p = {7, {1.5, 2.5}};
    struct wire q[2];
    MPI_Request r;
    int flag = 0;
    if (me == 0) {
        MPI_Isend(&p, 1, particle_t, 1, 6, c, &r);
        while (!flag)
            MPI_Testall(1, &r, &flag, MPI_STATUSES_IGNORE);
    }
    MPI_Barrier(c);
    if (me == 0)
        ARMED(MPI_Barrier(c));
    else if (OK(MPI_Recv(twin ? (void *)&p : (void *)q, twin ? 1 : 2, twin ? particle_t : wire_t,
                         0, 6, c, MPI_STATUS_IGNORE)))
        MPI_Barrier(c);
}

static void allreduce_op(int twin, int me, MPI_Comm c)
{
    int x = me, y;
    ARMED(MPI_Allreduce(&x, &y, 1, MPI_INT, me == 1 && !twin ? MPI_MAX : MPI_SUM, c));
}

static void reduce_type(int twin, int me, MPI_Comm c)
{
    float f[2] = {1, 2};
    int x[2] = {1, 2}, y[2];
    if (me == 2 && !twin)
        ARMED(MPI_Reduce(f, NULL, 2, MPI_FLOAT, MPI_SUM, 0, c));
    else
        ARMED(MPI_Reduce(x, me == 0 ? y : NULL, 2, MPI_INT, MPI_SUM, 0, c));
}

static void gather_count(int twin, int me, MPI_Comm c)
{
    int x[2] = {me, me}, all[6];
    ARMED(MPI_Gather(x, me == 1 && !twin ? 1 : 2, MPI_INT, all, 2, MPI_INT, 0, c));
}

static void alltoallv(int twin, int me, MPI_Comm c)
{
    int send[6], recv[6], scounts[3] = {1, 1, 1}, rcounts[3] = {1, 1, 1}, displs[3] = {0, 2, 4};
    if (me == 1 && !twin)
        scounts[2] = 2; /* rank 2 expects 1 */
    ARMED(MPI_Alltoallv(send, scounts, displs, MPI_INT, recv, rcounts, displs, MPI_INT, c));
}

/* ---- collectives ---- */

static void barrier(int twin, int me, MPI_Comm c)
{
    if (me == 0 || twin)
        ARMED(MPI_Barrier(c));
    else
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
}

/* The root's Bcast returns at once (eager): in the twin it then waits for
 * rank 1, which is still in the Bcast -- no deadlock. */
static void bcast_root(int twin, int me, MPI_Comm c)
{
    if (me == 0) {
        if (twin)
            MPI_Bcast(v, 1, MPI_INT, 0, c);
        if (OK(MPI_Recv(v, 1, MPI_INT, 1, 1, c, MPI_STATUS_IGNORE)) && !twin)
            MPI_Bcast(v, 1, MPI_INT, 0, c);
    } else if (OK(MPI_Bcast(w, 1, MPI_INT, 0, c))) {
        MPI_Send(w, 1, MPI_INT, 0, 1, c);
    }
}

static void coll_order(int twin, int me, MPI_Comm c)
{
    if (me == 0 || twin) {
        if (OK(MPI_Bcast(v, 1, MPI_INT, 0, c)))
            MPI_Barrier(c);
    } else if (OK(MPI_Barrier(c))) {
        MPI_Bcast(w, 1, MPI_INT, 0, c);
    }
}

static void ibarrier(int twin, int me, MPI_Comm c)
{
    MPI_Request r;
    if (me == 0 || twin) {
        MPI_Ibarrier(c, &r);
        ARMED(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
    }
}

static void persistent_coll(int twin, int me, MPI_Comm c)
{
#if MPI_VERSION >= 4
    MPI_Request r;
    if (me == 0 || twin) {
        MPI_Barrier_init(c, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        ARMED(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (twin)
            MPI_Request_free(&r);
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
    }
#else
    (void)twin, (void)me, (void)c;
#endif
}

static void neighbor(int twin, int me, MPI_Comm c)
{
    MPI_Comm ring;
    int dims[1] = {2}, periods[1] = {1}, in[2];
    MPI_Cart_create(c, 1, dims, periods, 0, &ring);
    if (me == 0 || twin)
        ARMED(MPI_Neighbor_allgather(v, 1, MPI_INT, in, 1, MPI_INT, ring));
    else
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, ring, MPI_STATUS_IGNORE));
    if (twin)
        MPI_Comm_free(&ring);
}

static void comm_dup(int twin, int me, MPI_Comm c)
{
    MPI_Comm d;
    if (me == 0 || twin) {
        ARMED(MPI_Comm_dup(c, &d));
        if (twin)
            MPI_Comm_free(&d);
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
    }
}

static void comm_split(int twin, int me, MPI_Comm c)
{
    MPI_Comm d;
    if (me == 0 || twin) {
        ARMED(MPI_Comm_split(c, 0, me, &d));
        if (twin)
            MPI_Comm_free(&d);
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
    }
}

static void comm_create(int twin, int me, MPI_Comm c)
{
    MPI_Comm d;
    MPI_Group g;
    MPI_Comm_group(c, &g);
    if (me == 0 || twin) {
        ARMED(MPI_Comm_create(c, g, &d));
        if (twin)
            MPI_Comm_free(&d);
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
    }
    MPI_Group_free(&g);
}

static void comm_create_group(int twin, int me, MPI_Comm c)
{
    MPI_Comm d;
    MPI_Group g;
    MPI_Comm_group(c, &g);
    if (me == 0 || twin) {
        ARMED(MPI_Comm_create_group(c, g, 3, &d));
        if (twin)
            MPI_Comm_free(&d);
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
    }
    MPI_Group_free(&g);
}

/* ---- RMA synchronisation ---- */

static int window_memory[3];

static void fence(int twin, int me, MPI_Comm c)
{
    MPI_Win win;
    MPI_Win_create(window_memory, sizeof window_memory, sizeof(int), MPI_INFO_NULL, c, &win);
    if (me == 0 || twin)
        ARMED(MPI_Win_fence(0, win));
    else
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
    if (twin)
        MPI_Win_free(&win);
}

/* Rank 0 holds an exclusive lock on rank 2's window while it waits for
 * rank 1, which asks for that lock (faulty); in the twin rank 0 unlocks
 * first.  Rank 2 waits in a barrier. */
static void lock(int twin, int me, MPI_Comm c)
{
    MPI_Win win;
    int one = 1;
    MPI_Win_create(window_memory, sizeof window_memory, sizeof(int), MPI_INFO_NULL, c, &win);
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
        MPI_Put(&one, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
        if (twin)
            MPI_Win_unlock(2, win);
        MPI_Barrier(c);
        if (OK(MPI_Recv(w, 1, MPI_INT, 1, 1, c, MPI_STATUS_IGNORE)))
            MPI_Barrier(c);
    } else if (me == 1) {
        MPI_Barrier(c);
        if (OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win))) {
            MPI_Put(&one, 1, MPI_INT, 2, 1, 1, MPI_INT, win);
            MPI_Win_unlock(2, win);
            MPI_Send(w, 1, MPI_INT, 0, 1, c);
            MPI_Barrier(c);
        }
    } else {
        MPI_Barrier(c);
        ARMED(MPI_Barrier(c));
    }
    if (twin)
        MPI_Win_free(&win);
}

/* General active target: rank 0 accesses rank 1's window; rank 1 never
 * exposes it (faulty) -- it waits for a message from 0. */
static void pscw(int twin, int me, MPI_Comm c)
{
    MPI_Win win;
    MPI_Group all, other;
    int one = 1, peer = 1 - me;
    MPI_Win_create(window_memory, sizeof window_memory, sizeof(int), MPI_INFO_NULL, c, &win);
    MPI_Comm_group(c, &all);
    MPI_Group_incl(all, 1, &peer, &other);
    if (me == 0) {
        if (OK(MPI_Win_start(other, 0, win))) {
            MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
            MPI_Win_complete(win);
            MPI_Send(v, 1, MPI_INT, 1, 1, c);
        }
    } else if (twin) {
        MPI_Win_post(other, 0, win);
        if (OK(MPI_Win_wait(win)))
            MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE);
    } else {
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
    }
    MPI_Group_free(&other);
    MPI_Group_free(&all);
    if (twin)
        MPI_Win_free(&win);
}

/* ---- the end ---- */

static void finalize(int twin, int me, MPI_Comm c)
{
    if (me == 0 || twin)
        ARMED(MPI_Finalize());
    else
        ARMED(MPI_Recv(w, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
}

struct test_case {
    const char *name;
    void (*run)(int twin, int me, MPI_Comm c);
    int ranks;
};

static const struct test_case cases[] = {
    {"ssend_tags", ssend_tags, 2}, {"recv_recv", recv_recv, 2}, {"send_send", send_send, 2},
    {"bsend", bsend, 2}, {"rsend", rsend, 2}, {"isend_wait", isend_wait, 2},
    {"persistent", persistent, 2}, {"sendrecv", sendrecv, 2},
    {"sendrecv_replace", sendrecv_replace, 2}, {"probe", probe, 2}, {"mprobe", mprobe, 2},
    {"waitall", waitall, 2}, {"waitany", waitany, 2}, {"waitsome", waitsome, 2},
    {"test_spin", test_spin, 2},
    {"iprobe_spin", iprobe_spin, 2}, {"any_source", any_source, 3}, {"any_tag", any_tag, 2},
    {"proc_null", proc_null, 2}, {"intercomm", intercomm, 2},
    {"pair_type", pair_type, 2}, {"inflight_type", inflight_type, 2},
    {"allreduce_op", allreduce_op, 3}, {"reduce_type", reduce_type, 3},
    {"gather_count", gather_count, 3}, {"alltoallv", alltoallv, 3},
    {"barrier", barrier, 2}, {"bcast_root", bcast_root, 2}, {"coll_order", coll_order, 2},
    {"ibarrier", ibarrier, 2}, {"persistent_coll", persistent_coll, 2},
    {"neighbor", neighbor, 2}, {"comm_dup", comm_dup, 2}, {"comm_split", comm_split, 2},
    {"comm_create", comm_create, 2}, {"comm_create_group", comm_create_group, 2},
    {"fence", fence, 2}, {"lock", lock, 3}, {"pscw", pscw, 2}, {"finalize", finalize, 3},
};

/* Runs one variant of a case on a communicator of its ranks (the others
 * wait in idle()); the communicator is freed after a twin. */
static void run(const struct test_case *t, int twin, int rank)
{
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, rank < t->ranks ? 0 : MPI_UNDEFINED, rank, &c);
    escape = 0;
    if (c == MPI_COMM_NULL) {
        idle();
        return;
    }
    if (real)
        write_pid("blocking", rank, (int)getpid());
    t->run(twin, rank, c);
    if (twin && strcmp(t->name, "finalize") != 0)
        MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    int rank, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    types();
    for (int k = 1; k < argc; k++) {
        const char *name = argv[k];
        real = strncmp(name, "real:", 5) == 0;
        name += real ? 5 : 0;
        const struct test_case *t = NULL;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            if (strcmp(cases[i].name, name) == 0)
                t = &cases[i];
        if (!t) {
            if (rank == 0)
                fprintf(stderr, "corpus: no case %s\n", name);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        run(t, 0, rank);
        if (!real && strcmp(name, "finalize") != 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            run(t, 1, rank);
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (!real) {
            run(t, 1, rank);
            return 0;
        }
    }
    MPI_Finalize();
    return 0;
}
