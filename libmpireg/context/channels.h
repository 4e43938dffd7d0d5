/*
 * channels.h: what this process has done on each channel of communication,
 * counted so that a reader comparing two processes can tell which messages
 * are in flight -- and the one hook through which every completed receive
 * and probe reports what it matched.
 *
 * A channel record counts, for one (object, peer, kind):
 *
 *   kind >= 0 (a tag)          messages on communicator `object` to and
 *                              from rank `peer` of it (of the remote group
 *                              for an intercommunicator): `sent` messages
 *                              started (a blocking send when it returned, a
 *                              nonblocking or persistent one when posted or
 *                              started), `received` receives and matched
 *                              probes that matched one (when they completed:
 *                              the (source, tag) of the status, so wildcard
 *                              receives count where their message came
 *                              from); `last_*` the last message sent (its
 *                              datatype key, count, and mpireg_root's
 *                              next_serial then: a record of that handle
 *                              with a serial below it is the type sent);
 *   MPIREG_CHAN_COLLECTIVES    `sent`: collective calls issued on
 *                              communicator `object` (blocking ones when
 *                              they returned, nonblocking and persistent
 *                              ones when posted or started; communicator
 *                              constructors count as collectives of their
 *                              parent), peer MPIREG_CHAN_NO_PEER;
 *   MPIREG_CHAN_FENCES         window `object`: `sent` MPI_Win_fence calls
 *                              returned;
 *   MPIREG_CHAN_LOCKS_SHARED,  window `object`, target `peer` (NO_PEER:
 *   MPIREG_CHAN_LOCKS_EXCLUSIVE  MPI_Win_lock_all): `sent` locks taken,
 *                              `received` unlocks;
 *   MPIREG_CHAN_STARTS         window `object`, target `peer`: access
 *                              epochs started (MPI_Win_start) in `sent`,
 *                              completed (MPI_Win_complete) in `received`;
 *   MPIREG_CHAN_POSTS          window `object`, origin `peer`: exposure
 *                              epochs posted (MPI_Win_post) in `sent`,
 *                              waited for (MPI_Win_wait/test) in `received`.
 *
 * Window records also give `scope`: the communicator the window was
 * created on (objects.h; 0 when the window was not recorded).
 *
 * A reader pairs the records of two processes through the communicator's
 * identity and the peers' ranks: messages in flight on a channel from A to
 * B are A's `sent` minus B's `received`.
 *
 * Root: the exported symbol `mpireg_chan_root`: magic MPIREG_CHAN_MAGIC,
 * layout version, root size, `seq` (odd while records are added, retired or
 * reset), `constants` ((name, value) pairs: the offset of every field
 * "channel.*", "chunk.*", "message.*", the sizes, the kinds "kind.*",
 * MPIREG_CHAN_NO_PEER as "peer.none"), the list of record `chunks` (newest
 * first, each `used` records long), the count of `records`, and
 * `unrecorded_sent`/`unrecorded_received`: messages counted on no channel
 * because the table was full (a reader must then assume any message of
 * this process may be in flight), and the table of messages matched by
 * MPI_Mprobe/MPI_Improbe and not yet received (`messages`, `n_messages`
 * slots; handle 0 = free).  Records of a communicator or window that was
 * freed are retired (object 0, kind MPIREG_CHAN_RETIRED) and reused.
 *
 * Thread safety: each thread keeps a small cache of the records it used
 * last; a hit costs a few compares and one increment (atomic only under
 * MPI_THREAD_MULTIPLE).  A miss takes a mutex and looks the record up in a
 * hash index (C side only).  Records never move.
 *
 * Record and replay, and anything else that needs to know what a receive
 * matched, hooks mpireg_matched(): every completed MPI_Recv, Sendrecv(_replace),
 * Irecv/Recv_init/Isendrecv request completed by any Wait or Test, MPI_Probe
 * and successful MPI_Iprobe, MPI_Mprobe and successful MPI_Improbe calls it
 * once, with what it matched.  The rows of comm.spec say which calls are
 * which (recipe words sends(), receives(), probes(), message(...),
 * status(...), statuses(...); genwrappers.py).
 */
#ifndef MPIREG_CHANNELS_H
#define MPIREG_CHANNELS_H

#include <stdint.h>
#include <string.h>
#include <mpi.h>
#include "mpireg.h"
#include "calls.h"
#include "record.h"
#include "checks.h"

#define MPIREG_CHAN_MAGIC UINT64_C(0x314e414843504d6d) /* "mMPCHAN1" little-endian */
#define MPIREG_CHAN_LAYOUT_VERSION 1u
#define MPIREG_CHAN_CHUNK 256
#define MPIREG_CHAN_MAX_RECORDS (1 << 16)
#define MPIREG_CHAN_MESSAGES 64

#define MPIREG_CHAN_NO_PEER INT32_MIN
enum {
    MPIREG_CHAN_COLLECTIVES = -1,
    MPIREG_CHAN_FENCES = -2,
    MPIREG_CHAN_LOCKS_SHARED = -3,
    MPIREG_CHAN_LOCKS_EXCLUSIVE = -4,
    MPIREG_CHAN_STARTS = -5,
    MPIREG_CHAN_POSTS = -6,
    MPIREG_CHAN_RETIRED = -100,
};

struct mpireg_channel {
    uint64_t object;        /* widened communicator or window handle */
    int32_t peer;           /* rank in object's (remote) group, or MPIREG_CHAN_NO_PEER */
    int32_t kind;           /* a tag (>= 0), or MPIREG_CHAN_*; right after peer (one compare) */
    uint64_t sent, received;
    uint64_t last_datatype; /* messages: the last one sent */
    int64_t last_count;
    uint64_t last_bound;    /* mpireg_root.next_serial when it was sent */
    uint64_t scope;         /* windows: the communicator of the window's group */
};

struct mpireg_chan_chunk {
    struct mpireg_chan_chunk *next;
    uint32_t used, pad;
    struct mpireg_channel records[MPIREG_CHAN_CHUNK];
};

/* A message MPI_Mprobe/MPI_Improbe matched, until MPI_Mrecv/MPI_Imrecv takes it. */
struct mpireg_message {
    uint64_t handle;  /* widened MPI_Message; 0 = free slot */
    uint64_t comm;
    int32_t source, tag;
    int64_t ordinal;  /* the message's number on its channel (its `received` then) */
};

struct mpireg_chan_root {
    uint64_t magic;
    uint32_t layout_version;
    uint32_t root_size;
    volatile uint64_t seq;
    uint32_t n_constants;
    uint32_t n_messages;
    const struct mpireg_constant *constants;
    struct mpireg_chan_chunk *chunks;
    uint64_t records;
    uint64_t unrecorded_sent, unrecorded_received;
    struct mpireg_message *messages;
};

extern struct mpireg_chan_root mpireg_chan_root;

#define MPIREG_CHAN_HIDDEN __attribute__((visibility("hidden")))
/* The hot path: inlined into every wrapper whatever the compiler thinks. */
#define MPIREG_CHAN_INLINE __attribute__((always_inline))

/* ------------------------------------------------------------------------
 * The record of a channel: the calling thread's cache first.
 * ---------------------------------------------------------------------- */
#define MPIREG_CHAN_CACHE 16
extern __thread struct mpireg_channel *mpireg_chan_cache[MPIREG_CHAN_CACHE] MPIREG_CHAN_HIDDEN
    __attribute__((tls_model("initial-exec")));
/* The record (created when new); NULL when the table is full or out of memory. */
MPIREG_CHAN_HIDDEN struct mpireg_channel *mpireg_channel_slow(uint64_t object, int32_t peer,
                                                              int32_t kind);

/* peer and kind as the record keeps them side by side: one compare */
static inline MPIREG_CHAN_INLINE uint64_t mpireg_chan_pair(int32_t peer, int32_t kind)
{
    return (uint64_t)(uint32_t)peer | (uint64_t)(uint32_t)kind << 32;
}

static inline MPIREG_CHAN_INLINE struct mpireg_channel *mpireg_channel(uint64_t object,
                                                                        int32_t peer,
                                                                        int32_t kind)
{
    struct mpireg_channel *c =
        mpireg_chan_cache[((uint32_t)peer + 7u * (uint32_t)kind) & (MPIREG_CHAN_CACHE - 1)];
    uint64_t pair;
    if (__builtin_expect(c != NULL, 1)) {
        memcpy(&pair, &c->peer, sizeof pair);
        if (__builtin_expect(pair == mpireg_chan_pair(peer, kind) && c->object == object, 1))
            return c;
    }
    return mpireg_channel_slow(object, peer, kind);
}

static inline MPIREG_CHAN_INLINE void mpireg_chan_count(uint64_t *counter)
{
    if (__builtin_expect(mpireg_concurrent, 0))
        __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
    else
        ++*counter;
}

/* ------------------------------------------------------------------------
 * Hooks of the generated wrappers.  Each takes the call record the wrapper
 * filled (comm, peer, tag, bufs, flags MPIREG_CALL_SENDS/RECEIVES/...).
 * ---------------------------------------------------------------------- */

/* The call's number on its channel (call->seq) -- the message a send
 * starts, the collective a collective call is on its communicator -- for a
 * request (MPI_Isend, MPI_Ibcast, ... when posted; a persistent one at
 * each MPI_Start).  A blocking call is not numbered: while it is in its
 * call it is the next one of its channel (a reader adds one to `sent`),
 * since it is counted only once it has left MPI (mpireg_chan_started). */
MPIREG_CHAN_HIDDEN void mpireg_chan_number(struct mpireg_call *c);

/* After success, once the call has left MPI (the thread slot's `active`
 * is 0): the call started its message or issued its collective (blocking
 * calls, nonblocking posts, MPI_Start of a persistent request).  Counting
 * after `active` drops keeps a reader from seeing a call both in progress
 * and counted; in between, the thread is outside MPI, which a reader takes
 * as able to do anything. */
MPIREG_CHAN_HIDDEN void mpireg_chan_started_slow(const struct mpireg_call *c);
static inline MPIREG_CHAN_INLINE void mpireg_chan_started(const struct mpireg_call *c)
{
    if (c->flags & MPIREG_CALL_SENDS) {
        if (c->peer < 0)
            return; /* MPI_PROC_NULL */
        struct mpireg_channel *ch = mpireg_channel(c->comm, c->peer, c->tag);
        if (__builtin_expect(ch != NULL, 1)) {
            uint64_t datatype = c->bufs[0].datatype;
            if (ch->last_datatype != datatype) {
                ch->last_datatype = datatype;
                ch->last_bound = mpireg_root.next_serial;
            }
            ch->last_count = c->bufs[0].count;
            mpireg_chan_count(&ch->sent);
            return;
        }
    }
    mpireg_chan_started_slow(c);
}

/* The kinds of matches mpireg_matched reports. */
enum { MPIREG_MATCH_RECEIVE, MPIREG_MATCH_PROBE, MPIREG_MATCH_MPROBE };

/* THE hook of completed receives and probes: a receive (MPIREG_MATCH_RECEIVE:
 * the message is consumed), a probe (PROBE: it stays in flight) or a
 * matched probe (MPROBE: consumed, handed to MPI_Mrecv later) made by call
 * `call` (the wrapper's, or the posting call of a request) on communicator
 * `comm` (widened) asked for (source, tag) -- possibly MPI_ANY_SOURCE /
 * MPI_ANY_TAG -- and matched the message whose source and tag are in
 * `status` (MPI_STATUS_IGNORE when the call asked for a specific source and
 * tag: they are the ones matched; with a wildcard and no status the match
 * is counted as of an unknown channel).  `message`: the MPI_Message of a
 * matched probe (widened), else 0.  A rank that records or replays reports
 * it on (record.h). */
MPIREG_CHAN_HIDDEN void mpireg_matched_slow(int kind, uint64_t comm, int source, int tag,
                                            const MPI_Status *status, uint64_t message);
static inline MPIREG_CHAN_INLINE void mpireg_matched(const struct mpireg_call *call, int kind,
                                                     uint64_t comm, int source, int tag,
                                                     const MPI_Status *status, uint64_t message)
{
    if (__builtin_expect(mpireg_rr_mode != 0, 0))
        mpireg_rr_matched(call, source, tag, status);
    if (__builtin_expect(mpireg_check_on, 0) && kind == MPIREG_MATCH_RECEIVE)
        mpireg_check_matched(call, source, tag, status);
    if (kind == MPIREG_MATCH_RECEIVE && source >= 0 && tag >= 0) {
        struct mpireg_channel *ch = mpireg_channel(comm, source, tag);
        if (__builtin_expect(ch != NULL, 1)) {
            mpireg_chan_count(&ch->received);
            return;
        }
    }
    mpireg_matched_slow(kind, comm, source, tag, status, message);
}

/* A blocking call of a row that receives or probes returned successfully
 * (probes: `found`, the flag of MPI_Iprobe/Improbe, 1 for blocking ones);
 * counted once it has left MPI, as mpireg_chan_started. */
static inline MPIREG_CHAN_INLINE void mpireg_chan_received(const struct mpireg_call *c,
                                                           const MPI_Status *status, int found,
                                                           const MPI_Message *message)
{
    if (!found)
        return;
    if (c->flags & MPIREG_CALL_RECEIVES) {
        int peer2 = (c->flags & MPIREG_CALL_HAS_PEER2) != 0;
        int source = peer2 ? c->peer2 : c->peer, tag = peer2 ? c->tag2 : c->tag;
        if (source != MPI_PROC_NULL)
            mpireg_matched(c, MPIREG_MATCH_RECEIVE, c->comm, source, tag, status, 0);
    } else if ((c->flags & MPIREG_CALL_PROBES) && c->peer != MPI_PROC_NULL) {
        mpireg_matched(c, message ? MPIREG_MATCH_MPROBE : MPIREG_MATCH_PROBE, c->comm, c->peer,
                       c->tag, status, message ? MPIREG_HKEY(*message) : 0);
    }
}

/* A wildcard receive or probe whose caller ignores the status gets one of
 * ours (MPI sees no difference): the source and tag matched must be known. */
static inline int mpireg_chan_wild(int source, int tag)
{
    return source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG;
}

/* MPI_Mrecv/MPI_Imrecv: the call record gets the communicator, source, tag
 * and message number its matched probe recorded (before the call); the
 * message is forgotten once taken (after success). */
MPIREG_CHAN_HIDDEN void mpireg_chan_mrecv(struct mpireg_call *c, const MPI_Message *message);
MPIREG_CHAN_HIDDEN void mpireg_chan_message_taken(uint64_t message);

/* A Wait/Test call completed the receive request whose posting call is c
 * (status: its status, or MPI_STATUS_IGNORE). */
MPIREG_CHAN_HIDDEN void mpireg_chan_request_done(const struct mpireg_call *c,
                                                 const MPI_Status *status);

/* Communicator h was freed: its records are retired. */
MPIREG_CHAN_HIDDEN void mpireg_chan_forget(uint64_t object);

/* Groups: the MPI_COMM_WORLD ranks of group g go into c->group (a buffer of
 * the calling thread's, valid until its next such call). */
MPIREG_CHAN_HIDDEN void mpireg_chan_group(struct mpireg_call *c, MPI_Group g);

/* RMA synchronisation calls (what: MPIREG_WIN_*).  Before the call: the
 * call record gets the window's communicator (c->comm, the one it was
 * created on; none when the window was not recorded),
 * its fence number (c->seq) and the world ranks it synchronises with
 * (c->group: the target of a lock, unlock or flush; the group of an access
 * epoch -- MPI_Win_start's, remembered for MPI_Win_complete -- or of an
 * exposure epoch -- MPI_Win_post's, for MPI_Win_wait/test); lock_type and
 * group are the call's own (0 and MPI_GROUP_NULL when it has none).  After
 * success: the epoch is counted (window kinds of the channel records). */
enum {
    MPIREG_SYNC_FENCE, MPIREG_SYNC_LOCK, MPIREG_SYNC_UNLOCK, MPIREG_SYNC_LOCK_ALL,
    MPIREG_SYNC_UNLOCK_ALL, MPIREG_SYNC_FLUSH, MPIREG_SYNC_FLUSH_ALL, MPIREG_SYNC_START,
    MPIREG_SYNC_COMPLETE, MPIREG_SYNC_POST, MPIREG_SYNC_WAIT,
};
MPIREG_CHAN_HIDDEN void mpireg_chan_win_sync(struct mpireg_call *c, MPI_Win w, int what, int lock_type,
                                        MPI_Group group);
MPIREG_CHAN_HIDDEN void mpireg_chan_win_synced(const struct mpireg_call *c, MPI_Win w, int what);
/* The window (widened) was freed: its records are retired. */
MPIREG_CHAN_HIDDEN void mpireg_chan_win_gone(uint64_t w);

#endif
