! SPDX-License-Identifier: MIT
!
! test_fortran_set.f90 - sets from Fortran: page faults of a known number
! of fresh pages, counted through module pctr and, for the same work,
! through the C library in the same process; both read paths; errors as
! a status and the library's text.
program test_fortran_set
  use pctr
  use tap
  use, intrinsic :: iso_c_binding, only: c_int64_t, c_size_t
  implicit none
  integer, parameter :: pages = 256
  type(pctr_set) :: set, none
  type(pctr_sample) :: a, b
  type(pctr_count) :: d
  integer(c_int64_t) :: v0(2), v1(2), short(1), cfig
  integer :: status, st(6)

  call plan(12)
  call touch(1) ! the loop's code and stack, before any count
  call pctr_set_new(set, st(1))
  call pctr_set_add_list(set, 'page-faults,task-clock', st(2))
  call pctr_set_open(set, PCTR_TARGET_THREAD, st(3))
  call pctr_set_enable(set, st(4))
  call pctr_set_read(set, a, st(5))
  call touch(pages)
  call pctr_set_read(set, b, st(6))
  call check(all(st(1:6) >= 0) .and. st(2) == 2, 'a set opens and reads')
  d = pctr_count_delta(b%count(1), a%count(1))
  write (*, '("# page-faults of ", i0, " pages: ", i0)') pages, d%value
  call check(d%value == pages .and. b%nr == 2, &
             'the set counts exactly the pages touched')
  call check(pctr_count_scaled(d) == real(pages, kind(1d0)) .and. &
             d%enabled > 0 .and. d%running == d%enabled, &
             'the count is not multiplexed, its scaled value the same')
  call check(pctr_set_nr(set) == 2 .and. &
             pctr_set_event_name(set, 1) == 'page-faults' .and. &
             pctr_set_event_name(set, 2) == 'task-clock' .and. &
             pctr_set_event_name(set, 3) == '', &
             'events are numbered from 1, with their names')

  ! the same work through the C library in this process
  cfig = c_faults(int(pages, c_size_t))
  write (*, '("# the C library: ", i0)') cfig
  call check(cfig == d%value, 'the C library counts the same')

  call pctr_set_read_values(set, v0, st(1))
  call touch(pages)
  call pctr_set_read_values(set, v1, st(2))
  call check((st(1) == PCTR_PATH_USER .or. st(1) == PCTR_PATH_SYSCALL) &
             .and. st(2) == st(1) .and. v1(1) - v0(1) == pages, &
             'read_values: the raw counts and the path taken')
  call pctr_set_read_values(set, short, status)
  call check(status == -22, 'read_values refuses an array too small')

  call pctr_set_disable(set, st(1))
  call pctr_set_read(set, a, st(2))
  call touch(pages)
  call pctr_set_read(set, b, st(3))
  call check(all(st(1:3) == 0) .and. b%count(1)%value == a%count(1)%value, &
             'disabled, the set counts nothing')
  call pctr_set_free(set)
  call pctr_set_free(set)
  call pctr_set_free(none)
  call check(pctr_set_nr(set) == 0, 'a set freed twice, and never made')

  ! errors: a negative errno, and the library's why and what to do
  call pctr_set_new(set, status)
  call pctr_set_add_list(set, 'page-fault', status)
  write (*, '("# ", a, ": ", a)') pctr_errname(status), pctr_strerror(status)
  call check(status == -2 .and. pctr_errname(status) == 'ENOENT' .and. &
             index(pctr_strerror(status), 'page-faults') > 0, &
             'an unknown event: -ENOENT, the closest name in the text')
  call pctr_set_add_list(set, 'page-faults   ', status)
  call check(status == 1, 'trailing blanks are not part of the list')
  call pctr_set_open(set, 99, status)
  write (*, '("# ", a)') pctr_strerror(status)
  call check(status == -22 .and. len(pctr_strerror(status)) > 0, &
             'a target of no known type: -EINVAL, with a text')
  call pctr_set_free(set)
  call done()
end program
