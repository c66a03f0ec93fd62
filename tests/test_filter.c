/* SPDX-License-Identifier: MIT */
/*
 * The bounded --filter compile (lib/config/filter.c): ordinary patterns compile and
 * match as before; patterns whose bounded repetitions would make glibc's
 * regcomp build gigabytes, groups nested past what its parser survives and
 * back-references are refused with one line. Only patterns that are cheap
 * even for regcomp are ever compiled here, so a broken bound fails these
 * tests instead of exhausting the machine's memory.
 */
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/filter.h"
#include "suite.h"

static bool matches(const char *pattern, const char *name)
{
    regex_t re;
    ompb_error err = {0};
    if (ompb__filter_compile(&re, pattern, "--filter", &err) != 0)
        return false;
    bool m = regexec(&re, name, 0, NULL, 0) == 0;
    regfree(&re);
    return m;
}

static int compile(const char *pattern, ompb_error *err)
{
    regex_t re;
    int rc = ompb__filter_compile(&re, pattern, "--filter", err);
    if (rc == 0)
        regfree(&re);
    return rc;
}

static void test_ordinary_patterns(void)
{
    CU_ASSERT_TRUE(matches("^count_set_bits\\[42\\]$", "count_set_bits[42]"));
    CU_ASSERT_FALSE(matches("^count_set_bits\\[42\\]$", "count_set_bits[420]"));
    CU_ASSERT_TRUE(matches("fib|triad", "stream_triad[t=2]"));
    CU_ASSERT_TRUE(matches("[[:digit:]]{2}, t=[0-9]+\\]$", "x[42, t=4]"));
    CU_ASSERT_TRUE(matches("[]a]x", "]x"));         /* ']' first in a bracket */
    CU_ASSERT_TRUE(matches("[\\1]", "1"));          /* no escape in a bracket */
    CU_ASSERT_TRUE(matches("a\\\\1", "a\\1"));      /* an escaped backslash, then '1' */
    CU_ASSERT_TRUE(matches("(ab){2,}c", "ababc"));
    CU_ASSERT_TRUE(matches(")", "a)b"));            /* a stray ')' is a literal */
    CU_ASSERT_TRUE(matches("(a{1,100}){1,100}", "aaa"));
    CU_ASSERT_TRUE(matches("x.{0,2000}", "x"));
    /* Filters of the tests and docs, and small optional parts in bounds. */
    CU_ASSERT_TRUE(matches("scale\\[1024", "scale[1024, t=2]"));
    CU_ASSERT_TRUE(matches("^stream_triad", "stream_triad[t=2]"));
    CU_ASSERT_TRUE(matches("(a|b){1,3}", "ab"));
    CU_ASSERT_TRUE(matches("^(foo|bar)_[0-9]*$", "bar_12"));
    CU_ASSERT_TRUE(matches("((a?){1,20}){1,20}", "aaa"));
    CU_ASSERT_TRUE(matches("(a?b?c?){1,100}", "abc"));
    CU_ASSERT_TRUE(matches("(((a+){1,20}){1,20}){1,20}", "a"));
    CU_ASSERT_TRUE(matches("(^|_)triad(\\[|$)", "stream_triad[t=2]"));
    CU_ASSERT_TRUE(matches("\\<fib", "x fib"));
}

static void test_errors_name_the_pattern(void)
{
    ompb_error err = {0};
    CU_ASSERT_EQUAL(compile("fib(", &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--filter: invalid regular expression 'fib('"));
    CU_ASSERT_EQUAL(compile("(a)\\1", &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "back-reference"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "'(a)\\1'"));
}

/* The estimate against glibc's growth: one bound costs its square, nested
 * bounds multiply. */
static void test_cost_estimate(void)
{
    CU_ASSERT_EQUAL(ompb__filter_cost("abc"), 3);
    CU_ASSERT(ompb__filter_cost("a{1,1000}") >= 999u * 999u);
    CU_ASSERT(ompb__filter_cost("(a{1,100}){1,100}") <= OMPB__FILTER_MAX_COST);
    CU_ASSERT(ompb__filter_cost("x.{0,2000}") <= OMPB__FILTER_MAX_COST);
    CU_ASSERT(ompb__filter_cost("a{1,3000}") > OMPB__FILTER_MAX_COST);
    CU_ASSERT(ompb__filter_cost("a{3000}") <= OMPB__FILTER_MAX_COST);  /* no optional copies */
    CU_ASSERT(ompb__filter_cost("((((a{1,100}){1,100}){1,100}){1,100})") > UINT64_C(1) << 35);
    CU_ASSERT(ompb__filter_cost("(((a{1,100}){1,100}){1,100})") > OMPB__FILTER_MAX_COST);
    CU_ASSERT(ompb__filter_cost("(a|b){1,2100}") > OMPB__FILTER_MAX_COST);
    CU_ASSERT(ompb__filter_cost("[a{1,100000}]") == 1);   /* inside a bracket: literals */
    /* Optional and starred parts inside bounds chain their closures through
     * every copy: cheap in nodes, quadratic in glibc's closures. */
    CU_ASSERT(ompb__filter_cost("(a?){1,20}") < 10000);
    CU_ASSERT(ompb__filter_cost("(a?){1,1000}") > OMPB__FILTER_MAX_COST);
    CU_ASSERT(ompb__filter_cost("(((a?){1,20}){1,20}){1,20}") > OMPB__FILTER_MAX_COST);
    CU_ASSERT(ompb__filter_cost("(((a+){1,20}){1,20}){1,20}") <= OMPB__FILTER_MAX_COST);
    CU_ASSERT(ompb__filter_cost("a{40000}") > OMPB__FILTER_MAX_COST); /* > RE_DUP_MAX */
    /* An anchor copies the closure after it: '($){1,300}' is 114 MB. */
    CU_ASSERT(ompb__filter_cost("^abc$") < 100);
    CU_ASSERT(ompb__filter_cost("(^){1,41}") <= OMPB__FILTER_MAX_COST);
    CU_ASSERT(ompb__filter_cost("($){1,300}") > OMPB__FILTER_MAX_COST);
}

/* Refused before regcomp: a{1,3000} would still be cheap for glibc (about
 * 70 MB), so a missing bound shows as a failed assertion here. */
static void test_too_large_refused(void)
{
    ompb_error err = {0};
    CU_ASSERT_EQUAL(compile("a{1,3000}", &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "too large to compile"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "'a{1,3000}'"));
    /* Optional (?, *) atoms inside nested bounds (issue 14): 1.5 GB, 6+ GB
     * and more for glibc, so each is checked on the estimate first and
     * compiled only when that refuses it: a broken estimate fails here
     * instead of taking the machine's memory. */
    static const char *const huge[] = {
        "(a|b|c){1,1200}",
        "(((a?){1,20}){1,20}){1,20}",
        "((((a?){1,12}){1,12}){1,12}){1,12}",
        "(((a*){1,20}){1,20}){1,20}",
        "(((a?)+){1,20}){1,30}",
        "((((a*)+){1,12}){1,12}){1,12}",
        "(a?){1,1000}",
        "(a|$){1,300}",
    };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        CU_ASSERT_FATAL(ompb__filter_cost(huge[i]) > OMPB__FILTER_MAX_COST);
        CU_ASSERT_EQUAL(compile(huge[i], &err), OMPB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "too large to compile"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, huge[i]));
    }
}

static void test_deep_nesting_refused(void)
{
    char pattern[1200];
    ompb_error err = {0};
    size_t depth = 300, k = 0;
    for (size_t i = 0; i < depth; i++)
        pattern[k++] = '(';
    pattern[k++] = 'a';
    for (size_t i = 0; i < depth; i++)
        pattern[k++] = ')';
    pattern[k] = '\0';
    CU_ASSERT_EQUAL(compile(pattern, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "deeper than"));
    pattern[0] = '\0';
    for (size_t i = 0; i < 200; i++)
        strcat(pattern, "(");
    strcat(pattern, "a");
    for (size_t i = 0; i < 200; i++)
        strcat(pattern, ")");
    CU_ASSERT_EQUAL(compile(pattern, &err), 0);
}

/* Found by fuzz/fuzz_options.c: loops over parts that can match empty,
 * nested, cost glibc's regcomp time exponential in the nesting with little
 * memory, so the estimate passes them. Nested deeper than
 * OMPB__FILTER_MAX_LOOPS they are refused before regcomp runs (issue 30:
 * '^(((((f*)+)+)+)+)+-' took the trial's whole CPU limit, 7.5 s under the
 * fuzzer); the others still go through the trial compile, and the cheap
 * ones pass. */
static void test_slow_compile_refused(void)
{
    static const char *const slow[] = {"^f++*++++++++-", "^(f*|g*)++++-",
                                       "^(((((f*)+)+)+)+)+-", "^((((f*)+)+)+)+",
                                       "^((f*){2,}){2,5}{0,}+"};
    static const char *const fine[] = {"(a*)+", "^(fib|x*)+$", "^(((f*)+)+)+",
                                       "(a*|b*|c*|d*|e*|g*|h*|i*|j*|k*|l*|m*)+++",
                                       "(((a*)?)?)+{0,1}{1}", "((a+)+)+((b*)+)+"};
    ompb_error err = {0};
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++) {
        CU_ASSERT_FATAL(ompb__filter_cost(slow[i]) <= OMPB__FILTER_MAX_COST);
        CU_ASSERT_EQUAL(compile(slow[i], &err), OMPB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "nests repetitions of parts that can match "
                                                "empty"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "at most 3 deep"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, slow[i]));
        CU_ASSERT_PTR_NULL(strchr(err.text, '\n'));
    }
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++)
        CU_ASSERT_EQUAL(compile(fine[i], &err), 0);
}

static const ompb_test_case cases[] = {
    {"slow_compile_refused", test_slow_compile_refused},
    {"ordinary_patterns", test_ordinary_patterns},
    {"errors_name_the_pattern", test_errors_name_the_pattern},
    {"cost_estimate", test_cost_estimate},
    {"too_large_refused", test_too_large_refused},
    {"deep_nesting_refused", test_deep_nesting_refused},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_filter = {"filter", NULL, NULL, cases};
