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
