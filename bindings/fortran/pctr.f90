! SPDX-License-Identifier: MIT
!
! pctr.f90 - module pctr: libpctr from Fortran, through ISO_C_BINDING.
!
!   use pctr
!   type(pctr_set) :: set
!   type(pctr_sample) :: a, b
!   integer :: status
!   call pctr_set_new(set, status)
!   call pctr_set_add_list(set, 'task-clock,page-faults', status)
!   call pctr_set_open(set, PCTR_TARGET_THREAD, status)
!   if (status < 0) print *, pctr_strerror(status)
!
! The calls are the C API's (include/pctr.h, pctr(3)), as subroutines
! whose last argument, status, receives what the C call returns: 0 or
! more on success, a negative errno on failure, which pctr_strerror()
! explains (why, and what to do).  The region calls take status as an
! optional argument, so that marked code reads `call
! pctr_region_begin('solve')`.  Events are numbered from 1, as Fortran
! arrays are: sample%count(i) and values(i) belong to event i.  Strings
! lose their trailing blanks, as Fortran compares them.  Counts are
! integer(int64): the C library's uint64_t, positive below 2**63.
!
! Thread safety is the C library's: a set is used by one thread at a
! time; the region calls are per thread and safe from OpenMP threads.
module pctr
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer, parameter, public :: PCTR_MAX_EVENTS = 64
  integer, parameter, public :: PCTR_NAME_MAX = 128

  integer, parameter, public :: PCTR_SET_NO_MULTIPLEX = 1
  integer, parameter, public :: PCTR_SET_NO_USER_READ = 2

  integer, parameter, public :: PCTR_TARGET_THREAD = 0
  integer, parameter, public :: PCTR_TARGET_PROCESS = 1
  integer, parameter, public :: PCTR_TARGET_PID = 2
  integer, parameter, public :: PCTR_TARGET_TID = 3
  integer, parameter, public :: PCTR_TARGET_CPU = 4

  integer, parameter, public :: PCTR_PATH_USER = 1
  integer, parameter, public :: PCTR_PATH_SYSCALL = 2

  ! pctr_region_summary(): the elapsed time, in timestamp ticks
  integer, parameter, public :: PCTR_STATS_TIME = 0

  ! struct pctr_count
  type, bind(c), public :: pctr_count
    integer(c_int64_t) :: value, enabled, running
  end type

  ! struct pctr_sample (no default values: a read writes 1.5 KiB less)
  type, bind(c), public :: pctr_sample
    integer(c_int64_t) :: tsc
    integer(c_int32_t) :: nr, path
    type(pctr_count) :: count(PCTR_MAX_EVENTS)
  end type

  ! struct pctr_summary (its version 1 size, 80 bytes)
  type, bind(c), public :: pctr_summary
    integer(c_size_t) :: size = 80
    integer(c_int64_t) :: n = 0
    real(c_double) :: total = 0, min = 0, mean = 0, max = 0
    real(c_double) :: stddev = 0, std_error = 0
    real(c_double) :: ci95_low = 0, ci95_high = 0
  end type

  ! a set: owns the C library's struct pctr_set
  type, public :: pctr_set
    type(c_ptr) :: p = c_null_ptr
  end type

  ! struct pctr_target
  type, bind(c) :: c_target
    integer(c_int) :: type = 0
    integer(c_int) :: pid = 0
    integer(c_int) :: nr_cpus = 0
    type(c_ptr) :: cpus = c_null_ptr
  end type

  ! struct pctr_region_config (version 1, 32 bytes)
  type, bind(c) :: c_region_config
    integer(c_size_t) :: size = 32
    type(c_ptr) :: events = c_null_ptr
    integer(c_int) :: keep = 0
    integer(c_int) :: calibrate = 1000
    integer(c_int) :: disturbed = 0
  end type

  public :: pctr_version, pctr_strerror, pctr_errname
  public :: pctr_set_new, pctr_set_add_list, pctr_set_open
  public :: pctr_set_enable, pctr_set_disable, pctr_set_reset
  public :: pctr_set_read, pctr_set_read_values, pctr_set_free
  public :: pctr_set_nr, pctr_set_event_name, pctr_set_user_read
  public :: pctr_count_delta, pctr_count_scaled
  public :: pctr_tsc, pctr_tsc_to_ns
  public :: pctr_region_init, pctr_region_enable
  public :: pctr_region_begin, pctr_region_end, pctr_region_flush
  public :: pctr_region_summary, pctr_region_write_to
  public :: pctr_region_report

  interface
    pure function c_strlen(s) bind(c, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: c_strlen
    end function
    pure subroutine c_memcpy(dst, src, n) bind(c, name='memcpy')
      import :: c_ptr, c_size_t, c_char
      character(kind=c_char), intent(out) :: dst(*)
      type(c_ptr), value :: src
      integer(c_size_t), value :: n
    end subroutine
    pure function c_version() bind(c, name='pctr_version')
      import :: c_ptr
      type(c_ptr) :: c_version
    end function
    pure function c_strerror(err) bind(c, name='pctr_strerror')
      import :: c_ptr, c_int
      integer(c_int), value :: err
      type(c_ptr) :: c_strerror
    end function
    pure function c_errname(err) bind(c, name='pctr_errname')
      import :: c_ptr, c_int
      integer(c_int), value :: err
      type(c_ptr) :: c_errname
    end function
    function c_set_new(setp, flags) bind(c, name='pctr_set_new')
      import :: c_ptr, c_int
      type(c_ptr) :: setp
      integer(c_int), value :: flags
      integer(c_int) :: c_set_new
    end function
    subroutine c_set_free(set) bind(c, name='pctr_set_free')
      import :: c_ptr
      type(c_ptr), value :: set
    end subroutine
    function c_set_add_list(set, list) &
        bind(c, name='pctr_set_add_list')
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: set
      character(kind=c_char), intent(in) :: list(*)
      integer(c_int) :: c_set_add_list
    end function
    function c_set_open(set, target) bind(c, name='pctr_set_open')
      import :: c_ptr, c_int, c_target
      type(c_ptr), value :: set
      type(c_target), intent(in) :: target
      integer(c_int) :: c_set_open
    end function
    function c_set_enable(set) bind(c, name='pctr_set_enable')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: c_set_enable
    end function
    function c_set_disable(set) bind(c, name='pctr_set_disable')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: c_set_disable
    end function
    function c_set_reset(set) bind(c, name='pctr_set_reset')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: c_set_reset
    end function
    function c_set_read(set, s) bind(c, name='pctr_set_read')
      import :: c_ptr, c_int, pctr_sample
      type(c_ptr), value :: set
      type(pctr_sample), intent(out) :: s
      integer(c_int) :: c_set_read
    end function
    function c_set_read_values(set, v) &
        bind(c, name='pctr_set_read_values')
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: set
      integer(c_int64_t), intent(out) :: v(*)
      integer(c_int) :: c_set_read_values
    end function
    pure function c_set_nr(set) bind(c, name='pctr_set_nr')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: c_set_nr
    end function
    function c_set_user_read(set) bind(c, name='pctr_set_user_read')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: c_set_user_read
    end function
    pure function c_event_name(set, idx) &
        bind(c, name='pctr_fortran__event_name')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int), value :: idx
      type(c_ptr) :: c_event_name
    end function
    function c_count_delta(after, before) &
        bind(c, name='pctr_count_delta')
      import :: pctr_count
      type(pctr_count), intent(in) :: after, before
      type(pctr_count) :: c_count_delta
    end function
    function c_count_scaled(c) bind(c, name='pctr_count_scaled')
      import :: pctr_count, c_double
      type(pctr_count), intent(in) :: c
      real(c_double) :: c_count_scaled
    end function
    function c_tsc() bind(c, name='pctr_tsc')
      import :: c_int64_t
      integer(c_int64_t) :: c_tsc
    end function
    function c_tsc_to_ns(ticks) bind(c, name='pctr_tsc_to_ns')
      import :: c_int64_t
      integer(c_int64_t), value :: ticks
      integer(c_int64_t) :: c_tsc_to_ns
    end function
    function c_region_init(cfg) bind(c, name='pctr_region_init')
      import :: c_int, c_region_config
      type(c_region_config), intent(in) :: cfg
      integer(c_int) :: c_region_init
    end function
    function c_region_enable(on) bind(c, name='pctr_region_enable')
      import :: c_int
      integer(c_int), value :: on
      integer(c_int) :: c_region_enable
    end function
    function c_region_begin(name, len) &
        bind(c, name='pctr_fortran__region_begin')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: name(*)
      integer(c_size_t), value :: len
      integer(c_int) :: c_region_begin
    end function
    function c_region_end(name, len) &
        bind(c, name='pctr_fortran__region_end')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: name(*)
      integer(c_size_t), value :: len
      integer(c_int) :: c_region_end
    end function
    function c_region_flush() bind(c, name='pctr_region_flush')
      import :: c_int
      integer(c_int) :: c_region_flush
    end function
    function c_region_stats(name, stp) &
        bind(c, name='pctr_region_stats')
      import :: c_int, c_char, c_ptr
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr) :: stp
      integer(c_int) :: c_region_stats
    end function
    function c_stats_get(st, idx, out) bind(c, name='pctr_stats_get')
      import :: c_int, c_ptr, pctr_summary
      type(c_ptr), value :: st
      integer(c_int), value :: idx
      type(pctr_summary), intent(inout) :: out
      integer(c_int) :: c_stats_get
    end function
    subroutine c_stats_free(st) bind(c, name='pctr_stats_free')
      import :: c_ptr
      type(c_ptr), value :: st
    end subroutine
    function c_region_write_to(dest) &
        bind(c, name='pctr_region_write_to')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: dest(*)
      integer(c_int) :: c_region_write_to
    end function
    function c_region_report(dest) bind(c, name='pctr_region_report')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: dest(*)
      integer(c_int) :: c_region_report
    end function
  end interface

contains

  ! a Fortran string as C wants it: no trailing blanks, a NUL
  pure function cstr(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: c

    c = trim(s) // c_null_char
  end function

  ! a copy of the C string at p ('' for NULL)
  pure function fstr(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    integer(c_size_t) :: n

    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = c_strlen(p)
    allocate(character(len=n) :: s)
    call c_memcpy(s, p, n)
  end function

  ! the library's version, "MAJOR.MINOR.PATCH"
  pure function pctr_version() result(s)
    character(len=:), allocatable :: s

    s = fstr(c_version())
  end function

  ! why a call failed and what to do (pctr_strerror(3))
  pure function pctr_strerror(status) result(s)
    integer, intent(in) :: status
    character(len=:), allocatable :: s

    s = fstr(c_strerror(int(status, c_int)))
  end function

  ! the errno's name, "ENODEV"
  pure function pctr_errname(status) result(s)
    integer, intent(in) :: status
    character(len=:), allocatable :: s

    s = fstr(c_errname(int(status, c_int)))
  end function

  ! ---- sets ---------------------------------------------------------

  ! an empty set (flags: PCTR_SET_*); a set already held is freed first
  subroutine pctr_set_new(set, status, flags)
    type(pctr_set), intent(inout) :: set
    integer, intent(out) :: status
    integer, intent(in), optional :: flags
    integer(c_int) :: f

    f = 0
    if (present(flags)) f = int(flags, c_int)
    call pctr_set_free(set)
    status = c_set_new(set%p, f)
  end subroutine

  ! close the set's counters and free it; a freed set is accepted
  subroutine pctr_set_free(set)
    type(pctr_set), intent(inout) :: set

    call c_set_free(set%p)
    set%p = c_null_ptr
  end subroutine

  ! add "cycles,instructions:u,{a,b}": status the number added
  subroutine pctr_set_add_list(set, list, status)
    type(pctr_set), intent(in) :: set
    character(len=*), intent(in) :: list
    integer, intent(out) :: status

    status = c_set_add_list(set%p, cstr(list))
  end subroutine

  ! open on PCTR_TARGET_THREAD (this thread), _PROCESS (this process
  ! and its threads), _PID or _TID (pid given), _CPU (every CPU)
  subroutine pctr_set_open(set, target, status, pid)
    type(pctr_set), intent(in) :: set
    integer, intent(in) :: target
    integer, intent(out) :: status
    integer, intent(in), optional :: pid
    type(c_target) :: t

    t%type = int(target, c_int)
    if (present(pid)) t%pid = int(pid, c_int)
    status = c_set_open(set%p, t)
  end subroutine

  subroutine pctr_set_enable(set, status)
    type(pctr_set), intent(in) :: set
    integer, intent(out) :: status

    status = c_set_enable(set%p)
  end subroutine

  subroutine pctr_set_disable(set, status)
    type(pctr_set), intent(in) :: set
    integer, intent(out) :: status

    status = c_set_disable(set%p)
  end subroutine

  subroutine pctr_set_reset(set, status)
    type(pctr_set), intent(in) :: set
    integer, intent(out) :: status

    status = c_set_reset(set%p)
  end subroutine

  ! every count with its times, and the timestamp (pctr_set_read(3))
  subroutine pctr_set_read(set, sample, status)
    type(pctr_set), intent(in) :: set
    type(pctr_sample), intent(out) :: sample
    integer, intent(out) :: status

    status = c_set_read(set%p, sample)
  end subroutine

  ! the raw counts alone, the cheapest read: status the path taken
  ! (PCTR_PATH_USER or _SYSCALL); values must hold pctr_set_nr(set)
  ! counts, else -EINVAL (22) and nothing is read
  subroutine pctr_set_read_values(set, values, status)
    type(pctr_set), intent(in) :: set
    integer(c_int64_t), intent(out) :: values(:)
    integer, intent(out) :: status

    if (size(values) < pctr_set_nr(set)) then
      status = -22
      return
    end if
    status = c_set_read_values(set%p, values)
  end subroutine

  ! the number of events in the set
  pure integer function pctr_set_nr(set)
    type(pctr_set), intent(in) :: set

    pctr_set_nr = 0
    if (c_associated(set%p)) pctr_set_nr = c_set_nr(set%p)
  end function

  ! 1 when the last read was done in user space (pctr_set_user_read(3))
  integer function pctr_set_user_read(set)
    type(pctr_set), intent(in) :: set

    pctr_set_user_read = c_set_user_read(set%p)
  end function

  ! the name of event i (1 .. pctr_set_nr), '' when there is none
  pure function pctr_set_event_name(set, i) result(s)
    type(pctr_set), intent(in) :: set
    integer, intent(in) :: i
    character(len=:), allocatable :: s

    s = fstr(c_event_name(set%p, int(i - 1, c_int)))
  end function

  ! after - before, for a count and both its times
  type(pctr_count) function pctr_count_delta(after, before)
    type(pctr_count), intent(in) :: after, before

    pctr_count_delta = c_count_delta(after, before)
  end function

  ! the count scaled up for the time it was not on a counter
  real(c_double) function pctr_count_scaled(c)
    type(pctr_count), intent(in) :: c

    pctr_count_scaled = c_count_scaled(c)
  end function

  ! the timestamp counter, and its ticks in nanoseconds
  integer(c_int64_t) function pctr_tsc()
    pctr_tsc = c_tsc()
  end function

  integer(c_int64_t) function pctr_tsc_to_ns(ticks)
    integer(c_int64_t), intent(in) :: ticks

    pctr_tsc_to_ns = c_tsc_to_ns(ticks)
  end function

  ! ---- regions (pctr_region(3)) ------------------------------------

  subroutine put(status, r)
    integer, intent(out), optional :: status
    integer(c_int), intent(in) :: r

    if (present(status)) status = r
  end subroutine

  ! switch regions on: events (default "task-clock"; $PCTR_EVENTS
  ! wins), intervals kept for percentiles, empty regions calibrated
  subroutine pctr_region_init(events, keep, calibrate, status)
    character(len=*), intent(in), optional :: events
    integer, intent(in), optional :: keep, calibrate
    integer, intent(out), optional :: status
    character(kind=c_char, len=:), allocatable, target :: ev
    type(c_region_config) :: cfg

    if (present(events)) then
      ev = cstr(events)
      cfg%events = c_loc(ev)
    end if
    if (present(keep)) cfg%keep = int(keep, c_int)
    if (present(calibrate)) cfg%calibrate = int(calibrate, c_int)
    call put(status, c_region_init(cfg))
  end subroutine

  subroutine pctr_region_enable(on, status)
    logical, intent(in) :: on
    integer, intent(out), optional :: status

    call put(status, c_region_enable(merge(1_c_int, 0_c_int, on)))
  end subroutine

  ! enter and leave region name in this thread; after a name's first
  ! use in a thread, no lock and no allocation
  subroutine pctr_region_begin(name, status)
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: status

    call put(status, c_region_begin(name, &
             int(len_trim(name), c_size_t)))
  end subroutine

  subroutine pctr_region_end(name, status)
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: status

    call put(status, c_region_end(name, &
                 int(len_trim(name), c_size_t)))
  end subroutine

  ! this thread's regions into the process's figures now
  subroutine pctr_region_flush(status)
    integer, intent(out), optional :: status

    call put(status, c_region_flush())
  end subroutine

  ! the statistics of one event of region name, merged over threads
  ! (event 1 .. the number of events; PCTR_STATS_TIME: the ticks)
  subroutine pctr_region_summary(name, event, summary, status)
    character(len=*), intent(in) :: name
    integer, intent(in) :: event
    type(pctr_summary), intent(out) :: summary
    integer, intent(out) :: status
    type(c_ptr) :: st

    st = c_null_ptr
    status = c_region_stats(cstr(name), st)
    if (status < 0) return
    status = c_stats_get(st, int(event - 1, c_int), summary)
    call c_stats_free(st)
  end subroutine

  ! write every region's report now: "text:FILE", "csv:FILE",
  ! "json:FILE", "-" or "stderr"
  subroutine pctr_region_write_to(dest, status)
    character(len=*), intent(in) :: dest
    integer, intent(out), optional :: status

    call put(status, c_region_write_to(cstr(dest)))
  end subroutine

  ! the report written at exit, in place of $PCTR_REPORT ('none')
  subroutine pctr_region_report(dest, status)
    character(len=*), intent(in) :: dest
    integer, intent(out), optional :: status

    call put(status, c_region_report(cstr(dest)))
  end subroutine
end module pctr
