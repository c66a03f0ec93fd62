/* SPDX-License-Identifier: MIT */
/*
 * The three renderings of a comparison: a console table, a markdown block to
 * paste into a pull request, and JSON for scripts. All three lead with how
 * many instances could be judged at all; console and markdown then put what
 * needs attention first (regressions and failures, then improvements,
 * largest change first, then what was too noisy to tell); all three carry
 * the summary counts, the geometric-mean change, the method and the
 * environment warning, so no format hides a suspect comparison. Names and
 * notes from the result files are escaped for the terminal and for markdown
 * (analysis/units.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "analysis/compare.h"
#include "report/report.h"
#include "analysis/metric.h"
#include "analysis/units.h"

#define OMPB__NOTE_MAX 640
#define OMPB__NAME_COL_MAX 60
#define OMPB__ENV_WARNING "different runtime environments"

/* A row's value in the comparison's metric: a time, or a counter. */
static char *value_text(const ompb__comparison *cmp, char *buf, size_t cap, double v)
{
    return ompb__format_metric(buf, cap, v, cmp->unit);
}

/* What a 0 is in this metric, for the notes: "a time of 0" or "a value of 0". */
static const char *zero_text(const ompb__comparison *cmp)
{
    return ompb__metric_is_time(cmp->metric) ? "a time of 0" : "a value of 0";
}

/* "time" or the counter, for the report's headings. */
static const char *metric_name(const ompb__comparison *cmp)
{
    return ompb__metric_is_time(cmp->metric) ? "time" : cmp->metric;
}

typedef struct sort_key {
    const ompb__compare_row *row;
    size_t index;
} sort_key;

/* Within a verdict, as its row says (regressions, noisy and untouched by
 * change descending, improvements ascending: largest speed-up first, the
 * rest in file order); an undefined change (a time of 0) last, as NAN
 * would break the order. */
static double sort_value(const ompb__compare_row *r)
{
    if (isnan(r->change))
        return INFINITY;
    switch (ompb__verdict_info(r->verdict)->sort) {
    case OMPB__SORT_CHANGE_DESC:
        return -r->change;
    case OMPB__SORT_CHANGE_ASC:
        return r->change;
    case OMPB__SORT_SIZE_DESC:
        return -fabs(r->change);
    default:
        return 0.0;
    }
}

static int cmp_rows(const void *a, const void *b)
{
    const sort_key *x = a, *y = b;
    if (x->row->verdict != y->row->verdict)
        return (int)x->row->verdict - (int)y->row->verdict;
    double vx = sort_value(x->row), vy = sort_value(y->row);
    if (vx != vy)
        return vx < vy ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static sort_key *sorted_rows(const ompb__comparison *cmp)
{
    sort_key *keys = malloc((cmp->n + 1) * sizeof *keys);
    if (!keys)
        return NULL;
    for (size_t i = 0; i < cmp->n; i++)
        keys[i] = (sort_key){&cmp->rows[i], i};
    qsort(keys, cmp->n, sizeof *keys, cmp_rows);
    return keys;
}

/* ---- shared text ---------------------------------------------------------- */

static void failed_note(const ompb__compare_row *r, char *buf, size_t cap)
{
    const char *where = !r->base ? "in HEAD (not in BASE)"
                        : r->base->failed ? "in BASE and HEAD" : "in HEAD";
    snprintf(buf, cap, "failed %s: %s", where, r->head->error_message);
}

/* "2.1%/2.4%": the run-to-run spread of each side. */
static void spread_text(const ompb__compare_row *r, char *buf, size_t cap)
{
    snprintf(buf, cap, "spread %.1f%%/%.1f%%", 100.0 * r->base_spread, 100.0 * r->head_spread);
}

/* The level of an interval, "95%" or "99.88%": enough digits that a level
 * just short of 100% does not print as 100%. */
static void level_text(char *buf, size_t cap, double level)
{
    double miss = 100.0 * (1.0 - level);
    int digits = miss >= 1.0 ? 0 : miss >= 0.1 ? 1 : miss >= 0.01 ? 2 : 3;
    snprintf(buf, cap, "%.*f%%", digits, 100.0 * level);
}

/* Noisy although the printed interval lies beyond the threshold: the row
 * says that Benjamini-Hochberg held it back, and which interval the decision
 * used (at the adjusted level it reaches the threshold). */
static void held_back_note(const ompb__comparison *cmp, const ompb__compare_row *r,
                           const char *spread, char *buf, size_t cap)
{
    char level[16], used[16], lo[OMPB__UNIT_TEXT_MAX], hi[OMPB__UNIT_TEXT_MAX];
    level_text(level, sizeof level, 1.0 - cmp->opts.alpha);
    if (isnan(r->bh_level)) {
        snprintf(buf, cap, "%s: the %s interval clears the threshold, but Benjamini-Hochberg "
                 "over the %zu judged instances held it back (q=%.2f)", spread, level,
                 cmp->judged, r->q);
        return;
    }
    level_text(used, sizeof used, r->bh_level);
    snprintf(buf, cap, "%s: the %s interval clears the threshold, but Benjamini-Hochberg over "
             "the %zu judged instances held it back (q=%.2f): the decision used the %s "
             "interval, %s..%s, which does not", spread, level, cmp->judged, r->q, used,
             ompb__format_change(lo, sizeof lo, r->bh_low),
             ompb__format_change(hi, sizeof hi, r->bh_high));
}

static void judged_note(const ompb__comparison *cmp, const ompb__compare_row *r, char *buf,
                        size_t cap)
{
    char spread[64], q[32] = "";
    spread_text(r, spread, sizeof spread);
    if (ompb__verdict_is(r->verdict, OMPB__VERDICT_CHANGE))
        snprintf(q, sizeof q, r->q < 1e-4 ? "q<0.0001; " : "q=%.4f; ", r->q);
    if (r->verdict != OMPB__VERDICT_NOISY)
        snprintf(buf, cap, "%s%s", q, spread);
    else if (r->runs_needed == 0)
        held_back_note(cmp, r, spread, buf, cap);
    else if (r->runs_needed > OMPB__COMPARE_MAX_RUNS)
        snprintf(buf, cap, "%s: more than %d runs per side would be needed at this threshold",
                 spread, OMPB__COMPARE_MAX_RUNS);
    else
        snprintf(buf, cap, "%s: ~%zu runs per side would decide at this threshold", spread,
                 r->runs_needed);
}

/* "HEAD marked oversubscribed (10 of 10 repetitions): suspect; " before the
 * rest of the note, so a verdict never reads as the code's own when a side's
 * time was not; "" for unmarked sides. Returns the length written. */
static size_t marks_note(const ompb__compare_row *r, char *buf, size_t cap)
{
    const unsigned marks[2] = {r->base_marks, r->head_marks};
    const size_t marked[2] = {r->base_marked, r->head_marked};
    const size_t reps[2] = {r->base_reps, r->head_reps};
    static const char *const side[2] = {"BASE", "HEAD"};
    size_t len = 0;
    buf[0] = '\0';
    for (int s = 0; s < 2 && len < cap; s++) {
        char codes[160];
        if (!marks[s])
            continue;
        int n = snprintf(buf + len, cap - len, "%s%s marked %s (%zu of %zu repetitions)",
                         len ? ", " : "", side[s],
                         ompb__marks_text(codes, sizeof codes, marks[s]), marked[s], reps[s]);
        len += n > 0 ? (size_t)n : 0;
    }
    if (len && len < cap) {
        int n = snprintf(buf + len, cap - len, ": suspect; ");
        len += n > 0 ? (size_t)n : 0;
    }
    return len < cap ? len : cap - 1;
}

/* "team had its CPUs in 12% of BASE's rounds, 30% of HEAD's: ..." */
static void disturbed_note(const ompb__compare_row *r, char *buf, size_t cap)
{
    snprintf(buf, cap, "undecided: the team had its CPUs in %.0f%% of BASE's rounds and %.0f%% "
             "of HEAD's; %zu and %zu of %zu/%zu runs had %d clean rounds (2 a side needed): "
             "rerun on a quieter machine, or with more rounds (--sample-count)",
             100.0 * r->base_clean_share, 100.0 * r->head_clean_share, r->base_clean_runs,
             r->head_clean_runs, r->base_runs, r->head_runs, OMPB__CLEAN_MIN_ROUNDS);
}

/* "code unchanged: ...; " (or changed, unknown) before the rest of a note
 * of a row that claims a change. Returns the length written. */
static size_t code_lead(const ompb__compare_row *r, char *buf, size_t cap)
{
    char note[360];
    ompb__compare_code_note(r->code_checked, &r->code, note, sizeof note);
    if (!note[0] || cap < 2)
        return 0;
    int n = snprintf(buf, cap, "%s; ", note);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* "; clean rounds 62%/58%" after a note of a pair decided on them. */
static void clean_suffix(const ompb__compare_row *r, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    if (!r->accounted || r->basis != OMPB__BASIS_PROCESSES || len >= cap)
        return;
    snprintf(buf + len, cap - len, "%sclean rounds %.0f%%/%.0f%%", len ? "; " : "",
             100.0 * r->base_clean_share, 100.0 * r->head_clean_share);
}

void ompb__compare_row_note(const ompb__comparison *cmp, const ompb__compare_row *r, char *buf,
                           size_t cap)
{
    size_t lead = marks_note(r, buf, cap);
    buf += lead;
    cap -= lead;
    lead = code_lead(r, buf, cap);
    buf += lead;
    cap -= lead;
    buf[0] = '\0';
    if (r->verdict == OMPB__VERDICT_FAILED)
        failed_note(r, buf, cap);
    else if (r->base && r->base->failed)
        snprintf(buf, cap, "failed in BASE: %s", r->base->error_message);
    else if (r->verdict == OMPB__VERDICT_NO_RATIO)
        snprintf(buf, cap, "%s in %s: no ratio to judge", zero_text(cmp),
                 r->base_ns == 0.0 && r->head_ns == 0.0 ? "BASE and HEAD"
                 : r->base_ns == 0.0                    ? "BASE" : "HEAD");
    else if (r->basis == OMPB__BASIS_SINGLE)
        snprintf(buf, cap, "%zu vs %zu run%s: run-to-run noise unknown; needs 2+ per side "
                 "(e.g. " OMPB__COMPARE_RECOMMENDED ")", r->base_runs, r->head_runs,
                 r->head_runs == 1 ? "" : "s");
    else if (r->basis == OMPB__BASIS_REPETITIONS || r->basis == OMPB__BASIS_AGGREGATES)
        snprintf(buf, cap, "%zu vs %zu runs: their %zu vs %zu repetitions%s spread %.1f%%/%.1f%% "
                 "within a process, not between processes; needs 2+ runs per side (e.g. "
                 OMPB__COMPARE_RECOMMENDED ")", r->base_runs, r->head_runs, r->base_reps,
                 r->head_reps,
                 r->basis == OMPB__BASIS_AGGREGATES ? " (from aggregates)" : "",
                 100.0 * r->base_spread, 100.0 * r->head_spread);
    else if (r->verdict == OMPB__VERDICT_DISTURBED)
        disturbed_note(r, buf, cap);
    else if (r->basis != OMPB__BASIS_NONE)
        judged_note(cmp, r, buf, cap);
    clean_suffix(r, buf, cap);
}

/* "+1.2%..+8.9%", or "-" without an interval. */
static char *interval_text(char *buf, size_t cap, const ompb__compare_row *r)
{
    char lo[OMPB__UNIT_TEXT_MAX], hi[OMPB__UNIT_TEXT_MAX];
    if (isnan(r->ci_low))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%s..%s", ompb__format_change(lo, sizeof lo, r->ci_low),
                 ompb__format_change(hi, sizeof hi, r->ci_high));
    return buf;
}

static char *runs_text(char *buf, size_t cap, const ompb__compare_row *r)
{
    if (r->basis == OMPB__BASIS_NONE)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%zu/%zu", r->base_runs, r->head_runs);
    return buf;
}

/* "2 regressed", bold (strong) when the row asks for emphasis and it occurs;
 * a rare verdict only when it occurs, with its cause. */
static void summary_count(FILE *out, const ompb__comparison *cmp, ompb__verdict v,
                          const char *sep, const char *strong)
{
    size_t n = cmp->counts[v];
    const char *em = n && ompb__verdict_is(v, OMPB__VERDICT_EMPHASIS) ? strong : "";
    if (ompb__verdict_is(v, OMPB__VERDICT_RARE)) {
        if (n)
            fprintf(out, "%s%zu %s (%s)", sep, n, ompb__verdict_name(v), zero_text(cmp));
        return;
    }
    if (!n && ompb__verdict_is(v, OMPB__VERDICT_WHEN_SEEN))
        return;
    fprintf(out, "%s%s%zu %s%s", sep, em, n, ompb__verdict_name(v), em);
}

/* The verdicts of one group (judged or not) in the summary's order. */
static void summary_group(FILE *out, const ompb__comparison *cmp, bool judged,
                          const char *strong)
{
    ompb__verdict order[OMPB__VERDICT_COUNT];
    size_t n, shown = 0;
    ompb__verdict_summary_order(order, &n);
    for (size_t i = 0; i < n; i++)
        if (ompb__verdict_is(order[i], OMPB__VERDICT_JUDGED) == judged)
            summary_count(out, cmp, order[i], shown++ ? ", " : "", strong);
}

/* The header: what could be judged at all comes first. */
static void summary_line(FILE *out, const ompb__comparison *cmp, const char *strong)
{
    char gm[OMPB__UNIT_TEXT_MAX];
    fprintf(out, "%sJudged %zu of %zu instances%s: ", strong, cmp->judged, cmp->n, strong);
    summary_group(out, cmp, true, strong);
    fputs("; not judged: ", out);
    summary_group(out, cmp, false, strong);
    if (cmp->marked)
        fprintf(out, "; %s%zu with a marked side%s", strong, cmp->marked, strong);
    fprintf(out, "; geometric mean change %s", ompb__format_change(gm, sizeof gm,
                                                                    cmp->geomean_change));
    if (cmp->geomean_excluded)
        fprintf(out, " (%zu pair%s with %s left out)", cmp->geomean_excluded,
                cmp->geomean_excluded == 1 ? "" : "s", zero_text(cmp));
    fputc('\n', out);
}

static void method_line(FILE *out, const ompb__comparison *cmp)
{
    if (cmp->unit == OMPB__METRIC_USER)
        fprintf(out, "Metric: %s, a user counter (ompb_counter) as its flags make it: each "
                     "repetition's value is the median over its rounds, and runs are judged on "
                     "it as on times.\n", cmp->metric);
    else if (!ompb__metric_is_time(cmp->metric))
        fprintf(out, "Metric: %s per iteration, summed over each instance's threads "
                     "(--counters): each repetition's value is the median over its rounds, "
                     "and runs are judged on it as on times.\n", cmp->metric);
    double pct = cmp->opts.threshold * 100.0, level = (1.0 - cmp->opts.alpha) * 100.0;
    fprintf(out, "Each run (a process) gives its median; a change is HEAD/BASE of their "
                 "geometric means, with a %g%% interval from Welch's t on their logarithms "
                 "(Yuen's: a fifth of the runs trimmed from each end). "
                 "regressed/improved: the interval lies beyond +-%g%% and survives "
                 "Benjamini-Hochberg at %g over the %zu judged instances; untouched: it lies "
                 "within +-%g%%; noisy: neither.\n",
            level, pct, cmp->opts.alpha, cmp->judged, pct);
    if (cmp->accounted)
        fprintf(out, "%zu instance(s) were decided on clean rounds only: rounds in which no "
                     "thread lost over 1%% of the round to preemption (both sides filtered by "
                     "the same rule; each run's value is the median of its clean rounds, when "
                     "it has %d; disturbed: fewer than 2 such runs a side).\n",
                cmp->accounted, OMPB__CLEAN_MIN_ROUNDS);
    if (cmp->counts[OMPB__VERDICT_UNKNOWN])
        fprintf(out, "%zu instance(s) have one run (process) on a side: their run-to-run noise "
                     "is unknown and no change is claimed%s; give each side runs: "
                     OMPB__COMPARE_RECOMMENDED " (docs/guide.md, \"Comparing runs in CI\"), "
                     "or " OMPB__COMPARE_ONE_SIDE " for a side that cannot be rerun.\n",
                cmp->counts[OMPB__VERDICT_UNKNOWN],
                cmp->in_process ? " (repetitions within one process miss the spread between "
                                  "processes: docs/methodology.md)" : "");
    if (cmp->counts[OMPB__VERDICT_NO_RATIO])
        fprintf(out, "%zu instance(s) have %s on a side: no ratio exists, so they are not "
                     "judged, and --fail-on-regression does not fail on them.\n",
                cmp->counts[OMPB__VERDICT_NO_RATIO], zero_text(cmp));
}

/* The legend of the marks that appear. A marked side still gates
 * --fail-on-regression (a regression measured on a suspect side is still
 * not a pass), but the row says the side is suspect. */
static void marks_legend(FILE *out, const ompb__comparison *cmp, bool markdown)
{
    if (!cmp->marks)
        return;
    fprintf(out, "%sMarks (a marked side is suspect: its number may not be the code's; the "
                 "verdict still counts for --fail-on-regression%s):\n", markdown ? "> " : "",
            cmp->marked_gating ? ", and some regressed or failed rows have one" : "");
    ompb__marks_legend(out, cmp->marks, markdown);
}

static void put_paths(FILE *out, const ompb__compare_side *side, bool md)
{
    for (size_t f = 0; f < side->n; f++) {
        fputs(f ? ", " : "", out);
        if (md)
            ompb__put_md_code(out, side->files[f].path, false);
        else
            ompb__put_plain(out, side->files[f].path);
    }
}

/* ---- console ------------------------------------------------------------ */

static int name_width(const ompb__comparison *cmp)
{
    size_t w = strlen("benchmark");
    for (size_t i = 0; i < cmp->n; i++)
        if (ompb__plain_width(cmp->rows[i].name) > w)
            w = ompb__plain_width(cmp->rows[i].name);
    return (int)(w < OMPB__NAME_COL_MAX ? w : OMPB__NAME_COL_MAX);
}

/* Names and notes come from the result files: ompb__put_plain keeps their
 * control characters from reaching the terminal. */
static void console_row(FILE *out, const ompb__comparison *cmp, const ompb__compare_row *r,
                        int w)
{
    char b[OMPB__UNIT_TEXT_MAX], h[OMPB__UNIT_TEXT_MAX], c[OMPB__UNIT_TEXT_MAX];
    char ci[2 * OMPB__UNIT_TEXT_MAX + 4], runs[48], note[OMPB__NOTE_MAX];
    ompb__compare_row_note(cmp, r, note, sizeof note);
    size_t cols = ompb__put_plain(out, r->name);
    fprintf(out, "%*s  %11s  %11s  %9s  %-19s  %7s  %-13s  ", cols < (size_t)w ? w - (int)cols : 0,
            "", value_text(cmp, b, sizeof b, r->base_ns), value_text(cmp, h, sizeof h, r->head_ns),
            ompb__format_change(c, sizeof c, r->change), interval_text(ci, sizeof ci, r),
            runs_text(runs, sizeof runs, r), ompb__verdict_name(r->verdict));
    ompb__put_plain(out, note);
    fputc('\n', out);
}

static void print_console(FILE *out, const ompb__comparison *cmp, const sort_key *keys)
{
    summary_line(out, cmp, "");
    fputs("BASE ", out);
    put_paths(out, &cmp->base_side, false);
    fputs("\nHEAD ", out);
    put_paths(out, &cmp->head_side, false);
    fputc('\n', out);
    method_line(out, cmp);
    if (cmp->env_diffs.n)
        fprintf(out, "warning: " OMPB__ENV_WARNING ":\n");
    for (size_t i = 0; i < cmp->env_diffs.n; i++) {
        fputs("  ", out);
        ompb__put_plain(out, cmp->env_diffs.v[i]);
        fputc('\n', out);
    }
    int w = name_width(cmp);
    char level[32];
    snprintf(level, sizeof level, "%g%% interval", (1.0 - cmp->opts.alpha) * 100.0);
    fprintf(out, "\n%-*s  %11s  %11s  %9s  %-19s  %7s  %-13s  %s\n", w, "benchmark", "BASE", "HEAD",
            "change", level, "runs", "verdict", "note");
    for (size_t i = 0; i < cmp->n; i++)
        console_row(out, cmp, keys[i].row, w);
    if (cmp->marks)
        fputc('\n', out);
    marks_legend(out, cmp, false);
}

/* ---- markdown ----------------------------------------------------------- */

static void md_row(FILE *out, const ompb__comparison *cmp, const ompb__compare_row *r)
{
    char b[OMPB__UNIT_TEXT_MAX], h[OMPB__UNIT_TEXT_MAX], c[OMPB__UNIT_TEXT_MAX];
    char ci[2 * OMPB__UNIT_TEXT_MAX + 4], runs[48], note[OMPB__NOTE_MAX];
    /* What fails a pull request stands out: the verdict of a row that asks
     * for emphasis, and the change when it is what the row claims. */
    bool em = ompb__verdict_is(r->verdict, OMPB__VERDICT_EMPHASIS);
    const char *change_em = em && ompb__verdict_is(r->verdict, OMPB__VERDICT_CHANGE) ? "**" : "";
    const char *verdict_em = em ? "**" : "";
    ompb__compare_row_note(cmp, r, note, sizeof note);
    fputs("| ", out);
    ompb__put_md_code(out, r->name, true);
    fprintf(out, " | %s | %s | %s%s%s | %s | %s | %s%s%s | ",
            value_text(cmp, b, sizeof b, r->base_ns), value_text(cmp, h, sizeof h, r->head_ns),
            change_em, ompb__format_change(c, sizeof c, r->change), change_em,
            interval_text(ci, sizeof ci, r), runs_text(runs, sizeof runs, r), verdict_em,
            ompb__verdict_name(r->verdict), verdict_em);
    ompb__put_md_text(out, note, true);
    fputs(" |\n", out);
}

static void print_markdown(FILE *out, const ompb__comparison *cmp, const sort_key *keys)
{
    fputs("### ompbench compare\n\n", out);
    summary_line(out, cmp, "**");
    fputc('\n', out);
    if (cmp->env_diffs.n) {
        fputs("> **Warning:** " OMPB__ENV_WARNING ":\n>\n", out);
        for (size_t i = 0; i < cmp->env_diffs.n; i++) {
            fputs("> - ", out);
            ompb__put_md_text(out, cmp->env_diffs.v[i], false);
            fputc('\n', out);
        }
        fputc('\n', out);
    }
    fprintf(out, "| Benchmark | BASE | HEAD | Change | %g%% interval | Runs | Verdict | Note |\n"
                 "|:--|--:|--:|--:|:--|--:|:--|:--|\n",
            (1.0 - cmp->opts.alpha) * 100.0);
    for (size_t i = 0; i < cmp->n; i++)
        md_row(out, cmp, keys[i].row);
    fputc('\n', out);
    if (cmp->marks) {
        marks_legend(out, cmp, true);
        fputc('\n', out);
    }
    method_line(out, cmp);
    fputs("\nBASE ", out);
    put_paths(out, &cmp->base_side, true);
    fputs(", HEAD ", out);
    put_paths(out, &cmp->head_side, true);
    if (ompb__metric_is_time(cmp->metric))
        fputs("; times are geometric means of the runs' median times per iteration; runs: "
              "BASE/HEAD.\n", out);
    else
        fprintf(out, "; values are geometric means of the runs' medians of %s per iteration; "
                     "runs: BASE/HEAD.\n", cmp->metric);
}

/* ---- JSON --------------------------------------------------------------- */

static const char *basis_key(ompb__basis b)
{
    static const char *const keys[] = {"none", "processes", "repetitions", "aggregates",
                                       "single_run"};
    return b <= OMPB__BASIS_SINGLE ? keys[b] : "?";
}

static json_t *json_row(const ompb__comparison *cmp, const ompb__compare_row *r)
{
    char note[OMPB__NOTE_MAX];
    ompb__compare_row_note(cmp, r, note, sizeof note);
    /* Times keep their unit in the key; a counted metric's values do not. */
    bool ns = cmp->unit == OMPB__METRIC_NS;
    json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:s}", "name", r->name,
                          ns ? "base_ns" : "base", ompb__json_number_or_null(r->base_ns),
                          ns ? "head_ns" : "head", ompb__json_number_or_null(r->head_ns),
                          "change_pct",
                          ompb__json_number_or_null(r->change * 100.0), "ci_low_pct",
                          ompb__json_number_or_null(r->ci_low * 100.0), "ci_high_pct",
                          ompb__json_number_or_null(r->ci_high * 100.0), "verdict",
                          ompb__verdict_key(r->verdict), "basis", basis_key(r->basis));
    json_t *more = json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:s}", "p_value",
                             ompb__json_number_or_null(r->p), "q_value",
                             ompb__json_number_or_null(r->q), "base_runs",
                             (json_int_t)r->base_runs, "head_runs", (json_int_t)r->head_runs,
                             "base_repetitions", (json_int_t)r->base_reps, "head_repetitions",
                             (json_int_t)r->head_reps, "base_spread_pct",
                             ompb__json_number_or_null(r->base_spread * 100.0), "head_spread_pct",
                             ompb__json_number_or_null(r->head_spread * 100.0), "runs_needed",
                             r->runs_needed ? (r->runs_needed > OMPB__COMPARE_MAX_RUNS
                                                   ? json_null()
                                                   : json_integer((json_int_t)r->runs_needed))
                                            : json_null(),
                             "note", note);
    /* The interval Benjamini-Hochberg decided on, for a row it held back. */
    json_t *used = isnan(r->bh_level) ? json_null()
                 : json_pack("{s:f, s:f, s:f}", "level", r->bh_level, "low_pct",
                             r->bh_low * 100.0, "high_pct", r->bh_high * 100.0);
    if (more && (json_object_set_new(more, "decision_interval", used) != 0 ||
                 json_object_set_new(more, "base_marks", ompb__marks_json(r->base_marks)) ||
                 json_object_set_new(more, "head_marks", ompb__marks_json(r->head_marks)) ||
                 json_object_set_new(more, "base_marked_repetitions",
                                     json_integer((json_int_t)r->base_marked)) ||
                 json_object_set_new(more, "head_marked_repetitions",
                                     json_integer((json_int_t)r->head_marked)) ||
                 json_object_set_new(more, "rounds",
                                     json_string(r->accounted ? "clean" : "all")) ||
                 json_object_set_new(more, "code", ompb__code_json(r->code_checked, &r->code)) ||
                 (r->accounted &&
                  json_object_set_new(more, "clean",
                                      json_pack("{s:o, s:o, s:I, s:I}", "base_share",
                                                ompb__json_number_or_null(r->base_clean_share),
                                                "head_share",
                                                ompb__json_number_or_null(r->head_clean_share),
                                                "base_runs", (json_int_t)r->base_clean_runs,
                                                "head_runs", (json_int_t)r->head_clean_runs))))) {
        json_decref(more);
        more = NULL;
    }
    if (!o || !more || json_object_update(o, more) != 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(more);
    return o;
}

static json_t *json_summary(const ompb__comparison *cmp)
{
    json_t *s = json_object();
    json_object_set_new(s, "instances", json_integer((json_int_t)cmp->n));
    json_object_set_new(s, "judged", json_integer((json_int_t)cmp->judged));
    /* Not judged: noise unknown, with an in-process spread in the note. */
    json_object_set_new(s, "noise_unknown_in_process",
                        json_integer((json_int_t)cmp->in_process));
    for (int v = 0; s && v < OMPB__VERDICT_COUNT; v++)
        json_object_set_new(s, ompb__verdict_key((ompb__verdict)v),
                            json_integer((json_int_t)cmp->counts[v]));
    json_object_set_new(s, "geomean_change_pct",
                        ompb__json_number_or_null(cmp->geomean_change * 100.0));
    json_object_set_new(s, "geomean_excluded",
                        json_integer((json_int_t)cmp->geomean_excluded));
    json_object_set_new(s, "marked", json_integer((json_int_t)cmp->marked));
    json_object_set_new(s, "marked_regressed_or_failed",
                        json_integer((json_int_t)cmp->marked_gating));
    json_object_set_new(s, "marks", ompb__marks_json(cmp->marks));
    return s;
}

static json_t *json_paths(const ompb__compare_side *side)
{
    json_t *a = json_array();
    for (size_t f = 0; a && f < side->n; f++)
        json_array_append_new(a, json_string(side->files[f].path));
    return a;
}

static json_t *json_report(const ompb__comparison *cmp)
{
    json_t *rows = json_array(), *env = json_array();
    for (size_t i = 0; i < cmp->n; i++)
        json_array_append_new(rows, json_row(cmp, &cmp->rows[i]));
    for (size_t i = 0; i < cmp->env_diffs.n; i++)
        json_array_append_new(env, json_string(cmp->env_diffs.v[i]));
    return json_pack("{s:s, s:s, s:o, s:o, s:f, s:f, s:o, s:{s:b, s:s, s:o}, s:o}", "metric",
                     metric_name(cmp), "unit", cmp->unit == OMPB__METRIC_NS ? "ns" : "count",
                     "base", json_paths(&cmp->base_side), "head", json_paths(&cmp->head_side),
                     "threshold_pct", cmp->opts.threshold * 100.0, "alpha", cmp->opts.alpha,
                     "summary", json_summary(cmp), "environment", "differs", cmp->env_diffs.n > 0,
                     "warning", cmp->env_diffs.n ? OMPB__ENV_WARNING : "", "differences", env,
                     "instances", rows);
}

static int print_json(FILE *out, const ompb__comparison *cmp)
{
    json_t *root = json_report(cmp);
    if (!root)
        return OMPB_ENOMEM;
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    return rc == 0 && fputc('\n', out) != EOF ? 0 : OMPB_EIO;
}

/* The tables list regressions first (sorted_rows). */
static int print_sorted(FILE *out, const ompb__comparison *cmp,
                        void (*print)(FILE *, const ompb__comparison *, const sort_key *))
{
    sort_key *keys = sorted_rows(cmp);
    if (!keys)
        return OMPB_ENOMEM;
    print(out, cmp, keys);
    free(keys);
    return ferror(out) ? OMPB_EIO : 0;
}

static int render_console(FILE *out, const ompb__comparison *cmp)
{
    return print_sorted(out, cmp, print_console);
}

static int render_markdown(FILE *out, const ompb__comparison *cmp)
{
    return print_sorted(out, cmp, print_markdown);
}

/* One renderer per row of the format table (analysis/units.h). */
static int (*const renderers[])(FILE *, const ompb__comparison *) = {
    [OMPB__REPORT_CONSOLE] = render_console,
    [OMPB__REPORT_MARKDOWN] = render_markdown,
    [OMPB__REPORT_JSON] = print_json,
};
_Static_assert(sizeof renderers / sizeof renderers[0] == OMPB__REPORT_FORMAT_COUNT,
               "a compare renderer for every report format");

int ompb__compare_print(FILE *out, const ompb__comparison *cmp, ompb__report_format fmt)
{
    if ((unsigned)fmt >= OMPB__REPORT_FORMAT_COUNT || !renderers[fmt])
        return OMPB_EINVAL;
    return renderers[fmt](out, cmp);
}
