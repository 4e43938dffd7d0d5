/* PETSc's star forest over MPI one-sided communication, for mpipp's view
 * of RMA calls made by a library (tests/libs/test_libs.py).  2 ranks, a
 * PetscSF of type "window": each rank has 4 roots and 3 leaves, leaf k
 * naming root {0, 2, 3}[k] of the other rank.  PetscSFBcast makes each
 * rank MPI_Get its leaves from the other rank's window, PetscSFReduce
 * MPI_Accumulate them back (MPI_SUM), through datatypes PETSc builds (an
 * indexed_block per rank on each side: the target one is the interesting
 * half), in fence epochs.  Root i of rank r holds 100 * r + i. */
#include <petscsf.h>

int main(int argc, char **argv)
{
    PetscMPIInt rank, size;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscSF sf;
    PetscCall(PetscSFCreate(PETSC_COMM_WORLD, &sf));
    PetscCall(PetscSFSetType(sf, PETSCSFWINDOW));
    PetscSFNode remote[3];
    const PetscInt roots[3] = {0, 2, 3};
    for (int k = 0; k < 3; k++) {
        remote[k].rank = (rank + 1) % size;
        remote[k].index = roots[k];
    }
    PetscCall(PetscSFSetGraph(sf, 4, 3, NULL, PETSC_COPY_VALUES, remote, PETSC_COPY_VALUES));
    PetscCall(PetscSFSetUp(sf));
    PetscScalar rootdata[4], leafdata[3] = {0, 0, 0};
    for (int i = 0; i < 4; i++)
        rootdata[i] = 100 * rank + i;
    PetscCall(PetscSFBcastBegin(sf, MPIU_SCALAR, rootdata, leafdata, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPIU_SCALAR, rootdata, leafdata, MPI_REPLACE));
    PetscCall(PetscSFReduceBegin(sf, MPIU_SCALAR, leafdata, rootdata, MPI_SUM));
    PetscCall(PetscSFReduceEnd(sf, MPIU_SCALAR, leafdata, rootdata, MPI_SUM));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "petsc_sf %d: leaves %g %g %g\n", rank,
                          (double)leafdata[0], (double)leafdata[1], (double)leafdata[2]));
    PetscCall(PetscSFDestroy(&sf));
    PetscCall(PetscFinalize());
    return 0;
}
