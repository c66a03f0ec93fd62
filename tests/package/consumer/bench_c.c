/* SPDX-License-Identifier: MIT */
/* The C benchmark of the consumer project (CMakeLists.txt beside it). */
#include <omp.h>

#include "check.h"

OMPB_BENCH(team_c, .team = OMPB_TEAM_CALLER)
{
    OMPB_ITER(state) {
        int seen = 0;
#pragma omp parallel
        {
#pragma omp single
            seen = omp_get_num_threads();
        }
        consumer_check_team(state, "C", seen);
    }
}
