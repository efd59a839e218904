! SPDX-License-Identifier: MIT
!
! tap.f90 - TAP from Fortran for the tests of module pctr: one line a
! check, "ok N - what" or "not ok N - what", and the plan; and the C
! helpers of touch.c and cfig.c, which touch a known number of fresh pages and count
! the same work through the C library.
module tap
  use, intrinsic :: iso_c_binding
  implicit none
  integer, private :: count = 0, failed = 0

  interface
    ! write to n fresh pages: exactly n page faults (tests/test.h)
    function touch_pages(n) bind(c, name='ftest_touch_pages')
      import :: c_size_t, c_int
      integer(c_size_t), value :: n
      integer(c_int) :: touch_pages
    end function
    ! the page faults of touch_pages(n), counted with the C API
    function c_faults(n) bind(c, name='ftest_c_faults')
      import :: c_size_t, c_int64_t
      integer(c_size_t), value :: n
      integer(c_int64_t) :: c_faults
    end function
    ! touch_pages(n) in region name, entered and left from C
    function c_region(name, n) bind(c, name='ftest_c_region')
      import :: c_char, c_size_t, c_int
      character(kind=c_char), intent(in) :: name(*)
      integer(c_size_t), value :: n
      integer(c_int) :: c_region
    end function
  end interface

contains

  subroutine plan(n)
    integer, intent(in) :: n

    write (*, '("1..", i0)') n
  end subroutine

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what

    count = count + 1
    if (ok) then
      write (*, '("ok ", i0, " - ", a)') count, what
    else
      failed = failed + 1
      write (*, '("not ok ", i0, " - ", a)') count, what
    end if
    flush (6)
  end subroutine

  ! touch n pages, stopping the program if they cannot be mapped
  subroutine touch(n)
    integer, intent(in) :: n

    if (touch_pages(int(n, c_size_t)) /= 0) error stop 'mmap failed'
  end subroutine

  ! the exit status: 1 if a check failed
  subroutine done()
    if (failed > 0) stop 1, quiet=.true.
  end subroutine
end module tap
