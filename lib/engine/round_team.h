/* SPDX-License-Identifier: MIT */
/*
 * Inside the round engine: the state of one instance's run and the team
 * core that both drivers share. lib/engine/round_team.c is the core: the phases
 * (calibrate, warm up, measure; the calibration's decisions in
 * lib/engine/round_calibrate.c), what the master does after each round, the
 * distributed agreement, counters and context switches, all through the
 * engine's environment (lib/engine/engine_env.h). Two drivers run the rounds on
 * it: lib/engine/round_harness.c the harness team, whose T threads all call the
 * body, and lib/engine/round_caller.c the caller team, where one thread calls the
 * body and the code under test opens its own regions. The drivers call the
 * core and never each other; lib/engine/round.c (ompb__round_run) prepares the
 * team, picks the driver and finishes the instance. Nothing outside the
 * engine includes this header.
 */
#ifndef OMPB_ROUND_TEAM_H
#define OMPB_ROUND_TEAM_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/counters.h"
#include "engine/engine_env.h"
#include "placement/placement.h"
#include "model/model.h"
#include "engine/state.h"

typedef enum {
    OMPB__PHASE_CALIBRATE, OMPB__PHASE_WARMUP, OMPB__PHASE_MEASURE, OMPB__PHASE_DONE
} ompb__phase;

/* Measured rounds that check the calibration (lib/engine/round_calibrate.c). */
#define OMPB__CALIB_CHECK_ROUNDS 3

typedef struct ompb__team {
    const ompb__engine_env *env; /* every collaborator the engine calls */
    const ompb__instance *inst;
    const ompb__sampling *sp;
    const ompb__pin_plan *plan;
    ompb__record *rec;
    ompb_state *states;        /* [threads], cache-line aligned */
    void *user_data;
    int threads;
    int timed;                 /* states whose bounds make a round: threads, or 1
                                  for a caller team (the caller's) */
    bool simulate;
    /* --counters: one group per thread of the team (of the code's team for a
     * caller team), opened by that thread; NULL without counters. */
    ompb__counter_group *groups;
    /* Disturbance accounting: one watch per thread of the team (of the
     * code's team for a caller team), opened by that thread, read by the
     * master after each round (lib/counters/preempt.h); NULL when the
     * rounds are not accounted (not a measuring run). watch_off: why a
     * watch could not be opened ("" when all were). */
    ompb__preempt_watch *watches;
    char watch_off[360];

    /* Written by the master between rounds, read by all after the start barrier. */
    ompb__phase phase;
    uint64_t sample_size;

    /* Master-only bookkeeping. The budget's clock: the time since
     * t_instance (the first round's start: starting and placing the team
     * is not the instance's time), minus runner_ns spent in instrument
     * calls (waiting for the runner's acks is never its time either). */
    uint64_t t_instance, t_warmup, cpu_begin, t_measure;
    uint64_t runner_ns;
    uint64_t target_ns;
    /* Calibration (lib/engine/round_calibrate.c): the lowest time per iteration of the
     * rounds long enough to tell it, how many there were, and the slowest
     * thread's busy time in the first measured rounds, which check it. */
    double per_iter_ns;
    int trusted;
    uint64_t check_busy[OMPB__CALIB_CHECK_ROUNDS];
    size_t round;              /* measured rounds recorded so far */
    size_t clean;              /* of which clean (disturbance accounting) */
    bool instrumented;         /* instance_begin was called */
    /* Distributed runs: this round's barrier exit on this rank's clock, and
     * this rank's own bounds of each measured round relative to it
     * ([round * 2 + {0, 1}], NULL alone). */
    uint64_t dist_exit;
    int64_t *own_bounds;
} ompb__team;

/* Records the first failure of the instance (later ones are dropped). Call
 * it from one thread at a time (the master, or inside a critical section). */
void ompb__team_fail(ompb__team *tm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Master, before every round (and once more when the phase is DONE, so
 * that every rank makes the same calls): in a distributed run, the barrier
 * that starts the round across the ranks, which also ends the instance on
 * every rank when one of them stopped it. No-op alone. */
void ompb__team_round_begin(ompb__team *tm);

/* The instance's budget spent at now (see charged_ns and runner_ns). */
uint64_t ompb__team_spent_ns(const ompb__team *tm, uint64_t now);

/* Master, after a round's bounds are known: records the round and decides
 * the next phase (OMPB__PHASE_DONE when the instance is over or failed). */
void ompb__team_after_round(ompb__team *tm, uint64_t start, uint64_t end);

/* Notes the PU the calling thread runs on in s; counts a change as a
 * migration when count is set (measured rounds). */
void ompb__team_check_pu(ompb_state *s, bool count);

/* Opens thread t's counter group on the calling thread (thread t itself,
 * once it is placed). A failure fails the instance; call it where the
 * team's threads may run concurrently (it takes the failure lock). */
void ompb__team_open_counters(ompb__team *tm, int t);
/* Closes every group (master, after the team is done). */
void ompb__team_close_counters(ompb__team *tm);

/* Opens thread t's preemption watch on the calling thread (thread t itself,
 * once placed); a refusal leaves the instance unaccounted, with the reason
 * (it takes the failure lock). Nothing when tm->watches is NULL. */
void ompb__team_open_watch(ompb__team *tm, int t);
/* Closes every watch (master, after the team is done); rounds of an
 * instance whose watches were not all open are not accounted. */
void ompb__team_close_watches(ompb__team *tm);

/* Involuntary context switches of the calling thread: mark before the
 * measured rounds (at every unmeasured round boundary), count after the last. */
void ompb__team_mark_switches(ompb_state *s);
void ompb__team_count_switches(ompb_state *s);

/* Calls the benchmark's body on the calling thread (s: its state) inside
 * a frame named __codspeed_root_frame__ompb_body, where CodSpeed's
 * walltime profiles are cut (docs/protocol.md, "Root frames"). */
void ompb__team_call_body(const ompb__team *tm, ompb_state *s);

/* Prepares s for the next round: sample size, simulation, loop flags. */
void ompb__team_reset_state(const ompb__team *tm, ompb_state *s);

/* The caller's mask, saved when the plan has us bind (binding the caller for
 * the team must not outlive the instance); NULL: nothing to restore. */
cpu_set_t *ompb__team_save_affinity(const ompb__pin_plan *plan, size_t *size);
void ompb__team_restore_affinity(cpu_set_t *set, size_t size);

/* Starts (w) or stops (NULL) watching the calling thread's forks through
 * the environment's fork guard; nothing without one. */
void ompb__team_watch_forks(const ompb__team *tm, ompb__fork_watch *w);

/* After the team is done (master): each thread's involuntary switches and
 * whether the counters were ever on the PMU (a failure or a warning). */
void ompb__team_finish_counters(ompb__team *tm);
/* After the instance, on every rank: rank 0 collects every rank's bounds
 * into the record, and warns when the rounds are within the clock error
 * between the ranks. No-ops alone. */
void ompb__team_gather_ranks(ompb__team *tm);
void ompb__team_check_clock_error(ompb__team *tm);

/* The two drivers (called by lib/engine/round.c only). Each runs every round of
 * the instance, from the team's placement to the last round, and returns
 * 0 or OMPB_ERUN (rec->failed set).
 * - harness (lib/engine/round_harness.c): one OpenMP team of T threads, each
 *   placed by the plan, each running the body;
 * - caller (lib/engine/round_caller.c): places the OpenMP runtime's threads, runs
 *   every round on the calling thread, restores the caller's OpenMP
 *   settings and mask. */
int ompb__harness_team_run(ompb__team *tm);
int ompb__caller_team_run(ompb__team *tm);

#endif
