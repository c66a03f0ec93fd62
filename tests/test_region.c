/* SPDX-License-Identifier: MIT */
/*
 * Application regions (lib/region*.c), in process: pairing across a team,
 * team sizes, nesting, threads outside OpenMP, every misuse of issue 11
 * (one message naming region and thread, that entry failed, the others
 * reported), names, and the streaming statistics past the kept instances.
 * Each test starts from an empty region table (ompb__regions_reset) and
 * reads the report the public API writes (JSON, through jansson). What
 * only process exit can show (the report at exit, settings, a begin never
 * ended at exit) is in tests/integration/region_app.sh. No test asserts a
 * time: only relations between the measured ones.
 */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gnu/libc-version.h>
#include <jansson.h>
#include <ompbench/error.h>
#include <ompbench/region.h>

#include "regions/region.h"
#include "suite.h"

static char report_path[64];

static int setup(void)
{
    snprintf(report_path, sizeof report_path, "/tmp/ompb_region_test_%ld.json", (long)getpid());
    return 0;
}

static int cleanup(void)
{
    unlink(report_path);
    ompb__regions_reset();
    return 0;
}

/* The JSON report of everything so far; *rc gets ompb_regions_report's. */
static json_t *report(int *rc)
{
    int r = ompb_regions_report(report_path, "json");
    if (rc)
        *rc = r;
    json_error_t err;
    json_t *root = json_load_file(report_path, 0, &err);
    CU_ASSERT_PTR_NOT_NULL(root);
    return root;
}

/* The iteration entry named name, or NULL. */
static json_t *entry(json_t *root, const char *name)
{
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b) {
        const char *n = json_string_value(json_object_get(b, "name"));
        const char *rt = json_string_value(json_object_get(b, "run_type"));
        if (n && rt && strcmp(n, name) == 0 && strcmp(rt, "iteration") == 0)
            return b;
    }
    return NULL;
}

static json_int_t instances(json_t *e)
{
    return json_integer_value(
        json_object_get(json_object_get(json_object_get(e, "ompbench"), "region"), "instances"));
}

static bool failed(json_t *e)
{
    return json_is_true(json_object_get(e, "error_occurred"));
}

static const char *error_text(json_t *e)
{
    const char *t = json_string_value(json_object_get(e, "error_message"));
    return t ? t : "";
}

static size_t iteration_entries(json_t *root)
{
    size_t i, n = 0;
    json_t *b;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
        n += strcmp(json_string_value(json_object_get(b, "run_type")), "iteration") == 0;
    return n;
}

/* Some work a region can contain, long enough to be far above the clock. */
static double spin(int n)
{
    volatile double x = 1.0;
    for (int i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

/* Every recorded instance: makespan >= each thread's busy time, and the
 * makespans are the kept start/end bounds. */
static void check_makespans(json_t *e)
{
    json_t *samples = json_object_get(json_object_get(e, "ompbench"), "samples");
    json_t *mk = json_object_get(samples, "makespan_ns"), *busy = json_object_get(samples, "busy_ns");
    CU_ASSERT_TRUE(json_array_size(mk) > 0);
    CU_ASSERT_EQUAL(json_array_size(mk), json_array_size(busy));
    size_t r, t;
    json_t *m, *b;
    json_array_foreach(mk, r, m) {
        json_array_foreach(json_array_get(busy, r), t, b)
            CU_ASSERT_TRUE(json_integer_value(m) >= json_integer_value(b));
    }
}

/* ---- pairing ---------------------------------------------------------------- */

/* A team of 2 enters "work" 100 times: one entry, 100 instances, every
 * instance kept, busy <= makespan, thread count 2 everywhere. */
static void test_collective(void)
{
    ompb__regions_reset();
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 100; i++) {
        ompb_region_begin("work");
        spin(2000 * (1 + omp_get_thread_num()));
#pragma omp barrier
        ompb_region_end("work");
    }
    int rc;
    json_t *root = report(&rc);
    CU_ASSERT_EQUAL(rc, 0);
    json_t *e = entry(root, "region:work[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_FALSE(failed(e));
    CU_ASSERT_EQUAL(instances(e), 100);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "iterations")), 100);
    json_t *omp = json_object_get(e, "ompbench");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(omp, "threads")), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(omp, "rounds")), 100);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(omp, "mode")), "region");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(omp, "uri")),
                           "tests/test_region.c::region:work[t=2]");
    check_makespans(e);
    /* Thread 1 spins twice as long: imbalance above 1. */
    double imb = json_number_value(json_object_get(json_object_get(omp, "stats"), "mean_imbalance"));
    CU_ASSERT_TRUE(imb > 1.0);
    CU_ASSERT_EQUAL(iteration_entries(root), 1);
    json_decref(root);
}

/* One region in teams of 1, 2 and 3: three entries, counted apart. */
static void test_team_sizes(void)
{
    ompb__regions_reset();
    for (int T = 1; T <= 3; T++) {
        for (int k = 0; k < 5; k++) {
#pragma omp parallel num_threads(T)
            {
                ompb_region_begin("sized");
                spin(1000);
                ompb_region_end("sized");
            }
        }
    }
    json_t *root = report(NULL);
    for (int T = 1; T <= 3; T++) {
        char name[64];
        snprintf(name, sizeof name, "region:sized[t=%d]", T);
        json_t *e = entry(root, name);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(instances(e), 5);
        CU_ASSERT_FALSE(failed(e));
    }
    CU_ASSERT_EQUAL(iteration_entries(root), 3);
    json_decref(root);
}

/* Serial code is a team of one: region:serial[t=1]. */
static void test_serial(void)
{
    ompb__regions_reset();
    for (int i = 0; i < 10; i++) {
        ompb_region_begin("serial");
        spin(100);
        ompb_region_end("serial");
    }
    json_t *root = report(NULL);
    json_t *e = entry(root, "region:serial[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(instances(e), 10);
    check_makespans(e);
    json_decref(root);
}

/* Inner inside outer, both collective: both correct, and each inner
 * instance lies inside the outer instance of its iteration. */
static void test_nested(void)
{
    ompb__regions_reset();
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 20; i++) {
        ompb_region_begin("outer");
        spin(500);
        ompb_region_begin("inner");
        spin(1000);
#pragma omp barrier
        ompb_region_end("inner");
        spin(500);
#pragma omp barrier
        ompb_region_end("outer");
    }
    json_t *root = report(NULL);
    json_t *outer = entry(root, "region:outer[t=2]"), *inner = entry(root, "region:inner[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(outer);
    CU_ASSERT_PTR_NOT_NULL_FATAL(inner);
    CU_ASSERT_FALSE(failed(outer) || failed(inner));
    CU_ASSERT_EQUAL(instances(outer), 20);
    CU_ASSERT_EQUAL(instances(inner), 20);
    json_t *om = json_object_get(json_object_get(json_object_get(outer, "ompbench"), "samples"), "makespan_ns");
    json_t *im = json_object_get(json_object_get(json_object_get(inner, "ompbench"), "samples"), "makespan_ns");
    for (size_t k = 0; k < 20; k++)
        CU_ASSERT_TRUE(json_integer_value(json_array_get(im, k))
                       <= json_integer_value(json_array_get(om, k)));
    json_decref(root);
}

/* Nested parallel regions: each outer thread's inner team (one thread by
 * default) is a team of its own; their instances are told apart by the
 * nesting path and all land in region:leaf[t=1]. */
static void test_nested_teams(void)
{
    ompb__regions_reset();
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 10; i++) {
#pragma omp parallel num_threads(1)
        {
            ompb_region_begin("leaf");
            spin(200);
            ompb_region_end("leaf");
        }
    }
    json_t *root = report(NULL);
    json_t *e = entry(root, "region:leaf[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_FALSE(failed(e));
    CU_ASSERT_EQUAL(instances(e), 20);
    json_decref(root);
}

/* ---- threads outside OpenMP --------------------------------------------------- */

static void *pthread_body(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++) {
        ompb_region_begin("pt");
        spin(300);
        ompb_region_end("pt");
    }
    return NULL;
}

/* Two pthreads and the main thread, at once: each a team of one. */
static void test_pthreads(void)
{
    ompb__regions_reset();
    pthread_t a, b;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, pthread_body, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&b, NULL, pthread_body, NULL), 0);
    pthread_body(NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    /* A new pthread adopts what an exited one left. */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, pthread_body, NULL), 0);
    pthread_join(a, NULL);
    json_t *root = report(NULL);
    json_t *e = entry(root, "region:pt[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_FALSE(failed(e));
    CU_ASSERT_EQUAL(instances(e), 200);
    json_decref(root);
}

static void *exit_inside(void *arg)
{
    (void)arg;
    ompb_region_begin("left_open");
    return NULL;
}

/* A pthread that exits inside a region: begin without end, that entry
 * failed with a message naming it and the thread; others unaffected. */
static void test_thread_exits_inside(void)
{
    ompb__regions_reset();
    pthread_t a;
    ompb_region_begin("fine");
    CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, exit_inside, NULL), 0);
    pthread_join(a, NULL);
    ompb_region_end("fine");
    int rc;
    json_t *root = report(&rc);
    CU_ASSERT_EQUAL(rc, OMPB_ERUN);
    json_t *bad = entry(root, "region:left_open[t=1]"), *good = entry(root, "region:fine[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
    CU_ASSERT_PTR_NOT_NULL_FATAL(good);
    CU_ASSERT_TRUE(failed(bad));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(bad), "never ended"));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(bad), "its thread exited"));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(bad), "OS thread"));
    CU_ASSERT_FALSE(failed(good));
    CU_ASSERT_EQUAL(instances(good), 1);
    json_decref(root);
}

/* Two pthreads, each starting its own OpenMP team of 2, use one region in
 * turns A0, B1, B0, A1: no two begins overlap on a lane, yet pairing by
 * lane would put A0 with B1 and B0 with A1. The entry must fail with the
 * two-teams message, never report wrongly paired instances. */
static _Atomic int two_teams_turn;
static _Atomic int two_teams_short; /* a team got fewer than 2 threads */

static void two_teams_wait(int slot)
{
    long limit = 20000L * ompb_test_timeout_multiplier(); /* 0.5 ms each: 10 s */
    struct timespec d = {0, 500000};
    while (atomic_load(&two_teams_turn) != slot && limit-- > 0)
        nanosleep(&d, NULL);
}

static void *two_teams_body(void *arg)
{
    int id = (int)(intptr_t)arg;
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        if (omp_get_num_threads() != 2) {
            atomic_store(&two_teams_short, 1);
        } else {
            int slot = id == 0 ? (t == 0 ? 0 : 3) : (t == 1 ? 1 : 2);
            two_teams_wait(slot);
            ompb_region_begin("mixed");
            spin(20000);
            ompb_region_end("mixed");
            atomic_fetch_add(&two_teams_turn, 1);
        }
    }
    return NULL;
}

static void test_two_pthread_teams(void)
{
    ompb__regions_reset();
    atomic_store(&two_teams_turn, 0);
    atomic_store(&two_teams_short, 0);
    pthread_t a, b;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, two_teams_body, (void *)(intptr_t)0), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&b, NULL, two_teams_body, (void *)(intptr_t)1), 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    if (atomic_load(&two_teams_short))
        return; /* the runtime would not give two teams of 2: nothing to test */
    CU_ASSERT_EQUAL(atomic_load(&two_teams_turn), 4);
    int rc;
    json_t *root = report(&rc);
    CU_ASSERT_EQUAL(rc, OMPB_ERUN);
    json_t *e = entry(root, "region:mixed[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_TRUE(failed(e));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(e), "two teams use this region at once"));
    json_decref(root);
}

/* Issue 19: two pthreads whose teams are inside one region at once. The
 * begin that finds the lane taken names the thread inside it and its call
 * site, or says that they are unknown, never "OS thread 0" or "?:0". Team 0
 * begins first; with `hide` its lane then looks as it does between a begin's
 * claim and its writing the call site (the window of the report), before
 * team 1 begins. */
static pthread_barrier_t clash_first, clash_inside;
static _Atomic int clash_tid[2], clash_short;
static bool clash_hide;

static ompb__region_lane *clash_lane(void)
{
    size_t n;
    ompb__region *const *all = ompb__regions_all(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i]->name, "clash") == 0)
            return &atomic_load(&all[i]->groups)->lanes[0];
    return NULL;
}

static void clash_lane0(int id)
{
    atomic_store(&clash_tid[id], (int)gettid());
    if (id == 1)
        pthread_barrier_wait(&clash_first);
    ompb_region_begin("clash");
    if (id == 0) {
        ompb__region_lane *ln = clash_lane();
        if (clash_hide && ln) {
            atomic_store(&ln->begin_file, NULL);
            atomic_store(&ln->begin_line, 0);
            atomic_store(&ln->os_tid, 0);
        }
        pthread_barrier_wait(&clash_first);
    }
    pthread_barrier_wait(&clash_inside); /* both begun before either ends */
    ompb_region_end("clash");
}

static void *clash_body(void *arg)
{
    int id = (int)(intptr_t)arg;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_num_threads() != 2)
            atomic_store(&clash_short, 1);
        else if (omp_get_thread_num() == 0)
            clash_lane0(id);
    }
    return NULL;
}

/* The message of one clash, "" when the runtime gave no teams of 2. */
static void clash(bool hide, char *text, size_t cap)
{
    ompb__regions_reset();
    clash_hide = hide;
    text[0] = '\0';
    pthread_barrier_init(&clash_first, NULL, 2);
    pthread_barrier_init(&clash_inside, NULL, 2);
    pthread_t a, b;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, clash_body, (void *)(intptr_t)0), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&b, NULL, clash_body, (void *)(intptr_t)1), 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_barrier_destroy(&clash_first);
    pthread_barrier_destroy(&clash_inside);
    if (atomic_load(&clash_short))
        return;
    int rc;
    json_t *root = report(&rc);
    json_t *e = entry(root, "region:clash[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_TRUE(failed(e));
    snprintf(text, cap, "%s", error_text(e));
    json_decref(root);
}

static void test_clash_names_occupant(void)
{
    char text[OMPB__REGION_ERROR_MAX + 1], want[64];
    for (int hide = 0; hide < 2; hide++) {
        clash(hide, text, sizeof text);
        if (!text[0])
            return; /* the runtime would not give two teams of 2: nothing to test */
        snprintf(want, sizeof want, "while OS thread %d is inside it", clash_tid[0]);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
        CU_ASSERT_PTR_NULL(strstr(text, "OS thread 0 "));
        CU_ASSERT_PTR_NULL(strstr(text, "?:0"));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, hide ? "(its call site unknown: " : "(begun at "));
        if (!strstr(text, want) || strstr(text, "?:0"))
            fprintf(stderr, "\n%s\n", text);
    }
}

/* ---- misuse ----------------------------------------------------------------- */

static void test_end_without_begin(void)
{
    ompb__regions_reset();
    ompb_region_begin("ok");
    ompb_region_end("ok");
    ompb_region_end("never_begun");
    int rc;
    json_t *root = report(&rc);
    CU_ASSERT_EQUAL(rc, OMPB_ERUN);
    json_t *bad = entry(root, "region:never_begun[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
    CU_ASSERT_TRUE(failed(bad));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(bad), "without a matching begin"));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(bad), "test_region.c:"));
    CU_ASSERT_FALSE(failed(entry(root, "region:ok[t=1]")));
    json_decref(root);
}

/* begin a, begin b, end a, end b: both named, both failed; c is fine and
 * so is a later, well-nested use of the same thread. */
static void test_mismatched(void)
{
    ompb__regions_reset();
#pragma omp parallel num_threads(2)
    {
        ompb_region_begin("c");
        ompb_region_end("c");
        ompb_region_begin("a");
        ompb_region_begin("b");
        ompb_region_end("a");
        ompb_region_end("b");
        ompb_region_begin("c");
        ompb_region_end("c");
    }
    json_t *root = report(NULL);
    json_t *a = entry(root, "region:a[t=2]"), *b = entry(root, "region:b[t=2]");
    json_t *c = entry(root, "region:c[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_TRUE(failed(a) && failed(b));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(a), "'b'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(a), "of a team of 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(b), "regions must nest"));
    CU_ASSERT_FALSE(failed(c));
    CU_ASSERT_EQUAL(instances(c), 2);
    json_decref(root);
}

/* Recursion into an open region on one thread: failed, one message; the
 * other region is fine. */
static void recurse(int depth)
{
    ompb_region_begin("recursive");
    if (depth > 0)
        recurse(depth - 1);
    ompb_region_end("recursive");
}

static void test_recursion(void)
{
    ompb__regions_reset();
    recurse(3);
    ompb_region_begin("plain");
    ompb_region_end("plain");
    json_t *root = report(NULL);
    json_t *r = entry(root, "region:recursive[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE(failed(r));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(r), "recursion"));
    json_int_t misuse = json_integer_value(json_object_get(
        json_object_get(json_object_get(r, "ompbench"), "region"), "misuse_events"));
    CU_ASSERT_EQUAL(misuse, 3);
    CU_ASSERT_FALSE(failed(entry(root, "region:plain[t=1]")));
    json_decref(root);
}

/* Thread 1 skips one instance of ten: the counts differ, found by the exit
 * checks; the region run by both threads every time is fine. */
static void test_skipped_instance(void)
{
    ompb__regions_reset();
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 10; i++) {
        ompb_region_begin("all");
        ompb_region_end("all");
        if (!(i == 4 && omp_get_thread_num() == 1)) {
            ompb_region_begin("skipped");
            ompb_region_end("skipped");
        }
#pragma omp barrier
    }
    ompb__regions_final_check();
    json_t *root = report(NULL);
    json_t *s = entry(root, "region:skipped[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_TRUE(failed(s));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(s), "10 times"));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(s), "9 times"));
    CU_ASSERT_FALSE(failed(entry(root, "region:all[t=2]")));
    CU_ASSERT_EQUAL(instances(entry(root, "region:all[t=2]")), 10);
    json_decref(root);
}

/* An instance open during a report is in the next one, not lost. */
static void test_open_across_report(void)
{
    ompb__regions_reset();
    ompb_region_begin("across");
    ompb_region_begin("done");
    ompb_region_end("done");
    json_t *root = report(NULL);
    CU_ASSERT_PTR_NULL(entry(root, "region:across[t=1]"));
    CU_ASSERT_PTR_NOT_NULL(entry(root, "region:done[t=1]"));
    json_decref(root);
    ompb_region_end("across");
    root = report(NULL);
    json_t *e = entry(root, "region:across[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_FALSE(failed(e));
    CU_ASSERT_EQUAL(instances(e), 1);
    json_decref(root);
}

/* Both threads of the team pinned to one PU: a warning, each thread's busy
 * time still its own. */
static void test_shared_pu(void)
{
    ompb__regions_reset();
    cpu_set_t saved, one;
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof saved, &saved), 0);
    int cpu = -1;
    for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
        if (CPU_ISSET(c, &saved))
            cpu = c;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
#pragma omp parallel num_threads(2)
    {
        cpu_set_t mine;
        sched_getaffinity(0, sizeof mine, &mine);
        sched_setaffinity(0, sizeof one, &one);
        for (int i = 0; i < 8; i++) {
            ompb_region_begin("crowded");
            spin(20000);
#pragma omp barrier
            ompb_region_end("crowded");
        }
        sched_setaffinity(0, sizeof mine, &mine);
    }
    json_t *root = report(NULL);
    json_t *e = entry(root, "region:crowded[t=2]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_FALSE(failed(e));
    json_t *rg = json_object_get(json_object_get(e, "ompbench"), "region");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(rg, "shared_pu_instances")), 8);
    json_t *first = json_object_get(rg, "shared_pu_first");
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(first, "threads"), 0)), 0);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(first, "threads"), 1)), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(first, "pu")), cpu);
    json_t *busy = json_object_get(rg, "mean_busy_ns");
    CU_ASSERT_EQUAL(json_array_size(busy), 2);
    CU_ASSERT_TRUE(json_number_value(json_array_get(busy, 0)) > 0);
    CU_ASSERT_TRUE(json_number_value(json_array_get(busy, 1)) > 0);
    bool warned = false;
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(json_object_get(json_object_get(root, "context"), "ompbench"), "warnings"), i, w)
        warned |= strstr(json_string_value(w), "region:crowded[t=2]") != NULL
                  && strstr(json_string_value(w), "same PU") != NULL;
    CU_ASSERT_TRUE(warned);
    json_decref(root);
}

/* ---- names ------------------------------------------------------------------ */

/* 4096 distinct names built in one buffer (same pointer, new contents):
 * 4096 entries, each with its own instances. */
static void test_4096_names(void)
{
    ompb__regions_reset();
    char name[32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 4096; i++) {
            snprintf(name, sizeof name, "phase%d", i);
            ompb_region_begin(name);
            ompb_region_end(name);
        }
    json_t *root = report(NULL);
    CU_ASSERT_EQUAL(iteration_entries(root), 4096);
    json_t *e = entry(root, "region:phase4095[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(instances(e), 2);
    CU_ASSERT_EQUAL(instances(entry(root, "region:phase0[t=1]")), 2);
    json_decref(root);
}

/* The name cache skips the content check only for names that cannot
 * change under their pointer: the main program's string literals (this
 * test binary's), not a writable array, the stack, the heap or another
 * object's read-only strings (libc's). A fixed name found on a hit is
 * still the region it names. */
static char writable_name[16] = "writable";

static const ompb__region_name_slot *slot_of(const char *name)
{
    for (int i = 0; i < OMPB__REGION_NAME_CACHE; i++)
        if (ompb__region_self->names[i].ptr == name)
            return &ompb__region_self->names[i];
    return NULL;
}

static void test_fixed_names(void)
{
    ompb__regions_reset();
    const char *literal = "fixed literal";
    CU_ASSERT_TRUE(ompb__main_program_readonly_bytes(literal) > strlen(literal));
    CU_ASSERT_EQUAL(ompb__main_program_readonly_bytes(writable_name), 0);
    char stack[] = "on the stack";
    CU_ASSERT_EQUAL(ompb__main_program_readonly_bytes(stack), 0);
    char *heap = strdup("on the heap");
    CU_ASSERT_PTR_NOT_NULL_FATAL(heap);
    CU_ASSERT_EQUAL(ompb__main_program_readonly_bytes(heap), 0);
    const char *libc = gnu_get_libc_version();
    CU_ASSERT_EQUAL(ompb__main_program_readonly_bytes(libc), 0);
    const char *names[] = {literal, writable_name, stack, heap, libc};
    /* Each checked right after its own use: two names may share a slot. */
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            ompb_region_begin(names[i]);
            ompb_region_end(names[i]);
            const ompb__region_name_slot *ns = slot_of(names[i]);
            CU_ASSERT_PTR_NOT_NULL(ns);
            if (ns) {
                CU_ASSERT_EQUAL(ns->fixed, i == 0);
                CU_ASSERT_STRING_EQUAL(ns->region->name, names[i]);
            }
        }
    /* A writable name changed under its pointer is another region. */
    strcpy(writable_name, "rewritten");
    ompb_region_begin(writable_name);
    ompb_region_end(writable_name);
    json_t *root = report(NULL);
    CU_ASSERT_EQUAL(instances(entry(root, "region:fixed literal[t=1]")), 2);
    CU_ASSERT_EQUAL(instances(entry(root, "region:writable[t=1]")), 2);
    CU_ASSERT_EQUAL(instances(entry(root, "region:rewritten[t=1]")), 1);
    json_decref(root);
    strcpy(writable_name, "writable");
    free(heap);
}

/* Not UTF-8, and longer than the limit: each its own failed entry, shown
 * escaped and cut; the valid region is reported as usual. */
static void test_invalid_names(void)
{
    ompb__regions_reset();
    char longname[OMPB_REGION_NAME_MAX + 50];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ompb_region_begin("bad\xff");
    ompb_region_end("bad\xff");
    ompb_region_begin(longname);
    ompb_region_end(longname);
    ompb_region_begin("good");
    ompb_region_end("good");
    int rc;
    json_t *root = report(&rc);
    CU_ASSERT_EQUAL(rc, OMPB_ERUN);
    json_t *bad = entry(root, "region:bad\\xff~0[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
    CU_ASSERT_TRUE(failed(bad));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(bad), "not valid UTF-8"));
    size_t i, longs = 0;
    json_t *b;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b) {
        const char *n = json_string_value(json_object_get(b, "name"));
        if (strncmp(n, "region:xxxx", 11) == 0 && failed(b)) {
            longs++;
            CU_ASSERT_PTR_NOT_NULL(strstr(error_text(b), "longer than 200 bytes"));
            CU_ASSERT_TRUE(strlen(n) < 200);
        }
    }
    CU_ASSERT_EQUAL(longs, 1);
    CU_ASSERT_FALSE(failed(entry(root, "region:good[t=1]")));
    /* A refused name's entry is reported (failed): the message says so. */
    CU_ASSERT_PTR_NULL(strstr(error_text(bad), "never reported"));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_text(bad), "reported under the escaped name"));
    CU_ASSERT_EQUAL(instances(bad), 1);
    json_decref(root);
}

/* The JSON entry whose name starts with prefix, or NULL. */
static json_t *entry_prefix(json_t *root, const char *prefix)
{
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b) {
        const char *n = json_string_value(json_object_get(b, "name"));
        if (n && strncmp(n, prefix, strlen(prefix)) == 0)
            return b;
    }
    return NULL;
}

/* Valid UTF-8 that would break a report: a control character (a newline
 * splits console and CSV rows; C1 controls drive terminals) and brackets
 * (x[t=4] would be shown as region:x[t=4][t=1]). Each refused: its own
 * failed entry, shown escaped (no raw control byte, no bracket of its own). */
static void test_unsafe_names(void)
{
    ompb__regions_reset();
    const char *names[] = {"a\nb", "tab\there", "c1\xc2\x9bx", "x[t=4]", "y]"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        ompb_region_begin(names[i]);
        ompb_region_end(names[i]);
    }
    ompb_region_begin("fine name, with \"quotes\" and \xc3\xa9");
    ompb_region_end("fine name, with \"quotes\" and \xc3\xa9");
    int rc;
    json_t *root = report(&rc);
    CU_ASSERT_EQUAL(rc, OMPB_ERUN);
    const char *shown[] = {"region:a\\x0ab~0", "region:tab\\x09here~1", "region:c1\\xc2\\x9bx~2",
                           "region:x\\x5bt=4\\x5d~3", "region:y\\x5d~4"};
    const char *why[] = {"control character", "control character", "control character",
                         "'[' or ']'", "'[' or ']'"};
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++) {
        json_t *e = entry_prefix(root, shown[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_TRUE(failed(e));
        CU_ASSERT_PTR_NOT_NULL(strstr(error_text(e), why[i]));
        const char *n = json_string_value(json_object_get(e, "name"));
        CU_ASSERT_STRING_EQUAL(n + strlen(n) - 5, "[t=1]");
        CU_ASSERT_PTR_NULL(strchr(n, '\n'));
        CU_ASSERT_PTR_NULL(strchr(n, '\t'));
        CU_ASSERT_PTR_EQUAL(strchr(n, '['), n + strlen(n) - 5); /* only the suffix's */
    }
    json_t *ok = entry(root, "region:fine name, with \"quotes\" and \xc3\xa9[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ok);
    CU_ASSERT_FALSE(failed(ok));
    json_decref(root);
}

/* OMPB_REGIONS=0: calls do nothing at all, and ompb_regions_report()
 * writes nothing (returns 0). */
static void test_disabled(void)
{
    ompb__regions_reset();
    ompb__regions_set_enabled(false);
    ompb_region_begin("off");
    ompb_region_end("off");
    ompb_region_end("unbalanced");
    /* Nothing reported either: no file, 0. */
    unlink(report_path);
    int rc = ompb_regions_report(report_path, "json");
    ompb__regions_set_enabled(true);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_NOT_EQUAL(access(report_path, F_OK), 0);
    size_t n;
    ompb__regions_all(&n);
    CU_ASSERT_EQUAL(n, 0);
}

/* Unknown format: OMPB_EINVAL, nothing written. */
static void test_bad_format(void)
{
    unlink(report_path);
    CU_ASSERT_EQUAL(ompb_regions_report(report_path, "xml"), OMPB_EINVAL);
    CU_ASSERT_NOT_EQUAL(access(report_path, F_OK), 0);
}

/* ---- statistics past the kept instances --------------------------------------- */

static ompb__region fake_region = {.name = "synthetic", .display = "synthetic", .file = "t.c"};

/* In the JSON: past the kept maximum, a uniform sample in instance order,
 * its instance numbers, and quantiles from the histogram; iterations and
 * the aggregates count every instance. */
static void test_sampled_json(void)
{
    ompb__regions_reset();
    for (int i = 0; i < 3000; i++) {
        ompb_region_begin("many");
        ompb_region_end("many");
    }
    json_t *root = report(NULL);
    json_t *e = entry(root, "region:many[t=1]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    json_t *omp = json_object_get(e, "ompbench"), *rg = json_object_get(omp, "region");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "iterations")), 3000);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(rg, "instances")), 3000);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(omp, "rounds")), 1024);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(rg, "kept")), 1024);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(rg, "kept_how")), "uniform sample");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(rg, "quantiles")), "histogram");
    json_t *idx = json_object_get(rg, "kept_instances");
    CU_ASSERT_EQUAL_FATAL(json_array_size(idx), 1024);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(json_object_get(omp, "samples"),
                                                    "makespan_ns")), 1024);
    for (size_t k = 1; k < json_array_size(idx); k++)
        CU_ASSERT_TRUE(json_integer_value(json_array_get(idx, k))
                       > json_integer_value(json_array_get(idx, k - 1)));
    CU_ASSERT_TRUE(json_integer_value(json_array_get(idx, 1023)) < 3000);
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(root, "benchmarks"), i, b)
        if (strcmp(json_string_value(json_object_get(b, "name")), "region:many[t=1]_median") == 0)
            CU_ASSERT_EQUAL(json_integer_value(json_object_get(b, "iterations")), 3000);
    json_decref(root);
}

/* One instance of T threads from a xorshift stream: starts within 300 ns,
 * busy times up to 5 us, PUs 0-3 or unknown (so shared PUs and migrations
 * happen). */
/* Random PUs (-1: unknown) in every instance; or, stable, PUs that change
 * every 37 instances (of start t / 10000) through four phases: distinct,
 * distinct on other PUs, thread 0's unknown, threads two by two on one PU,
 * as real threads mostly stay on their PUs. */
static void random_instance(uint64_t *x, uint64_t t, int T, ompb__region_slot *m, bool stable)
{
    int phase = (int)(t / 10000 / 37 % 4);
    for (int k = 0; k < T; k++) {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        uint64_t s = t + *x % 300, busy = (*x >> 20) % 5000;
        int pu = (int)(*x >> 40) % 5 - 1;
        if (stable)
            pu = phase == 3 ? k / 2 : phase == 2 && k == 0 ? -1 : (k + phase) % (T + 1);
        m[k] = ompb__region_pack(s, s + busy, pu);
    }
}

/* The fold of a group's rings (lib/regions/region_entry.c, inlined for
 * teams of one and two, batched in the steady state) gives exactly what
 * adding the same instances one by one does: every sum, the PU checks, the
 * kept sample and the histogram (3000 instances: past keep_max). uneven:
 * lane 0's ring is eight times the others', so the lanes wrap at
 * different instances; stable: PUs that change in phases (random_instance)
 * rather than at every instance. */
static void fold_matches_add(int T, bool uneven, bool stable)
{
    enum { N = 3000 };
    ompb__region_entry *a = ompb__region_entry_new(&fake_region, T, 7);
    ompb__region_entry *b = ompb__region_entry_new(&fake_region, T, 7);
    ompb__region_group *g = b ? ompb__region_group_new(b, T) : NULL;
    CU_ASSERT_FATAL(a && b && g);
    uint64_t x = 88172645463325252ull;
    ompb__region_slot m[4];
    for (int i = 0; i < N; i++) {
        random_instance(&x, 10000u * (uint64_t)i, T, m, stable);
        ompb__region_entry_add(a, m);
        for (int k = 0; k < T; k++) {
            ompb__region_lane *ln = &g->lanes[k];
            if (!ln->ring || ln->count - atomic_load(&g->reduced) > ln->mask)
                CU_ASSERT_FATAL(ompb__region_lane_make_room(g, ln));
            ln->ring[ln->count & ln->mask] = m[k];
            atomic_store(&ln->published, ++ln->count);
        }
        if (uneven && i == 0) {
            ompb__region_lane_heat(g, &g->lanes[0]);
            CU_ASSERT_EQUAL_FATAL(g->lanes[0].mask + 1, OMPB__REGION_RING_HOT);
        }
        if (i % 97 == 96)
            ompb__region_group_reduce_all(g);
    }
    ompb__region_group_reduce_all(g);
    CU_ASSERT_EQUAL(b->acc.n, N);
    CU_ASSERT_EQUAL(a->acc.n, b->acc.n);
    CU_ASSERT_EQUAL(a->acc.min_ns, b->acc.min_ns);
    CU_ASSERT_EQUAL(a->acc.max_ns, b->acc.max_ns);
    CU_ASSERT_EQUAL(a->acc.total_ns, b->acc.total_ns);
    CU_ASSERT_EQUAL(a->acc.skew_sum, b->acc.skew_sum);
    CU_ASSERT_EQUAL(a->acc.migrations, b->acc.migrations);
    CU_ASSERT_EQUAL(a->acc.shared_pu, b->acc.shared_pu);
    CU_ASSERT_TRUE(a->acc.shift == b->acc.shift && a->acc.sum_d == b->acc.sum_d
                   && a->acc.sum_d2 == b->acc.sum_d2);
    CU_ASSERT_TRUE(a->acc.imbalance_sum == b->acc.imbalance_sum);
    CU_ASSERT_EQUAL(memcmp(a->acc.shared_pu_example, b->acc.shared_pu_example,
                           sizeof a->acc.shared_pu_example), 0);
    for (int k = 0; k < T; k++) {
        CU_ASSERT_EQUAL(a->acc.busy_sum[k], b->acc.busy_sum[k]);
        CU_ASSERT_EQUAL(a->acc.last_pu[k], b->acc.last_pu[k]);
    }
    CU_ASSERT_EQUAL_FATAL(a->acc.kept, b->acc.kept);
    CU_ASSERT_EQUAL(a->acc.reservoir_next, b->acc.reservoir_next);
    for (size_t s = 0; s < a->acc.kept; s++) {
        CU_ASSERT_EQUAL(a->acc.kept_index[s], b->acc.kept_index[s]);
        CU_ASSERT_EQUAL(a->acc.kept_start[s], b->acc.kept_start[s]);
        CU_ASSERT_EQUAL(a->acc.kept_end[s], b->acc.kept_end[s]);
        for (int k = 0; k < T; k++) {
            CU_ASSERT_EQUAL(a->acc.kept_tstart[s * (size_t)T + (size_t)k],
                            b->acc.kept_tstart[s * (size_t)T + (size_t)k]);
            CU_ASSERT_EQUAL(a->acc.kept_busy[s * (size_t)T + (size_t)k],
                            b->acc.kept_busy[s * (size_t)T + (size_t)k]);
        }
    }
    CU_ASSERT_FATAL(a->acc.hist && b->acc.hist);
    CU_ASSERT_EQUAL(memcmp(a->acc.hist, b->acc.hist, sizeof *a->acc.hist), 0);
    /* The stream did exercise the PU checks. */
    CU_ASSERT_TRUE(a->acc.migrations > 0);
    if (T > 1)
        CU_ASSERT_TRUE(a->acc.shared_pu > 0);
    ompb__region_group_free(g);
    ompb__region_entry_free(a);
    ompb__region_entry_free(b);
}

static void test_fold_matches_add(void)
{
    for (int T = 1; T <= 4; T++)
        for (int v = 0; v < 4; v++)
            fold_matches_add(T, v & 1, v & 2);
}

static const ompb_test_case cases[] = {
    {"collective", test_collective},
    {"team_sizes", test_team_sizes},
    {"serial", test_serial},
    {"nested", test_nested},
    {"nested_teams", test_nested_teams},
    {"pthreads", test_pthreads},
    {"two_pthread_teams", test_two_pthread_teams},
    {"clash_names_occupant", test_clash_names_occupant},
    {"thread_exits_inside", test_thread_exits_inside},
    {"end_without_begin", test_end_without_begin},
    {"mismatched", test_mismatched},
    {"recursion", test_recursion},
    {"skipped_instance", test_skipped_instance},
    {"open_across_report", test_open_across_report},
    {"shared_pu", test_shared_pu},
    {"4096_names", test_4096_names},
    {"fixed_names", test_fixed_names},
    {"invalid_names", test_invalid_names},
    {"unsafe_names", test_unsafe_names},
    {"disabled", test_disabled},
    {"bad_format", test_bad_format},
    {"sampled_json", test_sampled_json},
    {"fold_matches_add", test_fold_matches_add},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_region = {"region", setup, cleanup, cases};
