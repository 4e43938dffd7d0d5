/*
 * replay.c: replaying a rank's record (format: record.h).
 *
 * The rank's file is mapped whole and read once at MPI_Init: where it ends
 * (the first event word 0, or a truncated event), and what each receive
 * request it posted matched (the DONE events, sorted by their posts).  Then
 * every recorded call consumes its events as it is made: a wildcard receive
 * is posted with the recorded source and tag, MPI's non-overtaking rule
 * doing the rest; polling and completion calls return what the record says,
 * waiting for the requests it names.  A call that does not fit stops the
 * rank with one line in mpipp_replay_diverged(), where a debugger finds it.
 */
#include "mpireg_internal.h"
#include "calls.h"
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static const uint64_t *words; /* the record's events */
static uint64_t n_words;      /* up to its end */
static uint64_t at;           /* the next word to read */
static uint64_t misses_left;  /* of the MISS event at `at` (0: none taken yet) */
/* A REPEAT being replayed: its group is the words at group_at before it,
 * mpireg_rr_hot's (record.h: the current event mpireg_rr_at, `left` events
 * to go). */
static uint64_t group_at;
static struct mpireg_rr_hot *const hot = &mpireg_rr_hot;
static size_t mapped;
static const void *map;
static uint32_t state;        /* the header's */
static char where[4200];      /* DIR/rank.N */
static uint32_t slot_ordinal[MPIREG_RR_COMM_SLOTS + 1];

/* What each wildcard receive posted matched: (the step of its IRECV/START,
 * the word of the DONE that says it, source, tag; source -1: it never
 * matched; limit: how many ranks its communicator's peers may be, 0: not
 * known).  Those outside REPEATs, sorted by step (scan, post_match). */
struct post {
    uint64_t step, done_at;
    int32_t source, tag;
    uint32_t limit;
};
static struct post *posts;
static size_t n_posts, next_post;

/* Shadows: requests of replay's own standing in for persistent wildcard receives. */
struct shadow {
    MPI_Request request, shadow;
    int index; /* in the array of the completion call they are swapped into, or -1 */
};
static struct shadow *shadows;
static int shadows_capacity;
int mpireg_replay_shadows;

/* ---------------------------------------------------------------------------
 * Stopping.
 * ------------------------------------------------------------------------- */
EXPORT volatile int mpipp_replay_resume;

/* MPI_Abort after the line a rank printed: the launcher ends every rank's
 * output with the job, and hydra on a loaded machine dropped the line when
 * the abort came at once. */
static void abort_after_saying(void)
{
    struct timespec forwarded = {1, 0};
    nanosleep(&forwarded, NULL);
    PMPI_Abort(MPI_COMM_WORLD, 3);
}

/* A rank whose program left the record waits here for a debugger: `set var
 * mpipp_replay_resume = 1` lets it go on, unreplayed.  With
 * MPIPP_REPLAY_DIVERGED=abort the job is aborted instead. */
EXPORT __attribute__((noinline)) void mpipp_replay_diverged(const char *line)
{
    const char *how = getenv("MPIPP_REPLAY_DIVERGED");
    if (how && strcmp(how, "abort") == 0)
        abort_after_saying();
    struct timespec nap = {0, 100 * 1000 * 1000};
    while (!mpipp_replay_resume)
        nanosleep(&nap, NULL);
    __asm__ volatile("" : : "r"(line) : "memory");
}

/* The rank went past the end of a record that was cut (killed, crashed,
 * or hung): from here it runs unreplayed.  A place for a breakpoint. */
EXPORT __attribute__((noinline)) void mpipp_replay_ended(void)
{
    __asm__ volatile("" : : : "memory");
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static void diverged(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void diverged(const char *fmt, ...)
{
    char what[800], line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    mpireg_rr_mode = 0;
    snprintf(line, sizeof line, "mpipp replay: rank %d diverged at step %llu: %s; stopped in "
             "mpipp_replay_diverged()", mpireg_rr_rank, (unsigned long long)mpireg_rr_steps + 1,
             what);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    mpipp_replay_diverged(line);
}

/* ---------------------------------------------------------------------------
 * Reading events.
 * ------------------------------------------------------------------------- */
static inline int kind_of(uint64_t w) { return (int)(w & 31); }
static inline uint32_t field(uint64_t w, int shift, int bits)
{
    return (uint32_t)((w >> shift) & ((UINT64_C(1) << bits) - 1));
}

static int is_message(int kind)
{
    return kind >= MPIREG_RR_SEND && kind <= MPIREG_RR_IMPROBE;
}

/* Words of the event at position p (0: damaged or cut short). */
static uint64_t event_words(uint64_t p)
{
    uint64_t w = words[p], n = 1;
    int kind = kind_of(w);
    if (is_message(kind))
        n += field(w, 5, 5) == MPIREG_RR_COMM_ESCAPE || field(w, 32, 20) == MPIREG_RR_TAG_ESCAPE;
    else if (kind == MPIREG_RR_DONE)
        n += field(w, 5, 19) == MPIREG_RR_DELTA_ESCAPE || field(w, 44, 20) == MPIREG_RR_TAG_ESCAPE;
    else if (kind == MPIREG_RR_COLL)
        n += field(w, 5, 5) == MPIREG_RR_COMM_ESCAPE;
    else if (kind == MPIREG_RR_TESTSOME || kind == MPIREG_RR_WAITSOME)
        n += field(w, 32, 32) == MPIREG_RR_UNDEFINED ? 0 : ((uint64_t)field(w, 32, 32) + 1) / 2;
    else if (kind == MPIREG_RR_COMM) {
        if (p + 1 >= n_words)
            return 0;
        uint64_t sizes = (uint64_t)field(words[p + 1], 0, 32) + field(words[p + 1], 32, 32);
        n = 2 + (sizes <= MPIREG_RR_MEMBERS_MAX ? (sizes + 1) / 2 : 0);
    } else if (kind != MPIREG_RR_MISS && kind != MPIREG_RR_SITE && kind != MPIREG_RR_REPEAT &&
               kind < MPIREG_RR_TEST)
        return 0;
    else if (kind >= MPIREG_RR_KINDS)
        return 0;
    return p + n <= n_words ? n : 0;
}

/* Whether a REPEAT at p may repeat the n words before it: `chain` one-word
 * events that a REPEAT may repeat end there (scan). */
static int repeatable(uint64_t p, unsigned n, unsigned chain)
{
    return n >= 1 && n <= MPIREG_RR_GROUP_MAX && n <= chain && n <= p;
}

/* Whether the one-word event w may be in a REPEAT's group. */
static int groupable(uint64_t w)
{
    int kind = kind_of(w);
    return kind != MPIREG_RR_MISS && kind != MPIREG_RR_COMM && kind != MPIREG_RR_SITE &&
           kind != MPIREG_RR_REPEAT && kind != MPIREG_RR_TESTSOME && kind != MPIREG_RR_WAITSOME;
}

/* Makes room for one more of count elements of size in *array. */
/* Set when scan() could not keep what it read: replay refuses the record
 * rather than replay it with matches left out or call it damaged. */
static int out_of_memory;

static int grow(void **array, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 1;
    size_t more = *capacity ? 2 * *capacity : 256;
    void *grown = realloc(*array, more * size);
    if (!grown) {
        out_of_memory = 1;
        return 0;
    }
    *array = grown;
    *capacity = more;
    return 1;
}

/* What scan() keeps of the record besides the posts: the REPEATs (their
 * first step, steps, REPEAT word and group size) and the DONEs of posts a
 * REPEAT made (late: a DONE past its run), so that a wildcard post inside
 * a REPEAT finds its match without the REPEAT being expanded. */
struct run {
    uint64_t step, steps, at;
    unsigned n;
};
static struct run *runs;
static size_t n_runs, runs_capacity;
struct late {
    uint64_t post, done_at;
    int32_t source, tag;
};
static struct late *lates;
static size_t n_lates, lates_capacity, posts_capacity;

/* A communicator's ordinal and how many ranks its peers may be (COMM events). */
struct comm_limit {
    uint32_t ordinal, limit;
};
static struct comm_limit *limits;
static size_t n_limits, limits_capacity;
static uint32_t world_size;

static uint32_t peer_limit(uint32_t ordinal)
{
    if (ordinal == 0)
        return world_size;
    size_t lo = 0, hi = n_limits;
    while (lo < hi) { /* ordinals grow (scan checks it) */
        size_t mid = (lo + hi) / 2;
        if (limits[mid].ordinal < ordinal)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n_limits && limits[lo].ordinal == ordinal ? limits[lo].limit : 0;
}

/* Where the record stops making sense (word + 1; 0: it does not) and the
 * steps its events make; a closed record's header says how many. */
static uint64_t damaged_at, record_steps;

/* The DONE at word p completing the receive posted at step `post`: a
 * wildcard post's match. */
static size_t post_index(uint64_t post)
{
    size_t lo = 0, hi = n_posts;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (posts[mid].step < post)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether a DONE completing the post at step `post` may have matched
 * `source`: below its communicator's peer limit (an intercommunicator's
 * remote group can outnumber MPI_COMM_WORLD), when the record knows it. */
static int source_fits(uint64_t post, int32_t source)
{
    size_t i = post_index(post);
    if (i < n_posts && posts[i].step == post && posts[i].limit)
        return source < (int64_t)posts[i].limit;
    return 1;
}

static void done_found(uint64_t p, uint64_t post, int32_t source, int32_t tag)
{
    size_t lo = post_index(post);
    if (lo < n_posts && posts[lo].step == post)
        posts[lo] = (struct post){post, p, source, tag, posts[lo].limit};
    else if (n_runs && post >= runs[0].step &&
             grow((void **)&lates, &lates_capacity, n_lates, sizeof *lates))
        lates[n_lates++] = (struct late){post, p, source, tag};
}

/* A DONE's fields: (delta, source matched, tag). */
static void done_fields(uint64_t p, uint64_t *delta, int32_t *source, int32_t *tag)
{
    uint64_t w = words[p];
    *delta = field(w, 5, 19);
    *source = (int32_t)field(w, 24, 20) - 1;
    *tag = (int32_t)field(w, 44, 20);
    if (event_words(p) == 2) {
        *tag = (int32_t)field(words[p + 1], 0, 32);
        *delta = field(words[p + 1], 32, 32);
    }
}

/* The explicit wildcard posts before a REPEAT that the DONEs of its first
 * TURNS_BACK turns complete (the record reader's bound: a loop's requests
 * complete a few turns after their posts, a damaged record's could cost
 * any number). */
#define TURNS_BACK 64
static void run_completes(const struct run *r)
{
    for (unsigned j = 0; j < r->n; j++) {
        uint64_t p = r->at - r->n + j, delta;
        int32_t source, tag;
        if (kind_of(words[p]) != MPIREG_RR_DONE)
            continue;
        done_fields(p, &delta, &source, &tag);
        for (uint64_t turn = 0; turn < r->steps / r->n && turn < TURNS_BACK; turn++) {
            uint64_t post = r->step + turn * r->n + j - delta;
            if (post >= r->step)
                break;
            done_found(p, post, source, tag);
        }
    }
}

/* Checks the event at p (step `step` when it is one) as the record reader
 * does (gdb-python/mpipp/record/reader.py): 0 when no record holds it. */
static int sound(uint64_t p, uint64_t step, const uint64_t *sites, uint32_t slots)
{
    uint64_t w = words[p];
    int kind = kind_of(w);
    uint32_t slot = field(w, 5, 5);
    if (is_message(kind) || kind == MPIREG_RR_COLL) {
        uint32_t ordinal = slot == MPIREG_RR_COMM_ESCAPE ? field(words[p + 1], 32, 32)
                                                         : slot_ordinal[slot];
        uint32_t site = field(w, 52, 12), limit = peer_limit(ordinal);
        if (slot != MPIREG_RR_COMM_ESCAPE && !(slots >> slot & 1))
            return 0;
        if (kind == MPIREG_RR_COLL)
            return field(w, 10, 3) >= MPIREG_RR_SHAPE_ALL &&
                   field(w, 10, 3) <= MPIREG_RR_SHAPE_PREFIX &&
                   (!site || sites[site / 64] >> site % 64 & 1);
        uint32_t peer = field(w, 12, 20), flags = field(w, 10, 2);
        if (kind == MPIREG_RR_SEND && (!peer || flags & ~(uint32_t)MPIREG_RR_SYNCHRONOUS))
            return 0;
        return (!peer || !limit || peer <= limit) && (!site || sites[site / 64] >> site % 64 & 1);
    }
    if (kind == MPIREG_RR_DONE) {
        uint64_t delta;
        int32_t source, tag;
        done_fields(p, &delta, &source, &tag);
        return delta > 0 && delta < step && source_fits(step - delta, source);
    }
    if (kind == MPIREG_RR_MISS) {
        int call = (int)field(w, 5, 5);
        return (call == MPIREG_RR_IPROBE || call == MPIREG_RR_IMPROBE || call == MPIREG_RR_TEST ||
                call == MPIREG_RR_TESTALL || call == MPIREG_RR_TESTANY ||
                call == MPIREG_RR_TESTSOME) && w >> 15;
    }
    if (kind == MPIREG_RR_COMM) {
        /* ordinals count the communicators the rank created; a member is a
         * rank of MPI_COMM_WORLD, or not known (UNDEFINED: a spawned process) */
        uint64_t members = (uint64_t)field(words[p + 1], 0, 32) + field(words[p + 1], 32, 32);
        if (field(w, 32, 32) <= (n_limits ? limits[n_limits - 1].ordinal : 0) ||
            field(words[p + 1], 0, 32) == 0)
            return 0;
        for (uint64_t k = 0; members <= MPIREG_RR_MEMBERS_MAX && k < members; k++) {
            uint32_t member = field(words[p + 2 + k / 2], 32 * (k % 2), 32);
            if (member != MPIREG_RR_UNDEFINED && member >= world_size)
                return 0;
        }
        return 1;
    }
    if (kind == MPIREG_RR_SITE)
        return field(w, 5, 12) != 0;
    return 1; /* a choice */
}

static int by_post(const void *a, const void *b)
{
    uint64_t x = ((const struct late *)a)->post, y = ((const struct late *)b)->post;
    return (x > y) - (x < y);
}

/* Where the record ends (a word 0, an event cut short, or one no record
 * holds: damaged_at); the steps it makes; what every wildcard receive
 * posted matched.  Each word once, a REPEAT never expanded. */
static void scan(void)
{
    uint64_t p = 0, n, step = 0, sites[MPIREG_RR_SITES / 64] = {0};
    uint32_t slots = 1; /* slot 0: MPI_COMM_WORLD */
    unsigned chain = 0; /* one-word events a REPEAT may repeat, just before p */
    while (p < n_words && words[p]) {
        uint64_t w = words[p];
        int kind = kind_of(w);
        if (kind == 0 || kind >= MPIREG_RR_KINDS || kind == MPIREG_RR_REPEAT) {
            if (kind != MPIREG_RR_REPEAT || !repeatable(p, field(w, 5, 4), chain) ||
                !(w >> MPIREG_RR_REPEAT_COUNT)) {
                damaged_at = p + 1;
                break;
            }
            struct run r = {step + 1, (uint64_t)field(w, 5, 4) * (w >> MPIREG_RR_REPEAT_COUNT), p,
                            field(w, 5, 4)};
            if (r.steps / r.n != w >> MPIREG_RR_REPEAT_COUNT || step + r.steps < step ||
                !grow((void **)&runs, &runs_capacity, n_runs, sizeof *runs)) {
                damaged_at = p + 1;
                break;
            }
            runs[n_runs++] = r;
            run_completes(&runs[n_runs - 1]);
            step += r.steps;
            chain = 0;
            p++;
            continue;
        }
        if ((n = event_words(p)) == 0)
            break; /* cut short */
        uint64_t this_step = kind == MPIREG_RR_COMM || kind == MPIREG_RR_SITE ? step : step + 1;
        if (!sound(p, this_step, sites, slots)) {
            damaged_at = p + 1;
            break;
        }
        chain = n == 1 && groupable(w) ? chain + 1 : 0;
        if (kind == MPIREG_RR_COMM) {
            uint32_t local = field(words[p + 1], 0, 32), remote = field(words[p + 1], 32, 32);
            if (field(w, 5, 5) != MPIREG_RR_COMM_ESCAPE) {
                slots |= UINT32_C(1) << field(w, 5, 5);
                slot_ordinal[field(w, 5, 5)] = field(w, 32, 32);
            }
            if (grow((void **)&limits, &limits_capacity, n_limits, sizeof *limits))
                limits[n_limits++] = (struct comm_limit){field(w, 32, 32), remote ? remote : local};
        } else if (kind == MPIREG_RR_SITE) {
            sites[field(w, 5, 12) / 64] |= UINT64_C(1) << field(w, 5, 12) % 64;
        } else if (kind == MPIREG_RR_MISS) {
            if (step + (w >> 15) < step) {
                damaged_at = p + 1;
                break;
            }
            step += w >> 15;
        } else {
            step++;
            if ((kind == MPIREG_RR_IRECV || kind == MPIREG_RR_START) && field(w, 10, 2)) {
                if (!grow((void **)&posts, &posts_capacity, n_posts, sizeof *posts))
                    break;
                uint32_t slot = field(w, 5, 5);
                posts[n_posts++] = (struct post){
                    step, 0, -1, 0,
                    peer_limit(slot == MPIREG_RR_COMM_ESCAPE ? field(words[p + 1], 32, 32)
                                                             : slot_ordinal[slot])};
            } else if (kind == MPIREG_RR_DONE) {
                uint64_t delta;
                int32_t source, tag;
                done_fields(p, &delta, &source, &tag);
                done_found(p, step - delta, source, tag);
            }
        }
        p += n;
    }
    /* the slots as replay meets them again (next_kind) */
    memset(slot_ordinal, 0, sizeof slot_ordinal);
    qsort(lates, n_lates, sizeof *lates, by_post);
    n_words = p;
    record_steps = step;
}

/* The match the record has for the wildcard receive posted at `step`
 * (source -1: none; done_at: the word of the DONE that says it). */
static struct post post_match(uint64_t step)
{
    while (next_post < n_posts && posts[next_post].step < step)
        next_post++;
    if (next_post < n_posts && posts[next_post].step == step)
        return posts[next_post];
    struct post none = {step, 0, -1, 0, 0};
    size_t lo = 0, hi = n_runs;
    while (lo < hi) { /* the run holding the step */
        size_t mid = (lo + hi) / 2;
        if (runs[mid].step + runs[mid].steps <= step)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n_runs || runs[lo].step > step)
        return none;
    const struct run *r = &runs[lo];
    uint64_t offset = (step - r->step) % r->n, turn = (step - r->step) / r->n;
    for (unsigned j = 0; j < r->n; j++) { /* a DONE of the group completing it */
        uint64_t p = r->at - r->n + j, delta;
        int32_t source, tag;
        if (kind_of(words[p]) != MPIREG_RR_DONE)
            continue;
        done_fields(p, &delta, &source, &tag);
        /* its DONE of turn t completes the post of turn t - (offset + delta - j) / n */
        uint64_t ahead = offset + delta;
        if (ahead < j || (ahead - j) % r->n != 0)
            continue;
        if (turn + (ahead - j) / r->n < r->steps / r->n)
            return (struct post){step, p, source, tag, 0};
    }
    lo = 0, hi = n_lates;
    while (lo < hi) { /* a DONE after the run */
        size_t mid = (lo + hi) / 2;
        if (lates[mid].post < step)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n_lates && lates[lo].post == step)
        return (struct post){step, lates[lo].done_at, lates[lo].source, lates[lo].tag, 0};
    return none;
}

/* The position of the current event's word. */
static inline uint64_t current(void)
{
    return hot->left ? group_at + (uint64_t)(mpireg_rr_at - hot->group) : at;
}

/* The kind of the next event (skipping definitions, entering repetitions),
 * 0 at the end. */
static int next_kind(void)
{
    while (!hot->left && at < n_words) {
        uint64_t w = words[at];
        int kind = kind_of(w);
        if (kind == MPIREG_RR_COMM) {
            slot_ordinal[field(w, 5, 5)] = field(w, 32, 32);
        } else if (kind == MPIREG_RR_REPEAT) {
            unsigned size = field(w, 5, 4);
            group_at = at - size;
            for (unsigned k = 0; k < size; k++)
                hot->group[k] = (struct mpireg_rr_expect){.word = words[group_at + k]};
            hot->end = hot->group + size;
            hot->left = (uint64_t)size * (w >> MPIREG_RR_REPEAT_COUNT);
            mpireg_rr_at = hot->left ? hot->group : &hot->none;
        } else if (kind != MPIREG_RR_SITE) {
            return kind;
        }
        at += event_words(at);
    }
    return hot->left ? kind_of(mpireg_rr_at->word) : 0;
}

static void consume(void)
{
    misses_left = 0;
    if (hot->left) {
        mpireg_replay_continue(mpireg_rr_at);
        return;
    }
    mpireg_rr_steps++;
    at += event_words(at);
}

/* A short way for the one-word events a loop makes over and over, past
 * next_kind(), take() and message_at() (and inside a REPEAT, past these
 * too, once a call took its event: record.h): peek() gives the current
 * event's word when next_kind() need not look for it (inside a REPEAT, or
 * at `at`), else NULL; a caller that finds it to be the event its call
 * makes takes it (consume_one, take_known). */
static inline const uint64_t *peek(void)
{
    if (hot->left)
        return &mpireg_rr_at->word;
    return at < n_words ? &words[at] : NULL;
}

static inline void consume_one(void)
{
    if (hot->left) {
        mpireg_replay_continue(mpireg_rr_at);
        return;
    }
    mpireg_rr_steps++;
    at++;
}

/* The current event, a message event call c makes giving (kind, flags,
 * peer, tag: record.h, mpireg_rr_key), is taken: inside a REPEAT, the same
 * call takes it inline next time (record.h), a wildcard receive getting
 * (source, tag) (source -1: nothing). */
static void take_known(const struct mpireg_call *c, int kind, unsigned flags, int peer, int tag,
                       int source, int got_tag)
{
    struct mpireg_rr_expect *e = mpireg_rr_at;
    if (hot->left && c->site >> 56 == 0) {
        e->key = mpireg_rr_key(c->site, kind, flags);
        e->comm = c->comm;
        e->peer_tag = mpireg_rr_pair(peer, tag);
        e->source = source;
        e->tag = got_tag;
    }
    consume();
}

/* What the message event a call on MPI_COMM_WORLD makes -- kind, flags
 * (record.h), to or from (peer, tag) -- is in the bits of *mask; 0 when
 * a field is out of a word's reach.  A receive's wildcards (its flags)
 * leave their fields out. */
static inline uint64_t message_word(int kind, unsigned flags, int peer, int tag, uint64_t *mask)
{
    unsigned wild = kind == MPIREG_RR_SEND ? 0 : flags;
    uint64_t w = (uint64_t)kind | (uint64_t)flags << 10;
    *mask = 0xFFF; /* kind, slot 0 (MPI_COMM_WORLD), flags */
    if (!(wild & MPIREG_RR_ANY_SOURCE)) {
        if (peer < 0 || peer >= (int)MPIREG_RR_PEER_MAX)
            return 0;
        w |= (uint64_t)(peer + 1) << 12;
        *mask |= UINT64_C(0xFFFFF) << 12;
    }
    if (!(wild & MPIREG_RR_ANY_TAG)) {
        if ((uint32_t)tag >= MPIREG_RR_TAG_ESCAPE)
            return 0;
        w |= (uint64_t)tag << 32;
        *mask |= UINT64_C(0xFFFFF) << 32;
    }
    return w;
}

/* Whether the current event is the one-word message event call c makes
 * (message_word; its tag not escaped). */
static inline int fits(const struct mpireg_call *c, int kind, unsigned flags, int peer, int tag)
{
    uint64_t mask, want = message_word(kind, flags, peer, tag, &mask);
    const uint64_t *w = peek();
    return want && c->comm == mpireg_rr_world_key && w && !((*w ^ want) & mask) &&
           field(*w, 32, 20) != MPIREG_RR_TAG_ESCAPE;
}

/* A message event's fields. */
struct message {
    int kind;
    uint32_t ordinal, flags;
    int peer; /* -1: not known */
    int tag;
};

static struct message message_at(uint64_t p)
{
    uint64_t w = words[p];
    struct message m = {kind_of(w), slot_ordinal[field(w, 5, 5)], field(w, 10, 2),
                        (int)field(w, 12, 20) - 1, (int)field(w, 32, 20)};
    if (field(w, 5, 5) == MPIREG_RR_COMM_ESCAPE)
        m.ordinal = field(words[p + 1], 32, 32);
    if ((uint32_t)m.tag == MPIREG_RR_TAG_ESCAPE)
        m.tag = (int)field(words[p + 1], 0, 32);
    return m;
}

const char *mpireg_rr_kind_name(int kind)
{
    static const char *const names[MPIREG_RR_KINDS] = {
        [MPIREG_RR_SEND] = "a send", [MPIREG_RR_RECV] = "MPI_Recv",
        [MPIREG_RR_SENDRECV] = "MPI_Sendrecv", [MPIREG_RR_IRECV] = "a receive request",
        [MPIREG_RR_START] = "MPI_Start of a persistent receive", [MPIREG_RR_PROBE] = "MPI_Probe",
        [MPIREG_RR_MPROBE] = "MPI_Mprobe", [MPIREG_RR_IPROBE] = "MPI_Iprobe",
        [MPIREG_RR_IMPROBE] = "MPI_Improbe", [MPIREG_RR_DONE] = "a receive's completion",
        [MPIREG_RR_MISS] = "unsuccessful polling", [MPIREG_RR_TEST] = "MPI_Test",
        [MPIREG_RR_TESTALL] = "MPI_Testall", [MPIREG_RR_TESTANY] = "MPI_Testany",
        [MPIREG_RR_TESTSOME] = "MPI_Testsome", [MPIREG_RR_WAITANY] = "MPI_Waitany",
        [MPIREG_RR_WAITSOME] = "MPI_Waitsome", [MPIREG_RR_COLL] = "a collective",
    };
    return kind > 0 && kind < MPIREG_RR_KINDS && names[kind] ? names[kind] : "an event";
}

static const char *rank_text(int peer, char *buf, size_t size)
{
    if (peer == MPI_ANY_SOURCE)
        return "MPI_ANY_SOURCE";
    snprintf(buf, size, "%d", peer);
    return buf;
}

static const char *tag_text(int tag, char *buf, size_t size)
{
    if (tag == MPI_ANY_TAG)
        return "MPI_ANY_TAG";
    snprintf(buf, size, "%d", tag);
    return buf;
}

/* "MPI_Irecv (source 3, tag 7, communicator #1)" of the current event. */
static const char *recorded(char *buf, size_t size)
{
    uint64_t p = current();
    int kind = kind_of(words[p]);
    char name[64];
    if (is_message(kind)) {
        struct message m = message_at(p);
        const char *who = kind == MPIREG_RR_SEND ? "dest" : "source";
        char peer[32], tag[32];
        snprintf(peer, sizeof peer, "%d", m.peer);
        snprintf(tag, sizeof tag, "%d", m.tag);
        snprintf(buf, size, "%s (%s %s, tag %s, %s)", mpireg_rr_kind_name(kind), who,
                 m.flags & MPIREG_RR_ANY_SOURCE && kind != MPIREG_RR_SEND && m.peer < 0
                     ? "MPI_ANY_SOURCE" : peer,
                 m.flags & MPIREG_RR_ANY_TAG && kind != MPIREG_RR_SEND && kind >= MPIREG_RR_IRECV &&
                         kind <= MPIREG_RR_START ? "MPI_ANY_TAG" : tag,
                 mpireg_rr_comm_name(m.ordinal, name, sizeof name));
    } else if (kind == MPIREG_RR_MISS) {
        uint64_t all = words[p] >> 15, left = misses_left ? misses_left : all;
        snprintf(buf, size, "%llu %sunsuccessful %s call%s", (unsigned long long)left,
                 left < all ? "more " : "", mpireg_rr_kind_name((int)field(words[p], 5, 5)),
                 left == 1 ? "" : "s");
    } else if (kind == MPIREG_RR_COLL) {
        uint32_t ordinal = field(words[p], 5, 5) == MPIREG_RR_COMM_ESCAPE
                               ? field(words[p + 1], 32, 32)
                               : slot_ordinal[field(words[p], 5, 5)];
        snprintf(buf, size, "a collective on %s", mpireg_rr_comm_name(ordinal, name, sizeof name));
    } else {
        snprintf(buf, size, "%s", mpireg_rr_kind_name(kind));
    }
    return buf;
}

/* "MPI_Recv(source=MPI_ANY_SOURCE, tag=5, MPI_COMM_WORLD)": the call as the program made it. */
static const char *called(const struct mpireg_call *c, int source, int tag, char *buf, size_t size)
{
    char name[64], peer[32], t[32];
    if (c->flags & MPIREG_CALL_HAS_REQS)
        snprintf(buf, size, "%s(%lld requests)", c->func, (long long)c->nreqs);
    else if (c->flags & MPIREG_CALL_HAS_PEER)
        snprintf(buf, size, "%s(%s=%s, tag=%s, %s)", c->func,
                 (c->flags & (MPIREG_CALL_RECEIVES | MPIREG_CALL_PROBES)) &&
                         !(c->flags & MPIREG_CALL_SENDS) ? "source" : c->peer_name,
                 rank_text(source, peer, sizeof peer), tag_text(tag, t, sizeof t),
                 mpireg_rr_comm_name(mpireg_rr_comm_of(c->comm).ordinal, name, sizeof name));
    else if (c->flags & MPIREG_CALL_HAS_COMM)
        snprintf(buf, size, "%s(%s)", c->func,
                 mpireg_rr_comm_name(mpireg_rr_comm_of(c->comm).ordinal, name, sizeof name));
    else
        snprintf(buf, size, "%s", c->func);
    return buf;
}

/* The call c (asking for source and tag) as a user reads it; `done`: the
 * completion of the receive request it posted. */
struct asked {
    const struct mpireg_call *c;
    int source, tag, done;
};

static const char *asked_text(struct asked a, char *buf, size_t size)
{
    char call[256];
    called(a.c, a.source, a.tag, call, sizeof call);
    snprintf(buf, size, "%s%s", a.done ? "the completion of " : "", call);
    return buf;
}

/* The record has no event for the call: past the end of a cut record the
 * rank goes on unreplayed; a closed one diverges. */
static void no_more(struct asked a)
{
    char what[300];
    asked_text(a, what, sizeof what);
    if (damaged_at) { /* the words of mpipp record (gdb-python/mpipp/record/reader.py) */
        diverged("%s but the record is damaged at word %llu: it ends there", what,
                 (unsigned long long)damaged_at - 1);
        return;
    }
    if (state == MPIREG_RR_CLOSED) {
        diverged("%s but the record has no more events (the recorded run called MPI_Finalize "
                 "here)", what);
        return;
    }
    mpireg_rr_mode = 0;
    say("mpipp replay: rank %d: %s at step %llu is past the end of the record (%s: the recorded "
        "run %s); the rank goes on unreplayed", mpireg_rr_rank, what,
        (unsigned long long)mpireg_rr_steps + 1, where,
        state == MPIREG_RR_THREADS     ? "ended where a second thread called MPI"
        : state == MPIREG_RR_UNCOVERED ? "ended at a Fortran call libmpireg does not see"
                                       : "was cut here: killed, crashed or hung");
    mpipp_replay_ended();
}

/* The current event is not what the call makes. */
static void mismatch(struct asked a)
{
    char what[300], buf[256];
    diverged("%s but the record has %s", asked_text(a, what, sizeof what),
             recorded(buf, sizeof buf));
}

/* The next event must be of `kind`; 0 when it is not (the rank diverged or
 * the record ended). */
static int take(int kind, struct asked a)
{
    int next = next_kind();
    if (next == kind)
        return 1;
    if (!next)
        no_more(a);
    else
        mismatch(a);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Calls.
 * ------------------------------------------------------------------------- */
static void progress(void)
{
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

/* Whether the current (message) event is the one call c makes (the receive
 * side asks for source and tag, wildcards allowed). */
static int same_message(const struct mpireg_call *c, int source, int tag, unsigned flags)
{
    struct message m = message_at(current());
    unsigned wild = m.kind == MPIREG_RR_SEND ? 0 : mpireg_rr_wild(source, tag);
    return m.ordinal == mpireg_rr_comm_of(c->comm).ordinal && m.flags == (flags | wild) &&
           (wild & MPIREG_RR_ANY_SOURCE || m.peer < 0 || m.peer == source) &&
           (wild & MPIREG_RR_ANY_TAG || m.tag == tag);
}

/* The receive side of call c gets (source, tag) (the program's variables
 * and the call record). */
static void receive_from(struct mpireg_call *c, volatile int *source, volatile int *tag, int s,
                         int t)
{
    *source = s;
    *tag = t;
    if (c->flags & MPIREG_CALL_HAS_PEER2) {
        c->peer2 = s;
        c->tag2 = t;
    } else {
        c->peer = s;
        c->tag = t;
    }
}

/* The next event must be the message event `kind` the call makes (with
 * `flags`, SYNCHRONOUS for sends); 0 when it is not. */
static int take_message(int kind, struct asked a, unsigned flags)
{
    if (!take(kind, a))
        return 0;
    if (same_message(a.c, a.source, a.tag, flags))
        return 1;
    mismatch(a);
    return 0;
}

/* Whether `source` is a rank of communicator handle `comm` (a receive's
 * source: the remote group's of an intercommunicator). */
static int a_rank_of(uint64_t comm, int source)
{
    MPI_Comm h;
    memcpy(&h, &comm, sizeof h);
    int size = mpireg_peers(h);
    return size == 0 /* not known: MPI says */ || (source >= 0 && source < size);
}

/* The current event is a receive posted by c (IRECV, START): c->rr_at is
 * its step; a wildcard gets in *source and *tag the match the record has
 * for it (none: it never matched). */
static int take_post(struct mpireg_call *c, int kind, int *source, int *tag)
{
    uint64_t step = mpireg_rr_steps + 1;
    if (!mpireg_rr_wild(*source, *tag)) {
        if (!fits(c, kind, 0, *source, *tag) &&
            !take_message(kind, (struct asked){c, *source, *tag, 0}, 0))
            return 0;
        c->rr_at = (int64_t)step;
        take_known(c, kind, 0, *source, *tag, -1, 0);
        return 1;
    }
    if (!take_message(kind, (struct asked){c, *source, *tag, 0}, 0))
        return 0;
    c->rr_at = (int64_t)step;
    struct post match = post_match(step);
    if (match.source >= 0 && !a_rank_of(c->comm, match.source)) {
        /* no MPI would have matched it: MPI's own error is no answer */
        char what[300];
        diverged("%s but the record is damaged at word %llu: it ends there",
                 asked_text((struct asked){c, *source, *tag, 0}, what, sizeof what),
                 (unsigned long long)match.done_at);
        return 0;
    }
    if (match.source >= 0) {
        *source = match.source;
        *tag = match.tag;
    }
    consume();
    return 1;
}

static int take_send(const struct mpireg_call *c)
{
    unsigned sync = c->rr_flags & MPIREG_RR_SYNCHRONOUS;
    if (!fits(c, MPIREG_RR_SEND, sync, c->peer, c->tag) &&
        !take_message(MPIREG_RR_SEND, (struct asked){c, c->peer, c->tag, 0}, sync))
        return 0;
    take_known(c, MPIREG_RR_SEND, sync, c->peer, c->tag, -1, 0);
    return 1;
}

static int coll_root(const struct mpireg_call *c)
{
    int rooted = c->rr_flags == MPIREG_RR_SHAPE_FROM_ROOT || c->rr_flags == MPIREG_RR_SHAPE_TO_ROOT;
    return rooted && (c->flags & MPIREG_CALL_HAS_PEER) && c->peer >= 0 &&
                   c->peer < (int)MPIREG_RR_PEER_MAX ? c->peer : -1;
}

static int take_collective(const struct mpireg_call *c)
{
    struct asked a = {c, 0, 0, 0};
    if (!take(MPIREG_RR_COLL, a))
        return 0;
    uint64_t p = current(), w = words[p];
    uint32_t ordinal = field(w, 5, 5) == MPIREG_RR_COMM_ESCAPE ? field(words[p + 1], 32, 32)
                                                               : slot_ordinal[field(w, 5, 5)];
    if (ordinal != mpireg_rr_comm_of(c->comm).ordinal || field(w, 10, 3) != c->rr_flags ||
        (int)field(w, 13, 20) - 1 != coll_root(c)) {
        mismatch(a);
        return 0;
    }
    consume();
    return 1;
}

/* A blocking receive or probe, or a polling probe's success (kind). */
static int take_match(struct mpireg_call *c, int kind, volatile int *source, volatile int *tag)
{
    int asked_source = *source, asked_tag = *tag;
    unsigned wild = mpireg_rr_wild(asked_source, asked_tag);
    if (!fits(c, kind, wild, asked_source, asked_tag) &&
        !take_message(kind, (struct asked){c, asked_source, asked_tag, 0}, 0))
        return 0;
    struct message m = message_at(current());
    if (m.peer >= 0)
        receive_from(c, source, tag, m.peer, m.tag);
    take_known(c, kind, wild, asked_source, asked_tag, wild && m.peer >= 0 ? m.peer : -1, m.tag);
    return 1;
}

/* A MISS event of call kind `kind` (on communicator c's, for probes) is
 * next: take one miss from it. */
static int take_miss(const struct mpireg_call *c, int kind)
{
    uint64_t w = words[at];
    if (kind_of(w) != MPIREG_RR_MISS || (int)field(w, 5, 5) != kind)
        return 0;
    if ((c->flags & MPIREG_CALL_PROBES) && field(w, 10, 5) != MPIREG_RR_COMM_ESCAPE &&
        slot_ordinal[field(w, 10, 5)] != mpireg_rr_comm_of(c->comm).ordinal)
        return 0;
    if (!misses_left)
        misses_left = w >> 15;
    mpireg_rr_steps++;
    if (--misses_left == 0)
        at++;
    return 1;
}

/* The sends and collectives of call c (after what it received: record.h). */
static inline void take_started(const struct mpireg_call *c)
{
    if (c->flags & MPIREG_CALL_COLLECTIVE)
        take_collective(c);
    else if ((c->flags & MPIREG_CALL_SENDS) && (c->flags & MPIREG_CALL_HAS_PEER) && c->peer >= 0)
        take_send(c);
}

int mpireg_replay_enter(struct mpireg_call *c, volatile int *source, volatile int *tag)
{
    int kind = c->rr_kind;
    if (!mpireg_rr_mine(c->func))
        return MPIREG_REPLAY_FREE;
    if (!source) {
        take_started(c);
        return MPIREG_REPLAY_FREE;
    }
    if (kind == MPIREG_RR_IRECV && *source != MPI_PROC_NULL) {
        int s = *source, t = *tag;
        if (!take_post(c, kind, &s, &t))
            return MPIREG_REPLAY_FREE;
        receive_from(c, source, tag, s, t);
    } else if ((kind == MPIREG_RR_IPROBE || kind == MPIREG_RR_IMPROBE) &&
               *source != MPI_PROC_NULL) {
        int next = next_kind();
        if (next == MPIREG_RR_MISS && take_miss(c, kind))
            return MPIREG_REPLAY_MISS;
        if (next != kind) {
            take(kind, (struct asked){c, *source, *tag, 0});
            return MPIREG_REPLAY_FREE;
        }
        return take_match(c, kind, source, tag) ? MPIREG_REPLAY_HIT : MPIREG_REPLAY_FREE;
    } else if (kind && kind != MPIREG_RR_IRECV && *source != MPI_PROC_NULL &&
               !take_match(c, kind, source, tag)) {
        return MPIREG_REPLAY_FREE;
    }
    if (mpireg_rr_mode == MPIREG_RR_REPLAYING)
        take_started(c);
    return MPIREG_REPLAY_FREE;
}

int mpireg_replay_poll(int outcome, int source, int tag, MPI_Comm comm, int *flag,
                       MPI_Message *message, MPI_Status *status)
{
    if (outcome == MPIREG_REPLAY_MISS) {
        progress();
        *flag = 0;
        return MPI_SUCCESS;
    }
    *flag = 1;
    return message ? PMPI_Mprobe(source, tag, comm, message, status)
                   : PMPI_Probe(source, tag, comm, status);
}

/* The completion call as the program made it (past the end of a cut record). */
static int choose_freely(int kind, int n, MPI_Request *reqs, MPI_Status *statuses, int *flag,
                         int *index, int *outcount, int *indices)
{
    switch (kind) {
    case MPIREG_RR_TEST:
        return PMPI_Test(reqs, flag, statuses);
    case MPIREG_RR_TESTALL:
        return PMPI_Testall(n, reqs, flag, statuses);
    case MPIREG_RR_TESTANY:
        return PMPI_Testany(n, reqs, index, flag, statuses);
    case MPIREG_RR_TESTSOME:
        return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    case MPIREG_RR_WAITANY:
        return PMPI_Waitany(n, reqs, index, statuses);
    default:
        return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    }
}

/* The requests the current choice names (indices[k], k < *count); 0 when
 * one does not fit the call's requests. */
static int chosen(int kind, int n, const MPI_Request *reqs, int *count, int *indices)
{
    uint64_t p = current(), w = words[p];
    uint32_t value = field(w, 32, 32);
    *count = 0;
    if (field(w, 5, 27) != ((uint32_t)n & 0x7FFFFFFu))
        return 0;
    if (kind == MPIREG_RR_TESTANY || kind == MPIREG_RR_WAITANY) {
        indices[(*count)++] = (int)value;
    } else if (kind == MPIREG_RR_TESTSOME || kind == MPIREG_RR_WAITSOME) {
        for (uint32_t k = 0; k < value; k++)
            indices[(*count)++] = (int)field(words[p + 1 + k / 2], 32 * (k % 2), 32);
    }
    for (int k = 0; k < *count; k++)
        if (indices[k] < 0 || indices[k] >= n || reqs[indices[k]] == MPI_REQUEST_NULL)
            return 0;
    return 1;
}

int mpireg_replay_choose(struct mpireg_call *c, int n, MPI_Request *reqs, MPI_Status *statuses,
                         int *flag, int *index, int *outcount, int *indices)
{
    int kind = c->rr_kind, some = kind == MPIREG_RR_TESTSOME || kind == MPIREG_RR_WAITSOME;
    struct asked a = {c, 0, 0, 0};
    if (mpireg_rr_mode != MPIREG_RR_REPLAYING || !mpireg_rr_mine(c->func))
        return choose_freely(kind, n, reqs, statuses, flag, index, outcount, indices);
    int next = next_kind();
    if (next == MPIREG_RR_MISS && take_miss(c, kind)) {
        progress();
        if (flag)
            *flag = 0;
        if (index)
            *index = MPI_UNDEFINED;
        if (outcount)
            *outcount = 0;
        return MPI_SUCCESS;
    }
    if (next != kind) {
        take(kind, a);
        return choose_freely(kind, n, reqs, statuses, flag, index, outcount, indices);
    }
    uint32_t value = field(words[current()], 32, 32);
    if ((some || kind == MPIREG_RR_TESTANY || kind == MPIREG_RR_WAITANY) &&
        value == MPIREG_RR_UNDEFINED) {
        consume(); /* no request was active: MPI answers the same again */
        return choose_freely(kind, n, reqs, statuses, flag, index, outcount, indices);
    }
    int count, small[16], *done = some && value > 16 ? malloc(sizeof(int) * value) : small;
    if (!done || !chosen(kind, n, reqs, &count, done)) {
        if (done && done != small)
            free(done);
        mismatch(a);
        return choose_freely(kind, n, reqs, statuses, flag, index, outcount, indices);
    }
    consume();
    int rc = MPI_SUCCESS;
    if (kind == MPIREG_RR_TEST)
        rc = PMPI_Wait(reqs, statuses);
    else if (kind == MPIREG_RR_TESTALL)
        rc = PMPI_Waitall(n, reqs, statuses);
    for (int k = 0; k < count && rc == MPI_SUCCESS; k++) {
        MPI_Status *status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                             : some ? &statuses[k] : statuses;
        rc = PMPI_Wait(&reqs[done[k]], status);
        if (indices)
            indices[k] = done[k];
    }
    if (flag)
        *flag = 1;
    if (index)
        *index = done[0];
    if (outcount)
        *outcount = count;
    if (done != small)
        free(done);
    return rc;
}

/* ---------------------------------------------------------------------------
 * Persistent requests.
 * ------------------------------------------------------------------------- */
static void shadow_add(MPI_Request request, MPI_Request shadow)
{
    if (mpireg_replay_shadows == shadows_capacity) {
        int capacity = shadows_capacity ? 2 * shadows_capacity : 16;
        struct shadow *grown = realloc(shadows, (size_t)capacity * sizeof *grown);
        if (!grown)
            return;
        shadows = grown;
        shadows_capacity = capacity;
    }
    shadows[mpireg_replay_shadows++] = (struct shadow){request, shadow, -1};
}

static void shadow_remove(int k)
{
    shadows[k] = shadows[--mpireg_replay_shadows];
}

/* Starts persistent request *req (its call record c) as recorded; 1 when a
 * shadow was posted in its place. */
static int start_one(struct mpireg_call *c, MPI_Request *req)
{
    if (c->flags & (MPIREG_CALL_COLLECTIVE | MPIREG_CALL_SENDS)) {
        take_started(c);
        return 0;
    }
    int source = c->peer, tag = c->tag;
    if (!(c->flags & MPIREG_CALL_RECEIVES) || source == MPI_PROC_NULL ||
        !take_post(c, MPIREG_RR_START, &source, &tag))
        return 0;
    if (!mpireg_rr_wild(c->peer, c->tag) || mpireg_rr_wild(source, tag) || c->nbufs < 1)
        return 0; /* no wildcard, or one that never matched: the request itself */
    /* a wildcard the record matched: a receive of replay's own, with its source and tag */
    MPI_Datatype type;
    MPI_Comm comm;
    MPI_Request shadow;
    memcpy(&type, &c->bufs[0].datatype, sizeof type);
    memcpy(&comm, &c->comm, sizeof comm);
    if (PMPI_Irecv((void *)(uintptr_t)c->bufs[0].addr, (int)c->bufs[0].count, type, source, tag,
                   comm, &shadow) != MPI_SUCCESS)
        return 0;
    shadow_add(*req, shadow);
    return 1;
}

int mpireg_replay_start(int n, MPI_Request *reqs)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        struct mpireg_call *c = reqs[i] == MPI_REQUEST_NULL ? NULL : mpireg_req_call(reqs[i]);
        if (c && mpireg_rr_mode == MPIREG_RR_REPLAYING && mpireg_rr_mine("MPI_Start") &&
            start_one(c, &reqs[i]))
            continue;
        int r = PMPI_Start(&reqs[i]);
        if (rc == MPI_SUCCESS)
            rc = r;
    }
    return rc;
}

void mpireg_replay_swap(int n, MPI_Request *reqs, int in)
{
    for (int k = 0; k < mpireg_replay_shadows; k++) {
        struct shadow *s = &shadows[k];
        if (in) {
            for (int i = 0; i < n && s->index < 0; i++) {
                if (reqs[i] == s->request) {
                    reqs[i] = s->shadow;
                    s->index = i;
                }
            }
        } else if (s->index >= 0) {
            int done = reqs[s->index] == MPI_REQUEST_NULL;
            reqs[s->index] = s->request;
            s->index = -1;
            if (done)
                shadow_remove(k--);
        }
    }
}

void mpireg_replay_unshadow(MPI_Request *req)
{
    for (int k = 0; req && k < mpireg_replay_shadows; k++) {
        if (shadows[k].request == *req) {
            PMPI_Request_free(&shadows[k].shadow);
            shadow_remove(k);
            return;
        }
    }
}

/* ---------------------------------------------------------------------------
 * Completions.
 * ------------------------------------------------------------------------- */
void mpireg_replay_matched(const struct mpireg_call *c, int source, int tag,
                           const MPI_Status *status)
{
    if (!mpireg_rr_mine(c->func) || c->rr_at < 0)
        return;
    int wild = mpireg_rr_wild(source, tag) != 0;
    int got_source = wild && status && status != MPI_STATUS_IGNORE ? status->MPI_SOURCE : source;
    int got_tag = wild && status && status != MPI_STATUS_IGNORE ? status->MPI_TAG : tag;
    uint64_t since = mpireg_rr_steps + 1 - (uint64_t)c->rr_at;
    const uint64_t *next = peek();
    if (next && since < MPIREG_RR_DELTA_ESCAPE && got_source >= 0 &&
        got_source < (int)MPIREG_RR_PEER_MAX && (uint32_t)got_tag < MPIREG_RR_TAG_ESCAPE &&
        *next == (MPIREG_RR_DONE | since << 5 | (uint64_t)(got_source + 1) << 24 |
                  (uint64_t)got_tag << 44)) {
        consume_one();
        return;
    }
    struct asked a = {c, source, tag, 1};
    if (!take(MPIREG_RR_DONE, a))
        return;
    uint64_t p = current(), w = words[p], delta = field(w, 5, 19);
    int matched_source = (int)field(w, 24, 20) - 1, matched_tag = (int)field(w, 44, 20);
    if (event_words(p) == 2) {
        matched_tag = (int)field(words[p + 1], 0, 32);
        delta = field(words[p + 1], 32, 32);
    }
    if (delta != since ||
        (matched_source >= 0 && (got_source != matched_source || got_tag != matched_tag))) {
        char what[300], buf[256];
        diverged("%s matched source %d tag %d but the record has %s",
                 asked_text(a, what, sizeof what), got_source, got_tag, recorded(buf, sizeof buf));
        return;
    }
    consume();
}

/* ---------------------------------------------------------------------------
 * Opening and closing.
 * ------------------------------------------------------------------------- */
static void refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void refuse(const char *fmt, ...)
{
    char what[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    /* before the first event: nothing for a debugger to see, and every rank
     * would wait (the launcher, or `continue` in a -batch session, forever) */
    mpireg_rr_mode = 0;
    say("mpipp replay: rank %d cannot replay: %s; the job is aborted", mpireg_rr_rank, what);
    abort_after_saying();
}

void mpireg_replay_open(const char *dir, int rank, int size)
{
    struct mpireg_rr_header header;
    struct stat st;
    snprintf(where, sizeof where, "%s/rank.%d", dir, rank);
    int fd = open(where, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        refuse("MPI_Init: there is no record %s (%s)", where, strerror(errno));
        return;
    }
    if (fstat(fd, &st) != 0 || pread(fd, &header, sizeof header, 0) != (ssize_t)sizeof header ||
        memcmp(header.magic, MPIREG_RR_MAGIC, 8) != 0 || header.version != MPIREG_RR_VERSION) {
        close(fd);
        refuse("MPI_Init: %s is not a record of this version of mpipp", where);
        return;
    }
    if (header.header_size < sizeof header || header.header_size % 8 ||
        (uint64_t)st.st_size < header.header_size || header.state < MPIREG_RR_OPEN ||
        header.state > MPIREG_RR_UNCOVERED) {
        close(fd);
        refuse("MPI_Init: %s: the record's header is damaged", where);
        return;
    }
    if (header.size != size || header.rank != rank) {
        close(fd);
        refuse("MPI_Init with %d ranks but the record %s is of rank %d of %d ranks", size, where,
               header.rank, header.size);
        return;
    }
    mapped = (size_t)st.st_size;
    map = mmap(NULL, mapped, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        refuse("MPI_Init: cannot read %s (%s)", where, strerror(errno));
        return;
    }
    words = (const uint64_t *)(const void *)((const char *)map + header.header_size);
    n_words = (mapped - header.header_size) / 8;
    state = header.state;
    world_size = (uint32_t)size;
    scan();
    if (out_of_memory) {
        refuse("MPI_Init: %s: out of memory reading the record", where);
        return;
    }
    if (state == MPIREG_RR_CLOSED && !damaged_at && record_steps != header.steps) {
        refuse("MPI_Init: %s: the record is damaged: its events make %llu steps where its header "
               "says %llu", where, (unsigned long long)record_steps,
               (unsigned long long)header.steps);
        return;
    }
    mpireg_rr_mode = MPIREG_RR_REPLAYING;
}

void mpireg_replay_unseen(const char *func)
{
    mpireg_rr_mode = 0;
    say("mpipp replay: rank %d: %s, called from Fortran at step %llu, is not seen by libmpireg "
        "(MPI's Fortran binding calls PMPI_ directly); the rank goes on unreplayed",
        mpireg_rr_rank, func, (unsigned long long)mpireg_rr_steps + 1);
    mpipp_replay_ended();
}

void mpireg_replay_close(void)
{
    char buf[256];
    if (next_kind())
        diverged("MPI_Finalize but the record has %s", recorded(buf, sizeof buf));
    mpireg_rr_mode = 0;
}
