/* SPDX-License-Identifier: MIT */
/*
 * The --pin value: PU lists are read with precise reasons.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "cpulist.h"
#include "suite.h"

/* ---- helpers ----------------------------------------------------------- */

static void join_ints(const int *v, int n, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && pos < len; i++)
        pos += (size_t)snprintf(buf + pos, len - pos, "%s%d", i ? " " : "", v[i]);
}

/* ---- PU lists --------------------------------------------------------------- */

static void test_cpulist(void)
{
    static const struct { const char *text, *why; } bad[] = {
        {"", "a PU number is missing at the end"},
        {"1,", "a PU number is missing at the end"},
        {"1-", "a PU number is missing at the end"},
        {"x", "unexpected 'x' (expected a PU number or a range N-M)"},
        {"1;2", "unexpected ';' (expected a PU number or a range N-M)"},
        {"3-1", "range 3-1 is reversed"},
        {"0-3,2", "PU 2 is listed twice"},
        {"1048577", "PU number above 1048576"},
        {"0-65536", "more than 65536 PUs"},
    };
    char why[OMPB__CPULIST_WHY_MAX], got[64];
    int *pus = NULL, n = -1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pus = (int *)1;
        CU_ASSERT_EQUAL(ompb__cpulist_parse(bad[i].text, &pus, &n, why, sizeof why), OMPB_EINVAL);
        if (strcmp(why, bad[i].why) != 0)
            fprintf(stderr, "\n'%s': '%s', want '%s'\n", bad[i].text, why, bad[i].why);
        CU_ASSERT_STRING_EQUAL(why, bad[i].why);
        CU_ASSERT_PTR_NULL(pus);
        CU_ASSERT_EQUAL(n, 0);
        CU_ASSERT_EQUAL(ompb__cpulist_parse(bad[i].text, NULL, &n, why, sizeof why), OMPB_EINVAL);
    }
    CU_ASSERT_EQUAL_FATAL(ompb__cpulist_parse("9,0-2,1048576", &pus, &n, why, sizeof why), 0);
    join_ints(pus, n, got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "9 0 1 2 1048576");
    free(pus);
    CU_ASSERT_EQUAL(ompb__cpulist_parse("0-65535", NULL, &n, why, sizeof why), 0);
    CU_ASSERT_EQUAL(n, 65536);
}

static const ompb_test_case cases[] = {
    {"cpulist", test_cpulist},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_pin = {"pin", NULL, NULL, cases};
