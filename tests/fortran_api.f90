! SPDX-License-Identifier: MIT
!
! The Fortran module's API in one program (tests/integration/fortran_stencil.sh):
! the CodSpeed hooks as the C example of docs/protocol.md uses them (one
! window, ten marker pairs, uri "fortran_api.f90::work[1000]"), then regions:
! "padded" through a blank-padded variable, and a begin/end pair whose names
! differ but live in the same variable (the library must see two names),
! then ompb_regions_report to the file given as the first argument (JSON)
! and with an unknown format. Prints "instrumented" or "not instrumented",
! "report rc=N" and "bad format rc=N".
program fortran_api
    use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_ptr, c_associated
    use ompbench
    implicit none
    interface
        function c_getpid() result(pid) bind(c, name='getpid')
            import :: c_int32_t
            integer(c_int32_t) :: pid
        end function
    end interface
    type(c_ptr) :: h
    integer(c_int64_t) :: t0(10), t1(10)
    character(len=16) :: nm
    character(len=256) :: out
    real :: x
    integer :: r, k, rc

    h = ompb_hooks_new()
    if (.not. c_associated(h)) stop 1
    if (ompb_hooks_is_instrumented(h)) then
        print '(a)', 'instrumented'
    else
        print '(a)', 'not instrumented'
    end if
    rc = ompb_hooks_set_integration(h, 'my-loop-f90', '1.0.0')
    rc = ior(rc, ompb_hooks_start_benchmark(h))
    x = 0
    do r = 1, 10
        t0(r) = ompb_hooks_current_timestamp()
        do k = 1, 1000
            x = x + sqrt(real(k))
        end do
        t1(r) = ompb_hooks_current_timestamp()
    end do
    do r = 1, 10
        rc = ior(rc, ompb_hooks_add_marker(h, c_getpid(), OMPB_MARKER_BENCHMARK_START, t0(r)))
        rc = ior(rc, ompb_hooks_add_marker(h, c_getpid(), OMPB_MARKER_BENCHMARK_END, t1(r)))
    end do
    rc = ior(rc, ompb_hooks_stop_benchmark(h))
    rc = ior(rc, ompb_hooks_executed_benchmark(h, c_getpid(), 'fortran_api.f90::work[1000]'))
    print '(a,i0,a,l1)', 'hooks rc=', rc, ' x>0=', x > 0
    call ompb_hooks_free(h)

    nm = 'padded'
    do r = 1, 3
        call ompb_region_begin(nm, 'tests/fortran_api.f90', 50)
        call ompb_region_end(nm)
    end do
    nm = 'first'
    call ompb_region_begin(nm, 'tests/fortran_api.f90', 54)
    nm = 'second'
    call ompb_region_end(nm, 'tests/fortran_api.f90', 56)

    call get_command_argument(1, out)
    print '(a,i0)', 'report rc=', ompb_regions_report(trim(out), 'json')
    print '(a,i0)', 'bad format rc=', ompb_regions_report('-', 'yaml')
    print '(a,i0,1x,i0)', 'codes ', OMPB_ERUN, OMPB_EINVAL
end program fortran_api
