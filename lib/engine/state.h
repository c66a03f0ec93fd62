/* SPDX-License-Identifier: MIT */
/*
 * The per-thread round state behind the opaque ompb_state. Each team thread
 * owns one, on its own cache lines, and is the only writer of it during a
 * round; the master reads all of them after the round's barrier.
 */
#ifndef OMPB_STATE_H
#define OMPB_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ompbench/bench.h>
#include "counters/counters.h"
#include "engine/fork_guard.h"
#include "engine/pages.h"
#include "model/model.h"

#define OMPB__CACHE_LINE 64

struct ompb_state {
    _Alignas(OMPB__CACHE_LINE) const ompb__instance *inst;
    void **user_data;          /* the team's shared ompb_set_data slot */
    void *thread_data;
    int thread, threads;
    bool simulate;             /* toggle callgrind instrumentation in iter_begin/end */
    bool began, ended;         /* this round entered / completed the timed loop */
    bool reentered;            /* entered the timed loop twice in one round: an error */
    uint64_t sample_size;      /* iterations of the current round */
    uint64_t start_ns, end_ns; /* this thread's bounds in the current round */
    uint64_t iters;            /* iterations completed in the current round */
    uint64_t bytes, items;     /* per iteration, from ompb_set_bytes/_items */
    int pu;                    /* PU seen at the last check, -1 unknown */
    uint64_t migrations;       /* PU changes seen during measured rounds */
    uint64_t switch_mark;      /* involuntary context switches at the last
                                  unmeasured round boundary */
    uint64_t switches;         /* involuntary context switches since then */
    int tid;                   /* kernel thread id seen at the last check */
    bool tid_changed;          /* a caller team's slot t ran on another thread */
    ompb__fork_watch forks;    /* regions this thread opened while the engine watched */
    /* --counters: the groups the timed loop brackets (this thread's own, or
     * for a caller team's caller every thread of the code's team); NULL:
     * none, and the loop pays one untaken branch at each end. */
    ompb__counter_group *counters;
    int n_counters;
    atomic_bool in_body;       /* inside the body now (lib/engine/body_guard.c names stuck threads) */
    ompb__pages_tally pages;   /* what this thread's ompb_declare_buffer calls found */
    const ompb__pages_ops *pages_ops; /* how they look pages up (the engine
                                         environment's; NULL: the system's) */
    ompb__ucounters user;      /* ompb_counter: this thread's values in the current round */
};

/* Prepares a state for thread t of a team of `threads`. */
void ompb__state_init(ompb_state *s, const ompb__instance *inst, void **user_data,
                      int t, int threads);

#endif
