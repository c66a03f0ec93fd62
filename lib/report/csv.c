/* SPDX-License-Identifier: MIT */
/*
 * CSV report: a header row, then one row per repetition of each instance
 * (one per instance without --repetitions), times in ns per iteration.
 * Names are quoted (they contain commas: "name[42, t=2]"). The last two
 * columns are the repetition's marks (codes joined by ';', empty when none)
 * and its CPU share.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>

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
 * confidence interval too few rounds cannot give). */
void ompb__csv_put_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.10g", v);
    else
        fputc(',', out);
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

static int render_csv(FILE *out, const ompb__report *rep)
{
    const ompb__result *res = rep->results;
    size_t n = rep->n;
    fputs("name,uri,threads,repetition,process,rounds,sample_size,median_ns,mean_ns,stdev_ns,min_ns,max_ns,"
          "q1_ns,q3_ns,ci95_low_ns,ci95_high_ns,iqr_outliers,stdev_outliers,mean_skew_ns,"
          "mean_imbalance,bytes_per_second,items_per_second,migrations,error", out);
    ompb__csv_counter_header(out, rep);
    fputs(",marks,cpu_share", out);
    ompb__csv_ucounter_header(out, rep);
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
        ompb__csv_counter_fields(out, rep, &res[i]);
        put_marks(out, res[i].marks);
        ompb__csv_put_number(out, res[i].cpu_share);
        ompb__csv_ucounter_fields(out, rep, &res[i]);
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
