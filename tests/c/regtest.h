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
/* mpireg.h, and the MPI-version helpers the library itself uses
 * (mpireg_type_envelope/contents, MPIREG_HAVE_MPI1_NAMES) */
#include "mpireg_internal.h"

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
static const char *(*rt_name)(const struct mpireg_record *);
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
    *(void **)&rt_name = rt_sym("mpireg_name");
    *(void **)&rt_foreach = rt_sym("mpireg_foreach");
}
#define ROOT (*rt_root)
#define mpireg_lookup rt_lookup
#define mpireg_datatypes rt_datatypes
#define mpireg_addresses rt_addresses
#define mpireg_large_counts rt_large_counts
#define mpireg_integers rt_integers
#define mpireg_name rt_name
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

/* Looks a key up in one of the root's tables the way an out-of-process
 * reader does: only the constants table and raw memory reads (see
 * mpireg.h): the max_probe slots from the key's first slot, in order, up to
 * the first empty one. */
static const void *rt_table_lookup(const char *table, uint64_t key)
{
    const char *t = (const char *)&ROOT + rt_constant(table);
    void *const *slots = *(void *const *const *)(t + rt_constant("table.slots"));
    uint32_t capacity = *(const uint32_t *)(t + rt_constant("table.capacity"));
    uint32_t max_probe = *(const uint32_t *)(t + rt_constant("table.max_probe"));
    if (!capacity)
        return NULL;
    CHECK((capacity & (capacity - 1)) == 0 && max_probe <= capacity, "table %s: capacity %u max_probe %u",
          table, capacity, max_probe);
    for (uint32_t i = mpireg_hash(key) & (capacity - 1), n = 0; n < max_probe; i = (i + 1) & (capacity - 1), n++) {
        if (!slots[i])
            return NULL;
        if (*(const uint64_t *)slots[i] == key)
            return slots[i];
    }
    return NULL;
}

static const struct mpireg_record *rt_reader_lookup(MPI_Datatype h)
{
    uint64_t key = 0;
    memcpy(&key, &h, sizeof h);
    const struct mpireg_record *r = rt_table_lookup("root.types", key);
    if (r)
        return r;
    for (uint32_t i = 0; i < ROOT.n_predefined; i++)
        if (ROOT.predefined[i].record.handle == key)
            return &ROOT.predefined[i].record;
    return NULL;
}

/* The name of a record as a reader finds it: in root.names, keyed by the
 * record's address (predefined records: their entry's name). */
static const char *rt_reader_name(const struct mpireg_record *r)
{
    if (r->flags & rt_constant("flag.predefined"))
        return *(const char *const *)((const char *)r + rt_constant("predefined.name"));
    if (!(r->flags & rt_constant("flag.named")))
        return NULL;
    const char *e = rt_table_lookup("root.names", (uint64_t)(uintptr_t)r);
    return e ? e + rt_constant("name.text") : NULL;
}

/* A handle widened like a registry key (for messages and comparisons). */
static unsigned long long rt_key(MPI_Datatype h)
{
    uint64_t key = 0;
    memcpy(&key, &h, sizeof h);
    return (unsigned long long)key;
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
