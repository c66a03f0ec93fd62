/* SPDX-License-Identifier: MIT */
/*
 * The reporters' bytes over fixed records: console, CSV and JSON of two
 * reports (one repetition each: a benchmark with --counters and user
 * counters, a marked one, a failed one, a distributed one and an
 * application region; and three repetitions of one instance) compared with
 * files under tests/data/report_golden recorded from the reporters. Any
 * change of a reporter's output, however small, fails here; a change that
 * is meant re-records them with OMPB_GOLDEN_RECORD=1 (the run then fails,
 * so a recording never passes as a check) and shows in the diff. Each
 * report's JSON is also read back (lib/report/json_read.c) and rendered
 * again, which must give the same JSON, CSV and console bytes; older
 * files (tests/data/compare) read too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/bench.h>

#include "report/report.h"
#include "suite.h"

#define ROUNDS 6
#define THREADS 2
#define CELLS (ROUNDS * THREADS)

static void body(ompb_state *s) { (void)s; }
static const ompb_benchmark bench_a = {.name = "triad", .file = "benches/x.c", .fn = body};
static const ompb_benchmark bench_b = {.name = "copy", .file = "benches/x.c", .fn = body};

static ompb__instance inst[6];
static uint64_t start[ROUNDS] = {1000, 3000, 5000, 7000, 9000, 11000};
static uint64_t end[ROUNDS] = {2000, 4100, 6200, 8000, 10300, 12050};
static uint64_t tstart[CELLS] = {1000, 1010, 3000, 3020, 5000, 5000,
                                 7000, 7040, 9000, 9005, 11000, 11001};
static uint64_t busy[CELLS] = {1000, 500, 1100, 1080, 1200, 1200, 960, 960, 1300, 1200, 1050, 1000};
static uint64_t iters[CELLS] = {10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10};
static int pus[THREADS] = {0, 1};
static uint64_t switches[THREADS] = {3, 1};
/* cycles, instructions, context-switches, task-clock per round and thread */
static uint64_t cvalues[CELLS * 4];
static uint64_t enabled[CELLS], running[CELLS];
static double uvalues[ROUNDS * OMPB__UCOUNTERS_MAX];
static int64_t rank_bounds[2 * ROUNDS * 2];

static void name_instance(ompb__instance *in, const ompb_benchmark *b, const char *name)
{
    memset(in, 0, sizeof *in);
    in->bench = b;
    in->threads = THREADS;
    in->thread_variant = true;
    snprintf(in->name, sizeof in->name, "%s", name);
    snprintf(in->uri, sizeof in->uri, "benches/x.c::%s", name);
}

static ompb__result base_result(ompb__instance *in)
{
    ompb__result res;
    memset(&res, 0, sizeof res);
    res.rec.inst = in;
    res.rec.sampling.mode = OMPB__SAMPLING_MEASURE;
    res.rec.sampling.rounds = ROUNDS;
    res.rec.sampling.repetitions = 1;
    res.rec.threads = THREADS;
    res.rec.sample_size = 10;
    res.rec.rounds = ROUNDS;
    res.rec.start_ns = start;
    res.rec.end_ns = end;
    res.rec.thread_start_ns = tstart;
    res.rec.busy_ns = busy;
    res.rec.thread_iters = iters;
    res.rec.thread_pu = pus;
    res.rec.involuntary_switches = switches;
    res.rec.bytes_per_iter = 100;
    res.rec.cpu_ns = 2 * 11050;
    return res;
}

static void add_counter(ompb__counter_set *set, const char *name, ompb__counter_unit unit)
{
    snprintf(set->ev[set->n].name, sizeof set->ev[0].name, "%s", name);
    set->ev[set->n++].unit = unit;
}

/* Counts that differ by round and thread; round 2 of thread 1 multiplexed. */
static void fill_counters(ompb__record *rec)
{
    memset(&rec->counters, 0, sizeof rec->counters);
    add_counter(&rec->counters, "cycles", OMPB__COUNTER_COUNT);
    add_counter(&rec->counters, "instructions", OMPB__COUNTER_COUNT);
    add_counter(&rec->counters, "context-switches", OMPB__COUNTER_COUNT);
    add_counter(&rec->counters, "task-clock", OMPB__COUNTER_NS);
    for (size_t c = 0; c < CELLS; c++) {
        cvalues[c * 4 + 0] = 20000 + 1000 * c;
        cvalues[c * 4 + 1] = 31000 + 700 * c;
        cvalues[c * 4 + 2] = c % 5 == 0;
        cvalues[c * 4 + 3] = 990 + 3 * c;
        enabled[c] = 1000;
        running[c] = c == 5 ? 500 : 1000;
    }
    rec->counter_values = cvalues;
    rec->counter_enabled_ns = enabled;
    rec->counter_running_ns = running;
}

static void fill_ucounters(ompb__record *rec)
{
    memset(&rec->ucounters, 0, sizeof rec->ucounters);
    snprintf(rec->ucounters.name[0], OMPB__UCOUNTER_NAME_MAX, "hits");
    snprintf(rec->ucounters.name[1], OMPB__UCOUNTER_NAME_MAX, "per");
    rec->ucounters.flags[0] = OMPB_COUNTER_RATE;
    rec->ucounters.flags[1] = OMPB_COUNTER_PER_ITERATION | OMPB_COUNTER_AVG_THREADS;
    rec->ucounters.n = 2;
    for (size_t r = 0; r < ROUNDS; r++) {
        uvalues[r * OMPB__UCOUNTERS_MAX] = 1000 + 10 * (double)r;
        uvalues[r * OMPB__UCOUNTERS_MAX + 1] = 40 + (double)r;
    }
    rec->ucounter_values = uvalues;
}

static void fill_ranks(ompb__record *rec)
{
    for (size_t k = 0; k < 2; k++)
        for (size_t r = 0; r < ROUNDS; r++) {
            rank_bounds[(k * ROUNDS + r) * 2] = (int64_t)(5 * k);
            rank_bounds[(k * ROUNDS + r) * 2 + 1] = (int64_t)(900 + 60 * r + 40 * k);
        }
    rec->ranks = 2;
    rec->rank_bounds = rank_bounds;
}

static ompb__record_region region = {
    .name = "solve", .instances = 40, .sampled = true, .quantile_error = 0.01,
    .shared_pu = 2, .shared_pu_first = {0, 1, 3}, .misuse = 1,
};
static uint64_t kept_index[ROUNDS] = {0, 7, 13, 21, 30, 39};
static double mean_busy[THREADS] = {950.5, 901.25};

/* An application region as lib/regions/region_report.c fills it: no analysis, its
 * statistics over every instance, counters and user counters per instance. */
static ompb__result region_result(ompb__instance *in)
{
    ompb__result res = base_result(in);
    res.rec.sampling = (ompb__sampling){.mode = OMPB__SAMPLING_REGION, .threads = THREADS,
                                        .rounds = 40, .sample_size = 1};
    res.rec.sample_size = 1;
    res.rec.involuntary_switches = NULL;
    res.rec.cpu_ns = 0;
    res.rec.bytes_per_iter = 0;
    region.kept_index = kept_index;
    region.mean_busy_ns = mean_busy;
    res.rec.region = &region;
    CU_ASSERT_EQUAL(ompb__result_analyze(&res), 0);
    res.mean_skew_ns = 12.5;
    res.real_time_ns = 1090;
    res.cpu_time_ns = 0;
    ompb__counter_set set = {.n = 0};
    add_counter(&set, "cycles", OMPB__COUNTER_COUNT);
    add_counter(&set, "instructions", OMPB__COUNTER_COUNT);
    add_counter(&set, "context-switches", OMPB__COUNTER_COUNT);
    add_counter(&set, "task-clock", OMPB__COUNTER_NS);
    res.rec.counters = set;
    const double per[4] = {4100.5, 6300.25, 0.05, 1999.5};
    ompb__counter_figures_set(&res.counts, &set, per, true);
    fill_ucounters(&res.rec);
    res.rec.ucounter_values = NULL;
    res.user[0] = 2.5e6;
    res.user[1] = 17;
    return res;
}

/* Five instances, one repetition each. */
static size_t single_results(ompb__result *out)
{
    name_instance(&inst[0], &bench_a, "triad[t=2]");
    out[0] = base_result(&inst[0]);
    fill_counters(&out[0].rec);
    fill_ucounters(&out[0].rec);
    CU_ASSERT_EQUAL(ompb__result_analyze(&out[0]), 0);

    name_instance(&inst[1], &bench_b, "copy[t=2]");
    out[1] = base_result(&inst[1]);
    out[1].rec.rounds = 3; /* few rounds */
    out[1].rec.cpu_ns = 1000; /* a low CPU share */
    out[1].rec.nested_regions = 2;
    out[1].rec.items_per_iter = 7;
    out[1].rec.bytes_per_iter = 0;
    snprintf(out[1].rec.short_reason, sizeof out[1].rec.short_reason, "budget: body 1 ms");
    CU_ASSERT_EQUAL(ompb__result_analyze(&out[1]), 0);

    name_instance(&inst[2], &bench_b, "copy[t=4]");
    out[2] = base_result(&inst[2]);
    out[2].rec.failed = true;
    out[2].rec.rounds = 0;
    snprintf(out[2].rec.error, sizeof out[2].rec.error, "body said \"no\"");
    CU_ASSERT_EQUAL(ompb__result_analyze(&out[2]), 0);

    name_instance(&inst[3], &bench_a, "triad[t=2]/ranks");
    out[3] = base_result(&inst[3]);
    fill_ranks(&out[3].rec);
    CU_ASSERT_EQUAL(ompb__result_analyze(&out[3]), 0);

    name_instance(&inst[4], NULL, "region:solve[t=2]");
    out[4] = region_result(&inst[4]);
    return 5;
}

/* Three repetitions of one instance with counters and user counters. */
static size_t repeated_results(ompb__result *out)
{
    static const uint64_t sizes[3] = {10, 5, 20};
    name_instance(&inst[5], &bench_a, "triad[t=2]");
    for (uint32_t i = 0; i < 3; i++) {
        out[i] = base_result(&inst[5]);
        fill_counters(&out[i].rec);
        fill_ucounters(&out[i].rec);
        out[i].rec.sample_size = sizes[i];
        out[i].rec.sampling.repetition = i;
        out[i].rec.sampling.repetitions = 3;
        out[i].process = i;
        CU_ASSERT_EQUAL(ompb__result_analyze(&out[i]), 0);
    }
    return 3;
}

static char *render_report(const ompb__reporter *r, const ompb__report *rep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_EQUAL(r->write(fp, rep), 0);
    fclose(fp);
    return buf;
}

static char *render(const ompb__reporter *r, const ompb__result *res, size_t n)
{
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, NULL, res, n), 0);
    char *buf = render_report(r, &rep);
    ompb__report_release(&rep);
    return buf;
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int c;
    while ((c = fgetc(fp)) != EOF)
        fputc(c, mem);
    fclose(fp);
    fclose(mem);
    return buf;
}

/* The first line where got and want differ, for the failure message. */
static void show_difference(const char *file, const char *got, const char *want)
{
    size_t line = 1, i = 0;
    while (got[i] && got[i] == want[i])
        line += got[i++] == '\n';
    size_t from = i;
    while (from > 0 && got[from - 1] != '\n')
        from--;
    fprintf(stderr, "\n%s: line %zu differs\n  got:  %.*s\n  want: %.*s\n", file, line,
            (int)strcspn(got + from, "\n"), got + from, (int)strcspn(want + from, "\n"),
            want + from);
}

static void check_golden(const char *file, const char *got)
{
    char path[512];
    snprintf(path, sizeof path, "%s/report_golden/%s", OMPB_TEST_DATA_DIR, file);
    const char *record = getenv("OMPB_GOLDEN_RECORD");
    if (record && strcmp(record, "1") == 0) {
        FILE *fp = fopen(path, "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fputs(got, fp);
        fclose(fp);
        CU_FAIL("recorded the golden file: rerun without OMPB_GOLDEN_RECORD");
        return;
    }
    char *want = slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    CU_ASSERT_STRING_EQUAL(got, want);
    if (strcmp(got, want) != 0)
        show_difference(file, got, want);
    free(want);
}

static void check_all(const char *stem, const ompb__result *res, size_t n)
{
    const ompb__reporter *const reporters[] = {&ompb__reporter_console, &ompb__reporter_csv,
                                               &ompb__reporter_json};
    const char *const ext[] = {"txt", "csv", "json"};
    for (size_t k = 0; k < 3; k++) {
        char file[64];
        snprintf(file, sizeof file, "%s.%s", stem, ext[k]);
        char *got = render(reporters[k], res, n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        check_golden(file, got);
        free(got);
    }
}

/* The round trip: the run's JSON read back (ompb__result_file_read) and
 * rendered again gives the run's own JSON, CSV and console bytes. */
static void check_round_trip(const char *stem, const ompb__result *res, size_t n)
{
    const ompb__reporter *const reporters[] = {&ompb__reporter_json, &ompb__reporter_csv,
                                               &ompb__reporter_console};
    char *json = render(&ompb__reporter_json, res, n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    json_error_t jerr;
    json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    ompb__result_file file;
    ompb_error err = {0};
    int rc = ompb__result_file_read(&file, root, stem, &err);
    if (rc)
        fprintf(stderr, "\n%s\n", err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__result_file_report(&file, &rep), 0);
    for (size_t k = 0; k < 3; k++) {
        char *want = k == 0 ? json : render(reporters[k], res, n);
        char *got = render_report(reporters[k], &rep);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_STRING_EQUAL(got, want);
        if (strcmp(got, want) != 0)
            show_difference(reporters[k]->name, got, want);
        free(got);
        if (want != json)
            free(want);
    }
    ompb__report_release(&rep);
    ompb__result_file_release(&file);
    json_decref(root);
    free(json);
}

static void test_single(void)
{
    ompb__result res[5];
    size_t n = single_results(res);
    check_all("single", res, n);
    check_round_trip("single", res, n);
}

static void test_repeated(void)
{
    ompb__result res[3];
    size_t n = repeated_results(res);
    check_all("repeated", res, n);
    check_round_trip("repeated", res, n);
}

/* The marks and CPU share column without counters: what the console pads
 * its rate column for. */
static void test_marked_only(void)
{
    ompb__result one[1];
    name_instance(&inst[1], &bench_b, "copy[t=2]");
    one[0] = base_result(&inst[1]);
    one[0].rec.rounds = 3;
    one[0].rec.cpu_ns = 1000;
    one[0].rec.involuntary_switches = NULL;
    CU_ASSERT_EQUAL(ompb__result_analyze(&one[0]), 0);
    check_all("marked", one, 1);
    check_round_trip("marked", one, 1);
}

static char *write_file(const ompb__reporter *r, const json_t *root, size_t *n)
{
    ompb__result_file file;
    ompb_error err = {0};
    int rc = ompb__result_file_read(&file, root, "file", &err);
    if (rc)
        fprintf(stderr, "\n%s\n", err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__result_file_report(&file, &rep), 0);
    char *out = render_report(r, &rep);
    *n = file.n;
    ompb__report_release(&rep);
    ompb__result_file_release(&file);
    return out;
}

/* Files older versions wrote (keys added since are optional) and Google
 * Benchmark's read; what the reader writes of them reads back to the
 * same text, and the CSV has a row per iteration entry. */
static void test_older_files(void)
{
    static const char *const files[] = {
        "base.json", "runs_base.json", "scaling.json", "marks_base.json", "no_samples.json",
        "scaling_marks.json", "gbench_base.json", "gbench_reps_base.json",
        "gbench_agg_base.json",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/compare/%s", OMPB_TEST_DATA_DIR, files[i]);
        json_error_t jerr;
        json_t *root = json_load_file(path, 0, &jerr);
        CU_ASSERT_PTR_NOT_NULL_FATAL(root);
        size_t n = 0, again_n = 0, lines = 0;
        char *json = write_file(&ompb__reporter_json, root, &n);
        json_t *again = json_loads(json, 0, &jerr);
        CU_ASSERT_PTR_NOT_NULL_FATAL(again);
        char *json2 = write_file(&ompb__reporter_json, again, &again_n);
        CU_ASSERT_EQUAL(again_n, n);
        CU_ASSERT_STRING_EQUAL(json2, json);
        char *csv = write_file(&ompb__reporter_csv, root, &n);
        for (const char *c = csv; *c; c++)
            lines += *c == '\n';
        CU_ASSERT_EQUAL(lines, n + 1);
        free(write_file(&ompb__reporter_console, root, &n));
        free(csv);
        free(json2);
        free(json);
        json_decref(again);
        json_decref(root);
    }
}

/* A value of the wrong type is refused with the place it is at. */
static void test_read_refuses(void)
{
    static const struct { const char *text, *where; } bad[] = {
        {"{\"benchmarks\": 3}", "not a result file"},
        {"{\"benchmarks\": [{\"name\": 1}]}", "benchmarks[0]"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"ompbench\": {\"stats\": {\"median_ns\": "
         "\"x\"}}}]}", "benchmarks[0].ompbench.stats"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"ompbench\": {\"rounds\": 2, \"samples\": "
         "{\"makespan_ns\": [1]}}}]}", "benchmarks[0].ompbench.rounds"},
        /* Nothing is allocated for rounds a file does not hold. */
        {"{\"benchmarks\": [{\"name\": \"a\", \"ompbench\": {\"threads\": 4096, \"rounds\": "
         "1000000}}]}", "more rounds x threads"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"ompbench\": {\"rounds\": 1, \"samples\": "
         "{\"makespan_ns\": [-1]}}}]}", "benchmarks[0].ompbench.samples.makespan_ns"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"ompbench\": {\"mode\": \"fast\"}}]}",
         "benchmarks[0].ompbench.mode"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *root = json_loads(bad[i].text, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(root);
        ompb__result_file file;
        ompb_error err = {0};
        CU_ASSERT_EQUAL(ompb__result_file_read(&file, root, "f.json", &err), OMPB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, bad[i].where));
        CU_ASSERT_PTR_NULL(file.results);
        json_decref(root);
    }
}

static const ompb_test_case cases[] = {
    {"single", test_single},
    {"repeated", test_repeated},
    {"marked_only", test_marked_only},
    {"older_files", test_older_files},
    {"read_refuses", test_read_refuses},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_report_golden = {"report_golden", NULL, NULL, cases};
