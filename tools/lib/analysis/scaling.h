/* SPDX-License-Identifier: MIT */
/*
 * Strong scaling (`ompbench scaling RESULT.json...`): the instances of one
 * benchmark measured at several thread counts form a family; each thread
 * count gets its median time, the speedup and parallel efficiency against
 * the family's smallest thread count, and the mean imbalance. Several files
 * are merged (one per MPI job, one per rank count: a family then scales
 * over ranks x threads). Reports as a table (console, markdown, JSON) and
 * as a standalone SVG plot.
 */
#ifndef OMPB_ANALYSIS_SCALING_H
#define OMPB_ANALYSIS_SCALING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/metric.h"
#include "analysis/resultfile.h"
#include "analysis/units.h"
#include "analysis/usl.h"

typedef struct ompb__scaling_point {
    int threads;            /* the width: ranks x threads_per_rank for a
                               distributed run's point */
    double median_ns;       /* median per-iteration time (or the --metric's value) */
    /* Time: median at the smallest thread count / median_ns, and speedup *
     * smallest thread count / threads. A --metric (a count summed over the
     * team, whose ideal is the same at every width): the ratio value / base
     * value, and the work efficiency base value / value. */
    double speedup;
    double efficiency;
    double imbalance;       /* mean max busy / mean busy; NAN when unknown */
    int ranks;              /* R of "name[r=R, t=T]"; 0: not a distributed run */
    int threads_per_rank;   /* T: the instance's own thread count */
    unsigned marks;         /* the instance's marks (report/marks.h); an
                               oversubscribed point (or one against an
                               oversubscribed base) has no speedup or
                               efficiency (NAN): its time is not the code's
                               scaling */
    double lo_ns, hi_ns;    /* run-to-run range: the smallest and largest
                               value over the point's runs (its repetitions
                               and the same point in later files); the
                               median with one run */
    size_t runs;            /* values behind lo_ns..hi_ns */
    double work;            /* declared team items (else bytes) per
                               iteration, summed over the ranks; NAN when
                               not declared */
    double ideal_ns;        /* the ideal time at this point: the base time
                               x (work / base work) x (base width / width);
                               the work ratio is 1 for strong scaling, the
                               width ratio for weak scaling, and the
                               declared one when inferred. Efficiency is
                               ideal_ns / median_ns. */
    double *run_values;     /* the values behind lo_ns..hi_ns [runs] (the
                               models' bootstrap resamples them); NULL: none
                               kept (freed with the family) */
    double karp_flatt;      /* the Karp-Flatt serial fraction against the
                               base (scaling_model.c); NAN for the base, a
                               point that is not real, or no model */
    double karp_flatt_lo, karp_flatt_hi; /* its interval; NAN: none */
    bool clean;             /* every run's value is the median of its clean
                               rounds (an accounted file: every repetition
                               has OMPB__CLEAN_MIN_ROUNDS of them, as
                               compare reads them); else of all its rounds */
} ompb__scaling_point;

/* A fitted value with its 95% interval (lo, hi NAN: no interval; hi may be
 * INFINITY: a peak width when some resamples had no peak). */
typedef struct ompb__scaling_estimate {
    double value, lo, hi;
} ompb__scaling_estimate;

/* Where a model's intervals come from. */
typedef enum ompb__scaling_interval {
    OMPB__SCALING_INTERVAL_NONE,      /* one run per point and no residual
                                         degrees of freedom */
    OMPB__SCALING_INTERVAL_BOOTSTRAP, /* percentiles over resampled runs:
                                         every fitted point has >= 2 runs */
    OMPB__SCALING_INTERVAL_FIT        /* the fit's standard errors x
                                         t(0.975, n - p): one run at some
                                         point; sigma and kappa only */
} ompb__scaling_interval;

/*
 * Models of a family's throughput X(N) = N x ideal(N) / (N0 x time(N)),
 * the speedup against the base (1 at the base, scaled by the width under
 * weak scaling), fitted on the real points only (scaling_model.c):
 * the Universal Scalability Law from at least 3 widths, Amdahl's law (its
 * kappa = 0, sigma the serial fraction) from at least 2, the Karp-Flatt
 * metric per point (ompb__scaling_point.karp_flatt).
 */
typedef struct ompb__scaling_model {
    const char *none;       /* NULL, or why the family has no model */
    bool usl, amdahl;       /* which were fitted */
    ompb__usl_params usl_fit, amdahl_fit; /* the point estimates (curves) */
    ompb__scaling_estimate sigma, kappa; /* USL contention and coherency */
    ompb__scaling_estimate peak_width;   /* USL: the width of peak throughput
                                            (INFINITY: kappa = 0, no peak) */
    ompb__scaling_estimate peak_speedup; /* USL: X at the peak width, against
                                            the base; NAN without a peak */
    ompb__scaling_estimate serial;       /* Amdahl's serial fraction */
    ompb__scaling_interval interval;
    size_t resamples;       /* bootstrap resamples (0: not bootstrapped) */
    size_t fitted;          /* points fitted */
    size_t left_out;        /* real-less (oversubscribed) points not fitted */
    int min_width, max_width; /* the widths fitted on */
} ompb__scaling_model;

/* Why a family is judged against strong or weak scaling. */
typedef enum ompb__scaling_basis {
    OMPB__SCALING_ASSUMED,  /* nothing declared: strong */
    OMPB__SCALING_DECLARED, /* the benchmark's .scaling (ompbench.scaling) */
    OMPB__SCALING_INFERRED  /* from the declared items/bytes per iteration */
} ompb__scaling_basis;

typedef struct ompb__scaling_family {
    char *name;             /* instance name without its thread count part */
    const char *metric;     /* NULL: time; else the counter (ompb__scaling_set_metric) */
    ompb__metric_unit unit;
    ompb__scaling_point *points; /* ascending width (then ranks), at least two */
    size_t n, cap;
    bool ranked;            /* some point has ranks: R and T are shown apart */
    unsigned marks;         /* union of the points' marks */
    bool weak;              /* weak scaling: the work grows with the width,
                               the ideal time is the base time at every
                               width, efficiency = base time / time */
    bool mixed;             /* inferred: the declared work grows with some
                               widths and not others (an MPI run whose
                               ranks each bring work and whose threads
                               share it): each point's ideal follows its
                               declared work */
    ompb__scaling_basis basis;
    ompb__scaling_model model; /* fitted when the family is built */
    int usable_pus;         /* the usable PUs of the file the base came
                               from (context.ompbench.topology); 0: unknown.
                               Not drawn for a ranked family: that count is
                               one rank's */
} ompb__scaling_family;

typedef struct ompb__scaling {
    ompb__scaling_family *families; /* in order of first appearance */
    size_t n, cap;
    size_t single;          /* benchmarks measured at one thread count only */
    size_t duplicates;      /* points found again in a later entry or file
                               (same family, ranks and width): the first stands */
    unsigned marks;         /* union over the families, for the legend */
} ompb__scaling;

/* Whether a point's time is no measure of the code's scaling: threads took
 * turns on the PUs (oversubscribed). */
bool ompb__scaling_point_not_real(const ompb__scaling_point *pt);

/*
 * The family name of an instance name, malloc'd (the caller frees it): the
 * thread part is dropped from "name[arg, t=N]" -> "name[arg]", "name[t=N]" ->
 * "name" and Google Benchmark's "name/threads:N" -> "name"; a distributed
 * run's "name[a, r=2, t=4]" -> "name[a]" (its points' width is then ranks x
 * threads); other names are copied. NULL on ENOMEM.
 */
char *ompb__scaling_family_name(const char *instance_name);

/* Point i of a family from its medians (speedup, efficiency filled in;
 * NAN when pt or base is not real). Exposed for tests: base is the point at
 * the smallest thread count. */
void ompb__scaling_point_fill(ompb__scaling_point *pt, const ompb__scaling_point *base);
/* The same under weak scaling: efficiency base time / time, speedup (the
 * scaled speedup) efficiency x width / base width. */
void ompb__scaling_point_fill_weak(ompb__scaling_point *pt, const ompb__scaling_point *base);

/* Weak when the declared work per iteration at the widest real point is at
 * least OMPB__SCALING_WEAK_FRACTION of base work x width / base width. */
#define OMPB__SCALING_WEAK_FRACTION 0.75
bool ompb__scaling_infer_weak(const ompb__scaling_family *f);
/* "strong scaling (assumed)", "weak scaling (declared)"... for charts. */
const char *ompb__scaling_kind_text(const ompb__scaling_family *f);

/*
 * Groups the successful instances (a point found again in a later file or
 * entry widens the point's run-to-run range; its first value stands) with a known thread count of rfs[0..n)
 * (in that order) into families; only families with two or more points are
 * kept. A point is a (ranks, width) pair: "halo[r=2, t=1]" and
 * "halo[t=2]" are two points of width 2. Returns 0 or OMPB_ENOMEM; on
 * success release out with ompb__scaling_free.
 */
int ompb__scaling_build_files(const ompb__resultfile *rfs, size_t n, ompb__scaling *out);
/* The same for one file. */
int ompb__scaling_build(const ompb__resultfile *rf, ompb__scaling *out);

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
double ompb__scaling_median(double *v, size_t n);

/* Fits f's models (f->model, each point's karp_flatt) from its points,
 * which ompb__scaling_build filled; called by it. A family of a --metric,
 * or whose declared work grows with some widths only, gets none (its
 * model.none says why). Returns 0 or OMPB_ENOMEM. */
#define OMPB__SCALING_RESAMPLES 1000
int ompb__scaling_fit_models(ompb__scaling_family *f);
/* The fitted model's speedup against the base at width n (usl: the USL,
 * else Amdahl's law); time per iteration (the base time x (n / n0 under
 * weak scaling) / speedup); efficiency (speedup x n0 / n). NAN when that
 * model was not fitted. */
double ompb__scaling_model_speedup(const ompb__scaling_family *f, bool usl, double n);
double ompb__scaling_model_time(const ompb__scaling_family *f, bool usl, double n);
double ompb__scaling_model_efficiency(const ompb__scaling_family *f, bool usl, double n);

/* The families' values are metric's (a counter of --counters, per iteration
 * summed over the team, loaded with analysis/metric.h), not times: the
 * ratios become value / base and base / value, and every rendering names
 * the metric. NULL or "time" leaves s as it is. */
void ompb__scaling_set_metric(ompb__scaling *s, const char *metric, ompb__metric_unit unit);
void ompb__scaling_free(ompb__scaling *s);

/* The table, one block per family; a family with marked points gets a
 * marks column, and a legend of the marks that appear follows the tables.
 * Returns 0, OMPB_ENOMEM or OMPB_EIO. */
int ompb__scaling_print(FILE *out, const ompb__scaling *s, ompb__report_format fmt);

/* The fitted models of f as lines of plain text (no user string: family
 * names are not printed), each between lead and tail ("- " for markdown,
 * "<li>" and "</li>" for HTML): the widths fitted on and where the
 * intervals come from, Amdahl, the USL with its predicted peak, Karp-Flatt
 * per width, the points left out; or why there is no model. */
void ompb__scaling_print_model(FILE *out, const ompb__scaling_family *f, const char *lead,
                               const char *tail);

/*
 * The strong-scaling plot as a standalone SVG document: per family, median
 * time against threads (log-log) with the ideal line t0 * T0 / T, and
 * parallel efficiency against threads with the ideal 100% line. Series are
 * polylines with ids "f<i>-time-measured", "f<i>-time-ideal",
 * "f<i>-efficiency-measured", "f<i>-efficiency-ideal". Axes are bounded
 * whatever the data: the time axis to OMPB__SVG_TIME_MARGIN_DECADES around
 * the ideal line, the efficiency axis to OMPB__SVG_EFFICIENCY_MAX; a point
 * beyond is drawn on the edge as a triangle of class "off-axis" whose title
 * gives its value. A marked point is drawn in another colour (class
 * "marked", its title lists the marks); an oversubscribed one is a hollow
 * circle (class "oversubscribed"), left out of the measured time line and
 * absent from the efficiency panel (it has no efficiency). At most about ten
 * ticks per axis, on a 1-2-5 step.
 * Control characters in names (which XML 1.0 forbids even as references)
 * are written as '?'. Returns 0 or OMPB_EIO.
 */
#define OMPB__SVG_TIME_MARGIN_DECADES 3.0
#define OMPB__SVG_EFFICIENCY_MAX 2.0
int ompb__scaling_svg(FILE *out, const ompb__scaling *s);
/* The same <svg> element without the XML declaration, for embedding in an
 * HTML page (id: its id attribute, and then no xmlns, which HTML implies;
 * NULL: a standalone document's element). Under weak scaling the ideal
 * time is flat; a ranked family has one series per rank count (ids
 * "f<i>-time-measured-r<R>"), each with its own shape; points with several
 * runs get an error bar (class "errorbar": their run-to-run range); the
 * usable PU count is a line of class "usable-pus"; each panel's legend is a
 * <g class="legend"> whose first child, a rect of class "legend-box",
 * bounds it, below the panel's axis titles. */
int ompb__scaling_svg_element(FILE *out, const ompb__scaling *s, const char *id);

#endif
