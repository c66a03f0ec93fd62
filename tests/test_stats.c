/* SPDX-License-Identifier: MIT */
/*
 * lib/stats on fixed data sets. Expected values come from NumPy 1.24 / SciPy
 * 1.10 (numpy.quantile with its default linear method = type 7,
 * numpy.std(ddof=1), scipy.stats.binom for the median interval), or from
 * textbook tables where stated; the Python lines are quoted beside each case
 * so the numbers can be recomputed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "suite.h"

#define EPS 1e-12

static void check_close(double got, double want)
{
    CU_ASSERT_DOUBLE_EQUAL(got, want, EPS * fmax(1.0, fabs(want)));
}

static void test_empty(void)
{
    ompb__stats st;
    memset(&st, 0xff, sizeof st);
    CU_ASSERT_EQUAL(ompb__stats_compute(NULL, 0, &st), 0);
    CU_ASSERT_EQUAL(st.n, 0);
    CU_ASSERT_EQUAL(st.min, 0.0);
    CU_ASSERT_EQUAL(st.median, 0.0);
    CU_ASSERT_EQUAL(st.ci_high, 0.0);
    CU_ASSERT_EQUAL(st.iqr_outliers, 0);
}

/* n = 1: every location statistic is the value, no spread, and no interval
 * of the median reaches 95% coverage: the CI is NAN, not [x, x]. */
static void test_one_sample(void)
{
    const double x[] = {42.0};
    ompb__stats st;
    CU_ASSERT_EQUAL(ompb__stats_compute(x, 1, &st), 0);
    CU_ASSERT_EQUAL(st.n, 1);
    check_close(st.min, 42.0);
    check_close(st.max, 42.0);
    check_close(st.mean, 42.0);
    CU_ASSERT_EQUAL(st.stdev, 0.0);
    check_close(st.q1, 42.0);
    check_close(st.median, 42.0);
    check_close(st.q3, 42.0);
    CU_ASSERT_TRUE(isnan(st.ci_low));
    CU_ASSERT_TRUE(isnan(st.ci_high));
    CU_ASSERT_EQUAL(st.iqr_outliers, 0);
    CU_ASSERT_EQUAL(st.stdev_outliers, 0);
}

/* numpy.quantile([3, 1], [.25, .5, .75]) = 1.5, 2, 2.5; std(ddof=1) = sqrt(2).
 * [min, max] covers the median with probability 1 - 2 * 2^-2 = 50% only:
 * no 95% interval, so the CI is NAN. */
static void test_two_samples(void)
{
    const double x[] = {3.0, 1.0};
    ompb__stats st;
    CU_ASSERT_EQUAL(ompb__stats_compute(x, 2, &st), 0);
    check_close(st.min, 1.0);
    check_close(st.max, 3.0);
    check_close(st.mean, 2.0);
    check_close(st.stdev, sqrt(2.0));
    check_close(st.q1, 1.5);
    check_close(st.median, 2.0);
    check_close(st.q3, 2.5);
    CU_ASSERT_TRUE(isnan(st.ci_low));
    CU_ASSERT_TRUE(isnan(st.ci_high));
    CU_ASSERT_EQUAL(x[0], 3.0); /* the input is not sorted in place */
}

/* [7, 1, 4]: quantiles 2.5, 4, 5.5; std(ddof=1) = 3; no 95% CI (75%). */
static void test_three_samples(void)
{
    const double x[] = {7.0, 1.0, 4.0};
    ompb__stats st;
    CU_ASSERT_EQUAL(ompb__stats_compute(x, 3, &st), 0);
    check_close(st.q1, 2.5);
    check_close(st.median, 4.0);
    check_close(st.q3, 5.5);
    check_close(st.stdev, 3.0);
    CU_ASSERT_TRUE(isnan(st.ci_low));
    CU_ASSERT_TRUE(isnan(st.ci_high));
}

/*
 * One slow round among eleven: numpy gives mean 19.181818181818183,
 * std 25.17466258688756, q1 11, median 12, q3 12.5; 95 lies beyond both the
 * 1.5 IQR fence (14.75) and mean + 3 sd (94.7). Median CI: k = 2
 * (binom.cdf(1, 11, .5) = 0.0059 <= 0.025 < binom.cdf(2, 11, .5)), so
 * [x(2), x(10)] = [10, 14].
 */
static void test_outliers_counted_not_dropped(void)
{
    const double x[] = {10, 12, 11, 13, 12, 11, 10, 14, 12, 11, 95};
    ompb__stats st;
    CU_ASSERT_EQUAL(ompb__stats_compute(x, 11, &st), 0);
    CU_ASSERT_EQUAL(st.n, 11);
    check_close(st.max, 95.0);
    check_close(st.mean, 19.181818181818183);
    check_close(st.stdev, 25.17466258688756);
    check_close(st.q1, 11.0);
    check_close(st.median, 12.0);
    check_close(st.q3, 12.5);
    CU_ASSERT_EQUAL(st.iqr_outliers, 1);
    CU_ASSERT_EQUAL(st.stdev_outliers, 1);
    check_close(st.ci_low, 10.0);
    check_close(st.ci_high, 14.0);
}

/*
 * n = 20: the classic table value for a 95% distribution-free median CI is
 * [x(6), x(15)] (coverage 95.9%). numpy: mean 2.96, std 0.23260538075868914,
 * q1 2.8, median 3.0, q3 3.1.
 */
static void test_twenty_samples(void)
{
    const double x[] = {2.5, 3.1, 2.9, 3.3, 2.7, 3.0, 3.2, 2.8, 3.1, 2.6,
                        3.0, 2.9, 3.4, 2.8, 3.0, 3.1, 2.7, 3.2, 2.9, 3.0};
    ompb__stats st;
    CU_ASSERT_EQUAL(ompb__stats_compute(x, 20, &st), 0);
    check_close(st.mean, 2.96);
    check_close(st.stdev, 0.23260538075868914);
    check_close(st.q1, 2.8);
    check_close(st.median, 3.0);
    check_close(st.q3, 3.1);
    check_close(st.ci_low, 2.8);  /* x(6) */
    check_close(st.ci_high, 3.1); /* x(15) */
    CU_ASSERT_EQUAL(st.iqr_outliers, 0);
    CU_ASSERT_EQUAL(st.stdev_outliers, 0);
}

/* 30 values in 98..102 and one 200: one outlier by both rules (numpy:
 * mean 103.2258064516129, std 18.01612181245704). */
static void test_three_sigma(void)
{
    double x[31];
    for (int i = 0; i < 30; i++)
        x[i] = 100.0 + (double)((i * 7) % 5) - 2.0;
    x[30] = 200.0;
    ompb__stats st;
    CU_ASSERT_EQUAL(ompb__stats_compute(x, 31, &st), 0);
    check_close(st.mean, 103.2258064516129);
    check_close(st.stdev, 18.01612181245704);
    CU_ASSERT_EQUAL(st.stdev_outliers, 1);
    CU_ASSERT_EQUAL(st.iqr_outliers, 1);
    check_close(st.ci_low, 99.0);
    check_close(st.ci_high, 101.0);
}

/*
 * On x = 1..n the interval is [k, n + 1 - k]. k from SciPy: the largest k with
 * binom.cdf(k - 1, n, .5) <= 0.025: n = 6 -> 1, 100 -> 40, 2000 -> 956,
 * 5000 -> 2431. 2^-5000 underflows a double: this checks the log-space walk.
 */
static void test_median_ci_ranks(void)
{
    static const size_t n[] = {6, 100, 2000, 5000};
    static const size_t k[] = {1, 40, 956, 2431};
    double *x = malloc(5000 * sizeof *x);
    CU_ASSERT_FATAL(x != NULL);
    for (size_t i = 0; i < 5000; i++)
        x[i] = (double)(i + 1);
    for (size_t c = 0; c < sizeof n / sizeof n[0]; c++) {
        double lo, hi;
        ompb__median_ci_sorted(x, n[c], 0.95, &lo, &hi);
        CU_ASSERT_EQUAL(lo, (double)k[c]);
        CU_ASSERT_EQUAL(hi, (double)(n[c] + 1 - k[c]));
    }
    /* n = 5 cannot reach 95% (even [min, max] leaves 2 * 2^-5 = 6.25%
     * outside): no interval rather than a mislabelled one. n = 6 can (the
     * loop above: [min, max], 96.9%). */
    for (size_t m = 1; m <= 5; m++) {
        double lo, hi;
        ompb__median_ci_sorted(x, m, 0.95, &lo, &hi);
        CU_ASSERT_TRUE(isnan(lo));
        CU_ASSERT_TRUE(isnan(hi));
    }
    free(x);
}

static void test_quantile_type7(void)
{
    const double s[] = {1.0, 2.0, 4.0, 8.0};
    check_close(ompb__quantile_sorted(s, 4, 0.0), 1.0);
    check_close(ompb__quantile_sorted(s, 4, 1.0), 8.0);
    /* h = 3 * 0.1 = 0.3: 1 + 0.3 * (2 - 1); numpy.quantile gives 1.3. */
    check_close(ompb__quantile_sorted(s, 4, 0.1), 1.3);
    /* h = 3 * 0.9 = 2.7: 4 + 0.7 * 4 = 6.8. */
    check_close(ompb__quantile_sorted(s, 4, 0.9), 6.8);
    CU_ASSERT_EQUAL(ompb__quantile_sorted(s, 0, 0.5), 0.0);
}

/* Busy times by hand: [100, 300] -> 300 / 200 = 1.5; [200, 200] -> 1;
 * idle threads -> 1 by definition. */
static void test_imbalance(void)
{
    const uint64_t busy[] = {100, 300, 200, 200, 0, 0};
    check_close(ompb__round_imbalance(busy, 2), 1.5);
    check_close(ompb__round_imbalance(busy + 2, 2), 1.0);
    check_close(ompb__round_imbalance(busy + 4, 2), 1.0);
    check_close(ompb__mean_imbalance(busy, 2, 2), 1.25);
    check_close(ompb__mean_imbalance(busy, 3, 2), 3.5 / 3.0);
    CU_ASSERT_EQUAL(ompb__mean_imbalance(busy, 0, 2), 0.0);
    const uint64_t skew[] = {300, 320, 340};
    check_close(ompb__mean_u64(skew, 3), 320.0);
    CU_ASSERT_EQUAL(ompb__mean_u64(skew, 0), 0.0);
}

/* Nearly constant large timings: sum(x^2) - n mean^2 would cancel to garbage;
 * the deviations are +-0.5 around 1e9, so stdev = sqrt(4 * 0.25 / 3). */
static void test_stdev_no_cancellation(void)
{
    const double x[] = {1e9 - 0.5, 1e9 + 0.5, 1e9 - 0.5, 1e9 + 0.5};
    ompb__stats st;
    CU_ASSERT_EQUAL(ompb__stats_compute(x, 4, &st), 0);
    CU_ASSERT_DOUBLE_EQUAL(st.stdev, sqrt(1.0 / 3.0), 1e-9);
}

static const ompb_test_case cases[] = {
    {"empty", test_empty},
    {"one_sample", test_one_sample},
    {"two_samples", test_two_samples},
    {"three_samples", test_three_samples},
    {"outliers_counted_not_dropped", test_outliers_counted_not_dropped},
    {"twenty_samples", test_twenty_samples},
    {"three_sigma", test_three_sigma},
    {"median_ci_ranks", test_median_ci_ranks},
    {"quantile_type7", test_quantile_type7},
    {"imbalance", test_imbalance},
    {"stdev_no_cancellation", test_stdev_no_cancellation},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_stats = {"stats", NULL, NULL, cases};
