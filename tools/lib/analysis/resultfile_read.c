/* SPDX-License-Identifier: MIT */
/*
 * The pieces of the result-file reader that both of its halves use
 * (analysis/resultfile_read.h): messages, an entry's place, its real time,
 * threads and failure, a new instance.
 */
#include "analysis/resultfile_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/nameindex.h"
#include "analysis/units.h"
#include "core/core.h"

/* The message is one line: jansson's error text quotes the input, which
 * may hold newlines and terminal escapes; they become '?'. */
int ompb__rf_failf(ompb_error *err, int code, const char *label, const char *fmt, ...)
{
    char what[OMPB_ERROR_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    for (char *p = what; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return ompb__error_set(err, code, "%s: %s", label, what);
}

/* A positive integer, or 0 when absent (NULL); -1 when present but wrong. */
long long ompb__rf_positive(const json_t *v)
{
    if (!v)
        return 0;
    return json_is_integer(v) && json_integer_value(v) > 0 ? json_integer_value(v) : -1;
}

/* real_time in ns of a Google-Benchmark-shaped entry. */
int ompb__rf_read_real_time(const json_t *e, const entry_ref *ref, double *ns, ompb_error *err)
{
    json_t *rt = NULL, *tu = NULL;
    /* "s?o", not "s?F" and "s?s": a wrong type gets the message of its key. */
    (void)json_unpack((json_t *)e, "{s?o, s?o}", "real_time", &rt, "time_unit", &tu);
    if (!json_is_number(rt) || json_number_value(rt) < 0.0)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"real_time\" is missing or not a non-negative number",
                     ref->where);
    if (!json_is_string(tu) || ompb__unit_ns(json_string_value(tu)) == 0.0)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"time_unit\" is %s%s%s (accepted: ns, us, ms, s)", ref->where,
                     json_is_string(tu) ? "\"" : "",
                     json_is_string(tu) ? json_string_value(tu) : "missing",
                     json_is_string(tu) ? "\"" : "");
    *ns = json_number_value(rt) * ompb__unit_ns(json_string_value(tu));
    /* 1e308 s is a valid JSON number but no time in ns: an infinity would
     * turn every change and mean built on it into inf or NaN. */
    if (!isfinite(*ns))
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"real_time\" %g %s overflows in nanoseconds", ref->where,
                     json_number_value(rt), json_string_value(tu));
    return 0;
}

int ompb__rf_read_threads(const json_t *e, const json_t *omp, const entry_ref *ref,
                          int *threads, ompb_error *err)
{
    json_t *omp_threads = NULL, *region = NULL, *phase = NULL, *width = NULL, *e_threads = NULL;
    /* Each fails only on a NULL or non-object root (no "ompbench", a region
     * that is no object), which leaves its values NULL: absent. Not nested
     * as "{s?{s?o}}": that would fail on a region that is no object. */
    (void)json_unpack((json_t *)omp, "{s?o, s?o}", "threads", &omp_threads, "region", &region);
    (void)json_unpack(region, "{s?o}", "phase", &phase);
    long long t = ompb__rf_positive(omp_threads);
    const char *key = "ompbench.threads";
    /* A phase region (docs/json.md): one thread, whose width is that of
     * the teams it contained. */
    if (t > 0 && json_is_object(phase)) {
        (void)json_unpack(phase, "{s?o}", "width", &width);
        t = ompb__rf_positive(width);
        t = t == 0 ? -1 : t; /* missing: not a positive integer either */
        key = "ompbench.region.phase.width";
    }
    if (t == 0) {
        (void)json_unpack((json_t *)e, "{s?o}", "threads", &e_threads);
        t = ompb__rf_positive(e_threads);
        key = "threads";
    }
    if (t < 0 || t > 1000000)
        return ompb__rf_failf(err, OMPB_EINVAL, ref->label,
                     "%s: \"%s\" is not a positive integer", ref->where, key);
    *threads = (int)t;
    return 0;
}

int ompb__rf_read_failure(const json_t *e, ompb__rf_instance *in)
{
    const char *msg = NULL; /* "s:s" fails when absent or no string: "failed" */
    (void)json_unpack((json_t *)e, "{s:s}", "error_message", &msg);
    ompb__rf_drop_samples(in);
    in->failed = true;
    in->value_ns = NAN;
    in->error_message = strdup(msg ? msg : "failed");
    return in->error_message ? 0 : OMPB_ENOMEM;
}

/* benchmarks[3] "name" for messages; control characters in the name become
 * '?' so that the message cannot drive the terminal it is printed on. */
void ompb__rf_set_where(entry_ref *ref, size_t idx, const char *name)
{
    snprintf(ref->where, sizeof ref->where, "benchmarks[%zu] \"%.100s\"", idx, name);
    for (char *p = ref->where; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

int ompb__rf_new_instance(ompb__resultfile *rf, const char *name, ompb__rf_instance **out)
{
    if (!ompb__grow((void **)&rf->inst, &rf->cap, rf->n + 1, sizeof *rf->inst, 64))
        return OMPB_ENOMEM;
    *out = memset(&rf->inst[rf->n], 0, sizeof *rf->inst);
    (*out)->imbalance = (*out)->agg_mean_ns = (*out)->agg_stddev_ns = NAN;
    (*out)->items_per_second = (*out)->bytes_per_second = NAN;
    if (!((*out)->name = strdup(name)))
        return OMPB_ENOMEM;
    rf->n++;
    return ompb__name_index_put(&rf->index, (*out)->name, rf->n - 1);
}

/* Its samples freed: a repetition that failed keeps none. */
void ompb__rf_drop_samples(ompb__rf_instance *in)
{
    free(in->samples_ns);
    in->samples_ns = NULL;
    in->n_samples = in->cap_samples = 0;
}

const ompb__rf_instance *ompb__resultfile_find(const ompb__resultfile *rf,
                                               const char *name)
{
    size_t i;
    if (rf->index.n == rf->n)   /* every instance read by ompb__rf_new_instance is indexed */
        return ompb__name_index_get(&rf->index, name, &i) ? &rf->inst[i] : NULL;
    for (i = 0; i < rf->n; i++)
        if (strcmp(rf->inst[i].name, name) == 0)
            return &rf->inst[i];
    return NULL;
}
