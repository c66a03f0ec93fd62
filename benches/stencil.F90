! SPDX-License-Identifier: MIT
!
! benches/stencil.c in Fortran, through the ompbench module: 2-D Jacobi
! iterations of the heat equation on an N x N plate (top edge held at 1,
! bottom at 0, insulated left and right edges). Each iteration is three
! regions entered by every thread of one OpenMP team (the collective form):
!
!   sweep     new(i,j) = mean of the four neighbours, interior points
!   boundary  the insulated edges copy their inner neighbours
!   residual  sum of squared changes (a reduction); the grids swap after it
!
! Each region ends before its loop's barrier (nowait), as in the C version.
! With a list of thread counts the solve runs once per count from the same
! plate: region:sweep[t=1], region:sweep[t=2], ... Prints, per count,
! "stencil_f90: n=N iterations=K threads=T residual=R loop_ns=L"; the
! regions' report goes where OMPB_REGIONS_OUTPUT and OMPB_REGIONS_FORMAT say.
! tests/integration/fortran_stencil.sh checks it.
!
! Usage: stencil_f90 [--n N] [--iterations K] [--threads T[,T...]] [--test]
program stencil_f90
    use, intrinsic :: iso_fortran_env, only: error_unit, int64, real64
    use omp_lib, only: omp_get_max_threads, omp_get_wtime
    use ompbench
    implicit none

    ! The file part of the regions' URIs: benches/stencil.F90::region:sweep[t=2].
    character(len=*), parameter :: here = 'benches/stencil.F90'
    integer, parameter :: max_runs = 16
    integer :: n = 256, iterations = 100, runs = 1, r
    integer :: threads(max_runs) = 0

    call parse_options()
    do r = 1, runs
        call solve(threads(r))
    end do

contains

    ! Refuses a bad option with one line naming it and what is accepted.
    subroutine refuse(what)
        character(len=*), intent(in) :: what
        write (error_unit, '(a)') 'stencil_f90: invalid '//what//' (accepted: --n N (4 to 32768), ' // &
            '--iterations K (1 to 1000000), --threads T[,T...] (1 to 4096, at most 16 counts), --test)'
        stop 2, quiet=.true.
    end subroutine

    ! Integer value of argument k within [lo, hi], else refused.
    integer function int_arg(k, lo, hi) result(v)
        integer, intent(in) :: k, lo, hi
        character(len=64) :: text
        integer :: st
        call get_command_argument(k, text, status=st)
        read (text, *, iostat=st) v
        if (st /= 0 .or. v < lo .or. v > hi .or. verify(trim(text), '0123456789') /= 0) &
            call refuse('value '''//trim(text)//'''')
    end function

    ! "1,2,4" into threads(1:runs).
    subroutine parse_threads(k)
        integer, intent(in) :: k
        character(len=256) :: text
        integer :: a, b, st
        call get_command_argument(k, text, status=st)
        if (st /= 0 .or. len_trim(text) == 0) call refuse('--threads value')
        runs = 0
        a = 1
        do while (a <= len_trim(text))
            b = index(text(a:), ',')
            b = merge(len_trim(text) + 1, a + b - 1, b == 0)
            runs = runs + 1
            if (runs > max_runs .or. b == a .or. verify(text(a:b - 1), '0123456789') /= 0) &
                call refuse('--threads value '''//trim(text)//'''')
            read (text(a:b - 1), *, iostat=st) threads(runs)
            if (st /= 0 .or. threads(runs) < 1 .or. threads(runs) > 4096) &
                call refuse('--threads value '''//trim(text)//'''')
            a = b + 1
        end do
        if (text(len_trim(text):len_trim(text)) == ',') call refuse('--threads value '''//trim(text)//'''')
    end subroutine

    subroutine parse_options()
        character(len=64) :: arg
        integer :: k
        k = 1
        do while (k <= command_argument_count())
            call get_command_argument(k, arg)
            select case (trim(arg))
            case ('--n')
                if (k == command_argument_count()) call refuse('option --n (no value)')
                n = int_arg(k + 1, 4, 32768)
                k = k + 1
            case ('--iterations')
                if (k == command_argument_count()) call refuse('option --iterations (no value)')
                iterations = int_arg(k + 1, 1, 1000000)
                k = k + 1
            case ('--threads')
                if (k == command_argument_count()) call refuse('option --threads (no value)')
                call parse_threads(k + 1)
                k = k + 1
            case ('--test')
                n = 32
                iterations = 5
            case default
                call refuse('option '''//trim(arg)//'''')
            end select
            k = k + 1
        end do
    end subroutine

    ! One solve from the initial plate with t threads (0: the OpenMP default).
    subroutine solve(t)
        integer, intent(in) :: t
        real(real64), allocatable, target :: a(:, :), b(:, :)
        real(real64), pointer :: old(:, :), new(:, :), swap(:, :)
        real(real64) :: residual, t0, t1
        integer :: team, it, i, j

        allocate (a(n, n), b(n, n))
        team = merge(t, omp_get_max_threads(), t > 0)
        old => a
        new => b
        residual = 0
        t0 = omp_get_wtime()
        !$omp parallel num_threads(team) default(shared) private(it, i, j)
        ! First touch by the threads that sweep the columns.
        !$omp do schedule(static)
        do j = 1, n
            old(:, j) = 0
            new(:, j) = 0
            old(1, j) = 1
            new(1, j) = 1
        end do
        !$omp end do
        !$omp single
        t0 = omp_get_wtime()
        !$omp end single
        do it = 1, iterations
            call ompb_region_begin('sweep', here, __LINE__)
            !$omp do schedule(static)
            do j = 2, n - 1
                do i = 2, n - 1
                    new(i, j) = 0.25_real64*(old(i - 1, j) + old(i + 1, j) + old(i, j - 1) + old(i, j + 1))
                end do
            end do
            !$omp end do nowait
            call ompb_region_end('sweep', here, __LINE__)
            !$omp barrier
            call ompb_region_begin('boundary', here, __LINE__)
            !$omp do schedule(static)
            do i = 2, n - 1
                new(i, 1) = new(i, 2)
                new(i, n) = new(i, n - 1)
            end do
            !$omp end do nowait
            call ompb_region_end('boundary', here, __LINE__)
            !$omp barrier
            !$omp single
            residual = 0
            !$omp end single
            call ompb_region_begin('residual', here, __LINE__)
            !$omp do schedule(static) reduction(+:residual)
            do j = 1, n
                residual = residual + sum((new(:, j) - old(:, j))**2)
            end do
            !$omp end do nowait
            call ompb_region_end('residual', here, __LINE__)
            !$omp barrier
            !$omp single
            swap => old
            old => new
            new => swap
            !$omp end single
        end do
        !$omp end parallel
        t1 = omp_get_wtime()
        write (*, '(a,i0,a,i0,a,i0,a,es24.17,a,i0)') 'stencil_f90: n=', n, ' iterations=', &
            iterations, ' threads=', team, ' residual=', residual, ' loop_ns=', &
            int((t1 - t0)*1d9, int64)
        deallocate (a, b)
    end subroutine
end program stencil_f90
