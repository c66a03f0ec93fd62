/* SPDX-License-Identifier: MIT */
/*
 * What the files of the scaling plot share (private to the folder): a
 * panel's geometry and its coordinates (scaling_svg_axes.c), and the
 * fitted model's drawing (scaling_svg_model.c): its curve, the prediction
 * zone beyond the measured widths and its legend entry; the series, their
 * markers and the legend (scaling_svg_series.c). scaling_svg.c draws the
 * axes, panels and rows.
 */
#ifndef OMPB_ANALYSIS_SCALING_SVG_H
#define OMPB_ANALYSIS_SCALING_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/scaling.h"

/* A plot area and the data range it shows; y on a log10 axis when ylog. */
typedef struct ompb__svg_panel {
    double x, y, w, h;
    double xlo, xhi;        /* log2 threads */
    double ylo, yhi;        /* data units (log10 of them when ylog) */
    double ystep;           /* tick step of a linear axis */
    bool ylog;
} ompb__svg_panel;

/* Where a value falls on a panel's y axis. A value off the axis is drawn on
 * its edge and marked, so one wild point cannot stretch the axis until the
 * rest is a flat line, or make it unbounded. */
typedef enum ompb__svg_place {
    OMPB__SVG_PLACE_NONE,
    OMPB__SVG_PLACE_IN,
    OMPB__SVG_PLACE_BELOW,
    OMPB__SVG_PLACE_ABOVE
} ompb__svg_place;

/* x of a (fractional) width; where v falls; y of v, clamped to the
 * panel's edges. */
double ompb__svg_x(const ompb__svg_panel *p, double threads);
ompb__svg_place ompb__svg_placement(const ompb__svg_panel *p, double v);
double ompb__svg_y(const ompb__svg_panel *p, double v);

/* A panel's width; the colours every part of the plot shares. */
#define OMPB__SVG_PANEL_W 370.0
#define OMPB__SVG_COLOR_MEASURED "#1f77b4"
#define OMPB__SVG_COLOR_IDEAL "#7f7f7f"
#define OMPB__SVG_COLOR_OFF_AXIS "#d62728"
#define OMPB__SVG_COLOR_MARKED "#ff7f0e"

/* The value plotted for point i of a family. */
typedef double (*ompb__svg_value_fn)(const ompb__scaling_family *f, size_t i);

/* A y label of the left panel: a time, or the metric's unit; the shortest
 * form for a tick (scaling_svg_axes.c). */
char *ompb__svg_value_label(const ompb__scaling_family *f, char *buf, size_t cap, double v,
                            bool shortest);

/* The data of a panel (scaling_svg_series.c): the ideal and measured lines
 * (ids "f<fi>-<what>-ideal" and "-measured", "-r<R>" per rank count), each
 * point's marker with its run-to-run range and title (inverse: the value
 * is an efficiency, whose range inverts), the usable PU line, and the
 * legend in a strip below the panel, whose height the row leaves room for. */
void ompb__svg_series(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f,
                      size_t fi, const char *what, ompb__svg_value_fn value,
                      ompb__svg_value_fn ideal);
void ompb__svg_markers(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f,
                       ompb__svg_value_fn value, bool inverse);
void ompb__svg_usable_line(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f);
void ompb__svg_legend(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f,
                      bool weak);
double ompb__svg_legend_height(const ompb__scaling_family *f);

/* The widest width the plot shows: where the model's prediction ends
 * (past the peak it predicts, at least twice the widest measured width,
 * at most OMPB__SVG_MODEL_REACH times it), or the widest measured width
 * for a family without a model. */
#define OMPB__SVG_MODEL_REACH 16.0
double ompb__svg_model_reach(const ompb__scaling_family *f);
/* Widens [lo, hi] (log10 of times) to hold the model's times. */
void ompb__svg_model_extent(const ompb__scaling_family *f, double *lo, double *hi);
/* The model on a panel (time: the time panel, else efficiency), in a
 * group of class "model-layer": a shaded
 * zone of class "prediction" beyond the widest fitted width, titled with
 * the widths the model was fitted on, and the model's curve, a dotted
 * polyline of class "model" (id "f<i>-<panel>-model") over the fitted and
 * predicted widths, with the predicted peak as a hollow diamond of class
 * "model-peak". Nothing for a family without a model. */
void ompb__svg_model(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f,
                     size_t fi, bool time);
/* Width labels (powers of two, class "model-tick") in the prediction
 * zone, right of last_x (the last measured width's label). */
void ompb__svg_model_ticks(FILE *out, const ompb__svg_panel *p, const ompb__scaling_family *f,
                           double last_x);
/* The legend's text for the model ("USL model (fit 1-4)": the widths it
 * was fitted on), NULL without one. */
const char *ompb__svg_model_label(const ompb__scaling_family *f, char *buf, size_t cap);
#define OMPB__SVG_COLOR_MODEL "#e377c2"
#define OMPB__SVG_MODEL_DASH " stroke-dasharray=\"1 3\""

#endif
