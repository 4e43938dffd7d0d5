/*
 * bench/progs/lookup.c: registry size against handle lookup (bench/run.py lookup).
 * Builds dtype = struct of 3 vectors, then stops in stop_here() twice:
 * first with SMALL live registered types (dtype and its children included),
 * then, after creating more committed vectors, with LARGE live types.
 *   lookup [SMALL [LARGE]]      defaults 10 and 100000
 */
#include <mpi.h>
#include <stdlib.h>

MPI_Datatype dtype;
long live;

__attribute__((noinline)) void stop_here(void) { __asm__ volatile("" ::: "memory"); }

static MPI_Datatype *extra;
static long n_extra;

static void grow_to(long target)
{
    while (live < target) {
        MPI_Type_vector(2 + (int)(n_extra % 7), 1, 3, MPI_INT, &extra[n_extra]);
        MPI_Type_commit(&extra[n_extra]);
        n_extra++;
        live++;
    }
}

int main(int argc, char **argv)
{
    long small = argc > 1 ? atol(argv[1]) : 10;
    long large = argc > 2 ? atol(argv[2]) : 100000;
    MPI_Init(&argc, &argv);
    extra = malloc(sizeof(MPI_Datatype) * (large + 1));

    MPI_Datatype v[3];
    MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &v[0]);
    MPI_Type_vector(3, 1, 2, MPI_INT, &v[1]);
    MPI_Type_create_hvector(2, 3, 40, MPI_FLOAT, &v[2]);
    int bl[3] = {1, 2, 1};
    MPI_Aint disp[3] = {0, 256, 512};
    MPI_Type_create_struct(3, bl, disp, v, &dtype);
    MPI_Type_commit(&dtype);
    MPI_Type_set_name(dtype, "struct_of_vectors");
    live = 4;

    grow_to(small);
    stop_here();
    grow_to(large);
    stop_here();

    for (long k = 0; k < n_extra; k++)
        MPI_Type_free(&extra[k]);
    for (int k = 0; k < 3; k++)
        MPI_Type_free(&v[k]);
    MPI_Type_free(&dtype);
    MPI_Finalize();
    return 0;
}
