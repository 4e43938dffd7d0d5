/*
 * record.h: record and replay of the choices MPI makes (docs/replay.md).
 *
 * With MPIPP_RECORD=DIR each rank writes DIR/rank.N (N: its rank in
 * MPI_COMM_WORLD): every outcome MPI chose that the program could observe
 * differently on another run -- the (source, tag) each wildcard receive and
 * probe matched, the flags of polling calls, the requests Test*, Waitany and
 * Waitsome completed -- and, so that `mpipp races` can pair messages offline
 * and order events across ranks, every send, receive and collective, in
 * program order.  With MPIPP_REPLAY=DIR it reads the same file and enforces
 * those outcomes: a wildcard receive is posted with the recorded source and
 * tag (MPI's non-overtaking rule then matches the recorded message), a
 * completion or polling call completes the recorded requests or returns the
 * recorded flag; a call that does not fit the record (another call,
 * communicator, peer or tag) stops the rank in mpipp_replay_diverged().
 *
 * The file: a 64-byte header (struct mpireg_rr_header), then 64-bit
 * little-endian words.  An event is one word whose low 5 bits are its kind,
 * possibly followed by raw words its kind announces.  A word 0 where an
 * event starts ends the record (words after it may be left from a
 * repetition, below): the file grows in zeroed chunks, written through a
 * shared mapping (a rank killed or crashed loses nothing), and an event's
 * first word is stored after the words that follow it.
 *
 * Word layouts (bit 0 = least significant):
 *
 *   message events (SEND, RECV, SENDRECV, IRECV, START, PROBE, MPROBE,
 *   IPROBE, IMPROBE):
 *       kind:5 | comm:5 | flags:2 | peer:20 | tag:20 | site:12
 *     comm: the communicator's slot (0 = MPI_COMM_WORLD; slots are given
 *     by COMM events; MPIREG_RR_COMM_ESCAPE: in the raw word that follows);
 *     peer: the destination (SEND) or the source matched, plus 1 (0: not
 *     known -- an IRECV/START whose source is a wildcard: its DONE says);
 *     tag: the tag (MPIREG_RR_TAG_ESCAPE: in the raw word that follows);
 *     flags: receives and probes: MPIREG_RR_ANY_SOURCE/_ANY_TAG, what the
 *     call asked; SEND: MPIREG_RR_SYNCHRONOUS (MPI_Ssend, MPI_Issend,
 *     MPI_Ssend_init);
 *     site: the call's site (an index given by a SITE event; 0: none).
 *     Escaped: one raw word follows, tag in the low 32 bits, the
 *     communicator's ordinal in the high 32.
 *   DONE (a receive request completed):
 *       kind:5 | delta:19 | peer:20 | tag:20
 *     delta: steps back to its IRECV/START event; peer: the source
 *     matched plus 1; escaped (delta or tag too large): one raw word
 *     follows, tag low, delta high.
 *   MISS (polling calls that found nothing, run-length encoded):
 *       kind:5 | call:5 | comm:5 | count:49
 *     call: the kind of the polling call (IPROBE, IMPROBE, TEST, TESTALL,
 *     TESTANY, TESTSOME); comm: probes' communicator slot (0 for tests).
 *   choices (TEST, TESTALL: a flag that was true; TESTANY, WAITANY: the
 *   index; TESTSOME, WAITSOME: the number of indices):
 *       kind:5 | n:27 | value:32
 *     n: the number of requests the call named (modulo 2^27); value:
 *     MPIREG_RR_UNDEFINED for MPI_UNDEFINED; TESTSOME/WAITSOME are
 *     followed by the indices, two per raw word (low first, an odd one
 *     padded with MPIREG_RR_UNDEFINED).
 *   COLL (a collective):
 *       kind:5 | comm:5 | shape:3 | root:20 | 0:19 | site:12
 *     shape: MPIREG_RR_SHAPE_*; root plus 1 (0: none); an escaped comm
 *     is followed by a raw word with the ordinal in the high 32 bits.
 *   COMM (a communicator gets a slot; its ordinal counts the communicators
 *   this rank created, MPI_COMM_WORLD being 0):
 *       kind:5 | slot:5 | 0:22 | ordinal:32
 *     then a raw word: local group size (low) and remote group size (high,
 *     0 for an intracommunicator), then, when the two add up to at most
 *     MPIREG_RR_MEMBERS_MAX, their members' ranks in MPI_COMM_WORLD (local
 *     group first, two per word, padded with MPIREG_RR_UNDEFINED).
 *   SITE (a call site gets an index):
 *       kind:5 | index:12 | address:47
 *   REPEAT (the n one-word events just before it happen again, count
 *   more times, one after the other):
 *       kind:5 | n:4 | count:55
 *     n <= MPIREG_RR_GROUP_MAX; one-word events are the message events,
 *     DONE, COLL and the choices without indices, unescaped.  A loop that
 *     communicates alike each time costs no word once it repeats.
 *
 * Steps: the events a rank recorded are numbered from 1 in program order;
 * a MISS of count k is k steps, a REPEAT of n events count times n * count,
 * COMM and SITE events are none.  Replay
 * counts the same way, and names the step where a rank diverged.
 *
 * Order: a call's events are written when it returns successfully (a
 * nonblocking call's when it is posted, a persistent request's at each
 * MPI_Start): a receive request posted first, then what a blocking receive
 * or probe matched, then the message its call sends or the collective it
 * is, then a completion call's choice, then the DONE of each receive
 * request it completed (in index order).  Replay consumes them in the same
 * order when the calls are made.
 *
 * Threads: one thread records (or replays) a rank, the first that makes a
 * recorded call; a recorded call from another one ends the record there
 * (state MPIREG_RR_THREADS) -- MPI_THREAD_MULTIPLE programs whose threads
 * all communicate are refused with that message.
 */
#ifndef MPIREG_RECORD_H
#define MPIREG_RECORD_H

#include <stdint.h>
#include <mpi.h>
#include "calls.h"

#define MPIREG_RR_MAGIC "mpippRR1"
#define MPIREG_RR_VERSION 1u
#define MPIREG_RR_ENV_RECORD "MPIPP_RECORD"
#define MPIREG_RR_ENV_REPLAY "MPIPP_REPLAY"

/* Header states.  UNCOVERED: the rank made a call libmpireg does not see
 * (a Fortran call whose binding calls PMPI_ directly and that has no
 * Fortran entry in libmpireg), so the record ends there. */
enum { MPIREG_RR_OPEN = 1, MPIREG_RR_CLOSED = 2, MPIREG_RR_THREADS = 3, MPIREG_RR_UNCOVERED = 4 };

struct mpireg_rr_header {
    char magic[8];          /* MPIREG_RR_MAGIC */
    uint32_t version;       /* MPIREG_RR_VERSION */
    uint32_t header_size;   /* 64 */
    int32_t rank, size;     /* in MPI_COMM_WORLD */
    uint32_t state;         /* OPEN while the rank runs (or when it was killed),
                             * CLOSED at MPI_Finalize, THREADS: ended by a second thread */
    int32_t thread_level;   /* MPI_Query_thread */
    uint64_t job;           /* the same in every rank's file of one run */
    uint64_t words;         /* event words, once closed */
    uint64_t steps;         /* steps, once closed (or ended by a thread) */
    char mpi[8];            /* "mpich", "openmpi" */
};

/* Event kinds (5 bits). */
enum {
    MPIREG_RR_SEND = 1,
    MPIREG_RR_RECV,       /* a blocking receive (MPI_Recv) */
    MPIREG_RR_SENDRECV,   /* the receive of MPI_Sendrecv(_replace) */
    MPIREG_RR_IRECV,      /* a receive request posted (MPI_Irecv, MPI_Isendrecv...) */
    MPIREG_RR_START,      /* a persistent receive started */
    MPIREG_RR_PROBE,
    MPIREG_RR_MPROBE,
    MPIREG_RR_IPROBE,     /* a successful MPI_Iprobe */
    MPIREG_RR_IMPROBE,
    MPIREG_RR_DONE,
    MPIREG_RR_MISS,
    MPIREG_RR_TEST,
    MPIREG_RR_TESTALL,
    MPIREG_RR_TESTANY,
    MPIREG_RR_TESTSOME,
    MPIREG_RR_WAITANY,
    MPIREG_RR_WAITSOME,
    MPIREG_RR_COLL,
    MPIREG_RR_COMM,
    MPIREG_RR_SITE,
    MPIREG_RR_REPEAT,
    MPIREG_RR_KINDS
};

/* Message event flags. */
enum { MPIREG_RR_ANY_SOURCE = 1, MPIREG_RR_ANY_TAG = 2, MPIREG_RR_SYNCHRONOUS = 1 };

/* Collective shapes: which members' contributions reach which. */
enum {
    MPIREG_RR_SHAPE_ALL = 1,      /* every member from every member (barrier, allreduce...) */
    MPIREG_RR_SHAPE_FROM_ROOT,    /* the root to every member (bcast, scatter) */
    MPIREG_RR_SHAPE_TO_ROOT,      /* every member to the root (reduce, gather) */
    MPIREG_RR_SHAPE_PREFIX,       /* the lower ranks to each (scan, exscan) */
};

#define MPIREG_RR_COMM_ESCAPE 31u
#define MPIREG_RR_COMM_SLOTS 31u        /* slots 0 (world) .. 30 */
#define MPIREG_RR_PEER_MAX 0xFFFFEu     /* peers are 0 .. PEER_MAX - 1 */
#define MPIREG_RR_TAG_ESCAPE 0xFFFFFu
#define MPIREG_RR_DELTA_ESCAPE 0x7FFFFu
#define MPIREG_RR_SITES 4096u           /* indices 1 .. SITES - 1 */
#define MPIREG_RR_UNDEFINED 0xFFFFFFFFu
#define MPIREG_RR_MEMBERS_MAX 65536
#define MPIREG_RR_GROUP_MAX 8           /* events a REPEAT repeats, at most */
#define MPIREG_RR_REPEAT_COUNT 9        /* the shift of a REPEAT's count */

/* ------------------------------------------------------------------------
 * The wrappers' side.  mpireg_rr_mode is 0 unless the rank records or
 * replays: every hook below is behind one test of it.
 * ---------------------------------------------------------------------- */
enum { MPIREG_RR_RECORDING = 1, MPIREG_RR_REPLAYING = 2 };
#define MPIREG_RR_HIDDEN __attribute__((visibility("hidden")))
/* The hot path below: inlined into every wrapper whatever the compiler thinks. */
#define MPIREG_RR_INLINE __attribute__((always_inline))
extern int mpireg_rr_mode MPIREG_RR_HIDDEN;

/* MPI_Init(_thread) succeeded: start recording or replaying as the
 * environment says.  MPI_Finalize is called: close the record, or check
 * that the replay used all of it. */
MPIREG_RR_HIDDEN void mpireg_rr_up(void);
MPIREG_RR_HIDDEN void mpireg_rr_down(void);
/* A communicator was created (comm_new) or freed (comm_free). */
MPIREG_RR_HIDDEN void mpireg_rr_comm_new(MPI_Comm h);
MPIREG_RR_HIDDEN void mpireg_rr_comm_gone(MPI_Comm h);

/* Recording (record.c; the hot path inline, below).  Each takes the call
 * record of the wrapper (or of the request's posting call) with rr_kind,
 * rr_flags and rr_at set by the recipe words (genwrappers.py). */
/* A message started or a collective issued (c->flags SENDS, COLLECTIVE), or
 * a persistent receive started (RECEIVES: sets c->rr_at).  The wrapper of
 * a send calls mpireg_rec_sent (below) instead. */
MPIREG_RR_HIDDEN void mpireg_rec_started(struct mpireg_call *c);
/* A polling call (c->rr_kind) found nothing. */
MPIREG_RR_HIDDEN void mpireg_rec_missed(const struct mpireg_call *c);
/* A completion call with a choice (c->rr_kind) returned: all_done, or ndone
 * indices in done[] (MPI_UNDEFINED: none active). */
MPIREG_RR_HIDDEN void mpireg_rec_chose(const struct mpireg_call *c, int n, int all_done,
                                       int ndone, const int *done);

/* Replaying (replay.c). */
enum { MPIREG_REPLAY_FREE = 0, MPIREG_REPLAY_MISS, MPIREG_REPLAY_HIT };
/* At a call's entry: consumes the events it recorded (sends, collectives,
 * receive posts, blocking receives and probes), stopping the rank when they
 * do not fit; a wildcard receive gets the recorded *source and *tag (also in
 * the call record).  Returns, for a polling probe, MISS or HIT (with *source
 * and *tag the recorded ones); FREE otherwise (also past the end of a cut
 * record: the call runs as the program wrote it).  source and tag are the
 * wrapper's own parameters, volatile there (genwrappers.py, kept_param). */
MPIREG_RR_HIDDEN int mpireg_replay_enter(struct mpireg_call *c, volatile int *source,
                                         volatile int *tag);
/* MPI_Iprobe / MPI_Improbe (message != NULL) whose outcome the record gives. */
MPIREG_RR_HIDDEN int mpireg_replay_poll(int outcome, int source, int tag, MPI_Comm comm,
                                        int *flag, MPI_Message *message, MPI_Status *status);
/* A completion call with a choice (c->rr_kind), in place of the PMPI call:
 * completes the recorded requests (waiting for them) or returns the
 * recorded "not yet".  Outputs the call has not: NULL. */
MPIREG_RR_HIDDEN int mpireg_replay_choose(struct mpireg_call *c, int n, MPI_Request *reqs,
                                          MPI_Status *statuses, int *flag, int *index,
                                          int *outcount, int *indices);
/* MPI_Start/MPI_Startall in place of the PMPI call. */
MPIREG_RR_HIDDEN int mpireg_replay_start(int n, MPI_Request *reqs);
/* Persistent wildcard receives are replayed by a request of replay's own
 * posted at each start with the recorded source and tag (a shadow): around
 * a completion call the shadows stand in for their requests (in, then out
 * after the call); Request_free frees a request's shadow with it. */
extern int mpireg_replay_shadows MPIREG_RR_HIDDEN;
MPIREG_RR_HIDDEN void mpireg_replay_swap(int n, MPI_Request *reqs, int in);
MPIREG_RR_HIDDEN void mpireg_replay_unshadow(MPI_Request *req);

/* A receive request (c->rr_kind IRECV or START) completed: its DONE is
 * checked (mpireg_rr_matched, below). */
MPIREG_RR_HIDDEN void mpireg_replay_matched(const struct mpireg_call *c, int source, int tag,
                                            const MPI_Status *status);

/* ------------------------------------------------------------------------
 * Shared by record.c and replay.c.
 * ---------------------------------------------------------------------- */
/* A communicator as events name it: its ordinal (the communicators the rank
 * created, in order; MPI_COMM_WORLD is 0) and its slot (record.h, above).
 * Record and replay number them alike. */
struct mpireg_rr_comm {
    uint32_t ordinal, slot;
};
extern uint64_t mpireg_rr_world_key MPIREG_RR_HIDDEN;
MPIREG_RR_HIDDEN struct mpireg_rr_comm mpireg_rr_comm_lookup(uint64_t key);
static inline struct mpireg_rr_comm mpireg_rr_comm_of(uint64_t key)
{
    if (__builtin_expect(key == mpireg_rr_world_key, 1)) /* most events name it */
        return (struct mpireg_rr_comm){0, 0};
    return mpireg_rr_comm_lookup(key);
}
/* "MPI_COMM_WORLD", "communicator #3". */
MPIREG_RR_HIDDEN const char *mpireg_rr_comm_name(uint32_t ordinal, char *buf, size_t size);
MPIREG_RR_HIDDEN const char *mpireg_rr_kind_name(int kind);

/* Whether this thread records or replays the rank: the first thread that
 * asks owns it; another one ends the record or the replay (one line). */
extern __thread int mpireg_rr_owner MPIREG_RR_HIDDEN __attribute__((tls_model("initial-exec")));
MPIREG_RR_HIDDEN int mpireg_rr_thread_slow(const char *func);
static inline int mpireg_rr_mine(const char *func)
{
    return __builtin_expect(mpireg_rr_owner > 0, 1) || mpireg_rr_thread_slow(func);
}

/* Calls record and replay saw on this thread while recording or replaying
 * (counted by every wrapper that records or replays): a Fortran entry
 * without a recipe (genwrappers.py, gen_fortran_unseen) compares it across
 * its call to know whether MPI's binding reached a C wrapper. */
extern __thread unsigned mpireg_rr_seen MPIREG_RR_HIDDEN __attribute__((tls_model("initial-exec")));
/* FUNC was called from Fortran and no wrapper saw it: the record ends there
 * (state UNCOVERED), or the replay, each with one line. */
MPIREG_RR_HIDDEN void mpireg_rr_unseen(const char *func);
MPIREG_RR_HIDDEN void mpireg_replay_unseen(const char *func);

/* The rank (in MPI_COMM_WORLD), and the steps it recorded or replayed. */
extern int mpireg_rr_rank MPIREG_RR_HIDDEN;
extern uint64_t mpireg_rr_steps MPIREG_RR_HIDDEN;

MPIREG_RR_HIDDEN void mpireg_replay_open(const char *dir, int rank, int size);
MPIREG_RR_HIDDEN void mpireg_replay_close(void);

/* A message event's flags for a receive asking for (source, tag). */
static inline unsigned mpireg_rr_wild(int source, int tag)
{
    return (source == MPI_ANY_SOURCE ? MPIREG_RR_ANY_SOURCE : 0u) |
           (tag == MPI_ANY_TAG ? MPIREG_RR_ANY_TAG : 0u);
}

/* The source side of a receive call: (source, tag) it asked for. */
static inline void mpireg_rr_asked(const struct mpireg_call *c, int *source, int *tag)
{
    int peer2 = (c->flags & MPIREG_CALL_HAS_PEER2) != 0;
    *source = peer2 ? c->peer2 : c->peer;
    *tag = peer2 ? c->tag2 : c->tag;
}

/* ------------------------------------------------------------------------
 * The hot path, inlined into the wrappers.  While a rank's events repeat a
 * group (a loop that communicates alike each time: a ping-pong, a halo
 * exchange) -- a REPEAT being recorded or replayed -- a call that makes the
 * group's next event as a call did before records or takes it with a few
 * compares and stores; anything else goes to record.c or replay.c.
 * ---------------------------------------------------------------------- */
/* An event of the group: its word; recording, where the current
 * recurrence stores it (slot: the REPEAT word's next ones).  A message
 * event, once record.c or replay.c has seen a call make it in this
 * repetition, also keeps what the call gave -- key (the site, with the kind
 * and flags in the high byte: mpireg_rr_key), communicator, peer and tag
 * (mpireg_rr_pair; a receive's: what it asked for, and what it matched
 * when recording) -- the same again make the same event; replaying, a
 * wildcard receive gets the record's match (source, tag; source -1: none).
 * key 0: not known (no call gives 0). */
struct mpireg_rr_expect {
    uint64_t key, comm, peer_tag;
    uint64_t word;
    uint64_t *slot;
    int32_t source, tag;
};

/* The repetition: the group, its end; recording, the REPEAT word (NULL:
 * none); replaying, the events of the REPEAT still to take.  Which event of
 * the group comes next is the recording (replaying) thread's mpireg_rr_at:
 * any other thread's, and that thread's when nothing repeats, is `none`,
 * an event no call makes (word 0, key 0), so that the hot path needs no
 * other test of the thread (mpireg_rr_mine) or of the repetition. */
struct mpireg_rr_hot {
    struct mpireg_rr_expect group[MPIREG_RR_GROUP_MAX];
    struct mpireg_rr_expect *end;
    uint64_t *repeat;
    uint64_t left;
    struct mpireg_rr_expect none;
};
extern struct mpireg_rr_hot mpireg_rr_hot MPIREG_RR_HIDDEN;
extern __thread struct mpireg_rr_expect *mpireg_rr_at MPIREG_RR_HIDDEN
    __attribute__((tls_model("initial-exec")));

static inline uint64_t mpireg_rr_key(uint64_t site, int kind, unsigned flags)
{
    return site | (uint64_t)((unsigned)kind | flags << 5) << 56;
}

static inline uint64_t mpireg_rr_pair(int peer, int tag)
{
    return (uint64_t)(uint32_t)peer | (uint64_t)(uint32_t)tag << 32;
}

/* The group's next event when a call giving (key, comm, peer_tag) makes
 * it, else NULL. */
static inline MPIREG_RR_INLINE struct mpireg_rr_expect *mpireg_rr_again(uint64_t key,
                                                                        uint64_t comm,
                                                                        uint64_t peer_tag)
{
    struct mpireg_rr_expect *e = mpireg_rr_at;
    if (__builtin_expect(e->key != key || e->comm != comm || e->peer_tag != peer_tag, 0))
        return NULL;
    return e;
}

/* Two words of the record with one store (one instruction: x86-64's
 * movups), so that a rank killed at any point has stored both or neither. */
typedef uint64_t mpireg_rr_words2 __attribute__((vector_size(16), aligned(8), may_alias));
static inline MPIREG_RR_INLINE void mpireg_rr_store2(uint64_t *at, uint64_t first, uint64_t second)
{
    *(mpireg_rr_words2 *)at = (mpireg_rr_words2){first, second};
}

/* The event e continues the repetition: its word is stored with a 0 after
 * it (words of an earlier recurrence may follow: the record ends at the
 * 0), and once the group is whole, the REPEAT counts the recurrence as its
 * words are taken back (its first one 0).  Killed at any instruction, a
 * rank leaves a record that ends right after the last event stored. */
static inline MPIREG_RR_INLINE void mpireg_rec_continue(struct mpireg_rr_expect *e)
{
    mpireg_rr_steps++;
    mpireg_rr_store2(e->slot, e->word, 0);
    if (__builtin_expect(++e != mpireg_rr_hot.end, 1)) {
        mpireg_rr_at = e;
        return;
    }
    uint64_t *repeat = mpireg_rr_hot.repeat;
    mpireg_rr_store2(repeat, *repeat + (UINT64_C(1) << MPIREG_RR_REPEAT_COUNT), 0);
    mpireg_rr_at = mpireg_rr_hot.group;
}

/* A one-word event (record.c: mpireg_rec_event_slow when it does not
 * continue the repetition). */
MPIREG_RR_HIDDEN void mpireg_rec_event_slow(uint64_t w);
static inline MPIREG_RR_INLINE void mpireg_rec_event(uint64_t w)
{
    struct mpireg_rr_expect *e = mpireg_rr_at;
    if (__builtin_expect(w == e->word, 1))
        mpireg_rec_continue(e);
    else
        mpireg_rec_event_slow(w);
}

/* A message event continuing the repetition as the call that made it
 * before: 1 when it was recorded. */
static inline MPIREG_RR_INLINE int mpireg_rec_again(uint64_t key, uint64_t comm, uint64_t peer_tag)
{
    struct mpireg_rr_expect *e = mpireg_rr_again(key, comm, peer_tag);
    if (!e)
        return 0;
    mpireg_rec_continue(e);
    return 1;
}

/* A send (a row that sends(), not persistent; sync: MPIREG_RR_SYNCHRONOUS
 * for MPI_Ssend and MPI_Issend).  Else mpireg_rec_started. */
static inline MPIREG_RR_INLINE void mpireg_rec_sent(struct mpireg_call *c, unsigned sync)
{
    if (!mpireg_rec_again(mpireg_rr_key(c->site, MPIREG_RR_SEND, sync), c->comm,
                          mpireg_rr_pair(c->peer, c->tag)))
        mpireg_rec_started(c);
}

/* A receive request was posted: its IRECV event (c->rr_at its step, -1:
 * none, a receive from MPI_PROC_NULL). */
MPIREG_RR_HIDDEN void mpireg_rec_posted_slow(struct mpireg_call *c);
static inline MPIREG_RR_INLINE void mpireg_rec_posted(struct mpireg_call *c)
{
    int source, tag;
    mpireg_rr_asked(c, &source, &tag);
    unsigned wild = mpireg_rr_wild(source, tag);
    int64_t step = (int64_t)mpireg_rr_steps + 1;
    if (source != MPI_PROC_NULL &&
        mpireg_rec_again(mpireg_rr_key(c->site, MPIREG_RR_IRECV, wild), c->comm,
                         mpireg_rr_pair(wild & MPIREG_RR_ANY_SOURCE ? -1 : source,
                                        wild & MPIREG_RR_ANY_TAG ? 0 : tag)))
        c->rr_at = step;
    else
        mpireg_rec_posted_slow(c);
}

/* What a receive or probe asking for (source, tag) matched: its status
 * tells a wildcard's; 0 when it cannot (no status). */
static inline MPIREG_RR_INLINE int mpireg_rr_got(int source, int tag, const MPI_Status *status,
                                                 int *got_source, int *got_tag)
{
    unsigned wild = mpireg_rr_wild(source, tag);
    *got_source = source;
    *got_tag = tag;
    if (wild) {
        if (status == MPI_STATUS_IGNORE || status == NULL)
            return 0;
        if (wild & MPIREG_RR_ANY_SOURCE)
            *got_source = status->MPI_SOURCE;
        if (wild & MPIREG_RR_ANY_TAG)
            *got_tag = status->MPI_TAG;
    }
    return 1;
}

/* The DONE event of receive request c, which matched (source, tag), as a
 * one-word event; 0 when it is not one (an escaped field, a source out of
 * the field's reach, no post recorded). */
static inline MPIREG_RR_INLINE uint64_t mpireg_rr_done_word(const struct mpireg_call *c, int source,
                                                            int tag)
{
    uint64_t delta = mpireg_rr_steps + 1 - (uint64_t)c->rr_at;
    if (c->rr_at < 0 || delta >= MPIREG_RR_DELTA_ESCAPE || (uint32_t)source >= MPIREG_RR_PEER_MAX ||
        (uint32_t)tag >= MPIREG_RR_TAG_ESCAPE)
        return 0;
    return MPIREG_RR_DONE | delta << 5 | (uint64_t)(source + 1) << 24 | (uint64_t)tag << 44;
}

/* What a receive or probe asking for (source, tag) matched: a receive
 * request's DONE event, or c->rr_kind's. */
MPIREG_RR_HIDDEN void mpireg_rec_matched_slow(const struct mpireg_call *c, int source, int tag,
                                              const MPI_Status *status);
static inline MPIREG_RR_INLINE void mpireg_rec_matched(const struct mpireg_call *c, int source,
                                                       int tag, const MPI_Status *status)
{
    int got_source, got_tag, kind = c->rr_kind;
    if (mpireg_rr_got(source, tag, status, &got_source, &got_tag)) {
        if (kind == MPIREG_RR_IRECV || kind == MPIREG_RR_START) {
            struct mpireg_rr_expect *e = mpireg_rr_at;
            uint64_t w = mpireg_rr_done_word(c, got_source, got_tag);
            if (w && w == e->word) {
                mpireg_rec_continue(e);
                return;
            }
        } else if (mpireg_rec_again(mpireg_rr_key(c->site, kind, mpireg_rr_wild(source, tag)),
                                    c->comm, mpireg_rr_pair(got_source, got_tag))) {
            return;
        }
    }
    mpireg_rec_matched_slow(c, source, tag, status);
}

/* Replaying (replay.c when these do not take the event): the event e,
 * which the call makes, is taken. */
static inline MPIREG_RR_INLINE void mpireg_replay_continue(struct mpireg_rr_expect *e)
{
    mpireg_rr_steps++;
    if (__builtin_expect(--mpireg_rr_hot.left == 0, 0))
        mpireg_rr_at = &mpireg_rr_hot.none;
    else
        mpireg_rr_at = ++e != mpireg_rr_hot.end ? e : mpireg_rr_hot.group;
}

/* A send, at its call's entry (a row that sends(), not persistent; sync as
 * mpireg_rec_sent's). */
static inline MPIREG_RR_INLINE void mpireg_replay_sent(struct mpireg_call *c, unsigned sync)
{
    struct mpireg_rr_expect *e = mpireg_rr_again(mpireg_rr_key(c->site, MPIREG_RR_SEND, sync),
                                                 c->comm, mpireg_rr_pair(c->peer, c->tag));
    if (e)
        mpireg_replay_continue(e);
    else
        mpireg_replay_enter(c, NULL, NULL);
}

/* A blocking receive or probe, or a receive post, at its call's entry (a
 * row that matches() and does not poll; c->rr_kind its event): a wildcard
 * gets the recorded source and tag; then the send of a row that sends too
 * (MPI_Sendrecv, MPI_Isendrecv). */
static inline MPIREG_RR_INLINE void mpireg_replay_received(struct mpireg_call *c,
                                                           volatile int *source, volatile int *tag)
{
    int asked_source = *source, asked_tag = *tag;
    struct mpireg_rr_expect *e = mpireg_rr_again(
        mpireg_rr_key(c->site, c->rr_kind, mpireg_rr_wild(asked_source, asked_tag)), c->comm,
        mpireg_rr_pair(asked_source, asked_tag));
    if (!e) {
        mpireg_replay_enter(c, source, tag);
        return;
    }
    if (c->rr_kind == MPIREG_RR_IRECV)
        c->rr_at = (int64_t)mpireg_rr_steps + 1;
    if (e->source >= 0) {
        *source = e->source;
        *tag = e->tag;
        if (c->flags & MPIREG_CALL_HAS_PEER2) {
            c->peer2 = e->source;
            c->tag2 = e->tag;
        } else {
            c->peer = e->source;
            c->tag = e->tag;
        }
    }
    mpireg_replay_continue(e);
    if (c->flags & MPIREG_CALL_SENDS)
        mpireg_replay_sent(c, 0);
}

/* A receive request completed, replaying: its DONE event. */
static inline MPIREG_RR_INLINE void mpireg_replay_done(const struct mpireg_call *c, int source,
                                                       int tag, const MPI_Status *status)
{
    int got_source, got_tag;
    struct mpireg_rr_expect *e = mpireg_rr_at;
    uint64_t w;
    if (mpireg_rr_got(source, tag, status, &got_source, &got_tag) &&
        (w = mpireg_rr_done_word(c, got_source, got_tag)) != 0 && w == e->word)
        mpireg_replay_continue(e);
    else
        mpireg_replay_matched(c, source, tag, status);
}

/* mpireg_matched (channels.h) reports every completed receive and probe
 * here while the rank records or replays: recording, what it matched;
 * replaying, a receive request's DONE is checked (the other calls' events
 * were, at their entry). */
static inline MPIREG_RR_INLINE void mpireg_rr_matched(const struct mpireg_call *c, int source,
                                                      int tag, const MPI_Status *status)
{
    if (mpireg_rr_mode == MPIREG_RR_RECORDING)
        mpireg_rec_matched(c, source, tag, status);
    else if (c->rr_kind == MPIREG_RR_IRECV || c->rr_kind == MPIREG_RR_START)
        mpireg_replay_done(c, source, tag, status);
}

#endif
