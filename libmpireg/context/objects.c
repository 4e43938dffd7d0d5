/*
 * objects.c: groups and RMA windows (see objects.h), and the self-describing
 * root `mpireg_obj_root`.  MPI is asked what the records say (sizes, ranks,
 * members, shared memory addresses) with local queries, outside the lock.
 */
#include "mpireg_internal.h"
#include "calls.h"
#include "objects.h"

#include <pthread.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t obj_lock = PTHREAD_MUTEX_INITIALIZER;

#define K(n, v) {n, (int64_t)(v)},
#define GROUPF(f) K("group." #f, offsetof(struct mpireg_group, f))
#define WINF(f) K("win." #f, offsetof(struct mpireg_win, f))
#define REGIONF(f) K("region." #f, offsetof(struct mpireg_win_region, f))
#define LOCKF(f) K("lock." #f, offsetof(struct mpireg_win_lock, f))
#define HK(h) K(#h, MPIREG_STATIC_KEY(h))

static const struct mpireg_constant constants_table[] = {
    K("sizeof.group", sizeof(struct mpireg_group))
    K("sizeof.win", sizeof(struct mpireg_win))
    K("sizeof.region", sizeof(struct mpireg_win_region))
    K("sizeof.lock", sizeof(struct mpireg_win_lock))
    K("sizeof.MPI_Group", sizeof(MPI_Group))
    K("sizeof.MPI_Win", sizeof(MPI_Win))
    K("win.name_max", MPIREG_WIN_NAME_MAX)
    K("win.locks_max", MPIREG_WIN_LOCKS)
    K("win.epoch_ranks_max", MPIREG_WIN_EPOCH_RANKS)
    K("win.regions_max", MPIREG_WIN_REGIONS_MAX)
    GROUPF(handle) GROUPF(next) GROUPF(prev) GROUPF(serial) GROUPF(created_at)
    GROUPF(creator) GROUPF(parent) GROUPF(parent2) GROUPF(size) GROUPF(rank)
    GROUPF(n_members) GROUPF(members)
    WINF(handle) WINF(next) WINF(prev) WINF(serial) WINF(comm) WINF(created_at) WINF(creator)
    WINF(flavor) WINF(disp_unit) WINF(base) WINF(size) WINF(group_size) WINF(rank)
    WINF(n_members) WINF(members) WINF(epoch) WINF(fence_assert) WINF(fences) WINF(nlocks)
    WINF(n_access) WINF(n_exposure) WINF(n_regions) WINF(locks) WINF(access_group)
    WINF(exposure_group) WINF(access_ranks) WINF(exposure_ranks) WINF(regions) WINF(name)
    REGIONF(base) REGIONF(size) REGIONF(disp_unit)
    LOCKF(rank) LOCKF(type)
    K("flavor.create", MPIREG_WIN_CREATE)
    K("flavor.allocate", MPIREG_WIN_ALLOCATE)
    K("flavor.allocate_shared", MPIREG_WIN_SHARED)
    K("flavor.dynamic", MPIREG_WIN_DYNAMIC)
    K("epoch.fence", MPIREG_EPOCH_FENCE)
    K("epoch.lock_all", MPIREG_EPOCH_LOCK_ALL)
    K("epoch.access", MPIREG_EPOCH_ACCESS)
    K("epoch.exposure", MPIREG_EPOCH_EXPOSURE)
    HK(MPI_GROUP_NULL) HK(MPI_GROUP_EMPTY) HK(MPI_WIN_NULL)
    K("MPI_LOCK_EXCLUSIVE", MPI_LOCK_EXCLUSIVE) K("MPI_LOCK_SHARED", MPI_LOCK_SHARED)
    K("MPI_MODE_NOCHECK", MPI_MODE_NOCHECK) K("MPI_MODE_NOSTORE", MPI_MODE_NOSTORE)
    K("MPI_MODE_NOPUT", MPI_MODE_NOPUT) K("MPI_MODE_NOPRECEDE", MPI_MODE_NOPRECEDE)
    K("MPI_MODE_NOSUCCEED", MPI_MODE_NOSUCCEED)
};
#undef K
#undef GROUPF
#undef WINF
#undef REGIONF
#undef LOCKF
#undef HK

EXPORT struct mpireg_obj_root mpireg_obj_root = {
    .magic = MPIREG_OBJ_MAGIC,
    .layout_version = MPIREG_OBJ_LAYOUT_VERSION,
    .root_size = sizeof(struct mpireg_obj_root),
    .n_constants = sizeof constants_table / sizeof constants_table[0],
    .constants = constants_table,
};

static void obj_begin(void)
{
    mpireg_seq_enter(&obj_lock, &mpireg_obj_root.seq);
}

static void obj_end(void)
{
    mpireg_seq_leave(&obj_lock, &mpireg_obj_root.seq);
}

static uint64_t group_serial, win_serial;

/* ---------------------------------------------------------------------------
 * Groups.
 * ------------------------------------------------------------------------- */
/* Caller holds obj_lock. */
static struct mpireg_group *group_find(uint64_t key)
{
    for (struct mpireg_group *g = mpireg_obj_root.groups; g; g = g->next)
        if (g->handle == key)
            return g;
    return NULL;
}

static void group_drop(struct mpireg_group *g)
{
    free(g->members);
    free(g);
}

void mpireg_group_new(MPI_Group h, uint64_t parent, uint64_t parent2, const char *creator,
                      void *site)
{
    if (h == MPI_GROUP_NULL || h == MPI_GROUP_EMPTY)
        return;
    struct mpireg_group *g = calloc(1, sizeof *g);
    if (!g)
        return;
    g->handle = MPIREG_HKEY(h);
    g->parent = parent;
    g->parent2 = parent2;
    g->creator = creator;
    g->created_at = (uint64_t)(uintptr_t)site;
    g->size = g->rank = -1;
    PMPI_Group_size(h, &g->size);
    if (PMPI_Group_rank(h, &g->rank) != MPI_SUCCESS || g->rank == MPI_UNDEFINED)
        g->rank = -1;
    g->members = mpireg_world_ranks(h, &g->n_members);
    obj_begin();
    g->serial = ++group_serial;
    struct mpireg_group *old = group_find(g->handle); /* freed behind our back */
    if (old)
        MPIREG_LIST_UNLINK(mpireg_obj_root.groups, old);
    MPIREG_LIST_PUSH(mpireg_obj_root.groups, g);
    obj_end();
    if (old)
        group_drop(old);
}

void mpireg_group_gone(MPI_Group h)
{
    obj_begin();
    struct mpireg_group *g = group_find(MPIREG_HKEY(h));
    if (g)
        MPIREG_LIST_UNLINK(mpireg_obj_root.groups, g);
    obj_end();
    if (g)
        group_drop(g);
}

/* ---------------------------------------------------------------------------
 * Windows.
 * ------------------------------------------------------------------------- */
/* Caller holds obj_lock. */
static struct mpireg_win *win_find(uint64_t key)
{
    for (struct mpireg_win *w = mpireg_obj_root.wins; w; w = w->next)
        if (w->handle == key)
            return w;
    return NULL;
}

static void win_drop(struct mpireg_win *w)
{
    free(w->members);
    free(w->regions);
    free(w);
}

/* Where each rank's memory of a shared window lies in this process. */
static void shared_regions(struct mpireg_win *w, MPI_Win h)
{
    int n = w->group_size;
    if (n <= 0 || n > MPIREG_WIN_REGIONS_MAX)
        return;
    w->regions = calloc((size_t)n, sizeof *w->regions);
    if (!w->regions)
        return;
    w->regions_max = n;
    for (int r = 0; r < n; r++) {
        MPI_Aint size = 0;
        int unit = 0;
        void *base = NULL;
        if (PMPI_Win_shared_query(h, r, &size, &unit, &base) == MPI_SUCCESS)
            w->regions[r] = (struct mpireg_win_region){(uint64_t)(uintptr_t)base, size, unit};
    }
    w->n_regions = n;
}

void mpireg_win_new(MPI_Win h, MPI_Comm comm, int flavor, void *base, MPI_Aint size,
                    int disp_unit, const char *creator, void *site)
{
    if (h == MPI_WIN_NULL)
        return;
    struct mpireg_win *w = calloc(1, sizeof *w);
    if (!w)
        return;
    w->handle = MPIREG_HKEY(h);
    w->comm = MPIREG_HKEY(comm);
    w->flavor = flavor;
    w->base = (uint64_t)(uintptr_t)base;
    w->size = size;
    w->disp_unit = disp_unit;
    w->creator = creator;
    w->created_at = (uint64_t)(uintptr_t)site;
    w->group_size = w->rank = -1;
    MPI_Group g;
    if (PMPI_Win_get_group(h, &g) == MPI_SUCCESS) {
        PMPI_Group_size(g, &w->group_size);
        PMPI_Group_rank(g, &w->rank);
        w->members = mpireg_world_ranks(g, &w->n_members);
        PMPI_Group_free(&g);
    }
    if (flavor == MPIREG_WIN_SHARED)
        shared_regions(w, h);
    obj_begin();
    w->serial = ++win_serial;
    struct mpireg_win *old = win_find(w->handle); /* freed behind our back */
    if (old)
        MPIREG_LIST_UNLINK(mpireg_obj_root.wins, old);
    MPIREG_LIST_PUSH(mpireg_obj_root.wins, w);
    obj_end();
    if (old)
        win_drop(old);
}

void mpireg_win_gone(MPI_Win h)
{
    obj_begin();
    struct mpireg_win *w = win_find(MPIREG_HKEY(h));
    if (w)
        MPIREG_LIST_UNLINK(mpireg_obj_root.wins, w);
    obj_end();
    if (w)
        win_drop(w);
}

void mpireg_win_named(MPI_Win h, const char *name)
{
    obj_begin();
    struct mpireg_win *w = win_find(MPIREG_HKEY(h));
    if (w && name) {
        strncpy(w->name, name, MPIREG_WIN_NAME_MAX - 1);
        w->name[MPIREG_WIN_NAME_MAX - 1] = 0;
    }
    obj_end();
}

void mpireg_win_attach(MPI_Win h, void *base, MPI_Aint size)
{
    obj_begin();
    struct mpireg_win *w = win_find(MPIREG_HKEY(h));
    if (w && w->n_regions == w->regions_max && w->regions_max < MPIREG_WIN_REGIONS_MAX) {
        /* grown under the lock, but a reader sees seq odd until it is done */
        int max = w->regions_max ? 2 * w->regions_max : 8;
        struct mpireg_win_region *more = realloc(w->regions, (size_t)max * sizeof *more);
        if (more) {
            w->regions = more;
            w->regions_max = max;
        }
    }
    if (w && w->n_regions < w->regions_max)
        w->regions[w->n_regions++] =
            (struct mpireg_win_region){(uint64_t)(uintptr_t)base, size, 1};
    obj_end();
}

void mpireg_win_detach(MPI_Win h, const void *base)
{
    obj_begin();
    struct mpireg_win *w = win_find(MPIREG_HKEY(h));
    for (int k = 0; w && k < w->n_regions; k++) {
        if (w->regions[k].base == (uint64_t)(uintptr_t)base) {
            w->regions[k] = w->regions[--w->n_regions];
            break;
        }
    }
    obj_end();
}

static void lock_add(struct mpireg_win *w, int rank, int type)
{
    if (w->nlocks < MPIREG_WIN_LOCKS)
        w->locks[w->nlocks] = (struct mpireg_win_lock){rank, type};
    w->nlocks++;
}

static void lock_remove(struct mpireg_win *w, int rank)
{
    int listed = w->nlocks < MPIREG_WIN_LOCKS ? w->nlocks : MPIREG_WIN_LOCKS;
    for (int k = 0; k < listed; k++) {
        if (w->locks[k].rank == rank) {
            w->locks[k] = w->locks[listed - 1];
            break;
        }
    }
    if (w->nlocks > 0)
        w->nlocks--;
}

void mpireg_win_epoch(MPI_Win h, enum mpireg_epoch_event ev, int64_t a, int64_t b)
{
    obj_begin();
    struct mpireg_win *w = win_find(MPIREG_HKEY(h));
    if (w) {
        switch (ev) {
        case MPIREG_EV_FENCE:
            w->fences++;
            w->fence_assert = (int32_t)a;
            if (a & MPI_MODE_NOSUCCEED)
                w->epoch &= ~(uint32_t)MPIREG_EPOCH_FENCE;
            else
                w->epoch |= MPIREG_EPOCH_FENCE;
            break;
        case MPIREG_EV_LOCK:
            lock_add(w, (int)a, (int)b);
            break;
        case MPIREG_EV_UNLOCK:
            lock_remove(w, (int)a);
            break;
        case MPIREG_EV_LOCK_ALL:
            w->epoch |= MPIREG_EPOCH_LOCK_ALL;
            break;
        case MPIREG_EV_UNLOCK_ALL:
            w->epoch &= ~(uint32_t)MPIREG_EPOCH_LOCK_ALL;
            break;
        case MPIREG_EV_COMPLETE:
            w->epoch &= ~(uint32_t)MPIREG_EPOCH_ACCESS;
            break;
        case MPIREG_EV_WAIT:
            w->epoch &= ~(uint32_t)MPIREG_EPOCH_EXPOSURE;
            break;
        case MPIREG_EV_TEST: /* a true MPI_Win_test ends the exposure epoch */
            if (a)
                w->epoch &= ~(uint32_t)MPIREG_EPOCH_EXPOSURE;
            break;
        }
    }
    obj_end();
}

void mpireg_win_pscw(MPI_Win h, int access, MPI_Group group)
{
    int32_t ranks[MPIREG_WIN_EPOCH_RANKS];
    int n = 0, listed = 0;
    MPI_Group wg;
    if (PMPI_Group_size(group, &n) == MPI_SUCCESS && PMPI_Win_get_group(h, &wg) == MPI_SUCCESS) {
        int in[MPIREG_WIN_EPOCH_RANKS], out[MPIREG_WIN_EPOCH_RANKS];
        listed = n < MPIREG_WIN_EPOCH_RANKS ? n : MPIREG_WIN_EPOCH_RANKS;
        for (int k = 0; k < listed; k++)
            in[k] = k;
        if (listed && PMPI_Group_translate_ranks(group, listed, in, wg, out) != MPI_SUCCESS)
            listed = 0;
        for (int k = 0; k < listed; k++)
            ranks[k] = out[k] == MPI_UNDEFINED ? -1 : out[k];
        PMPI_Group_free(&wg);
    }
    obj_begin();
    struct mpireg_win *w = win_find(MPIREG_HKEY(h));
    if (w) {
        int32_t *dst = access ? w->access_ranks : w->exposure_ranks;
        memcpy(dst, ranks, sizeof ranks[0] * (size_t)listed);
        if (access) {
            w->access_group = MPIREG_HKEY(group);
            w->n_access = n;
            w->epoch |= MPIREG_EPOCH_ACCESS;
        } else {
            w->exposure_group = MPIREG_HKEY(group);
            w->n_exposure = n;
            w->epoch |= MPIREG_EPOCH_EXPOSURE;
        }
    }
    obj_end();
}

int mpireg_win_comm(MPI_Win h, uint64_t *comm)
{
    pthread_mutex_lock(&obj_lock);
    struct mpireg_win *w = win_find(MPIREG_HKEY(h));
    if (w)
        *comm = w->comm;
    pthread_mutex_unlock(&obj_lock);
    return w != NULL;
}
