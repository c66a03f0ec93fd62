/* SPDX-License-Identifier: MIT */
/* The Fortran benchmark of the consumer project: declared in C, its body
 * calls kernel.f90, whose parallel region reports its width. */
#include "check.h"

int consumer_f90_team_width(void); /* kernel.f90 */

OMPB_BENCH(team_f90, .team = OMPB_TEAM_CALLER)
{
    OMPB_ITER(state) {
        consumer_check_team(state, "Fortran", consumer_f90_team_width());
    }
}
