/* SPDX-License-Identifier: MIT */
/*
 * `ompbench compare`: instance-by-instance verdicts between a BASE and a HEAD
 * side (one or more result files each, their runs pooled), the summary
 * counts, the geometric-mean change, and the environment differences that
 * make the comparison suspect. Each pair is judged on its runs, never its
 * rounds: Welch's interval of the log ratio against the threshold, with
 * Benjamini-Hochberg across the pairs (analysis/welch.c). The verdicts'
 * table is compare_verdicts.c, the environment differences compare_env.c,
 * the reports compare_report.c.
 */
#include "analysis/compare.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "analysis/welch.h"
#include "core/core.h"

/* Relative slack so that a change printed as exactly the threshold (5.00% at
 * --threshold 5) never counts as beyond it because of binary rounding. */
#define OMPB__THRESHOLD_SLACK 1e-9

/* ---- collecting the runs of a side --------------------------------------- */

/* The runs of one instance on one side, on the log scale. */
typedef struct side_runs {
    const ompb__rf_instance *first;     /* in the first file that has it */
    bool present, failed, zero;
    size_t files;                       /* files that have it */
    size_t reps;                        /* repetitions read */
    double *unit;                       /* per process: mean log of its repetitions */
    size_t n_units, cap_units;
    double *rep;                        /* per repetition: log of its value */
    size_t n_rep, cap_rep;
    unsigned marks;                     /* union of the files' marks */
    size_t marked;                      /* repetitions with a mark */
    bool aggregates;                    /* a file reports it by aggregates only */
    ompb__sample_summary agg;           /* their summary, with one such file */
    /* Disturbance accounting: per process, the mean log of the clean values
     * of its repetitions that have one (OMPB__CLEAN_MIN_ROUNDS clean
     * rounds); whether every repetition with a value was accounted, and
     * the side's rounds and clean rounds. */
    double *clean;
    size_t n_clean;
    bool accounted;
    size_t rounds, clean_rounds;
} side_runs;

static void side_release(side_runs *s)
{
    free(s->unit);
    free(s->rep);
    free(s->clean);
}

/* Whether a value has a logarithm, so a ratio: positive and finite. */
static bool usable_value(double v)
{
    return v > 0.0 && isfinite(v);
}

/* Adds file f's repetitions of in: each distinct process is one unit. */
/* The clean side of file f's repetitions of in: one value per process
 * that has clean values. */
static void add_clean_runs(side_runs *s, const ompb__rf_instance *in)
{
    size_t n = in->n_reps;
    for (size_t i = 0; i < n; i++) {
        const ompb__rf_rep *rep = &in->reps[i];
        if (!usable_value(rep->value_ns))
            continue;
        s->accounted &= rep->accounted;
        s->rounds += rep->rounds;
        s->clean_rounds += rep->clean_rounds;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = in->reps[j].process == rep->process && ompb__rf_rep_clean(&in->reps[j]);
        if (seen || !ompb__rf_rep_clean(rep))
            continue;
        double sum = 0.0;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (in->reps[j].process == rep->process && ompb__rf_rep_clean(&in->reps[j])) {
                sum += log(in->reps[j].clean_ns);
                k++;
            }
        s->clean[s->n_clean++] = sum / (double)k;
    }
}

bool ompb__compare_run_value(const ompb__rf_instance *in, bool clean, double *log_value)
{
    double sum = 0.0;
    size_t k = 0;
    for (size_t i = 0; in && !in->failed && i < in->n_reps; i++) {
        const ompb__rf_rep *rep = &in->reps[i];
        if (clean ? ompb__rf_rep_clean(rep) : usable_value(rep->value_ns)) {
            sum += log(clean ? rep->clean_ns : rep->value_ns);
            k++;
        }
    }
    if (k)
        *log_value = sum / (double)k;
    return k > 0;
}

static int add_file_runs(side_runs *s, const ompb__rf_instance *in)
{
    size_t n = in->n_reps;
    if (!ompb__grow((void **)&s->unit, &s->cap_units, s->n_units + n + 1, sizeof *s->unit, 8) ||
        !ompb__grow((void **)&s->rep, &s->cap_rep, s->n_rep + n + 1, sizeof *s->rep, 8))
        return OMPB_ENOMEM;
    size_t cap = s->n_units + n + 1;
    double *grown = realloc(s->clean, cap * sizeof *s->clean);
    if (!grown)
        return OMPB_ENOMEM;
    s->clean = grown;
    add_clean_runs(s, in);
    for (size_t i = 0; i < n; i++) {
        if (!usable_value(in->reps[i].value_ns)) {
            s->zero = true;
            continue;
        }
        s->rep[s->n_rep++] = log(in->reps[i].value_ns);
    }
    /* One unit per process of this file: the mean log over its repetitions. */
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = in->reps[j].process == in->reps[i].process;
        if (seen)
            continue;
        double sum = 0.0;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (in->reps[j].process == in->reps[i].process && usable_value(in->reps[j].value_ns)) {
                sum += log(in->reps[j].value_ns);
                k++;
            }
        if (k)
            s->unit[s->n_units++] = sum / (double)k;
    }
    s->reps += n;
    return 0;
}

/* A file that has only the aggregates of the run: one unit (its median or
 * mean), and the summary of its repetitions from the mean and standard
 * deviation, moved to the log scale as a log-normal distribution with that
 * mean and deviation would be (log of the mean minus half the log-variance;
 * log-variance log(1 + cv^2)). */
static int add_aggregate_runs(side_runs *s, const ompb__rf_instance *in)
{
    s->accounted = false; /* aggregates have no rounds */
    if (!ompb__grow((void **)&s->unit, &s->cap_units, s->n_units + 1, sizeof *s->unit, 8))
        return OMPB_ENOMEM;
    if (!usable_value(in->value_ns) || !usable_value(in->agg_mean_ns)) {
        s->zero = true;
        return 0;
    }
    s->unit[s->n_units++] = log(in->value_ns);
    double cv = in->agg_stddev_ns / in->agg_mean_ns, var = log1p(cv * cv);
    s->aggregates = true;
    s->agg = (ompb__sample_summary){(size_t)(in->repetitions > 0 ? in->repetitions : 1),
                                    log(in->agg_mean_ns) - var / 2.0, var, sqrt(var)};
    s->reps += s->agg.n;
    return 0;
}

static int collect_side(const ompb__compare_side *side, const char *name, side_runs *s)
{
    memset(s, 0, sizeof *s);
    s->accounted = true;
    for (size_t f = 0; f < side->n; f++) {
        const ompb__rf_instance *in = ompb__resultfile_find(&side->files[f], name);
        if (!in)
            continue;
        if (!s->present)
            s->first = in;
        s->present = true;
        s->files++;
        s->marks |= in->marks;
        s->marked += in->marked_reps;
        if (in->failed) {
            /* The first failure is the one the report names. */
            if (!s->failed)
                s->first = in;
            s->failed = true;
            continue;
        }
        int rc = in->aggregate ? add_aggregate_runs(s, in) : add_file_runs(s, in);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- verdicts ------------------------------------------------------------ */

/* The verdict presence alone gives; UNTOUCHED when both sides have runs
 * and the times must decide. A failure in HEAD is "failed" whatever BASE
 * did: the change broke or kept breaking it, and "missing" would hide that. */
static ompb__verdict by_presence(const side_runs *b, const side_runs *h)
{
    if (h->failed)
        return OMPB__VERDICT_FAILED;
    if (!h->present)
        return OMPB__VERDICT_MISSING;
    return b->present && !b->failed ? OMPB__VERDICT_UNTOUCHED : OMPB__VERDICT_NEW;
}

/* The runs of a side as Yuen's trimmed Welch test takes them: a fifth cut
 * from each end (one of five runs), so that one run disturbed by another
 * job cannot decide alone. */
static ompb__sample_summary side_summary(const side_runs *s)
{
    return ompb__summarize_trimmed(s->unit, s->n_units, OMPB__COMPARE_TRIM);
}

/* Processes when both sides have two or more: each is a run. Else a single
 * run on a side, its spread unknown; with two or more repetitions on each
 * side (in one process) their summaries still give the in-process spread
 * for the note. */
static ompb__basis choose_basis(const side_runs *b, const side_runs *h, ompb__sample_summary *sb,
                                ompb__sample_summary *sh)
{
    *sb = side_summary(b);
    *sh = side_summary(h);
    if (b->n_units >= 2 && h->n_units >= 2)
        return OMPB__BASIS_PROCESSES;
    ompb__sample_summary rb = b->aggregates ? b->agg : ompb__summarize(b->rep, b->n_rep);
    ompb__sample_summary rh = h->aggregates ? h->agg : ompb__summarize(h->rep, h->n_rep);
    if (rb.n < 2 || rh.n < 2)
        return OMPB__BASIS_SINGLE;
    sb->spread = rb.spread;
    sh->spread = rh.spread;
    return b->aggregates || h->aggregates ? OMPB__BASIS_AGGREGATES : OMPB__BASIS_REPETITIONS;
}

static double upper_bound(const ompb__compare_opts *opts)
{
    return log1p(opts->threshold * (1.0 + OMPB__THRESHOLD_SLACK));
}

static double lower_bound(const ompb__compare_opts *opts)
{
    double t = opts->threshold * (1.0 + OMPB__THRESHOLD_SLACK);
    return t < 1.0 ? log1p(-t) : -INFINITY;
}

/* Runs per side that would put the interval clear of the nearer threshold
 * bound, at the spread seen: the standard error shrinking as 1 / sqrt(n).
 * The estimate assumes balanced sides and Welch's degrees of freedom at
 * their best; with unbalanced sides or very different spreads it can come
 * out at a count the comparison already had without deciding, and a note
 * must never ask for what was already given: at least one more than the
 * larger side. */
static size_t runs_needed(const ompb__welch_result *w, size_t base_runs, size_t head_runs,
                          const ompb__compare_opts *opts)
{
    double bound = w->diff >= 0.0 ? upper_bound(opts) : lower_bound(opts);
    double gap = isinf(bound) ? INFINITY : fabs(w->diff - bound);
    size_t had = base_runs > head_runs ? base_runs : head_runs;
    size_t n = ompb__units_needed(w->se, (base_runs + head_runs + 1) / 2, gap, opts->alpha,
                                  OMPB__COMPARE_TRIM, OMPB__COMPARE_MAX_RUNS);
    return n > had ? n : had + 1;
}

/* A noisy row whose interval clears the threshold was held back by
 * Benjamini-Hochberg alone: it counts when q <= alpha, that is when
 * p <= alpha p / q, so the interval the decision used is the one at level
 * 1 - alpha p / q, which the report shows beside the printed one. */
static void held_back_interval(ompb__compare_row *r, double alpha)
{
    r->bh_level = r->bh_low = r->bh_high = NAN;
    if (r->verdict != OMPB__VERDICT_NOISY || r->runs_needed || !(r->q > 0.0) ||
        isnan(r->welch.se))
        return;
    double a = alpha * r->p / r->q, lo, hi;
    ompb__welch_ci(&r->welch, a, &lo, &hi);
    r->bh_level = 1.0 - a;
    r->bh_low = expm1(lo);
    r->bh_high = expm1(hi);
}

/* Fills the figures of a pair both sides have; the verdict waits for the
 * Benjamini-Hochberg step over all pairs (settle_verdicts). */
/* Both sides accounted and judged on runs: their clean values stand in
 * for the runs' (*use), or the pair is disturbed (false returned) when a
 * side has fewer than two runs with clean values. */
static bool clean_units(ompb__compare_row *row, side_runs *b, side_runs *h)
{
    row->accounted = b->accounted && h->accounted && b->n_rep > 0 && h->n_rep > 0;
    row->base_clean_share = row->head_clean_share = NAN;
    if (!row->accounted)
        return true;
    row->base_clean_runs = b->n_clean;
    row->head_clean_runs = h->n_clean;
    row->base_clean_share = b->rounds ? (double)b->clean_rounds / (double)b->rounds : NAN;
    row->head_clean_share = h->rounds ? (double)h->clean_rounds / (double)h->rounds : NAN;
    if (b->n_units < 2 || h->n_units < 2)
        return true; /* one run on a side: noise unknown, on all its rounds */
    if (b->n_clean < 2 || h->n_clean < 2)
        return false;
    double *swap = b->unit;
    b->unit = b->clean;
    b->clean = swap;
    b->n_units = b->n_clean;
    swap = h->unit;
    h->unit = h->clean;
    h->clean = swap;
    h->n_units = h->n_clean;
    return true;
}

static void measure_pair(ompb__compare_row *row, side_runs *b, side_runs *h,
                         const ompb__compare_opts *opts)
{
    ompb__sample_summary sb, sh;
    if (!clean_units(row, b, h)) {
        row->base_runs = b->n_units;
        row->head_runs = h->n_units;
        row->change = row->head_ns / row->base_ns - 1.0; /* all rounds: a hint only */
        row->verdict = OMPB__VERDICT_DISTURBED;
        return;
    }
    row->basis = choose_basis(b, h, &sb, &sh);
    row->base_runs = b->n_units;
    row->head_runs = h->n_units;
    row->base_ns = exp(sb.mean);
    row->head_ns = exp(sh.mean);
    row->change = expm1(sh.mean - sb.mean);
    if (row->basis != OMPB__BASIS_PROCESSES) {
        /* One run on a side: its repetitions' spread, if any, is in-process
         * only, which misses what a new process sees (docs/methodology.md). */
        if (row->basis != OMPB__BASIS_SINGLE) {
            row->base_spread = sb.spread;
            row->head_spread = sh.spread;
        }
        row->verdict = OMPB__VERDICT_UNKNOWN;
        return;
    }
    row->base_spread = sb.spread;
    row->head_spread = sh.spread;
    ompb__welch_result w = ompb__welch(sb, sh);
    row->welch = w;
    double lo, hi;
    ompb__welch_ci(&w, opts->alpha, &lo, &hi);
    row->ci_low = expm1(lo);
    row->ci_high = expm1(hi);
    row->p = ompb__interval_p(&w, lower_bound(opts), upper_bound(opts));
    row->verdict = OMPB__VERDICT_NOISY;    /* settled after BH */
    if (lo >= lower_bound(opts) && hi <= upper_bound(opts))
        row->verdict = OMPB__VERDICT_UNTOUCHED;
    else if (lo <= upper_bound(opts) && hi >= lower_bound(opts))
        row->runs_needed = runs_needed(&w, b->n_units, h->n_units, opts);
    /* An interval already clear of the threshold needs no more width: it is
     * noisy only if Benjamini-Hochberg does not confirm it (the note says). */
}

static int judge(ompb__compare_row *row, const ompb__compare_side *base,
                 const ompb__compare_side *head, const ompb__compare_opts *opts)
{
    side_runs b, h;
    int rc = collect_side(base, row->name, &b);
    rc = rc ? rc : collect_side(head, row->name, &h);
    if (rc) {
        side_release(&b);
        side_release(&h);
        return rc;
    }
    row->base = b.first;
    row->head = h.first;
    row->base_reps = b.reps;
    row->head_reps = h.reps;
    row->base_marks = b.marks;
    row->head_marks = h.marks;
    row->base_marked = b.marked;
    row->head_marked = h.marked;
    row->base_ns = row->head_ns = row->change = row->ci_low = row->ci_high = NAN;
    row->base_spread = row->head_spread = row->p = row->q = NAN;
    row->bh_level = row->bh_low = row->bh_high = NAN;
    row->welch = (ompb__welch_result){NAN, NAN, NAN};
    row->basis = OMPB__BASIS_NONE;
    row->verdict = by_presence(&b, &h);
    bool usable_b = b.present && !b.failed, usable_h = h.present && !h.failed;
    if (usable_b && !b.zero)
        row->base_ns = exp(side_summary(&b).mean);
    if (usable_h && !h.zero)
        row->head_ns = exp(side_summary(&h).mean);
    if (usable_b && b.zero)
        row->base_ns = 0.0;
    if (usable_h && h.zero)
        row->head_ns = 0.0;
    /* A time of 0 has no logarithm and no ratio: nothing can be judged, and
     * "untouched" would claim what nobody measured. */
    if (row->verdict == OMPB__VERDICT_UNTOUCHED && (b.zero || h.zero))
        row->verdict = OMPB__VERDICT_NO_RATIO;
    else if (row->verdict == OMPB__VERDICT_UNTOUCHED)
        measure_pair(row, &b, &h, opts);
    side_release(&b);
    side_release(&h);
    return 0;
}

/* Regressed or improved when the interval null is rejected after
 * Benjamini-Hochberg over every judged pair; the untouched and noisy
 * verdicts of measure_pair stand otherwise. */
static int settle_verdicts(ompb__comparison *cmp)
{
    double *p = malloc((cmp->n + 1) * sizeof *p);
    if (!p)
        return OMPB_ENOMEM;
    for (size_t i = 0; i < cmp->n; i++)
        p[i] = cmp->rows[i].p;
    int rc = ompb__bh_adjust(p, cmp->n, p);
    for (size_t i = 0; i < cmp->n && !rc; i++) {
        ompb__compare_row *r = &cmp->rows[i];
        r->q = p[i];
        if (isnan(r->p))
            continue;
        cmp->judged++;
        if (r->q <= cmp->opts.alpha) {
            r->verdict = r->change > 0.0 ? OMPB__VERDICT_REGRESSED : OMPB__VERDICT_IMPROVED;
            r->runs_needed = 0;
        }
        held_back_interval(r, cmp->opts.alpha);
    }
    free(p);
    return rc;
}

void ompb__compare_code(const ompb__rf_instance *base, const ompb__rf_instance *head,
                        ompb__code_result *out)
{
    memset(out, 0, sizeof *out);
    if (!base || !head || !base->code_object || !head->code_object) {
        out->verdict = OMPB__CODE_UNKNOWN;
        snprintf(out->why, sizeof out->why, "%s's result file does not say where its code is",
                 !base || !base->code_object ? "BASE" : "HEAD");
        return;
    }
    ompb__code_compare(base->code_object, base->code_address, head->code_object,
                       head->code_address, out);
}

void ompb__compare_code_note(bool checked, const ompb__code_result *code, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!checked)
        return;
    if (code->verdict == OMPB__CODE_SAME)
        snprintf(buf, cap, "code unchanged: likely a code-layout or alignment effect (%zu "
                 "function%s compared)", code->functions, code->functions == 1 ? "" : "s");
    else if (code->verdict == OMPB__CODE_CHANGED)
        snprintf(buf, cap, "code changed (in %s)", code->why);
    else
        snprintf(buf, cap, "code check: unknown (%s)", code->why);
}

json_t *ompb__code_json(bool checked, const ompb__code_result *code)
{
    static const char *const states[] = {"unchanged", "changed", "unknown"};
    if (!checked)
        return json_null();
    return json_pack("{s:s, s:I, s:s}", "state", states[code->verdict], "functions",
                     (json_int_t)code->functions, "detail", code->why);
}

void ompb__compare_check_code(ompb__comparison *cmp)
{
    for (size_t i = 0; i < cmp->n; i++) {
        ompb__compare_row *r = &cmp->rows[i];
        if (!ompb__verdict_is(r->verdict, OMPB__VERDICT_CHANGE))
            continue;
        ompb__compare_code(r->base, r->head, &r->code);
        r->code_checked = true;
        if (r->code.verdict != OMPB__CODE_SAME)
            continue;
        cmp->layout_same++;
        cmp->layout_gating += ompb__verdict_is(r->verdict, OMPB__VERDICT_GATES);
    }
}

/* A time of 0 on either side has no logarithm: such pairs are left out and
 * counted, so the report can say the mean does not cover them. */
static void geomean(ompb__comparison *cmp)
{
    double sum = 0.0;
    size_t k = 0;
    for (size_t i = 0; i < cmp->n; i++) {
        const ompb__compare_row *r = &cmp->rows[i];
        if (isnan(r->base_ns) || isnan(r->head_ns))
            continue;
        if (r->base_ns > 0.0 && r->head_ns > 0.0) {
            sum += log(r->head_ns / r->base_ns);
            k++;
        } else {
            cmp->geomean_excluded++;
        }
    }
    cmp->geomean_change = k ? exp(sum / (double)k) - 1.0 : NAN;
}

/* ---- public ------------------------------------------------------------ */

/* Whether name is in a file that comes before file f of side s (0 BASE,
 * 1 HEAD) in the order rows are made: BASE files first, then HEAD files. */
static bool seen_before(const ompb__compare_side *sides[2], size_t s, size_t f, const char *name)
{
    for (size_t side = 0; side <= s; side++)
        for (size_t k = 0; k < (side < s ? sides[side]->n : f); k++)
            if (ompb__resultfile_find(&sides[side]->files[k], name))
                return true;
    return false;
}

static int add_row(ompb__comparison *cmp, const char *name)
{
    ompb__compare_row *row = &cmp->rows[cmp->n++];
    memset(row, 0, sizeof *row);
    row->name = name;
    return judge(row, &cmp->base_side, &cmp->head_side, &cmp->opts);
}

static size_t total_instances(const ompb__compare_side *side)
{
    size_t n = 0;
    for (size_t f = 0; f < side->n; f++)
        n += side->files[f].n;
    return n;
}

static int make_rows(ompb__comparison *out)
{
    const ompb__compare_side *sides[2] = {&out->base_side, &out->head_side};
    int rc = 0;
    for (size_t s = 0; s < 2 && !rc; s++)
        for (size_t f = 0; f < sides[s]->n && !rc; f++)
            for (size_t i = 0; i < sides[s]->files[f].n && !rc; i++) {
                const char *name = sides[s]->files[f].inst[i].name;
                if (!seen_before(sides, s, f, name))
                    rc = add_row(out, name);
            }
    return rc;
}

int ompb__compare_runs(const ompb__compare_side *base, const ompb__compare_side *head,
                       const ompb__compare_opts *opts, ompb__comparison *out)
{
    memset(out, 0, sizeof *out);
    out->base_side = *base;
    out->head_side = *head;
    out->opts = *opts;
    out->rows = calloc(total_instances(base) + total_instances(head) + 1, sizeof *out->rows);
    if (!out->rows)
        return OMPB_ENOMEM;
    int rc = make_rows(out);
    rc = rc ? rc : settle_verdicts(out);
    for (size_t i = 0; i < out->n && !rc; i++) {
        const ompb__compare_row *r = &out->rows[i];
        bool gates = ompb__verdict_is(r->verdict, OMPB__VERDICT_GATES);
        out->marks |= r->base_marks | r->head_marks;
        out->marked += (r->base_marks | r->head_marks) != 0;
        out->marked_gating += gates && (r->base_marks | r->head_marks);
        out->counts[out->rows[i].verdict]++;
        out->accounted += r->accounted && r->basis == OMPB__BASIS_PROCESSES;
        out->accounted += r->verdict == OMPB__VERDICT_DISTURBED;
        out->in_process += out->rows[i].basis == OMPB__BASIS_REPETITIONS ||
                           out->rows[i].basis == OMPB__BASIS_AGGREGATES;
    }
    if (!rc && base->n && head->n)
        rc = ompb__compare_environments(&base->files[0], &head->files[0], &out->env_diffs);
    rc = rc ? rc : ompb__compare_diff_within(base, "BASE", &out->env_diffs);
    rc = rc ? rc : ompb__compare_diff_within(head, "HEAD", &out->env_diffs);
    if (rc) {
        ompb__comparison_free(out);
        return rc;
    }
    geomean(out);
    return 0;
}

/* The executable's file name in a result file's context, or NULL (no
 * context, no "executable" or not a string: the unpack fails). */
static const char *exe_name(const ompb__resultfile *rf)
{
    const char *s = NULL;
    if (json_unpack(rf->context, "{s:s}", "executable", &s) != 0)
        return NULL;
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

/* "ompbench.build_id" of the context, or NULL: id is set only when the
 * whole path is there and a string. */
static const char *build_id(const ompb__resultfile *rf)
{
    const char *id = NULL;
    (void)json_unpack(rf->context, "{s:{s:s}}", "ompbench", "build_id", &id);
    return id;
}

static bool same_number(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* Field by field: the struct has padding, which memcmp would read. NAN
 * values (failed repetitions) are equal when both are NAN. */
static bool same_reps(const ompb__rf_instance *x, const ompb__rf_instance *y)
{
    for (size_t i = 0; i < x->n_reps; i++) {
        const ompb__rf_rep *a = &x->reps[i], *b = &y->reps[i];
        if (!same_number(a->value_ns, b->value_ns) || !same_number(a->imbalance, b->imbalance) ||
            a->process != b->process || a->index != b->index || a->marks != b->marks)
            return false;
    }
    return true;
}

/* Same context and same repetitions for every instance: the same file. */
static bool same_results(const ompb__resultfile *a, const ompb__resultfile *b)
{
    if (!a->context || !json_equal(a->context, b->context) || a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        const ompb__rf_instance *x = &a->inst[i], *y = &b->inst[i];
        if (strcmp(x->name, y->name) != 0 || x->n_reps != y->n_reps || !same_reps(x, y))
            return false;
    }
    return true;
}

int ompb__compare_check_side(const ompb__compare_side *side, const char *side_name,
                             ompb_error *err)
{
    const ompb__resultfile *first = &side->files[0];
    for (size_t f = 1; f < side->n; f++) {
        const ompb__resultfile *rf = &side->files[f];
        const char *e0 = exe_name(first), *e1 = exe_name(rf);
        const char *b0 = build_id(first), *b1 = build_id(rf);
        for (size_t k = 0; k < f; k++)
            if (strcmp(side->files[k].path, rf->path) == 0 || same_results(&side->files[k], rf))
                return ompb__error_set(err, OMPB_EINVAL, "%s: the same results as %s, given "
                                       "twice for %s (each run counts once)", rf->path,
                                       side->files[k].path, side_name);
        if (e0 && e1 && strcmp(e0, e1) != 0)
            return ompb__error_set(err, OMPB_EINVAL, "%s: from a different binary than %s "
                                   "(executable \"%.80s\" vs \"%.80s\"); the files of %s must "
                                   "be runs of one binary", rf->path, first->path, e1, e0,
                                   side_name);
        if (b0 && b1 && strcmp(b0, b1) != 0)
            return ompb__error_set(err, OMPB_EINVAL, "%s: from a different binary than %s "
                                   "(build ID %.40s vs %.40s); the files of %s must be runs "
                                   "of one binary", rf->path, first->path, b1, b0, side_name);
    }
    return 0;
}

void ompb__comparison_free(ompb__comparison *cmp)
{
    for (size_t i = 0; i < cmp->env_diffs.n; i++)
        free(cmp->env_diffs.v[i]);
    free(cmp->env_diffs.v);
    free(cmp->rows);
    memset(cmp, 0, sizeof *cmp);
}
