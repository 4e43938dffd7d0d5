/*
 * objects.h: the other MPI objects a program names in its calls -- groups
 * and one-sided (RMA) windows -- kept in the application's memory and read
 * from outside with plain memory reads, like the datatype registry
 * (mpireg.h), the communication context (calls.h) and the MPI-IO state
 * (files.h).
 *
 * Root: the exported symbol `mpireg_obj_root`: magic MPIREG_OBJ_MAGIC,
 * layout version, root size, `seq` (odd while a list or a record is
 * changed), `constants` ((name, value) pairs: the offset of every field
 * "group.*", "win.*", "region.*", the sizes "sizeof.*", the flavors
 * "flavor.*", the epoch bits "epoch.*", the array bounds and the MPI
 * constants MPI_GROUP_NULL, MPI_GROUP_EMPTY, MPI_WIN_NULL,
 * MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED, MPI_MODE_NOSUCCEED, ...), and the
 * heads of two doubly linked lists, `groups` and `wins`.
 *
 * A group record: the handle (widened to 64 bits like every handle of
 * libmpireg), `serial` (creation order: label group#serial), the creating
 * function and call site, what it was made from (`parent`: the
 * communicator of MPI_Comm_group, the window of MPI_Win_get_group, the
 * group of MPI_Group_incl, ...; `parent2`: the second group of a union,
 * intersection or difference), its size, this process's rank in it (-1:
 * not a member) and the MPI_COMM_WORLD ranks of its members.
 *
 * A window record: handle, serial (win#serial), the communicator it was
 * created on, flavor (create, allocate, allocate_shared, dynamic), base,
 * size and disp_unit of this process's memory, the size of its group and
 * this process's rank, the world ranks of the members, its name, and its
 * synchronization state as this process has driven it: fences so far and
 * the last fence's assert (a fence epoch is open after a fence without
 * MPI_MODE_NOSUCCEED), passive-target locks held (lock_all, or up to
 * MPIREG_WIN_LOCKS (rank, lock type) pairs), and the PSCW access epoch
 * (MPI_Win_start .. MPI_Win_complete) and exposure epoch (MPI_Win_post ..
 * MPI_Win_wait/test) with their groups, as window ranks (at most
 * MPIREG_WIN_EPOCH_RANKS each).  `regions`: for an allocate_shared window,
 * one per rank of the window -- where that rank's memory is mapped in this
 * process (MPI_Win_shared_query) --, for a dynamic window the regions
 * attached (MPI_Win_attach) and not yet detached.
 */
#ifndef MPIREG_OBJECTS_H
#define MPIREG_OBJECTS_H

#include <stdint.h>
#include <mpi.h>
#include "mpireg.h"

#define MPIREG_OBJ_MAGIC UINT64_C(0x31304a424f504d6d) /* "mMPOBJ01" little-endian */
#define MPIREG_OBJ_LAYOUT_VERSION 1u
#define MPIREG_WIN_NAME_MAX 128
#define MPIREG_WIN_LOCKS 8
#define MPIREG_WIN_EPOCH_RANKS 16
#define MPIREG_WIN_REGIONS_MAX 65536

enum { /* win.flavor */
    MPIREG_WIN_CREATE = 1,
    MPIREG_WIN_ALLOCATE = 2,
    MPIREG_WIN_SHARED = 3,
    MPIREG_WIN_DYNAMIC = 4,
};

enum { /* win.epoch bits */
    MPIREG_EPOCH_FENCE = 1u << 0,    /* after a fence without MPI_MODE_NOSUCCEED */
    MPIREG_EPOCH_LOCK_ALL = 1u << 1, /* MPI_Win_lock_all .. MPI_Win_unlock_all */
    MPIREG_EPOCH_ACCESS = 1u << 2,   /* MPI_Win_start .. MPI_Win_complete */
    MPIREG_EPOCH_EXPOSURE = 1u << 3, /* MPI_Win_post .. MPI_Win_wait / a true MPI_Win_test */
};

/* What a synchronization call does to a window (the epoch() hook). */
enum mpireg_epoch_event {
    MPIREG_EV_FENCE,      /* a: assert */
    MPIREG_EV_LOCK,       /* a: rank, b: lock type */
    MPIREG_EV_UNLOCK,     /* a: rank */
    MPIREG_EV_LOCK_ALL,
    MPIREG_EV_UNLOCK_ALL,
    MPIREG_EV_COMPLETE,   /* the access epoch ends */
    MPIREG_EV_WAIT,       /* the exposure epoch ends */
    MPIREG_EV_TEST,       /* a: the flag MPI_Win_test returned */
};

struct mpireg_group {
    uint64_t handle;
    struct mpireg_group *next, *prev;
    uint64_t serial;
    uint64_t created_at;
    const char *creator; /* "MPI_Comm_group" */
    uint64_t parent;     /* widened handle it was made from (see above) */
    uint64_t parent2;
    int32_t size, rank;
    int32_t n_members, pad;
    int32_t *members;    /* world ranks, by rank in the group; NULL when too large */
};

struct mpireg_win_region {
    uint64_t base;
    int64_t size;
    int64_t disp_unit;
};

struct mpireg_win_lock {
    int32_t rank, type;
};

struct mpireg_win {
    uint64_t handle;
    struct mpireg_win *next, *prev;
    uint64_t serial;
    uint64_t comm;       /* widened MPI_Comm it was created on */
    uint64_t created_at;
    const char *creator; /* "MPI_Win_create" */
    int32_t flavor, disp_unit;
    uint64_t base;
    int64_t size;
    int32_t group_size, rank;
    int32_t n_members, pad;
    int32_t *members;    /* world ranks of the window's group, by rank */
    uint32_t epoch;      /* MPIREG_EPOCH_* */
    int32_t fence_assert;
    uint64_t fences;
    int32_t nlocks;      /* may exceed MPIREG_WIN_LOCKS: the first ones are listed */
    int32_t n_access, n_exposure; /* may exceed MPIREG_WIN_EPOCH_RANKS */
    int32_t n_regions;
    struct mpireg_win_lock locks[MPIREG_WIN_LOCKS];
    uint64_t access_group, exposure_group; /* widened MPI_Group */
    int32_t access_ranks[MPIREG_WIN_EPOCH_RANKS];   /* window ranks */
    int32_t exposure_ranks[MPIREG_WIN_EPOCH_RANKS];
    struct mpireg_win_region *regions;
    int32_t regions_max, pad2;
    char name[MPIREG_WIN_NAME_MAX];
};

struct mpireg_obj_root {
    uint64_t magic;
    uint32_t layout_version;
    uint32_t root_size;
    volatile uint64_t seq;
    uint32_t n_constants;
    uint32_t pad;
    const struct mpireg_constant *constants;
    struct mpireg_group *groups;
    struct mpireg_win *wins;
};

extern struct mpireg_obj_root mpireg_obj_root;

/* Used by the generated wrappers (rows of comm.spec). */
#define MPIREG_OBJ_HIDDEN __attribute__((visibility("hidden")))
MPIREG_OBJ_HIDDEN void mpireg_group_new(MPI_Group h, uint64_t parent, uint64_t parent2,
                                        const char *creator, void *site);
MPIREG_OBJ_HIDDEN void mpireg_group_gone(MPI_Group h);
MPIREG_OBJ_HIDDEN void mpireg_win_new(MPI_Win h, MPI_Comm comm, int flavor, void *base,
                                      MPI_Aint size, int disp_unit, const char *creator,
                                      void *site);
MPIREG_OBJ_HIDDEN void mpireg_win_gone(MPI_Win h);
MPIREG_OBJ_HIDDEN void mpireg_win_named(MPI_Win h, const char *name);
MPIREG_OBJ_HIDDEN void mpireg_win_attach(MPI_Win h, void *base, MPI_Aint size);
MPIREG_OBJ_HIDDEN void mpireg_win_detach(MPI_Win h, const void *base);
MPIREG_OBJ_HIDDEN void mpireg_win_epoch(MPI_Win h, enum mpireg_epoch_event ev, int64_t a,
                                        int64_t b);
/* PSCW: MPI_Win_start (access) or MPI_Win_post (exposure) with group. */
MPIREG_OBJ_HIDDEN void mpireg_win_pscw(MPI_Win h, int access, MPI_Group group);
/* *comm = the communicator h was created on, widened; 0 (and *comm
 * untouched) for a window we do not know. */
MPIREG_OBJ_HIDDEN int mpireg_win_comm(MPI_Win h, uint64_t *comm);

#endif
