// SPDX-License-Identifier: MIT
// The C++ benchmark of the consumer project (CMakeLists.txt beside it): the
// language whose benchmarks ran serial when the package gave OpenMP to C
// sources only.
#include <omp.h>

#include <atomic>

#include "check.h"

OMPB_BENCH(team_cxx, .team = OMPB_TEAM_CALLER)
{
    OMPB_ITER(state) {
        std::atomic<int> seen{0};
#pragma omp parallel
        {
#pragma omp single
            seen.store(omp_get_num_threads());
        }
        consumer_check_team(state, "C++", seen.load());
    }
}
