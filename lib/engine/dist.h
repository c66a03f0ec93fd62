/* SPDX-License-Identifier: MIT */
/*
 * The engine's side of a distributed run (include/ompbench/distribution.h):
 * which rank this is, and the few collective steps the engine and the run
 * take, expressed on the installed distribution's operations. Without one
 * every function is a no-op and the run is the single process it always
 * was. A failed operation ends every rank (the distribution said why).
 */
#ifndef OMPB_DIST_H
#define OMPB_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ompbench/distribution.h>

/* The installed distribution (ompb_set_distribution), or NULL for one
 * process: the default engine environment's, and the run's. */
const ompb_distribution *ompb__dist(void);
/* This process's rank (0 without a distribution) and the number of ranks
 * (0 without one: no rank count in names or reports). */
int ompb__dist_rank(void);
int ompb__dist_ranks(void);

/* The error bound of d's barrier_exit_skew_ns:
 * the skew is a difference of two ranks' exit times, each translated to
 * rank 0's clock by an estimated offset, so it is off by at most the two
 * largest offset errors (rank 0's own is 0). 0 for NULL or unknown. */
double ompb__dist_skew_error_ns(const ompb_distribution *d);
/* Global rounds shorter than this many times (skew + its error) have
 * bounds dominated by the clock error between the ranks: warned. */
#define OMPB__DIST_CLOCK_ERROR_FACTOR 10

/* The steps on distribution d (NULL: one process, where each is a no-op or
 * the value itself). The engine takes d from its environment
 * (lib/engine/engine_env.h); the run's own steps use the installed one through
 * the functions below. A failed operation ends every rank. */

/* v := the element-wise maximum over the ranks (unchanged alone). */
void ompb__dist_max_on(const ompb_distribution *d, int64_t *v, int n, uint64_t wait_hint_ns);
/* Rank 0 gets every rank's n int64 values, rank-major, in *all (malloc'd,
 * caller frees); other ranks get NULL. */
int ompb__dist_gather_on(const ompb_distribution *d, const int64_t *own, size_t n,
                         int64_t **all);
/* Ends every rank with this status (exit() when alone). */
_Noreturn void ompb__dist_abort_on(const ompb_distribution *d, int status);

/* The global bounds of n consecutive rounds (start[r], end[r] on rank 0's
 * clock) put in time order: each bound is right only to within the ranks'
 * barrier exit skew, so a round can come out ending after the next one
 * started although every rank ran them one after the other, and the
 * runner's backend pairs markers only in time order. Going back from the
 * last round, a round that ends after the next one starts moves earlier by
 * the overlap, its makespan kept (earlier, never later: no marker may lie
 * beyond the moment it is sent). No-op without an overlap. */
void ompb__dist_order_rounds(uint64_t *start, uint64_t *end, size_t n);

/* One round as the engine's master sees it: in, this rank's figures; out,
 * the agreed ones (see ompb__dist_round_end). */
typedef struct ompb__dist_round {
    int64_t start_rel, end_rel; /* bounds relative to this rank's barrier exit */
    uint64_t busy_ns;           /* slowest thread's busy time */
    bool failed;                /* this rank's round failed */
    uint64_t elapsed_ns;        /* time since the instance began */
} ompb__dist_round;

/* After a round, on every rank of d: start_rel := the earliest over the
 * ranks, end_rel := the latest, busy_ns := the largest, failed := any, and
 * elapsed_ns := rank 0's, so that every rank takes the same decisions
 * (calibration, warm-up, end of rounds) as rank 0 does on its clock. */
void ompb__dist_round_end(const ompb_distribution *d, ompb__dist_round *r,
                          uint64_t wait_hint_ns);

/* The same steps on the installed distribution (ompb__dist()), for the run. */
void ompb__dist_max(int64_t *v, int n, uint64_t wait_hint_ns);
/* Rank 0's value on every rank (v must be >= 0 on rank 0). */
int64_t ompb__dist_from_rank0(int64_t v);
/* Whether every rank passed the same value. */
bool ompb__dist_all_equal(uint64_t v);
int ompb__dist_gather_i64(const int64_t *own, size_t n, int64_t **all);
_Noreturn void ompb__dist_abort(int status);

#endif
