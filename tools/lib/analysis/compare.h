/* SPDX-License-Identifier: MIT */
/*
 * Comparing two result files (`ompbench compare BASE HEAD`): instances are
 * matched by name and each gets a verdict. A change counts only when it is
 * larger than the threshold AND a two-sided Mann-Whitney U test on the
 * per-iteration round times rejects equality at alpha; without raw samples
 * (plain Google Benchmark JSON: one run, or aggregates only) the threshold
 * alone decides, and with too few samples for the test to be trusted, the
 * verdict says so.
 */
#ifndef OMPB_ANALYSIS_COMPARE_H
#define OMPB_ANALYSIS_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/metric.h"
#include "analysis/resultfile.h"
#include "analysis/units.h"

#define OMPB__COMPARE_DEFAULT_THRESHOLD 0.05
#define OMPB__COMPARE_DEFAULT_ALPHA 0.05

/* Rounds each side needs before the U test may decide: with fewer, one
 * extreme round can make the test "significant" (1 round against 40 reaches
 * p = 2/41 = 0.049), so the verdict is "too few samples" instead. */
#define OMPB__COMPARE_MIN_SAMPLES 5

/* In the order regressions-first reports list them. */
typedef enum ompb__verdict {
    OMPB__VERDICT_REGRESSED,
    OMPB__VERDICT_FAILED,       /* failed in HEAD (whatever BASE did) */
    OMPB__VERDICT_IMPROVED,
    OMPB__VERDICT_TOO_FEW,      /* beyond the threshold, but too few samples */
    OMPB__VERDICT_UNTOUCHED,
    OMPB__VERDICT_NEW,          /* only in HEAD, or failed in BASE only */
    OMPB__VERDICT_MISSING,      /* only in BASE (failed there or not) */
    OMPB__VERDICT_COUNT
} ompb__verdict;

/* How the verdict of a pair was reached. */
typedef enum ompb__basis {
    OMPB__BASIS_NONE,           /* presence alone: new, missing, failed, or a
                                   BASE time of 0 (no change to judge) */
    OMPB__BASIS_U_TEST,         /* threshold and U test */
    OMPB__BASIS_THRESHOLD,      /* a side has no samples: threshold only */
    OMPB__BASIS_TOO_FEW         /* fewer than OMPB__COMPARE_MIN_SAMPLES on a
                                   side, or too few for the U test to reject */
} ompb__basis;

typedef struct ompb__compare_opts {
    double threshold;           /* fraction: 0.05 is 5% */
    double alpha;               /* significance level of the U test, in (0, 1) */
} ompb__compare_opts;

typedef struct ompb__compare_row {
    const ompb__rf_instance *base, *head;   /* borrowed; either may be NULL */
    const char *name;                       /* borrowed from base or head */
    double base_ns, head_ns;    /* median per-iteration times (or the --metric's
                                   values); NAN when absent */
    double change;              /* head / base - 1; NAN unless both present
                                   and base_ns > 0 */
    double p;                   /* two-sided U-test p-value; NAN when not run */
    ompb__verdict verdict;
    ompb__basis basis;
} ompb__compare_row;

/* A growing list of malloc'd lines. */
typedef struct ompb__lines {
    char **v;
    size_t n, cap;
} ompb__lines;

typedef struct ompb__comparison {
    const char *base_path, *head_path;      /* borrowed */
    ompb__compare_opts opts;
    ompb__compare_row *rows;    /* BASE order, then instances new in HEAD */
    size_t n;
    size_t counts[OMPB__VERDICT_COUNT];
    size_t threshold_only;      /* rows decided without samples */
    double geomean_change;      /* exp(mean log(head/base)) - 1 over the pairs
                                   with both times > 0; NAN if there is none */
    size_t geomean_excluded;    /* pairs left out of it for a time of 0 */
    ompb__lines env_diffs;      /* "host_name: \"a\" vs \"b\"", one per difference */
    /* --metric: NULL for time, else the counter whose values the result
     * files hold (analysis/metric.h); unit formats the values. Set by the
     * caller after ompb__compare_runs (zero: time in ns). */
    const char *metric;
    ompb__metric_unit unit;
} ompb__comparison;

/*
 * Compares head against base into *out. The comparison borrows from both
 * result files, which must outlive it; release it with
 * ompb__comparison_free. Returns 0 or OMPB_ENOMEM.
 */
int ompb__compare_runs(const ompb__resultfile *base, const ompb__resultfile *head,
                       const ompb__compare_opts *opts, ompb__comparison *out);
void ompb__comparison_free(ompb__comparison *cmp);

/*
 * Differences between two runtime environments that make timings hard to
 * compare: host, CPU and topology, OpenMP runtime, the OMP_, GOMP_ and KMP_
 * settings, pinning policy (from the "context" objects; a field only one side
 * has is unknown, not different, except in the "environment" object, which
 * lists every variable set, so a missing one is unset) and instances of the
 * same name measured at different thread counts (a benchmark added or
 * dropped at some thread count is not one). Appends malloc'd lines to
 * *diffs; the caller frees each line and diffs->v.
 * Returns 0 or OMPB_ENOMEM.
 */
int ompb__compare_environments(const ompb__resultfile *base, const ompb__resultfile *head,
                               ompb__lines *diffs);

/* Writes the report (analysis/compare_report.c): console and markdown list
 * regressions first, then improvements, each by size of the change; JSON
 * keeps the rows in comparison order. Returns 0 or OMPB_EIO. */
int ompb__compare_print(FILE *out, const ompb__comparison *cmp, ompb__report_format fmt);

/* "improved", "regressed", "too few samples", ... and the JSON keys
 * ("too_few_samples"). Static strings. */
const char *ompb__verdict_name(ompb__verdict v);
const char *ompb__verdict_key(ompb__verdict v);

#endif
