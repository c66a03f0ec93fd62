/* SPDX-License-Identifier: MIT */
/* Clock: monotonicity, cost measurement, formatting of durations. */
#include <string.h>

#include "core/clock.h"
#include "suite.h"

static void test_monotonic(void)
{
    uint64_t prev = ompb__now_ns();
    for (int i = 0; i < 100000; i++) {
        uint64_t now = ompb__now_ns();
        CU_ASSERT_FATAL(now >= prev);
        prev = now;
    }
}

static void test_cost_is_measured_and_cached(void)
{
    double a = ompb__clock_cost_ns(), b = ompb__clock_cost_ns();
    CU_ASSERT_TRUE(a > 0);
    CU_ASSERT_DOUBLE_EQUAL(a, b, 0);
}

static void test_format(void)
{
    char buf[32];
    ompb__format_duration(12.25, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "12.25 ns");
    ompb__format_duration(4560, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "4.56 us");
    ompb__format_duration(7.891e6, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "7.891 ms");
    ompb__format_duration(1.5e9, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "1.5 s");
}

static void test_process_cpu_advances(void)
{
    uint64_t a = ompb__process_cpu_ns();
    volatile uint64_t sink = 0;
    for (uint64_t i = 0; i < 20000000; i++)
        sink += i;
    CU_ASSERT_TRUE(ompb__process_cpu_ns() > a);
    CU_ASSERT_EQUAL(sink, 19999999ull * 20000000ull / 2);
}

static const ompb_test_case cases[] = {
    {"monotonic", test_monotonic},
    {"cost_is_measured_and_cached", test_cost_is_measured_and_cached},
    {"format", test_format},
    {"process_cpu_advances", test_process_cpu_advances},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_clock = {"clock", NULL, NULL, cases};
