/*
 * demo: a small halo exchange of the kind mpipp is for.  Each rank owns a
 * block of a 2-D grid and a few particles; it describes the halo column,
 * the interior block and a particle with derived datatypes, then exchanges
 * columns and particles with its neighbours.  stop_here() marks the moment
 * right before the exchange, where the demo inspects everything.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#define ROWS 4
#define COLS 6

struct particle {
    int id;
    double pos[3];
    char tag[5];
};

double grid[ROWS][COLS];
struct particle particles[3];

void __attribute__((noinline)) stop_here(void)
{
    __asm__ volatile("" ::: "memory");
}

static MPI_Datatype make_particle_type(void)
{
    MPI_Datatype t, resized;
    int blocklengths[3] = {1, 3, 5};
    MPI_Aint displacements[3] = {offsetof(struct particle, id), offsetof(struct particle, pos),
                                 offsetof(struct particle, tag)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, blocklengths, displacements, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct particle), &resized);
    MPI_Type_free(&t); /* still used by 'resized': stays visible in the debugger */
    MPI_Type_commit(&resized);
    MPI_Type_set_name(resized, "particle_t");
    return resized;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            grid[r][c] = rank * 100 + r * 10 + c;
    for (int k = 0; k < 3; k++) {
        particles[k].id = rank * 10 + k;
        for (int d = 0; d < 3; d++)
            particles[k].pos[d] = k + d * 0.25;
        snprintf(particles[k].tag, sizeof particles[k].tag, "p%d-%d", rank, k);
    }

    MPI_Datatype column_t, interior_t, particle_t;
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column_t);
    MPI_Type_commit(&column_t);
    MPI_Type_set_name(column_t, "column_t");
    int sizes[2] = {ROWS, COLS}, subsizes[2] = {ROWS - 2, COLS - 2}, starts[2] = {1, 1};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &interior_t);
    MPI_Type_commit(&interior_t);
    particle_t = make_particle_type();

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    stop_here();
    MPI_Sendrecv(&grid[0][COLS - 2], 1, column_t, right, 0, &grid[0][0], 1, column_t, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv_replace(particles, 3, particle_t, right, 1, left, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("rank 0 received column from %d and particles %d..%d\n", left, particles[0].id,
               particles[2].id);

    MPI_Type_free(&column_t);
    MPI_Type_free(&interior_t);
    MPI_Type_free(&particle_t);
    MPI_Finalize();
    return 0;
}
