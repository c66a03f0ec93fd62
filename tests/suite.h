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

#endif
