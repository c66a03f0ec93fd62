! SPDX-License-Identifier: MIT
!
! Region names with a NUL character (tests/integration/fortran_names.sh,
! issue 30 item 4, defect 9): "ab"//char(0)//"cd" twice and "ab" once must
! be two regions, the first shown as ab\x00cd, never cut to "ab".
program fortran_names
    use ompbench
    implicit none
    integer :: r
    do r = 1, 2
        call ompb_region_begin('ab'//char(0)//'cd', 'fortran_names.f90', 10)
        call ompb_region_end('ab'//char(0)//'cd')
    end do
    call ompb_region_begin('ab', 'fortran_names.f90', 13)
    call ompb_region_end('ab')
end program fortran_names
