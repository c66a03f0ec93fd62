/* SPDX-License-Identifier: MIT */
/* Registry: registration, expansion into instances, names and URIs. */
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "model/registry.h"
#include "suite.h"

static void body(ompb_state *s) { (void)s; }

static const ompb_benchmark plain = {.name = "plain", .file = "benches/x.c", .fn = body};
static const ompb_benchmark with_args = {.name = "count", .file = "/src/proj/benches/x.c",
                                         .fn = body, OMPB_ARGS(0, 42, -7)};
static const ompb_benchmark with_tuples = {.name = "add", .file = "benches/x.c", .fn = body,
                                           OMPB_TUPLES(2, {0, 0}, {1024, -1024})};
static const ompb_benchmark with_threads = {.name = "triad", .file = "benches/x.c", .fn = body,
                                            OMPB_ARGS(8), OMPB_THREADS(1, 2, 4)};
static const ompb_benchmark threads_only = {.name = "thread_example", .file = "benches/examples.c",
                                            .fn = body, OMPB_THREADS(4)};

static int setup_registry(void)
{
    ompb__registry_clear();
    const ompb_benchmark *all[] = {&plain, &with_args, &with_tuples, &with_threads, &threads_only};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (ompb_register(all[i]) != 0)
            return -1;
    return 0;
}

static int clear_registry(void)
{
    ompb__registry_clear();
    return 0;
}

static void test_register_rejects_bad_descriptors(void)
{
    static const int zero[] = {0};
    ompb_benchmark nameless = {.fn = body};
    ompb_benchmark bodiless = {.name = "x"};
    ompb_benchmark no_list = {.name = "no_list", .fn = body, .n_threads = 2};
    ompb_benchmark zero_threads = {.name = "zero", .fn = body, .threads = zero, .n_threads = 1};
    ompb_benchmark wide = {.name = "wide", .fn = body, OMPB_TUPLES(5, {1, 2, 3, 4})};
    ompb_benchmark no_args = {.name = "no_args", .fn = body, .n_args = 3};
    ompb_benchmark latin1 = {.name = "caf\xe9", .fn = body};
    ompb_benchmark bad_file = {.name = "ok", .file = "benches/\xff.c", .fn = body};
    CU_ASSERT_PTR_NULL(ompb__registry_error());
    CU_ASSERT_EQUAL(ompb_register(NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ompb__registry_error());
    CU_ASSERT_EQUAL(ompb_register(&nameless), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_register(&bodiless), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_register(&no_list), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_register(&zero_threads), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_register(&wide), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_register(&no_args), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_register(&latin1), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_register(&bad_file), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__registry_count(), 5);
    /* Only the first rejection is kept: it is what ompb_main reports. */
    CU_ASSERT_PTR_NOT_NULL(strstr(ompb__registry_error(), "needs a name"));
}

static const ompb_benchmark twice = {.name = "twice", .file = "x.c", .fn = body, OMPB_ARGS(1, 1)};

static void test_duplicate_names_rejected(void)
{
    ompb__instance *list = NULL;
    size_t n;
    ompb_error err = {0};
    const int threads[] = {2, 2};
    CU_ASSERT_EQUAL(ompb__instances_expand(threads, 2, 1, 0, &list, &n, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "two instances are named"));
    CU_ASSERT_EQUAL_FATAL(ompb_register(&twice), 0);
    CU_ASSERT_EQUAL(ompb__instances_expand(NULL, 0, 1, 0, &list, &n, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "'twice[1]'"));
    /* Restore the suite's registrations for the tests that follow. */
    ompb__registry_clear();
    CU_ASSERT_EQUAL(setup_registry(), 0);
}

static const char *const expected_default[] = {
    "plain", "count[0]", "count[42]", "count[-7]", "add[(0, 0)]", "add[(1024, -1024)]",
    "triad[8, t=1]", "triad[8, t=2]", "triad[8, t=4]", "thread_example[t=4]",
};

static void test_expand_default_width(void)
{
    ompb__instance *list;
    size_t n;
    CU_ASSERT_EQUAL_FATAL(ompb__instances_expand(NULL, 0, 3, 0, &list, &n, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(n, sizeof expected_default / sizeof expected_default[0]);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_STRING_EQUAL(list[i].name, expected_default[i]);
    CU_ASSERT_EQUAL(list[0].threads, 3);
    CU_ASSERT_FALSE(list[0].thread_variant);
    CU_ASSERT_EQUAL(list[7].threads, 2);
    CU_ASSERT_EQUAL(list[4].arity, 2);
    CU_ASSERT_EQUAL(list[5].argv[1], -1024);
    CU_ASSERT_EQUAL(list[8].family_index, 3);
    CU_ASSERT_EQUAL(list[8].family_instance, 2);
    free(list);
}

static void test_thread_list_overrides_every_benchmark(void)
{
    ompb__instance *list;
    size_t n;
    const int threads[] = {1, 2};
    CU_ASSERT_EQUAL_FATAL(ompb__instances_expand(threads, 2, 3, 0, &list, &n, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(n, 16);
    CU_ASSERT_STRING_EQUAL(list[0].name, "plain[t=1]");
    CU_ASSERT_STRING_EQUAL(list[1].name, "plain[t=2]");
    CU_ASSERT_STRING_EQUAL(list[3].name, "count[0, t=2]");
    CU_ASSERT_STRING_EQUAL(list[15].name, "thread_example[t=2]");
    /* Names are unique, so results and URIs can be matched by name. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CU_ASSERT_NOT_EQUAL(strcmp(list[i].uri, list[j].uri), 0);
    free(list);
}

static void test_uris(void)
{
    ompb__instance *list;
    size_t n;
    CU_ASSERT_EQUAL_FATAL(ompb__instances_expand(NULL, 0, 2, 0, &list, &n, NULL), 0);
    CU_ASSERT_STRING_EQUAL(list[0].uri, "benches/x.c::plain");
    CU_ASSERT_STRING_EQUAL(list[2].uri, "benches/x.c::count[42]");
    CU_ASSERT_STRING_EQUAL(list[9].uri, "benches/examples.c::thread_example[t=4]");
    free(list);
    CU_ASSERT_STRING_EQUAL(ompb__uri_file("/a/b/benches/y.c"), "benches/y.c");
    CU_ASSERT_STRING_EQUAL(ompb__uri_file("/y.c"), "y.c");
    CU_ASSERT_STRING_EQUAL(ompb__uri_file("y.c"), "y.c");
}

static void test_name_too_long_is_rejected(void)
{
    char longname[400];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ompb_benchmark b = {.name = longname, .fn = body};
    ompb__instance inst = {.bench = &b};
    char buf[OMPB__NAME_MAX];
    CU_ASSERT_EQUAL(ompb__instance_format_name(&inst, 0, buf, sizeof buf), OMPB_EINVAL);
    char small[12];
    ompb_benchmark c = {.name = "count", .fn = body};
    ompb__instance inst2 = {.bench = &c, .arity = 1, .argv = {123456789}};
    CU_ASSERT_EQUAL(ompb__instance_format_name(&inst2, 0, small, sizeof small), OMPB_EINVAL);
}

/* A fixed sample size above OMPB__MAX_SAMPLE_SIZE (2^62 ran for ever) is
 * refused at registration, which ompb_main reports with exit 2. */
static void test_sample_size_limit(void)
{
    ompb_benchmark huge = {.name = "huge", .fn = body, .sample_size = UINT64_C(1) << 62};
    ompb_benchmark largest = {.name = "largest", .fn = body, .sample_size = UINT64_C(1) << 40};
    ompb__registry_clear();
    CU_ASSERT_EQUAL(ompb_register(&huge), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(ompb__registry_error() ? ompb__registry_error() : "",
                                  ".sample_size must be"));
    CU_ASSERT_EQUAL(ompb_register(&largest), 0);
    CU_ASSERT_EQUAL(setup_registry(), 0);   /* the suite's registry again */
}

/* .scaling is OMPB_SCALING_AUTO, _STRONG or _WEAK: anything else (an
 * uninitialized or mistyped value) is refused at registration. */
static void test_scaling_kind_checked(void)
{
    ompb_benchmark sideways = {.name = "sideways", .fn = body, .scaling = (ompb_scaling)7};
    ompb_benchmark weak = {.name = "weak", .fn = body, .scaling = OMPB_SCALING_WEAK};
    ompb__registry_clear();
    CU_ASSERT_EQUAL(ompb_register(&sideways), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(ompb__registry_error() ? ompb__registry_error() : "",
                                  ".scaling must be"));
    CU_ASSERT_EQUAL(ompb_register(&weak), 0);
    CU_ASSERT_EQUAL(setup_registry(), 0);   /* the suite's registry again */
}

static const ompb_test_case cases[] = {
    {"register_rejects_bad_descriptors", test_register_rejects_bad_descriptors},
    {"duplicate_names_rejected", test_duplicate_names_rejected},
    {"expand_default_width", test_expand_default_width},
    {"thread_list_overrides_every_benchmark", test_thread_list_overrides_every_benchmark},
    {"uris", test_uris},
    {"name_too_long_is_rejected", test_name_too_long_is_rejected},
    {"sample_size_limit", test_sample_size_limit},
    {"scaling_kind_checked", test_scaling_kind_checked},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_registry = {"registry", setup_registry, clear_registry, cases};
