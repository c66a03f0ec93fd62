/* SPDX-License-Identifier: MIT */
/*
 * Student's t through the regularized incomplete beta function, evaluated
 * by its continued fraction (modified Lentz method) on the side where it
 * converges fast; tail probabilities are computed directly, never as
 * 1 - (something close to 1), so small p-values keep their digits. The
 * quantile inverts the distribution function by bisection, which is slow
 * next to a series but cannot fail, and a report needs only a few dozen.
 */
#include "analysis/welch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#define CF_MAX_ITER 1000
#define CF_EPS 1e-16
#define CF_TINY 1e-300
#define BISECT_ITER 200
#define LINEAR_SCAN 64      /* runs per side scanned one by one (units_needed) */

/* The continued fraction of I_x(a, b), without its prefactor. */
static double beta_cf(double a, double b, double x)
{
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    d = fabs(d) < CF_TINY ? CF_TINY : d;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= CF_MAX_ITER; m++) {
        double m2 = 2.0 * m;
        /* Even step: m (b - m) x / ((a + 2m - 1)(a + 2m)). */
        double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + num * d;
        d = fabs(d) < CF_TINY ? CF_TINY : d;
        c = 1.0 + num / c;
        c = fabs(c) < CF_TINY ? CF_TINY : c;
        d = 1.0 / d;
        h *= d * c;
        /* Odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)). */
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + num * d;
        d = fabs(d) < CF_TINY ? CF_TINY : d;
        c = 1.0 + num / c;
        c = fabs(c) < CF_TINY ? CF_TINY : c;
        d = 1.0 / d;
        double step = d * c;
        h *= step;
        if (fabs(step - 1.0) < CF_EPS)
            break;
    }
    return h;
}

/* I_x(a, b), the regularized incomplete beta function, x in [0, 1]. */
static double inc_beta(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double log_front = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    double front = exp(log_front);
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_cf(a, b, x) / a;
    return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double ompb__t_cdf(double t, double df)
{
    if (!(df > 0.0) || isnan(t))
        return NAN;
    if (isinf(t))
        return t > 0 ? 1.0 : 0.0;
    /* P(|T| >= |t|) / 2 = I_x(df / 2, 1 / 2) / 2 with x = df / (df + t^2). */
    double x = df / (df + t * t);
    double tail = 0.5 * inc_beta(df / 2.0, 0.5, x);
    return t > 0.0 ? 1.0 - tail : tail;
}

double ompb__t_quantile(double p, double df)
{
    if (!(df > 0.0) || !(p > 0.0 && p < 1.0))
        return NAN;
    if (p == 0.5)
        return 0.0;
    /* Solve for the upper tail q = min(p, 1 - p) on t > 0, then mirror. */
    double q = p < 0.5 ? p : 1.0 - p;
    double lo = 0.0, hi = 1.0;
    while (ompb__t_cdf(-hi, df) > q && hi < 1e300)
        hi *= 2.0;
    for (int i = 0; i < BISECT_ITER && hi - lo > 1e-15 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (ompb__t_cdf(-mid, df) > q)
            lo = mid;
        else
            hi = mid;
    }
    double t = 0.5 * (lo + hi);
    return p < 0.5 ? -t : t;
}

ompb__sample_summary ompb__summarize(const double *v, size_t n)
{
    ompb__sample_summary s = {n, 0.0, 0.0, NAN};
    for (size_t i = 0; i < n; i++)
        s.mean += v[i] / (double)n;
    for (size_t i = 0; i < n && n > 1; i++)
        s.var += (v[i] - s.mean) * (v[i] - s.mean) / (double)(n - 1);
    if (n > 1)
        s.spread = sqrt(s.var);
    return s;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

ompb__sample_summary ompb__summarize_trimmed(const double *v, size_t n, double trim)
{
    size_t g = (size_t)(trim * (double)n);
    double *w = g > 0 && n - 2 * g >= 2 ? malloc(n * sizeof *w) : NULL;
    if (!w)
        return ompb__summarize(v, n);
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, by_value);
    size_t h = n - 2 * g;
    ompb__sample_summary s = ompb__summarize(w + g, h);
    for (size_t i = 0; i < g; i++) {
        w[i] = w[g];
        w[n - 1 - i] = w[n - 1 - g];
    }
    ompb__sample_summary win = ompb__summarize(w, n);
    free(w);
    s.var = (double)(n - 1) * win.var / (double)(h - 1);
    s.spread = win.spread;
    return s;
}

ompb__welch_result ompb__welch(ompb__sample_summary x, ompb__sample_summary y)
{
    ompb__welch_result w = {y.mean - x.mean, NAN, NAN};
    if (x.n < 2 || y.n < 2)
        return w;
    double vx = x.var / (double)x.n, vy = y.var / (double)y.n;
    w.se = sqrt(vx + vy);
    if (vx + vy == 0.0) {
        w.df = (double)(x.n + y.n - 2);
        return w;
    }
    w.df = (vx + vy) * (vx + vy) /
           (vx * vx / (double)(x.n - 1) + vy * vy / (double)(y.n - 1));
    return w;
}

ompb__welch_result ompb__paired(ompb__sample_summary d)
{
    ompb__welch_result w = {d.mean, NAN, NAN};
    if (d.n < 2)
        return w;
    w.se = sqrt(d.var / (double)d.n);
    w.df = (double)(d.n - 1);
    return w;
}

void ompb__welch_ci(const ompb__welch_result *w, double alpha, double *low, double *high)
{
    double half = w->se > 0.0 ? ompb__t_quantile(1.0 - alpha / 2.0, w->df) * w->se : 0.0;
    if (isnan(w->se))
        half = NAN;
    *low = w->diff - half;
    *high = w->diff + half;
}

double ompb__interval_p(const ompb__welch_result *w, double lower, double upper)
{
    if (isnan(w->se))
        return NAN;
    if (w->se == 0.0)
        return w->diff > upper || w->diff < lower ? 0.0 : 1.0;
    /* Evidence of a difference above upper: P(T >= (diff - upper) / se);
     * below lower: P(T <= (diff - lower) / se). */
    double above = ompb__t_cdf(-(w->diff - upper) / w->se, w->df);
    double below = isinf(lower) ? 1.0 : ompb__t_cdf((w->diff - lower) / w->se, w->df);
    double p = 2.0 * (above < below ? above : below);
    return p < 1.0 ? p : 1.0;
}

typedef struct ranked {
    double p;
    size_t index;
} ranked;

static int by_p(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

int ompb__bh_adjust(const double *p, size_t n, double *q)
{
    ranked *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return OMPB_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i]))
            r[m++] = (ranked){p[i], i};
    qsort(r, m, sizeof *r, by_p);
    for (size_t i = 0; i < n; i++)
        if (isnan(p[i]))
            q[i] = NAN;
    double running = 1.0;
    for (size_t k = m; k > 0; k--) {
        double v = r[k - 1].p * (double)m / (double)k;
        running = v < running ? v : running;
        q[r[k - 1].index] = running;
    }
    free(r);
    return 0;
}

/* Runs kept per side of n after trimming (none cut below 2 kept). */
static size_t kept(size_t n, double trim)
{
    size_t g = (size_t)(trim * (double)n);
    return n - 2 * g >= 2 ? n - 2 * g : n;
}

/* Half-width of the interval with n runs per side. */
static double half_width_at(double se_now, size_t n_now, size_t n, double alpha, double trim)
{
    double df = 2.0 * (double)kept(n, trim) - 2.0;
    return ompb__t_quantile(1.0 - alpha / 2.0, df) * se_now * sqrt((double)n_now / (double)n);
}

size_t ompb__units_needed(double se_now, size_t n_now, double half_width, double alpha,
                          double trim, size_t max)
{
    if (!(half_width > 0.0) || isnan(se_now) || n_now < 1)
        return max + 1;
    if (se_now <= 0.0)
        return 2;
    /* Where the trimming steps (a cut more every 1 / trim runs) can make a
     * larger n a little wider, scan; beyond, the width shrinks with n (the
     * t quantile hardly moves), so bisect. */
    size_t scan = max < LINEAR_SCAN ? max : LINEAR_SCAN;
    for (size_t n = 2; n <= scan; n++)
        if (half_width_at(se_now, n_now, n, alpha, trim) <= half_width)
            return n;
    if (scan == max || half_width_at(se_now, n_now, max, alpha, trim) > half_width)
        return max + 1;
    size_t lo = scan + 1, hi = max;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (half_width_at(se_now, n_now, mid, alpha, trim) <= half_width)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
