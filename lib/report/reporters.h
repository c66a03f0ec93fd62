/* SPDX-License-Identifier: MIT */
/*
 * The reporter table (lib/report/reporters.c): one row per output format,
 * which the command line validates --format against and lists in --help.
 * Only the interface lives here, so that the CLI can name a format without
 * depending on the report layer (report/report.h holds what reporters read).
 */
#ifndef OMPB_REPORTERS_H
#define OMPB_REPORTERS_H

#include <stdio.h>

struct ompb__report;

typedef struct ompb__reporter {
    const char *name;         /* the --format value */
    /* Writes the whole report to out; 0, or OMPB_EIO when out failed (or
     * OMPB_ENOMEM). Never leaves out half-written on purpose: callers
     * writing a file discard it on failure. */
    int (*write)(FILE *out, const struct ompb__report *report);
} ompb__reporter;

/* The built-in rows, for callers that name one (tests); the table itself is
 * lib/report/reporters.c. */
extern const ompb__reporter ompb__reporter_console;
extern const ompb__reporter ompb__reporter_json;
extern const ompb__reporter ompb__reporter_csv;

/* The reporter named name, or NULL. */
const ompb__reporter *ompb__reporter_find(const char *name);
/* The table's names, comma-separated in table order ("console, json, csv"),
 * for --help and error messages. Static string. */
const char *ompb__reporter_names(void);
/* The default reporter (the table's first row). */
const ompb__reporter *ompb__reporter_default(void);

#endif
