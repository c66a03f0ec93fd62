/* SPDX-License-Identifier: MIT */
/*
 * Who talks to the CodSpeed runner (lib/hooks/runner_gate.c): OMPB_RUNNER's
 * values and the refusal of others, the decision for benchmark binaries
 * and for region-only applications from the environment's values, and a
 * hooks handle made with OMPB_RUNNER=off (off, even under valgrind's
 * simulation switch) while a live runner twin listens: no frame.
 */
#include <stdlib.h>
#include <string.h>

#include <ompbench/hooks.h>

#include "suite.h"
#include "hooks_peer.h"
#include "hooks/hooks.h"

static void test_parse(void)
{
    static const struct {
        const char *value;
        int rc;
        ompb__runner_use use;
    } cases[] = {
        {NULL, 0, OMPB__RUNNER_USE_AUTO}, {"", 0, OMPB__RUNNER_USE_AUTO},
        {"auto", 0, OMPB__RUNNER_USE_AUTO}, {"on", 0, OMPB__RUNNER_USE_ON},
        {"off", 0, OMPB__RUNNER_USE_OFF}, {"OFF", OMPB_EINVAL, OMPB__RUNNER_USE_AUTO},
        {"0", OMPB_EINVAL, OMPB__RUNNER_USE_AUTO}, {"off ", OMPB_EINVAL, OMPB__RUNNER_USE_AUTO},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ompb_error err = {0};
        ompb__runner_use use = OMPB__RUNNER_USE_OFF;
        CU_ASSERT_EQUAL(ompb__runner_use_parse(cases[i].value, &use, &err), cases[i].rc);
        CU_ASSERT_EQUAL(use, cases[i].use);
        if (cases[i].rc) {
            CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "OMPB_RUNNER: invalid value"));
            CU_ASSERT_PTR_NOT_NULL(strstr(err.text, cases[i].value));
            CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "(accepted: auto, on, off)"));
        }
    }
}

/* The decision table: off never, on always, auto always for benchmark
 * binaries and for regions only when asked (CODSPEED_ENV set, even empty;
 * a non-empty FIFO path). */
static void test_gate(void)
{
    const ompb__runner_asker B = OMPB__RUNNER_FOR_BENCHMARKS, R = OMPB__RUNNER_FOR_REGIONS;
    const ompb__runner_use A = OMPB__RUNNER_USE_AUTO, ON = OMPB__RUNNER_USE_ON,
                           OFF = OMPB__RUNNER_USE_OFF;
    CU_ASSERT_TRUE(ompb__runner_gate(A, B, NULL, NULL, NULL));
    CU_ASSERT_FALSE(ompb__runner_gate(A, R, NULL, NULL, NULL));
    CU_ASSERT_FALSE(ompb__runner_gate(A, R, NULL, "", ""));
    CU_ASSERT_TRUE(ompb__runner_gate(A, R, "runner", NULL, NULL));
    CU_ASSERT_TRUE(ompb__runner_gate(A, R, "", NULL, NULL));
    CU_ASSERT_TRUE(ompb__runner_gate(A, R, NULL, "/x/ctl", NULL));
    CU_ASSERT_TRUE(ompb__runner_gate(A, R, NULL, NULL, "/x/ack"));
    CU_ASSERT_TRUE(ompb__runner_gate(ON, R, NULL, NULL, NULL));
    CU_ASSERT_TRUE(ompb__runner_gate(ON, B, NULL, NULL, NULL));
    CU_ASSERT_FALSE(ompb__runner_gate(OFF, B, "runner", "/x/ctl", "/x/ack"));
    CU_ASSERT_FALSE(ompb__runner_gate(OFF, R, "runner", "/x/ctl", "/x/ack"));
}

/* A handle made under OMPB_RUNNER=off, with a live runner twin on the FIFOs
 * it would use: off, and nothing reaches the twin. A handle made after it
 * without the setting talks (the check can fail), and its handshake, acked
 * in order, is the only one the twin saw. */
static void test_off_sends_nothing(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    CU_ASSERT_EQUAL_FATAL(hooks_peer_start_thread(&p), 0);
    setenv("OMPB_RUNNER", "off", 1);
    ompb__runner_use_reset();
    ompb_hooks *off = ompb_hooks_new();
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(off), OMPB_HOOKS_OFF);
    CU_ASSERT_EQUAL(ompb_hooks_start_benchmark(off), 0);
    ompb_hooks_free(off);
    unsetenv("OMPB_RUNNER");
    ompb__runner_use_reset();
    ompb_hooks *on = ompb_hooks_new();
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(on), OMPB_HOOKS_WALLTIME);
    ompb_hooks_free(on);
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(ompb__collector_command_count(p.collector, OMPB__CMD_GET_INTEGRATION_MODE), 1);
    CU_ASSERT_EQUAL(ompb__collector_command_count(p.collector, OMPB__CMD_START_BENCHMARK), 0);
    hooks_peer_destroy(&p);
    ompb_test_no_runner();
}

static const ompb_test_case cases[] = {
    {"parse", test_parse},
    {"gate", test_gate},
    {"off_sends_nothing", test_off_sends_nothing},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_runner_gate = {"runner_gate", NULL, NULL, cases};
