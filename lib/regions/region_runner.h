/* SPDX-License-Identifier: MIT */
/*
 * What the CodSpeed runner gets from application regions
 * (lib/regions/region_runner.c): one window at a time, held by one (region, team
 * size) entry, its pairs sent when it closes, and the results file. Above
 * the entries (lib/regions/region_entry.h) in the regions' one-way chain; the hot
 * path opens windows, the reports close them.
 */
#ifndef OMPB_REGION_RUNNER_H
#define OMPB_REGION_RUNNER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <ompbench/error.h>

#include "model/model.h"
#include "regions/region_entry.h"
#include "report/report.h"

/* Where a runner's windows and results go. */
typedef struct ompb__region_runner_ops {
    /* StartBenchmark: a window opens; the runner has stamped it when this
     * returns. */
    void (*open)(void *arg);
    /* The window's marker pairs (rec->rounds of rec->start_ns/end_ns;
     * rec->failed when it has none), then StopBenchmark and
     * CurrentBenchmark(rec->inst->uri). */
    void (*close)(void *arg, const ompb__record *rec);
    /* The walltime results and environment files (report->ctx may be NULL);
     * 0, or a code with err filled (warned). */
    int (*results)(void *arg, const ompb__report *report, ompb_error *err);
    void *arg;
} ompb__region_runner_ops;

/* A runner's windows. Zero (with the lock initialized) is a runner that
 * nobody listens to: begin and flush do nothing. */
typedef struct ompb__region_runner {
    /* Set while a runner listens: begin then calls
     * ompb__region_runner_begin (read by the hot path). */
    atomic_bool watch;
    _Atomic int state;          /* changes only under lock; read without it */
    _Atomic(ompb__region_entry *) entry; /* the open window's; same rule */
    pthread_mutex_t lock;
    ompb__region_runner_ops ops;
} ompb__region_runner;

/* The process's runner (the instrument facade), started by
 * ompb__region_runner_init when a walltime runner listens. */
extern ompb__region_runner ompb__region_runner_process;

/* Detects the runner once (first use of regions): not in a benchmark
 * binary, nor under valgrind, nor unless asked (CODSPEED_ENV set, an
 * explicit FIFO path, OMPB_RUNNER=on; never with OMPB_RUNNER=off). */
void ompb__region_runner_init(void);
/* rn listens from now on, through ops (copied): no window open yet. */
void ompb__region_runner_start(ompb__region_runner *rn, const ompb__region_runner_ops *ops);
/* A thread with no region open begins an instance of e: opens a window
 * for e when none is open and e never had one, or when the open one is
 * e's region at another team size (closed first), waiting (once) until it
 * is open. Never called from inside a region (the round trip would be in
 * it). */
void ompb__region_runner_begin(ompb__region_runner *rn, ompb__region_entry *e);
/* Closes the open window (markers, StopBenchmark, CurrentBenchmark) and
 * rewrites the results files from `entries` (a next_all list) with ctx,
 * which may be NULL. final: no window opens after (watch cleared). Global
 * lock held. */
void ompb__region_runner_flush(ompb__region_runner *rn, ompb__region_entry *entries, bool final,
                               const ompb__context *ctx);

#endif
