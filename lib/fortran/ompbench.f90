! SPDX-License-Identifier: MIT
!
! The Fortran interface of ompbench (`use ompbench`): the region markers of
! include/ompbench/region.h and the CodSpeed runner hooks of
! include/ompbench/hooks.h, through ISO_C_BINDING. Same names, same
! semantics and same environment variables as in C (read the C headers for
! the contracts); what differs:
!
! - Strings are Fortran strings. Trailing blanks are dropped (a name held
!   in a character(len=16) variable is its text), so a name cannot end in
!   a blank. A NUL character inside a string (char(0)), where a C string
!   would end, becomes the four characters \x00 ('a'//char(0)//'b' is
!   region a\x00b); everything else is as in C.
! - ompb_region_begin(name [, file, line]) and ompb_region_end take the
!   call site as optional arguments (C passes __FILE__ and __LINE__ by
!   macro; in a preprocessed .F90 source pass __FILE__, __LINE__). The
!   first call site's file names the region in URIs; without one it is
!   "(fortran)".
! - ompb_regions_report([path] [, format]) is a function returning the C
!   status; an absent argument is C's NULL.
! - Hooks handles are type(c_ptr); c_null_ptr plays NULL. Timestamps and
!   the unsigned nanoseconds of markers are integer(c_int64_t) (CLOCK_
!   MONOTONIC fits until the year 2262).
!
! Link with ompbench::fortran (CMake) or `pkg-config --libs
! ompbench-fortran`; the compiled module (ompbench.mod) is installed in
! <prefix>/include/ompbench/fortran, for the compiler that built it.
module ompbench
    use, intrinsic :: iso_c_binding, only: c_bool, c_char, c_int, c_int32_t, &
        c_int64_t, c_null_char, c_null_ptr, c_ptr, c_size_t, c_loc
    implicit none
    private

    ! Status codes (include/ompbench/error.h).
    integer(c_int), parameter, public :: OMPB_OK = 0, OMPB_EINVAL = -1, &
        OMPB_ENOMEM = -2, OMPB_EIO = -3, OMPB_ENOENT = -4, OMPB_ETIMEDOUT = -5, &
        OMPB_EPROTO = -6, OMPB_ENOTSUP = -7, OMPB_ERUN = -8
    ! ompb_hooks_mode values.
    integer(c_int), parameter, public :: OMPB_HOOKS_OFF = 0, &
        OMPB_HOOKS_WALLTIME = 1, OMPB_HOOKS_SIMULATION = 2
    ! ompb_marker values, numbered as on the wire.
    integer(c_int), parameter, public :: OMPB_MARKER_SAMPLE_START = 0, &
        OMPB_MARKER_SAMPLE_END = 1, OMPB_MARKER_BENCHMARK_START = 2, &
        OMPB_MARKER_BENCHMARK_END = 3
    ! Longest region name in bytes (OMPB_REGION_NAME_MAX).
    integer, parameter, public :: OMPB_REGION_NAME_MAX = 200

    public :: ompb_region_begin, ompb_region_end, ompb_regions_report
    public :: ompb_hooks_new, ompb_hooks_init, ompb_hooks_free, ompb_hooks_get_mode, &
        ompb_hooks_is_instrumented, ompb_hooks_start_benchmark, &
        ompb_hooks_stop_benchmark, ompb_hooks_executed_benchmark, &
        ompb_hooks_set_integration, ompb_hooks_add_marker, &
        ompb_hooks_current_timestamp

    interface
        ! lib/fortran/intern.c: the markers with Fortran strings.
        subroutine c_region_begin(name, name_len, file, file_len, line) &
                bind(c, name='ompb__fortran_region_begin')
            import :: c_char, c_size_t, c_int
            character(kind=c_char), intent(in) :: name(*), file(*)
            integer(c_size_t), value :: name_len, file_len
            integer(c_int), value :: line
        end subroutine
        subroutine c_region_end(name, name_len, file, file_len, line) &
                bind(c, name='ompb__fortran_region_end')
            import :: c_char, c_size_t, c_int
            character(kind=c_char), intent(in) :: name(*), file(*)
            integer(c_size_t), value :: name_len, file_len
            integer(c_int), value :: line
        end subroutine
        function c_regions_report(path, format) result(rc) &
                bind(c, name='ompb_regions_report')
            import :: c_ptr, c_int
            type(c_ptr), value :: path, format
            integer(c_int) :: rc
        end function

        function ompb_hooks_new() result(hooks) bind(c, name='ompb_hooks_new')
            import :: c_ptr
            type(c_ptr) :: hooks
        end function
        ! The 0.1 name of ompb_hooks_new, kept for one release.
        function ompb_hooks_init() result(hooks) bind(c, name='ompb_hooks_init')
            import :: c_ptr
            type(c_ptr) :: hooks
        end function
        subroutine ompb_hooks_free(hooks) bind(c, name='ompb_hooks_free')
            import :: c_ptr
            type(c_ptr), value :: hooks
        end subroutine
        function ompb_hooks_get_mode(hooks) result(mode) bind(c, name='ompb_hooks_get_mode')
            import :: c_ptr, c_int
            type(c_ptr), value :: hooks
            integer(c_int) :: mode
        end function
        function c_hooks_is_instrumented(hooks) result(yes) &
                bind(c, name='ompb_hooks_is_instrumented')
            import :: c_ptr, c_bool
            type(c_ptr), value :: hooks
            logical(c_bool) :: yes
        end function
        function ompb_hooks_start_benchmark(hooks) result(rc) &
                bind(c, name='ompb_hooks_start_benchmark')
            import :: c_ptr, c_int
            type(c_ptr), value :: hooks
            integer(c_int) :: rc
        end function
        function ompb_hooks_stop_benchmark(hooks) result(rc) &
                bind(c, name='ompb_hooks_stop_benchmark')
            import :: c_ptr, c_int
            type(c_ptr), value :: hooks
            integer(c_int) :: rc
        end function
        function c_hooks_executed_benchmark(hooks, pid, uri) result(rc) &
                bind(c, name='ompb_hooks_executed_benchmark')
            import :: c_ptr, c_int, c_int32_t, c_char
            type(c_ptr), value :: hooks
            integer(c_int32_t), value :: pid
            character(kind=c_char), intent(in) :: uri(*)
            integer(c_int) :: rc
        end function
        function c_hooks_set_integration(hooks, name, version) result(rc) &
                bind(c, name='ompb_hooks_set_integration')
            import :: c_ptr, c_int, c_char
            type(c_ptr), value :: hooks
            character(kind=c_char), intent(in) :: name(*), version(*)
            integer(c_int) :: rc
        end function
        function ompb_hooks_add_marker(hooks, pid, marker, timestamp_ns) result(rc) &
                bind(c, name='ompb_hooks_add_marker')
            import :: c_ptr, c_int, c_int32_t, c_int64_t
            type(c_ptr), value :: hooks
            integer(c_int32_t), value :: pid
            integer(c_int), value :: marker
            integer(c_int64_t), value :: timestamp_ns
            integer(c_int) :: rc
        end function
        function ompb_hooks_current_timestamp() result(ns) &
                bind(c, name='ompb_hooks_current_timestamp')
            import :: c_int64_t
            integer(c_int64_t) :: ns
        end function
    end interface

contains

    ! Begin of region `name` on the calling thread (collective over the
    ! enclosing OpenMP team, as in C).
    subroutine ompb_region_begin(name, file, line)
        character(len=*), intent(in) :: name
        character(len=*), intent(in), optional :: file
        integer, intent(in), optional :: line
        if (present(file)) then
            call c_region_begin(name, len_trim(name, c_size_t), file, &
                len_trim(file, c_size_t), line_of(line))
        else
            call c_region_begin(name, len_trim(name, c_size_t), '', 0_c_size_t, line_of(line))
        end if
    end subroutine

    ! End of region `name` on the calling thread.
    subroutine ompb_region_end(name, file, line)
        character(len=*), intent(in) :: name
        character(len=*), intent(in), optional :: file
        integer, intent(in), optional :: line
        if (present(file)) then
            call c_region_end(name, len_trim(name, c_size_t), file, &
                len_trim(file, c_size_t), line_of(line))
        else
            call c_region_end(name, len_trim(name, c_size_t), '', 0_c_size_t, line_of(line))
        end if
    end subroutine

    ! Writes the report of every region instance completed so far; returns
    ! OMPB_OK, OMPB_ERUN (a region failed), OMPB_EINVAL, OMPB_EIO or
    ! OMPB_ENOMEM as ompb_regions_report in C.
    function ompb_regions_report(path, format) result(rc)
        character(len=*), intent(in), optional :: path, format
        integer(c_int) :: rc
        character(kind=c_char, len=:), allocatable, target :: cpath, cformat
        type(c_ptr) :: ppath, pformat
        ppath = c_null_ptr
        pformat = c_null_ptr
        if (present(path)) then
            cpath = trim(path)//c_null_char
            ppath = c_loc(cpath)
        end if
        if (present(format)) then
            cformat = trim(format)//c_null_char
            pformat = c_loc(cformat)
        end if
        rc = c_regions_report(ppath, pformat)
    end function

    ! True when the handle's calls reach a runner or callgrind.
    function ompb_hooks_is_instrumented(hooks) result(yes)
        type(c_ptr), intent(in) :: hooks
        logical :: yes
        yes = logical(c_hooks_is_instrumented(hooks))
    end function

    ! Names the benchmark of the window just closed (CurrentBenchmark).
    function ompb_hooks_executed_benchmark(hooks, pid, uri) result(rc)
        type(c_ptr), intent(in) :: hooks
        integer(c_int32_t), intent(in) :: pid
        character(len=*), intent(in) :: uri
        integer(c_int) :: rc
        rc = c_hooks_executed_benchmark(hooks, pid, trim(uri)//c_null_char)
    end function

    ! Announces the integration (SetIntegration).
    function ompb_hooks_set_integration(hooks, name, version) result(rc)
        type(c_ptr), intent(in) :: hooks
        character(len=*), intent(in) :: name, version
        integer(c_int) :: rc
        rc = c_hooks_set_integration(hooks, trim(name)//c_null_char, &
            trim(version)//c_null_char)
    end function

    ! The optional line argument as C's int; 0 when absent.
    pure function line_of(line) result(l)
        integer, intent(in), optional :: line
        integer(c_int) :: l
        l = 0
        if (present(line)) l = int(line, c_int)
    end function
end module ompbench
