/* SPDX-License-Identifier: MIT */
/*
 * The body's ompb_counter: adds a named value into the user-counter slots
 * of its thread's round state. It is the engine's side of user counters
 * (the state is the engine's); the slots, their merge and the name rules
 * are lib/model/ucounter.c, which the record and the reporters read without
 * knowing the engine.
 */
#include <ompbench/bench.h>
#include <ompbench/error.h>

#include "engine/state.h"
#include "model/model.h"

int ompb_counter(ompb_state *state, const char *name, double value, unsigned flags)
{
    if (!state)
        return OMPB_EINVAL;
    return ompb__ucounter_add(&state->user, name, value, flags);
}
