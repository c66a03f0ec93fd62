/* SPDX-License-Identifier: MIT */
/*
 * One instance of the HTML report: the distribution of its round times (a
 * strip plot with the median, its interval and the outlier rounds marked),
 * the rounds in time order, the per-thread view of one round (each
 * thread's start, busy time and wait until the round's end; per rank for a
 * distributed run), imbalance and skew over the rounds, and the tables of
 * fairness and counters per thread (html_tables.c). Every chart is inline
 * SVG drawn here from the entry's JSON; the sampled rounds are embedded
 * too, so the page's script can redraw the per-thread view for the round
 * clicked.
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

/* The values of one entry that the page draws (docs/json.md), taken with
 * one json_unpack per object of the schema, as the analysis takes them
 * (analysis/resultfile.c): the entry, its "ompbench", and that object's
 * samples, stats and region. Each is NULL when absent; "{s?o}" never fails
 * on an object, and a type is checked where the value is drawn. */
typedef struct parts {
    json_t *name, *threads, *error, *message, *real_time, *omp;   /* entry */
    json_t *sample_size, *samples, *stats, *region, *counters, *fairness, *ranks,
           *marks;                                                /* ompbench */
    json_t *makespan, *busy, *offset, *rank_makespan, *skew;      /* its samples */
    json_t *median, *mean, *ci_lo, *ci_hi;                        /* its stats */
    json_t *phase, *kept_how, *instances, *mean_busy;             /* its region */
} parts;

static void unpack_parts(const json_t *e, parts *p)
{
    memset(p, 0, sizeof *p);
    (void)json_unpack((json_t *)e, "{s?o, s?o, s?o, s?o, s?o, s?o}", "name", &p->name,
                      "threads", &p->threads, "error_occurred", &p->error, "error_message",
                      &p->message, "real_time", &p->real_time, "ompbench", &p->omp);
    if (json_is_object(p->omp))
        (void)json_unpack(p->omp, "{s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o}", "sample_size",
                          &p->sample_size, "samples", &p->samples, "stats", &p->stats,
                          "region", &p->region, "counters", &p->counters, "fairness",
                          &p->fairness, "ranks", &p->ranks, "marks", &p->marks);
    if (json_is_object(p->samples))
        (void)json_unpack(p->samples, "{s?o, s?o, s?o, s?o, s?o}", "makespan_ns", &p->makespan,
                          "busy_ns", &p->busy, "start_offset_ns", &p->offset,
                          "rank_makespan_ns", &p->rank_makespan, "start_skew_ns", &p->skew);
    if (json_is_object(p->stats))
        (void)json_unpack(p->stats, "{s?o, s?o, s?o, s?o}", "median_ns", &p->median, "mean_ns",
                          &p->mean, "ci95_low_ns", &p->ci_lo, "ci95_high_ns", &p->ci_hi);
    if (json_is_object(p->region))
        (void)json_unpack(p->region, "{s?o, s?o, s?o, s?o}", "phase", &p->phase, "kept_how",
                          &p->kept_how, "instances", &p->instances, "mean_busy_ns",
                          &p->mean_busy);
}

typedef struct inst {
    const parts *p;
    const char *unit;       /* "round", or "instance" for an application region */
    size_t rounds;
    double sample_size;
    double *per_iter;       /* [rounds] makespan / sample_size */
    double lo, hi;          /* their range */
    double median, q1, q3, ci_lo, ci_hi;
} inst;

static double num(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
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

static int load(const parts *p, inst *in)
{
    memset(in, 0, sizeof *in);
    in->p = p;
    in->rounds = json_array_size(p->makespan);
    in->unit = p->region ? "instance" : "round";
    in->sample_size = num(p->sample_size);
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
        sorted[r] = in->per_iter[r] = ompb__html_at(in->p->makespan, r) / in->sample_size;
    qsort(sorted, in->rounds, sizeof *sorted, ompb__html_cmp_double);
    in->lo = sorted[0];
    in->hi = sorted[in->rounds - 1];
    in->q1 = sorted[in->rounds / 4];
    in->q3 = sorted[(3 * in->rounds) / 4];
    free(sorted);
    in->median = num(p->median);
    in->ci_lo = num(p->ci_lo);
    in->ci_hi = num(p->ci_hi);
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
    const json_t *busy = json_array_get(in->p->busy, r);
    const json_t *off = json_array_get(in->p->offset, r);
    size_t T = json_array_size(busy);
    double span = ompb__html_at(in->p->makespan, r);
    double h = PAD_T + (double)T * ROW_H + 4;
    char a[OMPB__UNIT_TEXT_MAX];
    fprintf(out, "<figure><figcaption id=\"tvc%zu\" data-unit=\"%s\">Threads of %s %zu (%s; "
                 "%s)</figcaption>", id, in->unit, in->unit, r, ompb__format_ns(a, sizeof a, span),
            off ? "threads" : "busy from the team's start: no start offsets in this file");
    svg_open(out, "threads", h, "threads of a round");
    fprintf(out, "<g id=\"tv%zu\" data-l=\"%.0f\" data-r=\"%.0f\">", id, PAD_L, CHART_W - PAD_R);
    for (size_t t = 0; t < T; t++) {
        double o = off ? ompb__html_at(off, t) : 0.0, b = ompb__html_at(busy, t);
        double y = PAD_T + (double)t * ROW_H;
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
    const json_t *row = json_array_get(in->p->rank_makespan, r);
    size_t R = json_array_size(row);
    double worst = 0;
    char a[OMPB__UNIT_TEXT_MAX];
    for (size_t k = 0; k < R; k++)
        worst = fmax(worst, ompb__html_at(row, k));
    fprintf(out, "<figure><figcaption id=\"rvc%zu\">Ranks of round %zu (each rank's own "
                 "makespan)</figcaption>", id, r);
    svg_open(out, "ranks", PAD_T + (double)R * ROW_H + 8, "per-rank makespans of one round");
    fprintf(out, "<g id=\"rv%zu\" data-l=\"%.0f\" data-r=\"%.0f\">", id, PAD_L, CHART_W - PAD_R);
    for (size_t k = 0; k < R; k++) {
        double y = PAD_T + (double)k * ROW_H, v = ompb__html_at(row, k);
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
        sum += ompb__html_at(busy, t);
        max = fmax(max, ompb__html_at(busy, t));
    }
    return T && sum > 0 ? max / (sum / (double)T) : NAN;
}

static void multiple(FILE *out, const inst *in, const sampled *s, bool skew)
{
    const json_t *sk = in->p->skew;
    double lo = INFINITY, hi = -INFINITY, *v = malloc(s->n * sizeof *v);
    char t[2 * OMPB__UNIT_TEXT_MAX + 16], b[OMPB__UNIT_TEXT_MAX];
    if (!v)
        return;
    for (size_t k = 0; k < s->n; k++) {
        v[k] = skew ? ompb__html_at(sk, s->idx[k])
                    : round_imbalance(json_array_get(in->p->busy, s->idx[k]));
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
        bad |= json_array_append(m, json_array_get(in->p->makespan, r));
        if (in->p->busy)
            bad |= json_array_append(b, json_array_get(in->p->busy, r));
        if (in->p->offset)
            bad |= json_array_append(o, json_array_get(in->p->offset, r));
        if (in->p->rank_makespan)
            bad |= json_array_append(rk, json_array_get(in->p->rank_makespan, r));
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

static void heading(FILE *out, const parts *p, size_t id, unsigned marks)
{
    char codes[200];
    fprintf(out, "<section class=\"instance\" id=\"i%zu\"><h3>", id);
    ompb__html_text(out, json_string_value(p->name));
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
static void phase_facts(FILE *out, json_t *phase)
{
    json_t *tw = NULL, *rw = NULL, *width = NULL, *mixed = NULL;
    (void)json_unpack(phase, "{s?o, s?o, s?o, s?o}", "team_widths", &tw, "runtime_widths", &rw,
                      "width", &width, "mixed", &mixed);
    double w = num(width);
    fprintf(out, "; a phase region: one thread around teams of %.0f thread%s", w, plural(w));
    if (json_is_true(mixed))
        fprintf(out, " (mixed: teams of %.0f to %.0f threads, the runtime answered %.0f to "
                     "%.0f)", ompb__html_at(tw, 0), ompb__html_at(tw, 1), ompb__html_at(rw, 0), ompb__html_at(rw, 1));
}

static void facts(FILE *out, const inst *in, const sampled *s)
{
    char m[OMPB__UNIT_TEXT_MAX], a[OMPB__UNIT_TEXT_MAX], b[OMPB__UNIT_TEXT_MAX];
    const parts *p = in->p;
    const json_t *region = p->region;
    double threads = num(p->threads);
    fprintf(out, "<p class=\"facts\">median %s per %s", ompb__format_ns(m, sizeof m, in->median),
            region ? "instance" : "iteration");
    if (!isnan(in->ci_lo) && !isnan(in->ci_hi))
        fprintf(out, " (95%% interval %s to %s)", ompb__format_ns(a, sizeof a, in->ci_lo),
                ompb__format_ns(b, sizeof b, in->ci_hi));
    if (region) {
        /* A region's "round" is one instance of one iteration: say instances. */
        const char *how = json_string_value(p->kept_how);
        double n = num(p->instances);
        fprintf(out, "; %.0f instance%s (kept: %s)", n, plural(n), how ? how : "all");
        if (json_is_object(p->phase))
            phase_facts(out, p->phase);
        else
            fprintf(out, "; %.0f thread%s", threads, plural(threads));
    } else {
        fprintf(out, "; %zu round%s of %.0f iteration%s; %.0f thread%s", in->rounds,
                plural((double)in->rounds), in->sample_size, plural(in->sample_size), threads,
                plural(threads));
    }
    if (json_is_integer(p->ranks))
        fprintf(out, " (%.0f ranks)", num(p->ranks));
    if (in->rounds > s->n)
        fprintf(out, "; %zu %ss drawn, evenly spaced, the median one among them (the "
                     "statistics use all; the result file has them)", s->n, in->unit);
    fputs("</p>", out);
}

/* A region: each thread's mean busy time against the mean makespan. */
static void region_busy(FILE *out, const inst *in)
{
    const json_t *mb = in->p->mean_busy;
    size_t T = json_array_size(mb);
    double span = num(in->p->mean);
    char a[OMPB__UNIT_TEXT_MAX];
    if (!T || !(span > 0))
        return;
    fputs("<figure><figcaption>Mean busy time per thread against the mean makespan (every "
          "instance)</figcaption>", out);
    svg_open(out, "region-busy", PAD_T + (double)T * ROW_H + 8, "region busy per thread");
    for (size_t t = 0; t < T; t++) {
        double y = PAD_T + (double)t * ROW_H, v = ompb__html_at(mb, t);
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
static bool opening(FILE *out, const parts *p, size_t id)
{
    unsigned marks = 0;
    (void)ompb__marks_of_json(p->marks, &marks);
    heading(out, p, id, marks);
    if (!json_is_true(p->error))
        return false;
    fputs("<p class=\"failed\">failed: ", out);
    ompb__html_text(out, json_string_value(p->message));
    fputs("</p></section>\n", out);
    return true;
}

int ompb__html_instance_brief(FILE *out, const json_t *entry, size_t id)
{
    char m[OMPB__UNIT_TEXT_MAX];
    parts p;
    unpack_parts(entry, &p);
    if (opening(out, &p, id))
        return 0;
    double median = json_is_number(p.median) ? num(p.median) : num(p.real_time);
    /* The summary says why it is not drawn, once for all of them. */
    fprintf(out, "<p class=\"facts\">median %s per iteration</p></section>\n",
            ompb__format_ns(m, sizeof m, median));
    return 0;
}

int ompb__html_instance(FILE *out, const json_t *entry, size_t id, size_t max_rounds)
{
    inst in;
    parts p;
    unpack_parts(entry, &p);
    if (opening(out, &p, id))
        return 0;
    if (load(&p, &in))
        return OMPB_ENOMEM;
    if (in.rounds == 0) {
        fputs("<p>no rounds recorded (not an ompbench result entry)</p></section>\n", out);
        free(in.per_iter);
        return 0;
    }
    sampled s;
    pick_rounds(&in, max_rounds, &s);
    facts(out, &in, &s);
    fprintf(out, "<div class=\"charts\"><figure><figcaption>Distribution%s</figcaption>",
            log_axis(&in) ? " (log scale)" : "");
    strip_plot(out, &in, &s);
    fprintf(out, "</figure><figure><figcaption>%s in time order</figcaption>",
            in.rounds && in.unit[0] == 'i' ? "Instances" : "Rounds");
    time_order(out, &in, &s, max_rounds >= OMPB__HTML_TITLED_ROUNDS);
    fputs("</figure>", out);
    if (p.busy)
        thread_view(out, &in, s.median_round, id);
    else
        fputs("<p>A caller team: the harness times the caller only (no per-thread view).</p>", out);
    if (p.rank_makespan)
        rank_view(out, &in, s.median_round, id);
    region_busy(out, &in);
    if (p.busy) {
        fputs("<figure><figcaption>Imbalance, skew</figcaption>", out);
        multiple(out, &in, &s, false);
        multiple(out, &in, &s, true);
        fputs("</figure>", out);
    }
    fputs("</div>", out);
    ompb__html_fairness(out, p.fairness);
    ompb__html_counters(out, p.counters, in.sample_size);
    int rc = embed(out, &in, &s, id);
    fputs("</section>\n", out);
    free(in.per_iter);
    return rc;
}
