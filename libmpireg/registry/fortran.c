/*
 * fortran.c: what the generated Fortran entry points (mpi_type_vector_ ...,
 * see FORTRAN_PARAMS in genwrappers.py) need to turn their arguments into
 * the C views their recipes read.
 */
#include "mpireg_internal.h"

#include <stdlib.h>

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as int arrays");

MPI_Datatype *mpireg_types_f2c(const MPI_Fint *f, MPI_Count n, MPI_Datatype *small, size_t nsmall)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(MPI_Datatype))
        return NULL;
    MPI_Datatype *c = (size_t)n <= nsmall ? small : malloc((size_t)n * sizeof *c);
    for (MPI_Count k = 0; c && k < n; k++)
        c[k] = PMPI_Type_f2c(f[k]);
    return c;
}

void mpireg_types_release(MPI_Datatype *c, MPI_Datatype *small)
{
    if (c != small)
        free(c);
}

/* Fortran passes a character argument as its address and (hidden, last) its
 * length, blank padded, without a NUL: MPI ignores trailing blanks. */
const char *mpireg_string_f2c(const char *f, size_t len, char *buf, size_t size)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    if (len >= size)
        len = size - 1;
    memcpy(buf, f, len);
    buf[len] = '\0';
    return buf;
}

/* The Fortran sentinels.  Open MPI defines them as common blocks (one per
 * name a compiler may give them) in libmpi and its Fortran libraries; MPICH
 * keeps their addresses in pointers its binding sets on its first call
 * (mpif.h, use mpi) and in objects of its own (use mpi_f08).  All weak: a
 * name the loaded MPI lacks has address 0. */
#define WEAK __attribute__((weak))
extern char mpi_fortran_in_place_ WEAK, mpi_fortran_in_place WEAK, mpi_fortran_in_place__ WEAK,
    MPI_FORTRAN_IN_PLACE WEAK;
extern char mpi_fortran_bottom_ WEAK, mpi_fortran_bottom WEAK, mpi_fortran_bottom__ WEAK,
    MPI_FORTRAN_BOTTOM WEAK;
extern char mpi_fortran_status_ignore_ WEAK, mpi_fortran_status_ignore WEAK,
    mpi_fortran_status_ignore__ WEAK, MPI_FORTRAN_STATUS_IGNORE WEAK;
extern void *MPIR_F_MPI_IN_PLACE WEAK, *MPIR_F_MPI_BOTTOM WEAK;
extern int MPIR_F08_MPI_IN_PLACE WEAK, MPIR_F08_MPI_BOTTOM WEAK; /* as MPICH's mpi.h has them */

static int is_one_of(const void *f, const void *const *addresses, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (addresses[k] && f == addresses[k])
            return 1;
    return 0;
}

static int mpich_sentinel(const void *f, void *const *pointer)
{
    return pointer && *pointer && f == *pointer;
}

void *mpireg_fbuf_f2c(void *f)
{
    const void *in_place[] = {&mpi_fortran_in_place_, &mpi_fortran_in_place,
                              &mpi_fortran_in_place__, &MPI_FORTRAN_IN_PLACE, &MPIR_F08_MPI_IN_PLACE};
    const void *bottom[] = {&mpi_fortran_bottom_, &mpi_fortran_bottom, &mpi_fortran_bottom__,
                            &MPI_FORTRAN_BOTTOM, &MPIR_F08_MPI_BOTTOM};
    if (!f)
        return f;
    if (is_one_of(f, in_place, 5) || mpich_sentinel(f, &MPIR_F_MPI_IN_PLACE))
        return MPI_IN_PLACE;
    if (is_one_of(f, bottom, 5) || mpich_sentinel(f, &MPIR_F_MPI_BOTTOM))
        return MPI_BOTTOM;
    return f;
}

int mpireg_fstatus_ignored(const MPI_Fint *f)
{
    const void *ignore[] = {&mpi_fortran_status_ignore_, &mpi_fortran_status_ignore,
                            &mpi_fortran_status_ignore__, &MPI_FORTRAN_STATUS_IGNORE};
#ifdef MPICH_VERSION /* its use mpi_f08 binding's (MPI-3; Open MPI 4.1 lacks it) */
    if ((const void *)f == (const void *)MPI_F08_STATUS_IGNORE)
        return 1;
#endif
    return !f || f == MPI_F_STATUS_IGNORE || is_one_of(f, ignore, 4);
}
