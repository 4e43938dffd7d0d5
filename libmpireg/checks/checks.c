/*
 * checks.c: which checks are on (MPIPP_CHECK) and the two places the
 * wrappers hand calls to them (checks.h).
 */
#include <stdlib.h>
#include <string.h>
#include "mpireg_internal.h"
#include "checks.h"

int mpireg_check_on;
unsigned mpireg_check_kinds;

static const char *const kind_names[MPIREG_CHECK_NKINDS] = {
    [MPIREG_CHECK_ARGUMENT] = "argument",
    [MPIREG_CHECK_STATE] = "state",
    [MPIREG_CHECK_OVERLAP] = "overlap",
    [MPIREG_CHECK_TYPE_MISMATCH] = "type-mismatch",
    [MPIREG_CHECK_COLLECTIVE] = "collective-mismatch",
    [MPIREG_CHECK_REQUEST] = "request",
    [MPIREG_CHECK_UNMATCHED] = "unmatched",
    [MPIREG_CHECK_LEAK] = "leak",
    [MPIREG_CHECK_SEND_MODIFIED] = "send-modified",
};

const char *mpireg_check_kind_name(int kind)
{
    return kind >= 0 && kind < MPIREG_CHECK_NKINDS ? kind_names[kind] : "?";
}

/* The kinds a MPIPP_CHECK value asks for (0: none). */
static unsigned parse_kinds(const char *value)
{
    unsigned all = (1u << MPIREG_CHECK_NKINDS) - 1;
    if (!value || !*value || strcmp(value, "0") == 0)
        return 0;
    if (strcmp(value, "1") == 0)
        return all & ~(1u << MPIREG_CHECK_SEND_MODIFIED);
    if (strcmp(value, "2") == 0)
        return all;
    unsigned kinds = 0;
    const char *p = value;
    while (*p) {
        size_t n = strcspn(p, ",");
        for (int k = 0; k < MPIREG_CHECK_NKINDS; k++)
            if (strlen(kind_names[k]) == n && strncmp(p, kind_names[k], n) == 0)
                kinds |= 1u << k;
        p += n + (p[n] == ',');
    }
    return kinds;
}

void mpireg_check_up(void)
{
    mpireg_check_kinds = parse_kinds(getenv("MPIPP_CHECK"));
    mpireg_check_on = mpireg_check_kinds != 0;
}

void mpireg_check_before(struct mpireg_call *c, int row)
{
    if (strcmp(c->func, "MPI_Finalize") == 0) {
        mpireg_check_match_finalize();
        mpireg_check_lifecycle_finalize();
        mpireg_check_summary();
        return;
    }
    mpireg_check_args(c, row);
    mpireg_check_lifecycle(c, row);
    mpireg_check_overlap(c, row);
    mpireg_check_match_before(c, row);
}

void mpireg_check_matched(const struct mpireg_call *c, int source, int tag,
                          const MPI_Status *status)
{
    mpireg_check_match_received(c, source, tag, status);
}
