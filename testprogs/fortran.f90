! fortran: datatypes built from Fortran (use mpi, and use mpi_f08 in
! make_f08_type), looked at from a Fortran frame
! (tests/integration/test_fortran.py): handles are INTEGERs there, and a
! TYPE(MPI_Datatype) of mpi_f08 holds one in MPI_VAL.
module f08types
contains
  subroutine make_f08_type(t)
    use mpi_f08
    type(MPI_Datatype), intent(out) :: t
    call MPI_Type_contiguous(5, MPI_REAL, t)
    call MPI_Type_set_name(t, 'f08cont')
    call MPI_Type_commit(t)
  end subroutine make_f08_type
end module f08types

program fortran
  use f08types
  use mpi
  use mpi_f08, only: f08_datatype => MPI_Datatype
  implicit none
  integer :: ierr, tvec, tcont, i
  type(f08_datatype) :: tf08, c08
  double precision :: buf(20)
  call MPI_Init(ierr)
  buf = (/ (dble(i), i = 1, 20) /)
  call MPI_Type_vector(3, 2, 5, MPI_DOUBLE_PRECISION, tvec, ierr)
  call MPI_Type_commit(tvec, ierr)
  call MPI_Type_set_name(tvec, 'fvec', ierr)
  call MPI_Type_contiguous(4, MPI_INTEGER, tcont, ierr)
  tf08%MPI_VAL = tvec
  call make_f08_type(c08)
  call stop_here(tvec, buf, tf08, c08)
  call MPI_Send(buf, 1, tvec, MPI_PROC_NULL, 5, MPI_COMM_WORLD, ierr)
  call MPI_Type_free(tvec, ierr)
  call MPI_Type_free(tcont, ierr)
  call MPI_Finalize(ierr)
contains
  subroutine stop_here(t, b, t08, c08)
    integer, intent(in) :: t
    double precision, intent(in) :: b(20)
    type(f08_datatype), intent(in) :: t08, c08
    print '(A,I0,F5.1,I2)', 'stop_here ', t, b(1), t08%MPI_VAL - t
  end subroutine stop_here
end program fortran
