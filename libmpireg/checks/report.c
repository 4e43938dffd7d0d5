/*
 * report.c: SCAFFOLD of the report (the core's owner replaces it: dedup,
 * bounds, JSON, the call described as `calls` shows it, the summary).
 */
#include <stdio.h>
#include <string.h>
#include "mpireg_internal.h"
#include "checks.h"

void mpipp_check_error(const struct mpireg_check_error *error)
{
    __asm__ volatile("" : : "r"(error) : "memory");
}

void mpireg_check_site(uint64_t site, char *out, size_t len)
{
    snprintf(out, len, "%#llx", (unsigned long long)site);
}

void mpireg_check_describe_call(const struct mpireg_call *c, char *out, size_t len)
{
    snprintf(out, len, "%s", c ? c->func : "MPI_Finalize");
}

void mpireg_check_report(const struct mpireg_check_finding *f)
{
    static struct mpireg_check_error e;
    char call[512];
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mpireg_check_describe_call(f->call, call, sizeof call);
    e.kind = f->kind;
    e.certain = f->certain;
    e.rank = rank;
    e.other_rank = f->other_rank;
    e.call = f->call;
    e.count = 1;
    snprintf(e.text, sizeof e.text, "mpipp: rank %d: %s[%s] %s\n  in %s\n%s", rank,
             f->certain ? "error " : "possible error ", mpireg_check_kind_name(f->kind), f->what,
             call, f->detail ? f->detail : "");
    fputs(e.text, stderr);
    mpipp_check_error(&e);
}

void mpireg_check_summary(void)
{
}
