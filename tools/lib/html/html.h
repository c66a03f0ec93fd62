/* SPDX-License-Identifier: MIT */
/*
 * `ompbench report`: one self-contained HTML page (inline CSS, SVG and a
 * little JavaScript; no network, no font, no CDN) from result files. The
 * page has a summary of the suspect results at the top, a keyboard-driven
 * list of the instances, per instance the distribution of its round times,
 * the rounds in time order, the per-thread view of one round (the median by
 * default, any sampled round on click) and imbalance and skew over the
 * rounds; the scaling chart (analysis/scaling_svg.c, shared with `ompbench
 * scaling --svg`); and, given two sides, the comparison as a forest plot.
 * Large data is reduced: at most OMPB__HTML_MAX_ROUNDS rounds per instance
 * are drawn and embedded, fewer when many instances share the page's
 * OMPB__HTML_ROUND_BUDGET (evenly spaced, the median round always among
 * them); the statistics come from every round, and the result files keep
 * the whole data.
 */
#ifndef OMPB_REPORT_HTML_H
#define OMPB_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/analysis.h"

#define OMPB__HTML_MAX_ROUNDS 200
/* Rounds drawn over the whole page: each instance gets its share, at least
 * OMPB__HTML_MIN_ROUNDS, so ten runs of the example suite (510 instances)
 * stay near 2 MB (measured: 2.03 MB). */
#define OMPB__HTML_ROUND_BUDGET 3000
#define OMPB__HTML_MIN_ROUNDS 6
/* Instances drawn (charts and embedded rounds) per page: the ones after
 * these get their name, marks and median only, so that a page of 100,000
 * instances stays a page a browser opens (docs/guide.md, "report"). */
#define OMPB__HTML_MAX_DRAWN 2000
/* Rounds carry a tooltip when each instance gets at least this many. */
#define OMPB__HTML_TITLED_ROUNDS 100

typedef struct ompb__html_input {
    const ompb__resultfile *files;  /* the runs, loaded and validated */
    json_t *const *roots;           /* [n_files] the same files' JSON */
    size_t n_files;
    const ompb__comparison *cmp;    /* NULL without --compare */
} ompb__html_input;

/* Writes the page. Returns 0, OMPB_ENOMEM or OMPB_EIO. */
int ompb__html_report(FILE *out, const ompb__html_input *in);

/* Text and attribute values for HTML: markup characters as entities,
 * control characters as U+FFFD (HTML forbids most of them). */
void ompb__html_text(FILE *out, const char *s);

/* One instance's section (html_instance.c): id is its anchor number; at
 * most max_rounds rounds (2..OMPB__HTML_MAX_ROUNDS) are drawn. */
int ompb__html_instance(FILE *out, const json_t *entry, size_t id, size_t max_rounds);

/* The section of an instance past OMPB__HTML_MAX_DRAWN: its heading,
 * marks and median (or failure) only. Returns 0. */
int ompb__html_instance_brief(FILE *out, const json_t *entry, size_t id);

/* The instance's tables (html_tables.c): counters per thread, the median
 * over rounds of each event per iteration, from "ompbench.counters"; and
 * fairness per thread from "ompbench.fairness": each thread's busy time
 * over the rounds (mean, median, CV) and its share of the rounds as the
 * slowest thread, a fair team having shares near 1 / threads. Kept short:
 * they are in every instance of the page, and "How to read an instance"
 * says what the columns are. Either writes nothing when its object is
 * absent or empty (one thread is always the slowest). */
void ompb__html_counters(FILE *out, json_t *counters, double sample_size);
void ompb__html_fairness(FILE *out, json_t *fairness);

/* The number a[i] of a JSON array (NAN: none), and qsort's order of
 * doubles, for the instance's charts and tables. */
double ompb__html_at(const json_t *a, size_t i);
int ompb__html_cmp_double(const void *a, const void *b);

/* The comparison's forest plot and table (html_compare.c). */
void ompb__html_compare(FILE *out, const ompb__comparison *cmp);

/* The comparison's summary for the top of the page: the regressed,
 * improved and undecided instances, each a link to its row of the forest
 * plot (html_compare.c). */
void ompb__html_compare_summary(FILE *out, const ompb__comparison *cmp);

/* JSON for a <script type="application/json"> block: '<', '>' and '&' as
 * \u escapes, so no text in it can close the element. */
int ompb__html_json(FILE *out, const json_t *value);

#endif
