/* overlap.c: SCAFFOLD, replaced by its owner (see checks.h). */
#include "mpireg_internal.h"
#include "checks.h"

void mpireg_check_overlap(const struct mpireg_call *c, int row)
{
    (void)c;
    (void)row;
}
