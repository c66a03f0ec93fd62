/* SPDX-License-Identifier: MIT */
/*
 * A program with a known 3:1 imbalance for `ompbench trace`'s truth test
 * (tests/integration/trace_truth.sh): REPS parallel regions of two threads,
 * thread 0 doing three units of arithmetic and thread 1 one, each thread's
 * share inside the region markers "manual", so that the same instances are
 * measured by hand and by the trace in one run.
 *
 * Usage: trace_imbalance [UNIT [REPS]]
 */
#include <omp.h>
#include <stdlib.h>

#include <ompbench.h>

static volatile double sink;

static void work(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    long unit = argc > 1 ? atol(argv[1]) : 2000000;
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    for (int r = 0; r < reps; r++) {
#pragma omp parallel num_threads(2)
        {
            ompb_region_begin("manual");
            work(omp_get_thread_num() == 0 ? 3 * unit : unit);
            ompb_region_end("manual");
        }
    }
    return 0;
}
