/* SPDX-License-Identifier: MIT */
/* Per-thread fairness over the rounds (report/fairness.h). */
#include "report/fairness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"

/* Thread t's busy times over the rounds into v[rounds]: mean, median, CV. */
static void thread_stats(const ompb__record *rec, size_t t, double *v, ompb__fairness *f)
{
    size_t T = f->threads, n = rec->rounds;
    double sum = 0.0, sq = 0.0;
    for (size_t r = 0; r < n; r++) {
        v[r] = (double)rec->busy_ns[r * T + t];
        sum += v[r];
    }
    double mean = sum / (double)n;
    for (size_t r = 0; r < n; r++)
        sq += (v[r] - mean) * (v[r] - mean);
    qsort(v, n, sizeof *v, ompb__cmp_double);
    f->mean_ns[t] = mean;
    f->median_ns[t] = ompb__quantile_sorted(v, n, 0.5);
    f->cv[t] = n > 1 && mean > 0.0 ? sqrt(sq / (double)(n - 1)) / mean : NAN;
}

/* Each round's slowest threads: a round counts 1 / (threads tied). */
static void slowest_shares(const ompb__record *rec, ompb__fairness *f)
{
    size_t T = f->threads;
    for (size_t r = 0; r < rec->rounds; r++) {
        const uint64_t *b = rec->busy_ns + r * T;
        uint64_t most = 0;
        size_t tied = 0;
        for (size_t t = 0; t < T; t++)
            most = b[t] > most ? b[t] : most;
        for (size_t t = 0; t < T; t++)
            tied += b[t] == most;
        for (size_t t = 0; t < T; t++)
            if (b[t] == most)
                f->slowest_share[t] += 1.0 / (double)tied;
    }
    for (size_t t = 0; t < T; t++)
        f->slowest_share[t] /= (double)rec->rounds;
}

int ompb__fairness_of(const ompb__record *rec, ompb__fairness *out)
{
    memset(out, 0, sizeof *out);
    if (rec->failed || rec->caller_team || rec->rounds == 0 || !rec->busy_ns || rec->threads < 1)
        return 0;
    size_t T = (size_t)rec->threads;
    double *all = calloc(4 * T, sizeof *all), *v = malloc(rec->rounds * sizeof *v);
    if (!all || !v) {
        free(all);
        free(v);
        return OMPB_ENOMEM;
    }
    *out = (ompb__fairness){T, all, all + T, all + 2 * T, all + 3 * T};
    for (size_t t = 0; t < T; t++)
        thread_stats(rec, t, v, out);
    slowest_shares(rec, out);
    free(v);
    return 0;
}

void ompb__fairness_free(ompb__fairness *f)
{
    free(f->mean_ns);
    memset(f, 0, sizeof *f);
}
