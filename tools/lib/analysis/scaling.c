/* SPDX-License-Identifier: MIT */
/*
 * Scaling tables. Instances whose names differ only in the thread
 * count are one benchmark family; speedup and parallel efficiency are taken
 * against the ideal of strong scaling, of weak scaling (declared, or the
 * declared work grows with the width) or of the declared work point by
 * point, from the family's smallest thread count, which need not be 1 (a
 * benchmark declared with OMPB_THREADS(2, 4) is judged against 2 threads).
 * This file is the model (families, points, ratios); the tables (console,
 * markdown, JSON) are rendered in scaling_report.c, the SVG plot in
 * scaling_svg.c.
 */
#include "analysis/scaling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <ompbench/error.h>

#include "report/report.h"
#include "analysis/nameindex.h"
#include "analysis/units.h"
#include "core/core.h"

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
 * (name[r=2, t=4]: a family scales over ranks x threads); *ranks = R, or 0
 * for a name without "r=". */
static char *family_of(const char *name, long *ranks)
{
    size_t len = strlen(name), d;
    long value = 1;
    bool bracket = false;
    *ranks = 0;
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

/* A speedup needs two real times: an oversubscribed point at either end
 * would show the turn-taking of threads as the code's scaling. */
static bool has_ratio(const ompb__scaling_point *pt, const ompb__scaling_point *base)
{
    return !ompb__scaling_point_not_real(pt) && !ompb__scaling_point_not_real(base);
}

void ompb__scaling_point_fill(ompb__scaling_point *pt, const ompb__scaling_point *base)
{
    pt->speedup = pt->median_ns > 0.0 && has_ratio(pt, base) ? base->median_ns / pt->median_ns
                                                             : NAN;
    pt->efficiency = pt->speedup * (double)base->threads / (double)pt->threads;
}

void ompb__scaling_point_fill_weak(ompb__scaling_point *pt, const ompb__scaling_point *base)
{
    pt->efficiency = pt->median_ns > 0.0 && has_ratio(pt, base) ? base->median_ns / pt->median_ns
                                                                : NAN;
    pt->speedup = pt->efficiency * (double)pt->threads / (double)base->threads;
}

bool ompb__scaling_infer_weak(const ompb__scaling_family *f)
{
    const ompb__scaling_point *b = &f->points[0];
    for (size_t i = f->n; i-- > 1;) {
        const ompb__scaling_point *p = &f->points[i];
        if (!(p->work > 0.0) || !(b->work > 0.0) || p->threads == b->threads)
            continue;
        double grown = p->work / b->work, widened = (double)p->threads / (double)b->threads;
        return grown >= OMPB__SCALING_WEAK_FRACTION * widened;
    }
    return false;
}

const char *ompb__scaling_kind_text(const ompb__scaling_family *f)
{
    if (f->mixed)
        return "scaling against the declared work (it grows with some widths only)";
    static const char *const text[2][3] = {
        {"strong scaling (assumed: no work declared)", "strong scaling (declared)",
         "strong scaling (the declared work per round is fixed)"},
        {"weak scaling", "weak scaling (declared)",
         "weak scaling (the declared work per round grows with the width)"}};
    return text[f->weak][f->basis];
}

/* The team's declared work per iteration: items, else bytes; NAN if none. */
static double declared_work(const ompb__rf_instance *in)
{
    double rate = !isnan(in->items_per_second) ? in->items_per_second : in->bytes_per_second;
    return rate * in->value_ns * 1e-9;
}

/* Appends a run's value to the point's (the models resample them). */
static int keep_run(ompb__scaling_point *pt, double v)
{
    double *grown = realloc(pt->run_values, (pt->runs + 1) * sizeof *grown);
    if (!grown)
        return OMPB_ENOMEM;
    pt->run_values = grown;
    pt->run_values[pt->runs++] = v;
    return 0;
}

/* Whether every repetition of in that has a value has enough clean rounds
 * (ompb__rf_rep_clean): its runs are then read on their clean rounds, as
 * compare reads them, since the other rounds measured the machine's load. */
static bool all_clean(const ompb__rf_instance *in)
{
    size_t with_value = 0;
    for (size_t r = 0; r < in->n_reps; r++) {
        if (isnan(in->reps[r].value_ns))
            continue;
        if (!ompb__rf_rep_clean(&in->reps[r]))
            return false;
        with_value++;
    }
    return with_value > 0;
}

/* The median of in's repetitions' clean values (all_clean(in) holds). */
static double clean_median(const ompb__rf_instance *in)
{
    double *v = malloc(in->n_reps * sizeof *v), m = NAN;
    size_t n = 0;
    for (size_t r = 0; v && r < in->n_reps; r++)
        if (!isnan(in->reps[r].value_ns))
            v[n++] = in->reps[r].clean_ns;
    if (v)
        m = ompb__scaling_median(v, n);
    free(v);
    return m;
}

/* A later run of the point: its value widens the run-to-run range. */
static int widen(ompb__scaling_point *pt, const ompb__rf_instance *in)
{
    bool clean = all_clean(in);
    double v = clean ? clean_median(in) : in->value_ns;
    pt->clean &= clean;
    pt->lo_ns = fmin(pt->lo_ns, v);
    pt->hi_ns = fmax(pt->hi_ns, v);
    return keep_run(pt, v);
}

/* The repetitions of one file are runs too (--repetitions, --processes):
 * their clean values when all have them, else their values. */
static int from_reps(ompb__scaling_point *pt, const ompb__rf_instance *in)
{
    pt->clean = all_clean(in);
    pt->lo_ns = pt->hi_ns = in->value_ns;
    pt->runs = 0;
    if (in->n_reps < 2 && !pt->clean)
        return keep_run(pt, in->value_ns);
    pt->lo_ns = INFINITY;
    pt->hi_ns = -INFINITY;
    for (size_t r = 0; r < in->n_reps; r++) {
        const ompb__rf_rep *rep = &in->reps[r];
        if (isnan(rep->value_ns))
            continue;
        double v = pt->clean ? rep->clean_ns : rep->value_ns;
        pt->lo_ns = fmin(pt->lo_ns, v);
        pt->hi_ns = fmax(pt->hi_ns, v);
        if (keep_run(pt, v) != 0)
            return OMPB_ENOMEM;
    }
    if (pt->clean)
        pt->median_ns = clean_median(in);
    return 0;
}

/* Families by name (family names are malloc'd once: stable keys). */
static ompb__scaling_family *find_family(ompb__scaling *s, const ompb__name_index *ix,
                                         const char *name)
{
    size_t i;
    return ompb__name_index_get(ix, name, &i) ? &s->families[i] : NULL;
}

static int add_point(ompb__scaling *s, ompb__name_index *ix, char *family,
                     const ompb__rf_instance *in, int ranks, int width, int usable)
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
        f->usable_pus = usable;
    }
    for (size_t i = 0; i < f->n; i++)
        if (f->points[i].threads == width && f->points[i].ranks == ranks) {
            s->duplicates++; /* the same point twice: the first entry stands */
            return widen(&f->points[i], in);
        }
    if (!ompb__grow((void **)&f->points, &f->cap, f->n + 1, sizeof *f->points, 8))
        return OMPB_ENOMEM;
    ompb__scaling_point *pt = &f->points[f->n++];
    /* Each rank declares its own work: the run's is their sum. */
    double work = declared_work(in) * (ranks > 0 ? (double)ranks : 1.0);
    *pt = (ompb__scaling_point){width, in->value_ns, NAN, NAN, in->imbalance,
                                ranks, in->threads, in->marks, 0, 0, 0, work, NAN,
                                NULL, NAN, NAN, NAN, false};
    if (from_reps(pt, in) != 0)
        return OMPB_ENOMEM;
    if (in->scaling != OMPB__RF_SCALING_UNKNOWN && f->basis != OMPB__SCALING_DECLARED) {
        f->basis = OMPB__SCALING_DECLARED;
        f->weak = in->scaling == OMPB__RF_SCALING_WEAK;
    }
    f->ranked |= ranks > 0;
    f->marks |= in->marks;
    s->marks |= in->marks;
    return 0;
}

static int cmp_points(const void *a, const void *b)
{
    const ompb__scaling_point *x = a, *y = b;
    return x->threads != y->threads ? (x->threads > y->threads) - (x->threads < y->threads)
                                    : (x->ranks > y->ranks) - (x->ranks < y->ranks);
}

/* Whether point p's declared work grew with its width (against the base),
 * did not (-1), or cannot say (0: no work, or the base's width). */
static int grew(const ompb__scaling_point *p, const ompb__scaling_point *b)
{
    if (!(p->work > 0.0) || !(b->work > 0.0) || p->threads == b->threads)
        return 0;
    double widened = (double)p->threads / (double)b->threads;
    return p->work / b->work >= OMPB__SCALING_WEAK_FRACTION * widened ? 1 : -1;
}

/* Declared wins; else a declared work per iteration that grows with the
 * width says weak, one that does not says strong, both (by point) mixed;
 * nothing: strong. */
static void decide_kind(ompb__scaling_family *f)
{
    if (f->basis == OMPB__SCALING_DECLARED)
        return;
    bool any_weak = false, any_strong = false;
    for (size_t i = 1; i < f->n; i++) {
        int g = grew(&f->points[i], &f->points[0]);
        any_weak |= g > 0;
        any_strong |= g < 0;
    }
    f->basis = any_weak || any_strong ? OMPB__SCALING_INFERRED : OMPB__SCALING_ASSUMED;
    f->weak = any_weak && !any_strong;
    f->mixed = any_weak && any_strong;
}

/* The ideal time of point i (ompb__scaling_point.ideal_ns). */
static double ideal_of(const ompb__scaling_family *f, size_t i)
{
    const ompb__scaling_point *b = &f->points[0], *p = &f->points[i];
    double narrowed = (double)b->threads / (double)p->threads;
    if (f->mixed && p->work > 0.0 && b->work > 0.0)
        return b->median_ns * (p->work / b->work) * narrowed;
    return f->weak ? b->median_ns : b->median_ns * narrowed;
}

static void fill(ompb__scaling_family *f, size_t i)
{
    ompb__scaling_point *p = &f->points[i];
    p->ideal_ns = ideal_of(f, i);
    p->efficiency = p->median_ns > 0.0 && has_ratio(p, &f->points[0])
                        ? p->ideal_ns / p->median_ns : NAN;
    p->speedup = p->efficiency * (double)p->threads / (double)f->points[0].threads;
}

/* The usable PUs a file's context names; 0 when it does not say. */
static int usable_pus(const ompb__resultfile *rf)
{
    json_int_t v = 0; /* set only when the whole path is there and an integer */
    (void)json_unpack(rf->context, "{s:{s:{s:I}}}", "ompbench", "topology", "usable_pus", &v);
    return v > 0 && v <= INT32_MAX ? (int)v : 0;
}

/* Sorts each family, fills speedups and drops single-width families. */
static void free_family(ompb__scaling_family *f)
{
    for (size_t k = 0; k < f->n; k++)
        free(f->points[k].run_values);
    free(f->name);
    free(f->points);
}

/* Sorts each family, fills speedups, fits the models and drops
 * single-width families. */
static int settle(ompb__scaling *s)
{
    size_t kept = 0;
    int rc = 0;
    for (size_t i = 0; i < s->n; i++) {
        ompb__scaling_family *f = &s->families[i];
        if (f->n < 2) {
            s->single++;
            free_family(f);
            continue;
        }
        qsort(f->points, f->n, sizeof *f->points, cmp_points);
        decide_kind(f);
        for (size_t k = 0; k < f->n; k++)
            fill(f, k);
        if (!rc)
            rc = ompb__scaling_fit_models(f);
        s->families[kept++] = *f;
    }
    s->n = kept;
    return rc;
}

static long clamp_int(long v)
{
    return v > INT32_MAX ? INT32_MAX : v;
}

int ompb__scaling_build_files(const ompb__resultfile *rfs, size_t n, ompb__scaling *out)
{
    ompb__name_index ix = {0};
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < rfs[k].n; i++) {
            const ompb__rf_instance *in = &rfs[k].inst[i];
            if (in->failed || in->threads <= 0)
                continue;
            long ranks;
            char *family = family_of(in->name, &ranks);
            ranks = clamp_int(ranks > 0 ? ranks : 0);
            /* A distributed run's width: all the threads of all the ranks. */
            long width = clamp_int((long)in->threads * (ranks > 0 ? ranks : 1));
            int rc = family ? add_point(out, &ix, family, in, (int)ranks, (int)width,
                                        usable_pus(&rfs[k]))
                            : OMPB_ENOMEM;
            if (rc) {
                ompb__name_index_free(&ix);
                ompb__scaling_free(out);
                return rc;
            }
        }
    ompb__name_index_free(&ix);
    int rc = settle(out);
    if (rc)
        ompb__scaling_free(out);
    return rc;
}

int ompb__scaling_build(const ompb__resultfile *rf, ompb__scaling *out)
{
    return ompb__scaling_build_files(rf, 1, out);
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
            bool real = has_ratio(&f->points[k], &f->points[0]);
            f->points[k].speedup = base > 0.0 && real ? v / base : NAN;
            f->points[k].efficiency = v > 0.0 && real ? base / v : NAN;
        }
        (void)ompb__scaling_fit_models(f); /* a metric has none: allocates nothing */
    }
}

void ompb__scaling_free(ompb__scaling *s)
{
    for (size_t i = 0; i < s->n; i++)
        free_family(&s->families[i]);
    free(s->families);
    memset(s, 0, sizeof *s);
}
