/* SPDX-License-Identifier: MIT */
/*
 * Counter metrics for compare and scaling (tools/lib/analysis/metric):
 * per-round team sums per iteration from ompbench.counters, multiplex
 * scaling, rounds without counts left out, Google Benchmark's flat keys,
 * every refusal naming where and what, the value formats, scaling's ratio
 * and work efficiency, and compare's run-level verdicts on a counter (each
 * repetition the median of its rounds, each process one run). Inline JSON
 * with values worked out by hand.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/compare.h"
#include "analysis/metric.h"
#include "analysis/scaling.h"
#include "suite.h"

/* Two instances, 2 threads, sample_size 10, events [task-clock, instructions]:
 * a[t=1]... rounds as below. */
static const char *const two_runs =
    "{\"benchmarks\": ["
    " {\"name\": \"k[t=1]\", \"run_type\": \"iteration\", \"real_time\": 1, \"time_unit\": \"ns\","
    "  \"ompbench\": {\"threads\": 1, \"sample_size\": 10, \"rounds\": 3,"
    "   \"samples\": {\"makespan_ns\": [100, 100, 100]},"
    "   \"counters\": {\"events\": [\"task-clock\", \"instructions\"], \"units\": [\"ns\", \"count\"],"
    "    \"values\": [[[100, 1000]], [[100, 2000]], [[100, 3000]]],"
    "    \"time_enabled_ns\": [[100], [100], [100]],"
    "    \"time_running_ns\": [[100], [100], [100]]}}},"
    " {\"name\": \"k[t=2]\", \"run_type\": \"iteration\", \"real_time\": 1, \"time_unit\": \"ns\","
    "  \"ompbench\": {\"threads\": 2, \"sample_size\": 10, \"rounds\": 3,"
    "   \"samples\": {\"makespan_ns\": [60, 60, 60]},"
    "   \"counters\": {\"events\": [\"task-clock\", \"instructions\"], \"units\": [\"ns\", \"count\"],"
    "    \"values\": [[[60, 1000], [60, 1000]], [[60, 500], [60, 1000]], [[60, 9], [60, 9]]],"
    "    \"time_enabled_ns\": [[100, 100], [100, 100], [100, 100]],"
    "    \"time_running_ns\": [[100, 100], [100, 50], [100, 0]]}}},"
    " {\"name\": \"bad\", \"run_type\": \"iteration\", \"error_occurred\": true,"
    "  \"error_message\": \"boom\", \"real_time\": 0, \"time_unit\": \"ns\"}"
    "]}";

static int load(const char *text, const char *metric, ompb__resultfile *rf,
                ompb__metric_unit *unit, ompb_error *err)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    int rc = ompb__resultfile_parse(text, "in.json", rf, err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    rc = ompb__metric_apply_json(root, "in.json", metric, rf, unit, err);
    json_decref(root);
    return rc;
}

static void test_team_sums(void)
{
    ompb__resultfile rf;
    ompb__metric_unit unit = OMPB__METRIC_NS;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(load(two_runs, "instructions", &rf, &unit, &err), 0);
    CU_ASSERT_EQUAL(unit, OMPB__METRIC_COUNT);
    const ompb__rf_instance *one = ompb__resultfile_find(&rf, "k[t=1]");
    const ompb__rf_instance *two = ompb__resultfile_find(&rf, "k[t=2]");
    CU_ASSERT_EQUAL_FATAL(one->n_samples, 3);
    CU_ASSERT_DOUBLE_EQUAL(one->samples_ns[0], 100.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(one->samples_ns[2], 300.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(one->value_ns, 200.0, 1e-9);
    /* Round 1: thread 1 ran half the time, its 1000 count for 2000;
     * round 2: thread 1 never ran, no count for the round at all. */
    CU_ASSERT_EQUAL_FATAL(two->n_samples, 2);
    CU_ASSERT_DOUBLE_EQUAL(two->samples_ns[0], 200.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(two->samples_ns[1], 250.0, 1e-9);
    CU_ASSERT_TRUE(ompb__resultfile_find(&rf, "bad")->failed);
    ompb__resultfile_free(&rf);
    CU_ASSERT_EQUAL_FATAL(load(two_runs, "task-clock", &rf, &unit, &err), 0);
    CU_ASSERT_EQUAL(unit, OMPB__METRIC_NS);
    CU_ASSERT_DOUBLE_EQUAL(ompb__resultfile_find(&rf, "k[t=1]")->value_ns, 10.0, 1e-9);
    ompb__resultfile_free(&rf);
}

static void expect_refusal(const char *text, const char *metric, const char *needle)
{
    ompb__resultfile rf;
    ompb__metric_unit unit;
    ompb_error err = {0};
    CU_ASSERT_EQUAL(load(text, metric, &rf, &unit, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, needle));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "in.json: benchmarks["));
    if (!strstr(err.text, needle))
        fprintf(stderr, "\ngot '%s', wanted '%s'\n", err.text, needle);
    ompb__resultfile_free(&rf);
}

static void test_refusals(void)
{
    expect_refusal(two_runs, "cycles", "counter 'cycles' was not counted (counted: task-clock, "
                   "instructions; run with --counters cycles)");
    expect_refusal("{\"benchmarks\": [{\"name\": \"x\", \"real_time\": 1, \"time_unit\": \"ns\","
                   " \"ompbench\": {\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1]}}}]}",
                   "cycles", "nor counted (no \"ompbench.counters\": run it with --counters cycles)");
    expect_refusal("{\"benchmarks\": [{\"name\": \"x\", \"real_time\": 1, \"time_unit\": \"ns\","
                   " \"ompbench\": {\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1]},"
                   " \"counters\": {\"events\": [\"cycles\"], \"units\": [\"count\"],"
                   " \"values\": [[[-5]]], \"time_enabled_ns\": [[1]], \"time_running_ns\": [[1]]}}}]}",
                   "cycles", "round 0 thread 0: the value");
    expect_refusal("{\"benchmarks\": [{\"name\": \"x\", \"real_time\": 1, \"time_unit\": \"ns\","
                   " \"ompbench\": {\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1]},"
                   " \"counters\": {\"events\": [\"cycles\"], \"units\": [\"furlongs\"],"
                   " \"values\": [[[5]]], \"time_enabled_ns\": [[1]], \"time_running_ns\": [[1]]}}}]}",
                   "cycles", "unit \"furlongs\" (accepted: ns, count)");
    expect_refusal("{\"benchmarks\": [{\"name\": \"g\", \"real_time\": 1, \"time_unit\": \"ns\"}]}",
                   "INSTRUCTIONS", "no number \"INSTRUCTIONS\"");
}

/* Google Benchmark's perf counters are flat keys; repetitions are samples. */
static void test_flat_keys(void)
{
    ompb__resultfile rf;
    ompb__metric_unit unit;
    ompb_error err = {0};
    const char *reps =
        "{\"benchmarks\": ["
        "{\"name\": \"g\", \"run_type\": \"iteration\", \"real_time\": 1, \"time_unit\": \"ns\", \"INSTRUCTIONS\": 10},"
        "{\"name\": \"g\", \"run_type\": \"iteration\", \"real_time\": 1, \"time_unit\": \"ns\", \"INSTRUCTIONS\": 30},"
        "{\"name\": \"g_mean\", \"run_type\": \"aggregate\", \"aggregate_name\": \"mean\", \"run_name\": \"g\","
        " \"real_time\": 1, \"time_unit\": \"ns\", \"INSTRUCTIONS\": 20}]}";
    CU_ASSERT_EQUAL_FATAL(load(reps, "INSTRUCTIONS", &rf, &unit, &err), 0);
    CU_ASSERT_EQUAL(rf.inst[0].n_samples, 2);
    CU_ASSERT_DOUBLE_EQUAL(rf.inst[0].value_ns, 20.0, 1e-9);
    ompb__resultfile_free(&rf);
    const char *one = "{\"benchmarks\": [{\"name\": \"g\", \"real_time\": 1, \"time_unit\": \"ns\","
                      " \"INSTRUCTIONS\": 12}]}";
    CU_ASSERT_EQUAL_FATAL(load(one, "INSTRUCTIONS", &rf, &unit, &err), 0);
    CU_ASSERT_EQUAL(rf.inst[0].n_samples, 0); /* one run: a value, no sample */
    CU_ASSERT_DOUBLE_EQUAL(rf.inst[0].value_ns, 12.0, 1e-9);
    ompb__resultfile_free(&rf);
}

static void test_formats(void)
{
    char buf[OMPB__UNIT_TEXT_MAX];
    CU_ASSERT_STRING_EQUAL(ompb__format_metric(buf, sizeof buf, 1234.5, OMPB__METRIC_COUNT), "1.234 k");
    CU_ASSERT_STRING_EQUAL(ompb__format_metric(buf, sizeof buf, 12e6, OMPB__METRIC_COUNT), "12 M");
    CU_ASSERT_STRING_EQUAL(ompb__format_metric(buf, sizeof buf, 0.25, OMPB__METRIC_COUNT), "0.25");
    CU_ASSERT_STRING_EQUAL(ompb__format_metric(buf, sizeof buf, 999.96, OMPB__METRIC_COUNT), "1 k");
    CU_ASSERT_STRING_EQUAL(ompb__format_metric(buf, sizeof buf, NAN, OMPB__METRIC_COUNT), "-");
    CU_ASSERT_STRING_EQUAL(ompb__format_metric(buf, sizeof buf, 1500, OMPB__METRIC_NS), "1.500 us");
    CU_ASSERT_STRING_EQUAL(ompb__format_metric_short(buf, sizeof buf, 2000, OMPB__METRIC_COUNT), "2 k");
    CU_ASSERT_TRUE(ompb__metric_is_time(NULL));
    CU_ASSERT_TRUE(ompb__metric_is_time("time"));
    CU_ASSERT_FALSE(ompb__metric_is_time("instructions"));
}

/* Scaling on a count: the ideal is the same count at every width. */
static void test_scaling_ratio(void)
{
    ompb__resultfile rf;
    ompb__metric_unit unit;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(load(two_runs, "instructions", &rf, &unit, &err), 0);
    ompb__scaling s;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build(&rf, &s), 0);
    ompb__scaling_set_metric(&s, "instructions", unit);
    CU_ASSERT_EQUAL_FATAL(s.n, 1);
    const ompb__scaling_family *f = &s.families[0];
    CU_ASSERT_STRING_EQUAL(f->metric, "instructions");
    CU_ASSERT_DOUBLE_EQUAL(f->points[1].median_ns, 225.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(f->points[1].speedup, 225.0 / 200.0, 1e-12);   /* ratio */
    CU_ASSERT_DOUBLE_EQUAL(f->points[1].efficiency, 200.0 / 225.0, 1e-12); /* work efficiency */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CU_ASSERT_EQUAL(ompb__scaling_print(mem, &s, OMPB__REPORT_CONSOLE), 0);
    CU_ASSERT_EQUAL(ompb__scaling_svg(mem, &s), 0);
    fclose(mem);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "team sum of instructions"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "work eff."));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1.12x"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "instructions per iteration (team)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "work efficiency"));
    free(text);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

/* One ompbench repetition of "k" on 1 thread, sample_size 1, process
 * `proc`: its rounds take 100 ns each (the same time everywhere), and count
 * instr[r] instructions. */
static json_t *rep_entry(size_t proc, size_t index, size_t reps, const double *instr,
                         size_t rounds)
{
    json_t *mk = json_array(), *vals = json_array(), *en = json_array(), *run = json_array();
    for (size_t r = 0; r < rounds; r++) {
        json_array_append_new(mk, json_integer(100));
        json_array_append_new(vals, json_pack("[[I]]", (json_int_t)llround(instr[r])));
        json_array_append_new(en, json_pack("[i]", 100));
        json_array_append_new(run, json_pack("[i]", 100));
    }
    return json_pack("{s:s, s:s, s:f, s:s, s:I, s:I, s:{s:i, s:i, s:I, s:I, s:{s:o}, "
                     "s:{s:[s], s:[s], s:o, s:o, s:o}}}",
                     "name", "k", "run_type", "iteration", "real_time", 100.0, "time_unit", "ns",
                     "repetitions", (json_int_t)reps, "repetition_index", (json_int_t)index,
                     "ompbench", "threads", 1, "sample_size", 1, "rounds", (json_int_t)rounds,
                     "process", (json_int_t)proc, "samples", "makespan_ns", mk, "counters",
                     "events", "instructions", "units", "count", "values", vals,
                     "time_enabled_ns", en, "time_running_ns", run);
}

/* `procs` processes of two repetitions each; repetition i counts around
 * level * (1 + jitter[i]) per round, one round of three far off (a
 * preempted round's page faults, say): the median, not the mean, is the
 * repetition's value. */
static json_t *side_json(size_t procs, double level, const double *jitter)
{
    json_t *list = json_array();
    size_t reps = 2 * procs;
    for (size_t i = 0; i < reps; i++) {
        double v = level * (1.0 + jitter[i]);
        double instr[3] = {v, v * 50.0, v};
        json_array_append_new(list, rep_entry(i % procs, i, reps, instr, 3));
    }
    return json_pack("{s:{}, s:o}", "context", "benchmarks", list);
}

static void load_root(json_t *root, const char *label, const char *metric,
                      ompb__resultfile *rf)
{
    char *text = json_dumps(root, 0);
    ompb__metric_unit unit;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__resultfile_parse(text, label, rf, &err), 0);
    if (metric)
        CU_ASSERT_EQUAL_FATAL(ompb__metric_apply_json(root, label, metric, rf, &unit, &err), 0);
    free(text);
}

/* The counter goes through the run-level path times take: each repetition's
 * value is the median of its rounds, each process one run. */
static void test_repetition_values(void)
{
    static const double jitter[8] = {0, 0.002, -0.001, 0.001, 0.003, -0.002, 0, 0.001};
    json_t *root = side_json(4, 1000.0, jitter);
    ompb__resultfile rf;
    load_root(root, "base.json", "instructions", &rf);
    const ompb__rf_instance *k = ompb__resultfile_find(&rf, "k");
    CU_ASSERT_EQUAL_FATAL(k->n_reps, 8);
    for (size_t i = 0; i < 8; i++) {
        CU_ASSERT_DOUBLE_EQUAL(k->reps[i].value_ns, 1000.0 * (1.0 + jitter[i]), 1e-6);
        CU_ASSERT_EQUAL(k->reps[i].process, (long long)(i % 4));
    }
    CU_ASSERT_EQUAL(k->n_samples, 24); /* every round of every repetition */
    ompb__resultfile_free(&rf);
    json_decref(root);
}

static void compare_sides(json_t *b, json_t *h, const char *metric, ompb__resultfile *rb,
                          ompb__resultfile *rh, ompb__comparison *cmp)
{
    load_root(b, "base.json", metric, rb);
    load_root(h, "head.json", metric, rh);
    ompb__compare_side base = {rb, 1}, head = {rh, 1};
    ompb__compare_opts opts = {OMPB__COMPARE_DEFAULT_THRESHOLD, OMPB__COMPARE_DEFAULT_ALPHA};
    CU_ASSERT_EQUAL_FATAL(ompb__compare_runs(&base, &head, &opts, cmp), 0);
    cmp->metric = metric;
    cmp->unit = metric ? OMPB__METRIC_COUNT : OMPB__METRIC_NS;
}

/* 10% more instructions in HEAD, times identical: the counter regresses,
 * judged on four runs a side; the same files by time are untouched. */
static void test_compare_runs(void)
{
    static const double jb[8] = {0, 0.002, -0.001, 0.001, 0.003, -0.002, 0, 0.001};
    static const double jh[8] = {0.001, -0.002, 0, 0.002, -0.001, 0.001, 0.003, 0};
    json_t *b = side_json(4, 1000.0, jb), *h = side_json(4, 1100.0, jh);
    ompb__resultfile rb, rh;
    ompb__comparison cmp;
    compare_sides(b, h, "instructions", &rb, &rh, &cmp);
    CU_ASSERT_EQUAL_FATAL(cmp.n, 1);
    const ompb__compare_row *r = &cmp.rows[0];
    CU_ASSERT_EQUAL(r->basis, OMPB__BASIS_PROCESSES);
    CU_ASSERT_EQUAL(r->base_runs, 4);
    CU_ASSERT_EQUAL(r->base_reps, 8);
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT_DOUBLE_EQUAL(r->change, 0.10, 0.005);
    CU_ASSERT_DOUBLE_EQUAL(r->base_ns, 1000.0, 2.0);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CU_ASSERT_EQUAL(ompb__compare_print(mem, &cmp, OMPB__REPORT_CONSOLE), 0);
    CU_ASSERT_EQUAL(ompb__compare_print(mem, &cmp, OMPB__REPORT_JSON), 0);
    fclose(mem);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "Metric: instructions per iteration"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 k"));
    CU_ASSERT_PTR_NULL(strstr(text, " ns "));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"metric\": \"instructions\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"base\": "));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"base_runs\": 4"));
    free(text);
    ompb__comparison_free(&cmp);
    ompb__resultfile_free(&rb);
    ompb__resultfile_free(&rh);
    compare_sides(b, h, NULL, &rb, &rh, &cmp);
    CU_ASSERT_EQUAL(cmp.rows[0].verdict, OMPB__VERDICT_UNTOUCHED);
    ompb__comparison_free(&cmp);
    ompb__resultfile_free(&rb);
    ompb__resultfile_free(&rh);
    json_decref(b);
    json_decref(h);
}

/* One process a side: noise unknown, as for times, whatever the rounds. */
static void test_compare_one_process(void)
{
    static const double jb[2] = {0, 0.001}, jh[2] = {0.001, 0};
    json_t *b = side_json(1, 1000.0, jb), *h = side_json(1, 2000.0, jh);
    ompb__resultfile rb, rh;
    ompb__comparison cmp;
    compare_sides(b, h, "instructions", &rb, &rh, &cmp);
    CU_ASSERT_EQUAL(cmp.rows[0].verdict, OMPB__VERDICT_UNKNOWN);
    CU_ASSERT_EQUAL(cmp.rows[0].basis, OMPB__BASIS_REPETITIONS);
    CU_ASSERT_DOUBLE_EQUAL(cmp.rows[0].change, 1.0, 0.01);
    ompb__comparison_free(&cmp);
    ompb__resultfile_free(&rb);
    ompb__resultfile_free(&rh);
    json_decref(b);
    json_decref(h);
}

static char *note_text(const ompb__comparison *cmp)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CU_ASSERT_EQUAL(ompb__compare_print(mem, cmp, OMPB__REPORT_CONSOLE), 0);
    fclose(mem);
    return text;
}

/* A count of 0 (page faults per iteration, say) has no ratio: not judged,
 * and the note says whether both sides are 0 or one only. */
static void test_compare_zero(void)
{
    static const double j[4] = {0, 0.001, 0.002, 0};
    json_t *zero = side_json(2, 0.0, j), *some = side_json(2, 1000.0, j);
    ompb__resultfile rb, rh;
    ompb__comparison cmp;
    compare_sides(zero, some, "instructions", &rb, &rh, &cmp);
    CU_ASSERT_EQUAL(cmp.rows[0].basis, OMPB__BASIS_NONE);
    CU_ASSERT_EQUAL(cmp.judged, 0);
    char *text = note_text(&cmp);
    CU_ASSERT_EQUAL(cmp.rows[0].verdict, OMPB__VERDICT_NO_RATIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "a value of 0 in BASE: no ratio to judge"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 no ratio (a value of 0)"));
    free(text);
    ompb__comparison_free(&cmp);
    ompb__resultfile_free(&rb);
    ompb__resultfile_free(&rh);
    compare_sides(zero, zero, "instructions", &rb, &rh, &cmp);
    text = note_text(&cmp);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "a value of 0 in BASE and HEAD: no ratio to judge"));
    free(text);
    ompb__comparison_free(&cmp);
    ompb__resultfile_free(&rb);
    ompb__resultfile_free(&rh);
    json_decref(zero);
    json_decref(some);
}

/* A repetition whose group never ran has no value: refused, not a 0. */
static void test_never_counted(void)
{
    expect_refusal("{\"benchmarks\": [{\"name\": \"x\", \"real_time\": 1, \"time_unit\": \"ns\","
                   " \"ompbench\": {\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1, 1]},"
                   " \"counters\": {\"events\": [\"cycles\"], \"units\": [\"count\"],"
                   " \"values\": [[[0]], [[0]]], \"time_enabled_ns\": [[5], [5]],"
                   " \"time_running_ns\": [[0], [0]]}}}]}",
                   "cycles", "counter 'cycles' was on the PMU in none of the 2 rounds");
    expect_refusal("{\"benchmarks\": [{\"name\": \"region:r[t=1]\", \"real_time\": 1,"
                   " \"time_unit\": \"ns\", \"ompbench\": {\"sample_size\": 1,"
                   " \"samples\": {\"makespan_ns\": [1]}, \"region\": {\"name\": \"r\"}}}]}",
                   "instructions", "an application region that counted nothing (run it with "
                   "OMPB_REGIONS_COUNTERS=instructions");
}

/* Event names are matched by their canonical name: a file written before
 * aliases were canonical says cpu-cycles where a newer run says cycles, and
 * --metric may use either name for either file; a region's figure is found
 * under the name its file used. The first %s is the switches' name, the
 * others the cycles'. */
static const char *const alias_file =
    "{\"benchmarks\": ["
    " {\"name\": \"k[t=1]\", \"run_type\": \"iteration\", \"real_time\": 1, \"time_unit\": \"ns\","
    "  \"ompbench\": {\"threads\": 1, \"sample_size\": 10, \"rounds\": 2,"
    "   \"samples\": {\"makespan_ns\": [100, 100]},"
    "   \"counters\": {\"events\": [\"%s\", \"%s\"], \"units\": [\"count\", \"count\"],"
    "    \"values\": [[[0, 1000]], [[0, 3000]]],"
    "    \"time_enabled_ns\": [[100], [100]], \"time_running_ns\": [[100], [100]]}}},"
    " {\"name\": \"region:r[t=1]\", \"run_type\": \"iteration\", \"real_time\": 1,"
    "  \"time_unit\": \"ns\", \"ompbench\": {\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1]},"
    "   \"region\": {\"name\": \"r\"}, \"counters\": {\"events\": [\"%s\"],"
    "   \"units\": [\"count\"], \"per_iteration\": {\"%s\": 42}}}}"
    "]}";

static void expect_cycles(const char *text, const char *metric)
{
    ompb__resultfile rf;
    ompb__metric_unit unit = OMPB__METRIC_NS;
    ompb_error err = {0};
    int rc = load(text, metric, &rf, &unit, &err);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) {
        fprintf(stderr, "\n--metric %s: %s\n", metric, err.text);
        return;
    }
    CU_ASSERT_EQUAL(unit, OMPB__METRIC_COUNT);
    CU_ASSERT_DOUBLE_EQUAL(ompb__resultfile_find(&rf, "k[t=1]")->value_ns, 200.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(ompb__resultfile_find(&rf, "region:r[t=1]")->value_ns, 42.0, 1e-9);
    ompb__resultfile_free(&rf);
}

static void test_alias_names(void)
{
    static const char *const names[][2] = {{"cs", "cpu-cycles"}, {"context-switches", "cycles"}};
    char text[2048];
    for (size_t f = 0; f < 2; f++) {
        snprintf(text, sizeof text, alias_file, names[f][0], names[f][1], names[f][1], names[f][1]);
        expect_cycles(text, "cycles");
        expect_cycles(text, "cpu-cycles");
    }
    expect_refusal(two_runs, "cpu-cycles", "counter 'cpu-cycles' was not counted");
}

/* A user counter (ompb_counter): the repetition's value is its flat key,
 * the samples its rounds' figures (a null round left out). */
static void test_user_counter(void)
{
    const char *text =
        "{\"benchmarks\": ["
        "{\"name\": \"u\", \"run_type\": \"iteration\", \"real_time\": 1, \"time_unit\": \"ns\","
        " \"lookups\": 20, \"ompbench\": {\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1, 1, 1]},"
        " \"user_counters\": {\"lookups\": {\"flags\": [\"rate\"], \"rounds\": [10, null, 30]}}}},"
        "{\"name\": \"u\", \"run_type\": \"iteration\", \"real_time\": 1, \"time_unit\": \"ns\","
        " \"lookups\": 40, \"ompbench\": {\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1]},"
        " \"user_counters\": {\"lookups\": {\"flags\": [\"rate\"], \"rounds\": [40]}}}}]}";
    ompb__resultfile rf;
    ompb__metric_unit unit = OMPB__METRIC_NS;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(load(text, "lookups", &rf, &unit, &err), 0);
    CU_ASSERT_EQUAL(unit, OMPB__METRIC_USER);
    const ompb__rf_instance *u = ompb__resultfile_find(&rf, "u");
    CU_ASSERT_EQUAL_FATAL(u->n_samples, 3);
    CU_ASSERT_DOUBLE_EQUAL(u->samples_ns[1], 30.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(u->reps[0].value_ns, 20.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(u->value_ns, 30.0, 1e-9);
    ompb__resultfile_free(&rf);
    expect_refusal("{\"benchmarks\": [{\"name\": \"u\", \"real_time\": 1, \"time_unit\": \"ns\","
                   " \"ompbench\": {\"sample_size\": 1, \"samples\": {\"makespan_ns\": [1]},"
                   " \"user_counters\": {\"lookups\": {\"rounds\": [\"x\"]}}}}]}",
                   "lookups", "user counter 'lookups' has no figure");
}

static const ompb_test_case cases[] = {
    {"user_counter", test_user_counter},
    {"team_sums", test_team_sums},
    {"refusals", test_refusals},
    {"flat_keys", test_flat_keys},
    {"formats", test_formats},
    {"scaling_ratio", test_scaling_ratio},
    {"repetition_values", test_repetition_values},
    {"compare_runs", test_compare_runs},
    {"compare_one_process", test_compare_one_process},
    {"compare_zero", test_compare_zero},
    {"never_counted", test_never_counted},
    {"alias_names", test_alias_names},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_metric = {"metric", NULL, NULL, cases};
