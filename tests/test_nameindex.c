/* SPDX-License-Identifier: MIT */
/*
 * The name index (tools/lib/analysis/nameindex.c) and the lookups built on
 * it: every key found with its value through many table growths, missing
 * keys not found, a repeated key keeping its first value, near-identical
 * and empty names kept apart; result files still merging repetitions of a
 * name and finding each instance; a hand-assembled result file (no index)
 * still searched; scaling families grouped in order of first appearance.
 * Speed is a benchmark (benches/names.sh), not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/nameindex.h"
#include "analysis/resultfile.h"
#include "analysis/scaling.h"
#include "suite.h"

#define MANY 20000

static void test_put_get_many(void)
{
    ompb__name_index ix = {0};
    size_t v = 99;
    char (*names)[24] = malloc(MANY * sizeof *names);
    CU_ASSERT_PTR_NOT_NULL_FATAL(names);
    CU_ASSERT_FALSE(ompb__name_index_get(&ix, "anything", &v));   /* empty */
    for (size_t i = 0; i < MANY; i++) {
        snprintf(names[i], sizeof names[i], "bench[%zu, t=2]", i);
        CU_ASSERT_EQUAL_FATAL(ompb__name_index_put(&ix, names[i], i), 0);
    }
    CU_ASSERT_EQUAL(ix.n, MANY);
    size_t wrong = 0;
    for (size_t i = 0; i < MANY; i++)
        wrong += !ompb__name_index_get(&ix, names[i], &v) || v != i;
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_FALSE(ompb__name_index_get(&ix, "bench[20000, t=2]", &v));
    CU_ASSERT_FALSE(ompb__name_index_get(&ix, "bench[1, t=2", &v));
    CU_ASSERT_FALSE(ompb__name_index_get(&ix, "", &v));
    ompb__name_index_free(&ix);
    CU_ASSERT_FALSE(ompb__name_index_get(&ix, names[0], &v));
    free(names);
}

static void test_repeats_and_edge_keys(void)
{
    ompb__name_index ix = {0};
    size_t v;
    CU_ASSERT_EQUAL(ompb__name_index_put(&ix, "a", 1), 0);
    CU_ASSERT_EQUAL(ompb__name_index_put(&ix, "a", 2), 0);      /* the first value stays */
    CU_ASSERT_EQUAL(ompb__name_index_put(&ix, "", 3), 0);
    CU_ASSERT_EQUAL(ompb__name_index_put(&ix, "a ", 4), 0);
    CU_ASSERT_EQUAL(ompb__name_index_put(&ix, "\xc3\xa9", 5), 0);
    CU_ASSERT_EQUAL(ix.n, 4);
    CU_ASSERT(ompb__name_index_get(&ix, "a", &v) && v == 1);
    CU_ASSERT(ompb__name_index_get(&ix, "", &v) && v == 3);
    CU_ASSERT(ompb__name_index_get(&ix, "a ", &v) && v == 4);
    CU_ASSERT(ompb__name_index_get(&ix, "\xc3\xa9", &v) && v == 5);
    CU_ASSERT_FALSE(ompb__name_index_get(&ix, "A", &v));
    ompb__name_index_free(&ix);
}

/* Google Benchmark repetitions of one name still merge into one instance,
 * and every name is found, also among many. */
static void test_resultfile_lookups(void)
{
    size_t n = 3000, cap = 200 + n * 80;
    char *text = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t k = (size_t)snprintf(text, cap, "{\"benchmarks\": [");
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(text + k, cap - k, "%s{\"name\": \"BM_%zu\", \"real_time\": %zu, "
                              "\"time_unit\": \"ns\"}", i ? ", " : "", i % (n / 3), i + 1);
    snprintf(text + k, cap - k, "]}");
    ompb__resultfile rf;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__resultfile_parse(text, "reps.json", &rf, &err), 0);
    CU_ASSERT_EQUAL(rf.n, n / 3);
    const ompb__rf_instance *in = ompb__resultfile_find(&rf, "BM_7");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_EQUAL(in->n_samples, 3);   /* three repetitions of BM_7 */
    size_t missing = 0;
    for (size_t i = 0; i < n / 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "BM_%zu", i);
        const ompb__rf_instance *x = ompb__resultfile_find(&rf, name);
        missing += !x || strcmp(x->name, name) != 0;
    }
    CU_ASSERT_EQUAL(missing, 0);
    CU_ASSERT_PTR_NULL(ompb__resultfile_find(&rf, "BM_"));
    CU_ASSERT_PTR_NULL(ompb__resultfile_find(&rf, "BM_1000"));
    ompb__resultfile_free(&rf);
    free(text);
}

/* A result file put together by hand has no index: still searched. */
static void test_resultfile_without_index(void)
{
    ompb__rf_instance inst[2] = {{.name = "x"}, {.name = "y"}};
    ompb__resultfile rf = {.inst = inst, .n = 2, .cap = 2};
    CU_ASSERT_PTR_EQUAL(ompb__resultfile_find(&rf, "y"), &inst[1]);
    CU_ASSERT_PTR_NULL(ompb__resultfile_find(&rf, "z"));
}

static void test_scaling_families(void)
{
    const char *text = "{\"benchmarks\": ["
        "{\"name\": \"b[t=1]\", \"threads\": 1, \"real_time\": 8, \"time_unit\": \"ns\"},"
        "{\"name\": \"a[t=1]\", \"threads\": 1, \"real_time\": 8, \"time_unit\": \"ns\"},"
        "{\"name\": \"b[t=2]\", \"threads\": 2, \"real_time\": 4, \"time_unit\": \"ns\"},"
        "{\"name\": \"single[t=4]\", \"threads\": 4, \"real_time\": 4, \"time_unit\": \"ns\"},"
        "{\"name\": \"a[t=4]\", \"threads\": 4, \"real_time\": 4, \"time_unit\": \"ns\"},"
        "{\"name\": \"a[t=2]\", \"threads\": 2, \"real_time\": 5, \"time_unit\": \"ns\"}]}";
    ompb__resultfile rf;
    ompb__scaling s;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__resultfile_parse(text, "s.json", &rf, &err), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build(&rf, &s), 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 2);
    CU_ASSERT_STRING_EQUAL(s.families[0].name, "b");
    CU_ASSERT_STRING_EQUAL(s.families[1].name, "a");
    CU_ASSERT_EQUAL(s.families[1].n, 3);
    CU_ASSERT_EQUAL(s.single, 1);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

static const ompb_test_case cases[] = {
    {"put_get_many", test_put_get_many},
    {"repeats_and_edge_keys", test_repeats_and_edge_keys},
    {"resultfile_lookups", test_resultfile_lookups},
    {"resultfile_without_index", test_resultfile_without_index},
    {"scaling_families", test_scaling_families},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_nameindex = {"nameindex", NULL, NULL, cases};
