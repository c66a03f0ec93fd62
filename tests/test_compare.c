/* SPDX-License-Identifier: MIT */
/*
 * Results analysis: the Mann-Whitney U test, loading result files (every
 * validation path), and `ompbench compare` verdicts and reports on the
 * crafted files of tests/data/compare (written by make_data.py there).
 *
 * U-test references: SciPy 1.10 scipy.stats.mannwhitneyu(x, y,
 * alternative="two-sided", method="exact" or "asymptotic", use_continuity=True),
 * run with /usr/bin/python3 on the very samples below; critical values from
 * the published two-tailed alpha = 0.05 table of U (n1 = n2 = 5: 2, 8: 13,
 * 10: 23, 20: 127).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/compare.h"
#include "analysis/mannwhitney.h"
#include "analysis/resultfile.h"
#include "analysis/units.h"
#include "suite.h"

#define DATA OMPB_TEST_DATA_DIR "/compare/"
#define REL 1e-12

static void check_rel(double got, double want)
{
    CU_ASSERT_DOUBLE_EQUAL(got, want, REL * fabs(want));
}

/* ---- Mann-Whitney U -------------------------------------------------------- */

static void mw(const double *x, size_t nx, const double *y, size_t ny, ompb__mw_method m,
               ompb__mw_result *r)
{
    CU_ASSERT_EQUAL_FATAL(ompb__mann_whitney(x, nx, y, ny, m, r), 0);
}

/* scipy: U = 3.0, exact p = 0.030303030303030304, asymptotic 0.03576376659097789. */
static void test_mw_small_exact(void)
{
    const double x[] = {1.1, 2.3, 3.2, 4.8, 5.0};
    const double y[] = {6.1, 7.2, 2.5, 8.3, 9.9, 10.4};
    ompb__mw_result r;
    mw(x, 5, y, 6, OMPB__MW_AUTO, &r);
    CU_ASSERT_EQUAL(r.method, OMPB__MW_EXACT);
    CU_ASSERT_FALSE(r.ties);
    CU_ASSERT_EQUAL(r.u, 3.0);
    check_rel(r.p, 0.030303030303030304);
    mw(x, 5, y, 6, OMPB__MW_NORMAL, &r);
    check_rel(r.p, 0.03576376659097789);
}

/* scipy: U = 13.0, exact 0.0011289020576946275, asymptotic 0.0021685684190888687. */
static void test_mw_twelve_by_ten(void)
{
    const double x[] = {19.5, 21.2, 20.3, 22.8, 18.1, 23.4, 20.9, 21.7, 19.9, 22.1, 20.6, 24.0};
    const double y[] = {22.4, 23.9, 21.5, 25.3, 24.6, 22.9, 26.1, 23.3, 24.2, 25.8};
    ompb__mw_result r;
    mw(x, 12, y, 10, OMPB__MW_EXACT, &r);
    CU_ASSERT_EQUAL(r.u, 13.0);
    check_rel(r.p, 0.0011289020576946275);
    mw(x, 12, y, 10, OMPB__MW_NORMAL, &r);
    check_rel(r.p, 0.0021685684190888687);
    /* Swapping the samples: U' = nx ny - U, same two-sided p. */
    mw(y, 10, x, 12, OMPB__MW_EXACT, &r);
    CU_ASSERT_EQUAL(r.u, 120.0 - 13.0);
    check_rel(r.p, 0.0011289020576946275);
}

/* Ties: midranks and the tie-corrected variance. scipy asymptotic: U = 17.5,
 * p = 0.008507986774119168. The exact method refuses tied data. */
static void test_mw_ties(void)
{
    const double x[] = {1, 2, 2, 3, 3, 3, 4, 5, 5, 6};
    const double y[] = {3, 4, 4, 5, 5, 6, 6, 7, 8, 8, 9};
    ompb__mw_result r;
    mw(x, 10, y, 11, OMPB__MW_AUTO, &r);
    CU_ASSERT_EQUAL(r.method, OMPB__MW_NORMAL);
    CU_ASSERT_TRUE(r.ties);
    CU_ASSERT_EQUAL(r.u, 17.5);
    check_rel(r.p, 0.008507986774119168);
    CU_ASSERT_EQUAL(ompb__mann_whitney(x, 10, y, 11, OMPB__MW_EXACT, &r), OMPB_ENOTSUP);
}

/* Every value equal: zero variance, nothing to tell apart (scipy: p = 1). */
static void test_mw_all_equal(void)
{
    const double x[] = {5, 5, 5}, y[] = {5, 5, 5, 5};
    ompb__mw_result r;
    mw(x, 3, y, 4, OMPB__MW_AUTO, &r);
    CU_ASSERT_EQUAL(r.u, 6.0);
    CU_ASSERT_EQUAL(r.p, 1.0);
}

/* 40 + 40 interleaved values, the exact recurrence at a size where counts
 * exceed 2^64: scipy exact 0.8519829474864004, asymptotic 0.8511597790430957. */
static void test_mw_forty(void)
{
    double x[40], y[40];
    for (int i = 0; i < 40; i++) {
        x[i] = i * 2.0;
        y[i] = i * 2.0 + 1.3;
    }
    ompb__mw_result r;
    mw(x, 40, y, 40, OMPB__MW_AUTO, &r);
    CU_ASSERT_EQUAL(r.method, OMPB__MW_EXACT);
    CU_ASSERT_EQUAL(r.u, 780.0);
    CU_ASSERT_DOUBLE_EQUAL(r.p, 0.8519829474864004, 1e-10);
    mw(x, 40, y, 40, OMPB__MW_NORMAL, &r);
    check_rel(r.p, 0.8511597790430957);
}

/* Samples of n + n untied values whose U is exactly u: x_i beats c_i of the y
 * values (y_j = 2j + 1, x_i = 2 c_i + i / 1000), with sum c_i = u. */
static void samples_with_u(int n, int u, double *x, double *y)
{
    for (int j = 0; j < n; j++)
        y[j] = 2.0 * j + 1.0;
    for (int i = 0; i < n; i++) {
        int c = u > n ? n : u;
        u -= c;
        x[i] = 2.0 * c + i / 1000.0;
    }
}

/* The published table: U at the critical value rejects at 0.05, one above
 * does not. Exact p-values from scipy for both. */
static void test_mw_critical_values(void)
{
    static const struct { int n, u; double p_at, p_above; } table[] = {
        {5, 2, 0.031746031746031744, 0.05555555555555555},
        {8, 13, 0.04988344988344988, 0.06495726495726495},
        {10, 23, 0.04325705254497823, 0.0524259022711035},
        {20, 127, 0.04909032518937244, 0.05239952187284972},
    };
    for (size_t c = 0; c < sizeof table / sizeof table[0]; c++) {
        double x[20], y[20];
        ompb__mw_result r;
        for (int k = 0; k < 2; k++) {
            samples_with_u(table[c].n, table[c].u + k, x, y);
            mw(x, (size_t)table[c].n, y, (size_t)table[c].n, OMPB__MW_AUTO, &r);
            CU_ASSERT_EQUAL(r.method, OMPB__MW_EXACT);
            CU_ASSERT_EQUAL(r.u, (double)(table[c].u + k));
            CU_ASSERT_DOUBLE_EQUAL(r.p, k ? table[c].p_above : table[c].p_at, 1e-12);
            CU_ASSERT(k ? r.p > 0.05 : r.p < 0.05);
        }
    }
}

static void test_mw_limits(void)
{
    const double x[] = {1, 2, 3};
    double big[51];
    ompb__mw_result r;
    for (int i = 0; i < 51; i++)
        big[i] = i + 0.5;
    CU_ASSERT_EQUAL(ompb__mann_whitney(x, 0, x, 3, OMPB__MW_AUTO, &r), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__mann_whitney(x, 3, x, 0, OMPB__MW_AUTO, &r), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__mann_whitney(big, 51, x, 3, OMPB__MW_EXACT, &r), OMPB_ENOTSUP);
    mw(big, 51, x, 3, OMPB__MW_AUTO, &r);
    CU_ASSERT_EQUAL(r.method, OMPB__MW_NORMAL);
    /* 2 / C(6, 3) = 0.1: three rounds each can never reach 0.05. */
    check_rel(ompb__mw_min_p(3, 3), 0.1);
    check_rel(ompb__mw_min_p(4, 4), 2.0 / 70.0);
    CU_ASSERT_EQUAL(ompb__mw_min_p(0, 4), 1.0);
    CU_ASSERT_EQUAL(ompb__mw_min_p(1, 1), 1.0);
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
         "benchmarks[1] \"a\": the name occurs twice"},
        {"{\"benchmarks\": [], \"benchmarks\": []}", "duplicate object key"},
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

/* ---- compare ------------------------------------------------------------- */

typedef struct pair {
    ompb__resultfile base, head;
    ompb__comparison cmp;
} pair;

static void compare_files(const char *base, const char *head, double threshold, pair *p)
{
    ompb__compare_opts opts = {threshold, OMPB__COMPARE_DEFAULT_ALPHA};
    load(base, &p->base);
    load(head, &p->head);
    CU_ASSERT_EQUAL_FATAL(ompb__compare_runs(&p->base, &p->head, &opts, &p->cmp), 0);
}

static void release(pair *p)
{
    ompb__comparison_free(&p->cmp);
    ompb__resultfile_free(&p->base);
    ompb__resultfile_free(&p->head);
}

static const ompb__compare_row *row(const ompb__comparison *cmp, const char *name)
{
    for (size_t i = 0; i < cmp->n; i++)
        if (strcmp(cmp->rows[i].name, name) == 0)
            return &cmp->rows[i];
    CU_FAIL("row not found");
    return &cmp->rows[0];
}

/* head.json holds one instance per verdict (see make_data.py). p-values from
 * scipy on the same samples (ties: asymptotic; wide: exact). */
static void test_every_verdict(void)
{
    static const struct { const char *name; ompb__verdict v; ompb__basis basis; double p; }
    want[] = {
        {"improved[t=2]", OMPB__VERDICT_IMPROVED, OMPB__BASIS_U_TEST, 5.894111539564462e-08},
        {"regressed[t=2]", OMPB__VERDICT_REGRESSED, OMPB__BASIS_U_TEST, 5.894111539564462e-08},
        {"noise[t=2]", OMPB__VERDICT_UNTOUCHED, OMPB__BASIS_U_TEST, 0.002369265530602953},
        {"wide[t=2]", OMPB__VERDICT_UNTOUCHED, OMPB__BASIS_U_TEST, 0.31499924224382436},
        {"few[t=2]", OMPB__VERDICT_TOO_FEW, OMPB__BASIS_TOO_FEW, 0.1},
        {"edge[t=2]", OMPB__VERDICT_UNTOUCHED, OMPB__BASIS_U_TEST, 1.5937911688066244e-05},
        {"edge_above[t=2]", OMPB__VERDICT_REGRESSED, OMPB__BASIS_U_TEST,
         1.5937911688066244e-05},
        {"gone[t=2]", OMPB__VERDICT_MISSING, OMPB__BASIS_NONE, NAN},
        {"broken[t=2]", OMPB__VERDICT_FAILED, OMPB__BASIS_NONE, NAN},
        {"fresh[t=2]", OMPB__VERDICT_NEW, OMPB__BASIS_NONE, NAN},
    };
    pair p;
    compare_files(DATA "base.json", DATA "head.json", 0.05, &p);
    CU_ASSERT_EQUAL(p.cmp.n, 10);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const ompb__compare_row *r = row(&p.cmp, want[i].name);
        CU_ASSERT_EQUAL(r->verdict, want[i].v);
        CU_ASSERT_EQUAL(r->basis, want[i].basis);
        if (isnan(want[i].p)) {
            CU_ASSERT_TRUE(isnan(r->p));
        } else {
            CU_ASSERT_DOUBLE_EQUAL(r->p, want[i].p, 1e-12 + 1e-9 * want[i].p);
        }
    }
    const ompb__compare_row *r = row(&p.cmp, "improved[t=2]");
    CU_ASSERT_EQUAL(r->base_ns, 1000.0);
    CU_ASSERT_EQUAL(r->head_ns, 800.0);
    CU_ASSERT_DOUBLE_EQUAL(r->change, -0.2, 1e-12);
    CU_ASSERT_TRUE(isnan(row(&p.cmp, "fresh[t=2]")->base_ns));
    CU_ASSERT_EQUAL(row(&p.cmp, "fresh[t=2]")->head_ns, 300.0);
    const size_t *c = p.cmp.counts;
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_REGRESSED], 2);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_IMPROVED], 1);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_TOO_FEW], 1);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_UNTOUCHED], 3);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_NEW], 1);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_MISSING], 1);
    CU_ASSERT_EQUAL(c[OMPB__VERDICT_FAILED], 1);
    CU_ASSERT_EQUAL(p.cmp.geomean_excluded, 0);
    /* numpy: exp(mean(log(head / base))) - 1 over the seven matched pairs. */
    CU_ASSERT_DOUBLE_EQUAL(p.cmp.geomean_change, 0.04781408467964776, 1e-12);
    CU_ASSERT_EQUAL(p.cmp.env_diffs.n, 0);
    CU_ASSERT_EQUAL(p.cmp.threshold_only, 0);
    release(&p);
}

/* "edge" changes by exactly 5% (105 / 100), "edge_above" by 5.1%; both are
 * significant. A change counts only when it exceeds the threshold. */
static void test_threshold_edge(void)
{
    static const struct { double threshold; ompb__verdict edge, above; } cases[] = {
        {0.05, OMPB__VERDICT_UNTOUCHED, OMPB__VERDICT_REGRESSED},
        {0.0499, OMPB__VERDICT_REGRESSED, OMPB__VERDICT_REGRESSED},
        {0.051, OMPB__VERDICT_UNTOUCHED, OMPB__VERDICT_UNTOUCHED},
        {0.0, OMPB__VERDICT_REGRESSED, OMPB__VERDICT_REGRESSED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pair p;
        compare_files(DATA "base.json", DATA "head.json", cases[i].threshold, &p);
        CU_ASSERT_EQUAL(row(&p.cmp, "edge[t=2]")->verdict, cases[i].edge);
        CU_ASSERT_EQUAL(row(&p.cmp, "edge_above[t=2]")->verdict, cases[i].above);
        release(&p);
    }
}

/* The U test decides when the threshold is passed: "wide" (+8%, p = 0.315)
 * counts at alpha 0.5; "noise" (+1%) never passes the 5% threshold. */
static void test_alpha(void)
{
    ompb__compare_opts opts = {0.05, 0.5};
    pair p;
    load(DATA "base.json", &p.base);
    load(DATA "head.json", &p.head);
    CU_ASSERT_EQUAL_FATAL(ompb__compare_runs(&p.base, &p.head, &opts, &p.cmp), 0);
    CU_ASSERT_EQUAL(row(&p.cmp, "wide[t=2]")->verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT_EQUAL(row(&p.cmp, "noise[t=2]")->verdict, OMPB__VERDICT_UNTOUCHED);
    /* 3 + 3 samples could reach p = 0.1 < 0.5, but 3 rounds a side are below
     * OMPB__COMPARE_MIN_SAMPLES whatever alpha says. */
    CU_ASSERT_EQUAL(row(&p.cmp, "few[t=2]")->verdict, OMPB__VERDICT_TOO_FEW);
    release(&p);
}

static void test_identical_runs(void)
{
    pair p;
    compare_files(DATA "base.json", DATA "base.json", 0.05, &p);
    CU_ASSERT_EQUAL(p.cmp.n, 9);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_UNTOUCHED], 9);
    for (size_t i = 0; i < p.cmp.n; i++) {
        CU_ASSERT_EQUAL(p.cmp.rows[i].verdict, OMPB__VERDICT_UNTOUCHED);
        CU_ASSERT_EQUAL(p.cmp.rows[i].change, 0.0);
    }
    CU_ASSERT_EQUAL(p.cmp.geomean_change, 0.0);
    CU_ASSERT_EQUAL(p.cmp.env_diffs.n, 0);
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
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_UNTOUCHED], 9);
    release(&p);
}

static void parse_inline(const char *text, ompb__resultfile *rf)
{
    ompb_error err = {0};
    int rc = ompb__resultfile_parse(text, "inline", rf, &err);
    if (rc)
        fprintf(stderr, "\n%s\n", err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
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

/* Single Google Benchmark runs: no samples, the threshold alone decides. */
static void test_gbench_threshold_only(void)
{
    pair p;
    compare_files(DATA "gbench_base.json", DATA "gbench_head.json", 0.05, &p);
    CU_ASSERT_EQUAL(p.cmp.threshold_only, 3);
    CU_ASSERT_EQUAL(row(&p.cmp, "BM_sort/1024")->verdict, OMPB__VERDICT_IMPROVED);
    CU_ASSERT_EQUAL(row(&p.cmp, "BM_copy/64")->verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT_EQUAL(row(&p.cmp, "BM_hash")->verdict, OMPB__VERDICT_UNTOUCHED);
    for (size_t i = 0; i < p.cmp.n; i++) {
        CU_ASSERT_EQUAL(p.cmp.rows[i].basis, OMPB__BASIS_THRESHOLD);
        CU_ASSERT_TRUE(isnan(p.cmp.rows[i].p));
    }
    release(&p);

    /* With repetitions each one is a sample: scipy exact p = 0.0001554001554001554. */
    compare_files(DATA "gbench_reps_base.json", DATA "gbench_reps_head.json", 0.05, &p);
    CU_ASSERT_EQUAL(p.cmp.threshold_only, 0);
    CU_ASSERT_EQUAL(p.cmp.rows[0].basis, OMPB__BASIS_U_TEST);
    CU_ASSERT_EQUAL(p.cmp.rows[0].verdict, OMPB__VERDICT_IMPROVED);
    check_rel(p.cmp.rows[0].p, 0.0001554001554001554);
    release(&p);
}

/* Our file against a plain Google Benchmark one: threshold only. */
static void test_mixed_formats(void)
{
    ompb__resultfile a, b;
    ompb__comparison cmp;
    ompb__compare_opts opts = {0.05, 0.05};
    parse_inline(OMPB_ENTRY("{\"sample_size\": 1, \"samples\": {\"makespan_ns\": "
                            "[100, 101, 99, 100, 102, 98, 100, 100]}}"),
                 &a);
    parse_inline(ENTRY("\"real_time\": 0.12, \"time_unit\": \"us\""), &b);
    CU_ASSERT_EQUAL_FATAL(ompb__compare_runs(&a, &b, &opts, &cmp), 0);
    CU_ASSERT_EQUAL(cmp.rows[0].basis, OMPB__BASIS_THRESHOLD);
    CU_ASSERT_EQUAL(cmp.rows[0].verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT_DOUBLE_EQUAL(cmp.rows[0].change, 0.2, 1e-12);
    ompb__comparison_free(&cmp);
    ompb__resultfile_free(&a);
    ompb__resultfile_free(&b);
}

/* ---- reports ------------------------------------------------------------- */

/* The whole content of a temporary file, NUL-terminated; closes it. */
static char *slurp(FILE *f)
{
    long len = ftell(f);
    char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    rewind(f);
    CU_ASSERT_EQUAL(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static char *render(const pair *p, ompb__report_format fmt)
{
    FILE *out = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(ompb__compare_print(out, &p->cmp, fmt), 0);
    return slurp(out);
}

/* a occurs in text, and before b. */
static void check_order(const char *text, const char *a, const char *b)
{
    const char *pa = strstr(text, a), *pb = strstr(text, b);
    CU_ASSERT_PTR_NOT_NULL(pa);
    CU_ASSERT_PTR_NOT_NULL(pb);
    CU_ASSERT(pa && pb && pa < pb);
}

static void test_report_console(void)
{
    pair p;
    compare_files(DATA "base.json", DATA "head.json", 0.05, &p);
    char *text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "2 regressed, 1 improved, 3 untouched, 1 new, "
                                        "1 missing, 1 failed, 1 with too few samples; "
                                        "geometric mean change +4.78%\n"));
    CU_ASSERT_PTR_NULL(strstr(text, "different runtime environments"));
    check_order(text, "regressed[t=2] ", "edge_above[t=2] "); /* +20% before +5.1% */
    check_order(text, "edge_above[t=2] ", "improved[t=2] ");
    check_order(text, "improved[t=2] ", "few[t=2] ");
    check_order(text, "few[t=2] ", "wide[t=2] ");
    check_order(text, "wide[t=2] ", "fresh[t=2] ");
    check_order(text, "fresh[t=2] ", "gone[t=2] ");
    check_order(text, "regressed[t=2] ", "broken[t=2] "); /* failures next */
    check_order(text, "broken[t=2] ", "improved[t=2] ");
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "failed           failed in HEAD: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1.000 us      800.0 ns    -20.00%  improved"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "failed in HEAD: benchmark left its loop early"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "3 vs 3 samples"));
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

    compare_files(DATA "base.json", DATA "head.json", 0.05, &p);
    text = render(&p, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| Benchmark | BASE | HEAD | Change | Verdict | "
                                        "Note |\n|:--|--:|--:|--:|:--|:--|\n"
                                        "| `regressed[t=2]` | 1.000 us | 1.200 us | "
                                        "**+20.00%** | **regressed** | p<0.0001 |\n"));
    check_order(text, "`edge_above[t=2]`", "`improved[t=2]`");
    check_order(text, "`improved[t=2]`", "`wide[t=2]`");
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "**2 regressed**"));
    CU_ASSERT_PTR_NULL(strstr(text, "Warning"));
    free(text);
    release(&p);
}

static void test_report_json(void)
{
    pair p;
    compare_files(DATA "base.json", DATA "head.json", 0.05, &p);
    char *text = render(&p, OMPB__REPORT_JSON);
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *summary = json_object_get(root, "summary");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "regressed")), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "too_few_samples")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "missing")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "failed")), 1);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(summary, "geomean_change_pct")),
                           4.781408467964776, 1e-8);
    CU_ASSERT_TRUE(json_is_false(json_object_get(json_object_get(root, "environment"),
                                                 "differs")));
    json_t *rows = json_object_get(root, "instances");
    CU_ASSERT_EQUAL_FATAL(json_array_size(rows), 10);
    json_t *wide = json_array_get(rows, 3); /* comparison order = BASE order */
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(wide, "name")), "wide[t=2]");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(wide, "verdict")), "untouched");
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(wide, "p_value")),
                           0.31499924224382436, 1e-9);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(wide, "base_samples")), 10);
    json_t *gone = json_array_get(rows, 7);
    CU_ASSERT_TRUE(json_is_null(json_object_get(gone, "head_ns")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(gone, "verdict")), "missing");
    json_t *broken = json_array_get(rows, 8);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(broken, "verdict")), "failed");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(broken, "note")),
                           "failed in HEAD: benchmark left its loop early");
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
    CU_ASSERT_STRING_EQUAL(ompb__verdict_name(OMPB__VERDICT_TOO_FEW), "too few samples");
    CU_ASSERT_STRING_EQUAL(ompb__verdict_key(OMPB__VERDICT_TOO_FEW), "too_few_samples");
}

/* ---- inline pairs ------------------------------------------------------------ */

/* An ompbench entry with sample_size 1, so each makespan is one sample:
 * rounds values center + (i - rounds / 2) * step, whole nanoseconds, untied
 * when step is not 0 (so the exact U test applies). */
static json_t *timed(const char *name, double center, size_t rounds, double step)
{
    json_t *mk = json_array();
    for (size_t i = 0; i < rounds; i++) {
        double off = (double)((long)i - (long)(rounds / 2)) * step;
        json_array_append_new(mk, json_integer((json_int_t)(center + off)));
    }
    return json_pack("{s:s, s:s, s:f, s:s, s:i, s:{s:i, s:i, s:{s:o}}}", "name", name,
                     "run_type", "iteration", "real_time", center, "time_unit", "ns",
                     "threads", 2, "ompbench", "threads", 2, "sample_size", 1, "samples",
                     "makespan_ns", mk);
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
    parse_entries(base, &p->base);
    parse_entries(head, &p->head);
    CU_ASSERT_EQUAL_FATAL(ompb__compare_runs(&p->base, &p->head, &opts, &p->cmp), 0);
}

/* The note of one row, as the JSON report gives it. */
static const char *note_of(const ompb__compare_row *r)
{
    static char text[4096];
    json_t *doc;
    FILE *f = tmpfile();
    ompb__comparison one = {0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    one.rows = (ompb__compare_row *)r;
    one.n = 1;
    one.base_path = one.head_path = "x";
    CU_ASSERT_EQUAL(ompb__compare_print(f, &one, OMPB__REPORT_JSON), 0);
    char *json = slurp(f);
    doc = json_loads(json, 0, NULL);
    snprintf(text, sizeof text, "%s",
             json_string_value(json_object_get(json_array_get(json_object_get(doc,
                                                                              "instances"),
                                                              0), "note")));
    json_decref(doc);
    free(json);
    return text;
}

/*
 * 1 round against 40 moved by 20%: the exact test gives p = 2/41 = 0.0488,
 * "significant" on one round. Below 5 rounds a side the verdict is "too few
 * samples"; 5 against 5 suffices (smallest p 2/252 = 0.0079).
 */
static void test_min_samples(void)
{
    static const struct { size_t nb, nh; ompb__verdict v; } cases[] = {
        {1, 40, OMPB__VERDICT_TOO_FEW},
        {40, 1, OMPB__VERDICT_TOO_FEW},
        {4, 40, OMPB__VERDICT_TOO_FEW},
        {5, 5, OMPB__VERDICT_REGRESSED},
        {5, 40, OMPB__VERDICT_REGRESSED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pair p;
        compare_entries(json_pack("[o]", timed("a", 1000.0, cases[i].nb, 3.0)),
                        json_pack("[o]", timed("a", 1200.0, cases[i].nh, 3.0)), &p);
        CU_ASSERT_EQUAL(p.cmp.rows[0].verdict, cases[i].v);
        if (cases[i].v == OMPB__VERDICT_TOO_FEW) {
            char want[64];
            snprintf(want, sizeof want, "%zu vs %zu samples: the U test needs 5 per side",
                     cases[i].nb, cases[i].nh);
            CU_ASSERT_EQUAL(p.cmp.rows[0].basis, OMPB__BASIS_TOO_FEW);
            CU_ASSERT_STRING_EQUAL(note_of(&p.cmp.rows[0]), want);
        }
        release(&p);
    }
}

/* Presence: failed in HEAD (after success, after failure, or only there) is
 * "failed"; failed in BASE only is "new" (fixed) or "missing" (gone). */
static void test_failed_verdicts(void)
{
    pair p;
    compare_entries(json_pack("[o, o, o, o]", timed("broke", 100.0, 11, 1.0), failed("both"),
                              failed("fixed"), failed("gone")),
                    json_pack("[o, o, o, o]", failed("broke"), failed("both"),
                              timed("fixed", 100.0, 11, 1.0), failed("only_head")),
                    &p);
    CU_ASSERT_EQUAL(row(&p.cmp, "broke")->verdict, OMPB__VERDICT_FAILED);
    CU_ASSERT_EQUAL(row(&p.cmp, "both")->verdict, OMPB__VERDICT_FAILED);
    CU_ASSERT_EQUAL(row(&p.cmp, "only_head")->verdict, OMPB__VERDICT_FAILED);
    CU_ASSERT_EQUAL(row(&p.cmp, "fixed")->verdict, OMPB__VERDICT_NEW);
    CU_ASSERT_EQUAL(row(&p.cmp, "gone")->verdict, OMPB__VERDICT_MISSING);
    CU_ASSERT_EQUAL(p.cmp.counts[OMPB__VERDICT_FAILED], 3);
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "broke")), "failed in HEAD: boom");
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "both")), "failed in BASE and HEAD: boom");
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "only_head")),
                           "failed in HEAD (not in BASE): boom");
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "fixed")), "failed in BASE: boom");
    char *text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "0 regressed, 0 improved, 0 untouched, 1 new, "
                                        "1 missing, 3 failed;"));
    free(text);
    text = render(&p, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 missing, **3 failed**;"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| `broke` | 100.0 ns | - | - | **failed** | "
                                        "failed in HEAD: boom |"));
    free(text);
    text = render(&p, OMPB__REPORT_JSON);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"failed\": 3"));
    free(text);
    release(&p);
}

/* A BASE time of 0 has no relative change: no verdict beyond presence, and
 * the pair stays out of the geometric mean, which says so. */
static void test_zero_base_time(void)
{
    pair p;
    compare_entries(json_pack("[o, o]", timed("zero", 0.0, 11, 0.0),
                              timed("b", 1000.0, 11, 3.0)),
                    json_pack("[o, o]", timed("zero", 50.0, 11, 3.0),
                              timed("b", 1200.0, 11, 3.0)),
                    &p);
    const ompb__compare_row *z = row(&p.cmp, "zero");
    CU_ASSERT_EQUAL(z->verdict, OMPB__VERDICT_UNTOUCHED);
    CU_ASSERT_EQUAL(z->basis, OMPB__BASIS_NONE);
    CU_ASSERT_TRUE(isnan(z->change));
    CU_ASSERT_TRUE(isnan(z->p));
    CU_ASSERT_STRING_EQUAL(note_of(z), "BASE time is 0: no change to judge");
    CU_ASSERT_EQUAL(p.cmp.geomean_excluded, 1);
    CU_ASSERT_DOUBLE_EQUAL(p.cmp.geomean_change, 0.2, 1e-12);
    char *text = render(&p, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "geometric mean change +20.00% (1 pair with a time "
                                        "of 0 left out)\n"));
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

/* --benchmark_report_aggregates_only: each run's median (else mean) stands
 * for it; threshold only, and the note says what was compared. */
static void test_gbench_aggregates_only(void)
{
    pair p;
    compare_files(DATA "gbench_agg_base.json", DATA "gbench_agg_head.json", 0.05, &p);
    CU_ASSERT_EQUAL_FATAL(p.base.n, 2);
    const ompb__rf_instance *sort = ompb__resultfile_find(&p.base, "BM_sort/1024");
    const ompb__rf_instance *copy = ompb__resultfile_find(&p.base, "BM_copy/64");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sort);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    CU_ASSERT_EQUAL(sort->value_ns, 10000.0);
    CU_ASSERT_STRING_EQUAL(sort->aggregate, "median");
    CU_ASSERT_EQUAL(sort->threads, 1);
    CU_ASSERT_EQUAL(copy->value_ns, 2000.0);
    CU_ASSERT_STRING_EQUAL(copy->aggregate, "mean");
    CU_ASSERT_EQUAL(p.cmp.threshold_only, 2);
    CU_ASSERT_EQUAL(row(&p.cmp, "BM_sort/1024")->verdict, OMPB__VERDICT_UNTOUCHED);
    CU_ASSERT_EQUAL(row(&p.cmp, "BM_copy/64")->verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT_EQUAL(row(&p.cmp, "BM_copy/64")->basis, OMPB__BASIS_THRESHOLD);
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "BM_sort/1024")),
                           "threshold only (median aggregate vs median aggregate, no "
                           "samples)");
    CU_ASSERT_STRING_EQUAL(note_of(row(&p.cmp, "BM_copy/64")),
                           "threshold only (mean aggregate vs mean aggregate, no samples)");
    release(&p);
    /* Our files carry aggregates too: the iteration entries stand. */
    ompb__resultfile rf;
    load(DATA "base.json", &rf);
    CU_ASSERT_EQUAL(rf.n, 9);
    CU_ASSERT_PTR_NULL(rf.inst[0].aggregate);
    ompb__resultfile_free(&rf);
}

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
    pair p;
    compare_entries(json_pack("[o]", timed(name, 1000.0, 11, 3.0)),
                    json_pack("[o]", timed(name, 1200.0, 11, 3.0)), &p);
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
    char *got = slurp(f);
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
    {"mw_small_exact", test_mw_small_exact},
    {"mw_twelve_by_ten", test_mw_twelve_by_ten},
    {"mw_ties", test_mw_ties},
    {"mw_all_equal", test_mw_all_equal},
    {"mw_forty", test_mw_forty},
    {"mw_critical_values", test_mw_critical_values},
    {"mw_limits", test_mw_limits},
    {"load_ompbench", test_load_ompbench},
    {"load_failed_instance", test_load_failed_instance},
    {"load_gbench", test_load_gbench},
    {"load_imbalance_from_busy", test_load_imbalance_from_busy},
    {"load_malformed_text", test_load_malformed_text},
    {"load_malformed_files", test_load_malformed_files},
    {"every_verdict", test_every_verdict},
    {"threshold_edge", test_threshold_edge},
    {"alpha", test_alpha},
    {"identical_runs", test_identical_runs},
    {"different_environments", test_different_environments},
    {"environment_rules", test_environment_rules},
    {"environment_thread_counts", test_environment_thread_counts},
    {"gbench_threshold_only", test_gbench_threshold_only},
    {"mixed_formats", test_mixed_formats},
    {"report_console", test_report_console},
    {"report_markdown", test_report_markdown},
    {"report_json", test_report_json},
    {"parse_format", test_parse_format},
    {"min_samples", test_min_samples},
    {"failed_verdicts", test_failed_verdicts},
    {"zero_base_time", test_zero_base_time},
    {"gbench_aggregates_only", test_gbench_aggregates_only},
    {"load_null_ci", test_load_null_ci},
    {"report_escaping", test_report_escaping},
    {"text_escaping", test_text_escaping},
    {"format_ns", test_format_ns},
    {"load_error_is_one_line", test_load_error_is_one_line},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_compare = {"compare", NULL, NULL, cases};
