/* SPDX-License-Identifier: MIT */
/*
 * The three renderings of a comparison: a console table, a markdown block to
 * paste into a pull request, and JSON for scripts. Console and markdown put
 * what needs attention first (regressions and failures, then improvements,
 * largest change first); all three carry the summary counts, the
 * geometric-mean change and the environment warning, so no format hides a
 * suspect comparison. Names and notes from the result files are escaped for
 * the terminal and for markdown (analysis/units.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "analysis/compare.h"
#include "analysis/metric.h"
#include "analysis/units.h"

#define OMPB__NOTE_MAX 200
#define OMPB__NAME_COL_MAX 60
#define OMPB__ENV_WARNING "different runtime environments"

/* A row's value in the comparison's metric: a time, or a counter. */
static char *value_text(const ompb__comparison *cmp, char *buf, size_t cap, double v)
{
    return ompb__format_metric(buf, cap, v, cmp->unit);
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

/* Within a verdict: regressions and untouched by change descending,
 * improvements ascending (largest speed-up first), the rest in file order;
 * an undefined change (BASE time 0) last, as NAN would break the order. */
static double sort_value(const ompb__compare_row *r)
{
    if (isnan(r->change))
        return INFINITY;
    switch (r->verdict) {
    case OMPB__VERDICT_REGRESSED:
    case OMPB__VERDICT_UNTOUCHED:
        return -r->change;
    case OMPB__VERDICT_IMPROVED:
        return r->change;
    case OMPB__VERDICT_TOO_FEW:
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

/* What a side without samples contributed, for the threshold-only note. */
static const char *no_sample_kind(const ompb__rf_instance *in)
{
    if (in->aggregate)
        return strcmp(in->aggregate, "median") == 0 ? "median aggregate" : "mean aggregate";
    return in->n_samples ? "samples" : "one run";
}

static void threshold_note(const ompb__compare_row *r, char *buf, size_t cap)
{
    if (r->base->aggregate || r->head->aggregate)
        snprintf(buf, cap, "threshold only (%s vs %s, no samples)",
                 no_sample_kind(r->base), no_sample_kind(r->head));
    else
        snprintf(buf, cap, "threshold only (no samples)");
}

static void failed_note(const ompb__compare_row *r, char *buf, size_t cap)
{
    const char *where = !r->base ? "in HEAD (not in BASE)"
                        : r->base->failed ? "in BASE and HEAD" : "in HEAD";
    snprintf(buf, cap, "failed %s: %s", where, r->head->error_message);
}

static void too_few_note(const ompb__compare_row *r, char *buf, size_t cap)
{
    size_t nb = r->base->n_samples, nh = r->head->n_samples;
    if (nb < OMPB__COMPARE_MIN_SAMPLES || nh < OMPB__COMPARE_MIN_SAMPLES)
        snprintf(buf, cap, "%zu vs %zu samples: the U test needs %d per side", nb, nh,
                 OMPB__COMPARE_MIN_SAMPLES);
    else
        snprintf(buf, cap, "%zu vs %zu samples: U test cannot reach alpha", nb, nh);
}

static void row_note(const ompb__compare_row *r, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (r->verdict == OMPB__VERDICT_FAILED)
        failed_note(r, buf, cap);
    else if (r->base && r->base->failed)
        snprintf(buf, cap, "failed in BASE: %s", r->base->error_message);
    else if (r->verdict == OMPB__VERDICT_UNTOUCHED && r->basis == OMPB__BASIS_NONE)
        snprintf(buf, cap, "BASE time is 0: no change to judge");
    else if (r->basis == OMPB__BASIS_THRESHOLD)
        threshold_note(r, buf, cap);
    else if (r->basis == OMPB__BASIS_TOO_FEW)
        too_few_note(r, buf, cap);
    else if (r->basis == OMPB__BASIS_U_TEST)
        snprintf(buf, cap, r->p < 1e-4 ? "p<0.0001" : "p=%.4f", r->p);
}

static void summary_line(FILE *out, const ompb__comparison *cmp, const char *strong)
{
    char gm[OMPB__UNIT_TEXT_MAX];
    const size_t *c = cmp->counts;
    fprintf(out, "%s%zu regressed%s, %zu improved, %zu untouched, %zu new, %zu missing, "
                 "%s%zu failed%s",
            strong, c[OMPB__VERDICT_REGRESSED], strong, c[OMPB__VERDICT_IMPROVED],
            c[OMPB__VERDICT_UNTOUCHED], c[OMPB__VERDICT_NEW], c[OMPB__VERDICT_MISSING],
            c[OMPB__VERDICT_FAILED] ? strong : "", c[OMPB__VERDICT_FAILED],
            c[OMPB__VERDICT_FAILED] ? strong : "");
    if (c[OMPB__VERDICT_TOO_FEW])
        fprintf(out, ", %zu with too few samples", c[OMPB__VERDICT_TOO_FEW]);
    fprintf(out, "; geometric mean change %s%s%s", strong,
            ompb__format_change(gm, sizeof gm, cmp->geomean_change), strong);
    if (cmp->geomean_excluded)
        fprintf(out, " (%zu pair%s with a time of 0 left out)", cmp->geomean_excluded,
                cmp->geomean_excluded == 1 ? "" : "s");
    fputc('\n', out);
}

static void method_line(FILE *out, const ompb__comparison *cmp)
{
    if (!ompb__metric_is_time(cmp->metric))
        fprintf(out, "Metric: %s per iteration, summed over each instance's threads "
                     "(--counters), one sample per round.\n", cmp->metric);
    fprintf(out, "A change counts when it exceeds %g%% and a two-sided Mann-Whitney U "
                 "test on the per-iteration samples (at least %d per side) rejects "
                 "equality at alpha %g.\n",
            cmp->opts.threshold * 100.0, OMPB__COMPARE_MIN_SAMPLES, cmp->opts.alpha);
    if (cmp->threshold_only)
        fprintf(out, "%zu instance(s) have no raw samples (plain Google Benchmark JSON: "
                     "one run, or aggregates only): threshold only.\n",
                cmp->threshold_only);
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
    char note[OMPB__NOTE_MAX];
    row_note(r, note, sizeof note);
    size_t cols = ompb__put_plain(out, r->name);
    fprintf(out, "%*s  %12s  %12s  %9s  %-15s  ", cols < (size_t)w ? w - (int)cols : 0, "",
            value_text(cmp, b, sizeof b, r->base_ns), value_text(cmp, h, sizeof h, r->head_ns),
            ompb__format_change(c, sizeof c, r->change), ompb__verdict_name(r->verdict));
    ompb__put_plain(out, note);
    fputc('\n', out);
}

static void print_console(FILE *out, const ompb__comparison *cmp, const sort_key *keys)
{
    fputs("BASE ", out);
    ompb__put_plain(out, cmp->base_path);
    fputs("\nHEAD ", out);
    ompb__put_plain(out, cmp->head_path);
    fputc('\n', out);
    summary_line(out, cmp, "");
    method_line(out, cmp);
    if (cmp->env_diffs.n)
        fprintf(out, "warning: " OMPB__ENV_WARNING ":\n");
    for (size_t i = 0; i < cmp->env_diffs.n; i++) {
        fputs("  ", out);
        ompb__put_plain(out, cmp->env_diffs.v[i]);
        fputc('\n', out);
    }
    int w = name_width(cmp);
    fprintf(out, "\n%-*s  %12s  %12s  %9s  %-15s  %s\n", w, "benchmark", "BASE", "HEAD",
            "change", "verdict", "note");
    for (size_t i = 0; i < cmp->n; i++)
        console_row(out, cmp, keys[i].row, w);
}

/* ---- markdown ----------------------------------------------------------- */

static void md_row(FILE *out, const ompb__comparison *cmp, const ompb__compare_row *r)
{
    char b[OMPB__UNIT_TEXT_MAX], h[OMPB__UNIT_TEXT_MAX], c[OMPB__UNIT_TEXT_MAX];
    char note[OMPB__NOTE_MAX];
    /* What fails a pull request stands out: regressions, failures. */
    const char *change_em = r->verdict == OMPB__VERDICT_REGRESSED ? "**" : "";
    const char *verdict_em = *change_em || r->verdict == OMPB__VERDICT_FAILED ? "**" : "";
    row_note(r, note, sizeof note);
    fputs("| ", out);
    ompb__put_md_code(out, r->name, true);
    fprintf(out, " | %s | %s | %s%s%s | %s%s%s | ", value_text(cmp, b, sizeof b, r->base_ns),
            value_text(cmp, h, sizeof h, r->head_ns), change_em,
            ompb__format_change(c, sizeof c, r->change), change_em, verdict_em,
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
    fputs("| Benchmark | BASE | HEAD | Change | Verdict | Note |\n"
          "|:--|--:|--:|--:|:--|:--|\n", out);
    for (size_t i = 0; i < cmp->n; i++)
        md_row(out, cmp, keys[i].row);
    fputc('\n', out);
    method_line(out, cmp);
    fputs("BASE ", out);
    ompb__put_md_code(out, cmp->base_path, false);
    fputs(", HEAD ", out);
    ompb__put_md_code(out, cmp->head_path, false);
    if (ompb__metric_is_time(cmp->metric))
        fputs("; times are medians per iteration.\n", out);
    else
        fprintf(out, "; values are medians of %s per iteration.\n", cmp->metric);
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *json_row(const ompb__comparison *cmp, const ompb__compare_row *r)
{
    static const char *const basis[] = {"none", "u_test", "threshold_only",
                                        "too_few_samples"};
    char note[OMPB__NOTE_MAX];
    row_note(r, note, sizeof note);
    /* Times keep their unit in the key; a counted metric's values do not. */
    bool ns = cmp->unit == OMPB__METRIC_NS;
    return json_pack("{s:s, s:o, s:o, s:o, s:s, s:s, s:o, s:I, s:I, s:s}", "name", r->name,
                     ns ? "base_ns" : "base", ompb__json_number_or_null(r->base_ns),
                     ns ? "head_ns" : "head", ompb__json_number_or_null(r->head_ns), "change_pct",
                     ompb__json_number_or_null(r->change * 100.0), "verdict",
                     ompb__verdict_key(r->verdict), "basis", basis[r->basis], "p_value",
                     ompb__json_number_or_null(r->p), "base_samples",
                     (json_int_t)(r->base ? r->base->n_samples : 0), "head_samples",
                     (json_int_t)(r->head ? r->head->n_samples : 0), "note", note);
}

static json_t *json_summary(const ompb__comparison *cmp)
{
    json_t *s = json_object();
    for (int v = 0; s && v < OMPB__VERDICT_COUNT; v++)
        json_object_set_new(s, ompb__verdict_key((ompb__verdict)v),
                            json_integer((json_int_t)cmp->counts[v]));
    json_object_set_new(s, "geomean_change_pct",
                        ompb__json_number_or_null(cmp->geomean_change * 100.0));
    json_object_set_new(s, "geomean_excluded",
                        json_integer((json_int_t)cmp->geomean_excluded));
    json_object_set_new(s, "threshold_only", json_integer((json_int_t)cmp->threshold_only));
    return s;
}

static json_t *json_report(const ompb__comparison *cmp)
{
    json_t *rows = json_array(), *env = json_array();
    for (size_t i = 0; i < cmp->n; i++)
        json_array_append_new(rows, json_row(cmp, &cmp->rows[i]));
    for (size_t i = 0; i < cmp->env_diffs.n; i++)
        json_array_append_new(env, json_string(cmp->env_diffs.v[i]));
    return json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:o, s:{s:b, s:s, s:o}, s:o}",
                     "metric", metric_name(cmp), "unit",
                     cmp->unit == OMPB__METRIC_NS ? "ns" : "count", "base",
                     cmp->base_path, "head", cmp->head_path, "threshold_pct",
                     cmp->opts.threshold * 100.0, "alpha", cmp->opts.alpha, "summary",
                     json_summary(cmp), "environment", "differs", cmp->env_diffs.n > 0,
                     "warning", cmp->env_diffs.n ? OMPB__ENV_WARNING : "", "differences",
                     env, "instances", rows);
}

static int print_json(FILE *out, const ompb__comparison *cmp)
{
    json_t *root = json_report(cmp);
    if (!root)
        return OMPB_ENOMEM;
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    return rc == 0 && fputc('\n', out) != EOF ? 0 : OMPB_EIO;
}

int ompb__compare_print(FILE *out, const ompb__comparison *cmp, ompb__report_format fmt)
{
    if (fmt == OMPB__REPORT_JSON)
        return print_json(out, cmp);
    sort_key *keys = sorted_rows(cmp);
    if (!keys)
        return OMPB_ENOMEM;
    if (fmt == OMPB__REPORT_MARKDOWN)
        print_markdown(out, cmp, keys);
    else
        print_console(out, cmp, keys);
    free(keys);
    return ferror(out) ? OMPB_EIO : 0;
}
