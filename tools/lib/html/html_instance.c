/* SPDX-License-Identifier: MIT */
/*
 * One instance of the HTML report: the distribution of its round times (a
 * strip plot with the median, its interval and the outlier rounds marked),
 * the rounds in time order, the per-thread view of one round (each
 * thread's start, busy time and wait until the round's end; per rank for a
 * distributed run), imbalance and skew over the rounds, and counters per
 * thread. Every chart is inline SVG drawn here from the entry's JSON; the
 * sampled rounds are embedded too, so the page's script can redraw the
 * per-thread view for the round clicked.
 */
#include "html/html.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "analysis/analysis.h"

#define CHART_W 420.0
#define CHART_H 130.0
#define PAD_L 76.0
#define PAD_R 10.0
#define PAD_T 10.0
#define PAD_B 28.0
#define ROW_H 16.0

/* The rounds drawn: indexes into the entry's samples, evenly spaced, the
 * median round always among them. */
typedef struct sampled {
    size_t idx[OMPB__HTML_MAX_ROUNDS + 1];
    size_t n;
    size_t median_round;    /* a round whose time is the median */
} sampled;

typedef struct inst {
    const json_t *omp, *samples, *makespan, *busy, *offset, *rank_makespan;
    const char *unit;       /* "round", or "instance" for an application region */
    size_t rounds;
    double sample_size;
    double *per_iter;       /* [rounds] makespan / sample_size */
    double lo, hi;          /* their range */
    double median, q1, q3, ci_lo, ci_hi;
} inst;

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double at(const json_t *a, size_t i)
{
    const json_t *v = json_array_get(a, i);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The round whose time is closest to the median. */
static size_t median_round(const inst *in)
{
    size_t best = 0;
    for (size_t r = 1; r < in->rounds; r++)
        if (fabs(in->per_iter[r] - in->median) < fabs(in->per_iter[best] - in->median))
            best = r;
    return best;
}

static void pick_rounds(const inst *in, size_t max_rounds, sampled *s)
{
    s->median_round = median_round(in);
    s->n = 0;
    if (max_rounds < 2 || max_rounds > OMPB__HTML_MAX_ROUNDS)
        max_rounds = OMPB__HTML_MAX_ROUNDS;
    size_t n = in->rounds < max_rounds ? in->rounds : max_rounds;
    bool median_in = false;
    for (size_t k = 0; k < n; k++) {
        size_t r = n == in->rounds ? k : (size_t)((double)k * (double)(in->rounds - 1) / (double)(n - 1));
        median_in |= r == s->median_round;
        s->idx[s->n++] = r;
    }
    if (!median_in) { /* keep the order: insert it where it belongs */
        size_t k = s->n++;
        while (k > 0 && s->idx[k - 1] > s->median_round) {
            s->idx[k] = s->idx[k - 1];
            k--;
        }
        s->idx[k] = s->median_round;
    }
}

static int load(const json_t *entry, inst *in)
{
    memset(in, 0, sizeof *in);
    in->omp = json_object_get(entry, "ompbench");
    in->samples = json_object_get(in->omp, "samples");
    in->makespan = json_object_get(in->samples, "makespan_ns");
    in->busy = json_object_get(in->samples, "busy_ns");
    in->offset = json_object_get(in->samples, "start_offset_ns");
    in->rank_makespan = json_object_get(in->samples, "rank_makespan_ns");
    in->rounds = json_array_size(in->makespan);
    in->unit = json_object_get(in->omp, "region") ? "instance" : "round";
    in->sample_size = num(in->omp, "sample_size");
    if (!(in->sample_size >= 1.0))
        in->sample_size = 1.0;
    if (in->rounds == 0)
        return 0;
    in->per_iter = malloc(in->rounds * sizeof *in->per_iter);
    double *sorted = malloc(in->rounds * sizeof *sorted);
    if (!in->per_iter || !sorted) {
        free(sorted);
        return OMPB_ENOMEM;
    }
    for (size_t r = 0; r < in->rounds; r++)
        sorted[r] = in->per_iter[r] = at(in->makespan, r) / in->sample_size;
    qsort(sorted, in->rounds, sizeof *sorted, cmp_double);
    in->lo = sorted[0];
    in->hi = sorted[in->rounds - 1];
    in->q1 = sorted[in->rounds / 4];
    in->q3 = sorted[(3 * in->rounds) / 4];
    free(sorted);
    const json_t *st = json_object_get(in->omp, "stats");
    in->median = num(st, "median_ns");
    in->ci_lo = num(st, "ci95_low_ns");
    in->ci_hi = num(st, "ci95_high_ns");
    if (isnan(in->median))
        in->median = (in->q1 + in->q3) / 2;
    return 0;
}

static double scale(double v, double lo, double hi, double a, double b)
{
    return hi > lo ? a + (v - lo) / (hi - lo) * (b - a) : (a + b) / 2;
}

/* Where a round time falls between a and b: on a log axis when the times
 * span more than OMPB__HTML_LOG_SPAN (one slow round would otherwise
 * squash every other into a line). */
#define OMPB__HTML_LOG_SPAN 20.0
static bool log_axis(const inst *in)
{
    return in->lo > 0 && in->hi / in->lo > OMPB__HTML_LOG_SPAN;
}

static double at_value(const inst *in, double v, double a, double b)
{
    /* A region's median is over every instance, its drawn rounds a sample:
     * it may fall outside their range. */
    v = fmin(fmax(v, in->lo), in->hi);
    if (log_axis(in))
        return scale(log10(v), log10(in->lo), log10(in->hi), a, b);
    return scale(v, in->lo, in->hi, a, b);
}

static void axis_label(FILE *out, double x, double y, const char *anchor, const char *text)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>", x, y, anchor, text);
}

/* A 1-2-5 step of about span / n. */
static double nice_step(double span, double n)
{
    double raw = span / n, mag = pow(10.0, floor(log10(raw)));
    double m = raw / mag;
    return (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0) * mag;
}

/* Ticks of a time axis between a and b (pixels) for the times lo..hi: at
 * 1-2-5 values inside the range (of a decade on a log axis), so every
 * tick lies among the data; the range's ends, labelled, when fewer than
 * two such values fall inside it. Each tick is a short stroke across the
 * axis, with its label at an offset. */
typedef struct axis {
    double a, b;            /* pixels of lo and hi */
    bool vertical;          /* a y axis: ticks at x = at */
    double at;              /* the axis line's other coordinate */
} axis;

/* One tick's stroke, as a move and a line of the axis's one path. */
static void tick_stroke(FILE *out, const inst *in, const axis *ax, double v)
{
    double p = at_value(in, v, ax->a, ax->b);
    if (ax->vertical)
        fprintf(out, "M%.1f %.1fh4", ax->at - 4, p);
    else
        fprintf(out, "M%.1f %.1fv4", p, ax->at);
}

static void tick_label(FILE *out, const inst *in, const axis *ax, double v)
{
    char t[OMPB__UNIT_TEXT_MAX];
    double p = at_value(in, v, ax->a, ax->b);
    ompb__format_ns(t, sizeof t, v);
    /* A label at either end of a horizontal axis keeps inside the chart. */
    if (ax->vertical)
        axis_label(out, ax->at - 6, p + 4, "end", t);
    else
        axis_label(out, p, ax->at + 14,
                   p > fmax(ax->a, ax->b) - 30 ? "end" : p < fmin(ax->a, ax->b) + 30 ? "start"
                                                                                    : "middle",
                   t);
}

/* Values v0, v0 + step, ... in [lo, hi] (log axis: m * 10^k, m in 1, 2, 5). */
static size_t tick_values(const inst *in, double *v, size_t cap)
{
    size_t n = 0;
    if (!(in->hi > in->lo))
        return 0;
    if (log_axis(in)) {
        static const double m[] = {1.0, 2.0, 5.0};
        for (int k = (int)floor(log10(in->lo)); k <= (int)ceil(log10(in->hi)) && n < cap; k++)
            for (int i = 0; i < 3 && n < cap; i++) {
                double x = m[i] * pow(10.0, k);
                if (x >= in->lo && x <= in->hi)
                    v[n++] = x;
            }
        return n;
    }
    double step = nice_step(in->hi - in->lo, 4.0);
    for (double x = ceil(in->lo / step) * step; x <= in->hi && n < cap; x += step)
        v[n++] = x;
    return n;
}

/* A time axis: its ticks, labelled while they stay min_gap pixels apart. */
static void time_axis(FILE *out, const inst *in, const axis *ax, double min_gap)
{
    double v[16];
    size_t n = tick_values(in, v, 16);
    if (n < 2) {
        n = 0;
        v[n++] = in->lo;
        if (in->hi > in->lo)
            v[n++] = in->hi;
    }
    /* The ticks are one path (a page of ten runs of the example suite
     * drew 2880 tick lines: 178 KB as <line>s, about a quarter as this). */
    fputs("<path class=\"tick\" d=\"", out);
    for (size_t i = 0; i < n; i++)
        tick_stroke(out, in, ax, v[i]);
    fputs("\"/>", out);
    double last = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double p = at_value(in, v[i], ax->a, ax->b);
        if (fabs(p - last) >= min_gap) {
            tick_label(out, in, ax, v[i]);
            last = p;
        }
    }
}

static void svg_open(FILE *out, const char *cls, double h, const char *label)
{
    /* The rounds chart takes the focus: the arrow keys choose a round. */
    fprintf(out, "<svg class=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
                 "role=\"img\" aria-label=\"%s\"%s>", cls, CHART_W, h, CHART_W, h, label,
            strcmp(cls, "order") == 0 ? " tabindex=\"0\"" : "");
}

/* Strip plot: every sampled round a dot (deterministic jitter), the median
 * a line, its 95% interval a band, outlier rounds (beyond 1.5 IQR) a cross. */
static void strip_plot(FILE *out, const inst *in, const sampled *s)
{
    char a[OMPB__UNIT_TEXT_MAX];
    double x0 = PAD_L, x1 = CHART_W - PAD_R, y0 = PAD_T, y1 = CHART_H - PAD_B;
    double fence_lo = in->q1 - 1.5 * (in->q3 - in->q1), fence_hi = in->q3 + 1.5 * (in->q3 - in->q1);
    svg_open(out, "strip", CHART_H, "round times");
    if (!isnan(in->ci_lo) && !isnan(in->ci_hi))
        fprintf(out, "<rect class=\"ci\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                     "<title>95%% interval of the median</title></rect>",
                at_value(in, in->ci_lo, x0, x1), y0,
                fmax(1.0, at_value(in, in->ci_hi, x0, x1)
                          - at_value(in, in->ci_lo, x0, x1)), y1 - y0);
    for (size_t k = 0; k < s->n; k++) {
        size_t r = s->idx[k];
        double v = in->per_iter[r], x = at_value(in, v, x0, x1);
        double y = y0 + 6 + (double)((r * 7919) % 97) / 97.0 * (y1 - y0 - 12);
        if (v < fence_lo || v > fence_hi)
            fprintf(out, "<path class=\"outlier\" d=\"M%.1f %.1fl6 6m0 -6l-6 6\"><title>%s "
                         "%zu: %s (outlier)</title></path>", x - 3, y - 3, in->unit, r,
                    ompb__format_ns(a, sizeof a, v));
        else
            fprintf(out, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>", x, y);
    }
    double mx = at_value(in, in->median, x0, x1);
    fprintf(out, "<line class=\"median\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", mx,
            y0, mx, y1);
    axis ax = {x0, x1, false, y1};
    time_axis(out, in, &ax, 80.0);
    axis_label(out, fmin(fmax(mx, x0 + 24), x1 - 24), CHART_H - 2, "middle", "median");
    fputs("</svg>", out);
}

/* Rounds in time order: drift and warm-up show as a slope or a step. */
static void time_order(FILE *out, const inst *in, const sampled *s, bool titles)
{
    char a[OMPB__UNIT_TEXT_MAX], b[64];
    double x0 = PAD_L, x1 = CHART_W - PAD_R, y0 = PAD_T, y1 = CHART_H - PAD_B;
    svg_open(out, "order", CHART_H, "rounds in time order");
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>",
            x0, y0, x1 - x0, y1 - y0);
    for (size_t k = 0; k < s->n; k++) {
        size_t r = s->idx[k];
        double x = scale((double)r, 0, (double)(in->rounds > 1 ? in->rounds - 1 : 1), x0 + 3, x1 - 3);
        double y = at_value(in, in->per_iter[r], y1 - 3, y0 + 3);
        fprintf(out, "<circle class=\"round%s\" data-k=\"%zu\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\">",
                r == s->median_round ? " chosen" : "", k, x, y);
        /* Many instances: the caption names the chosen round instead. */
        if (titles)
            fprintf(out, "<title>%s %zu: %s</title>", in->unit, r,
                    ompb__format_ns(a, sizeof a, in->per_iter[r]));
        fputs("</circle>", out);
    }
    axis ax = {y1 - 3, y0 + 3, true, x0};
    time_axis(out, in, &ax, 14.0);
    snprintf(b, sizeof b, "%s (time order%s)", in->unit, log_axis(in) ? "; log scale" : "");
    axis_label(out, (x0 + x1) / 2, CHART_H - 6, "middle", b);
    fputs("</svg>", out);
}

/* The per-thread view of round r, drawn again by the page's script for
 * another round: per thread, the wait before its start (team's first start
 * to its own), its busy time, and the wait until the round's end. */
static void thread_view(FILE *out, const inst *in, size_t r, size_t id)
{
    const json_t *busy = json_array_get(in->busy, r), *off = json_array_get(in->offset, r);
    size_t T = json_array_size(busy);
    double span = at(in->makespan, r);
    double h = PAD_T + (double)T * ROW_H + 4;
    char a[OMPB__UNIT_TEXT_MAX];
    fprintf(out, "<figure><figcaption id=\"tvc%zu\" data-unit=\"%s\">Threads of %s %zu (%s; "
                 "%s)</figcaption>", id, in->unit, in->unit, r, ompb__format_ns(a, sizeof a, span),
            off ? "threads" : "busy from the team's start: no start offsets in this file");
    svg_open(out, "threads", h, "threads of a round");
    fprintf(out, "<g id=\"tv%zu\" data-l=\"%.0f\" data-r=\"%.0f\">", id, PAD_L, CHART_W - PAD_R);
    for (size_t t = 0; t < T; t++) {
        double o = off ? at(off, t) : 0.0, b = at(busy, t), y = PAD_T + (double)t * ROW_H;
        double xs = scale(o, 0, span, PAD_L, CHART_W - PAD_R);
        double xe = scale(o + b, 0, span, PAD_L, CHART_W - PAD_R);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">t%zu</text>", PAD_L - 4,
                y + 11, t);
        fprintf(out, "<rect class=\"before\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\"/>",
                PAD_L, y, xs - PAD_L);
        fprintf(out, "<rect class=\"busy\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\">"
                     "<title>t%zu busy %s</title></rect>", xs, y, fmax(0.5, xe - xs), t,
                ompb__format_ns(a, sizeof a, b));
        fprintf(out, "<rect class=\"wait\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\"/>",
                xe, y, fmax(0.0, CHART_W - PAD_R - xe));
    }
    /* The axis runs from the team's first start to its last end (the
     * page's legend says so once, not in every section). */
    fputs("</g></svg></figure>", out);
}

/* A distributed round: each rank's own makespan against the slowest. */
static void rank_view(FILE *out, const inst *in, size_t r, size_t id)
{
    const json_t *row = json_array_get(in->rank_makespan, r);
    size_t R = json_array_size(row);
    double worst = 0;
    char a[OMPB__UNIT_TEXT_MAX];
    for (size_t k = 0; k < R; k++)
        worst = fmax(worst, at(row, k));
    fprintf(out, "<figure><figcaption id=\"rvc%zu\">Ranks of round %zu (each rank's own "
                 "makespan)</figcaption>", id, r);
    svg_open(out, "ranks", PAD_T + (double)R * ROW_H + 8, "per-rank makespans of one round");
    fprintf(out, "<g id=\"rv%zu\" data-l=\"%.0f\" data-r=\"%.0f\">", id, PAD_L, CHART_W - PAD_R);
    for (size_t k = 0; k < R; k++) {
        double y = PAD_T + (double)k * ROW_H, v = at(row, k);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">rank %zu</text><rect "
                     "class=\"rank\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\"><title>"
                     "rank %zu: %s</title></rect>", PAD_L - 4, y + 11, k, PAD_L, y,
                fmax(0.5, scale(v, 0, worst, 0, CHART_W - PAD_R - PAD_L)), k,
                ompb__format_ns(a, sizeof a, v));
    }
    fputs("</g></svg></figure>", out);
}

/* Imbalance (max busy / mean busy) and start skew of the sampled rounds. */
static double round_imbalance(const json_t *busy)
{
    double sum = 0, max = 0;
    size_t T = json_array_size(busy);
    for (size_t t = 0; t < T; t++) {
        sum += at(busy, t);
        max = fmax(max, at(busy, t));
    }
    return T && sum > 0 ? max / (sum / (double)T) : NAN;
}

static void multiple(FILE *out, const inst *in, const sampled *s, bool skew)
{
    const json_t *sk = json_object_get(in->samples, "start_skew_ns");
    double lo = INFINITY, hi = -INFINITY, *v = malloc(s->n * sizeof *v);
    char t[2 * OMPB__UNIT_TEXT_MAX + 16], b[OMPB__UNIT_TEXT_MAX];
    if (!v)
        return;
    for (size_t k = 0; k < s->n; k++) {
        v[k] = skew ? at(sk, s->idx[k]) : round_imbalance(json_array_get(in->busy, s->idx[k]));
        if (!isnan(v[k])) {
            lo = fmin(lo, v[k]);
            hi = fmax(hi, v[k]);
        }
    }
    fprintf(out, "<svg class=\"multiple %s\" viewBox=\"0 0 200 70\" width=\"200\" height=\"70\" "
                 "role=\"img\" aria-label=\"%s over the rounds\"><polyline class=\"series\" "
                 "points=\"", skew ? "skew" : "imbalance", skew ? "start skew" : "imbalance");
    for (size_t k = 0; k < s->n && lo <= hi; k++)
        if (!isnan(v[k]))
            fprintf(out, "%.1f,%.1f ", scale((double)k, 0, (double)(s->n - 1), 4, 196),
                    scale(v[k], lo, hi, 52, 6));
    if (skew) {
        char c[OMPB__UNIT_TEXT_MAX];
        snprintf(t, sizeof t, "skew %s to %s", ompb__format_ns(b, sizeof b, lo),
                 ompb__format_ns(c, sizeof c, hi));
    } else {
        snprintf(t, sizeof t, "imbalance %.3f to %.3f", lo, hi);
    }
    fprintf(out, "\"/><text x=\"4\" y=\"66\">%s</text></svg>", lo <= hi ? t : "not recorded");
    free(v);
}

/* A counter's value in its unit: a time as a time ("12.48 ms"), a count
 * with four significant digits and an SI prefix ("1.248 M"). */
static char *counter_text(char *buf, size_t cap, double v, const char *unit)
{
    static const struct { double f; const char *p; } si[] = {
        {1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"}};
    if (unit && strcmp(unit, "ns") == 0)
        return ompb__format_ns(buf, cap, v);
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
        if (fabs(v) >= si[i].f * 0.99995) {
            snprintf(buf, cap, "%.4g%s", v / si[i].f, si[i].p);
            return buf;
        }
    snprintf(buf, cap, "%.4g", v);
    return buf;
}

/* Counters per thread: the median over rounds of each event per iteration. */
static void counters_table(FILE *out, const inst *in)
{
    const json_t *c = json_object_get(in->omp, "counters");
    const json_t *events = json_object_get(c, "events"), *values = json_object_get(c, "values");
    size_t E = json_array_size(events), R = json_array_size(values);
    size_t T = json_array_size(json_array_get(values, 0));
    if (!E || !R || !T)
        return;
    double *col = malloc(R * sizeof *col);
    if (!col)
        return;
    fputs("<div class=\"scroll\"><table class=\"counters\"><caption>Counters per thread (median per iteration over "
          "the rounds)</caption><tr><th>thread</th>", out);
    const json_t *units = json_object_get(c, "units");
    for (size_t e = 0; e < E; e++) {
        const char *unit = json_string_value(json_array_get(units, e));
        fputs("<th>", out);
        ompb__html_text(out, json_string_value(json_array_get(events, e)));
        /* A time is printed with its unit in each cell. */
        if (unit && strcmp(unit, "ns") != 0) {
            fputs(" (", out);
            ompb__html_text(out, unit);
            fputs(")", out);
        }
        fputs("</th>", out);
    }
    fputs("</tr>", out);
    for (size_t t = 0; t < T; t++) {
        fprintf(out, "<tr><td>t%zu</td>", t);
        for (size_t e = 0; e < E; e++) {
            for (size_t r = 0; r < R; r++)
                col[r] = at(json_array_get(json_array_get(values, r), t), e);
            qsort(col, R, sizeof *col, cmp_double);
            const char *unit = json_string_value(json_array_get(units, e));
            char v[OMPB__UNIT_TEXT_MAX];
            fprintf(out, "<td>%s</td>", counter_text(v, sizeof v, col[R / 2] / in->sample_size,
                                                     unit));
        }
        fputs("</tr>", out);
    }
    fputs("</table></div>", out);
    free(col);
}

/* Fairness per thread ("ompbench.fairness"): each thread's busy time over
 * the rounds (mean, median, CV) and its share of the rounds as the
 * slowest thread; a fair team has shares near 1 / threads. Kept short: it
 * is in every instance of the page, and "How to read an instance" says
 * what the columns are. */
static void fairness_table(FILE *out, const inst *in)
{
    const json_t *f = json_object_get(in->omp, "fairness");
    const json_t *mean = json_object_get(f, "busy_mean_ns");
    const json_t *median = json_object_get(f, "busy_median_ns");
    const json_t *cv = json_object_get(f, "busy_cv");
    const json_t *share = json_object_get(f, "slowest_share");
    size_t T = json_array_size(mean);
    if (T < 2 || json_array_size(median) != T || json_array_size(cv) != T
        || json_array_size(share) != T)
        return; /* one thread is always the slowest: nothing to show */
    fputs("<table class=\"fairness\"><caption>Fairness per thread</caption><tr><th>thread"
          "</th><th>busy mean</th><th>median</th><th>CV</th><th>slowest</th></tr>", out);
    for (size_t t = 0; t < T; t++) {
        char a[OMPB__UNIT_TEXT_MAX], b[OMPB__UNIT_TEXT_MAX];
        double c = at(cv, t);
        fprintf(out, "<tr><td>t%zu</td><td>%s</td><td>%s</td>", t,
                ompb__format_ns(a, sizeof a, at(mean, t)),
                ompb__format_ns(b, sizeof b, at(median, t)));
        if (isnan(c))
            fputs("<td>-</td>", out);
        else
            fprintf(out, "<td>%.3g</td>", c);
        fprintf(out, "<td>%.0f%%</td></tr>", 100.0 * at(share, t));
    }
    fputs("</table>", out);
}

/* The sampled rounds for the page's script: round numbers, makespans, busy
 * times, start offsets and each rank's makespan. */
static int embed(FILE *out, const inst *in, const sampled *s, size_t id)
{
    json_t *d = json_object(), *rs = json_array(), *m = json_array(), *b = json_array(),
           *o = json_array(), *rk = json_array();
    int bad = !d || !rs || !m || !b || !o || !rk;
    for (size_t k = 0; k < s->n && !bad; k++) {
        size_t r = s->idx[k];
        bad |= json_array_append_new(rs, json_integer((json_int_t)r));
        bad |= json_array_append(m, json_array_get(in->makespan, r));
        if (in->busy)
            bad |= json_array_append(b, json_array_get(in->busy, r));
        if (in->offset)
            bad |= json_array_append(o, json_array_get(in->offset, r));
        if (in->rank_makespan)
            bad |= json_array_append(rk, json_array_get(in->rank_makespan, r));
    }
    bad |= json_object_set_new(d, "r", rs) | json_object_set_new(d, "m", m)
           | json_object_set_new(d, "b", b) | json_object_set_new(d, "o", o)
           | json_object_set_new(d, "k", rk);
    if (!bad) {
        fprintf(out, "<script type=\"application/json\" id=\"d%zu\">", id);
        bad = ompb__html_json(out, d);
        fputs("</script>", out);
    }
    json_decref(d);
    return bad ? OMPB_ENOMEM : 0;
}

static void heading(FILE *out, const json_t *entry, size_t id, unsigned marks)
{
    char codes[200];
    fprintf(out, "<section class=\"instance\" id=\"i%zu\"><h3>", id);
    ompb__html_text(out, json_string_value(json_object_get(entry, "name")));
    fputs("</h3>", out);
    if (marks)
        fprintf(out, "<p class=\"marks\"><span aria-hidden=\"true\">&#9888;</span> suspect: "
                     "<b>%s</b></p>", ompb__marks_text(codes, sizeof codes, marks));
}

static const char *plural(double n)
{
    return n == 1.0 ? "" : "s";
}

/* A phase region (docs/json.md, region.phase): the teams it contained. */
static void phase_facts(FILE *out, const json_t *phase)
{
    const json_t *tw = json_object_get(phase, "team_widths");
    const json_t *rw = json_object_get(phase, "runtime_widths");
    double w = num(phase, "width");
    fprintf(out, "; a phase region: one thread around teams of %.0f thread%s", w, plural(w));
    if (json_is_true(json_object_get(phase, "mixed")))
        fprintf(out, " (mixed: teams of %.0f to %.0f threads, the runtime answered %.0f to "
                     "%.0f)", at(tw, 0), at(tw, 1), at(rw, 0), at(rw, 1));
}

static void facts(FILE *out, const json_t *entry, const inst *in, const sampled *s)
{
    char m[OMPB__UNIT_TEXT_MAX], a[OMPB__UNIT_TEXT_MAX], b[OMPB__UNIT_TEXT_MAX];
    const json_t *region = json_object_get(in->omp, "region");
    const json_t *phase = json_object_get(region, "phase");
    double threads = num(entry, "threads");
    fprintf(out, "<p class=\"facts\">median %s per %s", ompb__format_ns(m, sizeof m, in->median),
            region ? "instance" : "iteration");
    if (!isnan(in->ci_lo) && !isnan(in->ci_hi))
        fprintf(out, " (95%% interval %s to %s)", ompb__format_ns(a, sizeof a, in->ci_lo),
                ompb__format_ns(b, sizeof b, in->ci_hi));
    if (region) {
        /* A region's "round" is one instance of one iteration: say instances. */
        const char *how = json_string_value(json_object_get(region, "kept_how"));
        double n = num(region, "instances");
        fprintf(out, "; %.0f instance%s (kept: %s)", n, plural(n), how ? how : "all");
        if (json_is_object(phase))
            phase_facts(out, phase);
        else
            fprintf(out, "; %.0f thread%s", threads, plural(threads));
    } else {
        fprintf(out, "; %zu round%s of %.0f iteration%s; %.0f thread%s", in->rounds,
                plural((double)in->rounds), in->sample_size, plural(in->sample_size), threads,
                plural(threads));
    }
    if (json_is_integer(json_object_get(in->omp, "ranks")))
        fprintf(out, " (%.0f ranks)", num(in->omp, "ranks"));
    if (in->rounds > s->n)
        fprintf(out, "; %zu %ss drawn, evenly spaced, the median one among them (the "
                     "statistics use all; the result file has them)", s->n, in->unit);
    fputs("</p>", out);
}

/* A region: each thread's mean busy time against the mean makespan. */
static void region_busy(FILE *out, const inst *in)
{
    const json_t *mb = json_object_get(json_object_get(in->omp, "region"), "mean_busy_ns");
    size_t T = json_array_size(mb);
    double span = num(json_object_get(in->omp, "stats"), "mean_ns");
    char a[OMPB__UNIT_TEXT_MAX];
    if (!T || !(span > 0))
        return;
    fputs("<figure><figcaption>Mean busy time per thread against the mean makespan (every "
          "instance)</figcaption>", out);
    svg_open(out, "region-busy", PAD_T + (double)T * ROW_H + 8, "region busy per thread");
    for (size_t t = 0; t < T; t++) {
        double y = PAD_T + (double)t * ROW_H, v = at(mb, t);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">t%zu</text><rect "
                     "class=\"busy\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\"><title>t%zu "
                     "mean busy %s</title></rect>", PAD_L - 4, y + 11, t, PAD_L, y,
                fmax(0.5, scale(fmin(v, span), 0, span, 0, CHART_W - PAD_R - PAD_L)), t,
                ompb__format_ns(a, sizeof a, v));
    }
    fputs("</svg></figure>", out);
}

/* The section's heading with its marks; a failed entry's error, which
 * closes the section (then true). */
static bool opening(FILE *out, const json_t *entry, size_t id)
{
    unsigned marks = 0;
    (void)ompb__marks_of_json(json_object_get(json_object_get(entry, "ompbench"), "marks"),
                               &marks);
    heading(out, entry, id, marks);
    if (!json_is_true(json_object_get(entry, "error_occurred")))
        return false;
    fputs("<p class=\"failed\">failed: ", out);
    ompb__html_text(out, json_string_value(json_object_get(entry, "error_message")));
    fputs("</p></section>\n", out);
    return true;
}

int ompb__html_instance_brief(FILE *out, const json_t *entry, size_t id)
{
    char m[OMPB__UNIT_TEXT_MAX];
    if (opening(out, entry, id))
        return 0;
    const json_t *st = json_object_get(json_object_get(entry, "ompbench"), "stats");
    double median = json_is_number(json_object_get(st, "median_ns")) ? num(st, "median_ns")
                                                                      : num(entry, "real_time");
    /* The summary says why it is not drawn, once for all of them. */
    fprintf(out, "<p class=\"facts\">median %s per iteration</p></section>\n",
            ompb__format_ns(m, sizeof m, median));
    return 0;
}

int ompb__html_instance(FILE *out, const json_t *entry, size_t id, size_t max_rounds)
{
    inst in;
    if (opening(out, entry, id))
        return 0;
    if (load(entry, &in))
        return OMPB_ENOMEM;
    if (in.rounds == 0) {
        fputs("<p>no rounds recorded (not an ompbench result entry)</p></section>\n", out);
        free(in.per_iter);
        return 0;
    }
    sampled s;
    pick_rounds(&in, max_rounds, &s);
    facts(out, entry, &in, &s);
    fprintf(out, "<div class=\"charts\"><figure><figcaption>Distribution%s</figcaption>",
            log_axis(&in) ? " (log scale)" : "");
    strip_plot(out, &in, &s);
    fprintf(out, "</figure><figure><figcaption>%s in time order</figcaption>",
            in.rounds && in.unit[0] == 'i' ? "Instances" : "Rounds");
    time_order(out, &in, &s, max_rounds >= OMPB__HTML_TITLED_ROUNDS);
    fputs("</figure>", out);
    if (in.busy)
        thread_view(out, &in, s.median_round, id);
    else
        fputs("<p>A caller team: the harness times the caller only (no per-thread view).</p>", out);
    if (in.rank_makespan)
        rank_view(out, &in, s.median_round, id);
    region_busy(out, &in);
    if (in.busy) {
        fputs("<figure><figcaption>Imbalance, skew</figcaption>", out);
        multiple(out, &in, &s, false);
        multiple(out, &in, &s, true);
        fputs("</figure>", out);
    }
    fputs("</div>", out);
    fairness_table(out, &in);
    counters_table(out, &in);
    int rc = embed(out, &in, &s, id);
    fputs("</section>\n", out);
    free(in.per_iter);
    return rc;
}
