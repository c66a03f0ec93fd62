/* SPDX-License-Identifier: MIT */
/*
 * The instrument facade between the round engine and the runner. Only the
 * engine's master thread calls it, after a barrier, so its state needs no
 * lock. Round aggregates are buffered while the team measures and sent in
 * one pipelined flush when the instance is over, followed by StopBenchmark
 * and CurrentBenchmark: the runner stores markers with our timestamps, so
 * sending them late changes nothing for it and keeps every transport cost
 * out of the timed rounds. In mode none each entry point is one branch on a
 * static variable.
 */
#include "hooks/instrument.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <ompbench/version.h>

#include "grow.h"
#include "hooks/hooks_internal.h"
#include "utf8.h"

/* Initial room for round aggregates; doubled as needed. */
#define INITIAL_PAIRS 128
#define INTEGRATION_NAME "ompbench"

static bool initialized;
static ompb__mode mode = OMPB__MODE_NONE;
static ompb_hooks *hooks;

/* Aggregates of the current instance: start, end, start, end, ... */
static uint64_t *bounds;
static size_t n_bounds, cap_bounds;
static bool bounds_lost;       /* out of memory while buffering */

/* Commands of one flush, reused between instances. */
static ompb__cmd *flush_cmds;
static size_t cap_cmds;

static bool walltime_live(void)
{
    return mode == OMPB__MODE_WALLTIME && !ompb__transport_disabled();
}

/* The name the runner gets: the URI, or, when the codec refuses it (not
 * UTF-8, e.g. a name cut mid-character), an escaped copy with a warning.
 * Refusing the name must not take the markers and StopBenchmark down with
 * it: the window would stay open and the stream broken for what follows. */
static const char *wire_uri(const ompb__instance *inst, char *buf, size_t cap)
{
    ompb__cmd probe = ompb__cmd_current_benchmark(0, inst->uri);
    if (ompb__cmd_frame_size(&probe) != 0)
        return inst->uri;
    ompb__utf8_escape(inst->uri, buf, cap);
    fprintf(stderr, "ompbench: warning: URI \"%s\" is not valid UTF-8 (bad bytes shown as "
            "\\xNN); the CodSpeed runner gets it in this escaped form\n", buf);
    return buf;
}

/* Markers (unless lost), StopBenchmark, CurrentBenchmark: one flush. */
static void flush_instance(const ompb__instance *inst)
{
    char escaped[OMPB__STRING_MAX + 1];
    int32_t pid = (int32_t)getpid();
    size_t n_markers = bounds_lost ? 0 : n_bounds;
    if (!ompb__grow((void **)&flush_cmds, &cap_cmds, n_markers + 2, sizeof *flush_cmds, INITIAL_PAIRS)) {
        ompb__transport_disable("out of memory while sending markers");
        return;
    }
    if (bounds_lost)
        fprintf(stderr, "ompbench: warning: %s: round markers lost (out of memory); the "
                "runner gets its window without markers\n", inst->name);
    for (size_t i = 0; i < n_markers; i++)
        flush_cmds[i] = ompb__cmd_marker(pid, i % 2 ? OMPB_MARKER_BENCHMARK_END
                                                    : OMPB_MARKER_BENCHMARK_START, bounds[i]);
    flush_cmds[n_markers] = ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK);
    flush_cmds[n_markers + 1] = ompb__cmd_current_benchmark(pid, wire_uri(inst, escaped,
                                                                          sizeof escaped));
    ompb__transport_send_all(ompb__hooks_transport(hooks), flush_cmds, n_markers + 2, NULL);
}

void ompb__instrument_init(void)
{
    if (initialized)
        return;
    initialized = true;
    hooks = ompb_hooks_init();
    switch (ompb_hooks_get_mode(hooks)) {
    case OMPB_HOOKS_SIMULATION:
        mode = OMPB__MODE_SIMULATION;
        /* Any valgrind tool lands here, memcheck included: say so, since
         * the results are then 1 thread x 1 iteration by design. */
        fputs("ompbench: running under valgrind: CPU simulation mode (each instance "
              "single-threaded, one iteration; set OMPB_SIMULATION=0 to measure "
              "normally)\n", stderr);
        break;
    case OMPB_HOOKS_WALLTIME:
        mode = OMPB__MODE_WALLTIME;
        break;
    default:
        return;
    }
    ompb_hooks_set_integration(hooks, INTEGRATION_NAME, OMPB_VERSION_STRING);
}

ompb__mode ompb__instrument_mode(void)
{
    return mode;
}

void ompb__instrument_instance_begin(const ompb__instance *inst)
{
    (void)inst;
    if (!walltime_live())
        return;
    n_bounds = 0;
    bounds_lost = false;
    ompb_hooks_start_benchmark(hooks);
}

void ompb__instrument_round(uint64_t start_ns, uint64_t end_ns)
{
    if (mode != OMPB__MODE_WALLTIME || bounds_lost)
        return;
    if (!ompb__grow((void **)&bounds, &cap_bounds, n_bounds + 2, sizeof *bounds, INITIAL_PAIRS)) {
        bounds_lost = true;
        return;
    }
    bounds[n_bounds++] = start_ns;
    bounds[n_bounds++] = end_ns;
}

void ompb__instrument_instance_discard(void)
{
    n_bounds = 0;
}

void ompb__instrument_instance_end(const ompb__instance *inst)
{
    if (mode == OMPB__MODE_SIMULATION) {
        ompb_hooks_executed_benchmark(hooks, (int32_t)getpid(), inst->uri);
        return;
    }
    if (walltime_live())
        flush_instance(inst);
    n_bounds = 0;
}

bool ompb__instrument_runner_walltime(void)
{
    return mode == OMPB__MODE_WALLTIME && ompb__hooks_runner_mode(hooks) == OMPB__RUNNER_PERF;
}

void ompb__instrument_reset(void)
{
    ompb_hooks_free(hooks);
    hooks = NULL;
    free(bounds);
    free(flush_cmds);
    bounds = NULL;
    flush_cmds = NULL;
    n_bounds = cap_bounds = cap_cmds = 0;
    bounds_lost = false;
    mode = OMPB__MODE_NONE;
    initialized = false;
}
