/*
 * types: builds one datatype per constructor (and the hard cases: nesting,
 * negative lb, LB/UB markers, zero counts, freed bases, handle reuse,
 * subarray/darray orders, large counts, pairs, MPI_BOTTOM, every basic
 * kind), then stops in stop_here() so a debugger can inspect them.
 *
 * The cases every MPI has come first, always at the same index; then the
 * MPI-1 ones (if this MPI still has them: have_mpi1_names) and the MPI-4
 * large-count ones (have_large_count).
 *
 * Run with any number of ranks; darray cases use the whole communicator.
 */
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "cases.h"

struct s_elem { /* Protze et al. 2012's example struct: {int, double[3], char[5]} */
    int i;
    double d[3];
    char c[5];
};

struct basics {
    signed char sc;
    unsigned char uc;
    short s;
    unsigned short us;
    int i;
    unsigned u;
    long l;
    unsigned long ul;
    long long ll;
    float f;
    double d;
    long double ld;
    float _Complex fc;
    double _Complex dc;
    char c;
    wchar_t wc;
    _Bool b;
    unsigned char byte[2];
    int8_t i8;
    uint16_t u16;
    int32_t i32;
    uint64_t u64;
};

struct fortran_basics { /* Fortran types seen through C storage of the same layout */
    float real;
    double dprec;
    int integer;
    int logical;
    float _Complex cplx;
    char character[3];
};

struct type_holder { /* an MPI_Datatype inside a struct, for print tests */
    int tag;
    MPI_Datatype type;
};

struct basics basics = {
    -5, 200, -300, 60000, -70000, 4000000000u, -5000000000000L, 10000000000000000000UL,
    -9000000000000000000LL, 1.5f, 1.0 / 3, 1.0L / 3, 1.0f + 2.0f * I, -0.5 + 0.25 * I,
    'A', L'Z', 1, {0xde, 0xad}, -7, 65535, 123456, UINT64_MAX};
struct fortran_basics fortran_basics = {2.5f, -0.125, 42, 1, 3.0f - 1.0f * I, {'x', 'y', 'z'}};
double bottom_a = 3.25;
int zeros[40]; /* repeated values, for 'set print repeats' */
int bottom_b[2] = {11, 22};

MPI_Datatype all_types[MAX_CASES];
struct type_holder holder;
MPI_Datatype freed_base, derived_of_freed, reuse_first, reuse_second;
int reuse_same_handle;
int have_mpi1_names = HAVE_MPI1_NAMES, have_large_count = HAVE_LARGE_COUNT;
MPI_Datatype markers_type = MPI_DATATYPE_NULL; /* Protze et al. 2012, Figure 5 (MPI-1 markers) */
int world_rank, world_size;

void __attribute__((noinline)) stop_here(void)
{
    __asm__ volatile("" ::: "memory");
}

static void basic_constructors(void)
{
    MPI_Datatype t;
    int bl[3] = {2, 0, 3}, disp[3] = {0, 3, 5};
    int blh[2] = {1, 2};
    MPI_Aint hdisp[2] = {0, 24};
    int bdisp[3] = {4, 0, 8};
    MPI_Aint hbdisp[2] = {16, 0};

    MPI_Type_contiguous(5, MPI_INT, &t);
    add_case("contig", t, buffer_for(t, 2, 1, NULL), 2);
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t);
    add_case("vector", t, buffer_for(t, 2, 2, NULL), 2);
    MPI_Type_create_hvector(3, 2, 40, MPI_INT, &t);
    add_case("hvector", t, buffer_for(t, 2, 4, NULL), 2);
    MPI_Type_indexed(3, bl, disp, MPI_FLOAT, &t);
    add_case("indexed", t, buffer_for(t, 2, 5, NULL), 2);
    MPI_Type_create_hindexed(2, blh, hdisp, MPI_DOUBLE, &t);
    add_case("hindexed", t, buffer_for(t, 1, 6, NULL), 1);
    MPI_Type_create_indexed_block(3, 2, bdisp, MPI_SHORT, &t);
    add_case("indexed_block", t, buffer_for(t, 2, 8, NULL), 2);
    MPI_Type_create_hindexed_block(2, 3, hbdisp, MPI_CHAR, &t);
    add_case("hindexed_block", t, buffer_for(t, 1, 9, NULL), 1);
    MPI_Type_create_resized(MPI_INT, -8, 24, &t);
    add_case("resized_neg_lb", t, buffer_for(t, 3, 10, NULL), 3);
    MPI_Type_dup(MPI_DOUBLE, &t);
    add_case("dup_predefined", t, buffer_for(t, 2, 11, NULL), 2);
    MPI_Type_contiguous(0, MPI_INT, &t);
    add_case("zero_contig", t, buffer_for(t, 1, 12, NULL), 1);
    MPI_Type_vector(0, 2, 3, MPI_DOUBLE, &t);
    add_case("zero_vector", t, buffer_for(t, 1, 13, NULL), 1);
}

static void struct_constructors(void)
{
    MPI_Datatype t, inner, middle;
    static struct s_elem elems[4];
    int bl[3] = {1, 3, 5};
    MPI_Aint disp[3] = {offsetof(struct s_elem, i), offsetof(struct s_elem, d),
                        offsetof(struct s_elem, c)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};

    for (int k = 0; k < 4; k++) {
        elems[k].i = 100 + k;
        for (int j = 0; j < 3; j++)
            elems[k].d[j] = k + j / 4.0;
        memcpy(elems[k].c, "abcde", 5);
        elems[k].c[4] = (char)('0' + k);
    }
    MPI_Type_create_struct(3, bl, disp, types, &t);
    add_case("struct", t, elems, 4);

    /* three levels: struct { vector of contiguous, double } */
    MPI_Type_contiguous(2, MPI_INT, &inner);
    MPI_Type_vector(3, 1, 2, inner, &middle);
    int nbl[2] = {1, 2};
    MPI_Aint ndisp[2] = {0, 48};
    MPI_Datatype ntypes[2] = {middle, MPI_DOUBLE};
    MPI_Type_create_struct(2, nbl, ndisp, ntypes, &t);
    add_case("nested3", t, buffer_for(t, 2, 15, NULL), 2);
    MPI_Type_free(&inner);
    MPI_Type_free(&middle);
}

static void array_constructors(void)
{
    MPI_Datatype t;
    int sizes[2] = {4, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
    static int grid[4 * 6];
    for (int k = 0; k < 24; k++)
        grid[k] = k;
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t);
    add_case("subarray_c", t, grid, 1);
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
    add_case("subarray_f", t, grid, 1);

    int dims[2] = {0, 0};
    MPI_Dims_create(world_size, 2, dims);
    int gsizes[2] = {8, 6};
    int distribs_block[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int distribs_cyclic[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC};
    int distribs_mixed[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs_default[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int dargs_two[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
    static double global[8 * 6];
    for (int k = 0; k < 48; k++)
        global[k] = k + 0.5;
    MPI_Type_create_darray(world_size, world_rank, 2, gsizes, distribs_block, dargs_default,
                           dims, MPI_ORDER_C, MPI_DOUBLE, &t);
    add_case("darray_block", t, global, 1);
    MPI_Type_create_darray(world_size, world_rank, 2, gsizes, distribs_cyclic, dargs_default,
                           dims, MPI_ORDER_C, MPI_DOUBLE, &t);
    add_case("darray_cyclic", t, global, 1);
    MPI_Type_create_darray(world_size, world_rank, 2, gsizes, distribs_mixed, dargs_two, dims,
                           MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
    add_case("darray_mixed_f", t, global, 1);
}

#if HAVE_MPI1_NAMES
static void mpi1_constructors(void)
{
    MPI_Datatype t;
    int blh[2] = {1, 2};
    MPI_Aint hdisp[2] = {0, 24};
    /* Protze et al. 2012, Figure 5: markers widen the extent to [-4, 100) */
    int mbl[5] = {1, 5, 7, 2, 1};
    MPI_Aint mdisp[5] = {-4, 0, 47, 76, 100};
    MPI_Datatype mtypes[5] = {MPI_LB, MPI_INT, MPI_CHAR, MPI_DOUBLE, MPI_UB};

    MPI_Type_hvector(2, 3, 20, MPI_SHORT, &t);
    add_case("hvector_mpi1", t, buffer_for(t, 1, 3, NULL), 1);
    MPI_Type_hindexed(2, blh, hdisp, MPI_INT, &t);
    add_case("hindexed_mpi1", t, buffer_for(t, 1, 7, NULL), 1);
    MPI_Type_struct(5, mbl, mdisp, mtypes, &t);
    add_case("struct_markers", t, buffer_for(t, 2, 14, NULL), 2);
    markers_type = t;
}
#endif

#if HAVE_LARGE_COUNT
static void large_count_constructors(void)
{
    MPI_Datatype t;
    MPI_Count bl[2] = {2, 1}, disp[2] = {0, 5}, hdisp[2] = {8, 0};
    MPI_Count sbl[2] = {1, 2}, sdisp[2] = {0, 8};
    MPI_Datatype stypes[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Count sizes[2] = {3, 4}, subsizes[2] = {2, 2}, starts[2] = {1, 1};
    MPI_Count gsizes[1] = {12};
    int distribs[1] = {MPI_DISTRIBUTE_CYCLIC}, dargs[1] = {2}, psizes[1] = {world_size};

    MPI_Type_contiguous_c(3, MPI_SHORT, &t);
    add_case("contig_c", t, buffer_for(t, 2, 20, NULL), 2);
    MPI_Type_vector_c(3, 2, 5, MPI_INT, &t);
    add_case("vector_c", t, buffer_for(t, 2, 21, NULL), 2);
    MPI_Type_create_hvector_c(2, 2, 24, MPI_FLOAT, &t);
    add_case("hvector_c", t, buffer_for(t, 1, 22, NULL), 1);
    MPI_Type_indexed_c(2, bl, disp, MPI_INT, &t);
    add_case("indexed_c", t, buffer_for(t, 1, 23, NULL), 1);
    MPI_Type_create_hindexed_c(2, bl, hdisp, MPI_CHAR, &t);
    add_case("hindexed_c", t, buffer_for(t, 1, 24, NULL), 1);
    MPI_Type_create_indexed_block_c(2, 2, disp, MPI_SHORT, &t);
    add_case("indexed_block_c", t, buffer_for(t, 1, 25, NULL), 1);
    MPI_Type_create_hindexed_block_c(2, 2, hdisp, MPI_SHORT, &t);
    add_case("hindexed_block_c", t, buffer_for(t, 1, 26, NULL), 1);
    MPI_Type_create_struct_c(2, sbl, sdisp, stypes, &t);
    add_case("struct_c", t, buffer_for(t, 2, 27, NULL), 2);
    MPI_Type_create_subarray_c(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t);
    add_case("subarray_c_large", t, buffer_for(t, 1, 28, NULL), 1);
    MPI_Type_create_darray_c(world_size, world_rank, 1, gsizes, distribs, dargs, psizes,
                             MPI_ORDER_C, MPI_INT, &t);
    add_case("darray_c_large", t, buffer_for(t, 1, 29, NULL), 1);
    MPI_Type_create_resized_c(MPI_DOUBLE, -16, 32, &t);
    add_case("resized_c", t, buffer_for(t, 2, 30, NULL), 2);
}
#endif

static void special_types(void)
{
    MPI_Datatype t;
    static struct { double v; int i; } double_int[3] = {{1.5, 3}, {-2.25, 7}, {0.0, -1}};
    static int two_int[4] = {5, 6, 7, 8};
    static struct { long double v; int i; } ld_int[1] = {{0.75L, 9}};

    MPI_Type_dup(MPI_DOUBLE_INT, &t);
    add_case("pair_double_int", t, double_int, 3);
    MPI_Type_contiguous(2, MPI_2INT, &t);
    add_case("pair_2int", t, two_int, 1);
    MPI_Type_dup(MPI_LONG_DOUBLE_INT, &t);
    add_case("pair_long_double_int", t, ld_int, 1);

    MPI_Aint addr[2];
    int bl[2] = {1, 2};
    MPI_Get_address(&bottom_a, &addr[0]);
    MPI_Get_address(bottom_b, &addr[1]);
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, bl, addr, types, &t);
    MPI_Type_commit(&t);
    MPI_Datatype relative;
    MPI_Aint rel[2] = {0, addr[1] - addr[0]};
    MPI_Type_create_struct(2, bl, rel, types, &relative);
    MPI_Type_commit(&relative);
    add_case_packed_as("bottom", t, MPI_BOTTOM, 1, relative, &bottom_a);
    MPI_Type_free(&relative);

    int nb = 22;
    int bbl[22];
    MPI_Aint bdisp[22];
    MPI_Datatype btypes[22] = {
        MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT,
        MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_FLOAT, MPI_DOUBLE,
        MPI_LONG_DOUBLE, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_CHAR, MPI_WCHAR,
        MPI_C_BOOL, MPI_BYTE, MPI_INT8_T, MPI_UINT16_T, MPI_INT32_T, MPI_UINT64_T};
    size_t offs[22] = {
        offsetof(struct basics, sc), offsetof(struct basics, uc), offsetof(struct basics, s),
        offsetof(struct basics, us), offsetof(struct basics, i), offsetof(struct basics, u),
        offsetof(struct basics, l), offsetof(struct basics, ul), offsetof(struct basics, ll),
        offsetof(struct basics, f), offsetof(struct basics, d), offsetof(struct basics, ld),
        offsetof(struct basics, fc), offsetof(struct basics, dc), offsetof(struct basics, c),
        offsetof(struct basics, wc), offsetof(struct basics, b), offsetof(struct basics, byte),
        offsetof(struct basics, i8), offsetof(struct basics, u16), offsetof(struct basics, i32),
        offsetof(struct basics, u64)};
    for (int k = 0; k < nb; k++) {
        bbl[k] = btypes[k] == MPI_BYTE ? 2 : 1;
        bdisp[k] = (MPI_Aint)offs[k];
    }
    MPI_Type_create_struct(nb, bbl, bdisp, btypes, &t);
    add_case("basics", t, &basics, 1);

    int fbl[6] = {1, 1, 1, 1, 1, 3};
    MPI_Aint fdisp[6] = {
        offsetof(struct fortran_basics, real), offsetof(struct fortran_basics, dprec),
        offsetof(struct fortran_basics, integer), offsetof(struct fortran_basics, logical),
        offsetof(struct fortran_basics, cplx), offsetof(struct fortran_basics, character)};
    MPI_Datatype ftypes[6] = {MPI_REAL, MPI_DOUBLE_PRECISION, MPI_INTEGER,
                              MPI_LOGICAL, MPI_COMPLEX, MPI_CHARACTER};
    MPI_Type_create_struct(6, fbl, fdisp, ftypes, &t);
    add_case("fortran_basics", t, &fortran_basics, 1);

    MPI_Datatype f90;
    MPI_Type_create_f90_real(15, 307, &f90);
    MPI_Type_contiguous(2, f90, &t);
    add_case("f90_real", t, buffer_for(t, 1, 31, NULL), 1);
}

/* A base type freed while a derived type still uses it, and a reused
 * handle: MPICH gives a destroyed handle to the next new type at once; Open
 * MPI's handles are object addresses, back when malloc reuses the memory
 * (for an object of the same shape; a few tries). */
static void lifetimes(void)
{
    MPI_Type_contiguous(2, MPI_DOUBLE, &freed_base);
    MPI_Type_vector(2, 1, 3, freed_base, &derived_of_freed);
    MPI_Datatype keep = freed_base;
    MPI_Type_free(&keep);
    add_case("freed_base_user", derived_of_freed, buffer_for(derived_of_freed, 1, 32, NULL), 1);

    for (int tries = 0; tries < 16 && !reuse_same_handle; tries++) {
        if (tries)
            MPI_Type_free(&reuse_second);
        MPI_Type_contiguous(3, MPI_INT, &reuse_first);
        MPI_Datatype gone = reuse_first;
        MPI_Type_free(&gone);
        MPI_Type_contiguous(6, MPI_CHAR, &reuse_second);
        reuse_same_handle = reuse_first == reuse_second;
    }
    add_case("reused", reuse_second, buffer_for(reuse_second, 1, 33, NULL), 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    basic_constructors();
    struct_constructors();
    array_constructors();
    special_types();
    lifetimes();
#if HAVE_MPI1_NAMES
    mpi1_constructors();
#endif
#if HAVE_LARGE_COUNT
    large_count_constructors();
#endif

    for (int k = 0; k < n_cases; k++)
        all_types[k] = cases[k].type;
    holder.tag = 7;
    holder.type = cases[1].type;
    MPI_Datatype vector_type = cases[1].type;
    MPI_Datatype struct_type = cases[11].type;
    MPI_Datatype predefined = MPI_DOUBLE;
    MPI_Datatype null_type = MPI_DATATYPE_NULL;
    MPI_Datatype bogus = (MPI_Datatype)0x7badbeef;
    MPI_Datatype uncommitted, zeros_t, big_vector;
    MPI_Type_vector(250000, 4, 8, MPI_DOUBLE, &big_vector); /* typemap stays one line */
    MPI_Type_commit(&big_vector);
    MPI_Type_contiguous(4, MPI_INT, &uncommitted);
    MPI_Type_contiguous(40, MPI_INT, &zeros_t);
    MPI_Type_commit(&zeros_t);
    /* 5*10^7 elements on the same 4 bytes, and doubles overlapping in pairs */
    MPI_Datatype stacked_t, overlap_t;
    MPI_Type_vector(50000000, 1, 0, MPI_INT, &stacked_t);
    MPI_Type_commit(&stacked_t);
    MPI_Type_create_hvector(50000000, 1, 4, MPI_DOUBLE, &overlap_t);
    MPI_Type_commit(&overlap_t);

    stop_here();

    (void)vector_type, (void)struct_type, (void)predefined, (void)null_type, (void)bogus;
    MPI_Type_free(&uncommitted);
    MPI_Type_free(&zeros_t);
    MPI_Type_free(&stacked_t);
    MPI_Type_free(&overlap_t);
    MPI_Type_free(&big_vector);
    for (int k = 0; k < n_cases; k++)
        MPI_Type_free(&cases[k].type);
    MPI_Finalize();
    return 0;
}
