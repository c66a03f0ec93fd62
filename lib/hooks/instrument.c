/* SPDX-License-Identifier: MIT */
/*
 * The instrument facade between the round engine and the runner. Only the
 * engine's master thread calls it, after a barrier, so its state needs no
 * lock. The round aggregates stay in the engine's record; when the instance
 * is over they go out in one pipelined flush, encoded straight from the
 * record's bound arrays by the transport, followed by StopBenchmark and
 * CurrentBenchmark: the runner stores markers with our timestamps, so
 * sending them late changes nothing for it and keeps every transport cost
 * out of the timed rounds. In mode none each entry point is one branch on a
 * static variable.
 */
#include "hooks/instrument.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <ompbench/version.h>

#include "hooks/hooks_internal.h"
#include "model/model.h"
#include "core/core.h"

#define INTEGRATION_NAME "ompbench"

static bool initialized;
static bool window_open;    /* StartBenchmark sent, StopBenchmark not yet */
static ompb__mode mode = OMPB__MODE_NONE;
static ompb_hooks *hooks;

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

/* Markers of rec (none for a failed instance, none without rec), then with
 * close StopBenchmark and CurrentBenchmark: one flush. */
static void flush_instance(const ompb__instance *inst, const ompb__record *rec, bool close)
{
    char escaped[OMPB__STRING_MAX + 1];
    int32_t pid = (int32_t)getpid();
    size_t rounds = !rec || rec->failed ? 0 : rec->rounds;
    ompb__cmd tail[2];
    size_t n_tail = 0;
    if (close) {
        tail[n_tail++] = ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK);
        tail[n_tail++] = ompb__cmd_current_benchmark(pid, wire_uri(inst, escaped, sizeof escaped));
        window_open = false;
    }
    if (rounds + n_tail == 0)
        return;
    ompb__transport_send_markers(ompb__hooks_transport(hooks), pid, rounds ? rec->start_ns : NULL,
                                 rounds ? rec->end_ns : NULL, rounds, tail, n_tail, NULL);
}

void ompb__instrument_init(void)
{
    if (initialized)
        return;
    initialized = true;
    hooks = ompb_hooks_new();
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
    if (walltime_live() && !window_open) {
        ompb_hooks_start_benchmark(hooks);
        window_open = true;
    }
}

void ompb__instrument_instance_end(const ompb__record *rec, bool close)
{
    if (mode == OMPB__MODE_SIMULATION)
        ompb_hooks_executed_benchmark(hooks, (int32_t)getpid(), rec->inst->uri);
    else if (walltime_live())
        flush_instance(rec->inst, rec, close);
}

void ompb__instrument_window_close(const ompb__instance *inst)
{
    if (walltime_live() && window_open)
        flush_instance(inst, NULL, true);
}

bool ompb__instrument_runner_walltime(void)
{
    return mode == OMPB__MODE_WALLTIME && ompb__hooks_runner_mode(hooks) == OMPB__RUNNER_PERF;
}

bool ompb__instrument_runner_taken(void)
{
    return ompb__transport_runner_taken();
}

void ompb__instrument_reset(void)
{
    ompb_hooks_free(hooks);
    hooks = NULL;
    mode = OMPB__MODE_NONE;
    initialized = false;
    window_open = false;
}
