/* SPDX-License-Identifier: MIT */
/*
 * The models of a scaling family (analysis/scaling.h, ompb__scaling_model):
 * the USL and Amdahl's law fitted (analysis/usl.c) to the throughput of its
 * real points, and the Karp-Flatt metric per point. Intervals come from
 * the run-to-run spread, not from the rounds of one run (which are not
 * independent samples of the benchmark, docs/methodology.md): each
 * resample draws every point's runs with replacement, takes their median
 * and refits; the 2.5% and 97.5% quantiles of the refits bound the value.
 * With a single run at some point there is nothing to resample, and sigma
 * and kappa get the fit's own standard errors instead (when the fit has
 * residual degrees of freedom). The generator is seeded per family, so a
 * report is the same every time it is made.
 */
#include "analysis/scaling.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "report/report.h"
#include "analysis/welch.h"
#include "core/core.h"

/* In this file, not scaling.c, which calls the models: files may not call
 * each other (boundary.include_rule). */
bool ompb__scaling_point_not_real(const ompb__scaling_point *pt)
{
    return (pt->marks & OMPB__MARK_OVERSUB) != 0;
}

/* What one fit of the real points gives (the estimate, or a resample). */
typedef struct fitted {
    ompb__usl_params usl, amdahl;
    bool has_usl, has_amdahl;
    double peak_width, peak_speedup, serial;
} fitted;

/* The throughput of point i from a value of it (its median, or a
 * resample's): the speedup against the base, scaled under weak scaling. */
static double throughput(const ompb__scaling_family *f, size_t i, double value)
{
    const ompb__scaling_point *p = &f->points[i];
    return (double)p->threads * p->ideal_ns / ((double)f->points[0].threads * value);
}

static void fit_points(const double *w, const double *x, size_t n, fitted *out)
{
    memset(out, 0, sizeof *out);
    out->peak_width = out->peak_speedup = out->serial = NAN;
    out->has_amdahl = ompb__usl_fit(w, x, n, true, &out->amdahl) == 0;
    if (out->has_amdahl)
        out->serial = out->amdahl.sigma;
    out->has_usl = ompb__usl_fit(w, x, n, false, &out->usl) == 0;
    if (out->has_usl) {
        out->peak_width = ompb__usl_peak_width(&out->usl);
        out->peak_speedup = isfinite(out->peak_width)
                                ? ompb__usl_value(&out->usl, out->peak_width) : NAN;
    }
}

/* splitmix64: small, seedable, good enough to pick runs. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t seed_of(const char *name)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ *c) * 1099511628211u;
    return h;
}

double ompb__scaling_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, ompb__cmp_double);
    return ompb__quantile_sorted(v, n, 0.5);
}

/* The median of n values drawn with replacement from v[0..n) (tmp: n). */
static double resampled_median(const double *v, size_t n, double *tmp, uint64_t *state)
{
    for (size_t k = 0; k < n; k++)
        tmp[k] = v[next_random(state) % n];
    return ompb__scaling_median(tmp, n);
}

/* The 95% percentile interval of v[0..n) (sorted here; NAN ignored). */
static void percentile_interval(double *v, size_t n, double *lo, double *hi)
{
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (!isnan(v[k]))
            v[m++] = v[k];
    *lo = *hi = NAN;
    if (m < n / 2 + 1)
        return; /* most resamples could not be fitted: no interval */
    qsort(v, m, sizeof *v, ompb__cmp_double);
    *lo = ompb__quantile_sorted(v, m, 0.025);
    *hi = ompb__quantile_sorted(v, m, 0.975);
}

/* The family's real points: their indices, widths and throughputs. */
static size_t real_points(const ompb__scaling_family *f, size_t *idx, double *w, double *x)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *p = &f->points[i];
        if (ompb__scaling_point_not_real(p) || !(p->median_ns > 0.0))
            continue;
        idx[n] = i;
        w[n] = (double)p->threads;
        x[n++] = throughput(f, i, p->median_ns);
    }
    return n;
}

/* Karp-Flatt of each real point against a real base, from throughputs. */
static void karp_flatt_all(const ompb__scaling_family *f, const size_t *idx, const double *x,
                           size_t n, double *kf)
{
    bool base_real = n > 0 && idx[0] == 0;
    for (size_t k = 0; k < n; k++)
        kf[k] = base_real && k > 0 ? ompb__karp_flatt((double)f->points[0].threads,
                                                      (double)f->points[idx[k]].threads,
                                                      x[k] / x[0])
                                   : NAN;
}

enum { EST_SIGMA, EST_KAPPA, EST_PEAK_WIDTH, EST_PEAK_SPEEDUP, EST_SERIAL, EST_COUNT };

/* Resamples the runs of every point; fills the estimates' and the
 * Karp-Flatt intervals. */
static int bootstrap(ompb__scaling_family *f, const size_t *idx, const double *w, size_t n)
{
    size_t most = 1, B = OMPB__SCALING_RESAMPLES;
    for (size_t k = 0; k < n; k++)
        most = f->points[idx[k]].runs > most ? f->points[idx[k]].runs : most;
    double *draws = malloc((EST_COUNT + n) * B * sizeof *draws);
    double *x = malloc((2 * n + most) * sizeof *x);
    if (!draws || !x) {
        free(draws);
        free(x);
        return OMPB_ENOMEM;
    }
    double *kf = x + n, *tmp = x + 2 * n;
    uint64_t state = seed_of(f->name);
    for (size_t b = 0; b < B; b++) {
        for (size_t k = 0; k < n; k++) {
            const ompb__scaling_point *p = &f->points[idx[k]];
            x[k] = throughput(f, idx[k], resampled_median(p->run_values, p->runs, tmp, &state));
        }
        fitted r;
        fit_points(w, x, n, &r);
        karp_flatt_all(f, idx, x, n, kf);
        double est[EST_COUNT] = {r.has_usl ? r.usl.sigma : NAN, r.has_usl ? r.usl.kappa : NAN,
                                 r.has_usl ? r.peak_width : NAN, r.peak_speedup, r.serial};
        for (size_t e = 0; e < EST_COUNT; e++)
            draws[e * B + b] = est[e];
        for (size_t k = 0; k < n; k++)
            draws[(EST_COUNT + k) * B + b] = kf[k];
    }
    ompb__scaling_model *m = &f->model;
    ompb__scaling_estimate *est[EST_COUNT] = {&m->sigma, &m->kappa, &m->peak_width,
                                              &m->peak_speedup, &m->serial};
    for (size_t e = 0; e < EST_COUNT; e++)
        if (!isnan(est[e]->value))
            percentile_interval(draws + e * B, B, &est[e]->lo, &est[e]->hi);
    for (size_t k = 0; k < n; k++) {
        ompb__scaling_point *p = &f->points[idx[k]];
        if (!isnan(p->karp_flatt))
            percentile_interval(draws + (EST_COUNT + k) * B, B, &p->karp_flatt_lo,
                                &p->karp_flatt_hi);
    }
    m->interval = OMPB__SCALING_INTERVAL_BOOTSTRAP;
    m->resamples = B;
    free(draws);
    free(x);
    return 0;
}

/* sigma and kappa +- t(0.975, n - p) standard errors, kept >= 0. */
static void fit_intervals(ompb__scaling_model *m)
{
    const ompb__usl_params *u = &m->usl_fit;
    if (!m->usl || isnan(u->se_sigma) || isnan(u->se_kappa))
        return;
    double t = ompb__t_quantile(0.975, (double)(u->n - (size_t)u->params));
    m->sigma.lo = fmax(0.0, u->sigma - t * u->se_sigma);
    m->sigma.hi = u->sigma + t * u->se_sigma;
    m->kappa.lo = fmax(0.0, u->kappa - t * u->se_kappa);
    m->kappa.hi = u->kappa + t * u->se_kappa;
    m->interval = OMPB__SCALING_INTERVAL_FIT;
}

static ompb__scaling_estimate estimate(double v)
{
    return (ompb__scaling_estimate){v, NAN, NAN};
}

/* Why the family cannot have a model, or NULL. */
static const char *no_model(const ompb__scaling_family *f)
{
    if (f->metric)
        return "the values are a --metric, not times";
    if (f->mixed)
        return "the declared work grows with some widths only";
    return NULL;
}

int ompb__scaling_fit_models(ompb__scaling_family *f)
{
    ompb__scaling_model *m = &f->model;
    memset(m, 0, sizeof *m);
    m->sigma = m->kappa = m->peak_width = m->peak_speedup = m->serial = estimate(NAN);
    for (size_t i = 0; i < f->n; i++) {
        f->points[i].karp_flatt = f->points[i].karp_flatt_lo = f->points[i].karp_flatt_hi = NAN;
        m->left_out += ompb__scaling_point_not_real(&f->points[i]);
    }
    if ((m->none = no_model(f)) != NULL)
        return 0;
    size_t *idx = malloc(f->n * (sizeof *idx + 3 * sizeof(double)));
    if (!idx)
        return OMPB_ENOMEM;
    double *w = (double *)(idx + f->n), *x = w + f->n, *kf = x + f->n;
    size_t n = real_points(f, idx, w, x);
    fitted r;
    fit_points(w, x, n, &r);
    if (!r.has_amdahl) {
        m->none = "fewer than 2 real widths";
        free(idx);
        return 0;
    }
    m->fitted = n;
    m->min_width = (int)w[0];
    m->max_width = (int)w[n - 1];
    m->amdahl = true;
    m->amdahl_fit = r.amdahl;
    m->serial = estimate(r.serial);
    if ((m->usl = r.has_usl)) {
        m->usl_fit = r.usl;
        m->sigma = estimate(r.usl.sigma);
        m->kappa = estimate(r.usl.kappa);
        m->peak_width = estimate(r.peak_width);
        m->peak_speedup = estimate(r.peak_speedup);
    }
    karp_flatt_all(f, idx, x, n, kf);
    bool resample = true;
    for (size_t k = 0; k < n; k++) {
        f->points[idx[k]].karp_flatt = kf[k];
        resample &= f->points[idx[k]].runs >= 2 && f->points[idx[k]].run_values != NULL;
    }
    int rc = 0;
    if (resample)
        rc = bootstrap(f, idx, w, n);
    else
        fit_intervals(m);
    free(idx);
    return rc;
}

double ompb__scaling_model_speedup(const ompb__scaling_family *f, bool usl, double n)
{
    const ompb__scaling_model *m = &f->model;
    if (usl ? !m->usl : !m->amdahl)
        return NAN;
    return ompb__usl_value(usl ? &m->usl_fit : &m->amdahl_fit, n);
}

double ompb__scaling_model_time(const ompb__scaling_family *f, bool usl, double n)
{
    double work = f->weak ? n / (double)f->points[0].threads : 1.0;
    return f->points[0].median_ns * work / ompb__scaling_model_speedup(f, usl, n);
}

double ompb__scaling_model_efficiency(const ompb__scaling_family *f, bool usl, double n)
{
    return ompb__scaling_model_speedup(f, usl, n) * (double)f->points[0].threads / n;
}
