/* SPDX-License-Identifier: MIT */
/*
 * Scaling laws fitted to throughput against width: Gunther's Universal
 * Scalability Law X(N) = gamma N / (1 + sigma (N - 1) + kappa N (N - 1))
 * and Amdahl's law, the same with kappa = 0 (sigma is then the serial
 * fraction), by nonlinear least squares on X (Levenberg-Marquardt) with
 * sigma, kappa >= 0 as the R usl package does; and the Karp-Flatt metric.
 * Pure arithmetic: no allocation, no I/O.
 */
#ifndef OMPB_ANALYSIS_USL_H
#define OMPB_ANALYSIS_USL_H

#include <stdbool.h>
#include <stddef.h>

/* The most points a fit takes (a family's widths); more is refused. */
#define OMPB__USL_MAX_POINTS 256

typedef struct ompb__usl_params {
    double gamma, sigma, kappa; /* kappa is 0 for Amdahl */
    double se_gamma, se_sigma, se_kappa; /* standard errors from the fit's
                                            residuals (J'J)^-1 rss / (n - p),
                                            every parameter's column kept
                                            even at a bound; NAN when
                                            n <= p or J'J is singular */
    double rss;              /* residual sum of squares */
    size_t n;                /* points fitted */
    int params;              /* 3 (USL) or 2 (Amdahl) */
} ompb__usl_params;

/*
 * Fits width[i] -> x[i] (i < n; x the throughput, in any unit: gamma
 * carries it) with sigma, kappa >= 0; amdahl fixes kappa = 0. Needs at
 * least 3 points (2 for Amdahl), positive finite widths and values, and
 * at least 2 (Amdahl) or 3 distinct widths. Returns 0, or -1 when the
 * points cannot be fitted (out untouched then).
 */
int ompb__usl_fit(const double *width, const double *x, size_t n, bool amdahl,
                  ompb__usl_params *out);

/* The model's throughput at width n. */
double ompb__usl_value(const ompb__usl_params *f, double n);

/* The width of peak throughput, sqrt((1 - sigma) / kappa); INFINITY when
 * kappa is 0 (throughput then only approaches gamma / sigma), NAN when
 * sigma >= 1. */
double ompb__usl_peak_width(const ompb__usl_params *f);

/*
 * The Karp-Flatt metric (experimentally determined serial fraction) of
 * width n against base width n0 (n0 = 1: the textbook
 * (1/S - 1/n) / (1 - 1/n)), from ratio = throughput(n) / throughput(n0):
 * the serial fraction e for which Amdahl's law gives exactly that ratio.
 * NAN when n == n0 or the ratio is not positive.
 */
double ompb__karp_flatt(double n0, double n, double ratio);

#endif
