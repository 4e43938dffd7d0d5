/*
 * mpireg_internal.h: what the generated wrappers (build/wrappers.c) and the
 * registry core share.  Not installed.
 *
 * Include this header first in every libmpireg source file: it selects the
 * registry's hash function for uthash before mpireg.h pulls uthash.h in, so
 * that the C side and an out-of-process reader compute the same buckets
 * (mpireg_hash() of the widened handle, see mpireg.h).  (registry.c, the
 * only user of the HASH_* macros, defines uthash_malloc/uthash_free before
 * including it: uthash's tables go through its block cache.)
 */
#ifndef MPIREG_INTERNAL_H
#define MPIREG_INTERNAL_H

#ifdef UTHASH_H
#error "mpireg_internal.h must be included before uthash.h / mpireg.h"
#endif
#define HASH_FUNCTION(keyptr, keylen, hashv) \
    ((hashv) = mpireg_hash(*(const uint64_t *)(const void *)(keyptr)))
/* Out of memory in uthash must not exit() the program: the add fails and
 * leaves the element's hh.tbl NULL (checked by the registry). */
#define HASH_NONFATAL_OOM 1

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "mpireg.h"

#define MPIREG_HIDDEN __attribute__((visibility("hidden")))

_Static_assert(sizeof(void *) == sizeof(uint64_t), "datatype slots hold 64-bit keys before publication");
_Static_assert(sizeof(MPI_Datatype) <= sizeof(uint64_t), "handles must fit the 64-bit key");
_Static_assert(sizeof(struct mpireg_record) % 8 == 0, "args follow the record, 8-aligned");

/* Internal flag bit (never set on a record reachable through root.map): the
 * record was taken out of the map while parents still pointed at it. */
#define MPIREG_FLAG_DETACHED 0x8000u

/* Widens a handle to the 64-bit key: its bytes copied into a zeroed uint64_t. */
static inline uint64_t mpireg_key(MPI_Datatype h)
{
    uint64_t k = 0;
    memcpy(&k, &h, sizeof h);
    return k;
}

/* Nesting depth of wrapped MPI calls on this thread.  initial-exec: one
 * %fs-relative access instead of a __tls_get_addr call per use (as calls.c's
 * slot pointer; a few bytes of static TLS, fine for LD_PRELOAD and dlopen). */
extern __thread int mpireg_depth MPIREG_HIDDEN __attribute__((tls_model("initial-exec")));

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
/* MPI_Init / MPI_Init_thread succeeded. */
MPIREG_HIDDEN void mpireg_mpi_up(void);

/* A new record with room for the argument arrays; all counts set, args laid
 * out after the record, the other fields zero (the argument arrays are left
 * for the caller to fill completely).  NULL when out of memory.  Caller
 * holds the lock (records are recycled through a small cache). */
MPIREG_HIDDEN struct mpireg_record *mpireg_record_alloc(size_t ni, size_t na, size_t nl, size_t nd);
/* Writable views of a record's argument arrays. */
static inline MPI_Aint *mpireg_w_addresses(struct mpireg_record *r)
{
    return (MPI_Aint *)((char *)r->args + r->n_datatypes * sizeof(struct mpireg_record *));
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
    return (uint64_t *)r->args;
}
/* Completes a record for the new handle `h` (sizes, extents, children
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
/* get_contents handed out `n` datatype handles: derived ones are new user
 * refs.  Caller holds the lock (across PMPI_Type_get_contents). */
MPIREG_HIDDEN void mpireg_on_contents(MPI_Datatype h, const MPI_Datatype *out, MPI_Count max);

/* Predefined table and constants (root.c, statically initialised). */
MPIREG_HIDDEN void mpireg_predefined_setup(void);      /* at load time */
MPIREG_HIDDEN void mpireg_predefined_fill_sizes(void); /* MPI is up; caller holds the lock */
MPIREG_HIDDEN struct mpireg_record *mpireg_predefined_find(uint64_t key);

/* Statically computable key of a handle from mpi.h (integer handles; equal to
 * mpireg_key() on little-endian machines). */
#define MPIREG_STATIC_KEY(h)                                                        \
    ((uint64_t)(uintptr_t)(h) &                                                     \
     (sizeof(h) < 8 ? ((UINT64_C(1) << (8 * (sizeof(h) % 8))) - 1) : ~UINT64_C(0)))

#endif
