/* SPDX-License-Identifier: MIT */
/*
 * The round engine. One OpenMP team of T threads serves all rounds of an
 * instance. Round r: team barrier; each thread t takes s_t, runs sample_size
 * iterations, takes e_t; the team reduces to start = min s_t, end = max e_t;
 * after the barrier exactly one thread (the master) records the round in the
 * record and decides the next. Workers write only their own slots. When the
 * team is done, the record goes to the instrument (markers) and on to the
 * statistics and reporters.
 *
 * A caller-team benchmark (OMPB_TEAM_CALLER) runs on the calling thread
 * instead, outside any parallel region: its round is the caller's loop, and
 * the code it calls forks top-level regions of T threads from the OpenMP
 * runtime's pool, which the engine places by the plan before the first round.
 */
#ifndef OMPB_ROUND_H
#define OMPB_ROUND_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine_env.h"
#include "model/model.h"

/*
 * Runs one instance as sampling says and fills *rec (zeroed by the caller).
 * plan may be NULL (no binding by us). env holds every collaborator the
 * engine calls (lib/engine/engine_env.h): a run passes ompb__engine_env_default(),
 * a test its doubles; the engine reads no other process-wide state. The
 * measured rounds go to env's marker sink through the record, after the
 * team is done.
 * Returns 0; OMPB_ENOMEM, or OMPB_ERUN with rec->failed and rec->error set
 * when the body or its setup misbehaved, or the descriptor's .team is
 * unknown. Warnings (a nested region, a caller team's regions at another
 * width, ...) go to rec->warnings, named by instance.
 */
struct ompb__pin_plan;
int ompb__round_run(const ompb__engine_env *env, const ompb__instance *inst,
                    const ompb__sampling *sampling, const struct ompb__pin_plan *plan,
                    ompb__record *rec);

/* Cost of one team barrier at T threads (lib/engine/round_harness.c) (0 for T = 1, which runs none), in
 * ns: the lowest of at least 8 and up to 64 single barriers, each timed by
 * the master right after the one before it, for about limit_ns at most
 * beyond the first 8 (plus the team's start). Complete measurements are
 * kept per T, and from the third on their lowest is returned unmeasured.
 * With a plan whose binder is ompbench, the probe's threads are placed by
 * it (and the caller's mask restored after); NULL: unplaced. *complete is
 * false when the limit cut this measurement short and no complete one of
 * this T exists: the barriers took time slices, not their own cost. */
double ompb__barrier_cost_ns(int threads, const struct ompb__pin_plan *plan, uint64_t limit_ns,
                             bool *complete);

#endif
