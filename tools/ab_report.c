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
 */
#include "ab.h"

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

static bool is_fault(const ompb__ab_run *run)
{
    return run->outcome != OMPB__AB_RUN_OK;
}

static size_t faults(const ompb__ab *ab)
{
    size_t n = 0;
    for (size_t i = 0; i < ab->n_runs; i++)
        n += is_fault(&ab->runs[i]);
    return n;
}

/* Instance-runs spent (each instance's runs, both sides) and what the
 * recipe's 10 runs a side of every instance both sides list would take. */
static void spent(const ompb__ab *ab, size_t *used, size_t *recipe)
{
    *used = *recipe = 0;
    /* What the runs were given to run, pooled or not. */
    for (size_t i = 0; i < ab->n_runs; i++)
        *used += ab->runs[i].instances;
    for (size_t i = 0; i < ab->n_rows; i++) {
        *recipe += ab->rows[i].listed[0] && ab->rows[i].listed[1] ? 2 * OMPB__AB_RECIPE_RUNS : 0;
    }
}

static bool clears_threshold(const ompb__ab *ab, const ompb__ab_row *r)
{
    return r->seq.low > ab->plan.upper || r->seq.high < ab->plan.lower;
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
static void reach_text(const ompb__ab *ab, const ompb__ab_row *r, char *buf, size_t cap)
{
    double t = ompb__seq_reachable_threshold(&ab->plan, &r->seq);
    buf[0] = '\0';
    if (isnan(t) || t <= ab->opts.threshold)
        return;
    snprintf(buf, cap, "; the run-to-run spread puts the %g%% threshold out of reach within "
             "--max-runs %zu: --threshold %g would likely decide it", 100.0 * ab->opts.threshold,
             ab->max_runs, 100.0 * t);
}

static void open_note(const ompb__ab *ab, const ompb__ab_row *r, char *buf, size_t cap)
{
    char sp[64], reach[200];
    spread_text(r, sp, sizeof sp);
    reach_text(ab, r, reach, sizeof reach);
    if (clears_threshold(ab, r)) {
        snprintf(buf, cap, "%s: the interval clears the threshold, but not after "
                 "Benjamini-Hochberg over the judged instances (q=%.2g)", sp, r->q);
    } else if (r->runs_needed == 0) {
        snprintf(buf, cap, "%s: more than %d runs a side would be needed at this spread%s%s", sp,
                 OMPB__SEQ_MAX_RUNS, r->seq.futile ? " (not run further)" : "", reach);
    } else if (r->seq.futile && r->runs_needed > ab->max_runs) {
        snprintf(buf, cap, "%s: no look up to --max-runs would likely decide it, ~%zu runs a "
                 "side would (not run further)%s", sp, r->runs_needed, reach);
    } else {
        size_t more = r->runs_needed > r->seq.n ? r->runs_needed - r->seq.n : 1;
        snprintf(buf, cap, "%s: ~%zu more run%s a side would likely decide%s", sp, more,
                 more == 1 ? "" : "s", r->runs_needed > ab->max_runs ? " (beyond --max-runs)"
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

static void row_note(const ompb__ab *ab, const ompb__ab_row *r, char *buf, size_t cap)
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
        open_note(ab, r, buf, cap);
        break;
    case OMPB__VERDICT_UNKNOWN:
        snprintf(buf, cap, "%zu/%zu runs: no look yet (the first is at %zu runs a side)",
                 r->cmp.base_runs, r->cmp.head_runs, ab->plan.runs[0]);
        break;
    case OMPB__VERDICT_DISTURBED:
        snprintf(buf, cap, "the team had its CPUs in %.0f%% of BASE's rounds and %.0f%% of "
                 "HEAD's: %zu and %zu runs with a clean-round median (%zu needed a side for "
                 "the first look); rerun on a quieter machine", 100.0 * r->cmp.base_clean_share,
                 100.0 * r->cmp.head_clean_share, r->cmp.base_clean_runs,
                 r->cmp.head_clean_runs, ab->plan.runs[0]);
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
static void summary_line(FILE *out, const ompb__ab *ab, const char *b)
{
    ompb__verdict order[OMPB__VERDICT_COUNT];
    size_t n;
    ompb__verdict_summary_order(order, &n);
    fprintf(out, "%sJudged %zu of %zu instances%s: ", b, ab->judged, ab->n_rows, b);
    for (int judged = 1; judged >= 0; judged--) {
        size_t shown = 0;
        fputs(judged ? "" : "; not judged: ", out);
        for (size_t i = 0; i < n; i++) {
            ompb__verdict v = order[i];
            const char *em =
                ompb__verdict_is(v, OMPB__VERDICT_GATES | OMPB__VERDICT_CHANGE) ? b : "";
            if (!ab->counts[v] && ompb__verdict_is(v, OMPB__VERDICT_WHEN_SEEN))
                continue;
            if (ompb__verdict_is(v, OMPB__VERDICT_JUDGED) == (judged == 1))
                fprintf(out, "%s%s%zu %s%s", shown++ ? ", " : "", em, ab->counts[v],
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
static void reach_line(FILE *out, const ompb__ab *ab, bool md)
{
    double *t = malloc((ab->n_rows + 1) * sizeof *t);
    size_t n = 0;
    for (size_t i = 0; t && i < ab->n_rows; i++) {
        double v = ompb__seq_reachable_threshold(&ab->plan, &ab->rows[i].seq);
        if (ab->rows[i].verdict == OMPB__VERDICT_NOISY && v > ab->opts.threshold)
            t[n++] = v;
    }
    if (n) {
        qsort(t, n, sizeof *t, cmp_double);
        fprintf(out, "%s%zu noisy instance%s: the machine's run-to-run spread puts the %g%% "
                "threshold out of reach within --max-runs %zu; --threshold %g would likely "
                "decide half of them, %g all\n", md ? "\n" : "", n, n == 1 ? "" : "s",
                100.0 * ab->opts.threshold, ab->max_runs, 100.0 * t[(n - 1) / 2],
                100.0 * t[n - 1]);
    }
    free(t);
}

static void runs_line(FILE *out, const ompb__ab *ab, bool md)
{
    size_t used, recipe;
    spent(ab, &used, &recipe);
    fprintf(out, "Runs: %zu BASE + %zu HEAD processes (%zu faulty); %zu instance-runs, where "
            "%d runs a side of every instance would take %zu; %.1f s; seed %llu (--seed "
            "repeats the order)\n", ab->side_runs[0], ab->side_runs[1], faults(ab), used,
            OMPB__AB_RECIPE_RUNS, recipe, ab->seconds, (unsigned long long)ab->seed);
    /* Markdown joins lines into one paragraph: a blank line keeps two. */
    fprintf(out, "%s%s: %s\n", md ? "\n" : "", ab->partial ? "PARTIAL report, runs stopped" : "Runs ended",
            ab->stop_reason);
}

static void method_line(FILE *out, const ompb__ab *ab)
{
    size_t clean = ab->have_cmp ? ab->cmp.accounted : 0;
    bool metric = ab->metric && !ompb__metric_is_time(ab->metric);
    fprintf(out, "Each run (a process) gives its median%s%s%s; each look tests the pairs of "
            "runs (BASE and HEAD run one after the other: Yuen's trimmed one-sample t on the "
            "log ratios of the pairs, so that a drift of the machine cancels). Instances "
            "are looked at after %zu", metric ? " of " : "", metric ? ab->metric : "",
            metric  ? " per iteration over all its rounds (--metric)"
            : clean ? " over its clean rounds (no thread lost over 1% of the round to "
                      "preemption; both sides by the same rule; disturbed: too few such runs)"
                    : " (its rounds were not accounted: all rounds)",
            ab->plan.runs[0]);
    for (size_t k = 1; k < ab->plan.n_looks; k++)
        fprintf(out, ", %zu", ab->plan.runs[k]);
    fprintf(out, " runs a side and run again only while undecided; alpha %.3g is spent across "
            "the looks (Lan-DeMets, Pocock type), so the looks' intervals form a %.0f%% "
            "confidence sequence whatever the stopping; the interval shown is the latest "
            "look's (a flagged instance's: the deciding look's). regressed/improved: an interval beyond +-%.3g%% "
            "that survives Benjamini-Hochberg at %.3g; untouched: an interval within it; "
            "noisy: neither when the runs ended, or too noisy to be decided by the last look "
            "(not run further).\n", ab->opts.alpha,
            100.0 * (1.0 - ab->opts.alpha), 100.0 * ab->opts.threshold, ab->opts.alpha);
}

static void env_lines(FILE *out, const ompb__ab *ab, bool md)
{
    if (!ab->have_cmp || ab->cmp.env_diffs.n == 0)
        return;
    fprintf(out, "%sWarning: different runtime environments (%zu):\n", md ? "\n**" : "",
            ab->cmp.env_diffs.n);
    for (size_t i = 0; i < ab->cmp.env_diffs.n; i++) {
        fputs(md ? "- " : "  ", out);
        if (md)
            ompb__put_md_text(out, ab->cmp.env_diffs.v[i], false);
        else
            ompb__put_plain(out, ab->cmp.env_diffs.v[i]);
        fputc('\n', out);
    }
}

static void fault_lines(FILE *out, const ompb__ab *ab, bool md)
{
    if (!faults(ab))
        return;
    fprintf(out, "\n%sFaulty runs (%zu), counted and not pooled unless their file was read:\n",
            md ? "**" : "", faults(ab));
    for (size_t i = 0; i < ab->n_runs; i++) {
        const ompb__ab_run *run = &ab->runs[i];
        if (!is_fault(run))
            continue;
        fprintf(out, "%s%s run %zu: %s: ", md ? "- " : "  ", run->side ? "HEAD" : "BASE",
                run->index, ompb__ab_outcome_name(run->outcome));
        if (md)
            ompb__put_md_text(out, run->detail, false);
        else
            ompb__put_plain(out, run->detail);
        if (ab->keep)
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

static const ompb__ab_row **sorted(const ompb__ab *ab)
{
    const ompb__ab_row **v = malloc((ab->n_rows + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < ab->n_rows; i++)
        v[i] = &ab->rows[i];
    qsort(v, ab->n_rows, sizeof *v, by_verdict);
    return v;
}

static int name_width(const ompb__ab *ab)
{
    size_t w = 9;
    for (size_t i = 0; i < ab->n_rows; i++) {
        size_t n = ompb__plain_width(ab->rows[i].name);
        w = n > w ? n : w;
    }
    return (int)(w < NAME_COL_MAX ? w : NAME_COL_MAX);
}

static void row_cells(const ompb__ab *ab, const ompb__ab_row *r, char b[][OMPB__UNIT_TEXT_MAX],
                      char *iv, size_t iv_cap, char *runs, size_t runs_cap, char *note)
{
    ompb__metric_unit unit = ab->metric && !ompb__metric_is_time(ab->metric) ? ab->unit
                                                                             : OMPB__METRIC_NS;
    ompb__format_metric(b[0], OMPB__UNIT_TEXT_MAX, r->cmp.base_ns, unit);
    ompb__format_metric(b[1], OMPB__UNIT_TEXT_MAX, r->cmp.head_ns, unit);
    ompb__format_change(b[2], OMPB__UNIT_TEXT_MAX, row_change(r));
    interval_text(r, iv, iv_cap);
    snprintf(runs, runs_cap, "%zu/%zu", r->cmp.base_runs, r->cmp.head_runs);
    row_note(ab, r, note, NOTE_MAX);
}

static void console_row(FILE *out, const ompb__ab *ab, const ompb__ab_row *r, int width)
{
    char v[3][OMPB__UNIT_TEXT_MAX], iv[2 * OMPB__UNIT_TEXT_MAX + 4], runs[48], note[NOTE_MAX];
    row_cells(ab, r, v, iv, sizeof iv, runs, sizeof runs, note);
    size_t w = ompb__put_plain(out, r->name);
    fprintf(out, "%*s  %11s  %11s  %9s  %-19s  %7s  %-14s ", (int)(w < (size_t)width ? (size_t)width - w : 0), "",
            v[0], v[1], v[2], iv, runs, ompb__verdict_name(r->verdict));
    ompb__put_plain(out, note);
    fputc('\n', out);
}

static int print_console(FILE *out, const ompb__ab *ab)
{
    const ompb__ab_row **v = sorted(ab);
    if (!v)
        return OMPB_ENOMEM;
    int width = name_width(ab);
    fprintf(out, "ompbench ab: BASE %s, HEAD %s\n", ab->cmd[0], ab->cmd[1]);
    summary_line(out, ab, "");
    runs_line(out, ab, false);
    reach_line(out, ab, false);
    fprintf(out, "\n%-*s  %11s  %11s  %9s  %-19s  %7s  %-14s %s\n", width, "Benchmark", "BASE",
            "HEAD", "Change", "Interval", "Runs", "Verdict", "Note");
    for (size_t i = 0; i < ab->n_rows; i++)
        console_row(out, ab, v[i], width);
    free(v);
    fault_lines(out, ab, false);
    env_lines(out, ab, false);
    fputc('\n', out);
    method_line(out, ab);
    return 0;
}

/* ---- markdown ------------------------------------------------------------ */

static void md_row(FILE *out, const ompb__ab *ab, const ompb__ab_row *r)
{
    char v[3][OMPB__UNIT_TEXT_MAX], iv[2 * OMPB__UNIT_TEXT_MAX + 4], runs[48], note[NOTE_MAX];
    /* ab's table is read for what it decided: every claimed change stands
     * out, with what asks for emphasis. */
    bool flag = ompb__verdict_is(r->verdict, OMPB__VERDICT_EMPHASIS) ||
                ompb__verdict_is(r->verdict, OMPB__VERDICT_CHANGE);
    row_cells(ab, r, v, iv, sizeof iv, runs, sizeof runs, note);
    fputs("| ", out);
    ompb__put_md_code(out, r->name, true);
    fprintf(out, " | %s | %s | %s%s%s | %s | %s | %s%s%s | ", v[0], v[1], flag ? "**" : "", v[2],
            flag ? "**" : "", iv, runs, flag ? "**" : "", ompb__verdict_name(r->verdict),
            flag ? "**" : "");
    ompb__put_md_text(out, note, true);
    fputs(" |\n", out);
}

static int print_markdown(FILE *out, const ompb__ab *ab)
{
    const ompb__ab_row **v = sorted(ab);
    if (!v)
        return OMPB_ENOMEM;
    fputs("### ompbench ab\n\n", out);
    if (ab->partial)
        fputs("**PARTIAL**: the runs were interrupted; this is what was run so far.\n\n", out);
    summary_line(out, ab, "**");
    fputc('\n', out);
    runs_line(out, ab, true);
    reach_line(out, ab, true);
    fputs("\n| Benchmark | BASE | HEAD | Change | Interval | Runs | Verdict | Note |\n"
          "|:--|--:|--:|--:|:--|--:|:--|:--|\n", out);
    for (size_t i = 0; i < ab->n_rows; i++)
        md_row(out, ab, v[i]);
    free(v);
    fault_lines(out, ab, true);
    env_lines(out, ab, true);
    fputc('\n', out);
    method_line(out, ab);
    return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *pct(double fraction)
{
    return ompb__json_number_or_null(100.0 * fraction);
}

static json_t *json_row(const ompb__ab *ab, const ompb__ab_row *r)
{
    char note[NOTE_MAX];
    row_note(ab, r, note, sizeof note);
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

static json_t *json_faults(const ompb__ab *ab)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < ab->n_runs; i++) {
        const ompb__ab_run *run = &ab->runs[i];
        if (is_fault(run))
            json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "side",
                                               run->side ? "head" : "base", "run",
                                               (json_int_t)run->index, "outcome",
                                               ompb__ab_outcome_name(run->outcome), "detail",
                                               run->detail, "file", run->path, "log", run->log));
    }
    return a;
}

static json_t *json_summary(const ompb__ab *ab)
{
    json_t *s = json_pack("{s:I, s:I, s:I}", "instances", (json_int_t)ab->n_rows, "judged",
                          (json_int_t)ab->judged, "open", (json_int_t)ab->open);
    for (int v = 0; s && v < OMPB__VERDICT_COUNT; v++)
        json_object_set_new(s, ompb__verdict_key((ompb__verdict)v),
                            json_integer((json_int_t)ab->counts[v]));
    return s;
}

static json_t *json_side(const ompb__ab *ab, int side)
{
    return json_pack("{s:s, s:b, s:I, s:I}", "command", ab->cmd[side], "shell", ab->shell[side],
                     "runs", (json_int_t)ab->side_runs[side], "pooled",
                     (json_int_t)ab->pooled[side]);
}

static json_t *json_report(const ompb__ab *ab)
{
    size_t used, recipe;
    spent(ab, &used, &recipe);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)ab->seed);
    json_t *looks = json_array(), *rows = json_array(), *env = json_array();
    for (size_t k = 0; looks && k < ab->plan.n_looks; k++)
        json_array_append_new(looks, json_integer((json_int_t)ab->plan.runs[k]));
    for (size_t i = 0; rows && i < ab->n_rows; i++)
        json_array_append_new(rows, json_row(ab, &ab->rows[i]));
    for (size_t i = 0; env && ab->have_cmp && i < ab->cmp.env_diffs.n; i++)
        json_array_append_new(env, json_string(ab->cmp.env_diffs.v[i]));
    return json_pack("{s:s, s:b, s:s, s:s, s:f, s:f, s:I, s:I, s:o, s:o, s:o, s:I, s:I, s:f, "
                     "s:o, s:o, s:o, s:o}",
                     "tool", OMPB__AB_TOOL, "partial", ab->partial, "stop_reason",
                     ab->stop_reason, "seed", seed, "alpha", ab->opts.alpha, "threshold_pct",
                     100.0 * ab->opts.threshold, "min_runs", (json_int_t)ab->min_runs,
                     "max_runs", (json_int_t)ab->max_runs, "looks", looks, "base",
                     json_side(ab, 0), "head", json_side(ab, 1), "instance_runs",
                     (json_int_t)used, "recipe_instance_runs", (json_int_t)recipe, "seconds",
                     ab->seconds, "summary", json_summary(ab), "faults", json_faults(ab),
                     "environment_differences", env, "instances", rows);
}

static int print_json(FILE *out, const ompb__ab *ab)
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
static int (*const renderers[])(FILE *, const ompb__ab *) = {
    [OMPB__REPORT_CONSOLE] = print_console,
    [OMPB__REPORT_MARKDOWN] = print_markdown,
    [OMPB__REPORT_JSON] = print_json,
};
_Static_assert(sizeof renderers / sizeof renderers[0] == OMPB__REPORT_FORMAT_COUNT,
               "an ab renderer for every report format");

int ompb__ab_print(FILE *out, const ompb__ab *ab, ompb__report_format fmt)
{
    if ((unsigned)fmt >= OMPB__REPORT_FORMAT_COUNT || !renderers[fmt])
        return OMPB_EINVAL;
    int rc = renderers[fmt](out, ab);
    return rc ? rc : ferror(out) ? OMPB_EIO : 0;
}
