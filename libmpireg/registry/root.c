/*
 * root.c: the statically initialised part of the registry: the root object
 * `mpireg_root`, the constants table that makes the layout self-describing,
 * and the table of predefined datatypes built from the macros of the mpi.h
 * libmpireg is compiled against (no handle value is written down here).
 */
#include "mpireg_internal.h"

#include <pthread.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------------
 * Predefined datatypes: one row per MPI name.  Rows whose handle is
 * MPI_DATATYPE_NULL (optional types this MPI lacks) and aliases (a handle
 * already listed under an earlier name, e.g. MPI_LONG_LONG) are dropped when
 * the library is loaded; the first name listed wins until MPI is up, then
 * the alias MPI itself reports (MPI_Type_get_name: MPICH calls 0x4c000840
 * MPI_C_COMPLEX, not MPI_C_FLOAT_COMPLEX), so that the name shown is one
 * the user finds in MPI's own messages.
 * ------------------------------------------------------------------------- */
#define P(h, k)                                                                   \
    {                                                                             \
        .record = {.handle = MPIREG_STATIC_KEY(h), .combiner = MPI_COMBINER_NAMED, \
                   .flags = MPIREG_FLAG_PREDEFINED | MPIREG_FLAG_COMMITTED,        \
                   .kind = MPIREG_KIND_##k, .user_refs = 1},                       \
        .name = #h,                                                               \
    },

static struct mpireg_predefined predefined_table[] = {
    /* C */
    P(MPI_CHAR, CHAR)
    P(MPI_SIGNED_CHAR, INT)
    P(MPI_UNSIGNED_CHAR, UINT)
    P(MPI_BYTE, BYTE)
    P(MPI_WCHAR, CHAR)
    P(MPI_SHORT, INT)
    P(MPI_UNSIGNED_SHORT, UINT)
    P(MPI_INT, INT)
    P(MPI_UNSIGNED, UINT)
    P(MPI_LONG, INT)
    P(MPI_UNSIGNED_LONG, UINT)
    P(MPI_LONG_LONG_INT, INT)
    P(MPI_LONG_LONG, INT)
    P(MPI_UNSIGNED_LONG_LONG, UINT)
    P(MPI_FLOAT, FLOAT)
    P(MPI_DOUBLE, FLOAT)
    P(MPI_LONG_DOUBLE, FLOAT)
    P(MPI_PACKED, PACKED)
#if MPIREG_HAVE_MPI1_NAMES
    P(MPI_LB, LB)
    P(MPI_UB, UB)
#endif
    /* C pair types (members below, in pair_rows) */
    P(MPI_FLOAT_INT, PAIR)
    P(MPI_DOUBLE_INT, PAIR)
    P(MPI_LONG_INT, PAIR)
    P(MPI_SHORT_INT, PAIR)
    P(MPI_2INT, PAIR)
    P(MPI_LONG_DOUBLE_INT, PAIR)
    /* C99 fixed width, bool, complex; address-sized integers */
    P(MPI_INT8_T, INT)
    P(MPI_INT16_T, INT)
    P(MPI_INT32_T, INT)
    P(MPI_INT64_T, INT)
    P(MPI_UINT8_T, UINT)
    P(MPI_UINT16_T, UINT)
    P(MPI_UINT32_T, UINT)
    P(MPI_UINT64_T, UINT)
    P(MPI_C_BOOL, BOOL)
    P(MPI_C_FLOAT_COMPLEX, COMPLEX)
    P(MPI_C_COMPLEX, COMPLEX)
    P(MPI_C_DOUBLE_COMPLEX, COMPLEX)
    P(MPI_C_LONG_DOUBLE_COMPLEX, COMPLEX)
    P(MPI_AINT, INT)
    P(MPI_OFFSET, INT)
    P(MPI_COUNT, INT)
#ifdef MPIX_C_FLOAT16
    P(MPIX_C_FLOAT16, FLOAT)
#endif
    /* C++ */
    P(MPI_CXX_BOOL, BOOL)
    P(MPI_CXX_FLOAT_COMPLEX, COMPLEX)
    P(MPI_CXX_DOUBLE_COMPLEX, COMPLEX)
    P(MPI_CXX_LONG_DOUBLE_COMPLEX, COMPLEX)
    /* Fortran */
    P(MPI_INTEGER, INT)
    P(MPI_REAL, FLOAT)
    P(MPI_DOUBLE_PRECISION, FLOAT)
    P(MPI_COMPLEX, COMPLEX)
    P(MPI_DOUBLE_COMPLEX, COMPLEX)
    P(MPI_LOGICAL, BOOL)
    P(MPI_CHARACTER, CHAR)
    P(MPI_INTEGER1, INT)
    P(MPI_INTEGER2, INT)
    P(MPI_INTEGER4, INT)
    P(MPI_INTEGER8, INT)
#ifdef MPI_INTEGER16
    P(MPI_INTEGER16, INT)
#endif
    P(MPI_REAL4, FLOAT)
    P(MPI_REAL8, FLOAT)
    P(MPI_REAL16, FLOAT)
    P(MPI_COMPLEX8, COMPLEX)
    P(MPI_COMPLEX16, COMPLEX)
    P(MPI_COMPLEX32, COMPLEX)
#ifdef MPI_LOGICAL1
    P(MPI_LOGICAL1, BOOL)
#endif
#ifdef MPI_LOGICAL2
    P(MPI_LOGICAL2, BOOL)
#endif
#ifdef MPI_LOGICAL4
    P(MPI_LOGICAL4, BOOL)
#endif
#ifdef MPI_LOGICAL8
    P(MPI_LOGICAL8, BOOL)
#endif
    /* Fortran pair types */
    P(MPI_2INTEGER, PAIR)
    P(MPI_2REAL, PAIR)
    P(MPI_2DOUBLE_PRECISION, PAIR)
#ifdef MPI_2COMPLEX
    P(MPI_2COMPLEX, PAIR)
#endif
#ifdef MPI_2DOUBLE_COMPLEX
    P(MPI_2DOUBLE_COMPLEX, PAIR)
#endif
};
#undef P

#define N_PREDEFINED (sizeof predefined_table / sizeof predefined_table[0])

/* The dropped aliases: (handle key, name), for the names MPI reports. */
static struct {
    uint64_t key;
    const char *name;
} aliases[N_PREDEFINED];
static uint32_t n_aliases;

/* Pair types: member types and the byte offset of the index member.  The
 * C pairs take it from the C struct MPI describes (value, then int); for the
 * Fortran pairs (two of the same type) it is the member's size, known once
 * MPI is up (offset -1 below). */
struct pair_float_int { float v; int i; };
struct pair_double_int { double v; int i; };
struct pair_long_int { long v; int i; };
struct pair_short_int { short v; int i; };
struct pair_2int { int v; int i; };
struct pair_long_double_int { long double v; int i; };

struct pair_row {
    uint64_t pair, value, index;
    int64_t offset; /* -1: the size of the value type */
};

#define PAIR(h, v, i, off) {MPIREG_STATIC_KEY(h), MPIREG_STATIC_KEY(v), MPIREG_STATIC_KEY(i), (off)},
static const struct pair_row pair_rows[] = {
    PAIR(MPI_FLOAT_INT, MPI_FLOAT, MPI_INT, offsetof(struct pair_float_int, i))
    PAIR(MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT, offsetof(struct pair_double_int, i))
    PAIR(MPI_LONG_INT, MPI_LONG, MPI_INT, offsetof(struct pair_long_int, i))
    PAIR(MPI_SHORT_INT, MPI_SHORT, MPI_INT, offsetof(struct pair_short_int, i))
    PAIR(MPI_2INT, MPI_INT, MPI_INT, offsetof(struct pair_2int, i))
    PAIR(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT, offsetof(struct pair_long_double_int, i))
    PAIR(MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER, -1)
    PAIR(MPI_2REAL, MPI_REAL, MPI_REAL, -1)
    PAIR(MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, -1)
#ifdef MPI_2COMPLEX
    PAIR(MPI_2COMPLEX, MPI_COMPLEX, MPI_COMPLEX, -1)
#endif
#ifdef MPI_2DOUBLE_COMPLEX
    PAIR(MPI_2DOUBLE_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_DOUBLE_COMPLEX, -1)
#endif
};
#undef PAIR
#define N_PAIRS (sizeof pair_rows / sizeof pair_rows[0])

static struct mpireg_predefined *pair_entries[N_PAIRS];

/* ---------------------------------------------------------------------------
 * Constants: every offset and size a reader needs, and the MPI constants.
 * ------------------------------------------------------------------------- */
#define K(n, v) {n, (int64_t)(v)},
#define REC(f) K("record." #f, offsetof(struct mpireg_record, f))
#define TABLE(f) K("table." #f, offsetof(struct mpireg_table, f))
#define MPIK(c) K(#c, c)

/* Combiners are stored in 16 bits. */
#define FITS16(c) _Static_assert((c) >= INT16_MIN && (c) <= INT16_MAX, #c " does not fit a record");
FITS16(MPI_COMBINER_NAMED) FITS16(MPI_COMBINER_DUP) FITS16(MPI_COMBINER_CONTIGUOUS)
FITS16(MPI_COMBINER_VECTOR) FITS16(MPI_COMBINER_HVECTOR) FITS16(MPI_COMBINER_INDEXED)
FITS16(MPI_COMBINER_HINDEXED) FITS16(MPI_COMBINER_INDEXED_BLOCK)
FITS16(MPI_COMBINER_HINDEXED_BLOCK) FITS16(MPI_COMBINER_STRUCT) FITS16(MPI_COMBINER_SUBARRAY)
FITS16(MPI_COMBINER_DARRAY) FITS16(MPI_COMBINER_F90_REAL) FITS16(MPI_COMBINER_F90_COMPLEX)
FITS16(MPI_COMBINER_F90_INTEGER) FITS16(MPI_COMBINER_RESIZED)
#if MPIREG_HAVE_MPI1_NAMES
FITS16(MPI_COMBINER_HVECTOR_INTEGER) FITS16(MPI_COMBINER_HINDEXED_INTEGER)
FITS16(MPI_COMBINER_STRUCT_INTEGER)
#endif
#undef FITS16

static const struct mpireg_constant constants_table[] = {
    K("record.sizeof", sizeof(struct mpireg_record))
    REC(handle) REC(created_at) REC(size) REC(lb) REC(extent) REC(serial) REC(user_refs)
    REC(parent_refs) REC(combiner) REC(flags) REC(kind) REC(n_integers) REC(n_addresses)
    REC(n_large_counts) REC(n_datatypes)
    K("record.args", sizeof(struct mpireg_record)) /* the arrays follow the record */
    K("table.sizeof", sizeof(struct mpireg_table))
    TABLE(slots) TABLE(capacity) TABLE(count) TABLE(max_probe)
    K("root.types", offsetof(struct mpireg_root, types))
    K("root.names", offsetof(struct mpireg_root, names))
    K("root.fortran", offsetof(struct mpireg_root, fortran))
    K("fortran.handle", offsetof(struct mpireg_fortran, handle))
    K("name.record", offsetof(struct mpireg_name, record))
    K("name.text", offsetof(struct mpireg_name, text))
    K("predefined.sizeof", sizeof(struct mpireg_predefined))
    K("predefined.name", offsetof(struct mpireg_predefined, name))
    K("sizeof.int", sizeof(int))
    K("sizeof.MPI_Aint", sizeof(MPI_Aint))
    K("sizeof.MPI_Count", sizeof(MPI_Count))
    K("sizeof.MPI_Datatype", sizeof(MPI_Datatype))
    K("sizeof.MPI_Fint", sizeof(MPI_Fint))
    K("sizeof.pointer", sizeof(void *))
    K("hash.fmix64", 1)
    K("probe.linear", 1)
    K("flag.committed", MPIREG_FLAG_COMMITTED)
    K("flag.freed", MPIREG_FLAG_FREED)
    K("flag.predefined", MPIREG_FLAG_PREDEFINED)
    K("flag.named", MPIREG_FLAG_NAMED)
    K("flag.mpi", MPIREG_FLAG_MPI)
    K("kind.int", MPIREG_KIND_INT)
    K("kind.uint", MPIREG_KIND_UINT)
    K("kind.float", MPIREG_KIND_FLOAT)
    K("kind.complex", MPIREG_KIND_COMPLEX)
    K("kind.char", MPIREG_KIND_CHAR)
    K("kind.bool", MPIREG_KIND_BOOL)
    K("kind.byte", MPIREG_KIND_BYTE)
    K("kind.packed", MPIREG_KIND_PACKED)
    K("kind.pair", MPIREG_KIND_PAIR)
    K("kind.lb", MPIREG_KIND_LB)
    K("kind.ub", MPIREG_KIND_UB)
    MPIK(MPI_COMBINER_NAMED)
    MPIK(MPI_COMBINER_DUP)
    MPIK(MPI_COMBINER_CONTIGUOUS)
    MPIK(MPI_COMBINER_VECTOR)
#if MPIREG_HAVE_MPI1_NAMES
    MPIK(MPI_COMBINER_HVECTOR_INTEGER)
#endif
    MPIK(MPI_COMBINER_HVECTOR)
    MPIK(MPI_COMBINER_INDEXED)
#if MPIREG_HAVE_MPI1_NAMES
    MPIK(MPI_COMBINER_HINDEXED_INTEGER)
#endif
    MPIK(MPI_COMBINER_HINDEXED)
    MPIK(MPI_COMBINER_INDEXED_BLOCK)
    MPIK(MPI_COMBINER_HINDEXED_BLOCK)
#if MPIREG_HAVE_MPI1_NAMES
    MPIK(MPI_COMBINER_STRUCT_INTEGER)
#endif
    MPIK(MPI_COMBINER_STRUCT)
    MPIK(MPI_COMBINER_SUBARRAY)
    MPIK(MPI_COMBINER_DARRAY)
    MPIK(MPI_COMBINER_F90_REAL)
    MPIK(MPI_COMBINER_F90_COMPLEX)
    MPIK(MPI_COMBINER_F90_INTEGER)
    MPIK(MPI_COMBINER_RESIZED)
    MPIK(MPI_ORDER_C)
    MPIK(MPI_ORDER_FORTRAN)
    MPIK(MPI_DISTRIBUTE_BLOCK)
    MPIK(MPI_DISTRIBUTE_CYCLIC)
    MPIK(MPI_DISTRIBUTE_NONE)
    MPIK(MPI_DISTRIBUTE_DFLT_DARG)
    K("MPI_DATATYPE_NULL", MPIREG_STATIC_KEY(MPI_DATATYPE_NULL))
};
#undef K
#undef REC
#undef TABLE
#undef MPIK

__attribute__((visibility("default"), used)) struct mpireg_root mpireg_root = {
    .magic = MPIREG_MAGIC,
    .layout_version = MPIREG_LAYOUT_VERSION,
    .root_size = sizeof(struct mpireg_root),
    .seq = 0,
    .predefined = predefined_table,
    .n_predefined = N_PREDEFINED,
    .n_constants = sizeof constants_table / sizeof constants_table[0],
    .constants = constants_table,
    .next_serial = 1,
};

/* ---------------------------------------------------------------------------
 * Load-time setup and lookup of predefined records by key: a small
 * open-addressing index (power of two, at most half full).
 * ------------------------------------------------------------------------- */
_Static_assert(N_PREDEFINED * 2 <= MPIREG_PINDEX_SIZE, "predefined index too small");
struct mpireg_predefined *mpireg_pindex[MPIREG_PINDEX_SIZE];

static void pindex_add(struct mpireg_predefined *p)
{
    uint32_t i = mpireg_pindex_slot(p->record.handle);
    while (mpireg_pindex[i])
        i = (i + 1) & (MPIREG_PINDEX_SIZE - 1);
    mpireg_pindex[i] = p;
}

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static void setup(void)
{
    uint64_t null_key = mpireg_key(MPI_DATATYPE_NULL);
    uint32_t n = 0;
    for (uint32_t i = 0; i < N_PREDEFINED; i++) {
        struct mpireg_predefined p = predefined_table[i];
        if (p.record.handle == null_key)
            continue; /* absent optional type */
        if (mpireg_predefined_find(p.record.handle)) {
            aliases[n_aliases].key = p.record.handle;
            aliases[n_aliases++].name = p.name;
            continue;
        }
        predefined_table[n] = p; /* its final place: later rows go further on */
        pindex_add(&predefined_table[n]);
        n++;
    }
    for (uint32_t i = n; i < N_PREDEFINED; i++)
        memset(&predefined_table[i], 0, sizeof predefined_table[i]);

    for (uint32_t k = 0; k < N_PAIRS; k++) {
        struct mpireg_record *r = mpireg_predefined_find(pair_rows[k].pair);
        if (!r || pair_rows[k].pair == null_key)
            continue;
        struct mpireg_predefined *p = (struct mpireg_predefined *)r;
        p->members[0] = mpireg_predefined_find(pair_rows[k].value);
        p->members[1] = mpireg_predefined_find(pair_rows[k].index);
        p->offsets[0] = 0;
        p->offsets[1] = pair_rows[k].offset >= 0 ? (MPI_Aint)pair_rows[k].offset : 0;
        r->n_datatypes = 2;
        r->n_addresses = 2;
        pair_entries[k] = p;
    }
    __atomic_store_n(&mpireg_root.n_predefined, n, __ATOMIC_RELEASE);
}

void mpireg_predefined_setup(void)
{
    pthread_once(&setup_once, setup);
}

__attribute__((constructor)) static void mpireg_load(void)
{
    mpireg_predefined_setup();
}

/* Sizes and extents from MPI; the caller holds the registry lock and has
 * checked that MPI is initialised. */
void mpireg_predefined_fill_sizes(void)
{
    uint32_t n = mpireg_root.n_predefined;
    for (uint32_t i = 0; i < n; i++) {
        struct mpireg_predefined *p = &predefined_table[i];
        struct mpireg_record *r = &p->record;
        MPI_Datatype h;
        memcpy(&h, &r->handle, sizeof h);
        char name[MPI_MAX_OBJECT_NAME];
        int len = 0;
        if (PMPI_Type_get_name(h, name, &len) == MPI_SUCCESS && len > 0 && strcmp(name, p->name))
            for (uint32_t k = 0; k < n_aliases; k++)
                if (aliases[k].key == r->handle && strcmp(aliases[k].name, name) == 0)
                    p->name = aliases[k].name;
        mpireg_on_fortran(h, PMPI_Type_c2f(h));
        MPI_Count size = 0, lb = 0, extent = 0;
        if (PMPI_Type_size_x(h, &size) == MPI_SUCCESS)
            r->size = size;
        if (PMPI_Type_get_extent_x(h, &lb, &extent) == MPI_SUCCESS) {
            r->lb = lb;
            r->extent = extent;
        }
    }
    for (uint32_t k = 0; k < N_PAIRS; k++)
        if (pair_entries[k] && pair_rows[k].offset < 0 && pair_entries[k]->members[0])
            pair_entries[k]->offsets[1] = (MPI_Aint)pair_entries[k]->members[0]->size;
}
