/* SPDX-License-Identifier: MIT */
/*
 * Results analysis: the statistics of the verdicts (t distribution, Welch,
 * interval nulls, Benjamini-Hochberg), loading result files (every
 * validation path, repetitions included), and `ompbench compare` verdicts
 * and reports on the crafted files of tests/data/compare. Reference values
 * come from SciPy 1.10 / NumPy 1.24 (Debian 12), computed by the scripts
 * there: make_stats.py (stats_reference.json) and make_data.py (the files,
 * runs_expected.json, gbench_agg_expected.json).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/compare.h"
#include "analysis/resultfile.h"
#include "analysis/units.h"
#include "analysis/welch.h"
#include "fixtures.h"
#include "suite.h"

#define DATA OMPB_TEST_DATA_DIR "/compare/"
#define REL 1e-12

static void check_rel(double got, double want)
{
    CU_ASSERT_DOUBLE_EQUAL(got, want, REL * fabs(want));
}

/* ---- Welch, t distribution, Benjamini-Hochberg (tools/lib/analysis/welch.c) ---
 * Reference values: tests/data/compare/stats_reference.json, written by
 * make_stats.py there with SciPy 1.10 / NumPy 1.24. */

static json_t *stats_reference(const char *key)
{
    static json_t *root;
    if (!root) {
        json_error_t jerr;
        root = json_load_file(DATA "stats_reference.json", 0, &jerr);
        CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    }
    json_t *v = json_object_get(root, key);
    CU_ASSERT_FATAL(json_is_array(v) && json_array_size(v) > 0);
    return v;
}

static double num(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    CU_ASSERT_FATAL(json_is_number(v));
    return json_number_value(v);
}

/* Within rel of want, or (for values near 0) within abs. */
static void check_close(double got, double want, double rel, double abs_tol)
{
    double tol = fmax(rel * fabs(want), abs_tol);
    if (!(fabs(got - want) <= tol))
        fprintf(stderr, "\n    got %.17g, want %.17g\n", got, want);
    CU_ASSERT(fabs(got - want) <= tol);
}

static void test_t_cdf(void)
{
    size_t i;
    json_t *c;
    json_array_foreach(stats_reference("t_cdf"), i, c)
        check_close(ompb__t_cdf(num(c, "t"), num(c, "df")), num(c, "cdf"), 1e-10, 1e-300);
    CU_ASSERT(isnan(ompb__t_cdf(1.0, 0.0)));
    CU_ASSERT(isnan(ompb__t_cdf(NAN, 3.0)));
    CU_ASSERT_EQUAL(ompb__t_cdf(INFINITY, 3.0), 1.0);
    CU_ASSERT_EQUAL(ompb__t_cdf(-INFINITY, 3.0), 0.0);
}

/* SciPy's ppf inverts its own cdf only to ~1e-11 in p (t.cdf(t.ppf(0.6, 50),
 * 50) = 0.59999999998); ours inverts the distribution function above to the
 * last bit, so the quantiles agree to 1e-8. */
static void test_t_quantile(void)
{
    size_t i;
    json_t *c;
    json_array_foreach(stats_reference("t_quantile"), i, c) {
        double q = ompb__t_quantile(num(c, "p"), num(c, "df"));
        check_close(q, num(c, "q"), 1e-8, 1e-12);
        check_close(ompb__t_cdf(q, num(c, "df")), num(c, "p"), 1e-12, 1e-300);
    }
    CU_ASSERT(isnan(ompb__t_quantile(0.0, 3.0)));
    CU_ASSERT(isnan(ompb__t_quantile(1.0, 3.0)));
    CU_ASSERT(isnan(ompb__t_quantile(0.5, -1.0)));
}

static ompb__sample_summary summary_of(const json_t *a, double *buf)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
        buf[i] = json_number_value(v);
    return ompb__summarize(buf, json_array_size(a));
}

static void test_welch(void)
{
    size_t i;
    json_t *c;
    json_array_foreach(stats_reference("welch"), i, c) {
        double bx[32], by[32], lo, hi;
        CU_ASSERT_FATAL(json_array_size(json_object_get(c, "x")) <= 32);
        CU_ASSERT_FATAL(json_array_size(json_object_get(c, "y")) <= 32);
        ompb__welch_result w = ompb__welch(summary_of(json_object_get(c, "x"), bx),
                                           summary_of(json_object_get(c, "y"), by));
        check_close(w.diff, num(c, "diff"), 1e-12, 1e-15);
        check_close(w.se, num(c, "se"), 1e-12, 0);
        check_close(w.df, num(c, "df"), 1e-12, 0);
        /* The interval null [0, 0] is the ordinary two-sided test. */
        check_close(ompb__interval_p(&w, 0.0, 0.0), num(c, "p_two_sided"), 1e-9, 1e-300);
        check_close(ompb__interval_p(&w, log(0.95), log(1.05)), num(c, "p_interval"), 1e-9,
                    1e-300);
        ompb__welch_ci(&w, 0.05, &lo, &hi);
        check_close(lo, num(c, "ci_low"), 1e-8, 1e-12);
        check_close(hi, num(c, "ci_high"), 1e-8, 1e-12);
    }
}

/* Yuen's trimmed form: one run in five cut from each end, winsorized
 * variance; Welch's formulas on the summary give Yuen-Welch's test. */
static void test_yuen(void)
{
    size_t i;
    json_t *c;
    json_array_foreach(stats_reference("yuen"), i, c) {
        double bx[32], by[32];
        const json_t *x = json_object_get(c, "x"), *y = json_object_get(c, "y");
        CU_ASSERT_FATAL(json_array_size(x) <= 32 && json_array_size(y) <= 32);
        summary_of(x, bx);
        summary_of(y, by);
        ompb__sample_summary sx = ompb__summarize_trimmed(bx, json_array_size(x), 0.2);
        ompb__sample_summary sy = ompb__summarize_trimmed(by, json_array_size(y), 0.2);
        CU_ASSERT_EQUAL(sx.n, (size_t)num(c, "h_x"));
        CU_ASSERT_EQUAL(sy.n, (size_t)num(c, "h_y"));
        check_close(sx.mean, num(c, "mean_x"), 1e-12, 1e-15);
        check_close(sy.var, num(c, "var_y"), 1e-12, 1e-300);
        check_close(sx.spread, num(c, "spread_x"), 1e-12, 1e-300);
        ompb__welch_result w = ompb__welch(sx, sy);
        check_close(w.diff, num(c, "diff"), 1e-12, 1e-15);
        check_close(w.se, num(c, "se"), 1e-12, 0);
        check_close(w.df, num(c, "df"), 1e-12, 0);
        check_close(ompb__interval_p(&w, 0.0, 0.0), num(c, "p_two_sided"), 1e-9, 1e-300);
    }
    /* Fewer than five values: nothing cut, the plain summary. */
    const double v[] = {1.0, 2.0, 10.0, 4.0};
    ompb__sample_summary a = ompb__summarize_trimmed(v, 4, 0.2), b = ompb__summarize(v, 4);
    CU_ASSERT(a.n == b.n && a.mean == b.mean && a.var == b.var && a.spread == b.spread);
}

/* The interval p is below alpha exactly when the (1 - alpha) interval
 * clears the null interval; with no spread the difference itself decides. */
static void test_interval_p_edges(void)
{
    const double x[] = {0.0, 0.01, -0.01, 0.02, -0.02}, y[] = {0.2, 0.21, 0.19, 0.22, 0.18};
    ompb__welch_result w = ompb__welch(ompb__summarize(x, 5), ompb__summarize(y, 5));
    double lo, hi;
    ompb__welch_ci(&w, 0.05, &lo, &hi);
    /* Bounds just below and above the interval's lower end. */
    CU_ASSERT(ompb__interval_p(&w, -1.0, lo - 1e-9) < 0.05);
    CU_ASSERT(ompb__interval_p(&w, -1.0, lo + 1e-9) > 0.05);
    CU_ASSERT(ompb__interval_p(&w, -INFINITY, lo - 1e-9) < 0.05);
    const double same[] = {1.0, 1.0, 1.0};
    w = ompb__welch(ompb__summarize(same, 3), ompb__summarize(same, 3));
    CU_ASSERT_EQUAL(w.se, 0.0);
    CU_ASSERT_EQUAL(w.df, 4.0);
    CU_ASSERT_EQUAL(ompb__interval_p(&w, -0.05, 0.05), 1.0);
    w.diff = 0.1;
    CU_ASSERT_EQUAL(ompb__interval_p(&w, -0.05, 0.05), 0.0);
    ompb__welch_ci(&w, 0.05, &lo, &hi);
    CU_ASSERT_EQUAL(lo, 0.1);
    CU_ASSERT_EQUAL(hi, 0.1);
    /* One value on a side: no variance, no test. */
    w = ompb__welch(ompb__summarize(same, 1), ompb__summarize(same, 3));
    CU_ASSERT(isnan(w.se) && isnan(ompb__interval_p(&w, -0.05, 0.05)));
}

static void test_bh(void)
{
    size_t i;
    json_t *c;
    json_array_foreach(stats_reference("bh"), i, c) {
        json_t *p = json_object_get(c, "p"), *q = json_object_get(c, "q");
        size_t n = json_array_size(p);
        double *pv = malloc(n * sizeof *pv), *qv = malloc(n * sizeof *qv);
        CU_ASSERT_FATAL(pv && qv);
        for (size_t k = 0; k < n; k++)
            pv[k] = json_number_value(json_array_get(p, k));
        CU_ASSERT_EQUAL(ompb__bh_adjust(pv, n, qv), 0);
        for (size_t k = 0; k < n; k++)
            check_close(qv[k], json_number_value(json_array_get(q, k)), 1e-12, 0);
        free(pv);
        free(qv);
    }
    /* NAN entries are not tests: left out of m, and stay NAN. */
    double p[] = {0.01, NAN, 0.04}, q[3];
    CU_ASSERT_EQUAL(ompb__bh_adjust(p, 3, q), 0);
    check_rel(q[0], 0.02);
    CU_ASSERT(isnan(q[1]));
    check_rel(q[2], 0.04);
}

static void test_units_needed(void)
{
    size_t i;
    json_t *c;
    json_array_foreach(stats_reference("units"), i, c)
        CU_ASSERT_EQUAL(ompb__units_needed(num(c, "se"), (size_t)num(c, "n_now"),
                                           num(c, "half_width"), num(c, "alpha"),
                                           num(c, "trim"), 1000),
                        (size_t)num(c, "n"));
    CU_ASSERT_EQUAL(ompb__units_needed(0.0, 5, 0.01, 0.05, 0.2, 1000), 2);
    CU_ASSERT_EQUAL(ompb__units_needed(0.01, 5, 0.0, 0.05, 0.2, 1000), 1001);
}

/* ---- result files -------------------------------------------------------- */

static void load(const char *name, ompb__resultfile *rf)
{
    ompb_error err = {0};
    int rc = ompb__resultfile_load(name, rf, &err);
    if (rc)
        fprintf(stderr, "\n%s\n", err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static void test_load_ompbench(void)
{
    ompb__resultfile rf;
    load(DATA "base.json", &rf);
    CU_ASSERT_EQUAL(rf.n, 9); /* aggregates skipped */
    CU_ASSERT_PTR_NOT_NULL(rf.context);
    const ompb__rf_instance *in = ompb__resultfile_find(&rf, "improved[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_EQUAL(in->threads, 2);
    CU_ASSERT_EQUAL(in->n_samples, 20);
    CU_ASSERT_TRUE(in->rounds);
    CU_ASSERT_EQUAL(in->value_ns, 1000.0);
    /* makespan_ns[0] = 990000 at sample_size 1000. */
    CU_ASSERT_EQUAL(in->samples_ns[0], 990.0);
    CU_ASSERT_EQUAL(in->imbalance, 1.0); /* equal busy times */
    CU_ASSERT_FALSE(in->failed);
    CU_ASSERT_PTR_NULL(ompb__resultfile_find(&rf, "improved[t=2]_mean"));
    ompb__resultfile_free(&rf);
}

static void test_load_failed_instance(void)
{
    ompb__resultfile rf;
    load(DATA "head.json", &rf);
    const ompb__rf_instance *in = ompb__resultfile_find(&rf, "broken[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_TRUE(in->failed);
    CU_ASSERT_STRING_EQUAL(in->error_message, "benchmark left its loop early");
    CU_ASSERT_EQUAL(in->n_samples, 0);
    ompb__resultfile_free(&rf);
}

static void test_load_gbench(void)
{
    ompb__resultfile rf;
    load(DATA "gbench_base.json", &rf);
    CU_ASSERT_EQUAL(rf.n, 3);
    const ompb__rf_instance *in = ompb__resultfile_find(&rf, "BM_sort/1024");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_EQUAL(in->value_ns, 10000.0); /* 10 us */
    CU_ASSERT_EQUAL(in->n_samples, 0);
    CU_ASSERT_PTR_NULL(in->samples_ns);
    CU_ASSERT_TRUE(isnan(in->imbalance));
    ompb__resultfile_free(&rf);

    /* Eight repetitions: eight samples, value = their median. */
    load(DATA "gbench_reps_base.json", &rf);
    CU_ASSERT_EQUAL(rf.n, 1);
    CU_ASSERT_EQUAL(rf.inst[0].n_samples, 8);
    CU_ASSERT_FALSE(rf.inst[0].rounds);
    CU_ASSERT_DOUBLE_EQUAL(rf.inst[0].value_ns, 10025.0, 1e-9);
    ompb__resultfile_free(&rf);
}

/* Repetitions: one per iteration entry, with process and index; the
 * instance's rounds are all of theirs, its value the median of theirs. */
static void test_load_repetitions(void)
{
    ompb__resultfile rf;
    load(DATA "runs_base.json", &rf);
    const ompb__rf_instance *in = ompb__resultfile_find(&rf, "regressed[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_EQUAL(in->n_reps, 8);
    CU_ASSERT_EQUAL(in->repetitions, 8);
    CU_ASSERT_EQUAL(in->n_samples, 40);
    CU_ASSERT_EQUAL(in->reps[5].index, 5);
    CU_ASSERT_EQUAL(in->reps[5].process, 1);
    /* Repetition 5: process 1 (factor 1.02), its second (1.002). */
    CU_ASSERT_DOUBLE_EQUAL(in->reps[5].value_ns, 1000.0 * 1.02 * 1.002, 1e-9);
    CU_ASSERT_EQUAL(in->imbalance, 1.0);
    in = ompb__resultfile_find(&rf, "exact5[t=2]");
    CU_ASSERT_DOUBLE_EQUAL(in->value_ns, 100.0, 1e-9); /* median of 99.8 x 4, 100.2 x 4 */
    ompb__resultfile_free(&rf);
    /* A repetition that failed fails the instance; the others still count. */
    load(DATA "runs_head.json", &rf);
    in = ompb__resultfile_find(&rf, "broken[t=2]");
    CU_ASSERT_TRUE(in->failed);
    CU_ASSERT_EQUAL(in->n_reps, 8);
    CU_ASSERT_EQUAL(in->n_samples, 0);
    ompb__resultfile_free(&rf);
}

/* Busy times [[300, 100]] -> imbalance 300 / 200 = 1.5 when the stats object
 * does not carry mean_imbalance. */
static void test_load_imbalance_from_busy(void)
{
    const char *text =
        "{\"benchmarks\": [{\"name\": \"a[t=2]\", \"run_type\": \"iteration\", "
        "\"real_time\": 1, \"time_unit\": \"ns\", \"threads\": 2, \"ompbench\": {"
        "\"threads\": 2, \"sample_size\": 4, \"rounds\": 2, \"samples\": {"
        "\"makespan_ns\": [400, 600], \"busy_ns\": [[300, 100], [200, 200]]}}}]}";
    ompb__resultfile rf;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__resultfile_parse(text, "inline", &rf, &err), 0);
    CU_ASSERT_EQUAL(rf.inst[0].n_samples, 2);
    CU_ASSERT_EQUAL(rf.inst[0].samples_ns[1], 150.0);
    CU_ASSERT_EQUAL(rf.inst[0].value_ns, 125.0);
    CU_ASSERT_DOUBLE_EQUAL(rf.inst[0].imbalance, (1.5 + 1.0) / 2.0, 1e-12);
    ompb__resultfile_free(&rf);
}

#define ENTRY(extra) \
    "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": \"iteration\", " extra "}]}"
#define OMPB_ENTRY(omp) \
    ENTRY("\"real_time\": 1, \"time_unit\": \"ns\", \"ompbench\": " omp)
#define REP(n, i) \
    "{\"name\": \"a\", \"real_time\": 1, \"time_unit\": \"ns\", \"repetitions\": " #n \
    ", \"repetition_index\": " #i "}"
#define AGG(kind, n) \
    "{\"name\": \"a_" kind "\", \"run_name\": \"a\", \"run_type\": \"aggregate\", " \
    "\"aggregate_name\": \"" kind "\", \"repetitions\": " #n ", \"real_time\": 1, " \
    "\"time_unit\": \"ns\"}"

/* Each check of the loader: the message names the input and the problem. */
static void test_load_malformed_text(void)
{
    static const struct { const char *text, *want; } cases[] = {
        {"", "not valid JSON"},
        {"{\"benchmarks\": [", "not valid JSON"},
        {"[1, 2]", "top level is not an object"},
        {"{\"context\": {}}", "no \"benchmarks\" array"},
        {"{\"benchmarks\": {}}", "no \"benchmarks\" array"},
        {"{\"context\": [], \"benchmarks\": []}", "\"context\" is not an object"},
        {"{\"context\": {\"json_schema_version\": 2}, \"benchmarks\": []}",
         "json_schema_version"},
        {"{\"creator\": {}, \"instrument\": {}, \"benchmarks\": []}", "CodSpeed"},
        {"{\"benchmarks\": [42]}", "benchmarks[0] is not an object"},
        {"{\"benchmarks\": [{\"real_time\": 1}]}", "non-empty \"name\""},
        {"{\"benchmarks\": [{\"name\": \"a\", \"run_type\": \"x\"}]}",
         "benchmarks[0] \"a\": \"run_type\" is \"x\" (accepted: iteration, aggregate)"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"run_type\": 3}]}", "run_type"},
        {ENTRY("\"time_unit\": \"ns\""), "\"real_time\" is missing"},
        {ENTRY("\"real_time\": \"1\", \"time_unit\": \"ns\""), "\"real_time\""},
        {ENTRY("\"real_time\": -1, \"time_unit\": \"ns\""), "\"real_time\""},
        {ENTRY("\"real_time\": 1"), "\"time_unit\" is missing"},
        {ENTRY("\"real_time\": 1, \"time_unit\": \"fortnights\""),
         "\"time_unit\" is \"fortnights\" (accepted: ns, us, ms, s)"},
        {ENTRY("\"real_time\": 1, \"time_unit\": \"ns\", \"threads\": 0"),
         "\"threads\" is not a positive integer"},
        {OMPB_ENTRY("[]"), "\"ompbench\" is not an object"},
        {OMPB_ENTRY("{\"threads\": -2}"), "\"ompbench.threads\" is not a positive"},
        {OMPB_ENTRY("{\"sample_size\": 10}"), "\"ompbench.samples\" is missing"},
        {OMPB_ENTRY("{\"samples\": {\"makespan_ns\": [1]}}"), "sample_size"},
        {OMPB_ENTRY("{\"sample_size\": 0, \"samples\": {\"makespan_ns\": [1]}}"),
         "sample_size"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": []}}"),
         "makespan_ns\" is missing or empty"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1, \"2\"]}}"),
         "ompbench.samples.makespan_ns[1] is not a whole number of nanoseconds"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1.5]}}"),
         "makespan_ns[0] is not a whole number"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1e300]}}"),
         "makespan_ns[0] is not a whole number of nanoseconds below 2^64"},
        /* 2^64 itself does not fit a uint64_t; casting it would be undefined. */
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1], "
                    "\"busy_ns\": [[18446744073709551616.0]]}}"),
         "benchmarks[0] \"a\": ompbench.samples.busy_ns[0][0] is not a whole number"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1], "
                    "\"busy_ns\": [[1e300]]}}"),
         "ompbench.samples.busy_ns[0][0]"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1], "
                    "\"busy_ns\": [[5, -1]]}}"),
         "ompbench.samples.busy_ns[0][1]"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1], "
                    "\"busy_ns\": [[2.5]]}}"),
         "ompbench.samples.busy_ns[0][0]"},
        /* Finite in JSON, infinite in ns. */
        {ENTRY("\"real_time\": 1e308, \"time_unit\": \"s\""),
         "\"real_time\" 1e+308 s overflows in nanoseconds"},
        {"{\"benchmarks\": []}", "no benchmark results"},
        {"{\"benchmarks\": [{\"name\": \"a_cv\", \"run_name\": \"a\", "
         "\"run_type\": \"aggregate\", \"aggregate_name\": \"cv\", \"real_time\": 1, "
         "\"time_unit\": \"ns\"}]}",
         "no benchmark results"},
        {"{\"benchmarks\": [{\"name\": \"a_mean\", \"run_name\": \"a\", "
         "\"run_type\": \"aggregate\", \"aggregate_name\": \"mean\", "
         "\"real_time\": 1e308, \"time_unit\": \"s\"}]}",
         "benchmarks[0] \"a_mean\": \"real_time\" 1e+308 s overflows"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"rounds\": 3, \"samples\": "
                    "{\"makespan_ns\": [1, 2]}}"),
         "says 3 but makespan_ns holds 2 values"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1, 2], "
                    "\"busy_ns\": [[1]]}}"),
         "busy_ns\" is not an array of 2 rounds"},
        {OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1], "
                    "\"busy_ns\": [[1, null]]}}"),
         "busy_ns[0][1]"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1, \"time_unit\": \"ns\", "
         "\"ompbench\": {\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1]}}}, "
         "{\"name\": \"a\", \"real_time\": 1, \"time_unit\": \"ns\"}]}",
         "benchmarks[1] \"a\": the name occurs twice, once with and once without"},
        {"{\"benchmarks\": [], \"benchmarks\": []}", "duplicate object key"},
        /* Repetitions that do not add up. */
        {"{\"benchmarks\": [" REP(3, 0) ", " REP(2, 1) "]}",
         "benchmarks[1] \"a\": mixed repetition counts: \"repetitions\" is 2 here, 3 in an "
         "earlier entry"},
        {"{\"benchmarks\": [" REP(3, 0) ", " REP(3, 0) ", " REP(3, 1) "]}",
         "benchmarks[1] \"a\": the name occurs twice with repetition_index 0"},
        {"{\"benchmarks\": [" REP(3, 0) ", " REP(3, 2) "]}",
         "\"a\" holds 2 of its 3 repetitions"},
        {"{\"benchmarks\": [" REP(2, 2) "]}", "\"repetition_index\" is not an integer from 0"},
        {"{\"benchmarks\": [" REP(0, 0) "]}", "\"repetitions\" is not a positive integer"},
        {OMPB_ENTRY("{\"process\": -1, \"sample_size\": 1, \"samples\": {\"makespan_ns\": "
                    "[1]}}"),
         "\"ompbench.process\" is not a non-negative integer"},
        /* Aggregates only, without the spread. */
        {"{\"benchmarks\": [" AGG("median", 5) "]}",
         "\"a\" is reported by aggregates only but has no \"_mean\" aggregate"},
        {"{\"benchmarks\": [" AGG("mean", 5) "]}", "has no \"_stddev\" aggregate"},
        {"{\"benchmarks\": [" AGG("mean", 5) ", " AGG("stddev", 4) "]}",
         "\"a\": mixed repetition counts in its aggregates (5 and 4)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ompb__resultfile rf;
        ompb_error err = {0};
        int rc = ompb__resultfile_parse(cases[i].text, "in.json", &rf, &err);
        CU_ASSERT_EQUAL(rc, OMPB_EINVAL);
        CU_ASSERT_EQUAL(err.code, OMPB_EINVAL);
        CU_ASSERT_EQUAL(strncmp(err.text, "in.json: ", 9), 0);
        if (!strstr(err.text, cases[i].want))
            fprintf(stderr, "\ncase %zu: '%s' lacks '%s'\n", i, err.text, cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, cases[i].want));
        CU_ASSERT_EQUAL(rf.n, 0);
    }
}

static void test_load_malformed_files(void)
{
    static const struct { const char *path, *want; int code; } cases[] = {
        {DATA "truncated.json", "not valid JSON (truncated?) at line", OMPB_EINVAL},
        {DATA "not_json.txt", "not valid JSON", OMPB_EINVAL},
        {DATA "wrong_schema.json", "CodSpeed runner results file", OMPB_EINVAL},
        {DATA "no_samples.json", "\"ompbench.samples\" is missing", OMPB_EINVAL},
        {DATA "does-not-exist.json", "cannot open: No such file", OMPB_EIO},
        {DATA "gbench_agg_unusable.json", "no benchmark results", OMPB_EINVAL},
        {DATA, "is a directory", OMPB_EIO},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ompb__resultfile rf;
        ompb_error err = {0};
        CU_ASSERT_EQUAL(ompb__resultfile_load(cases[i].path, &rf, &err), cases[i].code);
        CU_ASSERT_EQUAL(strncmp(err.text, cases[i].path, strlen(cases[i].path)), 0);
        if (!strstr(err.text, cases[i].want))
            fprintf(stderr, "\n'%s' lacks '%s'\n", err.text, cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, cases[i].want));
    }
}

/* ---- helpers ---------------------------------------------------------- */

/* Up to four files per side, loaded, and their comparison. */
typedef struct pair {
    ompb__resultfile base[4], head[4];
    size_t nb, nh;
    ompb__comparison cmp;
} pair;

static void parse_inline(const char *text, ompb__resultfile *rf)
{
    ompb_error err = {0};
    int rc = ompb__resultfile_parse(text, "inline", rf, &err);
    if (rc)
        fprintf(stderr, "\n%s\n", err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static char *render(const pair *p, ompb__report_format fmt)
{
    FILE *out = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(ompb__compare_print(out, &p->cmp, fmt), 0);
    return ompb_test_slurp(out);
}

/* a occurs in text, and before b. */
static void check_order(const char *text, const char *a, const char *b)
{
    const char *pa = strstr(text, a), *pb = strstr(text, b);
    CU_ASSERT_PTR_NOT_NULL(pa);
    CU_ASSERT_PTR_NOT_NULL(pb);
    CU_ASSERT(pa && pb && pa < pb);
}

/* The note of one row of cmp (its options and judged count), as the JSON
 * report gives it. */
static const char *note_in(const ompb__comparison *cmp, const ompb__compare_row *r)
{
    static char text[4096];
    json_t *doc;
    FILE *f = tmpfile();
    ompb__comparison one = {0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    one.opts = cmp->opts;
    one.judged = cmp->judged;
    one.rows = (ompb__compare_row *)r;
    one.n = 1;
    CU_ASSERT_EQUAL(ompb__compare_print(f, &one, OMPB__REPORT_JSON), 0);
    char *json = ompb_test_slurp(f);
    doc = json_loads(json, 0, NULL);
    snprintf(text, sizeof text, "%s",
             json_string_value(json_object_get(json_array_get(json_object_get(doc,
                                                                              "instances"),
                                                              0), "note")));
    json_decref(doc);
    free(json);
    return text;
}

/* The note of one row, as the JSON report gives it. */
static const char *note_of(const ompb__compare_row *r)
{
    static const ompb__comparison none = {0};
    return note_in(&none, r);
}

/* ---- compare ------------------------------------------------------------- */

static void compare_sides(const char *const *base, size_t nb, const char *const *head,
                          size_t nh, const ompb__compare_opts *opts, pair *p)
{
    p->nb = nb;
    p->nh = nh;
    for (size_t i = 0; i < nb; i++)
        load(base[i], &p->base[i]);
    for (size_t i = 0; i < nh; i++)
        load(head[i], &p->head[i]);
    ompb__compare_side b = {p->base, nb}, h = {p->head, nh};
    CU_ASSERT_EQUAL_FATAL(ompb__compare_runs(&b, &h, opts, &p->cmp), 0);
}

static void compare_files(const char *base, const char *head, double threshold, pair *p)
{
    ompb__compare_opts opts = {threshold, OMPB__COMPARE_DEFAULT_ALPHA};
    compare_sides(&base, 1, &head, 1, &opts, p);
}

static void release(pair *p)
{
    ompb__comparison_free(&p->cmp);
    for (size_t i = 0; i < p->nb; i++)
        ompb__resultfile_free(&p->base[i]);
    for (size_t i = 0; i < p->nh; i++)
        ompb__resultfile_free(&p->head[i]);
}

static const ompb__compare_row *row(const ompb__comparison *cmp, const char *name)
{
    for (size_t i = 0; i < cmp->n; i++)
        if (strcmp(cmp->rows[i].name, name) == 0)
            return &cmp->rows[i];
    CU_FAIL("row not found");
    return &cmp->rows[0];
}

static ompb__verdict verdict_of(const char *key)
{
    for (int v = 0; v < OMPB__VERDICT_COUNT; v++)
        if (strcmp(ompb__verdict_key((ompb__verdict)v), key) == 0)
            return (ompb__verdict)v;
    CU_FAIL("unknown verdict key");
    return OMPB__VERDICT_COUNT;
}

/* Every figure of the judged rows against make_data.py's NumPy/SciPy values. */
static void check_expected_rows(const ompb__comparison *cmp, const char *expected)
{
    json_error_t jerr;
    json_t *doc = json_load_file(expected, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const char *name;
    json_t *want;
    json_object_foreach(json_object_get(doc, "rows"), name, want) {
        const ompb__compare_row *r = row(cmp, name);
        static const char *const keys[] = {"base_ns", "head_ns", "change", "ci_low",
                                           "ci_high", "p", "q", "base_spread", "head_spread"};
        const double got[] = {r->base_ns, r->head_ns, r->change, r->ci_low, r->ci_high,
                              r->p, r->q, r->base_spread, r->head_spread};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (json_object_get(want, keys[k]))
                check_close(got[k], num(want, keys[k]), 1e-8, 1e-14);
        if (json_object_get(want, "verdict"))
            CU_ASSERT_EQUAL(r->verdict, verdict_of(json_string_value(json_object_get(want,
                                                                                     "verdict"))));
    }
    json_decref(doc);
}

/* runs_*.json: four processes of two repetitions per side, one instance per
 * verdict (make_data.py); the expected figures come from NumPy/SciPy. */
static void test_runs_every_verdict(void)
{
    pair p;
    compare_files(DATA "runs_base.json", DATA "runs_head.json", 0.05, &p);
    CU_ASSERT_EQUAL(p.cmp.n, 10);
    check_expected_rows(&p.cmp, DATA "runs_expected.json");
    const ompb__compare_row *r = row(&p.cmp, "regressed[t=2]");
    CU_ASSERT_EQUAL(r->basis, OMPB__BASIS_PROCESSES);
    CU_ASSERT_EQUAL(r->base_runs, 4);
    CU_ASSERT_EQUAL(r->head_runs, 4);
    CU_ASSERT_EQUAL(r->base_reps, 8);
    CU_ASSERT_EQUAL(r->runs_needed, 0);
    /* noisy: the interval straddles +5%; more runs would settle it. */
    r = row(&p.cmp, "noisy[t=2]");
    CU_ASSERT(r->runs_needed > 4 && r->runs_needed <= OMPB__COMPARE_MAX_RUNS);
    CU_ASSERT_EQUAL(row(&p.cmp, "broken[t=2]")->verdict, OMPB__VERDICT_FAILED);
    CU_ASSERT_EQUAL(row(&p.cmp, "gone[t=2]")->verdict, OMPB__VERDICT_MISSING);
    CU_ASSERT_EQUAL(row(&p.cmp, "fresh[t=2]")->verdict, OMPB__VERDICT_NEW);
    r = row(&p.cmp, "zero[t=2]");
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_NO_RATIO);
    CU_ASSERT_EQUAL(r->basis, OMPB__BASIS_NONE);
    CU_ASSERT(isnan(r->change) && isnan(r->p));
    const size_t *c = p.cmp.counts;
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_REGRESSED], 2);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_IMPROVED], 1);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_NOISY], 1);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_UNTOUCHED], 2);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_NO_RATIO], 1);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_UNKNOWN], 0);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_FAILED], 1);
    CU_ASSERT_EQUAL(p.cmp.judged, 6);
    CU_ASSERT_EQUAL(p.cmp.in_process, 0);
    CU_ASSERT_EQUAL(p.cmp.geomean_excluded, 1);
    CU_ASSERT_EQUAL(p.cmp.env_diffs.n, 0);
    release(&p);
}

/* Two files holding processes 0-1 and 2-3 pool to exactly one file's runs. */
static void test_pooled_files(void)
{
    static const char *const halves[] = {DATA "runs_base_a.json", DATA "runs_base_b.json"};
    static const char *const head[] = {DATA "runs_head.json"};
    ompb__compare_opts opts = {0.05, 0.05};
    pair whole, pooled;
    compare_files(DATA "runs_base.json", DATA "runs_head.json", 0.05, &whole);
    compare_sides(halves, 2, head, 1, &opts, &pooled);
    CU_ASSERT_EQUAL_FATAL(pooled.cmp.n, whole.cmp.n);
    for (size_t i = 0; i < whole.cmp.n; i++) {
        const ompb__compare_row *a = &whole.cmp.rows[i], *b = row(&pooled.cmp, a->name);
        CU_ASSERT_EQUAL(a->verdict, b->verdict);
        CU_ASSERT_EQUAL(a->base_runs, b->base_runs);
        CU_ASSERT_EQUAL(a->base_reps, b->base_reps);
        if (!isnan(a->ci_low)) {
            check_close(b->change, a->change, 1e-12, 1e-15);
            check_close(b->ci_low, a->ci_low, 1e-12, 1e-15);
            check_close(b->q, a->q, 1e-12, 1e-300);
        }
    }
    /* The halves differ only in date, which is not the environment. */
    CU_ASSERT_EQUAL(pooled.cmp.env_diffs.n, 0);
    release(&whole);
    release(&pooled);
}

/* Files that cannot be pooled: the same file twice, a copy of it, a run of
 * another binary. */
static void test_check_side(void)
{
    ompb__resultfile f[3];
    ompb_error err = {0};
    char copy[] = "/tmp/ompb-copy.XXXXXX";
    int fd = mkstemp(copy);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *src = fopen(DATA "runs_base.json", "r"), *dst = fdopen(fd, "w");
    CU_ASSERT_FATAL(src && dst);
    for (int ch; (ch = fgetc(src)) != EOF;)
        fputc(ch, dst);
    fclose(src);
    fclose(dst);
    load(DATA "runs_base.json", &f[0]);
    load(DATA "runs_base.json", &f[1]);
    ompb__compare_side side = {f, 2};
    CU_ASSERT_EQUAL(ompb__compare_check_side(&side, "BASE", &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "runs_base.json: the same results as"));
    ompb__resultfile_free(&f[1]);
    load(copy, &f[1]);
    CU_ASSERT_EQUAL(ompb__compare_check_side(&side, "BASE", &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "given twice for BASE"));
    ompb__resultfile_free(&f[1]);
    load(DATA "runs_other_binary.json", &f[1]);
    CU_ASSERT_EQUAL(ompb__compare_check_side(&side, "HEAD", &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "runs_other_binary.json: from a different binary "
                                            "than"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "(build ID ffffffff"));
    ompb__resultfile_free(&f[1]);
    load(DATA "runs_base_a.json", &f[1]);
    load(DATA "runs_base_b.json", &f[2]);
    side.n = 3;
    CU_ASSERT_EQUAL(ompb__compare_check_side(&side, "BASE", &err), 0);
    for (int i = 0; i < 3; i++)
        ompb__resultfile_free(&f[i]);
    /* Another executable. */
    parse_inline("{\"context\": {\"executable\": \"build/benches/a\"}, \"benchmarks\": [{\"name\":"
                 " \"x\", \"real_time\": 1, \"time_unit\": \"ns\"}]}", &f[0]);
    parse_inline("{\"context\": {\"executable\": \"/ci/build/benches/b\"}, \"benchmarks\": "
                 "[{\"name\": \"x\", \"real_time\": 1, \"time_unit\": \"ns\"}]}", &f[1]);
    free(f[1].path);
    f[1].path = strdup("other.json"); /* both were "inline" */
    side.n = 2;
    CU_ASSERT_EQUAL(ompb__compare_check_side(&side, "BASE", &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "(executable \"b\" vs \"a\")"));
    ompb__resultfile_free(&f[0]);
    ompb__resultfile_free(&f[1]);
    unlink(copy);
}

/* One run per side (today's single files): nothing is claimed, every change
 * is "noise unknown", whatever its size. */
static void test_single_runs(void)
{
    pair p;
    compare_files(DATA "base.json", DATA "head.json", 0.05, &p);
    CU_ASSERT_EQUAL(p.cmp.n, 10);
    CU_ASSERT_EQUAL(p.cmp.judged, 0);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_UNKNOWN], 7);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_REGRESSED], 0);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_IMPROVED], 0);
    const ompb__compare_row *r = row(&p.cmp, "improved[t=2]");
    CU_ASSERT_EQUAL(r->basis, OMPB__BASIS_SINGLE);
    CU_ASSERT_DOUBLE_EQUAL(r->base_ns, 1000.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r->head_ns, 800.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r->change, -0.2, 1e-12);
    CU_ASSERT(isnan(r->p) && isnan(r->ci_low) && isnan(r->base_spread));
    /* numpy: exp(mean(log(head / base))) - 1 over the seven matched pairs. */
    CU_ASSERT_DOUBLE_EQUAL(p.cmp.geomean_change, 0.04781408467964776, 1e-12);
    release(&p);
}

/* A file against itself: no change anywhere; still "noisy" where the
 * spread between runs is too large to exclude a 5% change. */
static void test_identical_runs(void)
{
    pair p;
    compare_files(DATA "runs_base.json", DATA "runs_base.json", 0.05, &p);
    CU_ASSERT_EQUAL(p.cmp.n, 9);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_UNTOUCHED], 7);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_NO_RATIO], 1); /* 0 against 0 */
    CU_ASSERT_EQUAL(row(&p.cmp, "noisy[t=2]")->verdict, OMPB__VERDICT_NOISY);
    for (size_t i = 0; i < p.cmp.n; i++)
        CU_ASSERT(p.cmp.rows[i].change == 0.0 || isnan(p.cmp.rows[i].change));
    CU_ASSERT_EQUAL(p.cmp.geomean_change, 0.0);
    release(&p);
}

/* exact5 changes by exactly 5% (105 / 100), above5 by 5.1%, both without
 * any spread: a change counts only when it exceeds the threshold. */
static void test_threshold_edge(void)
{
    static const struct { double threshold; ompb__verdict edge, above; } cases[] = {
        {0.05, OMPB__VERDICT_UNTOUCHED, OMPB__VERDICT_REGRESSED},
        {0.0499, OMPB__VERDICT_REGRESSED, OMPB__VERDICT_REGRESSED},
        {0.052, OMPB__VERDICT_UNTOUCHED, OMPB__VERDICT_UNTOUCHED},
        {0.0, OMPB__VERDICT_REGRESSED, OMPB__VERDICT_REGRESSED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pair p;
        compare_files(DATA "runs_base.json", DATA "runs_head.json", cases[i].threshold, &p);
        CU_ASSERT_EQUAL(row(&p.cmp, "exact5[t=2]")->verdict, cases[i].edge);
        CU_ASSERT_EQUAL(row(&p.cmp, "above5[t=2]")->verdict, cases[i].above);
        release(&p);
    }
}

/* alpha is the interval's 1 - confidence and the FDR level: at 1e-6 the
 * 20% regression (q = 1.2e-5) is no longer claimed and its wider interval
 * reaches below +5%. */
static void test_alpha(void)
{
    static const char *const b = DATA "runs_base.json", *const h = DATA "runs_head.json";
    ompb__compare_opts strict = {0.05, 1e-6}, loose = {0.05, 0.5};
    pair p, q;
    compare_sides(&b, 1, &h, 1, &strict, &p);
    compare_sides(&b, 1, &h, 1, &loose, &q);
    const ompb__compare_row *r = row(&p.cmp, "regressed[t=2]");
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_NOISY);
    CU_ASSERT(r->ci_low < 0.05);
    CU_ASSERT(row(&q.cmp, "regressed[t=2]")->ci_low > row(&p.cmp, "regressed[t=2]")->ci_low);
    CU_ASSERT_EQUAL(row(&q.cmp, "regressed[t=2]")->verdict, OMPB__VERDICT_REGRESSED);
    release(&p);
    release(&q);
}

/* ---- inline runs ------------------------------------------------------------ */

/* An ompbench instance measured in `procs` processes of one repetition each:
 * process k's one round (sample_size 1) takes values[k] ns. */
static json_t *runs_of(const char *name, const double *values, size_t procs)
{
    json_t *list = json_array();
    for (size_t k = 0; k < procs; k++)
        json_array_append_new(list, json_pack("{s:s, s:s, s:f, s:s, s:I, s:I, s:i, s:{s:i, s:I, s:i, "
                                              "s:{s:[I]}}}", "name", name, "run_type", "iteration",
                                              "real_time", values[k], "time_unit", "ns", "repetitions",
                                              (json_int_t)procs, "repetition_index", (json_int_t)k,
                                              "threads", 2, "ompbench", "threads", 2, "process",
                                              (json_int_t)k, "sample_size", 1, "samples",
                                              "makespan_ns", (json_int_t)values[k]));
    return list;
}

static json_t *failed(const char *name)
{
    return json_pack("{s:s, s:s, s:b, s:s, s:i}", "name", name, "run_type", "iteration",
                     "error_occurred", 1, "error_message", "boom", "threads", 2);
}

/* Parses {"benchmarks": entries} (entries is stolen). */
static void parse_entries(json_t *entries, ompb__resultfile *rf)
{
    json_t *root = json_pack("{s:o}", "benchmarks", entries);
    char *text = json_dumps(root, JSON_COMPACT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    parse_inline(text, rf);
    free(text);
    json_decref(root);
}

static void compare_entries(json_t *base, json_t *head, pair *p)
{
    ompb__compare_opts opts = {OMPB__COMPARE_DEFAULT_THRESHOLD, OMPB__COMPARE_DEFAULT_ALPHA};
    ompb__compare_side b = {p->base, 1}, h = {p->head, 1};
    p->nb = p->nh = 1;
    parse_entries(base, &p->base[0]);
    parse_entries(head, &p->head[0]);
    CU_ASSERT_EQUAL_FATAL(ompb__compare_runs(&b, &h, &opts, &p->cmp), 0);
}

/* An accounted instance in `procs` processes of 7 rounds each: process k's
 * clean rounds take clean[k] ns, its disturbed rounds (the first
 * `disturbed` of the seven) 3 x clean[k] + k ns, so that its all-round
 * median is a disturbed round's once four are disturbed. */
static json_t *accounted_runs(const char *name, const double *clean, size_t procs,
                              int disturbed)
{
    json_t *list = json_array();
    for (size_t k = 0; k < procs; k++) {
        json_t *mk = json_array(), *flags = json_array();
        for (int r = 0; r < 7; r++) {
            bool ok = r >= disturbed;
            json_array_append_new(mk, json_integer((json_int_t)(ok ? clean[k]
                                                                   : 3 * clean[k] + (double)k)));
            json_array_append_new(flags, json_boolean(ok));
        }
        json_array_append_new(list, json_pack("{s:s, s:s, s:f, s:s, s:I, s:I, s:i, s:{s:i, s:I, "
                                              "s:i, s:{s:o, s:o}}}", "name", name, "run_type",
                                              "iteration", "real_time", clean[k], "time_unit",
                                              "ns", "repetitions", (json_int_t)procs,
                                              "repetition_index", (json_int_t)k, "threads", 2,
                                              "ompbench", "threads", 2, "process", (json_int_t)k,
                                              "sample_size", 1, "samples", "makespan_ns", mk,
                                              "clean", flags));
    }
    return list;
}

/* Both sides accounted: a run's value is its clean rounds' median (HEAD's
 * disturbed rounds, three times slower and the majority, would make it 3x
 * BASE on all rounds); with fewer than three clean rounds in every run of
 * a side, the pair is disturbed (undecided) and says how much of each
 * side's rounds were clean. */
static void test_clean_rounds_decide(void)
{
    static const double v[] = {1000, 1002, 998, 1001, 999};
    pair p;
    compare_entries(accounted_runs("x", v, 5, 0), accounted_runs("x", v, 5, 4), &p);
    const ompb__compare_row *x = row(&p.cmp, "x");
    CU_ASSERT_EQUAL(x->verdict, OMPB__VERDICT_UNTOUCHED);
    CU_ASSERT_TRUE(x->accounted);
    CU_ASSERT_EQUAL(x->base_clean_runs, 5);
    CU_ASSERT_EQUAL(x->head_clean_runs, 5);
    CU_ASSERT_DOUBLE_EQUAL(x->head_clean_share, 3.0 / 7.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x->change, 0.0, 0.01);
    CU_ASSERT_PTR_NOT_NULL(strstr(note_in(&p.cmp, x), "clean rounds 100%/43%"));
    char *text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 instance(s) were decided on clean rounds only"));
    free(text);
    release(&p);

    compare_entries(accounted_runs("x", v, 5, 0), accounted_runs("x", v, 5, 5), &p);
    x = row(&p.cmp, "x");
    CU_ASSERT_EQUAL(x->verdict, OMPB__VERDICT_DISTURBED);
    CU_ASSERT_EQUAL(x->head_clean_runs, 0);
    CU_ASSERT_TRUE(ompb__verdict_is(x->verdict, OMPB__VERDICT_UNDECIDED));
    CU_ASSERT_FALSE(ompb__verdict_is(x->verdict, OMPB__VERDICT_GATES));
    CU_ASSERT_PTR_NOT_NULL(strstr(note_in(&p.cmp, x), "undecided: the team had its CPUs in "
                                                      "100% of BASE's rounds and 29% of HEAD's"));
    text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 disturbed"));
    free(text);
    release(&p);

    /* Files without the flags: all rounds, as before (3x: regressed). */
    compare_entries(runs_of("x", v, 5), accounted_runs("x", v, 5, 4), &p);
    x = row(&p.cmp, "x");
    CU_ASSERT_FALSE(x->accounted);
    CU_ASSERT_EQUAL(x->verdict, OMPB__VERDICT_REGRESSED);
    release(&p);
}

/* A flag that is not a boolean, or a count that does not match the rounds,
 * is a malformed file. */
static void test_clean_flags_malformed(void)
{
    static const char *const texts[] = {
        "{\"benchmarks\": [{\"name\": \"x\", \"run_type\": \"iteration\", \"real_time\": 1, "
        "\"time_unit\": \"ns\", \"ompbench\": {\"sample_size\": 1, \"samples\": "
        "{\"makespan_ns\": [1, 2], \"clean\": [true]}}}]}",
        "{\"benchmarks\": [{\"name\": \"x\", \"run_type\": \"iteration\", \"real_time\": 1, "
        "\"time_unit\": \"ns\", \"ompbench\": {\"sample_size\": 1, \"samples\": "
        "{\"makespan_ns\": [1, 2], \"clean\": [true, 1]}}}]}",
    };
    for (size_t i = 0; i < 2; i++) {
        ompb__resultfile rf;
        ompb_error err = {0};
        CU_ASSERT_EQUAL(ompb__resultfile_parse(texts[i], "c.json", &rf, &err), OMPB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "clean"));
    }
}

/* Appends every entry of `more` (stolen) to `list`; returns list. */
static json_t *concat(json_t *list, json_t *more)
{
    json_array_extend(list, more);
    json_decref(more);
    return list;
}

/* One instance with moderate evidence (alone: regressed) among many
 * untouched ones: Benjamini-Hochberg over the family makes it noisy. */
static void test_bh_family(void)
{
    const double b[] = {100, 103, 98, 101, 99}, h[] = {110, 115, 108, 113, 111};
    const double flat[] = {100, 100.5, 99.5, 100, 100};
    pair alone, crowd;
    compare_entries(runs_of("x", b, 5), runs_of("x", h, 5), &alone);
    const ompb__compare_row *r = row(&alone.cmp, "x");
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT_EQUAL(r->q, r->p);
    CU_ASSERT(r->p > 0.05 / 40 && r->p < 0.05);
    json_t *base = runs_of("x", b, 5), *head = runs_of("x", h, 5);
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "flat%d", i);
        base = concat(base, runs_of(name, flat, 5));
        head = concat(head, runs_of(name, flat, 5));
    }
    compare_entries(base, head, &crowd);
    const ompb__compare_row *c = row(&crowd.cmp, "x");
    CU_ASSERT_EQUAL(crowd.cmp.judged, 41);
    CU_ASSERT_DOUBLE_EQUAL(c->p, r->p, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(c->q, fmin(1.0, r->p * 41), 1e-12);
    CU_ASSERT_EQUAL(c->verdict, OMPB__VERDICT_NOISY);
    CU_ASSERT_EQUAL(crowd.cmp.counts[OMPB__VERDICT_UNTOUCHED], 40);
    /* Its printed interval lies beyond +5%: the note says Benjamini-Hochberg
     * held it back and shows the interval the decision used, which reaches
     * the threshold at the level 1 - alpha p / q. */
    CU_ASSERT(c->ci_low > 0.05);
    CU_ASSERT_DOUBLE_EQUAL(c->bh_level, 1.0 - 0.05 * c->p / c->q, 1e-12);
    CU_ASSERT(c->bh_low <= 0.05 && c->bh_low < c->ci_low && c->bh_high > c->ci_high);
    char want[160], lo[32], hi[32];
    snprintf(want, sizeof want, "the decision used the %.1f%% interval, %s..%s, which does not",
             100.0 * c->bh_level, ompb__format_change(lo, sizeof lo, c->bh_low),
             ompb__format_change(hi, sizeof hi, c->bh_high));
    const char *note = note_in(&crowd.cmp, c);
    CU_ASSERT_PTR_NOT_NULL(strstr(note, "the 95% interval clears the threshold, but "
                                        "Benjamini-Hochberg over the 41 judged instances held "
                                        "it back (q="));
    CU_ASSERT_PTR_NOT_NULL(strstr(note, want));
    CU_ASSERT_PTR_NULL(strstr(note, "runs per side"));
    char *text = render(&crowd, OMPB__REPORT_JSON);
    json_t *doc = json_loads(text, 0, NULL), *used = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    size_t i;
    json_t *inst;
    json_array_foreach(json_object_get(doc, "instances"), i, inst)
        if (strcmp(json_string_value(json_object_get(inst, "name")), "x") == 0)
            used = json_object_get(inst, "decision_interval");
        else
            CU_ASSERT_TRUE(json_is_null(json_object_get(inst, "decision_interval")));
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(used, "level")), c->bh_level, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(used, "low_pct")), 100 * c->bh_low,
                           1e-6);
    json_decref(doc);
    free(text);
    release(&alone);
    release(&crowd);
}

/* "~N runs per side would decide" never names a count the comparison
 * already had: ten tight BASE runs against three loose HEAD ones straddling
 * +5% make the balanced-sides estimate come out below ten. */
static void test_runs_needed_beyond_had(void)
{
    const double b[] = {1000, 1001, 999, 1000, 1002, 998, 1000, 1001, 999, 1000};
    const double h[] = {1080, 1110, 1140};
    pair p;
    compare_entries(runs_of("lopsided", b, 10), runs_of("lopsided", h, 3), &p);
    const ompb__compare_row *r = &p.cmp.rows[0];
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_NOISY);
    CU_ASSERT(r->ci_low < 0.05 && r->ci_high > 0.05);
    CU_ASSERT(r->runs_needed > 10);
    CU_ASSERT(isnan(r->bh_level));
    unsigned long n = 0;
    const char *at = strstr(note_of(r), ": ~");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    CU_ASSERT_EQUAL(sscanf(at, ": ~%lu runs per side would decide", &n), 1);
    CU_ASSERT(n > 10);
    release(&p);
}

/* marks_*.json: "ompbench.marks" per repetition. A marked side is named
 * in the row of every format, with a legend of the marks that appear; the
 * verdict stands (it still gates --fail-on-regression); an unknown code is
 * "other"; entries without marks carry none. */
static void test_marks(void)
{
    pair p;
    compare_files(DATA "marks_base.json", DATA "marks_head.json", 0.05, &p);
    const ompb__compare_row *r = row(&p.cmp, "crowded[t=4]");
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT_EQUAL(r->base_marks, 0);
    CU_ASSERT_EQUAL(r->head_marks, OMPB__MARK_OVERSUB | OMPB__MARK_CPU_SHARE);
    CU_ASSERT_EQUAL(r->head_marked, 3);
    r = row(&p.cmp, "short[t=2]");
    CU_ASSERT_EQUAL(r->base_marks, OMPB__MARK_FEW_ROUNDS);
    CU_ASSERT_EQUAL(r->base_marked, 1);
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_UNTOUCHED);
    CU_ASSERT_EQUAL(row(&p.cmp, "future[t=2]")->head_marks, OMPB__MARK_OTHER);
    r = row(&p.cmp, "clean[t=2]");
    CU_ASSERT_EQUAL(r->base_marks | r->head_marks, 0);
    CU_ASSERT_EQUAL(p.cmp.marked, 3);
    CU_ASSERT_EQUAL(p.cmp.marked_gating, 1);

    char *text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "; 3 with a marked side; geometric mean change"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "regressed      HEAD marked oversubscribed, cpu_share "
                                        "(3 of 3 repetitions): suspect; q="));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "BASE marked few_rounds (1 of 3 repetitions): suspect; "
                                        "spread"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "HEAD marked other (1 of 3 repetitions): suspect;"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nMarks (a marked side is suspect: its number may not "
                                        "be the code's; the verdict still counts for "
                                        "--fail-on-regression, and some regressed or failed "
                                        "rows have one):\n  oversubscribed: more threads"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  few_rounds: "));
    CU_ASSERT_PTR_NULL(strstr(text, "\n  unoptimized: ")); /* only marks that appear */
    const char *clean = strstr(text, "\nclean[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(clean);
    const char *end = strchr(clean + 1, '\n'), *mark = strstr(clean, "marked");
    CU_ASSERT(end && mark && mark > end); /* the unmarked row says nothing */
    free(text);

    text = render(&p, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| **regressed** | HEAD marked oversubscribed, cpu_share "
                                        "(3 of 3 repetitions): suspect; "));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n> Marks (a marked side is suspect"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n> - `oversubscribed`: more threads"));
    free(text);

    text = render(&p, OMPB__REPORT_JSON);
    json_t *doc = json_loads(text, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *summary = json_object_get(doc, "summary");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "marked")), 3);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "marked_regressed_or_failed")), 1);
    json_t *first = json_array_get(json_object_get(doc, "instances"), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(first, "name")), "crowded[t=4]");
    json_t *hm = json_object_get(first, "head_marks");
    CU_ASSERT_EQUAL(json_array_size(hm), 2);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(hm, 0)), "oversubscribed");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(first, "base_marks")), 0);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(first, "head_marked_repetitions")), 3);
    json_decref(doc);
    free(text);
    release(&p);

    /* Without marks anywhere: no count in the header, no legend. */
    compare_files(DATA "runs_base.json", DATA "runs_head.json", 0.05, &p);
    text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NULL(strstr(text, "marked"));
    CU_ASSERT_PTR_NULL(strstr(text, "Marks ("));
    free(text);
    release(&p);
}

/* "ompbench.marks" that is not an array of strings is refused, naming it. */
static void test_marks_malformed(void)
{
    static const char *const bad[] = {"\"oversubscribed\"", "[1]", "{}", "[\"few_rounds\", null]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        ompb__resultfile rf;
        ompb_error err = {0};
        snprintf(text, sizeof text, "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
                 "\"iteration\", \"real_time\": 5, \"time_unit\": \"ns\", \"ompbench\": "
                 "{\"sample_size\": 1, \"samples\": {\"makespan_ns\": [5]}, \"marks\": %s}}]}",
                 bad[i]);
        CU_ASSERT_EQUAL(ompb__resultfile_parse(text, "m.json", &rf, &err), OMPB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "m.json: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "\"ompbench.marks\" is not an array of mark "
                                                "codes"));
    }
}

/* One of five HEAD runs slowed fourfold by another job: the 20% change
 * still counts (Yuen's trimming), and the disturbed run shows in the
 * spread; the plain Welch test would call it noisy. */
static void test_disturbed_run(void)
{
    const double b[] = {4023, 4055, 4039, 4049, 4041}, h[] = {4846, 4929, 4827, 20778, 4880};
    pair p;
    compare_entries(runs_of("slowed", b, 5), runs_of("slowed", h, 5), &p);
    const ompb__compare_row *r = &p.cmp.rows[0];
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT_EQUAL(r->head_runs, 5);
    CU_ASSERT(r->change > 0.19 && r->change < 0.22);
    CU_ASSERT(r->ci_low > 0.05);
    double lb[5], lh[5];
    for (int i = 0; i < 5; i++) {
        lb[i] = log(b[i]);
        lh[i] = log(h[i]);
    }
    ompb__welch_result plain = ompb__welch(ompb__summarize(lb, 5), ompb__summarize(lh, 5));
    double lo, hi;
    ompb__welch_ci(&plain, 0.05, &lo, &hi);
    CU_ASSERT(lo < log(1.05)); /* untrimmed: the interval reaches below +5% */
    release(&p);
}

/* Runs per side: one process against several is "noise unknown"; two
 * against two is judged. */
static void test_min_runs(void)
{
    const double b[] = {1000, 1010, 990, 1005, 995}, h[] = {1200, 1210, 1190, 1205, 1195};
    static const struct { size_t nb, nh; ompb__verdict v; } cases[] = {
        {1, 5, OMPB__VERDICT_UNKNOWN}, {5, 1, OMPB__VERDICT_UNKNOWN},
        {2, 2, OMPB__VERDICT_REGRESSED}, {5, 5, OMPB__VERDICT_REGRESSED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pair p;
        compare_entries(runs_of("a", b, cases[i].nb), runs_of("a", h, cases[i].nh), &p);
        CU_ASSERT_EQUAL(p.cmp.rows[0].verdict, cases[i].v);
        CU_ASSERT_EQUAL(p.cmp.rows[0].base_runs, cases[i].nb);
        CU_ASSERT_EQUAL(p.cmp.rows[0].head_runs, cases[i].nh);
        release(&p);
    }
}

/* Single Google Benchmark runs are one run each: noise unknown. With
 * --benchmark_repetitions still one process a side: noise unknown, with
 * the repetitions' in-process spread in the note. */
static void test_gbench(void)
{
    pair p;
    compare_files(DATA "gbench_base.json", DATA "gbench_head.json", 0.05, &p);
    for (size_t i = 0; i < p.cmp.n; i++) {
        CU_ASSERT_EQUAL(p.cmp.rows[i].basis, OMPB__BASIS_SINGLE);
        CU_ASSERT_EQUAL(p.cmp.rows[i].verdict, OMPB__VERDICT_UNKNOWN);
    }
    CU_ASSERT_DOUBLE_EQUAL(row(&p.cmp, "BM_sort/1024")->change, -0.2, 1e-12);
    release(&p);
    compare_files(DATA "gbench_reps_base.json", DATA "gbench_reps_head.json", 0.05, &p);
    const ompb__compare_row *r = &p.cmp.rows[0];
    CU_ASSERT_EQUAL(r->basis, OMPB__BASIS_REPETITIONS);
    CU_ASSERT_EQUAL(r->base_runs, 1);
    CU_ASSERT_EQUAL(r->base_reps, 8);
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_UNKNOWN);
    CU_ASSERT(isnan(r->p) && isnan(r->ci_low));
    CU_ASSERT(r->base_spread > 0.005 && r->base_spread < 0.05);
    CU_ASSERT_EQUAL(p.cmp.in_process, 1);
    CU_ASSERT_EQUAL(p.cmp.judged, 0);
    /* The JSON key says what it counts: not judged, noise unknown. */
    char *text = render(&p, OMPB__REPORT_JSON);
    json_t *doc = json_loads(text, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *summary = json_object_get(doc, "summary");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "noise_unknown_in_process")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "judged")), 0);
    CU_ASSERT_PTR_NULL(json_object_get(summary, "judged_in_process"));
    json_decref(doc);
    free(text);
    CU_ASSERT_STRING_EQUAL(note_of(r), "1 vs 1 runs: their 8 vs 8 repetitions spread 1.3%/1.7% "
                                       "within a process, not between processes; needs 2+ runs "
                                       "per side (e.g. " OMPB__COMPARE_RECOMMENDED ")");
    release(&p);
    /* Two such files per side are two runs a side: judged. */
    static const char *const b2[] = {DATA "gbench_reps_base.json", DATA "gbench_base.json"};
    static const char *const h2[] = {DATA "gbench_reps_head.json", DATA "gbench_head.json"};
    ompb__compare_opts opts = {0.05, 0.05};
    compare_sides(b2, 2, h2, 2, &opts, &p);
    r = row(&p.cmp, "BM_sort/1024");
    CU_ASSERT_EQUAL(r->basis, OMPB__BASIS_PROCESSES);
    CU_ASSERT_EQUAL(r->base_runs, 2);
    CU_ASSERT_EQUAL(r->base_reps, 9);
    release(&p);
}

/* --benchmark_report_aggregates_only: each run's median (else mean) is its
 * value; its mean and stddev over the repetitions give its in-process
 * spread; one process a side is noise unknown. */
static void test_gbench_aggregates_only(void)
{
    pair p;
    compare_files(DATA "gbench_agg_base.json", DATA "gbench_agg_head.json", 0.05, &p);
    CU_ASSERT_EQUAL_FATAL(p.base[0].n, 2);
    const ompb__rf_instance *sort = ompb__resultfile_find(&p.base[0], "BM_sort/1024");
    const ompb__rf_instance *copy = ompb__resultfile_find(&p.base[0], "BM_copy/64");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sort);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    CU_ASSERT_EQUAL(sort->value_ns, 10000.0);
    CU_ASSERT_STRING_EQUAL(sort->aggregate, "median");
    CU_ASSERT_EQUAL(sort->agg_mean_ns, 10200.0);
    CU_ASSERT_EQUAL(sort->agg_stddev_ns, 300.0);
    CU_ASSERT_EQUAL(sort->repetitions, 5);
    CU_ASSERT_EQUAL(sort->threads, 1);
    CU_ASSERT_EQUAL(copy->value_ns, 2000.0);
    CU_ASSERT_STRING_EQUAL(copy->aggregate, "mean");
    check_expected_rows(&p.cmp, DATA "gbench_agg_expected.json");
    CU_ASSERT_EQUAL(row(&p.cmp, "BM_sort/1024")->basis, OMPB__BASIS_AGGREGATES);
    CU_ASSERT_EQUAL(row(&p.cmp, "BM_copy/64")->base_reps, 5);
    CU_ASSERT_PTR_NOT_NULL(strstr(note_of(row(&p.cmp, "BM_copy/64")),
                                  "5 vs 5 repetitions (from aggregates) spread 5.0%/4.0%"));
    release(&p);
    /* Our files carry aggregates too: the iteration entries stand. */
    ompb__resultfile rf;
    load(DATA "runs_base.json", &rf);
    CU_ASSERT_EQUAL(rf.n, 9);
    CU_ASSERT_PTR_NULL(rf.inst[0].aggregate);
    CU_ASSERT_EQUAL(rf.inst[0].n_reps, 8);
    ompb__resultfile_free(&rf);
}

/* Our file of five processes against a Google Benchmark one of two
 * repetitions: one run on the HEAD side, so noise unknown. */
static void test_mixed_formats(void)
{
    const double v[] = {100, 101, 99, 100, 102};
    pair p;
    compare_entries(runs_of("a", v, 5),
                    json_pack("[{s:s, s:f, s:s, s:I, s:I}, {s:s, s:f, s:s, s:I, s:I}]",
                              "name", "a", "real_time", 0.12, "time_unit", "us", "repetitions",
                              (json_int_t)2, "repetition_index", (json_int_t)0, "name", "a",
                              "real_time", 0.121, "time_unit", "us", "repetitions",
                              (json_int_t)2, "repetition_index", (json_int_t)1),
                    &p);
    CU_ASSERT_EQUAL(p.cmp.rows[0].basis, OMPB__BASIS_REPETITIONS);
    CU_ASSERT_EQUAL(p.cmp.rows[0].base_runs, 5);
    CU_ASSERT_EQUAL(p.cmp.rows[0].head_runs, 1);
    CU_ASSERT_EQUAL(p.cmp.rows[0].head_reps, 2);
    CU_ASSERT_EQUAL(p.cmp.rows[0].verdict, OMPB__VERDICT_UNKNOWN);
    release(&p);
}

/* Presence: failed in HEAD (after success, after failure, or only there) is
 * "failed"; failed in BASE only is "new" (fixed) or "missing" (gone). */
static void test_failed_verdicts(void)
{
    const double v[] = {100, 101, 99};
    pair p;
    json_t *base = runs_of("broke", v, 3), *head = json_pack("[o, o]", failed("broke"),
                                                            failed("both"));
    json_array_append_new(base, failed("both"));
    json_array_append_new(base, failed("fixed"));
    json_array_append_new(base, failed("gone"));
    head = concat(head, runs_of("fixed", v, 3));
    json_array_append_new(head, failed("only_head"));
    compare_entries(base, head, &p);
    CU_ASSERT_EQUAL(row(&p.cmp, "broke")->verdict, OMPB__VERDICT_FAILED);
    CU_ASSERT_EQUAL(row(&p.cmp, "both")->verdict, OMPB__VERDICT_FAILED);
    CU_ASSERT_EQUAL(row(&p.cmp, "only_head")->verdict, OMPB__VERDICT_FAILED);
    CU_ASSERT_EQUAL(row(&p.cmp, "fixed")->verdict, OMPB__VERDICT_NEW);
    CU_ASSERT_EQUAL(row(&p.cmp, "gone")->verdict, OMPB__VERDICT_MISSING);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_FAILED], 3);
    CU_ASSERT_EQUAL(p.cmp.judged, 0);
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "broke")), "failed in HEAD: boom");
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "both")), "failed in BASE and HEAD: boom");
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "only_head")),
                           "failed in HEAD (not in BASE): boom");
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "fixed")), "failed in BASE: boom");
    char *text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "not judged: 0 noise unknown, 1 new, 1 missing, "
                                        "3 failed;"));
    free(text);
    text = render(&p, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 missing, **3 failed**;"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| `broke` | 100.0 ns | - | - | - | - | **failed** | "
                                        "failed in HEAD: boom |"));
    free(text);
    text = render(&p, OMPB__REPORT_JSON);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"failed\": 3"));
    free(text);
    release(&p);
}

/* A time of 0 has no ratio: no verdict beyond presence, and the pair stays
 * out of the geometric mean, which says so. */
static void test_zero_time(void)
{
    const double zero[] = {0, 0, 0}, b[] = {1000, 1001, 999}, h[] = {1200, 1201, 1199};
    const double fifty[] = {50, 51, 49};
    pair p;
    compare_entries(concat(runs_of("zero", zero, 3), runs_of("b", b, 3)),
                    concat(runs_of("zero", fifty, 3), runs_of("b", h, 3)), &p);
    const ompb__compare_row *z = row(&p.cmp, "zero");
    CU_ASSERT_EQUAL(z->verdict, OMPB__VERDICT_NO_RATIO);
    CU_ASSERT_EQUAL(z->basis, OMPB__BASIS_NONE);
    CU_ASSERT_TRUE(isnan(z->change));
    CU_ASSERT_TRUE(isnan(z->p));
    CU_ASSERT_EQUAL(z->base_ns, 0.0);
    CU_ASSERT_STRING_EQUAL(note_of(z), "a time of 0 in BASE: no ratio to judge");
    CU_ASSERT_EQUAL(p.cmp.judged, 1);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_UNTOUCHED], 0);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_NO_RATIO], 1);
    CU_ASSERT_EQUAL(p.cmp.geomean_excluded, 1);
    CU_ASSERT_DOUBLE_EQUAL(p.cmp.geomean_change, 0.2, 1e-3);
    char *text = render(&p, OMPB__REPORT_CONSOLE);
    /* Counted as not judged in the header, and the gate's blind spot said. */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "Judged 1 of 2 instances: 1 regressed, 0 improved, 0 "
                                        "untouched, 0 noisy; not judged: 0 noise unknown, 0 new, "
                                        "0 missing, 0 failed, 1 no ratio (a time of 0);"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 instance(s) have a time of 0 on a side: no ratio "
                                        "exists, so they are not judged, and "
                                        "--fail-on-regression does not fail on them.\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "  no ratio       a time of 0 in BASE"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "(1 pair with a time of 0 left out)\n"));
    CU_ASSERT_PTR_NULL(strstr(text, "inf"));
    free(text);
    text = render(&p, OMPB__REPORT_JSON);
    json_t *doc = json_loads(text, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *first = json_array_get(json_object_get(doc, "instances"), 0);
    CU_ASSERT_TRUE(json_is_null(json_object_get(first, "change_pct")));
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(doc, "summary"),
                                                       "geomean_excluded")), 1);
    json_decref(doc);
    free(text);
    release(&p);
}

/* The contexts differ in host, CPU, OpenMP runtime and OMP_ variables; the
 * "environment" object lists every variable, so one set on one side only is
 * reported as unset on the other. */
static void test_different_environments(void)
{
    static const char *const want[] = {
        "host_name: \"node01\" vs \"node02\"",
        "ompbench.cpu_model: \"Example CPU 3000\" vs \"Other CPU 2000\"",
        "ompbench.openmp.vendor: \"GNU libgomp\" vs \"LLVM libomp\"",
        ("ompbench.openmp.library: \"/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0\" vs "
         "\"/usr/lib/x86_64-linux-gnu/libomp.so.5\""),
        "ompbench.openmp.proc_bind: \"close\" vs \"spread\"",
        "ompbench.environment.OMP_PROC_BIND: \"close\" vs \"spread\"",
        "ompbench.environment.OMP_PLACES: \"cores\" vs (unset)",
        "ompbench.environment.OMP_WAIT_POLICY: (unset) vs \"passive\"",
    };
    const size_t n = sizeof want / sizeof want[0];
    pair p;
    compare_files(DATA "base.json", DATA "base_other_env.json", 0.05, &p);
    CU_ASSERT_EQUAL_FATAL(p.cmp.env_diffs.n, n);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_STRING_EQUAL(p.cmp.env_diffs.v[i], want[i]);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_UNKNOWN], 9);
    release(&p);
}

/* A field only one side has is unknown, not a difference; dates, loads and
 * versions are not the environment; thread-count sets are. */
static void test_environment_rules(void)
{
    ompb__resultfile a, b;
    parse_inline("{\"context\": {\"host_name\": \"n1\", \"date\": \"mon\", \"load_avg\": [1],"
                 " \"ompbench\": {\"version\": \"0.1.0\", \"openmp\": {\"runtime\": "
                 "\"libgomp\"}}}, \"benchmarks\": [{\"name\": \"x[t=1]\", \"threads\": 1, "
                 "\"real_time\": 1, \"time_unit\": \"ns\"}, {\"name\": \"x[t=2]\", "
                 "\"threads\": 2, \"real_time\": 1, \"time_unit\": \"ns\"}]}",
                 &a);
    parse_inline("{\"context\": {\"date\": \"tue\", \"load_avg\": [9], \"ompbench\": {"
                 "\"version\": \"0.2.0\", \"env\": {\"OMP_PROC_BIND\": \"true\"}}}, "
                 "\"benchmarks\": [{\"name\": \"x[t=1]\", \"threads\": 1, \"real_time\": 1,"
                 " \"time_unit\": \"ns\"}, {\"name\": \"x[t=4]\", \"threads\": 4, "
                 "\"real_time\": 1, \"time_unit\": \"ns\"}]}",
                 &b);
    /* HEAD adds x[t=4] and drops x[t=2]: new and missing benchmarks, not an
     * environment difference. */
    ompb__lines diffs = {0};
    CU_ASSERT_EQUAL(ompb__compare_environments(&a, &b, &diffs), 0);
    CU_ASSERT_EQUAL(diffs.n, 0);
    CU_ASSERT_EQUAL(ompb__compare_environments(&a, &a, &diffs), 0);
    CU_ASSERT_EQUAL(diffs.n, 0);
    free(diffs.v);
    ompb__resultfile_free(&a);
    ompb__resultfile_free(&b);
}

/* One name at two thread counts: a benchmark without a thread part, run at
 * the default team size under different OMP_NUM_THREADS. */
static void test_environment_thread_counts(void)
{
    static const char *const fmt =
        "{\"benchmarks\": [{\"name\": \"fib[20]\", \"threads\": %d, \"real_time\": 1, "
        "\"time_unit\": \"ns\"}, {\"name\": \"sum\", \"threads\": %d, "
        "\"real_time\": 1, \"time_unit\": \"ns\"}, {\"name\": \"x[t=2]\", "
        "\"threads\": 2, \"real_time\": 1, \"time_unit\": \"ns\"}]}";
    char text[512];
    ompb__resultfile a, b, c;
    snprintf(text, sizeof text, fmt, 2, 2);
    parse_inline(text, &a);
    snprintf(text, sizeof text, fmt, 4, 2);
    parse_inline(text, &b);
    snprintf(text, sizeof text, fmt, 4, 8);
    parse_inline(text, &c);
    ompb__lines diffs = {0};
    CU_ASSERT_EQUAL(ompb__compare_environments(&a, &b, &diffs), 0);
    CU_ASSERT_EQUAL_FATAL(diffs.n, 1);
    CU_ASSERT_STRING_EQUAL(diffs.v[0], "thread counts: fib[20]: 2 vs 4");
    CU_ASSERT_EQUAL(ompb__compare_environments(&a, &c, &diffs), 0);
    CU_ASSERT_EQUAL_FATAL(diffs.n, 2);
    CU_ASSERT_STRING_EQUAL(diffs.v[1], "thread counts: fib[20]: 2 vs 4 (and 1 more)");
    for (size_t i = 0; i < diffs.n; i++)
        free(diffs.v[i]);
    free(diffs.v);
    ompb__resultfile_free(&a);
    ompb__resultfile_free(&b);
    ompb__resultfile_free(&c);
}

/* ---- reports ------------------------------------------------------------- */

static void test_report_console(void)
{
    pair p;
    compare_files(DATA "runs_base.json", DATA "runs_head.json", 0.05, &p);
    char *text = render(&p, OMPB__REPORT_CONSOLE);
    /* What could be judged at all comes first. */
    const char *lead = "Judged 6 of 10 instances: 2 regressed, 1 improved, 2 untouched, 1 "
                       "noisy; not judged: 0 noise unknown, 1 new, 1 missing, 1 failed, 1 "
                       "no ratio (a time of 0); geometric mean change ";
    CU_ASSERT_EQUAL(strncmp(text, lead, strlen(lead)), 0);
    CU_ASSERT_PTR_NULL(strstr(text, "different runtime environments"));
    check_order(text, "\nregressed[t=2] ", "\nabove5[t=2] "); /* +20% before +5.1% */
    check_order(text, "\nabove5[t=2] ", "\nbroken[t=2] ");    /* failures next */
    check_order(text, "\nbroken[t=2] ", "\nimproved[t=2] ");
    check_order(text, "\nimproved[t=2] ", "\nnoisy[t=2] ");
    check_order(text, "\nnoisy[t=2] ", "\nexact5[t=2] ");
    check_order(text, "\nexact5[t=2] ", "\nfresh[t=2] ");
    check_order(text, "\nfresh[t=2] ", "\ngone[t=2] ");
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nregressed[t=2]     1.005 us     1.206 us    +20.00%  "
                                        "+17.36%..+22.70%         4/4  regressed      "
                                        "q<0.0001; spread 1.3%/1.3%\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "failed in HEAD: benchmark left its loop early"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "noisy          spread 13.9%/9.2%: ~141 runs"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "runs per side would decide at this threshold\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "survives Benjamini-Hochberg at 0.05 over the 6 judged"));
    free(text);
    release(&p);

    compare_files(DATA "base.json", DATA "head.json", 0.05, &p);
    text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_EQUAL(strncmp(text, "Judged 0 of 10 instances:", 25), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1/1  noise unknown  1 vs 1 run: run-to-run noise "
                                        "unknown; needs 2+ per side (e.g. 10 runs a side, "
                                        "BASE and HEAD alternating, pooled with "
                                        "--base/--head)\n"));
    /* The advice is the recipe that passed A/A; --processes only for a side
     * that cannot be rerun (sequential sides failed it). */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "7 instance(s) have one run (process) on a side"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "; give each side runs: 10 runs a side, BASE and HEAD "
                                        "alternating, pooled with --base/--head (docs/guide.md, "
                                        "\"Comparing runs in CI\"), or --processes 10 for a side "
                                        "that cannot be rerun.\n"));
    free(text);
    release(&p);

    compare_files(DATA "base.json", DATA "base_other_env.json", 0.05, &p);
    text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "warning: different runtime environments:\n"
                                        "  host_name: \"node01\" vs \"node02\"\n"));
    free(text);
    release(&p);
}

static void test_report_markdown(void)
{
    pair p;
    compare_files(DATA "base.json", DATA "base_other_env.json", 0.05, &p);
    char *text = render(&p, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "> **Warning:** different runtime environments"));
    free(text);
    release(&p);

    compare_files(DATA "runs_base.json", DATA "runs_head.json", 0.05, &p);
    text = render(&p, OMPB__REPORT_MARKDOWN);
    /* The PR comment leads with how much could be judged. */
    CU_ASSERT_EQUAL(strncmp(text, "### ompbench compare\n\n**Judged 6 of 10 instances**: "
                                  "**2 regressed**, 1 improved", 76), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| Benchmark | BASE | HEAD | Change | 95% interval | "
                                        "Runs | Verdict | Note |\n"
                                        "|:--|--:|--:|--:|:--|--:|:--|:--|\n"
                                        "| `regressed[t=2]` | 1.005 us | 1.206 us | "
                                        "**+20.00%** | +17.36%..+22.70% | 4/4 | **regressed** | "
                                        "q<0.0001; spread 1.3%/1.3% |\n"));
    check_order(text, "`above5[t=2]`", "`improved[t=2]`");
    check_order(text, "`improved[t=2]`", "`noisy[t=2]`");
    CU_ASSERT_PTR_NULL(strstr(text, "Warning"));
    free(text);
    release(&p);
}

static void test_report_json(void)
{
    pair p;
    compare_files(DATA "runs_base.json", DATA "runs_head.json", 0.05, &p);
    char *text = render(&p, OMPB__REPORT_JSON);
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *summary = json_object_get(root, "summary");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "instances")), 10);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "judged")), 6);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "regressed")), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "noisy")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "noise_unknown")), 0);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "missing")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "failed")), 1);
    CU_ASSERT_TRUE(json_is_false(json_object_get(json_object_get(root, "environment"),
                                                 "differs")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(root, "base"), 0)),
                           DATA "runs_base.json");
    json_t *rows = json_object_get(root, "instances");
    CU_ASSERT_EQUAL_FATAL(json_array_size(rows), 10);
    json_t *noisy = json_array_get(rows, 3); /* comparison order = BASE order */
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(noisy, "name")), "noisy[t=2]");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(noisy, "verdict")), "noisy");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(noisy, "basis")), "processes");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(noisy, "base_runs")), 4);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(noisy, "base_repetitions")), 8);
    CU_ASSERT(json_integer_value(json_object_get(noisy, "runs_needed")) > 4);
    CU_ASSERT(json_is_number(json_object_get(noisy, "ci_low_pct")));
    CU_ASSERT(json_is_number(json_object_get(noisy, "q_value")));
    json_t *regressed = json_array_get(rows, 0);
    CU_ASSERT_TRUE(json_is_null(json_object_get(regressed, "runs_needed")));
    json_t *broken = json_array_get(rows, 6);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(broken, "verdict")), "failed");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(broken, "note")),
                           "failed in HEAD: benchmark left its loop early");
    CU_ASSERT_TRUE(json_is_null(json_object_get(broken, "head_ns")));
    json_decref(root);
    free(text);
    release(&p);
}

static void test_parse_format(void)
{
    ompb__report_format f;
    CU_ASSERT_EQUAL(ompb__report_parse_format("markdown", &f), 0);
    CU_ASSERT_EQUAL(f, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_EQUAL(ompb__report_parse_format("json", &f), 0);
    CU_ASSERT_EQUAL(f, OMPB__REPORT_JSON);
    CU_ASSERT_EQUAL(ompb__report_parse_format("html", &f), OMPB_EINVAL);
    CU_ASSERT_STRING_EQUAL(ompb__verdict_name(OMPB__VERDICT_UNKNOWN), "noise unknown");
    CU_ASSERT_STRING_EQUAL(ompb__verdict_key(OMPB__VERDICT_UNKNOWN), "noise_unknown");
    CU_ASSERT_STRING_EQUAL(ompb__verdict_key(OMPB__VERDICT_NOISY), "noisy");
}

/* The verdict table: a row per verdict, unique keys, and the flags that
 * decide the gates, the "Judged" group and the summaries' order. */
static void test_verdict_table(void)
{
    static const char *const summary[] = {"regressed", "improved", "untouched", "noisy",
                                          "disturbed", "noise unknown", "new", "missing", "failed",
                                          "no ratio"};
    ompb__verdict order[OMPB__VERDICT_COUNT];
    size_t counts[OMPB__VERDICT_COUNT], n;
    for (int v = 0; v < OMPB__VERDICT_COUNT; v++) {
        const ompb__verdict_row *row = ompb__verdict_info((ompb__verdict)v);
        CU_ASSERT_PTR_NOT_NULL_FATAL(row);
        CU_ASSERT_TRUE(row->name[0] && row->key[0]);
        for (int w = 0; w < v; w++)
            CU_ASSERT_STRING_NOT_EQUAL(ompb__verdict_key((ompb__verdict)w), row->key);
        counts[v] = (size_t)1 << v;
    }
    CU_ASSERT_PTR_NULL(ompb__verdict_info(OMPB__VERDICT_COUNT));
    CU_ASSERT_STRING_EQUAL(ompb__verdict_name(OMPB__VERDICT_COUNT), "?");
    CU_ASSERT_EQUAL(ompb__verdict_count(counts, OMPB__VERDICT_GATES),
                    counts[OMPB__VERDICT_REGRESSED] + counts[OMPB__VERDICT_FAILED]);
    CU_ASSERT_EQUAL(ompb__verdict_count(counts, OMPB__VERDICT_JUDGED),
                    counts[OMPB__VERDICT_REGRESSED] + counts[OMPB__VERDICT_IMPROVED] +
                    counts[OMPB__VERDICT_UNTOUCHED] + counts[OMPB__VERDICT_NOISY] +
                    counts[OMPB__VERDICT_DISTURBED]);
    CU_ASSERT_EQUAL(ompb__verdict_count(counts, OMPB__VERDICT_CHANGE),
                    counts[OMPB__VERDICT_REGRESSED] + counts[OMPB__VERDICT_IMPROVED]);
    CU_ASSERT_EQUAL(ompb__verdict_count(counts, OMPB__VERDICT_UNDECIDED),
                    counts[OMPB__VERDICT_NOISY] + counts[OMPB__VERDICT_UNKNOWN] +
                    counts[OMPB__VERDICT_DISTURBED]);
    CU_ASSERT_TRUE(ompb__verdict_is(OMPB__VERDICT_FAILED, OMPB__VERDICT_EMPHASIS));
    CU_ASSERT_FALSE(ompb__verdict_is(OMPB__VERDICT_FAILED, OMPB__VERDICT_GATES |
                                                           OMPB__VERDICT_CHANGE));
    ompb__verdict_summary_order(order, &n);
    CU_ASSERT_EQUAL_FATAL(n, OMPB__VERDICT_COUNT);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_STRING_EQUAL(ompb__verdict_name(order[i]), summary[i]);
}

/* The format table gives --format its names, messages and --help their
 * lists, and every report a renderer per row. */
static void test_format_table(void)
{
    ompb__report_format f;
    CU_ASSERT_STRING_EQUAL(ompb__report_format_list(), "console, markdown, json");
    CU_ASSERT_STRING_EQUAL(ompb__report_format_help(), "console (default), markdown or json");
    static const char *const names[] = {"console", "markdown", "json"};
    CU_ASSERT_EQUAL_FATAL(sizeof names / sizeof names[0], OMPB__REPORT_FORMAT_COUNT);
    for (int i = 0; i < OMPB__REPORT_FORMAT_COUNT; i++) {
        CU_ASSERT_EQUAL(ompb__report_parse_format(names[i], &f), 0);
        CU_ASSERT_EQUAL(f, (ompb__report_format)i);
    }
    ompb__comparison empty = {0};
    FILE *null = fopen("/dev/null", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(null);
    CU_ASSERT_EQUAL(ompb__compare_print(null, &empty, OMPB__REPORT_FORMAT_COUNT), OMPB_EINVAL);
    for (int i = 0; i < OMPB__REPORT_FORMAT_COUNT; i++)
        CU_ASSERT_EQUAL(ompb__compare_print(null, &empty, (ompb__report_format)i), 0);
    fclose(null);
}

/* Files of one side from different machines: listed as differences. */
static void test_environment_within_side(void)
{
    static const char *const base[] = {DATA "base.json", DATA "base_other_env.json"};
    static const char *const head[] = {DATA "head.json"};
    ompb__compare_opts opts = {0.05, 0.05};
    pair p;
    compare_sides(base, 2, head, 1, &opts, &p);
    bool found = false;
    for (size_t i = 0; i < p.cmp.env_diffs.n; i++)
        found |= strstr(p.cmp.env_diffs.v[i], "BASE " DATA "base.json vs " DATA
                                               "base_other_env.json: host_name: \"node01\" vs "
                                               "\"node02\"") != NULL;
    CU_ASSERT_TRUE(found);
    /* Two single runs per side: now there is a spread. */
    CU_ASSERT_EQUAL(row(&p.cmp, "improved[t=2]")->base_runs, 2);
    CU_ASSERT_EQUAL(row(&p.cmp, "improved[t=2]")->verdict, OMPB__VERDICT_UNKNOWN);
    release(&p);
}

/* ---- escaping and units -------------------------------------------------- */

/* The stats object may hold null for a CI that does not reach 95%. */
static void test_load_null_ci(void)
{
    ompb__resultfile rf;
    parse_inline(OMPB_ENTRY("{\"sample_size\": 1, \"stats\": {\"ci95_low_ns\": null, "
                            "\"ci95_high_ns\": null, \"mean_imbalance\": 1.25}, "
                            "\"samples\": {\"makespan_ns\": [4, 6, 5]}}"),
                 &rf);
    CU_ASSERT_EQUAL(rf.inst[0].value_ns, 5.0);
    CU_ASSERT_EQUAL(rf.inst[0].imbalance, 1.25);
    ompb__resultfile_free(&rf);
}

/* Names are data: a backtick, '|' or an escape sequence must neither break
 * the markdown table nor reach the terminal raw. */
static void test_report_escaping(void)
{
    static const char *const name = "a`b|c\033[31m";
    const double b[] = {1000, 1003, 997}, h[] = {1200, 1203, 1197};
    pair p;
    compare_entries(runs_of(name, b, 3), runs_of(name, h, 3), &p);
    char *text = render(&p, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| ``a`b\\|c\\x1B[31m`` | 1.000 us |"));
    CU_ASSERT_PTR_NULL(strchr(text, '\033'));
    free(text);
    text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\na`b|c\\x1B[31m  "));
    CU_ASSERT_PTR_NULL(strchr(text, '\033'));
    free(text);
    text = render(&p, OMPB__REPORT_JSON); /* JSON escapes it itself */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"a`b|c\\u001B[31m\""));
    free(text);
    release(&p);
}

static void md_code(const char *s, bool in_table, const char *want)
{
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    ompb__put_md_code(f, s, in_table);
    char *got = ompb_test_slurp(f);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "\n'%s' -> '%s', want '%s'\n", s, got, want);
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
}

static void test_text_escaping(void)
{
    md_code("plain", true, "`plain`");
    md_code("a``b`", false, "``` a``b` ```");
    md_code("`x", false, "`` `x ``");
    md_code("", false, "` `");
    md_code("p|q", true, "`p\\|q`");
    md_code("p|q", false, "`p|q`");
    CU_ASSERT_EQUAL(ompb__plain_width("ab\033c"), 7);    /* \x1B is four columns */
    CU_ASSERT_EQUAL(ompb__plain_width("\xc3\xa9t\xc3\xa9"), 3); /* UTF-8 "ete" */
    CU_ASSERT_EQUAL(ompb__plain_width("\xc2\x9b"), 8);  /* C1 CSI: \xC2\x9B */
}

/* Four significant digits, unit chosen after rounding: 999.96 ns would print
 * as "1000.0 ns" if the unit were chosen first. */
static void test_format_ns(void)
{
    static const struct { double ns; const char *want; } cases[] = {
        {0.5, "0.500 ns"},      {9.99996, "10.00 ns"},  {99.996, "100.0 ns"},
        {999.94, "999.9 ns"},   {999.96, "1.000 us"},   {1500.0, "1.500 us"},
        {999999.6, "1.000 ms"}, {2e9, "2.000 s"},       {999.96e9, "1000 s"},
        {12345e9, "12345 s"},   {1e300, "1e+291 s"},    {NAN, "-"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[OMPB__UNIT_TEXT_MAX];
        ompb__format_ns(buf, sizeof buf, cases[i].ns);
        if (strcmp(buf, cases[i].want) != 0)
            fprintf(stderr, "\n%g -> '%s', want '%s'\n", cases[i].ns, buf, cases[i].want);
        CU_ASSERT_STRING_EQUAL(buf, cases[i].want);
    }
    char buf[OMPB__UNIT_TEXT_MAX];
    CU_ASSERT_STRING_EQUAL(ompb__format_ns_short(buf, sizeof buf, 2e6), "2 ms");
    CU_ASSERT_STRING_EQUAL(ompb__format_ns_short(buf, sizeof buf, 500.0), "500 ns");
    CU_ASSERT_EQUAL(ompb__unit_ns("us"), 1e3);
    CU_ASSERT_EQUAL(ompb__unit_ns("fortnights"), 0.0);
}

/* Found by fuzz/fuzz_resultfile: jansson's error text quotes the input,
 * raw newline and escapes included; the message must stay one line. */
static void test_load_error_is_one_line(void)
{
    ompb__resultfile rf;
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__resultfile_parse("{\"benchmarks\": [{\"name\": \"\\u00\n\x1b[2J\"}]}",
                                           "esc.json", &rf, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "esc.json: not valid JSON"));
    CU_ASSERT_PTR_NULL(strchr(err.text, '\n'));
    CU_ASSERT_PTR_NULL(strchr(err.text, 0x1b));
}

static const ompb_test_case cases[] = {
    {"t_cdf", test_t_cdf},
    {"t_quantile", test_t_quantile},
    {"welch", test_welch},
    {"yuen", test_yuen},
    {"interval_p_edges", test_interval_p_edges},
    {"bh", test_bh},
    {"units_needed", test_units_needed},
    {"load_ompbench", test_load_ompbench},
    {"load_failed_instance", test_load_failed_instance},
    {"load_gbench", test_load_gbench},
    {"load_imbalance_from_busy", test_load_imbalance_from_busy},
    {"load_repetitions", test_load_repetitions},
    {"load_malformed_text", test_load_malformed_text},
    {"load_malformed_files", test_load_malformed_files},
    {"runs_every_verdict", test_runs_every_verdict},
    {"pooled_files", test_pooled_files},
    {"check_side", test_check_side},
    {"single_runs", test_single_runs},
    {"identical_runs", test_identical_runs},
    {"threshold_edge", test_threshold_edge},
    {"alpha", test_alpha},
    {"bh_family", test_bh_family},
    {"disturbed_run", test_disturbed_run},
    {"marks", test_marks},
    {"marks_malformed", test_marks_malformed},
    {"runs_needed_beyond_had", test_runs_needed_beyond_had},
    {"min_runs", test_min_runs},
    {"gbench", test_gbench},
    {"gbench_aggregates_only", test_gbench_aggregates_only},
    {"mixed_formats", test_mixed_formats},
    {"failed_verdicts", test_failed_verdicts},
    {"zero_time", test_zero_time},
    {"different_environments", test_different_environments},
    {"environment_rules", test_environment_rules},
    {"environment_thread_counts", test_environment_thread_counts},
    {"environment_within_side", test_environment_within_side},
    {"report_console", test_report_console},
    {"report_markdown", test_report_markdown},
    {"report_json", test_report_json},
    {"parse_format", test_parse_format},
    {"load_null_ci", test_load_null_ci},
    {"report_escaping", test_report_escaping},
    {"text_escaping", test_text_escaping},
    {"format_ns", test_format_ns},
    {"load_error_is_one_line", test_load_error_is_one_line},
    {"verdict_table", test_verdict_table},
    {"clean_rounds_decide", test_clean_rounds_decide},
    {"clean_flags_malformed", test_clean_flags_malformed},
    {"format_table", test_format_table},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_compare = {"compare", NULL, NULL, cases};
