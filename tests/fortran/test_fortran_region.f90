! SPDX-License-Identifier: MIT
!
! test_fortran_region.f90 - regions by name from Fortran: a region
! entered three times around a known number of fresh pages, nested
! regions, names as Fortran passes them (literals, blank-padded
! variables), the same work in a region marked from C, and the errors.
program test_fortran_region
  use pctr
  use tap
  use, intrinsic :: iso_c_binding, only: c_size_t, c_null_char
  implicit none
  integer, parameter :: pages = 64
  character(len=20) :: padded
  type(pctr_summary) :: s, t, c
  integer :: i, status, st(4)
  character(len=200) :: long
  character(len=64) :: file

  call plan(11)
  call pctr_region_init(events='page-faults', status=status)
  call check(status == 0, 'regions switched on, counting page faults')
  call touch(1)
  do i = 1, 3
    call pctr_region_begin('touch')
    call touch(pages)
    call pctr_region_end('touch')
  end do
  call pctr_region_summary('touch', 1, s, status)
  write (*, '("# touch: n ", i0, ", total ", f0.0, ", min ", f0.0, &
             &", max ", f0.0)') s%n, s%total, s%min, s%max
  call check(status == 0 .and. s%n == 3 .and. s%total == 3 * pages .and. &
             s%min == pages .and. s%max == pages, &
             'a region entered 3 times counts its pages exactly')

  ! the same work, in a region marked from C
  do i = 1, 3
    status = c_region('touch_c' // c_null_char, int(pages, c_size_t))
  end do
  call pctr_region_summary('touch_c', 1, c, status)
  call check(status == 0 .and. c%n == s%n .and. c%total == s%total .and. &
             c%min == s%min .and. c%max == s%max, &
             'the C library measures the same region alike')

  ! nested, and a blank-padded name is the same region; twice, for the
  ! first entry of 'inner' allocates its statistics inside 'outer' (and
  ! an allocator may fault pages of its own there: AddressSanitizer's)
  padded = 'outer'
  do i = 1, 2
    call pctr_region_begin(padded, st(1))
    call touch(pages)
    call pctr_region_begin('inner', st(2))
    call touch(2 * pages)
    call pctr_region_end('inner', st(3))
    call pctr_region_end('outer', st(4))
  end do
  call pctr_region_summary('outer', 1, s, status)
  call pctr_region_summary('inner', 1, t, i)
  write (*, '("# outer: min ", f0.0, ", inner: min ", f0.0, " max ", &
             &f0.0)') s%min, t%min, t%max
  call check(all(st == 0) .and. status == 0 .and. i == 0 .and. &
             s%n == 2 .and. s%min == 3 * pages .and. &
             t%min == 2 * pages .and. t%max == 2 * pages, &
             'nested regions: the outer holds the inner')
  call pctr_region_summary('outer', PCTR_STATS_TIME, s, status)
  call check(status == 0 .and. s%n == 2 .and. s%total > 0, &
             'a region''s elapsed ticks')

  ! errors: status and text, nothing lost
  call pctr_region_begin('a')
  call pctr_region_begin('b')
  call pctr_region_end('a', status)
  write (*, '("# ", a)') pctr_strerror(status)
  call check(status == -22 .and. len(pctr_strerror(status)) > 0, &
             'ending a region that is not the innermost: -EINVAL')
  call pctr_region_end('b', st(1))
  call pctr_region_end('a', st(2))
  call check(all(st(1:2) == 0), 'then ended in order')
  long = repeat('x', 200)
  call pctr_region_begin(long, status)
  write (*, '("# ", a)') pctr_strerror(status)
  call check(status == -22 .and. index(pctr_strerror(status), 'longer') > 0, &
             'a name too long: -EINVAL, said')
  call pctr_region_summary('never', 1, s, status)
  call check(status == -2, 'a region never entered: -ENOENT')

  ! the report, now: to a file, and to one that cannot be written
  write (file, '("/tmp/test_fortran_region.", i0, ".txt")') getpid()
  call pctr_region_write_to('text:' // trim(file), status)
  call check(status == 0 .and. report_has(trim(file), &
                                          '--- touch_c ---'), &
             'the report names the regions')
  call pctr_region_write_to('text:/dev/full', status)
  write (*, '("# /dev/full: ", a)') pctr_strerror(status)
  call check(status < 0, 'a report that cannot be written: an error')
  call done()
contains
  ! whether file (removed here) holds a line containing what
  logical function report_has(file, what)
    character(len=*), intent(in) :: file, what
    character(len=256) :: line
    integer :: u, ios

    report_has = .false.
    open (newunit=u, file=file, status='old', action='read', iostat=ios)
    if (ios /= 0) return
    do
      read (u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (index(line, what) > 0) report_has = .true.
    end do
    close (u, status='delete')
  end function
end program
