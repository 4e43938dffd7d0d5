/* matching.c: SCAFFOLD, replaced by its owner (see checks.h). */
#include "mpireg_internal.h"
#include "checks.h"

void mpireg_check_match_before(const struct mpireg_call *c, int row)
{
    (void)c;
    (void)row;
}

void mpireg_check_match_received(const struct mpireg_call *c, int source, int tag,
                                 const MPI_Status *status)
{
    (void)c;
    (void)source;
    (void)tag;
    (void)status;
}

void mpireg_check_match_finalize(void)
{
}
