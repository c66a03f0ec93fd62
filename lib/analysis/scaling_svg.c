/* SPDX-License-Identifier: MIT */
/*
 * The strong-scaling plot as a standalone SVG document (no script, no
 * external style or font), one row per benchmark family: median time against
 * threads on log-log axes, where ideal scaling is a straight line, and
 * parallel efficiency against threads, where it is flat at 100%. Threads are
 * on a log2 axis because thread counts usually double.
 */
#include "analysis/scaling.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "analysis/units.h"
#include "ompbench/error.h"

#define OMPB__SVG_WIDTH 960.0
#define OMPB__SVG_ROW 330.0
#define OMPB__SVG_TOP 30.0
#define OMPB__PANEL_W 370.0
#define OMPB__PANEL_H 220.0
#define OMPB__PANEL_LEFT_X 90.0
#define OMPB__PANEL_RIGHT_X 570.0
#define OMPB__PANEL_Y 40.0
#define OMPB__TICK_GAP 16.0 /* px between tick labels, or they overlap */
#define OMPB__COLOR_MEASURED "#1f77b4"
#define OMPB__COLOR_IDEAL "#7f7f7f"

/* The value plotted for point i of a family. */
typedef double (*value_fn)(const ompb__scaling_family *f, size_t i);

/* A plot area and the data range it shows; y on a log10 axis when ylog. */
typedef struct panel {
    double x, y, w, h;
    double xlo, xhi;        /* log2 threads */
    double ylo, yhi;        /* data units (log10 of them when ylog) */
    bool ylog;
} panel;

static void xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

static double px(const panel *p, int threads)
{
    return p->x + (log2((double)threads) - p->xlo) / (p->xhi - p->xlo) * p->w;
}

static double py(const panel *p, double v)
{
    double t = p->ylog ? log10(v) : v;
    return p->y + p->h - (t - p->ylo) / (p->yhi - p->ylo) * p->h;
}

static void x_range(panel *p, const ompb__scaling_family *f)
{
    double lo = log2((double)f->points[0].threads);
    double hi = log2((double)f->points[f->n - 1].threads);
    double pad = (hi - lo) * 0.06;
    p->xlo = lo - pad;
    p->xhi = hi + pad;
}

static double ideal_time(const ompb__scaling_family *f, size_t i)
{
    const ompb__scaling_point *b = &f->points[0];
    return b->median_ns * (double)b->threads / (double)f->points[i].threads;
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

static void time_range(panel *p, const ompb__scaling_family *f)
{
    double lo = INFINITY, hi = 0.0;
    for (size_t i = 0; i < f->n; i++) {
        double v[2] = {measured_time(f, i), ideal_time(f, i)};
        for (int k = 0; k < 2; k++) {
            if (v[k] > 0.0 && v[k] < lo)
                lo = v[k];
            if (v[k] > hi)
                hi = v[k];
        }
    }
    if (!(hi > 0.0)) /* nothing positive to draw: any sane range will do */
        lo = hi = 1.0;
    p->ylog = true;
    p->ylo = log10(lo) - 0.08;
    p->yhi = log10(hi) + 0.08;
}

static void efficiency_range(panel *p, const ompb__scaling_family *f)
{
    double hi = 1.0;
    for (size_t i = 0; i < f->n; i++)
        if (isfinite(f->points[i].efficiency) && f->points[i].efficiency > hi)
            hi = f->points[i].efficiency;
    p->ylog = false;
    p->ylo = 0.0;
    p->yhi = ceil(hi * 1.1 * 4.0) / 4.0;
}

/* "10 us", "2 ms", "500 ns": tick labels need no four digits. */
static void tick_label(char *buf, size_t cap, double ns)
{
    static const struct { const char *name; double ns; } units[] = {
        {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1.0}};
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && ns < units[u].ns)
        u++;
    snprintf(buf, cap, "%g %s", ns / units[u].ns, units[u].name);
}

static void y_tick(FILE *out, const panel *p, double v, const char *label)
{
    double y = py(p, v);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n",
            p->x, y, p->x + p->w, y);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", p->x - 6,
            y + 4, label);
}

/* Ticks at m * 10^k for the mantissas given; returns how many fell in range. */
static int log_ticks(FILE *out, const panel *p, const double *mantissas, size_t n,
                     bool draw)
{
    int count = 0;
    double last_y = INFINITY;
    for (int k = (int)floor(p->ylo); k <= (int)ceil(p->yhi); k++)
        for (size_t m = 0; m < n; m++) {
            double v = mantissas[m] * pow(10.0, k), lv = log10(v);
            char label[OMPB__UNIT_TEXT_MAX];
            if (lv < p->ylo || lv > p->yhi || last_y - py(p, v) < OMPB__TICK_GAP)
                continue;
            count++;
            last_y = py(p, v);
            if (!draw)
                continue;
            tick_label(label, sizeof label, v);
            y_tick(out, p, v, label);
        }
    return count;
}

/* 1-2-5 ticks on a wide range; every integer mantissa when that gives fewer
 * than three, which happens when the times span less than a decade. */
static void time_ticks(FILE *out, const panel *p)
{
    static const double coarse[] = {1.0, 2.0, 5.0};
    static const double fine[] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0};
    if (log_ticks(out, p, coarse, 3, false) >= 3)
        log_ticks(out, p, coarse, 3, true);
    else if (log_ticks(out, p, fine, 9, true) == 0) {
        char label[OMPB__UNIT_TEXT_MAX];
        double ends[2] = {pow(10.0, p->ylo + 0.08), pow(10.0, p->yhi - 0.08)};
        for (int i = 0; i < 2; i++)
            y_tick(out, p, ends[i], ompb__format_ns(label, sizeof label, ends[i]));
    }
}

static void efficiency_ticks(FILE *out, const panel *p)
{
    double step = p->yhi > 2.0 ? 0.5 : 0.25;
    for (double v = 0.0; v <= p->yhi + 1e-9; v += step) {
        char label[OMPB__UNIT_TEXT_MAX];
        snprintf(label, sizeof label, "%.0f%%", v * 100.0);
        y_tick(out, p, v, label);
    }
}

static void frame(FILE *out, const panel *p, const ompb__scaling_family *f,
                  const char *y_title)
{
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                 "stroke=\"#999999\"/>\n", p->x, p->y, p->w, p->h);
    for (size_t i = 0; i < f->n; i++)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n",
                px(p, f->points[i].threads), p->y + p->h + 16, f->points[i].threads);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">threads</text>\n",
            p->x + p->w / 2, p->y + p->h + 34);
    double ty = p->y + p->h / 2, tx = p->x - 70;
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n", tx, ty, tx, ty, y_title);
}

static bool drawable(const panel *p, double v)
{
    return isfinite(v) && (!p->ylog || v > 0.0);
}

static void series(FILE *out, const panel *p, const ompb__scaling_family *f, size_t fi,
                   const char *id, value_fn value, bool ideal)
{
    fprintf(out, "<polyline id=\"f%zu-%s\" class=\"%s\" fill=\"none\" stroke=\"%s\" "
                 "stroke-width=\"%s\"%s points=\"", fi, id, ideal ? "ideal" : "measured",
            ideal ? OMPB__COLOR_IDEAL : OMPB__COLOR_MEASURED, ideal ? "1.5" : "2",
            ideal ? " stroke-dasharray=\"6 4\"" : "");
    const char *sep = "";
    for (size_t i = 0; i < f->n; i++) {
        double v = value(f, i);
        if (!drawable(p, v))
            continue;
        fprintf(out, "%s%.1f,%.1f", sep, px(p, f->points[i].threads), py(p, v));
        sep = " ";
    }
    fputs("\"/>\n", out);
}

static void markers(FILE *out, const panel *p, const ompb__scaling_family *f, value_fn value)
{
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *pt = &f->points[i];
        char t[OMPB__UNIT_TEXT_MAX];
        double v = value(f, i);
        if (!drawable(p, v))
            continue;
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%d "
                     "threads: %s, speedup %.2fx, efficiency %.1f%%</title></circle>\n",
                px(p, pt->threads), py(p, v), OMPB__COLOR_MEASURED, pt->threads,
                ompb__format_ns(t, sizeof t, pt->median_ns), pt->speedup,
                pt->efficiency * 100.0);
    }
}

/* Top right for time (it falls to the right), bottom left for efficiency (it
 * starts at 100%): where the curves usually are not. */
static void legend(FILE *out, const panel *p, bool top_right)
{
    double x = top_right ? p->x + p->w - 110 : p->x + 14;
    double y = top_right ? p->y + 14 : p->y + p->h - 30;
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                 "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">measured</text>\n",
            x, y, x + 20, y, OMPB__COLOR_MEASURED, x + 26, y + 4);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                 "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/><text x=\"%.1f\" "
                 "y=\"%.1f\">ideal</text>\n",
            x, y + 16, x + 20, y + 16, OMPB__COLOR_IDEAL, x + 26, y + 20);
}

static void time_panel(FILE *out, const ompb__scaling_family *f, size_t fi, double top)
{
    panel p = {OMPB__PANEL_LEFT_X, top + OMPB__PANEL_Y, OMPB__PANEL_W, OMPB__PANEL_H,
               0, 0, 0, 0, true};
    x_range(&p, f);
    time_range(&p, f);
    fprintf(out, "<g class=\"panel time\">\n");
    time_ticks(out, &p);
    frame(out, &p, f, "median time per iteration");
    series(out, &p, f, fi, "time-ideal", ideal_time, true);
    series(out, &p, f, fi, "time-measured", measured_time, false);
    markers(out, &p, f, measured_time);
    legend(out, &p, true);
    fputs("</g>\n", out);
}

static void efficiency_panel(FILE *out, const ompb__scaling_family *f, size_t fi,
                             double top)
{
    panel p = {OMPB__PANEL_RIGHT_X, top + OMPB__PANEL_Y, OMPB__PANEL_W, OMPB__PANEL_H,
               0, 0, 0, 0, false};
    x_range(&p, f);
    efficiency_range(&p, f);
    fprintf(out, "<g class=\"panel efficiency\">\n");
    efficiency_ticks(out, &p);
    frame(out, &p, f, "parallel efficiency");
    series(out, &p, f, fi, "efficiency-ideal", ideal_efficiency, true);
    series(out, &p, f, fi, "efficiency-measured", measured_efficiency, false);
    markers(out, &p, f, measured_efficiency);
    legend(out, &p, false);
    fputs("</g>\n", out);
}

static void family_row(FILE *out, const ompb__scaling_family *f, size_t fi)
{
    double top = OMPB__SVG_TOP + (double)fi * OMPB__SVG_ROW;
    fprintf(out, "<g id=\"f%zu\" class=\"family\" data-name=\"", fi);
    xml_text(out, f->name);
    fprintf(out, "\">\n<text x=\"20\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\">",
            top + 20);
    xml_text(out, f->name);
    fprintf(out, " (against %d thread%s)</text>\n", f->points[0].threads,
            f->points[0].threads == 1 ? "" : "s");
    time_panel(out, f, fi, top);
    efficiency_panel(out, f, fi, top);
    fputs("</g>\n", out);
}

int ompb__scaling_svg(FILE *out, const ompb__scaling *s)
{
    double height = OMPB__SVG_TOP + (double)(s->n ? s->n : 1) * OMPB__SVG_ROW;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
                 "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                 "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
                 "<title>ompbench strong scaling</title>\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            OMPB__SVG_WIDTH, height, OMPB__SVG_WIDTH, height);
    for (size_t i = 0; i < s->n; i++)
        family_row(out, &s->families[i], i);
    if (s->n == 0)
        fprintf(out, "<text x=\"20\" y=\"60\">no benchmark was measured at more than one "
                     "thread count</text>\n");
    fputs("</svg>\n", out);
    return ferror(out) ? OMPB_EIO : 0;
}
