/*
 * bench/progs/churn.c: the application-side cost of libmpireg (bench/run.py overhead).
 *
 *   churn loop N       create, commit and free N vector types and N 16-member
 *                      struct types; prints the loop time (MPI_Wtime) on stdout.
 *   churn memory N     keeps N vectors live, then N 16-member structs live, and
 *                      prints the heap growth per type: "vector BYTES_PER_TYPE\n
 *                      struct BYTES_PER_TYPE".  The heap is every byte malloc
 *                      hands out, from its arenas (mallinfo2().uordblks) and
 *                      as mmapped blocks (hblkhd: big tables land there).
 * Run it with and without LD_PRELOAD=libmpireg.so; the difference is the
 * registry's share.
 */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMEMB 16

static MPI_Datatype member_type(int k)
{
    static const MPI_Datatype kinds[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_FLOAT};
    return kinds[k % 4];
}

static void make_struct(long k, MPI_Datatype *out)
{
    int bl[NMEMB];
    MPI_Aint disp[NMEMB];
    MPI_Datatype types[NMEMB];
    for (int j = 0; j < NMEMB; j++) {
        bl[j] = 1 + (int)((k + j) % 3);
        disp[j] = 32 * j;
        types[j] = member_type(j);
    }
    MPI_Type_create_struct(NMEMB, bl, disp, types, out);
}

static void make_vector(long k, MPI_Datatype *out)
{
    MPI_Type_vector(3 + (int)(k % 5), 2, 7, MPI_DOUBLE, out);
}

static size_t heap(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "loop";
    long n = argc > 2 ? atol(argv[2]) : 100000;
    MPI_Init(&argc, &argv);
    if (strcmp(mode, "loop") == 0) {
        double t0 = MPI_Wtime();
        for (long k = 0; k < n; k++) {
            MPI_Datatype t;
            make_vector(k, &t);
            MPI_Type_commit(&t);
            MPI_Type_free(&t);
        }
        for (long k = 0; k < n; k++) {
            MPI_Datatype t;
            make_struct(k, &t);
            MPI_Type_commit(&t);
            MPI_Type_free(&t);
        }
        printf("%.6f\n", MPI_Wtime() - t0);
    } else {
        MPI_Datatype *t = malloc(sizeof(MPI_Datatype) * n);
        /* warm-up: let MPI and the registry allocate their first blocks */
        for (long k = 0; k < 64; k++) {
            MPI_Datatype w;
            make_struct(k, &w);
            MPI_Type_commit(&w);
            MPI_Type_free(&w);
        }
        size_t h0 = heap();
        for (long k = 0; k < n; k++) {
            make_vector(k, &t[k]);
            MPI_Type_commit(&t[k]);
        }
        size_t h1 = heap();
        for (long k = 0; k < n; k++)
            MPI_Type_free(&t[k]);
        size_t h2 = heap();
        for (long k = 0; k < n; k++) {
            make_struct(k, &t[k]);
            MPI_Type_commit(&t[k]);
        }
        size_t h3 = heap();
        for (long k = 0; k < n; k++)
            MPI_Type_free(&t[k]);
        printf("vector %.2f\nstruct %.2f\n", (double)(h1 - h0) / n, (double)(h3 - h2) / n);
        free(t);
    }
    MPI_Finalize();
    return 0;
}
