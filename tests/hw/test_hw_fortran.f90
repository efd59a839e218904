! SPDX-License-Identifier: MIT
!
! test_hw_fortran.f90 - exact instruction counts from Fortran, through
! module pctr (bindings/fortran), in the emulated-PMU guest: hw_loop(N)
! (hw_asm.S, 2N instructions and a constant) between two reads of
! instructions:u, for N from 1000 to 10^8.  The count less 2N is the
! reads' own share, and must be the same constant C at every N, bit for
! bit, as hw.h's hw_check_exact() holds the C tests to; on the read(2)
! path and on the user-space path (arm64: kernel.perf_user_access=1;
! x86-64: the cpu PMU's rdpmc=1), in both guests.  At
! real-time priority, as hw.h says why.  The cases, for run.sh:
! TEST_CASE(syscall_read_exact) TEST_CASE(user_read_exact)
program test_hw_fortran
  use pctr
  use tap, only: plan, check, done
  use, intrinsic :: iso_c_binding
  implicit none
  interface
    subroutine hw_loop(n) bind(c, name='hw_loop')
      import :: c_int64_t
      integer(c_int64_t), value :: n
    end subroutine
    function sched_setscheduler(pid, policy, param) &
        bind(c, name='sched_setscheduler')
      import :: c_int
      integer(c_int), value :: pid, policy
      integer(c_int), intent(in) :: param ! struct sched_param
      integer(c_int) :: sched_setscheduler
    end function
  end interface
  integer(c_int), parameter :: SCHED_FIFO = 1

  call plan(2)
  if (sched_setscheduler(0, SCHED_FIFO, 1_c_int) /= 0) &
    write (*, '("# SCHED_FIFO refused: counts may be disturbed")')
  call exact('syscall_read_exact', PCTR_SET_NO_USER_READ, 0, &
             PCTR_PATH_SYSCALL)
  call exact('user_read_exact', 0, 1, PCTR_PATH_USER)
  call done()

contains

  ! the switch for user-space counter reads: arm64's sysctl
  ! kernel.perf_user_access, or x86-64's rdpmc file of the cpu PMU
  subroutine user_access(on)
    integer, intent(in) :: on
    character(len=*), parameter :: arm64 = &
      '/proc/sys/kernel/perf_user_access', &
      x86 = '/sys/bus/event_source/devices/cpu/rdpmc'
    logical :: is_arm64

    inquire (file=arm64, exist=is_arm64)
    if (is_arm64) then
      call write_switch(arm64, on)
    else
      call write_switch(x86, on)
    end if
  end subroutine

  subroutine write_switch(file, on)
    character(len=*), intent(in) :: file
    integer, intent(in) :: on
    integer :: u, ios

    open (newunit=u, file=file, action='write', iostat=ios)
    if (ios == 0) write (u, '(i0)', iostat=ios) on
    if (ios == 0) close (u, iostat=ios)
    if (ios /= 0) write (*, '("# ", a, ": iostat ", i0)') file, ios
  end subroutine

  subroutine exact(name, flags, access, path)
    character(len=*), intent(in) :: name
    integer, intent(in) :: flags, access, path
    integer(c_int64_t), parameter :: points(6) = [1000_c_int64_t, &
      100000_c_int64_t, 1000000_c_int64_t, 10000000_c_int64_t, &
      100000000_c_int64_t, 1000_c_int64_t]
    type(pctr_set) :: set
    integer(c_int64_t) :: a(1), b(1), c, off
    integer :: i, r, ra, rb, st(4)
    logical :: ok

    call user_access(access)
    call pctr_set_new(set, st(1), flags)
    call pctr_set_add_list(set, 'instructions:u', st(2))
    call pctr_set_open(set, PCTR_TARGET_THREAD, st(3))
    call pctr_set_enable(set, st(4))
    ok = all(st >= 0)
    do i = 1, 4
      if (st(i) < 0) write (*, '("# ", a)') pctr_strerror(st(i))
    end do
    c = -1
    do i = 1, size(points)
      if (.not. ok) exit
      do r = 1, 2
        call pctr_set_read_values(set, a, ra)
        call hw_loop(points(i))
        call pctr_set_read_values(set, b, rb)
        off = b(1) - a(1) - 2 * points(i)
        write (*, '("# N=", i0, ": ", i0, " = 2N+", i0, ", path ", i0)') &
          points(i), b(1) - a(1), off, rb
        if (c < 0) c = off
        ok = ok .and. ra == path .and. rb == path .and. off == c &
             .and. off > 0 .and. off < 5000
      end do
    end do
    call pctr_set_free(set)
    write (*, '("# ", a, ": 2N+", i0)') name, c
    call check(ok, name)
  end subroutine
end program
