/* SPDX-License-Identifier: MIT */
/*
 * From a record to the figures every reporter prints: statistics over the
 * per-iteration round times, mean start skew and mean imbalance.
 */
#include <stdlib.h>

#include <ompbench/error.h>

#include "report/report.h"

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
        double makespan = (double)ompb__record_makespan(rec, r);
        per_iter[r] = makespan / (double)rec->sample_size;
        res->mean_skew_ns += (double)ompb__record_start_skew(rec, r) / (double)n;
        res->total_time_s += makespan * 1e-9;
    }
    res->mean_imbalance = ompb__mean_imbalance(rec->busy_ns, n, (size_t)rec->threads);
    int rc = ompb__stats_compute(per_iter, n, &res->stats);
    free(per_iter);
    return rc;
}
