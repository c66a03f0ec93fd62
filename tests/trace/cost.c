/* SPDX-License-Identifier: MIT */
/*
 * What `ompbench trace` costs (benches/trace_cost.sh, docs/performance.md):
 * R parallel regions of T threads in three phases (R/10 in the last), each
 * region timed on the encountering thread (CLOCK_MONOTONIC), and printed
 * as the 10th percentile and the median in ns per region (on a loaded
 * machine a region's time only grows: the low quantile is the cost):
 *   bare     an empty body
 *   markers  the body is one region marker pair (ompb_region_begin/end)
 *   work     the body spins WORK_NS on each thread (a region of about
 *            WORK_NS, as in a program with 1e9/WORK_NS regions a second)
 * Run it untraced and traced: the trace's cost per instance per thread is
 * traced bare - untraced bare, the marker pair's is untraced markers -
 * untraced bare, and the slowdown of a real program is traced work /
 * untraced work.
 *
 * Usage: trace_cost [R [T [WORK_NS]]]
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ompbench.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile int sink;

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void print_phase(const char *name, uint64_t *d, long n)
{
    qsort(d, (size_t)n, sizeof *d, by_value);
    printf("%s p10 %llu median %llu\n", name, (unsigned long long)d[n / 10],
           (unsigned long long)d[n / 2]);
}

static void spin(uint64_t ns)
{
    uint64_t end = now_ns() + ns;
    while (now_ns() < end)
        sink++;
}

int main(int argc, char **argv)
{
    long r = argc > 1 ? atol(argv[1]) : 200000;
    int t = argc > 2 ? atoi(argv[2]) : 2;
    uint64_t work = argc > 3 ? strtoull(argv[3], NULL, 10) : 10000;
    /* Threads made and the first region's one-time costs paid. */
#pragma omp parallel num_threads(t)
    sink++;
    uint64_t *d = malloc((size_t)r * sizeof *d);
    if (!d)
        return 1;
    for (long i = 0; i < r; i++) {
        uint64_t t0 = now_ns();
#pragma omp parallel num_threads(t)
        sink++;
        d[i] = now_ns() - t0;
    }
    print_phase("bare", d, r);
    for (long i = 0; i < r; i++) {
        uint64_t t0 = now_ns();
#pragma omp parallel num_threads(t)
        {
            ompb_region_begin("pair");
            ompb_region_end("pair");
        }
        d[i] = now_ns() - t0;
    }
    print_phase("markers", d, r);
    long rw = r / 10 > 0 ? r / 10 : 1;
    for (long i = 0; i < rw; i++) {
        uint64_t t0 = now_ns();
#pragma omp parallel num_threads(t)
        spin(work);
        d[i] = now_ns() - t0;
    }
    print_phase("work", d, rw);
    free(d);
    return 0;
}
