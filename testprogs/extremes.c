/*
 * extremes: legal datatypes at the edges of what MPI accepts, for the
 * corpus tests (tests/frontends/test_fe_extremes.py, tests/job/
 * test_job_extremes.py): every printer and command must answer on each of
 * them, or refuse in one line naming the limit, without crashing, hanging
 * or flooding gdb.
 *
 * Every case is a row of `extremes` (name, handle, whether this MPI built
 * it, a buffer); a constructor the MPI refuses leaves `built` 0 (the tests
 * skip it: what MPI refuses is not a legal type).  Shapes:
 *
 *   block counts   10^6-block indexed, 9,000-block hindexed / indexed_block /
 *                  hindexed_block / struct (more than gdb's max-value-size
 *                  of 64 KiB as an array of 8-byte arguments), a type
 *                  holding one, a 3-member struct
 *   depth          100 and 18 nested dups (stride-0 loops), the README's
 *                  1000-level chain, a 2000-level one (beyond the default
 *                  limit; the highest 'set mpipp max-depth' allows),
 *                  contiguous(2) nested 16 deep (65,536 elements)
 *   dimensions     32-dimension subarray (one element) and darray (2^32
 *                  elements), 2-D subarrays [2^24, 2^24] and [2^30, 2^30],
 *                  a 2-D darray [2^30, 2^30] cut among 4 processes
 *   empty / zero   contiguous(0), 10^6 and 2^31-1 repetitions of it,
 *                  vector with blocklength 0, indexed and struct of 0
 *                  blocks, zero-size hindexed/struct/resized with bounds
 *                  MPI defines its own way, MPI_LB, MPI_UB and a type of
 *                  markers alone (MPI-1 names, where the MPI has them)
 *   bounds         negative strides and displacements, lb -2^40
 *   overflow       an hindexed whose extent overflows MPI_Aint, counts
 *                  whose sizes exceed 2^31 and 2^62 bytes, a 2^30-char
 *                  contiguous (2^30 typemap entries); MPI-4 hvector_c
 *                  whose true extent passes 2^64, and one whose extent
 *                  MPICH's own arithmetic wraps to 0
 *
 * show_locals() holds the most dangerous ones as locals and arguments (for
 * info locals, bt full, frame-arguments, MI -stack-list-variables) and
 * stops in stop_here(); make_type() returns one (for finish).
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

#define BIG_BLOCKS 1000000
#define MANY_BLOCKS 9000
#define MAX_EXTREMES 64

struct extreme {
    const char *name;
    MPI_Datatype type;
    int built; /* 0: this MPI refused the constructor */
    void *buf; /* NULL: no buffer can hold it (its extent is beyond memory) */
};

struct extreme extremes[MAX_EXTREMES];
int n_extremes;
char small_buf[4096];

void __attribute__((noinline)) stop_here(void)
{
    __asm__ volatile("" ::: "memory");
}

/* rc: what the constructor returned into *made (read after the call: C
 * leaves the order of a call's arguments open) */
static void add(const char *name, int rc, MPI_Datatype *made, size_t buf_bytes)
{
    MPI_Datatype t = *made;
    struct extreme *e = &extremes[n_extremes++];
    e->name = name;
    e->type = MPI_DATATYPE_NULL;
    e->built = 0;
    e->buf = NULL;
    if (rc != MPI_SUCCESS || MPI_Type_commit(&t) != MPI_SUCCESS)
        return;
    e->built = 1;
    if (strncmp(name, "mpi_", 4))  /* predefined types keep their names */
        MPI_Type_set_name(t, (char *)name);
    e->type = t;
    if (buf_bytes)
        e->buf = buf_bytes <= sizeof small_buf ? (void *)small_buf : calloc(1, buf_bytes);
}

static MPI_Datatype named(const char *name)
{
    for (int k = 0; k < n_extremes; k++)
        if (!strcmp(extremes[k].name, name))
            return extremes[k].type;
    return MPI_DATATYPE_NULL;
}

/* `levels` dups over MPI_INT */
static int dups(int levels, MPI_Datatype *out)
{
    MPI_Datatype t = MPI_INT, next;
    for (int k = 0; k < levels; k++) {
        int rc = MPI_Type_dup(t, &next);
        if (rc != MPI_SUCCESS)
            return rc;
        if (t != MPI_INT)
            MPI_Type_free(&t);
        t = next;
    }
    *out = t;
    return MPI_SUCCESS;
}

/* `levels` levels over MPI_INT (contiguous / vector / resized / struct) */
static int chain(int levels, MPI_Datatype *out)
{
    MPI_Datatype t = MPI_INT, next;
    for (int k = 0; k < levels; k++) {
        int one = 1, rc;
        MPI_Aint zero = 0;
        switch (k % 4) {
        case 0: rc = MPI_Type_contiguous(1, t, &next); break;
        case 1: rc = MPI_Type_vector(1, 1, 1, t, &next); break;
        case 2: rc = MPI_Type_create_resized(t, 0, 4, &next); break;
        default: rc = MPI_Type_create_struct(1, &one, &zero, &t, &next); break;
        }
        if (rc != MPI_SUCCESS)
            return rc;
        if (t != MPI_INT)
            MPI_Type_free(&t);
        t = next;
    }
    *out = t;
    return MPI_SUCCESS;
}

static int nested_pairs(int levels, MPI_Datatype *out)
{
    MPI_Datatype t = MPI_CHAR, next;
    for (int k = 0; k < levels; k++) {
        int rc = MPI_Type_contiguous(2, t, &next);
        if (rc != MPI_SUCCESS)
            return rc;
        if (t != MPI_CHAR)
            MPI_Type_free(&t);
        t = next;
    }
    *out = t;
    return MPI_SUCCESS;
}

static void block_counts(void)
{
    MPI_Datatype t;
    int *bl = malloc(BIG_BLOCKS * sizeof *bl), *disp = malloc(BIG_BLOCKS * sizeof *disp);
    for (int i = 0; i < BIG_BLOCKS; i++) {
        bl[i] = 1 + i % 3;
        disp[i] = 7 * i + i % 5;
    }
    add("idx_big", MPI_Type_indexed(BIG_BLOCKS, bl, disp, MPI_INT, &t), &t,
        (7 * (size_t)BIG_BLOCKS + 8) * sizeof(int));
    add("idx_10", MPI_Type_indexed(10, bl, disp, MPI_INT, &t), &t, 80 * sizeof(int));
    free(bl);
    free(disp);

    int ones[MANY_BLOCKS], idisp[MANY_BLOCKS];
    MPI_Aint adisp[MANY_BLOCKS];
    MPI_Datatype types[MANY_BLOCKS];
    for (int i = 0; i < MANY_BLOCKS; i++) {
        ones[i] = 1;
        idisp[i] = 3 * i;
        adisp[i] = 16 * (MPI_Aint)i;
        types[i] = i % 2 ? MPI_DOUBLE : MPI_INT;
    }
    size_t many = 16 * (size_t)MANY_BLOCKS;
    add("hidx_many", MPI_Type_create_hindexed(MANY_BLOCKS, ones, adisp, MPI_DOUBLE, &t), &t, many);
    add("idxblk_many", MPI_Type_create_indexed_block(MANY_BLOCKS, 2, idisp, MPI_INT, &t), &t, many);
    add("hidxblk_many", MPI_Type_create_hindexed_block(MANY_BLOCKS, 1, adisp, MPI_INT, &t), &t,
        many);
    add("struct_many", MPI_Type_create_struct(MANY_BLOCKS, ones, adisp, types, &t), &t, many);
    add("holds_many", MPI_Type_contiguous(2, named("hidx_many"), &t), &t, 2 * many);
    add("struct3", MPI_Type_create_struct(3, ones, adisp, types, &t), &t, 48);
}

static void depths(void)
{
    MPI_Datatype t;
    add("dups_100", dups(100, &t), &t, 4);
    add("dups_18", dups(18, &t), &t, 4);
    add("chain_1000", chain(1000, &t), &t, 4);
    add("chain_2000", chain(2000, &t), &t, 4);
    add("pairs_16", nested_pairs(16, &t), &t, 1 << 16);
}

static void dimensions(void)
{
    MPI_Datatype t;
    int sizes[32], subsizes[32], starts[32], distribs[32], dargs[32], psizes[32];
    for (int d = 0; d < 32; d++) {
        sizes[d] = 2;
        subsizes[d] = 1;
        starts[d] = 1;
        distribs[d] = MPI_DISTRIBUTE_BLOCK;
        dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
        psizes[d] = 1;
    }
    add("sub_32", MPI_Type_create_subarray(32, sizes, subsizes, starts, MPI_ORDER_C, MPI_CHAR,
                                           &t), &t, 0);
    add("darr_32", MPI_Type_create_darray(1, 0, 32, sizes, distribs, dargs, psizes, MPI_ORDER_C,
                                          MPI_CHAR, &t), &t, 0);
    int s24[2] = {1 << 24, 1 << 24}, sub2[2] = {2, 3}, st2[2] = {5, 7};
    add("sub_2_24", MPI_Type_create_subarray(2, s24, sub2, st2, MPI_ORDER_C, MPI_CHAR, &t), &t, 0);
    int s30[2] = {1 << 30, 1 << 30};
    add("sub_2_30", MPI_Type_create_subarray(2, s30, sub2, st2, MPI_ORDER_FORTRAN, MPI_CHAR, &t),
        &t, 0);
    int dist2[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int darg2[2] = {MPI_DISTRIBUTE_DFLT_DARG, 1 << 20}, ps2[2] = {2, 2};
    add("darr_2_30", MPI_Type_create_darray(4, 1, 2, s30, dist2, darg2, ps2, MPI_ORDER_C, MPI_CHAR,
                                            &t), &t, 0);
}

static void empty_and_zero(void)
{
    MPI_Datatype t, zero;
    add("cont_0", MPI_Type_contiguous(0, MPI_INT, &t), &t, 4);
    zero = named("cont_0");
    add("empty_big", MPI_Type_contiguous(BIG_BLOCKS, zero, &t), &t, 4);
    add("empty_huge", MPI_Type_contiguous(0x7fffffff, zero, &t), &t, 4);
    add("vec_bl0", MPI_Type_vector(3, 0, 4, MPI_INT, &t), &t, 64);
    int bl0[2] = {0, 0}, bl01[2] = {0, 1};
    add("idx_0", MPI_Type_indexed(0, bl0, bl0, MPI_INT, &t), &t, 4);
    MPI_Aint none[1] = {0};
    MPI_Datatype no_types[1] = {MPI_INT};
    add("struct_0", MPI_Type_create_struct(0, bl0, none, no_types, &t), &t, 4);
    MPI_Aint spread[2] = {-8, 24};
    add("hidx_zero", MPI_Type_create_hindexed(2, bl0, spread, MPI_INT, &t), &t, 64);
    MPI_Datatype pair[2] = {MPI_DOUBLE, MPI_INT};
    add("struct_zero_neg", MPI_Type_create_struct(2, bl01, spread, pair, &t), &t, 64);
    add("resized_0", MPI_Type_create_resized(zero, -8, 16, &t), &t, 64);
#if HAVE_MPI1_NAMES
    t = MPI_UB;
    add("mpi_ub", MPI_SUCCESS, &t, 4);
    t = MPI_LB;
    add("mpi_lb", MPI_SUCCESS, &t, 4);
    int bl11[2] = {1, 1};
    MPI_Aint bounds[2] = {-16, 32};
    MPI_Datatype markers[2] = {MPI_LB, MPI_UB};
    add("markers_only", MPI_Type_create_struct(2, bl11, bounds, markers, &t), &t, 64);
#endif
}

/* MPI-4 large counts (MPICH 4; Open MPI 4.1 has no _c constructors: the
 * rows exist there too, unbuilt).  hvec_c_2_64: a true extent of
 * (2^62+1)*24+8 bytes, beyond 2^64; hvec_c_wrap: (2^62-1)*2^40+8 bytes,
 * beyond MPI_Count, which MPICH reports as extent 0 (its arithmetic wraps).
 * Both legal: MPI built and committed them. */
static void large_counts(void)
{
    MPI_Datatype t;
#if HAVE_LARGE_COUNT
    int rc = MPI_Type_create_hvector_c(((MPI_Count)1 << 62) + 2, 2, 24, MPI_FLOAT, &t);
    add("hvec_c_2_64", rc, &t, 0);
    rc = MPI_Type_create_hvector_c((MPI_Count)1 << 62, 1, (MPI_Count)1 << 40, MPI_DOUBLE, &t);
    add("hvec_c_wrap", rc, &t, 0);
#else
    t = MPI_DATATYPE_NULL;
    add("hvec_c_2_64", MPI_ERR_OTHER, &t, 0);
    add("hvec_c_wrap", MPI_ERR_OTHER, &t, 0);
#endif
}

static void bounds_and_overflow(void)
{
    MPI_Datatype t;
    add("hvec_neg", MPI_Type_create_hvector(4, 1, -16, MPI_DOUBLE, &t), &t, 0);
    add("lb_far", MPI_Type_create_resized(MPI_INT, -((MPI_Aint)1 << 40), 8, &t), &t, 0);
    int ones[3] = {1, 1, 1};
    MPI_Aint neg[3] = {-100, -50, 0};
    add("hidx_neg", MPI_Type_create_hindexed(3, ones, neg, MPI_INT, &t), &t, 0);
    MPI_Aint apart[2] = {-((MPI_Aint)1 << 62), (MPI_Aint)1 << 62};
    add("hidx_overflow", MPI_Type_create_hindexed(2, ones, apart, MPI_CHAR, &t), &t, 0);
    add("cont_2g", MPI_Type_contiguous(0x7fffffff, MPI_DOUBLE, &t), &t, 0);
    MPI_Datatype row;
    if (MPI_Type_contiguous(0x7fffffff, MPI_CHAR, &row) == MPI_SUCCESS) {
        add("cont_2g_2g", MPI_Type_contiguous(0x7fffffff, row, &t), &t, 0);
        MPI_Type_free(&row);
    }
    add("hvec_far", MPI_Type_create_hvector(2, 1, (MPI_Aint)1 << 62, MPI_CHAR, &t), &t, 0);
    add("chars_1g", MPI_Type_contiguous(1 << 30, MPI_CHAR, &t), &t, 0);
    large_counts();
}

/* The dangerous ones as arguments and locals of a frame. */
void __attribute__((noinline)) show_locals(MPI_Datatype arg_big, MPI_Datatype arg_struct)
{
    MPI_Datatype local_many = named("hidx_many"), local_struct3 = named("struct3");
    MPI_Datatype local_all[4] = {arg_big, arg_struct, local_many, named("chain_1000")};
    stop_here();
    __asm__ volatile("" : : "r"(local_all), "r"(&local_many), "r"(&local_struct3) : "memory");
}

MPI_Datatype __attribute__((noinline)) make_type(void)
{
    return named("struct_many");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    block_counts();
    depths();
    dimensions();
    empty_and_zero();
    bounds_and_overflow();
    show_locals(named("idx_big"), named("struct_many"));
    MPI_Datatype made = make_type();
    stop_here();
    MPI_Finalize();
    return made == MPI_DATATYPE_NULL;
}
