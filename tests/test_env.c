/* SPDX-License-Identifier: MIT */
/*
 * Engine environment doubles for the unit tests (tests/test_env.h). The
 * engine's master calls the sink and the hooks from one thread at a time,
 * so the counts need no atomics.
 */
#include "test_env.h"

#include <stdio.h>
#include <string.h>

#include <ompbench/fork_guard.h>

#include "model/record.h"

static void sink_begin(void *ctx, const ompb__instance *inst)
{
    ompb_test_env *te = ctx;
    te->begins++;
    te->begun = inst;
}

static void sink_end(void *ctx, const struct ompb__record *rec, bool close)
{
    ompb_test_env *te = ctx;
    te->ends++;
    te->last_close = close;
    te->ended_rounds = rec->rounds;
    te->ended_failed = rec->failed;
}

static int hooks_signal(void *ctx)
{
    ompb_test_env *te = ctx;
    te->signal_reads++;
    return te->stop_signal;
}

static void hooks_team(void *ctx, const struct ompb_state *states, int threads)
{
    ompb_test_env *te = ctx;
    te->team_calls++;
    te->team_states = states;
    te->team_threads = threads;
}

static void hooks_thread(void *ctx)
{
    ompb_test_env *te = ctx;
#pragma omp atomic
    te->thread_calls++;
}

const ompb__engine_env *ompb_test_env_init(ompb_test_env *te)
{
    memset(te, 0, sizeof *te);
    te->env.markers = (ompb__marker_sink){te, sink_begin, sink_end};
    te->env.body = (ompb__body_hooks){te, hooks_signal, hooks_team, hooks_thread};
    te->env.forks = (ompb__fork_watcher){ompb_fork_guard_gnu.watch, ompb__fork_guard_coverage()};
    return &te->env;
}

const ompb__engine_env *ompb_test_env_default(void)
{
    static ompb__engine_env env;
    env = ompb__engine_env_default();
    return &env;
}
