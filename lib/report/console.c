/* SPDX-License-Identifier: MIT */
/*
 * The console report: the run header, then one row per instance with scaled
 * units, so a human can read a suite at a glance. Counters are shown as
 * rates of the whole team (bytes or items per second of round time). With
 * repetitions the row summarizes them and shows their spread next to the
 * median, the figure that says how far two runs may differ (when they ran
 * in several processes; the legend says which it is). The
 * involuntary switches and --counters add columns to both kinds of line
 * (lib/report/counters.c). Suspect rows get letters in a marks column, the
 * CPU share gets a column when it is low somewhere, and one legend line per
 * mark shown says what it means (lib/report/marks.c); both columns appear
 * only when something is marked, so a clean run reads as before.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "clock.h"
#include "report/marks.h"
#include "utf8.h"

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

/* Every mark some instance has. */
static unsigned shown_marks(const ompb__report *rep)
{
    unsigned m = 0;
    for (size_t i = 0; i < rep->n_instances; i++)
        m |= rep->instances[i].marks;
    return m;
}

/* The rate column is padded when other columns follow it, so that they
 * line up; else a line ends with the rate. */
static int rate_width(const ompb__report *rep)
{
    return ompb__console_counter_columns(rep) || shown_marks(rep) ? 14 : 0;
}

#define SHARE_WIDTH 9  /* "CPU share" */

static void marks_header(FILE *out, const ompb__report *rep)
{
    unsigned m = shown_marks(rep);
    if (m & OMPB__MARK_CPU_SHARE)
        fprintf(out, " %*s", SHARE_WIDTH, "CPU share");
    if (m)
        fprintf(out, " %s", "marks");
}

/* The CPU share (when its column is shown) and the row's mark letters. */
static void marks_cells(FILE *out, const ompb__report *rep, unsigned marks, double share)
{
    unsigned shown = shown_marks(rep);
    if (shown & OMPB__MARK_CPU_SHARE) {
        if (isnan(share))
            fprintf(out, " %*s", SHARE_WIDTH, "-");
        else
            fprintf(out, " %*.0f%%", SHARE_WIDTH - 1, 100.0 * share);
    }
    if (!shown)
        return;
    char letters[16] = "";
    size_t k = 0;
    for (size_t i = 0; i < ompb__n_mark_rows && k + 1 < sizeof letters; i++)
        if (marks & ompb__mark_rows[i].bit)
            letters[k++] = ompb__mark_rows[i].letter;
    letters[k] = '\0';
    fprintf(out, " %s", k ? letters : "-"); /* the last column: not padded */
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
static void print_row(FILE *out, int width, const ompb__report *rep,
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
            name, rec->threads, med, mean, spread, mn, mx, iters, imbal, rate_width(rep), rate);
    ompb__console_counter_cells(out, rep, &rec->counters, &res->counts);
    ompb__console_ucounter_cells(out, rep, &rec->ucounters, res->user);
    marks_cells(out, rep, res->marks, res->cpu_share);
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
static void print_instance(FILE *out, int width, const ompb__report *rep,
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
            ir->reps[0].rec.threads, med, spread, mean, mn, mx, counts, imbal, rate_width(rep),
            rate);
    ompb__console_counter_cells(out, rep, ir->counters, &ir->counts);
    ompb__console_ucounter_cells(out, rep, ir->ucounters, ir->user);
    marks_cells(out, rep, ir->marks, ir->cpu_share);
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
    if (rep->ctx)
        ompb__context_print_header(out, rep->ctx);
    if (!repeated(rep)) {
        fprintf(out, "%-*s %3s %11s %11s %7s %11s %11s %16s %6s  %-*s", width, "benchmark",
                "T", "median", "mean", "±stdev", "min", "max", "rounds x iters", "imbal",
                rate_width(rep), "rate");
        ompb__console_counter_header(out, rep);
    ompb__console_ucounter_header(out, rep);
        marks_header(out, rep);
        fputc('\n', out);
        for (size_t i = 0; i < rep->n_instances; i++)
            print_row(out, width, rep, rep->instances[i].reps);
        ompb__console_counter_notes(out, rep);
        marks_legend(out, rep);
        return ferror(out) ? OMPB_EIO : 0;
    }
    fprintf(out, "%-*s %3s %11s %7s %11s %11s %11s %20s %6s  %-*s", width, "benchmark", "T",
            "median", "±run", "mean", "min", "max", "reps x rounds x iters", "imbal",
            rate_width(rep), "rate");
    ompb__console_counter_header(out, rep);
    ompb__console_ucounter_header(out, rep);
    marks_header(out, rep);
    fputc('\n', out);
    for (size_t i = 0; i < rep->n_instances; i++)
        print_instance(out, width, rep, &rep->instances[i]);
    fprintf(out, "median: of the repetitions' medians; ±run: their stdev / mean (%s); mean, "
                 "min, max: over all rounds\n", spread_legend(rep));
    ompb__console_counter_notes(out, rep);
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
