/* SPDX-License-Identifier: MIT */
/*
 * lib/histogram: the bucket layout (contiguous, each value in its bucket's
 * bounds, the 1/128 width bound), and rank, quantile, median interval and
 * outlier estimates against the exact figures of lib/stats on the same
 * values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/histogram.h"
#include "core/stats.h"
#include "suite.h"

static ompb__histogram *make(void)
{
    ompb__histogram *h = malloc(sizeof *h);
    if (h)
        ompb__histogram_clear(h);
    return h;
}

/* Bucket b ends where b + 1 begins; below 64 ns every value is a bucket. */
static void test_layout(void)
{
    uint64_t lo, hi, prev_hi = 0;
    for (size_t b = 0; b < OMPB__HISTOGRAM_BUCKETS; b++) {
        ompb__histogram_bounds(b, &lo, &hi);
        CU_ASSERT_EQUAL(lo, prev_hi);
        CU_ASSERT_TRUE(hi > lo);
        /* width at most 1/64 of the lower bound (1 ns buckets below 128) */
        CU_ASSERT_TRUE(lo < 128 ? hi - lo == 1 : (hi - lo) * 64 <= lo);
        prev_hi = hi;
    }
    CU_ASSERT_EQUAL(prev_hi, (uint64_t)1 << OMPB__HISTOGRAM_TOP_BITS);
    for (uint64_t v = 0; v < 64; v++)
        CU_ASSERT_EQUAL(ompb__histogram_bucket(v), v);
}

/* Every value falls in its own bucket's bounds; beyond the top, the last. */
static void test_bucket_of_value(void)
{
    uint64_t seed = 1;
    for (int i = 0; i < 100000; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = seed >> (16 + (seed & 15)); /* spread over many octaves */
        size_t b = ompb__histogram_bucket(v);
        uint64_t lo, hi;
        ompb__histogram_bounds(b, &lo, &hi);
        if (v < ((uint64_t)1 << OMPB__HISTOGRAM_TOP_BITS))
            CU_ASSERT_TRUE(lo <= v && v < hi);
    }
    CU_ASSERT_EQUAL(ompb__histogram_bucket(UINT64_MAX), OMPB__HISTOGRAM_BUCKETS - 1);
    CU_ASSERT_EQUAL(ompb__histogram_bucket((uint64_t)1 << 50), OMPB__HISTOGRAM_BUCKETS - 1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Log-normal-ish durations around 100 us: every rank estimate within
 * 1/128 of the exact order statistic, quantiles and the median interval
 * within the same bound of lib/stats' exact ones. */
static void test_ranks_against_exact(void)
{
    enum { N = 20000 };
    ompb__histogram *h = make();
    double *x = malloc(N * sizeof *x), *sorted = malloc(N * sizeof *sorted);
    CU_ASSERT_FATAL(h && x && sorted);
    uint64_t seed = 42;
    for (int i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(seed >> 11) / 9007199254740992.0;
        uint64_t v = (uint64_t)(100000.0 * exp(2.0 * (u - 0.5)));
        x[i] = (double)v;
        ompb__histogram_add(h, v);
    }
    memcpy(sorted, x, N * sizeof *x);
    qsort(sorted, N, sizeof *sorted, cmp_double);
    double bound = OMPB__HISTOGRAM_REL_ERROR;
    double worst = 0;
    for (uint64_t i = 0; i < N; i += 37) {
        double est = ompb__histogram_rank(h, i);
        worst = fmax(worst, fabs(est - sorted[i]) / sorted[i]);
    }
    CU_ASSERT_TRUE(worst <= bound);
    CU_ASSERT_EQUAL(ompb__histogram_rank(h, 0), sorted[0]);
    CU_ASSERT_EQUAL(ompb__histogram_rank(h, N - 1), sorted[N - 1]);
    ompb__stats st;
    CU_ASSERT_EQUAL_FATAL(ompb__stats_compute(x, N, &st), 0);
    CU_ASSERT_TRUE(fabs(ompb__histogram_quantile(h, 0.25) - st.q1) <= bound * st.q1);
    CU_ASSERT_TRUE(fabs(ompb__histogram_quantile(h, 0.5) - st.median) <= bound * st.median);
    CU_ASSERT_TRUE(fabs(ompb__histogram_quantile(h, 0.75) - st.q3) <= bound * st.q3);
    double lo, hi;
    ompb__histogram_median_ci(h, &lo, &hi);
    CU_ASSERT_TRUE(fabs(lo - st.ci_low) <= bound * st.ci_low);
    CU_ASSERT_TRUE(fabs(hi - st.ci_high) <= bound * st.ci_high);
    free(h);
    free(x);
    free(sorted);
}

/* Small exact values (below 64 ns) give exact type-7 quantiles; n <= 5
 * gives no median interval, as lib/stats. */
static void test_small_values_exact(void)
{
    ompb__histogram *h = make();
    CU_ASSERT_FATAL(h != NULL);
    const uint64_t v[] = {7, 1, 4, 50, 12};
    for (size_t i = 0; i < 5; i++)
        ompb__histogram_add(h, v[i]);
    const double x[] = {7, 1, 4, 50, 12};
    ompb__stats st;
    ompb__stats_compute(x, 5, &st);
    CU_ASSERT_DOUBLE_EQUAL(ompb__histogram_quantile(h, 0.25), st.q1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ompb__histogram_quantile(h, 0.5), st.median, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ompb__histogram_quantile(h, 0.75), st.q3, 1e-12);
    double lo, hi;
    ompb__histogram_median_ci(h, &lo, &hi);
    CU_ASSERT_TRUE(isnan(lo) && isnan(hi));
    free(h);
}

/* Outliers beyond fences that do not cut a bucket are counted exactly. */
static void test_outside(void)
{
    ompb__histogram *h = make();
    CU_ASSERT_FATAL(h != NULL);
    for (int i = 0; i < 100; i++)
        ompb__histogram_add(h, 1000);
    ompb__histogram_add(h, 10);
    ompb__histogram_add(h, 1000000);
    ompb__histogram_add(h, 2000000);
    CU_ASSERT_EQUAL(ompb__histogram_count_outside(h, 500, 5000), 3);
    CU_ASSERT_EQUAL(ompb__histogram_count_outside(h, 0, 1e7), 0);
    CU_ASSERT_EQUAL(h->n, 103);
    CU_ASSERT_EQUAL(h->min, 10);
    CU_ASSERT_EQUAL(h->max, 2000000);
    free(h);
}

static const ompb_test_case cases[] = {
    {"layout", test_layout},
    {"bucket_of_value", test_bucket_of_value},
    {"ranks_against_exact", test_ranks_against_exact},
    {"small_values_exact", test_small_values_exact},
    {"outside", test_outside},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_histogram = {"histogram", NULL, NULL, cases};
