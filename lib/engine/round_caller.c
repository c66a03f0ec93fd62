/* SPDX-License-Identifier: MIT */
/*
 * The caller-team driver of the round engine (OMPB_TEAM_CALLER): benchmarks of code that opens its own
 * parallel regions. The calling thread runs every round itself, outside any
 * parallel region, so the code's regions are top-level regions served by
 * the OpenMP runtime's thread pool, as in the application, never nested in
 * a harness team.
 *
 * Placement: before the first round one region of T threads binds thread t
 * of the runtime's team to PU t of the plan (the caller is thread 0) and
 * runs thread_setup there. libgomp hands the same pool threads, in the same
 * order, to every later top-level region of that size (docs/guide.md, with
 * the measurement), and a thread bound to one PU stays there, so the code's
 * regions run where the plan says. Between rounds, untimed, a region of T
 * threads checks that each slot is still the same OS thread on the same PU.
 *
 * The round's bounds are the caller's clock reads around its loop: fork and
 * join included. The harness does not see inside the code's regions, so a
 * caller-team record has no per-thread busy time, skew or imbalance. What
 * follows each round is the team core's (lib/engine/round_team.c); the fork
 * guard's watch and coverage come from the engine's environment.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <omp.h>

#include "core/core.h"
#include "counters/counters.h"
#include "engine/pages.h"
#include "engine/round_team.h"

/* What the rounds change in the caller, restored when they are over. */
typedef struct caller_env {
    int nthreads;              /* nthreads-var: what omp_set_num_threads set */
    int dynamic;
    cpu_set_t *mask;
    size_t mask_size;
} caller_env;

static void enter(ompb__team *tm, caller_env *env)
{
    env->nthreads = omp_get_max_threads();
    env->dynamic = omp_get_dynamic();
    env->mask = ompb__team_save_affinity(tm->plan, &env->mask_size);
    /* Dynamic adjustment would let the runtime give the code fewer than T. */
    omp_set_dynamic(0);
    omp_set_num_threads(tm->threads);
}

static void leave(caller_env *env)
{
    omp_set_num_threads(env->nthreads);
    omp_set_dynamic(env->dynamic);
    ompb__team_restore_affinity(env->mask, env->mask_size);
}

/* Slot t of the runtime's team: which OS thread it is and where it runs. */
static void observe(ompb__team *tm, int t, bool count)
{
    ompb_state *s = &tm->states[t];
    int tid = (int)syscall(SYS_gettid);
    s->tid_changed |= s->tid != 0 && s->tid != tid;
    s->tid = tid;
    ompb__team_check_pu(s, count);
    if (!count)
        ompb__team_mark_switches(s);
}

/* After the last round: each slot's involuntary switches since its mark. */
static void count_switches(ompb__team *tm)
{
#pragma omp parallel num_threads(tm->threads)
    {
        int t = omp_get_thread_num();
        if (t < tm->threads && omp_get_num_threads() == tm->threads)
            ompb__team_count_switches(&tm->states[t]);
    }
}

/* The region that places the runtime's threads: each binds itself to its
 * plan PU and runs thread_setup where the code's thread t will run. */
static void place_team(ompb__team *tm)
{
    const ompb_benchmark *b = tm->inst->bench;
    int got = tm->threads;
#pragma omp parallel num_threads(tm->threads)
    {
        int t = omp_get_thread_num();
        if (t == 0)
            got = omp_get_num_threads();
        if (omp_get_num_threads() == tm->threads) {
            tm->env->body.thread_begin(tm->env->body.ctx);
            bool bound = !tm->plan || ompb__pin_plan_bind_self(tm->plan, t) == 0;
            observe(tm, t, false);
            tm->rec->os_tid[t] = tm->states[t].tid;
            /* Thread t of the code's team counts itself from here on. */
            if (bound && tm->groups)
                ompb__team_open_counters(tm, t);
            if (bound)
                ompb__team_open_watch(tm, t);
            if (!bound) {
#pragma omp critical(ompb_round_fail)
                ompb__team_fail(tm, "%s: thread %d could not be bound to its PU",
                                tm->inst->name, t);
            } else if (b->thread_setup && b->thread_setup(&tm->states[t]) != 0) {
#pragma omp critical(ompb_round_fail)
                ompb__team_fail(tm, "%s: thread_setup failed on thread %d", tm->inst->name, t);
            }
        }
    }
    if (got != tm->threads)
        ompb__team_fail(tm, "%s: the OpenMP runtime gave %d threads instead of %d "
                        "(OMP_THREAD_LIMIT?)", tm->inst->name, got, tm->threads);
    else
        ompb__pages_report(tm->states, tm->threads, tm->rec);
}

/* Between rounds: every slot of the runtime's team checks in (a team of one
 * is the caller alone). */
static void check_team(ompb__team *tm, bool count)
{
    if (tm->threads == 1) {
        observe(tm, 0, count);
        return;
    }
#pragma omp parallel num_threads(tm->threads)
    {
        int t = omp_get_thread_num();
        if (t < tm->threads)
            observe(tm, t, count);
    }
}

/* The body must leave the caller's OpenMP settings as the round set them:
 * regions at another width would be measured under this instance's t=T. */
static void check_settings(ompb__team *tm)
{
    int now = omp_get_max_threads();
    if (now != tm->threads)
        ompb__team_fail(tm, "%s: the body changed the team size of its regions to %d with "
                        "omp_set_num_threads() (this instance runs them at T=%d; give thread "
                        "counts with OMPB_THREADS or --threads)", tm->inst->name, now, tm->threads);
    else if (omp_get_dynamic())
        ompb__team_fail(tm, "%s: the body turned on omp_set_dynamic(): the runtime may then "
                        "give its regions fewer than T=%d threads", tm->inst->name, tm->threads);
}

static void caller_round(ompb__team *tm)
{
    const ompb_benchmark *b = tm->inst->bench;
    ompb_state *s = &tm->states[0];
    bool measured = tm->phase == OMPB__PHASE_MEASURE;
    ompb__team_reset_state(tm, s);
    if (b->batch_setup)
        b->batch_setup(s);
    ompb__team_watch_forks(tm, &s->forks);
    /* The caller's timed loop reads every slot's group around its window
     * (lib/engine/state.c): a perf file descriptor of another thread of this
     * process can be read by any thread (the kernel brings the count up to
     * date on the CPU that thread runs on). So each thread of the code's
     * team is counted over the caller's window: its share of the regions,
     * and whatever it does between and after them until the caller's end
     * time (libgomp's pool threads spin a while before they sleep). */
    atomic_store_explicit(&s->in_body, true, memory_order_relaxed);
    ompb__team_call_body(tm, s);
    atomic_store_explicit(&s->in_body, false, memory_order_relaxed);
    ompb__team_watch_forks(tm, NULL);
    if (b->batch_teardown)
        b->batch_teardown(s);
    check_settings(tm);
    check_team(tm, measured);
    ompb__team_after_round(tm, s->start_ns, s->end_ns);
}

/* A caller-team body that forked nothing ran on one thread. A host teams
 * construct is no exception in libgomp, which runs the teams one after
 * another on the calling thread: said as such, since the body looks as if
 * it made a team. A body whose declaration was compiled without OpenMP had
 * its directives ignored: said first, with the fix, since the advice for
 * per-thread code would be wrong there. */
static void warn_no_region(ompb__record *rec, const ompb__fork_watch *w,
                           const ompb__instance *inst, int threads)
{
    const char *name = inst->name;
    char teams[40] = "the default number of";
    if (w->last_num_teams)
        snprintf(teams, sizeof teams, "%u", w->last_num_teams);
    if (inst->no_openmp)
        ompb__record_warn(rec, "%s: the body opened no parallel region: %s was compiled "
                          "without OpenMP (_OPENMP undefined), so its OpenMP directives were "
                          "ignored and the rounds time one thread; compile it with OpenMP "
                          "(-fopenmp; CMake: link OpenMP::OpenMP_<LANG> for its language, as "
                          "ompbench_add_benchmark does)", name,
                          inst->bench && inst->bench->file ? inst->bench->file
                                                           : "its source file");
    else if (w->host_teams)
        ompb__record_warn(rec, "%s: the body opened no parallel region: libgomp ran its %"
                          PRIu64 " teams construct%s (%s teams) one team after another on the "
                          "calling thread, so the rounds time one thread (for T=%d, open a "
                          "parallel region inside: teams distribute parallel for)", name,
                          w->host_teams, w->host_teams == 1 ? "" : "s", teams, threads);
    else
        ompb__record_warn(rec, "%s: the body opened no parallel region: a caller-team body "
                          "runs on one thread; without .team = OMPB_TEAM_CALLER every thread "
                          "of a harness team runs it", name);
}

/* What the fork guard and the checks saw, as warnings of the instance. */
static void report(ompb__team *tm)
{
    ompb__record *rec = tm->rec;
    const ompb__fork_watch *w = &tm->states[0].forks;
    const char *name = tm->inst->name;
    for (int t = 0; t < tm->threads; t++) {
        rec->thread_pu[t] = tm->states[t].pu;
        rec->migrations += tm->states[t].migrations;
        if (tm->states[t].tid_changed)
            ompb__record_warn(rec, "%s: the OpenMP runtime ran thread %d of the code's team on "
                              "another OS thread after placement, so that thread's placement "
                              "and first touch no longer hold%s", name, t,
                              tm->groups ? ", and its counters count the thread it replaced" : "");
    }
    rec->other_width_regions = w->other_width;
    if (rec->failed)
        return;
    if (w->other_width > 0)
        ompb__record_warn(rec, "%s: %" PRIu64 " of its parallel regions asked for %u threads "
                          "(num_threads or if clause, or omp_set_num_threads() around them) "
                          "instead of T=%d: they are not a t=%d "
                          "figure, and threads beyond %d are not placed by the pin plan",
                          name, w->other_width, w->last_other, tm->threads, tm->threads,
                          tm->threads);
    if (w->forks == 0 && tm->env->forks.coverage == OMPB__FORKS_SEEN_ALL)
        warn_no_region(rec, w, tm->inst, tm->threads);
}

int ompb__caller_team_run(ompb__team *tm)
{
    caller_env env;
    enter(tm, &env);
    tm->states[0].forks.width = (unsigned)tm->threads;
    place_team(tm);
    if (tm->rec->failed)
        tm->phase = OMPB__PHASE_DONE;
    tm->t_instance = ompb__now_ns();
    for (;;) {
        ompb__team_round_begin(tm);
        if (tm->phase == OMPB__PHASE_DONE)
            break;
        caller_round(tm);
    }
    if (!tm->rec->failed)
        count_switches(tm);
    leave(&env);
    report(tm);
    return tm->rec->failed ? OMPB_ERUN : 0;
}
