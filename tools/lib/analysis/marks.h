/* SPDX-License-Identifier: MIT */
/*
 * The marks a result file puts on an entry ("ompbench": {"marks": [codes]},
 * docs/json.md), read back for `ompbench compare` and `ompbench scaling`:
 * each code becomes a bit, so a side or a point can carry the union of its
 * repetitions' marks, and each bit has the short code the reports print and
 * a one-line legend. Files without marks (older ompbench files, Google
 * Benchmark files) carry none. A code this table does not know (a newer
 * producer) is kept as "other" rather than dropped or refused.
 */
#ifndef OMPB_ANALYSIS_MARKS_H
#define OMPB_ANALYSIS_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

typedef enum ompb__rf_mark {
    OMPB__RF_MARK_FEW_ROUNDS = 1u << 0,
    OMPB__RF_MARK_CPU_SHARE = 1u << 1,
    OMPB__RF_MARK_OVERSUBSCRIBED = 1u << 2,
    OMPB__RF_MARK_NESTED_REGION = 1u << 3,
    OMPB__RF_MARK_TEAM_WIDTH = 1u << 4,
    OMPB__RF_MARK_UNOPTIMIZED = 1u << 5,
    OMPB__RF_MARK_ONE_VALUE = 1u << 6,
    OMPB__RF_MARK_CALIBRATION = 1u << 7,
    OMPB__RF_MARK_OTHER = 1u << 8,      /* a code this reader does not know */
    OMPB__RF_MARK_OVERFLOW = 1u << 9,   /* a user counter's figure beyond a double */
} ompb__rf_mark;

/* Marks that make a time not the code's own: a verdict or a speedup that
 * rests on them is not a finding about the code. */
#define OMPB__RF_MARKS_NOT_REAL (OMPB__RF_MARK_OVERSUBSCRIBED | OMPB__RF_MARK_CPU_SHARE)

/*
 * The marks of an "ompbench" object: 0 when it has no "marks" key. Returns
 * 0, or -1 when "marks" is not an array of strings (*marks is then 0).
 */
int ompb__marks_read(const json_t *omp, unsigned *marks);

/* "few_rounds, oversubscribed": the codes of marks in table order, into
 * buf (cut to cap). Returns buf. */
char *ompb__marks_text(char *buf, size_t cap, unsigned marks);

/* A JSON array of the codes of marks (new reference; NULL out of memory). */
json_t *ompb__marks_json(unsigned marks);

/* Writes one line per mark set in marks: "  code: legend\n" for the
 * console, "> - `code`: legend\n" (a list in a quote) for markdown;
 * nothing when marks is 0. */
void ompb__marks_legend(FILE *out, unsigned marks, bool markdown);

/* Calls fn(code, legend, arg) for each mark set in marks, in the order the
 * reports list them. */
void ompb__marks_each(unsigned marks, void (*fn)(const char *code, const char *legend, void *arg),
                      void *arg);

#endif
