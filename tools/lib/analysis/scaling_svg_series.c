/* SPDX-License-Identifier: MIT */
/*
 * The data of a scaling plot's panel (analysis/scaling_svg.h): one series
 * per rank count, so that ranks x threads are told apart, each with its
 * ideal line; every point's marker (its series' shape, the marked colour,
 * a hollow circle when oversubscribed, a triangle on the edge when off the
 * axis) with its run-to-run range and a title; the usable PU line; and the
 * legend, in a strip of its own below the panel, never over the data.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"
#include "analysis/scaling.h"
#include "analysis/scaling_svg.h"
#include "analysis/units.h"

#define OMPB__MAX_SERIES 8
static const char *const series_colors[] = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b",
                                            "#17becf", "#bcbd22", "#7f7f7f", "#e377c2"};
static const char *const series_dashes[] = {"", " stroke-dasharray=\"2 3\"",
                                            " stroke-dasharray=\"8 3 2 3\"",
                                            " stroke-dasharray=\"10 4\""};

/* The rank counts of a ranked family in ascending order (at most
 * OMPB__MAX_SERIES, the rest share the last); one key, -1, otherwise. */
typedef struct series_set {
    int key[OMPB__MAX_SERIES];
    size_t n;
} series_set;

static series_set series_of(const ompb__scaling_family *f)
{
    series_set s = {{-1}, 1};
    if (!f->ranked)
        return s;
    s.n = 0;
    for (size_t i = 0; i < f->n; i++) {
        size_t k = 0;
        while (k < s.n && s.key[k] != f->points[i].ranks)
            k++;
        if (k == s.n && s.n < OMPB__MAX_SERIES)
            s.key[s.n++] = f->points[i].ranks;
    }
    for (size_t a = 1; a < s.n; a++) /* insertion sort: a handful of keys */
        for (size_t b = a; b > 0 && s.key[b - 1] > s.key[b]; b--) {
            int t = s.key[b];
            s.key[b] = s.key[b - 1];
            s.key[b - 1] = t;
        }
    return s;
}

static size_t series_index(const series_set *ss, const ompb__scaling_point *pt)
{
    for (size_t k = 0; k < ss->n; k++)
        if (ss->key[k] == -1 || ss->key[k] == pt->ranks)
            return k;
    return ss->n - 1;
}

static void series_label(char *buf, size_t cap, int key)
{
    if (key < 0)
        snprintf(buf, cap, "measured");
    else if (key == 0)
        snprintf(buf, cap, "threads only (no MPI)");
    else
        snprintf(buf, cap, "%d rank%s x threads", key, key == 1 ? "" : "s");
}

/* The line joins the points, those off the axis at its edge; a time of 0
 * has no place on a log axis, so the line skips it (its marker still shows
 * it, below the axis). */
static void series_line(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f,
                        const char *id, ompb__svg_value_fn value, int key, size_t si)
{
    /* key: -1 every point, R >= 0 the points of R ranks; an ideal line is
     * -2 (every point) or -3 - R (the points of R ranks). */
    bool ideal = key <= -2;
    int ranks = ideal ? (key == -2 ? -1 : -3 - key) : key;
    fprintf(out, "<polyline id=\"%s\" class=\"%s\" fill=\"none\" stroke=\"%s\" "
                 "stroke-width=\"%s\"%s points=\"", id, ideal ? "ideal" : "measured",
            ideal ? OMPB__SVG_COLOR_IDEAL : series_colors[si], ideal ? "1.5" : "2",
            ideal ? " stroke-dasharray=\"6 4\"" : series_dashes[si % 4]);
    const char *sep = "";
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *pt = &f->points[i];
        double v = value(f, i);
        if (ompb__svg_placement(p, v) == OMPB__SVG_PLACE_NONE || (p->ylog && v <= 0.0))
            continue;
        if (ranks >= 0 && pt->ranks != ranks)
            continue;
        /* Joining an oversubscribed time would draw turn-taking as scaling. */
        if (!ideal && ompb__scaling_point_not_real(pt))
            continue;
        fprintf(out, "%s%.1f,%.1f", sep, ompb__svg_x(p, (double)pt->threads), ompb__svg_y(p, v));
        sep = " ";
    }
    fputs("\"/>\n", out);
}

/* One ideal line over every point, but per rank count when the ideal
 * follows the declared work (a mixed family): there points of one width
 * and different ranks have different ideals. */
void ompb__svg_series(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f, size_t fi,
                   const char *what, ompb__svg_value_fn value, ompb__svg_value_fn ideal)
{
    char id[96];
    series_set ss = series_of(f);
    if (!f->mixed || f->metric) {
        snprintf(id, sizeof id, "f%zu-%s-ideal", fi, what);
        series_line(out, p, f, id, ideal, -2, 0);
    }
    for (size_t k = 0; k < ss.n && f->mixed && !f->metric; k++) {
        snprintf(id, sizeof id, "f%zu-%s-ideal-r%d", fi, what, ss.key[k]);
        series_line(out, p, f, id, ideal, -3 - ss.key[k], 0);
    }
    for (size_t k = 0; k < ss.n; k++) {
        if (ss.key[k] < 0)
            snprintf(id, sizeof id, "f%zu-%s-measured", fi, what);
        else
            snprintf(id, sizeof id, "f%zu-%s-measured-r%d", fi, what, ss.key[k]);
        series_line(out, p, f, id, value, ss.key[k], k);
    }
}

/* A series' shape (readable without colour): circle, square, diamond,
 * triangle; the marked colour when the point has marks. */
static void shape(FILE *out, size_t si, double x, double y, const char *fill, const char *cls)
{
    switch (si % 4) {
    case 0:
        fprintf(out, "<circle%s cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\">", cls, x, y, fill);
        break;
    case 1:
        fprintf(out, "<rect%s x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\">", cls,
                x - 3.5, y - 3.5, fill);
        break;
    case 2:
        fprintf(out, "<polygon%s points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
                     "fill=\"%s\">", cls, x, y - 5, x + 5, y, x, y + 5, x - 5, y, fill);
        break;
    default:
        fprintf(out, "<polygon%s points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\">", cls,
                x - 5, y - 4, x + 5, y - 4, x, y + 5, fill);
    }
}

static const char *shape_tag(size_t si)
{
    return si % 4 == 0 ? "circle" : si % 4 == 1 ? "rect" : "polygon";
}

/* A point inside the axis has its series' shape: filled, in the marked
 * colour when the point has marks, a hollow circle when it is
 * oversubscribed (not real); one beyond the axis a triangle just inside the
 * edge, its tip on the edge, pointing the way the value lies (of class
 * oversubscribed too when it is). Returns the
 * element's tag, to close it after its title. */
static const char *marker_shape(FILE *out, const ompb__scaling_point *pt, size_t si, double x,
                                double y, ompb__svg_place at)
{
    if (at == OMPB__SVG_PLACE_IN && ompb__scaling_point_not_real(pt)) {
        fprintf(out, "<circle class=\"oversubscribed\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
                     "fill=\"white\" stroke=\"%s\" stroke-width=\"1.5\">", x, y,
                OMPB__SVG_COLOR_MARKED);
        return "circle";
    }
    if (at == OMPB__SVG_PLACE_IN) {
        shape(out, si, x, y, pt->marks ? OMPB__SVG_COLOR_MARKED : series_colors[si],
              pt->marks ? " class=\"marked\"" : "");
        return shape_tag(si);
    }
    double base = at == OMPB__SVG_PLACE_ABOVE ? y + 10.0 : y - 10.0;
    /* Beyond the axis an oversubscribed point keeps its class: a loaded
     * machine can push its (unreal) time off the chart. */
    fprintf(out, "<polygon class=\"off-axis%s\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
                 "fill=\"%s\">", ompb__scaling_point_not_real(pt) ? " oversubscribed" : "", x, y,
            x - 6.0, base, x + 6.0, base, OMPB__SVG_COLOR_OFF_AXIS);
    return "polygon";
}

/* The run-to-run range of a point as a vertical bar, when it had several
 * runs that differ: the value scaled by lo/median and hi/median (for an
 * efficiency the ratio inverts). */
static void error_bar(FILE *out, const ompb__svg_panel *p, const ompb__scaling_point *pt, double v,
                      double x, bool inverse)
{
    if (pt->runs < 2 || !(pt->hi_ns > pt->lo_ns) || !(pt->median_ns > 0.0) || isnan(v))
        return;
    double a = v * (inverse ? pt->median_ns / pt->hi_ns : pt->lo_ns / pt->median_ns);
    double b = v * (inverse ? pt->median_ns / pt->lo_ns : pt->hi_ns / pt->median_ns);
    if (ompb__svg_placement(p, a) == OMPB__SVG_PLACE_NONE
        || ompb__svg_placement(p, b) == OMPB__SVG_PLACE_NONE)
        return;
    double ya = ompb__svg_y(p, a), yb = ompb__svg_y(p, b);
    fprintf(out, "<path class=\"errorbar\" d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8\" "
                 "stroke=\"#333333\" fill=\"none\"/>\n", x, ya, yb, x - 4, ya, x - 4, yb);
}

static void marker_title(FILE *out, const ompb__scaling_family *f, const ompb__scaling_point *pt,
                         ompb__svg_place at)
{
    char t[OMPB__UNIT_TEXT_MAX], sp[OMPB__UNIT_TEXT_MAX], eff[OMPB__UNIT_TEXT_MAX];
    char codes[160] = "", who[64] = "";
    if (pt->marks)
        ompb__marks_text(codes, sizeof codes, pt->marks);
    if (pt->ranks > 0)
        snprintf(who, sizeof who, " (%d rank%s x %d)", pt->ranks, pt->ranks == 1 ? "" : "s",
                 pt->threads_per_rank);
    fprintf(out, "<title>%d threads%s: %s, %s %s, %s %s%s%s%s%s</title>", pt->threads, who,
            ompb__svg_value_label(f, t, sizeof t, pt->median_ns, false),
            f->metric ? "ratio" : f->weak ? "scaled speedup" : "speedup",
            ompb__format_speedup(sp, sizeof sp, pt->speedup),
            f->metric ? "work efficiency" : "efficiency",
            ompb__format_efficiency(eff, sizeof eff, pt->efficiency),
            at == OMPB__SVG_PLACE_IN ? "" : " (off the axis)", pt->marks ? "; marked: " : "", codes,
            ompb__scaling_point_not_real(pt) ? " (no speedup: threads took turns)" : "");
}

void ompb__svg_markers(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f, ompb__svg_value_fn value,
                    bool inverse)
{
    series_set ss = series_of(f);
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *pt = &f->points[i];
        double v = value(f, i);
        ompb__svg_place at = ompb__svg_placement(p, v);
        if (at == OMPB__SVG_PLACE_NONE)
            continue;
        double x = ompb__svg_x(p, (double)pt->threads);
        if (at == OMPB__SVG_PLACE_IN)
            error_bar(out, p, pt, v, x, inverse);
        const char *tag = marker_shape(out, pt, series_index(&ss, pt), x, ompb__svg_y(p, v), at);
        marker_title(out, f, pt, at);
        fprintf(out, "</%s>\n", tag);
    }
}

/* The usable PU count as a dashed vertical line, when it falls inside the
 * x range: right of it threads take turns. Its label sits above the panel,
 * where no data is. */
static bool has_usable_line(const ompb__scaling_family *f)
{
    /* A rank's usable PUs are its own (often one core under mpirun): the
     * job's total is not in the file, and a line at one rank's count would
     * call every multi-rank point oversubscribed. */
    return f->usable_pus > 0 && !f->ranked;
}

void ompb__svg_usable_line(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f)
{
    if (!has_usable_line(f))
        return;
    double l = log2((double)f->usable_pus);
    if (l < p->xlo || l > p->xhi)
        return;
    double x = ompb__svg_x(p, (double)f->usable_pus);
    fprintf(out, "<line class=\"usable-pus\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"%s\" stroke-dasharray=\"2 2\"/><text x=\"%.1f\" y=\"%.1f\" "
                 "text-anchor=\"middle\" font-size=\"10\">%d usable PUs</text>\n",
            x, p->y, x, p->y + p->h, OMPB__SVG_COLOR_OFF_AXIS, x, p->y - 4, f->usable_pus);
}

/* ---- legend: below the panel, in its own strip, so it never covers data */

#define OMPB__LEGEND_ROW 16.0
#define OMPB__LEGEND_ENTRY_W 185.0

typedef struct legend_pen {
    FILE *out;
    const ompb__svg_panel *p;
    double x0, y0;          /* top left of the legend box */
    size_t n;               /* entries so far */
    size_t per_row;
} legend_pen;

/* Where entry n's symbol goes; the entries fill rows of per_row. */
static void legend_at(const legend_pen *lp, double *x, double *y)
{
    *x = lp->x0 + 6 + (double)(lp->n % lp->per_row) * OMPB__LEGEND_ENTRY_W;
    *y = lp->y0 + 10 + (double)(lp->n / lp->per_row) * OMPB__LEGEND_ROW;
}

static void legend_text(legend_pen *lp, double x, double y, const char *text)
{
    fprintf(lp->out, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 26, y + 4, text);
    lp->n++;
}

static void legend_line(legend_pen *lp, const char *color, const char *dash, const char *text)
{
    double x, y;
    legend_at(lp, &x, &y);
    fprintf(lp->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                     "stroke-width=\"2\"%s/>\n", x, y, x + 20, y, color, dash);
    legend_text(lp, x, y, text);
}

static void legend_series(legend_pen *lp, const ompb__scaling_family *f)
{
    series_set ss = series_of(f);
    for (size_t k = 0; k < ss.n; k++) {
        char label[64];
        double x, y;
        series_label(label, sizeof label, ss.key[k]);
        legend_at(lp, &x, &y);
        fprintf(lp->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                         "stroke-width=\"2\"%s/>\n", x, y, x + 20, y, series_colors[k],
                series_dashes[k % 4]);
        if (f->ranked) {
            shape(lp->out, k, x + 10, y, series_colors[k], " class=\"legend-mark\"");
            fprintf(lp->out, "</%s>\n", shape_tag(k));
        }
        legend_text(lp, x, y, label);
    }
}

static bool any_error_bar(const ompb__scaling_family *f)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->points[i].runs > 1 && f->points[i].hi_ns > f->points[i].lo_ns)
            return true;
    return false;
}

/* The entries of marked and oversubscribed points, run-to-run ranges and
 * the usable PU line, when the family has them. */
static void legend_extras(legend_pen *lp, const ompb__scaling_family *f)
{
    double x, y;
    bool other = false;
    for (size_t i = 0; i < f->n; i++)
        other |= f->points[i].marks && !ompb__scaling_point_not_real(&f->points[i]);
    if (other) {
        legend_at(lp, &x, &y);
        fprintf(lp->out, "<path d=\"M%.1f %.1fa3.5 3.5 0 1 0 0.1 0z\" fill=\"%s\"/>\n", x + 6,
                y, OMPB__SVG_COLOR_MARKED);
        legend_text(lp, x, y, "marked");
    }
    if (f->marks & OMPB__MARK_OVERSUB) {
        legend_at(lp, &x, &y);
        fprintf(lp->out, "<path d=\"M%.1f %.1fa4 4 0 1 0 0.1 0z\" fill=\"white\" stroke=\"%s\" "
                         "stroke-width=\"1.5\"/>\n", x + 6, y, OMPB__SVG_COLOR_MARKED);
        legend_text(lp, x, y, "oversubscribed (no speedup)");
    }
    if (any_error_bar(f)) {
        legend_at(lp, &x, &y);
        fprintf(lp->out, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"#333333\"/>\n", x + 10, y - 6,
                y + 6);
        legend_text(lp, x, y, "run-to-run range");
    }
    if (has_usable_line(f))
        legend_line(lp, OMPB__SVG_COLOR_OFF_AXIS, " stroke-dasharray=\"2 2\"", "usable PUs");
    char label[160];
    if (ompb__svg_model_label(f, label, sizeof label))
        legend_line(lp, OMPB__SVG_COLOR_MODEL, OMPB__SVG_MODEL_DASH, label);
}

static size_t legend_entries(const ompb__scaling_family *f)
{
    bool other = false;
    for (size_t i = 0; i < f->n; i++)
        other |= f->points[i].marks && !ompb__scaling_point_not_real(&f->points[i]);
    char label[160];
    return 1 + series_of(f).n + other + ((f->marks & OMPB__MARK_OVERSUB) != 0)
           + any_error_bar(f) + has_usable_line(f)
           + (ompb__svg_model_label(f, label, sizeof label) != NULL);
}

/* The legend box's height for a family: the row height leaves room for it. */
double ompb__svg_legend_height(const ompb__scaling_family *f)
{
    size_t per_row = (size_t)(OMPB__SVG_PANEL_W / OMPB__LEGEND_ENTRY_W);
    return 8 + (double)((legend_entries(f) + per_row - 1) / per_row) * OMPB__LEGEND_ROW;
}

void ompb__svg_legend(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f, bool weak)
{
    legend_pen lp = {out, p, p->x, p->y + p->h + 44, 0,
                     (size_t)(OMPB__SVG_PANEL_W / OMPB__LEGEND_ENTRY_W)};
    fprintf(out, "<g class=\"legend\"><rect class=\"legend-box\" x=\"%.1f\" y=\"%.1f\" "
                 "width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" stroke=\"#dddddd\"/>\n",
            lp.x0, lp.y0, p->w, ompb__svg_legend_height(f));
    legend_series(&lp, f);
    legend_line(&lp, OMPB__SVG_COLOR_IDEAL, " stroke-dasharray=\"6 4\"",
                f->metric ? "ideal (same count)" : f->mixed ? "ideal (declared work / T)"
                : weak ? "ideal (weak: same time)" : "ideal (strong: time / T)");
    legend_extras(&lp, f);
    fputs("</g>\n", out);
}
