/* SPDX-License-Identifier: MIT */
/*
 * Human-readable times and changes for the analysis reports. Every report of
 * `ompbench compare` and `ompbench scaling` formats numbers here so the
 * console, markdown and SVG outputs agree on units and precision.
 */
#include "analysis/units.h"

#include <math.h>
#include <stdio.h>

char *ompb__format_ns(char *buf, size_t cap, double ns)
{
    static const struct { const char *name; double ns; } units[] = {
        {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1.0}};
    if (isnan(ns)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && fabs(ns) < units[u].ns)
        u++;
    double v = ns / units[u].ns;
    /* Four significant digits whatever the magnitude within the unit. */
    int decimals = fabs(v) < 10.0 ? 3 : fabs(v) < 100.0 ? 2 : 1;
    snprintf(buf, cap, "%.*f %s", decimals, v, units[u].name);
    return buf;
}

char *ompb__format_change(char *buf, size_t cap, double change)
{
    if (isnan(change))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%+.2f%%", change * 100.0);
    return buf;
}
