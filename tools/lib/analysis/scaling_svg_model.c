/* SPDX-License-Identifier: MIT */
/*
 * The fitted model in the scaling plot (analysis/scaling_svg.h): the
 * USL's curve when it was fitted (3 or more real widths), else Amdahl's,
 * drawn dotted in its own colour; beyond the widest fitted width the
 * panel is shaded and titled as a prediction, so a model is never read as
 * a measurement.
 */
#include "analysis/scaling_svg.h"

#include <math.h>

/* Curve vertices per panel: enough for a smooth line on a log axis. */
#define CURVE_STEPS 48

static bool has_model(const ompb__scaling_family *f)
{
    return !f->model.none && (f->model.usl || f->model.amdahl);
}

double ompb__svg_model_reach(const ompb__scaling_family *f)
{
    double widest = (double)f->points[f->n - 1].threads;
    if (!has_model(f))
        return widest;
    double fitted = (double)f->model.max_width, reach = 2.0 * fitted;
    double peak = f->model.usl ? f->model.peak_width.value : NAN;
    if (isfinite(peak))
        reach = fmax(reach, 1.5 * peak);
    return fmax(widest, fmin(reach, OMPB__SVG_MODEL_REACH * fitted));
}

static double model_value(const ompb__scaling_family *f, bool time, double n)
{
    bool usl = f->model.usl;
    return time ? ompb__scaling_model_time(f, usl, n) : ompb__scaling_model_efficiency(f, usl, n);
}

/* The k-th of CURVE_STEPS + 1 widths from the base to the reach (log2). */
static double curve_width(const ompb__scaling_family *f, int k)
{
    double lo = log2((double)f->points[0].threads), hi = log2(ompb__svg_model_reach(f));
    return exp2(lo + (hi - lo) * k / CURVE_STEPS);
}

void ompb__svg_model_extent(const ompb__scaling_family *f, double *lo, double *hi)
{
    if (!has_model(f))
        return;
    for (int k = 0; k <= CURVE_STEPS; k++) {
        double v = model_value(f, true, curve_width(f, k));
        if (v > 0.0 && isfinite(v)) {
            *lo = fmin(*lo, log10(v));
            *hi = fmax(*hi, log10(v));
        }
    }
}

const char *ompb__svg_model_label(const ompb__scaling_family *f, char *buf, size_t cap)
{
    if (!has_model(f))
        return NULL;
    snprintf(buf, cap, "%s model (fit %d-%d)", f->model.usl ? "USL" : "Amdahl",
             f->model.min_width, f->model.max_width);
    return buf;
}

void ompb__svg_model_ticks(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f,
                           double last_x)
{
    if (!has_model(f))
        return;
    double reach = ompb__svg_model_reach(f);
    for (double n = 2.0; n <= reach * (1.0 + 1e-9); n *= 2.0) {
        double x = ompb__svg_x(p, n);
        if (n <= (double)f->points[f->n - 1].threads || x - last_x < 24.0)
            continue;
        last_x = x;
        fprintf(out, "<text class=\"model-tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                     "fill=\"#8c3d77\">%.0f</text>\n", x, p->y + p->h + 16, n);
    }
}

/* The shaded zone beyond the widest fitted width, with its title. */
static void prediction_zone(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f)
{
    double x = ompb__svg_x(p, (double)f->model.max_width), right = p->x + p->w;
    if (!(right - x > 1.0))
        return;
    fprintf(out, "<rect class=\"prediction\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                 "height=\"%.1f\" fill=\"#f4e6f0\" fill-opacity=\"0.6\"><title>model "
                 "prediction: fitted on %d-%d threads, not measured</title></rect>\n",
            x, p->y, right - x, p->h, f->model.min_width, f->model.max_width);
    fprintf(out, "<text class=\"prediction-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
                 "fill=\"#8c3d77\">model</text>\n", x + 3, p->y + 11);
}

void ompb__svg_model(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f,
                     size_t fi, bool time)
{
    char label[160];
    if (!ompb__svg_model_label(f, label, sizeof label))
        return;
    /* One group: the model is apart from the measurements in the DOM too. */
    fputs("<g class=\"model-layer\">\n", out);
    prediction_zone(out, p, f);
    fprintf(out, "<polyline id=\"f%zu-%s-model\" class=\"model\" fill=\"none\" stroke=\"%s\" "
                 "stroke-width=\"2\"%s points=\"", fi, time ? "time" : "efficiency",
            OMPB__SVG_COLOR_MODEL, OMPB__SVG_MODEL_DASH);
    const char *sep = "";
    for (int k = 0; k <= CURVE_STEPS; k++) {
        double n = curve_width(f, k), v = model_value(f, time, n);
        if (isnan(v))
            continue;
        fprintf(out, "%s%.1f,%.1f", sep, ompb__svg_x(p, n), ompb__svg_y(p, v));
        sep = " ";
    }
    fprintf(out, "\"><title>%s: fitted on %d-%d threads; beyond %d a prediction</title>"
                 "</polyline>\n", f->model.usl ? "USL" : "Amdahl's law", f->model.min_width,
            f->model.max_width, f->model.max_width);
    double peak = f->model.usl ? f->model.peak_width.value : NAN;
    if (isfinite(peak) && peak <= ompb__svg_model_reach(f)) {
        double x = ompb__svg_x(p, peak), y = ompb__svg_y(p, model_value(f, time, peak));
        fprintf(out, "<path class=\"model-peak\" d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\" "
                     "fill=\"white\" stroke=\"%s\" stroke-width=\"1.5\"><title>model: peak at "
                     "%.3g threads, speedup %.3g (predicted)</title></path>\n", x, y - 5,
                OMPB__SVG_COLOR_MODEL, peak, f->model.peak_speedup.value);
    }
    fputs("</g>\n", out);
}
