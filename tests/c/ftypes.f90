! ftypes.f90: datatypes built from Fortran (use mpi and mpif.h) must appear
! in the registry.  Run with LD_PRELOAD=libmpireg.so MPIREG_DUMP=<file>;
! tests/c/test_registry_fortran.py checks the dump, with the MPI constants
! printed here (CONST lines).
program ftypes
  use mpi
  implicit none
  integer :: ierr, rank, tvec, tcont, tstruct, tsub, tres, tf90, tfree, thv, tidx
  integer :: bl(2), sizes(2), subs(2), starts(2), types(2)
  integer(kind=MPI_ADDRESS_KIND) :: disp(2), lb, ext

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Type_vector(3, 2, 5, MPI_DOUBLE_PRECISION, tvec, ierr)
  call MPI_Type_commit(tvec, ierr)
  call MPI_Type_set_name(tvec, 'fvec', ierr)
  call MPI_Type_contiguous(4, MPI_INTEGER, tcont, ierr)
  bl = (/ 1, 2 /)
  disp = (/ 0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND /)
  types = (/ tcont, MPI_REAL /)
  call MPI_Type_create_struct(2, bl, disp, types, tstruct, ierr)
  call MPI_Type_set_name(tstruct, 'fstruct', ierr)
  call MPI_Type_free(tcont, ierr)
  sizes = (/ 10, 20 /)
  subs = (/ 2, 3 /)
  starts = (/ 1, 4 /)
  call MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_REAL, tsub, ierr)
  lb = -8
  ext = 64
  call MPI_Type_create_resized(tvec, lb, ext, tres, ierr)
  call MPI_Type_create_f90_real(10, 100, tf90, ierr)
  call MPI_Type_contiguous(2, MPI_INTEGER, tfree, ierr)
  call MPI_Type_free(tfree, ierr)
  call legacy(thv, tidx)
  if (rank == 0) then
    ! the MPI's own values of the constants the dump shows as numbers
    print '(A,I0)', 'CONST MPI_ORDER_FORTRAN ', MPI_ORDER_FORTRAN
    print '(A,I0)', 'CONST VECTOR ', MPI_COMBINER_VECTOR
    print '(A,I0)', 'CONST CONTIGUOUS ', MPI_COMBINER_CONTIGUOUS
    print '(A,I0)', 'CONST HVECTOR ', MPI_COMBINER_HVECTOR
    print '(A,I0)', 'CONST INDEXED ', MPI_COMBINER_INDEXED
    print '(A,I0)', 'CONST STRUCT ', MPI_COMBINER_STRUCT
    print '(A,I0)', 'CONST SUBARRAY ', MPI_COMBINER_SUBARRAY
    print '(A,I0)', 'CONST F90_REAL ', MPI_COMBINER_F90_REAL
    print '(A,I0)', 'CONST RESIZED ', MPI_COMBINER_RESIZED
  end if
  call MPI_Finalize(ierr)
end program ftypes

! The same through mpif.h (no explicit interfaces).
subroutine legacy(thv, tidx)
  implicit none
  include 'mpif.h'
  integer :: thv, tidx, ierr
  integer :: bl(3), dl(3)
  integer(kind=MPI_ADDRESS_KIND) :: stride
  stride = 24
  call MPI_TYPE_CREATE_HVECTOR(2, 1, stride, MPI_INTEGER, thv, ierr)
  bl = (/ 1, 0, 2 /)
  dl = (/ 0, 3, 7 /)
  call MPI_TYPE_INDEXED(3, bl, dl, MPI_INTEGER, tidx, ierr)
  call MPI_TYPE_COMMIT(tidx, ierr)
end subroutine legacy
