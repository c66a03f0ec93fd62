/* SPDX-License-Identifier: MIT */
/*
 * From a record to the figures every reporter prints: statistics over the
 * per-iteration round times, mean start skew and mean imbalance.
 */
#include "report.h"

#include <stdlib.h>

#include "ompbench/error.h"

/* Start skew and imbalance of round r. */
static void round_spread(const ompb__record *rec, size_t r, double *skew, double *imbalance)
{
    size_t T = (size_t)rec->threads;
    const uint64_t *st = rec->thread_start_ns + r * T, *busy = rec->busy_ns + r * T;
    uint64_t smin = st[0], smax = st[0], bmax = 0, bsum = 0;
    for (size_t t = 0; t < T; t++) {
        smin = st[t] < smin ? st[t] : smin;
        smax = st[t] > smax ? st[t] : smax;
        bmax = busy[t] > bmax ? busy[t] : bmax;
        bsum += busy[t];
    }
    *skew = (double)(smax - smin);
    *imbalance = bsum ? (double)bmax * (double)T / (double)bsum : 1.0;
}

int ompb__result_analyze(ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    size_t n = rec->rounds;
    res->mean_skew_ns = res->mean_imbalance = res->total_time_s = 0;
    if (n == 0 || rec->failed)
        return ompb__stats_compute(NULL, 0, &res->stats);
    double *per_iter = malloc(n * sizeof *per_iter);
    if (!per_iter)
        return OMPB_ENOMEM;
    for (size_t r = 0; r < n; r++) {
        double skew, imbalance, makespan = (double)ompb__record_makespan(rec, r);
        per_iter[r] = makespan / (double)rec->sample_size;
        round_spread(rec, r, &skew, &imbalance);
        res->mean_skew_ns += skew / (double)n;
        res->mean_imbalance += imbalance / (double)n;
        res->total_time_s += makespan * 1e-9;
    }
    int rc = ompb__stats_compute(per_iter, n, &res->stats);
    free(per_iter);
    return rc;
}
