/* SPDX-License-Identifier: MIT */
/*
 * The strong-scaling plot as a standalone SVG document (no script, no
 * external style or font), one row per benchmark family: median time against
 * threads on log-log axes, where ideal scaling is a straight line, and
 * parallel efficiency against threads, where it is flat at 100%. Threads are
 * on a log2 axis because thread counts usually double. Both y axes are
 * bounded relative to the ideal line and carry a handful of ticks whatever
 * the data, so the document stays small for any input; points beyond an
 * axis are marked on its edge. With --metric the left panel shows the
 * counter per iteration summed over the team, whose ideal is the same count
 * at every width (the same work), and the right one the work efficiency
 * (base count / count). Marked points are drawn in another colour, and an
 * oversubscribed one hollow and outside the measured line: its time is not
 * the code's scaling, so it has no efficiency to plot. The ideal line is
 * strong scaling's t0 T0 / T, or weak scaling's flat t0 when the work grows
 * with the width (declared or inferred: analysis/scaling.h). A distributed
 * run's points form one series per rank count, each with its own shape;
 * run-to-run ranges are error bars, the usable PU count a vertical line, and
 * the legend sits in a strip below each panel, never over the data.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <ompbench/error.h>

#include "report/report.h"
#include "analysis/scaling.h"
#include "analysis/scaling_svg.h"
#include "analysis/units.h"

#define OMPB__SVG_WIDTH 960.0
#define OMPB__SVG_ROW 330.0
#define OMPB__SVG_TOP 30.0
#define OMPB__PANEL_W 370.0
#define OMPB__PANEL_H 220.0
#define OMPB__PANEL_LEFT_X 90.0
#define OMPB__PANEL_RIGHT_X 570.0
#define OMPB__PANEL_Y 40.0
#define OMPB__TICK_GAP 16.0 /* px between tick labels, or they overlap */
#define OMPB__THREAD_LABEL_GAP 24.0
#define OMPB__MAX_INTERVALS 8 /* tick intervals per axis: 9 ticks at most */
#define OMPB__TIME_PAD_DECADES 0.08
#define OMPB__COLOR_MEASURED "#1f77b4"
#define OMPB__COLOR_IDEAL "#7f7f7f"
#define OMPB__COLOR_OFF_AXIS "#d62728"
#define OMPB__COLOR_MARKED "#ff7f0e"

/* The value plotted for point i of a family. */
typedef double (*value_fn)(const ompb__scaling_family *f, size_t i);

typedef ompb__svg_panel panel;

/* Length of a character XML 1.0 forbids at s (C0 controls but tab, newline
 * and return; U+FFFE and U+FFFF), 0 for an allowed one. Names are UTF-8
 * (the JSON reader guarantees it), so nothing else is out of range. */
static size_t forbidden_len(const unsigned char *s)
{
    if (*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r')
        return 1;
    return s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf) ? 3 : 0;
}

/* Text and attribute values: markup characters as entities, tab and line
 * breaks as character references (an attribute would turn them into
 * spaces), forbidden characters as '?' (not even a reference is allowed). */
static void xml_text(FILE *out, const char *text)
{
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        size_t bad = forbidden_len(s);
        if (bad) {
            fputc('?', out);
            s += bad;
            continue;
        }
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\t': case '\n': case '\r': fprintf(out, "&#%d;", *s); break;
        default: fputc(*s, out);
        }
        s++;
    }
}

static double px(const panel *p, int threads)
{
    return ompb__svg_x(p, (double)threads);
}

static void x_range(panel *p, const ompb__scaling_family *f)
{
    double lo = log2((double)f->points[0].threads);
    double hi = log2(ompb__svg_model_reach(f));
    double pad = (hi - lo) * 0.06;
    p->xlo = lo - pad;
    p->xhi = hi + pad;
}

/* The point's ideal (analysis/scaling.h); a metric's is the base count. */
static double ideal_time(const ompb__scaling_family *f, size_t i)
{
    const ompb__scaling_point *b = &f->points[0];
    if (f->metric)
        return b->median_ns;
    if (isnan(f->points[i].ideal_ns)) /* a family built by hand */
        return f->weak ? b->median_ns
                       : b->median_ns * (double)b->threads / (double)f->points[i].threads;
    return f->points[i].ideal_ns;
}

/* A y label of the left panel: a time, or the metric's unit. */
static char *value_label(const ompb__scaling_family *f, char *buf, size_t cap, double v,
                         bool shortest)
{
    if (f->metric)
        return shortest ? ompb__format_metric_short(buf, cap, v, f->unit)
                        : ompb__format_metric(buf, cap, v, f->unit);
    return shortest ? ompb__format_ns_short(buf, cap, v) : ompb__format_ns(buf, cap, v);
}

static double measured_time(const ompb__scaling_family *f, size_t i)
{
    return f->points[i].median_ns;
}

static double measured_efficiency(const ompb__scaling_family *f, size_t i)
{
    return f->points[i].efficiency;
}

static double ideal_efficiency(const ompb__scaling_family *f, size_t i)
{
    (void)f;
    (void)i;
    return 1.0;
}

/* The smallest 1-2-5 step (times a power of ten) of at least raw. */
static double nice_step(double raw)
{
    double mag = pow(10.0, floor(log10(raw)));
    static const double mantissas[] = {1.0, 2.0, 5.0, 10.0};
    for (size_t i = 0; i < sizeof mantissas / sizeof mantissas[0]; i++)
        if (mantissas[i] * mag >= raw * (1.0 - 1e-9))
            return mantissas[i] * mag;
    return 10.0 * mag;
}

/* log10 of the smallest and largest finite positive times, measured or ideal;
 * false when there is none. */
static bool time_extent(const ompb__scaling_family *f, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < f->n; i++) {
        double v[2] = {measured_time(f, i), ideal_time(f, i)};
        for (int k = 0; k < 2; k++) {
            if (!(v[k] > 0.0) || !isfinite(v[k]))
                continue;
            *lo = fmin(*lo, log10(v[k]));
            *hi = fmax(*hi, log10(v[k]));
        }
    }
    ompb__svg_model_extent(f, lo, hi);
    return *lo <= *hi;
}

/*
 * The time axis covers the data but at most OMPB__SVG_TIME_MARGIN_DECADES
 * beyond the ideal line, which spans the ratio of the thread counts: the
 * axis stays readable and bounded (a few decades, so few ticks) however
 * far off a measurement is. Without an ideal line (a base time of 0) the
 * window hangs from the largest time.
 */
static void time_range(panel *p, const ompb__scaling_family *f)
{
    double lo, hi, base = f->points[0].median_ns;
    if (!time_extent(f, &lo, &hi))
        lo = hi = 0.0; /* nothing positive to draw: any sane range will do */
    double top = hi, bottom = hi - 2.0 * OMPB__SVG_TIME_MARGIN_DECADES;
    if (base > 0.0 && isfinite(base)) {
        top = log10(base) + OMPB__SVG_TIME_MARGIN_DECADES;
        bottom = log10(ideal_time(f, f->n - 1)) - OMPB__SVG_TIME_MARGIN_DECADES;
    }
    p->ylog = true;
    p->ylo = fmax(lo, bottom) - OMPB__TIME_PAD_DECADES;
    p->yhi = fmin(hi, top) + OMPB__TIME_PAD_DECADES;
}

/* 0 to 110% of the largest efficiency (at least the ideal 100%), at most
 * OMPB__SVG_EFFICIENCY_MAX; the top rounded up to a whole tick step. */
static void efficiency_range(panel *p, const ompb__scaling_family *f)
{
    double hi = 1.0;
    for (size_t i = 0; i < f->n; i++)
        if (f->points[i].efficiency > hi)
            hi = f->points[i].efficiency;
    hi = fmin(hi * 1.1, OMPB__SVG_EFFICIENCY_MAX);
    p->ylog = false;
    p->ylo = 0.0;
    p->ystep = nice_step(hi / OMPB__MAX_INTERVALS);
    p->yhi = ceil(hi / p->ystep - 1e-9) * p->ystep;
}

static void y_tick(FILE *out, const panel *p, double v, const char *label)
{
    double y = ompb__svg_y(p, v);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n",
            p->x, y, p->x + p->w, y);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", p->x - 6,
            y + 4, label);
}

/* Ticks at m * 10^k for the mantissas given and every stride-th decade k;
 * returns how many fall in range (only those far enough apart are drawn). */
static int log_ticks(FILE *out, const panel *p, const ompb__scaling_family *f,
                     const double *mantissas, size_t n, int stride, bool draw)
{
    int count = 0;
    double last_y = INFINITY;
    for (int k = (int)floor(p->ylo); k <= (int)ceil(p->yhi); k++) {
        if (((k % stride) + stride) % stride != 0)
            continue;
        for (size_t m = 0; m < n; m++) {
            double v = mantissas[m] * pow(10.0, k), lv = log10(v);
            char label[OMPB__UNIT_TEXT_MAX];
            if (lv < p->ylo || lv > p->yhi)
                continue;
            count++;
            if (!draw || last_y - ompb__svg_y(p, v) < OMPB__TICK_GAP)
                continue;
            last_y = ompb__svg_y(p, v);
            y_tick(out, p, v, value_label(f, label, sizeof label, v, true));
        }
    }
    return count;
}

/* Ticks on the value range's two ends, for a range inside one decade that
 * holds no integer mantissa. */
static void end_ticks(FILE *out, const panel *p, const ompb__scaling_family *f)
{
    char label[OMPB__UNIT_TEXT_MAX];
    double ends[2] = {pow(10.0, p->ylo + OMPB__TIME_PAD_DECADES),
                      pow(10.0, p->yhi - OMPB__TIME_PAD_DECADES)};
    for (int i = 0; i < 2; i++)
        y_tick(out, p, ends[i], value_label(f, label, sizeof label, ends[i], false));
}

/* Decades between ticks so that at most OMPB__MAX_INTERVALS fit: 1, 2, 5,
 * 10, ... */
static int decade_stride(const panel *p)
{
    double step = nice_step((p->yhi - p->ylo) / OMPB__MAX_INTERVALS);
    return step < 1.0 ? 1 : (int)lround(step);
}

/* 1-2-5 ticks when that gives three to nine; every integer mantissa when it
 * gives fewer (times within a decade or so); every stride-th decade, stride
 * on a 1-2-5 step, when even 1-2-5 gives too many. */
static void time_ticks(FILE *out, const panel *p, const ompb__scaling_family *f)
{
    static const double coarse[] = {1.0, 2.0, 5.0};
    static const double fine[] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0};
    static const double decade[] = {1.0};
    int n = log_ticks(out, p, f, coarse, 3, 1, false);
    if (n >= 3 && n <= OMPB__MAX_INTERVALS + 1)
        log_ticks(out, p, f, coarse, 3, 1, true);
    else if (n < 3 && log_ticks(out, p, f, fine, 9, 1, true) == 0)
        end_ticks(out, p, f);
    else if (n > OMPB__MAX_INTERVALS + 1)
        log_ticks(out, p, f, decade, 1, decade_stride(p), true);
}

/* Integer steps: adding a step to a huge value would not change it. */
static void efficiency_ticks(FILE *out, const panel *p)
{
    int n = (int)lround(p->yhi / p->ystep);
    for (int i = 0; i <= n; i++) {
        char label[OMPB__UNIT_TEXT_MAX];
        snprintf(label, sizeof label, "%.0f%%", (double)i * p->ystep * 100.0);
        y_tick(out, p, (double)i * p->ystep, label);
    }
}

static void frame(FILE *out, const panel *p, const ompb__scaling_family *f,
                  const char *y_title)
{
    double last_x = -INFINITY;
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                 "stroke=\"#999999\"/>\n", p->x, p->y, p->w, p->h);
    for (size_t i = 0; i < f->n; i++) {
        double x = px(p, f->points[i].threads);
        if (x - last_x < OMPB__THREAD_LABEL_GAP)
            continue; /* many close thread counts: labels would overlap */
        last_x = x;
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n", x,
                p->y + p->h + 16, f->points[i].threads);
    }
    ompb__svg_model_ticks(out, p, f, last_x);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
            p->x + p->w / 2, p->y + p->h + 34,
            f->ranked ? "width: ranks x threads per rank (one series per rank count)"
                      : "threads");
    double ty = p->y + p->h / 2, tx = p->x - 70;
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n", tx, ty, tx, ty, y_title);
}

/* ---- series: one per rank count, so ranks x threads are told apart ---- */

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
static void series_line(FILE *out, const panel *p, const ompb__scaling_family *f,
                        const char *id, value_fn value, int key, size_t si)
{
    /* key: -1 every point, R >= 0 the points of R ranks; an ideal line is
     * -2 (every point) or -3 - R (the points of R ranks). */
    bool ideal = key <= -2;
    int ranks = ideal ? (key == -2 ? -1 : -3 - key) : key;
    fprintf(out, "<polyline id=\"%s\" class=\"%s\" fill=\"none\" stroke=\"%s\" "
                 "stroke-width=\"%s\"%s points=\"", id, ideal ? "ideal" : "measured",
            ideal ? OMPB__COLOR_IDEAL : series_colors[si], ideal ? "1.5" : "2",
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
        fprintf(out, "%s%.1f,%.1f", sep, px(p, pt->threads), ompb__svg_y(p, v));
        sep = " ";
    }
    fputs("\"/>\n", out);
}

/* One ideal line over every point, but per rank count when the ideal
 * follows the declared work (a mixed family): there points of one width
 * and different ranks have different ideals. */
static void series(FILE *out, const panel *p, const ompb__scaling_family *f, size_t fi,
                   const char *what, value_fn value, value_fn ideal)
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
                OMPB__COLOR_MARKED);
        return "circle";
    }
    if (at == OMPB__SVG_PLACE_IN) {
        shape(out, si, x, y, pt->marks ? OMPB__COLOR_MARKED : series_colors[si],
              pt->marks ? " class=\"marked\"" : "");
        return shape_tag(si);
    }
    double base = at == OMPB__SVG_PLACE_ABOVE ? y + 10.0 : y - 10.0;
    /* Beyond the axis an oversubscribed point keeps its class: a loaded
     * machine can push its (unreal) time off the chart. */
    fprintf(out, "<polygon class=\"off-axis%s\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
                 "fill=\"%s\">", ompb__scaling_point_not_real(pt) ? " oversubscribed" : "", x, y,
            x - 6.0, base, x + 6.0, base, OMPB__COLOR_OFF_AXIS);
    return "polygon";
}

/* The run-to-run range of a point as a vertical bar, when it had several
 * runs that differ: the value scaled by lo/median and hi/median (for an
 * efficiency the ratio inverts). */
static void error_bar(FILE *out, const panel *p, const ompb__scaling_point *pt, double v,
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
            value_label(f, t, sizeof t, pt->median_ns, false),
            f->metric ? "ratio" : f->weak ? "scaled speedup" : "speedup",
            ompb__format_speedup(sp, sizeof sp, pt->speedup),
            f->metric ? "work efficiency" : "efficiency",
            ompb__format_efficiency(eff, sizeof eff, pt->efficiency),
            at == OMPB__SVG_PLACE_IN ? "" : " (off the axis)", pt->marks ? "; marked: " : "", codes,
            ompb__scaling_point_not_real(pt) ? " (no speedup: threads took turns)" : "");
}

static void markers(FILE *out, const panel *p, const ompb__scaling_family *f, value_fn value,
                    bool inverse)
{
    series_set ss = series_of(f);
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *pt = &f->points[i];
        double v = value(f, i);
        ompb__svg_place at = ompb__svg_placement(p, v);
        if (at == OMPB__SVG_PLACE_NONE)
            continue;
        double x = px(p, pt->threads);
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

static void usable_line(FILE *out, const panel *p, const ompb__scaling_family *f)
{
    if (!has_usable_line(f))
        return;
    double l = log2((double)f->usable_pus);
    if (l < p->xlo || l > p->xhi)
        return;
    double x = px(p, f->usable_pus);
    fprintf(out, "<line class=\"usable-pus\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"%s\" stroke-dasharray=\"2 2\"/><text x=\"%.1f\" y=\"%.1f\" "
                 "text-anchor=\"middle\" font-size=\"10\">%d usable PUs</text>\n",
            x, p->y, x, p->y + p->h, OMPB__COLOR_OFF_AXIS, x, p->y - 4, f->usable_pus);
}

/* ---- legend: below the panel, in its own strip, so it never covers data */

#define OMPB__LEGEND_ROW 16.0
#define OMPB__LEGEND_ENTRY_W 185.0

typedef struct legend_pen {
    FILE *out;
    const panel *p;
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
                y, OMPB__COLOR_MARKED);
        legend_text(lp, x, y, "marked");
    }
    if (f->marks & OMPB__MARK_OVERSUB) {
        legend_at(lp, &x, &y);
        fprintf(lp->out, "<path d=\"M%.1f %.1fa4 4 0 1 0 0.1 0z\" fill=\"white\" stroke=\"%s\" "
                         "stroke-width=\"1.5\"/>\n", x + 6, y, OMPB__COLOR_MARKED);
        legend_text(lp, x, y, "oversubscribed (no speedup)");
    }
    if (any_error_bar(f)) {
        legend_at(lp, &x, &y);
        fprintf(lp->out, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"#333333\"/>\n", x + 10, y - 6,
                y + 6);
        legend_text(lp, x, y, "run-to-run range");
    }
    if (has_usable_line(f))
        legend_line(lp, OMPB__COLOR_OFF_AXIS, " stroke-dasharray=\"2 2\"", "usable PUs");
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
static double legend_height(const ompb__scaling_family *f)
{
    size_t per_row = (size_t)(OMPB__PANEL_W / OMPB__LEGEND_ENTRY_W);
    return 8 + (double)((legend_entries(f) + per_row - 1) / per_row) * OMPB__LEGEND_ROW;
}

static void legend(FILE *out, const panel *p, const ompb__scaling_family *f, bool weak)
{
    legend_pen lp = {out, p, p->x, p->y + p->h + 44, 0,
                     (size_t)(OMPB__PANEL_W / OMPB__LEGEND_ENTRY_W)};
    fprintf(out, "<g class=\"legend\"><rect class=\"legend-box\" x=\"%.1f\" y=\"%.1f\" "
                 "width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" stroke=\"#dddddd\"/>\n",
            lp.x0, lp.y0, p->w, legend_height(f));
    legend_series(&lp, f);
    legend_line(&lp, OMPB__COLOR_IDEAL, " stroke-dasharray=\"6 4\"",
                f->metric ? "ideal (same count)" : f->mixed ? "ideal (declared work / T)"
                : weak ? "ideal (weak: same time)" : "ideal (strong: time / T)");
    legend_extras(&lp, f);
    fputs("</g>\n", out);
}

/* ---- panels and rows ----------------------------------------------------- */

static void time_panel(FILE *out, const ompb__scaling_family *f, size_t fi, double top)
{
    panel p = {OMPB__PANEL_LEFT_X, top + OMPB__PANEL_Y, OMPB__PANEL_W, OMPB__PANEL_H,
               0, 0, 0, 0, 0, true};
    x_range(&p, f);
    time_range(&p, f);
    fprintf(out, "<g class=\"panel time\">\n");
    time_ticks(out, &p, f);
    char title[OMPB__UNIT_TEXT_MAX + 96];
    if (f->metric)
        snprintf(title, sizeof title, "%.60s per iteration (team)", f->metric);
    frame(out, &p, f, f->metric ? title : "median time per iteration");
    usable_line(out, &p, f);
    ompb__svg_model(out, &p, f, fi, true);
    series(out, &p, f, fi, "time", measured_time, ideal_time);
    markers(out, &p, f, measured_time, false);
    legend(out, &p, f, f->weak);
    fputs("</g>\n", out);
}

static void efficiency_panel(FILE *out, const ompb__scaling_family *f, size_t fi,
                             double top)
{
    panel p = {OMPB__PANEL_RIGHT_X, top + OMPB__PANEL_Y, OMPB__PANEL_W, OMPB__PANEL_H,
               0, 0, 0, 0, 0, false};
    x_range(&p, f);
    efficiency_range(&p, f);
    fprintf(out, "<g class=\"panel efficiency\">\n");
    efficiency_ticks(out, &p);
    frame(out, &p, f, f->metric ? "work efficiency"
                      : f->weak ? "weak-scaling efficiency" : "parallel efficiency");
    usable_line(out, &p, f);
    ompb__svg_model(out, &p, f, fi, false);
    series(out, &p, f, fi, "efficiency", measured_efficiency, ideal_efficiency);
    markers(out, &p, f, measured_efficiency, true);
    legend(out, &p, f, f->weak);
    fputs("</g>\n", out);
}

static double row_height(const ompb__scaling_family *f)
{
    return OMPB__PANEL_Y + OMPB__PANEL_H + 56 + legend_height(f) + 16;
}

static void family_row(FILE *out, const ompb__scaling_family *f, size_t fi, double top)
{
    fprintf(out, "<g id=\"f%zu\" class=\"family\" data-scaling=\"%s\" data-name=\"", fi,
            f->weak ? "weak" : "strong");
    xml_text(out, f->name);
    fprintf(out, "\">\n<text x=\"20\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\">",
            top + 20);
    xml_text(out, f->name);
    const ompb__scaling_point *b = &f->points[0];
    if (b->ranks > 0)
        fprintf(out, " (against %d rank%s x %d thread%s; %s)</text>\n", b->ranks,
                b->ranks == 1 ? "" : "s", b->threads_per_rank, b->threads_per_rank == 1 ? "" : "s",
                ompb__scaling_kind_text(f));
    else
        fprintf(out, " (against %d thread%s; %s)</text>\n", b->threads, b->threads == 1 ? "" : "s",
                ompb__scaling_kind_text(f));
    time_panel(out, f, fi, top);
    efficiency_panel(out, f, fi, top);
    fputs("</g>\n", out);
}

static double svg_height(const ompb__scaling *s)
{
    double h = OMPB__SVG_TOP;
    for (size_t i = 0; i < s->n; i++)
        h += row_height(&s->families[i]);
    return s->n ? h : OMPB__SVG_TOP + OMPB__SVG_ROW;
}

int ompb__scaling_svg_element(FILE *out, const ompb__scaling *s, const char *id)
{
    double height = svg_height(s), top = OMPB__SVG_TOP;
    /* In HTML the namespace is implied: the page then names no URL at all. */
    fprintf(out, "<svg%s%s%s%s "
                 "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                 "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
                 "<title>ompbench scaling</title>\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            id ? "" : " xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"",
            id ? " id=\"" : "", id ? id : "", id ? "\"" : "", OMPB__SVG_WIDTH, height,
            OMPB__SVG_WIDTH, height);
    for (size_t i = 0; i < s->n; i++) {
        family_row(out, &s->families[i], i, top);
        top += row_height(&s->families[i]);
    }
    if (s->n == 0)
        fprintf(out, "<text x=\"20\" y=\"60\">no benchmark was measured at more than one "
                     "thread count</text>\n");
    fputs("</svg>\n", out);
    return ferror(out) ? OMPB_EIO : 0;
}

int ompb__scaling_svg(FILE *out, const ompb__scaling *s)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    return ompb__scaling_svg_element(out, s, NULL);
}
