/* SPDX-License-Identifier: MIT */
/*
 * The round engine's entry: one instance from its input to its record.
 * It prepares the team (the record's arrays, one ompb_state per thread, the
 * counter groups, the sampling and its target), runs the benchmark's setup,
 * hands the rounds to the driver of the descriptor's .team (the harness
 * team, lib/engine/round_harness.c, or the caller team, lib/engine/round_caller.c), then
 * sends the markers and ends the instance through the team core
 * (lib/engine/round_team.c). Everything it and the drivers call beyond the input
 * comes from the environment it is given (lib/engine/engine_env.h).
 */
#include "engine/round.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

#include "engine/dist.h"
#include "engine/round_calibrate.h"
#include "engine/round_team.h"
#include "engine/state.h"

/* The team's states and counter groups, each state set up for its thread:
 * whoever runs the timed loop reads the groups around it (each harness
 * thread its own; a caller team's caller every thread's). OMPB_ENOMEM. */
static int alloc_team(ompb__team *tm)
{
    tm->states = aligned_alloc(OMPB__CACHE_LINE, sizeof(ompb_state) * (size_t)tm->threads);
    if (!tm->states)
        return OMPB_ENOMEM;
    if (tm->rec->counters.n > 0) {
        tm->groups = calloc((size_t)tm->threads, sizeof *tm->groups);
        if (!tm->groups) {
            free(tm->states);
            return OMPB_ENOMEM;
        }
    }
    bool caller = tm->rec->caller_team;
    for (int t = 0; t < tm->threads; t++) {
        ompb__state_init(&tm->states[t], tm->inst, &tm->user_data, t, tm->threads);
        tm->states[t].simulate = tm->simulate;
        tm->states[t].pages_ops = tm->env->pages;
        tm->states[t].user.shared = caller; /* the body's own team adds into it */
        tm->states[t].user.events = tm->rec->counters.n ? &tm->rec->counters : NULL;
        if (tm->groups && !caller) {
            tm->states[t].counters = &tm->groups[t];
            tm->states[t].n_counters = 1;
        }
    }
    if (tm->groups && caller) {
        tm->states[0].counters = tm->groups;
        tm->states[0].n_counters = tm->threads;
    }
    return 0;
}

/* Where the body's code lives, for comparisons of two builds; nothing when
 * it cannot be said (the record then has no location). */
static void locate_body(ompb__record *rec, const ompb__instance *inst)
{
    char path[4096];
    uint64_t vaddr;
    if (inst->bench->fn &&
        ompb__code_locate((const void *)(uintptr_t)inst->bench->fn, path, sizeof path,
                          &vaddr) == 0 && (rec->code_object = strdup(path)) != NULL)
        rec->code_address = vaddr;
}

/* The sampling's start and target; a calibrated harness team measures the
 * cost of its barrier first (lib/engine/round_harness.c). */
static void setup_sampling(ompb__team *tm)
{
    uint64_t limit = 0;
    double barrier = 0;
    bool complete = true;
    if (ompb__calibrate_barrier_limit(tm, &limit))
        barrier = ompb__barrier_cost_ns(tm->threads, tm->plan, limit, &complete);
    ompb__calibrate_setup(tm, barrier, complete);
}

/* The rounds, by the descriptor's driver, then what follows them while
 * the team's states still exist: counters, markers, teardown. */
static int run_rounds(ompb__team *tm)
{
    const ompb__engine_env *env = tm->env;
    ompb__record *rec = tm->rec;
    int rc = rec->caller_team ? ompb__caller_team_run(tm) : ompb__harness_team_run(tm);
    ompb__team_close_counters(tm);
    ompb__team_finish_counters(tm);
    rc = rc ? rc : rec->failed ? OMPB_ERUN : 0;
    if (env->dist)
        ompb__dist_order_rounds(rec->start_ns, rec->end_ns, rec->rounds);
    /* Partial rounds of a failed body are no result: the instrument
     * closes and names the window without markers. */
    if (tm->instrumented)
        env->markers.instance_end(env->markers.ctx, rec, !tm->sp->window_keep_open);
    if (tm->inst->bench->teardown)
        tm->inst->bench->teardown(&tm->states[0]);
    return rc;
}

int ompb__round_run(const ompb__engine_env *env, const ompb__instance *inst,
                    const ompb__sampling *sampling, const struct ompb__pin_plan *plan,
                    ompb__record *rec)
{
    ompb__team tm = {.env = env, .inst = inst, .sp = sampling, .plan = plan, .rec = rec};
    ompb_team kind = inst->bench->team;
    tm.simulate = sampling->mode == OMPB__SAMPLING_SIMULATE;
    tm.threads = sampling->threads;
    rec->inst = inst;
    rec->sampling = *sampling;
    rec->caller_team = kind == OMPB_TEAM_CALLER;
    if (sampling->counters)
        rec->counters = *sampling->counters;
    uint64_t capacity = ompb__sampling_capacity(sampling);
    if (ompb__record_alloc(rec, capacity, tm.threads) != 0)
        return OMPB_ENOMEM;
    tm.timed = ompb__record_timed_threads(rec);
    locate_body(rec, inst);
    for (int t = 0; t < tm.threads; t++)
        rec->thread_pu[t] = -1;
    if (kind != OMPB_TEAM_HARNESS && kind != OMPB_TEAM_CALLER) {
        ompb__team_fail(&tm, "%s: .team = %d is not a team (accepted: OMPB_TEAM_HARNESS, "
                        "OMPB_TEAM_CALLER)", inst->name, (int)kind);
        return OMPB_ERUN;
    }
    if (alloc_team(&tm) != 0)
        return OMPB_ENOMEM;
    /* Only measured rounds are accounted (a smoke test or a simulation
     * runs one round for its own purpose). */
    if (sampling->mode == OMPB__SAMPLING_MEASURE
        && ompb__record_alloc_accounting(rec, capacity) == 0) {
        tm.watches = calloc((size_t)tm.threads, sizeof *tm.watches);
        for (int t = 0; tm.watches && t < tm.threads; t++)
            tm.watches[t].fd = -1;
        if (!tm.watches)
            ompb__record_unaccounted(rec, "out of memory");
    }
    env->body.team(env->body.ctx, tm.states, tm.timed);
    setup_sampling(&tm);
    if (env->dist && !(tm.own_bounds = calloc(capacity * 2 + 1, sizeof *tm.own_bounds)))
        ompb__team_fail(&tm, "%s: out of memory", inst->name);
    int rc;
    if (rec->failed || (inst->bench->setup && inst->bench->setup(&tm.states[0]) != 0)) {
        if (!rec->failed)
            ompb__team_fail(&tm, "%s: setup failed", inst->name);
        rc = OMPB_ERUN;
        /* The other ranks learn it at their first round's barrier. */
        tm.phase = OMPB__PHASE_DONE;
        ompb__team_round_begin(&tm);
    } else {
        rc = run_rounds(&tm);
    }
    ompb__team_close_counters(&tm);
    ompb__team_close_watches(&tm);
    if (rec->failed && rec->away_ns)
        ompb__record_unaccounted(rec, "");
    env->body.team(env->body.ctx, NULL, 0);
    free(tm.states);
    ompb__team_gather_ranks(&tm);
    ompb__team_check_clock_error(&tm);
    return rc;
}
