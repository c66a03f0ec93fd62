/* SPDX-License-Identifier: MIT */
/*
 * The public hooks API (include/ompbench/hooks.h). A handle is immutable
 * after ompb_hooks_new(), so any thread may use it; the transport's
 * process-wide lock does the serializing. In simulation the calls become
 * callgrind client requests, which are cheap no-ops outside valgrind.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/hooks.h>
#include <valgrind/callgrind.h>

#include "core/core.h"
#include "hooks/hooks_internal.h"
#include "hooks/runner_gate.h"

/* "Metadata: " + name + " " + version: the dump name CodSpeed reads. */
#define METADATA_MAX (16 + 2 * OMPB__STRING_MAX)
/* Set to 0, it keeps a process under valgrind out of CPU simulation. */
#define SIMULATION_ENV "OMPB_SIMULATION"

/* Open failures are warned about once per process, not once per handle. */
static atomic_bool open_warned;

struct ompb_hooks {
    ompb_hooks_mode mode;
    ompb__runner_mode runner_mode;
    ompb__transport *transport;
};

static bool valid_string(const char *s)
{
    if (!s)
        return false;
    size_t len = strnlen(s, OMPB__STRING_MAX + 1);
    return len <= OMPB__STRING_MAX && ompb__utf8_valid(s, len);
}

/* Asks the runner for its mode, then negotiates the protocol version. A
 * failure has already disabled the transport with a warning. */
static int handshake(ompb_hooks *h)
{
    ompb__cmd ask = ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE), reply;
    int rc = ompb__transport_request(h->transport, &ask, &reply, NULL);
    if (rc)
        return rc;
    if (reply.mode == OMPB__RUNNER_SIMULATION) {
        ompb__transport_disable("the runner asked for CPU simulation, but this process "
                                "is not running under valgrind");
        return OMPB_ENOTSUP;
    }
    /* Memory mode: the runner profiles allocations only for integrations it
     * knows and aborts on any other SetIntegration name, which would fail the
     * whole CodSpeed run. Say so and stay out of its way. */
    if (reply.mode == OMPB__RUNNER_ANALYSIS) {
        ompb__transport_disable("the runner is in memory mode (CODSPEED_RUNNER_MODE=memory), "
                                "which ompbench does not support: it profiles only "
                                "integrations it knows");
        return OMPB_ENOTSUP;
    }
    ompb__cmd version = ompb__cmd_set_version(OMPB__PROTOCOL_VERSION);
    rc = ompb__transport_request(h->transport, &version, NULL, NULL);
    if (rc == 0)
        h->runner_mode = (ompb__runner_mode)reply.mode;
    return rc;
}

/* Failing to open the pipes (EMFILE, say) is this handle's problem only:
 * it stays off, other handles and the facade keep talking to the runner. */
static void open_failed(const char *why)
{
    if (!atomic_exchange(&open_warned, true))
        fprintf(stderr, "ompbench: warning: %s; this hooks handle does not talk to the "
                "CodSpeed runner\n", why);
}

static void connect_runner(ompb_hooks *h)
{
    const char *ctl = ompb__transport_ctl_path(), *ack = ompb__transport_ack_path();
    ompb_error err = {0};
    if (ompb__transport_disabled() || !ompb__transport_present(ctl, ack))
        return;
    int rc = ompb__transport_open(ctl, ack, ompb__transport_timeout_ms(), &h->transport, &err);
    if (rc == OMPB_ENOTSUP)
        return; /* another process holds the runner: the transport said so */
    if (rc) {
        open_failed(err.text);
        return;
    }
    if (handshake(h) == 0) {
        h->mode = OMPB_HOOKS_WALLTIME;
        return;
    }
    ompb__transport_close(h->transport);
    h->transport = NULL;
}

/* Sends one command; a disabled transport makes it a quiet no-op. */
static int send_cmd(ompb_hooks *h, const ompb__cmd *cmd)
{
    int rc = ompb__transport_request(h->transport, cmd, NULL, NULL);
    return rc == OMPB_ENOTSUP ? 0 : rc;
}

/* Under valgrind, unless OMPB_SIMULATION=0 asks for a normal run (memcheck
 * users want their threads and rounds, not CodSpeed's simulation). */
static bool simulate(void)
{
    const char *v = getenv(SIMULATION_ENV);
    return RUNNING_ON_VALGRIND && !(v && strcmp(v, "0") == 0);
}

ompb_hooks *ompb_hooks_new(void)
{
    ompb_hooks *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->runner_mode = OMPB__RUNNER_MODE_COUNT;
    /* OMPB_RUNNER=off: no FIFO is even looked at, no simulation either. */
    if (ompb__runner_use_now() == OMPB__RUNNER_USE_OFF)
        return h;
    if (simulate())
        h->mode = OMPB_HOOKS_SIMULATION;
    else
        connect_runner(h);
    return h;
}

ompb_hooks *ompb_hooks_init(void)
{
    return ompb_hooks_new();
}

void ompb_hooks_free(ompb_hooks *hooks)
{
    if (!hooks)
        return;
    ompb__transport_close(hooks->transport);
    free(hooks);
}

ompb_hooks_mode ompb_hooks_get_mode(const ompb_hooks *hooks)
{
    if (!hooks)
        return OMPB_HOOKS_OFF;
    if (hooks->mode == OMPB_HOOKS_WALLTIME && ompb__transport_disabled())
        return OMPB_HOOKS_OFF;
    return hooks->mode;
}

bool ompb_hooks_is_instrumented(const ompb_hooks *hooks)
{
    return ompb_hooks_get_mode(hooks) != OMPB_HOOKS_OFF;
}

int ompb_hooks_start_benchmark(ompb_hooks *hooks)
{
    if (!hooks || hooks->mode == OMPB_HOOKS_OFF)
        return 0;
    if (hooks->mode == OMPB_HOOKS_SIMULATION) {
        CALLGRIND_ZERO_STATS;
        CALLGRIND_START_INSTRUMENTATION;
        return 0;
    }
    ompb__cmd cmd = ompb__cmd_simple(OMPB__CMD_START_BENCHMARK);
    return send_cmd(hooks, &cmd);
}

int ompb_hooks_stop_benchmark(ompb_hooks *hooks)
{
    if (!hooks || hooks->mode == OMPB_HOOKS_OFF)
        return 0;
    if (hooks->mode == OMPB_HOOKS_SIMULATION) {
        CALLGRIND_STOP_INSTRUMENTATION;
        return 0;
    }
    ompb__cmd cmd = ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK);
    return send_cmd(hooks, &cmd);
}

int ompb_hooks_executed_benchmark(ompb_hooks *hooks, int32_t pid, const char *uri)
{
    if (!hooks || hooks->mode == OMPB_HOOKS_OFF)
        return 0;
    if (!valid_string(uri))
        return OMPB_EINVAL;
    if (hooks->mode == OMPB_HOOKS_SIMULATION) {
        CALLGRIND_DUMP_STATS_AT(uri);
        return 0;
    }
    ompb__cmd cmd = ompb__cmd_current_benchmark(pid, uri);
    return send_cmd(hooks, &cmd);
}

int ompb_hooks_set_integration(ompb_hooks *hooks, const char *name, const char *version)
{
    if (!hooks || hooks->mode == OMPB_HOOKS_OFF)
        return 0;
    if (!valid_string(name) || !valid_string(version))
        return OMPB_EINVAL;
    if (hooks->mode == OMPB_HOOKS_SIMULATION) {
        char metadata[METADATA_MAX];
        snprintf(metadata, sizeof metadata, "Metadata: %s %s", name, version);
        CALLGRIND_DUMP_STATS_AT(metadata);
        return 0;
    }
    ompb__cmd cmd = ompb__cmd_set_integration(name, version);
    return send_cmd(hooks, &cmd);
}

int ompb_hooks_add_marker(ompb_hooks *hooks, int32_t pid, ompb_marker marker,
                          uint64_t timestamp_ns)
{
    if (!hooks || hooks->mode != OMPB_HOOKS_WALLTIME)
        return 0;
    if ((unsigned)marker > OMPB_MARKER_BENCHMARK_END)
        return OMPB_EINVAL;
    ompb__cmd cmd = ompb__cmd_marker(pid, marker, timestamp_ns);
    return send_cmd(hooks, &cmd);
}

uint64_t ompb_hooks_current_timestamp(void)
{
    return ompb__now_ns();
}

ompb__transport *ompb__hooks_transport(const ompb_hooks *hooks)
{
    return hooks && hooks->mode == OMPB_HOOKS_WALLTIME ? hooks->transport : NULL;
}

ompb__runner_mode ompb__hooks_runner_mode(const ompb_hooks *hooks)
{
    return hooks ? hooks->runner_mode : OMPB__RUNNER_MODE_COUNT;
}
