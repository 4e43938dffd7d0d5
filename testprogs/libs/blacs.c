/* ScaLAPACK's BLACS moving a block of a column-major matrix, for mpipp's
 * view of MPI calls made by a library without debug information
 * (tests/libs/test_libs.py).  2 ranks in a 1 x 2 process grid:
 *
 *   rank 0 sends the 3 x 4 block of its 5 x 6 matrix a (leading dimension
 *   5) with Cdgesd2d, rank 1 receives it into its own a with Cdgerv2d:
 *   BLACS builds an MPI vector type (BI_GetMpiGeType) and calls MPI_Send /
 *   MPI_Recv from libscalapack (BI_Ssend, BI_Srecv), on a communicator it
 *   split from a dup of MPI_COMM_WORLD;
 *   then rank 0 broadcasts a 2 x 2 block with Cdgebs2d (MPI_Bcast inside).
 */
#include <mpi.h>
#include <stdio.h>

/* the BLACS C interface (libscalapack ships no header for it) */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cdgesd2d(int context, int m, int n, double *a, int lda, int rdest, int cdest);
void Cdgerv2d(int context, int m, int n, double *a, int lda, int rsrc, int csrc);
void Cdgebs2d(int context, const char *scope, const char *top, int m, int n, double *a, int lda);
void Cdgebr2d(int context, const char *scope, const char *top, int m, int n, double *a, int lda,
              int rsrc, int csrc);
void Cblacs_gridexit(int context);

#define LDA 5
#define COLS 6

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, nprocs, context, nprow, npcol, myrow, mycol;
    Cblacs_pinfo(&me, &nprocs);
    Cblacs_get(-1, 0, &context);
    Cblacs_gridinit(&context, "Row", 1, nprocs);
    Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
    double a[COLS][LDA]; /* column-major: a[j][i] is row i of column j */
    for (int j = 0; j < COLS; j++)
        for (int i = 0; i < LDA; i++)
            a[j][i] = mycol == 0 ? 10 * i + j : -1;
    if (mycol == 0)
        Cdgesd2d(context, 3, 4, &a[0][0], LDA, 0, 1);
    else
        Cdgerv2d(context, 3, 4, &a[0][0], LDA, 0, 0);
    if (mycol == 0)
        Cdgebs2d(context, "All", " ", 2, 2, &a[1][1], LDA);
    else
        Cdgebr2d(context, "All", " ", 2, 2, &a[4][2], LDA, 0, 0);
    printf("blacs %d: a(2,3) = %g, a(3,5) = %g\n", mycol, a[3][2], a[5][3]);
    Cblacs_gridexit(context);
    MPI_Finalize();
    return 0;
}
