! SPDX-License-Identifier: MIT
!
! count.f90 - count.c in Fortran: count events around a piece of work in
! this thread and print them.
!
!   count-fortran [EVENTS]   default "task-clock,page-faults,instructions:u"
!
! On a machine without a hardware PMU, hardware events cannot be counted;
! the program then says why and counts the software events alone.
!
!   gfortran count.f90 $(pkg-config --cflags --libs pctr-fortran)
program count
  use pctr
  use, intrinsic :: iso_fortran_env, only: error_unit, int8, int64
  implicit none
  character(len=4096) :: events
  type(pctr_set) :: set
  type(pctr_sample) :: before, after
  type(pctr_count) :: d
  integer :: i, r, status
  logical :: given

  given = command_argument_count() > 0
  events = 'task-clock,page-faults,instructions:u'
  if (given) call get_command_argument(1, events)
  call open_set(events, r)
  if (r == -19 .and. .not. given) then ! -ENODEV: no PMU
    write (error_unit, '("count: ", a)') pctr_strerror(r)
    call open_set('task-clock,page-faults', r)
  end if
  if (r < 0) then
    write (error_unit, '("count: ", a)') pctr_strerror(r)
    call pctr_set_free(set)
    stop 1, quiet=.true.
  end if
  call pctr_set_enable(set, status)
  call pctr_set_read(set, before, status)
  call work()
  call pctr_set_read(set, after, status)
  do i = 1, pctr_set_nr(set)
    d = pctr_count_delta(after%count(i), before%count(i))
    write (*, '(i20, 2x, a)') nint(pctr_count_scaled(d), int64), &
      pctr_set_event_name(set, i)
  end do
  write (*, '(i20, 2x, "ns elapsed (", a, " read)")') &
    pctr_tsc_to_ns(after%tsc - before%tsc), &
    trim(merge('user-space', 'syscall   ', &
               iand(after%path, PCTR_PATH_USER) /= 0))
  call pctr_set_free(set)

contains

  ! 16 MiB, one write a page
  subroutine work()
    integer, parameter :: len = 16 * 2**20
    integer(int8), allocatable, volatile :: p(:)
    integer :: j

    allocate(p(len))
    do j = 1, len, 4096
      p(j) = 1
    end do
    deallocate(p)
  end subroutine

  subroutine open_set(list, r)
    character(len=*), intent(in) :: list
    integer, intent(out) :: r

    call pctr_set_new(set, r)
    if (r == 0) call pctr_set_add_list(set, list, r)
    if (r >= 0) call pctr_set_open(set, PCTR_TARGET_THREAD, r)
  end subroutine
end program
