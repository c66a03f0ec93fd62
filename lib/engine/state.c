/* SPDX-License-Identifier: MIT */
/*
 * The benchmark-facing side of a round: the timed loop's begin/end and the
 * accessors a body uses. ompb_iter_begin takes its timestamp as its last
 * action and ompb_iter_end as its first (after one predictable branch), so
 * nothing of ours is timed but the loop itself. With --counters the groups
 * are read right before the start time and right after the end time: the
 * counts cover the timed window (plus the reads' own cost), and neither
 * read is inside it. In CPU simulation the
 * callgrind client requests sit just inside the timestamps, so that only the
 * loop's instructions are counted.
 */
#include "engine/state.h"

#include <string.h>

#include <valgrind/callgrind.h>

#include "core/core.h"

void ompb__state_init(ompb_state *s, const ompb__instance *inst, void **user_data,
                      int t, int threads)
{
    memset(s, 0, sizeof *s);
    s->inst = inst;
    s->user_data = user_data;
    s->thread = t;
    s->threads = threads;
    s->pu = -1;
}

uint64_t ompb_iter_begin(ompb_state *state)
{
    state->reentered |= state->began;
    state->began = true;
    state->ended = false;
    if (__builtin_expect(state->counters != NULL, 0))
        ompb__counters_window_begin(state->counters, state->n_counters);
    state->start_ns = ompb__now_ns();
    if (state->simulate) {
        /* Under callgrind the counted instructions start here, right
         * before the loop: neither the clock read nor a call of ours is in. */
        CALLGRIND_ZERO_STATS;
        CALLGRIND_START_INSTRUMENTATION;
    }
    return state->sample_size;
}

void ompb_iter_end(ompb_state *state)
{
    if (__builtin_expect(state->simulate, 0))
        CALLGRIND_STOP_INSTRUMENTATION;
    state->end_ns = ompb__now_ns();
    state->ended = true;
    state->iters = state->sample_size;
    if (__builtin_expect(state->counters != NULL, 0))
        ompb__counters_window_end(state->counters, state->n_counters);
}

int64_t ompb_arg(const ompb_state *state)
{
    return state->inst->arity ? state->inst->argv[0] : 0;
}

int64_t ompb_arg_at(const ompb_state *state, int k)
{
    return k >= 0 && k < state->inst->arity ? state->inst->argv[k] : 0;
}

int ompb_thread_index(const ompb_state *state) { return state->thread; }
int ompb_thread_count(const ompb_state *state) { return state->threads; }
uint64_t ompb_sample_size(const ompb_state *state) { return state->sample_size; }
const char *ompb_instance_name(const ompb_state *state) { return state->inst->name; }

void ompb_set_data(ompb_state *state, void *data) { *state->user_data = data; }
void *ompb_data(const ompb_state *state) { return *state->user_data; }
void ompb_set_thread_data(ompb_state *state, void *data) { state->thread_data = data; }
void *ompb_thread_data(const ompb_state *state) { return state->thread_data; }
void ompb_set_bytes(ompb_state *state, uint64_t bytes_per_iteration) { state->bytes = bytes_per_iteration; }
void ompb_set_items(ompb_state *state, uint64_t items_per_iteration) { state->items = items_per_iteration; }
