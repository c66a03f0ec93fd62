/* SPDX-License-Identifier: MIT */
/*
 * Reporters on a hand-made record with known rounds: the JSON parses back
 * with jansson and carries the Google Benchmark fields, our statistics and
 * the raw rounds; the CSV has a header and quoted names; the console row
 * shows scaled units; output files are atomic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "core/outfile.h"
#include <ompbench/bench.h>

#include "report/report.h"
#include "fixtures.h"
#include "model/ucounter.h"
#include "suite.h"

#define ROUNDS 4
#define THREADS 2

static void body(ompb_state *s) { (void)s; }
static const ompb_benchmark bench = {.name = "triad", .file = "benches/x.c", .fn = body};

static ompb__instance inst;
static uint64_t start[ROUNDS] = {1000, 3000, 5000, 7000};
static uint64_t end[ROUNDS] = {2000, 4100, 6200, 8000};      /* makespans 1000 1100 1200 1000 */
static uint64_t tstart[ROUNDS * THREADS] = {1000, 1010, 3000, 3020, 5000, 5000, 7000, 7040};
static uint64_t busy[ROUNDS * THREADS] = {1000, 500, 1100, 1080, 1200, 1200, 960, 960};
static uint64_t iters[ROUNDS * THREADS] = {10, 10, 10, 10, 10, 10, 10, 10};
static int pus[THREADS] = {0, 1};

static ompb__result make_result(void)
{
    memset(&inst, 0, sizeof inst);
    inst.bench = &bench;
    inst.threads = THREADS;
    inst.thread_variant = true;
    snprintf(inst.name, sizeof inst.name, "triad[t=2]");
    snprintf(inst.uri, sizeof inst.uri, "benches/x.c::triad[t=2]");
    static const ompb_test_rounds rounds = {ROUNDS, THREADS, 10, start, end, tstart, busy,
                                            iters, pus};
    ompb__result res = ompb_test_result(&inst, &rounds);
    res.rec.bytes_per_iter = 100;
    res.rec.cpu_ns = 8600;
    CU_ASSERT_EQUAL(ompb__result_analyze(&res), 0);
    return res;
}

static void test_analyze(void)
{
    ompb__result res = make_result();
    CU_ASSERT_EQUAL(res.stats.n, ROUNDS);
    CU_ASSERT_DOUBLE_EQUAL(res.stats.min, 100.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(res.stats.max, 120.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(res.stats.mean, 107.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(res.stats.median, 105.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(res.total_time_s, 4300e-9, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(res.bytes_per_second, 100 / 105e-9, 1);
    CU_ASSERT_DOUBLE_EQUAL(res.items_per_second, 0, 1e-12);
    /* skews 10, 20, 0, 40; imbalance 1000/750, 1100/1090, 1, 1 */
    CU_ASSERT_DOUBLE_EQUAL(res.mean_skew_ns, 17.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(res.mean_imbalance, (1000.0 / 750 + 1100.0 / 1090 + 2) / 4, 1e-9);
}

/* Writes n results, one repetition each, with reporter r. */
static int write_with(const ompb__reporter *r, FILE *fp, const ompb__result *res, size_t n)
{
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, NULL, res, n), 0);
    int rc = r->write(fp, &rep);
    ompb__report_release(&rep);
    return rc;
}

static json_t *report_to_json(const ompb__result *res, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(write_with(&ompb__reporter_json, fp, res, n), 0);
    fclose(fp);
    json_error_t jerr;
    json_t *root = json_loads(buf, 0, &jerr);
    free(buf);
    return root;
}

static void test_json_round_trip(void)
{
    ompb__result res = make_result();
    json_t *root = report_to_json(&res, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *list = json_object_get(root, "benchmarks");
    CU_ASSERT_EQUAL_FATAL(json_array_size(list), 5); /* iteration + 4 aggregates */
    json_t *e = json_array_get(list, 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "name")), "triad[t=2]");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "run_type")), "iteration");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "time_unit")), "ns");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "iterations")), 40);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "threads")), 2);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(e, "real_time")), 107.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(e, "cpu_time")), 215.0, 1e-9);
    /* The one rate: team bytes per iteration at the median (105 ns), not
     * at real_time (the mean, 107.5 ns). */
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(e, "bytes_per_second")), 100 / 105e-9, 1);
    json_t *o = json_object_get(e, "ompbench");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "uri")), "benches/x.c::triad[t=2]");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(o, "sample_size")), 10);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "team")), "harness");
    CU_ASSERT_TRUE(json_is_integer(json_object_get(o, "nested_regions")));
    json_t *st = json_object_get(o, "stats");
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(st, "median_ns")), 105.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(st, "mean_skew_ns")), 17.5, 1e-9);
    json_t *samples = json_object_get(o, "samples");
    json_t *mk = json_object_get(samples, "makespan_ns");
    CU_ASSERT_EQUAL_FATAL(json_array_size(mk), ROUNDS);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(mk, 1)), 1100);
    json_t *b = json_object_get(samples, "busy_ns");
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_array_get(b, 0), 1)), 500);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(samples, "start_skew_ns"), 3)), 40);
    json_t *agg = json_array_get(list, 2);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(agg, "name")), "triad[t=2]_median");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(agg, "aggregate_name")), "median");
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(agg, "real_time")), 105.0, 1e-9);
    json_decref(root);
}

/* Each thread's start after the team's first, per round, for drawing the
 * round thread by thread; a declared scaling kind, and none when auto. */
static void test_json_offsets_and_scaling(void)
{
    ompb__result res = make_result();
    json_t *root = report_to_json(&res, 1);
    json_t *o = json_object_get(json_array_get(json_object_get(root, "benchmarks"), 0), "ompbench");
    json_t *off = json_object_get(json_object_get(o, "samples"), "start_offset_ns");
    CU_ASSERT_EQUAL_FATAL(json_array_size(off), ROUNDS);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_array_get(off, 0), 1)), 10);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_array_get(off, 3), 0)), 0);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_array_get(off, 3), 1)), 40);
    CU_ASSERT_PTR_NULL(json_object_get(o, "scaling"));
    json_decref(root);
    ompb_benchmark declared = bench;
    declared.scaling = OMPB_SCALING_WEAK;
    inst.bench = &declared;
    root = report_to_json(&res, 1);
    o = json_object_get(json_array_get(json_object_get(root, "benchmarks"), 0), "ompbench");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "scaling")), "weak");
    json_decref(root);
    declared.scaling = OMPB_SCALING_STRONG;
    root = report_to_json(&res, 1);
    o = json_object_get(json_array_get(json_object_get(root, "benchmarks"), 0), "ompbench");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "scaling")), "strong");
    json_decref(root);
    inst.bench = &bench;
}

static void test_json_non_finite_becomes_null(void)
{
    ompb__result res = make_result();
    res.mean_imbalance = 0.0 / 0.0;
    json_t *root = report_to_json(&res, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *e = json_array_get(json_object_get(root, "benchmarks"), 0);
    json_t *st = json_object_get(json_object_get(e, "ompbench"), "stats");
    CU_ASSERT_TRUE(json_is_null(json_object_get(st, "mean_imbalance")));
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(st, "median_ns")), 105.0, 1e-9);
    json_decref(root);
}

/* Where the body's code is: written as located; a path that is not UTF-8
 * leaves the key out, never the entry. */
static void test_json_code_location(void)
{
    ompb__result res = make_result();
    char path[] = "/bin/bench", bad[] = "/bin/b\xff";
    res.rec.code_object = path;
    res.rec.code_address = 4096;
    json_t *root = report_to_json(&res, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *omp = json_object_get(json_array_get(json_object_get(root, "benchmarks"), 0),
                                  "ompbench");
    json_t *code = json_object_get(omp, "code");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(code, "object")), "/bin/bench");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(code, "address")), 4096);
    json_decref(root);
    res.rec.code_object = bad;
    root = report_to_json(&res, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    omp = json_object_get(json_array_get(json_object_get(root, "benchmarks"), 0), "ompbench");
    CU_ASSERT_PTR_NOT_NULL(json_object_get(omp, "stats"));
    CU_ASSERT_PTR_NULL(json_object_get(omp, "code"));
    json_decref(root);
}

static void test_json_invalid_name_is_an_error(void)
{
    ompb__result res = make_result();
    snprintf(inst.name, sizeof inst.name, "bad\xff[t=2]"); /* not UTF-8 */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(write_with(&ompb__reporter_json, fp, &res, 1), OMPB_EIO);
    fclose(fp);
    free(buf);
}

static void test_json_failed_instance(void)
{
    ompb__result res = make_result();
    res.rec.failed = true;
    snprintf(res.rec.error, sizeof res.rec.error, "triad[t=2]: setup failed");
    json_t *root = report_to_json(&res, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *list = json_object_get(root, "benchmarks");
    CU_ASSERT_EQUAL_FATAL(json_array_size(list), 1);
    json_t *e = json_array_get(list, 0);
    CU_ASSERT_TRUE(json_is_true(json_object_get(e, "error_occurred")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "error_message")), "triad[t=2]: setup failed");
    CU_ASSERT_PTR_NULL(json_object_get(json_object_get(e, "ompbench"), "samples"));
    json_decref(root);
}

static char *capture(int (*fn)(FILE *, const ompb__result *))
{
    ompb__result res = make_result();
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(fn(fp, &res), 0);
    fclose(fp);
    return buf;
}

static int csv_one(FILE *fp, const ompb__result *res) { return write_with(&ompb__reporter_csv, fp, res, 1); }
static int console_one(FILE *fp, const ompb__result *res) { return write_with(&ompb__reporter_console, fp, res, 1); }

static void test_csv(void)
{
    char *text = capture(csv_one);
    const char *header = "name,uri,threads,repetition,process,rounds,sample_size,median_ns,";
    CU_ASSERT_EQUAL(strncmp(text, header, strlen(header)), 0);
    char *row = strchr(text, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    const char *first = "\"triad[t=2]\",\"benches/x.c::triad[t=2]\",2,0,0,4,10,105,107.5,";
    CU_ASSERT_EQUAL(strncmp(row + 1, first, strlen(first)), 0);
    /* bytes_per_second: the same median-based rate as the JSON's, in the
     * shortest digits that read back as the same double. */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",952380952.3809524,0,"));
    free(text);
}

/* User counters (ompb_counter): "hits", a rate of 1000 a round; "per",
 * 40 a round averaged over the 2 threads and per iteration (20 a round). */
static double uvalues[ROUNDS * OMPB__UCOUNTERS_MAX];

static ompb__result make_user_result(void)
{
    ompb__result res = make_result();
    memset(&res.rec.ucounters, 0, sizeof res.rec.ucounters);
    snprintf(res.rec.ucounters.name[0], OMPB__UCOUNTER_NAME_MAX, "hits");
    snprintf(res.rec.ucounters.name[1], OMPB__UCOUNTER_NAME_MAX, "per");
    res.rec.ucounters.flags[0] = OMPB_COUNTER_RATE;
    res.rec.ucounters.flags[1] = OMPB_COUNTER_PER_ITERATION | OMPB_COUNTER_AVG_THREADS;
    res.rec.ucounters.n = 2;
    for (size_t r = 0; r < ROUNDS; r++) {
        uvalues[r * OMPB__UCOUNTERS_MAX] = 1000;
        uvalues[r * OMPB__UCOUNTERS_MAX + 1] = 40;
    }
    res.rec.ucounter_values = uvalues;
    CU_ASSERT_EQUAL(ompb__result_analyze(&res), 0);
    return res;
}

static int csv_user(FILE *fp, const ompb__result *res)
{
    (void)res;
    ompb__result u = make_user_result();
    return write_with(&ompb__reporter_csv, fp, &u, 1);
}

/* Makespans 1000 1100 1200 1000 ns: rates 1e9, 1e9/1.1, 1e9/1.2, 1e9,
 * median (1e9 + 1e9/1.1) / 2. Every key the JSON run object carries and
 * every CSV column is a name ompb_counter refuses, so no user counter
 * can overwrite one (the list in lib/model/ucounter.c must follow the reports). */
static void test_user_counters(void)
{
    ompb__result res = make_user_result();
    double rate = (1e9 + 1e9 / 1.1) / 2;
    CU_ASSERT_DOUBLE_EQUAL(res.user[0], rate, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(res.user[1], 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ompb__ucounter_round(&res.rec, 2, 0), 1e9 / 1.2, 1e-3);
    json_t *root = report_to_json(&res, 1);
    json_t *e = json_array_get(json_object_get(root, "benchmarks"), 0);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(e, "hits")), rate, 1e-6 * rate);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(e, "per")), 1.0, 1e-12);
    json_t *uc = json_object_get(json_object_get(e, "ompbench"), "user_counters");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(json_object_get(uc, "hits"), "rounds")), ROUNDS);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(
        json_object_get(json_object_get(uc, "per"), "flags"), 1)), "avg_threads");
    const char *key;
    json_t *v;
    json_object_foreach(e, key, v) {
        bool user = strcmp(key, "hits") == 0 || strcmp(key, "per") == 0;
        CU_ASSERT_EQUAL(ompb__ucounter_name_ok(key), user);
        if (ompb__ucounter_name_ok(key) != user)
            fprintf(stderr, "\nkey %s\n", key);
    }
    json_decref(root);
    char *text = capture(csv_user);
    CU_ASSERT_PTR_NOT_NULL_FATAL(strchr(text, '\n'));
    text[strcspn(text, "\n")] = '\0'; /* the header */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",cpu_share,hits,per"));
    for (char *col = strtok(text, ","); col; col = strtok(NULL, ",")) {
        bool user = strcmp(col, "hits") == 0 || strcmp(col, "per") == 0;
        CU_ASSERT_EQUAL(ompb__ucounter_name_ok(col), user);
        if (ompb__ucounter_name_ok(col) != user)
            fprintf(stderr, "\ncolumn %s\n", col);
    }
    CU_ASSERT_FALSE(ompb__ucounter_name_ok("cycles_per_iter"));
    free(text);
}

/* The per-thread add: bad calls keep the first reason; the merge checks flags. */
static void test_user_counter_calls(void)
{
    ompb__ucounters u;
    memset(&u, 0, sizeof u);
    CU_ASSERT_EQUAL(ompb__ucounter_add(&u, "ok", 1.5, 0), 0);
    CU_ASSERT_EQUAL(ompb__ucounter_add(&u, "ok", 2.5, 0), 0);
    CU_ASSERT_DOUBLE_EQUAL(u.slot[0].value, 4.0, 1e-12);
    CU_ASSERT_EQUAL(ompb__ucounter_add(&u, "ok", 1, OMPB_COUNTER_RATE), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(u.error, "ompb_counter(\"ok\"): other flags"));
    CU_ASSERT_EQUAL(ompb__ucounter_add(&u, "a b", 1, 0), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__ucounter_add(&u, NULL, 1, 0), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__ucounter_add(&u, "x", NAN, 0), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__ucounter_add(&u, "x", 1, 8u), OMPB_EINVAL);
    CU_ASSERT_EQUAL(u.n, 1);
    ompb__ucounters big;
    memset(&big, 0, sizeof big);
    CU_ASSERT_EQUAL(ompb__ucounter_add(&big, "big", 1e308, 0), 0);
    CU_ASSERT_EQUAL(ompb__ucounter_add(&big, "big", 1e308, 0), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(big.error, "overflows"));
    big.error[0] = '\0';
    ompb__ucounter_table btab = {0};
    double brow[OMPB__UCOUNTERS_MAX] = {0};
    char bwhy[320];
    CU_ASSERT_EQUAL(ompb__ucounters_collect(&btab, &big, brow, bwhy, sizeof bwhy), 0);
    CU_ASSERT_EQUAL(ompb__ucounters_collect(&btab, &big, brow, bwhy, sizeof bwhy), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(bwhy, "team's total in a round overflows"));
    ompb__ucounters v;
    memset(&v, 0, sizeof v);
    for (int k = 0; k < OMPB__UCOUNTERS_MAX; k++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", k);
        CU_ASSERT_EQUAL(ompb__ucounter_add(&v, name, k, 0), 0);
    }
    CU_ASSERT_EQUAL(ompb__ucounter_add(&v, "ninth", 1, 0), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(v.error, "more than 8"));
    v.error[0] = '\0';
    ompb__ucounter_table tab = {0};
    double row[OMPB__UCOUNTERS_MAX] = {0};
    char why[320];
    CU_ASSERT_EQUAL(ompb__ucounters_collect(&tab, &v, row, why, sizeof why), 0);
    CU_ASSERT_EQUAL(ompb__ucounters_collect(&tab, &v, row, why, sizeof why), 0);
    CU_ASSERT_EQUAL(tab.n, OMPB__UCOUNTERS_MAX);
    CU_ASSERT_DOUBLE_EQUAL(row[3], 6.0, 1e-12);
    ompb__ucounters w;
    memset(&w, 0, sizeof w);
    CU_ASSERT_EQUAL(ompb__ucounter_add(&w, "c1", 1, OMPB_COUNTER_RATE), 0);
    CU_ASSERT_EQUAL(ompb__ucounters_collect(&tab, &w, row, why, sizeof why), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "different flags"));
    CU_ASSERT_EQUAL(ompb__ucounter_add(&w, "c9", 1, OMPB_COUNTER_RATE), 0);
    ompb__ucounter_table full = tab;
    w.slot[0].flags = 0;
    CU_ASSERT_EQUAL(ompb__ucounters_collect(&full, &w, NULL, why, sizeof why), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "more than 8"));
    CU_ASSERT_EQUAL(ompb__ucounters_collect(&tab, &u, NULL, why, sizeof why), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "other flags"));
}

static int csv_nan_ci(FILE *fp, const ompb__result *res)
{
    ompb__result copy = *res;
    copy.stats.ci_low = copy.stats.ci_high = 0.0 / 0.0;
    return write_with(&ompb__reporter_csv, fp, &copy, 1);
}

static void test_csv_missing_values_are_empty(void)
{
    char *text = capture(csv_nan_ci);
    CU_ASSERT_PTR_NULL(strstr(text, "nan"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",120,100,112.5,,,0,0,")); /* max, q1, q3, no CI, outliers */
    free(text);
}

static void test_console(void)
{
    char *text = capture(console_one);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "triad[t=2]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "105 ns"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "4 x 10"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "MiB/s"));
    free(text);
}

/* A caller team: the harness timed the caller only, so there is no skew or
 * imbalance, in JSON (null, and no per-thread samples) or on the console. */
static void test_caller_team(void)
{
    ompb__result res = make_result();
    /* One column, the caller's, in arrays of exactly that size (a reader
     * that took the threads as the stride would overrun them). */
    uint64_t *cbusy = malloc(ROUNDS * sizeof *cbusy), *cstart = malloc(ROUNDS * sizeof *cstart);
    uint64_t *citers = malloc(ROUNDS * sizeof *citers);
    CU_ASSERT_FATAL(cbusy && cstart && citers);
    for (size_t r = 0; r < ROUNDS; r++) {
        cstart[r] = start[r];
        cbusy[r] = end[r] - start[r];
        citers[r] = 10;
    }
    res.rec.caller_team = true;
    res.rec.busy_ns = cbusy;
    res.rec.thread_start_ns = cstart;
    res.rec.thread_iters = citers;
    CU_ASSERT_EQUAL(ompb__result_analyze(&res), 0);
    CU_ASSERT_TRUE(isnan(res.mean_skew_ns));
    CU_ASSERT_TRUE(isnan(res.mean_imbalance));
    CU_ASSERT_DOUBLE_EQUAL(res.stats.median, 105.0, 1e-9);
    json_t *root = report_to_json(&res, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *o = json_object_get(json_array_get(json_object_get(root, "benchmarks"), 0), "ompbench");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "team")), "caller");
    CU_ASSERT_PTR_NULL(json_object_get(o, "nested_regions"));
    json_t *st = json_object_get(o, "stats");
    CU_ASSERT_TRUE(json_is_null(json_object_get(st, "mean_skew_ns")));
    CU_ASSERT_TRUE(json_is_null(json_object_get(st, "mean_imbalance")));
    json_t *samples = json_object_get(o, "samples");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(samples, "makespan_ns")), ROUNDS);
    CU_ASSERT_PTR_NULL(json_object_get(samples, "busy_ns"));
    CU_ASSERT_PTR_NULL(json_object_get(samples, "start_skew_ns"));
    json_decref(root);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    CU_ASSERT_EQUAL(ompb__reporter_console.write(fp, &(ompb__report){.results = &res, .n = 1}), 0);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, " 4 x 10      -  "));
    CU_ASSERT_PTR_NULL(strstr(text, "nan"));
    free(text);
    free(cbusy);
    free(cstart);
    free(citers);
}

/* A report filled by hand (results and n, no summaries) renders the same:
 * the reporters make the summaries themselves then. */
static void test_report_without_summaries(void)
{
    const ompb__reporter *const rows[] = {&ompb__reporter_console, &ompb__reporter_json};
    for (size_t k = 0; k < 2; k++) {
        ompb__result res = make_result();
        char *a = NULL, *b = NULL;
        size_t la = 0, lb = 0;
        FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
        CU_ASSERT_EQUAL(rows[k]->write(fa, &(ompb__report){.results = &res, .n = 1}), 0);
        CU_ASSERT_EQUAL(write_with(rows[k], fb, &res, 1), 0);
        fclose(fa);
        fclose(fb);
        CU_ASSERT_PTR_NOT_NULL(strstr(a, "triad[t=2]"));
        CU_ASSERT_STRING_EQUAL(a, b);
        free(a);
        free(b);
    }
}

/* Three repetitions of one instance (sample sizes 10, 5, 20: medians 105,
 * 210, 52.5 ns, real_time 107.5, 215, 53.75 ns): the summary, the JSON
 * entries and aggregates as Google Benchmark writes them, one console line
 * with the run-to-run spread, one CSV row per repetition. */
static void test_repetitions(void)
{
    static const uint64_t sizes[3] = {10, 5, 20};
    ompb__result res[3];
    for (uint32_t i = 0; i < 3; i++) {
        res[i] = make_result();
        res[i].rec.sample_size = sizes[i];
        res[i].rec.sampling.repetition = i;
        res[i].rec.sampling.repetitions = 3;
        res[i].process = i;
        CU_ASSERT_EQUAL(ompb__result_analyze(&res[i]), 0);
    }
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, NULL, res, 3), 0);
    CU_ASSERT_EQUAL_FATAL(rep.n_instances, 1);
    const ompb__instance_result *ir = &rep.instances[0];
    CU_ASSERT_EQUAL(ir->n_reps, 3);
    CU_ASSERT_EQUAL(ir->rounds, 12);
    CU_ASSERT_DOUBLE_EQUAL(ir->median_ns, 105.0, 1e-9);
    /* numpy: std([105, 210, 52.5], ddof=1) / mean = 80.19507...  / 122.5 */
    CU_ASSERT_DOUBLE_EQUAL(ir->rep_cv, 0.6546536707079771, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ir->agg_median_ns, 107.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(ir->agg_mean_ns, (107.5 + 215.0 + 53.75) / 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(ir->agg_cpu_median_ns, 215.0, 1e-9);
    CU_ASSERT_EQUAL(ir->pooled.n, 12);
    ompb__report_release(&rep);

    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(write_with(&ompb__reporter_json, fp, res, 3), 0);
    fclose(fp);
    json_t *root = json_loads(buf, 0, NULL);
    free(buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *list = json_object_get(root, "benchmarks");
    CU_ASSERT_EQUAL_FATAL(json_array_size(list), 7);
    for (size_t i = 0; i < 3; i++) {
        json_t *e = json_array_get(list, i);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "name")), "triad[t=2]");
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "run_type")), "iteration");
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "repetitions")), 3);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "repetition_index")), (json_int_t)i);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(e, "ompbench"),
                                                           "process")), (json_int_t)i);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "iterations")),
                        (json_int_t)(4 * sizes[i]));
    }
    /* Aggregates as Google Benchmark 1.6+ writes them: no repetition_index,
     * aggregate_unit "time" but for the cv's "percentage". */
    static const char *const aggs[4][2] = {{"mean", "time"}, {"median", "time"},
                                           {"stddev", "time"}, {"cv", "percentage"}};
    for (size_t i = 0; i < 4; i++) {
        json_t *e = json_array_get(list, 3 + i);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "run_type")), "aggregate");
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "aggregate_name")),
                               aggs[i][0]);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "aggregate_unit")),
                               aggs[i][1]);
        CU_ASSERT_PTR_NULL(json_object_get(e, "repetition_index"));
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "repetitions")), 3);
    }
    json_t *median = json_array_get(list, 4);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(median, "name")), "triad[t=2]_median");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(median, "run_name")), "triad[t=2]");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(median, "iterations")), 3);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(median, "real_time")), 107.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(median, "cpu_time")), 215.0, 1e-9);
    json_decref(root);

    buf = NULL;
    fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(write_with(&ompb__reporter_console, fp, res, 3), 0);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "±run"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "triad[t=2]                 2      105 ns ± 65.5%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "~3 x 4 x 10"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "median: of the repetitions' medians; ±run: their "
                                       "stdev / mean (run-to-run spread, between processes)"));
    free(buf);
    /* All in one process (--processes 1): the spread is within a process,
     * which understates the spread between runs, and the legend says so. */
    for (uint32_t i = 0; i < 3; i++)
        res[i].process = 0;
    buf = NULL;
    fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(write_with(&ompb__reporter_console, fp, res, 3), 0);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "±run: their stdev / mean (within-process spread: all "
                                       "repetitions ran in one process, which understates the "
                                       "spread between runs (--processes P measures that))"));
    CU_ASSERT_PTR_NULL(strstr(buf, "run-to-run"));
    free(buf);
    for (uint32_t i = 0; i < 3; i++)
        res[i].process = i;

    buf = NULL;
    fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(write_with(&ompb__reporter_csv, fp, res, 3), 0);
    fclose(fp);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n\"triad[t=2]\",\"benches/x.c::triad[t=2]\",2,0,0,4,10,105,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n\"triad[t=2]\",\"benches/x.c::triad[t=2]\",2,1,1,4,5,210,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n\"triad[t=2]\",\"benches/x.c::triad[t=2]\",2,2,2,4,20,52.5,"));
    free(buf);
}

/* A figure added to the rows after the analysis (as a producer in
 * lib/report/result_figures.c adds it) is a console column, a CSV column
 * and a key of the JSON entry, with no change to any reporter; without it
 * none of the three has it. */
static void add_answer(ompb__report *rep)
{
    ompb__figure f;
    memset(&f, 0, sizeof f);
    snprintf(f.key, sizeof f.key, "answer_figure");
    snprintf(f.label, sizeof f.label, "answer");
    f.unit = "";
    f.value = 42.25;
    f.style = OMPB__STYLE_RATIO;
    f.place[OMPB__FORMAT_CONSOLE] = f.place[OMPB__FORMAT_CSV] = 99;
    f.place[OMPB__FORMAT_JSON] = OMPB__JSON_ENTRY;
    f.width = 8;
    CU_ASSERT_EQUAL(ompb__figure_add(&rep->own[0].figs, &f), 0);
    CU_ASSERT_EQUAL(ompb__figure_add(&rep->instances[0].figs, &f), 0);
    CU_ASSERT_EQUAL(ompb__figure_add(&rep->own[0].figs, &f), -1); /* one per key */
}

static char *render_answer(const ompb__reporter *r, bool with)
{
    ompb__result res = make_result();
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, NULL, &res, 1), 0);
    if (with)
        add_answer(&rep);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(r->write(fp, &rep), 0);
    fclose(fp);
    ompb__report_release(&rep);
    return buf;
}

static void test_figure_in_every_format(void)
{
    for (int with = 0; with < 2; with++) {
        char *con = render_answer(&ompb__reporter_console, with);
        char *csv = render_answer(&ompb__reporter_csv, with);
        char *js = render_answer(&ompb__reporter_json, with);
        CU_ASSERT_EQUAL(strstr(con, "  answer\n") != NULL, with);
        CU_ASSERT_EQUAL(strstr(con, "   42.25\n") != NULL, with);
        CU_ASSERT_EQUAL(strstr(csv, ",answer_figure\n") != NULL, with);
        CU_ASSERT_EQUAL(strstr(csv, ",42.25\n") != NULL, with);
        json_t *root = json_loads(js, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(root);
        json_t *e = json_array_get(json_object_get(root, "benchmarks"), 0);
        json_t *v = json_object_get(e, "answer_figure");
        CU_ASSERT_EQUAL(v != NULL, with);
        if (v)
            CU_ASSERT_DOUBLE_EQUAL(json_real_value(v), 42.25, 1e-12);
        json_decref(root);
        free(con);
        free(csv);
        free(js);
    }
}

static void test_outfile_is_atomic(void)
{
    char dir[] = "/tmp/ompb-test-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/out.json", dir);
    FILE *fp = fopen(path, "w");
    fputs("old", fp);
    fclose(fp);
    ompb__outfile of;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__outfile_open(&of, path, &err), 0);
    fputs("new", of.fp);
    ompb__outfile_abort(&of);
    char buf[8] = "";
    fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(buf, sizeof buf, fp) ? fp : NULL);
    fclose(fp);
    CU_ASSERT_STRING_EQUAL(buf, "old");
    CU_ASSERT_EQUAL_FATAL(ompb__outfile_open(&of, path, &err), 0);
    fputs("new", of.fp);
    CU_ASSERT_EQUAL(ompb__outfile_commit(&of, &err), 0);
    fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof buf, fp));
    fclose(fp);
    CU_ASSERT_STRING_EQUAL(buf, "new");
    unlink(path);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no/such/dir/out.json", dir);
    CU_ASSERT_EQUAL(ompb__outfile_open(&of, missing, &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, missing));
    CU_ASSERT_EQUAL(ompb__outfile_open(&of, dir, &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "is a directory"));
    CU_ASSERT_EQUAL(ompb__outfile_probe(path, &err), 0);
    CU_ASSERT_EQUAL(access(path, F_OK), -1); /* the probe leaves nothing */
    /* Every temporary file is gone: the directory is empty again. */
    CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static const ompb_test_case cases[] = {
    {"analyze", test_analyze},
    {"json_round_trip", test_json_round_trip},
    {"json_offsets_and_scaling", test_json_offsets_and_scaling},
    {"json_failed_instance", test_json_failed_instance},
    {"json_non_finite_becomes_null", test_json_non_finite_becomes_null},
    {"json_code_location", test_json_code_location},
    {"json_invalid_name_is_an_error", test_json_invalid_name_is_an_error},
    {"csv", test_csv},
    {"user_counters", test_user_counters},
    {"user_counter_calls", test_user_counter_calls},
    {"csv_missing_values_are_empty", test_csv_missing_values_are_empty},
    {"console", test_console},
    {"caller_team", test_caller_team},
    {"repetitions", test_repetitions},
    {"report_without_summaries", test_report_without_summaries},
    {"figure_in_every_format", test_figure_in_every_format},
    {"outfile_is_atomic", test_outfile_is_atomic},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_report = {"report", NULL, NULL, cases};
