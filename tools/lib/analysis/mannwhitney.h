/* SPDX-License-Identifier: MIT */
/*
 * The two-sided Mann-Whitney U test (Wilcoxon rank-sum): do two independent
 * samples come from the same distribution? Used by `ompbench compare` on the
 * per-iteration round times of a base and a head run, because timings are
 * skewed and heavy-tailed, which rules out a t test.
 */
#ifndef OMPB_ANALYSIS_MANNWHITNEY_H
#define OMPB_ANALYSIS_MANNWHITNEY_H

#include <stdbool.h>
#include <stddef.h>

/* Largest per-sample size for which OMPB__MW_AUTO uses the exact distribution. */
#define OMPB__MW_EXACT_MAX 50

typedef enum ompb__mw_method {
    OMPB__MW_AUTO,   /* exact without ties and both sizes <= OMPB__MW_EXACT_MAX,
                        else normal */
    OMPB__MW_EXACT,  /* exact null distribution of U; refused when there are ties */
    OMPB__MW_NORMAL  /* normal approximation, tie-corrected variance, continuity
                        correction of 1/2 */
} ompb__mw_method;

typedef struct ompb__mw_result {
    double u;                /* U of x: pairs (x_i, y_j) with x_i > y_j, ties 1/2 */
    double p;                /* two-sided p-value in [0, 1] */
    ompb__mw_method method;  /* the method used (never AUTO) */
    bool ties;               /* some value occurs in both samples or twice */
} ompb__mw_result;

/*
 * Tests x[nx] against y[ny] (not modified). Returns 0; OMPB_EINVAL when a
 * sample is empty; OMPB_ENOTSUP for OMPB__MW_EXACT with ties or sizes above
 * OMPB__MW_EXACT_MAX; OMPB_ENOMEM.
 */
int ompb__mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
                       ompb__mw_method method, ompb__mw_result *out);

/* The smallest two-sided p-value any untied samples of these sizes can give,
 * 2 / C(nx + ny, nx): when it is not below alpha the test cannot ever reject,
 * and a caller should say there are too few samples. 1 when a size is 0. */
double ompb__mw_min_p(size_t nx, size_t ny);

#endif
