/* SPDX-License-Identifier: MIT */
/*
 * Marks (lib/report/marks.c) on hand-made records: each mark comes from the
 * one thing that provokes it and from nothing else, the CPU share is the
 * team's CPU time over threads x wall time, and every reporter shows them:
 * the console's marks and CPU share columns with one legend line per mark
 * shown and the short-round notes, the CSV's last two columns, the JSON's
 * ompbench object on iteration and aggregate entries. A clean run shows
 * no column and no legend. Also: OMPB_BENCH's note of an unoptimized
 * translation unit reaches the instances.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/counter.h>

#include "context/context.h"
#include "placement/pin_plan.h"
#include "model/registry.h"
#include "report/marks.h"
#include "report/report.h"
#include "suite.h"

#define ROUND_NS 1000
#define GAP_NS 100
#define SAMPLE 10

static void body(ompb_state *s) { (void)s; }
static const ompb_benchmark bench = {.name = "m", .file = "benches/m.c", .fn = body};

/* A clean measured repetition of inst: `rounds` rounds of ROUND_NS, as
 * many asked for, the team busy the whole time (CPU share 1). */
static void make_clean(ompb__result *res, const ompb__instance *inst, size_t rounds)
{
    memset(res, 0, sizeof *res);
    CU_ASSERT_EQUAL_FATAL(ompb__record_alloc(&res->rec, rounds, inst->threads), 0);
    ompb__record *rec = &res->rec;
    rec->inst = inst;
    rec->sampling = (ompb__sampling){.mode = OMPB__SAMPLING_MEASURE, .threads = inst->threads,
                                     .rounds = rounds, .repetitions = 1};
    rec->rounds = rounds;
    rec->sample_size = SAMPLE;
    rec->round_target_ns = ROUND_NS;
    for (size_t r = 0; r < rounds; r++) {
        rec->start_ns[r] = 1000000 + r * (ROUND_NS + GAP_NS);
        rec->end_ns[r] = rec->start_ns[r] + ROUND_NS;
        for (int t = 0; t < inst->threads; t++) {
            size_t c = r * (size_t)inst->threads + (size_t)t;
            rec->thread_start_ns[c] = rec->start_ns[r];
            rec->busy_ns[c] = ROUND_NS;
            rec->thread_iters[c] = SAMPLE;
        }
    }
    rec->measure_wall_ns = rounds * (ROUND_NS + GAP_NS);
    rec->cpu_ns = (uint64_t)inst->threads * rec->measure_wall_ns;
    CU_ASSERT_EQUAL(ompb__result_analyze(res), 0);
}

static void make_instance(ompb__instance *inst, const char *name, int threads)
{
    memset(inst, 0, sizeof *inst);
    inst->bench = &bench;
    inst->threads = threads;
    inst->thread_variant = true;
    snprintf(inst->name, sizeof inst->name, "%s[t=%d]", name, threads);
    snprintf(inst->uri, sizeof inst->uri, "benches/m.c::%s", inst->name);
}

/* A real run context whose plan for 2 threads is oversubscribed: both
 * threads bound to PU 0 (a plan made by hand, as ompb__pin_plan_new makes
 * one on a 1-PU machine; no topology needed). Its warning is not printed. */
static ompb__context *oversubscribed_context(void)
{
    static int pu[2] = {0, 0}, core[2] = {0, 0};
    const ompb__pin_plan plan = {.threads = 2, .binder = OMPB__BINDER_OURS,
                                 .policy = "compact", .pu = pu, .core = core,
                                 .oversubscribed = true};
    ompb__context *ctx = ompb__context_new_in(&(ompb__context_env){.quiet = true}, NULL, 2, "m");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ompb__context_add_plan(ctx, &plan);
    return ctx;
}

/* ---- the table and the decisions ----------------------------------------- */

static void test_table(void)
{
    static const char *const codes[] = {"few_rounds", "cpu_share", "oversubscribed",
                                        "nested_region", "team_width", "unoptimized",
                                        "one_value", "calibration", "overflow", "other"};
    CU_ASSERT_EQUAL_FATAL(ompb__n_mark_rows, sizeof codes / sizeof codes[0]);
    unsigned bits = 0;
    for (size_t i = 0; i < ompb__n_mark_rows; i++) {
        const ompb__mark_row *row = &ompb__mark_rows[i];
        CU_ASSERT_STRING_EQUAL(row->code, codes[i]);
        CU_ASSERT_EQUAL(row->bit & bits, 0u);          /* one bit each */
        CU_ASSERT_EQUAL(row->bit & (row->bit - 1), 0u);
        bits |= row->bit;
        CU_ASSERT(row->letter > ' ' && row->letter < 0x7f);
        for (size_t j = 0; j < i; j++)
            CU_ASSERT_NOT_EQUAL(ompb__mark_rows[j].letter, row->letter);
        CU_ASSERT(strlen(row->legend) > 20 && !strchr(row->legend, '\n'));
        CU_ASSERT(strlen(row->analysis) > 20 && !strchr(row->analysis, '\n'));
        /* The analysis tools' order is a permutation of the table. */
        for (size_t j = 0; j < i; j++)
            CU_ASSERT_NOT_EQUAL(ompb__mark_rows[j].analysis_rank, row->analysis_rank);
        CU_ASSERT(row->analysis_rank < ompb__n_mark_rows);
    }
}

/* The codes read back: every code of the table to its bit, an unknown one
 * to "other"; the analysis order leads with what makes a time not the
 * code's. */
static void test_codes(void)
{
    json_t *codes = json_pack("[s, s, s]", "few_rounds", "oversubscribed", "from_the_future");
    unsigned marks = 1;
    CU_ASSERT_EQUAL(ompb__marks_of_json(codes, &marks), 0);
    CU_ASSERT_EQUAL(marks, OMPB__MARK_FEW_ROUNDS | OMPB__MARK_OVERSUB | OMPB__MARK_OTHER);
    char text[128];
    CU_ASSERT_STRING_EQUAL(ompb__marks_text(text, sizeof text, marks),
                           "oversubscribed, few_rounds, other");
    json_t *back = ompb__marks_json(marks);
    CU_ASSERT_EQUAL(json_array_size(back), 3);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(back, 0)), "oversubscribed");
    json_decref(back);
    json_decref(codes);
    CU_ASSERT_EQUAL(ompb__marks_of_json(NULL, &marks), 0);
    CU_ASSERT_EQUAL(marks, 0u);
    json_t *bad = json_pack("[i]", 3);
    CU_ASSERT_EQUAL(ompb__marks_of_json(bad, &marks), -1);
    json_decref(bad);
}

typedef void (*provoke_fn)(ompb__result *res);

static void few_rounds_short(ompb__result *res)
{
    res->rec.sampling.rounds = 10; /* 6 of 10 measured */
    snprintf(res->rec.short_reason, sizeof res->rec.short_reason,
             "budget: body 18 ms per iteration");
}
static void cpu_share_low(ompb__result *res) { res->rec.cpu_ns = res->rec.cpu_ns / 2; }
static void nested(ompb__result *res) { res->rec.nested_regions = 6; }
static void other_width(ompb__result *res)
{
    res->rec.caller_team = true;
    res->rec.other_width_regions = 6;
}
static void one_value_region(ompb__result *res)
{
    static const double mean_busy[2] = {ROUND_NS, ROUND_NS};
    static const uint64_t kept[1] = {0};
    static const ompb__record_region region = {.name = "r", .instances = 1,
                                               .kept_index = kept, .mean_busy_ns = mean_busy};
    res->rec.region = &region;
    res->rec.sampling.mode = OMPB__SAMPLING_REGION;
}
static void disturbed(ompb__result *res) { res->rec.calibration_disturbed = true; }
/* A rate of 1e300 a round over rounds far shorter than a second. */
static void rate_overflow(ompb__result *res)
{
    static double values[64 * OMPB__UCOUNTERS_MAX];
    CU_ASSERT_FATAL(res->rec.rounds <= 64);
    for (size_t r = 0; r < res->rec.rounds; r++)
        values[r * OMPB__UCOUNTERS_MAX] = 1e300;
    res->rec.ucounters.n = 1;
    snprintf(res->rec.ucounters.name[0], sizeof res->rec.ucounters.name[0], "big");
    res->rec.ucounters.flags[0] = OMPB_COUNTER_RATE;
    res->rec.ucounter_values = values;
}

/* Each mark from the one thing that provokes it; the caller-team width and
 * the nesting only on the team kind they belong to. */
static void test_each_mark_alone(void)
{
    static const struct { provoke_fn fn; unsigned want; } cases[] = {
        {few_rounds_short, OMPB__MARK_FEW_ROUNDS}, {cpu_share_low, OMPB__MARK_CPU_SHARE},
        {nested, OMPB__MARK_NESTED}, {other_width, OMPB__MARK_WIDTH},
        {one_value_region, OMPB__MARK_ONE_VALUE}, {disturbed, OMPB__MARK_CALIBRATION},
        {rate_overflow, OMPB__MARK_OVERFLOW},
    };
    ompb__instance inst;
    make_instance(&inst, "m", 2);
    ompb__result res;
    make_clean(&res, &inst, 6);
    CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), 0u);
    ompb__record clean = res.rec;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cases[i].fn(&res);
        CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), cases[i].want);
        res.rec = clean;
    }
    /* The nesting count of a caller team (its code's own regions) and the
     * width of a harness team mean nothing. */
    res.rec.caller_team = true;
    res.rec.nested_regions = 3;
    CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), 0u);
    res.rec = clean;
    res.rec.other_width_regions = 3;
    CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), 0u);
    /* A caller team's low share may be the code's own serial parts. */
    res.rec = clean;
    res.rec.caller_team = true;
    cpu_share_low(&res);
    CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), 0u);
    CU_ASSERT_DOUBLE_EQUAL(ompb__cpu_share(&res.rec), 0.5, 1e-12);
    res.rec = clean;
    /* Fewer than 5 rounds, even when that is what was asked. */
    res.rec.rounds = res.rec.sampling.rounds = 4;
    CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), OMPB__MARK_FEW_ROUNDS);
    /* Test and simulation modes ask for one round and are not marked for
     * it, nor for the CPU share of that round. */
    res.rec.rounds = res.rec.sampling.rounds = 1;
    res.rec.cpu_ns = 1;
    res.rec.sampling.mode = OMPB__SAMPLING_TEST;
    CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), 0u);
    res.rec.sampling.mode = OMPB__SAMPLING_SIMULATE;
    CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), 0u);
    /* A failure is shown as a failure, not as marks. */
    res.rec.sampling.mode = OMPB__SAMPLING_MEASURE;
    res.rec.failed = true;
    CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), 0u);
    res.rec = clean;
    /* The benchmark's translation unit. */
    inst.unoptimized = true;
    CU_ASSERT_EQUAL(ompb__marks_of_record(&res.rec, NULL), OMPB__MARK_UNOPTIMIZED);
    inst.unoptimized = false;
    ompb__record_free(&res.rec);
}

/* Oversubscription is the run's plan for the record's width. */
static void test_oversubscribed(void)
{
    ompb__context *ctx = oversubscribed_context();
    ompb__instance two, one;
    make_instance(&two, "m", 2);
    make_instance(&one, "m", 1);
    ompb__result a, b;
    make_clean(&a, &two, 6);
    make_clean(&b, &one, 6);
    CU_ASSERT_EQUAL(ompb__marks_of_record(&a.rec, ctx), OMPB__MARK_OVERSUB);
    CU_ASSERT_EQUAL(ompb__marks_of_record(&a.rec, NULL), 0u);
    CU_ASSERT_EQUAL(ompb__marks_of_record(&b.rec, ctx), 0u); /* no plan of width 1 */
    ompb__record_free(&a.rec);
    ompb__record_free(&b.rec);
    ompb__context_free(ctx);
}

static void test_cpu_share(void)
{
    ompb__instance inst;
    make_instance(&inst, "m", 2);
    ompb__result res;
    make_clean(&res, &inst, 6);
    ompb__record *rec = &res.rec;
    CU_ASSERT_DOUBLE_EQUAL(ompb__cpu_share(rec), 1.0, 1e-12);
    rec->cpu_ns = 6600; /* of 2 x 6600 ns */
    CU_ASSERT_DOUBLE_EQUAL(ompb__cpu_share(rec), 0.5, 1e-12);
    /* Without the engine's wall time: from the first start to the last end
     * (6 rounds of 1000 ns, 5 gaps of 100 ns). */
    rec->measure_wall_ns = 0;
    CU_ASSERT_DOUBLE_EQUAL(ompb__cpu_share(rec), 6600.0 / (2 * 6500.0), 1e-12);
    rec->cpu_ns = 0;
    CU_ASSERT_TRUE(isnan(ompb__cpu_share(rec)));
    rec->cpu_ns = 6600;
    rec->failed = true;
    CU_ASSERT_TRUE(isnan(ompb__cpu_share(rec)));
    rec->failed = false;
    static const ompb__record_region region = {.name = "r", .instances = 6};
    rec->region = &region;
    CU_ASSERT_TRUE(isnan(ompb__cpu_share(rec)));
    rec->region = NULL;
    ompb__record_free(rec);
}

/* ---- the reports ----------------------------------------------------------- */

#define N_MARKED 8

typedef struct fixture {
    ompb__instance inst[N_MARKED];
    ompb__result res[N_MARKED];
    ompb__context *ctx;
} fixture;

/* Eight instances: one clean (t=1), then one per mark; the oversubscribed
 * one is the only t=2 instance, the run's plan for 2 threads wraps. */
static void make_fixture(fixture *f)
{
    static const char *const names[N_MARKED] = {"clean", "few", "share", "over",
                                                "nest", "width", "unopt", "calib"};
    static const provoke_fn provoke[N_MARKED] = {NULL, few_rounds_short, cpu_share_low, NULL,
                                                 nested, other_width, NULL, disturbed};
    for (int i = 0; i < N_MARKED; i++) {
        make_instance(&f->inst[i], names[i], i == 3 ? 2 : 1);
        make_clean(&f->res[i], &f->inst[i], 6);
        if (provoke[i])
            provoke[i](&f->res[i]);
    }
    f->inst[6].unoptimized = true;
    f->ctx = oversubscribed_context();
}

static void free_fixture(fixture *f)
{
    for (int i = 0; i < N_MARKED; i++)
        ompb__record_free(&f->res[i].rec);
    ompb__context_free(f->ctx);
}

static char *render(const ompb__reporter *r, const ompb__context *ctx, const ompb__result *res,
                    size_t n)
{
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, ctx, res, n), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    CU_ASSERT_EQUAL(r->write(fp, &rep), 0);
    fclose(fp);
    ompb__report_release(&rep);
    return text;
}

/* The console line that starts with name, or "" */
static void line_of(const char *text, const char *name, char *line, size_t len)
{
    line[0] = '\0';
    for (const char *at = text; at; at = strchr(at, '\n'), at = at ? at + 1 : NULL)
        if (strncmp(at, name, strlen(name)) == 0) {
            snprintf(line, len, "%.*s", (int)strcspn(at, "\n"), at);
            return;
        }
}

/* Whether line ends with the word w (after a space). */
static bool ends_with(const char *line, const char *w)
{
    char want[32];
    snprintf(want, sizeof want, " %s", w);
    size_t n = strlen(line), k = strlen(want);
    while (n > 0 && line[n - 1] == ' ')
        n--;
    return n >= k && strncmp(line + n - k, want, k) == 0;
}

static void test_console(void)
{
    fixture f;
    make_fixture(&f);
    char *text = render(&ompb__reporter_console, f.ctx, f.res, N_MARKED);
    static const char *const rows[N_MARKED][2] = {
        {"clean[t=1] ", "-"}, {"few[t=1] ", "R"}, {"share[t=1] ", "C"}, {"over[t=2] ", "O"},
        {"nest[t=1] ", "N"}, {"width[t=1] ", "W"}, {"unopt[t=1] ", "U"}, {"calib[t=1] ", "D"},
    };
    char line[1024];
    line_of(text, "benchmark ", line, sizeof line);
    CU_ASSERT_TRUE(ends_with(line, "marks"));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "CPU share"));
    for (int i = 0; i < N_MARKED; i++) {
        line_of(text, rows[i][0], line, sizeof line);
        CU_ASSERT_TRUE(ends_with(line, rows[i][1]));
        if (!ends_with(line, rows[i][1]))
            fprintf(stderr, "\n%s\nrow %s should end with %s\n", text, rows[i][0], rows[i][1]);
    }
    line_of(text, "share[t=1] ", line, sizeof line);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, " 50% C"));
    line_of(text, "clean[t=1] ", line, sizeof line);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, " 100% -"));
    /* One legend line per mark shown, in the table's order, and the reason
     * of the short repetition. */
    for (size_t i = 0; i < ompb__n_mark_rows; i++) {
        char legend[512];
        const ompb__mark_row *row = &ompb__mark_rows[i];
        snprintf(legend, sizeof legend, "\n%c %s: %s\n", row->letter, row->code, row->legend);
        bool want = row->bit != OMPB__MARK_ONE_VALUE && row->bit != OMPB__MARK_OVERFLOW &&
                    row->bit != OMPB__MARK_OTHER;
        CU_ASSERT_EQUAL(strstr(text, legend) != NULL, want);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nfew[t=1]: 6 of 10 rounds: budget: body 18 ms per "
                                        "iteration\n"));
    free(text);
    free_fixture(&f);
}

/* A clean run reads as before: no marks or CPU share column, no legend. */
static void test_console_clean(void)
{
    ompb__instance inst;
    make_instance(&inst, "m", 1);
    ompb__result res;
    make_clean(&res, &inst, 6);
    char *text = render(&ompb__reporter_console, NULL, &res, 1);
    CU_ASSERT_PTR_NULL(strstr(text, "marks"));
    CU_ASSERT_PTR_NULL(strstr(text, "CPU share"));
    char line[1024];
    line_of(text, "m[t=1] ", line, sizeof line);
    bool plain = ends_with(line, "0"); /* the invcsw count ends the row */
    CU_ASSERT_TRUE(plain);
    if (!plain)
        fprintf(stderr, "\n%s\n", text);
    free(text);
    /* Marked, but the CPU share is fine: no CPU share column. */
    res.rec.nested_regions = 2;
    text = render(&ompb__reporter_console, NULL, &res, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "marks"));
    CU_ASSERT_PTR_NULL(strstr(text, "CPU share"));
    line_of(text, "m[t=1] ", line, sizeof line);
    CU_ASSERT_TRUE(ends_with(line, "N"));
    free(text);
    ompb__record_free(&res.rec);
}

static void test_csv(void)
{
    fixture f;
    make_fixture(&f);
    char *text = render(&ompb__reporter_csv, f.ctx, f.res, N_MARKED);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",error,involuntary_switches,marks,cpu_share\n"));
    static const char *const tails[N_MARKED] = {
        ",\"\",0,,1\n", ",\"\",0,few_rounds,1\n", ",\"\",0,cpu_share,0.5\n",
        ",\"\",0,oversubscribed,1\n", ",\"\",0,nested_region,1\n", ",\"\",0,team_width,1\n",
        ",\"\",0,unoptimized,1\n", ",\"\",0,calibration,1\n",
    };
    const char *row = strchr(text, '\n');
    for (int i = 0; i < N_MARKED && row; i++) {
        char line[2048];
        size_t n = strcspn(row + 1, "\n") + 1;
        snprintf(line, sizeof line, "%.*s", (int)n, row + 1);
        size_t k = strlen(tails[i]);
        bool ok = strlen(line) >= k && strcmp(line + strlen(line) - k, tails[i]) == 0;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "\ncsv row '%s' should end with '%s'", line, tails[i]);
        row = strchr(row + 1, '\n');
    }
    free(text);
    /* Several marks are joined by ';' in the table's order. */
    f.res[1].rec.nested_regions = 1;
    text = render(&ompb__reporter_csv, f.ctx, &f.res[1], 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",few_rounds;nested_region,1\n"));
    free(text);
    free_fixture(&f);
}

/* The codes of a JSON marks array joined by ','. */
static void codes_of(const json_t *marks, char *buf, size_t len)
{
    size_t i, k = 0;
    const json_t *v;
    buf[0] = '\0';
    json_array_foreach(marks, i, v)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? "," : "", json_string_value(v));
}

static void test_json(void)
{
    fixture f;
    make_fixture(&f);
    f.res[7].rec.n_calib_steps = 2;
    f.res[7].rec.calib_steps[0] = (ompb__calib_step){1, 90};
    f.res[7].rec.calib_steps[1] = (ompb__calib_step){20, 1100};
    f.res[7].rec.barrier_cost_ns = 412.5;
    f.res[7].rec.recalibrations = 2;
    char *text = render(&ompb__reporter_json, f.ctx, f.res, N_MARKED);
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    static const char *const want[N_MARKED] = {"", "few_rounds", "cpu_share", "oversubscribed",
                                               "nested_region", "team_width", "unoptimized",
                                               "calibration"};
    size_t i, iterations = 0, aggregates = 0;
    json_t *e;
    json_array_foreach(json_object_get(root, "benchmarks"), i, e) {
        json_t *o = json_object_get(e, "ompbench");
        bool iteration = strcmp(json_string_value(json_object_get(e, "run_type")), "iteration") == 0;
        size_t k = iteration ? iterations++ : i / 5; /* iteration + 4 aggregates each */
        aggregates += !iteration;
        CU_ASSERT_FATAL(k < N_MARKED);
        char codes[256];
        CU_ASSERT_TRUE_FATAL(json_is_array(json_object_get(o, "marks")));
        codes_of(json_object_get(o, "marks"), codes, sizeof codes);
        CU_ASSERT_STRING_EQUAL(codes, want[k]);
        CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(o, "cpu_share")),
                               k == 2 ? 0.5 : 1.0, 1e-12);
        if (!iteration)
            continue;
        json_t *why = json_object_get(o, "short_reason");
        if (k == 1) {
            CU_ASSERT_STRING_EQUAL(json_string_value(why), "budget: body 18 ms per iteration");
        } else {
            CU_ASSERT_PTR_NULL(why);
        }
        json_t *cal = json_object_get(o, "calibration");
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(cal, "round_target_ns")), ROUND_NS);
        CU_ASSERT_EQUAL(json_is_true(json_object_get(cal, "disturbed")), k == 7);
        json_t *steps = json_object_get(cal, "steps");
        CU_ASSERT_EQUAL(json_array_size(steps), k == 7 ? 2 : 0);
        if (k == 7) {
            CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(cal, "barrier_cost_ns")),
                                   412.5, 1e-12);
            CU_ASSERT_EQUAL(json_integer_value(json_object_get(cal, "recalibrations")), 2);
            json_t *s1 = json_array_get(steps, 1);
            CU_ASSERT_EQUAL(json_integer_value(json_object_get(s1, "sample_size")), 20);
            CU_ASSERT_EQUAL(json_integer_value(json_object_get(s1, "busy_ns")), 1100);
        }
    }
    CU_ASSERT_EQUAL(iterations, N_MARKED);
    CU_ASSERT_EQUAL(aggregates, 4 * N_MARKED);
    json_decref(root);
    free(text);
    free_fixture(&f);
}

/* An instance over its repetitions: the marks of any, the lowest CPU share;
 * each repetition's own entry and CSV row keep their own. */
static void test_repetitions(void)
{
    ompb__instance inst;
    make_instance(&inst, "m", 2);
    ompb__result res[3];
    for (uint32_t i = 0; i < 3; i++) {
        make_clean(&res[i], &inst, 6);
        res[i].rec.sampling.repetition = i;
        res[i].rec.sampling.repetitions = 3;
    }
    res[1].rec.cpu_ns = res[1].rec.cpu_ns * 3 / 10;
    res[2].rec.cpu_ns = res[2].rec.cpu_ns * 9 / 10;
    res[2].rec.nested_regions = 1;
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, NULL, res, 3), 0);
    CU_ASSERT_EQUAL_FATAL(rep.n_instances, 1);
    CU_ASSERT_EQUAL(rep.instances[0].marks, OMPB__MARK_CPU_SHARE | OMPB__MARK_NESTED);
    CU_ASSERT_DOUBLE_EQUAL(rep.instances[0].cpu_share, 0.3, 1e-12);
    CU_ASSERT_EQUAL(rep.results[0].marks, 0u);
    CU_ASSERT_EQUAL(rep.results[1].marks, OMPB__MARK_CPU_SHARE);
    CU_ASSERT_EQUAL(rep.results[2].marks, OMPB__MARK_NESTED);
    ompb__report_release(&rep);
    char *text = render(&ompb__reporter_console, NULL, res, 3);
    char line[1024];
    line_of(text, "m[t=2] ", line, sizeof line);
    CU_ASSERT_TRUE(ends_with(line, "CN"));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, " 30% CN"));
    free(text);
    text = render(&ompb__reporter_csv, NULL, res, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",,1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",cpu_share,0.3\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",nested_region,0.9\n"));
    free(text);
    for (int i = 0; i < 3; i++)
        ompb__record_free(&res[i].rec);
}

/* Repetitions split the rounds asked for: "fewer than 5" is judged over
 * the instance's pooled rounds, never per repetition; "fewer than asked"
 * stays per repetition. */
static void test_few_rounds_pooled(void)
{
    ompb__instance inst;
    make_instance(&inst, "m", 1);
    ompb__result res[3];
    for (uint32_t i = 0; i < 3; i++) {
        make_clean(&res[i], &inst, 2);
        res[i].rec.sampling.repetition = i;
        res[i].rec.sampling.repetitions = 3;
        res[i].marks = ompb__marks_of_record(&res[i].rec, NULL);
        CU_ASSERT_EQUAL(res[i].marks, 0u);
    }
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, NULL, res, 3), 0);
    CU_ASSERT_EQUAL(rep.instances[0].marks, 0u); /* 6 rounds pooled */
    ompb__report_release(&rep);
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, NULL, res, 2), 0);
    CU_ASSERT_EQUAL(rep.instances[0].marks, OMPB__MARK_FEW_ROUNDS); /* 4 pooled */
    ompb__report_release(&rep);
    for (int i = 0; i < 3; i++)
        ompb__record_free(&res[i].rec);
}

/* A region seen once is marked in every report; one seen twice is not. */
static void test_one_value_region(void)
{
    ompb__instance inst;
    make_instance(&inst, "region:r", 2);
    ompb__result res;
    make_clean(&res, &inst, 1);
    one_value_region(&res);
    char *text = render(&ompb__reporter_console, NULL, &res, 1);
    char line[1024];
    line_of(text, "region:r[t=2] ", line, sizeof line);
    CU_ASSERT_TRUE(ends_with(line, "1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n1 one_value: "));
    free(text);
    text = render(&ompb__reporter_csv, NULL, &res, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",one_value,\n")); /* no CPU share for a region */
    free(text);
    text = render(&ompb__reporter_json, NULL, &res, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"marks\": [\n          \"one_value\"\n        ]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"cpu_share\": null"));
    free(text);
    static const double mean_busy[2] = {ROUND_NS, ROUND_NS};
    static const ompb__record_region twice = {.name = "r", .instances = 2,
                                              .mean_busy_ns = mean_busy};
    res.rec.region = &twice;
    text = render(&ompb__reporter_csv, NULL, &res, 1);
    CU_ASSERT_PTR_NULL(strstr(text, "one_value"));
    free(text);
    ompb__record_free(&res.rec);
}

/* OMPB_BENCH in a translation unit without __OPTIMIZE__, or without
 * _OPENMP, notes the descriptor (each note on its own, both on one
 * descriptor too); its instances carry the notes, others do not, an
 * unregistered descriptor is ignored, and clearing forgets them. */
static void test_build_notes_registration(void)
{
    static const ompb_benchmark fast = {.name = "fast", .file = "f.c", .fn = body};
    static const ompb_benchmark slow = {.name = "slow", .file = "s.c", .fn = body};
    static const ompb_benchmark serial = {.name = "serial", .file = "p.cpp", .fn = body};
    static const ompb_benchmark both = {.name = "both", .file = "b.cpp", .fn = body};
    static const ompb_benchmark stray = {.name = "stray", .file = "x.c", .fn = body};
    ompb__registry_clear();
    CU_ASSERT_EQUAL(ompb_register(&fast), 0);
    CU_ASSERT_EQUAL(ompb_register(&slow), 0);
    CU_ASSERT_EQUAL(ompb_register(&serial), 0);
    CU_ASSERT_EQUAL(ompb_register(&both), 0);
    ompb_note_unoptimized(&slow);
    ompb_note_unoptimized(&slow);
    ompb_note_no_openmp(&serial);
    ompb_note_unoptimized(&both);
    ompb_note_no_openmp(&both);
    ompb_note_no_openmp(&both);
    ompb_note_unoptimized(&stray);
    ompb_note_no_openmp(&stray);
    CU_ASSERT_FALSE(ompb__registry_unoptimized(&stray));
    CU_ASSERT_FALSE(ompb__registry_no_openmp(&stray));
    ompb__instance *list = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(ompb__instances_expand(NULL, 0, 1, 0, &list, &n, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    static const bool unoptimized[4] = {false, true, false, true};
    static const bool no_openmp[4] = {false, false, true, true};
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(list[i].unoptimized, unoptimized[i]);
        CU_ASSERT_EQUAL(list[i].no_openmp, no_openmp[i]);
        CU_ASSERT_EQUAL(ompb__registry_unoptimized(list[i].bench), unoptimized[i]);
        CU_ASSERT_EQUAL(ompb__registry_no_openmp(list[i].bench), no_openmp[i]);
    }
    free(list);
    ompb__registry_clear();
    CU_ASSERT_FALSE(ompb__registry_unoptimized(&slow));
    CU_ASSERT_FALSE(ompb__registry_no_openmp(&both));
}

static const ompb_test_case cases[] = {
    {"table", test_table},
    {"codes", test_codes},
    {"each_mark_alone", test_each_mark_alone},
    {"oversubscribed", test_oversubscribed},
    {"cpu_share", test_cpu_share},
    {"console", test_console},
    {"console_clean", test_console_clean},
    {"csv", test_csv},
    {"json", test_json},
    {"repetitions", test_repetitions},
    {"few_rounds_pooled", test_few_rounds_pooled},
    {"one_value_region", test_one_value_region},
    {"build_notes_registration", test_build_notes_registration},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_marks = {"marks", NULL, NULL, cases};
