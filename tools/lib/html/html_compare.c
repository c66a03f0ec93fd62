/* SPDX-License-Identifier: MIT */
/*
 * The comparison in the HTML report: a forest plot, one row per instance
 * (the change HEAD / BASE - 1 as a symbol whose shape says the verdict, its
 * interval as a bar, the threshold as a band around 0), in a table the
 * page's script sorts by name, change or verdict, with the notes a console
 * comparison gives: marks, runs per side and the basis of the verdict.
 */
#include "html/html.h"

#include <math.h>

#include "analysis/analysis.h"

#define FOREST_W 260.0
#define FOREST_H 18.0

/* The axis spans the largest |change| or interval bound, at least twice
 * the threshold and at most 100%, so one wild row cannot flatten the rest. */
static double forest_span(const ompb__comparison *cmp)
{
    double span = 2.0 * cmp->opts.threshold;
    for (size_t i = 0; i < cmp->n; i++) {
        const ompb__compare_row *r = &cmp->rows[i];
        double v[3] = {r->change, r->ci_low, r->ci_high};
        for (int k = 0; k < 3; k++)
            if (isfinite(v[k]))
                span = fmax(span, fabs(v[k]) * 1.1);
    }
    return fmin(span, 1.0);
}

static double fx(double v, double span)
{
    double c = fmax(-span, fmin(span, v));
    return 6 + (c + span) / (2 * span) * (FOREST_W - 12);
}

/* Regressed: a triangle pointing up (slower); improved: down; noisy: a
 * diamond; others a circle: the verdict reads without colour. */
static void verdict_mark(FILE *out, ompb__verdict v, double x)
{
    double y = FOREST_H / 2;
    if (v == OMPB__VERDICT_REGRESSED)
        fprintf(out, "<polygon class=\"change v-regressed\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>",
                x, y - 6, x + 6, y + 5, x - 6, y + 5);
    else if (v == OMPB__VERDICT_IMPROVED)
        fprintf(out, "<polygon class=\"change v-improved\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>",
                x, y + 6, x + 6, y - 5, x - 6, y - 5);
    else if (v == OMPB__VERDICT_NOISY)
        fprintf(out, "<polygon class=\"change v-noisy\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f "
                     "%.1f,%.1f\"/>", x, y - 6, x + 6, y, x, y + 6, x - 6, y);
    else
        fprintf(out, "<circle class=\"change v-other\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>", x, y);
}

static void forest_cell(FILE *out, const ompb__compare_row *r, double span, double threshold)
{
    fprintf(out, "<td><svg class=\"forest\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
                 "height=\"%.0f\" aria-hidden=\"true\"><rect class=\"band\" x=\"%.1f\" y=\"0\" "
                 "width=\"%.1f\" height=\"%.0f\"/><line class=\"zero\" x1=\"%.1f\" y1=\"0\" "
                 "x2=\"%.1f\" y2=\"%.0f\"/>", FOREST_W, FOREST_H, FOREST_W, FOREST_H,
            fx(-threshold, span), fx(threshold, span) - fx(-threshold, span), FOREST_H,
            fx(0, span), fx(0, span), FOREST_H);
    if (isfinite(r->ci_low) && isfinite(r->ci_high))
        fprintf(out, "<line class=\"interval\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                fx(r->ci_low, span), FOREST_H / 2, fx(r->ci_high, span), FOREST_H / 2);
    if (isfinite(r->change))
        verdict_mark(out, r->verdict, fx(r->change, span));
    fputs("</svg></td>", out);
}

/* The console's note of the row (why it is undecided, what it rests on,
 * its marked sides), after the runs per side. */
static void notes(FILE *out, const ompb__comparison *cmp, const ompb__compare_row *r)
{
    char note[640]; /* compare_report.c's room for a note */
    ompb__compare_row_note(cmp, r, note, sizeof note);
    fprintf(out, "<td>%zu vs %zu runs%s", r->base_runs, r->head_runs, note[0] ? "; " : "");
    ompb__html_text(out, note);
    fputs("</td>", out);
}

/* Why an undecided row is undecided, in a few words for the verdict
 * column (the notes column has the figures); NULL for a decided row. */
static const char *undecided_why(const ompb__compare_row *r)
{
    if (!ompb__verdict_is(r->verdict, OMPB__VERDICT_UNDECIDED))
        return NULL;
    if (r->verdict == OMPB__VERDICT_DISTURBED)
        return "too few clean rounds";
    if (r->verdict == OMPB__VERDICT_UNKNOWN)
        return "too few runs: noise between runs unknown";
    if (r->runs_needed == 0)
        return "held back by Benjamini-Hochberg";
    return "too few runs for this spread";
}

static void verdict_cell(FILE *out, const ompb__compare_row *r)
{
    const char *why = undecided_why(r);
    fprintf(out, "<td class=\"v-%s\">%s", ompb__verdict_key(r->verdict),
            ompb__verdict_name(r->verdict));
    if (why || (r->base_marks | r->head_marks))
        fprintf(out, "<span class=\"why\">%s%s%s</span>", why ? why : "",
                why && (r->base_marks | r->head_marks) ? "; " : "",
                r->base_marks && r->head_marks ? "both sides marked"
                : r->base_marks                ? "BASE marked"
                : r->head_marks                ? "HEAD marked" : "");
    fputs("</td>", out);
}

static void row(FILE *out, const ompb__comparison *cmp, const ompb__compare_row *r, size_t i,
                double span, double threshold)
{
    char c[OMPB__UNIT_TEXT_MAX], lo[OMPB__UNIT_TEXT_MAX], hi[OMPB__UNIT_TEXT_MAX];
    fprintf(out, "<tr id=\"c%zu\" data-i=\"%zu\" data-change=\"%.6g\" data-verdict=\"%d\"><td>",
            i, i, isfinite(r->change) ? r->change : 0.0, (int)r->verdict);
    ompb__html_text(out, r->name);
    fputs("</td>", out);
    verdict_cell(out, r);
    fprintf(out, "<td>%s</td><td>", ompb__format_change(c, sizeof c, r->change));
    if (isfinite(r->ci_low) && isfinite(r->ci_high))
        fprintf(out, "%s to %s", ompb__format_change(lo, sizeof lo, r->ci_low),
                ompb__format_change(hi, sizeof hi, r->ci_high));
    else
        fputs("-", out);
    fputs("</td>", out);
    forest_cell(out, r, span, threshold);
    notes(out, cmp, r);
    fputs("</tr>\n", out);
}

void ompb__html_compare(FILE *out, const ompb__comparison *cmp)
{
    double span = forest_span(cmp);
    fprintf(out, "<section id=\"comparison\"><h2>Comparison</h2><p>HEAD against BASE: change "
                 "of the time per iteration; the band is the &#177;%.1f%% threshold, the bar "
                 "the %.0f%% interval. Shapes: &#9650; regressed, &#9660; improved, &#9670; "
                 "noisy, &#9679; other. The axis spans &#177;%.0f%% (values beyond sit on its "
                 "edge).</p><p>", cmp->opts.threshold * 100, (1 - cmp->opts.alpha) * 100,
            span * 100);
    for (int v = 0; v < OMPB__VERDICT_COUNT; v++)
        if (cmp->counts[v])
            fprintf(out, "<span class=\"count v-%s\">%s: %zu</span> ", ompb__verdict_key(v),
                    ompb__verdict_name(v), cmp->counts[v]);
    fputs("</p><div class=\"scroll\"><table id=\"forest\"><thead><tr><th><button data-sort=\"name\">instance</button>"
          "</th><th><button data-sort=\"verdict\">verdict</button></th><th><button "
          "data-sort=\"change\">change</button></th><th>interval</th><th>forest plot</th>"
          "<th>notes</th></tr></thead><tbody>\n", out);
    for (size_t i = 0; i < cmp->n; i++)
        row(out, cmp, &cmp->rows[i], i, span, cmp->opts.threshold);
    fputs("</tbody></table></div></section>\n", out);
}

/* One line of the summary: the rows whose verdict has all of flags (or is
 * v), each a link to its forest row. */
static void summary_line(FILE *out, const ompb__comparison *cmp, const char *what, int v,
                         unsigned flags)
{
    size_t n = 0;
    for (size_t i = 0; i < cmp->n; i++) {
        const ompb__compare_row *r = &cmp->rows[i];
        if (v >= 0 ? (int)r->verdict != v : !ompb__verdict_is(r->verdict, flags))
            continue;
        fprintf(out, n++ ? ", " : "<li><b>%s</b>: ", what);
        fprintf(out, "<a href=\"#c%zu\">", i);
        ompb__html_text(out, r->name);
        fputs("</a>", out);
    }
    if (n)
        fprintf(out, " (%zu)</li>", n);
    else
        fprintf(out, "<li><b>%s</b>: none</li>", what);
}

void ompb__html_compare_summary(FILE *out, const ompb__comparison *cmp)
{
    fprintf(out, "<section id=\"verdicts\"><h2>Comparison summary</h2><p>HEAD against BASE, "
                 "%zu instances, threshold &#177;%.1f%% (<a href=\"#comparison\">the forest "
                 "plot</a>; <a href=\"#notes\">how verdicts are decided</a>):</p><ul>",
            cmp->n, cmp->opts.threshold * 100);
    summary_line(out, cmp, "regressed", OMPB__VERDICT_REGRESSED, 0);
    summary_line(out, cmp, "improved", OMPB__VERDICT_IMPROVED, 0);
    summary_line(out, cmp, "undecided", -1, OMPB__VERDICT_UNDECIDED);
    fputs("</ul></section>\n", out);
}
