/* SPDX-License-Identifier: MIT */
/*
 * lib/regions/region_stats: the regions' statistics accumulator alone, with
 * no thread, lane or entry: the exact sums against hand-computed values,
 * PU changes and shared PUs, the kept sample (exact below its size, a
 * uniform and reproducible sample above), the histogram from the instance
 * past the kept maximum on, and the statistics against lib/core/stats on
 * the same makespans.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "regions/region.h"
#include "suite.h"

/* One instance of two threads: thread 0 from start for busy0 ns on pu0,
 * thread 1 from start + lag for busy1 ns on pu1. */
static void add2(ompb__region_acc *a, uint64_t start, uint64_t busy0, int pu0, uint64_t lag,
                 uint64_t busy1, int pu1)
{
    ompb__region_slot m[2] = {ompb__region_pack(start, start + busy0, pu0),
                              ompb__region_pack(start + lag, start + lag + busy1, pu1)};
    ompb__region_span s = ompb__region_acc_add(a, m, 2);
    uint64_t end = start + busy0 > start + lag + busy1 ? start + busy0 : start + lag + busy1;
    CU_ASSERT_EQUAL(s.start_ns, start);
    CU_ASSERT_EQUAL(s.end_ns, end);
}

/* Three instances of two threads, every sum by hand. */
static void test_sums(void)
{
    ompb__region_acc a;
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&a, 2, 1), 0);
    add2(&a, 1000, 100, 0, 10, 50, 1);  /* makespan 100, skew 10, imbalance 2*100/150 */
    add2(&a, 2000, 300, 0, 0, 300, 1);  /* 300, 0, 1 */
    add2(&a, 3000, 0, 0, 20, 0, 1);     /* 20, 20, nothing busy: 1 */
    CU_ASSERT_EQUAL(a.n, 3);
    CU_ASSERT_EQUAL(a.min_ns, 20);
    CU_ASSERT_EQUAL(a.max_ns, 300);
    CU_ASSERT_EQUAL(a.total_ns, 420);
    CU_ASSERT_EQUAL(a.skew_sum, 30);
    CU_ASSERT_DOUBLE_EQUAL(a.imbalance_sum, 200.0 / 150.0 + 1 + 1, 1e-12);
    CU_ASSERT_EQUAL(a.busy_sum[0], 400);
    CU_ASSERT_EQUAL(a.busy_sum[1], 350);
    /* The first makespan is the shift: the mean and variance from there. */
    CU_ASSERT_DOUBLE_EQUAL(a.shift, 100, 0);
    CU_ASSERT_DOUBLE_EQUAL(a.shift + a.sum_d / 3, 140, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(a.sum_d2, 0 + 200.0 * 200 + 80.0 * 80, 1e-9);
    CU_ASSERT_EQUAL(a.migrations, 0);
    CU_ASSERT_EQUAL(a.shared_pu, 0);
    CU_ASSERT_EQUAL(a.kept, 3);
    CU_ASSERT_PTR_NULL(a.hist);
    CU_ASSERT_PTR_NULL(a.failure);
    CU_ASSERT_FALSE(ompb__region_acc_steady(&a));
    ompb__region_acc_release(&a);
}

/* A PU change counts once per thread and instance; an unknown PU is no
 * change, and the PU after it is compared with nothing. Two threads on one
 * PU count the instance once, the first pair remembered. */
static void test_pus(void)
{
    ompb__region_acc a;
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&a, 3, 1), 0);
    static const int pus[][3] = {
        {0, 1, 2},      /* first: nothing to compare */
        {0, 1, 2},
        {3, 1, 2},      /* thread 0 moved: 1 */
        {3, -1, 2},     /* unknown: no change */
        {3, 0, 2},      /* after an unknown: no change */
        {4, 5, 6},      /* all three: 3 */
        {4, 2, 2},      /* threads 1 and 2: 2; they share PU 2 */
        {7, 7, 7},      /* all three: 3; shared (threads 0 and 1 first) */
    };
    uint64_t t = 1000;
    for (size_t i = 0; i < sizeof pus / sizeof pus[0]; i++, t += 1000) {
        ompb__region_slot m[3];
        for (int k = 0; k < 3; k++)
            m[k] = ompb__region_pack(t, t + 100, pus[i][k]);
        ompb__region_acc_add(&a, m, 3);
    }
    CU_ASSERT_EQUAL(a.migrations, 1 + 3 + 2 + 3);
    CU_ASSERT_EQUAL(a.shared_pu, 2);
    CU_ASSERT_EQUAL(a.shared_pu_example[0], 1);
    CU_ASSERT_EQUAL(a.shared_pu_example[1], 2);
    CU_ASSERT_EQUAL(a.shared_pu_example[2], 2);
    CU_ASSERT_EQUAL(a.last_pu[0], 7);
    CU_ASSERT_EQUAL(a.last_pu[1], 7);
    ompb__region_acc_release(&a);
    /* Teams of two take their own inline test for a shared PU. */
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&a, 2, 1), 0);
    add2(&a, 1000, 10, 5, 0, 10, 5);
    add2(&a, 2000, 10, -1, 0, 10, -1);
    add2(&a, 3000, 10, 5, 0, 10, 6);
    CU_ASSERT_EQUAL(a.shared_pu, 1);
    CU_ASSERT_EQUAL(a.shared_pu_example[2], 5);
    CU_ASSERT_EQUAL(a.migrations, 0);
    ompb__region_acc_release(&a);
}

/* Up to keep_max instances: every one kept, the exact statistics. */
static void test_exact_below_cap(void)
{
    ompb__region_acc a;
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&a, 1, 1), 0);
    const uint64_t spans[] = {300, 100, 200, 400, 1000, 150};
    double x[6];
    for (int i = 0; i < 6; i++) {
        ompb__region_slot m = ompb__region_pack(1000u * (uint64_t)i,
                                                1000u * (uint64_t)i + spans[i], -1);
        ompb__region_acc_add(&a, &m, 1);
        x[i] = (double)spans[i];
    }
    ompb__stats got, want;
    CU_ASSERT_EQUAL(ompb__region_acc_stats(&a, &got), 0);
    ompb__stats_compute(x, 6, &want);
    CU_ASSERT_PTR_NULL(a.hist);
    CU_ASSERT_EQUAL(a.kept, 6);
    for (size_t s = 0; s < a.kept; s++)
        CU_ASSERT_EQUAL(a.kept_index[s], s);
    CU_ASSERT_DOUBLE_EQUAL(got.median, want.median, 0);
    CU_ASSERT_DOUBLE_EQUAL(got.q3, want.q3, 0);
    CU_ASSERT_DOUBLE_EQUAL(got.mean, want.mean, 0);
    CU_ASSERT_EQUAL(got.iqr_outliers, want.iqr_outliers);
    ompb__region_acc_release(&a);
    /* Nothing added: zero statistics. */
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&a, 1, 1), 0);
    CU_ASSERT_EQUAL(ompb__region_acc_stats(&a, &got), 0);
    CU_ASSERT_EQUAL(got.n, 0);
    ompb__region_acc_release(&a);
}

/* N synthetic instances of two threads into a (seed), their makespans
 * into x (may be NULL). */
static void fill(ompb__region_acc *a, int n, double *x)
{
    uint64_t t = 1000000;
    for (int i = 0; i < n; i++) {
        uint64_t span = 10000 + (uint64_t)(i * 7919 % 10007) * 13;
        add2(a, t, span / 2, 0, 5, span - 5, 1);
        if (x)
            x[i] = (double)span;
        t += span + 100;
    }
}

/* 50000 instances: a uniform sample of keep_max kept, exact count, min,
 * max, mean and deviation, quantiles within the histogram's bound of the
 * exact ones. */
static void test_streaming(void)
{
    enum { N = 50000 };
    ompb__region_acc a;
    double *x = malloc(N * sizeof *x);
    CU_ASSERT_FATAL(x != NULL);
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&a, 2, 7), 0);
    fill(&a, N, x);
    ompb__stats got, want;
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_stats(&a, &got), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__stats_compute(x, N, &want), 0);
    CU_ASSERT_EQUAL(a.n, N);
    CU_ASSERT_EQUAL(a.kept, a.keep_max);
    CU_ASSERT_EQUAL(got.n, N);
    CU_ASSERT_DOUBLE_EQUAL(got.min, want.min, 0);
    CU_ASSERT_DOUBLE_EQUAL(got.max, want.max, 0);
    CU_ASSERT_DOUBLE_EQUAL(got.mean, want.mean, 1e-6 * want.mean);
    CU_ASSERT_DOUBLE_EQUAL(got.stdev, want.stdev, 1e-6 * want.stdev);
    double bound = OMPB__HISTOGRAM_REL_ERROR;
    CU_ASSERT_TRUE(fabs(got.median - want.median) <= bound * want.median);
    CU_ASSERT_TRUE(fabs(got.q1 - want.q1) <= bound * want.q1);
    CU_ASSERT_TRUE(fabs(got.q3 - want.q3) <= bound * want.q3);
    CU_ASSERT_TRUE(fabs(got.ci_low - want.ci_low) <= bound * want.ci_low);
    /* Distinct instances spread over the whole run (the mean index of a
     * uniform sample of 1024 is N/2 within a few %), each kept with its
     * own bounds. */
    double mean_index = 0;
    for (size_t s = 0; s < a.kept; s++) {
        mean_index += (double)a.kept_index[s] / (double)a.kept;
        CU_ASSERT_DOUBLE_EQUAL((double)(a.kept_end[s] - a.kept_start[s]),
                               x[a.kept_index[s]], 0);
        for (size_t o = 0; o < s; o += 97)
            CU_ASSERT_NOT_EQUAL(a.kept_index[o], a.kept_index[s]);
    }
    CU_ASSERT_TRUE(fabs(mean_index - N / 2.0) < 0.05 * N);
    CU_ASSERT_EQUAL(a.shared_pu, 0);
    CU_ASSERT_EQUAL(a.skew_sum, 5u * N);
    CU_ASSERT_TRUE(ompb__region_acc_steady(&a));
    ompb__region_acc_release(&a);
    free(x);
}

/* The histogram starts with the instance past keep_max and then holds
 * every instance (so a batched fold may take its count and extremes as the
 * accumulator's); the sample is the seed's, and another seed draws
 * another. */
static void test_histogram_and_seed(void)
{
    ompb__region_acc a, b, c;
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&a, 2, 7), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&b, 2, 7), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&c, 2, 8), 0);
    fill(&a, (int)a.keep_max, NULL);
    CU_ASSERT_PTR_NULL(a.hist);
    CU_ASSERT_FALSE(ompb__region_acc_steady(&a));
    fill(&a, 1, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a.hist);
    CU_ASSERT_EQUAL(a.hist->n, a.n);
    CU_ASSERT_EQUAL(a.hist->min, a.min_ns);
    CU_ASSERT_EQUAL(a.hist->max, a.max_ns);
    CU_ASSERT_TRUE(ompb__region_acc_steady(&a));
    ompb__region_acc_release(&a);
    fill(&b, 5000, NULL);
    fill(&c, 5000, NULL);
    CU_ASSERT_EQUAL_FATAL(ompb__region_acc_init(&a, 2, 7), 0);
    fill(&a, 5000, NULL);
    CU_ASSERT_EQUAL(memcmp(a.kept_index, b.kept_index, a.kept * sizeof *a.kept_index), 0);
    CU_ASSERT_NOT_EQUAL(memcmp(a.kept_index, c.kept_index, a.kept * sizeof *a.kept_index), 0);
    CU_ASSERT_EQUAL(a.reservoir_next, b.reservoir_next);
    ompb__region_acc_release(&a);
    ompb__region_acc_release(&b);
    ompb__region_acc_release(&c);
}

static const ompb_test_case cases[] = {
    {"sums", test_sums},
    {"pus", test_pus},
    {"exact_below_cap", test_exact_below_cap},
    {"streaming", test_streaming},
    {"histogram_and_seed", test_histogram_and_seed},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_region_stats = {"region_stats", NULL, NULL, cases};
