/* SPDX-License-Identifier: MIT */
/*
 * Whether a process talks to the CodSpeed runner at all, decided before any
 * runner FIFO is looked at: OMPB_RUNNER (auto, on, off) and, for an
 * application that links ompbench only for region markers, whether the
 * runner's environment says it runs under one (CODSPEED_ENV, which the
 * runner sets for what it runs) or the FIFO paths were given explicitly
 * (OMPB_RUNNER_CTL_FIFO/OMPB_RUNNER_ACK_FIFO). Stale FIFOs at the default
 * paths, left by another program, then never reach a marked application's
 * first region call (docs/protocol.md, "Who talks to the runner").
 */
#ifndef OMPB_HOOKS_RUNNER_GATE_H
#define OMPB_HOOKS_RUNNER_GATE_H

#include <stdbool.h>

#include <ompbench/error.h>

#define OMPB__RUNNER_ENV "OMPB_RUNNER"
#define OMPB__CODSPEED_ENV "CODSPEED_ENV"
#define OMPB__RUNNER_ACCEPTED "auto, on, off"

/* The runner's default FIFO paths and the variables that override them
 * (what `ompbench collect` sets for the benchmark it runs). */
#define OMPB__CTL_FIFO_DEFAULT "/tmp/runner.ctl.fifo"
#define OMPB__ACK_FIFO_DEFAULT "/tmp/runner.ack.fifo"
#define OMPB__CTL_FIFO_ENV "OMPB_RUNNER_CTL_FIFO"
#define OMPB__ACK_FIFO_ENV "OMPB_RUNNER_ACK_FIFO"

typedef enum {
    OMPB__RUNNER_USE_AUTO, /* benchmark binaries and the hooks API: FIFOs if present;
                              region-only applications: only under the runner */
    OMPB__RUNNER_USE_ON,   /* the FIFOs if present, CODSPEED_ENV or not */
    OMPB__RUNNER_USE_OFF   /* no runner: no FIFO looked at, no CPU simulation */
} ompb__runner_use;

/* Who asks. */
typedef enum {
    OMPB__RUNNER_FOR_BENCHMARKS, /* ompb_main, and the public hooks API */
    OMPB__RUNNER_FOR_REGIONS     /* an application's region markers */
} ompb__runner_asker;

/* Parses an OMPB_RUNNER value (NULL or "": auto). 0, or OMPB_EINVAL with
 * err naming the value and the accepted ones. Pure. */
int ompb__runner_use_parse(const char *value, ompb__runner_use *use, ompb_error *err);

/* The decision, from the setting and the environment's values (NULL when
 * unset): off never; on always; auto always for benchmarks, and for
 * regions only with CODSPEED_ENV set or an explicit FIFO path (non-empty).
 * Pure. */
bool ompb__runner_gate(ompb__runner_use use, ompb__runner_asker who, const char *codspeed_env,
                       const char *ctl_override, const char *ack_override);

/* OMPB_RUNNER of this process, read once (a bad value: one warning, on the
 * first call, and off). */
ompb__runner_use ompb__runner_use_now(void);

/* ompb__runner_gate for this process's environment. */
bool ompb__runner_wanted(ompb__runner_asker who);

/* For ompb_main, before anything talks to the runner: a bad OMPB_RUNNER
 * as an error (the caller exits 2), without the warning. 0 or OMPB_EINVAL. */
int ompb__runner_check_setting(ompb_error *err);

/* Tests only: reads OMPB_RUNNER again at the next call. */
void ompb__runner_use_reset(void);

#endif
