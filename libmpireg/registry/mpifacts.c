/*
 * mpifacts.c: behaviour that differs between MPI libraries and that no
 * header says, asked of the MPI itself at run time (once, with PMPI calls
 * only, so the program sees nothing).
 */
#include "mpireg_internal.h"

/* -1: not asked yet.  Written and read under the registry lock. */
static int contents_copies = -1;

int mpireg_contents_gives_copies(void)
{
    if (contents_copies < 0) {
        MPI_Datatype child, parent, got = MPI_DATATYPE_NULL;
        int ints[1];
        MPI_Aint addrs[1];
        contents_copies = 0;
        if (PMPI_Type_contiguous(1, MPI_INT, &child) != MPI_SUCCESS)
            return 0;
        if (PMPI_Type_contiguous(2, child, &parent) == MPI_SUCCESS) {
            if (PMPI_Type_get_contents(parent, 1, 0, 1, ints, addrs, &got) == MPI_SUCCESS) {
                contents_copies = got != child;
                PMPI_Type_free(&got);
            }
            PMPI_Type_free(&parent);
        }
        PMPI_Type_free(&child);
    }
    return contents_copies;
}
