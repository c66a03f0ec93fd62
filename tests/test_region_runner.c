/* SPDX-License-Identifier: MIT */
/*
 * The regions' CodSpeed runner (lib/regions/region_runner.c) through test doubles:
 * a runner value of the test's own whose ops record what a real runner
 * would get (windows opened, the pairs and URI of each window closed, the
 * results file's entries), fed by entries made without the regions' table
 * and instances added by hand. No process-wide state: not the process's
 * runner, not the table, no FIFO, no clock but the markers' own (each
 * instance is placed after the window's opening stamp, never timed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regions/region_runner.h"
#include "model/registry.h"
#include "suite.h"
#include "core/tsc.h"

#define MAX_CALLS 8
#define MAX_PAIRS 16

/* What the doubles saw. */
typedef struct recorder {
    int opens, closes, results;
    char uri[MAX_CALLS][OMPB__URI_MAX];         /* of each window closed */
    uint64_t rounds[MAX_CALLS];
    int failed[MAX_CALLS];
    uint64_t start[MAX_PAIRS], end[MAX_PAIRS];  /* the last window's pairs */
    size_t n_results;                           /* entries of the last results */
    char result_name[MAX_CALLS][OMPB__NAME_MAX];
    uint64_t result_rounds[MAX_CALLS];
    double result_total_s[MAX_CALLS];
} recorder;

static void rec_open(void *arg)
{
    ((recorder *)arg)->opens++;
}

static void rec_close(void *arg, const ompb__record *rec)
{
    recorder *r = arg;
    int k = r->closes++;
    if (k >= MAX_CALLS)
        return;
    snprintf(r->uri[k], sizeof r->uri[k], "%s", rec->inst->uri);
    r->rounds[k] = rec->rounds;
    r->failed[k] = rec->failed;
    for (size_t i = 0; i < rec->rounds && i < MAX_PAIRS; i++) {
        r->start[i] = rec->start_ns[i];
        r->end[i] = rec->end_ns[i];
    }
}

static int rec_results(void *arg, const ompb__report *report, ompb_error *err)
{
    recorder *r = arg;
    (void)err;
    r->results++;
    r->n_results = report->n;
    for (size_t i = 0; i < report->n && i < MAX_CALLS; i++) {
        snprintf(r->result_name[i], sizeof r->result_name[i], "%s",
                 report->results[i].rec.inst->name);
        r->result_rounds[i] = report->results[i].rec.rounds;
        r->result_total_s[i] = report->results[i].total_time_s;
    }
    return 0;
}

/* A runner of the test's own, listening through the recorder. */
static void runner_start(ompb__region_runner *rn, recorder *r)
{
    memset(r, 0, sizeof *r);
    memset(rn, 0, sizeof *rn);
    pthread_mutex_init(&rn->lock, NULL);
    ompb__region_runner_ops ops = {rec_open, rec_close, rec_results, r};
    ompb__region_runner_start(rn, &ops);
}

/* A region outside the table: what an entry and its names read of it. */
static ompb__region *region_make(const char *name, uint32_t id)
{
    ompb__region *r = calloc(1, sizeof *r);
    r->name = strdup(name);
    r->display = strdup(name);
    r->file = strdup("t.c");
    r->id = id;
    return r;
}

static void region_drop(ompb__region *r)
{
    free(r->name);
    free(r->display);
    free(r->file);
    free(r);
}

/* One instance of e: every thread from start to end (e->lock taken, as the
 * folding thread holds it). */
static void add_instance(ompb__region_entry *e, uint64_t start, uint64_t end)
{
    ompb__region_slot slots[4];
    for (int t = 0; t < e->threads; t++)
        slots[t] = ompb__region_pack(start, end, t);
    pthread_mutex_lock(&e->lock);
    ompb__region_entry_add(e, slots);
    pthread_mutex_unlock(&e->lock);
}

/* A window opens at the first begin of an entry that never had one, once;
 * its instances are the pairs sent at the flush, and the results file has
 * exactly those (rounds and total), under the entry's URI. */
static void test_window_pairs(void)
{
    ompb__region_runner rn;
    recorder r;
    runner_start(&rn, &r);
    ompb__region *reg = region_make("r", 0);
    ompb__region_entry *e = ompb__region_entry_new(reg, 2, 0);
    ompb__region_runner_begin(&rn, e);
    ompb__region_runner_begin(&rn, e);
    CU_ASSERT_EQUAL(r.opens, 1);
    CU_ASSERT_TRUE(e->window_active);
    uint64_t t0 = ompb__stamp_ns() + 1000000;
    for (int k = 0; k < 3; k++)
        add_instance(e, t0 + 1000 * (uint64_t)k, t0 + 1000 * (uint64_t)k + 400);
    CU_ASSERT_EQUAL(r.closes, 0);
    ompb__region_runner_flush(&rn, e, false, NULL);
    CU_ASSERT_EQUAL(r.closes, 1);
    CU_ASSERT_STRING_EQUAL(r.uri[0], "t.c::region:r[t=2]");
    CU_ASSERT_EQUAL(r.rounds[0], 3);
    CU_ASSERT_FALSE(r.failed[0]);
    for (int k = 0; k < 3; k++) {
        CU_ASSERT_EQUAL(r.start[k], t0 + 1000 * (uint64_t)k);
        CU_ASSERT_EQUAL(r.end[k], t0 + 1000 * (uint64_t)k + 400);
    }
    CU_ASSERT_EQUAL(r.results, 1);
    CU_ASSERT_EQUAL(r.n_results, 1);
    CU_ASSERT_STRING_EQUAL(r.result_name[0], "region:r[t=2]");
    CU_ASSERT_EQUAL(r.result_rounds[0], 3);
    CU_ASSERT_DOUBLE_EQUAL(r.result_total_s[0], 1200e-9, 1e-12);
    /* It had its window: a later begin opens none. */
    CU_ASSERT_FALSE(e->window_active);
    ompb__region_runner_begin(&rn, e);
    CU_ASSERT_EQUAL(r.opens, 1);
    ompb__region_entry_free(e);
    region_drop(reg);
}

/* The same region at another team size takes the window over (the first
 * one closes with its pairs, before the new one opens); another region
 * while a window is open gets none, and its instances are sent nowhere. */
static void test_window_sweep(void)
{
    ompb__region_runner rn;
    recorder r;
    runner_start(&rn, &r);
    ompb__region *reg = region_make("sweep", 0), *other = region_make("other", 1);
    ompb__region_entry *t1 = ompb__region_entry_new(reg, 1, 0);
    ompb__region_entry *t2 = ompb__region_entry_new(reg, 2, 1);
    ompb__region_entry *o = ompb__region_entry_new(other, 1, 2);
    t1->next_all = t2;
    t2->next_all = o;
    ompb__region_runner_begin(&rn, t1);
    uint64_t t0 = ompb__stamp_ns() + 1000000;
    add_instance(t1, t0, t0 + 100);
    ompb__region_runner_begin(&rn, o);
    CU_ASSERT_EQUAL(r.opens, 1);
    CU_ASSERT_FALSE(o->window_active);
    add_instance(o, t0 + 200, t0 + 300);
    ompb__region_runner_begin(&rn, t2);
    CU_ASSERT_EQUAL(r.opens, 2);
    CU_ASSERT_EQUAL(r.closes, 1);
    CU_ASSERT_STRING_EQUAL(r.uri[0], "t.c::region:sweep[t=1]");
    CU_ASSERT_EQUAL(r.rounds[0], 1);
    CU_ASSERT_TRUE(t2->window_active);
    uint64_t t1s = ompb__stamp_ns() + 1000000;
    add_instance(t2, t1s, t1s + 50);
    add_instance(t2, t1s + 100, t1s + 150);
    ompb__region_runner_flush(&rn, t1, true, NULL);
    CU_ASSERT_EQUAL(r.closes, 2);
    CU_ASSERT_STRING_EQUAL(r.uri[1], "t.c::region:sweep[t=2]");
    CU_ASSERT_EQUAL(r.rounds[1], 2);
    /* The results: each window's entry with what it sent, the other
     * region with all its instances (it never had a window). */
    CU_ASSERT_EQUAL(r.n_results, 3);
    CU_ASSERT_STRING_EQUAL(r.result_name[2], "region:other[t=1]");
    CU_ASSERT_EQUAL(r.result_rounds[2], 1);
    /* Final: nothing opens after, and the hot path stops watching. */
    CU_ASSERT_FALSE(atomic_load(&rn.watch));
    ompb__region_runner_begin(&rn, o);
    CU_ASSERT_EQUAL(r.opens, 2);
    ompb__region_entry_free(t1);
    ompb__region_entry_free(t2);
    ompb__region_entry_free(o);
    region_drop(reg);
    region_drop(other);
}

/* Overlapping instances are sent in time order, each ending where the
 * next begins (warned on standard error); one begun before the window
 * opened is not sent, and the results file says what was sent. */
static void test_window_order(void)
{
    ompb__region_runner rn;
    recorder r;
    runner_start(&rn, &r);
    ompb__region *reg = region_make("o", 0);
    ompb__region_entry *e = ompb__region_entry_new(reg, 1, 0);
    uint64_t before = ompb__stamp_ns();
    ompb__region_runner_begin(&rn, e);
    uint64_t t0 = ompb__stamp_ns() + 1000000;
    add_instance(e, before, t0);
    add_instance(e, t0 + 500, t0 + 900);
    add_instance(e, t0 + 100, t0 + 600);
    ompb__region_runner_flush(&rn, e, false, NULL);
    CU_ASSERT_EQUAL(r.rounds[0], 2);
    CU_ASSERT_EQUAL(r.start[0], t0 + 100);
    CU_ASSERT_EQUAL(r.end[0], t0 + 500);
    CU_ASSERT_EQUAL(r.start[1], t0 + 500);
    CU_ASSERT_EQUAL(r.end[1], t0 + 900);
    /* The results file describes the pairs sent, not every instance. */
    CU_ASSERT_EQUAL(r.n_results, 1);
    CU_ASSERT_EQUAL(r.result_rounds[0], 2);
    CU_ASSERT_DOUBLE_EQUAL(r.result_total_s[0], 800e-9, 1e-12);
    ompb__region_entry_free(e);
    region_drop(reg);
}

/* A window without a completed instance closes without markers (failed:
 * the runner uses the window whole) and the results file has no entry for
 * it; a runner nobody listens to does nothing at all. */
static void test_window_empty(void)
{
    ompb__region_runner rn;
    recorder r;
    runner_start(&rn, &r);
    ompb__region *reg = region_make("empty", 0);
    ompb__region_entry *e = ompb__region_entry_new(reg, 1, 0);
    ompb__region_runner_begin(&rn, e);
    ompb__region_runner_flush(&rn, e, false, NULL);
    CU_ASSERT_EQUAL(r.closes, 1);
    CU_ASSERT_TRUE(r.failed[0]);
    CU_ASSERT_EQUAL(r.rounds[0], 0);
    CU_ASSERT_EQUAL(r.results, 1);
    CU_ASSERT_EQUAL(r.n_results, 0);
    ompb__region_runner quiet;
    memset(&quiet, 0, sizeof quiet);
    pthread_mutex_init(&quiet.lock, NULL);
    ompb__region_entry *q = ompb__region_entry_new(reg, 2, 1);
    ompb__region_runner_begin(&quiet, q);
    ompb__region_runner_flush(&quiet, q, true, NULL);
    CU_ASSERT_FALSE(q->window_active);
    CU_ASSERT_FALSE(atomic_load(&q->had_window));
    ompb__region_entry_free(q);
    ompb__region_entry_free(e);
    region_drop(reg);
}

static const ompb_test_case cases[] = {
    {"window_pairs", test_window_pairs},
    {"window_sweep", test_window_sweep},
    {"window_order", test_window_order},
    {"window_empty", test_window_empty},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_region_runner = {"region_runner", NULL, NULL, cases};
