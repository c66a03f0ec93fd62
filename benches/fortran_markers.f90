! SPDX-License-Identifier: MIT
!
! What the Fortran module adds to a region marker pair: the same serial
! begin/end pair through the module (Fortran strings: trailing blanks
! dropped, names and files looked up in the per-thread cache of
! lib/fortran/intern.c) and through the C functions directly (NUL-terminated
! constants, as C's macros pass them), in alternating blocks of one process;
! the minimum block of each, in ns per pair, and their ratio
! (docs/performance.md, "Region markers from Fortran").
!
! Usage: fortran_markers [--quick]
program fortran_markers
    use, intrinsic :: iso_c_binding, only: c_char, c_int, c_null_char
    use, intrinsic :: iso_fortran_env, only: error_unit
    use omp_lib, only: omp_get_wtime
    use ompbench
    implicit none
    interface
        subroutine c_begin(name, file, line) bind(c, name='ompb_region_begin_at')
            import :: c_char, c_int
            character(kind=c_char), intent(in) :: name(*), file(*)
            integer(c_int), value :: line
        end subroutine
        subroutine c_end(name, file, line) bind(c, name='ompb_region_end_at')
            import :: c_char, c_int
            character(kind=c_char), intent(in) :: name(*), file(*)
            integer(c_int), value :: line
        end subroutine
    end interface
    character(kind=c_char, len=*), parameter :: cname = 'c_pair'//c_null_char, &
        cfile = 'benches/fortran_markers.f90'//c_null_char
    integer, parameter :: pairs = 100000
    character(len=16) :: arg
    integer :: blocks, b, i
    real(8) :: t0, best_f, best_c

    blocks = 40
    call get_command_argument(1, arg)
    if (arg == '--quick') then
        blocks = 2
    else if (len_trim(arg) > 0) then
        write (error_unit, '(a)') 'fortran_markers: invalid option '''//trim(arg)//''' (accepted: --quick)'
        stop 2, quiet=.true.
    end if
    best_f = huge(1d0)
    best_c = huge(1d0)
    do b = 1, blocks
        t0 = omp_get_wtime()
        do i = 1, pairs
            call ompb_region_begin('f_pair', 'benches/fortran_markers.f90', 50)
            call ompb_region_end('f_pair', 'benches/fortran_markers.f90', 51)
        end do
        best_f = min(best_f, (omp_get_wtime() - t0)*1d9/pairs)
        t0 = omp_get_wtime()
        do i = 1, pairs
            call c_begin(cname, cfile, 56)
            call c_end(cname, cfile, 57)
        end do
        best_c = min(best_c, (omp_get_wtime() - t0)*1d9/pairs)
    end do
    write (*, '(a,f0.1,a,f0.1,a,f0.2)') 'pair: fortran module ', best_f, ' ns, C functions ', &
        best_c, ' ns, ratio ', best_f/best_c
end program fortran_markers
