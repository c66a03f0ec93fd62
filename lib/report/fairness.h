/* SPDX-License-Identifier: MIT */
/*
 * Per-thread fairness of a repetition (Google Benchmark #1902): for each
 * thread of the team, over the measured rounds, the mean, median and
 * coefficient of variation of its busy time (e_t - s_t), and the share of
 * the rounds in which it was the slowest thread (a tie shares the round
 * equally). A fair team has shares near 1/T and equal means; one thread
 * slowest in most rounds (a slower core, a thread that shares its PU, a
 * larger part of the work) shows here when the makespan alone hides who.
 * Computed from the record; the JSON carries it as "ompbench.fairness",
 * the CSV as columns on request (--thread-columns), the HTML report in its
 * thread view.
 */
#ifndef OMPB_REPORT_FAIRNESS_H
#define OMPB_REPORT_FAIRNESS_H

#include <stddef.h>

#include "model/model.h"

/* The CSV's per-thread columns cover the first this many threads (every
 * thread is in the JSON): four figures each, within OMPB__FIGURES_MAX. */
#define OMPB__FAIRNESS_CSV_THREADS 4

typedef struct ompb__fairness {
    size_t threads;         /* 0: none (a caller team, a failure, no rounds) */
    double *mean_ns;        /* [threads] each; one allocation */
    double *median_ns;
    double *cv;             /* stdev / mean over the rounds; NAN for one round */
    double *slowest_share;  /* rounds in which the thread was the slowest / rounds */
} ompb__fairness;

/* Fills out from rec. Returns 0 (out->threads 0 when rec has no
 * per-thread rounds) or OMPB_ENOMEM; release with ompb__fairness_free. */
int ompb__fairness_of(const ompb__record *rec, ompb__fairness *out);
void ompb__fairness_free(ompb__fairness *f);

#endif
