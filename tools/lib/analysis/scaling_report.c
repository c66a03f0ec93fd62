/* SPDX-License-Identifier: MIT */
/*
 * The three table renderings of a scaling model (scaling.c builds it): a
 * console table and a markdown block, one per family with its notes and a
 * legend of the marks that appear, and JSON for scripts. Family names come
 * from result files: escaped for the terminal and for markdown
 * (analysis/units.c). The SVG plot of the same model is in scaling_svg.c.
 * The fitted models (scaling_model.c) follow each family's table as lines
 * of text, and as a "model" object in JSON.
 */
#include "analysis/scaling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/error.h>

#include "report/report.h"
#include "analysis/units.h"
#include "core/core.h"

/* ---- tables -------------------------------------------------------------- */

static void imbalance_text(char *buf, size_t cap, double imbalance)
{
    if (isnan(imbalance))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.3f", imbalance);
}

/* Family names come from result files: escaped for the terminal. */
/* Column titles and a point's value: time, or the --metric. */
static const char *value_title(const ompb__scaling_family *f)
{
    return f->metric ? f->metric : "median";
}

static char *value_text(const ompb__scaling_family *f, char *buf, size_t cap, double v)
{
    return f->metric ? ompb__format_metric(buf, cap, v, f->unit) : ompb__format_ns(buf, cap, v);
}

/* "2 threads", or for a distributed run's base point "1 rank x 2 threads". */
static void print_base(FILE *out, const ompb__scaling_family *f)
{
    const ompb__scaling_point *b = &f->points[0];
    if (b->ranks > 0)
        fprintf(out, "%d rank%s x %d thread%s", b->ranks, b->ranks == 1 ? "" : "s",
                b->threads_per_rank, b->threads_per_rank == 1 ? "" : "s");
    else
        fprintf(out, "%d thread%s", b->threads, b->threads == 1 ? "" : "s");
}

/* The ranks cell: R, or "-" for a point that is not a distributed run's. */
static const char *ranks_text(char *buf, size_t cap, const ompb__scaling_point *p)
{
    if (p->ranks > 0)
        snprintf(buf, cap, "%d", p->ranks);
    else
        snprintf(buf, cap, "-");
    return buf;
}

/* The marks cell of a family that has a marks column: the codes, "-" for
 * an unmarked point; then the line ends. */
static void put_marks_cell(FILE *out, const ompb__scaling_family *f,
                           const ompb__scaling_point *p, const char *lead, const char *tail)
{
    char codes[160];
    if (f->marks)
        fprintf(out, "%s%s%s", lead, p->marks ? ompb__marks_text(codes, sizeof codes, p->marks)
                                              : "-", tail);
    fputc('\n', out);
}

/* What the values are: a --counters event is per iteration and summed over
 * the team; a user counter is whatever its flags made it. */
static const char *metric_label(const ompb__scaling_family *f)
{
    if (!f->metric)
        return "";
    return f->unit == OMPB__METRIC_USER ? "; user counter " : "; per iteration, team sum of ";
}

/* Said only when known: an assumed strong scaling keeps the old table. */
static const char *kind_line(const ompb__scaling_family *f)
{
    if (f->mixed)
        return "scaling against the declared work: ideal = base time x (work / base work) x "
               "(base width / width)";
    return f->weak ? "weak scaling: ideal = the base time at every width, efficiency = "
                     "base time / time, speedup scaled by the width"
                   : "strong scaling: ideal = base time x base width / width";
}


/* ---- models -------------------------------------------------------------- */

/* "0.0312 [0.0291, 0.0334]", "0.0312" without an interval; a peak width
 * with no peak says so. */
static char *estimate_text(char *buf, size_t cap, ompb__scaling_estimate e)
{
    if (isinf(e.value))
        return snprintf(buf, cap, "none (kappa = 0: no peak)"), buf;
    int n = snprintf(buf, cap, "%.3g", e.value);
    if (!isnan(e.lo) && n > 0 && (size_t)n < cap) {
        if (isinf(e.hi))
            snprintf(buf + n, cap - (size_t)n, " [%.3g, no peak]", e.lo);
        else
            snprintf(buf + n, cap - (size_t)n, " [%.3g, %.3g]", e.lo, e.hi);
    }
    return buf;
}

static const char *interval_text(const ompb__scaling_model *m)
{
    static const char *const text[] = {
        [OMPB__SCALING_INTERVAL_NONE] = "no interval: one run per point (see --repetitions)",
        [OMPB__SCALING_INTERVAL_BOOTSTRAP] = "95% intervals: bootstrap over the runs",
        [OMPB__SCALING_INTERVAL_FIT] =
            "95% intervals of sigma and kappa: the fit's standard errors (one run at some point)",
    };
    return text[m->interval];
}

void ompb__scaling_print_model(FILE *out, const ompb__scaling_family *f, const char *lead,
                               const char *tail)
{
    const ompb__scaling_model *m = &f->model;
    char a[96], b[96], c[96], d[96];
    size_t clean = 0;
    for (size_t i = 0; i < f->n; i++)
        clean += f->points[i].clean;
    if (clean)
        fprintf(out, "%stimes of %s: the medians of the runs' clean rounds (no thread "
                     "preempted for over 1%% of the round)%s\n", lead,
                clean == f->n ? "every point" : "the points marked clean in JSON", tail);
    if (m->none) {
        fprintf(out, "%sno model: %s%s\n", lead, m->none, tail);
        return;
    }
    fprintf(out, "%smodels fitted on %zu point%s, %d-%d threads; %s%s\n", lead, m->fitted,
            m->fitted == 1 ? "" : "s", m->min_width, m->max_width, interval_text(m), tail);
    fprintf(out, "%sAmdahl: serial fraction %s%s\n", lead,
            estimate_text(a, sizeof a, m->serial), tail);
    if (m->usl)
        fprintf(out, "%sUSL: sigma %s, kappa %s; model prediction: peak at %s threads, "
                     "speedup %s%s\n", lead, estimate_text(a, sizeof a, m->sigma),
                estimate_text(b, sizeof b, m->kappa), estimate_text(c, sizeof c, m->peak_width),
                estimate_text(d, sizeof d, m->peak_speedup), tail);
    else
        fprintf(out, "%sUSL: needs at least 3 real widths%s\n", lead, tail);
    bool any = false;
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *p = &f->points[i];
        if (isnan(p->karp_flatt))
            continue;
        if (!any)
            fprintf(out, "%sKarp-Flatt serial fraction:", lead);
        ompb__scaling_estimate e = {p->karp_flatt, p->karp_flatt_lo, p->karp_flatt_hi};
        fprintf(out, "%s %d threads %s", any ? "," : "", p->threads,
                estimate_text(a, sizeof a, e));
        any = true;
    }
    if (any)
        fprintf(out, "%s\n", tail);
    if (m->left_out) {
        fprintf(out, "%sleft out of the fits (oversubscribed):", lead);
        const char *sep = " ";
        for (size_t i = 0; i < f->n; i++)
            if (ompb__scaling_point_not_real(&f->points[i])) {
                fprintf(out, "%s%d", sep, f->points[i].threads);
                sep = ", ";
            }
        fprintf(out, " threads%s\n", tail);
    }
}

static void print_console_family(FILE *out, const ompb__scaling_family *f)
{
    ompb__put_plain(out, f->name);
    fputs(" (against ", out);
    print_base(out, f);
    fprintf(out, "%s%s)\n", metric_label(f), f->metric ? f->metric : "");
    if (f->basis != OMPB__SCALING_ASSUMED)
        fprintf(out, "%s\n", kind_line(f));
    if (f->ranked)
        fprintf(out, "%6s  ", "ranks");
    fprintf(out, "%8s  %12s  %8s  %10s  %9s%s\n", "threads", value_title(f),
            f->metric ? "ratio" : "speedup", f->metric ? "work eff." : "efficiency",
            "imbalance", f->marks ? "  marks" : "");
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *p = &f->points[i];
        char t[OMPB__UNIT_TEXT_MAX], imb[OMPB__UNIT_TEXT_MAX], r[OMPB__UNIT_TEXT_MAX];
        char sp[OMPB__UNIT_TEXT_MAX], eff[OMPB__UNIT_TEXT_MAX];
        imbalance_text(imb, sizeof imb, p->imbalance);
        if (f->ranked)
            fprintf(out, "%6s  ", ranks_text(r, sizeof r, p));
        fprintf(out, "%8d  %12s  %8s  %10s  %9s", f->ranked ? p->threads_per_rank : p->threads,
                value_text(f, t, sizeof t, p->median_ns),
                ompb__format_speedup(sp, sizeof sp, p->speedup),
                ompb__format_efficiency(eff, sizeof eff, p->efficiency), imb);
        put_marks_cell(out, f, p, "  ", "");
    }
    ompb__scaling_print_model(out, f, "", "");
}

static void print_markdown_family(FILE *out, const ompb__scaling_family *f)
{
    fputs("#### ", out);
    ompb__put_md_code(out, f->name, false);
    fputs(" (against ", out);
    print_base(out, f);
    fprintf(out, "%s%s)\n\n", metric_label(f), f->metric ? f->metric : "");
    if (f->basis != OMPB__SCALING_ASSUMED)
        fprintf(out, "%s\n\n", kind_line(f));
    fprintf(out, "|%s Threads | %s | %s | %s | Imbalance |%s\n|%s--:|--:|--:|--:|--:|%s\n",
            f->ranked ? " Ranks |" : "", f->metric ? f->metric : "Median",
            f->metric ? "Ratio" : "Speedup", f->metric ? "Work efficiency" : "Efficiency",
            f->marks ? " Marks |" : "", f->ranked ? "--:|" : "", f->marks ? ":--|" : "");
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *p = &f->points[i];
        char t[OMPB__UNIT_TEXT_MAX], imb[OMPB__UNIT_TEXT_MAX], r[OMPB__UNIT_TEXT_MAX];
        char sp[OMPB__UNIT_TEXT_MAX], eff[OMPB__UNIT_TEXT_MAX];
        imbalance_text(imb, sizeof imb, p->imbalance);
        if (f->ranked)
            fprintf(out, "| %s ", ranks_text(r, sizeof r, p));
        fprintf(out, "| %d | %s | %s | %s | %s |",
                f->ranked ? p->threads_per_rank : p->threads,
                value_text(f, t, sizeof t, p->median_ns),
                ompb__format_speedup(sp, sizeof sp, p->speedup),
                ompb__format_efficiency(eff, sizeof eff, p->efficiency), imb);
        put_marks_cell(out, f, p, " ", " |");
    }
    fputc('\n', out);
    ompb__scaling_print_model(out, f, "- ", "");
}

/* {"value", "low", "high"} (no interval: the bounds are null); null when
 * there is no value; a width without a peak is the string "none". */
static json_t *json_estimate(ompb__scaling_estimate e)
{
    if (isnan(e.value))
        return json_null();
    if (isinf(e.value))
        return json_string("none");
    return json_pack("{s:o, s:o, s:o}", "value", json_real(e.value), "low",
                     ompb__json_number_or_null(e.lo), "high",
                     isinf(e.hi) ? json_string("none") : ompb__json_number_or_null(e.hi));
}

static json_t *json_model(const ompb__scaling_family *f)
{
    const ompb__scaling_model *m = &f->model;
    static const char *const interval[] = {"none", "bootstrap", "fit"};
    json_t *left = json_array();
    for (size_t i = 0; i < f->n; i++)
        if (ompb__scaling_point_not_real(&f->points[i]))
            json_array_append_new(left, json_integer(f->points[i].threads));
    if (m->none)
        return json_pack("{s:s, s:o}", "none", m->none, "left_out_threads", left);
    return json_pack("{s:I, s:i, s:i, s:o, s:s, s:I, s:o, s:o, s:o, s:o, s:o}", "fitted_points",
                     (json_int_t)m->fitted, "min_threads", m->min_width, "max_threads",
                     m->max_width, "left_out_threads", left, "interval", interval[m->interval],
                     "resamples", (json_int_t)m->resamples, "amdahl_serial_fraction",
                     json_estimate(m->serial), "usl_sigma", json_estimate(m->sigma),
                     "usl_kappa", json_estimate(m->kappa), "usl_peak_threads",
                     json_estimate(m->peak_width), "usl_peak_speedup",
                     json_estimate(m->peak_speedup));
}

static json_t *json_point(const ompb__scaling_family *f, const ompb__scaling_point *p)
{
    json_t *o = json_pack("{s:i, s:o, s:o, s:o, s:o}", "threads", p->threads,
                          f->metric ? "value" : "median_ns",
                          ompb__json_number_or_null(p->median_ns),
                          f->metric ? "ratio" : "speedup", ompb__json_number_or_null(p->speedup),
                          f->metric ? "work_efficiency" : "efficiency",
                          ompb__json_number_or_null(p->efficiency), "imbalance",
                          ompb__json_number_or_null(p->imbalance));
    if (o && (json_object_set_new(o, "marks", ompb__marks_json(p->marks)) != 0
              || json_object_set_new(o, "rounds", json_string(p->clean ? "clean" : "all")) != 0
              || json_object_set_new(o, "karp_flatt", json_estimate((ompb__scaling_estimate){
                                                          p->karp_flatt, p->karp_flatt_lo,
                                                          p->karp_flatt_hi})) != 0)) {
        json_decref(o);
        return NULL;
    }
    /* Several runs of the point: their range, the error bar of the SVG. */
    if (o && p->runs > 1
        && (json_object_set_new(o, "runs", json_integer((json_int_t)p->runs)) != 0
            || json_object_set_new(o, f->metric ? "low" : "low_ns", json_real(p->lo_ns)) != 0
            || json_object_set_new(o, f->metric ? "high" : "high_ns", json_real(p->hi_ns)) != 0)) {
        json_decref(o);
        return NULL;
    }
    if (o && f->ranked
        && (json_object_set_new(o, "ranks", p->ranks > 0 ? json_integer(p->ranks)
                                                         : json_null()) != 0
            || json_object_set_new(o, "threads_per_rank", json_integer(p->threads_per_rank))
                   != 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *json_family(const ompb__scaling_family *f)
{
    json_t *pts = json_array();
    for (size_t i = 0; i < f->n; i++)
        json_array_append_new(pts, json_point(f, &f->points[i]));
    static const char *const basis[] = {"assumed", "declared", "inferred"};
    return json_pack("{s:s, s:s, s:i, s:s, s:s, s:o, s:o}", "name", f->name, "metric",
                     f->metric ? f->metric : "time", "baseline_threads",
                     f->points[0].threads, "scaling",
                     f->mixed ? "work" : f->weak ? "weak" : "strong",
                     "scaling_basis", basis[f->basis], "points", pts, "model", json_model(f));
}

static int print_json(FILE *out, const ompb__scaling *s)
{
    json_t *fams = json_array();
    for (size_t i = 0; i < s->n; i++)
        json_array_append_new(fams, json_family(&s->families[i]));
    json_t *root = json_pack("{s:o, s:I, s:I}", "families", fams, "single_width_benchmarks",
                             (json_int_t)s->single, "duplicate_points",
                             (json_int_t)s->duplicates);
    if (!root)
        return OMPB_ENOMEM;
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    return rc == 0 && fputc('\n', out) != EOF ? 0 : OMPB_EIO;
}

/* The marks that appear, and what an oversubscribed point does to the
 * table: no speedup or efficiency. */
static void marks_legend(FILE *out, const ompb__scaling *s, bool markdown)
{
    if (!s->marks)
        return;
    fprintf(out, "\n%sMarks (a marked point is suspect: its time may not be the code's):\n",
            markdown ? "> " : "");
    ompb__marks_legend(out, s->marks, markdown);
    if (s->marks & OMPB__MARK_OVERSUB)
        fprintf(out, "%sAn oversubscribed point (or any point against an oversubscribed "
                     "base) has no speedup or efficiency: threads took turns on the PUs, "
                     "which is not the code's scaling.\n", markdown ? ">\n> " : "");
}

/* The text formats: one table per family, then the notes. */
static int print_tables(FILE *out, const ompb__scaling *s,
                        void (*print_family)(FILE *, const ompb__scaling_family *), bool markdown)
{
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            fputc('\n', out);
        print_family(out, &s->families[i]);
    }
    if (s->n == 0)
        fputs("no benchmark was measured at more than one thread count\n", out);
    else if (s->single)
        fprintf(out, "\n(%zu benchmark%s measured at a single thread count not shown)\n",
                s->single, s->single == 1 ? "" : "s");
    if (s->duplicates)
        fprintf(out, "\n(%zu point%s found again in a later entry or file: the first stands)\n",
                s->duplicates, s->duplicates == 1 ? "" : "s");
    marks_legend(out, s, markdown);
    return ferror(out) ? OMPB_EIO : 0;
}

static int print_console(FILE *out, const ompb__scaling *s)
{
    return print_tables(out, s, print_console_family, false);
}

static int print_markdown(FILE *out, const ompb__scaling *s)
{
    return print_tables(out, s, print_markdown_family, true);
}

/* One renderer per row of the format table (analysis/units.h). */
static int (*const renderers[])(FILE *, const ompb__scaling *) = {
    [OMPB__REPORT_CONSOLE] = print_console,
    [OMPB__REPORT_MARKDOWN] = print_markdown,
    [OMPB__REPORT_JSON] = print_json,
};
_Static_assert(sizeof renderers / sizeof renderers[0] == OMPB__REPORT_FORMAT_COUNT,
               "a scaling renderer for every report format");

int ompb__scaling_print(FILE *out, const ompb__scaling *s, ompb__report_format fmt)
{
    if ((unsigned)fmt >= OMPB__REPORT_FORMAT_COUNT || !renderers[fmt])
        return OMPB_EINVAL;
    return renderers[fmt](out, s);
}
