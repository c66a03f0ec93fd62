/* SPDX-License-Identifier: MIT */
/*
 * The CUnit test runner. Usage: ompb_tests [SUITE[/TEST]] [--list]
 * Without an argument every suite runs; ctest registers one test per suite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <ompbench/fork_guard.h>

#include "suite.h"

/* The suites, from the one list in tests/CMakeLists.txt. */
#define OMPB_SUITE(name) extern const ompb_test_suite ompb_suite_##name;
#include "suites.inc"
#undef OMPB_SUITE

static const ompb_test_suite *const suites[] = {
#define OMPB_SUITE(name) &ompb_suite_##name,
#include "suites.inc"
#undef OMPB_SUITE
};

int ompb_test_timeout_multiplier(void)
{
    const char *v = getenv("OMPB_TEST_TIMEOUT_MULTIPLIER");
    int m = v ? atoi(v) : 1;
    return m > 0 ? m : 1;
}

void ompb_test_no_runner(void)
{
    setenv("OMPB_RUNNER_CTL_FIFO", "/nonexistent/ompb-tests/runner.ctl.fifo", 1);
    setenv("OMPB_RUNNER_ACK_FIFO", "/nonexistent/ompb-tests/runner.ack.fifo", 1);
    unsetenv("OMPB_RUNNER");
}

static int add_suite(const ompb_test_suite *s, const char *only_test)
{
    CU_pSuite cs = CU_add_suite(s->name, s->init, s->cleanup);
    if (!cs)
        return -1;
    int added = 0;
    for (const ompb_test_case *c = s->cases; c->name; c++) {
        if (only_test && strcmp(only_test, c->name) != 0)
            continue;
        if (!CU_add_test(cs, c->name, c->fn))
            return -1;
        added++;
    }
    return added;
}

int main(int argc, char **argv)
{
    const size_t n = sizeof suites / sizeof suites[0];
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < n; i++)
            for (const ompb_test_case *c = suites[i]->cases; c->name; c++)
                printf("%s/%s\n", suites[i]->name, c->name);
        return 0;
    }
    char sel[256] = "";
    const char *only_test = NULL;
    if (argc > 1) {
        snprintf(sel, sizeof sel, "%s", argv[1]);
        char *slash = strchr(sel, '/');
        if (slash) {
            *slash = '\0';
            only_test = slash + 1;
        }
    }
    ompb_test_no_runner();
    /* The suites run rounds as a benchmark binary does: with the fork
     * guard installed (test_fork_guard.c also runs without it). */
    if (ompb_set_fork_guard(&ompb_fork_guard_gnu) != 0)
        return 2;
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    int total = 0;
    for (size_t i = 0; i < n; i++) {
        if (sel[0] && strcmp(sel, suites[i]->name) != 0)
            continue;
        int added = add_suite(suites[i], only_test);
        if (added < 0) {
            fprintf(stderr, "ompb_tests: cannot register suite %s\n", suites[i]->name);
            CU_cleanup_registry();
            return 2;
        }
        total += added;
    }
    if (total == 0) {
        fprintf(stderr, "ompb_tests: no test matches '%s' (try --list)\n", argv[1]);
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
