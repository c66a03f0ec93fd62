/* SPDX-License-Identifier: MIT */
/*
 * Strong-scaling tables. Instances whose names differ only in the thread
 * count are one benchmark family; speedup and parallel efficiency are taken
 * against the family's smallest thread count, which need not be 1 (a
 * benchmark declared with OMPB_THREADS(2, 4) is judged against 2 threads).
 * The SVG rendering of the same data is in scaling_svg.c.
 */
#include "analysis/scaling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/error.h>

#include "analysis/nameindex.h"
#include "analysis/units.h"
#include "grow.h"

/* ---- families ------------------------------------------------------------ */

static size_t digits_back(const char *s, size_t end)
{
    size_t i = end;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    return end - i;
}

static bool ends_with(const char *s, size_t end, const char *suffix)
{
    size_t n = strlen(suffix);
    return end >= n && memcmp(s + end - n, suffix, n) == 0;
}

/* Length of name[0..len) with the last argument "KEY=N" of "name[..., KEY=N]"
 * cut out (len when there is none); *value = N; *keep_bracket tells whether
 * "]" must be put back. */
static size_t arg_cut(const char *name, size_t len, const char *key, bool *keep_bracket,
                      long *value)
{
    size_t d, k = strlen(key);
    *keep_bracket = false;
    if (len < 2 || name[len - 1] != ']' || (d = digits_back(name, len - 1)) == 0 || d > 9 ||
        !ends_with(name, len - 1 - d, key))
        return len;
    *value = strtol(name + len - 1 - d, NULL, 10);
    size_t at = len - 1 - d - k; /* index of KEY */
    if (at > 0 && name[at - 1] == '[')
        return at - 1;
    size_t cut = at;
    while (cut > 0 && name[cut - 1] == ' ')
        cut--;
    if (cut == 0 || name[cut - 1] != ',')
        return len;
    *keep_bracket = true;
    return cut - 1;
}

/* The family of an instance: its name without a trailing "/threads:N", or
 * without the "t=N" argument and then the "r=R" of a distributed run
 * (name[r=2, t=4]: a family scales over ranks x threads); *ranks = R, or 1. */
static char *family_of(const char *name, long *ranks)
{
    size_t len = strlen(name), d;
    long value = 1;
    bool bracket = false;
    *ranks = 1;
    char *f = malloc(len + 2);
    if (!f)
        return NULL;
    if ((d = digits_back(name, len)) > 0 && ends_with(name, len - d, "/threads:")) {
        len -= d + strlen("/threads:");
    } else {
        len = arg_cut(name, len, "t=", &bracket, &value);
    }
    memcpy(f, name, len);
    if (bracket)
        f[len++] = ']';
    f[len] = '\0';
    size_t cut = arg_cut(f, len, "r=", &bracket, ranks);
    if (cut < len) {
        if (bracket)
            f[cut++] = ']';
        f[cut] = '\0';
    }
    return f;
}

char *ompb__scaling_family_name(const char *instance_name)
{
    long ranks;
    return family_of(instance_name, &ranks);
}

void ompb__scaling_point_fill(ompb__scaling_point *pt, const ompb__scaling_point *base)
{
    pt->speedup = pt->median_ns > 0.0 ? base->median_ns / pt->median_ns : NAN;
    pt->efficiency = pt->speedup * (double)base->threads / (double)pt->threads;
}

/* Families by name (family names are malloc'd once: stable keys). */
static ompb__scaling_family *find_family(ompb__scaling *s, const ompb__name_index *ix,
                                         const char *name)
{
    size_t i;
    return ompb__name_index_get(ix, name, &i) ? &s->families[i] : NULL;
}

static int add_point(ompb__scaling *s, ompb__name_index *ix, char *family,
                     const ompb__rf_instance *in, int width)
{
    ompb__scaling_family *f = find_family(s, ix, family);
    if (f) {
        free(family);
    } else {
        if (!ompb__grow((void **)&s->families, &s->cap, s->n + 1, sizeof *s->families, 16)
            || ompb__name_index_put(ix, family, s->n) != 0) {
            free(family);
            return OMPB_ENOMEM;
        }
        f = memset(&s->families[s->n++], 0, sizeof *f);
        f->name = family;
    }
    for (size_t i = 0; i < f->n; i++)
        if (f->points[i].threads == width)
            return 0; /* the same width twice: the first entry stands */
    if (!ompb__grow((void **)&f->points, &f->cap, f->n + 1, sizeof *f->points, 8))
        return OMPB_ENOMEM;
    f->points[f->n++] = (ompb__scaling_point){width, in->value_ns, NAN, NAN, in->imbalance};
    return 0;
}

static int cmp_points(const void *a, const void *b)
{
    return ((const ompb__scaling_point *)a)->threads -
           ((const ompb__scaling_point *)b)->threads;
}

/* Sorts each family, fills speedups and drops single-width families. */
static void settle(ompb__scaling *s)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->n; i++) {
        ompb__scaling_family *f = &s->families[i];
        if (f->n < 2) {
            s->single++;
            free(f->name);
            free(f->points);
            continue;
        }
        qsort(f->points, f->n, sizeof *f->points, cmp_points);
        for (size_t k = 0; k < f->n; k++)
            ompb__scaling_point_fill(&f->points[k], &f->points[0]);
        s->families[kept++] = *f;
    }
    s->n = kept;
}

int ompb__scaling_build(const ompb__resultfile *rf, ompb__scaling *out)
{
    ompb__name_index ix = {0};
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < rf->n; i++) {
        const ompb__rf_instance *in = &rf->inst[i];
        if (in->failed || in->threads <= 0)
            continue;
        long ranks;
        char *family = family_of(in->name, &ranks);
        /* A distributed run's width: all the threads of all the ranks. */
        long width = (long)in->threads * (ranks > 0 ? ranks : 1);
        int rc = family ? add_point(out, &ix, family, in, width > INT32_MAX ? INT32_MAX : (int)width)
                        : OMPB_ENOMEM;
        if (rc) {
            ompb__name_index_free(&ix);
            ompb__scaling_free(out);
            return rc;
        }
    }
    ompb__name_index_free(&ix);
    settle(out);
    return 0;
}

void ompb__scaling_set_metric(ompb__scaling *s, const char *metric, ompb__metric_unit unit)
{
    if (ompb__metric_is_time(metric))
        return;
    for (size_t i = 0; i < s->n; i++) {
        ompb__scaling_family *f = &s->families[i];
        double base = f->points[0].median_ns;
        f->metric = metric;
        f->unit = unit;
        for (size_t k = 0; k < f->n; k++) {
            double v = f->points[k].median_ns;
            f->points[k].speedup = base > 0.0 ? v / base : NAN;
            f->points[k].efficiency = v > 0.0 ? base / v : NAN;
        }
    }
}

void ompb__scaling_free(ompb__scaling *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->families[i].name);
        free(s->families[i].points);
    }
    free(s->families);
    memset(s, 0, sizeof *s);
}

/* ---- tables -------------------------------------------------------------- */

static void imbalance_text(char *buf, size_t cap, double imbalance)
{
    if (isnan(imbalance))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.3f", imbalance);
}

/* Family names come from result files: escaped for the terminal. */
/* Column titles and a point's value: time, or the --metric. */
static const char *value_title(const ompb__scaling_family *f)
{
    return f->metric ? f->metric : "median";
}

static char *value_text(const ompb__scaling_family *f, char *buf, size_t cap, double v)
{
    return f->metric ? ompb__format_metric(buf, cap, v, f->unit) : ompb__format_ns(buf, cap, v);
}

static void print_console_family(FILE *out, const ompb__scaling_family *f)
{
    ompb__put_plain(out, f->name);
    fprintf(out, " (against %d thread%s%s%s)\n", f->points[0].threads,
            f->points[0].threads == 1 ? "" : "s", f->metric ? "; per iteration, team sum of " : "",
            f->metric ? f->metric : "");
    fprintf(out, "%8s  %12s  %8s  %10s  %9s\n", "threads", value_title(f),
            f->metric ? "ratio" : "speedup", f->metric ? "work eff." : "efficiency",
            "imbalance");
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *p = &f->points[i];
        char t[OMPB__UNIT_TEXT_MAX], imb[OMPB__UNIT_TEXT_MAX];
        char sp[OMPB__UNIT_TEXT_MAX], eff[OMPB__UNIT_TEXT_MAX];
        imbalance_text(imb, sizeof imb, p->imbalance);
        fprintf(out, "%8d  %12s  %8s  %10s  %9s\n", p->threads,
                value_text(f, t, sizeof t, p->median_ns),
                ompb__format_speedup(sp, sizeof sp, p->speedup),
                ompb__format_efficiency(eff, sizeof eff, p->efficiency), imb);
    }
}

static void print_markdown_family(FILE *out, const ompb__scaling_family *f)
{
    fputs("#### ", out);
    ompb__put_md_code(out, f->name, false);
    fprintf(out, " (against %d thread%s%s%s)\n\n", f->points[0].threads,
            f->points[0].threads == 1 ? "" : "s", f->metric ? "; per iteration, team sum of " : "",
            f->metric ? f->metric : "");
    if (f->metric)
        fprintf(out, "| Threads | %s | Ratio | Work efficiency | Imbalance |\n"
                     "|--:|--:|--:|--:|--:|\n", f->metric);
    else
        fputs("| Threads | Median | Speedup | Efficiency | Imbalance |\n"
              "|--:|--:|--:|--:|--:|\n", out);
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *p = &f->points[i];
        char t[OMPB__UNIT_TEXT_MAX], imb[OMPB__UNIT_TEXT_MAX];
        char sp[OMPB__UNIT_TEXT_MAX], eff[OMPB__UNIT_TEXT_MAX];
        imbalance_text(imb, sizeof imb, p->imbalance);
        fprintf(out, "| %d | %s | %s | %s | %s |\n", p->threads,
                value_text(f, t, sizeof t, p->median_ns),
                ompb__format_speedup(sp, sizeof sp, p->speedup),
                ompb__format_efficiency(eff, sizeof eff, p->efficiency), imb);
    }
}

static json_t *json_family(const ompb__scaling_family *f)
{
    json_t *pts = json_array();
    for (size_t i = 0; i < f->n; i++) {
        const ompb__scaling_point *p = &f->points[i];
        json_array_append_new(
            pts, json_pack("{s:i, s:o, s:o, s:o, s:o}", "threads", p->threads,
                           f->metric ? "value" : "median_ns",
                           ompb__json_number_or_null(p->median_ns),
                           f->metric ? "ratio" : "speedup",
                           ompb__json_number_or_null(p->speedup),
                           f->metric ? "work_efficiency" : "efficiency",
                           ompb__json_number_or_null(p->efficiency), "imbalance",
                           ompb__json_number_or_null(p->imbalance)));
    }
    return json_pack("{s:s, s:s, s:i, s:o}", "name", f->name, "metric",
                     f->metric ? f->metric : "time", "baseline_threads",
                     f->points[0].threads, "points", pts);
}

static int print_json(FILE *out, const ompb__scaling *s)
{
    json_t *fams = json_array();
    for (size_t i = 0; i < s->n; i++)
        json_array_append_new(fams, json_family(&s->families[i]));
    json_t *root = json_pack("{s:o, s:I}", "families", fams, "single_width_benchmarks",
                             (json_int_t)s->single);
    if (!root)
        return OMPB_ENOMEM;
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    return rc == 0 && fputc('\n', out) != EOF ? 0 : OMPB_EIO;
}

int ompb__scaling_print(FILE *out, const ompb__scaling *s, ompb__report_format fmt)
{
    if (fmt == OMPB__REPORT_JSON)
        return print_json(out, s);
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            fputc('\n', out);
        if (fmt == OMPB__REPORT_MARKDOWN)
            print_markdown_family(out, &s->families[i]);
        else
            print_console_family(out, &s->families[i]);
    }
    if (s->n == 0)
        fputs("no benchmark was measured at more than one thread count\n", out);
    else if (s->single)
        fprintf(out, "\n(%zu benchmark%s measured at a single thread count not shown)\n",
                s->single, s->single == 1 ? "" : "s");
    return ferror(out) ? OMPB_EIO : 0;
}
