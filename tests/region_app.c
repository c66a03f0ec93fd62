/* SPDX-License-Identifier: MIT */
/*
 * An application using region markers, for what only a whole process can
 * show (tests/integration/region_app.sh): the report at exit, settings read
 * before main(), regions never ended at exit, fork. It prints "main" first,
 * so a test can tell that main() was (or was not) reached.
 *
 * Built twice: region_app, with libompbench alone, and region_app_guard,
 * which also links ompbench::fork_guard and installs it first thing in
 * main() (REGION_APP_FORK_GUARD), as an application with its own main()
 * does to have its phase regions named by unmarked parallel loops.
 *
 * Usage: region_app MODE [ARG]
 *   first-use       the first call in serial code before any parallel region,
 *                   then a team of 2
 *   never-ended     serial "ok" x3; "leak" begun and never ended; thread 1
 *                   of a team of 2 begins "leak_team" and never ends it
 *   report          ompb_regions_report(NULL, NULL) after 2 instances, then
 *                   ARG more instances before exit
 *   fork            a child that uses regions and exits; the parent too
 *   lose-dir DIR    one instance, then DIR is removed before exit (the
 *                   report cannot be written there)
 *   phases          "load" x3 serially, ompb_regions_report() (a region-set
 *                   boundary), then "solve" x5 in a team of 2
 *   overlap         two pthreads run "both" at the same time, 4 times each:
 *                   instances of one region (teams of one) that overlap
 *   inside          "outer" x3, ompb_regions_report(), then "inner" x3, each
 *                   inside an "outer", then ompb_regions_report() called
 *                   inside "held": no runner window opens, and no runner
 *                   command goes out, from inside a region
 *   split           a team of 2 splits an `omp for` of two iterations 3:1
 *                   (150 us and 50 us of spinning on the clock), 60
 *                   instances: "barrier" ends after the loop's implicit
 *                   barrier, "nowait" before it (then an explicit barrier)
 *   once            "single_shot" entered once by a team of 2 and once
 *                   serially: one value, no spread
 *   sweep           "sweep" then "halo", 4 times, in a team of 1, then the
 *                   same in a team of 2 (the stencil at --threads 1,2): the
 *                   first size's runner window closes before the second
 *                   size's first instance (tests/test_hooks.c)
 *   first-cost      the process's first begin/end pair and its second, timed
 *                   with clock_gettime around each, first thing in main()
 *                   (docs/performance.md, "The first region call")
 *   counted         a team of 2 runs "lookup" 10 times; in each instance
 *                   every thread adds 100 to "lookups" (OMPB_COUNTER_RATE)
 *                   and 3 to "items"; one call outside the region (refused,
 *                   its status printed as "outside=N")
 *   ten-names       each thread of a team of 2 adds 5 counters of its own
 *                   names to one instance of "names" (10 names, 2 past the
 *                   limit); prints the refused calls as "refused=N"
 *   unloaded LIB    dlopen()s LIB (region_plugin), whose function begins
 *                   "plugin_open" and never ends it, then dlclose()s it
 *   phase           "timestep" x4 on the initial thread around a team of the
 *                   default width (OMP_NUM_THREADS) whose threads run
 *                   "stencil", then "serial" inside it (no team): a phase
 *                   region named by its team's width, and a serial one
 *   phase-mixed     "timestep" x4 whose team alternates between one thread
 *                   (num_threads(1)) and the default width
 *   phase-loops     "timestep" x4 on the initial thread around two parallel
 *                   loops without markers (static and dynamic schedules,
 *                   the default width), then "serial" inside it (no team):
 *                   named by the loops' width only where a fork guard
 *                   observes them (region_app_guard), else [t=1]
 *   phase-loops-mixed  the same, the second loop of every other instance
 *                   with num_threads(1)
 *   term-inside     3 instances of "step", then raise(SIGTERM) inside
 *                   "raised"
 *   term-at-return  3 instances of "step", then raise(SIGTERM) right
 *                   before main returns 0
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, fork, rmdir */

#include <time.h>

#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ompbench.h>

static void work(void)
{
    volatile double x = 1;
    for (int i = 0; i < 10000; i++)
        x = x * 1.0000001;
}

/* A phase region: the initial thread's "timestep" contains a team in
 * which every thread runs "stencil"; "serial" contains none. mixed: every
 * other team has one thread. */
static int phase(bool mixed)
{
    for (int i = 0; i < 4; i++) {
        ompb_region_begin("timestep");
#pragma omp parallel num_threads(mixed && i % 2 ? 1 : omp_get_max_threads())
        {
            ompb_region_begin("stencil");
            work();
            ompb_region_end("stencil");
        }
        ompb_region_begin("serial");
        work();
        ompb_region_end("serial");
        ompb_region_end("timestep");
    }
    return 0;
}

/* A phase region around parallel loops that carry no markers (LULESH's
 * timestep); "serial" contains no team. mixed: every other instance's
 * second loop runs on one thread. */
static int phase_loops(bool mixed)
{
    static double a[4096];
    for (int i = 0; i < 4; i++) {
        ompb_region_begin("timestep");
#pragma omp parallel for schedule(static)
        for (int j = 0; j < 4096; j++)
            a[j] = a[j] * 0.5 + j;
        int n = mixed && i % 2 ? 1 : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 64) num_threads(n)
        for (int j = 0; j < 4096; j++)
            a[j] = a[j] * 0.25 + 1;
        ompb_region_begin("serial");
        work();
        ompb_region_end("serial");
        ompb_region_end("timestep");
    }
    return a[1] >= 0 ? 0 : 1;
}

static int first_use(void)
{
    ompb_region_begin("setup");
    work();
    ompb_region_end("setup");
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 10; i++) {
        ompb_region_begin("par");
        work();
#pragma omp barrier
        ompb_region_end("par");
    }
    return 0;
}

static int never_ended(void)
{
    for (int i = 0; i < 3; i++) {
        ompb_region_begin("ok");
        ompb_region_end("ok");
    }
    ompb_region_begin("leak");
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        ompb_region_begin("leak_team");
    return 0;
}

static void instances(int n)
{
    for (int i = 0; i < n; i++) {
        ompb_region_begin("step");
        work();
        ompb_region_end("step");
    }
}

static int report(const char *more)
{
    instances(2);
    int rc = ompb_regions_report(NULL, NULL);
    instances(more ? atoi(more) : 0);
    return rc == 0 ? 0 : 1;
}

static int forked(void)
{
    instances(1);
    pid_t pid = fork();
    if (pid == 0) {
        instances(3);
        exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    instances(1);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int lose_dir(const char *dir)
{
    instances(1);
    return dir && rmdir(dir) == 0 ? 0 : 1;
}

static int phases(void)
{
    for (int i = 0; i < 3; i++) {
        ompb_region_begin("load");
        work();
        ompb_region_end("load");
    }
    int rc = ompb_regions_report(NULL, NULL);
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 5; i++) {
        ompb_region_begin("solve");
        work();
#pragma omp barrier
        ompb_region_end("solve");
#pragma omp barrier
    }
    return rc == 0 ? 0 : 1;
}

static pthread_barrier_t together;

/* Both threads inside "both" at once, every time. */
static void *overlapping(void *arg)
{
    (void)arg;
    for (int i = 0; i < 4; i++) {
        ompb_region_begin("both");
        pthread_barrier_wait(&together);
        work();
        ompb_region_end("both");
        pthread_barrier_wait(&together);
    }
    return NULL;
}

static int overlap(void)
{
    pthread_t a, b;
    pthread_barrier_init(&together, NULL, 2);
    if (pthread_create(&a, NULL, overlapping, NULL) != 0
        || pthread_create(&b, NULL, overlapping, NULL) != 0)
        return 1;
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}

static int inside(void)
{
    for (int i = 0; i < 3; i++) {
        ompb_region_begin("outer");
        work();
        ompb_region_end("outer");
    }
    int rc = ompb_regions_report(NULL, NULL);
    for (int i = 0; i < 3; i++) {
        ompb_region_begin("outer");
        work();
        ompb_region_begin("inner");
        work();
        ompb_region_end("inner");
        ompb_region_end("outer");
    }
    ompb_region_begin("held");
    int rc2 = ompb_regions_report(NULL, NULL);
    ompb_region_end("held");
    return rc == 0 && rc2 == 0 ? 0 : 1;
}

/* Spins for us microseconds of wall time: a share of work whose length
 * does not depend on the machine's speed. */
static void spin_us(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < us * 1000L);
}

/* schedule(static, 1) over two iterations: thread 0 gets the 150 us one,
 * thread 1 the 50 us one. */
static int split(void)
{
#pragma omp parallel num_threads(2)
    for (int k = 0; k < 60; k++) {
        ompb_region_begin("barrier");
#pragma omp for schedule(static, 1)
        for (int i = 0; i < 2; i++)
            spin_us(i == 0 ? 150 : 50);
        ompb_region_end("barrier");

        ompb_region_begin("nowait");
#pragma omp for schedule(static, 1) nowait
        for (int i = 0; i < 2; i++)
            spin_us(i == 0 ? 150 : 50);
        ompb_region_end("nowait");
#pragma omp barrier
    }
    return 0;
}

static int sweep(void)
{
    for (int t = 1; t <= 2; t++) {
#pragma omp parallel num_threads(t)
        for (int i = 0; i < 4; i++) {
            ompb_region_begin("sweep");
            work();
#pragma omp barrier
            ompb_region_end("sweep");
            ompb_region_begin("halo");
            work();
#pragma omp barrier
            ompb_region_end("halo");
        }
    }
    return 0;
}

static int once(void)
{
#pragma omp parallel num_threads(2)
    {
        ompb_region_begin("single_shot");
        spin_us(100);
        ompb_region_end("single_shot");
    }
    ompb_region_begin("single_shot");
    spin_us(100);
    ompb_region_end("single_shot");
    return 0;
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int first_cost(void)
{
    long long a = now_ns();
    ompb_region_begin("first");
    ompb_region_end("first");
    long long b = now_ns();
    ompb_region_begin("first");
    ompb_region_end("first");
    long long c = now_ns();
    printf("first pair %lld ns, second pair %lld ns\n", b - a, c - b);
    return 0;
}

static int counted(void)
{
#pragma omp parallel num_threads(2)
    for (int k = 0; k < 10; k++) {
        ompb_region_begin("lookup");
        spin_us(50);
        ompb_region_counter("lookup", "lookups", 100, OMPB_COUNTER_RATE);
        ompb_region_counter("lookup", "items", 3, OMPB_COUNTER_SUM);
        ompb_region_end("lookup");
    }
    printf("outside=%d\n", ompb_region_counter("lookup", "lookups", 1, OMPB_COUNTER_RATE));
    return 0;
}

/* Each thread of a team of 2 adds five counters of its own to one
 * instance: ten names in all, two past the limit of 8. */
static int ten_names(void)
{
    int refused = 0;
#pragma omp parallel num_threads(2) reduction(+ : refused)
    {
        char name[32];
        ompb_region_begin("names");
        for (int i = 0; i < 5; i++) {
            snprintf(name, sizeof name, "c%d%d", omp_get_thread_num(), i);
            refused += ompb_region_counter("names", name, 1, OMPB_COUNTER_SUM) != 0;
        }
#pragma omp barrier
        ompb_region_end("names");
    }
    printf("refused=%d\n", refused);
    return 0;
}

/* A library that begins a region and is unloaded before exit. */
static int unloaded(const char *path)
{
    void *lib = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    void (*begin)(void) = NULL;
    if (lib)
        *(void **)&begin = dlsym(lib, "region_plugin_begin");
    if (!begin) {
        fprintf(stderr, "region_app: %s\n", dlerror());
        return 3;
    }
    begin();
    dlclose(lib);
    return 0;
}

/* SIGTERM raised inside an instance, or after the last one right before
 * main returns: the process must die of it, as without ompbench. */
static int raise_term(bool inside)
{
    instances(3);
    if (inside)
        ompb_region_begin("raised");
    raise(SIGTERM);
    if (inside)
        ompb_region_end("raised");
    return 0;
}

int main(int argc, char **argv)
{
#ifdef REGION_APP_FORK_GUARD
    /* The recipe of include/ompbench/fork_guard.h: before the first marker. */
    if (ompb_set_fork_guard(&ompb_fork_guard_gnu) != 0)
        return 1;
#endif
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "first-cost") == 0)
        return first_cost(); /* before any output: the first call comes first */
    printf("main\n");
    fflush(stdout);
    if (strcmp(mode, "first-use") == 0)
        return first_use();
    if (strcmp(mode, "never-ended") == 0)
        return never_ended();
    if (strcmp(mode, "report") == 0)
        return report(argc > 2 ? argv[2] : NULL);
    if (strcmp(mode, "fork") == 0)
        return forked();
    if (strcmp(mode, "lose-dir") == 0)
        return lose_dir(argc > 2 ? argv[2] : NULL);
    if (strcmp(mode, "phase") == 0 || strcmp(mode, "phase-mixed") == 0)
        return phase(strcmp(mode, "phase-mixed") == 0);
    if (strcmp(mode, "phase-loops") == 0 || strcmp(mode, "phase-loops-mixed") == 0)
        return phase_loops(strcmp(mode, "phase-loops-mixed") == 0);
    if (strcmp(mode, "phases") == 0)
        return phases();
    if (strcmp(mode, "overlap") == 0)
        return overlap();
    if (strcmp(mode, "sweep") == 0)
        return sweep();
    if (strcmp(mode, "inside") == 0)
        return inside();
    if (strcmp(mode, "counted") == 0)
        return counted();
    if (strcmp(mode, "split") == 0)
        return split();
    if (strcmp(mode, "once") == 0)
        return once();
    if (strcmp(mode, "ten-names") == 0)
        return ten_names();
    if (strcmp(mode, "unloaded") == 0)
        return unloaded(argc > 2 ? argv[2] : NULL);
    if (strcmp(mode, "term-inside") == 0)
        return raise_term(true);
    if (strcmp(mode, "term-at-return") == 0)
        return raise_term(false);
    fprintf(stderr, "usage: region_app first-use|never-ended|report [N]|fork|lose-dir DIR|"
            "phase|phase-mixed|phase-loops|phase-loops-mixed|phases|overlap|sweep|inside|split|once|"
            "counted|first-cost|ten-names|unloaded LIB|"
            "term-inside|term-at-return\n");
    return 2;
}
