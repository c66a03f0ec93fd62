/* SPDX-License-Identifier: MIT */
/*
 * The fork guard (lib/main/fork_guard_gnu.c, installed by tests/main.c as
 * ompbench::main installs it; lib/engine/fork_watch.c): every GNU fork entry point a parallel
 * construct compiles to is counted while the calling thread is watched, and
 * never when it is not; the regions still run as the runtime runs them
 * (team sizes, work-sharing, reductions), since the guard forwards every
 * call unchanged; the width check sees explicit widths other than the
 * watched one at the top level only. Team sizes here never depend on the
 * host: 2 and 3 threads run on any machine. The coverage is what the probe
 * fork at installation showed: "off" without a guard (watching is then a
 * no-op), "none" for a guard the forks do not reach. An observed thread
 * hears the width each of its teams at level 0 ran with.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <omp.h>

#include <ompbench/error.h>
#include <ompbench/fork_guard.h>

#include "engine/fork_guard.h"
#include "suite.h"

#define LOOP_N 1000

static atomic_int members;

/* One of each construct kind, each recording how many threads ran it. */
static void plain(void)
{
#pragma omp parallel num_threads(2)
    atomic_fetch_add(&members, 1);
}

static long loop_sum(int kind)
{
    long sum = 0;
    switch (kind) {
    case 0:
#pragma omp parallel for num_threads(2) schedule(static) reduction(+ : sum)
        for (int i = 0; i < LOOP_N; i++)
            sum += i;
        break;
    case 1:
#pragma omp parallel for num_threads(2) schedule(dynamic, 7) reduction(+ : sum)
        for (int i = 0; i < LOOP_N; i++)
            sum += i;
        break;
    case 2:
#pragma omp parallel for num_threads(2) schedule(guided) reduction(+ : sum)
        for (int i = 0; i < LOOP_N; i++)
            sum += i;
        break;
    default:
#pragma omp parallel for num_threads(2) schedule(runtime) reduction(+ : sum)
        for (int i = 0; i < LOOP_N; i++)
            sum += i;
        break;
    }
    return sum;
}

static int sections(void)
{
    atomic_int done = 0;
#pragma omp parallel sections num_threads(2)
    {
#pragma omp section
        atomic_fetch_add(&done, 1);
#pragma omp section
        atomic_fetch_add(&done, 10);
    }
    return atomic_load(&done);
}

/* Every construct of the GNU ABI's combined entry points, run while watched:
 * each is counted once and computes what it computes unwatched. */
static void test_counts_every_entry_point(void)
{
#ifdef __clang__
    return; /* Clang compiles these to __kmpc_fork_call, which the guard does not see */
#endif
    ompb__fork_watch w;
    memset(&w, 0, sizeof w);
    omp_set_dynamic(0);
    atomic_store(&members, 0);
    ompb__fork_watch_set(&w);
    plain();
    long sums[4];
    for (int k = 0; k < 4; k++)
        sums[k] = loop_sum(k);
    int sec = sections();
    ompb__fork_watch_set(NULL);
    CU_ASSERT_EQUAL(w.forks, 6);
    CU_ASSERT_EQUAL(atomic_load(&members), 2);
    for (int k = 0; k < 4; k++)
        CU_ASSERT_EQUAL(sums[k], (long)LOOP_N * (LOOP_N - 1) / 2);
    CU_ASSERT_EQUAL(sec, 11);
    /* width 0: no width check */
    CU_ASSERT_EQUAL(w.other_width, 0);
}

static void test_unwatched_not_counted(void)
{
#ifdef __clang__
    return;
#endif
    ompb__fork_watch w;
    memset(&w, 0, sizeof w);
    ompb__fork_watch_set(&w);
    ompb__fork_watch_set(NULL);
    plain();
    CU_ASSERT_EQUAL(loop_sum(0), (long)LOOP_N * (LOOP_N - 1) / 2);
    CU_ASSERT_EQUAL(w.forks, 0);
    /* Watching is per thread: a watched thread's team mates are not. */
    ompb__fork_watch_set(&w);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            plain(); /* nested, opened by an unwatched thread */
    }
    ompb__fork_watch_set(NULL);
    CU_ASSERT_EQUAL(w.forks, 1); /* the outer region only */
}

/* The caller's width check: top-level regions for a width other than the
 * watched one are noted with that width, whether a clause asked for it or
 * nthreads-var (omp_set_num_threads) gave it; nested ones are not. */
static void test_width_check(void)
{
#ifdef __clang__
    return;
#endif
    ompb__fork_watch w;
    memset(&w, 0, sizeof w);
    w.width = 2;
    omp_set_dynamic(0);
    int nthreads = omp_get_max_threads();
    omp_set_num_threads(2);
    ompb__fork_watch_set(&w);
    plain(); /* num_threads(2): the watched width */
#pragma omp parallel num_threads(3)
    {
#pragma omp master
#pragma omp parallel num_threads(5) /* nested: the caller is thread 0 here */
        atomic_fetch_add(&members, 0);
    }
    int one = 0;
#pragma omp parallel if (one)
    atomic_fetch_add(&members, 0);
#pragma omp parallel /* no clause: nthreads-var, the watched width */
    atomic_fetch_add(&members, 0);
    ompb__fork_watch_set(NULL);
    CU_ASSERT_EQUAL(w.forks, 5);
    CU_ASSERT_EQUAL(w.other_width, 2);  /* num_threads(3), and if(0): a team of 1 */
    CU_ASSERT_EQUAL(w.last_other, 1);
    /* No clause, while nthreads-var is 3 for a moment: noted as 3. */
    ompb__fork_watch_set(&w);
    omp_set_num_threads(3);
#pragma omp parallel
    atomic_fetch_add(&members, 0);
    omp_set_num_threads(2);
#pragma omp parallel
    atomic_fetch_add(&members, 0);
    ompb__fork_watch_set(NULL);
    omp_set_num_threads(nthreads);
    CU_ASSERT_EQUAL(w.forks, 7);
    CU_ASSERT_EQUAL(w.other_width, 3);
    CU_ASSERT_EQUAL(w.last_other, 3);
}

/* This test binary links the guard statically, built by the same compiler
 * as the library: the probe fork at installation reaches it whatever the
 * runtime. */
static void test_coverage(void)
{
    CU_ASSERT_EQUAL_FATAL(ompb_set_fork_guard(&ompb_fork_guard_gnu), 0);
    ompb__fork_coverage c = ompb__fork_guard_coverage();
#if defined(__clang__)
    CU_ASSERT_TRUE(c == OMPB__FORKS_SEEN_GNU_ONLY || c == OMPB__FORKS_SEEN_ALL);
#else
    CU_ASSERT_EQUAL(c, OMPB__FORKS_SEEN_ALL);
#endif
    CU_ASSERT_STRING_EQUAL(ompb__fork_coverage_name(OMPB__FORKS_SEEN_ALL), "all");
    CU_ASSERT_STRING_EQUAL(ompb__fork_coverage_name(OMPB__FORKS_SEEN_NONE), "none");
    CU_ASSERT_STRING_EQUAL(ompb__fork_coverage_name(OMPB__FORKS_SEEN_OFF), "off");
}

/* Without a guard (a program that links libompbench and did not opt in)
 * watching does nothing, a fork is not counted, and the coverage says
 * "off"; a guard without its watch is refused. */
static void test_off_without_guard(void)
{
    CU_ASSERT_EQUAL(ompb_set_fork_guard(&(ompb_fork_guard){0}), OMPB_EINVAL);
    CU_ASSERT_EQUAL_FATAL(ompb_set_fork_guard(NULL), 0);
    CU_ASSERT_EQUAL(ompb__fork_guard_coverage(), OMPB__FORKS_SEEN_OFF);
    ompb__fork_watch w;
    memset(&w, 0, sizeof w);
    ompb__fork_watch_set(&w);
    plain();
    ompb__fork_watch_set(NULL);
    CU_ASSERT_EQUAL(w.forks, 0);
    CU_ASSERT_EQUAL_FATAL(ompb_set_fork_guard(&ompb_fork_guard_gnu), 0);
    CU_ASSERT_NOT_EQUAL(ompb__fork_guard_coverage(), OMPB__FORKS_SEEN_OFF);
}

static int blind_watches;

/* A guard whose watch is called but that no fork reaches. */
static void blind_watch(ompb_fork_watch *w)
{
    (void)w;
    blind_watches++;
}

/* The coverage comes from a real fork: a guard the probe region does not
 * reach is "none", however it was installed. */
static void test_coverage_watches_a_fork(void)
{
    blind_watches = 0;
    CU_ASSERT_EQUAL_FATAL(ompb_set_fork_guard(&(ompb_fork_guard){.watch = blind_watch}), 0);
    CU_ASSERT_EQUAL(ompb__fork_guard_coverage(), OMPB__FORKS_SEEN_NONE);
    CU_ASSERT_EQUAL(blind_watches, 2); /* watched, then not */
    CU_ASSERT_EQUAL_FATAL(ompb_set_fork_guard(&ompb_fork_guard_gnu), 0);
}

/* Which coverage the run warns about, and with what: every coverage but
 * all, each naming what is not seen and the way out. */
static void test_coverage_warning(void)
{
    CU_ASSERT_PTR_NULL(ompb__fork_guard_warning(OMPB__FORKS_SEEN_ALL));
    const char *gnu = ompb__fork_guard_warning(OMPB__FORKS_SEEN_GNU_ONLY);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gnu);
    CU_ASSERT_PTR_NOT_NULL(strstr(gnu, "the OpenMP runtime is not libgomp"));
    CU_ASSERT_PTR_NOT_NULL(strstr(gnu, "the nested-region guard is off for code compiled for "
                                       "it (Clang, the Intel compilers)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(gnu, "__kmpc_fork_call"));
    const char *none = ompb__fork_guard_warning(OMPB__FORKS_SEEN_NONE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(none);
    CU_ASSERT_PTR_NOT_NULL(strstr(none, "parallel regions nested in a benchmark body cannot "
                                        "be detected (link ompbench::fork_guard before the "
                                        "OpenMP runtime)"));
    const char *off = ompb__fork_guard_warning(OMPB__FORKS_SEEN_OFF);
    CU_ASSERT_PTR_NOT_NULL_FATAL(off);
    CU_ASSERT_PTR_NOT_NULL(strstr(off, "the fork guard is off"));
    CU_ASSERT_PTR_NOT_NULL(strstr(off, "ompb_set_fork_guard(&ompb_fork_guard_gnu)"));
    CU_ASSERT_PTR_NULL(strchr(off, '\n'));
    CU_ASSERT_PTR_NULL(strchr(gnu, '\n'));
}

/* Issue 19: a host teams construct (GCC: GOMP_teams_reg) is counted apart
 * from the forks, with its num_teams, and still runs every team; a
 * parallel region inside it is a fork. */
static void test_host_teams(void)
{
#ifdef __clang__
    return; /* Clang's host teams go through __kmpc_fork_teams */
#endif
    ompb__fork_watch w;
    memset(&w, 0, sizeof w);
    int ran = 0;
    long sum = 0;
    ompb__fork_watch_set(&w);
#pragma omp teams num_teams(3) reduction(+ : ran)
    ran++;
#pragma omp teams distribute parallel for num_teams(2) reduction(+ : sum)
    for (int i = 0; i < LOOP_N; i++)
        sum += i;
    ompb__fork_watch_set(NULL);
    CU_ASSERT_EQUAL(ran, 3);
    CU_ASSERT_EQUAL(sum, (long)LOOP_N * (LOOP_N - 1) / 2);
    CU_ASSERT_EQUAL(w.host_teams, 2);
    CU_ASSERT_EQUAL(w.last_num_teams, 2);
    CU_ASSERT_TRUE(w.forks >= 1); /* the parallel region of each team */
}

/* ---- the observer (phase regions' widths) ------------------------------- */

/* The widths an observer heard, in order, on the observed thread. */
static unsigned heard[16];
static int n_heard;

static void hear(unsigned threads)
{
    if (n_heard < 16)
        heard[n_heard++] = threads;
}

/* libgomp's split form (GCC < 4.9), which no current GCC emits: declared
 * here to call it as such code does. */
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);

static void count_member(void *data)
{
    atomic_fetch_add((atomic_int *)data, 1);
}

/* An observed thread hears, after each fork at level 0, the number of
 * threads its team ran with: the combined entry points, a team of one, a
 * task-reduction region (GOMP_parallel_reductions, whose data libgomp reads
 * through its first pointer) and the split form; never a nested fork, nor
 * once unobserved, nor another thread's. The regions still compute what
 * they compute, and a watch set at the same time still counts. */
static void test_observer_hears_widths(void)
{
#ifdef __clang__
    return;
#endif
    omp_set_dynamic(0);
    n_heard = 0;
    ompb__fork_watch w;
    memset(&w, 0, sizeof w);
    ompb_fork_guard_gnu.observe(hear);
    ompb_fork_guard_gnu.watch(&w);
    atomic_store(&members, 0);
    plain();                                                           /* 2 */
#pragma omp parallel num_threads(1)
    atomic_fetch_add(&members, 1);                                     /* 1 */
    int first_two = atomic_load(&members);
    long sum = loop_sum(1);                                            /* 2 */
    int sec = sections();                                              /* 2 */
    long red = 0;
#pragma omp parallel num_threads(3) reduction(task, + : red)            /* 3 */
    {
#pragma omp single
        for (int i = 0; i < 4; i++) {
#pragma omp task in_reduction(+ : red)
            red += i;
        }
    }
    atomic_int split = 0;
    GOMP_parallel_start(count_member, &split, 2);                      /* 2 */
    count_member(&split);
    GOMP_parallel_end();
#pragma omp parallel num_threads(2)                                     /* 2 */
    {
        if (omp_get_thread_num() == 0)
            plain(); /* nested: not heard */
    }
    ompb_fork_guard_gnu.watch(NULL);
    ompb_fork_guard_gnu.observe(NULL);
    plain();
    unsigned want[] = {2, 1, 2, 2, 3, 2, 2};
    CU_ASSERT_EQUAL_FATAL(n_heard, 7);
    for (int i = 0; i < 7; i++)
        CU_ASSERT_EQUAL(heard[i], want[i]);
    CU_ASSERT_EQUAL(first_two, 2 + 1);
    CU_ASSERT_EQUAL(sum, (long)LOOP_N * (LOOP_N - 1) / 2);
    CU_ASSERT_EQUAL(sec, 11);
    CU_ASSERT_EQUAL(red, 6);
    CU_ASSERT_EQUAL(atomic_load(&split), 2);
    CU_ASSERT_EQUAL(w.forks, 8); /* the nested one counts: it was opened while watched */
}

/* Observing is per thread: a team mate of the observed thread forking at
 * level 1 is not heard, and a pthread that was never observed is not. */
static void *fork_twice(void *arg)
{
    (void)arg;
    plain();
    plain();
    return NULL;
}

static void test_observer_per_thread(void)
{
#ifdef __clang__
    return;
#endif
    n_heard = 0;
    ompb_fork_guard_gnu.observe(hear);
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, fork_twice, NULL), 0);
    pthread_join(t, NULL);
    ompb_fork_guard_gnu.observe(NULL);
    CU_ASSERT_EQUAL(n_heard, 0);
}

static const ompb_test_case cases[] = {
    {"observer_hears_widths", test_observer_hears_widths},
    {"observer_per_thread", test_observer_per_thread},
    {"host_teams", test_host_teams},
    {"counts_every_entry_point", test_counts_every_entry_point},
    {"unwatched_not_counted", test_unwatched_not_counted},
    {"width_check", test_width_check},
    {"coverage", test_coverage},
    {"coverage_warning", test_coverage_warning},
    {"off_without_guard", test_off_without_guard},
    {"coverage_watches_a_fork", test_coverage_watches_a_fork},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_fork_guard = {"fork_guard", NULL, NULL, cases};
