/* SPDX-License-Identifier: MIT */
/*
 * Two-sided Mann-Whitney U test. Both samples are ranked together (tied
 * values share their mean rank); U of x follows from x's rank sum. Small
 * untied samples get the exact null distribution of U, built with the
 * recurrence on the largest observation; otherwise U is compared with a
 * normal distribution whose variance is corrected for ties, with a
 * continuity correction of 1/2 (the conventions of scipy.stats.mannwhitneyu).
 */
#include "analysis/mannwhitney.h"

#include <math.h>
#include <stdlib.h>

#include <ompbench/error.h>

typedef struct labeled {
    double v;
    int from_x;
} labeled;

typedef struct rank_sums {
    double rank_sum_x;
    double tie_term;   /* sum over tie groups of t^3 - t */
} rank_sums;

static int cmp_labeled(const void *a, const void *b)
{
    double x = ((const labeled *)a)->v, y = ((const labeled *)b)->v;
    return (x > y) - (x < y);
}

static int rank(const double *x, size_t nx, const double *y, size_t ny, rank_sums *out)
{
    size_t n = nx + ny;
    labeled *all = malloc(n * sizeof *all);
    if (!all)
        return OMPB_ENOMEM;
    for (size_t i = 0; i < n; i++)
        all[i] = i < nx ? (labeled){x[i], 1} : (labeled){y[i - nx], 0};
    qsort(all, n, sizeof *all, cmp_labeled);
    out->rank_sum_x = out->tie_term = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && all[j].v == all[i].v)
            j++;
        double t = (double)(j - i), mid_rank = (double)(i + j + 1) / 2.0;
        for (size_t k = i; k < j; k++)
            out->rank_sum_x += all[k].from_x ? mid_rank : 0.0;
        out->tie_term += t * t * t - t;
        i = j;
    }
    free(all);
    return 0;
}

/*
 * Null distribution of U for sizes (m, n): P(U = u) for u = 0..limit. The
 * largest of the m + n values belongs to x with probability m / (m + n) and
 * then beats all n values of y, so
 * p(u; m, n) = m/(m+n) p(u-n; m-1, n) + n/(m+n) p(u; m, n-1).
 * Entries up to limit need only entries up to limit, so the tables stop
 * there. Probabilities rather than counts: C(100, 50) does not fit in 64
 * bits. Returns a malloc'd array of limit + 1 values, or NULL.
 */
static double *u_distribution(size_t m, size_t n, size_t limit)
{
    size_t stride = limit + 1;
    double *prev = calloc((n + 1) * stride, sizeof *prev);
    double *cur = calloc((n + 1) * stride, sizeof *cur);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return NULL;
    }
    for (size_t i = 0; i <= m; i++) {
        for (size_t j = 0; j <= n; j++) {
            double *c = cur + j * stride;
            if (i == 0 || j == 0) {
                c[0] = 1.0;
                continue;
            }
            double px = (double)i / (double)(i + j), py = 1.0 - px;
            const double *from_x = prev + j * stride, *from_y = cur + (j - 1) * stride;
            size_t top = i * j < limit ? i * j : limit;
            for (size_t u = 0; u <= top; u++)
                c[u] = (u >= j ? px * from_x[u - j] : 0.0) + py * from_y[u];
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double *dist = malloc(stride * sizeof *dist);
    if (dist)
        for (size_t u = 0; u < stride; u++)
            dist[u] = prev[n * stride + u];
    free(prev);
    free(cur);
    return dist;
}

/* U is symmetric about nx ny / 2: the two-sided p is twice the lower tail
 * at the smaller of U and nx ny - U. */
static int exact_p(double u, size_t nx, size_t ny, double *p)
{
    double low = fmin(u, (double)(nx * ny) - u);
    size_t limit = (size_t)low;
    double *dist = u_distribution(nx, ny, limit);
    if (!dist)
        return OMPB_ENOMEM;
    double tail = 0.0;
    for (size_t k = 0; k <= limit; k++)
        tail += dist[k];
    free(dist);
    *p = fmin(1.0, 2.0 * tail);
    return 0;
}

static double normal_p(double u, size_t nx, size_t ny, double tie_term)
{
    double n = (double)(nx + ny), mu = (double)nx * (double)ny / 2.0;
    double var = (double)nx * (double)ny / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    if (var <= 0.0)
        return 1.0; /* every value is the same: nothing to tell apart */
    double z = (fabs(u - mu) - 0.5) / sqrt(var);
    return fmin(1.0, erfc(z / sqrt(2.0)));
}

int ompb__mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
                       ompb__mw_method method, ompb__mw_result *out)
{
    if (nx == 0 || ny == 0)
        return OMPB_EINVAL;
    rank_sums rs;
    int rc = rank(x, nx, y, ny, &rs);
    if (rc)
        return rc;
    out->u = rs.rank_sum_x - (double)nx * ((double)nx + 1.0) / 2.0;
    out->ties = rs.tie_term > 0.0;
    int small = nx <= OMPB__MW_EXACT_MAX && ny <= OMPB__MW_EXACT_MAX;
    if (method == OMPB__MW_AUTO)
        method = small && !out->ties ? OMPB__MW_EXACT : OMPB__MW_NORMAL;
    out->method = method;
    if (method == OMPB__MW_EXACT) {
        if (out->ties || !small)
            return OMPB_ENOTSUP;
        return exact_p(out->u, nx, ny, &out->p);
    }
    out->p = normal_p(out->u, nx, ny, rs.tie_term);
    return 0;
}

double ompb__mw_min_p(size_t nx, size_t ny)
{
    if (nx == 0 || ny == 0)
        return 1.0;
    double log_c = lgamma((double)(nx + ny) + 1.0) - lgamma((double)nx + 1.0) -
                   lgamma((double)ny + 1.0);
    return fmin(1.0, 2.0 * exp(-log_c));
}
