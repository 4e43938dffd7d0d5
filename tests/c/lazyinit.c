/*
 * lazyinit.c: MPI initialised behind libmpireg's back (PMPI_Init): the
 * predefined table's sizes are filled by the first wrapped call instead.
 */
#include "regtest.h"

int main(int argc, char **argv)
{
    PMPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_rank);
    const struct mpireg_record *d = mpireg_lookup(MPI_DOUBLE), *di = mpireg_lookup(MPI_DOUBLE_INT);
    CHECK(d && d->size == 0 && d->extent == 0, "MPI_DOUBLE filled before any wrapped call");
    uint64_t seq0 = ROOT.seq;
    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t);
    CHECK(d->size == sizeof(double) && d->extent == sizeof(double), "MPI_DOUBLE size %lld", (long long)d->size);
    struct { double v; int i; } pair;
    CHECK(di->size == sizeof(double) + sizeof(int) && di->extent == sizeof pair, "MPI_DOUBLE_INT %lld/%lld",
          (long long)di->size, (long long)di->extent);
    const struct mpireg_record *r = mpireg_lookup(t);
    CHECK(r && r->size == 3 * di->size && mpireg_datatypes(r)[0] == di, "contiguous of a pair");
    CHECK(ROOT.seq == seq0 + 4, "seq %llu -> %llu: fill and insert are two updates", (unsigned long long)seq0,
          (unsigned long long)ROOT.seq);
    MPI_Type_free(&t);
    return rt_finish("lazyinit");
}
