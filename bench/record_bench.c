/*
 * record_bench: what recording and replaying cost (bench/record_bench.py).
 *
 *   record_bench MODE N [MODE N ...]   the benchmarks named, one after the
 *                                      other in one job
 *
 *   pingpong N   2 ranks, N round trips of 8 bytes (MPI_Send/MPI_Recv), no
 *                wildcard
 *   halo N       2+ ranks on a ring, N iterations of a halo exchange
 *                (MPI_Irecv from both neighbours, MPI_Isend to both,
 *                MPI_Waitall; 1 KiB each way) and a stencil update of 4096
 *                doubles, no wildcard
 *   wildcard N   PDT's receive benchmark (Clémençon et al. 1995, Fig. 1) with the
 *                receiver sending too: in turn every rank receives one
 *                message from each rank, itself included (MPI_Isend), with
 *                MPI_ANY_SOURCE and MPI_ANY_TAG; every receive a wildcard and
 *                every message racing with the others of its turn, even on 2
 *                ranks (2 cores: no rank waits for a CPU); N turns of every
 *                rank, with TAGS tags in turn
 *   self N       1 rank: N times MPI_Isend to itself, MPI_Recv with
 *                MPI_ANY_SOURCE and MPI_ANY_TAG, MPI_Wait: two events of a
 *                record per iteration and no other process to wait for, the
 *                steadiest measure of an event's cost; TAGS tags in turn;
 *                prints "self NS": the loop's CPU time (the process's, so
 *                that another process taking a core does not count) per
 *                iteration
 *   poll N       rank 0 calls MPI_Iprobe N times on a message that never
 *                comes
 *   tags T       TAGS = T for the modes after it (default 7): with 1 a loop
 *                records the same events each time and a record's REPEAT
 *                counts them without a word; with 7 the pattern is longer
 *                than a REPEAT holds (8 events) and every event is a word
 *
 * pingpong, halo and wildcard run in SEGMENTS segments, each timed by rank 0
 * with MPI_Wtime; rank 0 prints "MODE FASTEST MEDIAN": the fastest segment
 * and the median one, in ns per round trip, halo iteration or receive.  On
 * a shared machine another process taking a core stretches some segments
 * and not others: the fastest is the program's own speed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEGMENTS 50
#define HALO 128 /* doubles each way */
#define CELLS 4096

static int rank, size;

/* ---- the units a timed benchmark repeats -------------------------------- */
static void pingpong(void)
{
    double msg = 0;
    int peer = 1 - rank;
    if (rank == 0) {
        MPI_Send(&msg, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(&msg, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&msg, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&msg, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
    }
}

static double *u, *v;

static void halo(void)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Request reqs[4];
    MPI_Status sts[4];
    MPI_Irecv(u, HALO, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(u + HALO + CELLS, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(u + HALO, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(u + CELLS, HALO, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &reqs[3]);
    MPI_Waitall(4, reqs, sts);
    for (int k = HALO; k < HALO + CELLS; k++)
        v[k] = 0.25 * (u[k - 1] + 2 * u[k] + u[k + 1]) + 1e-9;
    double *t = u;
    u = v;
    v = t;
}

static unsigned tags = 7;

static int next_tag(void)
{
    static unsigned unit;
    return (int)(++unit % tags);
}

/* One turn of every rank: size * size receives with MPI_ANY_SOURCE and
 * MPI_ANY_TAG in all. */
static void wildcard(void)
{
    int x = rank, y, tag = next_tag();
    for (int j = 0; j < size; j++) {
        MPI_Request req;
        MPI_Isend(&x, 1, MPI_INT, j, tag, MPI_COMM_WORLD, &req);
        if (j == rank)
            for (int k = 0; k < size; k++)
                MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* n units in SEGMENTS timed segments, after one more as a warm-up: the
 * fastest and the median segment, in ns per unit divided by per_unit. */
static void timed(const char *mode, void (*unit)(void), long n, double per_unit)
{
    long each = n / SEGMENTS > 0 ? n / SEGMENTS : 1;
    double ns[SEGMENTS];
    for (long i = 0; i < each; i++)
        unit();
    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 0; s < SEGMENTS; s++) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < each; i++)
            unit();
        ns[s] = (MPI_Wtime() - t0) * 1e9 / ((double)each * per_unit);
    }
    qsort(ns, SEGMENTS, sizeof ns[0], by_value);
    if (rank == 0)
        printf("%s %.3f %.3f\n", mode, ns[0], ns[SEGMENTS / 2]);
}

/* ---- the others ---------------------------------------------------------- */
static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void self(long n)
{
    int x = 1, y;
    MPI_Request req;
    double t0 = cpu_seconds();
    for (long i = 0; i < n; i++) {
        MPI_Isend(&x, 1, MPI_INT, rank, next_tag(), MPI_COMM_WORLD, &req);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    printf("self %.3f\n", (cpu_seconds() - t0) * 1e9 / (double)n);
}

static void poll(long n)
{
    int flag;
    if (rank == 0)
        for (long k = 0; k < n; k++)
            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a + 1 < argc; a += 2) {
        const char *mode = argv[a];
        long n = atol(argv[a + 1]);
        if (strcmp(mode, "tags") == 0) {
            tags = n > 0 ? (unsigned)n : 1;
        } else if (strcmp(mode, "pingpong") == 0) {
            if (size != 2) {
                fprintf(stderr, "record_bench: pingpong needs 2 ranks\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            timed(mode, pingpong, n, 1);
        } else if (strcmp(mode, "halo") == 0) {
            u = calloc(CELLS + 2 * HALO, sizeof *u);
            v = calloc(CELLS + 2 * HALO, sizeof *v);
            timed(mode, halo, n, 1);
            free(u);
            free(v);
        } else if (strcmp(mode, "wildcard") == 0) {
            timed(mode, wildcard, n, (double)size * size);
        } else if (strcmp(mode, "self") == 0) {
            self(n);
        } else if (strcmp(mode, "poll") == 0) {
            poll(n);
        } else {
            fprintf(stderr, "record_bench: unknown mode %s\n", mode);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Finalize();
    return 0;
}
