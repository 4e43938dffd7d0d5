/*
 * channels.c: libmpireg's channel counters (channels.h), read in process.
 *
 *   channels          2 ranks: every kind of point-to-point call (blocking,
 *                     nonblocking, persistent, Sendrecv, probes, matched
 *                     probes), wildcard receives whose statuses the program
 *                     ignores, collectives, a freed communicator, polling;
 *                     each rank then checks its counts
 *   channels threads  2 ranks, MPI_THREAD_MULTIPLE: 4 threads per rank send
 *                     (rank 0) and receive with MPI_ANY_SOURCE (rank 1) on
 *                     one channel at once: the counts are exact
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "regtest.h"
#include "channels.h"

/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which gcc takes for a
 * zero-sized array passed to MPI_Waitall. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#define THREADS 4
#define PER_THREAD 500

static const struct mpireg_channel *channel(MPI_Comm comm, int peer, int kind)
{
    uint64_t key = MPIREG_HKEY(comm);
    for (const struct mpireg_chan_chunk *k = mpireg_chan_root.chunks; k; k = k->next)
        for (uint32_t i = 0; i < k->used; i++)
            if (k->records[i].object == key && k->records[i].peer == peer &&
                k->records[i].kind == kind)
                return &k->records[i];
    return NULL;
}

static long long sent(MPI_Comm comm, int peer, int kind)
{
    const struct mpireg_channel *c = channel(comm, peer, kind);
    return c ? (long long)c->sent : -1;
}

static long long received(MPI_Comm comm, int peer, int kind)
{
    const struct mpireg_channel *c = channel(comm, peer, kind);
    return c ? (long long)c->received : -1;
}

static void point_to_point(int rank)
{
    int v[4] = {1, 2, 3, 4}, got[4];
    MPI_Request r[2];
    MPI_Status st;
    MPI_Message m;
    char bsend[1024];
    void *bptr;
    int bsize;
    MPI_Buffer_attach(bsend, sizeof bsend);
    if (rank == 0) {
        for (int k = 0; k < 3; k++)
            MPI_Send(v, 2, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Isend(v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        MPI_Ssend(v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
        MPI_Send_init(v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &r[0]);
        for (int k = 0; k < 2; k++) {
            MPI_Start(&r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&r[0]);
        MPI_Sendrecv(v, 1, MPI_INT, 1, 5, got, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Bsend(v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        MPI_Send(v, 1, MPI_INT, MPI_PROC_NULL, 8, MPI_COMM_WORLD);
        CHECK(sent(MPI_COMM_WORLD, 1, 1) == 3, "3 sends tag 1: %lld", sent(MPI_COMM_WORLD, 1, 1));
        const struct mpireg_channel *c = channel(MPI_COMM_WORLD, 1, 1);
        CHECK(c && c->last_datatype == MPIREG_HKEY(MPI_INT) && c->last_count == 2 &&
                  c->last_bound == mpireg_root.next_serial,
              "the last message of tag 1: MPI_INT x 2");
        CHECK(sent(MPI_COMM_WORLD, 1, 2) == 2, "2 Isends tag 2: %lld", sent(MPI_COMM_WORLD, 1, 2));
        CHECK(sent(MPI_COMM_WORLD, 1, 3) == 1, "Ssend tag 3");
        CHECK(sent(MPI_COMM_WORLD, 1, 4) == 2, "2 starts of a persistent send: %lld",
              sent(MPI_COMM_WORLD, 1, 4));
        CHECK(sent(MPI_COMM_WORLD, 1, 5) == 1 && received(MPI_COMM_WORLD, 1, 6) == 1,
              "Sendrecv: sent tag 5, received tag 6");
        CHECK(sent(MPI_COMM_WORLD, 1, 7) == 1, "Bsend tag 7");
        CHECK(channel(MPI_COMM_WORLD, MPI_PROC_NULL, 8) == NULL, "no channel to MPI_PROC_NULL");
    } else {
        for (int k = 0; k < 3; k++) /* wildcards, status ignored: libmpireg gives MPI one */
            MPI_Recv(got, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(got, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(got + 1, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        MPI_Probe(0, 3, MPI_COMM_WORLD, &st);
        CHECK(received(MPI_COMM_WORLD, 0, 3) <= 0, "a probe consumes nothing");
        MPI_Recv(got, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv_init(got, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &r[0]);
        for (int k = 0; k < 2; k++) {
            MPI_Start(&r[0]);
            int index;
            MPI_Waitany(1, &r[0], &index, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&r[0]);
        MPI_Sendrecv(v, 1, MPI_INT, 0, 6, got, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Mprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
        CHECK(received(MPI_COMM_WORLD, 0, 7) == 1, "a matched probe takes its message");
        CHECK(mpireg_chan_root.messages[0].handle == MPIREG_HKEY(m) &&
                  mpireg_chan_root.messages[0].source == 0 && mpireg_chan_root.messages[0].tag == 7,
              "the matched message is remembered");
        MPI_Mrecv(got, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
        CHECK(mpireg_chan_root.messages[0].handle == 0, "the message is taken");
        CHECK(received(MPI_COMM_WORLD, 0, 1) == 3, "3 wildcard receives from 0 tag 1: %lld",
              received(MPI_COMM_WORLD, 0, 1));
        CHECK(received(MPI_COMM_WORLD, 0, 2) == 2, "2 receive requests: %lld",
              received(MPI_COMM_WORLD, 0, 2));
        CHECK(received(MPI_COMM_WORLD, 0, 3) == 1, "Recv tag 3");
        CHECK(received(MPI_COMM_WORLD, 0, 4) == 2, "2 persistent receives: %lld",
              received(MPI_COMM_WORLD, 0, 4));
        CHECK(received(MPI_COMM_WORLD, 0, 5) == 1 && sent(MPI_COMM_WORLD, 0, 6) == 1,
              "Sendrecv: received tag 5, sent tag 6");
        CHECK(received(MPI_COMM_WORLD, 0, 7) == 1, "Mprobe + Mrecv tag 7 counted once");
    }
    MPI_Buffer_detach(&bptr, &bsize);
    CHECK(mpireg_chan_root.unrecorded_sent == 0 && mpireg_chan_root.unrecorded_received == 0,
          "nothing unrecorded");
}

static void collectives_and_comms(int rank)
{
    int x = rank;
    MPI_Request r;
    MPI_Comm dup;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    long long n = sent(MPI_COMM_WORLD, MPIREG_CHAN_NO_PEER, MPIREG_CHAN_COLLECTIVES);
    CHECK(n == 4, "4 collectives on MPI_COMM_WORLD (Barrier, Ibarrier, Bcast, Comm_dup): %lld", n);
    MPI_Send(&x, 1, MPI_INT, 1 - rank, 11, dup);
    MPI_Recv(&x, 1, MPI_INT, 1 - rank, 11, dup, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, dup);
    CHECK(sent(dup, 1 - rank, 11) == 1 && received(dup, 1 - rank, 11) == 1 &&
              sent(dup, MPIREG_CHAN_NO_PEER, MPIREG_CHAN_COLLECTIVES) == 1,
          "messages and the collective on the duplicate");
    MPI_Comm freed = dup;
    MPI_Comm_free(&dup);
    CHECK(channel(freed, 1 - rank, 11) == NULL &&
              channel(freed, MPIREG_CHAN_NO_PEER, MPIREG_CHAN_COLLECTIVES) == NULL,
          "a freed communicator's records are retired");
}

static struct mpireg_thread_slot *my_slot(void)
{
    int tid = (int)syscall(SYS_gettid);
    for (uint32_t k = 0; k < mpireg_comm_root.max_threads; k++)
        if (mpireg_comm_root.threads[k].tid == tid)
            return &mpireg_comm_root.threads[k];
    return NULL;
}

static void polling(int rank)
{
    int flag = 0, x = 0;
    MPI_Request r;
    MPI_Barrier(MPI_COMM_WORLD);
    struct mpireg_thread_slot *slot = my_slot();
    if (!slot) {
        FAIL("no thread slot");
        return;
    }
    uint64_t before = slot->completed;
    MPI_Iprobe(1 - rank, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag && slot->polling && slot->completed == before,
          "an Iprobe that found nothing is polling, not progress");
    MPI_Irecv(&x, 1, MPI_INT, 1 - rank, 12, MPI_COMM_WORLD, &r);
    CHECK(!slot->polling && slot->completed == before + 1, "the next call ends the polling");
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK(slot->polling == !flag, "Test polls while it finds nothing");
    MPI_Send(&x, 1, MPI_INT, 1 - rank, 12, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(!slot->polling, "Wait is no poll");
}

static MPI_Comm threads_comm;

static void *send_many(void *arg)
{
    int x = 0;
    (void)arg;
    for (int k = 0; k < PER_THREAD; k++)
        MPI_Send(&x, 1, MPI_INT, 1, 9, threads_comm);
    return NULL;
}

static void *receive_many(void *arg)
{
    int x;
    (void)arg;
    for (int k = 0; k < PER_THREAD; k++)
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9, threads_comm, MPI_STATUS_IGNORE);
    return NULL;
}

static void threads(int rank)
{
    pthread_t t[THREADS];
    threads_comm = MPI_COMM_WORLD;
    for (int k = 0; k < THREADS; k++)
        pthread_create(&t[k], NULL, rank == 0 ? send_many : receive_many, NULL);
    for (int k = 0; k < THREADS; k++)
        pthread_join(t[k], NULL);
    if (rank == 0)
        CHECK(sent(MPI_COMM_WORLD, 1, 9) == THREADS * PER_THREAD, "sent by %d threads: %lld",
              THREADS, sent(MPI_COMM_WORLD, 1, 9));
    else
        CHECK(received(MPI_COMM_WORLD, 0, 9) == THREADS * PER_THREAD,
              "received by %d threads: %lld", THREADS, received(MPI_COMM_WORLD, 0, 9));
}

int main(int argc, char **argv)
{
    int provided, size;
    int multiple = argc > 1 && strcmp(argv[1], "threads") == 0;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        fprintf(stderr, "channels: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    CHECK(mpireg_chan_root.magic == MPIREG_CHAN_MAGIC && mpireg_chan_root.seq % 2 == 0, "root");
    if (multiple) {
        CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE provided");
        if (provided == MPI_THREAD_MULTIPLE)
            threads(rt_rank);
    } else {
        point_to_point(rt_rank);
        collectives_and_comms(rt_rank);
        polling(rt_rank);
    }
    MPI_Finalize();
    printf("channels: %s (%d failures)\n", rt_failures ? "FAILED" : "OK", rt_failures);
    return rt_failures ? 1 : 0;
}
