/* SPDX-License-Identifier: MIT */
/*
 * What the CodSpeed runner gets from application regions (walltime mode;
 * docs/protocol.md, "Application regions").
 *
 * The runner holds one benchmark window at a time, stamps it with its own
 * clock when StartBenchmark and StopBenchmark arrive, and counts a marker
 * pair only inside its window; every window is named by one URI, once. So a
 * window must be open before the first instance it will hold, and regions
 * that interleave in time cannot each have one. The decision:
 *
 * - a window opens when a region (entry) that never had one begins while
 *   no window is open: the first thread there sends StartBenchmark, the
 *   team waits for the runner's acknowledgement (once) before taking its
 *   timestamps, and the window belongs to that entry;
 * - the window's entry buffers one aggregate pair per instance that begins
 *   in it; other regions running meanwhile get no markers;
 * - the window closes when its region begins at a team size that never had
 *   a window (a program that sweeps thread counts has moved on: the window
 *   must not span the next phase's work), and that entry opens the next
 *   window, all before the beginning thread takes its timestamp;
 * - ompb_regions_report() (a region-set boundary) and the exit close the
 *   window: the pairs as BenchmarkStart/BenchmarkEnd, StopBenchmark,
 *   CurrentBenchmark(uri), pipelined by the instrument facade from the
 *   reporting thread, outside every region of the other threads' hot path;
 *   the next region without a window that begins opens the next one;
 * - markers must alternate: when consecutive instances overlap in time (a
 *   thread began the next before a slower one ended this one; teams
 *   running the region at once), an instance's pair ends where the next
 *   begins (the union of their wall time, each moment once), with a
 *   warning saying by how much;
 * - the walltime results file has an entry per region: a region that had a
 *   window reports exactly the pairs it sent (so statistics and markers
 *   agree); a region that never had one reports all its instances without
 *   a window; a window without a completed instance is named without
 *   markers (the runner then uses it whole) and has no entry.
 *
 * Not in a process that runs benchmarks (ompb_main owns the runner there),
 * nor under valgrind (CPU simulation runs single-threaded benchmarks), nor
 * unless the runner's environment (CODSPEED_ENV), an explicit FIFO path or
 * OMPB_RUNNER=on asks for it (lib/hooks/runner_gate.h).
 *
 * What goes to the runner goes through the runner value's ops: the
 * process's runner uses the instrument facade (lib/hooks/instrument.h) and
 * ompb__report_codspeed; tests give a runner of their own recording
 * doubles. This module reads only entries (lib/regions/region_entry.h) and the
 * list of them it is handed: it calls no later region module.
 */
#include "regions/region_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/valgrind.h>

#include "context/context.h"
#include "hooks/hooks.h"
#include "model/model.h"
#include "core/core.h"

enum { WINDOW_OFF, WINDOW_IDLE, WINDOW_OPEN };

static void instrument_open(void *arg)
{
    (void)arg;
    ompb__instrument_instance_begin(NULL);
}

static void instrument_close(void *arg, const ompb__record *rec)
{
    (void)arg;
    ompb__instrument_instance_end(rec, true);
}

/* The report layer sits below the hooks: it is handed what the instrument
 * found, on a shallow copy (the report is the caller's). */
static int codspeed_results(void *arg, const ompb__report *report, ompb_error *err)
{
    (void)arg;
    ompb__report given = *report;
    given.runner = (ompb__report_runner){
        .taken = ompb__instrument_runner_taken(),
        .walltime = ompb__instrument_runner_walltime(),
        .simulation = ompb__instrument_mode() == OMPB__MODE_SIMULATION};
    return ompb__report_codspeed(&given, err);
}

static const ompb__region_runner_ops instrument_ops = {instrument_open, instrument_close,
                                                       codspeed_results, NULL};

ompb__region_runner ompb__region_runner_process = {.lock = PTHREAD_MUTEX_INITIALIZER};

void ompb__region_runner_start(ompb__region_runner *rn, const ompb__region_runner_ops *ops)
{
    rn->ops = *ops;
    atomic_store(&rn->state, WINDOW_IDLE);
    atomic_store(&rn->watch, true);
}

void ompb__region_runner_init(void)
{
    /* Stale FIFOs at the default paths must not stall an application that
     * does not run under the runner: it looks only when asked
     * (lib/hooks/runner_gate.h). */
    if (RUNNING_ON_VALGRIND || ompb__registry_count() > 0
        || !ompb__runner_wanted(OMPB__RUNNER_FOR_REGIONS))
        return;
    ompb__instrument_init();
    if (ompb__instrument_mode() != OMPB__MODE_WALLTIME)
        return;
    ompb__region_runner_start(&ompb__region_runner_process, &instrument_ops);
}

/* rn->lock held. */
static void open_window(ompb__region_runner *rn, ompb__region_entry *e)
{
    rn->ops.open(rn->ops.arg);
    /* The markers' own source: an instance begun after this must never
     * compare as begun before it (the TSC map's few ns of error). */
    uint64_t opened = ompb__stamp_ns();
    pthread_mutex_lock(&e->lock);
    e->window_active = true;
    e->window_open_ns = opened;
    e->pairs.n = 0;
    e->pairs.dropped = 0;
    pthread_mutex_unlock(&e->lock);
    atomic_store_explicit(&rn->entry, e, memory_order_relaxed);
    atomic_store_explicit(&rn->state, WINDOW_OPEN, memory_order_release);
}

/* Whether e takes the window: none is open, or the open one belongs to e's
 * region at another team size (the program moved on to the next size of a
 * sweep), and e never had one. Without the lock it may say yes wrongly
 * (the caller checks again under the lock), never no wrongly: an open
 * window whose entry is being replaced counts as a yes, so that e's team
 * waits for the one its first thread opens. */
static bool wants_window(ompb__region_runner *rn, const ompb__region_entry *e)
{
    if (atomic_load_explicit(&e->had_window, memory_order_relaxed))
        return false;
    int state = atomic_load_explicit(&rn->state, memory_order_acquire);
    if (state == WINDOW_IDLE)
        return true;
    if (state != WINDOW_OPEN)
        return false;
    const ompb__region_entry *w = atomic_load_explicit(&rn->entry, memory_order_relaxed);
    return !w || (w != e && w->region == e->region);
}

static void close_window(ompb__region_runner *rn);

/* Folds the completed instances of w's teams into w (a report does it for
 * every region before it closes a window; here only w's pairs are due). */
static void fold_entry(ompb__region_entry *w)
{
    for (ompb__region_group *g = atomic_load(&w->region->groups); g; g = g->next)
        if (g->entry == w)
            ompb__region_group_reduce_all(g);
}

void ompb__region_runner_begin(ompb__region_runner *rn, ompb__region_entry *e)
{
    if (!wants_window(rn, e))
        return;
    /* The other threads of the team wait here for the window the first one
     * opens (once): no timestamp before the runner has stamped it. */
    pthread_mutex_lock(&rn->lock);
    if (wants_window(rn, e)) {
        ompb__region_entry *w = atomic_load_explicit(&rn->entry, memory_order_relaxed);
        if (atomic_load(&rn->state) == WINDOW_OPEN && w) {
            fold_entry(w);
            close_window(rn);
        }
        open_window(rn, e);
    }
    pthread_mutex_unlock(&rn->lock);
}

/* Pairs in time order, each ending no later than the next begins; returns
 * how many were cut and *cut_ns by how much in all. */
static size_t order_pairs(ompb__region_pairs *p, uint64_t *cut_ns)
{
    for (size_t i = 1; i < p->n; i++) {
        uint64_t s = p->start_ns[i], e = p->end_ns[i];
        size_t j = i;
        for (; j > 0 && p->start_ns[j - 1] > s; j--) {
            p->start_ns[j] = p->start_ns[j - 1];
            p->end_ns[j] = p->end_ns[j - 1];
        }
        p->start_ns[j] = s;
        p->end_ns[j] = e;
    }
    size_t cut = 0;
    *cut_ns = 0;
    for (size_t i = 1; i < p->n; i++)
        if (p->start_ns[i] < p->end_ns[i - 1]) {
            *cut_ns += p->end_ns[i - 1] - p->start_ns[i];
            p->end_ns[i - 1] = p->start_ns[i];
            cut++;
        }
    return cut;
}

static void summarize(ompb__region_entry *e, const ompb__region_pairs *p, bool sent)
{
    ompb__region_window_result *w = &e->window;
    memset(w, 0, sizeof *w);
    double *x = sent ? malloc(p->n * sizeof *x) : NULL;
    if (!x)
        return;
    for (size_t i = 0; i < p->n; i++) {
        x[i] = (double)(p->end_ns[i] - p->start_ns[i]);
        w->total_s += x[i] * 1e-9;
    }
    w->rounds = p->n;
    w->sent = ompb__stats_compute(x, p->n, &w->stats) == 0;
    free(x);
}

/* Markers (when they can alternate), StopBenchmark, CurrentBenchmark. */
static void close_window(ompb__region_runner *rn)
{
    ompb__region_entry *e = atomic_load_explicit(&rn->entry, memory_order_relaxed);
    ompb__region_pairs p;
    pthread_mutex_lock(&e->lock);
    e->window_active = false;
    atomic_store(&e->had_window, true);
    p = e->pairs;
    memset(&e->pairs, 0, sizeof e->pairs);
    pthread_mutex_unlock(&e->lock);
    uint64_t cut_ns;
    size_t cut = order_pairs(&p, &cut_ns);
    ompb__instance inst = {.threads = e->threads, .thread_variant = true};
    ompb__region_entry_names(e, inst.name, sizeof inst.name, inst.uri, sizeof inst.uri);
    ompb__record rec = {.inst = &inst, .threads = e->threads, .sample_size = 1,
                        .rounds = p.n, .start_ns = p.start_ns, .end_ns = p.end_ns,
                        .failed = p.n == 0};
    if (cut)
        fprintf(stderr, "ompbench: warning: %s: %zu of its %zu instances overlapped the next "
                "one (a thread began it before a slower one ended the previous, or teams ran "
                "it at once): the CodSpeed runner's pairs end where the next instance begins, "
                "%.6g s in all shorter than the makespans of the local report\n", inst.uri, cut,
                p.n, (double)cut_ns * 1e-9);
    if (p.dropped)
        fprintf(stderr, "ompbench: warning: %s: %llu instances past the first %u of its runner "
                "window got no marker (call ompb_regions_report() more often)\n", inst.uri,
                (unsigned long long)p.dropped, OMPB__REGION_PAIRS_MAX);
    rn->ops.close(rn->ops.arg, &rec);
    pthread_mutex_lock(&e->lock);
    summarize(e, &p, !rec.failed);
    pthread_mutex_unlock(&e->lock);
    free(p.start_ns);
    free(p.end_ns);
    atomic_store_explicit(&rn->entry, NULL, memory_order_relaxed);
}

/* One entry's line of the results file; false when it has none. */
static bool runner_result(const ompb__region_entry *e, ompb__instance *inst, ompb__result *res)
{
    if (e->failed || e->acc.n == 0)
        return false;
    bool had = atomic_load(&e->had_window);
    if (had && !e->window.sent)
        return false;
    memset(res, 0, sizeof *res);
    inst->threads = e->threads;
    ompb__region_entry_names(e, inst->name, sizeof inst->name, inst->uri, sizeof inst->uri);
    res->rec.inst = inst;
    res->rec.threads = e->threads;
    res->rec.sample_size = 1;
    if (had) {
        res->rec.rounds = e->window.rounds;
        res->stats = e->window.stats;
        res->total_time_s = e->window.total_s;
    } else {
        res->rec.rounds = e->acc.n;
        res->total_time_s = (double)e->acc.total_ns * 1e-9;
        if (ompb__region_acc_stats(&e->acc, &res->stats) != 0)
            return false;
    }
    res->rec.sampling = (ompb__sampling){.mode = OMPB__SAMPLING_REGION, .threads = e->threads,
                                         .rounds = res->rec.rounds, .sample_size = 1};
    return res->rec.rounds > 0;
}

static void write_results(ompb__region_runner *rn, ompb__region_entry *entries,
                          const ompb__context *ctx)
{
    size_t cap = 0, n = 0;
    for (ompb__region_entry *e = entries; e; e = e->next_all)
        cap++;
    ompb__result *res = calloc(cap ? cap : 1, sizeof *res);
    ompb__instance *insts = calloc(cap ? cap : 1, sizeof *insts);
    if (res && insts) {
        for (ompb__region_entry *e = entries; e; e = e->next_all) {
            pthread_mutex_lock(&e->lock);
            n += runner_result(e, &insts[n], &res[n]);
            pthread_mutex_unlock(&e->lock);
        }
        ompb__report report = {.ctx = ctx, .results = res, .n = n};
        ompb_error err = {0};
        if (rn->ops.results(rn->ops.arg, &report, &err) != 0)
            fprintf(stderr, "ompbench: warning: %s\n", err.text);
    } else {
        fprintf(stderr, "ompbench: warning: out of memory writing the CodSpeed results\n");
    }
    free(res);
    free(insts);
}

void ompb__region_runner_flush(ompb__region_runner *rn, ompb__region_entry *entries, bool final,
                               const ompb__context *ctx)
{
    if (atomic_load(&rn->state) == WINDOW_OFF)
        return;
    pthread_mutex_lock(&rn->lock);
    if (atomic_load(&rn->state) == WINDOW_OPEN)
        close_window(rn);
    atomic_store(&rn->state, final ? WINDOW_OFF : WINDOW_IDLE);
    if (final)
        atomic_store(&rn->watch, false);
    pthread_mutex_unlock(&rn->lock);
    write_results(rn, entries, ctx);
}
