/* SPDX-License-Identifier: MIT */
/*
 * The decisions of `ompbench ab` without processes (tools/lib/analysis/
 * ab_judge.c, ab_report.c): result files written by the test in memory
 * (Google Benchmark JSON, or ompbench's with its rounds' clean flags) are
 * pooled into the ledger as BASE/HEAD pairs, as tools/ab_run.c pools the
 * runs' files, and judged: the verdicts regressed, improved, untouched,
 * noisy and disturbed; pairing by pair number across a run that left no
 * file; faults in a row stopping a side; Benjamini-Hochberg across the
 * rows; a row listed by one side only; and the JSON report of the result.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/ab.h"
#include "suite.h"

#define ALPHA 0.05
#define THRESHOLD 0.05

/* Run values of ab_fake.py's `wild`: a spread no look at 5% decides. */
static const double WILD[] = {1.0, 2.6, 0.55, 1.9, 0.7, 3.1, 1.4, 0.45, 2.2, 0.9};

typedef struct ab_case {
    ompb__ab_settings set;
    ompb__ab_ledger l;
    ompb__ab_rows rows;
    ompb__ab_result res;
} ab_case;

static void case_init(ab_case *c, size_t min_runs, size_t max_runs)
{
    memset(c, 0, sizeof *c);
    c->set.cmd[0] = "base";
    c->set.cmd[1] = "head";
    c->set.opts = (ompb__compare_opts){THRESHOLD, ALPHA};
    c->set.min_runs = min_runs;
    c->set.max_runs = max_runs;
    c->set.seed = 42;
    CU_ASSERT_FATAL(ompb__seq_plan_init(&c->set.plan, min_runs, max_runs, ALPHA, THRESHOLD) == 0);
    c->set.plan.futility = true;
}

static void case_free(ab_case *c)
{
    ompb__ab_rows_free(&c->rows);
    ompb__ab_ledger_free(&c->l);
}

/* Both sides list the same names. */
static void list_both(ab_case *c, char *const *names, size_t n)
{
    CU_ASSERT_FATAL(ompb__ab_rows_add_listed(&c->rows, OMPB__AB_BASE, names, n) == 0);
    CU_ASSERT_FATAL(ompb__ab_rows_add_listed(&c->rows, OMPB__AB_HEAD, names, n) == 0);
}

/* A result file of n instances, one value (ns per iteration) each, as a
 * run writes it: Google Benchmark JSON; with clean (0 or 1), ompbench's
 * entry of 5 rounds whose clean flags are all `clean`. */
static void make_file(char *const *names, const double *ns, size_t n, int clean,
                      ompb__resultfile *rf)
{
    json_t *entries = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:s}", "name",
                              names[i], "run_name", names[i], "run_type", "iteration",
                              "repetitions", 1, "repetition_index", 0, "threads", 1,
                              "iterations", 1000, "real_time", ns[i], "cpu_time", ns[i],
                              "time_unit", "ns");
        if (clean >= 0) {
            json_int_t v = (json_int_t)llround(ns[i]);
            json_object_set_new(e, "ompbench",
                                json_pack("{s:i, s:i, s:{s:[I,I,I,I,I], s:[b,b,b,b,b]}}",
                                          "sample_size", 1, "rounds", 5, "samples",
                                          "makespan_ns", v, v, v, v, v, "clean", clean, clean,
                                          clean, clean, clean));
        }
        json_array_append_new(entries, e);
    }
    json_t *doc = json_pack("{s:{s:s, s:i}, s:o}", "context", "executable", "fake", "num_cpus",
                            2, "benchmarks", entries);
    char *text = json_dumps(doc, 0);
    ompb_error err = {0};
    int rc = ompb__resultfile_parse(text, "test", rf, &err);
    if (rc)
        fprintf(stderr, "\n    %s\n", err.text);
    CU_ASSERT_FATAL(rc == 0);
    free(text);
    json_decref(doc);
}

/* One run of side: its outcome, and its file pooled when it has values. */
static void add_run(ab_case *c, int side, ompb__ab_outcome how, char *const *names,
                    const double *ns, size_t n, int clean)
{
    ompb__ab_run *run = ompb__ab_ledger_add_run(&c->l, side);
    CU_ASSERT_FATAL(run != NULL);
    run->outcome = how;
    run->instances = n;
    ompb__ab_ledger_end_run(&c->l, run);
    if (!ns)
        return;
    ompb__resultfile rf;
    make_file(names, ns, n, clean, &rf);
    CU_ASSERT_FATAL(ompb__ab_ledger_pool(&c->l, run, &rf) == 0);
}

/* A pair of OK runs (BASE first) of one instance, then the judge. */
static void pair_of_one(ab_case *c, char *name, double base, double head)
{
    add_run(c, OMPB__AB_BASE, OMPB__AB_RUN_OK, &name, &base, 1, -1);
    add_run(c, OMPB__AB_HEAD, OMPB__AB_RUN_OK, &name, &head, 1, -1);
    CU_ASSERT_FATAL(ompb__ab_judge(&c->set, &c->l, &c->rows, &c->res) == 0);
}

/* A small deterministic jitter: 1 + 0.1% x {-1, 0, 1}. */
static double jitter(size_t k, int side)
{
    return 1.0 + 0.001 * (double)((int)((k * 7 + (size_t)side) % 3) - 1);
}

/* Pairs of one instance, HEAD = factor x BASE, until the row is decided or
 * max_runs pairs ran; the row. */
static const ompb__ab_row *run_until_decided(ab_case *c, double factor)
{
    char *name = "steady";
    list_both(c, &name, 1);
    for (size_t k = 0; k < c->set.max_runs; k++) {
        pair_of_one(c, name, 100.0 * jitter(k, 0), 100.0 * factor * jitter(k, 1));
        if (c->res.open == 0)
            break;
    }
    CU_ASSERT_EQUAL(c->rows.n, 1);
    return &c->rows.v[0];
}

static void test_regressed(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    const ompb__ab_row *r = run_until_decided(&c, 1.10);
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT(r->decided);
    CU_ASSERT_EQUAL(r->seq.looks, 1);
    CU_ASSERT_EQUAL(r->seq.n, 3);
    CU_ASSERT(r->q <= ALPHA);
    CU_ASSERT(expm1(r->seq.p_low) > THRESHOLD);
    CU_ASSERT_EQUAL(c.res.counts[OMPB__VERDICT_REGRESSED], 1);
    CU_ASSERT_EQUAL(c.res.judged, 1);
    CU_ASSERT_EQUAL(c.res.open, 0);
    CU_ASSERT_FALSE(ompb__ab_row_runs_again(r));
    case_free(&c);
}

static void test_improved(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    const ompb__ab_row *r = run_until_decided(&c, 0.80);
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_IMPROVED);
    CU_ASSERT(r->decided);
    CU_ASSERT(expm1(r->seq.p_high) < -THRESHOLD);
    CU_ASSERT_EQUAL(c.res.counts[OMPB__VERDICT_IMPROVED], 1);
    CU_ASSERT_EQUAL(c.res.counts[OMPB__VERDICT_REGRESSED], 0);
    case_free(&c);
}

static void test_untouched(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    const ompb__ab_row *r = run_until_decided(&c, 1.0);
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_UNTOUCHED);
    CU_ASSERT(r->decided);
    CU_ASSERT(r->seq.within);
    CU_ASSERT(expm1(r->seq.low) > -THRESHOLD && expm1(r->seq.high) < THRESHOLD);
    CU_ASSERT_EQUAL(c.res.counts[OMPB__VERDICT_UNTOUCHED], 1);
    CU_ASSERT_EQUAL(c.res.open, 0);
    case_free(&c);
}

/* Before the first look (2 of 3 runs) a row is open and not looked at;
 * then ab_fake's wild values: noisy, and given up (futile) before the
 * horizon, with an estimate of the runs that would decide it. */
static void test_noisy(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    char *name = "wild";
    list_both(&c, &name, 1);
    const ompb__ab_row *r = &c.rows.v[0];
    size_t k = 0;
    for (; k < 2; k++)
        pair_of_one(&c, name, 100.0 * WILD[k % 10], 100.0 * WILD[(k + 3) % 10]);
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_UNKNOWN);
    CU_ASSERT_FALSE(r->decided);
    CU_ASSERT_EQUAL(c.res.open, 1);
    CU_ASSERT_EQUAL(c.res.judged, 0);
    for (; k < c.set.max_runs && c.res.open; k++)
        pair_of_one(&c, name, 100.0 * WILD[k % 10], 100.0 * WILD[(k + 3) % 10]);
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_NOISY);
    CU_ASSERT(r->decided);
    CU_ASSERT(r->seq.looks >= 1);
    CU_ASSERT(r->runs_needed > c.set.max_runs);
    CU_ASSERT_EQUAL(c.res.counts[OMPB__VERDICT_NOISY], 1);
    CU_ASSERT_EQUAL(c.res.open, 0);
    /* The stop reason says the noisy ones stay undecided. */
    CU_ASSERT(ompb__ab_should_stop(&c.set, &c.l, k, 1.0, 0.1, 0, &c.res));
    CU_ASSERT_PTR_NOT_NULL(strstr(c.res.stop_reason, "the noisy ones are undecided"));
    case_free(&c);
}

/* Runs whose rounds were all preempted (none clean): disturbed, open. */
static void test_disturbed(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    char *name = "busy";
    list_both(&c, &name, 1);
    for (size_t k = 0; k < 4; k++) {
        double b = 1000.0, h = 1500.0;
        add_run(&c, OMPB__AB_BASE, OMPB__AB_RUN_OK, &name, &b, 1, 0);
        add_run(&c, OMPB__AB_HEAD, OMPB__AB_RUN_OK, &name, &h, 1, 0);
        CU_ASSERT_FATAL(ompb__ab_judge(&c.set, &c.l, &c.rows, &c.res) == 0);
    }
    const ompb__ab_row *r = &c.rows.v[0];
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_DISTURBED);
    CU_ASSERT_FALSE(r->decided);
    CU_ASSERT_EQUAL(r->seq.looks, 0);
    CU_ASSERT_EQUAL(c.res.counts[OMPB__VERDICT_DISTURBED], 1);
    CU_ASSERT_EQUAL(c.res.open, 1);
    /* The same runs with clean rounds: judged, regressed by 50%. */
    ab_case d;
    case_init(&d, 3, 12);
    list_both(&d, &name, 1);
    for (size_t k = 0; k < 3; k++) {
        double b = 1000.0 + (double)k, h = 1500.0 + (double)k;
        add_run(&d, OMPB__AB_BASE, OMPB__AB_RUN_OK, &name, &b, 1, 1);
        add_run(&d, OMPB__AB_HEAD, OMPB__AB_RUN_OK, &name, &h, 1, 1);
    }
    CU_ASSERT_FATAL(ompb__ab_judge(&d.set, &d.l, &d.rows, &d.res) == 0);
    CU_ASSERT_EQUAL(d.rows.v[0].verdict, OMPB__VERDICT_REGRESSED);
    case_free(&c);
    case_free(&d);
}

/* BASE's run 2 crashed (no file): HEAD's run 2 has no partner, and the
 * other runs pair by their pair number, not by their place among the
 * files. The machine drifts 2x per pair and HEAD is 10% slower within
 * each pair: paired by number, a tight +10%; paired by place, chaos. */
static void test_pairing_across_missing_runs(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    char *name = "drift";
    list_both(&c, &name, 1);
    for (size_t k = 0; k < 4; k++) {
        double b = 100.0 * (double)(1u << k) * jitter(k, 0);
        double h = 110.0 * (double)(1u << k) * jitter(k, 1);
        if (k == 1)
            add_run(&c, OMPB__AB_BASE, OMPB__AB_RUN_CRASHED, &name, NULL, 1, -1);
        else
            add_run(&c, OMPB__AB_BASE, OMPB__AB_RUN_OK, &name, &b, 1, -1);
        add_run(&c, OMPB__AB_HEAD, OMPB__AB_RUN_OK, &name, &h, 1, -1);
    }
    CU_ASSERT_EQUAL(c.l.n_files[OMPB__AB_BASE], 3);
    CU_ASSERT_EQUAL(c.l.n_files[OMPB__AB_HEAD], 4);
    CU_ASSERT_EQUAL(c.l.file_pair[OMPB__AB_BASE][1], 3);
    CU_ASSERT_FATAL(ompb__ab_judge(&c.set, &c.l, &c.rows, &c.res) == 0);
    const ompb__ab_row *r = &c.rows.v[0];
    CU_ASSERT_EQUAL(r->cmp.base_runs, 3);
    CU_ASSERT_EQUAL(r->cmp.head_runs, 4);
    CU_ASSERT_EQUAL(r->seq.n, 3);   /* the complete pairs 1, 3, 4 */
    CU_ASSERT_EQUAL(r->verdict, OMPB__VERDICT_REGRESSED);
    CU_ASSERT_DOUBLE_EQUAL(expm1(r->seq.diff), 0.10, 0.005);
    case_free(&c);
}

/* Three faults of one side in a row stop the runs; an OK run between
 * faults starts the count again. */
static void test_faults_in_a_row(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    char *name = "steady";
    double v = 100.0;
    list_both(&c, &name, 1);
    add_run(&c, OMPB__AB_BASE, OMPB__AB_RUN_OK, &name, &v, 1, -1);
    add_run(&c, OMPB__AB_HEAD, OMPB__AB_RUN_CRASHED, &name, NULL, 1, -1);
    add_run(&c, OMPB__AB_HEAD, OMPB__AB_RUN_KILLED, &name, NULL, 1, -1);
    CU_ASSERT_EQUAL(c.l.faults_in_a_row[OMPB__AB_HEAD], 2);
    add_run(&c, OMPB__AB_HEAD, OMPB__AB_RUN_FAILED, &name, &v, 1, -1);
    CU_ASSERT_EQUAL(c.l.faults_in_a_row[OMPB__AB_HEAD], 0);
    CU_ASSERT_FATAL(ompb__ab_judge(&c.set, &c.l, &c.rows, &c.res) == 0);
    CU_ASSERT_FALSE(ompb__ab_should_stop(&c.set, &c.l, 1, 1.0, 0.1, 0, &c.res));
    CU_ASSERT_EQUAL(c.res.fault_stop, 0);
    for (int k = 0; k < OMPB__AB_MAX_FAULTS_IN_A_ROW; k++) {
        CU_ASSERT_FALSE(ompb__ab_should_stop(&c.set, &c.l, 2, 1.0, 0.1, 0, &c.res));
        add_run(&c, OMPB__AB_HEAD, k == 1 ? OMPB__AB_RUN_BAD_FILE : OMPB__AB_RUN_EXIT, &name,
                NULL, 1, -1);
    }
    CU_ASSERT_EQUAL(c.l.faults_in_a_row[OMPB__AB_HEAD], 3);
    CU_ASSERT_EQUAL(c.l.faults_in_a_row[OMPB__AB_BASE], 0);
    CU_ASSERT(ompb__ab_should_stop(&c.set, &c.l, 2, 1.0, 0.1, 0, &c.res));
    CU_ASSERT_EQUAL(c.res.fault_stop, 2);
    CU_ASSERT_STRING_EQUAL(c.res.stop_reason, "HEAD failed 3 runs in a row");
    CU_ASSERT_FALSE(c.res.partial);
    CU_ASSERT_EQUAL(c.l.side_runs[OMPB__AB_HEAD], 6);
    CU_ASSERT_EQUAL(c.l.pooled[OMPB__AB_HEAD], 1);
    /* The other reasons, in their order: a signal first (partial), then
     * the budgets. */
    ompb__ab_result res = c.res;
    CU_ASSERT(ompb__ab_should_stop(&c.set, &c.l, 2, 1.0, 0.1, 2, &res));
    CU_ASSERT(res.partial);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.stop_reason, "interrupted by signal 2"));
    res = c.res;
    CU_ASSERT(ompb__ab_should_stop(&c.set, &c.l, 12, 1.0, 0.1, 0, &res));
    CU_ASSERT_STRING_EQUAL(res.stop_reason, "--max-runs 12 reached");
    res = c.res;
    c.set.time_ns = 10000000000ull;
    CU_ASSERT(ompb__ab_should_stop(&c.set, &c.l, 2, 9.5, 1.0, 0, &res));
    CU_ASSERT_PTR_NOT_NULL(strstr(res.stop_reason, "--max-time budget spent"));
    /* The budget is named as the user gave it. */
    res = c.res;
    c.set.time_opt = "--time";
    CU_ASSERT(ompb__ab_should_stop(&c.set, &c.l, 2, 9.5, 1.0, 0, &res));
    CU_ASSERT_PTR_NOT_NULL(strstr(res.stop_reason, "--time budget spent"));
    case_free(&c);
}

/* BH of a sorted copy: q_(i) = min over j >= i of p_(j) m / j. */
static void bh_reference(const double *p, size_t m, double *q)
{
    for (size_t i = 0; i < m; i++) {
        double best = 1.0;
        for (size_t j = 0; j < m; j++) {
            size_t rank = 0;
            for (size_t k = 0; k < m; k++)
                rank += p[k] <= p[j];
            if (p[j] >= p[i])
                best = fmin(best, p[j] * (double)m / (double)rank);
        }
        q[i] = best;
    }
}

/* Five instances judged together: q is Benjamini-Hochberg of the rows'
 * sequential p over the judged ones only (a row only HEAD lists is not in
 * the family), and a claim stands on q, not on p. */
static void test_benjamini_hochberg(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    char *names[] = {"a", "b", "c", "d", "e"};
    /* Effects and spreads that give p from tiny to 1: a +30% (p ~ 2e-5),
     * a +25% (p ~ 0.01) and a +15% (p ~ 0.04) claim, two within. */
    static const double factor[] = {1.30, 1.15, 1.0, 0.97, 1.25};
    static const double spread[] = {0.001, 0.02, 0.002, 0.03, 0.02};
    list_both(&c, names, 5);
    char *only = "only_head";
    CU_ASSERT_FATAL(ompb__ab_rows_add_listed(&c.rows, OMPB__AB_HEAD, &only, 1) == 0);
    char *all[] = {"a", "b", "c", "d", "e", "only_head"};
    for (size_t k = 0; k < 3; k++) {
        double b[6], h[6];
        for (size_t i = 0; i < 6; i++) {
            double wobble = (double)((int)((k * 5 + i) % 3) - 1);
            b[i] = 100.0;
            h[i] = 100.0 * (i < 5 ? factor[i] * (1.0 + spread[i] * wobble) : 1.0);
        }
        add_run(&c, OMPB__AB_BASE, OMPB__AB_RUN_OK, all, b, 5, -1);
        add_run(&c, OMPB__AB_HEAD, OMPB__AB_RUN_OK, all, h, 6, -1);
    }
    CU_ASSERT_FATAL(ompb__ab_judge(&c.set, &c.l, &c.rows, &c.res) == 0);
    CU_ASSERT_EQUAL_FATAL(c.rows.n, 6);
    double p[5], q[5];
    size_t below = 0;
    for (size_t i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(c.rows.v[i].seq.looks, 1);
        p[i] = c.rows.v[i].seq.p;
        below += p[i] <= ALPHA;
    }
    bh_reference(p, 5, q);
    for (size_t i = 0; i < 5; i++) {
        const ompb__ab_row *r = &c.rows.v[i];
        CU_ASSERT_DOUBLE_EQUAL(r->q, q[i], 1e-12);
        CU_ASSERT(r->q >= r->seq.p);
        bool claimed = ompb__verdict_is(r->verdict, OMPB__VERDICT_CHANGE);
        CU_ASSERT_EQUAL(claimed, r->q <= ALPHA);
    }
    CU_ASSERT(isnan(c.rows.v[5].q));
    CU_ASSERT_EQUAL(c.res.judged, 5);
    /* The case tells BH from p alone: b's p is below alpha, its q is not,
     * so b stays noisy where a and e are claimed. */
    size_t claims = c.res.counts[OMPB__VERDICT_REGRESSED] + c.res.counts[OMPB__VERDICT_IMPROVED];
    CU_ASSERT_EQUAL(below, 3);
    CU_ASSERT_EQUAL(claims, 2);
    CU_ASSERT(c.rows.v[1].seq.p <= ALPHA && c.rows.v[1].q > ALPHA);
    CU_ASSERT_EQUAL(c.rows.v[1].verdict, OMPB__VERDICT_NOISY);
    CU_ASSERT_EQUAL(c.rows.v[4].verdict, OMPB__VERDICT_REGRESSED);
    case_free(&c);
}

/* Names one side lists only: new (HEAD only) and missing (BASE only),
 * settled by presence, never run again, outside the judged family. */
static void test_listed_on_one_side(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    char *base[] = {"both", "gone"}, *head[] = {"both", "added"};
    CU_ASSERT_FATAL(ompb__ab_rows_add_listed(&c.rows, OMPB__AB_BASE, base, 2) == 0);
    CU_ASSERT_FATAL(ompb__ab_rows_add_listed(&c.rows, OMPB__AB_HEAD, head, 2) == 0);
    CU_ASSERT_EQUAL_FATAL(c.rows.n, 3);
    for (size_t k = 0; k < 3; k++) {
        double b[2] = {100.0 * jitter(k, 0), 50.0}, h[2] = {100.0 * jitter(k, 1), 70.0};
        add_run(&c, OMPB__AB_BASE, OMPB__AB_RUN_OK, base, b, 2, -1);
        add_run(&c, OMPB__AB_HEAD, OMPB__AB_RUN_OK, head, h, 2, -1);
        CU_ASSERT_FATAL(ompb__ab_judge(&c.set, &c.l, &c.rows, &c.res) == 0);
    }
    const ompb__ab_row *both = &c.rows.v[0], *gone = &c.rows.v[1], *added = &c.rows.v[2];
    CU_ASSERT_STRING_EQUAL(gone->name, "gone");
    CU_ASSERT_STRING_EQUAL(added->name, "added");
    CU_ASSERT_EQUAL(both->verdict, OMPB__VERDICT_UNTOUCHED);
    CU_ASSERT_EQUAL(gone->verdict, OMPB__VERDICT_MISSING);
    CU_ASSERT_EQUAL(added->verdict, OMPB__VERDICT_NEW);
    CU_ASSERT(gone->decided && added->decided);
    CU_ASSERT_FALSE(ompb__ab_row_runs_again(gone));
    CU_ASSERT_FALSE(ompb__ab_row_runs_again(added));
    CU_ASSERT_EQUAL(gone->seq.looks, 0);
    CU_ASSERT_EQUAL(c.res.counts[OMPB__VERDICT_MISSING], 1);
    CU_ASSERT_EQUAL(c.res.counts[OMPB__VERDICT_NEW], 1);
    CU_ASSERT_EQUAL(c.res.judged, 1);
    CU_ASSERT_EQUAL(c.res.open, 0);
    case_free(&c);
}

/* The JSON report carries the result's counts and the rows' verdicts. */
static void test_report_json(void)
{
    ab_case c;
    case_init(&c, 3, 12);
    run_until_decided(&c, 1.10);
    c.res.seconds = 1.5;
    snprintf(c.res.stop_reason, sizeof c.res.stop_reason, "every instance decided");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CU_ASSERT_FATAL(out != NULL);
    CU_ASSERT(ompb__ab_print(out, &c.set, &c.l, &c.rows, &c.res, OMPB__REPORT_JSON) == 0);
    fclose(out);
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    CU_ASSERT_FATAL(doc != NULL);
    json_int_t regressed = -1, runs = -1;
    const char *verdict = NULL, *seed = NULL, *reason = NULL;
    CU_ASSERT(json_unpack(doc, "{s:s, s:s, s:{s:I}, s:{s:I}, s:[{s:s}]}", "seed", &seed,
                          "stop_reason", &reason, "summary", "regressed", &regressed, "head",
                          "runs", &runs, "instances", "verdict", &verdict) == 0);
    CU_ASSERT_EQUAL(regressed, 1);
    CU_ASSERT_EQUAL(runs, 3);
    CU_ASSERT_STRING_EQUAL(verdict ? verdict : "", "regressed");
    CU_ASSERT_STRING_EQUAL(seed ? seed : "", "42");
    CU_ASSERT_STRING_EQUAL(reason ? reason : "", "every instance decided");
    json_decref(doc);
    free(text);
    case_free(&c);
}

/* The gate's exit status for g, and what it wrote, into text[cap]. */
static int gate_of(const ab_case *c, ompb__ab_gate_opts g, char *text, size_t cap)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&buf, &len);
    CU_ASSERT_FATAL(err != NULL);
    int status = ompb__ab_gate(&g, &c->l, &c->rows, &c->res, err);
    fclose(err);
    snprintf(text, cap, "%s", buf ? buf : "");
    free(buf);
    return status;
}

/* --fail-on-regression fails on a regression, on an undecided row unless
 * --allow-undecided, and on a HEAD run that crashed; --allow-layout-effects
 * passes a regression whose machine code is the same in both builds. */
static void test_gate(void)
{
    char text[600];
    const ompb__ab_gate_opts none = {false, false, false, false};
    const ompb__ab_gate_opts fail = {true, false, false, false};
    ab_case c;
    case_init(&c, 3, 12);
    run_until_decided(&c, 1.10);
    CU_ASSERT_EQUAL(gate_of(&c, none, text, sizeof text), 0);
    CU_ASSERT_STRING_EQUAL(text, "");
    CU_ASSERT_EQUAL(gate_of(&c, fail, text, sizeof text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "the gate fails: 1 regressed or failed, 0 undecided\n"));
    /* The same code in both builds: a layout effect. */
    c.rows.v[0].code_checked = true;
    c.rows.v[0].code.verdict = OMPB__CODE_SAME;
    const ompb__ab_gate_opts layout = {true, false, false, true};
    CU_ASSERT_EQUAL(gate_of(&c, layout, text, sizeof text), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 regressed instance has the same machine code"));
    CU_ASSERT_EQUAL(gate_of(&c, fail, text, sizeof text), 1);
    case_free(&c);

    /* An undecided (noisy) row. */
    case_init(&c, 3, 3);
    char *name = "wild";
    list_both(&c, &name, 1);
    for (size_t k = 0; k < 3; k++)
        pair_of_one(&c, name, 100.0 * WILD[k], 100.0 * WILD[k + 3]);
    CU_ASSERT_EQUAL_FATAL(c.rows.v[0].verdict, OMPB__VERDICT_NOISY);
    CU_ASSERT_EQUAL(gate_of(&c, none, text, sizeof text), 0);
    CU_ASSERT_EQUAL(gate_of(&c, fail, text, sizeof text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "0 regressed or failed, 1 undecided (undecided fails"));
    const ompb__ab_gate_opts allow = {true, false, true, false};
    CU_ASSERT_EQUAL(gate_of(&c, allow, text, sizeof text), 0);
    const ompb__ab_gate_opts undecided = {false, true, false, false};
    CU_ASSERT_EQUAL(gate_of(&c, undecided, text, sizeof text), 1);
    case_free(&c);

    /* Untouched, but a HEAD run crashed (an interrupted one does not count). */
    case_init(&c, 3, 12);
    run_until_decided(&c, 1.0);
    CU_ASSERT_FALSE(ompb__ab_head_faulted(&c.l));
    add_run(&c, OMPB__AB_HEAD, OMPB__AB_RUN_INTERRUPTED, &name, NULL, 1, -1);
    CU_ASSERT_FALSE(ompb__ab_head_faulted(&c.l));
    CU_ASSERT_EQUAL(gate_of(&c, fail, text, sizeof text), 0);
    add_run(&c, OMPB__AB_HEAD, OMPB__AB_RUN_CRASHED, &name, NULL, 1, -1);
    CU_ASSERT(ompb__ab_head_faulted(&c.l));
    CU_ASSERT_EQUAL(gate_of(&c, none, text, sizeof text), 0);
    CU_ASSERT_EQUAL(gate_of(&c, fail, text, sizeof text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "HEAD runs that crashed, hung or wrote a bad file"));
    case_free(&c);
}

static const ompb_test_case cases[] = {
    {"regressed", test_regressed},
    {"improved", test_improved},
    {"untouched", test_untouched},
    {"noisy", test_noisy},
    {"disturbed", test_disturbed},
    {"pairing_across_missing_runs", test_pairing_across_missing_runs},
    {"faults_in_a_row", test_faults_in_a_row},
    {"benjamini_hochberg", test_benjamini_hochberg},
    {"listed_on_one_side", test_listed_on_one_side},
    {"report_json", test_report_json},
    {"gate", test_gate},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_ab = {"ab", NULL, NULL, cases};
