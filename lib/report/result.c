/* SPDX-License-Identifier: MIT */
/*
 * From a record to the figures every reporter prints: statistics over the
 * per-iteration round times, mean start skew, mean imbalance and the rates.
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>

#include <ompbench/error.h>

int ompb__result_analyze(ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    size_t n = rec->rounds;
    res->mean_skew_ns = res->mean_imbalance = res->total_time_s = 0;
    res->bytes_per_second = res->items_per_second = 0;
    if (n == 0 || rec->failed)
        return ompb__stats_compute(NULL, 0, &res->stats);
    if (ompb__result_counters(res) != 0)
        return OMPB_ENOMEM;
    double *per_iter = malloc(n * sizeof *per_iter);
    if (!per_iter)
        return OMPB_ENOMEM;
    for (size_t r = 0; r < n; r++) {
        double makespan = (double)ompb__record_makespan(rec, r);
        per_iter[r] = makespan / (double)rec->sample_size;
        res->mean_skew_ns += (double)ompb__record_start_skew(rec, r) / (double)n;
        res->total_time_s += makespan * 1e-9;
    }
    if (rec->caller_team) /* the harness timed the caller, not the code's threads */
        res->mean_skew_ns = res->mean_imbalance = NAN;
    else
        res->mean_imbalance = ompb__mean_imbalance(rec->busy_ns, n, (size_t)rec->threads);
    int rc = ompb__stats_compute(per_iter, n, &res->stats);
    free(per_iter);
    /* Rates use the median, the figure the console and compare report: a
     * mean would let one preempted round move the throughput. */
    double median = res->stats.median;
    if (rc == 0 && median > 0) {
        res->bytes_per_second = (double)rec->bytes_per_iter * 1e9 / median;
        res->items_per_second = (double)rec->items_per_iter * 1e9 / median;
    }
    return rc;
}
