/* SPDX-License-Identifier: MIT */
/*
 * What makes two runs hard to compare although their code is the same: the
 * runtime environment their result files record (host, CPU and topology,
 * OpenMP runtime and settings, pinning) and the thread counts of instances
 * of the same name, between BASE and HEAD and between the files pooled on
 * one side. Lines for the reports; nothing here judges a change.
 */
#include "analysis/compare.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#include "core/core.h"

#define OMPB__ENV_VALUE_MAX 60
#define OMPB__ENV_LINE_MAX 256

/* Key fragments (lower case) that mark a context field as part of the runtime
 * environment: host, CPU and topology, OpenMP runtime and its settings,
 * thread counts, who pins threads. Compiler and build type are left out on
 * purpose: changing them may be the very change under test. */
static const char *const env_keys[] = {
    "host", "cpu", "model", "topology", "openmp", "runtime", "omp_", "gomp", "kmp_",
    "proc_bind", "places", "wait_policy", "thread", "policy", "binder"};

/* Objects that list every variable that was set (lib/context/context.c records all
 * OMP_, GOMP_ and KMP_ variables): there, a name missing on one side means
 * unset, which is a difference, not an unknown. */
static const char *const env_var_objects[] = {"environment", "env"};

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

/* The context keys compared, NULL when absent: two top-level leaves, and
 * "ompbench", whose environment fields diff_tree finds. */
typedef struct context_keys {
    json_t *host_name, *num_cpus, *ompbench;
} context_keys;

static void unpack_context(const json_t *ctx, context_keys *k)
{
    memset(k, 0, sizeof *k);
    /* Fails only on a context that is no object, which leaves all NULL. */
    (void)json_unpack((json_t *)ctx, "{s?o, s?o, s?o}", "host_name", &k->host_name, "num_cpus",
                      &k->num_cpus, "ompbench", &k->ompbench);
}

static int diff_contexts(const json_t *a, const json_t *b, ompb__lines *lines)
{
    context_keys ka, kb;
    unpack_context(a, &ka);
    unpack_context(b, &kb);
    int rc = 0;
    if (ka.host_name && kb.host_name)
        rc = diff_leaf("host_name", ka.host_name, kb.host_name, lines);
    if (!rc && ka.num_cpus && kb.num_cpus)
        rc = diff_leaf("num_cpus", ka.num_cpus, kb.num_cpus, lines);
    if (rc || !json_is_object(ka.ompbench) || !json_is_object(kb.ompbench))
        return rc;
    return diff_tree("ompbench", ka.ompbench, kb.ompbench, false, lines);
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

/* Differences between the first file of a side and its other files, each
 * line prefixed with the side and the file, so pooling runs of different
 * machines or settings does not go unnoticed. */
int ompb__compare_diff_within(const ompb__compare_side *side, const char *side_name,
                              ompb__lines *out)
{
    for (size_t f = 1; f < side->n; f++) {
        ompb__lines d = {0};
        int rc = ompb__compare_environments(&side->files[0], &side->files[f], &d);
        for (size_t i = 0; i < d.n && !rc; i++)
            rc = push_line(out, "%s %s vs %s: %s", side_name, side->files[0].path,
                           side->files[f].path, d.v[i]);
        for (size_t i = 0; i < d.n; i++)
            free(d.v[i]);
        free(d.v);
        if (rc)
            return rc;
    }
    return 0;
}
