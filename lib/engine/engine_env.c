/* SPDX-License-Identifier: MIT */
/*
 * The default engine environment: the process-wide collaborators a run
 * installs (distribution, instrument, body guard, fork guard) and the
 * system calls the engine makes (counters, pages) behind the engine's
 * environment value. This is the one place where the engine's
 * collaborators are read from process-wide state; the engine itself only
 * calls what its environment holds.
 */
#include "engine/engine_env.h"

#include "core/core.h"
#include "engine/body_guard.h"
#include "engine/dist.h"
#include "hooks/hooks.h"

static void instrument_begin(void *ctx, const ompb__instance *inst)
{
    (void)ctx;
    ompb__instrument_instance_begin(inst);
}

static void instrument_end(void *ctx, const struct ompb__record *rec, bool close)
{
    (void)ctx;
    ompb__instrument_instance_end(rec, close);
}

static int guard_signal(void *ctx)
{
    (void)ctx;
    return ompb__body_guard_signal();
}

static void guard_team(void *ctx, const struct ompb_state *states, int threads)
{
    (void)ctx;
    ompb__body_guard_team(states, threads);
}

static void crash_stack(void *ctx)
{
    (void)ctx;
    ompb__crash_thread_stack();
}

ompb__engine_env ompb__engine_env_default(void)
{
    return (ompb__engine_env){
        .dist = ompb__dist(),
        .markers = {.instance_begin = instrument_begin, .instance_end = instrument_end},
        .body = {.stop_signal = guard_signal, .team = guard_team, .thread_begin = crash_stack},
        .forks = {.watch = ompb__fork_guard_installed().watch,
                  .coverage = ompb__fork_guard_coverage()},
        .counters = &ompb__counter_ops_system,
        .pages = &ompb__pages_ops_system,
    };
}
