/* SPDX-License-Identifier: MIT */
/*
 * The instrument facade the round engine talks to. Mode is detected once:
 * under valgrind -> simulation (callgrind client requests); runner pipes
 * present and answering -> walltime (CodSpeed FIFO protocol v2); else none,
 * where every call is a cheap no-op.
 *
 * Threading contract: only the round engine's master thread calls these,
 * after the team barrier, outside every timed window. The round aggregates
 * are not copied here: instrument_instance_end sends them from the record.
 */
#ifndef OMPB_HOOKS_INSTRUMENT_H
#define OMPB_HOOKS_INSTRUMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct ompb__record;

typedef enum {
    OMPB__MODE_NONE,
    OMPB__MODE_WALLTIME,
    OMPB__MODE_SIMULATION
} ompb__mode;

/* Detects the mode and, with a runner, says hello (GetIntegrationMode,
 * SetVersion(2), SetIntegration). Idempotent. */
void ompb__instrument_init(void);
ompb__mode ompb__instrument_mode(void);

/* Walltime: StartBenchmark, unless a window is open already (an earlier
 * repetition of the same instance opened it). Simulation: nothing
 * (ompb_iter_begin/end toggle callgrind's instrumentation right around the
 * measured loop). */
void ompb__instrument_instance_begin(const ompb__instance *inst);
/* Walltime: sends one BenchmarkStart/BenchmarkEnd pair per measured round
 * of rec (none when rec->failed: partial rounds of a failed body are no
 * result, the window is still closed and named), then, when close is true,
 * StopBenchmark and CurrentBenchmark(pid, uri), in one pipelined flush.
 * close is false for a repetition that more repetitions of the instance
 * follow in the same window. Simulation: CALLGRIND_DUMP_STATS_AT(uri). */
void ompb__instrument_instance_end(const struct ompb__record *rec, bool close);
/* Walltime: closes and names the window of inst if one is still open (the
 * last repetition failed before it could); else nothing. */
void ompb__instrument_window_close(const ompb__instance *inst);

/* True when a runner answered GetIntegrationMode with Perf (walltime), so
 * the walltime results file is expected (lib/report/codspeed.c). */
bool ompb__instrument_runner_walltime(void);
/* True when another process held the runner (lib/hooks/transport.h): this
 * process sent nothing, so it must write no CodSpeed results either; the
 * runner would find entries without benchmark windows. */
bool ompb__instrument_runner_taken(void);

#endif
