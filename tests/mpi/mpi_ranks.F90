! SPDX-License-Identifier: MIT
!
! mpi_ranks.F90 - mpi_ranks.c in Fortran: rank r touches (r + 1) * 64
! fresh pages, in region "touch" when built with REGIONS (module pctr,
! libpctr-mpi linked), then meets the other ranks in a barrier and an
! allreduce; "sleep" as the first argument: rank 0 sleeps 200 ms between
! two barriers.  Built with F08 it uses mpi_f08, else mpi: Open MPI's two
! Fortran bindings, which call the C PMPI layer directly
! (mpi/pmpi_fortran.c).  Built without REGIONS it knows nothing of pctr.
program mpi_ranks
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
#ifdef REGIONS
  use pctr, only: pctr_region_begin, pctr_region_end
#endif
  use tap, only: touch_pages
  use, intrinsic :: iso_c_binding
  implicit none
  integer, parameter :: pages = 64
  integer :: rank, ierr, one = 1, total = 0
  character(len=16) :: arg
  interface
    function usleep(us) bind(c, name='usleep')
      import :: c_int
      integer(c_int), value :: us
      integer(c_int) :: usleep
    end function
  end interface

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  ierr = touch_pages(1_c_size_t) ! the loop's code and stack
#ifdef REGIONS
  call pctr_region_begin('touch')
#endif
  ierr = touch_pages(int((rank + 1) * pages, c_size_t))
#ifdef REGIONS
  call pctr_region_end('touch')
#endif
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call get_command_argument(1, arg)
  if (arg == 'sleep') then
    if (rank == 0) ierr = usleep(200000)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end if
  call MPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                     ierr)
  if (rank == 0) write (*, '("ranks ", i0)') total
  call MPI_Finalize(ierr)
end program
