/* SPDX-License-Identifier: MIT */
/*
 * Human-readable times and changes for the analysis reports, and the other
 * pieces their formats share. Every report of `ompbench compare` and
 * `ompbench scaling` formats numbers and names here, so the console,
 * markdown, JSON and SVG outputs agree on units, precision and escaping.
 */
#include "analysis/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

/* Largest first: ompb__format_ns picks the first that keeps the value >= 1. */
static const struct time_unit {
    const char *name;
    double ns;
} units[] = {{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1.0}};

#define N_UNITS (sizeof units / sizeof units[0])

/* The report formats, in the enum's order; the first is the default. */
static const char *const format_names[OMPB__REPORT_FORMAT_COUNT] = {
    [OMPB__REPORT_CONSOLE] = "console",
    [OMPB__REPORT_MARKDOWN] = "markdown",
    [OMPB__REPORT_JSON] = "json",
};

int ompb__report_parse_format(const char *text, ompb__report_format *fmt)
{
    for (size_t i = 0; i < OMPB__REPORT_FORMAT_COUNT; i++)
        if (strcmp(text, format_names[i]) == 0) {
            *fmt = (ompb__report_format)i;
            return 0;
        }
    return OMPB_EINVAL;
}

/* The names joined by sep, the last by last; the default marked with mark. */
static const char *join_formats(char *text, size_t cap, const char *sep, const char *last,
                                const char *mark)
{
    size_t pos = 0;
    for (size_t i = 0; i < OMPB__REPORT_FORMAT_COUNT && pos < cap; i++)
        pos += (size_t)snprintf(text + pos, cap - pos, "%s%s%s",
                                !i ? "" : i + 1 < OMPB__REPORT_FORMAT_COUNT ? sep : last,
                                format_names[i], i ? "" : mark);
    return text;
}

const char *ompb__report_format_list(void)
{
    static char text[128];
    return join_formats(text, sizeof text, ", ", ", ", "");
}

const char *ompb__report_format_help(void)
{
    static char text[160];
    return join_formats(text, sizeof text, ", ", " or ", " (default)");
}

double ompb__unit_ns(const char *unit)
{
    for (size_t i = 0; i < N_UNITS; i++)
        if (strcmp(unit, units[i].name) == 0)
            return units[i].ns;
    return 0.0;
}

/* Index of the largest unit in which |ns| is at least 1 (ns for smaller). */
static size_t unit_for(double ns)
{
    size_t u = 0;
    while (u + 1 < N_UNITS && fabs(ns) < units[u].ns)
        u++;
    return u;
}

/* Decimals for four significant digits of v as printf rounds it: 9.99996
 * prints as "10.000" with three, so it gets two. 0 when the rounded value
 * reaches 1000, where a larger unit should take over. */
static int decimals_for(double v)
{
    char tmp[64];
    int d = 3;
    if (!(fabs(v) < 1000.0))
        return 0;
    for (double limit = 10.0; d > 0; d--, limit *= 10.0) {
        snprintf(tmp, sizeof tmp, "%.*f", d, fabs(v));
        if (strtod(tmp, NULL) < limit)
            break;
    }
    return d;
}

char *ompb__format_ns(char *buf, size_t cap, double ns)
{
    if (isnan(ns)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    size_t u = unit_for(ns);
    int d = decimals_for(ns / units[u].ns);
    if (d == 0 && u > 0)
        d = decimals_for(ns / units[--u].ns);
    double v = ns / units[u].ns;
    if (d > 0)
        snprintf(buf, cap, "%.*f %s", d, v, units[u].name);
    else /* thousands of seconds and more: no unit is larger */
        snprintf(buf, cap, fabs(v) < 1e9 ? "%.0f %s" : "%.4g %s", v, units[u].name);
    return buf;
}

char *ompb__format_ns_short(char *buf, size_t cap, double ns)
{
    size_t u = unit_for(ns);
    snprintf(buf, cap, "%g %s", ns / units[u].ns, units[u].name);
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

static char *format_ratio(char *buf, size_t cap, double v, int decimals, const char *suffix)
{
    if (isnan(v))
        snprintf(buf, cap, "-");
    else if (fabs(v) < 1e9)
        snprintf(buf, cap, "%.*f%s", decimals, v, suffix);
    else
        snprintf(buf, cap, "%.3g%s", v, suffix);
    return buf;
}

char *ompb__format_speedup(char *buf, size_t cap, double speedup)
{
    return format_ratio(buf, cap, speedup, 2, "x");
}

char *ompb__format_efficiency(char *buf, size_t cap, double efficiency)
{
    return format_ratio(buf, cap, efficiency * 100.0, 1, "%");
}

/* C0 controls, DEL, and the C1 controls U+0080..U+009F, which some
 * terminals obey in UTF-8 (0xC2 0x9B is a CSI): length of the control
 * sequence at s, 0 for anything printable. */
static size_t control_len(const unsigned char *s)
{
    if (*s < 0x20 || *s == 0x7f)
        return 1;
    return s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f ? 2 : 0;
}

static void put_hex(FILE *out, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "\\x%02X", s[i]);
}

size_t ompb__put_plain(FILE *out, const char *s)
{
    size_t cols = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = control_len(p);
        if (n) {
            put_hex(out, p, n);
            cols += 4 * n;
            p += n;
            continue;
        }
        fputc(*p, out);
        cols += (*p & 0xc0) != 0x80;
        p++;
    }
    return cols;
}

size_t ompb__plain_width(const char *s)
{
    size_t cols = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = control_len(p);
        cols += n ? 4 * n : (*p & 0xc0) != 0x80;
        p += n ? n : 1;
    }
    return cols;
}

/* Writes s with controls as "\xNN", '|' escaped in table cells and, when
 * spaces is set, tabs and line breaks as spaces. */
static void put_md(FILE *out, const char *s, bool in_table, bool spaces)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = control_len(p);
        if (spaces && (*p == '\n' || *p == '\r' || *p == '\t'))
            fputc(' ', out);
        else if (n)
            put_hex(out, p, n);
        else if (*p == '|' && in_table)
            fputs("\\|", out);
        else
            fputc(*p, out);
        p += n ? n : 1;
    }
}

static size_t longest_backtick_run(const char *s)
{
    size_t best = 0, run = 0;
    for (; *s; s++) {
        run = *s == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

void ompb__put_md_code(FILE *out, const char *s, bool in_table)
{
    size_t fence = longest_backtick_run(s) + 1, len = strlen(s);
    /* CommonMark strips one space from each end, so padding is invisible; it
     * keeps a leading or trailing backtick from joining the fence. */
    bool pad = len > 0 && (s[0] == '`' || s[len - 1] == '`');
    if (len == 0) {
        fputs("` `", out); /* "``" would be no code span at all */
        return;
    }
    for (size_t i = 0; i < fence; i++)
        fputc('`', out);
    if (pad)
        fputc(' ', out);
    put_md(out, s, in_table, false);
    if (pad)
        fputc(' ', out);
    for (size_t i = 0; i < fence; i++)
        fputc('`', out);
}

void ompb__put_md_text(FILE *out, const char *s, bool in_table)
{
    put_md(out, s, in_table, in_table);
}

json_t *ompb__json_number_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}
