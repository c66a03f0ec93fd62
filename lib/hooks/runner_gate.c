/* SPDX-License-Identifier: MIT */
/*
 * Who talks to the CodSpeed runner (lib/hooks/runner_gate.h). An
 * application that links ompbench for its region markers only must never
 * stall on FIFOs that some other program left at the default paths: it
 * looks for the runner only when the runner's environment says it runs
 * under one (CODSPEED_ENV) or when it was given FIFO paths explicitly.
 * Benchmark binaries keep looking at the default paths (documented: run
 * them under a runner and nothing is to be configured); OMPB_RUNNER=off
 * keeps everything away from the runner, and =on lets a region-only
 * application look without CODSPEED_ENV.
 */
#include "hooks/runner_gate.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "hooks/transport.h"

static const struct {
    const char *name;
    ompb__runner_use use;
} uses[] = {
    {"auto", OMPB__RUNNER_USE_AUTO},
    {"on", OMPB__RUNNER_USE_ON},
    {"off", OMPB__RUNNER_USE_OFF},
};

static pthread_mutex_t read_lock = PTHREAD_MUTEX_INITIALIZER;
static bool read_done;
static ompb__runner_use current;

int ompb__runner_use_parse(const char *value, ompb__runner_use *use, ompb_error *err)
{
    *use = OMPB__RUNNER_USE_AUTO;
    if (!value || !*value)
        return 0;
    for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++)
        if (strcmp(value, uses[i].name) == 0) {
            *use = uses[i].use;
            return 0;
        }
    return ompb__error_set(err, OMPB_EINVAL, "%s: invalid value '%.100s' (accepted: %s)",
                           OMPB__RUNNER_ENV, value, OMPB__RUNNER_ACCEPTED);
}

bool ompb__runner_gate(ompb__runner_use use, ompb__runner_asker who, const char *codspeed_env,
                       const char *ctl_override, const char *ack_override)
{
    if (use == OMPB__RUNNER_USE_OFF)
        return false;
    if (use == OMPB__RUNNER_USE_ON || who == OMPB__RUNNER_FOR_BENCHMARKS)
        return true;
    return codspeed_env || (ctl_override && *ctl_override) || (ack_override && *ack_override);
}

ompb__runner_use ompb__runner_use_now(void)
{
    pthread_mutex_lock(&read_lock);
    if (!read_done) {
        ompb_error err = {0};
        read_done = true;
        if (ompb__runner_use_parse(getenv(OMPB__RUNNER_ENV), &current, &err) != 0) {
            current = OMPB__RUNNER_USE_OFF;
            ompb__error_print(stderr, "ompbench: warning: %s; not talking to the CodSpeed "
                              "runner", err.text);
        }
    }
    ompb__runner_use use = current;
    pthread_mutex_unlock(&read_lock);
    return use;
}

bool ompb__runner_wanted(ompb__runner_asker who)
{
    return ompb__runner_gate(ompb__runner_use_now(), who, getenv(OMPB__CODSPEED_ENV),
                             getenv(OMPB__CTL_FIFO_ENV), getenv(OMPB__ACK_FIFO_ENV));
}

int ompb__runner_check_setting(ompb_error *err)
{
    ompb__runner_use use;
    return ompb__runner_use_parse(getenv(OMPB__RUNNER_ENV), &use, err);
}

void ompb__runner_use_reset(void)
{
    pthread_mutex_lock(&read_lock);
    read_done = false;
    pthread_mutex_unlock(&read_lock);
}
