/* SPDX-License-Identifier: MIT */
/*
 * The engine's environment: every collaborator the round engine talks to
 * besides its input (sampling, plan, descriptor) and its output (the
 * record), handed to it as one value. The distribution across ranks, the
 * sink of the runner's markers, the body guard's hooks (a stop signal, the
 * team it names when stuck), the fork guard's watch, and the system calls
 * of --counters (lib/counters/counters.h) and of the NUMA page check
 * (lib/engine/pages.h). The engine reads no process-wide state of its own:
 * a run hands it the default environment (ompb__engine_env_default, built
 * from what ompb_main installed), a test hands it doubles that record what
 * the engine did.
 */
#ifndef OMPB_ENGINE_ENV_H
#define OMPB_ENGINE_ENV_H

#include <stdbool.h>

#include <ompbench/distribution.h>
#include <ompbench/fork_guard.h>

#include "counters/counters.h"
#include "engine/fork_guard.h"
#include "engine/pages.h"
#include "model/model.h"

struct ompb__record;
struct ompb_state;

/* Where an instance's measured rounds go (lib/hooks/instrument.h in a run).
 * The engine's master calls it outside every timed window: instance_begin
 * before the first measured round (once per call of ompb__round_run), and
 * instance_end after the team is done, when instance_begin was called;
 * close as ompb__instrument_instance_end's. */
typedef struct ompb__marker_sink {
    void *ctx;
    void (*instance_begin)(void *ctx, const ompb__instance *inst);
    void (*instance_end)(void *ctx, const struct ompb__record *rec, bool close);
} ompb__marker_sink;

/* The body guard's side of the engine (lib/engine/body_guard.h in a run). */
typedef struct ompb__body_hooks {
    void *ctx;
    /* The signal that asks the run to stop (0 none), read by the master
     * after each round: a caught one ends the instance, interrupted. */
    int (*stop_signal)(void *ctx);
    /* The team while it runs (thread t is in the body while
     * states[t].in_body is set), to name stuck threads; NULL, 0 after. */
    void (*team)(void *ctx, const struct ompb_state *states, int threads);
    /* On each thread that will run bodies (team threads, the master among
     * them), before its first: its per-thread set-up (the crash handler's
     * alternate signal stack, so that a stack overflow is reported like
     * another crash). */
    void (*thread_begin)(void *ctx);
} ompb__body_hooks;

/* The fork guard's side: watch (NULL: none installed) starts (w) or stops
 * (NULL) watching the calling thread; coverage says which regions it sees. */
typedef struct ompb__fork_watcher {
    void (*watch)(ompb__fork_watch *w);
    ompb__fork_coverage coverage;
} ompb__fork_watcher;

typedef struct ompb__engine_env {
    const ompb_distribution *dist; /* NULL: one process; else whole (rank, size, ops) */
    ompb__marker_sink markers;     /* every function set */
    ompb__body_hooks body;         /* every function set */
    ompb__fork_watcher forks;
    /* The system calls the team's --counters groups are opened, read and
     * closed with (NULL: ompb__counter_ops_system). */
    const ompb__counter_ops *counters;
    /* The page check's system calls, for the team's ompb_declare_buffer
     * (NULL: ompb__pages_ops_system). */
    const ompb__pages_ops *pages;
} ompb__engine_env;

/* The environment of a run in this process: the distribution installed
 * with ompb_set_distribution, the instrument (lib/hooks/instrument.h), the
 * body guard (lib/engine/body_guard.h) and the fork guard installed with
 * ompb_set_fork_guard, as they are at the call, and the system's counters
 * and page lookups. */
ompb__engine_env ompb__engine_env_default(void);

#endif
