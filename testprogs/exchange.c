/*
 * exchange: two ranks swap a buffer of particles (a resized struct) and a
 * column of a grid (a vector), then each prints exactly what it received.
 * stop_here() is the moment before the exchange: a debugger that changes
 * the send buffers there sees its values arrive at the other rank.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#define ROWS 3
#define COLS 4

struct particle {
    int id;
    double pos[2];
    char tag[4];
};

struct particle out_particles[2], in_particles[2];
double out_grid[ROWS][COLS], in_column[ROWS];
struct {
    double value;
    int index;
} out_pair, in_pair;
MPI_Datatype pair_type; /* MPI_DOUBLE_INT, for a debugger (MPI's names are macros) */

void __attribute__((noinline)) stop_here(void)
{
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Datatype particle_t, raw, column_t;
    int bl[3] = {1, 2, 4};
    MPI_Aint disp[3] = {offsetof(struct particle, id), offsetof(struct particle, pos),
                        offsetof(struct particle, tag)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, disp, types, &raw);
    MPI_Type_create_resized(raw, 0, sizeof(struct particle), &particle_t);
    MPI_Type_commit(&particle_t);
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column_t);
    MPI_Type_commit(&column_t);

    for (int k = 0; k < 2; k++) {
        out_particles[k].id = 10 * rank + k;
        out_particles[k].pos[0] = rank + 0.5;
        out_particles[k].pos[1] = -k;
        snprintf(out_particles[k].tag, sizeof out_particles[k].tag, "r%dp", rank);
    }
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            out_grid[r][c] = 100 * rank + 10 * r + c;
    out_pair.value = rank + 0.25;
    out_pair.index = rank;
    pair_type = MPI_DOUBLE_INT;

    int partner = rank ^ 1;
    stop_here();
    MPI_Sendrecv(out_particles, 2, particle_t, partner, 0, in_particles, 2, particle_t, partner, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&out_grid[0][1], 1, column_t, partner, 1, in_column, ROWS, MPI_DOUBLE, partner, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&out_pair, 1, MPI_DOUBLE_INT, partner, 2, &in_pair, 1, MPI_DOUBLE_INT, partner, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < 2; k++)
        printf("rank %d received particle %d: id=%d pos=%.17g,%.17g tag=%.4s\n", rank, k,
               in_particles[k].id, in_particles[k].pos[0], in_particles[k].pos[1],
               in_particles[k].tag);
    printf("rank %d received column: %.17g %.17g %.17g\n", rank, in_column[0], in_column[1],
           in_column[2]);
    printf("rank %d received pair: %.17g %d\n", rank, in_pair.value, in_pair.index);

    MPI_Type_free(&raw);
    MPI_Type_free(&particle_t);
    MPI_Type_free(&column_t);
    MPI_Finalize();
    return 0;
}
