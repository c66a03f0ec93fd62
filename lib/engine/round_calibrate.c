/* SPDX-License-Identifier: MIT */
/*
 * The calibration of the round engine, part of the team core
 * (lib/engine/round_team.c calls it after each round; lib/engine/round.c before the
 * first): the round target, the sample size grown towards it, the check of
 * the first measured rounds against it, and the record's account of what
 * happened. Decisions on the team's figures only: it calls no driver, no
 * collaborator but the distribution (the ranks agree on the target), and
 * reports a failure to its caller instead of recording it.
 */
#include "engine/round_calibrate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "engine/dist.h"

/* Calibration floor: a round must last at least this many times the cost of
 * what brackets it (two clock reads, and a barrier, whose release latency
 * shows up as start skew in the makespan), so that harness cost stays below
 * 1% of the makespan; and at least the sampling's min_round_ns (--min-time,
 * 1 ms by default). The floor never asks for rounds longer than the budget
 * can hold: at most half the budget over the rounds asked for (the other
 * half is calibration and warm-up), so that a barrier estimate taken on a
 * busy machine cannot size the rounds beyond what --sample-count can get. */
#define FLOOR_FACTOR 100.0
#define FLOOR_BUDGET_SHARE 2
/* Calibration (docs/methodology.md, "Calibration"). A round shorter than
 * 1/TRUST_SHARE of the target is too short to say what an iteration costs:
 * the sample size grows by MAX_GROWTH. From a longer one, the time per
 * iteration is the lowest such figure seen over at least MIN_TRUSTED
 * rounds (load only adds time, so the lowest is the least disturbed), and
 * the next size is predicted with Google Benchmark's 40% margin, still
 * growing by at most MAX_GROWTH. */
#define MAX_GROWTH 10.0
#define TRUST_SHARE 10
#define MIN_TRUSTED 2
#define PREDICT_MARGIN 1.4
/* The first CHECK_ROUNDS measured rounds check the calibration: when the
 * shortest of them (load only lengthens rounds: the shortest is the least
 * disturbed) is below the target / CHECK_SHORT (the size was estimated
 * from disturbed rounds) or above CHECK_LONG x the target (it overshot),
 * the sample size is predicted again from it and the rounds are measured
 * anew, at most MAX_RECALIBRATIONS times; after that the instance is
 * marked. So is one whose measured rounds end up with a median below the
 * target / CHECK_SHORT, checked or not. */
#define CHECK_ROUNDS OMPB__CALIB_CHECK_ROUNDS
#define CHECK_SHORT 3.0
#define CHECK_LONG 10.0
#define MAX_RECALIBRATIONS 2
/* What measuring the barrier cost (lib/engine/round_harness.c) may take: a share
 * of the budget, at most BARRIER_LIMIT_MAX_NS. It is the harness's time,
 * not the instance's: it counts against no budget. */
#define BARRIER_LIMIT_SHARE 10
#define BARRIER_LIMIT_MAX_NS UINT64_C(50000000)

typedef ompb__team team;

#define PHASE_CALIBRATE OMPB__PHASE_CALIBRATE
#define PHASE_WARMUP OMPB__PHASE_WARMUP

/* A caller team's round is bracketed by the caller's clock reads only: it
 * needs no barrier figure. */
bool ompb__calibrate_barrier_limit(const team *tm, uint64_t *limit_ns)
{
    const ompb__sampling *sp = tm->sp;
    if (sp->sample_size || sp->mode != OMPB__SAMPLING_MEASURE || tm->rec->caller_team)
        return false;
    uint64_t limit = sp->budget_ns / BARRIER_LIMIT_SHARE;
    *limit_ns = limit < BARRIER_LIMIT_MAX_NS ? limit : BARRIER_LIMIT_MAX_NS;
    return true;
}

void ompb__calibrate_setup(team *tm, double barrier, bool complete)
{
    const ompb__sampling *sp = tm->sp;
    tm->phase = PHASE_CALIBRATE;
    tm->sample_size = sp->sample_size ? sp->sample_size : 1;
    tm->target_ns = 0;
    if (sp->sample_size || sp->mode != OMPB__SAMPLING_MEASURE)
        return;
    tm->rec->barrier_cost_ns = barrier;
    /* Probes the limit cut short took a time slice each: the machine is
     * busy, or the team oversubscribed, and the barrier is the scheduler's.
     * Longer rounds do not make that the harness's share smaller, so such
     * an estimate is recorded but raises no floor (the CPU share says it). */
    double floor_ns = FLOOR_FACTOR * (2 * ompb__clock_cost_ns() + (complete ? barrier : 0));
    double most = (double)sp->budget_ns / FLOOR_BUDGET_SHARE / (double)(sp->rounds ? sp->rounds : 1);
    floor_ns = floor_ns < most ? floor_ns : most;
    tm->target_ns = sp->min_round_ns > floor_ns ? sp->min_round_ns : (uint64_t)floor_ns;
    /* Ranks calibrate together, to the highest floor of any of them. */
    int64_t target = (int64_t)tm->target_ns;
    ompb__dist_max_on(tm->env->dist, &target, 1, 0);
    tm->target_ns = (uint64_t)target;
    tm->rec->round_target_ns = tm->target_ns;
}

static void set_sample_size(team *tm, double next)
{
    tm->sample_size = next >= (double)OMPB__MAX_SAMPLE_SIZE ? OMPB__MAX_SAMPLE_SIZE
                      : next < 1 ? 1 : (uint64_t)next;
}

static void end_calibration(team *tm, uint64_t now)
{
    tm->phase = PHASE_WARMUP;
    tm->t_warmup = now;
}

bool ompb__calibrate_step(team *tm, uint64_t busy, uint64_t spent, uint64_t now)
{
    ompb__record *rec = tm->rec;
    if (rec->n_calib_steps < OMPB__CALIB_STEPS_MAX)
        rec->calib_steps[rec->n_calib_steps++] = (ompb__calib_step){tm->sample_size, busy};
    rec->calibration_rounds++;
    uint64_t n = tm->sample_size;
    if (busy >= tm->target_ns / TRUST_SHARE && busy > 0) {
        double per = (double)busy / (double)n;
        tm->per_iter_ns = tm->trusted++ == 0 || per < tm->per_iter_ns ? per : tm->per_iter_ns;
    }
    bool reached = tm->trusted > 0 && (double)n * tm->per_iter_ns >= (double)tm->target_ns;
    /* A fixed sample size (no target) runs one round, which warms up. */
    if (tm->target_ns == 0 || (reached && tm->trusted >= MIN_TRUSTED)
        || spent >= tm->sp->budget_ns / 2) {
        end_calibration(tm, now);
        return true;
    }
    if (n >= OMPB__MAX_SAMPLE_SIZE)
        return false;
    if (reached)
        return true; /* one more round at this size, for a second figure */
    double next = tm->trusted ? PREDICT_MARGIN * (double)tm->target_ns / tm->per_iter_ns
                              : MAX_GROWTH * (double)n;
    double most = MAX_GROWTH * (double)n;
    set_sample_size(tm, next > most ? most : next);
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

bool ompb__calibrate_recheck(team *tm, uint64_t spent)
{
    ompb__record *rec = tm->rec;
    uint64_t b[CHECK_ROUNDS];
    memcpy(b, tm->check_busy, sizeof b);
    qsort(b, CHECK_ROUNDS, sizeof b[0], cmp_u64);
    double target = (double)tm->target_ns, basis = (double)b[0];
    if (basis * CHECK_SHORT >= target && basis <= CHECK_LONG * target)
        return false;
    if (rec->recalibrations >= MAX_RECALIBRATIONS || spent >= tm->sp->budget_ns / 2) {
        rec->calibration_disturbed = true;
        return false;
    }
    rec->recalibrations++;
    double n = (double)tm->sample_size, next = n * PREDICT_MARGIN * target / (basis > 1 ? basis : 1);
    next = next > MAX_GROWTH * n ? MAX_GROWTH * n : next < n / MAX_GROWTH ? n / MAX_GROWTH : next;
    set_sample_size(tm, next);
    tm->trusted = 0;
    tm->round = 0;
    tm->clean = 0;
    rec->rounds = 0;
    tm->phase = PHASE_CALIBRATE;
    return true;
}

void ompb__calibrate_check_measured(team *tm)
{
    ompb__record *rec = tm->rec;
    size_t n = rec->rounds, T = (size_t)tm->timed;
    uint64_t *slowest = n && tm->target_ns ? malloc(n * sizeof *slowest) : NULL;
    if (!slowest)
        return;
    for (size_t r = 0; r < n; r++) {
        slowest[r] = 0;
        for (size_t t = 0; t < T; t++)
            slowest[r] = rec->busy_ns[r * T + t] > slowest[r] ? rec->busy_ns[r * T + t] : slowest[r];
    }
    qsort(slowest, n, sizeof *slowest, cmp_u64);
    if ((double)slowest[n / 2] * CHECK_SHORT < (double)tm->target_ns)
        rec->calibration_disturbed = true;
    free(slowest);
}

void ompb__calibrate_explain_short(team *tm, uint64_t spent)
{
    ompb__record *rec = tm->rec;
    if (rec->rounds >= tm->sp->rounds)
        return;
    uint64_t per_round = 0;
    for (size_t r = 0; r < rec->rounds; r++)
        per_round += ompb__record_makespan(rec, r) / rec->rounds;
    if (rec->calibration_disturbed)
        snprintf(rec->short_reason, sizeof rec->short_reason, "calibration disturbed: the "
                 "measured rounds disagreed with it after %" PRIu64 " recalibrations",
                 rec->recalibrations);
    else if (tm->sample_size == 1 && per_round > tm->sp->budget_ns / 2 / tm->sp->rounds)
        snprintf(rec->short_reason, sizeof rec->short_reason, "budget: body %.3g ms per "
                 "iteration", (double)per_round / 1e6);
    else
        snprintf(rec->short_reason, sizeof rec->short_reason, "budget: %.3g ms spent, %.3g ms "
                 "per round of %" PRIu64 " iterations", (double)spent / 1e6,
                 (double)per_round / 1e6, tm->sample_size);
}
