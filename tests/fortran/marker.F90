! SPDX-License-Identifier: MIT
!
! marker.F90 - the Fortran markers (pctr_marker_f.h), built twice.  With
! -DPCTR_ENABLE they mark region "marked" around a known number of fresh
! pages, and the report at exit ($PCTR_REPORT) says so: test_marker.sh
! reads it.  Without, the program is linked without libpctr and module
! pctr (a call would not link), and the region's name, a function with a
! side effect, is never evaluated.
#include <pctr_marker_f.h>
program marker
  PCTR_MARKER_USE
#ifdef PCTR_ENABLE
  use pctr, only: pctr_region_summary, pctr_summary
#endif
  use tap
  implicit none
  integer, parameter :: pages = 64
  integer :: calls = 0, i

  call plan(1)
  PCTR_MARKER_INIT()
  call touch(1)
  do i = 1, 2
    PCTR_REGION_BEGIN(name())
    call touch(pages)
    PCTR_REGION_END(name())
  end do
  PCTR_MARKER_FLUSH()
#ifdef PCTR_ENABLE
  block
    type(pctr_summary) :: s
    integer :: status

    ! $PCTR_EVENTS=page-faults (meson.build)
    call pctr_region_summary('marked', 1, s, status)
    call check(calls == 4 .and. status == 0 .and. s%n == 2 .and. &
               s%total == 2 * pages, 'the markers count the region')
  end block
#else
  call check(calls == 0, 'the markers do nothing')
#endif
  call done()
contains
  function name()
    character(len=6) :: name

    calls = calls + 1
    name = 'marked'
  end function
end program
