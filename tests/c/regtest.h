/*
 * regtest.h: helpers shared by the registry tests.
 *
 * Built normally, a test links libmpireg (-lmpireg before -lmpi) and calls
 * the mpireg.h read API directly.  Built with -DMPIREG_VIA_DLSYM it is an
 * ordinary MPI program: libmpireg must be LD_PRELOADed, and the test finds
 * `mpireg_root` and the read API with dlsym().
 */
#ifndef REGTEST_H
#define REGTEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "mpireg.h"

static int rt_rank;
static int rt_failures;

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "[rank %d] FAIL %s:%d: ", rt_rank, __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        rt_failures++;                                                         \
    } while (0)

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            FAIL("%s: ", #cond);                                               \
            fprintf(stderr, "    ");                                           \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
        }                                                                      \
    } while (0)

#ifdef MPIREG_VIA_DLSYM
#include <dlfcn.h>
static struct mpireg_root *rt_root;
static const struct mpireg_record *(*rt_lookup)(MPI_Datatype);
static struct mpireg_record *const *(*rt_datatypes)(const struct mpireg_record *);
static const MPI_Aint *(*rt_addresses)(const struct mpireg_record *);
static const MPI_Count *(*rt_large_counts)(const struct mpireg_record *);
static const int *(*rt_integers)(const struct mpireg_record *);
static void (*rt_foreach)(void (*)(const struct mpireg_record *, void *), void *);

static void *rt_sym(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p) {
        fprintf(stderr, "FAIL: %s not found: run with LD_PRELOAD=libmpireg.so\n", name);
        exit(2);
    }
    return p;
}

static void rt_bind(void)
{
    rt_root = rt_sym("mpireg_root");
    *(void **)&rt_lookup = rt_sym("mpireg_lookup");
    *(void **)&rt_datatypes = rt_sym("mpireg_datatypes");
    *(void **)&rt_addresses = rt_sym("mpireg_addresses");
    *(void **)&rt_large_counts = rt_sym("mpireg_large_counts");
    *(void **)&rt_integers = rt_sym("mpireg_integers");
    *(void **)&rt_foreach = rt_sym("mpireg_foreach");
}
#define ROOT (*rt_root)
#define mpireg_lookup rt_lookup
#define mpireg_datatypes rt_datatypes
#define mpireg_addresses rt_addresses
#define mpireg_large_counts rt_large_counts
#define mpireg_integers rt_integers
#define mpireg_foreach rt_foreach
#else
static void rt_bind(void) {}
#define ROOT mpireg_root
#endif

static void rt_count_one(const struct mpireg_record *r, void *ctx)
{
    (void)r;
    ++*(uint64_t *)ctx;
}

/* Records in the map, counted by walking it. */
static uint64_t rt_foreach_count(void)
{
    uint64_t n = 0;
    mpireg_foreach(rt_count_one, &n);
    return n;
}

static int64_t rt_constant(const char *name)
{
    for (uint32_t i = 0; i < ROOT.n_constants; i++)
        if (strcmp(ROOT.constants[i].name, name) == 0)
            return ROOT.constants[i].value;
    FAIL("constant %s missing", name);
    return -1;
}

/* Looks a handle up the way an out-of-process reader does: only the
 * constants table and raw memory reads (see mpireg.h). */
static const struct mpireg_record *rt_reader_lookup(MPI_Datatype h)
{
    uint64_t key = 0;
    memcpy(&key, &h, sizeof h);
    const char *map = (const char *)ROOT.map;
    if (map) {
        uint32_t hashv = mpireg_hash(key);
        const char *tbl = *(const char *const *)(map + rt_constant("record.hh") + rt_constant("hh.tbl"));
        uint32_t nb = *(const uint32_t *)(tbl + rt_constant("tbl.num_buckets"));
        const char *buckets = *(const char *const *)(tbl + rt_constant("tbl.buckets"));
        ptrdiff_t hho = *(const ptrdiff_t *)(tbl + rt_constant("tbl.hho"));
        const char *hh = *(const char *const *)(buckets + (hashv & (nb - 1)) * rt_constant("bucket.sizeof") +
                                                rt_constant("bucket.hh_head"));
        for (int guard = 0; hh && guard < 100000; guard++) {
            const uint64_t *k = *(const uint64_t *const *)(hh + rt_constant("hh.key"));
            if (*k == key)
                return (const struct mpireg_record *)(hh - hho);
            hh = *(const char *const *)(hh + rt_constant("hh.hh_next"));
        }
    }
    for (uint32_t i = 0; i < ROOT.n_predefined; i++)
        if (ROOT.predefined[i].handle == key)
            return &ROOT.predefined[i];
    return NULL;
}

static int rt_finish(const char *what)
{
    int total = 0;
    MPI_Allreduce(&rt_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rt_rank == 0)
        printf("%s: %s (%d failures)\n", what, total ? "FAILED" : "OK", total);
    fflush(stdout);
    MPI_Finalize();
    return total ? 1 : 0;
}

#endif
