/* SPDX-License-Identifier: MIT */
/* One CUnit suite per module; tests/CMakeLists.txt lists them (OMPB_TEST_SUITES). */
#ifndef OMPB_TEST_SUITE_H
#define OMPB_TEST_SUITE_H

#include <CUnit/CUnit.h>

typedef struct ompb_test_case {
    const char *name;
    CU_TestFunc fn;
} ompb_test_case;

typedef struct ompb_test_suite {
    const char *name;
    CU_InitializeFunc init;     /* may be NULL */
    CU_CleanupFunc cleanup;     /* may be NULL */
    const ompb_test_case *cases; /* terminated by {NULL, NULL} */
} ompb_test_suite;

/* Multiplier for timing-sensitive waits (OMPB_TEST_TIMEOUT_MULTIPLIER, default 1;
 * raise it under valgrind or sanitizers). */
int ompb_test_timeout_multiplier(void);

/* No test talks to a runner it did not start: points OMPB_RUNNER_CTL_FIFO and
 * OMPB_RUNNER_ACK_FIFO at paths that do not exist. The runner (main.c) does it
 * before the first test, and a test that set its own runner's paths calls it
 * when done instead of unsetting them (which would mean the default FIFOs,
 * where someone else's runner may listen). */
void ompb_test_no_runner(void);

#endif
