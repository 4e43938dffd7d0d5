/*
 * record.c: writing a rank's record (format: record.h), and what record and
 * replay share -- starting either from the environment at MPI_Init, the
 * numbering of communicators, the thread that owns the rank's record.
 *
 * The record is written through a shared mapping of a window of the file
 * (WINDOW bytes, the file grown a window at a time): the kernel holds every
 * word stored, so a rank killed or crashed loses nothing, and the process
 * keeps one window of it in memory.  An event costs a few stores; a site
 * or communicator seen for the first time adds its definition.
 */
#include "mpireg_internal.h"
#include "calls.h"
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int mpireg_rr_mode;
int mpireg_rr_rank;
uint64_t mpireg_rr_steps;
__thread int mpireg_rr_owner __attribute__((tls_model("initial-exec")));

#define WINDOW (1u << 20)
#define HEADER 64u
_Static_assert(sizeof(struct mpireg_rr_header) == HEADER, "the header is 64 bytes");

/* ---------------------------------------------------------------------------
 * Communicators: numbered in the order this rank creates them (or, for
 * those created without a wrapped call, first uses them), MPI_COMM_WORLD
 * being 0; events name them by a slot (0 .. 30) while they live, or by the
 * ordinal (escaped) when every slot is taken.
 * ------------------------------------------------------------------------- */
struct comm_entry {
    uint64_t key;
    struct mpireg_rr_comm id;
};
static struct comm_entry *comms, last_comm;
static size_t n_comms, comms_capacity;
static uint32_t next_ordinal = 1, slots_taken = 1; /* bit s: slot s in use (0: world) */
uint64_t mpireg_rr_world_key;

static void rec_comm_defined(struct mpireg_rr_comm id, MPI_Comm h);

static struct mpireg_rr_comm comm_define(uint64_t key)
{
    struct mpireg_rr_comm id = {next_ordinal++, MPIREG_RR_COMM_ESCAPE};
    for (uint32_t s = 1; s < MPIREG_RR_COMM_SLOTS; s++) {
        if (!(slots_taken & (1u << s))) {
            slots_taken |= 1u << s;
            id.slot = s;
            break;
        }
    }
    if (n_comms == comms_capacity) {
        size_t capacity = comms_capacity ? 2 * comms_capacity : 16;
        struct comm_entry *grown = realloc(comms, capacity * sizeof *grown);
        if (grown) {
            comms = grown;
            comms_capacity = capacity;
        }
    }
    if (n_comms < comms_capacity)
        comms[n_comms++] = (struct comm_entry){key, id};
    MPI_Comm h;
    memcpy(&h, &key, sizeof h);
    if (mpireg_rr_mode == MPIREG_RR_RECORDING)
        rec_comm_defined(id, h);
    last_comm = (struct comm_entry){key, id};
    return id;
}

struct mpireg_rr_comm mpireg_rr_comm_lookup(uint64_t key)
{
    if (key == last_comm.key && last_comm.id.ordinal)
        return last_comm.id;
    for (size_t i = 0; i < n_comms; i++) {
        if (comms[i].key == key) {
            last_comm = comms[i];
            return comms[i].id;
        }
    }
    return comm_define(key);
}

void mpireg_rr_comm_gone(MPI_Comm h)
{
    uint64_t key = MPIREG_HKEY(h);
    for (size_t i = 0; i < n_comms; i++) {
        if (comms[i].key != key)
            continue;
        if (comms[i].id.slot != MPIREG_RR_COMM_ESCAPE)
            slots_taken &= ~(1u << comms[i].id.slot);
        comms[i] = comms[--n_comms];
        break;
    }
    if (last_comm.key == key)
        last_comm = (struct comm_entry){0, {0, 0}};
    /* the handle may name another communicator next: a call on it is no
     * longer known to continue the repetition (record.h) */
    for (unsigned k = 0; k < MPIREG_RR_GROUP_MAX; k++)
        if (mpireg_rr_hot.group[k].comm == key)
            mpireg_rr_hot.group[k].key = 0;
}

void mpireg_rr_comm_new(MPI_Comm h)
{
    if (h == MPI_COMM_NULL || !mpireg_rr_mine("a communicator constructor"))
        return;
    mpireg_rr_comm_gone(h); /* a handle MPI gives again: a free we did not see */
    comm_define(MPIREG_HKEY(h));
}

const char *mpireg_rr_comm_name(uint32_t ordinal, char *buf, size_t size)
{
    if (ordinal == 0)
        return "MPI_COMM_WORLD";
    snprintf(buf, size, "communicator #%u", ordinal);
    return buf;
}

/* ---------------------------------------------------------------------------
 * The thread that records or replays the rank.
 * ------------------------------------------------------------------------- */
static int owner_taken;
static void rec_stop(uint32_t state);

int mpireg_rr_thread_slow(const char *func)
{
    if (mpireg_rr_owner < 0)
        return 0;
    int expected = 0;
    if (__atomic_compare_exchange_n(&owner_taken, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        mpireg_rr_owner = 1;
        return 1;
    }
    mpireg_rr_owner = -1;
    int mode = __atomic_exchange_n(&mpireg_rr_mode, 0, __ATOMIC_ACQ_REL);
    if (mode)
        fprintf(stderr, "mpipp %s: rank %d: a second thread calls %s at step %llu: a rank is "
                "%s from one thread only, the %s ends here\n",
                mode == MPIREG_RR_RECORDING ? "record" : "replay", mpireg_rr_rank, func,
                (unsigned long long)mpireg_rr_steps + 1,
                mode == MPIREG_RR_RECORDING ? "recorded" : "replayed",
                mode == MPIREG_RR_RECORDING ? "record" : "replay");
    if (mode == MPIREG_RR_RECORDING)
        rec_stop(MPIREG_RR_THREADS);
    return 0;
}

/* ---------------------------------------------------------------------------
 * The file and its window.
 * ------------------------------------------------------------------------- */
static int rec_fd = -1;
static struct mpireg_rr_header header;
static unsigned char *window;  /* file bytes [window_at, window_at + WINDOW) */
static uint64_t window_at;
/* Where the next word goes -- while nothing repeats: a recurrence's words
 * go to its events' slots (rec_tail) -- and the window's end. */
static uint64_t *rec_next, *rec_end;
/* The MISS word the next miss of the same call adds to (NULL after any other word). */
static uint64_t *last_miss;

/* Repetition: when the last n one-word events (n <= MPIREG_RR_GROUP_MAX)
 * are the n before them again, the second copy becomes a REPEAT event; each
 * further recurrence of the group is written as it comes (so that a rank
 * killed in the middle loses nothing) and, once whole, taken back and
 * counted in the REPEAT (mpireg_rec_continue).  A loop that communicates
 * the same way each time (a halo exchange, a ping-pong) then adds no word,
 * and no page, to the record.  The wrappers continue a repetition inline
 * (record.h); what they do not is done here. */
#define RECENT (2 * MPIREG_RR_GROUP_MAX)
static uint64_t recent[RECENT]; /* the last one-word events, a ring */
static unsigned recent_at, n_recent;
struct mpireg_rr_hot mpireg_rr_hot;
static struct mpireg_rr_hot *const hot = &mpireg_rr_hot;
__thread struct mpireg_rr_expect *mpireg_rr_at __attribute__((tls_model("initial-exec"))) =
    &mpireg_rr_hot.none;

/* Where the next word goes: while repeating, past the current recurrence's
 * words so far, the first 0 after the REPEAT (mpireg_rec_continue). */
static uint64_t *rec_tail(void)
{
    uint64_t *p = rec_next;
    if (hot->repeat)
        for (p = hot->repeat + 1; *p; p++)
            ;
    return p;
}

/* A word that is not a one-word event ends repetition: the current
 * recurrence's words so far stay, as events; those of earlier ones past
 * them go (the words past the record's end are 0). */
static void unrepeat(void)
{
    if (hot->repeat) {
        rec_next = rec_tail();
        for (uint64_t *p = rec_next + 1; p <= hot->repeat + (hot->end - hot->group); p++)
            *p = 0;
    }
    hot->repeat = NULL;
    mpireg_rr_at = &hot->none;
    n_recent = 0;
}

static inline void remember(uint64_t w)
{
    recent[recent_at++ % RECENT] = w;
    if (n_recent < RECENT)
        n_recent++;
}

static void rec_fail(const char *what)
{
    fprintf(stderr, "mpipp record: rank %d: %s: %s; recording stops at step %llu\n",
            mpireg_rr_rank, what, strerror(errno), (unsigned long long)mpireg_rr_steps);
    mpireg_rr_mode = 0;
    unrepeat();
    rec_next = rec_end = NULL;
}

/* Maps the next window (the file grows by one). */
static int rec_advance(void)
{
    if (!window)
        return 0;
    munmap(window, WINDOW);
    window = NULL;
    window_at += WINDOW;
    void *p = MAP_FAILED;
    if (ftruncate(rec_fd, (off_t)(window_at + WINDOW)) == 0)
        p = mmap(NULL, WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, rec_fd, (off_t)window_at);
    if (p == MAP_FAILED) {
        rec_fail("cannot grow the record");
        return 0;
    }
    window = p;
    unrepeat();
    rec_next = (uint64_t *)(void *)window;
    rec_end = (uint64_t *)(void *)(window + WINDOW);
    return 1;
}

/* A word, when nothing repeats. */
static inline void put(uint64_t w)
{
    if (__builtin_expect(rec_next == rec_end, 0) && !rec_advance())
        return;
    *rec_next++ = w;
    last_miss = NULL;
}

/* The position (in words) of the next word. */
static inline uint64_t rec_pos(void)
{
    return (window_at + (uint64_t)((unsigned char *)rec_tail() - window) - HEADER) / 8;
}

/* The last n events are the n before them: their second copy becomes a
 * REPEAT (its words past the 0 after it stay until unrepeat), unless its
 * recurrences would not fit in the window with the 0 after them (the copy
 * then stays). */
static void repeat_found(unsigned n)
{
    uint64_t *second = rec_next - n;
    if (second + n + 2 > rec_end)
        return;
    mpireg_rr_store2(second, MPIREG_RR_REPEAT | (uint64_t)n << 5 |
                                 UINT64_C(1) << MPIREG_RR_REPEAT_COUNT, 0);
    rec_next = second + 1;
    hot->repeat = second;
    for (unsigned k = 0; k < n; k++)
        hot->group[k] = (struct mpireg_rr_expect){.word = recent[(recent_at - n + k) % RECENT],
                                                  .slot = second + 1 + k};
    hot->end = hot->group + n;
    mpireg_rr_at = hot->group;
    n_recent = 0;
}

/* A one-word event that does not continue the repetition (record.h). */
void mpireg_rec_event_slow(uint64_t w)
{
    mpireg_rr_steps++;
    if (hot->repeat) {
        unsigned phase = (unsigned)(mpireg_rr_at - hot->group);
        unrepeat();
        for (unsigned k = 0; k < phase; k++)
            remember(hot->group[k].word);
    }
    put(w);
    remember(w);
    uint64_t *first_of_window = (uint64_t *)(void *)(window + (window_at ? 0 : HEADER));
    for (unsigned n = 1; 2 * n <= n_recent && rec_next - n >= first_of_window; n++) {
        unsigned k = 0;
        while (k < n && recent[(recent_at - 1 - k) % RECENT] ==
                            recent[(recent_at - 1 - k - n) % RECENT])
            k++;
        if (k == n) {
            repeat_found(n);
            return;
        }
    }
}

/* The message event w, from what a call gave (record.h): when it continues
 * the repetition, the event it continues keeps them, so that the call
 * continues it inline next time (when the site leaves the key's high byte
 * to the kind and flags, as code addresses do). */
static void put_message_word(uint64_t w, uint64_t key, uint64_t comm, uint64_t peer_tag,
                             uint64_t site)
{
    struct mpireg_rr_expect *e = mpireg_rr_at;
    if (w == e->word && site >> 56 == 0) {
        e->key = key;
        e->comm = comm;
        e->peer_tag = peer_tag;
    }
    mpireg_rec_event(w);
}

/* An event of several words: its first word is stored last (a rank killed
 * in between leaves a 0 there, which ends the record). */
struct head {
    uint64_t *at;
    uint64_t pos, window_at;
};

static struct head head_reserve(void)
{
    unrepeat();
    put(0);
    if (!rec_next)
        return (struct head){NULL, 0, 0};
    return (struct head){rec_next - 1, rec_pos() - 1, window_at};
}

static void head_store(struct head h, uint64_t w)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (!h.at)
        return;
    if (h.window_at == window_at && window)
        *h.at = w;
    else if (rec_fd >= 0 && pwrite(rec_fd, &w, 8, (off_t)(HEADER + 8 * h.pos)) != 8)
        rec_fail("cannot write the record");
    last_miss = NULL;
}

static void header_write(void)
{
    if (pwrite(rec_fd, &header, sizeof header, 0) != (ssize_t)sizeof header)
        rec_fail("cannot write the record's header");
}

/* The record ends (state CLOSED at MPI_Finalize, THREADS when a second
 * thread calls MPI, UNCOVERED at a call no wrapper sees): the header says
 * how far it goes.  The mapping stays
 * when another thread may still be writing through it. */
static void rec_stop(uint32_t state)
{
    if (rec_fd < 0)
        return;
    header.state = state;
    header.words = rec_next ? rec_pos() : 0;
    header.steps = mpireg_rr_steps;
    header_write();
    if (state != MPIREG_RR_CLOSED)
        return;
    unrepeat();
    if (window)
        munmap(window, WINDOW);
    window = NULL;
    rec_next = rec_end = NULL;
    if (ftruncate(rec_fd, (off_t)(HEADER + 8 * header.words)) != 0)
        rec_fail("cannot trim the record");
    close(rec_fd);
    rec_fd = -1;
}

/* ---------------------------------------------------------------------------
 * Events.
 * ------------------------------------------------------------------------- */
/* Call sites get indices 1 .. MPIREG_RR_SITES - 1 (0 once they run out);
 * a site's slot holds its index next to it (one cache line per lookup). */
#define SITE_SLOTS 8192u
static struct {
    uint64_t address;
    uint32_t index;
} sites[SITE_SLOTS];
static uint32_t n_sites;

static uint32_t site_slow(uint64_t address)
{
    uint32_t i = (uint32_t)(((address >> 2) * UINT64_C(0x9E3779B97F4A7C15)) >> 51);
    for (;; i = (i + 1) & (SITE_SLOTS - 1)) {
        if (sites[i].address == address)
            return sites[i].index;
        if (!sites[i].address)
            break;
    }
    if (n_sites + 1 >= MPIREG_RR_SITES)
        return 0;
    sites[i].address = address;
    sites[i].index = ++n_sites;
    unrepeat();
    put(MPIREG_RR_SITE | (uint64_t)n_sites << 5 | (address & ((UINT64_C(1) << 47) - 1)) << 17);
    return n_sites;
}

/* The sites used last, by their low address bits (in the L1 cache). */
#define SITE_CACHE 64u
static struct {
    uint64_t address;
    uint32_t index;
} site_cache[SITE_CACHE];

static inline uint32_t site_of(uint64_t address)
{
    uint32_t k = (uint32_t)(address >> 2) & (SITE_CACHE - 1);
    if (__builtin_expect(site_cache[k].address == address, 1))
        return site_cache[k].index;
    if (!address)
        return 0;
    uint32_t index = site_slow(address);
    site_cache[k].address = address;
    site_cache[k].index = index;
    return index;
}

static void rec_comm_defined(struct mpireg_rr_comm id, MPI_Comm h)
{
    int inter = 0;
    MPI_Group g;
    int32_t n[2] = {0, 0}, *members[2] = {NULL, NULL};
    if (PMPI_Comm_group(h, &g) == MPI_SUCCESS) {
        members[0] = mpireg_world_ranks(g, &n[0]);
        PMPI_Group_free(&g);
    }
    if (PMPI_Comm_test_inter(h, &inter) == MPI_SUCCESS && inter &&
        PMPI_Comm_remote_group(h, &g) == MPI_SUCCESS) {
        members[1] = mpireg_world_ranks(g, &n[1]);
        PMPI_Group_free(&g);
    }
    int size[2] = {0, 0};
    PMPI_Comm_size(h, &size[0]);
    if (inter)
        PMPI_Comm_remote_size(h, &size[1]);
    int listed = size[0] + size[1] <= MPIREG_RR_MEMBERS_MAX && members[0] &&
                 n[0] == size[0] && (!inter || (members[1] && n[1] == size[1]));
    struct head hd = head_reserve();
    put((uint64_t)(uint32_t)size[0] | (uint64_t)(uint32_t)size[1] << 32);
    if (listed) {
        uint32_t half = MPIREG_RR_UNDEFINED;
        int odd = 0;
        for (int side = 0; side < 2; side++) {
            for (int32_t i = 0; i < n[side]; i++) {
                uint32_t r = members[side][i] < 0 ? MPIREG_RR_UNDEFINED : (uint32_t)members[side][i];
                if (odd)
                    put((uint64_t)half | (uint64_t)r << 32);
                else
                    half = r;
                odd = !odd;
            }
        }
        if (odd)
            put((uint64_t)half | (uint64_t)MPIREG_RR_UNDEFINED << 32);
    }
    head_store(hd, MPIREG_RR_COMM | (uint64_t)id.slot << 5 | (uint64_t)id.ordinal << 32);
    free(members[0]);
    free(members[1]);
}

/* A message event (record.h: kind, comm, flags, peer, tag, site). */
static void put_message(int kind, uint64_t comm, unsigned flags, int peer, int tag, uint64_t site)
{
    struct mpireg_rr_comm cm = mpireg_rr_comm_of(comm);
    uint32_t s = site_of(site);
    if (peer >= (int)MPIREG_RR_PEER_MAX) {
        errno = ERANGE;
        rec_fail("a rank beyond what the record can name");
        return;
    }
    uint32_t tag_field = tag < 0 ? 0 : (uint32_t)tag < MPIREG_RR_TAG_ESCAPE ? (uint32_t)tag
                                                                           : MPIREG_RR_TAG_ESCAPE;
    uint64_t w = (uint64_t)kind | (uint64_t)cm.slot << 5 | (uint64_t)flags << 10 |
                 (uint64_t)(uint32_t)(peer + 1) << 12 | (uint64_t)tag_field << 32 |
                 (uint64_t)s << 52;
    if (cm.slot != MPIREG_RR_COMM_ESCAPE && tag_field != MPIREG_RR_TAG_ESCAPE) {
        put_message_word(w, mpireg_rr_key(site, kind, flags), comm, mpireg_rr_pair(peer, tag),
                         site);
        return;
    }
    mpireg_rr_steps++;
    struct head hd = head_reserve();
    put((uint64_t)(uint32_t)tag | (uint64_t)cm.ordinal << 32);
    head_store(hd, w);
}

/* A receive posted (an IRECV or START event): what it asked for, wildcards as 0. */
static void put_post(struct mpireg_call *c, int kind)
{
    int source, tag;
    mpireg_rr_asked(c, &source, &tag);
    c->rr_at = -1;
    if (source == MPI_PROC_NULL)
        return;
    c->rr_at = (int64_t)mpireg_rr_steps + 1;
    put_message(kind, c->comm, mpireg_rr_wild(source, tag), source == MPI_ANY_SOURCE ? -1 : source,
                tag == MPI_ANY_TAG ? 0 : tag, c->site);
}

/* Which root a collective event names: its own for the rooted shapes. */
static int coll_root(const struct mpireg_call *c)
{
    int rooted = c->rr_flags == MPIREG_RR_SHAPE_FROM_ROOT || c->rr_flags == MPIREG_RR_SHAPE_TO_ROOT;
    return rooted && (c->flags & MPIREG_CALL_HAS_PEER) && c->peer >= 0 &&
                   c->peer < (int)MPIREG_RR_PEER_MAX ? c->peer : -1;
}

void mpireg_rec_started(struct mpireg_call *c)
{
    if (!mpireg_rr_mine(c->func))
        return;
    if (c->flags & MPIREG_CALL_COLLECTIVE) {
        struct mpireg_rr_comm cm = mpireg_rr_comm_of(c->comm);
        uint32_t s = site_of(c->site);
        uint64_t w = MPIREG_RR_COLL | (uint64_t)cm.slot << 5 | (uint64_t)(c->rr_flags & 7u) << 10 |
                     (uint64_t)(uint32_t)(coll_root(c) + 1) << 13 | (uint64_t)s << 52;
        if (cm.slot != MPIREG_RR_COMM_ESCAPE) {
            mpireg_rec_event(w);
            return;
        }
        mpireg_rr_steps++;
        struct head hd = head_reserve();
        put((uint64_t)cm.ordinal << 32);
        head_store(hd, w);
    } else if (c->flags & MPIREG_CALL_SENDS) {
        if ((c->flags & MPIREG_CALL_HAS_PEER) && c->peer >= 0)
            put_message(MPIREG_RR_SEND, c->comm, c->rr_flags & MPIREG_RR_SYNCHRONOUS, c->peer,
                        c->tag, c->site);
    } else if (c->flags & MPIREG_CALL_RECEIVES) {
        put_post(c, MPIREG_RR_START);
    }
}

void mpireg_rec_posted_slow(struct mpireg_call *c)
{
    if (mpireg_rr_mine(c->func))
        put_post(c, MPIREG_RR_IRECV);
}

/* A receive request completed: its DONE event. */
static void put_done(const struct mpireg_call *c, int source, int tag)
{
    uint64_t delta = mpireg_rr_steps + 1 - (uint64_t)c->rr_at;
    uint32_t tag_field = tag < 0 ? 0 : (uint32_t)tag < MPIREG_RR_TAG_ESCAPE ? (uint32_t)tag
                                                                           : MPIREG_RR_TAG_ESCAPE;
    int escaped = delta >= MPIREG_RR_DELTA_ESCAPE || tag_field == MPIREG_RR_TAG_ESCAPE;
    uint64_t w = MPIREG_RR_DONE | (escaped ? MPIREG_RR_DELTA_ESCAPE : delta) << 5 |
                 (uint64_t)(uint32_t)(source + 1) << 24 | (uint64_t)tag_field << 44;
    if (!escaped) {
        mpireg_rec_event(w);
        return;
    }
    mpireg_rr_steps++;
    struct head hd = head_reserve();
    put((uint64_t)(uint32_t)tag | (delta & 0xFFFFFFFFu) << 32);
    head_store(hd, w);
}

void mpireg_rec_matched_slow(const struct mpireg_call *c, int source, int tag,
                             const MPI_Status *status)
{
    int matched_source, matched_tag;
    if (!mpireg_rr_mine(c->func))
        return;
    if (!mpireg_rr_got(source, tag, status, &matched_source, &matched_tag)) {
        matched_source = -1; /* not known */
        matched_tag = 0;
    }
    if (c->rr_kind == MPIREG_RR_IRECV || c->rr_kind == MPIREG_RR_START) {
        if (c->rr_at >= 0)
            put_done(c, matched_source, matched_tag);
    } else if (c->rr_kind) {
        put_message(c->rr_kind, c->comm, mpireg_rr_wild(source, tag), matched_source, matched_tag,
                    c->site);
    }
}

void mpireg_rec_missed(const struct mpireg_call *c)
{
    if (!mpireg_rr_mine(c->func))
        return;
    uint32_t slot = (c->flags & MPIREG_CALL_PROBES) ? mpireg_rr_comm_of(c->comm).slot : 0;
    uint64_t w = MPIREG_RR_MISS | (uint64_t)c->rr_kind << 5 | (uint64_t)slot << 10;
    mpireg_rr_steps++;
    if (last_miss && (*last_miss & 0x7FFF) == w) {
        *last_miss += UINT64_C(1) << 15;
        return;
    }
    unrepeat();
    put(w | UINT64_C(1) << 15);
    last_miss = rec_next ? rec_next - 1 : NULL;
}

void mpireg_rec_chose(const struct mpireg_call *c, int n, int all_done, int ndone, const int *done)
{
    if (!all_done && ndone == 0) {
        mpireg_rec_missed(c);
        return;
    }
    if (!mpireg_rr_mine(c->func))
        return;
    int some = c->rr_kind == MPIREG_RR_TESTSOME || c->rr_kind == MPIREG_RR_WAITSOME;
    int any = c->rr_kind == MPIREG_RR_TESTANY || c->rr_kind == MPIREG_RR_WAITANY;
    uint32_t value = 0;
    if (some)
        value = ndone < 0 ? MPIREG_RR_UNDEFINED : (uint32_t)ndone;
    else if (any)
        value = ndone < 1 || !done || done[0] < 0 ? MPIREG_RR_UNDEFINED : (uint32_t)done[0];
    uint64_t w = (uint64_t)c->rr_kind | (uint64_t)((uint32_t)n & 0x7FFFFFFu) << 5 |
                 (uint64_t)value << 32;
    if (!some || value == MPIREG_RR_UNDEFINED || !done) {
        mpireg_rec_event(w);
        return;
    }
    mpireg_rr_steps++;
    struct head hd = head_reserve();
    for (int k = 0; k < ndone; k += 2)
        put((uint64_t)(uint32_t)done[k] |
            (uint64_t)(k + 1 < ndone ? (uint32_t)done[k + 1] : MPIREG_RR_UNDEFINED) << 32);
    head_store(hd, w);
}

/* ---------------------------------------------------------------------------
 * Opening: the directory, the rank's file, its memory map (for the sites).
 * ------------------------------------------------------------------------- */
static int make_dirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* DIR/rank.N.maps: the executable mappings, so that sites become file:line. */
static void write_maps(const char *dir, int rank)
{
    char path[4200], line[4096];
    snprintf(path, sizeof path, "%s/rank.%d.maps", dir, rank);
    FILE *in = fopen("/proc/self/maps", "r"), *out = fopen(path, "w");
    while (in && out && fgets(line, sizeof line, in)) {
        char perms[8] = "";
        if (sscanf(line, "%*s %7s", perms) == 1 && perms[2] == 'x' && strchr(line, '/'))
            fputs(line, out);
    }
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

/* Rank 0 removes the files of ranks a previous, larger run left in dir. */
static void remove_stale(const char *dir, int size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int r, end = 0;
        if (sscanf(e->d_name, "rank.%d%n", &r, &end) == 1 && r >= size &&
            (e->d_name[end] == 0 || strcmp(e->d_name + end, ".maps") == 0)) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    if (d)
        closedir(d);
}

/* The run's name every rank's record carries, when the launcher gave one
 * (mpipp-job does: MPIPP_RECORD_RUN, hex); else 0 and rank 0 broadcasts its
 * own -- a PMPI_Bcast inside MPI_Init that a user's `break MPI_Bcast` would
 * stop at, which under mpipp-job it never does. */
static uint64_t run_named_by_launcher(void)
{
    const char *given = getenv("MPIPP_RECORD_RUN");
    char *end;
    if (!given || !*given)
        return 0;
    errno = 0;
    unsigned long long run = strtoull(given, &end, 16);
    return errno == 0 && *end == 0 ? (uint64_t)run : 0;
}

static void record_open(const char *dir, int rank, int size)
{
    char path[4200];
    uint64_t job = run_named_by_launcher();
    if (job == 0) {
        if (rank == 0) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            job = ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) ^
                  (uint64_t)getpid() << 40;
        }
        PMPI_Bcast(&job, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    }
    snprintf(path, sizeof path, "%s/rank.%d", dir, rank);
    if ((uint32_t)size >= MPIREG_RR_PEER_MAX) {
        fprintf(stderr, "mpipp record: %d ranks: a record names at most %u\n", size,
                MPIREG_RR_PEER_MAX - 1);
        return;
    }
    if (make_dirs(dir) != 0 ||
        (rec_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0 ||
        ftruncate(rec_fd, WINDOW) != 0 ||
        (window = mmap(NULL, WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, rec_fd, 0)) == MAP_FAILED) {
        fprintf(stderr, "mpipp record: rank %d: cannot record into %s: %s\n", rank, path,
                strerror(errno));
        if (rec_fd >= 0)
            close(rec_fd);
        rec_fd = -1;
        window = NULL;
        return;
    }
    window_at = 0;
    rec_next = (uint64_t *)(void *)(window + HEADER);
    rec_end = (uint64_t *)(void *)(window + WINDOW);
    memcpy(header.magic, MPIREG_RR_MAGIC, 8);
    header.version = MPIREG_RR_VERSION;
    header.header_size = HEADER;
    header.rank = rank;
    header.size = size;
    header.state = MPIREG_RR_OPEN;
    header.job = job;
    PMPI_Query_thread(&header.thread_level);
#ifdef OPEN_MPI
    memcpy(header.mpi, "openmpi", 8);
#else
    memcpy(header.mpi, "mpich", 6);
#endif
    header_write();
    write_maps(dir, rank);
    if (rank == 0)
        remove_stale(dir, size);
    mpireg_rr_mode = MPIREG_RR_RECORDING;
}

void mpireg_rr_up(void)
{
    const char *record = getenv(MPIREG_RR_ENV_RECORD), *replay = getenv(MPIREG_RR_ENV_REPLAY);
    int rank = 0, size = 0;
    if ((!record || !*record) && (!replay || !*replay))
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    mpireg_rr_rank = rank;
    mpireg_rr_world_key = MPIREG_HKEY(MPI_COMM_WORLD);
    if (replay && *replay) {
        if (record && *record && rank == 0)
            fprintf(stderr, "mpipp: both %s and %s are set: replaying %s, recording nothing\n",
                    MPIREG_RR_ENV_RECORD, MPIREG_RR_ENV_REPLAY, replay);
        mpireg_replay_open(replay, rank, size);
    } else {
        record_open(record, rank, size);
    }
}

__thread unsigned mpireg_rr_seen __attribute__((tls_model("initial-exec")));

void mpireg_rr_unseen(const char *func)
{
    if (!mpireg_rr_mode || !mpireg_rr_mine(func))
        return;
    /* ended once: a second thread's mpireg_rr_thread_slow ends it the same way */
    int mode = __atomic_exchange_n(&mpireg_rr_mode, 0, __ATOMIC_ACQ_REL);
    if (mode == MPIREG_RR_REPLAYING) {
        mpireg_replay_unseen(func);
    } else if (mode == MPIREG_RR_RECORDING) {
        fprintf(stderr, "mpipp record: rank %d: %s, called from Fortran, is not seen by "
                "libmpireg (MPI's Fortran binding calls PMPI_ directly); recording stops at step "
                "%llu\n", mpireg_rr_rank, func, (unsigned long long)mpireg_rr_steps);
        rec_stop(MPIREG_RR_UNCOVERED);
    }
}

void mpireg_rr_down(void)
{
    int mode = mpireg_rr_mode;
    if (!mode || !mpireg_rr_mine("MPI_Finalize"))
        return;
    if (mode == MPIREG_RR_RECORDING) {
        mpireg_rr_mode = 0;
        rec_stop(MPIREG_RR_CLOSED);
    } else {
        mpireg_replay_close();
    }
}
