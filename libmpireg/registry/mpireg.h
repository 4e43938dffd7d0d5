/*
 * mpireg.h: the in-application registry of MPI datatypes kept by libmpireg
 * (registry layout version 2).
 *
 * libmpireg intercepts every MPI datatype constructor through the MPI
 * profiling interface and records the constructor's parameters here.  The
 * registry is also read from outside the process (gdb reads it with plain
 * memory reads, on live processes and on core files), so its layout is a
 * contract, described in full by the root object `mpireg_root`:
 *
 *   - `mpireg_root` is an exported data symbol.  Its first 24 bytes are the
 *     same in every layout version: magic (8), layout_version (4),
 *     root_size (4), seq (8).  The rest is `struct mpireg_root` below.
 *   - `root.constants` is a table of (name, value) pairs that tells a reader
 *     every offset and size it needs ("record.*", "table.*", "name.*",
 *     "predefined.*", "sizeof.*"), every flag bit ("flag.*") and kind
 *     ("kind.*"), the probe rule ("hash.fmix64", "probe.linear") and the
 *     MPI constants of the mpi.h libmpireg was built against (combiners,
 *     order and distribution values, MPI_DATATYPE_NULL).  A reader
 *     therefore needs no debug information and no handle values of its own.
 *
 * Records.  A derived datatype is one `struct mpireg_record` (72 bytes)
 * followed directly by its argument arrays, each packed, in this order:
 * datatypes (record pointers), addresses (MPI_Aint), large counts
 * (MPI_Count), integers (int); the counts are the record's n_* fields.  The
 * arrays hold exactly what MPI_Type_get_contents_c returns for the type;
 * child datatypes are record pointers, never handles.  `size`, `lb` and
 * `extent` are what MPI_Type_size_x / MPI_Type_get_extent_x return; the
 * true lower bound and true extent are not stored (they follow from the
 * arguments and the children: the bytes the type's data touches).
 * `serial` counts creations from 1 (it wraps after 2^32).
 *
 * Tables.  `root.types` maps handles to records and `root.names` maps
 * records to their names.  Both are open-addressing hash tables of
 * pointers (`struct mpireg_table`): `slots` is an array of `capacity`
 * pointers (a power of two; NULL = empty slot), each pointing at an object
 * whose first 8 bytes are its key.  For `types` the object is a record and
 * the key the handle widened to 64 bits: the handle's bytes copied into a
 * zeroed uint64_t (no sign extension).  For `names` it is a
 * `struct mpireg_name`, keyed by the address of the record it names (a
 * record has an entry exactly when its FLAG_NAMED is set).  Predefined
 * types are in neither table: `root.predefined` is an array of
 * `struct mpireg_predefined` (a record and its MPI name).  `root.fortran`
 * (at the end of the root, offset "root.fortran") maps the Fortran handle
 * of a datatype (an MPI_Fint, widened the same way) to its C handle's key,
 * for the types whose two handles differ (Open MPI: Fortran handles are
 * table indices; MPICH: the same integer, so the table stays empty): a
 * `struct mpireg_fortran`.  A reader that finds a key in neither the
 * predefined array nor root.types looks it up there.
 *
 * Looking a key up costs a constant number of reads:
 *   1. slot   = mpireg_hash(key) & (capacity - 1)         ("hash.fmix64")
 *   2. read the `max_probe` pointers slots[slot], slots[slot + 1], ...
 *      (wrapping at capacity: "probe.linear") in one or two reads;
 *   3. in that order, stop at the first NULL (absent); otherwise read the
 *      object's key and compare.  No entry lies further than `max_probe`
 *      slots from its first slot, and tables are at most 3/4 full, so the
 *      expected number of objects read is below 3.
 *
 * Writers bump `root.seq` before and after every update (records, tables,
 * names, resizing a table), under one mutex when MPI provides
 * MPI_THREAD_MULTIPLE (below it one thread at a time calls MPI, and the
 * mutex is skipped): a reader that finds it odd has stopped the process in
 * the middle of an update and must not trust what it reads.  Layout
 * version 1 (uthash, 168-byte records) is described in the git history of
 * this file; gdb's reader still reads it.
 */
#ifndef MPIREG_H
#define MPIREG_H

#include <stdint.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIREG_MAGIC UINT64_C(0x3147455249504d6d) /* "mMPIREG1" little-endian */
#define MPIREG_LAYOUT_VERSION 2u
#define MPIREG_CONSTANT_NAME_MAX 48

/* record flags */
enum {
    MPIREG_FLAG_COMMITTED = 1u << 0,
    MPIREG_FLAG_FREED = 1u << 1,      /* the program holds no handle to it */
    MPIREG_FLAG_PREDEFINED = 1u << 2, /* lives in root.predefined, not in a table */
    MPIREG_FLAG_NAMED = 1u << 3,      /* has an entry in root.names */
    MPIREG_FLAG_MPI = 1u << 4,        /* built by MPI itself inside a wrapped call (ROMIO) */
};

/* basic kinds of predefined types (what the bytes of one element mean) */
enum mpireg_kind {
    MPIREG_KIND_NONE = 0, /* derived type */
    MPIREG_KIND_INT,      /* signed integer */
    MPIREG_KIND_UINT,     /* unsigned integer */
    MPIREG_KIND_FLOAT,    /* IEEE binary32/64 or x87 extended (size 16) */
    MPIREG_KIND_COMPLEX,  /* two floats of size/2 */
    MPIREG_KIND_CHAR,     /* character (size 1) or wide character */
    MPIREG_KIND_BOOL,     /* C _Bool, C++ bool, Fortran LOGICAL */
    MPIREG_KIND_BYTE,     /* MPI_BYTE, MPI_AINT-less raw bytes */
    MPIREG_KIND_PACKED,   /* MPI_PACKED */
    MPIREG_KIND_PAIR,     /* value/index pair: members in args */
    MPIREG_KIND_LB,       /* MPI_LB marker */
    MPIREG_KIND_UB,       /* MPI_UB marker */
    MPIREG_KIND_COUNT
};

struct mpireg_record {
    uint64_t handle;         /* table key: the handle widened to 64 bits */
    uint64_t created_at;     /* return address of the constructor call */
    int64_t size, lb, extent;
    uint32_t serial;         /* creation order, from 1 */
    uint32_t user_refs;      /* handles the program holds (creation + get_contents) */
    uint32_t parent_refs;    /* live records whose args point at this one */
    int16_t combiner;        /* MPI_COMBINER_* of the compiled mpi.h */
    uint8_t flags;           /* MPIREG_FLAG_* */
    uint8_t kind;            /* enum mpireg_kind; NONE for derived types */
    uint32_t n_integers, n_addresses, n_large_counts, n_datatypes;
    /* the argument arrays follow (see the top of this file) */
};

/* An open-addressing table of pointers to objects keyed by their first 8
 * bytes (see the top of this file). */
struct mpireg_table {
    void **slots;       /* capacity pointers, NULL when capacity is 0 */
    uint32_t capacity;  /* 0 or a power of two */
    uint32_t count;     /* objects in the table */
    uint32_t max_probe; /* no object lies max_probe or more slots past its first slot */
    uint32_t reserved;
};

/* The name of a record: an entry of root.names. */
struct mpireg_name {
    uint64_t record; /* key: the address of the record named */
    char text[];     /* NUL-terminated, as given to MPI_Type_set_name */
};

/* The C handle behind a Fortran handle: an entry of root.fortran. */
struct mpireg_fortran {
    uint64_t fortran; /* key: the MPI_Fint handle, widened */
    uint64_t handle;  /* the key of the C handle (root.types or root.predefined) */
};

/* A predefined datatype: its record and the MPI constant's name. */
struct mpireg_predefined {
    struct mpireg_record record;
    /* the record's argument arrays: pair types (MPI_DOUBLE_INT, ...) have
     * two datatypes (value and index type) and two addresses (their byte
     * offsets); other predefined records have none */
    struct mpireg_record *members[2];
    MPI_Aint offsets[2];
    const char *name; /* "MPI_DOUBLE" */
};

struct mpireg_constant {
    char name[MPIREG_CONSTANT_NAME_MAX];
    int64_t value;
};

struct mpireg_root {
    uint64_t magic;          /* MPIREG_MAGIC */
    uint32_t layout_version; /* MPIREG_LAYOUT_VERSION */
    uint32_t root_size;      /* sizeof(struct mpireg_root) */
    volatile uint64_t seq;   /* odd while an update is in progress */
    struct mpireg_table types;            /* handle -> record */
    struct mpireg_table names;            /* record address -> struct mpireg_name */
    struct mpireg_predefined *predefined; /* array of n_predefined */
    uint32_t n_predefined;
    uint32_t n_constants;
    const struct mpireg_constant *constants;
    uint64_t next_serial;
    struct mpireg_table fortran; /* Fortran handle -> struct mpireg_fortran */
};

extern struct mpireg_root mpireg_root;

/* The hash of a 64-bit key (MurmurHash3's fmix64, low 32 bits). */
static inline uint32_t mpireg_hash(uint64_t key)
{
    key ^= key >> 33;
    key *= UINT64_C(0xff51afd7ed558ccd);
    key ^= key >> 33;
    key *= UINT64_C(0xc4ceb9fe1a85ec53);
    key ^= key >> 33;
    return (uint32_t)key;
}

/* Read access for C code in the same process (tests, tools). */
const struct mpireg_record *mpireg_lookup(MPI_Datatype datatype);
struct mpireg_record *const *mpireg_datatypes(const struct mpireg_record *rec);
const MPI_Aint *mpireg_addresses(const struct mpireg_record *rec);
const MPI_Count *mpireg_large_counts(const struct mpireg_record *rec);
const int *mpireg_integers(const struct mpireg_record *rec);
/* The name set by MPI_Type_set_name (predefined types: the MPI constant's
 * name), or NULL.  Valid until the type is renamed or destroyed. */
const char *mpireg_name(const struct mpireg_record *rec);
/* Calls fn on every record in root.types (not predefined ones), under the lock. */
void mpireg_foreach(void (*fn)(const struct mpireg_record *rec, void *ctx), void *ctx);

#ifdef __cplusplus
}
#endif
#endif
