! SPDX-License-Identifier: MIT
! The Fortran side of the consumer's Fortran benchmark (bench_f90.c): opens
! a parallel region and returns omp_get_num_threads() as seen inside it.
! Compiled without OpenMP, the directives and the !$ lines are comments and
! it returns 1.
function consumer_f90_team_width() result(n) bind(c, name='consumer_f90_team_width')
    use, intrinsic :: iso_c_binding, only: c_int
    !$ use omp_lib, only: omp_get_num_threads
    implicit none
    integer(c_int) :: n
    n = 1
    !$omp parallel shared(n)
    !$omp single
    !$ n = int(omp_get_num_threads(), c_int)
    !$omp end single
    !$omp end parallel
end function consumer_f90_team_width
