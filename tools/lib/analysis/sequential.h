/* SPDX-License-Identifier: MIT */
/*
 * Sequential comparison (`ompbench ab`): an instance is looked at after 3,
 * 4, 5, 7, 9, ... runs per side, and stops being run once it is decided.
 * Looking at the data after every run and stopping when it looks decided
 * inflates false claims (optional stopping): a test at alpha repeated at
 * nine looks flags an unchanged benchmark at several times alpha. So the
 * looks are planned in advance, a bounded number of them up to --max-runs,
 * and alpha is spent across them with Lan and DeMets' Pocock-type spending
 * function alpha * ln(1 + (e - 1) t), t = runs / max runs; look k tests at
 * level gamma_k, the increment of that function, and the levels add up to
 * alpha. By the union bound over the looks, the chance that any look's
 * (1 - gamma_k) interval misses the true change is at most alpha, whatever
 * the stopping rule: the intervals form a (1 - alpha) confidence sequence.
 * The report shows the latest look's interval (a flagged instance's: the
 * look that gave its p-value), which always holds the change it reports
 * beside it. Per instance the
 * sequential p-value of "the change is within the threshold" is the
 * smallest p_k alpha / gamma_k over the looks taken (a valid p-value by the
 * same bound); Benjamini-Hochberg over the instances then decides the
 * regressed/improved claims, as in `ompbench compare`. An interval within
 * the threshold at a look is "untouched". docs/methodology.md has the
 * sources and the simulation (tests/test_sequential.c) that checks it.
 * Everything here is a pure function of numbers.
 */
#ifndef OMPB_ANALYSIS_SEQUENTIAL_H
#define OMPB_ANALYSIS_SEQUENTIAL_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/welch.h"

#define OMPB__SEQ_DEFAULT_MIN_RUNS 3
#define OMPB__SEQ_DEFAULT_MAX_RUNS 100
/* Most runs per side a plan may ask for (and most looks it may hold). */
#define OMPB__SEQ_MAX_RUNS 1000
#define OMPB__SEQ_MAX_LOOKS 64

/* The looks, fixed before the first run: runs[k] runs per side at look k
 * (ascending, the last is max), level[k] the share of alpha it spends. */
typedef struct ompb__seq_plan {
    double alpha;
    double lower, upper;    /* the threshold's bounds on the log scale */
    size_t n_looks;
    size_t runs[OMPB__SEQ_MAX_LOOKS];
    double level[OMPB__SEQ_MAX_LOOKS];
    double quant[OMPB__SEQ_MAX_LOOKS]; /* t(1 - level / 2) at the degrees of
                                   freedom of runs[k] a side after trimming */
    bool futility;              /* stop instances no look could decide (on) */
} ompb__seq_plan;

/*
 * Plans looks from min_runs (2 or more) to max_runs (at least min_runs, at
 * most OMPB__SEQ_MAX_RUNS) per side, each about 1.25 times the runs of the
 * one before, for a comparison at alpha in (0, 1) and threshold >= 0 (a
 * fraction). Returns 0, or OMPB_EINVAL for values outside those ranges.
 */
int ompb__seq_plan_init(ompb__seq_plan *plan, size_t min_runs, size_t max_runs, double alpha,
                        double threshold);

/* What one instance's looks established so far. */
typedef struct ompb__seq_state {
    size_t looks;           /* looks taken; the next is plan->runs[looks] */
    double p;               /* sequential p of |change| <= threshold: min
                               over the looks of p_k alpha / gamma_k, at
                               most 1; NAN before the first look */
    bool within;            /* a look's interval lay within the threshold */
    bool futile;            /* at the spread seen, not even the last look
                               would likely decide it: not worth more runs */
    size_t p_look;          /* the look (1, 2, ...) that gave p; 0: none */
    double low, high;       /* the latest look's interval (log scale);
                               -inf/+inf before the first */
    double p_low, p_high;   /* the interval of look p_look */
    double diff, se;        /* the latest look's Welch figures */
    size_t n;               /* runs per side at the latest look */
} ompb__seq_state;

void ompb__seq_state_init(ompb__seq_state *s);

/* The summary ompb__summarize_trimmed(v, n, trim) gives, rebuilt from
 * what a compare row keeps of a side: the geometric mean of its runs
 * (exp of the trimmed mean of their logs), its spread (the winsorized
 * standard deviation) and n, its count of runs. */
ompb__sample_summary ompb__seq_side_summary(double geomean, double spread, size_t n, double trim);

/* Whether an instance whose smaller side has runs_now runs is due for its
 * next look (it may have passed it when a run failed on the other side). */
bool ompb__seq_due(const ompb__seq_plan *plan, const ompb__seq_state *s, size_t runs_now);

/* Whether the instance can still get a look: its looks are not used up. */
bool ompb__seq_open(const ompb__seq_plan *plan, const ompb__seq_state *s);

/* Futility: from the fourth look on (7 runs a side by default), an
 * instance whose p-value has not cleared alpha, not untouched, is futile
 * when the chance that its last look decides it (untouched or a claim),
 * predicted from this look, is below OMPB__SEQ_FUTILITY_CHANCE: the last
 * look's change normal around this look's, with the spread of the runs to
 * come, and its interval this look's, its standard error shrunk as
 * 1 / sqrt(n). A change near a threshold bound by chance keeps its runs
 * (a rule on the distance to the bound alone decided 62.6% of simulated
 * A/A instances of a 5% spread untouched, this one 78.9%, no futility
 * 84.4%); one too noisy for the threshold stops. Stopping
 * removes looks, so it cannot add false claims; it saves the runs of
 * instances too noisy for the threshold, at a small cost in power
 * (tests/test_sequential.c). */
#define OMPB__SEQ_FUTILITY_FIRST_LOOK 4
#define OMPB__SEQ_FUTILITY_CHANCE 0.05

/*
 * Takes the instance's next look on w, the Yuen-Welch comparison of its
 * runs (ompb__welch on the sides' trimmed summaries) with n runs on the
 * smaller side: updates p, within, futile and the latest figures. Uses the t
 * distribution function only (cheap enough for simulations); the interval
 * is ompb__seq_interval's. A look past the plan is ignored.
 */
void ompb__seq_look(const ompb__seq_plan *plan, ompb__seq_state *s, const ompb__welch_result *w,
                    size_t n);

/* Sets s->low/high to the interval of the look just taken (the last one
 * ompb__seq_look counted), and p_low/p_high too when that look gave p. */
void ompb__seq_interval(const ompb__seq_plan *plan, ompb__seq_state *s,
                        const ompb__welch_result *w);

/*
 * Runs per side at which a look would likely decide an undecided instance
 * at its latest spread: the first planned look after the latest whose
 * interval, its standard error shrinking as 1 / sqrt(n), would clear the
 * nearer threshold bound by the change seen (or fit within both bounds);
 * past the plan, the same at the last look's level, up to
 * OMPB__SEQ_MAX_RUNS. 0 when no count up to that would (an estimate for
 * the report: the change itself is uncertain).
 */
size_t ompb__seq_runs_needed(const ompb__seq_plan *plan, const ompb__seq_state *s, double trim);

/*
 * The threshold (a fraction) the plan's last look would likely decide an
 * instance at: the change seen plus that look's half-width at the latest
 * spread (its standard error shrinking as 1 / sqrt(n)), rounded up to a
 * whole percent. For the note of an instance too noisy for the threshold
 * asked for: the machine's run-to-run spread, not the code, is what keeps
 * it undecided. NAN before the first look.
 */
double ompb__seq_reachable_threshold(const ompb__seq_plan *plan, const ompb__seq_state *s);

/* The ordinary compare rule at one look, for the simulation that shows
 * why the plan is needed: p of the interval null at alpha, untouched when
 * the (1 - alpha) interval lies within the threshold. 1 flagged, -1
 * untouched, 0 neither. */
int ompb__seq_naive_look(const ompb__seq_plan *plan, const ompb__welch_result *w);

#endif
