/* SPDX-License-Identifier: MIT */
/*
 * The console report: the run header, then one row per instance with scaled
 * units, so a human can read a suite at a glance. Counters are shown as
 * rates of the whole team (bytes or items per second of round time).
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "clock.h"

#define MIN_NAME_WIDTH 24

static void format_rate(double per_second, const char *unit, char *buf, size_t len)
{
    static const char *prefixes[] = {"", "K", "M", "G", "T", "P"};
    size_t p = 0;
    double v = per_second;
    double base = strcmp(unit, "B") == 0 ? 1024.0 : 1000.0;
    while (v >= base && p + 1 < sizeof prefixes / sizeof prefixes[0]) {
        v /= base;
        p++;
    }
    snprintf(buf, len, "%.4g %s%s%s/s", v, prefixes[p], p && base == 1024.0 ? "i" : "", unit);
}

static void print_row(FILE *out, int width, const ompb__report *rep, const ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    const ompb__stats *st = &res->stats;
    if (rec->failed) {
        fprintf(out, "%-*s %3d  FAILED: %s\n", width, rec->inst->name, rec->threads, rec->error);
        return;
    }
    char med[32], mean[32], mn[32], mx[32], iters[48], rate[40] = "";
    ompb__format_duration(st->median, med, sizeof med);
    ompb__format_duration(st->mean, mean, sizeof mean);
    ompb__format_duration(st->min, mn, sizeof mn);
    ompb__format_duration(st->max, mx, sizeof mx);
    snprintf(iters, sizeof iters, "%zu x %" PRIu64, rec->rounds, rec->sample_size);
    if (res->bytes_per_second > 0)
        format_rate(res->bytes_per_second, "B", rate, sizeof rate);
    else if (res->items_per_second > 0)
        format_rate(res->items_per_second, "items", rate, sizeof rate);
    double rel = st->mean > 0 ? 100.0 * st->stdev / st->mean : 0;
    /* A caller team's threads are the code's: the harness has no imbalance. */
    char imbal[16] = "     -";
    if (!isnan(res->mean_imbalance))
        snprintf(imbal, sizeof imbal, "%6.2f", res->mean_imbalance);
    fprintf(out, "%-*s %3d %11s %11s ±%5.1f%% %11s %11s %16s %6s  %-14s", width,
            rec->inst->name, rec->threads, med, mean, rel, mn, mx, iters, imbal, rate);
    ompb__console_counter_cells(out, rep, res);
    fputc('\n', out);
}

static int write_console(FILE *out, const ompb__report *rep)
{
    const ompb__result *res = rep->results;
    size_t n = rep->n;
    int width = MIN_NAME_WIDTH;
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen(res[i].rec.inst->name);
        width = len > width ? len : width;
    }
    if (rep->ctx)
        ompb__context_print_header(out, rep->ctx);
    fprintf(out, "%-*s %3s %11s %11s %7s %11s %11s %16s %6s  %-14s", width, "benchmark", "T",
            "median", "mean", "±stdev", "min", "max", "rounds x iters", "imbal", "rate");
    ompb__console_counter_header(out, rep);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++)
        print_row(out, width, rep, &res[i]);
    ompb__console_counter_notes(out, rep);
    return ferror(out) ? OMPB_EIO : 0;
}

const ompb__reporter ompb__reporter_console = {"console", write_console};
