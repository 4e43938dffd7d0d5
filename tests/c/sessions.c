/*
 * sessions.c: an MPI-4 sessions program (no MPI_Init; MPI_Initialized says
 * no): types are recorded and the predefined sizes are filled by the first
 * successful constructor.  An MPI-3 library (Open MPI 4.1) has no sessions:
 * the program says so, and the test checks that the MPI is indeed MPI-3.
 */
#include "regtest.h"

int main(void)
{
#if MPI_VERSION >= 4
    MPI_Session s;
    int init = 1;
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS) {
        printf("sessions: FAILED (MPI_Session_init)\n");
        return 1;
    }
    MPI_Initialized(&init);
    CHECK(!init, "MPI_Initialized with sessions only");
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_DOUBLE_INT, &t);
    const struct mpireg_record *d = mpireg_lookup(MPI_DOUBLE), *r = mpireg_lookup(t);
    CHECK(d && d->size == sizeof(double), "MPI_DOUBLE size %lld", d ? (long long)d->size : -1LL);
    CHECK(r && r->combiner == MPI_COMBINER_CONTIGUOUS && r->size == 2 * (sizeof(double) + sizeof(int)) &&
              mpireg_datatypes(r)[0] == mpireg_lookup(MPI_DOUBLE_INT),
          "contiguous record");
    MPI_Type_free(&t);
    CHECK(ROOT.types.count == 0 && ROOT.seq % 2 == 0, "registry after free");
    MPI_Session_finalize(&s);
    printf("sessions: %s (%d failures)\n", rt_failures ? "FAILED" : "OK", rt_failures);
    return rt_failures ? 1 : 0;
#else
    int version = 0, subversion = 0;
    MPI_Get_version(&version, &subversion);
    printf("sessions: none in MPI %d.%d\n", version, subversion);
    return 0;
#endif
}
