/*
 * mpireg.h: the in-application registry of MPI datatypes kept by libmpireg.
 *
 * libmpireg intercepts every MPI datatype constructor through the MPI
 * profiling interface and records the constructor's parameters here.  The
 * registry is also read from outside the process (gdb reads it with plain
 * memory reads, on live processes and on core files), so its layout is a
 * contract, described in full by the root object `mpireg_root`:
 *
 *   - `mpireg_root` is an exported data symbol.  Its first fields have the
 *     fixed layout of `struct mpireg_root` for MPIREG_LAYOUT_VERSION.
 *   - `root.constants` is a table of (name, value) pairs that tells a reader
 *     every offset and size it needs (record fields, uthash internals) and
 *     every MPI constant of the mpi.h libmpireg was built against
 *     (combiners, order and distribution values, MPI_DATATYPE_NULL).  A
 *     reader therefore needs no debug information and no handle values of
 *     its own.
 *   - `root.map` is the head of a uthash map of `struct mpireg_record`
 *     keyed by the handle widened to 64 bits: the handle's bytes copied into
 *     a zeroed uint64_t (no sign extension).
 *
 * Looking up a handle from outside the process costs a constant number of
 * reads:
 *   1. key    = handle widened as above
 *   2. hashv  = mpireg_hash(key)              (see below; root "hash.fmix64")
 *   3. tbl    = *(map + record.hh + hh.tbl)
 *   4. bucket = hashv & (tbl.num_buckets - 1)
 *   5. hh     = *(tbl.buckets + bucket * bucket.size + bucket.hh_head)
 *   6. walk hh = *(hh + hh.hh_next) until *(hh + hh.key) points at the key;
 *      the record is at hh - tbl.hho.
 * uthash keeps chains short (it doubles the buckets when a chain grows past
 * 10), so step 6 reads a handful of records whatever the map's size.
 *
 * A record's argument arrays follow `args` in this order, each packed:
 * datatypes (record pointers), addresses (MPI_Aint), large counts
 * (MPI_Count), integers (int).  The arrays hold exactly what
 * MPI_Type_get_contents_c returns for the type; child datatypes are record
 * pointers, never handles.
 *
 * Writers bump `root.seq` before and after every update, under one mutex: a
 * reader that finds it odd has stopped the process in the middle of an
 * update and must not trust the map.
 */
#ifndef MPIREG_H
#define MPIREG_H

#include <stdint.h>
#include <mpi.h>
#include <uthash.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIREG_MAGIC UINT64_C(0x3147455249504d6d) /* "mMPIREG1" little-endian */
#define MPIREG_LAYOUT_VERSION 1u
#define MPIREG_CONSTANT_NAME_MAX 48

/* record flags */
enum {
    MPIREG_FLAG_COMMITTED = 1u << 0,
    MPIREG_FLAG_FREED = 1u << 1,      /* the program holds no handle to it */
    MPIREG_FLAG_PREDEFINED = 1u << 2, /* lives in root.predefined, not in the map */
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
    uint64_t handle; /* hash key: the handle widened to 64 bits */
    UT_hash_handle hh;
    int32_t combiner;  /* MPI_COMBINER_* of the compiled mpi.h */
    uint16_t flags;    /* MPIREG_FLAG_* */
    uint16_t kind;     /* enum mpireg_kind; NONE for derived types */
    uint32_t user_refs;   /* handles the program holds (creation + get_contents) */
    uint32_t parent_refs; /* live records whose args point at this one */
    uint64_t serial;      /* creation order, from 1 */
    uint64_t created_at;  /* return address of the constructor call */
    const char *name;     /* MPI_Type_set_name, NULL when unnamed */
    int64_t size, lb, extent, true_lb, true_extent;
    uint32_t n_integers, n_addresses, n_large_counts, n_datatypes;
    void *args; /* datatypes, addresses, large counts, integers (see top) */
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
    struct mpireg_record *map;        /* uthash head; NULL when empty */
    struct mpireg_record *predefined; /* array of n_predefined records */
    uint32_t n_predefined;
    uint32_t n_constants;
    const struct mpireg_constant *constants;
    uint64_t live_records; /* records in the map */
    uint64_t next_serial;
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
/* Calls fn on every record in the map (not predefined ones), under the lock. */
void mpireg_foreach(void (*fn)(const struct mpireg_record *rec, void *ctx), void *ctx);

#ifdef __cplusplus
}
#endif
#endif
