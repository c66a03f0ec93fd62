/* SPDX-License-Identifier: MIT */
/*
 * Rendering a result file's JSON again: as JSON (the run's own dump
 * settings), as the run's CSV columns, or as a console table of the run's
 * figures. Each field is read where docs/json.md puts it; a field the file
 * lacks (a failed repetition's statistics, a region's switches) is an empty
 * CSV cell and a "-" on the console, never a made-up number.
 */
#include "analysis/convert.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/core.h"
#include "report/report.h"

/* Columns of a table: as many user counters as the run's CSV shows. */
#define USER_MAX 64
#define NAME_SHOWN 256

int ompb__convert_format_ok(const char *format)
{
    return strcmp(format, "console") == 0 || strcmp(format, "csv") == 0 ||
           strcmp(format, "json") == 0;
}

int ompb__convert_check(const json_t *root, const char *label, ompb_error *err)
{
    const json_t *list = json_object_get(root, "benchmarks");
    const json_t *ctx = json_object_get(root, "context");
    if (!json_is_object(root) || !json_is_array(list))
        return ompb__error_set(err, OMPB_EINVAL, "%s: not a result file (accepted: the JSON "
                               "of an ompbench or Google Benchmark run, an object with a "
                               "\"benchmarks\" array)", label);
    if (ctx && !json_is_object(ctx))
        return ompb__error_set(err, OMPB_EINVAL, "%s: \"context\" is not an object", label);
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e) {
        if (!json_is_object(e) || !json_is_string(json_object_get(e, "name")))
            return ompb__error_set(err, OMPB_EINVAL, "%s: benchmarks[%zu] is not an object "
                                   "with a string \"name\"", label, i);
    }
    return 0;
}

static const json_t *at(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(o, a);
    return b ? json_object_get(v, b) : v;
}

/* NAN for null, absent or not a number. */
static double num(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool is_iteration(const json_t *e)
{
    const json_t *rt = json_object_get(e, "run_type");
    return !json_is_string(rt) || strcmp(json_string_value(rt), "iteration") == 0;
}

/* ---- CSV: lib/report/csv.c's columns and cells -------------------------- */

/* Counts as the run writes them: every digit. */
static void put_int(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.0f", v);
    else
        fputc(',', out);
}

/* The user counters' names of every entry, first appearance first. */
typedef struct user_columns {
    const char *name[USER_MAX];
    size_t n;
} user_columns;

static void user_columns_of(const json_t *list, user_columns *c)
{
    size_t i;
    const json_t *e;
    c->n = 0;
    json_array_foreach(list, i, e) {
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)at(e, "ompbench", "user_counters"), key, v) {
            size_t j = 0;
            while (j < c->n && strcmp(c->name[j], key) != 0)
                j++;
            if (j == c->n && c->n < USER_MAX)
                c->name[c->n++] = key;
        }
    }
}

/* Whether any entry's rounds were accounted: the run's CSV then has the
 * clean columns, and the console a clean share. */
static bool run_accounted(const json_t *list)
{
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e) {
        if (json_object_get(json_object_get(e, "ompbench"), "clean_share"))
            return true;
    }
    return false;
}

/* The first entry's --counters events name the run's counter columns. */
static const json_t *run_events(const json_t *list)
{
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e) {
        const json_t *ev = at(at(e, "ompbench", "counters"), "events", NULL);
        if (json_is_array(ev))
            return ev;
    }
    return NULL;
}

static void csv_counter_fields(FILE *out, const json_t *omp, const json_t *events)
{
    const json_t *sw = json_object_get(omp, "involuntary_switches");
    if (json_is_array(sw)) {
        double sum = 0;
        for (size_t t = 0; t < json_array_size(sw); t++)
            sum += num(json_array_get(sw, t));
        fprintf(out, ",%.0f", sum);
    } else {
        fputc(',', out);
    }
    if (!events)
        return;
    const json_t *c = json_object_get(omp, "counters");
    const json_t *per = json_object_get(c, "per_iteration");
    for (size_t k = 0; k < json_array_size(events); k++)
        ompb__csv_put_number(out, num(json_object_get(per, json_string_value(json_array_get(events, k)))));
    fprintf(out, ",%d", c && json_is_true(json_object_get(c, "multiplexed")));
    const json_t *rws = json_object_get(c, "rounds_with_switches");
    fprintf(out, ",%.0f", json_is_number(rws) ? num(rws) : 0.0);
    ompb__csv_put_number(out, num(json_object_get(c, "ipc")));
    ompb__csv_put_number(out, num(json_object_get(c, "cache_miss_ratio")));
    ompb__csv_put_number(out, num(json_object_get(c, "branch_miss_ratio")));
}

static void csv_marks(FILE *out, const json_t *omp)
{
    const json_t *marks = json_object_get(omp, "marks");
    fputc(',', out);
    for (size_t i = 0; i < json_array_size(marks); i++)
        fprintf(out, "%s%s", i ? ";" : "", json_string_value(json_array_get(marks, i)));
}

static void csv_clean(FILE *out, const json_t *omp)
{
    ompb__csv_put_number(out, num(json_object_get(omp, "clean_share")));
    put_int(out, num(json_object_get(omp, "clean_rounds")));
    static const char *const keys[] = {"clean_median_ns", "clean_ci95_low_ns",
                                       "clean_ci95_high_ns"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        ompb__csv_put_number(out, num(json_object_get(omp, keys[k])));
}

static void csv_row(FILE *out, const json_t *e, const json_t *events, const user_columns *uc,
                    bool accounted)
{
    const json_t *omp = json_object_get(e, "ompbench"), *st = json_object_get(omp, "stats");
    const json_t *uri = json_object_get(omp, "uri"), *threads = json_object_get(omp, "threads");
    const json_t *region = json_object_get(omp, "region");
    ompb__csv_put_quoted(out, json_string_value(json_object_get(e, "name")));
    fputc(',', out);
    ompb__csv_put_quoted(out, json_is_string(uri) ? json_string_value(uri) : "");
    const double ints[] = {
        num(json_is_number(threads) ? threads : json_object_get(e, "threads")),
        num(json_object_get(e, "repetition_index")), num(json_object_get(omp, "process")),
        num(region ? json_object_get(region, "instances") : json_object_get(omp, "rounds")),
        num(json_object_get(omp, "sample_size"))};
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
        put_int(out, ints[k]);
    static const char *const stats[] = {"median_ns", "mean_ns", "stdev_ns", "min_ns", "max_ns",
                                        "q1_ns", "q3_ns", "ci95_low_ns", "ci95_high_ns"};
    for (size_t k = 0; k < sizeof stats / sizeof stats[0]; k++)
        ompb__csv_put_number(out, num(json_object_get(st, stats[k])));
    put_int(out, num(json_object_get(st, "iqr_outlier_rounds")));
    put_int(out, num(json_object_get(st, "stdev_outlier_rounds")));
    ompb__csv_put_number(out, num(json_object_get(st, "mean_skew_ns")));
    ompb__csv_put_number(out, num(json_object_get(st, "mean_imbalance")));
    bool failed = json_is_true(json_object_get(e, "error_occurred"));
    const json_t *bps = json_object_get(e, "bytes_per_second");
    const json_t *ips = json_object_get(e, "items_per_second");
    ompb__csv_put_number(out, failed ? NAN : bps ? num(bps) : 0.0);
    ompb__csv_put_number(out, failed ? NAN : ips ? num(ips) : 0.0);
    put_int(out, num(json_object_get(omp, "migrations")));
    fputc(',', out);
    const json_t *msg = json_object_get(e, "error_message");
    ompb__csv_put_quoted(out, failed && json_is_string(msg) ? json_string_value(msg) : "");
    csv_counter_fields(out, omp, events);
    csv_marks(out, omp);
    ompb__csv_put_number(out, num(json_object_get(omp, "cpu_share")));
    if (accounted)
        csv_clean(out, omp);
    for (size_t j = 0; j < uc->n; j++)
        ompb__csv_put_number(out, num(json_object_get(e, uc->name[j])));
    fputc('\n', out);
}

static int print_csv(FILE *out, const json_t *list)
{
    const json_t *events = run_events(list);
    user_columns uc;
    user_columns_of(list, &uc);
    fputs("name,uri,threads,repetition,process,rounds,sample_size,median_ns,mean_ns,stdev_ns,"
          "min_ns,max_ns,q1_ns,q3_ns,ci95_low_ns,ci95_high_ns,iqr_outliers,stdev_outliers,"
          "mean_skew_ns,mean_imbalance,bytes_per_second,items_per_second,migrations,error,"
          "involuntary_switches", out);
    for (size_t k = 0; events && k < json_array_size(events); k++)
        fprintf(out, ",%s_per_iter", json_string_value(json_array_get(events, k)));
    if (events)
        fputs(",counters_multiplexed,rounds_with_switches,ipc,cache_miss_ratio,"
              "branch_miss_ratio", out);
    fputs(",marks,cpu_share", out);
    bool accounted = run_accounted(list);
    if (accounted)
        fputs(",clean_share,clean_rounds,clean_median_ns,clean_ci95_low_ns,clean_ci95_high_ns",
              out);
    for (size_t j = 0; j < uc.n; j++)
        fprintf(out, ",%s", uc.name[j]);
    fputc('\n', out);
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e) {
        if (is_iteration(e))
            csv_row(out, e, events, &uc, accounted);
    }
    return ferror(out) ? OMPB_EIO : 0;
}

/* ---- Console: the run's columns, from the file's figures ---------------- */

static void duration(double ns, char *buf, size_t len)
{
    if (isfinite(ns))
        ompb__format_duration(ns, buf, len);
    else
        snprintf(buf, len, "-");
}

/* Four significant digits and an SI prefix: "12.35M". */
static void si(double v, const char *unit, char *buf, size_t len)
{
    static const char prefixes[] = " kMGTPE";
    size_t p = 0;
    if (!isfinite(v)) {
        snprintf(buf, len, "-");
        return;
    }
    while (fabs(v) >= 999.95 && p + 1 < sizeof prefixes - 1) {
        v /= 1000.0;
        p++;
    }
    if (p)
        snprintf(buf, len, "%.4g%c%s", v, prefixes[p], unit);
    else
        snprintf(buf, len, "%.4g%s", v, unit);
}

/* A name from the file as the console shows it: control characters (ESC,
 * BEL, DEL, C1) and invalid bytes escaped, as every other tool prints
 * names, so a hostile file cannot drive the terminal. */
static const char *shown(const char *name, char *buf, size_t len)
{
    ompb__utf8_escape_controls(name ? name : "?", buf, len);
    return buf;
}

static int cell_width(const char *name)
{
    char buf[NAME_SHOWN];
    int len = (int)strlen(shown(name, buf, sizeof buf));
    return len > 10 ? len : 10;
}

static void console_header(FILE *out, const json_t *root, int width, const json_t *events,
                           const user_columns *uc, bool accounted)
{
    const json_t *ctx = json_object_get(root, "context");
    const char *keys[] = {"executable", "date", "host_name"};
    fputs("converted from:", out);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const json_t *v = json_object_get(ctx, keys[k]);
        char shown[NAME_SHOWN];
        ompb__utf8_escape_controls(json_is_string(v) ? json_string_value(v) : "?", shown,
                                   sizeof shown);
        fprintf(out, " %s %s", keys[k], shown);
    }
    fputc('\n', out);
    fprintf(out, "%-*s %3s %11s %11s %7s %11s %11s %16s %6s  %-12s", width, "benchmark", "T",
            "median", "mean", "±stdev", "min", "max", "rounds x iters", "imbal", "rate");
    if (accounted)
        fputs(" clean", out);
    char buf[NAME_SHOWN];
    for (size_t k = 0; events && k < json_array_size(events); k++) {
        const char *ev = json_string_value(json_array_get(events, k));
        fprintf(out, " %*s", cell_width(ev), shown(ev, buf, sizeof buf));
    }
    for (size_t j = 0; j < uc->n; j++)
        fprintf(out, " %*s", cell_width(uc->name[j]), shown(uc->name[j], buf, sizeof buf));
    fputs(" marks\n", out);
}

static void console_user_cells(FILE *out, const json_t *e, const user_columns *uc)
{
    const json_t *user = at(e, "ompbench", "user_counters");
    for (size_t j = 0; j < uc->n; j++) {
        const json_t *flags = at(json_object_get(user, uc->name[j]), "flags", NULL);
        bool rate = false;
        for (size_t f = 0; f < json_array_size(flags); f++) {
            const char *word = json_string_value(json_array_get(flags, f));
            rate |= word && strcmp(word, "rate") == 0;
        }
        char cell[32];
        si(num(json_object_get(e, uc->name[j])), rate ? "/s" : "", cell, sizeof cell);
        fprintf(out, " %*s", cell_width(uc->name[j]), cell);
    }
}

static void console_row(FILE *out, const json_t *e, int width, const json_t *events,
                        const user_columns *uc, bool accounted)
{
    const json_t *omp = json_object_get(e, "ompbench"), *st = json_object_get(omp, "stats");
    char name[NAME_SHOWN];
    ompb__utf8_escape_controls(json_string_value(json_object_get(e, "name")), name, sizeof name);
    int threads = (int)num(json_object_get(e, "threads"));
    if (json_is_true(json_object_get(e, "error_occurred"))) {
        char msg[4 * NAME_SHOWN];
        const json_t *m = json_object_get(e, "error_message");
        ompb__utf8_escape_controls(json_is_string(m) ? json_string_value(m) : "", msg, sizeof msg);
        fprintf(out, "%-*s %3d  FAILED: %s\n", width, name, threads, msg);
        return;
    }
    char med[32], mean[32], mn[32], mx[32], spread[16] = "      -", iters[48] = "-";
    char imbal[16] = "     -", rate[40] = "";
    duration(num(json_object_get(st, "median_ns")), med, sizeof med);
    duration(num(json_object_get(st, "mean_ns")), mean, sizeof mean);
    duration(num(json_object_get(st, "min_ns")), mn, sizeof mn);
    duration(num(json_object_get(st, "max_ns")), mx, sizeof mx);
    double sd = num(json_object_get(st, "stdev_ns")), mu = num(json_object_get(st, "mean_ns"));
    if (isfinite(sd) && mu > 0)
        snprintf(spread, sizeof spread, "±%5.1f%%", 100.0 * sd / mu);
    const json_t *region = json_object_get(omp, "region");
    if (region)
        snprintf(iters, sizeof iters, "%.0f inst", num(json_object_get(region, "instances")));
    else if (omp)
        snprintf(iters, sizeof iters, "%.0f x %.0f", num(json_object_get(omp, "rounds")),
                 num(json_object_get(omp, "sample_size")));
    double im = num(json_object_get(st, "mean_imbalance"));
    if (isfinite(im))
        snprintf(imbal, sizeof imbal, "%6.2f", im);
    double bps = num(json_object_get(e, "bytes_per_second"));
    double ips = num(json_object_get(e, "items_per_second"));
    if (bps > 0)
        si(bps, "B/s", rate, sizeof rate);
    else if (ips > 0)
        si(ips, " items/s", rate, sizeof rate);
    fprintf(out, "%-*s %3d %11s %11s %s %11s %11s %16s %6s  %-12s", width, name, threads, med,
            mean, spread, mn, mx, iters, imbal, rate);
    if (accounted) {
        double share = num(json_object_get(omp, "clean_share"));
        if (isfinite(share))
            fprintf(out, " %4.0f%%", 100.0 * share);
        else
            fputs("     -", out);
    }
    const json_t *per = at(json_object_get(omp, "counters"), "per_iteration", NULL);
    for (size_t k = 0; events && k < json_array_size(events); k++) {
        char cell[32];
        const char *ev = json_string_value(json_array_get(events, k));
        si(num(json_object_get(per, ev ? ev : "")), "", cell, sizeof cell);
        fprintf(out, " %*s", cell_width(ev), cell);
    }
    console_user_cells(out, e, uc);
    const json_t *marks = json_object_get(omp, "marks");
    fputc(' ', out);
    char buf[NAME_SHOWN];
    for (size_t i = 0; i < json_array_size(marks); i++)
        fprintf(out, "%s%s", i ? "," : "",
                shown(json_string_value(json_array_get(marks, i)), buf, sizeof buf));
    fputs(json_array_size(marks) ? "\n" : "-\n", out);
}

static int print_console(FILE *out, const json_t *root)
{
    const json_t *list = json_object_get(root, "benchmarks");
    const json_t *events = run_events(list);
    user_columns uc;
    user_columns_of(list, &uc);
    int width = 24;
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e) {
        char name[NAME_SHOWN];
        int len = (int)ompb__utf8_escape_controls(json_string_value(json_object_get(e, "name")),
                                                  name, sizeof name);
        width = is_iteration(e) && len > width ? len : width;
    }
    bool accounted = run_accounted(list);
    console_header(out, root, width, events, &uc, accounted);
    json_array_foreach(list, i, e) {
        if (is_iteration(e))
            console_row(out, e, width, events, &uc, accounted);
    }
    return ferror(out) ? OMPB_EIO : 0;
}

int ompb__convert_print(FILE *out, const json_t *root, const char *format)
{
    if (strcmp(format, "json") == 0) {
        /* The run's own settings (lib/report/json.c): the same text again. */
        int bad = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 ||
                  fputc('\n', out) == EOF;
        return bad || ferror(out) ? OMPB_EIO : 0;
    }
    if (strcmp(format, "csv") == 0)
        return print_csv(out, json_object_get(root, "benchmarks"));
    return print_console(out, root);
}
