/* SPDX-License-Identifier: MIT */
/*
 * `ompbench compare`: instance-by-instance verdicts between a BASE and a HEAD
 * result file, the summary counts, the geometric-mean change, and the
 * environment differences that make the comparison suspect. The verdict needs
 * both a change beyond the threshold and a significant U test, so that noise
 * on a quiet machine and tiny shifts on a long run both stay "untouched".
 * Reports come in three formats: console, markdown for a pull request, JSON.
 */
#include "analysis/compare.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "analysis/mannwhitney.h"
#include "grow.h"

/* Relative slack so that a change printed as exactly the threshold (5.00% at
 * --threshold 5) never counts because of binary rounding. */
#define OMPB__THRESHOLD_SLACK 1e-9
#define OMPB__ENV_VALUE_MAX 60
#define OMPB__ENV_LINE_MAX 256

static const char *const verdict_names[OMPB__VERDICT_COUNT] = {
    "regressed", "failed", "improved", "too few samples", "untouched", "new", "missing"};
static const char *const verdict_keys[OMPB__VERDICT_COUNT] = {
    "regressed", "failed", "improved", "too_few_samples", "untouched", "new", "missing"};

/* Key fragments (lower case) that mark a context field as part of the runtime
 * environment: host, CPU and topology, OpenMP runtime and its settings,
 * thread counts, who pins threads. Compiler and build type are left out on
 * purpose: changing them may be the very change under test. */
static const char *const env_keys[] = {
    "host", "cpu", "model", "topology", "openmp", "runtime", "omp_", "gomp", "kmp_",
    "proc_bind", "places", "wait_policy", "thread", "policy", "binder"};

/* Objects that list every variable that was set (lib/context.c records all
 * OMP_, GOMP_ and KMP_ variables): there, a name missing on one side means
 * unset, which is a difference, not an unknown. */
static const char *const env_var_objects[] = {"environment", "env"};

/* ---- verdicts -------------------------------------------------------- */

static bool usable(const ompb__rf_instance *in)
{
    return in && !in->failed;
}

/* The verdict presence alone gives; UNTOUCHED when both sides have a time
 * and the times must decide. A failure in HEAD is "failed" whatever BASE
 * did: the change broke or kept breaking it, and "missing" would hide that. */
static ompb__verdict by_presence(const ompb__rf_instance *b, const ompb__rf_instance *h)
{
    if (h && h->failed)
        return OMPB__VERDICT_FAILED;
    if (!h)
        return OMPB__VERDICT_MISSING;
    return usable(b) ? OMPB__VERDICT_UNTOUCHED : OMPB__VERDICT_NEW;
}

static bool exceeds(double change, const ompb__compare_opts *opts)
{
    return fabs(change) > opts->threshold * (1.0 + OMPB__THRESHOLD_SLACK);
}

static ompb__verdict by_sign(double change)
{
    return change > 0.0 ? OMPB__VERDICT_REGRESSED : OMPB__VERDICT_IMPROVED;
}

/* Below OMPB__COMPARE_MIN_SAMPLES a side is one or two lucky rounds away
 * from any p-value; otherwise the test must at least be able to reject. */
static bool too_few(size_t nb, size_t nh, double alpha)
{
    return nb < OMPB__COMPARE_MIN_SAMPLES || nh < OMPB__COMPARE_MIN_SAMPLES ||
           ompb__mw_min_p(nb, nh) >= alpha;
}

static int test_pair(ompb__compare_row *row, const ompb__compare_opts *opts)
{
    const ompb__rf_instance *b = row->base, *h = row->head;
    ompb__mw_result mw;
    int rc = ompb__mann_whitney(b->samples_ns, b->n_samples, h->samples_ns, h->n_samples,
                                OMPB__MW_AUTO, &mw);
    if (rc)
        return rc;
    row->p = mw.p;
    if (!exceeds(row->change, opts))
        row->verdict = OMPB__VERDICT_UNTOUCHED;
    else if (too_few(b->n_samples, h->n_samples, opts->alpha)) {
        row->basis = OMPB__BASIS_TOO_FEW;
        row->verdict = OMPB__VERDICT_TOO_FEW;
    } else
        row->verdict = mw.p < opts->alpha ? by_sign(row->change) : OMPB__VERDICT_UNTOUCHED;
    return 0;
}

static int judge(ompb__compare_row *row, const ompb__compare_opts *opts)
{
    row->base_ns = usable(row->base) ? row->base->value_ns : NAN;
    row->head_ns = usable(row->head) ? row->head->value_ns : NAN;
    row->change = row->p = NAN;
    row->basis = OMPB__BASIS_NONE;
    row->verdict = by_presence(row->base, row->head);
    /* A BASE time of 0 has no relative change: presence alone decides. */
    if (row->verdict != OMPB__VERDICT_UNTOUCHED || !(row->base_ns > 0.0))
        return 0;
    row->change = row->head_ns / row->base_ns - 1.0;
    if (row->base->n_samples && row->head->n_samples) {
        row->basis = OMPB__BASIS_U_TEST;
        return test_pair(row, opts);
    }
    row->basis = OMPB__BASIS_THRESHOLD;
    row->verdict = exceeds(row->change, opts) ? by_sign(row->change) : OMPB__VERDICT_UNTOUCHED;
    return 0;
}

static int add_row(ompb__comparison *cmp, const ompb__rf_instance *b,
                   const ompb__rf_instance *h)
{
    ompb__compare_row *row = &cmp->rows[cmp->n++];
    row->base = b;
    row->head = h;
    row->name = b ? b->name : h->name;
    int rc = judge(row, &cmp->opts);
    if (rc)
        return rc;
    cmp->counts[row->verdict]++;
    if (row->basis == OMPB__BASIS_THRESHOLD)
        cmp->threshold_only++;
    return 0;
}

/* A time of 0 on either side has no logarithm: such pairs are left out and
 * counted, so the report can say the mean does not cover them. */
static void geomean(ompb__comparison *cmp)
{
    double sum = 0.0;
    size_t k = 0;
    for (size_t i = 0; i < cmp->n; i++) {
        const ompb__compare_row *r = &cmp->rows[i];
        if (isnan(r->base_ns) || isnan(r->head_ns))
            continue;
        if (r->base_ns > 0.0 && r->head_ns > 0.0) {
            sum += log(r->head_ns / r->base_ns);
            k++;
        } else {
            cmp->geomean_excluded++;
        }
    }
    cmp->geomean_change = k ? exp(sum / (double)k) - 1.0 : NAN;
}

/* ---- environments ----------------------------------------------------- */

static bool env_relevant(const char *key)
{
    char low[128];
    size_t i = 0;
    for (; key[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)key[i]);
    low[i] = '\0';
    for (size_t k = 0; k < sizeof env_keys / sizeof env_keys[0]; k++)
        if (strstr(low, env_keys[k]))
            return true;
    return false;
}

static int push_line(ompb__lines *lines, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int push_line(ompb__lines *lines, const char *fmt, ...)
{
    if (!ompb__grow((void **)&lines->v, &lines->cap, lines->n + 1, sizeof *lines->v, 8))
        return OMPB_ENOMEM;
    va_list ap;
    va_start(ap, fmt);
    int len = vasprintf(&lines->v[lines->n], fmt, ap);
    va_end(ap);
    if (len < 0)
        return OMPB_ENOMEM;
    lines->n++;
    return 0;
}

/* Compact JSON text of a value, cut to a readable length. */
static void value_text(const json_t *v, char *buf, size_t cap)
{
    char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS |
                                                           JSON_ENCODE_ANY);
    snprintf(buf, cap, json_is_string(v) ? "\"%s\"" : "%s",
             json_is_string(v) ? json_string_value(v) : s ? s : "?");
    free(s);
    if (strlen(buf) >= cap - 1 && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
}

static int diff_leaf(const char *path, const json_t *a, const json_t *b, ompb__lines *lines)
{
    if (json_equal((json_t *)a, (json_t *)b))
        return 0;
    char ta[OMPB__ENV_VALUE_MAX], tb[OMPB__ENV_VALUE_MAX];
    value_text(a, ta, sizeof ta);
    value_text(b, tb, sizeof tb);
    return push_line(lines, "%s: %s vs %s", path, ta, tb);
}

static bool is_env_var_object(const char *key)
{
    for (size_t i = 0; i < sizeof env_var_objects / sizeof env_var_objects[0]; i++)
        if (strcmp(key, env_var_objects[i]) == 0)
            return true;
    return false;
}

/* Variables set on one side only (both sides listed all their variables). */
static int diff_unset(const char *path, const json_t *a, const json_t *b, bool a_first,
                      ompb__lines *lines)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)a, key, v) {
        char text[OMPB__ENV_VALUE_MAX];
        if (json_object_get(b, key))
            continue;
        value_text(v, text, sizeof text);
        int rc = push_line(lines, "%s.%s: %s vs %s", path, key, a_first ? text : "(unset)",
                           a_first ? "(unset)" : text);
        if (rc)
            return rc;
    }
    return 0;
}

/* Walks the fields both objects have; relevant says whether an enclosing key
 * already marked the subtree as environment. */
static int diff_tree(const char *path, const json_t *a, const json_t *b, bool relevant,
                     ompb__lines *lines)
{
    const char *key;
    const json_t *va;
    json_object_foreach((json_t *)a, key, va) {
        const json_t *vb = json_object_get(b, key);
        bool rel = relevant || env_relevant(key);
        char sub[OMPB__ENV_LINE_MAX];
        snprintf(sub, sizeof sub, "%s.%s", path, key);
        int rc = 0;
        if (!vb)
            continue; /* unknown on one side: not a difference */
        if (json_is_object(va) && json_is_object(vb) && is_env_var_object(key)) {
            rc = diff_tree(sub, va, vb, true, lines);
            rc = rc ? rc : diff_unset(sub, va, vb, true, lines);
            rc = rc ? rc : diff_unset(sub, vb, va, false, lines);
        } else if (json_is_object(va) && json_is_object(vb)) {
            rc = diff_tree(sub, va, vb, rel, lines);
        } else if (rel) {
            rc = diff_leaf(sub, va, vb, lines);
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int diff_contexts(const json_t *a, const json_t *b, ompb__lines *lines)
{
    static const char *const top[] = {"host_name", "num_cpus"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
        const json_t *va = json_object_get(a, top[i]), *vb = json_object_get(b, top[i]);
        int rc = va && vb ? diff_leaf(top[i], va, vb, lines) : 0;
        if (rc)
            return rc;
    }
    const json_t *oa = json_object_get(a, "ompbench"), *ob = json_object_get(b, "ompbench");
    if (!json_is_object(oa) || !json_is_object(ob))
        return 0;
    return diff_tree("ompbench", oa, ob, false, lines);
}

/* Instances of one name measured at different thread counts: a name without
 * a thread part (a benchmark run at the default team size) under another
 * OMP_NUM_THREADS. A thread count only one run has is a benchmark added or
 * dropped, which the verdicts already show. */
static int diff_threads(const ompb__resultfile *base, const ompb__resultfile *head,
                        ompb__lines *diffs)
{
    const ompb__rf_instance *first = NULL, *first_head = NULL;
    size_t count = 0;
    for (size_t i = 0; i < base->n; i++) {
        const ompb__rf_instance *b = &base->inst[i];
        const ompb__rf_instance *h = ompb__resultfile_find(head, b->name);
        if (!h || b->threads <= 0 || h->threads <= 0 || b->threads == h->threads)
            continue;
        if (count++ == 0) {
            first = b;
            first_head = h;
        }
    }
    if (count == 0)
        return 0;
    if (count == 1)
        return push_line(diffs, "thread counts: %s: %d vs %d", first->name,
                         first->threads, first_head->threads);
    return push_line(diffs, "thread counts: %s: %d vs %d (and %zu more)",
                     first->name, first->threads, first_head->threads, count - 1);
}

int ompb__compare_environments(const ompb__resultfile *base, const ompb__resultfile *head,
                               ompb__lines *diffs)
{
    if (base->context && head->context) {
        int rc = diff_contexts(base->context, head->context, diffs);
        if (rc)
            return rc;
    }
    return diff_threads(base, head, diffs);
}

/* ---- public ------------------------------------------------------------ */

int ompb__compare_runs(const ompb__resultfile *base, const ompb__resultfile *head,
                       const ompb__compare_opts *opts, ompb__comparison *out)
{
    memset(out, 0, sizeof *out);
    out->base_path = base->path;
    out->head_path = head->path;
    out->opts = *opts;
    out->rows = calloc(base->n + head->n + 1, sizeof *out->rows);
    if (!out->rows)
        return OMPB_ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < base->n && !rc; i++)
        rc = add_row(out, &base->inst[i], ompb__resultfile_find(head, base->inst[i].name));
    for (size_t i = 0; i < head->n && !rc; i++)
        if (!ompb__resultfile_find(base, head->inst[i].name))
            rc = add_row(out, NULL, &head->inst[i]);
    if (!rc)
        rc = ompb__compare_environments(base, head, &out->env_diffs);
    if (rc) {
        ompb__comparison_free(out);
        return rc;
    }
    geomean(out);
    return 0;
}

void ompb__comparison_free(ompb__comparison *cmp)
{
    for (size_t i = 0; i < cmp->env_diffs.n; i++)
        free(cmp->env_diffs.v[i]);
    free(cmp->env_diffs.v);
    free(cmp->rows);
    memset(cmp, 0, sizeof *cmp);
}

const char *ompb__verdict_name(ompb__verdict v)
{
    return v < OMPB__VERDICT_COUNT ? verdict_names[v] : "?";
}

const char *ompb__verdict_key(ompb__verdict v)
{
    return v < OMPB__VERDICT_COUNT ? verdict_keys[v] : "?";
}
