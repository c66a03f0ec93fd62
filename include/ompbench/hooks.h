/* SPDX-License-Identifier: MIT */
/*
 * The CodSpeed runner hooks, for people who write their own measurement
 * loops. Benchmarks declared with OMPB_BENCH need none of this: ompb_main()
 * talks to the runner itself.
 *
 * A handle finds out once, in ompb_hooks_new(), how the process runs:
 *
 * - under valgrind (the runner's CPU simulation): start/stop/executed turn
 *   into callgrind client requests, markers are ignored; OMPB_SIMULATION=0
 *   in the environment turns this off (the handle then looks for a runner
 *   as outside valgrind);
 * - under the runner in walltime mode (its two named pipes exist and answer
 *   GetIntegrationMode; paths from OMPB_RUNNER_CTL_FIFO/OMPB_RUNNER_ACK_FIFO,
 *   default /tmp/runner.ctl.fifo and /tmp/runner.ack.fifo): every call sends
 *   one command and waits for its acknowledgement;
 * - otherwise every call is a no-op that returns 0 at once, and so always
 *   with OMPB_RUNNER=off in the environment (no FIFO looked at, no client
 *   request under valgrind; values: auto, the default, on, off; another
 *   value is named in one warning and counts as off). A handle looks at the
 *   default FIFOs without CODSPEED_ENV: making one is asking for the
 *   runner (region markers alone do not, docs/protocol.md).
 *
 * Every function is safe to call from any thread at any time, with one
 * handle or many: the whole process shares one lock that serializes each
 * request and its acknowledgement, so frames never interleave and no thread
 * reads another's acknowledgement. A call waits for the runner at most
 * OMPB_HOOKS_TIMEOUT_MS milliseconds (default 1000), and all calls of the
 * process together wait at most OMPB_HOOKS_BUDGET_MS (default 10000), after
 * which the runner counts as failed; after the first failure
 * (timeout, Err, unreadable answer, refused protocol version) the process
 * prints one warning and stops talking to the runner: later calls return 0
 * without doing anything and ompb_hooks_is_instrumented() turns false.
 * Failing to open the pipes (too many open files, say) leaves only that
 * handle off.
 *
 * Fork: a forked child's hooks are off. Its handles, inherited or new,
 * report OMPB_HOOKS_OFF (simulation handles excepted) and their calls
 * return 0 at once, without traffic and without waiting for the lock: the
 * pipes belong to the parent, which may be in the middle of a request.
 *
 * Sequence the runner expects, per benchmark:
 *
 *     ompb_hooks *h = ompb_hooks_new();
 *     ompb_hooks_set_integration(h, "mytool", "1.0");     // once
 *     ompb_hooks_start_benchmark(h);
 *     for each round:  t0 = ompb_hooks_current_timestamp(); ...work...;
 *                      t1 = ompb_hooks_current_timestamp();
 *                      remember (t0, t1)
 *     for each round:  ompb_hooks_add_marker(h, pid, OMPB_MARKER_BENCHMARK_START, t0);
 *                      ompb_hooks_add_marker(h, pid, OMPB_MARKER_BENCHMARK_END, t1);
 *     ompb_hooks_stop_benchmark(h);
 *     ompb_hooks_executed_benchmark(h, pid, "file.c::name");
 *     ompb_hooks_free(h);
 *
 * Markers carry your own timestamps, so sending them after the timed rounds
 * (as above) keeps the transport out of the measurement. They must
 * alternate Start/End, be time-ordered and lie between start_benchmark and
 * stop_benchmark. Return values: 0 on success or when there is nothing to
 * deliver, a negative OMPB_E* code when delivery failed.
 */
#ifndef OMPBENCH_HOOKS_H
#define OMPBENCH_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include <ompbench/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque hooks handle. */
typedef struct ompb_hooks ompb_hooks;

/* How a handle reaches the runner. */
typedef enum {
    OMPB_HOOKS_OFF = 0,        /* no runner: every call is a no-op */
    OMPB_HOOKS_WALLTIME = 1,   /* the runner's pipes (protocol v2) */
    OMPB_HOOKS_SIMULATION = 2  /* callgrind client requests */
} ompb_hooks_mode;

/* Marker types of ompb_hooks_add_marker, numbered as on the wire. */
typedef enum {
    OMPB_MARKER_SAMPLE_START = 0,
    OMPB_MARKER_SAMPLE_END = 1,
    OMPB_MARKER_BENCHMARK_START = 2,
    OMPB_MARKER_BENCHMARK_END = 3
} ompb_marker;

/* Detects the mode and, with a runner, negotiates protocol version 2.
 * Returns a new handle (free it with ompb_hooks_free), NULL only when out
 * of memory. Failing to reach the runner is not an error: the handle is
 * then off. */
OMPB_API ompb_hooks *ompb_hooks_new(void);
/* Releases the handle; NULL is fine. */
OMPB_API void ompb_hooks_free(ompb_hooks *hooks);
/* The name of ompb_hooks_new before 0.3, kept for one release. */
OMPB_API OMPB_DEPRECATED("use ompb_hooks_new") ompb_hooks *ompb_hooks_init(void);

/* The handle's mode; OMPB_HOOKS_OFF for NULL or after a transport failure. */
OMPB_API ompb_hooks_mode ompb_hooks_get_mode(const ompb_hooks *hooks);
/* True when calls reach a runner or callgrind (mode is not OFF). */
OMPB_API bool ompb_hooks_is_instrumented(const ompb_hooks *hooks);

/* Opens a benchmark window (walltime: StartBenchmark; simulation: zero the
 * counters and start instrumentation). */
OMPB_API int ompb_hooks_start_benchmark(ompb_hooks *hooks);
/* Closes it (StopBenchmark; simulation: stop instrumentation). */
OMPB_API int ompb_hooks_stop_benchmark(ompb_hooks *hooks);
/* Names the benchmark of the window just closed (CurrentBenchmark; in
 * simulation: dump the counters under that name). uri: UTF-8, at most 1024
 * bytes, e.g. "benches/x.c::name[42]"; OMPB_EINVAL otherwise. */
OMPB_API int ompb_hooks_executed_benchmark(ompb_hooks *hooks, int32_t pid,
                                           const char *uri);
/* Announces the integration (SetIntegration; in simulation a
 * "Metadata: name version" dump). Strings as for uri. */
OMPB_API int ompb_hooks_set_integration(ompb_hooks *hooks, const char *name,
                                        const char *version);
/* Sends one marker (AddMarker) with a timestamp from
 * ompb_hooks_current_timestamp(); ignored in simulation. */
OMPB_API int ompb_hooks_add_marker(ompb_hooks *hooks, int32_t pid, ompb_marker marker,
                                   uint64_t timestamp_ns);

/* CLOCK_MONOTONIC in nanoseconds: the clock the runner stamps its own
 * events with. */
OMPB_API uint64_t ompb_hooks_current_timestamp(void);

#ifdef __cplusplus
}
#endif

#endif /* OMPBENCH_HOOKS_H */
