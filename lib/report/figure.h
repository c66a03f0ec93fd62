/* SPDX-License-Identifier: MIT */
/*
 * Figures: the named values a result carries for the reporters, as Google
 * Benchmark's Run::counters are: a key, a console label, a value, how it
 * prints and where each format shows it. The analysis (lib/report/figures.c,
 * called by ompb__report_init) computes every derived figure of a
 * repetition and of an instance into such a list; the console, the CSV and
 * the JSON print what the lists hold, in the columns the lists make (one
 * per key, ordered by place, then by first appearance). A new figure is
 * one producer in lib/report/figures.c and no change in any reporter.
 */
#ifndef OMPB_REPORT_FIGURE_H
#define OMPB_REPORT_FIGURE_H

#include <stdbool.h>
#include <stddef.h>

/* Enough for every figure a result has today: the involuntary switches,
 * OMPB__MAX_COUNTERS counters and their five companions, the marks, the
 * CPU share, OMPB__UCOUNTERS_MAX user counters and the 16 per-thread
 * columns of --thread-columns (report/fairness.h), with room to grow. */
#define OMPB__FIGURES_MAX 56
/* A key: a counter's name (< 64) and "_per_iter". */
#define OMPB__FIGURE_KEY_MAX 80
#define OMPB__FIGURE_LABEL_MAX 64

/* How a value reads. */
typedef enum ompb__figure_style {
    /* An integer: "%" PRIu64 in every format (JSON: an integer). */
    OMPB__STYLE_INTEGER,
    /* A yes/no (0 or 1): "0"/"1" in the CSV, a boolean in the JSON. */
    OMPB__STYLE_FLAG,
    /* A count: four significant digits with k, M, G, T, P on the console. */
    OMPB__STYLE_COUNT,
    /* Nanoseconds: a duration ("1.5 us") on the console. */
    OMPB__STYLE_DURATION,
    /* A ratio: two decimals on the console. */
    OMPB__STYLE_RATIO,
    /* A user's figure: four significant digits, k to E from 999.95 on,
     * then the figure's unit ("/s" for a rate) on the console. */
    OMPB__STYLE_SI,
    /* A fraction: a whole percentage on the console. */
    OMPB__STYLE_SHARE,
    /* OMPB__MARK_* bits: letters on the console, codes in files. */
    OMPB__STYLE_MARKS,
} ompb__figure_style;

/* The formats a figure is placed in (an index of ompb__figure.place). */
enum { OMPB__FORMAT_CONSOLE, OMPB__FORMAT_CSV, OMPB__FORMAT_JSON, OMPB__FORMATS };

/* Where the JSON puts a figure (its place[OMPB__FORMAT_JSON]). */
enum {
    OMPB__JSON_ENTRY = 1,     /* a flat key of the repetition's entry (left
                                 out when not finite), as Google Benchmark
                                 writes its counters */
    OMPB__JSON_OMPBENCH,      /* a key of the entry's "ompbench" object, on
                                 aggregates too (null when not finite) */
    OMPB__JSON_PER_ITERATION, /* "ompbench.counters.per_iteration", under
                                 the label (null when not finite) */
    OMPB__JSON_COUNTERS,      /* "ompbench.counters" (left out when not finite) */
};

/* Flags of a figure. */
enum {
    /* The value was scaled (multiplexed counters): "*" after it on the
     * console. */
    OMPB__FIGURE_STARRED = 1u << 0,
    /* A row without the figure has 0 in its CSV cell, not an empty one. */
    OMPB__FIGURE_CSV_ZERO = 1u << 1,
    /* When its console column shows, the rate column before it is padded
     * so the columns line up (every figure but the user counters, which
     * the table has always appended after an unpadded rate). */
    OMPB__FIGURE_ALIGNS_RATE = 1u << 2,
};

typedef struct ompb__figure {
    char key[OMPB__FIGURE_KEY_MAX];     /* CSV column and JSON key */
    char label[OMPB__FIGURE_LABEL_MAX]; /* console column header */
    const char *unit;                   /* after a console value ("/s"), or "" */
    const char *json_key;               /* the JSON's key when not key, else NULL */
    double value;                       /* NAN: none in this row */
    ompb__figure_style style;
    /* Per format: 0 not shown, else the section it is shown in; columns are
     * ordered by section, then by first appearance. For the JSON one of
     * OMPB__JSON_*, and within one the order in which they were added. A
     * row can have a figure that does not make a console column (place 0)
     * and still print it when another row makes one. */
    unsigned char place[OMPB__FORMATS];
    unsigned flags;                     /* OMPB__FIGURE_* */
    int width;                          /* the console column's width */
} ompb__figure;

/* The figures of one row (a repetition or an instance), in the order they
 * were added. */
typedef struct ompb__figures {
    ompb__figure f[OMPB__FIGURES_MAX];
    int n;
} ompb__figures;

/* Adds a copy of fig; returns 0, or -1 (nothing added) when l is full or
 * the key is there already. */
int ompb__figure_add(ompb__figures *l, const ompb__figure *fig);
/* The figure with this key; NULL when the row has none. */
const ompb__figure *ompb__figure_find(const ompb__figures *l, const char *key);

/* The columns of one format over a set of rows: one per key whose figure
 * some row places in that format (the first such figure describes the
 * column), ordered by place, then by first appearance. */
#define OMPB__COLUMNS_MAX 128
typedef struct ompb__figure_columns {
    const ompb__figure *col[OMPB__COLUMNS_MAX];
    int n;
} ompb__figure_columns;

void ompb__figure_columns_clear(ompb__figure_columns *c);
/* Adds the columns rows l makes in format fmt (call once per row, in row
 * order, then ompb__figure_columns_sort). */
void ompb__figure_columns_add(ompb__figure_columns *c, const ompb__figures *l, int fmt);
void ompb__figure_columns_sort(ompb__figure_columns *c, int fmt);

#endif
