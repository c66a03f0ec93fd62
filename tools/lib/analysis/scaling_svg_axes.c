/* SPDX-License-Identifier: MIT */
/*
 * A scaling plot panel's coordinates (analysis/scaling_svg.h): threads on
 * a log2 axis, values on a log10 or linear one, and where a value falls;
 * the left panel's value labels. Shared by the plot (scaling_svg.c), its
 * series (scaling_svg_series.c) and its model (scaling_svg_model.c).
 */
#include "analysis/scaling_svg.h"

#include <math.h>

#include "analysis/units.h"

double ompb__svg_x(const ompb__svg_panel *p, double threads)
{
    return p->x + (log2(threads) - p->xlo) / (p->xhi - p->xlo) * p->w;
}

ompb__svg_place ompb__svg_placement(const ompb__svg_panel *p, double v)
{
    if (isnan(v))
        return OMPB__SVG_PLACE_NONE;
    if (p->ylog && v <= 0.0)
        return OMPB__SVG_PLACE_BELOW; /* no logarithm: below any log axis */
    double t = p->ylog ? log10(v) : v;
    return t < p->ylo ? OMPB__SVG_PLACE_BELOW
           : t > p->yhi ? OMPB__SVG_PLACE_ABOVE : OMPB__SVG_PLACE_IN;
}

double ompb__svg_y(const ompb__svg_panel *p, double v)
{
    ompb__svg_place at = ompb__svg_placement(p, v);
    double t = at == OMPB__SVG_PLACE_BELOW ? p->ylo
               : at == OMPB__SVG_PLACE_ABOVE ? p->yhi
               : p->ylog ? log10(v) : v;
    return p->y + p->h - (t - p->ylo) / (p->yhi - p->ylo) * p->h;
}

/* A y label of the left panel: a time, or the metric's unit. */
char *ompb__svg_value_label(const ompb__scaling_family *f, char *buf, size_t cap, double v,
                            bool shortest)
{
    if (f->metric)
        return shortest ? ompb__format_metric_short(buf, cap, v, f->unit)
                        : ompb__format_metric(buf, cap, v, f->unit);
    return shortest ? ompb__format_ns_short(buf, cap, v) : ompb__format_ns(buf, cap, v);
}
