/*
 * checks.h: MPI usage checks (MPIPP_CHECK; docs/checks.md).
 *
 * Off unless asked: every wrapper of a comm.spec row tests one global,
 * mpireg_check_on, and only when it is set calls mpireg_check_before()
 * before its PMPI call (after the call record is filled, so the thread
 * slot already shows the call).  A check never changes what MPI is given
 * or returns: it reads the call record and libmpireg's own tables, and the
 * only MPI calls it makes are PMPI calls on libmpireg's private
 * duplicates of the program's communicators (type matching, matching.c).
 *
 * The checks, a file each, one entry point each (called by checks.c):
 *   args.c      arguments and object state (seed paper V.A)
 *   overlap.c   buffers that overlap (seed VII-VIII), on typemap runs
 *   matching.c  type signatures of messages and collectives across ranks
 *   lifecycle.c requests, leaks and what MPI_Finalize leaves behind;
 *               send buffers changed before completion (level 2)
 *   report.c    one report: the block on stderr, the JSON line in
 *               MPIPP_CHECK_DIR, mpipp_check_error() (gdb's breakpoint)
 *
 * MPIPP_CHECK: unset, "" or "0" off; "1" every kind but send-modified;
 * "2" every kind; else a comma list of kind names ("overlap,type-mismatch").
 * MPIPP_CHECK_DIR: a directory for rank.N.json (one JSON object per line).
 */
#ifndef MPIREG_CHECKS_H
#define MPIREG_CHECKS_H

#include <stdint.h>
#include <mpi.h>
#include "calls.h"

#define MPIREG_CHECK_HIDDEN __attribute__((visibility("hidden")))

/* The kinds of errors, named as MPIPP_CHECK and the reports name them. */
enum mpireg_check_kind {
    MPIREG_CHECK_ARGUMENT,      /* "argument": an invalid parameter */
    MPIREG_CHECK_STATE,         /* "state": a freed, uncommitted or unknown object used, double free */
    MPIREG_CHECK_OVERLAP,       /* "overlap": buffers that overlap where one side receives */
    MPIREG_CHECK_TYPE_MISMATCH, /* "type-mismatch": a receive's signature differs from its message's */
    MPIREG_CHECK_COLLECTIVE,    /* "collective-mismatch": call, root, op or signature differ across ranks */
    MPIREG_CHECK_REQUEST,       /* "request": request lifecycle (started while active, freed active, never completed) */
    MPIREG_CHECK_UNMATCHED,     /* "unmatched": at MPI_Finalize, messages never received, collectives some ranks never entered */
    MPIREG_CHECK_LEAK,          /* "leak": objects never freed at MPI_Finalize */
    MPIREG_CHECK_SEND_MODIFIED, /* "send-modified": a nonblocking send's buffer changed before completion (level 2) */
    MPIREG_CHECK_NKINDS
};

/* Nonzero when any check is on (set once in MPI_Init, never changed). */
extern int mpireg_check_on MPIREG_CHECK_HIDDEN;
/* Bit (1 << kind) per kind asked for. */
extern unsigned mpireg_check_kinds MPIREG_CHECK_HIDDEN;

static inline int mpireg_check_wants(int kind)
{
    return (mpireg_check_kinds >> kind) & 1u;
}

/* The kind's name ("overlap"), or "?" */
MPIREG_CHECK_HIDDEN const char *mpireg_check_kind_name(int kind);

/* MPI_Init(_thread) succeeded: read MPIPP_CHECK (and MPIPP_CHECK_DIR), set
 * up what the asked kinds need (matching.c duplicates MPI_COMM_WORLD). */
MPIREG_CHECK_HIDDEN void mpireg_check_up(void);

/* Before the PMPI call of a comm.spec row (row: its MPIREG_ROW_* id, the
 * same number on every rank: the row's base name's index in comm.spec,
 * genwrappers.py).  c is the calling thread's call record. */
MPIREG_CHECK_HIDDEN void mpireg_check_before(struct mpireg_call *c, int row);

/* A receive (or a request posted by c) completed, matching (source, tag)
 * (from its status when c asked for a wildcard; status may be
 * MPI_STATUS_IGNORE then only when c's source and tag are specific). */
MPIREG_CHECK_HIDDEN void mpireg_check_matched(const struct mpireg_call *c, int source, int tag,
                                              const MPI_Status *status);

/* ---- entry points of the check files (called by checks.c) ---- */
MPIREG_CHECK_HIDDEN void mpireg_check_args(struct mpireg_call *c, int row);
MPIREG_CHECK_HIDDEN void mpireg_check_overlap(const struct mpireg_call *c, int row);
MPIREG_CHECK_HIDDEN void mpireg_check_match_before(const struct mpireg_call *c, int row);
MPIREG_CHECK_HIDDEN void mpireg_check_match_received(const struct mpireg_call *c, int source,
                                                     int tag, const MPI_Status *status);
MPIREG_CHECK_HIDDEN void mpireg_check_lifecycle(const struct mpireg_call *c, int row);
/* At MPI_Finalize, before PMPI_Finalize: every rank's last checks
 * (matching.c: messages never received, collectives not entered by all;
 * lifecycle.c: requests, leaks), then the summary (report.c). */
MPIREG_CHECK_HIDDEN void mpireg_check_match_finalize(void);
MPIREG_CHECK_HIDDEN void mpireg_check_lifecycle_finalize(void);
MPIREG_CHECK_HIDDEN void mpireg_check_summary(void);

/* ---- type-tree paths (paths.c; the path contract of docs/design.md) ----
 * The path of one element of `count` elements of `datatype` (widened
 * handle): by its ordinal in the typemap (type matching) or by a byte
 * offset from the buffer's address (overlap).  Writes "[1][0][2]" and
 * returns 1, or writes what it can ("element 17", "byte 96") and returns 0. */
MPIREG_CHECK_HIDDEN int mpireg_check_path_of_element(uint64_t datatype, int64_t count,
                                                     int64_t ordinal, char *out, size_t len);
MPIREG_CHECK_HIDDEN int mpireg_check_path_of_byte(uint64_t datatype, int64_t count,
                                                  int64_t offset, char *out, size_t len);

/* ---- reports (report.c) ---- */

#define MPIREG_CHECK_TEXT_MAX 4096

/* One error as handed to mpipp_check_error() (gdb reads it there: its
 * `text` is the block printed on stderr). */
struct mpireg_check_error {
    int32_t kind;               /* enum mpireg_check_kind */
    int32_t certain;            /* 0: a "possible" error (why: in the text) */
    int32_t rank;               /* MPI_COMM_WORLD rank of this process */
    int32_t other_rank;         /* the other side's world rank, -1 when none */
    const struct mpireg_call *call; /* the erring call (NULL at MPI_Finalize's leak report) */
    uint64_t count;             /* times this same error was reported (1 the first time) */
    char text[MPIREG_CHECK_TEXT_MAX];
};

/* What a check hands to mpireg_check_report. */
struct mpireg_check_finding {
    int kind;
    int certain;
    const struct mpireg_call *call; /* NULL: not about one call */
    int other_rank;                 /* -1: none */
    /* What is the same for repeats of this error (with kind and the call's
     * site): repeats are counted, not printed again. */
    uint64_t key;
    const char *what;   /* one line: what is wrong */
    const char *detail; /* further lines (paths, the other side's call), or NULL */
};

/* Reports a finding: prints the block (or counts a repeat), writes the JSON
 * line, then calls mpipp_check_error().  Thread safe; allocates nothing. */
MPIREG_CHECK_HIDDEN void mpireg_check_report(const struct mpireg_check_finding *f);

/* The call as `calls` shows it: MPI_Irecv(buf=0x..., count=1,
 * datatype=column, source=0, tag=7, comm=MPI_COMM_WORLD) at func (file:line). */
MPIREG_CHECK_HIDDEN void mpireg_check_describe_call(const struct mpireg_call *c, char *out,
                                                    size_t len);

/* Where a call or an object was made, from its return address: "func
 * (file.c:42)" from debug information, else "func (libfoo.so)", else the
 * address.  Slow (may run addr2line): only when a report is written. */
MPIREG_CHECK_HIDDEN void mpireg_check_site(uint64_t site, char *out, size_t len);

/* The breakpoint: libmpireg calls it once per reported error, inside the
 * erring wrapper before its PMPI call; `mpipp-gdb --check` and
 * `mpipp-job --until-error` break here.  Exported, never inlined. */
void mpipp_check_error(const struct mpireg_check_error *error);

#endif
