/* SPDX-License-Identifier: MIT */
/* The consumer's one check (tests/package/consumer/): the parallel region
 * a body opened had the round's width. */
#ifndef CONSUMER_CHECK_H
#define CONSUMER_CHECK_H

#include <ompbench.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compares seen (omp_get_num_threads() inside the body's parallel region)
 * with the round's width; on a mismatch prints one line naming the language
 * and both figures to standard error and aborts the run. Records the width
 * seen as the user counter "team_seen" (per iteration: the mean over the round). */
void consumer_check_team(ompb_state *state, const char *lang, int seen);

#ifdef __cplusplus
}
#endif

#endif
