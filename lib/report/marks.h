/* SPDX-License-Identifier: MIT */
/*
 * Marks: the reasons a number cannot be vouched for, decided once per
 * repetition and per instance from the record and the run context, and
 * shown where people read the number (console row, CSV column, JSON entry,
 * compare and scaling). A mark is a row of one table: a bit, a short code
 * for files, one letter for the console's marks column, a one-line legend
 * and what it means to the analysis tools, which read the codes back
 * through this table too. Reporters iterate the table; none decides a
 * mark itself.
 */
#ifndef OMPB_MARKS_H
#define OMPB_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "context/context.h"
#include "model/model.h"

/* Below this CPU share (the team's CPU time over threads x wall time of the
 * measured rounds) the team did not have its CPUs. */
#define OMPB__CPU_SHARE_LOW 0.8
/* Fewer measured rounds than this is marked even when asked for. */
#define OMPB__MARK_MIN_ROUNDS 5

typedef enum ompb__mark {
    OMPB__MARK_FEW_ROUNDS = 1u << 0,   /* fewer rounds than asked, or < 5 */
    OMPB__MARK_CPU_SHARE = 1u << 1,    /* the team did not have its CPUs (harness teams) */
    OMPB__MARK_OVERSUB = 1u << 2,      /* more threads than usable PUs */
    OMPB__MARK_NESTED = 1u << 3,       /* the body opened nested regions */
    OMPB__MARK_WIDTH = 1u << 4,        /* a caller team's regions at another width */
    OMPB__MARK_UNOPTIMIZED = 1u << 5,  /* the benchmark's TU built without optimization */
    OMPB__MARK_ONE_VALUE = 1u << 6,    /* a region instance seen once: no spread */
    OMPB__MARK_CALIBRATION = 1u << 7,  /* calibration still disturbed after its retries */
    OMPB__MARK_OVERFLOW = 1u << 8,     /* a counter's figure exceeds the largest double */
    OMPB__MARK_OTHER = 1u << 9,        /* read from a file only: a code this table does
                                          not know (a newer writer's), kept, not dropped */
} ompb__mark;

/* Marks that make a time not the code's own: a verdict or a speedup that
 * rests on them is not a finding about the code (compare, scaling). */
#define OMPB__MARKS_NOT_REAL (OMPB__MARK_OVERSUB | OMPB__MARK_CPU_SHARE)

/* One row of the table. */
typedef struct ompb__mark_row {
    unsigned bit;
    const char *code;   /* in JSON and CSV: "few_rounds", "cpu_share", ... */
    char letter;        /* in the console's marks column */
    const char *legend; /* one line under the console table */
    /* What it means for a comparison or a scaling curve, where the analysis
     * tools show it, and its place in their lists (0 first: they lead with
     * the marks that make a time not the code's). */
    const char *analysis;
    unsigned char analysis_rank;
} ompb__mark_row;

/* The table, in the order marks are printed. */
extern const ompb__mark_row ompb__mark_rows[];
extern const size_t ompb__n_mark_rows;

/* The marks of one repetition's record; ctx may be NULL (no oversubscription
 * known). A failed record has none. few_rounds, cpu_share and calibration
 * only in measure mode (test and simulation ask for one short round). */
unsigned ompb__marks_of_record(const ompb__record *rec, const ompb__context *ctx);

/* The team's CPU share over the measured rounds: cpu_ns / (threads x
 * measure_wall_ns), or over the span from the first measured round's start
 * to the last one's end when the engine left measure_wall_ns 0. NAN when not
 * measured (a failure, an application region, no rounds, no CPU time). */
double ompb__cpu_share(const ompb__record *rec);

/* The analysis tools' side of the table (compare, scaling, the HTML page),
 * each in their order (analysis_rank). */
struct json_t;
/* The bits of a JSON array of codes; a code the table does not know is
 * OMPB__MARK_OTHER. NULL (no "marks" key: older or Google Benchmark files)
 * is 0. Returns 0, or -1 when codes is not an array of strings (*marks 0). */
int ompb__marks_of_json(const struct json_t *codes, unsigned *marks);
/* "few_rounds, oversubscribed": the codes of marks, into buf (cut to cap).
 * Returns buf. */
char *ompb__marks_text(char *buf, size_t cap, unsigned marks);
/* A JSON array of the codes of marks (new reference; NULL out of memory). */
struct json_t *ompb__marks_json(unsigned marks);
/* One line per mark set in marks: "  code: meaning\n" for the console,
 * "> - `code`: meaning\n" (a list in a quote) for markdown. */
void ompb__marks_legend(FILE *out, unsigned marks, bool markdown);
/* Calls fn(code, meaning, arg) for each mark set in marks, in the analysis
 * tools' order. */
void ompb__marks_each(unsigned marks, void (*fn)(const char *code, const char *legend, void *arg),
                      void *arg);

#endif
