/*
 * mpireg_internal.h: what the generated wrappers (build/wrappers.c) and the
 * registry core share.  Not installed.
 *
 * Include this header first in every libmpireg source file: it selects the
 * registry's hash function for uthash before mpireg.h pulls uthash.h in, so
 * that the C side and an out-of-process reader compute the same buckets
 * (mpireg_hash() of the widened handle, see mpireg.h).
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

/* Nesting depth of wrapped MPI calls on this thread. */
extern __thread int mpireg_depth MPIREG_HIDDEN;

/* Called by every outermost wrapper before the PMPI call: fills the
 * predefined table's sizes once MPI is initialised. */
MPIREG_HIDDEN void mpireg_prologue(void);
/* The registry lock (recursive): held across a PMPI call whose effect on
 * handles must reach the registry atomically (creation, free). */
MPIREG_HIDDEN void mpireg_lock(void);
MPIREG_HIDDEN void mpireg_unlock(void);
/* MPI_Init / MPI_Init_thread succeeded. */
MPIREG_HIDDEN void mpireg_mpi_up(void);

/* A new record with room for the argument arrays; all counts set, args laid
 * out after the record.  NULL when out of memory. */
MPIREG_HIDDEN struct mpireg_record *mpireg_record_alloc(size_t ni, size_t na, size_t nl, size_t nd);
/* Writable views of a record's argument arrays. */
MPIREG_HIDDEN int *mpireg_w_integers(struct mpireg_record *r);
MPIREG_HIDDEN MPI_Aint *mpireg_w_addresses(struct mpireg_record *r);
MPIREG_HIDDEN MPI_Count *mpireg_w_large_counts(struct mpireg_record *r);
/* Before publication the datatype slots hold keys (mpireg_key of handles). */
MPIREG_HIDDEN uint64_t *mpireg_w_datatype_keys(struct mpireg_record *r);
/* Completes a record for the new handle `h` (combiner from MPI, sizes,
 * extents, children resolved to records) and inserts it; takes ownership. */
MPIREG_HIDDEN void mpireg_publish(struct mpireg_record *r, MPI_Datatype h, int combiner, void *site);

MPIREG_HIDDEN void mpireg_on_commit(MPI_Datatype h);
MPIREG_HIDDEN void mpireg_on_free(MPI_Datatype h);
MPIREG_HIDDEN void mpireg_on_set_name(MPI_Datatype h, const char *name);
/* get_contents handed out `n` datatype handles: derived ones are new user refs. */
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
