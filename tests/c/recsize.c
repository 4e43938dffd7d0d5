/*
 * recsize.c: memory per record (record + args, one pool block right after
 * the record), for a vector and for a 100-entry struct.
 */
#include "regtest.h"

static void report(const char *what, MPI_Datatype t)
{
    const struct mpireg_record *r = mpireg_lookup(t);
    size_t args = r->n_datatypes * sizeof(void *) + r->n_addresses * sizeof(MPI_Aint) +
                  r->n_large_counts * sizeof(MPI_Count) + r->n_integers * sizeof(int);
    CHECK((const char *)mpireg_datatypes(r) == (const char *)(r + 1), "%s: args right after the record", what);
    printf("RECSIZE %s bytes=%zu\n", what, sizeof *r + args);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Datatype v, s, ty[100];
    int bl[100];
    MPI_Aint ad[100];
    for (int i = 0; i < 100; i++) {
        bl[i] = 1;
        ad[i] = 8 * i;
        ty[i] = i % 2 ? MPI_INT : MPI_DOUBLE;
    }
    MPI_Type_vector(10, 2, 4, MPI_DOUBLE, &v);
    MPI_Type_create_struct(100, bl, ad, ty, &s);
    report("vector", v);
    report("struct100", s);
    printf("RECSIZE sizeof_record=%zu\n", sizeof(struct mpireg_record));
    MPI_Type_free(&v);
    MPI_Type_free(&s);
    return rt_finish("recsize");
}
