/*
 * mpireg_internal.h: what the generated wrappers (build/wrappers.c) and the
 * registry core share.  Not installed.
 */
#ifndef MPIREG_INTERNAL_H
#define MPIREG_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "mpireg.h"

#define MPIREG_HIDDEN __attribute__((visibility("hidden")))

_Static_assert(sizeof(void *) == sizeof(uint64_t), "datatype slots hold 64-bit keys before publication");
_Static_assert(sizeof(MPI_Datatype) <= sizeof(uint64_t), "handles must fit the 64-bit key");
_Static_assert(sizeof(struct mpireg_record) == 72, "layout 2: 72-byte records");
_Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Count) == 8, "addresses and large counts are 64-bit");

/* Internal flag bit (never set on a record reachable through root.types):
 * the record was taken out of the table while parents still pointed at it. */
#define MPIREG_FLAG_DETACHED 0x80u

/* Widens a handle to the 64-bit key: its bytes copied into a zeroed uint64_t. */
static inline uint64_t mpireg_key(MPI_Datatype h)
{
    uint64_t k = 0;
    memcpy(&k, &h, sizeof h);
    return k;
}

/* The lists of the context roots (calls.h, files.h): objects with `next`
 * and `prev` pointers, the first one in the root's `head` field.  Callers
 * are inside mpireg_seq_enter/mpireg_seq_leave. */
#define MPIREG_LIST_PUSH(head, x)          \
    do {                                   \
        (x)->prev = NULL;                  \
        (x)->next = (head);                \
        if ((x)->next)                     \
            (x)->next->prev = (x);         \
        (head) = (x);                      \
    } while (0)
#define MPIREG_LIST_UNLINK(head, x)        \
    do {                                   \
        if ((x)->prev)                     \
            (x)->prev->next = (x)->next;   \
        else                               \
            (head) = (x)->next;            \
        if ((x)->next)                     \
            (x)->next->prev = (x)->prev;   \
    } while (0)

/* An update of a context root's lists or records: under the root's mutex,
 * with its seq odd (a reader that stopped the process then must not trust
 * what it reads).  Readers read stopped processes: compiler barriers
 * suffice. */
static inline void mpireg_seq_enter(pthread_mutex_t *lock, volatile uint64_t *seq)
{
    pthread_mutex_lock(lock);
    (*seq)++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void mpireg_seq_leave(pthread_mutex_t *lock, volatile uint64_t *seq)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    (*seq)++;
    pthread_mutex_unlock(lock);
}

/* Nesting depth of wrapped MPI calls on this thread.  initial-exec: one
 * %fs-relative access instead of a __tls_get_addr call per use (as calls.c's
 * slot pointer; a few bytes of static TLS, fine for LD_PRELOAD and dlopen). */
extern __thread int mpireg_depth MPIREG_HIDDEN __attribute__((tls_model("initial-exec")));
/* Nonzero while this thread is inside the PMPI call of a wrapped
 * communication or I/O call: a datatype MPI builds then (ROMIO's helper
 * types in MPI_File_set_view, ...) is recorded, flagged as MPI's own
 * (MPIREG_FLAG_MPI), instead of passing through as other nested calls do. */
extern __thread int mpireg_inside_mpi MPIREG_HIDDEN __attribute__((tls_model("initial-exec")));

/* Nonzero once the predefined table's sizes are filled (registry.c). */
extern int mpireg_predefined_filled MPIREG_HIDDEN;
MPIREG_HIDDEN void mpireg_prologue_slow(void);
/* Called by every outermost wrapper before the PMPI call: fills the
 * predefined table's sizes once MPI is initialised. */
static inline void mpireg_prologue(void)
{
    if (__builtin_expect(!__atomic_load_n(&mpireg_predefined_filled, __ATOMIC_ACQUIRE), 0))
        mpireg_prologue_slow();
}

/* The registry lock (recursive: a plain mutex plus a per-thread hold count,
 * cheaper than a PTHREAD_MUTEX_RECURSIVE one): held across a PMPI call whose
 * effect on handles must reach the registry atomically (creation, free,
 * get_contents).  The hooks those wrappers call (mpireg_publish,
 * mpireg_on_free, mpireg_on_contents) and mpireg_record_alloc expect it held
 * and do not take it again. */
MPIREG_HIDDEN void mpireg_lock(void);
MPIREG_HIDDEN void mpireg_unlock(void);
/* Nonzero while several threads may call MPI at once: from the start, and
 * for good when MPI provides MPI_THREAD_MULTIPLE (the registry lock is
 * taken, channel counters are incremented atomically). */
extern int mpireg_concurrent MPIREG_HIDDEN;
/* MPI_Init / MPI_Init_thread succeeded. */
MPIREG_HIDDEN void mpireg_mpi_up(void);
/* MPI is up: learn the request handles MPI gives to requests complete at once (calls.c). */
MPIREG_HIDDEN void mpireg_req_probe(void);

/* A new record with room for the argument arrays; all counts set, the
 * other fields zero (the argument arrays are left for the caller to fill
 * completely).  NULL when out of memory.  Caller holds the lock (records
 * come from the pool, pool.c). */
MPIREG_HIDDEN struct mpireg_record *mpireg_record_alloc(size_t ni, size_t na, size_t nl, size_t nd);
/* Writable views of a record's argument arrays (right after the record). */
static inline struct mpireg_record **mpireg_w_datatypes(struct mpireg_record *r)
{
    return (struct mpireg_record **)(r + 1);
}
static inline MPI_Aint *mpireg_w_addresses(struct mpireg_record *r)
{
    return (MPI_Aint *)(mpireg_w_datatypes(r) + r->n_datatypes);
}
static inline MPI_Count *mpireg_w_large_counts(struct mpireg_record *r)
{
    return (MPI_Count *)(mpireg_w_addresses(r) + r->n_addresses);
}
static inline int *mpireg_w_integers(struct mpireg_record *r)
{
    return (int *)(mpireg_w_large_counts(r) + r->n_large_counts);
}
/* Before publication the datatype slots hold keys (mpireg_key of handles). */
static inline uint64_t *mpireg_w_datatype_keys(struct mpireg_record *r)
{
    return (uint64_t *)(r + 1);
}
/* Completes a record for the new handle `h` (size and extents, children
 * resolved to records) and inserts it; takes ownership.  The combiner is
 * `combiner`, or, when `check` is nonzero, the one PMPI_Type_get_envelope_c
 * reports (rows whose combiner another MPI may report differently: MPI-1
 * hvector/hindexed/struct, f90 types).  Caller holds the lock. */
MPIREG_HIDDEN void mpireg_publish(struct mpireg_record *r, MPI_Datatype h, int combiner, int check,
                                  void *site);

MPIREG_HIDDEN void mpireg_on_commit(MPI_Datatype h);
/* Caller holds the lock (across PMPI_Type_free). */
MPIREG_HIDDEN void mpireg_on_free(MPI_Datatype h);
MPIREG_HIDDEN void mpireg_on_set_name(MPI_Datatype h, const char *name);
/* get_contents (called at `site`) handed out datatype handles: derived ones
 * are new user refs (or new records, for handles MPI never gave before).
 * Caller holds the lock (across PMPI_Type_get_contents). */
MPIREG_HIDDEN void mpireg_on_contents(MPI_Datatype h, const MPI_Datatype *out, MPI_Count max,
                                      void *site);

/* Size and extents of a new derived record from its arguments and its
 * (resolved) children, as MPI computes them; MPI itself is asked only where
 * its rule is implementation-specific (shape.c). */
MPIREG_HIDDEN void mpireg_shape(struct mpireg_record *r, MPI_Datatype h);

/* Open-addressing tables of keyed objects (table.c).  Callers hold the lock
 * and bracket changes with the sequence counter. */
MPIREG_HIDDEN void *mpireg_table_find(const struct mpireg_table *t, uint64_t key);
/* 0 when out of memory (the object is not inserted). */
MPIREG_HIDDEN int mpireg_table_insert(struct mpireg_table *t, void *object);
MPIREG_HIDDEN void mpireg_table_remove(struct mpireg_table *t, const void *object);

/* The record pool (pool.c): records of up to MPIREG_POOL_MAX bytes are
 * carved from slabs and recycled through per-size free lists; bigger ones
 * are plain malloc blocks.  Caller holds the lock. */
MPIREG_HIDDEN void *mpireg_pool_alloc(size_t n);
MPIREG_HIDDEN void mpireg_pool_free(void *p, size_t n);

/* Predefined table and constants (root.c, statically initialised). */
MPIREG_HIDDEN void mpireg_predefined_setup(void);      /* at load time */
MPIREG_HIDDEN void mpireg_predefined_fill_sizes(void); /* MPI is up; caller holds the lock */

/* Predefined records by key: a small open-addressing index (power of two,
 * at most half full), private to libmpireg (readers scan root.predefined).
 * Its own hash, not the tables': Fibonacci hashing of the folded key, a
 * multiply and a shift; inline, as every child of a new type is looked up
 * here first. */
#define MPIREG_PINDEX_SIZE 256u
extern struct mpireg_predefined *mpireg_pindex[MPIREG_PINDEX_SIZE] MPIREG_HIDDEN;
static inline uint32_t mpireg_pindex_slot(uint64_t key)
{
    _Static_assert(MPIREG_PINDEX_SIZE == 256u, "the slot has 8 bits");
    return ((uint32_t)(key ^ (key >> 32)) * UINT32_C(0x9E3779B1)) >> 24;
}
static inline struct mpireg_record *mpireg_predefined_find(uint64_t key)
{
    for (uint32_t i = mpireg_pindex_slot(key), n = 0; n < MPIREG_PINDEX_SIZE;
         i = (i + 1) & (MPIREG_PINDEX_SIZE - 1), n++) {
        struct mpireg_predefined *p = mpireg_pindex[i];
        if (!p)
            return NULL;
        if (p->record.handle == key)
            return &p->record;
    }
    return NULL;
}

/* Key of a handle from mpi.h usable in a static initialiser (equal to
 * mpireg_key() on little-endian machines): an integer handle (MPICH) masked
 * to its size, or a pointer handle (Open MPI: the address of a global
 * object, filled in by the dynamic linker) as it is.  __builtin_choose_expr
 * keeps the branch that is a constant expression for the handle's type. */
#define MPIREG_STATIC_KEY(h)                                                             \
    __builtin_choose_expr(sizeof(h) < 8,                                                 \
                          (uint64_t)(uintptr_t)(h) & ((UINT64_C(1) << (8 * (sizeof(h) % 8))) - 1), \
                          (uint64_t)(uintptr_t)(h))

/* MPI-3.0 removed the MPI-1 names MPI_LB, MPI_UB, MPI_Type_hvector/hindexed/struct
 * and the *_INTEGER combiners.
 * MPICH still defines them; Open MPI's mpi.h defines them as a failing
 * _Static_assert unless the library was built with MPI-1 compatibility
 * (its OMPI_ENABLE_MPI1_COMPAT). */
#if defined(MPI_LB) && (!defined(OMPI_ENABLE_MPI1_COMPAT) || OMPI_ENABLE_MPI1_COMPAT)
#define MPIREG_HAVE_MPI1_NAMES 1
#endif

/* MPI_Type_get_envelope/get_contents with large counts: the MPI-4 _c
 * functions, or on an MPI-3 library (Open MPI 4.1) the int ones, which
 * describe every type (an MPI-3 library has no large-count constructors):
 * no large counts. */
static inline int mpireg_type_envelope(MPI_Datatype h, MPI_Count *ni, MPI_Count *na, MPI_Count *nl,
                                       MPI_Count *nd, int *combiner)
{
#if MPI_VERSION >= 4
    return PMPI_Type_get_envelope_c(h, ni, na, nl, nd, combiner);
#else
    int i = 0, a = 0, d = 0;
    int rc = PMPI_Type_get_envelope(h, &i, &a, &d, combiner);
    *ni = i;
    *na = a;
    *nl = 0;
    *nd = d;
    return rc;
#endif
}

static inline int mpireg_type_contents(MPI_Datatype h, MPI_Count ni, MPI_Count na, MPI_Count nl,
                                       MPI_Count nd, int *integers, MPI_Aint *addresses,
                                       MPI_Count *large_counts, MPI_Datatype *datatypes)
{
#if MPI_VERSION >= 4
    return PMPI_Type_get_contents_c(h, ni, na, nl, nd, integers, addresses, large_counts, datatypes);
#else
    (void)nl;
    (void)large_counts;
    if (ni > INT32_MAX || na > INT32_MAX || nd > INT32_MAX)
        return MPI_ERR_COUNT;
    return PMPI_Type_get_contents(h, (int)ni, (int)na, (int)nd, integers, addresses, datatypes);
#endif
}

/* The record of datatype h kept alive for a holder other than a parent
 * type (a file's view): one more parent reference for a derived type (one
 * we never saw built is adopted); predefined records are never counted.
 * NULL for MPI_DATATYPE_NULL or what MPI cannot describe.  mpireg_release
 * gives the reference back (NULL: nothing).  Both take the lock. */
MPIREG_HIDDEN const struct mpireg_record *mpireg_hold(MPI_Datatype h);
MPIREG_HIDDEN void mpireg_release(const struct mpireg_record *r);

/* root.fortran (see mpireg.h): Fortran handle f stands for C handle h (a
 * type made or handed out through the Fortran bindings, or a predefined
 * one; nothing is recorded where the two are the same); f no longer names a
 * type (freed through the Fortran bindings); get_contents from Fortran
 * handed out f[k] for c[k].  Caller holds the lock. */
MPIREG_HIDDEN void mpireg_on_fortran(MPI_Datatype h, MPI_Fint f);
MPIREG_HIDDEN void mpireg_fortran_gone(MPI_Fint f);
MPIREG_HIDDEN void mpireg_on_fortran_contents(MPI_Datatype h, const MPI_Datatype *c, const MPI_Fint *f,
                                              MPI_Count max);

/* Whether MPI_Type_get_contents hands out a derived child's own handle
 * (MPICH: 0) or a new copy of it (Open MPI 4.1: 1); asked of MPI once
 * (mpifacts.c).  Caller holds the lock, MPI is usable. */
MPIREG_HIDDEN int mpireg_contents_gives_copies(void);

/* Fortran entry points (fortran.c): C views of their arguments.  The handle
 * array is `small` when n <= nsmall, else malloc'ed (NULL when n is bad or
 * out of memory); release it with mpireg_types_release.  The string is the
 * blank-trimmed Fortran string in buf. */
MPIREG_HIDDEN MPI_Datatype *mpireg_types_f2c(const MPI_Fint *f, MPI_Count n, MPI_Datatype *small,
                                             size_t nsmall);
MPIREG_HIDDEN void mpireg_types_release(MPI_Datatype *c, MPI_Datatype *small);
MPIREG_HIDDEN const char *mpireg_string_f2c(const char *f, size_t len, char *buf, size_t size);
/* A Fortran buffer argument as C sees it: MPI_IN_PLACE and MPI_BOTTOM are
 * Fortran variables (common blocks) whose addresses MPI's binding compares
 * against; other addresses are the buffer itself. */
MPIREG_HIDDEN void *mpireg_fbuf_f2c(void *f);
/* Whether a Fortran status argument is MPI_STATUS_IGNORE. */
MPIREG_HIDDEN int mpireg_fstatus_ignored(const MPI_Fint *f);

#endif
