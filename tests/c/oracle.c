/*
 * oracle.c: every registry record must say what MPI itself says.
 *
 * For each constructor (all MPI-1..4 ones libmpireg wraps that this MPI
 * has, nested three levels, zero counts, negative lower bounds, MPI_LB/MPI_UB
 * markers, dups, f90 types) the record is compared with
 * PMPI_Type_get_envelope(_c) / PMPI_Type_get_contents(_c) recursively, and
 * with the size/extent queries.
 * Then the lifetime rules: handle reuse, freed bases kept alive by derived
 * types, get_contents references, commit, names, the predefined table and
 * the reader's view of the map (constants + raw reads only).
 */
#include <stddef.h>
#include <stdint.h>
#include "regtest.h"

/* Whether get_contents hands out a derived child's own handle (MPICH 4.0.2)
 * or a new copy of it (Open MPI 4.1): asked of MPI in main(). */
static int contents_copies;

static int combiner_of(MPI_Datatype t)
{
    MPI_Count ni, na, nl, nd;
    int comb = -1;
    mpireg_type_envelope(t, &ni, &na, &nl, &nd, &comb);
    return comb;
}

/* A handle get_contents returned that the receiver must free: derived,
 * not named or f90 (those are predefined in MPI's terms). */
static int freeable(MPI_Datatype t)
{
    int comb = combiner_of(t);
    return comb != MPI_COMBINER_NAMED && comb != MPI_COMBINER_F90_INTEGER &&
           comb != MPI_COMBINER_F90_REAL && comb != MPI_COMBINER_F90_COMPLEX;
}

/* Compares record r with MPI's own description of t, recursively. */
static int check_record(const struct mpireg_record *r, MPI_Datatype t, const char *what, int depth)
{
    int before = rt_failures;
    MPI_Count ni, na, nl, nd, size, lb, extent;
    int comb;
    mpireg_type_envelope(t, &ni, &na, &nl, &nd, &comb);
    PMPI_Type_size_x(t, &size);
    PMPI_Type_get_extent_x(t, &lb, &extent);
    CHECK(r->combiner == comb, "%s: combiner %d, MPI says %d", what, r->combiner, comb);
    CHECK(r->size == size && r->lb == lb && r->extent == extent,
          "%s: size/lb/extent %lld/%lld/%lld, MPI says %lld/%lld/%lld", what, (long long)r->size,
          (long long)r->lb, (long long)r->extent, (long long)size, (long long)lb, (long long)extent);
    CHECK(rt_reader_name(r) == mpireg_name(r), "%s: reader-style name %s, mpireg_name %s", what,
          rt_reader_name(r) ? rt_reader_name(r) : "(none)", mpireg_name(r) ? mpireg_name(r) : "(none)");
    if (comb == MPI_COMBINER_NAMED) {
        CHECK(r->flags & MPIREG_FLAG_PREDEFINED, "%s: named type without PREDEFINED flag", what);
        return rt_failures != before;
    }
    CHECK(!(r->flags & MPIREG_FLAG_PREDEFINED), "%s: derived type flagged PREDEFINED", what);
    CHECK(r->kind == MPIREG_KIND_NONE, "%s: kind %u", what, r->kind);
    CHECK(r->serial > 0 && r->serial < ROOT.next_serial, "%s: serial %u", what, r->serial);
    int counts_ok = r->n_integers == ni && r->n_addresses == na && r->n_large_counts == nl && r->n_datatypes == nd;
    CHECK(counts_ok, "%s: counts %u/%u/%u/%u, MPI says %lld/%lld/%lld/%lld", what, r->n_integers, r->n_addresses,
          r->n_large_counts, r->n_datatypes, (long long)ni, (long long)na, (long long)nl, (long long)nd);
    if (!counts_ok)
        return 1;
    int *ints = malloc((ni + 1) * sizeof *ints);
    MPI_Aint *addrs = malloc((na + 1) * sizeof *addrs);
    MPI_Count *larges = malloc((nl + 1) * sizeof *larges);
    MPI_Datatype *types = malloc((nd + 1) * sizeof *types);
    mpireg_type_contents(t, ni, na, nl, nd, ints, addrs, larges, types);
    for (MPI_Count k = 0; k < ni; k++)
        CHECK(mpireg_integers(r)[k] == ints[k], "%s: integers[%lld] = %d, MPI says %d", what, (long long)k,
              mpireg_integers(r)[k], ints[k]);
    for (MPI_Count k = 0; k < na; k++)
        CHECK(mpireg_addresses(r)[k] == addrs[k], "%s: addresses[%lld] = %ld, MPI says %ld", what,
              (long long)k, (long)mpireg_addresses(r)[k], (long)addrs[k]);
    for (MPI_Count k = 0; k < nl; k++)
        CHECK(mpireg_large_counts(r)[k] == larges[k], "%s: large_counts[%lld] = %lld, MPI says %lld", what,
              (long long)k, (long long)mpireg_large_counts(r)[k], (long long)larges[k]);
    for (MPI_Count k = 0; k < nd; k++) {
        char sub[256];
        snprintf(sub, sizeof sub, "%s.datatypes[%lld]", what, (long long)k);
        const struct mpireg_record *child = mpireg_datatypes(r)[k];
        if (!child) {
            FAIL("%s: no child record", sub);
            continue;
        }
        /* MPI's own handle of the child: it must be that record; a copy
         * (derived children, contents_copies): the record must describe it */
        if (!(contents_copies && freeable(types[k])))
            CHECK(child == mpireg_lookup(types[k]), "%s: child record %p, lookup of MPI's handle gives %p",
                  sub, (void *)child, (void *)mpireg_lookup(types[k]));
        else
            CHECK(child->handle != rt_key(types[k]), "%s: MPI handed out a copy with the child's handle", sub);
        if (depth < 16)
            check_record(child, types[k], sub, depth + 1);
        /* get_contents handed out a new reference to derived children */
        if (freeable(types[k]))
            PMPI_Type_free(&types[k]);
    }
    free(ints);
    free(addrs);
    free(larges);
    free(types);
    return rt_failures != before;
}

/* Compares the record of t (found by its handle) with MPI's own
 * description, recursively. */
static int check_type(MPI_Datatype t, const char *what, int depth)
{
    const struct mpireg_record *r = mpireg_lookup(t);
    if (!r) {
        FAIL("%s: handle 0x%llx not in the registry", what, rt_key(t));
        return 1;
    }
    if (rt_reader_lookup(t) != r)
        FAIL("%s: reader-style lookup gives %p, mpireg_lookup %p", what, (void *)rt_reader_lookup(t), (void *)r);
    CHECK(r->handle == rt_key(t), "%s: handle 0x%llx", what, (unsigned long long)r->handle);
    return check_record(r, t, what, depth);
}

/* Checks t, then frees it through the wrapper. */
static void check_and_free(MPI_Datatype t, const char *what)
{
    check_type(t, what, 0);
    MPI_Type_free(&t);
}

static MPI_Datatype created_here(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous(7, MPI_SHORT, &t);
    return t;
}

static void test_constructors(void)
{
    MPI_Datatype t, a, b, c;
    int bl[4] = {1, 2, 0, 3};
    int di[4] = {0, 4, 9, 12};
    MPI_Aint ad[4] = {0, 24, 64, -16};
#if MPI_VERSION >= 4
    MPI_Count cbl[4] = {1, 2, 0, 3};
    MPI_Count cdi[4] = {0, 4, 9, 12};
    MPI_Count cad[4] = {0, 24, 64, -16};
#endif

    MPI_Type_contiguous(5, MPI_INT, &t); check_and_free(t, "contiguous");
    MPI_Type_contiguous(0, MPI_DOUBLE, &t); check_and_free(t, "contiguous(0)");
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t); check_and_free(t, "vector");
    MPI_Type_vector(0, 2, 4, MPI_DOUBLE, &t); check_and_free(t, "vector(0)");
    MPI_Type_vector(3, 2, -4, MPI_DOUBLE, &t); check_and_free(t, "vector(negative stride)");
#if MPIREG_HAVE_MPI1_NAMES
    MPI_Type_hvector(3, 2, 40, MPI_FLOAT, &t); check_and_free(t, "hvector");
    MPI_Type_hindexed(4, bl, ad, MPI_INT, &t); check_and_free(t, "hindexed");
    {
        int sbl[4] = {1, 1, 1, 1};
        MPI_Aint sad[4] = {-8, 0, 8, 32};
        MPI_Datatype ty[4] = {MPI_LB, MPI_INT, MPI_DOUBLE, MPI_UB};
        MPI_Type_struct(4, sbl, sad, ty, &t); check_and_free(t, "struct(LB/UB)");
    }
#endif
    MPI_Type_create_hvector(3, 1, -24, MPI_FLOAT, &t); check_and_free(t, "create_hvector");
    MPI_Type_indexed(4, bl, di, MPI_INT, &t); check_and_free(t, "indexed");
    MPI_Type_indexed(0, bl, di, MPI_INT, &t); check_and_free(t, "indexed(0)");
    MPI_Type_create_hindexed(4, bl, ad, MPI_INT, &t); check_and_free(t, "create_hindexed");
    MPI_Type_create_indexed_block(4, 2, di, MPI_CHAR, &t); check_and_free(t, "create_indexed_block");
    MPI_Type_create_hindexed_block(4, 2, ad, MPI_CHAR, &t); check_and_free(t, "create_hindexed_block");
    MPI_Type_create_hindexed_block(0, 2, ad, MPI_CHAR, &t); check_and_free(t, "create_hindexed_block(0)");
    {
        MPI_Datatype ty[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_DOUBLE_INT};
        MPI_Type_create_struct(4, bl, ad, ty, &t); check_and_free(t, "create_struct");
        MPI_Type_create_struct(0, bl, ad, ty, &t); check_and_free(t, "create_struct(0)");
#if MPI_VERSION >= 4
        MPI_Type_create_struct_c(4, cbl, cad, ty, &t); check_and_free(t, "create_struct_c");
#endif
    }
    {
        int sizes[3] = {10, 8, 6}, subs[3] = {4, 3, 2}, starts[3] = {1, 2, 3};
        MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &t); check_and_free(t, "subarray(C)");
        MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t); check_and_free(t, "subarray(F)");
#if MPI_VERSION >= 4
        MPI_Count cs[3] = {10, 8, 6}, cu[3] = {4, 3, 2}, ct[3] = {1, 2, 3};
        MPI_Type_create_subarray_c(3, cs, cu, ct, MPI_ORDER_FORTRAN, MPI_INT, &t); check_and_free(t, "subarray_c");
#endif
    }
    {
        int gs[3] = {12, 10, 9}, dist[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE};
        int darg[3] = {MPI_DISTRIBUTE_DFLT_DARG, 2, MPI_DISTRIBUTE_DFLT_DARG}, ps[3] = {2, 2, 1};
        MPI_Type_create_darray(4, 3, 3, gs, dist, darg, ps, MPI_ORDER_C, MPI_FLOAT, &t); check_and_free(t, "darray(C)");
        MPI_Type_create_darray(4, 1, 3, gs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_FLOAT, &t); check_and_free(t, "darray(F)");
#if MPI_VERSION >= 4
        MPI_Count cgs[3] = {12, 10, 9};
        MPI_Type_create_darray_c(4, 2, 3, cgs, dist, darg, ps, MPI_ORDER_C, MPI_FLOAT, &t); check_and_free(t, "darray_c");
#endif
    }
    MPI_Type_create_resized(MPI_INT, -8, 24, &t); check_and_free(t, "resized(negative lb)");
    MPI_Type_dup(MPI_INT, &t); check_and_free(t, "dup(predefined)");
    MPI_Type_dup(MPI_FLOAT_INT, &t); check_and_free(t, "dup(pair)");

#if MPI_VERSION >= 4
    MPI_Type_create_resized_c(MPI_DOUBLE, -16, 48, &t); check_and_free(t, "resized_c");
    MPI_Type_contiguous_c(5, MPI_INT, &t); check_and_free(t, "contiguous_c");
    MPI_Type_vector_c(3, 2, 4, MPI_DOUBLE, &t); check_and_free(t, "vector_c");
    MPI_Type_create_hvector_c(3, 2, 40, MPI_DOUBLE, &t); check_and_free(t, "create_hvector_c");
    MPI_Type_indexed_c(4, cbl, cdi, MPI_INT, &t); check_and_free(t, "indexed_c");
    MPI_Type_create_hindexed_c(4, cbl, cad, MPI_INT, &t); check_and_free(t, "create_hindexed_c");
    MPI_Type_create_indexed_block_c(4, 3, cdi, MPI_INT, &t); check_and_free(t, "create_indexed_block_c");
    MPI_Type_create_hindexed_block_c(4, 3, cad, MPI_INT, &t); check_and_free(t, "create_hindexed_block_c");
    MPI_Type_contiguous_c(0, MPI_INT, &t); check_and_free(t, "contiguous_c(0)");
    MPI_Type_vector_c(2, 2, 5, MPI_SHORT, &c);
#else
    MPI_Type_vector(2, 2, 5, MPI_SHORT, &c);
#endif

    /* three levels, mixed: struct(vector(contiguous(int)), resized(dup(vector_c or vector))) */
    MPI_Type_contiguous(3, MPI_INT, &a);
    MPI_Type_vector(2, 1, 3, a, &b);
    MPI_Datatype d, e, s;
    MPI_Type_dup(c, &d);
    MPI_Type_create_resized(d, -4, 64, &e);
    {
        int sbl[3] = {2, 1, 1};
        MPI_Aint sad[3] = {0, 128, 256};
        MPI_Datatype ty[3] = {b, e, MPI_LONG_DOUBLE_INT};
        MPI_Type_create_struct(3, sbl, sad, ty, &s);
    }
    MPI_Type_commit(&s);
    check_type(s, "nested", 0);
    MPI_Datatype dd;
    MPI_Type_dup(s, &dd);
    check_and_free(dd, "dup(derived)");
    MPI_Type_free(&a); MPI_Type_free(&b); MPI_Type_free(&c); MPI_Type_free(&d); MPI_Type_free(&e);
    check_type(s, "nested after freeing its parts", 0);
    MPI_Type_free(&s);

    /* creation site: the return address of the constructor call */
    t = created_here();
    const struct mpireg_record *r = mpireg_lookup(t);
    CHECK(r && r->created_at > (uint64_t)(uintptr_t)created_here &&
              r->created_at < (uint64_t)(uintptr_t)created_here + 256,
          "created_at %#llx not inside created_here() at %p", r ? (unsigned long long)r->created_at : 0ULL,
          (void *)created_here);
    MPI_Type_free(&t);
}

/* Size and extents where the registry computes them from the arguments
 * (and where it must ask MPI): padding, markers, empty children, negative
 * strides and bounds, subarray/darray of resized children, 64-bit spans. */
static void test_shapes(void)
{
    MPI_Datatype t, r, z, e, s;
    int bl2[2] = {1, 1};
    {
        struct { MPI_Aint d[2]; MPI_Datatype ty[2]; const char *what; } padded[] = {
            {{0, 4}, {MPI_INT, MPI_CHAR}, "struct{int, char} (padded)"},
            {{0, 8}, {MPI_DOUBLE, MPI_CHAR}, "struct{double, char}"},
            {{0, 1}, {MPI_CHAR, MPI_SHORT}, "struct{char, short@1}"},
            {{0, 16}, {MPI_LONG_DOUBLE, MPI_CHAR}, "struct{long double, char}"},
            {{8, -4}, {MPI_INT, MPI_CHAR}, "struct, negative displacement"},
            {{0, 12}, {MPI_DOUBLE_INT, MPI_SHORT_INT}, "struct of pairs"},
        };
        for (size_t k = 0; k < sizeof padded / sizeof padded[0]; k++) {
            MPI_Type_create_struct(2, bl2, padded[k].d, padded[k].ty, &s);
            check_type(s, padded[k].what, 0);
            MPI_Type_contiguous(3, s, &t); check_and_free(t, "contiguous(padded struct)");
            MPI_Type_vector(2, 2, -3, s, &t); check_and_free(t, "vector(padded struct, negative stride)");
            MPI_Type_free(&s);
        }
    }
    {
        int bl[3] = {2, 0, 1}, di[3] = {0, 10, 3};
        MPI_Type_indexed(3, bl, di, MPI_INT, &t); check_and_free(t, "indexed, empty block beyond the rest");
        int z3[3] = {0, 0, 0};
        MPI_Type_indexed(3, z3, di, MPI_INT, &t); check_and_free(t, "indexed, every block empty");
        MPI_Aint hd[3] = {-40, 8, 16};
        MPI_Type_create_hindexed_block(3, 2, hd, MPI_DOUBLE, &t); check_and_free(t, "hindexed_block, negative");
        int nd[3] = {-5, 7, 2};
        MPI_Type_create_indexed_block(3, 3, nd, MPI_SHORT, &t); check_and_free(t, "indexed_block, negative");
    }
    /* empty children with nonempty bounds: MPI's own rule */
    MPI_Type_contiguous(0, MPI_INT, &z);
    MPI_Type_create_resized(z, -4, 16, &e);
    check_type(e, "resized(contiguous(0))", 0);
    MPI_Type_vector(3, 1, 2, e, &t); check_and_free(t, "vector(empty resized)");
    MPI_Type_contiguous(2, e, &t); check_and_free(t, "contiguous(empty resized)");
    MPI_Type_free(&z);
    MPI_Type_free(&e);
    /* resized children with a nonzero lb under every shape */
    MPI_Type_create_resized(MPI_INT, -4, 16, &r);
    MPI_Type_vector(3, 2, -4, r, &t); check_and_free(t, "vector(resized), negative stride");
    MPI_Type_create_hvector(4, 1, -20, r, &t); check_and_free(t, "hvector(resized), negative stride");
    {
        int sz[3] = {4, 5, 3}, sub[3] = {2, 2, 1}, st[3] = {1, 1, 2};
        MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, r, &t); check_and_free(t, "subarray(resized)");
        MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_FORTRAN, r, &t);
        check_and_free(t, "subarray(resized), Fortran order");
        /* an empty subarray: MPICH accepts subsize 0, Open MPI rejects it
         * (MPI-3.1 asks for subsizes >= 1); either way the registry agrees */
        int zero[3] = {2, 0, 1};
        uint64_t before = ROOT.types.count;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Type_create_subarray(3, sz, zero, st, MPI_ORDER_C, r, &t);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        if (rc == MPI_SUCCESS)
            check_and_free(t, "subarray, empty");
        else
            CHECK(ROOT.types.count == before, "rejected empty subarray recorded");
    }
    {
        int gs[2] = {7, 10}, ps[2] = {2, 3};
        int dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
        int dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, args[2] = {4, 3};
        for (int rank = 0; rank < 6; rank++) {
            MPI_Type_create_darray(6, rank, 2, gs, dist, dflt, ps, MPI_ORDER_C, r, &t);
            check_and_free(t, "darray(resized), default dargs");
            MPI_Type_create_darray(6, rank, 2, gs, dist, args, ps, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
            check_and_free(t, "darray, explicit dargs, Fortran order");
        }
    }
    MPI_Type_free(&r);
#if MPIREG_HAVE_MPI1_NAMES
    /* MPI-1 markers: sticky bounds under other constructors */
    {
        int b[3] = {1, 1, 1};
        MPI_Aint d[3] = {-8, 0, 20};
        MPI_Datatype ty[3] = {MPI_LB, MPI_INT, MPI_UB};
        MPI_Type_struct(3, b, d, ty, &s);
        MPI_Type_vector(2, 1, 1, s, &t); check_and_free(t, "vector(struct with LB/UB)");
        MPI_Type_create_hindexed(2, bl2, d, s, &t); check_and_free(t, "hindexed(struct with LB/UB)");
        MPI_Datatype ty2[2] = {s, MPI_CHAR};
        MPI_Aint d2[2] = {0, 40};
        MPI_Type_create_struct(2, bl2, d2, ty2, &t); check_and_free(t, "struct(struct with LB/UB, char)");
        MPI_Type_free(&s);
    }
#endif
    /* spans beyond 32 bits (an MPI-3 library: through MPI_Aint arguments
     * and a contiguous of a contiguous) */
#if MPI_VERSION >= 4
    MPI_Type_create_hvector_c(3, 2, (MPI_Count)1 << 40, MPI_DOUBLE, &t); check_and_free(t, "hvector_c, 2^40 stride");
    MPI_Type_contiguous_c((MPI_Count)1 << 34, MPI_INT, &t); check_and_free(t, "contiguous_c(2^34)");
    MPI_Type_create_resized_c(MPI_INT, -((MPI_Count)1 << 36), (MPI_Count)1 << 37, &t);
    check_and_free(t, "resized_c, 2^36 bounds");
#else
    MPI_Type_create_hvector(3, 2, (MPI_Aint)1 << 40, MPI_DOUBLE, &t); check_and_free(t, "hvector, 2^40 stride");
    MPI_Type_contiguous(1 << 17, MPI_INT, &z);
    MPI_Type_contiguous(1 << 17, z, &t); check_and_free(t, "contiguous(contiguous), 2^34 ints");
    MPI_Type_free(&z);
    MPI_Type_create_resized(MPI_INT, -((MPI_Aint)1 << 36), (MPI_Aint)1 << 37, &t);
    check_and_free(t, "resized, 2^36 bounds");
#endif
}

static void test_f90(void)
{
    MPI_Datatype t1, t2, t3, t4, c;
    uint64_t live0 = ROOT.types.count;
    MPI_Type_create_f90_integer(9, &t1);
    check_type(t1, "f90_integer", 0);
    uint64_t live1 = ROOT.types.count;
    MPI_Type_create_f90_integer(9, &t2);
    CHECK(t1 == t2, "MPI caches f90 types (%llx %llx)", rt_key(t1), rt_key(t2));
    CHECK(ROOT.types.count == live1, "f90 type recorded twice (%llu -> %llu)",
          (unsigned long long)live1, (unsigned long long)ROOT.types.count);
    MPI_Type_create_f90_real(6, 30, &t3); check_type(t3, "f90_real", 0);
    MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &t4); check_type(t4, "f90_complex", 0);
    CHECK(ROOT.types.count >= live0, "live records went down");
    MPI_Type_contiguous(2, t3, &c);
    check_and_free(c, "contiguous(f90_real)");
    /* f90 types are predefined in MPI terms: never freed */
}

static void test_lifetimes(void)
{
    MPI_Datatype x, y, b, d, got[4];
    uint64_t live0 = ROOT.types.count;

    /* handle reuse: MPICH gives a destroyed handle to the next new type at
     * once; Open MPI's handles are object addresses, which come back when
     * malloc reuses the memory (an object of the same shape, here; never
     * under AddressSanitizer).  Tried a few times until MPI reuses one. */
    int reused = 0;
    for (int round = 0; round < 16 && !reused; round++) {
        MPI_Type_contiguous(4, MPI_INT, &x);
        const struct mpireg_record *rx = mpireg_lookup(x);
        uint64_t sx = rx ? rx->serial : 0;
        MPI_Datatype xold = x;
        MPI_Type_free(&x);
        CHECK(mpireg_lookup(xold) == NULL, "freed type still in the registry");
        CHECK(ROOT.types.count == live0, "live_records %llu after free, want %llu",
              (unsigned long long)ROOT.types.count, (unsigned long long)live0);
        MPI_Type_contiguous(6, MPI_SHORT, &y);
        reused = y == xold;
        const struct mpireg_record *ry = mpireg_lookup(y);
        CHECK(ry && ry->combiner == MPI_COMBINER_CONTIGUOUS && mpireg_integers(ry)[0] == 6 &&
                  mpireg_datatypes(ry)[0] == mpireg_lookup(MPI_SHORT) && ry->serial > sx,
              "new type (handle %s): record combiner %d serial %llu (old serial %llu)",
              reused ? "reused" : "new", ry ? ry->combiner : -1, ry ? (unsigned long long)ry->serial : 0ULL,
              (unsigned long long)sx);
        check_and_free(y, "contiguous after a free");
    }
#ifdef MPICH_VERSION
    CHECK(reused, "MPICH reuses a destroyed handle at once");
#endif
    if (rt_rank == 0)
        printf("oracle: %s\n", reused ? "a destroyed handle came back for a new type"
                                      : "no handle came back in 16 rounds (malloc under a sanitizer)");

    /* freed base still used by a derived type */
    MPI_Type_contiguous(2, MPI_INT, &b);
    MPI_Datatype bh = b;
    MPI_Type_vector(3, 1, 2, b, &d);
    const struct mpireg_record *rb = mpireg_lookup(b), *rd = mpireg_lookup(d);
    CHECK(rb && rd && mpireg_datatypes(rd)[0] == rb, "vector's child is the contiguous record");
    CHECK(rb && rb->parent_refs == 1 && rb->user_refs == 1, "base refs %u/%u", rb ? rb->user_refs : 99,
          rb ? rb->parent_refs : 99);
    MPI_Type_free(&b);
    rb = mpireg_lookup(bh);
    CHECK(rb && (rb->flags & MPIREG_FLAG_FREED) && rb->user_refs == 0 && rb->parent_refs == 1,
          "freed base kept: found %p flags %u refs %u/%u", (void *)rb, rb ? rb->flags : 0,
          rb ? rb->user_refs : 99, rb ? rb->parent_refs : 99);
    CHECK(ROOT.types.count == live0 + 2, "live_records %llu, want %llu", (unsigned long long)ROOT.types.count,
          (unsigned long long)live0 + 2);
    check_type(d, "vector of a freed base", 0);

    /* get_contents hands the base out again: a new user reference to it
     * (MPICH), or a new copy of it (Open MPI), a new type the program holds */
    {
        int ints[8];
        MPI_Aint addrs[8];
        /* exact counts: Open MPI 4.1 reads max_datatypes entries of the array */
        MPI_Type_get_contents(d, 3, 0, 1, ints, addrs, got);
#if MPI_VERSION >= 4
        MPI_Count ni = 3, na = 0, nl = 0, nd = 1;
        int ci[8];
        MPI_Aint ca[8];
        MPI_Count cl[8];
        MPI_Type_get_contents_c(d, ni, na, nl, nd, ci, ca, cl, got + 1);
#else
        MPI_Type_get_contents(d, 3, 0, 1, ints, addrs, got + 1);
#endif
        CHECK((got[0] == bh) == !contents_copies && (got[1] == bh) == !contents_copies,
              "get_contents returns the base handle (or copies: %d)", contents_copies);
        rb = mpireg_lookup(bh);
        if (!contents_copies) {
            CHECK(rb && !(rb->flags & MPIREG_FLAG_FREED) && rb->user_refs == 2,
                  "after get_contents: flags %u user_refs %u", rb ? rb->flags : 0, rb ? rb->user_refs : 99);
        } else {
            CHECK(rb && (rb->flags & MPIREG_FLAG_FREED) && rb->user_refs == 0, "base untouched by copies");
            for (int k = 0; k < 2; k++) {
                const struct mpireg_record *rc = mpireg_lookup(got[k]);
                CHECK(rc && rc != rb && rc->user_refs == 1 && rc->parent_refs == 0 && rc->created_at &&
                          !(rc->flags & MPIREG_FLAG_FREED),
                      "copy %d: a record the program holds", k);
                check_type(got[k], "copy handed out by get_contents", 0);
            }
            CHECK(ROOT.types.count == live0 + 4, "live_records %llu with two copies",
                  (unsigned long long)ROOT.types.count);
        }
        MPI_Datatype copies[2] = {got[0], got[1]};
        MPI_Type_free(&got[0]);
        MPI_Type_free(&got[1]);
        rb = mpireg_lookup(bh);
        CHECK(rb && (rb->flags & MPIREG_FLAG_FREED) && rb->user_refs == 0 && rb->parent_refs == 1,
              "returned handles freed: flags %u refs %u/%u", rb ? rb->flags : 0, rb ? rb->user_refs : 99,
              rb ? rb->parent_refs : 99);
        CHECK(!contents_copies || (mpireg_lookup(copies[0]) == NULL && mpireg_lookup(copies[1]) == NULL &&
                                   ROOT.types.count == live0 + 2),
              "copies gone once freed");
    }
    /* commit and names */
    MPI_Type_commit(&d);
    rd = mpireg_lookup(d);
    CHECK(rd && (rd->flags & MPIREG_FLAG_COMMITTED), "commit flag");
    MPI_Type_set_name(d, "first name");
    MPI_Type_set_name(d, "particle_t");
    rd = mpireg_lookup(d);
    CHECK(rd && mpireg_name(rd) && strcmp(mpireg_name(rd), "particle_t") == 0, "name %s", rd && mpireg_name(rd) ? mpireg_name(rd) : "(null)");
    MPI_Type_set_name(MPI_INT, "my int");
    CHECK(strcmp(mpireg_name(mpireg_lookup(MPI_INT)), "MPI_INT") == 0, "predefined name kept: %s",
          mpireg_name(mpireg_lookup(MPI_INT)));

    MPI_Datatype dh = d;
    MPI_Type_free(&d);
    CHECK(mpireg_lookup(dh) == NULL && mpireg_lookup(bh) == NULL, "both gone after freeing the derived type");
    CHECK(ROOT.types.count == live0, "live_records %llu, want %llu", (unsigned long long)ROOT.types.count,
          (unsigned long long)live0);

    /* the same derived child twice */
    {
        MPI_Datatype c2, st;
        MPI_Type_contiguous(2, MPI_INT, &c2);
        MPI_Datatype cch = c2;
        int sbl[3] = {1, 1, 1};
        MPI_Aint sad[3] = {0, 64, 128};
        MPI_Datatype ty[3] = {c2, MPI_DOUBLE, c2};
        MPI_Type_create_struct(3, sbl, sad, ty, &st);
        const struct mpireg_record *rc = mpireg_lookup(c2);
        CHECK(rc && rc->parent_refs == 2, "child used twice: parent_refs %u", rc ? rc->parent_refs : 99);
        MPI_Type_free(&c2);
        check_type(st, "struct with a repeated child", 0);
        MPI_Type_free(&st);
        CHECK(mpireg_lookup(cch) == NULL && ROOT.types.count == live0, "repeated child released");
    }

    /* a chain freed from the top down and from the bottom up */
    MPI_Datatype l[5];
    MPI_Type_contiguous(2, MPI_INT, &l[0]);
    for (int i = 1; i < 5; i++)
        MPI_Type_contiguous(2, l[i - 1], &l[i]);
    for (int i = 0; i < 4; i++)
        MPI_Type_free(&l[i]);
    CHECK(ROOT.types.count == live0 + 5, "chain kept alive by its top");
    check_type(l[4], "chain", 0);
    MPI_Type_free(&l[4]);
    CHECK(ROOT.types.count == live0, "chain released in cascade: %llu", (unsigned long long)ROOT.types.count);
}

/* Types built behind libmpireg's back (PMPI directly, as MPICH's Fortran
 * 2008 bindings do) are adopted from get_contents when used as children. */
static void test_adopted(void)
{
    MPI_Datatype h1, h2, t;
    uint64_t live0 = ROOT.types.count;
    PMPI_Type_vector(2, 1, 3, MPI_INT, &h1);
    PMPI_Type_create_resized(h1, -4, 40, &h2);
    CHECK(mpireg_lookup(h1) == NULL && mpireg_lookup(h2) == NULL, "PMPI types are not recorded");
    MPI_Type_contiguous(3, h2, &t);
    check_type(t, "contiguous(adopted resized(adopted vector))", 0);
    /* h2 is adopted under its handle; h1 too when get_contents hands out
     * the child's own handle, else (a copy, freed at once) it is described
     * outside the table, as h2's child only */
    const struct mpireg_record *r2 = mpireg_lookup(h2);
    const struct mpireg_record *r1 = r2 ? mpireg_datatypes(r2)[0] : NULL;
    CHECK(r1 && r2 && r1->user_refs == 0 && r2->user_refs == 0 && r1->parent_refs == 1 && r2->parent_refs == 1 &&
              r2->created_at == 0 && !(r2->flags & MPIREG_FLAG_FREED) && r1->combiner == MPI_COMBINER_VECTOR,
          "adopted records: %p %p", (void *)r1, (void *)r2);
    CHECK(mpireg_lookup(h1) == (contents_copies ? NULL : r1), "h1 in the table: %p", (void *)mpireg_lookup(h1));
    CHECK(ROOT.types.count == live0 + (contents_copies ? 2 : 3), "live %llu", (unsigned long long)ROOT.types.count);
    MPI_Type_free(&t);
    CHECK(ROOT.types.count == live0 && mpireg_lookup(h1) == NULL, "adopted records released with their parent");
    /* MPI still has them: the program's handles stay valid */
    MPI_Count size = 0;
    CHECK(mpireg_lookup(h2) == NULL && PMPI_Type_size_x(h2, &size) == MPI_SUCCESS && size == 2 * sizeof(int),
          "hidden type still valid in MPI, not in the registry");
    PMPI_Type_free(&h2);
    PMPI_Type_free(&h1);
}

static void test_predefined(void)
{
    CHECK(ROOT.n_predefined > 60, "only %u predefined types", ROOT.n_predefined);
    for (uint32_t i = 0; i < ROOT.n_predefined; i++) {
        const struct mpireg_record *p = &ROOT.predefined[i].record;
        MPI_Datatype h;
        memcpy(&h, &p->handle, sizeof h);
        CHECK(h != MPI_DATATYPE_NULL, "%s is MPI_DATATYPE_NULL", mpireg_name(p));
        CHECK(mpireg_lookup(h) == p, "lookup(%s)", mpireg_name(p));
        CHECK(p->flags & MPIREG_FLAG_PREDEFINED, "%s flags", mpireg_name(p));
        CHECK(p->combiner == MPI_COMBINER_NAMED, "%s combiner", mpireg_name(p));
        CHECK(p->kind > MPIREG_KIND_NONE && p->kind < MPIREG_KIND_COUNT, "%s kind %u", mpireg_name(p), p->kind);
        CHECK(mpireg_name(p) && strncmp(mpireg_name(p), "MPI", 3) == 0, "name");
        for (uint32_t j = 0; j < i; j++)
            CHECK(ROOT.predefined[j].record.handle != p->handle, "%s listed twice", mpireg_name(p));
        check_type(h, mpireg_name(p), 0);
        /* its Fortran handle finds it: itself (MPICH), or through root.fortran */
        MPI_Fint f = PMPI_Type_c2f(h);
        uint64_t fkey = 0;
        memcpy(&fkey, &f, sizeof f);
        const uint64_t *fe = rt_table_lookup("root.fortran", fkey);
        CHECK(fkey == p->handle ? fe == NULL : fe && fe[1] == p->handle && rt_constant("fortran.handle") == 8,
              "%s: Fortran handle %d not mapped to its C handle", mpireg_name(p), (int)f);
        if (p->kind == MPIREG_KIND_PAIR) {
            CHECK(p->n_datatypes == 2 && p->n_addresses == 2, "%s pair args", mpireg_name(p));
            const struct mpireg_record *v = mpireg_datatypes(p)[0], *ix = mpireg_datatypes(p)[1];
            CHECK(v && ix && mpireg_addresses(p)[0] == 0 && mpireg_addresses(p)[1] >= v->size &&
                      p->size == v->size + ix->size,
                  "%s: members %s/%s offsets 0/%ld size %lld", mpireg_name(p), v ? mpireg_name(v) : "?", ix ? mpireg_name(ix) : "?",
                  (long)mpireg_addresses(p)[1], (long long)p->size);
        }
    }
    struct di { double v; int i; };
    struct ldi { long double v; int i; };
    const struct mpireg_record *p = mpireg_lookup(MPI_DOUBLE_INT);
    CHECK(p && p->kind == MPIREG_KIND_PAIR && mpireg_datatypes(p)[0] == mpireg_lookup(MPI_DOUBLE) &&
              mpireg_datatypes(p)[1] == mpireg_lookup(MPI_INT) &&
              mpireg_addresses(p)[1] == offsetof(struct di, i) && p->extent == sizeof(struct di),
          "MPI_DOUBLE_INT");
    p = mpireg_lookup(MPI_LONG_DOUBLE_INT);
    CHECK(p && mpireg_addresses(p)[1] == offsetof(struct ldi, i), "MPI_LONG_DOUBLE_INT offset");
    p = mpireg_lookup(MPI_2INTEGER);
    CHECK(p && mpireg_datatypes(p)[0] == mpireg_lookup(MPI_INTEGER) && mpireg_addresses(p)[1] == 4,
          "MPI_2INTEGER");
    CHECK(mpireg_lookup(MPI_DATATYPE_NULL) == NULL, "MPI_DATATYPE_NULL is not a type");
    const struct mpireg_record *q = mpireg_lookup(MPI_LONG_DOUBLE);
    CHECK(q && q->kind == MPIREG_KIND_FLOAT && q->size == sizeof(long double), "MPI_LONG_DOUBLE");
#if MPIREG_HAVE_MPI1_NAMES
    q = mpireg_lookup(MPI_LB);
    CHECK(q && q->kind == MPIREG_KIND_LB && strcmp(mpireg_name(q), "MPI_LB") == 0, "MPI_LB");
#else
    for (uint32_t i = 0; i < ROOT.n_predefined; i++)
        CHECK(ROOT.predefined[i].record.kind != MPIREG_KIND_LB && ROOT.predefined[i].record.kind != MPIREG_KIND_UB,
              "%s: a marker type this mpi.h does not define", ROOT.predefined[i].name);
#endif
    q = mpireg_lookup(MPI_C_DOUBLE_COMPLEX);
    CHECK(q && q->kind == MPIREG_KIND_COMPLEX && q->size == 16, "MPI_C_DOUBLE_COMPLEX");
}

static void test_root(void)
{
    CHECK(ROOT.magic == MPIREG_MAGIC, "magic");
    CHECK(ROOT.layout_version == MPIREG_LAYOUT_VERSION, "version");
    CHECK(ROOT.root_size == sizeof(struct mpireg_root), "root_size");
    CHECK(rt_constant("record.sizeof") == sizeof(struct mpireg_record), "record.sizeof");
    CHECK(rt_constant("record.args") == sizeof(struct mpireg_record), "record.args");
    CHECK(rt_constant("hash.fmix64") == 1 && rt_constant("probe.linear") == 1, "probe rule");
    CHECK(rt_constant("MPI_COMBINER_HINDEXED_BLOCK") == MPI_COMBINER_HINDEXED_BLOCK, "combiner");
    CHECK(rt_constant("MPI_DISTRIBUTE_DFLT_DARG") == MPI_DISTRIBUTE_DFLT_DARG, "dflt darg");
    CHECK(rt_constant("MPI_DATATYPE_NULL") == (int64_t)rt_key(MPI_DATATYPE_NULL), "null key");
    CHECK(rt_constant("kind.ub") == MPIREG_KIND_UB, "kind.ub");
    CHECK(rt_constant("sizeof.MPI_Datatype") == sizeof(MPI_Datatype), "sizeof.MPI_Datatype");
    /* every name the gdb reader relies on */
    static const char *const required[] = {
        "record.sizeof", "record.handle", "record.created_at", "record.size", "record.lb",
        "record.extent", "record.serial", "record.user_refs", "record.parent_refs", "record.combiner",
        "record.flags", "record.kind", "record.n_integers", "record.n_addresses", "record.n_large_counts",
        "record.n_datatypes", "record.args", "table.sizeof", "table.slots", "table.capacity", "table.count",
        "table.max_probe", "root.types", "root.names", "root.fortran", "fortran.handle",
        "sizeof.MPI_Fint", "name.record", "name.text", "predefined.sizeof",
        "predefined.name", "sizeof.int", "sizeof.MPI_Aint", "sizeof.MPI_Count", "sizeof.MPI_Datatype",
        "sizeof.pointer", "hash.fmix64", "probe.linear", "flag.committed", "flag.freed",
        "flag.predefined", "flag.named", "kind.int", "kind.uint", "kind.float", "kind.complex",
        "kind.char", "kind.bool", "kind.byte", "kind.packed", "kind.pair", "kind.lb", "kind.ub",
        "MPI_COMBINER_NAMED", "MPI_COMBINER_DUP", "MPI_COMBINER_CONTIGUOUS", "MPI_COMBINER_VECTOR",
        "MPI_COMBINER_HVECTOR", "MPI_COMBINER_INDEXED", "MPI_COMBINER_HINDEXED",
        "MPI_COMBINER_INDEXED_BLOCK", "MPI_COMBINER_HINDEXED_BLOCK", "MPI_COMBINER_STRUCT",
        "MPI_COMBINER_SUBARRAY", "MPI_COMBINER_DARRAY", "MPI_COMBINER_F90_REAL",
        "MPI_COMBINER_F90_COMPLEX", "MPI_COMBINER_F90_INTEGER", "MPI_COMBINER_RESIZED", "MPI_ORDER_C",
        "MPI_ORDER_FORTRAN", "MPI_DISTRIBUTE_BLOCK", "MPI_DISTRIBUTE_CYCLIC", "MPI_DISTRIBUTE_NONE",
        "MPI_DISTRIBUTE_DFLT_DARG", "MPI_DATATYPE_NULL"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        rt_constant(required[i]);
#if MPIREG_HAVE_MPI1_NAMES
    CHECK(rt_constant("MPI_COMBINER_HVECTOR_INTEGER") == MPI_COMBINER_HVECTOR_INTEGER &&
              rt_constant("MPI_COMBINER_HINDEXED_INTEGER") == MPI_COMBINER_HINDEXED_INTEGER &&
              rt_constant("MPI_COMBINER_STRUCT_INTEGER") == MPI_COMBINER_STRUCT_INTEGER,
          "MPI-1 combiners");
#endif
    CHECK(rt_constant("record.user_refs") == offsetof(struct mpireg_record, user_refs), "record.user_refs");
    CHECK(rt_constant("table.max_probe") == offsetof(struct mpireg_table, max_probe), "table.max_probe");
    CHECK(rt_constant("root.names") == offsetof(struct mpireg_root, names), "root.names");
    CHECK(rt_constant("predefined.name") == offsetof(struct mpireg_predefined, name), "predefined.name");
    CHECK(rt_constant("MPI_ORDER_FORTRAN") == MPI_ORDER_FORTRAN, "MPI_ORDER_FORTRAN");
    for (uint32_t i = 0; i < ROOT.n_constants; i++)
        for (uint32_t j = 0; j < i; j++)
            CHECK(strcmp(ROOT.constants[i].name, ROOT.constants[j].name) != 0, "duplicate constant %s",
                  ROOT.constants[i].name);
    CHECK(ROOT.seq % 2 == 0, "seq %llu odd outside updates", (unsigned long long)ROOT.seq);
}

/* Every record in the map is found by the reader-style lookup. */
static void reader_one(const struct mpireg_record *r, void *ctx)
{
    MPI_Datatype h;
    memcpy(&h, &r->handle, sizeof h);
    if (rt_reader_lookup(h) != r) {
        FAIL("reader lookup misses handle %#llx", (unsigned long long)r->handle);
    }
    ++*(int *)ctx;
}

static void test_many(void)
{
    /* enough types to make the table grow a few times (and shrink back) */
    enum { N = 3000 };
    static MPI_Datatype t[N];
    uint64_t live0 = ROOT.types.count;
    for (int i = 0; i < N; i++)
        MPI_Type_vector(i + 1, 1, 2, i % 2 ? MPI_INT : MPI_DOUBLE, &t[i]);
    CHECK(ROOT.types.count == live0 + N, "live %llu", (unsigned long long)ROOT.types.count);
    int seen = 0;
    mpireg_foreach(reader_one, &seen);
    CHECK((uint64_t)seen == ROOT.types.count, "foreach %d vs live %llu", seen, (unsigned long long)ROOT.types.count);
    for (int i = 0; i < N; i += 97)
        check_type(t[i], "many", 0);
    for (int i = 0; i < N; i++)
        MPI_Type_free(&t[i]);
    CHECK(ROOT.types.count == live0, "all freed");
}

int main(int argc, char **argv)
{
    rt_bind();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_rank);
    {
        MPI_Datatype child, parent, got;
        int ints[1];
        MPI_Aint addrs[1];
        PMPI_Type_contiguous(1, MPI_INT, &child);
        PMPI_Type_contiguous(2, child, &parent);
        PMPI_Type_get_contents(parent, 1, 0, 1, ints, addrs, &got);
        contents_copies = got != child;
        PMPI_Type_free(&got);
        PMPI_Type_free(&parent);
        PMPI_Type_free(&child);
        if (rt_rank == 0)
            printf("oracle: get_contents hands out %s\n", contents_copies ? "copies" : "the children's own handles");
    }
    uint64_t live0 = ROOT.types.count;
    CHECK(live0 == 0, "registry not empty at start: %llu", (unsigned long long)live0);
    test_root();
    test_predefined();
    test_constructors();
    test_shapes();
    test_lifetimes();
    test_many();
    test_adopted();
    uint64_t before_f90 = ROOT.types.count;
    CHECK(before_f90 == live0, "leftover records: %llu", (unsigned long long)before_f90);
    test_f90();
    CHECK(rt_foreach_count() == ROOT.types.count, "foreach count %llu vs live_records %llu",
          (unsigned long long)rt_foreach_count(), (unsigned long long)ROOT.types.count);
    CHECK(ROOT.seq % 2 == 0, "seq odd");
    return rt_finish("oracle");
}
