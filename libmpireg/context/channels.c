/*
 * channels.c: the channel records (see channels.h) -- message, collective
 * and RMA epoch counters per (object, peer, kind) -- the messages matched
 * probes hold, the windows' synchronisation state, and the self-describing
 * root `mpireg_chan_root`.
 */
#include "mpireg_internal.h"
#include "calls.h"
#include "channels.h"
#include "objects.h"

#include <pthread.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t chan_lock = PTHREAD_MUTEX_INITIALIZER;
__thread struct mpireg_channel *mpireg_chan_cache[MPIREG_CHAN_CACHE]
    __attribute__((tls_model("initial-exec")));
static struct mpireg_message messages[MPIREG_CHAN_MESSAGES];

#define K(n, v) {n, (int64_t)(v)},
#define CHANF(f) K("channel." #f, offsetof(struct mpireg_channel, f))
#define MSGF(f) K("message." #f, offsetof(struct mpireg_message, f))

static const struct mpireg_constant constants_table[] = {
    K("sizeof.channel", sizeof(struct mpireg_channel))
    K("sizeof.message", sizeof(struct mpireg_message))
    K("chunk.next", offsetof(struct mpireg_chan_chunk, next))
    K("chunk.used", offsetof(struct mpireg_chan_chunk, used))
    K("chunk.records", offsetof(struct mpireg_chan_chunk, records))
    K("chunk.capacity", MPIREG_CHAN_CHUNK)
    CHANF(object) CHANF(peer) CHANF(kind) CHANF(sent) CHANF(received) CHANF(last_datatype)
    CHANF(last_count) CHANF(last_bound) CHANF(scope)
    MSGF(handle) MSGF(comm) MSGF(source) MSGF(tag) MSGF(ordinal)
    K("peer.none", MPIREG_CHAN_NO_PEER)
    K("kind.collectives", MPIREG_CHAN_COLLECTIVES)
    K("kind.fences", MPIREG_CHAN_FENCES)
    K("kind.locks_shared", MPIREG_CHAN_LOCKS_SHARED)
    K("kind.locks_exclusive", MPIREG_CHAN_LOCKS_EXCLUSIVE)
    K("kind.starts", MPIREG_CHAN_STARTS)
    K("kind.posts", MPIREG_CHAN_POSTS)
    K("kind.retired", MPIREG_CHAN_RETIRED)
    K("records_max", MPIREG_CHAN_MAX_RECORDS)
};
#undef K
#undef CHANF
#undef MSGF

EXPORT struct mpireg_chan_root mpireg_chan_root = {
    .magic = MPIREG_CHAN_MAGIC,
    .layout_version = MPIREG_CHAN_LAYOUT_VERSION,
    .root_size = sizeof(struct mpireg_chan_root),
    .n_constants = sizeof constants_table / sizeof constants_table[0],
    .n_messages = MPIREG_CHAN_MESSAGES,
    .constants = constants_table,
    .messages = messages,
};

static void chan_begin(void)
{
    mpireg_seq_enter(&chan_lock, &mpireg_chan_root.seq);
}

static void chan_end(void)
{
    mpireg_seq_leave(&chan_lock, &mpireg_chan_root.seq);
}

/* ---------------------------------------------------------------------------
 * Records: chunks (never freed, so a thread's cached pointer stays valid),
 * retired records reused first, and an open-addressing index of pointers
 * (linear probing, at most half full) for the C side's lookups.  Caller
 * holds chan_lock.
 * ------------------------------------------------------------------------- */
static struct mpireg_channel **index_slots;
static size_t index_capacity;
/* Retired records, reused before new ones: chained through last_datatype. */
static struct mpireg_channel *retired;

static inline uint32_t slot_of(uint64_t object, int32_t peer, int32_t kind)
{
    uint64_t key = object ^ ((uint64_t)(uint32_t)peer << 32 | (uint32_t)kind) * UINT64_C(0x9E3779B97F4A7C15);
    return mpireg_hash(key);
}

static struct mpireg_channel *find(uint64_t object, int32_t peer, int32_t kind)
{
    if (!index_capacity)
        return NULL;
    for (size_t i = slot_of(object, peer, kind) & (index_capacity - 1);; i = (i + 1) & (index_capacity - 1)) {
        struct mpireg_channel *c = index_slots[i];
        if (!c)
            return NULL;
        if (c->object == object && c->peer == peer && c->kind == kind)
            return c;
    }
}

static void index_put(struct mpireg_channel **slots, size_t capacity, struct mpireg_channel *c)
{
    size_t i = slot_of(c->object, c->peer, c->kind) & (capacity - 1);
    while (slots[i])
        i = (i + 1) & (capacity - 1);
    slots[i] = c;
}

/* A fresh index of every live record, twice their number at least. */
static int index_rebuild(size_t live)
{
    size_t capacity = 64;
    while (capacity < 2 * (live + 1))
        capacity *= 2;
    struct mpireg_channel **slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return 0;
    for (struct mpireg_chan_chunk *k = mpireg_chan_root.chunks; k; k = k->next)
        for (uint32_t i = 0; i < k->used; i++)
            if (k->records[i].kind != MPIREG_CHAN_RETIRED)
                index_put(slots, capacity, &k->records[i]);
    free(index_slots);
    index_slots = slots;
    index_capacity = capacity;
    return 1;
}

static struct mpireg_channel *record_new(void)
{
    if (retired) {
        struct mpireg_channel *c = retired;
        retired = (struct mpireg_channel *)(uintptr_t)c->last_datatype;
        return c;
    }
    struct mpireg_chan_chunk *k = mpireg_chan_root.chunks;
    if (!k || k->used == MPIREG_CHAN_CHUNK) {
        if (mpireg_chan_root.records >= MPIREG_CHAN_MAX_RECORDS)
            return NULL;
        k = calloc(1, sizeof *k);
        if (!k)
            return NULL;
        k->next = mpireg_chan_root.chunks;
        mpireg_chan_root.chunks = k;
    }
    return &k->records[k->used++];
}

/* The record of (object, peer, kind), made when new.  Caller is inside
 * chan_begin/chan_end. */
static struct mpireg_channel *lookup(uint64_t object, int32_t peer, int32_t kind)
{
    struct mpireg_channel *c = find(object, peer, kind);
    if (c)
        return c;
    if (2 * (mpireg_chan_root.records + 1) > index_capacity &&
        !index_rebuild(mpireg_chan_root.records + 1))
        return NULL;
    c = record_new();
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->object = object;
    c->peer = peer;
    c->kind = kind;
    mpireg_chan_root.records++;
    index_put(index_slots, index_capacity, c);
    return c;
}

struct mpireg_channel *mpireg_channel_slow(uint64_t object, int32_t peer, int32_t kind)
{
    chan_begin();
    struct mpireg_channel *c = lookup(object, peer, kind);
    chan_end();
    if (c)
        mpireg_chan_cache[((uint32_t)peer + 7u * (uint32_t)kind) & (MPIREG_CHAN_CACHE - 1)] = c;
    return c;
}

/* Retires the records of object whose kind `which` accepts.  Caller is
 * inside chan_begin/chan_end. */
static void retire(uint64_t object, int (*which)(int32_t kind))
{
    size_t live = 0, gone = 0;
    for (struct mpireg_chan_chunk *k = mpireg_chan_root.chunks; k; k = k->next) {
        for (uint32_t i = 0; i < k->used; i++) {
            struct mpireg_channel *c = &k->records[i];
            if (c->kind == MPIREG_CHAN_RETIRED)
                continue;
            if (c->object != object || !which(c->kind)) {
                live++;
                continue;
            }
            memset(c, 0, sizeof *c);
            c->kind = MPIREG_CHAN_RETIRED;
            c->last_datatype = (uint64_t)(uintptr_t)retired;
            retired = c;
            gone++;
        }
    }
    if (gone) {
        mpireg_chan_root.records = live;
        index_rebuild(live);
    }
}

static int comm_kind(int32_t kind) { return kind >= 0 || kind == MPIREG_CHAN_COLLECTIVES; }
static int window_kind(int32_t kind) { return kind < 0 && kind != MPIREG_CHAN_COLLECTIVES; }

void mpireg_chan_forget(uint64_t object)
{
    chan_begin();
    retire(object, comm_kind);
    chan_end();
}

/* ---------------------------------------------------------------------------
 * Messages and collectives.
 * ------------------------------------------------------------------------- */
void mpireg_chan_number(struct mpireg_call *c)
{
    struct mpireg_channel *ch = NULL;
    if ((c->flags & MPIREG_CALL_SENDS) && c->peer >= 0)
        ch = mpireg_channel(c->comm, c->peer, c->tag);
    else if ((c->flags & MPIREG_CALL_COLLECTIVE) && (c->flags & MPIREG_CALL_HAS_COMM))
        ch = mpireg_channel(c->comm, MPIREG_CHAN_NO_PEER, MPIREG_CHAN_COLLECTIVES);
    if (ch) {
        c->seq = (int64_t)ch->sent + 1;
        c->flags |= MPIREG_CALL_HAS_SEQ;
    }
}

/* Collectives, and the sends whose channel has no record (the table is full). */
void mpireg_chan_started_slow(const struct mpireg_call *c)
{
    if ((c->flags & MPIREG_CALL_COLLECTIVE) && (c->flags & MPIREG_CALL_HAS_COMM)) {
        struct mpireg_channel *ch =
            mpireg_channel(c->comm, MPIREG_CHAN_NO_PEER, MPIREG_CHAN_COLLECTIVES);
        if (ch)
            mpireg_chan_count(&ch->sent);
    } else if (c->flags & MPIREG_CALL_SENDS) {
        mpireg_chan_count(&mpireg_chan_root.unrecorded_sent);
    }
}

static void remember_message(uint64_t message, uint64_t comm, int source, int tag, uint64_t ordinal)
{
    chan_begin();
    struct mpireg_message *free_slot = NULL;
    for (int i = 0; i < MPIREG_CHAN_MESSAGES; i++) {
        if (messages[i].handle == message) {
            free_slot = &messages[i];
            break;
        }
        if (!messages[i].handle && !free_slot)
            free_slot = &messages[i];
    }
    if (free_slot) {
        free_slot->handle = message;
        free_slot->comm = comm;
        free_slot->source = source;
        free_slot->tag = tag;
        free_slot->ordinal = (int64_t)ordinal;
    }
    chan_end();
}

void mpireg_matched_slow(int kind, uint64_t comm, int source, int tag, const MPI_Status *status,
                         uint64_t message)
{
    if (mpireg_chan_wild(source, tag)) {
        if (status == MPI_STATUS_IGNORE || status == NULL)
            return; /* not known: the counts stay an upper bound of what is in flight */
        source = status->MPI_SOURCE;
        tag = status->MPI_TAG;
    }
    if (source < 0 || tag < 0 || kind == MPIREG_MATCH_PROBE)
        return;
    struct mpireg_channel *ch = mpireg_channel(comm, source, tag);
    if (!ch) {
        mpireg_chan_count(&mpireg_chan_root.unrecorded_received);
        return;
    }
    mpireg_chan_count(&ch->received);
    if (kind == MPIREG_MATCH_MPROBE && message)
        remember_message(message, comm, source, tag, ch->received);
}

void mpireg_chan_request_done(const struct mpireg_call *c, const MPI_Status *status)
{
    if (!(c->flags & MPIREG_CALL_RECEIVES) || (c->flags & MPIREG_CALL_MRECV))
        return;
    int peer2 = (c->flags & MPIREG_CALL_HAS_PEER2) != 0;
    int source = peer2 ? c->peer2 : c->peer, tag = peer2 ? c->tag2 : c->tag;
    if (source != MPI_PROC_NULL)
        mpireg_matched(c, MPIREG_MATCH_RECEIVE, c->comm, source, tag, status, 0);
}

void mpireg_chan_mrecv(struct mpireg_call *c, const MPI_Message *message)
{
    c->flags |= MPIREG_CALL_RECEIVES | MPIREG_CALL_MRECV;
    if (!message || *message == MPI_MESSAGE_NULL || *message == MPI_MESSAGE_NO_PROC)
        return;
    uint64_t key = MPIREG_HKEY(*message);
    chan_begin();
    for (int i = 0; i < MPIREG_CHAN_MESSAGES; i++) {
        if (messages[i].handle != key)
            continue;
        c->comm = messages[i].comm;
        c->peer_name = "source";
        c->peer = messages[i].source;
        c->tag = messages[i].tag;
        c->seq = messages[i].ordinal;
        c->flags |= MPIREG_CALL_HAS_COMM | MPIREG_CALL_HAS_PEER | MPIREG_CALL_HAS_TAG |
                    MPIREG_CALL_HAS_SEQ;
        break;
    }
    chan_end();
}

void mpireg_chan_message_taken(uint64_t message)
{
    chan_begin();
    for (int i = 0; i < MPIREG_CHAN_MESSAGES; i++)
        if (messages[i].handle == message)
            messages[i].handle = 0;
    chan_end();
}

/* ---------------------------------------------------------------------------
 * Groups: the world ranks of a group, in a buffer of the calling thread.
 * ------------------------------------------------------------------------- */
static __thread int32_t *group_buffer;

static void set_group(struct mpireg_call *c, int32_t *ranks, int32_t n)
{
    c->group = (uint64_t)(uintptr_t)ranks;
    c->ngroup = n;
    c->flags |= MPIREG_CALL_HAS_GROUP;
}

void mpireg_chan_group(struct mpireg_call *c, MPI_Group g)
{
    int32_t n = 0;
    int32_t *ranks = g == MPI_GROUP_NULL ? NULL : mpireg_world_ranks(g, &n);
    if (!ranks)
        return;
    free(group_buffer);
    group_buffer = ranks;
    set_group(c, ranks, n);
}

/* ---------------------------------------------------------------------------
 * Windows: what their synchronisation calls need -- the world ranks of the
 * window's group, the communicator it was created on (objects.h: the
 * window's identity across processes), the groups of the current access
 * and exposure epochs.  Few windows: a list under chan_lock.
 * ------------------------------------------------------------------------- */
struct window {
    struct window *next;
    uint64_t handle, scope;
    int32_t *members, *access, *exposure;
    int32_t n_members, n_access, n_exposure;
};
static struct window *windows;

/* Caller holds chan_lock. */
static struct window *window_find(uint64_t key)
{
    for (struct window *x = windows; x; x = x->next)
        if (x->handle == key)
            return x;
    return NULL;
}

/* The window's state, made at its first synchronisation call: asking MPI
 * for its group and the window registry for its communicator happens
 * outside chan_lock (lock order: the others', then chan_lock). */
static void window_learn(MPI_Win w)
{
    uint64_t key = MPIREG_HKEY(w);
    chan_begin();
    struct window *known = window_find(key);
    chan_end();
    MPI_Group g;
    if (known || PMPI_Win_get_group(w, &g) != MPI_SUCCESS)
        return;
    struct window *x = calloc(1, sizeof *x);
    if (x) {
        x->handle = key;
        x->members = mpireg_world_ranks(g, &x->n_members);
        mpireg_win_comm(w, &x->scope);
    }
    PMPI_Group_free(&g);
    if (!x)
        return;
    chan_begin();
    if (window_find(key)) {
        free(x->members);
        free(x);
    } else {
        x->next = windows;
        windows = x;
    }
    chan_end();
}

static __thread int32_t lock_target;

void mpireg_chan_win_sync(struct mpireg_call *c, MPI_Win w, int what, int lock_type, MPI_Group group)
{
    int32_t *epoch = NULL, n_epoch = 0;
    window_learn(w);
    if (what == MPIREG_SYNC_START || what == MPIREG_SYNC_POST)
        epoch = group == MPI_GROUP_NULL ? NULL : mpireg_world_ranks(group, &n_epoch);
    chan_begin();
    struct window *x = window_find(MPIREG_HKEY(w));
    if (!x) {
        chan_end();
        free(epoch);
        return;
    }
    if (x->scope) {
        c->comm = x->scope;
        c->flags |= MPIREG_CALL_HAS_COMM;
    }
    switch (what) {
    case MPIREG_SYNC_FENCE: {
        struct mpireg_channel *ch = lookup(x->handle, MPIREG_CHAN_NO_PEER, MPIREG_CHAN_FENCES);
        if (ch) {
            ch->scope = x->scope;
            c->seq = (int64_t)ch->sent + 1;
            c->flags |= MPIREG_CALL_HAS_SEQ;
        }
        break;
    }
    case MPIREG_SYNC_LOCK:
    case MPIREG_SYNC_UNLOCK:
    case MPIREG_SYNC_FLUSH:
        if (c->peer >= 0 && c->peer < x->n_members && x->members) {
            lock_target = x->members[c->peer];
            set_group(c, &lock_target, 1);
        }
        if (what == MPIREG_SYNC_LOCK && lock_type == MPI_LOCK_EXCLUSIVE)
            c->flags |= MPIREG_CALL_EXCLUSIVE;
        break;
    case MPIREG_SYNC_START:
        free(x->access);
        x->access = epoch;
        x->n_access = n_epoch;
        epoch = NULL;
        /* fall through */
    case MPIREG_SYNC_COMPLETE:
        if (x->access)
            set_group(c, x->access, x->n_access);
        break;
    case MPIREG_SYNC_POST:
        free(x->exposure);
        x->exposure = epoch;
        x->n_exposure = n_epoch;
        epoch = NULL;
        /* fall through */
    case MPIREG_SYNC_WAIT:
        if (x->exposure)
            set_group(c, x->exposure, x->n_exposure);
        break;
    default:
        break;
    }
    chan_end();
    free(epoch);
}

/* Counts one event of kind on window x towards each world rank of
 * ranks[n] (sent, or received when `ended`). */
static void count_epoch(const struct window *x, int32_t kind, const int32_t *ranks, int32_t n,
                        int ended)
{
    for (int32_t i = 0; i < n; i++) {
        struct mpireg_channel *ch = lookup(x->handle, ranks[i], kind);
        if (!ch)
            continue;
        ch->scope = x->scope;
        ++*(ended ? &ch->received : &ch->sent);
    }
}

void mpireg_chan_win_synced(const struct mpireg_call *c, MPI_Win w, int what)
{
    int32_t none = MPIREG_CHAN_NO_PEER;
    const int32_t *target = (c->flags & MPIREG_CALL_HAS_GROUP) && c->ngroup == 1
                                ? (const int32_t *)(uintptr_t)c->group : NULL;
    chan_begin();
    struct window *x = window_find(MPIREG_HKEY(w));
    if (!x) {
        chan_end();
        return;
    }
    switch (what) {
    case MPIREG_SYNC_FENCE:
        count_epoch(x, MPIREG_CHAN_FENCES, &none, 1, 0);
        break;
    case MPIREG_SYNC_LOCK:
        if (target)
            count_epoch(x, (c->flags & MPIREG_CALL_EXCLUSIVE) ? MPIREG_CHAN_LOCKS_EXCLUSIVE
                                                               : MPIREG_CHAN_LOCKS_SHARED,
                        target, 1, 0);
        break;
    case MPIREG_SYNC_UNLOCK:
        if (target) {
            struct mpireg_channel *ex = lookup(x->handle, *target, MPIREG_CHAN_LOCKS_EXCLUSIVE);
            int exclusive = ex && ex->sent > ex->received;
            count_epoch(x, exclusive ? MPIREG_CHAN_LOCKS_EXCLUSIVE : MPIREG_CHAN_LOCKS_SHARED,
                        target, 1, 1);
        }
        break;
    case MPIREG_SYNC_LOCK_ALL:
    case MPIREG_SYNC_UNLOCK_ALL:
        count_epoch(x, MPIREG_CHAN_LOCKS_SHARED, &none, 1, what == MPIREG_SYNC_UNLOCK_ALL);
        break;
    case MPIREG_SYNC_START:
    case MPIREG_SYNC_COMPLETE:
        count_epoch(x, MPIREG_CHAN_STARTS, x->access, x->n_access, what == MPIREG_SYNC_COMPLETE);
        break;
    case MPIREG_SYNC_POST:
    case MPIREG_SYNC_WAIT:
        count_epoch(x, MPIREG_CHAN_POSTS, x->exposure, x->n_exposure, what == MPIREG_SYNC_WAIT);
        break;
    default:
        break;
    }
    chan_end();
}

void mpireg_chan_win_gone(uint64_t w)
{
    chan_begin();
    for (struct window **p = &windows; *p; p = &(*p)->next) {
        struct window *x = *p;
        if (x->handle != w)
            continue;
        *p = x->next;
        free(x->members);
        free(x->access);
        free(x->exposure);
        free(x);
        break;
    }
    retire(w, window_kind);
    chan_end();
}
