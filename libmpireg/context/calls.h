/*
 * calls.h: libmpireg's communication context -- what each thread is doing
 * inside MPI, the pending nonblocking requests, the communicators and the
 * user-defined reduction operations the program created.
 *
 * Like the datatype registry (mpireg.h) this lives in the application's
 * memory and is read from outside with plain memory reads (gdb on live
 * processes, attached processes and core files).  Its root is its own
 * exported symbol, `mpireg_comm_root`, self-describing the same way:
 *
 *   - magic MPIREG_COMM_MAGIC, layout version, root size;
 *   - `constants`: (name, value) pairs giving the offset of every field a
 *     reader needs ("call.func", "cbuf.addr", "thread.seq", "request.next",
 *     "comm.name", "op.fn", ...), the sizes ("sizeof.call", ...), the flag
 *     bits ("flag.*", "state.*") and the MPI constants of the mpi.h
 *     libmpireg was built against (MPI_COMM_WORLD, MPI_REQUEST_NULL,
 *     MPI_SUM, MPI_IN_PLACE, MPI_ANY_SOURCE, ...), so a reader hard-codes
 *     no handle value and needs no debug information.
 *
 * Current calls: `threads` is an array of `max_threads` slots; a thread
 * claims one at its first wrapped MPI call (and gives it back when it
 * exits).  The owner fills `slot.call` with `slot.seq` odd, makes it even,
 * then sets `slot.active` = 1 for the duration of the PMPI call.  No lock is
 * taken: only the owner writes its slot.
 *
 * Requests, communicators and ops are doubly linked lists (heads in the
 * root) guarded by one mutex, held only for the list update and never across
 * a PMPI call; `root.seq` is odd while a list is being changed.  Request
 * records come from a pool (chunks, free list): posting and completing a
 * request allocates nothing in steady state.  MPI hands one statically
 * allocated handle to every request it completes when it is posted (MPICH's
 * builtin requests, Open MPI's ompi_request_empty): such posts are not
 * recorded (they are not pending), and the handles are published as the
 * constants "request.done_at_once.N" (see calls.c).  Records are still told
 * apart by serial.
 *
 * Handles (communicator, datatype, op, request) are stored widened to 64
 * bits like the datatype registry's keys (bytes copied into a zeroed
 * uint64_t).
 */
#ifndef MPIREG_CALLS_H
#define MPIREG_CALLS_H

#include <stdint.h>
#include <string.h>
#include <mpi.h>
#include "mpireg.h"

#define MPIREG_COMM_MAGIC UINT64_C(0x314d4d4f43504d6d) /* "mMPCOMM1" little-endian */
#define MPIREG_COMM_LAYOUT_VERSION 1u
#define MPIREG_MAX_THREADS 256
#define MPIREG_CALL_BUFS 3
#define MPIREG_COMM_NAME_MAX 128
/* Communicators larger than this record no member list (bounded memory). */
#define MPIREG_COMM_MEMBERS_MAX 65536

/* call.flags */
enum {
    MPIREG_CALL_HAS_PEER = 1u << 0,
    MPIREG_CALL_HAS_TAG = 1u << 1,
    MPIREG_CALL_HAS_COMM = 1u << 2,
    MPIREG_CALL_HAS_EXTRA = 1u << 3,  /* extra/extra_name: op, win, message */
    MPIREG_CALL_HAS_REQS = 1u << 4,   /* reqs/nreqs: a Wait/Test/Start call */
    MPIREG_CALL_HAS_PEER2 = 1u << 5,  /* Sendrecv: the second peer and tag */
    /* MPI-IO (files.h): the file handle in `file`; `offset` is an explicit
     * offset (HAS_OFFSET) or the individual file pointer when the call
     * started (HAS_POSITION); SHARED_POINTER: the shared file pointer's */
    MPIREG_CALL_HAS_FILE = 1u << 6,
    MPIREG_CALL_HAS_OFFSET = 1u << 7,
    MPIREG_CALL_HAS_POSITION = 1u << 8,
    MPIREG_CALL_SHARED_POINTER = 1u << 9,
    /* RMA: the target side (target_disp, target_count, target_datatype;
     * `peer` is the target rank) and the window (`win`) */
    MPIREG_CALL_HAS_TARGET = 1u << 10,
    MPIREG_CALL_HAS_WIN = 1u << 11,
    /* not a call of the program: libmpireg's start-up probe (calls.c,
     * "Requests completed at once") inside MPI_Init */
    MPIREG_CALL_PROBE = 1u << 12,
    /* What the call does on its channels (channels.h): starts a message to
     * its peer (SENDS), receives one from its peer -- peer2 when it also
     * sends (RECEIVES), probes (PROBES), receives the message of a matched
     * probe (MRECV), is a collective on its communicator (COLLECTIVE);
     * `seq` is a request's number on its channel: its message's, or its
     * collective's on its communicator (HAS_SEQ); `group`/`ngroup` are the world ranks it
     * synchronises with (HAS_GROUP: MPI_Comm_create_group, RMA epochs);
     * EXCLUSIVE: an exclusive RMA lock */
    MPIREG_CALL_SENDS = 1u << 13,
    MPIREG_CALL_RECEIVES = 1u << 14,
    MPIREG_CALL_PROBES = 1u << 15,
    MPIREG_CALL_MRECV = 1u << 16,
    MPIREG_CALL_COLLECTIVE = 1u << 17,
    MPIREG_CALL_HAS_SEQ = 1u << 18,
    MPIREG_CALL_HAS_GROUP = 1u << 19,
    MPIREG_CALL_EXCLUSIVE = 1u << 20,
};

/* One buffer of a call.  Scalar: count and datatype.  Per peer (v/w
 * variants): counts/displs/types point at the program's own arrays, which
 * MPI requires to stay valid until the call (or request) completes. */
struct mpireg_cbuf {
    const char *role;  /* "buf", "sendbuf", "recvbuf", "origin_addr", ... */
    uint64_t addr;
    int64_t count;     /* scalar count; -1 when per peer */
    uint64_t datatype; /* widened handle; 0 with per-peer types */
    uint64_t counts;   /* address of counts[npeers], 0 when scalar */
    uint64_t displs;   /* address of displs[npeers], 0 when none */
    uint64_t types;    /* address of types[npeers] (w variants), 0 when none */
    uint8_t count_size;     /* sizeof counts[0]: 4 (int) or 8 (MPI_Count) */
    uint8_t displ_size;     /* sizeof displs[0] */
    uint8_t displ_in_bytes; /* w variants: displacements in bytes; else in extents */
    uint8_t pad;
    int32_t npeers;
};

struct mpireg_call {
    const char *func;  /* "MPI_Recv" */
    uint64_t site;     /* return address of the call */
    uint32_t flags;    /* MPIREG_CALL_* */
    uint32_t nbufs;
    uint64_t comm;     /* widened handle */
    const char *peer_name; /* "source", "dest", "root", "target_rank" */
    int32_t peer, tag;
    const char *peer2_name; /* Sendrecv: "source" */
    int32_t peer2, tag2;
    const char *extra_name; /* "op", "win" */
    uint64_t extra;         /* widened handle */
    uint64_t reqs;          /* address of the request handle(s) waited on */
    int64_t nreqs;
    uint64_t file;          /* widened MPI_File (HAS_FILE) */
    int64_t offset;         /* in etypes of the file's view (HAS_OFFSET, HAS_POSITION) */
    int64_t seq;            /* HAS_SEQ: number on its channel or communicator, from 1 */
    uint64_t group;         /* HAS_GROUP: address of int32_t world ranks[ngroup] */
    int32_t ngroup, pad;
    struct mpireg_cbuf bufs[MPIREG_CALL_BUFS];
    uint64_t win;             /* widened MPI_Win (HAS_WIN) */
    int64_t target_disp;      /* RMA target side (HAS_TARGET), in the window's disp_unit */
    int64_t target_count;
    uint64_t target_datatype; /* widened handle */
    /* Record and replay (record.h), set by the recipe's words while a rank
     * records or replays: the kind of event the call's match makes, its
     * shape (collectives) or MPIREG_RR_SYNCHRONOUS (sends), and for a
     * receive request the position of the event of its post (-1: none). */
    uint8_t rr_kind, rr_flags, rr_pad[6];
    int64_t rr_at;
};

struct mpireg_thread_slot {
    volatile uint64_t seq;  /* odd while `call` is being written */
    volatile int32_t active; /* 1 while inside the PMPI call */
    int32_t tid;            /* kernel thread id (gdb's LWP); 0 = free slot */
    uint64_t ncalls;        /* wrapped calls made by this thread */
    /* Calls that returned having done their work: all but MPI_Test*,
     * MPI_Iprobe, MPI_Improbe and MPI_Win_test that found nothing.  A
     * watcher reading it (and `active`) while the process runs tells a
     * rank that progresses from one that waits. */
    uint64_t completed;
    /* 1 from the return of a Test/Iprobe call that found nothing until the
     * thread's next MPI call returns: `call` still describes it */
    int32_t polling, pad;
    struct mpireg_call call;
};

/* request.state */
enum {
    MPIREG_REQ_ACTIVE = 1u << 0,     /* posted / started, not completed */
    MPIREG_REQ_PERSISTENT = 1u << 1, /* *_init: stays after completion until freed */
    MPIREG_REQ_CANCELLED = 1u << 2,  /* MPI_Cancel was called */
    MPIREG_REQ_PARTITIONED = 1u << 3,
};

struct mpireg_request {
    uint64_t handle; /* widened MPI_Request */
    uint64_t serial;
    struct mpireg_request *next, *prev; /* live list */
    struct mpireg_request *hnext;       /* hash chain (C side only) */
    uint64_t claim;                     /* C side only: last mpireg_req_save that picked it */
    uint32_t state;
    int32_t tid; /* thread that posted it */
    struct mpireg_call call;
};

struct mpireg_comm {
    uint64_t handle;
    struct mpireg_comm *next, *prev;
    uint64_t parent;     /* widened handle it was derived from */
    uint64_t created_at; /* return address of the creating call */
    const char *creator; /* "MPI_Comm_split" */
    int32_t size, rank;  /* local group; rank -1 (MPI_UNDEFINED) not a member */
    int32_t remote_size; /* intercommunicators; 0 otherwise */
    int32_t predefined;
    char name[MPIREG_COMM_NAME_MAX];
    /* World ranks of the members, indexed by rank in the (local, remote)
     * group, translated once at creation so a reader can tell which process
     * a peer or root names (MPI_UNDEFINED: not in MPI_COMM_WORLD).  NULL
     * with 0 members when larger than MPIREG_COMM_MEMBERS_MAX. */
    int32_t n_members, n_remote_members;
    int32_t *members, *remote_members;
    uint64_t serial;      /* creation order in this process: label comm#serial (0: predefined) */
    const char *how_name; /* what the creating call chose, e.g. "color" of MPI_Comm_split */
    int64_t how;
};

struct mpireg_op {
    uint64_t handle;
    struct mpireg_op *next, *prev;
    uint64_t fn; /* the MPI_User_function */
    uint64_t created_at;
    int32_t commute, pad;
};

struct mpireg_comm_root {
    uint64_t magic;
    uint32_t layout_version;
    uint32_t root_size;
    volatile uint64_t seq; /* odd while a list is being changed */
    uint32_t n_constants;
    uint32_t max_threads;
    const struct mpireg_constant *constants;
    struct mpireg_thread_slot *threads;
    struct mpireg_request *requests;
    struct mpireg_comm *comms;
    struct mpireg_op *ops;
    uint64_t live_requests;
    uint64_t threads_used; /* slots ever claimed (high-water mark) */
    uint64_t threads_untracked; /* threads that found no free slot */
};

extern struct mpireg_comm_root mpireg_comm_root;

/* ------------------------------------------------------------------------
 * Used by the generated wrappers (build/wrappers.c, rows of comm.spec).
 * ---------------------------------------------------------------------- */
#define MPIREG_CTX_HIDDEN __attribute__((visibility("hidden")))

/* initial-exec: one %fs-relative load on the hot path (no __tls_get_addr) */
extern __thread struct mpireg_thread_slot *mpireg_tslot MPIREG_CTX_HIDDEN
    __attribute__((tls_model("initial-exec")));
MPIREG_CTX_HIDDEN struct mpireg_thread_slot *mpireg_slot_claim(void);
/* MPI_Init and MPI_Init_thread show in the calling thread's slot while MPI
 * starts (a rank stuck there is inside MPI, completing nothing); ended once
 * MPI is up -- a failed start is fatal (MPI_ERRORS_ARE_FATAL), its slot
 * then stays in MPI_Init. */
MPIREG_CTX_HIDDEN struct mpireg_thread_slot *mpireg_init_begin(void);
MPIREG_CTX_HIDDEN void mpireg_init_end(struct mpireg_thread_slot *s);

static inline uint64_t mpireg_hkey(const void *h, size_t n)
{
    uint64_t k = 0;
    memcpy(&k, h, n < 8 ? n : 8);
    return k;
}
/* The comma makes an rvalue: a volatile argument's copy is a plain one. */
#define MPIREG_HKEY(h) mpireg_hkey(&(__typeof__((void)0, (h))){(h)}, sizeof(h))

/* Starts recording a call: returns the call record to fill (the thread's
 * slot, or `fallback` when the thread has none), with the slot's seq odd. */
static inline struct mpireg_call *mpireg_call_begin(struct mpireg_thread_slot **slot,
                                                    struct mpireg_call *fallback,
                                                    const char *func, void *site)
{
    struct mpireg_thread_slot *s = mpireg_tslot;
    if (__builtin_expect(s == NULL, 0))
        s = mpireg_slot_claim();
    *slot = s;
    struct mpireg_call *c = s ? &s->call : fallback;
    if (s) {
        s->seq++;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    }
    c->func = func;
    c->site = (uint64_t)(uintptr_t)site;
    return c; /* the wrapper sets flags and nbufs, each with one store */
}

static inline void mpireg_call_ready(struct mpireg_thread_slot *s)
{
    if (s) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        s->seq++;
        s->ncalls++;
        s->active = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    }
}

/* The call returned; `found`: 0 for a Test/Iprobe call that found nothing. */
static inline void mpireg_call_end(struct mpireg_thread_slot *s, int found)
{
    if (s) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        s->completed += found != 0;
        s->polling = !found;
        s->active = 0;
    }
}

/* Buffer k of the call (the wrapper sets nbufs). */
static inline struct mpireg_cbuf *mpireg_cbuf_set(struct mpireg_call *c, int k, const char *role,
                                                  const void *addr)
{
    struct mpireg_cbuf *b = &c->bufs[k];
    b->role = role;
    b->addr = (uint64_t)(uintptr_t)addr;
    b->counts = b->displs = b->types = 0;
    b->count_size = b->displ_size = b->displ_in_bytes = 0;
    b->npeers = 0;
    return b;
}

/* Number of peers a v/w buffer lists entries for. */
MPIREG_CTX_HIDDEN int mpireg_peers(MPI_Comm comm);        /* remote group size for intercomms */
MPIREG_CTX_HIDDEN int mpireg_at_root(MPI_Comm comm, int root); /* this process is the root */
MPIREG_CTX_HIDDEN int mpireg_neighbors(MPI_Comm comm, int out); /* in/out degree of a topology */
/* counts[rank in comm] of an int (size 4) or MPI_Count (size 8) array. */
MPIREG_CTX_HIDDEN int64_t mpireg_my_count(MPI_Comm comm, const void *counts, size_t size);

/* Requests. */
struct mpireg_reqsave {
    int n;
    int wild;          /* one of them is a receive from MPI_ANY_SOURCE or with MPI_ANY_TAG */
    uint64_t *keys;    /* keys[n], serials[n] */
    uint64_t *serials;
    MPI_Status *statuses; /* statuses given to MPI in place of MPI_STATUSES_IGNORE */
    uint64_t stack[2 * 32];
};
MPIREG_CTX_HIDDEN void mpireg_req_post(MPI_Request h, const struct mpireg_call *c, uint32_t state);
MPIREG_CTX_HIDDEN void mpireg_req_save(struct mpireg_reqsave *s, int n, const MPI_Request *reqs);
/* How a completion call lays out its statuses: one per request (Waitall,
 * Testall), one per completed index (Waitsome, Testsome), or one status
 * (Wait, Test, Waitany, Testany). */
enum { MPIREG_STATUS_EACH, MPIREG_STATUS_DONE, MPIREG_STATUS_ONE };
/* The statuses array to give MPI: `given`, or when the caller ignores them
 * and a wildcard receive may complete, one of ours (small[nsmall] or
 * malloc'ed, freed by mpireg_req_release): channels.h must learn where the
 * message came from. */
MPIREG_CTX_HIDDEN MPI_Status *mpireg_req_statuses(struct mpireg_reqsave *s, MPI_Status *given,
                                                  int layout, MPI_Status *small, int nsmall);
/* After a Wait/Test/Request_free: requests now MPI_REQUEST_NULL are gone;
 * completed persistent ones (all, or the listed indices) become inactive;
 * completed receives report their match (channels.h) from `statuses`
 * (laid out as `layout`), when the call succeeded. */
MPIREG_CTX_HIDDEN void mpireg_req_after(struct mpireg_reqsave *s, const MPI_Request *reqs,
                                        int all_done, int ndone, const int *done, int ok,
                                        const MPI_Status *statuses, int layout);
MPIREG_CTX_HIDDEN void mpireg_req_release(struct mpireg_reqsave *s);
MPIREG_CTX_HIDDEN void mpireg_req_start(int n, const MPI_Request *reqs);
MPIREG_CTX_HIDDEN void mpireg_req_cancel(MPI_Request h);
/* The call that posted live request h (kept with it: persistent requests
 * are started from it), or NULL (none, or a partitioned request). */
MPIREG_CTX_HIDDEN struct mpireg_call *mpireg_req_call(MPI_Request h);
MPIREG_CTX_HIDDEN void mpireg_req_forget(struct mpireg_reqsave *s);

/* Communicators and ops.  mpireg_ctx_up: MPI_Init succeeded (records
 * MPI_COMM_WORLD, so a reader knows the process's rank from then on). */
MPIREG_CTX_HIDDEN void mpireg_ctx_up(void);
MPIREG_CTX_HIDDEN void mpireg_comm_new(MPI_Comm h, MPI_Comm parent, const char *creator, void *site,
                                      const char *how_name, int64_t how);
MPIREG_CTX_HIDDEN void mpireg_comm_gone(MPI_Comm h);
MPIREG_CTX_HIDDEN void mpireg_comm_named(MPI_Comm h, const char *name);
MPIREG_CTX_HIDDEN void mpireg_op_new(MPI_Op h, void (*fn)(void), int commute, void *site);
MPIREG_CTX_HIDDEN void mpireg_op_gone(MPI_Op h);
/* The world ranks of a group's members, by rank in the group (malloc'd),
 * or NULL (larger than MPIREG_COMM_MEMBERS_MAX, or MPI refused); *n their
 * number. */
MPIREG_CTX_HIDDEN int32_t *mpireg_world_ranks(MPI_Group g, int32_t *n);

#endif
