/*
 * calls.c: the communication context (see calls.h): per-thread current
 * call slots, pending requests, communicators, user-defined ops, and the
 * self-describing root `mpireg_comm_root`.
 */
#include "mpireg_internal.h"
#include "calls.h"
#include "channels.h"
#include "record.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static struct mpireg_thread_slot slots[MPIREG_MAX_THREADS];
__thread struct mpireg_thread_slot *mpireg_tslot __attribute__((tls_model("initial-exec")));
static __thread int tslot_failed;
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------------------
 * Constants: offsets, sizes, flags and the MPI constants of the compiled mpi.h.
 * ------------------------------------------------------------------------- */
#define K(n, v) {n, (int64_t)(v)},
#define OFF(prefix, type, f) K(prefix "." #f, offsetof(type, f))
#define CALLF(f) OFF("call", struct mpireg_call, f)
#define CBUF(f) OFF("cbuf", struct mpireg_cbuf, f)
#define THR(f) OFF("thread", struct mpireg_thread_slot, f)
#define REQ(f) OFF("request", struct mpireg_request, f)
#define COMM(f) OFF("comm", struct mpireg_comm, f)
#define OP(f) OFF("op", struct mpireg_op, f)
#define HK(h) K(#h, MPIREG_STATIC_KEY(h))

/* The first MPIREG_DONE_SLOTS entries are not constant: they publish the
 * request handles MPI hands to every request it completes at once (see
 * "Requests completed at once" below), 0 in unused slots. */
#define DONE(k) K("request.done_at_once." #k, 0)
static struct mpireg_constant constants_table[] = {
    DONE(0) DONE(1) DONE(2) DONE(3) DONE(4) DONE(5) DONE(6) DONE(7)
    K("sizeof.call", sizeof(struct mpireg_call))
    K("sizeof.cbuf", sizeof(struct mpireg_cbuf))
    K("sizeof.thread", sizeof(struct mpireg_thread_slot))
    K("sizeof.request", sizeof(struct mpireg_request))
    K("sizeof.comm", sizeof(struct mpireg_comm))
    K("sizeof.op", sizeof(struct mpireg_op))
    K("sizeof.MPI_Comm", sizeof(MPI_Comm))
    K("sizeof.MPI_Request", sizeof(MPI_Request))
    K("sizeof.MPI_Op", sizeof(MPI_Op))
    K("sizeof.MPI_Datatype", sizeof(MPI_Datatype))
    K("sizeof.MPI_Win", sizeof(MPI_Win))
    K("call.bufs_max", MPIREG_CALL_BUFS)
    K("comm.name_max", MPIREG_COMM_NAME_MAX)
    CALLF(func) CALLF(site) CALLF(flags) CALLF(nbufs) CALLF(comm) CALLF(peer_name)
    CALLF(peer) CALLF(tag) CALLF(peer2_name) CALLF(peer2) CALLF(tag2) CALLF(extra_name)
    CALLF(extra) CALLF(reqs) CALLF(nreqs) CALLF(file) CALLF(offset) CALLF(seq) CALLF(group)
    CALLF(ngroup) CALLF(bufs)
    CALLF(win) CALLF(target_disp) CALLF(target_count) CALLF(target_datatype)
    CBUF(role) CBUF(addr) CBUF(count) CBUF(datatype) CBUF(counts) CBUF(displs) CBUF(types)
    CBUF(count_size) CBUF(displ_size) CBUF(displ_in_bytes) CBUF(npeers)
    THR(seq) THR(active) THR(tid) THR(ncalls) THR(completed) THR(polling) THR(call)
    REQ(handle) REQ(serial) REQ(next) REQ(prev) REQ(state) REQ(tid) REQ(call)
    COMM(handle) COMM(next) COMM(parent) COMM(created_at) COMM(creator) COMM(size)
    COMM(rank) COMM(remote_size) COMM(predefined) COMM(name)
    COMM(n_members) COMM(n_remote_members) COMM(members) COMM(remote_members)
    COMM(serial) COMM(how_name) COMM(how)
    K("comm.members_max", MPIREG_COMM_MEMBERS_MAX)
    OP(handle) OP(next) OP(fn) OP(created_at) OP(commute)
    K("flag.has_peer", MPIREG_CALL_HAS_PEER)
    K("flag.has_tag", MPIREG_CALL_HAS_TAG)
    K("flag.has_comm", MPIREG_CALL_HAS_COMM)
    K("flag.has_extra", MPIREG_CALL_HAS_EXTRA)
    K("flag.has_reqs", MPIREG_CALL_HAS_REQS)
    K("flag.has_peer2", MPIREG_CALL_HAS_PEER2)
    K("flag.has_file", MPIREG_CALL_HAS_FILE)
    K("flag.has_offset", MPIREG_CALL_HAS_OFFSET)
    K("flag.has_position", MPIREG_CALL_HAS_POSITION)
    K("flag.shared_pointer", MPIREG_CALL_SHARED_POINTER)
    K("flag.has_target", MPIREG_CALL_HAS_TARGET)
    K("flag.has_win", MPIREG_CALL_HAS_WIN)
    K("flag.probe", MPIREG_CALL_PROBE)
    K("flag.sends", MPIREG_CALL_SENDS)
    K("flag.receives", MPIREG_CALL_RECEIVES)
    K("flag.probes", MPIREG_CALL_PROBES)
    K("flag.mrecv", MPIREG_CALL_MRECV)
    K("flag.collective", MPIREG_CALL_COLLECTIVE)
    K("flag.has_seq", MPIREG_CALL_HAS_SEQ)
    K("flag.has_group", MPIREG_CALL_HAS_GROUP)
    K("flag.exclusive", MPIREG_CALL_EXCLUSIVE)
    K("sizeof.MPI_File", sizeof(MPI_File))
    K("state.active", MPIREG_REQ_ACTIVE)
    K("state.persistent", MPIREG_REQ_PERSISTENT)
    K("state.cancelled", MPIREG_REQ_CANCELLED)
    K("state.partitioned", MPIREG_REQ_PARTITIONED)
    /* MPI constants (handles widened like registry keys) */
    HK(MPI_COMM_WORLD) HK(MPI_COMM_SELF) HK(MPI_COMM_NULL)
    HK(MPI_REQUEST_NULL) HK(MPI_OP_NULL) HK(MPI_DATATYPE_NULL) HK(MPI_WIN_NULL)
    HK(MPI_MAX) HK(MPI_MIN) HK(MPI_SUM) HK(MPI_PROD) HK(MPI_LAND) HK(MPI_BAND)
    HK(MPI_LOR) HK(MPI_BOR) HK(MPI_LXOR) HK(MPI_BXOR) HK(MPI_MINLOC) HK(MPI_MAXLOC)
    HK(MPI_REPLACE) HK(MPI_NO_OP)
    K("MPI_ANY_SOURCE", MPI_ANY_SOURCE) K("MPI_ANY_TAG", MPI_ANY_TAG)
    K("MPI_PROC_NULL", MPI_PROC_NULL) K("MPI_ROOT", MPI_ROOT)
    K("MPI_UNDEFINED", MPI_UNDEFINED) K("MPI_COMM_TYPE_SHARED", MPI_COMM_TYPE_SHARED)
    K("MPI_IN_PLACE", (intptr_t)MPI_IN_PLACE) K("MPI_BOTTOM", (intptr_t)MPI_BOTTOM)
};

EXPORT struct mpireg_comm_root mpireg_comm_root = {
    .magic = MPIREG_COMM_MAGIC,
    .layout_version = MPIREG_COMM_LAYOUT_VERSION,
    .root_size = sizeof(struct mpireg_comm_root),
    .n_constants = sizeof constants_table / sizeof constants_table[0],
    .max_threads = MPIREG_MAX_THREADS,
    .constants = constants_table,
    .threads = slots,
};

static void list_begin(void)
{
    mpireg_seq_enter(&ctx_lock, &mpireg_comm_root.seq);
}

static void list_end(void)
{
    mpireg_seq_leave(&ctx_lock, &mpireg_comm_root.seq);
}

/* ---------------------------------------------------------------------------
 * Predefined communicators (filled when the first thread claims a slot).
 * ------------------------------------------------------------------------- */
static struct mpireg_comm world_comm, self_comm;
static int predefined_comms_done;

int32_t *mpireg_world_ranks(MPI_Group g, int32_t *n)
{
    int size = 0;
    MPI_Group world;
    *n = 0;
    if (PMPI_Group_size(g, &size) != MPI_SUCCESS || size <= 0 || size > MPIREG_COMM_MEMBERS_MAX)
        return NULL;
    int *ranks = malloc(2 * sizeof(int) * (size_t)size);
    int32_t *out = malloc(sizeof(int32_t) * (size_t)size);
    if (!ranks || !out || PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
        free(ranks);
        free(out);
        return NULL;
    }
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    int ok = PMPI_Group_translate_ranks(g, size, ranks, world, ranks + size) == MPI_SUCCESS;
    PMPI_Group_free(&world);
    for (int i = 0; ok && i < size; i++)
        out[i] = ranks[size + i];
    free(ranks);
    if (!ok) {
        free(out);
        return NULL;
    }
    *n = size;
    return out;
}

static void comm_members(struct mpireg_comm *c, MPI_Comm h, int inter)
{
    MPI_Group g;
    if (PMPI_Comm_group(h, &g) == MPI_SUCCESS) {
        c->members = mpireg_world_ranks(g, &c->n_members);
        PMPI_Group_free(&g);
    }
    if (inter && PMPI_Comm_remote_group(h, &g) == MPI_SUCCESS) {
        c->remote_members = mpireg_world_ranks(g, &c->n_remote_members);
        PMPI_Group_free(&g);
    }
}

static void comm_fill(struct mpireg_comm *c, MPI_Comm h)
{
    int inter = 0;
    c->size = c->rank = -1;
    c->remote_size = 0;
    PMPI_Comm_size(h, &c->size);
    PMPI_Comm_rank(h, &c->rank);
    if (PMPI_Comm_test_inter(h, &inter) == MPI_SUCCESS && inter)
        PMPI_Comm_remote_size(h, &c->remote_size);
    comm_members(c, h, inter);
}

static void comm_link(struct mpireg_comm *c)
{
    MPIREG_LIST_PUSH(mpireg_comm_root.comms, c);
}

static void predefined_comms(void)
{
    int init = 0, fin = 0;
    if (__atomic_load_n(&predefined_comms_done, __ATOMIC_ACQUIRE))
        return;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin)
        return;
    list_begin();
    if (!predefined_comms_done) {
        MPI_Comm w = MPI_COMM_WORLD, s = MPI_COMM_SELF;
        world_comm.handle = MPIREG_HKEY(w);
        self_comm.handle = MPIREG_HKEY(s);
        world_comm.predefined = self_comm.predefined = 1;
        strcpy(world_comm.name, "MPI_COMM_WORLD");
        strcpy(self_comm.name, "MPI_COMM_SELF");
        comm_fill(&world_comm, w);
        comm_fill(&self_comm, s);
        comm_link(&self_comm);
        comm_link(&world_comm);
        __atomic_store_n(&predefined_comms_done, 1, __ATOMIC_RELEASE);
    }
    list_end();
}

void mpireg_ctx_up(void)
{
    predefined_comms();
}

/* ---------------------------------------------------------------------------
 * Thread slots.
 * ------------------------------------------------------------------------- */
static void slot_release(void *p)
{
    struct mpireg_thread_slot *s = p;
    s->active = 0;
    __atomic_store_n(&s->tid, 0, __ATOMIC_RELEASE);
}

static void slot_key_create(void)
{
    pthread_key_create(&slot_key, slot_release);
}

struct mpireg_thread_slot *mpireg_slot_claim(void)
{
    if (tslot_failed)
        return NULL;
    predefined_comms();
    pthread_once(&slot_once, slot_key_create);
    int tid = (int)syscall(SYS_gettid);
    for (int i = 0; i < MPIREG_MAX_THREADS; i++) {
        int expected = 0;
        if (__atomic_compare_exchange_n(&slots[i].tid, &expected, tid, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            uint64_t used = (uint64_t)i + 1, cur;
            while ((cur = __atomic_load_n(&mpireg_comm_root.threads_used, __ATOMIC_RELAXED)) < used &&
                   !__atomic_compare_exchange_n(&mpireg_comm_root.threads_used, &cur, used, 0,
                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
            slots[i].active = 0;
            slots[i].ncalls = 0;
            mpireg_tslot = &slots[i];
            pthread_setspecific(slot_key, &slots[i]);
            return &slots[i];
        }
    }
    tslot_failed = 1;
    __atomic_fetch_add(&mpireg_comm_root.threads_untracked, 1, __ATOMIC_RELAXED);
    return NULL;
}


/* ---------------------------------------------------------------------------
 * Peers of per-peer (v/w) buffers.
 * ------------------------------------------------------------------------- */
int mpireg_peers(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if (inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n))
        return 0;
    return n;
}

int mpireg_at_root(MPI_Comm comm, int root)
{
    int inter = 0, rank = -1;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if (inter)
        return root == MPI_ROOT;
    PMPI_Comm_rank(comm, &rank);
    return rank == root;
}

int mpireg_neighbors(MPI_Comm comm, int out)
{
    int topo = MPI_UNDEFINED, n = 0, rank = 0;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART) {
        PMPI_Cartdim_get(comm, &n);
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        return n;
    }
    if (topo == MPI_DIST_GRAPH) {
        int indeg = 0, outdeg = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
        return out ? outdeg : indeg;
    }
    return 0;
}

int64_t mpireg_my_count(MPI_Comm comm, const void *counts, size_t size)
{
    int rank = -1;
    if (!counts || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank < 0)
        return 0;
    return size == 8 ? (int64_t)((const MPI_Count *)counts)[rank] : ((const int *)counts)[rank];
}

/* ---------------------------------------------------------------------------
 * Requests: pool + hash (by handle) + live list.  Caller holds ctx_lock.
 * ------------------------------------------------------------------------- */
/* ---------------------------------------------------------------------------
 * Requests completed at once.  MPI may hand one statically allocated request
 * to every request it completes when it is posted: MPICH 4 has one builtin
 * handle per kind (0x6c000001 for sends, 0x6c000002 for receives from
 * MPI_PROC_NULL, 0x6c00000a for collectives), Open MPI returns the address of
 * ompi_request_empty (also for eager sends).  Such a handle names no pending
 * operation: its posts are not recorded, and the handles are published in
 * the constants table so that a reader says what they are.  No value is
 * hard-coded: they are learned
 *   - once, when MPI_Init returns (or at the first post if MPI was started
 *     behind our back), from MPI itself: two MPI_Issend to and two MPI_Irecv
 *     from MPI_PROC_NULL and two MPI_Ibarrier on MPI_COMM_SELF; a handle that
 *     comes back equal for both of a pair is such a handle (a debugger
 *     breakpoint on those functions stops there once);
 *   - from collisions: a post returning the handle of a live request that
 *     no completion call is working on, which MPI_Request_get_status says is
 *     complete (distinct pending requests never share a handle).
 * ------------------------------------------------------------------------- */
#define DONE_SLOTS 8
_Static_assert(sizeof constants_table / sizeof constants_table[0] > DONE_SLOTS, "done slots");
static int done_probed;

/* Caller holds ctx_lock. */
static int done_at_once(uint64_t key)
{
    for (int k = 0; k < DONE_SLOTS && constants_table[k].value; k++)
        if ((uint64_t)constants_table[k].value == key)
            return 1;
    return 0;
}

/* Caller holds ctx_lock, inside list_begin/list_end. */
static void done_learn(uint64_t key)
{
    for (int k = 0; k < DONE_SLOTS; k++) {
        if ((uint64_t)constants_table[k].value == key)
            return;
        if (!constants_table[k].value) {
            constants_table[k].value = (int64_t)key;
            return;
        }
    }
}

static const char init_name[] = "MPI_Init";

struct mpireg_thread_slot *mpireg_init_begin(void)
{
    struct mpireg_thread_slot *s;
    struct mpireg_call *c = mpireg_call_begin(&s, NULL, init_name, NULL);
    if (!s)
        return NULL;
    c->flags = 0;
    c->nbufs = 0;
    mpireg_call_ready(s);
    return s;
}

void mpireg_init_end(struct mpireg_thread_slot *s)
{
    mpireg_call_end(s, 1);
}

/* The probe's own MPI calls show in a debugger (a breakpoint on PMPI_Issend
 * stops there): the thread's slot says so, as a call to MPI_Init flagged
 * MPIREG_CALL_PROBE -- the record of MPI_Init itself (mpireg_init_begin),
 * flagged while the probe runs (*own = 0), or one of its own -- unless the
 * thread is inside another recorded call (a first post in a program that
 * started MPI behind our back), whose record stays. */
static struct mpireg_thread_slot *probe_begin(int *own)
{
    struct mpireg_thread_slot *s = mpireg_tslot ? mpireg_tslot : mpireg_slot_claim();
    *own = 0;
    if (s && s->active && s->call.func == init_name) {
        s->call.flags = MPIREG_CALL_PROBE;
        return s;
    }
    if (!s || s->active)
        return NULL;
    struct mpireg_call *c = mpireg_call_begin(&s, NULL, init_name, NULL);
    c->flags = MPIREG_CALL_PROBE;
    c->nbufs = 0;
    mpireg_call_ready(s);
    *own = 1;
    return s;
}

/* Asks MPI which handles it hands to requests complete at once (once). */
void mpireg_req_probe(void)
{
    int init = 0, fin = 0, expected = 0;
    if (PMPI_Initialized(&init) != MPI_SUCCESS || !init || PMPI_Finalized(&fin) != MPI_SUCCESS ||
        fin)
        return; /* MPI-4 sessions only: collisions will tell */
    if (!__atomic_compare_exchange_n(&done_probed, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
        return;
    int own;
    struct mpireg_thread_slot *slot = probe_begin(&own);
    char byte = 0;
    MPI_Request pairs[3][2];
    for (int i = 0; i < 2; i++) {
        PMPI_Issend(&byte, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &pairs[0][i]);
        PMPI_Irecv(&byte, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &pairs[1][i]);
        PMPI_Ibarrier(MPI_COMM_SELF, &pairs[2][i]);
    }
    uint64_t learned[3];
    int n = 0;
    for (int p = 0; p < 3; p++)
        if (pairs[p][0] == pairs[p][1] && pairs[p][0] != MPI_REQUEST_NULL)
            learned[n++] = MPIREG_HKEY(pairs[p][0]);
    /* One MPI_Waitall, not a PMPI_Wait per request: the user's commonest
     * breakpoint (break MPI_Wait, which in both MPIs is PMPI_Wait) must
     * first stop in the program's own call, not here in MPI_Init.  Real
     * statuses: gcc reads MPICH's MPI_STATUSES_IGNORE as a 0-byte array. */
    MPI_Status statuses[6];
    PMPI_Waitall(6, &pairs[0][0], statuses);
    list_begin();
    for (int k = 0; k < n; k++)
        done_learn(learned[k]);
    list_end();
    if (own)
        mpireg_call_end(slot, 1);
    else if (slot)
        slot->call.flags = 0; /* MPI_Init goes on: mpireg_init_end ends it */
}

#define REQ_BUCKETS 4096
#define REQ_CHUNK 256
static struct mpireg_request *req_hash[REQ_BUCKETS];
static struct mpireg_request *req_free_list;
static uint64_t req_serial, req_claim_token;

static inline unsigned req_bucket(uint64_t key) { return mpireg_hash(key) & (REQ_BUCKETS - 1); }

static struct mpireg_request *req_find(uint64_t key)
{
    for (struct mpireg_request *r = req_hash[req_bucket(key)]; r; r = r->hnext)
        if (r->handle == key)
            return r;
    return NULL;
}

static struct mpireg_request *req_find_serial(uint64_t key, uint64_t serial)
{
    for (struct mpireg_request *r = req_hash[req_bucket(key)]; r; r = r->hnext)
        if (r->handle == key && r->serial == serial)
            return r;
    return NULL;
}

static void req_unlink(struct mpireg_request *r)
{
    struct mpireg_request **pp = &req_hash[req_bucket(r->handle)];
    while (*pp && *pp != r)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = r->hnext;
    MPIREG_LIST_UNLINK(mpireg_comm_root.requests, r);
    r->serial = 0;
    r->state = 0;
    r->next = r->prev = NULL;
    r->hnext = req_free_list;
    req_free_list = r;
    mpireg_comm_root.live_requests--;
}

static struct mpireg_request *req_alloc(void)
{
    if (!req_free_list) {
        struct mpireg_request *chunk = calloc(REQ_CHUNK, sizeof *chunk);
        if (!chunk)
            return NULL;
        for (int i = REQ_CHUNK - 1; i >= 0; i--) {
            chunk[i].hnext = req_free_list;
            req_free_list = &chunk[i];
        }
    }
    struct mpireg_request *r = req_free_list;
    req_free_list = r->hnext;
    return r;
}

/* The live records of key that no completion call is working on: gone from
 * MPI (missed completions), or requests MPI completed at once (see above). */
static struct mpireg_request *req_find_idle(uint64_t key)
{
    for (struct mpireg_request *r = req_hash[req_bucket(key)]; r; r = r->hnext)
        if (r->handle == key && !r->claim)
            return r;
    return NULL;
}

/* Caller holds ctx_lock, inside list_begin/list_end. */
static void req_unlink_all(uint64_t key)
{
    struct mpireg_request *r;
    while ((r = req_find(key)) != NULL)
        req_unlink(r);
}

void mpireg_req_post(MPI_Request h, const struct mpireg_call *c, uint32_t state)
{
    if (h == MPI_REQUEST_NULL)
        return;
    if (!__atomic_load_n(&done_probed, __ATOMIC_ACQUIRE))
        mpireg_req_probe();
    uint64_t key = MPIREG_HKEY(h);
    int tid = mpireg_tslot ? mpireg_tslot->tid : 0;
    list_begin();
    if (done_at_once(key)) {
        list_end();
        return;
    }
    if (req_find_idle(key)) { /* rare: never the lock across the PMPI call */
        list_end();
        int complete = 0;
        if (!(state & MPIREG_REQ_PERSISTENT))
            PMPI_Request_get_status(h, &complete, MPI_STATUS_IGNORE);
        list_begin();
        struct mpireg_request *old;
        while ((old = req_find_idle(key)) != NULL)
            req_unlink(old);
        if (complete) {
            done_learn(key);
            req_unlink_all(key);
            list_end();
            return;
        }
    }
    struct mpireg_request *r = req_alloc();
    if (r) {
        r->handle = key;
        r->serial = ++req_serial;
        r->state = state;
        r->tid = tid;
        r->claim = 0;
        r->call = *c;
        if (!(state & MPIREG_REQ_PERSISTENT))
            mpireg_chan_number(&r->call); /* its message or collective, counted after the post */
        r->hnext = req_hash[req_bucket(key)];
        req_hash[req_bucket(key)] = r;
        MPIREG_LIST_PUSH(mpireg_comm_root.requests, r);
        mpireg_comm_root.live_requests++;
    }
    list_end();
}

/* A receive whose source or tag its completion's status must tell. */
static int wild_receive(const struct mpireg_call *c)
{
    if (!(c->flags & MPIREG_CALL_RECEIVES) || (c->flags & MPIREG_CALL_MRECV))
        return 0;
    return (c->flags & MPIREG_CALL_HAS_PEER2) ? mpireg_chan_wild(c->peer2, c->tag2)
                                              : mpireg_chan_wild(c->peer, c->tag);
}

void mpireg_req_save(struct mpireg_reqsave *s, int n, const MPI_Request *reqs)
{
    s->n = n > 0 && reqs ? n : 0;
    s->wild = 0;
    s->statuses = NULL;
    s->keys = s->stack;
    s->serials = s->stack + 32;
    if (s->n > 32) {
        uint64_t *heap = malloc(2 * sizeof(uint64_t) * (size_t)s->n);
        if (!heap) {
            s->n = 0;
            return;
        }
        s->keys = heap;
        s->serials = heap + s->n;
    }
    if (!s->n)
        return;
    pthread_mutex_lock(&ctx_lock);
    uint64_t token = ++req_claim_token;
    for (int i = 0; i < s->n; i++) {
        s->keys[i] = MPIREG_HKEY(reqs[i]);
        s->serials[i] = 0;
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        /* the oldest record of this handle not already picked by this call */
        struct mpireg_request *pick = NULL;
        for (struct mpireg_request *r = req_hash[req_bucket(s->keys[i])]; r; r = r->hnext)
            if (r->handle == s->keys[i] && r->claim != token &&
                (!pick || r->serial < pick->serial))
                pick = r;
        if (pick) {
            pick->claim = token;
            s->serials[i] = pick->serial;
            s->wild |= wild_receive(&pick->call);
        }
    }
    pthread_mutex_unlock(&ctx_lock);
}

void mpireg_req_release(struct mpireg_reqsave *s)
{
    if (s->keys != s->stack)
        free(s->keys);
    free(s->statuses);
}

MPI_Status *mpireg_req_statuses(struct mpireg_reqsave *s, MPI_Status *given, int layout,
                                MPI_Status *small, int nsmall)
{
    if (!s->wild || (given != MPI_STATUSES_IGNORE && given != NULL))
        return given;
    if (layout == MPIREG_STATUS_ONE || s->n <= nsmall)
        return small;
    s->statuses = malloc(sizeof *s->statuses * (size_t)s->n);
    return s->statuses ? s->statuses : given;
}

/* The status of request i of a completion call, as `layout` lays them out. */
static const MPI_Status *status_of(const MPI_Status *statuses, int layout, int i, int ndone,
                                   const int *done)
{
    if (statuses == MPI_STATUSES_IGNORE || statuses == NULL)
        return MPI_STATUS_IGNORE;
    if (layout == MPIREG_STATUS_ONE)
        return statuses;
    if (layout == MPIREG_STATUS_EACH)
        return &statuses[i];
    for (int k = 0; k < ndone; k++)
        if (done[k] == i)
            return &statuses[k];
    return MPI_STATUS_IGNORE;
}

static int listed(int i, int ndone, const int *done)
{
    for (int k = 0; k < ndone; k++)
        if (done[k] == i)
            return 1;
    return 0;
}

void mpireg_req_after(struct mpireg_reqsave *s, const MPI_Request *reqs, int all_done,
                      int ndone, const int *done, int ok, const MPI_Status *statuses, int layout)
{
    int any = 0;
    for (int i = 0; i < s->n && !any; i++)
        any = s->serials[i] != 0;
    if (!any)
        return;
    if (ndone == MPI_UNDEFINED || ndone < 0 || !done)
        ndone = 0;
    list_begin();
    for (int i = 0; i < s->n; i++) {
        if (!s->serials[i])
            continue;
        struct mpireg_request *r = req_find_serial(s->keys[i], s->serials[i]);
        if (!r)
            continue;
        r->claim = 0; /* the completion call is over */
        int completed = reqs[i] == MPI_REQUEST_NULL ||
                        ((all_done || listed(i, ndone, done)) && (r->state & MPIREG_REQ_PERSISTENT));
        if (completed && ok && (r->state & MPIREG_REQ_ACTIVE) && !(r->state & MPIREG_REQ_CANCELLED))
            mpireg_chan_request_done(&r->call, status_of(statuses, layout, i, ndone, done));
        if (reqs[i] == MPI_REQUEST_NULL)
            req_unlink(r);
        else if (completed)
            r->state &= ~(uint32_t)(MPIREG_REQ_ACTIVE | MPIREG_REQ_CANCELLED);
    }
    list_end();
}

/* Request_free: the handle is gone whatever the request still does. */
void mpireg_req_forget(struct mpireg_reqsave *s)
{
    list_begin();
    for (int i = 0; i < s->n; i++) {
        struct mpireg_request *r = s->serials[i] ? req_find_serial(s->keys[i], s->serials[i]) : NULL;
        if (r)
            req_unlink(r);
    }
    list_end();
}

/* The started persistent requests start their messages and collectives
 * (channels.h): each gets its number. */
void mpireg_req_start(int n, const MPI_Request *reqs)
{
    list_begin();
    for (int i = 0; i < n; i++) {
        struct mpireg_request *r = reqs[i] == MPI_REQUEST_NULL ? NULL : req_find(MPIREG_HKEY(reqs[i]));
        if (!r)
            continue;
        r->state = (r->state | MPIREG_REQ_ACTIVE) & ~(uint32_t)MPIREG_REQ_CANCELLED;
        if (!(r->state & MPIREG_REQ_PARTITIONED)) {
            mpireg_chan_number(&r->call);
            mpireg_chan_started(&r->call);
            if (__builtin_expect(mpireg_rr_mode == MPIREG_RR_RECORDING, 0))
                mpireg_rec_started(&r->call);
        }
    }
    list_end();
}

struct mpireg_call *mpireg_req_call(MPI_Request h)
{
    list_begin();
    struct mpireg_request *r = h == MPI_REQUEST_NULL ? NULL : req_find(MPIREG_HKEY(h));
    list_end();
    return r && !(r->state & MPIREG_REQ_PARTITIONED) ? &r->call : NULL;
}

void mpireg_req_cancel(MPI_Request h)
{
    list_begin();
    struct mpireg_request *r = h == MPI_REQUEST_NULL ? NULL : req_find(MPIREG_HKEY(h));
    if (r)
        r->state |= MPIREG_REQ_CANCELLED;
    list_end();
}

/* ---------------------------------------------------------------------------
 * Communicators and ops (few: plain lists).
 * ------------------------------------------------------------------------- */
static struct mpireg_comm *comm_find(uint64_t key)
{
    for (struct mpireg_comm *c = mpireg_comm_root.comms; c; c = c->next)
        if (c->handle == key)
            return c;
    return NULL;
}

static void comm_unlink(struct mpireg_comm *c)
{
    MPIREG_LIST_UNLINK(mpireg_comm_root.comms, c);
    if (!c->predefined) {
        free(c->members);
        free(c->remote_members);
        free(c);
    }
}

static uint64_t comm_serial;

void mpireg_comm_new(MPI_Comm h, MPI_Comm parent, const char *creator, void *site,
                     const char *how_name, int64_t how)
{
    if (h == MPI_COMM_NULL)
        return;
    predefined_comms();
    struct mpireg_comm *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->handle = MPIREG_HKEY(h);
    c->parent = MPIREG_HKEY(parent);
    c->creator = creator;
    c->created_at = (uint64_t)(uintptr_t)site;
    c->how_name = how_name;
    c->how = how;
    comm_fill(c, h);
    list_begin();
    c->serial = ++comm_serial;
    struct mpireg_comm *old = comm_find(c->handle);
    if (old && !old->predefined)
        comm_unlink(old);
    comm_link(c);
    list_end();
}

void mpireg_comm_gone(MPI_Comm h)
{
    uint64_t key = MPIREG_HKEY(h);
    list_begin();
    struct mpireg_comm *c = comm_find(key);
    int gone = c && !c->predefined;
    if (gone)
        comm_unlink(c);
    list_end();
    if (gone)
        mpireg_chan_forget(key);
}

void mpireg_comm_named(MPI_Comm h, const char *name)
{
    predefined_comms();
    list_begin();
    struct mpireg_comm *c = comm_find(MPIREG_HKEY(h));
    if (c && name) {
        strncpy(c->name, name, MPIREG_COMM_NAME_MAX - 1);
        c->name[MPIREG_COMM_NAME_MAX - 1] = 0;
    }
    list_end();
}

void mpireg_op_new(MPI_Op h, void (*fn)(void), int commute, void *site)
{
    struct mpireg_op *o = calloc(1, sizeof *o);
    if (!o)
        return;
    o->handle = MPIREG_HKEY(h);
    o->fn = (uint64_t)(uintptr_t)fn;
    o->commute = commute;
    o->created_at = (uint64_t)(uintptr_t)site;
    list_begin();
    MPIREG_LIST_PUSH(mpireg_comm_root.ops, o);
    list_end();
}

void mpireg_op_gone(MPI_Op h)
{
    uint64_t key = MPIREG_HKEY(h);
    list_begin();
    for (struct mpireg_op *o = mpireg_comm_root.ops; o; o = o->next) {
        if (o->handle != key)
            continue;
        MPIREG_LIST_UNLINK(mpireg_comm_root.ops, o);
        free(o);
        break;
    }
    list_end();
}
