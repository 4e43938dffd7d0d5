/*
 * registry.c: the table of derived datatype records and its lifetimes.
 *
 * Every update runs under one (recursive) mutex and is bracketed by two
 * increments of root.seq: odd while a table or a record is being changed.
 *
 * Lifetimes mirror MPI's (docs/design.md, "Registry rules"):
 *   user_refs   handles the program holds: 1 at creation, +1 for every
 *               derived handle MPI_Type_get_contents hands out, -1 per free;
 *   parent_refs records in the table (or detached) whose args point here.
 * FREED is set when user_refs drops to 0.  When both are 0 MPI has destroyed
 * the object: the record leaves the table, releases its children
 * (cascading), its name and its memory.  Predefined records are never
 * counted.
 */
#define _GNU_SOURCE /* dladdr, dl_iterate_phdr */
#include "mpireg_internal.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MPIREG_EXPORT __attribute__((visibility("default")))

__thread int mpireg_depth;
__thread int mpireg_inside_mpi;

/* The registry lock: recursive, as a plain mutex plus this thread's hold
 * count (the count is only ever touched by its own thread).
 *
 * The mutex is taken only while several threads may call MPI at once: from
 * the start, and for good when MPI_Init/MPI_Init_thread provide
 * MPI_THREAD_MULTIPLE.  At the lower levels the program itself orders every
 * MPI call (and so every registry update: they happen inside MPI calls)
 * after the previous one, and the mutex would only cost two atomic
 * operations per wrapped call.  (A program that initialises the world model
 * below MPI_THREAD_MULTIPLE and then calls datatype functions from several
 * threads at once through an MPI-4 session is not covered.) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int mpireg_concurrent = 1;
static __thread unsigned lock_held __attribute__((tls_model("initial-exec")));
static __thread int lock_taken __attribute__((tls_model("initial-exec")));
int mpireg_predefined_filled;

static inline void lock_acquire(void)
{
    if (lock_held++ == 0 && __atomic_load_n(&mpireg_concurrent, __ATOMIC_RELAXED)) {
        pthread_mutex_lock(&lock);
        lock_taken = 1;
    }
}
static inline void lock_release(void)
{
    if (--lock_held == 0 && lock_taken) {
        lock_taken = 0;
        pthread_mutex_unlock(&lock);
    }
}
void mpireg_lock(void) { lock_acquire(); }
void mpireg_unlock(void) { lock_release(); }

/* seq: odd while writing (only the outermost write of nested ones bumps
 * it).  Readers either hold the lock (in process) or read a stopped
 * process, so what matters is that no record/map store lands outside the
 * odd window: store-store order, i.e. release fences (a compiler barrier on
 * x86, dmb ishst-like on weaker machines), as a seqlock writer needs. */
static int write_nesting; /* under the lock */

/* seq_begin/seq_end: caller holds the lock. */
static inline void seq_begin(void)
{
    if (write_nesting++ == 0) {
        __atomic_store_n(&mpireg_root.seq, mpireg_root.seq + 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
    }
}

static inline void seq_end(void)
{
    if (--write_nesting == 0)
        __atomic_store_n(&mpireg_root.seq, mpireg_root.seq + 1, __ATOMIC_RELEASE);
}

static void write_begin(void)
{
    lock_acquire();
    seq_begin();
}

static void write_end(void)
{
    seq_end();
    lock_release();
}

/* ------------------------------------------------------------------------ */

static int mpi_is_up(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    if (!init)
        return 0;
    PMPI_Finalized(&fin);
    return !fin;
}

/* mpi_usable: a datatype call just succeeded, so MPI can answer queries
 * even if MPI_Initialized says no (MPI-4 sessions). */
static void fill_predefined(int mpi_usable)
{
    mpireg_predefined_setup();
    if (__atomic_load_n(&mpireg_predefined_filled, __ATOMIC_ACQUIRE) || !(mpi_usable || mpi_is_up()))
        return;
    write_begin();
    if (!mpireg_predefined_filled) {
        mpireg_predefined_fill_sizes();
        __atomic_store_n(&mpireg_predefined_filled, 1, __ATOMIC_RELEASE);
    }
    write_end();
}

void mpireg_prologue_slow(void)
{
    if (!__atomic_load_n(&mpireg_predefined_filled, __ATOMIC_ACQUIRE))
        fill_predefined(0);
}

void mpireg_mpi_up(void)
{
    fill_predefined(1);
    int provided = MPI_THREAD_MULTIPLE;
    if (PMPI_Query_thread(&provided) == MPI_SUCCESS && provided != MPI_THREAD_MULTIPLE)
        __atomic_store_n(&mpireg_concurrent, 0, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------------ */

static size_t args_bytes(size_t ni, size_t na, size_t nl, size_t nd)
{
    return nd * sizeof(struct mpireg_record *) + na * sizeof(MPI_Aint) +
           nl * sizeof(MPI_Count) + ni * sizeof(int);
}

static size_t record_bytes(const struct mpireg_record *r)
{
    return sizeof *r + args_bytes(r->n_integers, r->n_addresses, r->n_large_counts, r->n_datatypes);
}

static void record_release(struct mpireg_record *r)
{
    mpireg_pool_free(r, record_bytes(r));
}

struct mpireg_record *mpireg_record_alloc(size_t ni, size_t na, size_t nl, size_t nd)
{
    if (ni > UINT32_MAX || na > UINT32_MAX || nl > UINT32_MAX || nd > UINT32_MAX)
        return NULL;
    size_t args = args_bytes(ni, na, nl, nd);
    if (args > SIZE_MAX - sizeof(struct mpireg_record) - 64)
        return NULL;
    struct mpireg_record *r = mpireg_pool_alloc(sizeof *r + args);
    if (!r)
        return NULL;
    /* the header only: the caller fills every argument slot */
    memset(r, 0, sizeof *r);
    r->n_integers = (uint32_t)ni;
    r->n_addresses = (uint32_t)na;
    r->n_large_counts = (uint32_t)nl;
    r->n_datatypes = (uint32_t)nd;
    return r;
}

/* ------------------------------------------------------------------------ */

static struct mpireg_record *map_find(uint64_t key)
{
    return mpireg_table_find(&mpireg_root.types, key);
}

static struct mpireg_record *find_any(uint64_t key)
{
    struct mpireg_record *r = map_find(key);
    return r ? r : mpireg_predefined_find(key);
}

static struct mpireg_name *name_entry(const struct mpireg_record *r)
{
    return mpireg_table_find(&mpireg_root.names, (uint64_t)(uintptr_t)r);
}

/* Drops r's name (inside a write). */
static void unname(struct mpireg_record *r)
{
    if (!(r->flags & MPIREG_FLAG_NAMED))
        return;
    struct mpireg_name *e = name_entry(r);
    if (e) {
        mpireg_table_remove(&mpireg_root.names, e);
        free(e);
    }
    r->flags &= (uint8_t)~MPIREG_FLAG_NAMED;
}

static void detach(struct mpireg_record *r)
{
    if (r->flags & MPIREG_FLAG_DETACHED)
        return;
    mpireg_table_remove(&mpireg_root.types, r);
    r->flags |= MPIREG_FLAG_DETACHED;
}

/* r has user_refs == 0 and parent_refs == 0: MPI destroyed it.  Takes it
 * out of the table, releases its children (cascading) and frees it. */
static void destroy(struct mpireg_record *r)
{
    struct mpireg_record *stack_small[32], **stack = stack_small;
    size_t top = 0, cap = 32;
    stack[top++] = r;
    while (top) {
        struct mpireg_record *x = stack[--top];
        detach(x);
        struct mpireg_record **kids = mpireg_w_datatypes(x);
        for (uint32_t k = 0; k < x->n_datatypes; k++) {
            struct mpireg_record *c = kids[k];
            if (!c || (c->flags & MPIREG_FLAG_PREDEFINED))
                continue;
            if (c->parent_refs == 0)
                continue; /* (inconsistent counts: never free twice) */
            if (--c->parent_refs == 0 && c->user_refs == 0) {
                if (top == cap) {
                    size_t ncap = cap * 2;
                    struct mpireg_record **ns = malloc(ncap * sizeof *ns);
                    if (!ns)
                        continue; /* leak rather than crash */
                    memcpy(ns, stack, top * sizeof *ns);
                    if (stack != stack_small)
                        free(stack);
                    stack = ns;
                    cap = ncap;
                }
                stack[top++] = c;
            }
        }
        unname(x);
        record_release(x);
    }
    if (stack != stack_small)
        free(stack);
}

/* The table still holds a record for a handle MPI just gave to a new type:
 * we missed its destruction (freed through an interface we do not see). */
static void drop_stale(struct mpireg_record *old)
{
    old->user_refs = 0;
    old->flags |= MPIREG_FLAG_FREED;
    if (old->parent_refs == 0)
        destroy(old);
    else
        detach(old);
}

/* ------------------------------------------------------------------------
 * Creation sites.  The wrapper's return address is the constructor call in
 * the program, except when the program called through MPI's Fortran
 * bindings (mpif.h, use mpi): then it lies in the binding library, and the
 * site we want is one frame further out.  The unwinder (backtrace(), which
 * uses .eh_frame and needs no frame pointers) finds it.
 * ---------------------------------------------------------------------- */

struct code_range {
    uintptr_t lo, hi;
};
static struct code_range binding_code[16];
static int n_binding_code, binding_scanned;

static int is_binding_library(const char *name)
{
    static const char *const libs[] = {"libmpichfort.", "libmpifort.", "libmpi_mpifh.", "libmpi_usempi"};
    for (size_t i = 0; name && i < sizeof libs / sizeof libs[0]; i++)
        if (strstr(name, libs[i]))
            return 1;
    return 0;
}

static int scan_library(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (!is_binding_library(info->dlpi_name))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && n_binding_code < 16; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            binding_code[n_binding_code].lo = info->dlpi_addr + ph->p_vaddr;
            binding_code[n_binding_code].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            n_binding_code++;
        }
    }
    return 0;
}

/* Caller holds the lock. */
static void *user_site(void *site)
{
    if (!binding_scanned) {
        dl_iterate_phdr(scan_library, NULL);
        binding_scanned = 1;
    }
    int in_binding = 0;
    for (int i = 0; i < n_binding_code; i++)
        if ((uintptr_t)site >= binding_code[i].lo && (uintptr_t)site < binding_code[i].hi)
            in_binding = 1;
    if (!in_binding)
        return site;
    void *frames[12];
    int n = backtrace(frames, 12);
    for (int i = 0; i + 1 < n; i++)
        if (frames[i] == site)
            return frames[i + 1];
    return site;
}

static int is_f90(int combiner)
{
    return combiner == MPI_COMBINER_F90_INTEGER || combiner == MPI_COMBINER_F90_REAL ||
           combiner == MPI_COMBINER_F90_COMPLEX;
}

/* The header of a new record for handle h (children, size and extents
 * come later). */
static void init_header(struct mpireg_record *r, MPI_Datatype h, int combiner)
{
    r->handle = mpireg_key(h);
    r->combiner = (int16_t)combiner;
    r->kind = MPIREG_KIND_NONE;
    r->flags = mpireg_inside_mpi ? MPIREG_FLAG_MPI : 0;
    r->user_refs = 1;
    r->parent_refs = 0;
}

/* Adds r to the table; 0 (and r released and freed) when out of memory. */
static int insert(struct mpireg_record *r)
{
    r->serial = (uint32_t)mpireg_root.next_serial++;
    if (!mpireg_table_insert(&mpireg_root.types, r)) {
        r->flags |= MPIREG_FLAG_DETACHED;
        r->user_refs = 0;
        r->parent_refs = 0;
        destroy(r);
        return 0;
    }
    return 1;
}

#define ADOPT_MAX_DEPTH 64

static struct mpireg_record *adopt(uint64_t key, int depth, int in_table);

/* A child handle -> its record: predefined, in the table, or adopted.
 * Counts the new parent reference.  Inside a write.  The predefined index
 * is asked first (cheaper than the table): its keys are never in the table,
 * as MPI never hands out a predefined handle for a new type. */
static struct mpireg_record *child_record(uint64_t child, uint64_t parent, int depth)
{
    if (child == parent) /* aliasing newtype with an argument: MPI forbids it */
        return NULL;
    struct mpireg_record *c = mpireg_predefined_find(child);
    if (c)
        return c;
    c = map_find(child);
    if (!c)
        c = adopt(child, depth + 1, 1);
    if (c && !(c->flags & MPIREG_FLAG_PREDEFINED))
        c->parent_refs++;
    return c;
}

/* Derived types get_contents hands out are references the receiver frees;
 * named and f90 types (predefined in MPI's terms) are not. */
static int freeable(MPI_Datatype h)
{
    MPI_Count ni, na, nl, nd;
    int comb;
    return mpireg_type_envelope(h, &ni, &na, &nl, &nd, &comb) == MPI_SUCCESS &&
           comb != MPI_COMBINER_NAMED && !is_f90(comb);
}

/* A derived type we never saw being built (made through an interface that
 * calls PMPI directly, such as the Fortran 2008 bindings, or a copy MPI
 * handed out) is described from MPI_Type_get_contents.  It gets user_refs 0
 * (the program's own handle is invisible to us) and created_at 0.  It goes
 * into the table, or (in_table 0: a handle about to be freed) stays outside it,
 * reachable from its parent only.  Inside a write. */
static struct mpireg_record *adopt(uint64_t key, int depth, int in_table)
{
    MPI_Datatype h;
    MPI_Count ni, na, nl, nd;
    int comb;
    memcpy(&h, &key, sizeof h);
    if (depth > ADOPT_MAX_DEPTH || h == MPI_DATATYPE_NULL ||
        mpireg_type_envelope(h, &ni, &na, &nl, &nd, &comb) != MPI_SUCCESS || comb == MPI_COMBINER_NAMED)
        return NULL;
    struct mpireg_record *r = mpireg_record_alloc((size_t)ni, (size_t)na, (size_t)nl, (size_t)nd);
    MPI_Datatype *handles = malloc(((size_t)nd + 1) * sizeof *handles);
    if (!r || !handles ||
        mpireg_type_contents(h, ni, na, nl, nd, mpireg_w_integers(r), mpireg_w_addresses(r),
                                 mpireg_w_large_counts(r), handles) != MPI_SUCCESS) {
        if (r)
            record_release(r);
        free(handles);
        return NULL;
    }
    init_header(r, h, comb);
    r->user_refs = 0;
    r->created_at = 0;
    struct mpireg_record **kids = mpireg_w_datatypes(r);
    for (MPI_Count k = 0; k < nd; k++) {
        /* A derived child is MPI's own handle (MPICH), found or adopted in
         * the table, or a new copy (Open MPI), freed below: described
         * outside the table. */
        int copy = freeable(handles[k]) && mpireg_contents_gives_copies();
        struct mpireg_record *c = copy ? adopt(mpireg_key(handles[k]), depth + 1, 0) : NULL;
        if (c)
            c->parent_refs++;
        kids[k] = copy ? c : child_record(mpireg_key(handles[k]), key, depth);
        if (freeable(handles[k]))
            PMPI_Type_free(&handles[k]);
    }
    free(handles);
    mpireg_shape(r, h);
    if (in_table)
        return insert(r) ? r : NULL;
    r->serial = (uint32_t)mpireg_root.next_serial++;
    r->flags |= MPIREG_FLAG_DETACHED;
    return r;
}

/* Caller (the wrapper) holds the lock across the PMPI call and this. */
void mpireg_publish(struct mpireg_record *r, MPI_Datatype h, int combiner, int check, void *site)
{
    uint64_t key = mpireg_key(h);
    if (!__atomic_load_n(&mpireg_predefined_filled, __ATOMIC_ACQUIRE))
        fill_predefined(1);
    MPI_Count ni, na, nl, nd;
    int comb = combiner;
    if (check && mpireg_type_envelope(h, &ni, &na, &nl, &nd, &comb) != MPI_SUCCESS)
        comb = combiner;
    init_header(r, h, comb);
    r->created_at = (uint64_t)(uintptr_t)user_site(site);
    seq_begin();
    struct mpireg_record *old = map_find(key);
    if (old && is_f90(old->combiner) && is_f90(r->combiner)) {
        /* MPICH caches f90 types: the same handle again, no new object */
        seq_end();
        record_release(r);
        return;
    }
    if (old)
        drop_stale(old);
    /* children: keys -> records (a run of equal keys, common in structs,
     * is resolved once) */
    uint64_t *keys = mpireg_w_datatype_keys(r);
    struct mpireg_record **kids = mpireg_w_datatypes(r);
    uint64_t prev_key = 0;
    struct mpireg_record *prev = NULL;
    for (uint32_t k = 0, n = r->n_datatypes; k < n; k++) {
        uint64_t ck = keys[k];
        if (prev && ck == prev_key) {
            if (!(prev->flags & MPIREG_FLAG_PREDEFINED))
                prev->parent_refs++;
            kids[k] = prev;
            continue;
        }
        /* predefined children (the common case) without child_record's call */
        struct mpireg_record *c = ck != key ? mpireg_predefined_find(ck) : NULL;
        kids[k] = prev = c ? c : child_record(ck, key, 0);
        prev_key = ck;
    }
    mpireg_shape(r, h);
    insert(r);
    seq_end();
}

void mpireg_on_commit(MPI_Datatype h)
{
    write_begin();
    struct mpireg_record *r = map_find(mpireg_key(h));
    if (r)
        r->flags |= MPIREG_FLAG_COMMITTED;
    write_end();
}

/* Caller (the wrapper) holds the lock across PMPI_Type_free and this. */
void mpireg_on_free(MPI_Datatype h)
{
    seq_begin();
    struct mpireg_record *r = map_find(mpireg_key(h));
    if (r) {
        if (r->user_refs)
            r->user_refs--;
        if (r->user_refs == 0) {
            r->flags |= MPIREG_FLAG_FREED;
            if (r->parent_refs == 0)
                destroy(r);
        }
    }
    seq_end();
}

void mpireg_on_set_name(MPI_Datatype h, const char *name)
{
    /* Names of predefined records stay the MPI constant's name. */
    size_t len = name ? strnlen(name, MPI_MAX_OBJECT_NAME) : 0;
    struct mpireg_name *e = malloc(sizeof *e + len + 1);
    if (!e)
        return;
    if (len)
        memcpy(e->text, name, len);
    e->text[len] = '\0';
    write_begin();
    struct mpireg_record *r = map_find(mpireg_key(h));
    if (r) {
        unname(r);
        e->record = (uint64_t)(uintptr_t)r;
        if (mpireg_table_insert(&mpireg_root.names, e)) {
            r->flags |= MPIREG_FLAG_NAMED;
            e = NULL;
        }
    }
    write_end();
    free(e);
}

void mpireg_on_contents(MPI_Datatype h, const MPI_Datatype *out, MPI_Count max, void *site)
{
    MPI_Count ni, na, nl, nd;
    int comb;
    if (mpireg_type_envelope(h, &ni, &na, &nl, &nd, &comb) != MPI_SUCCESS)
        return;
    if (nd > max)
        nd = max;
    seq_begin();
    for (MPI_Count k = 0; k < nd; k++) {
        uint64_t key = mpireg_key(out[k]);
        struct mpireg_record *r = map_find(key);
        if (r) { /* the same handle again (MPICH): one more reference */
            r->user_refs++;
            r->flags &= (uint8_t)~MPIREG_FLAG_FREED;
        } else if (freeable(out[k]) && (r = adopt(key, 0, 1))) {
            /* a type we did not know, e.g. a copy (Open MPI), now held by the program */
            r->user_refs = 1;
            r->created_at = (uint64_t)(uintptr_t)user_site(site);
        }
    }
    seq_end();
}

const struct mpireg_record *mpireg_hold(MPI_Datatype h)
{
    if (h == MPI_DATATYPE_NULL)
        return NULL;
    write_begin();
    const struct mpireg_record *r = child_record(mpireg_key(h), 0, 0);
    write_end();
    return r;
}

void mpireg_release(const struct mpireg_record *held)
{
    struct mpireg_record *r = (struct mpireg_record *)held;
    if (!r || (r->flags & MPIREG_FLAG_PREDEFINED))
        return;
    write_begin();
    if (r->parent_refs && --r->parent_refs == 0 && r->user_refs == 0)
        destroy(r);
    write_end();
}

/* ------------------------------------------------------------------------
 * Fortran handles (root.fortran).  An entry holds the C handle's key, not a
 * record pointer: an entry outliving its type (freed from C after
 * MPI_Type_f2c) then finds nothing, or the type MPI gave that handle since.
 * ---------------------------------------------------------------------- */

static inline uint64_t fortran_key(MPI_Fint f)
{
    uint64_t k = 0;
    memcpy(&k, &f, sizeof f);
    return k;
}

void mpireg_on_fortran(MPI_Datatype h, MPI_Fint f)
{
    uint64_t key = mpireg_key(h), fkey = fortran_key(f);
    if (key == fkey || h == MPI_DATATYPE_NULL)
        return;
    seq_begin();
    struct mpireg_fortran *e = mpireg_table_find(&mpireg_root.fortran, fkey);
    if (e) {
        e->handle = key;
    } else if ((e = malloc(sizeof *e)) != NULL) {
        e->fortran = fkey;
        e->handle = key;
        if (!mpireg_table_insert(&mpireg_root.fortran, e))
            free(e);
    }
    seq_end();
}

void mpireg_fortran_gone(MPI_Fint f)
{
    seq_begin();
    struct mpireg_fortran *e = mpireg_table_find(&mpireg_root.fortran, fortran_key(f));
    if (e) {
        mpireg_table_remove(&mpireg_root.fortran, e);
        free(e);
    }
    seq_end();
}

void mpireg_on_fortran_contents(MPI_Datatype h, const MPI_Datatype *c, const MPI_Fint *f, MPI_Count max)
{
    MPI_Count ni, na, nl, nd;
    int comb;
    if (mpireg_type_envelope(h, &ni, &na, &nl, &nd, &comb) != MPI_SUCCESS)
        return;
    for (MPI_Count k = 0; k < nd && k < max; k++)
        mpireg_on_fortran(c[k], f[k]);
}

/* ------------------------------------------------------------------------
 * Read API.
 * ---------------------------------------------------------------------- */

MPIREG_EXPORT const struct mpireg_record *mpireg_lookup(MPI_Datatype datatype)
{
    mpireg_predefined_setup();
    lock_acquire();
    const struct mpireg_record *r = find_any(mpireg_key(datatype));
    lock_release();
    return r;
}

MPIREG_EXPORT struct mpireg_record *const *mpireg_datatypes(const struct mpireg_record *rec)
{
    return (struct mpireg_record *const *)(rec + 1);
}

MPIREG_EXPORT const MPI_Aint *mpireg_addresses(const struct mpireg_record *rec)
{
    return (const MPI_Aint *)(mpireg_datatypes(rec) + rec->n_datatypes);
}

MPIREG_EXPORT const MPI_Count *mpireg_large_counts(const struct mpireg_record *rec)
{
    return (const MPI_Count *)(mpireg_addresses(rec) + rec->n_addresses);
}

MPIREG_EXPORT const int *mpireg_integers(const struct mpireg_record *rec)
{
    return (const int *)(mpireg_large_counts(rec) + rec->n_large_counts);
}

MPIREG_EXPORT const char *mpireg_name(const struct mpireg_record *rec)
{
    if (rec->flags & MPIREG_FLAG_PREDEFINED)
        return ((const struct mpireg_predefined *)rec)->name;
    if (!(rec->flags & MPIREG_FLAG_NAMED))
        return NULL;
    lock_acquire();
    const struct mpireg_name *e = name_entry(rec);
    lock_release();
    return e ? e->text : NULL;
}

MPIREG_EXPORT void mpireg_foreach(void (*fn)(const struct mpireg_record *rec, void *ctx), void *ctx)
{
    lock_acquire();
    const struct mpireg_table *t = &mpireg_root.types;
    for (uint32_t i = 0; i < t->capacity; i++)
        if (t->slots[i])
            fn(t->slots[i], ctx);
    lock_release();
}

/* ------------------------------------------------------------------------
 * MPIREG_DUMP=<file>|stderr: write the map as text when the process exits
 * (a debugging aid; used by the Fortran test).  "%p" in <file> becomes the
 * process id.
 * ---------------------------------------------------------------------- */

static void dump_one(const struct mpireg_record *r, void *ctx)
{
    FILE *f = ctx;
    fprintf(f, "record handle=0x%llx serial=%u combiner=%d flags=%u user_refs=%u parent_refs=%u "
               "size=%lld lb=%lld extent=%lld name=%s ni=%u na=%u nl=%u nd=%u",
            (unsigned long long)r->handle, r->serial, r->combiner, r->flags,
            r->user_refs, r->parent_refs, (long long)r->size, (long long)r->lb,
            (long long)r->extent, mpireg_name(r) ? mpireg_name(r) : "-", r->n_integers, r->n_addresses,
            r->n_large_counts, r->n_datatypes);
    Dl_info info;
    if (r->created_at && dladdr((void *)(uintptr_t)r->created_at, &info) && info.dli_fname)
        fprintf(f, " site=%s+0x%llx", info.dli_fname,
                (unsigned long long)(r->created_at - (uintptr_t)info.dli_fbase));
    else
        fprintf(f, " site=0x%llx", (unsigned long long)r->created_at);
    fprintf(f, " I=");
    for (uint32_t k = 0; k < r->n_integers; k++)
        fprintf(f, "%s%d", k ? "," : "", mpireg_integers(r)[k]);
    fprintf(f, " A=");
    for (uint32_t k = 0; k < r->n_addresses; k++)
        fprintf(f, "%s%ld", k ? "," : "", (long)mpireg_addresses(r)[k]);
    fprintf(f, " L=");
    for (uint32_t k = 0; k < r->n_large_counts; k++)
        fprintf(f, "%s%lld", k ? "," : "", (long long)mpireg_large_counts(r)[k]);
    fprintf(f, " D=");
    for (uint32_t k = 0; k < r->n_datatypes; k++) {
        const struct mpireg_record *c = mpireg_datatypes(r)[k];
        if (!c)
            fprintf(f, "%s?", k ? "," : "");
        else if (c->flags & MPIREG_FLAG_PREDEFINED)
            fprintf(f, "%s%s", k ? "," : "", mpireg_name(c));
        else
            fprintf(f, "%s#%u", k ? "," : "", c->serial);
    }
    fprintf(f, "\n");
}

__attribute__((destructor)) static void mpireg_dump_at_exit(void)
{
    const char *where = getenv("MPIREG_DUMP");
    /* nothing from a process that never used MPI (a launcher's helper that
     * inherited LD_PRELOAD, such as Open MPI's orted for a singleton) */
    if (!where || !*where || !__atomic_load_n(&mpireg_predefined_filled, __ATOMIC_ACQUIRE))
        return;
    char path[4096];
    const char *pp = strstr(where, "%p");
    if (pp && strlen(where) < sizeof path - 24) { /* one file per process */
        snprintf(path, sizeof path, "%.*s%ld%s", (int)(pp - where), where, (long)getpid(), pp + 2);
        where = path;
    }
    FILE *f = strcmp(where, "stderr") == 0 ? stderr : fopen(where, "a");
    if (!f)
        return;
    lock_acquire();
    fprintf(f, "mpireg live_records=%llu seq=%llu next_serial=%llu\n",
            (unsigned long long)mpireg_root.types.count, (unsigned long long)mpireg_root.seq,
            (unsigned long long)mpireg_root.next_serial);
    mpireg_foreach(dump_one, f);
    fprintf(f, "mpireg end\n");
    lock_release();
    if (f != stderr)
        fclose(f);
}
