/* SPDX-License-Identifier: MIT */
/*
 * What the reports of `ompbench compare` and `ompbench scaling` share: the
 * time units (read from and written to every format), the report format
 * names, names made safe for a terminal or markdown, and JSON numbers.
 */
#ifndef OMPB_ANALYSIS_UNITS_H
#define OMPB_ANALYSIS_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* Room for any formatted time or change, terminator included. */
#define OMPB__UNIT_TEXT_MAX 32

/* The analysis reports' formats (compare, scaling, ab): one row each in
 * units.c's table, which gives --format its names, --help its list and the
 * message its accepted values; each report has one renderer per row (its
 * table fails to compile without one). The first is the default. */
typedef enum ompb__report_format {
    OMPB__REPORT_CONSOLE,
    OMPB__REPORT_MARKDOWN,
    OMPB__REPORT_JSON,
    OMPB__REPORT_FORMAT_COUNT
} ompb__report_format;

/* Parses a format's name ("console", "markdown", "json"). Returns 0 or
 * OMPB_EINVAL. */
int ompb__report_parse_format(const char *text, ompb__report_format *fmt);

/* "console, markdown, json" (for messages) and "console (default),
 * markdown or json" (for --help). Static strings. */
const char *ompb__report_format_list(void);
const char *ompb__report_format_help(void);

/* Nanoseconds in one unit "ns", "us", "ms" or "s" (Google Benchmark's
 * time_unit values); 0 for anything else. */
double ompb__unit_ns(const char *unit);

/* "12.35 ns", "1.235 us", "123.5 ms", "2.000 s": four significant digits in
 * the largest unit that keeps the printed value >= 1 (the choice is made on
 * the rounded value, so 999.96 ns is "1.000 us"); "-" for NAN. Returns buf. */
char *ompb__format_ns(char *buf, size_t cap, double ns);

/* The shortest form for axis ticks: "10 us", "2 ms", "500 ns". Returns buf. */
char *ompb__format_ns_short(char *buf, size_t cap, double ns);

/* A fraction as a signed percentage: 0.0532 -> "+5.32%", NAN -> "-". */
char *ompb__format_change(char *buf, size_t cap, double change);

/* A speedup "1.67x" and an efficiency "83.3%" (from 0.833); "-" for NAN,
 * three significant digits from 10^9 up ("5e+301%"), so that a wild ratio
 * cannot print hundreds of digits. Return buf. */
char *ompb__format_speedup(char *buf, size_t cap, double speedup);
char *ompb__format_efficiency(char *buf, size_t cap, double efficiency);

/* Writes s for a terminal: control characters (escape sequences among them)
 * and DEL become "\xNN", so a name from a result file cannot move the cursor
 * or recolour the screen. Returns the columns written (UTF-8 sequences count
 * one each). */
size_t ompb__put_plain(FILE *out, const char *s);

/* The columns ompb__put_plain would write for s. */
size_t ompb__plain_width(const char *s);

/* Writes s as a markdown code span: the backtick fence is one longer than
 * the longest backtick run in s, padded with spaces where s starts or ends
 * with a backtick; control characters become "\xNN" as above. In a table
 * cell (in_table) '|' is escaped, which GFM honours inside code spans. */
void ompb__put_md_code(FILE *out, const char *s, bool in_table);

/* Markdown text outside code spans: as ompb__put_plain, and in a table cell
 * '|' escaped and line breaks turned into spaces. */
void ompb__put_md_text(FILE *out, const char *s, bool in_table);

/* A JSON number, or null for NAN and infinities (JSON has neither). New
 * reference. */
json_t *ompb__json_number_or_null(double v);

#endif
