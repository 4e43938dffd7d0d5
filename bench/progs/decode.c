/*
 * bench/progs/decode.c: buffers for the decode benchmark (bench/run.py decode).
 * Stops in stop_here() with
 *   vec  = vector(count 250000, blocklength 4, stride 8, MPI_DOUBLE) over vbuf
 *          (10^6 doubles selected out of 2*10^6)
 *   arr  = a plain double[10^6] for gdb's own print
 *   item = struct {int, double[3], char[5]} (resized to sizeof(struct item))
 *          over items[10^5]: 9*10^5 basic elements, as many as gdb prints for
 *          print items (each int, double and char is one element).
 */
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#define NVEC 250000
#define NARR 1000000
#define NITEMS 100000

struct item {
    int i;
    double d[3];
    char c[5];
};

double *vbuf, *arr;
struct item *items;
MPI_Datatype vec, item_t;

__attribute__((noinline)) void stop_here(void) { __asm__ volatile("" ::: "memory"); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    vbuf = malloc(sizeof(double) * 8 * NVEC);
    arr = malloc(sizeof(double) * NARR);
    items = malloc(sizeof(struct item) * NITEMS);
    /* Values that differ from their neighbours so neither side folds repeats. */
    for (long k = 0; k < 8L * NVEC; k++)
        vbuf[k] = k * 0.25 + 1.0 / (k + 3);
    for (long k = 0; k < NARR; k++)
        arr[k] = k * 0.25 + 1.0 / (k + 3);
    for (long k = 0; k < NITEMS; k++) {
        items[k].i = (int)k;
        for (int j = 0; j < 3; j++)
            items[k].d[j] = k + j * 0.5 + 1.0 / (k + 7);
        for (int j = 0; j < 5; j++)
            items[k].c[j] = (char)('a' + (k + j) % 26);
    }
    MPI_Type_vector(NVEC, 4, 8, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);

    int bl[3] = {1, 3, 5};
    MPI_Aint disp[3] = {offsetof(struct item, i), offsetof(struct item, d),
                        offsetof(struct item, c)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, tmp;
    MPI_Type_create_struct(3, bl, disp, types, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(struct item), &item_t);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&item_t);

    stop_here();

    MPI_Type_free(&vec);
    MPI_Type_free(&item_t);
    free(vbuf);
    free(arr);
    free(items);
    MPI_Finalize();
    return 0;
}
