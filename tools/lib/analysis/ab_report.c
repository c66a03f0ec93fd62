/* SPDX-License-Identifier: MIT */
/*
 * The report of `ompbench ab` in three formats: console, markdown for a
 * pull-request comment, JSON for scripts. All three lead with the verdict
 * counts and the runs spent (against the fixed 10-a-side recipe), say when
 * the report is partial (interrupted) and why the runs ended, list every
 * faulty run, and give per instance the interval of the sequential
 * comparison (the confidence sequence of analysis/sequential.h) and, for
 * an instance still undecided, how many runs a side would likely decide
 * it. Names from the binaries are escaped for the terminal and markdown.
 * Each part takes only the values it shows (analysis/ab.h).
 */
#include "analysis/ab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <ompbench/error.h>

#define NOTE_MAX 640
#define NAME_COL_MAX 60

static const char *const outcome_names[] = {"ok", "failed", "crashed", "exit status",
                                            "killed", "bad file", "interrupted"};

const char *ompb__ab_outcome_name(ompb__ab_outcome o)
{
    return (size_t)o < sizeof outcome_names / sizeof outcome_names[0] ? outcome_names[o] : "?";
}

/* The four values a report renders (analysis/ab.h). */
typedef struct ab_view {
    const ompb__ab_settings *set;
    const ompb__ab_ledger *l;
    const ompb__ab_rows *rows;
    const ompb__ab_result *res;
} ab_view;

static size_t faults(const ompb__ab_ledger *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n_runs; i++)
        n += ompb__ab_run_is_fault(&l->runs[i]);
    return n;
}

/* Instance-runs spent (each instance's runs, both sides) and what the
 * recipe's 10 runs a side of every instance both sides list would take. */
static void spent(const ompb__ab_ledger *l, const ompb__ab_rows *rows, size_t *used,
                  size_t *recipe)
{
    *used = *recipe = 0;
    /* What the runs were given to run, pooled or not. */
    for (size_t i = 0; i < l->n_runs; i++)
        *used += l->runs[i].instances;
    for (size_t i = 0; i < rows->n; i++) {
        *recipe += rows->v[i].listed[0] && rows->v[i].listed[1] ? 2 * OMPB__AB_RECIPE_RUNS : 0;
    }
}

static bool clears_threshold(const ompb__seq_plan *plan, const ompb__ab_row *r)
{
    return r->seq.low > plan->upper || r->seq.high < plan->lower;
}

/* The change a row shows: its latest look's, on the pairs (the geometric
 * mean of HEAD / BASE over them, trimmed), else compare's pooled one. */
static double row_change(const ompb__ab_row *r)
{
    return r->seq.looks > 0 ? expm1(r->seq.diff) : r->cmp.change;
}

static void spread_text(const ompb__ab_row *r, char *buf, size_t cap)
{
    snprintf(buf, cap, "spread %.1f%%/%.1f%%", 100.0 * r->cmp.base_spread,
             100.0 * r->cmp.head_spread);
}

/* " (the machine's run-to-run spread puts the 5% threshold out of reach;
 * --threshold 9 would likely decide it)" after a note of an instance no
 * look up to --max-runs would decide; "" otherwise. */
static void reach_text(const ompb__ab_settings *set, const ompb__ab_row *r, char *buf,
                       size_t cap)
{
    double t = ompb__seq_reachable_threshold(&set->plan, &r->seq);
    buf[0] = '\0';
    if (isnan(t) || t <= set->opts.threshold)
        return;
    snprintf(buf, cap, "; the run-to-run spread puts the %g%% threshold out of reach within "
             "--max-runs %zu: --threshold %g would likely decide it", 100.0 * set->opts.threshold,
             set->max_runs, 100.0 * t);
}

static void open_note(const ompb__ab_settings *set, const ompb__ab_row *r, char *buf, size_t cap)
{
    char sp[64], reach[200];
    spread_text(r, sp, sizeof sp);
    reach_text(set, r, reach, sizeof reach);
    if (clears_threshold(&set->plan, r)) {
        snprintf(buf, cap, "%s: the interval clears the threshold, but not after "
                 "Benjamini-Hochberg over the judged instances (q=%.2g)", sp, r->q);
    } else if (r->runs_needed == 0) {
        snprintf(buf, cap, "%s: more than %d runs a side would be needed at this spread%s%s", sp,
                 OMPB__SEQ_MAX_RUNS, r->seq.futile ? " (not run further)" : "", reach);
    } else if (r->seq.futile && r->runs_needed > set->max_runs) {
        snprintf(buf, cap, "%s: no look up to --max-runs would likely decide it, ~%zu runs a "
                 "side would (not run further)%s", sp, r->runs_needed, reach);
    } else {
        size_t more = r->runs_needed > r->seq.n ? r->runs_needed - r->seq.n : 1;
        snprintf(buf, cap, "%s: ~%zu more run%s a side would likely decide%s", sp, more,
                 more == 1 ? "" : "s", r->runs_needed > set->max_runs ? " (beyond --max-runs)"
                                                                     : "");
    }
}

static void presence_note(const ompb__ab_row *r, char *buf, size_t cap)
{
    const ompb__rf_instance *in = r->verdict == OMPB__VERDICT_FAILED ? r->cmp.head : r->cmp.base;
    if ((r->verdict == OMPB__VERDICT_FAILED || r->verdict == OMPB__VERDICT_NEW) && in &&
        in->failed)
        snprintf(buf, cap, "failed in %s: %s", r->verdict == OMPB__VERDICT_FAILED ? "HEAD" : "BASE",
                 in->error_message ? in->error_message : "(no message)");
    else if (r->verdict == OMPB__VERDICT_NEW)
        snprintf(buf, cap, "only in HEAD's --list");
    else if (r->verdict == OMPB__VERDICT_MISSING)
        snprintf(buf, cap, "only in BASE's --list");
    else if (r->verdict == OMPB__VERDICT_NO_RATIO)
        snprintf(buf, cap, "a time of 0 on a side: no ratio");
}

static void row_note(const ompb__ab_settings *set, const ompb__ab_row *r, char *buf, size_t cap)
{
    char sp[64];
    buf[0] = '\0';
    switch (r->verdict) {
    case OMPB__VERDICT_REGRESSED:
    case OMPB__VERDICT_IMPROVED: {
        char code[360];
        ompb__compare_code_note(r->code_checked, &r->code, code, sizeof code);
        spread_text(r, sp, sizeof sp);
        snprintf(buf, cap, "%s%sq=%.2g; %s", code, code[0] ? "; " : "", r->q, sp);
        break;
    }
    case OMPB__VERDICT_UNTOUCHED:
        spread_text(r, buf, cap);
        break;
    case OMPB__VERDICT_NOISY:
        open_note(set, r, buf, cap);
        break;
    case OMPB__VERDICT_UNKNOWN:
        snprintf(buf, cap, "%zu/%zu runs: no look yet (the first is at %zu runs a side)",
                 r->cmp.base_runs, r->cmp.head_runs, set->plan.runs[0]);
        break;
    case OMPB__VERDICT_DISTURBED:
        snprintf(buf, cap, "the team had its CPUs in %.0f%% of BASE's rounds and %.0f%% of "
                 "HEAD's: %zu and %zu runs with a clean-round median (%zu needed a side for "
                 "the first look); rerun on a quieter machine", 100.0 * r->cmp.base_clean_share,
                 100.0 * r->cmp.head_clean_share, r->cmp.base_clean_runs,
                 r->cmp.head_clean_runs, set->plan.runs[0]);
        break;
    default:
        presence_note(r, buf, cap);
    }
}

/* The interval a row shows (log scale): a flagged instance's from the look
 * that gave its p-value, any other the latest look's. false: none. */
static bool row_interval(const ompb__ab_row *r, double *low, double *high)
{
    bool flagged = ompb__verdict_is(r->verdict, OMPB__VERDICT_CHANGE);
    *low = flagged ? r->seq.p_low : r->seq.low;
    *high = flagged ? r->seq.p_high : r->seq.high;
    return r->seq.looks > 0 && isfinite(*low) && isfinite(*high);
}

static void interval_text(const ompb__ab_row *r, char *buf, size_t cap)
{
    char lo[OMPB__UNIT_TEXT_MAX], hi[OMPB__UNIT_TEXT_MAX];
    double l, h;
    if (!row_interval(r, &l, &h)) {
        snprintf(buf, cap, "-");
        return;
    }
    snprintf(buf, cap, "%s..%s", ompb__format_change(lo, sizeof lo, expm1(l)),
             ompb__format_change(hi, sizeof hi, expm1(h)));
}

/* ---- shared lines -------------------------------------------------------- */

/* ab's name of a verdict in its summary: compare's, but an instance
 * without a spread here is one that had no look yet. */
static const char *summary_name(ompb__verdict v)
{
    return v == OMPB__VERDICT_UNKNOWN ? "not looked at" : ompb__verdict_name(v);
}

/* Every verdict's count, judged ones first, in the table's summary order;
 * b (bold) around the count of what gates and claims a change. */
static void summary_line(FILE *out, const ompb__ab_result *res, size_t n_rows, const char *b)
{
    ompb__verdict order[OMPB__VERDICT_COUNT];
    size_t n;
    ompb__verdict_summary_order(order, &n);
    fprintf(out, "%sJudged %zu of %zu instances%s: ", b, res->judged, n_rows, b);
    for (int judged = 1; judged >= 0; judged--) {
        size_t shown = 0;
        fputs(judged ? "" : "; not judged: ", out);
        for (size_t i = 0; i < n; i++) {
            ompb__verdict v = order[i];
            const char *em =
                ompb__verdict_is(v, OMPB__VERDICT_GATES | OMPB__VERDICT_CHANGE) ? b : "";
            if (!res->counts[v] && ompb__verdict_is(v, OMPB__VERDICT_WHEN_SEEN))
                continue;
            if (ompb__verdict_is(v, OMPB__VERDICT_JUDGED) == (judged == 1))
                fprintf(out, "%s%s%zu %s%s", shown++ ? ", " : "", em, res->counts[v],
                        summary_name(v), em);
        }
    }
    fputc('\n', out);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* When some instances stay noisy because the machine's run-to-run spread
 * puts the threshold out of reach within --max-runs: how many, and the
 * threshold that would likely decide half of them and all of them. */
static void reach_line(FILE *out, const ompb__ab_settings *set, const ompb__ab_rows *rows,
                       bool md)
{
    double *t = malloc((rows->n + 1) * sizeof *t);
    size_t n = 0;
    for (size_t i = 0; t && i < rows->n; i++) {
        double v = ompb__seq_reachable_threshold(&set->plan, &rows->v[i].seq);
        if (rows->v[i].verdict == OMPB__VERDICT_NOISY && v > set->opts.threshold)
            t[n++] = v;
    }
    if (n) {
        qsort(t, n, sizeof *t, cmp_double);
        fprintf(out, "%s%zu noisy instance%s: the machine's run-to-run spread puts the %g%% "
                "threshold out of reach within --max-runs %zu; --threshold %g would likely "
                "decide half of them, %g all\n", md ? "\n" : "", n, n == 1 ? "" : "s",
                100.0 * set->opts.threshold, set->max_runs, 100.0 * t[(n - 1) / 2],
                100.0 * t[n - 1]);
    }
    free(t);
}

static void runs_line(FILE *out, const ab_view *ab, bool md)
{
    size_t used, recipe;
    spent(ab->l, ab->rows, &used, &recipe);
    fprintf(out, "Runs: %zu BASE + %zu HEAD processes (%zu faulty); %zu instance-runs, where "
            "%d runs a side of every instance would take %zu; %.1f s; seed %llu (--seed "
            "repeats the order)\n", ab->l->side_runs[0], ab->l->side_runs[1], faults(ab->l), used,
            OMPB__AB_RECIPE_RUNS, recipe, ab->res->seconds, (unsigned long long)ab->set->seed);
    /* Markdown joins lines into one paragraph: a blank line keeps two. */
    fprintf(out, "%s%s: %s\n", md ? "\n" : "", ab->res->partial ? "PARTIAL report, runs stopped" : "Runs ended",
            ab->res->stop_reason);
}

/* How the pairs after the first were made, for the method line. */
static void pairing_text(const ompb__ab_settings *set, const ompb__ab_result *res, char *buf,
                         size_t cap)
{
    const char *opt = set->pair_by == OMPB__AB_PAIR_AUTO       ? "auto"
                      : set->pair_by == OMPB__AB_PAIR_INSTANCE ? "instance"
                                                               : "run";
    if (res->by_run_from == 0)
        snprintf(buf, cap, ", one instance at a time after the first pair (--pair-by %s)", opt);
    else if (res->by_run_from == 2)
        snprintf(buf, cap, ", every open instance in each run (--pair-by %s)", opt);
    else
        snprintf(buf, cap, ", one instance at a time after the first pair, then every open "
                 "instance in each run (--pair-by %s; %s)", opt, res->pairing_note);
}

static void method_line(FILE *out, const ompb__ab_settings *set, const ompb__ab_rows *rows,
                        const ompb__ab_result *res)
{
    char pairing[400];
    pairing_text(set, res, pairing, sizeof pairing);
    size_t clean = rows->have_cmp ? rows->cmp.accounted : 0;
    bool metric = set->metric && !ompb__metric_is_time(set->metric);
    fprintf(out, "Each run (a process) gives its median%s%s%s; each look tests the pairs of "
            "runs (BASE and HEAD run one after the other%s: Yuen's trimmed one-sample t on the "
            "log ratios of the pairs, so that a drift of the machine cancels). Instances "
            "are looked at after %zu", metric ? " of " : "", metric ? set->metric : "",
            metric  ? " per iteration over all its rounds (--metric)"
            : clean ? " over its clean rounds (no thread lost over 1% of the round to "
                      "preemption; both sides by the same rule; disturbed: too few such runs)"
                    : " (its rounds were not accounted: all rounds)",
            pairing, set->plan.runs[0]);
    for (size_t k = 1; k < set->plan.n_looks; k++)
        fprintf(out, ", %zu", set->plan.runs[k]);
    fprintf(out, " runs a side and run again only while undecided; alpha %.3g is spent across "
            "the looks (Lan-DeMets, Pocock type), so the looks' intervals form a %.0f%% "
            "confidence sequence whatever the stopping; the interval shown is the latest "
            "look's (a flagged instance's: the deciding look's). regressed/improved: an interval beyond +-%.3g%% "
            "that survives Benjamini-Hochberg at %.3g; untouched: an interval within it; "
            "noisy: neither when the runs ended, or too noisy to be decided by the last look "
            "(not run further).\n", set->opts.alpha,
            100.0 * (1.0 - set->opts.alpha), 100.0 * set->opts.threshold, set->opts.alpha);
}

static void env_lines(FILE *out, const ompb__ab_rows *rows, bool md)
{
    if (!rows->have_cmp || rows->cmp.env_diffs.n == 0)
        return;
    fprintf(out, "%sWarning: different runtime environments (%zu):\n", md ? "\n**" : "",
            rows->cmp.env_diffs.n);
    for (size_t i = 0; i < rows->cmp.env_diffs.n; i++) {
        fputs(md ? "- " : "  ", out);
        if (md)
            ompb__put_md_text(out, rows->cmp.env_diffs.v[i], false);
        else
            ompb__put_plain(out, rows->cmp.env_diffs.v[i]);
        fputc('\n', out);
    }
}

static void fault_lines(FILE *out, const ompb__ab_ledger *l, bool keep, bool md)
{
    if (!faults(l))
        return;
    fprintf(out, "\n%sFaulty runs (%zu), counted and not pooled unless their file was read:\n",
            md ? "**" : "", faults(l));
    for (size_t i = 0; i < l->n_runs; i++) {
        const ompb__ab_run *run = &l->runs[i];
        if (!ompb__ab_run_is_fault(run))
            continue;
        fprintf(out, "%s%s run %zu: %s: ", md ? "- " : "  ", run->side ? "HEAD" : "BASE",
                run->index, ompb__ab_outcome_name(run->outcome));
        if (md)
            ompb__put_md_text(out, run->detail, false);
        else
            ompb__put_plain(out, run->detail);
        if (keep)
            fprintf(out, " (log: %s)", run->log);
        fputc('\n', out);
    }
}

/* ---- console ------------------------------------------------------------- */

/* Verdicts needing attention first (compare's order), then by name order. */
static int by_verdict(const void *a, const void *b)
{
    const ompb__ab_row *x = *(const ompb__ab_row *const *)a, *y = *(const ompb__ab_row *const *)b;
    if (x->verdict != y->verdict)
        return (int)x->verdict - (int)y->verdict;
    return (x > y) - (x < y);
}

static const ompb__ab_row **sorted(const ompb__ab_rows *rows)
{
    const ompb__ab_row **v = malloc((rows->n + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < rows->n; i++)
        v[i] = &rows->v[i];
    qsort(v, rows->n, sizeof *v, by_verdict);
    return v;
}

static int name_width(const ompb__ab_rows *rows)
{
    size_t w = 9;
    for (size_t i = 0; i < rows->n; i++) {
        size_t n = ompb__plain_width(rows->v[i].name);
        w = n > w ? n : w;
    }
    return (int)(w < NAME_COL_MAX ? w : NAME_COL_MAX);
}

/* The unit of the BASE and HEAD columns: --metric's, or time. */
static ompb__metric_unit shown_unit(const ab_view *ab)
{
    return ab->set->metric && !ompb__metric_is_time(ab->set->metric) ? ab->l->unit
                                                                     : OMPB__METRIC_NS;
}

static void row_cells(const ompb__ab_settings *set, ompb__metric_unit unit, const ompb__ab_row *r,
                      char b[][OMPB__UNIT_TEXT_MAX], char *iv, size_t iv_cap, char *runs,
                      size_t runs_cap, char *note)
{
    ompb__format_metric(b[0], OMPB__UNIT_TEXT_MAX, r->cmp.base_ns, unit);
    ompb__format_metric(b[1], OMPB__UNIT_TEXT_MAX, r->cmp.head_ns, unit);
    ompb__format_change(b[2], OMPB__UNIT_TEXT_MAX, row_change(r));
    interval_text(r, iv, iv_cap);
    snprintf(runs, runs_cap, "%zu/%zu", r->cmp.base_runs, r->cmp.head_runs);
    row_note(set, r, note, NOTE_MAX);
}

static void console_row(FILE *out, const ompb__ab_settings *set, ompb__metric_unit unit,
                        const ompb__ab_row *r, int width)
{
    char v[3][OMPB__UNIT_TEXT_MAX], iv[2 * OMPB__UNIT_TEXT_MAX + 4], runs[48], note[NOTE_MAX];
    row_cells(set, unit, r, v, iv, sizeof iv, runs, sizeof runs, note);
    size_t w = ompb__put_plain(out, r->name);
    fprintf(out, "%*s  %11s  %11s  %9s  %-19s  %7s  %-14s ", (int)(w < (size_t)width ? (size_t)width - w : 0), "",
            v[0], v[1], v[2], iv, runs, ompb__verdict_name(r->verdict));
    ompb__put_plain(out, note);
    fputc('\n', out);
}

static int print_console(FILE *out, const ab_view *ab)
{
    const ompb__ab_row **v = sorted(ab->rows);
    if (!v)
        return OMPB_ENOMEM;
    int width = name_width(ab->rows);
    fprintf(out, "ompbench ab: BASE %s, HEAD %s\n", ab->set->cmd[0], ab->set->cmd[1]);
    summary_line(out, ab->res, ab->rows->n, "");
    runs_line(out, ab, false);
    reach_line(out, ab->set, ab->rows, false);
    fprintf(out, "\n%-*s  %11s  %11s  %9s  %-19s  %7s  %-14s %s\n", width, "Benchmark", "BASE",
            "HEAD", "Change", "Interval", "Runs", "Verdict", "Note");
    for (size_t i = 0; i < ab->rows->n; i++)
        console_row(out, ab->set, shown_unit(ab), v[i], width);
    free(v);
    fault_lines(out, ab->l, ab->set->keep, false);
    env_lines(out, ab->rows, false);
    fputc('\n', out);
    method_line(out, ab->set, ab->rows, ab->res);
    return 0;
}

/* ---- markdown ------------------------------------------------------------ */

static void md_row(FILE *out, const ompb__ab_settings *set, ompb__metric_unit unit,
                   const ompb__ab_row *r)
{
    char v[3][OMPB__UNIT_TEXT_MAX], iv[2 * OMPB__UNIT_TEXT_MAX + 4], runs[48], note[NOTE_MAX];
    /* ab's table is read for what it decided: every claimed change stands
     * out, with what asks for emphasis. */
    bool flag = ompb__verdict_is(r->verdict, OMPB__VERDICT_EMPHASIS) ||
                ompb__verdict_is(r->verdict, OMPB__VERDICT_CHANGE);
    row_cells(set, unit, r, v, iv, sizeof iv, runs, sizeof runs, note);
    fputs("| ", out);
    ompb__put_md_code(out, r->name, true);
    fprintf(out, " | %s | %s | %s%s%s | %s | %s | %s%s%s | ", v[0], v[1], flag ? "**" : "", v[2],
            flag ? "**" : "", iv, runs, flag ? "**" : "", ompb__verdict_name(r->verdict),
            flag ? "**" : "");
    ompb__put_md_text(out, note, true);
    fputs(" |\n", out);
}

static int print_markdown(FILE *out, const ab_view *ab)
{
    const ompb__ab_row **v = sorted(ab->rows);
    if (!v)
        return OMPB_ENOMEM;
    fputs("### ompbench ab\n\n", out);
    if (ab->res->partial)
        fputs("**PARTIAL**: the runs were interrupted; this is what was run so far.\n\n", out);
    summary_line(out, ab->res, ab->rows->n, "**");
    fputc('\n', out);
    runs_line(out, ab, true);
    reach_line(out, ab->set, ab->rows, true);
    fputs("\n| Benchmark | BASE | HEAD | Change | Interval | Runs | Verdict | Note |\n"
          "|:--|--:|--:|--:|:--|--:|:--|:--|\n", out);
    for (size_t i = 0; i < ab->rows->n; i++)
        md_row(out, ab->set, shown_unit(ab), v[i]);
    free(v);
    fault_lines(out, ab->l, ab->set->keep, true);
    env_lines(out, ab->rows, true);
    fputc('\n', out);
    method_line(out, ab->set, ab->rows, ab->res);
    return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *pct(double fraction)
{
    return ompb__json_number_or_null(100.0 * fraction);
}

static json_t *json_row(const ompb__ab_settings *set, const ompb__ab_row *r)
{
    char note[NOTE_MAX];
    row_note(set, r, note, sizeof note);
    double l, h;
    bool iv = row_interval(r, &l, &h);
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:o, s:I, "
                     "s:b, s:o, s:o, s:s}",
                     "name", r->name, "verdict", ompb__verdict_key(r->verdict),
                     "base_ns", ompb__json_number_or_null(r->cmp.base_ns),
                     "head_ns", ompb__json_number_or_null(r->cmp.head_ns),
                     "change_pct", pct(row_change(r)),
                     "ci_low_pct", iv ? pct(expm1(l)) : json_null(),
                     "ci_high_pct", iv ? pct(expm1(h)) : json_null(),
                     "p_value", ompb__json_number_or_null(r->seq.p),
                     "q_value", ompb__json_number_or_null(r->q),
                     "base_runs", (json_int_t)r->cmp.base_runs,
                     "head_runs", (json_int_t)r->cmp.head_runs,
                     "base_spread_pct", pct(r->cmp.base_spread),
                     "head_spread_pct", pct(r->cmp.head_spread),
                     "looks", (json_int_t)r->seq.looks, "decided", r->decided, "code",
                     ompb__code_json(r->code_checked, &r->code),
                     "runs_needed", r->verdict == OMPB__VERDICT_NOISY && r->runs_needed
                                        ? json_integer((json_int_t)r->runs_needed)
                                        : json_null(),
                     "note", note);
}

static json_t *json_faults(const ompb__ab_ledger *l)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < l->n_runs; i++) {
        const ompb__ab_run *run = &l->runs[i];
        if (ompb__ab_run_is_fault(run))
            json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "side",
                                               run->side ? "head" : "base", "run",
                                               (json_int_t)run->index, "outcome",
                                               ompb__ab_outcome_name(run->outcome), "detail",
                                               run->detail, "file", run->path, "log", run->log));
    }
    return a;
}

static json_t *json_summary(const ompb__ab_result *res, size_t n_rows)
{
    json_t *s = json_pack("{s:I, s:I, s:I}", "instances", (json_int_t)n_rows, "judged",
                          (json_int_t)res->judged, "open", (json_int_t)res->open);
    for (int v = 0; s && v < OMPB__VERDICT_COUNT; v++)
        json_object_set_new(s, ompb__verdict_key((ompb__verdict)v),
                            json_integer((json_int_t)res->counts[v]));
    return s;
}

static json_t *json_side(const ompb__ab_settings *set, const ompb__ab_ledger *l, int side)
{
    return json_pack("{s:s, s:b, s:I, s:I}", "command", set->cmd[side], "shell", set->shell[side],
                     "runs", (json_int_t)l->side_runs[side], "pooled",
                     (json_int_t)l->pooled[side]);
}

static json_t *json_report(const ab_view *ab)
{
    const ompb__ab_settings *set = ab->set;
    size_t used, recipe;
    spent(ab->l, ab->rows, &used, &recipe);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)set->seed);
    json_t *looks = json_array(), *rows = json_array(), *env = json_array();
    for (size_t k = 0; looks && k < set->plan.n_looks; k++)
        json_array_append_new(looks, json_integer((json_int_t)set->plan.runs[k]));
    for (size_t i = 0; rows && i < ab->rows->n; i++)
        json_array_append_new(rows, json_row(set, &ab->rows->v[i]));
    for (size_t i = 0; env && ab->rows->have_cmp && i < ab->rows->cmp.env_diffs.n; i++)
        json_array_append_new(env, json_string(ab->rows->cmp.env_diffs.v[i]));
    const char *pair_by = set->pair_by == OMPB__AB_PAIR_AUTO       ? "auto"
                          : set->pair_by == OMPB__AB_PAIR_INSTANCE ? "instance"
                                                                   : "run";
    json_t *by_run_from = ab->res->by_run_from ? json_integer((json_int_t)ab->res->by_run_from)
                                               : json_null();
    json_t *note = ab->res->pairing_note[0] ? json_string(ab->res->pairing_note) : json_null();
    return json_pack("{s:s, s:b, s:s, s:s, s:s, s:o, s:o, s:f, s:f, s:I, s:I, s:o, s:o, s:o, "
                     "s:I, s:I, s:f, s:o, s:o, s:o, s:o}",
                     "tool", OMPB__AB_TOOL, "partial", ab->res->partial, "stop_reason",
                     ab->res->stop_reason, "seed", seed, "pair_by", pair_by,
                     "pairs_by_run_from", by_run_from, "pairing_note", note,
                     "alpha", set->opts.alpha,
                     "threshold_pct",
                     100.0 * set->opts.threshold, "min_runs", (json_int_t)set->min_runs,
                     "max_runs", (json_int_t)set->max_runs, "looks", looks, "base",
                     json_side(set, ab->l, 0), "head", json_side(set, ab->l, 1), "instance_runs",
                     (json_int_t)used, "recipe_instance_runs", (json_int_t)recipe, "seconds",
                     ab->res->seconds, "summary", json_summary(ab->res, ab->rows->n), "faults",
                     json_faults(ab->l),
                     "environment_differences", env, "instances", rows);
}

static int print_json(FILE *out, const ab_view *ab)
{
    json_t *doc = json_report(ab);
    if (!doc)
        return OMPB_ENOMEM;
    int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(doc);
    fputc('\n', out);
    return rc ? OMPB_EIO : 0;
}

/* One renderer per row of the format table (analysis/units.h). */
static int (*const renderers[])(FILE *, const ab_view *) = {
    [OMPB__REPORT_CONSOLE] = print_console,
    [OMPB__REPORT_MARKDOWN] = print_markdown,
    [OMPB__REPORT_JSON] = print_json,
};
_Static_assert(sizeof renderers / sizeof renderers[0] == OMPB__REPORT_FORMAT_COUNT,
               "an ab renderer for every report format");

int ompb__ab_print(FILE *out, const ompb__ab_settings *set, const ompb__ab_ledger *l,
                   const ompb__ab_rows *rows, const ompb__ab_result *res,
                   ompb__report_format fmt)
{
    if ((unsigned)fmt >= OMPB__REPORT_FORMAT_COUNT || !renderers[fmt])
        return OMPB_EINVAL;
    const ab_view view = {set, l, rows, res};
    int rc = renderers[fmt](out, &view);
    return rc ? rc : ferror(out) ? OMPB_EIO : 0;
}
