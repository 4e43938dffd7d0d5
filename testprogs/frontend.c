/*
 * frontend: what a debugger front end shows of MPI datatypes and buffers.
 *
 * cell_t is a struct of a vector (whose own handle the program already
 * freed) and an int; cells[] is a buffer of it.  big/small are buffers of
 * 10^7 and 10^3 doubles, for lazy-expansion timing.  The program stops in
 * stop_here(), changes a few values, and stops in stop_again().
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define BIG 10000000
#define SMALL 1000

struct cell {
    double halo[6]; /* the vector takes halo[0], halo[2], halo[4] */
    int id;
};

struct cell cells[4];
double *big, *small;
MPI_Datatype cell_t, halo_t, double_t;

void __attribute__((noinline)) stop_here(void)
{
    __asm__ volatile("" ::: "memory");
}

void __attribute__((noinline)) stop_again(void)
{
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &halo_t);
    MPI_Type_set_name(halo_t, "halo_t");
    int blocklengths[2] = {1, 1};
    MPI_Aint displacements[2] = {offsetof(struct cell, halo), offsetof(struct cell, id)};
    MPI_Datatype types[2] = {halo_t, MPI_INT};
    MPI_Type_create_struct(2, blocklengths, displacements, types, &cell_t);
    MPI_Type_set_name(cell_t, "cell_t");
    MPI_Type_commit(&cell_t);
    MPI_Datatype freed_halo = halo_t;
    MPI_Type_free(&freed_halo); /* cell_t keeps it alive: a freed child type */
    double_t = MPI_DOUBLE;

    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < 6; j++)
            cells[k].halo[j] = k * 10 + j;
        cells[k].id = 100 + k;
    }
    big = malloc(sizeof(double) * BIG);
    small = malloc(sizeof(double) * SMALL);
    for (int k = 0; k < BIG; k++)
        big[k] = k * 0.5;
    for (int k = 0; k < SMALL; k++)
        small[k] = k * 0.5;
    MPI_Datatype local_cell = cell_t;
    struct cell *cellbuf = cells;

    stop_here();

    cells[1].id = 4242;
    cells[0].halo[2] = -1.5;
    big[3] = 99.25;
    stop_again();

    (void)local_cell, (void)cellbuf;
    printf("%d %g\n", cells[1].id, big[3]);
    free(big);
    free(small);
    MPI_Type_free(&cell_t);
    MPI_Finalize();
    return 0;
}
