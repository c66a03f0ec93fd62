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
#define OMPB__PANEL_H 220.0
#define OMPB__PANEL_LEFT_X 90.0
#define OMPB__PANEL_RIGHT_X 570.0
#define OMPB__PANEL_Y 40.0
#define OMPB__TICK_GAP 16.0 /* px between tick labels, or they overlap */
#define OMPB__THREAD_LABEL_GAP 24.0
#define OMPB__MAX_INTERVALS 8 /* tick intervals per axis: 9 ticks at most */
#define OMPB__TIME_PAD_DECADES 0.08


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
            y_tick(out, p, v, ompb__svg_value_label(f, label, sizeof label, v, true));
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
        y_tick(out, p, ends[i], ompb__svg_value_label(f, label, sizeof label, ends[i], false));
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

/* ---- panels and rows ----------------------------------------------------- */

static void time_panel(FILE *out, const ompb__scaling_family *f, size_t fi, double top)
{
    panel p = {OMPB__PANEL_LEFT_X, top + OMPB__PANEL_Y, OMPB__SVG_PANEL_W, OMPB__PANEL_H,
               0, 0, 0, 0, 0, true};
    x_range(&p, f);
    time_range(&p, f);
    fprintf(out, "<g class=\"panel time\">\n");
    time_ticks(out, &p, f);
    char title[OMPB__UNIT_TEXT_MAX + 96];
    if (f->metric)
        snprintf(title, sizeof title, "%.60s per iteration (team)", f->metric);
    frame(out, &p, f, f->metric ? title : "median time per iteration");
    ompb__svg_usable_line(out, &p, f);
    ompb__svg_model(out, &p, f, fi, true);
    ompb__svg_series(out, &p, f, fi, "time", measured_time, ideal_time);
    ompb__svg_markers(out, &p, f, measured_time, false);
    ompb__svg_legend(out, &p, f, f->weak);
    fputs("</g>\n", out);
}

static void efficiency_panel(FILE *out, const ompb__scaling_family *f, size_t fi,
                             double top)
{
    panel p = {OMPB__PANEL_RIGHT_X, top + OMPB__PANEL_Y, OMPB__SVG_PANEL_W, OMPB__PANEL_H,
               0, 0, 0, 0, 0, false};
    x_range(&p, f);
    efficiency_range(&p, f);
    fprintf(out, "<g class=\"panel efficiency\">\n");
    efficiency_ticks(out, &p);
    frame(out, &p, f, f->metric ? "work efficiency"
                      : f->weak ? "weak-scaling efficiency" : "parallel efficiency");
    ompb__svg_usable_line(out, &p, f);
    ompb__svg_model(out, &p, f, fi, false);
    ompb__svg_series(out, &p, f, fi, "efficiency", measured_efficiency, ideal_efficiency);
    ompb__svg_markers(out, &p, f, measured_efficiency, true);
    ompb__svg_legend(out, &p, f, f->weak);
    fputs("</g>\n", out);
}

static double row_height(const ompb__scaling_family *f)
{
    return OMPB__PANEL_Y + OMPB__PANEL_H + 56 + ompb__svg_legend_height(f) + 16;
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
