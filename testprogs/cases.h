/*
 * A catalogue of datatype test cases shared by the test programs.  Each case
 * is a datatype, a buffer seen through it, and MPI's own view of both (the
 * bytes MPI_Pack produces and the type's size and extents), so a debugger
 * test can compare what mpipp decodes against MPI itself.
 */
#ifndef MPIPP_TESTPROGS_CASES_H
#define MPIPP_TESTPROGS_CASES_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CASES 96

/* What this MPI has, from its mpi.h: the MPI-4 large-count constructors,
 * and the MPI-1 names MPI-3.0 removed (MPI_LB, MPI_UB, MPI_Type_hvector,
 * MPI_Type_hindexed, MPI_Type_struct): MPICH keeps them, Open MPI's mpi.h
 * makes them a compile error unless built with MPI-1 compatibility. */
#define HAVE_LARGE_COUNT (MPI_VERSION >= 4)
#if defined(MPI_LB) && (!defined(OMPI_ENABLE_MPI1_COMPAT) || OMPI_ENABLE_MPI1_COMPAT)
#define HAVE_MPI1_NAMES 1
#else
#define HAVE_MPI1_NAMES 0
#endif

struct test_case {
    const char *name;
    MPI_Datatype type;
    void *buf; /* MPI_BOTTOM for absolute displacements */
    int count;
    unsigned char *packed; /* MPI_Pack of (buf, count, type) */
    int packed_size;
    MPI_Count size, lb, extent, true_lb, true_extent;
};

struct test_case cases[MAX_CASES];
int n_cases;

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "MPI call failed: %s (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Fills n bytes with a pattern that differs per byte and per buffer. */
static void *pattern_buffer(size_t n, unsigned seed)
{
    unsigned char *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7u + seed * 13u + 1u);
    return p;
}

/*
 * Commits, names and registers a case; buf must cover count extents.  MPI's
 * reference bytes come from packing (pack_buf, count, pack_type), which is the
 * case itself except where MPICH refuses to pack from MPI_BOTTOM.
 */
static void add_case_packed_as(const char *name, MPI_Datatype type, void *buf, int count,
                               MPI_Datatype pack_type, void *pack_buf)
{
    struct test_case *c = &cases[n_cases++];
    int packed_size = 0, position = 0;
    char label[MPI_MAX_OBJECT_NAME];

    snprintf(label, sizeof label, "%s_t", name);
    check(MPI_Type_set_name(type, label), "set_name");
    c->name = name;
    c->type = type;
    c->buf = buf;
    c->count = count;
    check(MPI_Pack_size(count, pack_type, MPI_COMM_WORLD, &packed_size), "pack_size");
    c->packed = malloc(packed_size ? packed_size : 1);
    check(MPI_Pack(pack_buf, count, pack_type, c->packed, packed_size, &position, MPI_COMM_WORLD),
          "pack");
    c->packed_size = position;
    MPI_Type_size_x(type, &c->size);
    MPI_Type_get_extent_x(type, &c->lb, &c->extent);
    MPI_Type_get_true_extent_x(type, &c->true_lb, &c->true_extent);
}

static void add_case(const char *name, MPI_Datatype type, void *buf, int count)
{
    check(MPI_Type_commit(&type), "commit");
    add_case_packed_as(name, type, buf, count, type, buf);
}

/* A buffer for count repetitions of type, addressed from its lb. */
static void *buffer_for(MPI_Datatype type, int count, unsigned seed, size_t *len_out)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    MPI_Aint lo = true_lb < 0 ? true_lb : 0;
    MPI_Aint hi = true_lb + true_extent + (count > 0 ? (count - 1) * extent : 0);
    size_t len = (size_t)(hi - lo) + 64;
    unsigned char *p = pattern_buffer(len, seed);
    if (len_out)
        *len_out = len;
    return p - lo; /* so that buf + true_lb is inside the allocation */
}

#endif
