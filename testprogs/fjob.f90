! fjob: a Fortran job (use mpi) for the job console and record/replay
! (tests/job/test_fortran_job.py).  Every communicating call goes through
! MPI's Fortran binding, which under Open MPI calls PMPI_ directly.
!   fjob cycle      on a communicator MPI_Comm_split made, rank 0 receives
!                   from rank 1 while the others are in MPI_Allreduce: a
!                   deadlock cycle
!   fjob mismatch   rank 0 in MPI_Barrier, the others in MPI_Allreduce on
!                   that communicator: they never meet
!   fjob wildcard N rank 0 receives N messages from every other rank with
!                   MPI_ANY_SOURCE and prints whose each was (from the status,
!                   then, with MPI_STATUS_IGNORE, from the data); then every rank
!                   prints an MPI_Allreduce (MPI_IN_PLACE) and a gathered sum
!   fjob nonblocking  every rank but 0 sends rank 0 a message with MPI_Isend,
!                   which rank 0 receives with MPI_Irecv (MPI_ANY_SOURCE);
!                   all complete them with MPI_Wait
! Before a call that blocks for good, a rank writes $JOB_PIDDIR/blocking.RANK.
program fjob
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, work, n, i, got, status(MPI_STATUS_SIZE)
  integer :: sums(64), request
  character(len=32) :: mode, arg
  double precision :: x(4)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, mode)
  call MPI_Comm_split(MPI_COMM_WORLD, 1, rank, work, ierr)
  x = dble(rank)
  select case (trim(mode))
  case ('cycle')
    if (rank == 0) then
      call blocking(rank)
      call MPI_Recv(got, 1, MPI_INTEGER, 1, 7, work, status, ierr)
    else
      call blocking(rank)
      call MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE_PRECISION, MPI_SUM, work, ierr)
    end if
  case ('mismatch')
    call blocking(rank)
    if (rank == 0) then
      call MPI_Barrier(work, ierr)
    else
      call MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE_PRECISION, MPI_SUM, work, ierr)
    end if
  case ('wildcard')
    call get_command_argument(2, arg)
    read (arg, *) n
    if (rank == 0) then
      do i = 1, n * (nprocs - 1)
        call MPI_Recv(got, 1, MPI_INTEGER, MPI_ANY_SOURCE, 3, work, status, ierr)
        print '(A,I0,A,I0)', 'rank 0: message ', i, ' from ', status(MPI_SOURCE)
      end do
      do i = 1, n * (nprocs - 1)
        call MPI_Recv(got, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, work, MPI_STATUS_IGNORE, ierr)
        print '(A,I0,A,I0)', 'rank 0: message ', n * (nprocs - 1) + i, ' from ', got
      end do
    else
      do i = 1, n
        call MPI_Send(rank, 1, MPI_INTEGER, 0, 3, work, ierr)
      end do
      do i = 1, n
        call MPI_Send(rank, 1, MPI_INTEGER, 0, 5, work, ierr)
      end do
    end if
    call MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE_PRECISION, MPI_SUM, work, ierr)
    call MPI_Gather(rank, 1, MPI_INTEGER, sums, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    print '(A,I0,A,F6.1)', 'rank ', rank, ': allreduce ', x(1)
  case ('nonblocking')
    if (rank == 0) then
      do i = 1, nprocs - 1
        call MPI_Irecv(got, 1, MPI_INTEGER, MPI_ANY_SOURCE, 4, work, request, ierr)
        call MPI_Wait(request, status, ierr)
        print '(A,I0,A,I0)', 'rank 0: message ', i, ' from ', status(MPI_SOURCE)
      end do
    else
      call MPI_Isend(rank, 1, MPI_INTEGER, 0, 4, work, request, ierr)
      call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
    end if
  end select
  call MPI_Comm_free(work, ierr)
  call MPI_Finalize(ierr)
contains
  subroutine blocking(rank)
    integer, intent(in) :: rank
    character(len=512) :: dir
    character(len=600) :: path
    integer :: length, unit
    call get_environment_variable('JOB_PIDDIR', dir, length)
    if (length == 0) return
    write (path, '(A,A,I0)') trim(dir), '/blocking.', rank
    open (newunit=unit, file=trim(path), status='replace', action='write')
    write (unit, '(I0)') getpid()
    close (unit)
  end subroutine blocking
end program fjob
