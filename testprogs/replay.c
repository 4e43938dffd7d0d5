/*
 * replay: MPI programs whose outcome depends on the order messages arrive,
 * for record and replay (tests/replay).  SEED picks the delays (0: none
 * but the scenario's own); every line the program prints says what MPI
 * chose, so that a replay must print the same lines whatever its SEED.
 *
 *   replay master SEED     4 ranks: a master hands 9 tasks to 3 workers and
 *                          takes the results with MPI_ANY_SOURCE.  Bug: it
 *                          assumes the answers come back in the order the
 *                          tasks went out: it weighs each by its arrival
 *                          and sends the last STOPs to the workers it
 *                          thinks answered.  Right (and finished) only when
 *                          they do (SEED 0 makes them); another order
 *                          prints a wrong sum, and hangs when a worker gets
 *                          no STOP (the others wait in MPI_Barrier).
 *   replay patterns SEED [changed]
 *                          4 ranks, rank 0 receiving from the others:
 *                          MPI_Waitany order, MPI_Testsome groups (and how
 *                          often it found nothing), an MPI_Iprobe polling
 *                          loop with MPI_ANY_TAG, a persistent wildcard
 *                          receive, MPI_Mprobe/MPI_Mrecv and MPI_Improbe,
 *                          MPI_Testany, MPI_Waitsome, wildcard receives on a
 *                          communicator from MPI_Comm_split, MPI_Sendrecv.
 *                          `changed`: rank 2 sends one message with
 *                          another tag (a changed program).
 *   replay race SEED       ranks 1 and 2 each send rank 0 one message, which
 *                          it receives with MPI_ANY_SOURCE: a race.
 *   replay ordered SEED    rank 0 receives twice with MPI_ANY_SOURCE, but
 *                          rank 2 sends only after rank 0 received rank 1's
 *                          message and told it so: no race.
 *   replay anytag SEED     rank 1 sends rank 0 tags 11, 12, 13, which it
 *                          probes and receives from rank 1 with MPI_ANY_TAG
 *                          (MPI_Probe, MPI_Recv, MPI_Irecv, MPI_Recv): no
 *                          race (MPI's non-overtaking rule); then ranks 2
 *                          and 3 each send it one message, which it takes
 *                          with MPI_ANY_SOURCE and MPI_ANY_TAG: one race.
 *   replay turns N LATE    3 ranks, N turns: rank 0 posts two MPI_ANY_SOURCE
 *                          receive requests and waits for both; ranks 1 and
 *                          2 send one message each, rank LATE 5 ms after
 *                          the other.  Rank 0 prints which came first in
 *                          each turn (a loop whose record is a REPEAT).
 *   replay threads SEED    MPI_THREAD_MULTIPLE, two threads receiving.
 *   replay poll N          rank 0 calls MPI_Iprobe N times on a message
 *                          that never comes (record size of a polling loop).
 *   replay killed N [other]
 *                          1 rank, talking to itself: N turns of MPI_Irecv,
 *                          MPI_Isend, MPI_Waitall, MPI_Sendrecv (5 events a
 *                          REPEAT counts), then the first calls of one more
 *                          turn -- MPI_Irecv and MPI_Isend, or with `other`
 *                          an MPI_Irecv with another tag, which ends the
 *                          repetition -- and the rank kills itself: its
 *                          record must end right after them.
 *
 * Every rank prints "rank R: pid P" first.
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TASKS 9
#define WORKERS 3
enum { TAG_TASK = 1, TAG_RESULT, TAG_STOP, TAG_GO };

static int seed, rank, size;

/* Sleeps 0 to 40 ms, as SEED says for (who, what). */
static void delay(int who, int what)
{
    if (!seed)
        return;
    unsigned h = (unsigned)seed * 2654435761u ^ (unsigned)who * 40503u ^ (unsigned)what * 97u;
    h ^= h >> 13;
    usleep((h % 5) * 10000);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("rank %d: %s\n", rank, line);
    fflush(stdout);
}

static void master(void)
{
    int owner[TASKS], task_of[WORKERS + 1], next = 0, received = 0;
    long sum = 0, right = 0;
    char order[256] = "", stops[64] = "";
    for (int w = 1; w <= WORKERS; w++, next++) {
        owner[next] = w;
        task_of[w] = next;
        MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
    }
    while (received < TASKS) {
        int value;
        MPI_Status st;
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
        /* the bug: answers are assumed to come back in the order the tasks went out */
        int assumed = owner[received];
        received++;
        sum += (long)received * value;
        right += (long)(task_of[st.MPI_SOURCE] + 1) * value;
        snprintf(order + strlen(order), sizeof order - strlen(order), "%s%d", *order ? "," : "",
                 st.MPI_SOURCE);
        if (next < TASKS) {
            owner[next] = st.MPI_SOURCE;
            task_of[st.MPI_SOURCE] = next;
            MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
            next++;
        } else {
            MPI_Send(&next, 1, MPI_INT, assumed, TAG_STOP, MPI_COMM_WORLD);
            snprintf(stops + strlen(stops), sizeof stops - strlen(stops), "%s%d",
                     *stops ? "," : "", assumed);
        }
    }
    say("order %s sum %ld (right: %ld) stops to %s", order, sum, right, stops);
}

static void worker(void)
{
    for (int done = 0;; done++) {
        int task;
        MPI_Status st;
        MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP) {
            say("stopped");
            break;
        }
        if (seed)
            delay(rank, task);
        else
            usleep(done == 0 ? 20000 * (unsigned)rank : 60000); /* round robin */
        int value = task * task;
        MPI_Send(&value, 1, MPI_INT, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
}

/* --- patterns: rank 0 takes from ranks 1..3 in every way MPI lets it choose --- */
static void send_from_workers(int tag, int step)
{
    delay(rank, step);
    int value = 100 * step + rank;
    MPI_Send(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
}

static void waitany(void)
{
    if (rank) {
        send_from_workers(10, 1);
        return;
    }
    MPI_Request reqs[3];
    int values[3], k;
    char out[64] = "";
    for (int s = 1; s <= 3; s++)
        MPI_Irecv(&values[s - 1], 1, MPI_INT, s, 10, MPI_COMM_WORLD, &reqs[s - 1]);
    for (int n = 0; n < 3; n++) {
        MPI_Waitany(3, reqs, &k, MPI_STATUS_IGNORE);
        snprintf(out + strlen(out), sizeof out - strlen(out), " %d", k + 1);
    }
    say("waitany order%s", out);
}

static void testsome(void)
{
    if (rank) {
        send_from_workers(11, 2);
        return;
    }
    MPI_Request reqs[3];
    MPI_Status sts[3];
    int values[3], idx[3], n, done = 0;
    long misses = 0;
    char out[128] = "";
    for (int k = 0; k < 3; k++)
        MPI_Irecv(&values[k], 1, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &reqs[k]);
    while (done < 3) {
        MPI_Testsome(3, reqs, &n, idx, sts);
        if (n == 0)
            misses++;
        for (int k = 0; k < n; k++, done++)
            snprintf(out + strlen(out), sizeof out - strlen(out), " %d<-%d", idx[k],
                     sts[k].MPI_SOURCE);
    }
    say("testsome%s after %ld misses", out, misses);
}

static void iprobe_any_tag(void)
{
    if (rank) {
        send_from_workers(20 + rank, 3);
        return;
    }
    char out[128] = "";
    for (int n = 0; n < 3; n++) {
        int flag = 0, value;
        long misses = 0;
        MPI_Status st;
        while (!flag) {
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            misses += !flag;
        }
        MPI_Recv(&value, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        snprintf(out + strlen(out), sizeof out - strlen(out), " tag %d after %ld misses",
                 st.MPI_TAG, misses);
    }
    say("iprobe%s", out);
}

static void persistent(void)
{
    if (rank) {
        send_from_workers(30, 4);
        return;
    }
    MPI_Request req;
    MPI_Status st;
    int value;
    char out[64] = "";
    MPI_Recv_init(&value, 1, MPI_INT, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &req);
    for (int n = 0; n < 3; n++) {
        MPI_Start(&req);
        MPI_Wait(&req, &st);
        snprintf(out + strlen(out), sizeof out - strlen(out), " %d=%d", st.MPI_SOURCE, value);
    }
    MPI_Request_free(&req);
    say("persistent%s", out);
}

static void matched_probes(void)
{
    if (rank) {
        send_from_workers(40, 5);
        send_from_workers(41, 6);
        return;
    }
    char out[128] = "";
    for (int n = 0; n < 3; n++) {
        MPI_Message msg;
        MPI_Status st;
        int value;
        MPI_Mprobe(MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &msg, &st);
        MPI_Mrecv(&value, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
        snprintf(out + strlen(out), sizeof out - strlen(out), " mprobe %d", st.MPI_SOURCE);
    }
    for (int n = 0; n < 3; n++) {
        MPI_Message msg;
        MPI_Status st;
        MPI_Request req;
        int value, flag = 0;
        long misses = 0;
        while (!flag) {
            MPI_Improbe(MPI_ANY_SOURCE, 41, MPI_COMM_WORLD, &flag, &msg, &st);
            misses += !flag;
        }
        MPI_Imrecv(&value, 1, MPI_INT, &msg, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        snprintf(out + strlen(out), sizeof out - strlen(out), " improbe %d after %ld misses",
                 st.MPI_SOURCE, misses);
    }
    say("probes%s", out);
}

static void testany_waitsome(void)
{
    if (rank) {
        send_from_workers(50, 7);
        send_from_workers(51, 8);
        return;
    }
    MPI_Request reqs[3];
    MPI_Status st, sts[3];
    int values[3], k, flag, idx[3], n;
    long misses = 0;
    char out[128] = "";
    for (int s = 0; s < 3; s++)
        MPI_Irecv(&values[s], 1, MPI_INT, MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &reqs[s]);
    for (int done = 0; done < 3;) {
        MPI_Testany(3, reqs, &k, &flag, &st);
        if (!flag) {
            misses++;
            continue;
        }
        done++;
        snprintf(out + strlen(out), sizeof out - strlen(out), " %d<-%d", k, st.MPI_SOURCE);
    }
    snprintf(out + strlen(out), sizeof out - strlen(out), " after %ld misses; waitsome", misses);
    for (int s = 0; s < 3; s++)
        MPI_Irecv(&values[s], 1, MPI_INT, MPI_ANY_SOURCE, 51, MPI_COMM_WORLD, &reqs[s]);
    for (int done = 0; done < 3; done += n) {
        MPI_Waitsome(3, reqs, &n, idx, sts);
        snprintf(out + strlen(out), sizeof out - strlen(out), " [");
        for (int j = 0; j < n; j++)
            snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d<-%d", j ? " " : "",
                     idx[j], sts[j].MPI_SOURCE);
        snprintf(out + strlen(out), sizeof out - strlen(out), "]");
    }
    say("testany%s", out);
}

static void split(int changed)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 3 ? 0 : 1, rank, &half);
    int me;
    MPI_Comm_rank(half, &me);
    if (rank < 3 && me) {
        for (int n = 0; n < 2; n++) {
            delay(rank, 9 + n);
            int value = me, tag = changed && rank == 2 && n == 1 ? 61 : 60;
            MPI_Send(&value, 1, MPI_INT, 0, tag, half);
        }
    } else if (rank < 3) {
        char out[64] = "";
        for (int n = 0; n < 4; n++) {
            int value;
            MPI_Status st;
            MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 60, half, &st);
            snprintf(out + strlen(out), sizeof out - strlen(out), " %d", st.MPI_SOURCE);
        }
        say("split%s", out);
    }
    MPI_Comm_free(&half);
}

static void sendrecv(void)
{
    /* a ring where each rank takes from whoever sends to it (only its left neighbour) */
    int value = rank, got;
    MPI_Status st;
    delay(rank, 11);
    MPI_Sendrecv(&value, 1, MPI_INT, (rank + 1) % size, 70, &got, 1, MPI_INT, MPI_ANY_SOURCE,
                 MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (rank == 0)
        say("sendrecv from %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
}

static void patterns(int changed)
{
    void (*const each[])(void) = {waitany, testsome, iprobe_any_tag, persistent, matched_probes,
                                  testany_waitsome, sendrecv};
    for (size_t k = 0; k < sizeof each / sizeof each[0]; k++) {
        each[k]();
        MPI_Barrier(MPI_COMM_WORLD); /* no message of one pattern reaches the next */
    }
    split(changed);
}

/* --- races --- */
static void race(void)
{
    int value = rank;
    if (rank == 1 || rank == 2) {
        delay(rank, 1);
        MPI_Send(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Status a, b;
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &a);
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &b);
        say("race from %d then %d", a.MPI_SOURCE, b.MPI_SOURCE);
    }
}

static void ordered(void)
{
    int value = rank;
    if (rank == 1) {
        delay(rank, 1);
        MPI_Send(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Recv(&value, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Status a, b;
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &a);
        MPI_Send(&value, 1, MPI_INT, 2, TAG_GO, MPI_COMM_WORLD);
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &b);
        say("ordered from %d then %d", a.MPI_SOURCE, b.MPI_SOURCE);
    }
}

static void anytag(void)
{
    int value = rank;
    if (rank == 1) {
        for (int tag = 11; tag <= 13; tag++) {
            delay(rank, tag);
            MPI_Send(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
        }
    } else if (rank == 2 || rank == 3) {
        delay(rank, 1);
        MPI_Send(&value, 1, MPI_INT, 0, 20 + rank, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Status probed, st[5];
        MPI_Request req;
        MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &probed);
        MPI_Recv(&value, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st[0]);
        MPI_Irecv(&value, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, &st[1]);
        MPI_Recv(&value, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st[2]);
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st[3]);
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st[4]);
        say("anytag probed %d, got %d %d %d; race from %d then %d", probed.MPI_TAG, st[0].MPI_TAG,
            st[1].MPI_TAG, st[2].MPI_TAG, st[3].MPI_SOURCE, st[4].MPI_SOURCE);
    }
}

static void turns(long n, int late)
{
    int value = rank, got[2];
    char firsts[256] = "";
    for (long k = 0; k < n && k < (long)sizeof firsts - 1; k++) {
        if (rank == 0) {
            MPI_Request reqs[2];
            MPI_Status sts[2];
            MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 61, MPI_COMM_WORLD, &reqs[0]);
            MPI_Irecv(&got[1], 1, MPI_INT, MPI_ANY_SOURCE, 61, MPI_COMM_WORLD, &reqs[1]);
            MPI_Waitall(2, reqs, sts);
            firsts[k] = (char)('0' + sts[0].MPI_SOURCE);
        } else if (rank == 1 || rank == 2) {
            if (rank == late)
                usleep(5000);
            MPI_Send(&value, 1, MPI_INT, 0, 61, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the next turn's messages are not this one's */
    }
    if (rank == 0)
        say("turns first %s", firsts);
}

/* --- threads --- */
static void *receive_one(void *arg)
{
    int value;
    MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, *(int *)arg, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

static void threads(void)
{
    int value = rank, tags[2] = {80, 81};
    if (rank == 0) {
        pthread_t t;
        pthread_create(&t, NULL, receive_one, &tags[0]);
        receive_one(&tags[1]);
        pthread_join(t, NULL);
        say("threads done");
    } else if (rank == 1) {
        MPI_Send(&value, 1, MPI_INT, 0, 80, MPI_COMM_WORLD);
        MPI_Send(&value, 1, MPI_INT, 0, 81, MPI_COMM_WORLD);
    }
}

static void poll(long n)
{
    int flag;
    if (rank == 0) {
        for (long k = 0; k < n; k++)
            MPI_Iprobe(MPI_ANY_SOURCE, 90, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        say("polled %ld times", n);
    }
}

static void killed(long n, int other)
{
    int x = rank, y, z;
    MPI_Request reqs[2];
    MPI_Status sts[2];
    for (long k = 0; k < n; k++) {
        MPI_Irecv(&y, 1, MPI_INT, 0, 95, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(&x, 1, MPI_INT, 0, 95, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, sts);
        MPI_Sendrecv(&x, 1, MPI_INT, 0, 96, &z, 1, MPI_INT, 0, 96, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    MPI_Irecv(&y, 1, MPI_INT, 0, other ? 97 : 95, MPI_COMM_WORLD, &reqs[0]);
    if (!other)
        MPI_Isend(&x, 1, MPI_INT, 0, 95, MPI_COMM_WORLD, &reqs[1]);
    say("killed after %ld turns", n);
    kill(getpid(), SIGKILL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "patterns";
    int provided;
    seed = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(mode, "threads") == 0)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    say("pid %d", (int)getpid());
    if (strcmp(mode, "master") == 0) {
        if (rank == 0)
            master();
        else if (rank <= WORKERS)
            worker();
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "patterns") == 0) {
        patterns(argc > 3 && strcmp(argv[3], "changed") == 0);
    } else if (strcmp(mode, "race") == 0) {
        race();
    } else if (strcmp(mode, "ordered") == 0) {
        ordered();
    } else if (strcmp(mode, "anytag") == 0) {
        anytag();
    } else if (strcmp(mode, "turns") == 0) {
        turns(seed, argc > 3 ? atoi(argv[3]) : 2);
    } else if (strcmp(mode, "threads") == 0) {
        threads();
    } else if (strcmp(mode, "poll") == 0) {
        poll(seed);
    } else if (strcmp(mode, "killed") == 0) {
        killed(seed, argc > 3 && strcmp(argv[3], "other") == 0);
    }
    MPI_Finalize();
    return 0;
}
