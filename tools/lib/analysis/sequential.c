/* SPDX-License-Identifier: MIT */
/*
 * The looks of `ompbench ab` and what each one may claim: the plan of
 * runs per side and the share of alpha each look spends (Lan-DeMets
 * spending, allocated by the union bound), the per-instance sequential
 * p-value and interval, and the estimate of the runs that would decide an
 * instance still open. The decisions use the t distribution function
 * only, so that the simulation of tests/test_sequential.c can repeat the
 * procedure thousands of times in a second; the interval's quantiles are
 * computed only for the report.
 */
#include "analysis/sequential.h"

#include <math.h>
#include <string.h>

#include <ompbench/error.h>

#include "analysis/compare.h"


/* Each look about this factor more runs than the one before. */
#define GROWTH 1.25
/* As compare's: a change printed as exactly the threshold is not beyond it. */
#define THRESHOLD_SLACK 1e-9

/* Runs per side kept of n after Yuen's trimming (as analysis/welch.c). */
static size_t kept(size_t n, double trim)
{
    size_t g = (size_t)(trim * (double)n);
    return n - 2 * g >= 2 ? n - 2 * g : n;
}

/* Lan-DeMets' Pocock-type spending function: the alpha spent by the time
 * a share t of the runs is in. It spends a good part early (a third of
 * alpha by a tenth of the runs at --max-runs 30), which is what lets a
 * clear change stop after a few runs; O'Brien-Fleming's keeps nearly all
 * of it for the end and would not. */
static double spent_by(double alpha, double t)
{
    return alpha * log1p((M_E - 1.0) * t);
}

/* The look after n runs: GROWTH times more, at least one more; the last
 * look is max, and a look that would leave less than one more GROWTH step
 * before max goes straight to max (a look a run before the last spends
 * alpha for nothing). */
static size_t next_runs(size_t n, size_t max)
{
    size_t m = (size_t)ceil((double)n * GROWTH);
    if (m < n + 1)
        m = n + 1;
    if (m >= max || (double)m * GROWTH > (double)max)
        return max;
    return m;
}

int ompb__seq_plan_init(ompb__seq_plan *plan, size_t min_runs, size_t max_runs, double alpha,
                        double threshold)
{
    if (min_runs < 2 || max_runs < min_runs || max_runs > OMPB__SEQ_MAX_RUNS ||
        !(alpha > 0.0 && alpha < 1.0) || !(threshold >= 0.0) || !isfinite(threshold))
        return OMPB_EINVAL;
    memset(plan, 0, sizeof *plan);
    plan->alpha = alpha;
    plan->futility = true;
    double t = threshold * (1.0 + THRESHOLD_SLACK);
    plan->upper = log1p(t);
    plan->lower = t < 1.0 ? log1p(-t) : -INFINITY;
    double spent = 0.0;
    for (size_t n = min_runs;; n = next_runs(n, max_runs)) {
        size_t k = plan->n_looks++;
        double now = n == max_runs ? alpha : spent_by(alpha, (double)n / (double)max_runs);
        plan->runs[k] = n;
        plan->level[k] = now - spent;
        plan->quant[k] = ompb__t_quantile(1.0 - plan->level[k] / 2.0,
                                          2.0 * (double)kept(n, OMPB__COMPARE_TRIM) - 2.0);
        spent = now;
        if (n == max_runs || plan->n_looks == OMPB__SEQ_MAX_LOOKS)
            break;
    }
    return 0;
}

/* Yuen's variance (n - 1) s_w^2 / (h - 1) for h kept runs; with nothing
 * cut (h = n) the plain sample variance. */
ompb__sample_summary ompb__seq_side_summary(double geomean, double spread, size_t n, double trim)
{
    size_t h = kept(n, trim);
    double var = h > 1 ? (double)(n - 1) * spread * spread / (double)(h - 1) : NAN;
    return (ompb__sample_summary){h, log(geomean), var, spread};
}

void ompb__seq_state_init(ompb__seq_state *s)
{
    *s = (ompb__seq_state){0, NAN, false, false, 0, -INFINITY, INFINITY, -INFINITY,
                           INFINITY, NAN, NAN, 0};
}

bool ompb__seq_open(const ompb__seq_plan *plan, const ompb__seq_state *s)
{
    return s->looks < plan->n_looks;
}

bool ompb__seq_due(const ompb__seq_plan *plan, const ompb__seq_state *s, size_t runs_now)
{
    return ompb__seq_open(plan, s) && runs_now >= plan->runs[s->looks];
}

/* Whether the two-sided (1 - level) interval of w lies within the bounds:
 * both one-sided tests of equivalence at level / 2. */
static bool within_bounds(const ompb__seq_plan *plan, const ompb__welch_result *w, double level)
{
    if (isnan(w->se))
        return false;
    if (w->se == 0.0)
        return w->diff >= plan->lower && w->diff <= plan->upper;
    double above_lower = ompb__t_cdf(-(w->diff - plan->lower) / w->se, w->df);
    double below_upper = ompb__t_cdf(-(plan->upper - w->diff) / w->se, w->df);
    return above_lower <= level / 2.0 && below_upper <= level / 2.0;
}

/* Distance from the change to the nearer threshold bound (log scale). */
static double gap_to_bound(const ompb__seq_plan *plan, const ompb__seq_state *s)
{
    return fmin(fabs(s->diff - plan->upper), fabs(s->diff - plan->lower));
}

static double normal_cdf(double x)
{
    return 0.5 * erfc(-x / M_SQRT2);
}

/* The chance that the last look decides the instance, predicted from this
 * one: the last look's change is normal around this look's, with the
 * spread left by the runs still to come (predictive: the true change
 * uncertain as this look says: variance se^2 (1 - f), f = n / the last
 * look's runs), and the last look's interval of half-width hw, this look's
 * standard error shrunk by sqrt(f). It decides "untouched" when the change
 * lies within the bounds narrowed by hw, a claim when it lies beyond them
 * widened by hw. */
static double decision_chance(const ompb__seq_plan *plan, const ompb__seq_state *s, double f,
                              double hw)
{
    double sd = s->se * sqrt(1.0 - f);
    double in_lo = plan->lower + hw, in_hi = plan->upper - hw;
    double untouched = in_hi > in_lo ? normal_cdf((in_hi - s->diff) / sd)
                                           - normal_cdf((in_lo - s->diff) / sd)
                                     : 0.0;
    double claim = normal_cdf((plan->lower - hw - s->diff) / sd)
                   + (1.0 - normal_cdf((plan->upper + hw - s->diff) / sd));
    return untouched + claim;
}

static bool is_futile(const ompb__seq_plan *plan, const ompb__seq_state *s)
{
    if (!plan->futility || s->looks < OMPB__SEQ_FUTILITY_FIRST_LOOK || s->within ||
        !(s->p > plan->alpha) || !(s->se > 0.0) || s->looks >= plan->n_looks)
        return false;
    size_t last = plan->n_looks - 1;
    double f = (double)s->n / (double)plan->runs[last];
    if (f >= 1.0)
        return false;
    double hw = plan->quant[last] * s->se * sqrt(f);
    return decision_chance(plan, s, f, hw) < OMPB__SEQ_FUTILITY_CHANCE;
}

void ompb__seq_look(const ompb__seq_plan *plan, ompb__seq_state *s, const ompb__welch_result *w,
                    size_t n)
{
    if (!ompb__seq_open(plan, s))
        return;
    double level = plan->level[s->looks];
    double p = ompb__interval_p(w, plan->lower, plan->upper);
    if (!isnan(p)) {
        double scaled = fmin(1.0, p * plan->alpha / level);
        if (isnan(s->p) || scaled < s->p) {
            s->p = scaled;
            s->p_look = s->looks + 1;
        }
    }
    s->within = s->within || within_bounds(plan, w, level);
    s->diff = w->diff;
    s->se = w->se;
    s->n = n;
    s->looks++;
    s->futile = is_futile(plan, s);
}

void ompb__seq_interval(const ompb__seq_plan *plan, ompb__seq_state *s,
                        const ompb__welch_result *w)
{
    if (s->looks == 0 || isnan(w->se))
        return;
    ompb__welch_ci(w, plan->level[s->looks - 1], &s->low, &s->high);
    if (s->p_look == s->looks) {
        s->p_low = s->low;
        s->p_high = s->high;
    }
}


static double half_width(const ompb__seq_state *s, size_t n, double level, double trim)
{
    double df = 2.0 * (double)kept(n, trim) - 2.0;
    return ompb__t_quantile(1.0 - level / 2.0, df) * s->se * sqrt((double)s->n / (double)n);
}

/* Past the plan: the smallest n up to OMPB__SEQ_MAX_RUNS at the last
 * look's level, by bisection (the width shrinks with n there); 0 if none. */
static size_t beyond_plan(const ompb__seq_plan *plan, const ompb__seq_state *s, double gap,
                          double trim)
{
    double level = plan->level[plan->n_looks - 1];
    size_t lo = plan->runs[plan->n_looks - 1] + 1, hi = OMPB__SEQ_MAX_RUNS;
    if (lo > hi || half_width(s, hi, level, trim) > gap)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (half_width(s, mid, level, trim) <= gap)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

double ompb__seq_reachable_threshold(const ompb__seq_plan *plan, const ompb__seq_state *s)
{
    if (s->looks == 0 || !(s->se > 0.0) || s->n == 0 || plan->n_looks == 0)
        return NAN;
    size_t last = plan->n_looks - 1;
    double se = s->se * sqrt((double)s->n / (double)plan->runs[last]);
    double reach = fabs(s->diff) + plan->quant[last] * se;
    return ceil(100.0 * expm1(reach)) / 100.0;
}

size_t ompb__seq_runs_needed(const ompb__seq_plan *plan, const ompb__seq_state *s, double trim)
{
    if (s->looks == 0 || isnan(s->se) || s->n == 0)
        return 0;
    double gap = gap_to_bound(plan, s);
    if (!(gap > 0.0))
        return 0;
    if (s->se == 0.0)
        return s->looks < plan->n_looks ? plan->runs[s->looks] : 0;
    for (size_t k = s->looks; k < plan->n_looks; k++)
        if (plan->quant[k] * s->se * sqrt((double)s->n / (double)plan->runs[k]) <= gap)
            return plan->runs[k];
    return beyond_plan(plan, s, gap, trim);
}

int ompb__seq_naive_look(const ompb__seq_plan *plan, const ompb__welch_result *w)
{
    double p = ompb__interval_p(w, plan->lower, plan->upper);
    if (!isnan(p) && p <= plan->alpha)
        return 1;
    return within_bounds(plan, w, plan->alpha) ? -1 : 0;
}
