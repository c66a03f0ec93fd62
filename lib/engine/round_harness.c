/* SPDX-License-Identifier: MIT */
/*
 * The harness-team driver of the round engine. One OpenMP team serves every
 * round of an instance, so there is no fork/join per round: a round costs
 * two team barriers (start, and the reduction's) plus the master's
 * bookkeeping (lib/engine/round_team.c), which runs while the workers already wait
 * at the next start barrier. Each thread writes only its own ompb_state;
 * the team reduces the bounds with an OpenMP min/max reduction; the master
 * alone hands them to the core. The fork guard watches each thread while it
 * runs the body and the body's deferred tasks: a region opened there is
 * nested in this team. Also the barrier probe, whose figure sizes the
 * calibration's floor.
 */
#include "engine/round.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <omp.h>

#include "core/core.h"
#include "engine/pages.h"
#include "placement/placement.h"
#include "engine/round_team.h"
#include "engine/state.h"

/* The barrier cost: the lowest of up to BARRIER_PROBES single barriers,
 * each timed by the master right after the barrier before it (so it holds
 * the release of that one and the arrival at this one: what a round's start
 * costs), after one that wakes the team. Load only adds to a barrier, and
 * on a busy machine a batch of barriers almost never runs with the whole
 * team on its PUs, while single ones often do: the lowest single one is the
 * cost of the barrier itself. At least BARRIER_MIN_PROBES run whatever the
 * limit, so the estimate is never one sample; the rest as long as the limit
 * (a share of the budget, lib/engine/round_team.c) lasts. It is the
 * harness's time, not the instance's: it counts against no budget.
 * Complete measurements are kept per T; from BARRIER_CACHED of them on,
 * their lowest is used without measuring again. */
#define BARRIER_PROBES 64
#define BARRIER_MIN_PROBES 8
#define BARRIER_CACHED 3
#define BARRIER_COST_CACHE (OMPB__MAX_THREADS + 1) /* thread counts cached */

typedef ompb__team team;

#define PHASE_MEASURE OMPB__PHASE_MEASURE
#define PHASE_DONE OMPB__PHASE_DONE

/* The exact words of the nested-region warning (docs/guide.md quotes them). */
#define NESTED_WARNING "opens a nested parallel region inside the round; declare it with " \
    ".team = OMPB_TEAM_CALLER to benchmark code that forks its own team"

/* The barrier measurement's progress, kept by the master. */
typedef struct barrier_probe {
    uint64_t begin, limit_ns;
    double best;               /* the lowest single barrier */
    int probes;                /* timed barriers so far */
} barrier_probe;

/* After a barrier that took ns (the first: none, it wakes the team): true
 * while the measurement goes on. */
static bool probe_more(barrier_probe *bp, bool timed, uint64_t ns, uint64_t now)
{
    if (timed) {
        bp->best = (double)ns < bp->best ? (double)ns : bp->best;
        bp->probes++;
    }
    if (bp->probes < BARRIER_MIN_PROBES)
        return true;
    return bp->probes < BARRIER_PROBES && now - bp->begin < bp->limit_ns;
}

/* The probe itself: a team of `threads` in which the master times one
 * barrier after another. It says after each whether the team goes on;
 * every thread reads that after the next barrier. */
static void probe_barriers(int threads, const ompb__pin_plan *plan, barrier_probe *bp)
{
    bool more = true, woken = false;
#pragma omp parallel num_threads(threads)
    {
        /* Placed as the instance's team will be: unplaced threads of a
         * busy machine share a PU now and then, and a barrier between
         * them costs a time slice. (The runtime reuses these threads for
         * the instance's team, which places them again.) */
        if (plan)
            (void)ompb__pin_plan_bind_self(plan, omp_get_thread_num());
        for (;;) {
            uint64_t t0 = 0;
#pragma omp barrier
            if (!more)
                break;
#pragma omp master
            t0 = ompb__now_ns();
#pragma omp barrier
#pragma omp master
            {
                uint64_t now = ompb__now_ns();
                more = probe_more(bp, woken, now - t0, now);
                woken = true;
            }
        }
    }
}

double ompb__barrier_cost_ns(int threads, const ompb__pin_plan *plan, uint64_t limit_ns,
                             bool *complete)
{
    static double cache[BARRIER_COST_CACHE];
    static int cached[BARRIER_COST_CACHE];
    *complete = true;
    if (threads <= 1)
        return 0; /* a team of one runs no barrier */
    bool keep = threads < BARRIER_COST_CACHE;
    if (keep && cached[threads] >= BARRIER_CACHED)
        return cache[threads];
    omp_set_dynamic(0);
    barrier_probe bp = {.begin = ompb__now_ns(), .limit_ns = limit_ns, .best = 1e30};
    size_t saved_size = 0;
    cpu_set_t *saved = ompb__team_save_affinity(plan, &saved_size);
    probe_barriers(threads, saved ? plan : NULL, &bp);
    ompb__team_restore_affinity(saved, saved_size);
    double cost = bp.best;
    if (keep && cached[threads] > 0 && cache[threads] < cost)
        cost = cache[threads];
    /* A measurement the limit cut short is good for this instance only. */
    *complete = bp.probes >= BARRIER_PROBES || (keep && cached[threads] > 0);
    if (keep && bp.probes >= BARRIER_PROBES) {
        cache[threads] = cost;
        cached[threads]++;
    }
    return cost;
}

/* One round on this thread, up to the reduction; returns whether it is
 * measured. The fork guard watches the body (until finish_round): any
 * region it opens here is nested inside the harness team. */
static bool run_round(team *tm, ompb_state *s, bool multi)
{
    const ompb_benchmark *b = tm->inst->bench;
    bool measured = tm->phase == PHASE_MEASURE;
    ompb__team_reset_state(tm, s);
    if (b->batch_setup) {
        b->batch_setup(s);
        if (multi) {
#pragma omp barrier
        }
    }
    ompb__team_check_pu(s, measured);
    ompb__team_watch_forks(tm, &s->forks);
    /* The timed loop reads this thread's counters around its window
     * (lib/engine/state.c); the reduction's barrier that follows publishes them
     * to the master, which copies them in ompb__team_after_round. */
    atomic_store_explicit(&s->in_body, true, memory_order_relaxed);
    ompb__team_call_body(tm, s);
    /* Deferred tasks the body created and did not wait for run here, after
     * its timed window and its counts, still watched; a thread that steals
     * them at the reduction's barrier is still watched too (the watch ends
     * in finish_round, after that barrier, which completes every task). */
#pragma omp taskwait
    atomic_store_explicit(&s->in_body, false, memory_order_relaxed);
    return measured;
}

/* After the reduction's barrier, so it cannot overlap another thread's
 * timed window. */
static void finish_round(team *tm, ompb_state *s, bool measured)
{
    ompb__team_watch_forks(tm, NULL);
    if (!measured)
        ompb__team_mark_switches(s);
    ompb__team_check_pu(s, measured);
    if (tm->inst->bench->batch_teardown)
        tm->inst->bench->batch_teardown(s);
}

/* Called once by each team thread before its first round: binds it, then
 * runs the benchmark's thread_setup on it. The team learns of a failure
 * after the barrier that follows, before any round. */
static bool join_team(team *tm, int t)
{
    const ompb_benchmark *b = tm->inst->bench;
    tm->rec->os_tid[t] = (int)syscall(SYS_gettid);
    tm->env->body.thread_begin(tm->env->body.ctx);
    if (omp_get_num_threads() != tm->threads) {
#pragma omp critical(ompb_round_fail)
        ompb__team_fail(tm, "%s: the OpenMP runtime gave %d threads instead of %d "
                        "(OMP_THREAD_LIMIT?)", tm->inst->name, omp_get_num_threads(), tm->threads);
        return false;
    }
    if (tm->plan && ompb__pin_plan_bind_self(tm->plan, t) != 0) {
#pragma omp critical(ompb_round_fail)
        ompb__team_fail(tm, "%s: thread %d could not be bound to its PU", tm->inst->name, t);
    }
    /* Counters and the preemption watch follow this thread from where it
     * will run. */
    if (tm->groups)
        ompb__team_open_counters(tm, t);
    ompb__team_open_watch(tm, t);
    if (!b->thread_setup && !tm->groups)
        return true;
    if (b->thread_setup && b->thread_setup(&tm->states[t]) != 0) {
#pragma omp critical(ompb_round_fail)
        ompb__team_fail(tm, "%s: thread_setup failed on thread %d", tm->inst->name, t);
    }
#pragma omp barrier
#pragma omp master
    {
        /* Every share declared in thread_setup is in place now. */
        ompb__pages_report(tm->states, tm->threads, tm->rec);
        if (tm->rec->failed)
            tm->phase = PHASE_DONE;
    }
    return true;
}

/* Sums what the fork guard saw on every thread and warns once. */
static void report_nested(team *tm)
{
    ompb__record *rec = tm->rec;
    for (int t = 0; t < tm->threads; t++)
        rec->nested_regions += tm->states[t].forks.forks;
    if (rec->nested_regions > 0)
        ompb__record_warn(rec, "%s: " NESTED_WARNING, tm->inst->name);
}

int ompb__harness_team_run(team *tm)
{
    uint64_t red_start = UINT64_MAX, red_end = 0;
    size_t saved_size = 0;
    cpu_set_t *saved = ompb__team_save_affinity(tm->plan, &saved_size);
    omp_set_dynamic(0);
#pragma omp parallel num_threads(tm->threads)
    {
        int t = omp_get_thread_num();
        ompb_state *s = &tm->states[t];
        /* A team of one needs no barrier, and libgomp's still costs a futex
         * wake (~300 ns here): skip them. */
        bool multi = tm->threads > 1;
        if (join_team(tm, t)) {
            /* The budget's clock starts once the team is placed and whole. */
            if (multi) {
#pragma omp barrier
            }
#pragma omp master
            tm->t_instance = ompb__now_ns();
            for (;;) {
#pragma omp master
                ompb__team_round_begin(tm);
                if (multi) {
#pragma omp barrier
                }
                if (tm->phase == PHASE_DONE)
                    break;
                bool measured = run_round(tm, s, multi);
                if (multi) {
                    /* Thread i takes iteration i, so each thread reads its own
                     * slot; the loop's closing barrier publishes the bounds. */
#pragma omp for schedule(static, 1) reduction(min : red_start) reduction(max : red_end)
                    for (int i = 0; i < tm->threads; i++) {
                        if (tm->states[i].start_ns < red_start)
                            red_start = tm->states[i].start_ns;
                        if (tm->states[i].end_ns > red_end)
                            red_end = tm->states[i].end_ns;
                    }
                } else {
                    red_start = s->start_ns;
                    red_end = s->end_ns;
                }
                finish_round(tm, s, measured);
#pragma omp master
                {
                    ompb__team_after_round(tm, red_start, red_end);
                    red_start = UINT64_MAX;
                    red_end = 0;
                }
            }
            ompb__team_count_switches(s);
            tm->rec->thread_pu[t] = s->pu;
        }
    }
    ompb__team_restore_affinity(saved, saved_size);
    for (int t = 0; t < tm->threads; t++)
        tm->rec->migrations += tm->states[t].migrations;
    report_nested(tm);
    return tm->rec->failed ? OMPB_ERUN : 0;
}
