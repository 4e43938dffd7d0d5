/*
 * shape.c: size, lb and extent of a new derived type, computed from the
 * constructor's arguments and the children's own values, exactly as MPI
 * defines them, instead of three MPI queries per type.
 *
 * MPI is asked (PMPI_Type_get_extent_x, PMPI_Type_size_x) only where its
 * answer is implementation-specific or not a function of the arguments:
 *   - STRUCT: lb and extent.  MPICH and Open MPI pad a
 *     struct's extent to the alignment of its most aligned member unless an
 *     MPI_UB marker fixes it (struct {int, char}: extent 8, not 5); the
 *     alignment rule is theirs.  (The size is computed.)
 *   - types without data (size 0) and a nonempty shape: lb and extent.
 *     MPICH makes e.g. a vector of a resized empty type empty (lb 0,
 *     extent 0); Open MPI keeps the child's bounds.
 *   - F90 types (their size is the compiler's kind), the MPI-1 *_INTEGER
 *     combiners, and any combiner not listed here: size, lb and extent.
 *   - arguments that overflow 64 bits or make no sense (MPI accepted them,
 *     so it knows better): size, lb and extent.
 * tests/c/oracle.c checks every combiner against MPI's own values.
 */
#include "mpireg_internal.h"

/* The arguments of a record in get_contents order.  The large-count (_c)
 * constructors keep counts and displacements in the large counts: a
 * "count" or "address" argument is taken from there when the record has
 * any (as the reader's combiner table does). */
struct cursor {
    const int *ints;
    const int64_t *addrs, *wide;
    uint32_t ni, na, nw;
    int large;
    int bad; /* an argument was missing */
};

/* A run of values that are ints or 64-bit integers. */
struct values {
    const int *ints;
    const int64_t *wide;
};

static inline int64_t value(struct values v, int64_t k)
{
    return v.wide ? v.wide[k] : v.ints[k];
}

static inline struct cursor cursor_of(const struct mpireg_record *r)
{
    struct mpireg_record *w = (struct mpireg_record *)r;
    struct cursor c = {mpireg_w_integers(w), (const int64_t *)mpireg_w_addresses(w),
                       (const int64_t *)mpireg_w_large_counts(w), r->n_integers,
                       r->n_addresses, r->n_large_counts, r->n_large_counts > 0, 0};
    return c;
}

/* n values of class 'I' (int), 'C' (count) or 'A' (address). */
static inline struct values take(struct cursor *c, char cls, int64_t n)
{
    struct values v = {NULL, NULL};
    if (n < 0) {
        c->bad = 1;
        n = 0;
    }
    if (cls == 'I' || (cls == 'C' && !c->large)) {
        if ((uint64_t)n > c->ni) {
            c->bad = 1;
            n = c->ni;
        }
        v.ints = c->ints;
        c->ints += n;
        c->ni -= (uint32_t)n;
    } else {
        const int64_t **src = c->large ? &c->wide : &c->addrs;
        uint32_t *left = c->large ? &c->nw : &c->na;
        if ((uint64_t)n > *left) {
            c->bad = 1;
            n = *left;
        }
        v.wide = *src;
        *src += n;
        *left -= (uint32_t)n;
    }
    return v;
}

static inline int64_t take1(struct cursor *c, char cls)
{
    struct values v = take(c, cls, 1);
    return c->bad ? 0 : value(v, 0);
}

/* The shape being computed; `overflow` set when a product or sum does not
 * fit 64 bits. */
struct shape {
    int64_t size, lo, hi; /* hi: the upper bound */
    int any;              /* some block holds elements */
    int overflow;
};

static inline int64_t mul(struct shape *s, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        s->overflow = 1;
    return r;
}

static inline int64_t add(struct shape *s, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        s->overflow = 1;
    return r;
}

/* A block of bl copies of child t, copy j at disp + j * t.extent. */
static void block(struct shape *s, int64_t disp, int64_t bl, const struct mpireg_record *t)
{
    if (bl <= 0)
        return;
    s->size = add(s, s->size, mul(s, bl, t->size));
    int64_t span = mul(s, bl - 1, t->extent);
    int64_t lo = add(s, disp, (span < 0 ? span : 0) + t->lb);
    int64_t hi = add(s, add(s, disp, span > 0 ? span : 0), t->lb + t->extent);
    if (!s->any || lo < s->lo)
        s->lo = lo;
    if (!s->any || hi > s->hi)
        s->hi = hi;
    s->any = 1;
}

/* count blocks of bl copies of t, block i at i * stride bytes: only the
 * first and the last block can hold the bounds. */
static void strided(struct shape *s, int64_t count, int64_t bl, int64_t stride,
                    const struct mpireg_record *t)
{
    if (count <= 0 || bl <= 0)
        return;
    block(s, 0, bl, t);
    if (count > 1)
        block(s, mul(s, count - 1, stride), bl, t);
    if (count > 2)
        s->size = add(s, s->size, mul(s, count - 2, mul(s, bl, t->size)));
}

static int64_t product(struct shape *s, struct values v, int64_t n)
{
    int64_t p = 1;
    for (int64_t d = 0; d < n; d++)
        p = mul(s, p, value(v, d));
    return p;
}

/* Elements of one darray dimension this process owns. */
static int64_t darray_local(int64_t gsize, int distrib, int darg, int64_t nprocs, int64_t coord,
                            int *bad)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return gsize;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int64_t blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + nprocs - 1) / nprocs : darg;
        if (blk <= 0)
            return *bad = 1, 0;
        int64_t left = gsize - coord * blk;
        return left <= 0 ? 0 : left < blk ? left : blk;
    }
    if (distrib == MPI_DISTRIBUTE_CYCLIC) {
        int64_t blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        if (blk <= 0)
            return *bad = 1, 0;
        int64_t full = gsize / blk, rest = gsize % blk;
        int64_t nfull = full > coord ? (full - coord + nprocs - 1) / nprocs : 0;
        return nfull * blk + (rest && full % nprocs == coord ? rest : 0);
    }
    return *bad = 1, 0;
}

#define DARRAY_MAX_DIMS 64

/* darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order):
 * lb 0 and extent prod(gsizes) * extent(oldtype), like subarray; the data
 * is this rank's part of the global array. */
static void darray(struct shape *s, struct cursor *c, const struct mpireg_record *t)
{
    take1(c, 'I'); /* size of the process group */
    int64_t rank = take1(c, 'I'), n = take1(c, 'I');
    if (n < 0 || n > DARRAY_MAX_DIMS) {
        c->bad = 1;
        return;
    }
    struct values gsizes = take(c, 'C', n), distribs = take(c, 'I', n), dargs = take(c, 'I', n),
                  psizes = take(c, 'I', n);
    take1(c, 'I'); /* order: the process grid is row-major whatever it is */
    if (c->bad)
        return;
    int64_t coords[DARRAY_MAX_DIMS], local = 1;
    for (int64_t d = n - 1; d >= 0; d--) {
        int64_t p = value(psizes, d);
        if (p <= 0) {
            c->bad = 1;
            return;
        }
        coords[d] = rank % p;
        rank /= p;
    }
    for (int64_t d = 0; d < n; d++)
        local = mul(s, local, darray_local(value(gsizes, d), (int)value(distribs, d),
                                           (int)value(dargs, d), value(psizes, d), coords[d],
                                           &c->bad));
    s->size = mul(s, local, t->size);
    s->lo = 0;
    s->hi = mul(s, product(s, gsizes, n), t->extent);
    s->any = 1;
}

/* subarray(ndims, sizes, subsizes, starts, order): lb 0, extent
 * prod(sizes) * extent(oldtype). */
static void subarray(struct shape *s, struct cursor *c, const struct mpireg_record *t)
{
    int64_t n = take1(c, 'I');
    struct values sizes = take(c, 'C', n), subsizes = take(c, 'C', n);
    take(c, 'C', n); /* starts */
    take1(c, 'I');   /* order */
    if (c->bad)
        return;
    s->size = mul(s, product(s, subsizes, n), t->size);
    s->lo = 0;
    s->hi = mul(s, product(s, sizes, n), t->extent);
    s->any = 1;
}

/* indexed, hindexed, indexed_block, hindexed_block: block i of
 * blocklength(i) copies of t at displacement(i) (in extents of t for the
 * non-h forms). */
static void blocks(struct shape *s, struct cursor *c, const struct mpireg_record *t,
                   int one_blocklength, char disp_cls, int disp_in_bytes)
{
    int64_t count = take1(c, 'C');
    struct values bls = take(c, 'C', one_blocklength ? 1 : count);
    struct values disps = take(c, disp_cls, count);
    if (c->bad)
        return;
    for (int64_t i = 0; i < count; i++) {
        int64_t d = value(disps, i);
        block(s, disp_in_bytes ? d : mul(s, d, t->extent), value(bls, one_blocklength ? 0 : i), t);
    }
}

/* struct(count, blocklengths, displacements, types): the size only (MPI
 * gives the bounds, see the top). */
static void struct_size(struct shape *s, struct cursor *c, const struct mpireg_record *r)
{
    struct mpireg_record *const *kids = mpireg_w_datatypes((struct mpireg_record *)r);
    int64_t count = take1(c, 'C');
    struct values bls = take(c, 'C', count);
    take(c, 'A', count); /* displacements */
    if (c->bad || r->n_datatypes != (uint64_t)count) {
        c->bad = 1;
        return;
    }
    for (int64_t i = 0; i < count; i++) {
        if (!kids[i]) {
            c->bad = 1;
            return;
        }
        s->size = add(s, s->size, mul(s, value(bls, i), kids[i]->size));
    }
}

/* Fills size, lb and extent from the arguments; returns what must be asked
 * from MPI instead: 0 nothing, 1 lb and extent, 2 everything. */
static int compute(struct mpireg_record *r)
{
    struct cursor c = cursor_of(r);
    const struct mpireg_record *t = r->n_datatypes ? mpireg_w_datatypes(r)[0] : NULL;
    struct shape s = {0, 0, 0, 0, 0};
    int ask_bounds = 0;
    if (!t)
        return 2; /* F90 types (no children), or a child we could not resolve */
    switch (r->combiner) {
    case MPI_COMBINER_DUP:
        r->size = t->size;
        r->lb = t->lb;
        r->extent = t->extent;
        return 0;
    case MPI_COMBINER_RESIZED:
        r->lb = take1(&c, 'A');
        r->extent = take1(&c, 'A');
        r->size = t->size;
        return c.bad ? 2 : 0;
    case MPI_COMBINER_CONTIGUOUS:
        strided(&s, take1(&c, 'C'), 1, t->extent, t);
        break;
    case MPI_COMBINER_VECTOR: {
        int64_t count = take1(&c, 'C'), bl = take1(&c, 'C'), stride = take1(&c, 'C');
        strided(&s, count, bl, mul(&s, stride, t->extent), t);
        break;
    }
    case MPI_COMBINER_HVECTOR: {
        int64_t count = take1(&c, 'C'), bl = take1(&c, 'C');
        strided(&s, count, bl, take1(&c, 'A'), t);
        break;
    }
    case MPI_COMBINER_INDEXED:
        blocks(&s, &c, t, 0, 'C', 0);
        break;
    case MPI_COMBINER_HINDEXED:
        blocks(&s, &c, t, 0, 'A', 1);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        blocks(&s, &c, t, 1, 'C', 0);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        blocks(&s, &c, t, 1, 'A', 1);
        break;
    case MPI_COMBINER_STRUCT:
        struct_size(&s, &c, r);
        ask_bounds = 1; /* the padding rule is MPI's own */
        break;
    case MPI_COMBINER_SUBARRAY:
        subarray(&s, &c, t);
        break;
    case MPI_COMBINER_DARRAY:
        darray(&s, &c, t);
        break;
    default: /* F90 types, the MPI-1 *_INTEGER combiners */
        return 2;
    }
    if (c.bad || s.overflow)
        return 2;
    r->size = s.size;
    r->lb = s.any ? s.lo : 0;
    r->extent = s.any ? s.hi - s.lo : 0;
    return ask_bounds || s.size == 0 ? 1 : 0;
}

void mpireg_shape(struct mpireg_record *r, MPI_Datatype h)
{
    int ask = compute(r);
    if (ask == 2) {
        MPI_Count size = 0;
        PMPI_Type_size_x(h, &size);
        r->size = size;
    }
    if (ask) {
        MPI_Count lb = 0, extent = 0;
        PMPI_Type_get_extent_x(h, &lb, &extent);
        r->lb = lb;
        r->extent = extent;
    }
}
