! SPDX-License-Identifier: MIT
!
! mpi_intercepted.f90 - a Fortran MPI program whose MPI calls are all ones
! libpctr-mpi intercepts (MPI_INIT, MPI_BARRIER, MPI_FINALIZE), linked
! with it first and --as-needed: nothing of the program then needs MPI's
! Fortran library, and libpctr-mpi must bring it (its calls into
! pmpi_init_... are not weak).
program mpi_intercepted
  use mpi
  implicit none
  integer :: ierr

  call MPI_Init(ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program
