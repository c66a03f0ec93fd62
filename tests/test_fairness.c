/* SPDX-License-Identifier: MIT */
/*
 * Per-thread fairness (lib/report/fairness.c): mean, median and CV of each
 * thread's busy time over the rounds and its share of the rounds as the
 * slowest, worked out by hand for a 3-thread, 4-round record; ties shared;
 * nothing for a caller team; the JSON's "ompbench.fairness" and the CSV's
 * columns, which only --thread-columns (the context's thread_columns) adds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fixtures.h"
#include "model/ucounter.h"
#include "report/fairness.h"
#include "report/report.h"
#include "suite.h"

#define ROUNDS 4
#define THREADS 3

static void body(ompb_state *s) { (void)s; }
static const ompb_benchmark bench = {.name = "fair", .file = "benches/x.c", .fn = body};

static ompb__instance inst;
static uint64_t start[ROUNDS] = {0, 1000, 2000, 3000};
static uint64_t end[ROUNDS] = {400, 1400, 2400, 3400};
static uint64_t tstart[ROUNDS * THREADS];
/* Thread 2 is the slowest in rounds 0, 1 and 3; round 2 is a tie of 0 and 2. */
static uint64_t busy[ROUNDS * THREADS] = {100, 200, 400, 100, 200, 300, 400, 100, 400,
                                          100, 200, 300};
static uint64_t iters[ROUNDS * THREADS] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static int pus[THREADS] = {0, 1, 2};

static ompb__result make_result(void)
{
    static const ompb_test_rounds rounds = {ROUNDS, THREADS, 1, start, end, tstart, busy,
                                            iters, pus};
    inst = ompb_test_instance(&bench, THREADS);
    ompb__result res = ompb_test_result(&inst, &rounds);
    CU_ASSERT_EQUAL(ompb__result_analyze(&res), 0);
    return res;
}

static void test_figures(void)
{
    ompb__result res = make_result();
    ompb__fairness f;
    CU_ASSERT_EQUAL_FATAL(ompb__fairness_of(&res.rec, &f), 0);
    CU_ASSERT_EQUAL_FATAL(f.threads, 3);
    /* thread 0: 100 100 400 100; 1: 200 200 100 200; 2: 400 300 400 300 */
    CU_ASSERT_DOUBLE_EQUAL(f.mean_ns[0], 175.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.median_ns[0], 100.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.cv[0], 150.0 / 175.0, 1e-9); /* sd sqrt(67500/3) */
    CU_ASSERT_DOUBLE_EQUAL(f.mean_ns[1], 175.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.median_ns[1], 200.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.mean_ns[2], 350.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.median_ns[2], 350.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.cv[2], sqrt(10000.0 / 3.0) / 350.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f.slowest_share[0], 0.5 / 4.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.slowest_share[1], 0.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.slowest_share[2], 3.5 / 4.0, 1e-12);
    ompb__fairness_free(&f);
    res.rec.caller_team = true;
    CU_ASSERT_EQUAL(ompb__fairness_of(&res.rec, &f), 0);
    CU_ASSERT_EQUAL(f.threads, 0);
}

/* The report of res as reporter r writes it, with --thread-columns (a
 * context that has only that set: the CSV reads nothing else of it) or
 * without a context. */
static char *render(const ompb__reporter *r, bool columns)
{
    static ompb__context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.thread_columns = columns;
    ompb__result res = make_result();
    ompb__report rep;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, columns ? &ctx : NULL, &res, 1), 0);
    CU_ASSERT_EQUAL(r->write(fp, &rep), 0);
    ompb__report_release(&rep);
    fclose(fp);
    return buf;
}

static void test_json(void)
{
    char *text = render(&ompb__reporter_json, false);
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *e = json_array_get(json_object_get(root, "benchmarks"), 0);
    json_t *fair = json_object_get(json_object_get(e, "ompbench"), "fairness");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fair);
    json_t *share = json_object_get(fair, "slowest_share");
    CU_ASSERT_EQUAL(json_array_size(share), 3);
    CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_array_get(share, 2)), 0.875, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_array_get(json_object_get(fair, "busy_mean_ns"),
                                                            0)), 175.0, 1e-9);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(fair, "busy_median_ns")), 3);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(fair, "busy_cv")), 3);
    json_decref(root);
    free(text);
}

static void test_csv_on_request(void)
{
    char *plain = render(&ompb__reporter_csv, false);
    CU_ASSERT_PTR_NULL(strstr(plain, "t0_busy_mean_ns"));
    free(plain);
    char *text = render(&ompb__reporter_csv, true);
    const char *cols = "t0_busy_mean_ns,t0_busy_median_ns,t0_busy_cv,t0_slowest_share,"
                       "t1_busy_mean_ns,t1_busy_median_ns,t1_busy_cv,t1_slowest_share,"
                       "t2_busy_mean_ns,t2_busy_median_ns,t2_busy_cv,t2_slowest_share\n";
    char *at = strstr(text, "t0_busy_mean_ns");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    CU_ASSERT_EQUAL(strncmp(at, cols, strlen(cols)), 0);
    /* The row ends with thread 2's four values. */
    char *row_end = strrchr(text, '\n');
    *row_end = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",350,350,0.16495721976846"));
    CU_ASSERT_STRING_EQUAL(row_end - strlen(",0.875"), ",0.875");
    free(text);
}

/* The columns' names are refused as ompb_counter names: a counter of that
 * name would make a second column of the same name. */
static void test_names_reserved(void)
{
    static const char *const taken[] = {"t0_busy_mean_ns", "t3_busy_median_ns", "t12_busy_cv",
                                        "t1_slowest_share"};
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
        CU_ASSERT_FALSE(ompb__ucounter_name_ok(taken[i]));
    CU_ASSERT_TRUE(ompb__ucounter_name_ok("t0_busy"));
    CU_ASSERT_TRUE(ompb__ucounter_name_ok("tx_busy_cv"));
    CU_ASSERT_TRUE(ompb__ucounter_name_ok("t1busy_cv"));
}

static const ompb_test_case cases[] = {
    {"figures", test_figures},
    {"names_reserved", test_names_reserved},
    {"json", test_json},
    {"csv_on_request", test_csv_on_request},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_fairness = {"fairness", NULL, NULL, cases};
