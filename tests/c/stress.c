/*
 * stress.c: THREADS threads x ITERS iterations of create / commit /
 * set_name / get_contents / free under MPI_THREAD_MULTIPLE.  Afterwards the
 * registry must hold exactly the types still alive (live_records, a foreach
 * walk and the reader-style lookup agree), with the right names.
 *
 * usage: stress [iterations per thread] [threads]
 */
#include <pthread.h>
#include <stdint.h>
#include "regtest.h"

#define KEEP_EVERY 1000
#define MAX_THREADS 64

static int iters = 10000, nthreads = 8;
static MPI_Datatype kept[MAX_THREADS][64];
static int nkept[MAX_THREADS];
/* handles get_contents gave that are new copies, not the base (Open MPI) */
static uint64_t copies[MAX_THREADS];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    char name[64];
    for (int i = 0; i < iters; i++) {
        MPI_Datatype base, t;
        switch (i % 4) {
        case 0:
            MPI_Type_contiguous(i % 7 + 1, MPI_INT, &t);
            break;
        case 1:
#if MPI_VERSION >= 4
            MPI_Type_vector_c(3, 2, i % 5 + 2, MPI_DOUBLE, &t);
#else
            MPI_Type_vector(3, 2, i % 5 + 2, MPI_DOUBLE, &t);
#endif
            break;
        case 2: {
            /* a derived base freed before its parent */
            MPI_Type_contiguous(2, MPI_SHORT, &base);
            int bl[2] = {1, 2};
            MPI_Aint ad[2] = {0, 16};
            MPI_Datatype ty[2] = {base, MPI_CHAR};
            MPI_Type_create_struct(2, bl, ad, ty, &t);
            MPI_Type_free(&base);
            break;
        }
        default: {
            MPI_Type_create_resized(MPI_INT, -4, 16, &base);
            MPI_Type_dup(base, &t);
            MPI_Datatype got[1];
            MPI_Type_get_contents(t, 0, 0, 1, NULL, NULL, got);
            copies[id] += got[0] != base;
            MPI_Type_free(&got[0]); /* a reference handed out by get_contents */
            MPI_Type_free(&base);
            break;
        }
        }
        MPI_Type_commit(&t);
        snprintf(name, sizeof name, "t%d.%d", id, i);
        MPI_Type_set_name(t, name);
        const struct mpireg_record *r = mpireg_lookup(t);
        if (!r || !mpireg_name(r) || strcmp(mpireg_name(r), name) != 0 || !(r->flags & MPIREG_FLAG_COMMITTED))
            FAIL("thread %d iteration %d: record %p name %s", id, i, (void *)r, r && mpireg_name(r) ? mpireg_name(r) : "-");
        if (i % KEEP_EVERY == KEEP_EVERY - 1 && nkept[id] < 64)
            kept[id][nkept[id]++] = t;
        else
            MPI_Type_free(&t);
    }
    return NULL;
}

struct walk {
    uint64_t n, named;
};

static void walk_one(const struct mpireg_record *r, void *ctx)
{
    struct walk *w = ctx;
    MPI_Datatype h;
    memcpy(&h, &r->handle, sizeof h);
    if (rt_reader_lookup(h) != r)
        FAIL("reader lookup misses %#llx", (unsigned long long)r->handle);
    w->n++;
    if (mpireg_name(r) && mpireg_name(r)[0] == 't')
        w->named++;
}

int main(int argc, char **argv)
{
    rt_bind();
    if (argc > 1)
        iters = atoi(argv[1]);
    if (argc > 2)
        nthreads = atoi(argv[2]);
    if (nthreads > MAX_THREADS)
        nthreads = MAX_THREADS;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_rank);
    if (provided != MPI_THREAD_MULTIPLE) {
        FAIL("MPI_THREAD_MULTIPLE not provided (%d)", provided);
        return rt_finish("stress");
    }
    uint64_t live0 = ROOT.types.count, serial0 = ROOT.next_serial;
    pthread_t th[MAX_THREADS];
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);

    uint64_t expect = 0;
    for (int i = 0; i < nthreads; i++)
        expect += (uint64_t)nkept[i];
    struct walk w = {0, 0};
    mpireg_foreach(walk_one, &w);
    /* kept types of kinds 2 (struct) keep their freed base alive as well */
    uint64_t bases = 0;
    for (int i = 0; i < nthreads; i++)
        for (int k = 0; k < nkept[i]; k++) {
            const struct mpireg_record *r = mpireg_lookup(kept[i][k]);
            CHECK(r && r->user_refs == 1, "kept type %d/%d", i, k);
            for (uint32_t d = 0; r && d < r->n_datatypes; d++) {
                const struct mpireg_record *c = mpireg_datatypes(r)[d];
                if (c && !(c->flags & MPIREG_FLAG_PREDEFINED)) {
                    CHECK((c->flags & MPIREG_FLAG_FREED) && c->user_refs == 0 && c->parent_refs == 1,
                          "kept type's base: flags %u refs %u/%u", c->flags, c->user_refs, c->parent_refs);
                    bases++;
                }
            }
        }
    CHECK(ROOT.types.count == live0 + expect + bases, "live_records %llu, expected %llu + %llu kept + %llu bases",
          (unsigned long long)ROOT.types.count, (unsigned long long)live0, (unsigned long long)expect,
          (unsigned long long)bases);
    CHECK(w.n == ROOT.types.count, "foreach walk %llu vs live_records %llu", (unsigned long long)w.n,
          (unsigned long long)ROOT.types.count);
    CHECK(w.named == expect, "named records %llu, kept %llu", (unsigned long long)w.named, (unsigned long long)expect);
    CHECK(ROOT.seq % 2 == 0, "seq odd: %llu", (unsigned long long)ROOT.seq);
    uint64_t created = ROOT.next_serial - serial0;
    /* per iteration: one type, plus a base for kinds 2 and 3, plus the
     * copies get_contents handed out */
    uint64_t want_created = 0, ncopies = 0;
    for (int i = 0; i < iters; i++)
        want_created += (i % 4 >= 2) ? 2 : 1;
    want_created *= (uint64_t)nthreads;
    for (int i = 0; i < nthreads; i++)
        ncopies += copies[i];
    want_created += ncopies;
    CHECK(created == want_created, "created %llu records, want %llu", (unsigned long long)created,
          (unsigned long long)want_created);
    for (int i = 0; i < nthreads; i++)
        for (int k = 0; k < nkept[i]; k++)
            MPI_Type_free(&kept[i][k]);
    CHECK(ROOT.types.count == live0, "after freeing the kept types: %llu", (unsigned long long)ROOT.types.count);
    CHECK(rt_foreach_count() == live0, "foreach after freeing");
    if (rt_rank == 0)
        printf("stress: %d threads x %d iterations, %llu records created, %llu of them copies\n", nthreads,
               iters, (unsigned long long)created, (unsigned long long)ncopies);
    return rt_finish("stress");
}
