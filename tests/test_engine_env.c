/* SPDX-License-Identifier: MIT */
/*
 * The engine's environment (lib/engine/engine_env.h): a round talks to its
 * collaborators through the value it is given and to nothing else. Checked
 * with doubles (tests/test_env.h and a fake distribution and fork watcher
 * here): the marker sink gets one instance_begin and one instance_end, with
 * the window's close flag; a fake distribution sees the calls of the
 * protocol in order (a start per round and one to end, an agreement per
 * round, one gather); a process-wide distribution that traps every call is
 * never called; the body hooks' stop signal ends the instance, interrupted,
 * and the hooks hold the team while it runs; the fork watcher is the
 * environment's, not the one installed in the process. Nothing depends on
 * the host's speed or core count, nor on the compiler's OpenMP ABI.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <ompbench/distribution.h>

#include "engine/dist.h"
#include "engine/round.h"
#include "engine/state.h"
#include "suite.h"
#include "test_env.h"

#define T_ENV 2

static ompb_test_env tenv;

static void counting_body(ompb_state *s)
{
    uint64_t acc = 0;
    OMPB_ITER(s) {
        acc += ompb_opaque_u64(acc) + 1;
    }
    ompb_black_box(acc);
}

static void loopless_body(ompb_state *s)
{
    (void)s;
}

/* A fixed sample size: one calibration round (the warm-up), then `rounds`. */
static ompb__sampling fixed(int threads, uint64_t rounds)
{
    return (ompb__sampling){.mode = OMPB__SAMPLING_MEASURE, .threads = threads,
                            .rounds = rounds, .sample_size = 10, .min_round_ns = 1000,
                            .budget_ns = 3600000000000ull};
}

/* ---- marker sink ------------------------------------------------------------ */

static void test_markers_through_env(void)
{
    ompb_benchmark b = {.name = "env", .fn = counting_body};
    ompb__instance inst = ompb_test_instance(&b, T_ENV);
    ompb__sampling sp = fixed(T_ENV, 4);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(ompb_test_env_init(&tenv), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(tenv.begins, 1);
    CU_ASSERT_PTR_EQUAL(tenv.begun, &inst);
    CU_ASSERT_EQUAL(tenv.ends, 1);
    CU_ASSERT_TRUE(tenv.last_close);
    CU_ASSERT_EQUAL(tenv.ended_rounds, 4);
    ompb__record_free(&rec);
    /* A repetition that more of the same instance follow keeps the window. */
    sp.window_keep_open = true;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(ompb_test_env_init(&tenv), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(tenv.ends, 1);
    CU_ASSERT_FALSE(tenv.last_close);
    ompb__record_free(&rec);
    /* A body that fails before any measured round opens no window. */
    b.fn = loopless_body;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL(ompb__round_run(ompb_test_env_init(&tenv), &inst, &sp, NULL, &rec), OMPB_ERUN);
    CU_ASSERT_EQUAL(tenv.begins, 0);
    CU_ASSERT_EQUAL(tenv.ends, 0);
    ompb__record_free(&rec);
}

/* ---- distribution ------------------------------------------------------------ */

/* The calls a distribution received, as letters: S a round-start maximum
 * (one value), A a round's agreement (five), G a gather, ? anything else. */
#define CALLS_MAX 64
static char calls[CALLS_MAX + 1];
static size_t n_calls;

static void note(char c)
{
    if (n_calls < CALLS_MAX)
        calls[n_calls++] = c;
    calls[n_calls] = '\0';
}

/* The other rank agrees with everything: each maximum is this rank's. */
static int recording_max(void *ctx, int64_t *v, int n, uint64_t hint)
{
    (void)ctx;
    (void)v;
    (void)hint;
    note(n == 1 ? 'S' : n == 5 ? 'A' : '?');
    return 0;
}

/* Rank 0 receives its own bounds twice (two ranks alike). */
static int recording_gather(void *ctx, const void *send, size_t bytes, void *recv)
{
    (void)ctx;
    note('G');
    if (recv) {
        memcpy(recv, send, bytes);
        memcpy((char *)recv + bytes, send, bytes);
    }
    return 0;
}

static void failing_abort(void *ctx, int status)
{
    (void)ctx;
    note('X');
    fprintf(stderr, "engine_env: the distribution was asked to abort (%d)\n", status);
}

static void test_fake_distribution_records_calls(void)
{
    ompb_benchmark b = {.name = "env", .fn = counting_body};
    ompb__instance inst = ompb_test_instance(&b, T_ENV);
    ompb__sampling sp = fixed(T_ENV, 3);
    ompb_distribution d = {.rank = 0, .size = 2, .max_i64 = recording_max,
                           .gather = recording_gather, .abort = failing_abort};
    ompb_test_env_init(&tenv);
    tenv.env.dist = &d;
    n_calls = 0;
    calls[0] = '\0';
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&tenv.env, &inst, &sp, NULL, &rec), 0);
    /* The calibration round and three measured ones, each started and
     * agreed on; the start that finds the rounds over; the gather. */
    CU_ASSERT_STRING_EQUAL(calls, "SASASASASG");
    CU_ASSERT_EQUAL(rec.ranks, 2);
    CU_ASSERT_PTR_NOT_NULL(rec.rank_bounds);
    CU_ASSERT_PTR_NULL(ompb__dist()); /* the process-wide one was never set */
    ompb__record_free(&rec);
}

/* Installed process-wide while a round runs in a one-process environment:
 * the engine must call none of it. */
static void test_installed_distribution_unread(void)
{
    ompb_benchmark b = {.name = "env", .fn = counting_body};
    ompb__instance inst = ompb_test_instance(&b, T_ENV);
    ompb__sampling sp = fixed(T_ENV, 3);
    sp.sample_size = 0; /* calibrated: the target is agreed across ranks too */
    ompb_distribution trap = {.rank = 0, .size = 2, .max_i64 = recording_max,
                              .gather = recording_gather, .abort = failing_abort};
    CU_ASSERT_EQUAL_FATAL(ompb_set_distribution(&trap), 0);
    n_calls = 0;
    calls[0] = '\0';
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    int rc = ompb__round_run(ompb_test_env_init(&tenv), &inst, &sp, NULL, &rec);
    ompb_set_distribution(NULL);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(calls, "");
    CU_ASSERT_EQUAL(rec.ranks, 0);
    CU_ASSERT_PTR_NULL(rec.rank_bounds);
    ompb__record_free(&rec);
}

/* ---- body hooks --------------------------------------------------------------- */

static atomic_int team_wrong;

/* Checks, from inside the round, that the hooks hold this team. */
static void team_checking_body(ompb_state *s)
{
    const ompb_state *base = s - ompb_thread_index(s);
    if (tenv.team_states != base || tenv.team_threads != ompb_thread_count(s))
        atomic_fetch_add(&team_wrong, 1);
    counting_body(s);
}

static void test_body_hooks_hold_team(void)
{
    ompb_benchmark b = {.name = "env", .fn = team_checking_body};
    ompb__instance inst = ompb_test_instance(&b, T_ENV);
    ompb__sampling sp = fixed(T_ENV, 3);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    atomic_store(&team_wrong, 0);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(ompb_test_env_init(&tenv), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(atomic_load(&team_wrong), 0);
    CU_ASSERT_EQUAL(tenv.team_calls, 2); /* given, then taken back */
    CU_ASSERT_EQUAL(tenv.thread_calls, T_ENV); /* each team thread, once */
    CU_ASSERT_PTR_NULL(tenv.team_states);
    CU_ASSERT_EQUAL(tenv.team_threads, 0);
    /* The stop signal is read after every round: 1 + 3. */
    CU_ASSERT_EQUAL(tenv.signal_reads, 4);
    ompb__record_free(&rec);
}

/* A stop signal ends the instance after its first round, interrupted and
 * named; the run (not the engine) stops after it. */
static void test_stop_signal_interrupts(void)
{
    ompb_benchmark b = {.name = "env", .fn = counting_body};
    ompb__instance inst = ompb_test_instance(&b, T_ENV);
    ompb__sampling sp = fixed(T_ENV, 3);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    ompb_test_env_init(&tenv);
    tenv.stop_signal = SIGTERM;
    CU_ASSERT_EQUAL(ompb__round_run(&tenv.env, &inst, &sp, NULL, &rec), OMPB_ERUN);
    CU_ASSERT_TRUE(rec.interrupted);
    CU_ASSERT_STRING_EQUAL(rec.error, "env: interrupted by SIGTERM");
    CU_ASSERT_EQUAL(rec.rounds, 0);
    CU_ASSERT_EQUAL(tenv.signal_reads, 1);
    CU_ASSERT_EQUAL(tenv.begins, 0);
    ompb__record_free(&rec);
}

/* ---- fork watcher ------------------------------------------------------------- */

static _Thread_local ompb__fork_watch *watched;
static atomic_int watches, unwatches;

static void recording_watch(ompb__fork_watch *w)
{
    watched = w;
    atomic_fetch_add(w ? &watches : &unwatches, 1);
}

/* What the fork guard would see of a region opened here. */
static void fake_fork(void)
{
    if (watched)
        watched->forks++;
}

static void fake_nesting_body(ompb_state *s)
{
    fake_fork();
    counting_body(s);
}

#define NESTED_TEXT "env: opens a nested parallel region inside the round; declare it with " \
    ".team = OMPB_TEAM_CALLER to benchmark code that forks its own team"

static void test_fork_watcher_from_env(void)
{
    ompb_benchmark b = {.name = "env", .fn = fake_nesting_body};
    ompb__instance inst = ompb_test_instance(&b, T_ENV);
    ompb__sampling sp = fixed(T_ENV, 3);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    ompb_test_env_init(&tenv);
    tenv.env.forks = (ompb__fork_watcher){recording_watch, OMPB__FORKS_SEEN_ALL};
    atomic_store(&watches, 0);
    atomic_store(&unwatches, 0);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&tenv.env, &inst, &sp, NULL, &rec), 0);
    /* Every thread, every round (1 + 3), watched and then let go. */
    CU_ASSERT_EQUAL(atomic_load(&watches), 4 * T_ENV);
    CU_ASSERT_EQUAL(atomic_load(&unwatches), 4 * T_ENV);
    CU_ASSERT_EQUAL(rec.nested_regions, 4 * T_ENV);
    CU_ASSERT_EQUAL_FATAL(rec.n_warnings, 1);
    CU_ASSERT_STRING_EQUAL(rec.warnings[0], NESTED_TEXT);
    ompb__record_free(&rec);
    /* No watcher in the environment: nothing is watched, whatever guard
     * the process installed (tests/main.c installs the GNU one). */
    tenv.env.forks = (ompb__fork_watcher){NULL, OMPB__FORKS_SEEN_OFF};
    atomic_store(&watches, 0);
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL_FATAL(ompb__round_run(&tenv.env, &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(atomic_load(&watches), 0);
    CU_ASSERT_EQUAL(rec.nested_regions, 0);
    CU_ASSERT_EQUAL(rec.n_warnings, 0);
    ompb__record_free(&rec);
}

static const ompb_test_case cases[] = {
    {"markers_through_env", test_markers_through_env},
    {"fake_distribution_records_calls", test_fake_distribution_records_calls},
    {"installed_distribution_unread", test_installed_distribution_unread},
    {"body_hooks_hold_team", test_body_hooks_hold_team},
    {"stop_signal_interrupts", test_stop_signal_interrupts},
    {"fork_watcher_from_env", test_fork_watcher_from_env},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_engine_env = {"engine_env", NULL, NULL, cases};
