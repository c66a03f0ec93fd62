/* SPDX-License-Identifier: MIT */
/*
 * The Universal Scalability Law and Amdahl's law by Levenberg-Marquardt.
 * Least squares on the throughput itself, not on Gunther's linearised form
 * N / C(N) - 1 = sigma (N - 1) + kappa N (N - 1): that form needs the
 * throughput at N = 1 (a family may start at 2 threads), divides every
 * point by it (its noise enters every residual) and weighs the residuals
 * by N / C(N)^2; it only gives the starting values here. The bounds
 * sigma, kappa >= 0 are kept by fitting each face of the box (both free,
 * one fixed at 0, both at 0) and taking the feasible fit of least residual:
 * the constrained minimum of a smooth function lies in the interior of
 * exactly one face. Faces are tried from the fewest free parameters, and
 * one with more is taken only when it lowers the residual by more than
 * rounding: perfect scaling gives sigma = 0, not 1e-17.
 */
#include "analysis/usl.h"

#include <math.h>
#include <string.h>

#define MAX_ITER 500

typedef struct problem {
    const double *w, *x;
    size_t n;
    bool free[3]; /* gamma, sigma, kappa */
} problem;

static double denom(const double p[3], double n)
{
    return 1.0 + p[1] * (n - 1.0) + p[2] * n * (n - 1.0);
}

static double model(const double p[3], double n)
{
    return p[0] * n / denom(p, n);
}

/* d model / d (gamma, sigma, kappa) at width n. */
static void gradient(const double p[3], double n, double g[3])
{
    double d = denom(p, n);
    g[0] = n / d;
    g[1] = -p[0] * n * (n - 1.0) / (d * d);
    g[2] = -p[0] * n * n * (n - 1.0) / (d * d);
}

/* INFINITY when the model has a pole or sign change among the widths. */
static double rss_of(const problem *pb, const double p[3])
{
    double s = 0.0;
    for (size_t i = 0; i < pb->n; i++) {
        if (!(denom(p, pb->w[i]) > 0.0))
            return INFINITY;
        double r = pb->x[i] - model(p, pb->w[i]);
        s += r * r;
    }
    return isfinite(s) ? s : INFINITY;
}

/* Solves a[m][m] y = b in place (b becomes y) by Gauss-Jordan with partial
 * pivoting; -1 when singular. */
static int solve(double a[3][3], double b[3], int m)
{
    for (int c = 0; c < m; c++) {
        int piv = c;
        for (int r = c + 1; r < m; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (!(fabs(a[piv][c]) > 0.0))
            return -1;
        for (int k = 0; k < m; k++) {
            double t = a[c][k];
            a[c][k] = a[piv][k];
            a[piv][k] = t;
        }
        double t = b[c];
        b[c] = b[piv];
        b[piv] = t;
        for (int r = 0; r < m; r++) {
            if (r == c)
                continue;
            double f = a[r][c] / a[c][c];
            for (int k = 0; k < m; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = 0; c < m; c++)
        b[c] /= a[c][c];
    return 0;
}

/* J'J and J'r over the columns idx[0..m) at p. */
static void normal_equations(const problem *pb, const double p[3], const int *idx, int m,
                             double jtj[3][3], double jtr[3])
{
    memset(jtj, 0, 9 * sizeof jtj[0][0]);
    memset(jtr, 0, 3 * sizeof jtr[0]);
    for (size_t i = 0; i < pb->n; i++) {
        double g[3], r = pb->x[i] - model(p, pb->w[i]);
        gradient(p, pb->w[i], g);
        for (int a = 0; a < m; a++) {
            jtr[a] += g[idx[a]] * r;
            for (int b = 0; b < m; b++)
                jtj[a][b] += g[idx[a]] * g[idx[b]];
        }
    }
}

/* Levenberg-Marquardt over the free parameters from p; returns the rss. */
static double levenberg_marquardt(const problem *pb, double p[3])
{
    int idx[3], m = 0;
    for (int k = 0; k < 3; k++)
        if (pb->free[k])
            idx[m++] = k;
    double rss = rss_of(pb, p), lambda = 1e-3;
    for (int it = 0; it < MAX_ITER && isfinite(rss) && lambda < 1e16; it++) {
        double jtj[3][3], jtr[3], a[3][3], step[3], q[3];
        normal_equations(pb, p, idx, m, jtj, jtr);
        for (;;) {
            memcpy(a, jtj, sizeof a);
            memcpy(step, jtr, sizeof step);
            for (int k = 0; k < m; k++)
                a[k][k] += lambda * (jtj[k][k] > 0.0 ? jtj[k][k] : 1.0);
            memcpy(q, p, sizeof q);
            if (solve(a, step, m) == 0)
                for (int k = 0; k < m; k++)
                    q[idx[k]] += step[k];
            double next = rss_of(pb, q);
            if (next < rss) {
                bool done = rss - next <= 1e-15 * rss;
                memcpy(p, q, sizeof q);
                rss = next;
                lambda = fmax(lambda / 10.0, 1e-12);
                if (done)
                    return rss;
                break;
            }
            lambda *= 10.0;
            if (!(lambda < 1e16))
                return rss; /* no step lowers the rss: a minimum */
        }
    }
    return rss;
}

/* Starting values: gamma from the narrowest point as if it scaled
 * perfectly, then sigma and kappa from Gunther's linear form. */
static void start(const problem *pb, double p[3])
{
    size_t a = 0;
    for (size_t i = 1; i < pb->n; i++)
        if (pb->w[i] < pb->w[a])
            a = i;
    p[0] = pb->x[a] / pb->w[a];
    double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
    for (size_t i = 0; i < pb->n; i++) {
        double n = pb->w[i], y = n * p[0] / pb->x[i] - 1.0, u = n - 1.0, v = n * (n - 1.0);
        s11 += u * u, s12 += u * v, s22 += v * v, b1 += u * y, b2 += v * y;
    }
    double det = s11 * s22 - s12 * s12;
    p[1] = pb->free[1] && pb->free[2] && det > 0.0 ? (b1 * s22 - b2 * s12) / det
           : pb->free[1] && s11 > 0.0             ? b1 / s11 : 0.0;
    p[2] = pb->free[1] && pb->free[2] && det > 0.0 ? (s11 * b2 - s12 * b1) / det
           : pb->free[2] && s22 > 0.0             ? b2 / s22 : 0.0;
    p[1] = pb->free[1] ? fmax(p[1], 1e-6) : 0.0;
    p[2] = pb->free[2] ? fmax(p[2], 1e-9) : 0.0;
}

/* Standard errors from (J'J)^-1 rss / (n - params) with every parameter's
 * column, as R's nls/nlxb summaries give them. */
static void standard_errors(const problem *pb, ompb__usl_params *f)
{
    const int idx[3] = {0, 1, 2};
    int m = f->params;
    double p[3] = {f->gamma, f->sigma, f->kappa}, jtj[3][3], jtr[3], se[3] = {NAN, NAN, NAN};
    f->se_gamma = f->se_sigma = f->se_kappa = NAN;
    if (f->n <= (size_t)m)
        return;
    normal_equations(pb, p, idx, m, jtj, jtr);
    double s2 = f->rss / (double)(f->n - (size_t)m);
    for (int c = 0; c < m; c++) {
        double a[3][3], e[3] = {0, 0, 0};
        memcpy(a, jtj, sizeof a);
        e[c] = 1.0;
        if (solve(a, e, m) != 0)
            return;
        se[c] = e[c] >= 0.0 ? sqrt(e[c] * s2) : NAN;
    }
    f->se_gamma = se[0], f->se_sigma = se[1], f->se_kappa = se[2];
}

static bool usable(const double *width, const double *x, size_t n, int params)
{
    if (n < (size_t)params || n > OMPB__USL_MAX_POINTS)
        return false;
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(width[i] >= 1.0) || !isfinite(width[i]) || !(x[i] > 0.0) || !isfinite(x[i]))
            return false;
        bool seen = false;
        for (size_t k = 0; k < i; k++)
            seen |= width[k] == width[i];
        distinct += !seen;
    }
    return distinct >= (size_t)params;
}

int ompb__usl_fit(const double *width, const double *x, size_t n, bool amdahl,
                  ompb__usl_params *out)
{
    int params = amdahl ? 2 : 3;
    if (!usable(width, x, n, params))
        return -1;
    /* The faces of the box sigma, kappa >= 0: (0, 0), (free, 0), (0, free),
     * (free, free); Amdahl's kappa is 0 on every face. */
    static const bool faces[4][2] = {{false, false}, {true, false}, {false, true}, {true, true}};
    double best[3] = {NAN, NAN, NAN}, best_rss = INFINITY;
    for (int k = 0; k < 4; k++) {
        if (amdahl && faces[k][1])
            continue;
        problem pb = {width, x, n, {true, faces[k][0], faces[k][1]}};
        double p[3];
        start(&pb, p);
        double rss = levenberg_marquardt(&pb, p);
        if (p[1] >= 0.0 && p[2] >= 0.0 && p[0] > 0.0
            && (!isfinite(best_rss) || rss < best_rss * (1.0 - 1e-9))) {
            best_rss = rss;
            memcpy(best, p, sizeof best);
        }
    }
    if (!isfinite(best_rss))
        return -1;
    *out = (ompb__usl_params){best[0], best[1], best[2], NAN, NAN, NAN, best_rss, n, params};
    problem all = {width, x, n, {true, true, !amdahl}};
    standard_errors(&all, out);
    return 0;
}

double ompb__usl_value(const ompb__usl_params *f, double n)
{
    const double p[3] = {f->gamma, f->sigma, f->kappa};
    return denom(p, n) > 0.0 ? model(p, n) : NAN;
}

double ompb__usl_peak_width(const ompb__usl_params *f)
{
    if (!(f->sigma < 1.0))
        return NAN;
    return f->kappa > 0.0 ? sqrt((1.0 - f->sigma) / f->kappa) : INFINITY;
}

double ompb__karp_flatt(double n0, double n, double ratio)
{
    /* ratio n0 (1 + e (n - 1)) = n (1 + e (n0 - 1)), solved for e. */
    double d = ratio * n0 * (n - 1.0) - n * (n0 - 1.0);
    if (n == n0 || !(ratio > 0.0) || d == 0.0)
        return NAN;
    return (n - ratio * n0) / d;
}
