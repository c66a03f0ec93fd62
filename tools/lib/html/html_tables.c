/* SPDX-License-Identifier: MIT */
/*
 * The tables of an instance of the HTML report: counters per thread and
 * fairness per thread, drawn from the entry's "ompbench.counters" and
 * "ompbench.fairness" (docs/json.md); and the two helpers the instance's
 * charts share with them.
 */
#include "html/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

double ompb__html_at(const json_t *a, size_t i)
{
    const json_t *v = json_array_get(a, i);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int ompb__html_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A counter's value in its unit: a time as a time ("12.48 ms"), a count
 * with four significant digits and an SI prefix ("1.248 M"). */
static char *counter_text(char *buf, size_t cap, double v, const char *unit)
{
    static const struct { double f; const char *p; } si[] = {
        {1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"}};
    if (unit && strcmp(unit, "ns") == 0)
        return ompb__format_ns(buf, cap, v);
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
        if (fabs(v) >= si[i].f * 0.99995) {
            snprintf(buf, cap, "%.4g%s", v / si[i].f, si[i].p);
            return buf;
        }
    snprintf(buf, cap, "%.4g", v);
    return buf;
}

void ompb__html_counters(FILE *out, json_t *counters, double sample_size)
{
    json_t *events = NULL, *values = NULL, *units = NULL;
    if (json_is_object(counters))
        (void)json_unpack(counters, "{s?o, s?o, s?o}", "events", &events, "values",
                          &values, "units", &units);
    size_t E = json_array_size(events), R = json_array_size(values);
    size_t T = json_array_size(json_array_get(values, 0));
    if (!E || !R || !T)
        return;
    double *col = malloc(R * sizeof *col);
    if (!col)
        return;
    fputs("<div class=\"scroll\"><table class=\"counters\"><caption>Counters per thread (median per iteration over "
          "the rounds)</caption><tr><th>thread</th>", out);
    for (size_t e = 0; e < E; e++) {
        const char *unit = json_string_value(json_array_get(units, e));
        fputs("<th>", out);
        ompb__html_text(out, json_string_value(json_array_get(events, e)));
        /* A time is printed with its unit in each cell. */
        if (unit && strcmp(unit, "ns") != 0) {
            fputs(" (", out);
            ompb__html_text(out, unit);
            fputs(")", out);
        }
        fputs("</th>", out);
    }
    fputs("</tr>", out);
    for (size_t t = 0; t < T; t++) {
        fprintf(out, "<tr><td>t%zu</td>", t);
        for (size_t e = 0; e < E; e++) {
            for (size_t r = 0; r < R; r++)
                col[r] = ompb__html_at(json_array_get(json_array_get(values, r), t), e);
            qsort(col, R, sizeof *col, ompb__html_cmp_double);
            const char *unit = json_string_value(json_array_get(units, e));
            char v[OMPB__UNIT_TEXT_MAX];
            fprintf(out, "<td>%s</td>", counter_text(v, sizeof v, col[R / 2] / sample_size,
                                                     unit));
        }
        fputs("</tr>", out);
    }
    fputs("</table></div>", out);
    free(col);
}

void ompb__html_fairness(FILE *out, json_t *fairness)
{
    json_t *mean = NULL, *median = NULL, *cv = NULL, *share = NULL;
    if (json_is_object(fairness))
        (void)json_unpack(fairness, "{s?o, s?o, s?o, s?o}", "busy_mean_ns", &mean,
                          "busy_median_ns", &median, "busy_cv", &cv, "slowest_share", &share);
    size_t T = json_array_size(mean);
    if (T < 2 || json_array_size(median) != T || json_array_size(cv) != T
        || json_array_size(share) != T)
        return; /* one thread is always the slowest: nothing to show */
    fputs("<table class=\"fairness\"><caption>Fairness per thread</caption><tr><th>thread"
          "</th><th>busy mean</th><th>median</th><th>CV</th><th>slowest</th></tr>", out);
    for (size_t t = 0; t < T; t++) {
        char a[OMPB__UNIT_TEXT_MAX], b[OMPB__UNIT_TEXT_MAX];
        double c = ompb__html_at(cv, t);
        fprintf(out, "<tr><td>t%zu</td><td>%s</td><td>%s</td>", t,
                ompb__format_ns(a, sizeof a, ompb__html_at(mean, t)),
                ompb__format_ns(b, sizeof b, ompb__html_at(median, t)));
        if (isnan(c))
            fputs("<td>-</td>", out);
        else
            fprintf(out, "<td>%.3g</td>", c);
        fprintf(out, "<td>%.0f%%</td></tr>", 100.0 * ompb__html_at(share, t));
    }
    fputs("</table>", out);
}
