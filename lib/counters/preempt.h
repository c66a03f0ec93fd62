/* SPDX-License-Identifier: MIT */
/*
 * Disturbance accounting: when was a team thread preempted, and for how
 * long? Each thread opens one watch on itself: a perf software event that
 * counts nothing but asks the kernel for a record at every context switch
 * of the thread (attr.context_switch, PERF_RECORD_SWITCH), stamped with
 * CLOCK_MONOTONIC, in a small ring the thread maps. A switch-out record
 * carries PERF_RECORD_MISC_SWITCH_OUT_PREEMPT when the thread was still
 * runnable (something else took its CPU), not when it blocked. The ring is
 * written only when the thread switches, so a round in which no thread
 * switched costs the master one load per thread (the ring's head did not
 * move) and the team's threads nothing: no system call on any thread, in
 * any round. Only a ring that moved is parsed, after the round, outside
 * every timed window: its preempted intervals clipped to the round's
 * window are the time the thread did not have its CPU.
 *
 * The kernel writes, the reader (the team's master, or the caller of a
 * caller team) only reads the records and moves the ring's tail. A watch
 * keeps the one piece of state that crosses two parses (a switch-out whose
 * switch-in lies in the next range). Records the kernel had to drop (ring
 * full) make the window "unknown", never clean.
 */
#ifndef OMPB_COUNTERS_PREEMPT_H
#define OMPB_COUNTERS_PREEMPT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ompbench/error.h>

/* Time away that makes a window unknown: records were lost (a signed
 * 64-bit maximum, so that files keep it as an ordinary integer). */
#define OMPB__AWAY_UNKNOWN ((uint64_t)INT64_MAX)

typedef struct ompb__preempt_watch {
    int fd;                       /* -1: not open */
    void *page;                   /* the perf mmap control page */
    const unsigned char *data;    /* its ring, size bytes (a power of two) */
    uint64_t size;
    uint64_t mark;                /* ring position where the next range starts */
    /* A switch-out seen, its switch-in not yet: its time and whether it
     * was a preemption (0: none pending). */
    uint64_t out_ns;
    bool out_preempt;
} ompb__preempt_watch;

/* What one window cost a thread. */
typedef struct ompb__preempt_tally {
    uint64_t away_ns;             /* preempted within the window, or OMPB__AWAY_UNKNOWN */
    uint64_t preemptions;         /* switch-outs while runnable, in the window */
} ompb__preempt_tally;

/* Opens a watch on the calling thread. Returns 0, or a negative OMPB_E*
 * code with err naming the reason (perf_event_open or mmap refused: the
 * paranoid level, a seccomp profile, no perf support); w->fd is then -1. */
int ompb__preempt_open(ompb__preempt_watch *w, ompb_error *err);
void ompb__preempt_close(ompb__preempt_watch *w);

/* The ring's head now: the master compares it with w->mark. */
static inline uint64_t ompb__preempt_head(const ompb__preempt_watch *w)
{
    const struct perf_event_mmap_page *pg = w->page;
    return __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
}

/* Tallies the records from w->mark up to the head now for the window
 * [start_ns, end_ns] (only records in the range are read; preempted
 * intervals are clipped to the window), then starts the next range at that
 * head and frees the ring up to it. A watch whose head has not moved
 * tallies nothing without touching the ring. */
void ompb__preempt_take(ompb__preempt_watch *w, uint64_t start_ns, uint64_t end_ns,
                        ompb__preempt_tally *out);

/* Starts the next range at the head now, dropping the records before it
 * (between windows that are not tallied). */
void ompb__preempt_skip(ompb__preempt_watch *w);

/*
 * The parser itself, on a ring given as bytes (tests feed it crafted
 * records): reads the records in [from, to) of data (size bytes, a power
 * of two, positions taken modulo size), carrying a pending switch-out in
 * *out_ns / *out_preempt across calls, and adds to *t what falls in
 * [start_ns, end_ns]. A malformed record (size 0, or beyond `to`) or a
 * PERF_RECORD_LOST makes the window unknown.
 */
void ompb__preempt_parse(const unsigned char *data, uint64_t size, uint64_t from, uint64_t to,
                         uint64_t start_ns, uint64_t end_ns, uint64_t *out_ns,
                         bool *out_preempt, ompb__preempt_tally *t);

#endif
