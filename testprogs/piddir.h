/* Where a job's test program tells the tests which process is which:
 * JOB_PIDDIR/WHAT.RANK holds a pid, written whole (a rename) so a test
 * polling for it never reads half a number.  Nothing without JOB_PIDDIR. */
#ifndef MPIPP_TESTPROGS_PIDDIR_H
#define MPIPP_TESTPROGS_PIDDIR_H

#include <stdio.h>
#include <stdlib.h>

static void write_pid(const char *what, int rank, int pid)
{
    const char *dir = getenv("JOB_PIDDIR");
    if (!dir)
        return;
    char path[4096], tmp[4096];
    snprintf(path, sizeof path, "%s/%s.%d", dir, what, rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fprintf(f, "%d\n", pid);
    fclose(f);
    rename(tmp, path);
}

#endif
