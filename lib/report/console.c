/* SPDX-License-Identifier: MIT */
/*
 * The console report: the run header, then one row per instance with scaled
 * units, so a human can read a suite at a glance. Counters are shown as
 * rates of the whole team (bytes or items per second of round time). With
 * repetitions the row summarizes them and shows their spread next to the
 * median, the figure that says how far two runs may differ (when they ran
 * in several processes; the legend says which it is). Every other figure
 * (involuntary switches, --counters, user counters, the CPU share and the
 * marks) is a column the rows' named figures make (lib/report/figure.h):
 * printed by its style, "-" where a row has none, with the notes the
 * analysis wrote under the table. One legend line per mark shown says what
 * it means (lib/report/marks.c); a clean run has no marks column.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "report/marks.h"

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

static void print_rate(char *rate, size_t len, double bytes, double items)
{
    if (bytes > 0)
        format_rate(bytes, "B", rate, len);
    else if (items > 0)
        format_rate(items, "items", rate, len);
}

/* Names come from the benchmark's code: control characters in them are
 * shown escaped, never sent to the terminal. */
#define SHOWN_NAME_MAX (4 * OMPB__NAME_MAX)

static int shown_name(const ompb__record *rec, char *buf)
{
    return (int)ompb__utf8_escape_controls(rec->inst->name, buf, SHOWN_NAME_MAX);
}

/* A caller team's threads are the code's: the harness has no imbalance. */
static void format_imbalance(double imbalance, char *buf, size_t len)
{
    if (isnan(imbalance))
        snprintf(buf, len, "     -");
    else
        snprintf(buf, len, "%6.2f", imbalance);
}

/* ---- figure columns ---------------------------------------------------------- */

/* The figure columns: every figure any row (a repetition or an instance)
 * places on the console. */
static void console_columns(const ompb__report *rep, ompb__figure_columns *c)
{
    ompb__figure_columns_clear(c);
    for (size_t i = 0; i < rep->n; i++)
        ompb__figure_columns_add(c, &rep->results[i].figs, OMPB__FORMAT_CONSOLE);
    for (size_t i = 0; i < rep->n_instances; i++)
        ompb__figure_columns_add(c, &rep->instances[i].figs, OMPB__FORMAT_CONSOLE);
    ompb__figure_columns_sort(c, OMPB__FORMAT_CONSOLE);
}

/* The rate column is padded when columns that line up with it follow, so
 * that they do; else a line ends with the rate. */
static int rate_width(const ompb__figure_columns *c)
{
    for (int j = 0; j < c->n; j++)
        if (c->col[j]->flags & OMPB__FIGURE_ALIGNS_RATE)
            return 14;
    return 0;
}

/* A label is a counter's or a user counter's name: a run validated them,
 * a result file read back may hold anything, so they are shown escaped. */
static void figure_header(FILE *out, const ompb__figure_columns *c)
{
    for (int j = 0; j < c->n; j++) {
        char label[4 * OMPB__FIGURE_LABEL_MAX];
        ompb__utf8_escape_controls(c->col[j]->label, label, sizeof label);
        fprintf(out, " %*s", c->col[j]->width, label);
    }
}

/* "1.234k", "56.7M": four significant digits with an SI prefix from 1000 on. */
static void format_count(double v, char *buf, size_t len)
{
    static const char *prefixes[] = {"", "k", "M", "G", "T", "P"};
    size_t p = 0;
    while (fabs(v) >= 1000 && p + 1 < sizeof prefixes / sizeof prefixes[0]) {
        v /= 1000;
        p++;
    }
    snprintf(buf, len, "%.4g%s", v, prefixes[p]);
}

/* Four significant digits and an SI prefix from 999.95 on (where "%.4g"
 * would round to 1000), then the unit: "12.35M/s". */
static void format_si(double v, const char *unit, char *buf, size_t len)
{
    static const char prefixes[] = " kMGTPE";
    size_t p = 0;
    while (fabs(v) >= 999.95 && p + 1 < sizeof prefixes - 1) {
        v /= 1000.0;
        p++;
    }
    if (p)
        snprintf(buf, len, "%.4g%c%s", v, prefixes[p], unit);
    else
        snprintf(buf, len, "%.4g%s", v, unit);
}

/* The letters of the marks, in the table's order. */
static void format_marks(unsigned marks, char *buf, size_t len)
{
    size_t k = 0;
    for (size_t i = 0; i < ompb__n_mark_rows && k + 1 < len; i++)
        if (marks & ompb__mark_rows[i].bit)
            buf[k++] = ompb__mark_rows[i].letter;
    buf[k] = '\0';
}

/* A value as column c shows it; "-" for one that does not exist (or no
 * mark). */
static void format_cell(const ompb__figure *c, double v, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!isfinite(v))
        buf[0] = '\0';
    else if (c->style == OMPB__STYLE_INTEGER || c->style == OMPB__STYLE_FLAG)
        snprintf(buf, len, "%" PRIu64, (uint64_t)v);
    else if (c->style == OMPB__STYLE_COUNT)
        format_count(v, buf, len);
    else if (c->style == OMPB__STYLE_DURATION)
        ompb__format_duration(v, buf, len);
    else if (c->style == OMPB__STYLE_RATIO)
        snprintf(buf, len, "%.2f", v);
    else if (c->style == OMPB__STYLE_SI)
        format_si(v, c->unit, buf, len);
    else if (c->style == OMPB__STYLE_SHARE)
        snprintf(buf, len, "%.0f%%", 100.0 * v);
    else if (c->style == OMPB__STYLE_MARKS)
        format_marks((unsigned)v, buf, len);
    if (!buf[0])
        snprintf(buf, len, "-");
}

/* A row's cells: its figure of each column (the column says how it
 * prints), "-" where it has none. */
static void figure_cells(FILE *out, const ompb__figure_columns *c, const ompb__figures *row)
{
    for (int j = 0; j < c->n; j++) {
        const ompb__figure *f = ompb__figure_find(row, c->col[j]->key);
        char cell[64];
        format_cell(c->col[j], f ? f->value : NAN, cell, sizeof cell - 1);
        if (f && (f->flags & OMPB__FIGURE_STARRED) && strcmp(cell, "-") != 0)
            strcat(cell, "*");
        fprintf(out, " %*s", c->col[j]->width, cell);
    }
}

/* Every mark some instance has. */
static unsigned shown_marks(const ompb__report *rep)
{
    unsigned m = 0;
    for (size_t i = 0; i < rep->n_instances; i++)
        m |= rep->instances[i].marks;
    return m;
}

/* One line per mark shown, then why each short repetition stopped early. */
static void marks_legend(FILE *out, const ompb__report *rep)
{
    unsigned shown = shown_marks(rep);
    for (size_t i = 0; i < ompb__n_mark_rows; i++)
        if (shown & ompb__mark_rows[i].bit)
            fprintf(out, "%c %s: %s\n", ompb__mark_rows[i].letter, ompb__mark_rows[i].code,
                    ompb__mark_rows[i].legend);
    for (size_t i = 0; i < rep->n; i++) {
        const ompb__record *rec = &rep->results[i].rec;
        if (rec->failed || !rec->short_reason[0])
            continue;
        char name[SHOWN_NAME_MAX], why[4 * sizeof rec->short_reason];
        shown_name(rec, name);
        ompb__utf8_escape_controls(rec->short_reason, why, sizeof why);
        fprintf(out, "%s", name);
        if (rec->sampling.repetitions > 1)
            fprintf(out, " (repetition %u)", rec->sampling.repetition + 1);
        fprintf(out, ": %zu of %" PRIu64 " rounds: %s\n", rec->rounds, rec->sampling.rounds, why);
    }
}

/* One repetition: the spread column is the rounds' stdev / mean. */
static void print_row(FILE *out, int width, const ompb__figure_columns *cols,
                      const ompb__result *res)
{
    const ompb__record *rec = &res->rec;
    ompb__stats shown;
    const ompb__stats *st = ompb__result_shown_stats(res, &shown);
    char name[SHOWN_NAME_MAX];
    shown_name(rec, name);
    if (rec->failed) {
        char error[4 * sizeof rec->error];
        ompb__utf8_escape_controls(rec->error, error, sizeof error);
        fprintf(out, "%-*s %3d  FAILED: %s\n", width, name, rec->threads, error);
        return;
    }
    char med[32], mean[32], mn[32], mx[32], iters[48], rate[40] = "";
    ompb__format_duration(st->median, med, sizeof med);
    ompb__format_duration(st->mean, mean, sizeof mean);
    ompb__format_duration(st->min, mn, sizeof mn);
    ompb__format_duration(st->max, mx, sizeof mx);
    if (rec->region)
        snprintf(iters, sizeof iters, "%" PRIu64 " inst", rec->region->instances);
    else
        snprintf(iters, sizeof iters, "%zu x %" PRIu64, rec->rounds, rec->sample_size);
    print_rate(rate, sizeof rate, res->bytes_per_second, res->items_per_second);
    /* One value (a region instance seen once) has no spread: "-". */
    char spread[16] = "      -";
    if (!isnan(st->stdev))
        snprintf(spread, sizeof spread, "±%5.1f%%",
                 st->mean > 0 ? 100.0 * st->stdev / st->mean : 0.0);
    char imbal[16];
    format_imbalance(res->mean_imbalance, imbal, sizeof imbal);
    fprintf(out, "%-*s %3d %11s %11s %s %11s %11s %16s %6s  %-*s", width,
            name, rec->threads, med, mean, spread, mn, mx, iters, imbal, rate_width(cols), rate);
    figure_cells(out, cols, &res->figs);
    fputc('\n', out);
}

/* "5 x 20 x 1000": repetitions x rounds each x iterations per round; "~"
 * when the repetitions measured different counts (their own processes
 * calibrated, or a budget ran out). */
static void rep_counts(const ompb__instance_result *ir, char *buf, size_t len)
{
    const ompb__record *first = &ir->reps[0].rec;
    bool same = true;
    for (size_t i = 1; i < ir->n_reps; i++)
        same &= ir->reps[i].rec.rounds == first->rounds &&
                ir->reps[i].rec.sample_size == first->sample_size;
    snprintf(buf, len, "%s%zu x %zu x %" PRIu64, same ? "" : "~", ir->n_reps, first->rounds,
             first->sample_size);
}

/* Whether the repetitions of an instance ran in more than one process. */
static bool spans_processes(const ompb__instance_result *ir)
{
    for (size_t i = 1; i < ir->n_reps; i++)
        if (ir->reps[i].process != ir->reps[0].process)
            return true;
    return false;
}

/* What the ±run column is: between processes when every repeated instance
 * ran in several, within one process when none did (which understates what
 * a new run sees: docs/methodology.md), and says so when it is mixed. */
static const char *spread_legend(const ompb__report *rep)
{
    size_t spanning = 0, repeated_n = 0;
    for (size_t i = 0; i < rep->n_instances; i++) {
        const ompb__instance_result *ir = &rep->instances[i];
        if (ir->failure || ir->n_reps < 2)
            continue;
        repeated_n++;
        spanning += spans_processes(ir);
    }
    if (repeated_n > 0 && spanning == repeated_n)
        return "run-to-run spread, between processes";
    if (spanning == 0)
        return "within-process spread: all repetitions ran in one process, which understates "
               "the spread between runs (--processes P measures that)";
    return "between processes where the repetitions ran in several, else within one process, "
           "which understates the spread between runs";
}

/* Several repetitions: the median of their medians, and the run-to-run
 * spread (stdev / mean of those medians) next to it; mean, min and max
 * over every round. */
static void print_instance(FILE *out, int width, const ompb__figure_columns *cols,
                           const ompb__instance_result *ir)
{
    char name[SHOWN_NAME_MAX];
    ompb__utf8_escape_controls(ir->inst->name, name, SHOWN_NAME_MAX);
    if (ir->failure) {
        char error[4 * sizeof ir->failure->rec.error];
        ompb__utf8_escape_controls(ir->failure->rec.error, error, sizeof error);
        fprintf(out, "%-*s %3d  FAILED (repetition %u): %s\n", width, name,
                ir->failure->rec.threads, ir->failure->rec.sampling.repetition + 1, error);
        return;
    }
    char med[32], mean[32], mn[32], mx[32], counts[64], spread[16], imbal[16], rate[40] = "";
    ompb__format_duration(ir->median_ns, med, sizeof med);
    ompb__format_duration(ir->pooled.mean, mean, sizeof mean);
    ompb__format_duration(ir->pooled.min, mn, sizeof mn);
    ompb__format_duration(ir->pooled.max, mx, sizeof mx);
    rep_counts(ir, counts, sizeof counts);
    if (isnan(ir->rep_cv))
        snprintf(spread, sizeof spread, "      ?");
    else
        snprintf(spread, sizeof spread, "±%5.1f%%", 100.0 * ir->rep_cv);
    print_rate(rate, sizeof rate, ir->bytes_per_second, ir->items_per_second);
    format_imbalance(ir->mean_imbalance, imbal, sizeof imbal);
    fprintf(out, "%-*s %3d %11s %s %11s %11s %11s %20s %6s  %-*s", width, name,
            ir->reps[0].rec.threads, med, spread, mean, mn, mx, counts, imbal, rate_width(cols),
            rate);
    figure_cells(out, cols, &ir->figs);
    fputc('\n', out);
}

static bool repeated(const ompb__report *rep)
{
    for (size_t i = 0; i < rep->n_instances; i++)
        if (rep->instances[i].n_reps > 1)
            return true;
    return false;
}

static int render_console(FILE *out, const ompb__report *rep)
{
    int width = MIN_NAME_WIDTH;
    for (size_t i = 0; i < rep->n_instances; i++) {
        char name[SHOWN_NAME_MAX];
        int len = (int)ompb__utf8_escape_controls(rep->instances[i].inst->name, name,
                                                  SHOWN_NAME_MAX);
        width = len > width ? len : width;
    }
    ompb__figure_columns cols;
    console_columns(rep, &cols);
    if (rep->ctx)
        ompb__context_print_header(out, rep->ctx);
    if (!repeated(rep)) {
        fprintf(out, "%-*s %3s %11s %11s %7s %11s %11s %16s %6s  %-*s", width, "benchmark",
                "T", "median", "mean", "±stdev", "min", "max", "rounds x iters", "imbal",
                rate_width(&cols), "rate");
        figure_header(out, &cols);
        fputc('\n', out);
        for (size_t i = 0; i < rep->n_instances; i++)
            print_row(out, width, &cols, rep->instances[i].reps);
    } else {
        fprintf(out, "%-*s %3s %11s %7s %11s %11s %11s %20s %6s  %-*s", width, "benchmark",
                "T", "median", "±run", "mean", "min", "max", "reps x rounds x iters", "imbal",
                rate_width(&cols), "rate");
        figure_header(out, &cols);
        fputc('\n', out);
        for (size_t i = 0; i < rep->n_instances; i++)
            print_instance(out, width, &cols, &rep->instances[i]);
        fprintf(out, "median: of the repetitions' medians; ±run: their stdev / mean (%s); "
                     "mean, min, max: over all rounds\n", spread_legend(rep));
    }
    fputs(rep->notes, out);
    marks_legend(out, rep);
    return ferror(out) ? OMPB_EIO : 0;
}

static int write_console(FILE *out, const ompb__report *given)
{
    ompb__report tmp;
    const ompb__report *rep = ompb__report_view(given, &tmp);
    int rc = rep ? render_console(out, rep) : OMPB_ENOMEM;
    if (rep)
        ompb__report_view_release(rep, &tmp);
    return rc;
}

const ompb__reporter ompb__reporter_console = {"console", write_console};
