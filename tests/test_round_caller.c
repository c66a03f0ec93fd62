/* SPDX-License-Identifier: MIT */
/*
 * The caller-team driver (lib/engine/round_caller.c) through test doubles: a fake
 * fork watcher in the engine's environment stands for the fork guard, and
 * the body tells it what regions it "opened" (none really: the checks hold
 * under any compiler and OpenMP ABI). Checked: the caller alone is watched,
 * around each body call and only then; the watch asks for the instance's
 * width; the coverage in the environment decides whether a body that
 * opened nothing is warned about; regions at another width and host teams
 * give their warnings with the figures the watcher saw; a stop signal ends
 * the caller's rounds as it ends a harness team's. The real runtime's
 * placement is tests/test_round.c's.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/round.h"
#include "suite.h"
#include "test_env.h"

#define T_CALLER 2
#define ROUNDS 3

static ompb_test_env tenv;

/* The fake fork guard: the watched slot, who set it, and how often. */
static ompb__fork_watch *watched;
static int watches, unwatches, foreign_watches, wrong_width;
static int caller_tid;

static void fake_watch(ompb__fork_watch *w)
{
    if ((int)syscall(SYS_gettid) != caller_tid)
        foreign_watches++;
    if (w && w->width != T_CALLER)
        wrong_width++;
    watched = w;
    if (w)
        watches++;
    else
        unwatches++;
}

/* What the body "opens" per body call, as the fork guard would count it. */
static unsigned region_width;  /* 0: none */
static unsigned teams;         /* host teams constructs, of num_teams 2 */
static int calls_outside;      /* body calls that found no watch */
static bool no_openmp;         /* the instance's declaration was compiled without OpenMP */

static void body(ompb_state *s)
{
    if (!watched)
        calls_outside++;
    OMPB_ITER(s) {
        ompb_clobber_memory();
    }
    if (watched && region_width) {
        watched->forks++;
        if (region_width != watched->width) {
            watched->other_width++;
            watched->last_other = region_width;
        }
    }
    if (watched && teams) {
        watched->host_teams += teams;
        watched->last_num_teams = 2;
    }
}

/* Runs the body as a caller team of T_CALLER in a test environment whose
 * fork watcher is the fake with the given coverage; *rec filled. */
static int run(ompb__fork_coverage coverage, unsigned width, unsigned n_teams, int stop,
               ompb__record *rec)
{
    static const ompb_benchmark b = {.name = "ct", .file = "benches/ct.cpp", .fn = body,
                                     .team = OMPB_TEAM_CALLER};
    static ompb__instance inst;
    inst = ompb_test_instance(&b, T_CALLER);
    inst.no_openmp = no_openmp;
    ompb__sampling sp = {.mode = OMPB__SAMPLING_MEASURE, .threads = T_CALLER,
                         .rounds = ROUNDS, .sample_size = 5, .min_round_ns = 1000,
                         .budget_ns = 3600000000000ull};
    ompb_test_env_init(&tenv);
    tenv.env.forks = (ompb__fork_watcher){fake_watch, coverage};
    tenv.stop_signal = stop;
    watched = NULL;
    watches = unwatches = foreign_watches = wrong_width = calls_outside = 0;
    caller_tid = (int)syscall(SYS_gettid);
    region_width = width;
    teams = n_teams;
    memset(rec, 0, sizeof *rec);
    return ompb__round_run(&tenv.env, &inst, &sp, NULL, rec);
}

/* The caller alone, once per body call, at the instance's width. */
static void test_watches_caller_around_body(void)
{
    ompb__record rec;
    CU_ASSERT_EQUAL_FATAL(run(OMPB__FORKS_SEEN_ALL, T_CALLER, 0, 0, &rec), 0);
    int body_calls = (int)(rec.calibration_rounds + rec.warmup_rounds + rec.rounds);
    CU_ASSERT_EQUAL(rec.rounds, ROUNDS);
    CU_ASSERT_EQUAL(watches, body_calls);
    CU_ASSERT_EQUAL(unwatches, body_calls);
    CU_ASSERT_EQUAL(foreign_watches, 0);
    CU_ASSERT_EQUAL(wrong_width, 0);
    CU_ASSERT_EQUAL(calls_outside, 0);
    CU_ASSERT_PTR_NULL(watched); /* let go after the last body */
    CU_ASSERT_EQUAL(rec.n_warnings, 0);
    CU_ASSERT_EQUAL(rec.other_width_regions, 0);
    ompb__record_free(&rec);
}

#define NO_REGION "ct: the body opened no parallel region: a caller-team body runs on one " \
    "thread; without .team = OMPB_TEAM_CALLER every thread of a harness team runs it"

/* A body that opened nothing is warned about only when the guard sees
 * every region: with GNU entry points only, or no guard, a region may
 * have gone by unseen. */
static void test_coverage_decides_no_region_warning(void)
{
    ompb__record rec;
    CU_ASSERT_EQUAL_FATAL(run(OMPB__FORKS_SEEN_ALL, 0, 0, 0, &rec), 0);
    CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
    CU_ASSERT_STRING_EQUAL(rec.warnings[0], NO_REGION);
    ompb__record_free(&rec);
    const ompb__fork_coverage partial[] = {OMPB__FORKS_SEEN_GNU_ONLY, OMPB__FORKS_SEEN_NONE,
                                           OMPB__FORKS_SEEN_OFF};
    for (size_t i = 0; i < sizeof partial / sizeof partial[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(run(partial[i], 0, 0, 0, &rec), 0);
        CU_ASSERT_EQUAL(rec.n_warnings, 0);
        ompb__record_free(&rec);
    }
}

/* A body that opened nothing, from a file compiled without OpenMP: the
 * warning says so and gives the fix, not the advice for per-thread code;
 * the same file with OpenMP gets that advice. */
static void test_no_openmp_warned(void)
{
    ompb__record rec;
    no_openmp = true;
    int rc = run(OMPB__FORKS_SEEN_ALL, 0, 0, 0, &rec);
    no_openmp = false;
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
    CU_ASSERT_STRING_EQUAL(rec.warnings[0], "ct: the body opened no parallel region: "
                           "benches/ct.cpp was compiled without OpenMP (_OPENMP undefined), "
                           "so its OpenMP directives were ignored and the rounds time one "
                           "thread; compile it with OpenMP (-fopenmp; CMake: link "
                           "OpenMP::OpenMP_<LANG> for its language, as ompbench_add_benchmark "
                           "does)");
    CU_ASSERT_PTR_NULL(strstr(rec.warnings[0], ".team"));
    ompb__record_free(&rec);
    CU_ASSERT_EQUAL_FATAL(run(OMPB__FORKS_SEEN_ALL, 0, 0, 0, &rec), 0);
    CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
    CU_ASSERT_STRING_EQUAL(rec.warnings[0], NO_REGION);
    ompb__record_free(&rec);
}

/* Regions at another width than T: measured, counted, warned about once
 * with the width they asked for. */
static void test_other_width_warned(void)
{
    ompb__record rec;
    CU_ASSERT_EQUAL_FATAL(run(OMPB__FORKS_SEEN_ALL, T_CALLER + 1, 0, 0, &rec), 0);
    int body_calls = (int)(rec.calibration_rounds + rec.warmup_rounds + rec.rounds);
    CU_ASSERT_EQUAL(rec.other_width_regions, (uint64_t)body_calls);
    CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
    char want[OMPB__RECORD_WARNING_MAX];
    snprintf(want, sizeof want, "ct: %d of its parallel regions asked for 3 threads "
             "(num_threads or if clause, or omp_set_num_threads() around them) instead of "
             "T=2: they are not a t=2 figure, and threads beyond 2 are not placed by the pin "
             "plan", body_calls);
    CU_ASSERT_STRING_EQUAL(rec.warnings[0], want);
    ompb__record_free(&rec);
}

/* Host teams and no region: the warning says that libgomp ran the teams
 * one after another, with how many constructs and teams. */
static void test_host_teams_warned(void)
{
    ompb__record rec;
    CU_ASSERT_EQUAL_FATAL(run(OMPB__FORKS_SEEN_ALL, 0, 1, 0, &rec), 0);
    int body_calls = (int)(rec.calibration_rounds + rec.warmup_rounds + rec.rounds);
    CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
    char want[OMPB__RECORD_WARNING_MAX];
    snprintf(want, sizeof want, "ct: the body opened no parallel region: libgomp ran its %d "
             "teams constructs (2 teams) one team after another on the calling thread, so "
             "the rounds time one thread (for T=2, open a parallel region inside: teams "
             "distribute parallel for)", body_calls);
    CU_ASSERT_STRING_EQUAL(rec.warnings[0], want);
    ompb__record_free(&rec);
}

/* The environment's stop signal ends the caller's rounds after the first,
 * interrupted, with no warning about what the body did not open. */
static void test_stop_signal_ends_rounds(void)
{
    ompb__record rec;
    CU_ASSERT_EQUAL(run(OMPB__FORKS_SEEN_ALL, 0, 0, SIGINT, &rec), OMPB_ERUN);
    CU_ASSERT_TRUE(rec.interrupted);
    CU_ASSERT_STRING_EQUAL(rec.error, "ct: interrupted by SIGINT");
    CU_ASSERT_EQUAL(rec.rounds, 0);
    CU_ASSERT_EQUAL(watches, 1);
    CU_ASSERT_EQUAL(rec.n_warnings, 0);
    ompb__record_free(&rec);
}

/* ompb_counter from the threads of the body's own team (issue 30, item 4,
 * defect 2): they all add into the caller's state, at once. Every round's
 * total is exact and the table holds the one name, no empty one. */
#define OWN_TEAM 4
#define ADDS 4000

static void counting_body(ompb_state *s)
{
    OMPB_ITER(s) {
#pragma omp parallel num_threads(OWN_TEAM)
        for (int i = 0; i < ADDS; i++)
            ompb_counter(s, i % 2 ? "odd" : "even", 1.0, 0);
    }
}

static void test_counts_exact_under_own_team(void)
{
    static const ompb_benchmark b = {.name = "cnt", .fn = counting_body,
                                     .team = OMPB_TEAM_CALLER};
    static ompb__instance inst;
    inst = ompb_test_instance(&b, T_CALLER);
    ompb__sampling sp = {.mode = OMPB__SAMPLING_MEASURE, .threads = T_CALLER,
                         .rounds = ROUNDS, .sample_size = 5, .min_round_ns = 1000,
                         .budget_ns = 3600000000000ull};
    ompb_test_env_init(&tenv);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&tenv.env, &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(rec.ucounters.n, 2);
    double want = (double)(5 * OWN_TEAM * ADDS / 2);
    for (int k = 0; k < rec.ucounters.n; k++) {
        const char *name = rec.ucounters.name[k];
        CU_ASSERT_TRUE(strcmp(name, "even") == 0 || strcmp(name, "odd") == 0);
        for (size_t r = 0; r < rec.rounds; r++) {
            double got = rec.ucounter_values[r * OMPB__UCOUNTERS_MAX + (size_t)k];
            if (got != want)
                fprintf(stderr, "round %zu, %s: %.17g, want %.17g\n", r, name, got, want);
            CU_ASSERT_EQUAL(got, want);
        }
    }
    CU_ASSERT_STRING_EQUAL(rec.error, "");
    ompb__record_free(&rec);
}

static const ompb_test_case cases[] = {
    {"counts_exact_under_own_team", test_counts_exact_under_own_team},
    {"watches_caller_around_body", test_watches_caller_around_body},
    {"coverage_decides_no_region_warning", test_coverage_decides_no_region_warning},
    {"other_width_warned", test_other_width_warned},
    {"no_openmp_warned", test_no_openmp_warned},
    {"host_teams_warned", test_host_teams_warned},
    {"stop_signal_ends_rounds", test_stop_signal_ends_rounds},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_round_caller = {"round_caller", NULL, NULL, cases};
