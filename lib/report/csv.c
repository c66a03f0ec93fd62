/* SPDX-License-Identifier: MIT */
/*
 * CSV report: a header row, then one row per repetition of each instance
 * (one per instance without --repetitions), times in ns per iteration.
 * Names are quoted (they contain commas: "name[42, t=2]"). After the
 * statistics, one column per named figure the rows carry (involuntary
 * switches, counters, marks as codes joined by ';', CPU share, user
 * counters: lib/report/figure.h), in the order their places give.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/marks.h"

void ompb__csv_put_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* ",value", or "," alone for a value that does not exist (NaN: e.g. a
 * confidence interval too few rounds cannot give). The value is the
 * shortest of 15, 16 or 17 significant digits that reads back as the same
 * double: 0.1 stays 0.1, and DBL_MAX is not rounded above itself. */
void ompb__csv_put_number(FILE *out, double v)
{
    if (!isfinite(v)) {
        fputc(',', out);
        return;
    }
    char buf[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fprintf(out, ",%s", buf);
}

/* ",code;code": the marks in the table's order. */
static void put_marks(FILE *out, unsigned marks)
{
    const char *sep = "";
    fputc(',', out);
    for (size_t i = 0; i < ompb__n_mark_rows; i++) {
        if (!(marks & ompb__mark_rows[i].bit))
            continue;
        fprintf(out, "%s%s", sep, ompb__mark_rows[i].code);
        sep = ";";
    }
}

/* The figure columns: the ones every CSV has, then every figure a row
 * places in the CSV. */
static void csv_columns(const ompb__report *rep, ompb__figure_columns *c)
{
    ompb__figure_columns_clear(c);
    ompb__figure_columns_add(c, &rep->base, OMPB__FORMAT_CSV);
    for (size_t i = 0; i < rep->n; i++)
        ompb__figure_columns_add(c, &rep->results[i].figs, OMPB__FORMAT_CSV);
    ompb__figure_columns_sort(c, OMPB__FORMAT_CSV);
}

/* One cell: the row's figure of column c by the column's style, empty (or
 * 0, as the column says) when the row has none. */
static void put_figure(FILE *out, const ompb__figure *c, const ompb__figures *row)
{
    const ompb__figure *f = ompb__figure_find(row, c->key);
    if (!f)
        fputs(c->flags & OMPB__FIGURE_CSV_ZERO ? ",0" : ",", out);
    else if (c->style == OMPB__STYLE_MARKS)
        put_marks(out, isfinite(f->value) ? (unsigned)f->value : 0);
    else if ((c->style == OMPB__STYLE_INTEGER || c->style == OMPB__STYLE_FLAG) &&
             isfinite(f->value))
        fprintf(out, ",%" PRIu64, (uint64_t)f->value);
    else
        ompb__csv_put_number(out, f->value);
}

static int render_csv(FILE *out, const ompb__report *rep)
{
    const ompb__result *res = rep->results;
    size_t n = rep->n;
    ompb__figure_columns cols;
    csv_columns(rep, &cols);
    fputs("name,uri,threads,repetition,process,rounds,sample_size,median_ns,mean_ns,stdev_ns,min_ns,max_ns,"
          "q1_ns,q3_ns,ci95_low_ns,ci95_high_ns,iqr_outliers,stdev_outliers,mean_skew_ns,"
          "mean_imbalance,bytes_per_second,items_per_second,migrations,error", out);
    for (int j = 0; j < cols.n; j++)
        fprintf(out, ",%s", cols.col[j]->key);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        const ompb__record *rec = &res[i].rec;
        ompb__stats shown;
        const ompb__stats *st = ompb__result_shown_stats(&res[i], &shown);
        ompb__csv_put_quoted(out, rec->inst->name);
        fputc(',', out);
        ompb__csv_put_quoted(out, rec->inst->uri);
        fprintf(out, ",%d,%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64, rec->threads,
                rec->sampling.repetition, res[i].process, ompb__record_measurements(rec),
                rec->sample_size);
        const double stats[] = {st->median, st->mean, st->stdev, st->min, st->max,
                                st->q1, st->q3, st->ci_low, st->ci_high};
        for (size_t k = 0; k < sizeof stats / sizeof stats[0]; k++)
            ompb__csv_put_number(out, stats[k]);
        fprintf(out, ",%zu,%zu", st->iqr_outliers, st->stdev_outliers);
        const double spread[] = {res[i].mean_skew_ns, res[i].mean_imbalance,
                                 res[i].bytes_per_second, res[i].items_per_second};
        for (size_t k = 0; k < sizeof spread / sizeof spread[0]; k++)
            ompb__csv_put_number(out, spread[k]);
        fprintf(out, ",%" PRIu64 ",", rec->migrations);
        ompb__csv_put_quoted(out, rec->failed ? rec->error : "");
        for (int j = 0; j < cols.n; j++)
            put_figure(out, cols.col[j], &res[i].figs);
        fputc('\n', out);
    }
    return ferror(out) ? OMPB_EIO : 0;
}

/* Through the view: the marks are set when the summaries are made. */
static int write_csv(FILE *out, const ompb__report *given)
{
    ompb__report tmp;
    const ompb__report *rep = ompb__report_view(given, &tmp);
    int rc = rep ? render_csv(out, rep) : OMPB_ENOMEM;
    if (rep)
        ompb__report_view_release(rep, &tmp);
    return rc;
}

const ompb__reporter ompb__reporter_csv = {"csv", write_csv};
