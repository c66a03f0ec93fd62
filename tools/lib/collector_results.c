/* SPDX-License-Identifier: MIT */
/*
 * The collector's check of the walltime results files against the windows
 * it recorded (collector.h, ompb__collector_check_results): the runner's
 * schema field by field with types, one entry per window with markers, and
 * statistics that match the marker pairs. Application regions that ran
 * while another held the window are listed, not refused.
 */
#include "collector.h"
#include "collector_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/core.h"

/* Results-file numbers are doubles printed by jansson: allow rounding. */
#define REL_TOLERANCE 1e-9

/* Field types of the runner's schema (serde): f64 takes any JSON number,
 * u64 only a non-negative integer. */
typedef enum { FIELD_STRING, FIELD_NUMBER, FIELD_COUNT } field_type;

typedef struct field {
    const char *key;
    field_type type;
} field;

static const field creator_fields[] = {
    {"name", FIELD_STRING}, {"version", FIELD_STRING}, {"pid", FIELD_COUNT}};
static const field entry_fields[] = {{"name", FIELD_STRING}, {"uri", FIELD_STRING}};
static const field config_fields[] = {
    {"warmup_time_ns", FIELD_NUMBER}, {"min_round_time_ns", FIELD_NUMBER},
    {"max_time_ns", FIELD_NUMBER}, {"max_rounds", FIELD_COUNT}};
static const field stats_fields[] = {
    {"min_ns", FIELD_NUMBER}, {"max_ns", FIELD_NUMBER}, {"mean_ns", FIELD_NUMBER},
    {"stdev_ns", FIELD_NUMBER}, {"q1_ns", FIELD_NUMBER}, {"median_ns", FIELD_NUMBER},
    {"q3_ns", FIELD_NUMBER}, {"rounds", FIELD_COUNT}, {"total_time", FIELD_NUMBER},
    {"iqr_outlier_rounds", FIELD_COUNT}, {"stdev_outlier_rounds", FIELD_COUNT},
    {"iter_per_round", FIELD_COUNT}, {"warmup_iters", FIELD_COUNT}};
#define N_FIELDS(a) (sizeof a / sizeof a[0])

static const char *type_name(field_type t)
{
    return t == FIELD_STRING ? "a string" : t == FIELD_NUMBER ? "a number"
                                                               : "a non-negative integer";
}

static bool has_type(const json_t *v, field_type t)
{
    if (t == FIELD_STRING)
        return json_is_string(v);
    if (t == FIELD_NUMBER)
        return json_is_number(v);
    return json_is_integer(v) && json_integer_value(v) >= 0;
}

/* where.key (obj, NULL when absent) must be an object with every field of
 * its type; each one that is not is a violation of its own. Returns true
 * when all are. The fields are looked up from the table, not with one
 * json_unpack format, so that each message names its key and the schema is
 * written once. */
static bool check_fields(ompb__collector *c, const char *where, const char *key,
                         const json_t *obj, const field *f, size_t n)
{
    bool ok = true;
    if (!json_is_object(obj)) {
        ompb__collector_violation(c, "%s: %s is %s (expected an object)", where,
                                  key ? key : "the entry", obj ? "not an object" : "missing");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_object_get(obj, f[i].key);
        if (has_type(v, f[i].type))
            continue;
        ompb__collector_violation(c, "%s: %s%s%s is %s (expected %s)", where, key ? key : "",
                                  key ? "." : "", f[i].key, v ? "of the wrong type" : "missing",
                                  type_name(f[i].type));
        ok = false;
    }
    return ok;
}

static ompb__collector_window *find_window(ompb__collector *c, const char *uri)
{
    for (size_t i = 0; i < c->n_windows; i++)
        if (c->windows[i].uri && strcmp(c->windows[i].uri, uri) == 0)
            return &c->windows[i];
    return NULL;
}

static bool close_enough(double a, double b)
{
    return fabs(a - b) <= REL_TOLERANCE * fmax(fabs(a), fabs(b)) + 1e-6;
}

/* Per-iteration extremes and total of a window's pairs. */
static void window_times(const ompb__collector_window *w, double iters, double *min,
                         double *max, double *total)
{
    *min = INFINITY;
    *max = *total = 0;
    for (size_t i = 0; i + 1 < w->n_bounds; i += 2) {
        /* Signed: a reversed pair (already a violation) must not wrap. */
        double span = (double)w->bounds[i + 1] - (double)w->bounds[i];
        *min = fmin(*min, span / iters);
        *max = fmax(*max, span / iters);
        *total += span;
    }
}

/* The entry's numbers against the window's marker pairs; check_fields
 * found stats' fields with their types, so the unpack cannot fail. */
static void check_against_markers(ompb__collector *c, const char *where,
                                  const ompb__collector_window *w, json_t *stats)
{
    json_int_t rounds = 0, iters = 0;
    double min_ns = 0, max_ns = 0, total_s = 0, wmin, wmax, wtotal;
    (void)json_unpack(stats, "{s:I, s:I, s:F, s:F, s:F}", "rounds", &rounds, "iter_per_round",
                      &iters, "min_ns", &min_ns, "max_ns", &max_ns, "total_time", &total_s);
    if ((size_t)rounds != w->n_bounds / 2) {
        ompb__collector_violation(c, "%s reports %lld rounds, the runner saw %zu marker "
                                  "pairs", where, (long long)rounds, w->n_bounds / 2);
        return;
    }
    if (iters <= 0) {
        ompb__collector_violation(c, "%s: stats.iter_per_round is 0", where);
        return;
    }
    window_times(w, (double)iters, &wmin, &wmax, &wtotal);
    if (!close_enough(min_ns, wmin) || !close_enough(max_ns, wmax)
        || !close_enough(total_s * 1e9, wtotal))
        ompb__collector_violation(c, "%s: stats (min %.6g ns, max %.6g ns, total %.9g s) do "
                                  "not match its markers (min %.6g, max %.6g, total %.9g s)",
                                  where, min_ns, max_ns, total_s, wmin, wmax, wtotal * 1e-9);
}

/* An application region's URI ("<file>::region:NAME[t=T]"): the runner
 * gets one window at a time, so a region that ran while another held the
 * window has statistics but no window. */
#define REGION_URI_PART "::region:"

static void add_results_only(ompb__collector *c, const char *uri)
{
    for (size_t i = 0; i < c->n_results_only; i++)
        if (strcmp(c->results_only[i], uri) == 0) {
            ompb__collector_violation(c, "%s appears more than once in the results files", uri);
            return;
        }
    char *copy = ompb__collector_copy(uri, strlen(uri));
    if (!copy || !ompb__collector_grow(c, (void **)&c->results_only, &c->cap_results_only,
                       c->n_results_only + 1, sizeof *c->results_only)) {
        free(copy);
        ompb__collector_violation(c, "collector out of memory");
        return;
    }
    c->results_only[c->n_results_only++] = copy;
}

/* One entry of a results file written by process pid (-1: unknown). */
static void check_entry(ompb__collector *c, const char *path, size_t index, json_int_t pid,
                        json_t *b)
{
    char where[OMPB__STRING_MAX + 64];
    json_t *uri_v = NULL, *config = NULL, *stats = NULL;
    /* Each NULL when absent, or b no object; types are checked below. */
    (void)json_unpack(b, "{s?o, s?o, s?o}", "uri", &uri_v, "config", &config,
                      "stats", &stats);
    const char *uri = json_string_value(uri_v);
    if (uri)
        snprintf(where, sizeof where, "%s: %s", path, uri);
    else
        snprintf(where, sizeof where, "%s: benchmarks[%zu]", path, index);
    bool ok = check_fields(c, where, NULL, b, entry_fields, N_FIELDS(entry_fields));
    ok &= check_fields(c, where, "config", config, config_fields, N_FIELDS(config_fields));
    ok &= check_fields(c, where, "stats", stats, stats_fields, N_FIELDS(stats_fields));
    ompb__collector_window *w = uri ? find_window(c, uri) : NULL;
    if (uri && !w && strstr(uri, REGION_URI_PART)) {
        add_results_only(c, uri);
        return;
    }
    if (uri && !w) {
        ompb__collector_violation(c, "%s has results but no benchmark window", where);
        return;
    }
    if (!w || ++w->results_entries > 1) {
        if (w && w->results_entries == 2)
            ompb__collector_violation(c, "%s appears more than once in the results files",
                                      where);
        return;
    }
    if (pid >= 0 && w->pid != pid)
        ompb__collector_violation(c, "%s: window named by pid %d, entry in the results of "
                                  "pid %lld", where, (int)w->pid, (long long)pid);
    if (ok)
        check_against_markers(c, where, w, stats);
}

/* The results file's objects, each NULL when absent (or the root, or its
 * parent, is no object); their types are checked where they are read. */
typedef struct header {
    json_t *creator, *benchmarks, *type, *pid;
} header;

static void unpack_header(json_t *root, header *h)
{
    json_t *instrument = NULL;
    *h = (header){0};
    (void)json_unpack(root, "{s?o, s?o, s?o}", "creator", &h->creator, "instrument",
                      &instrument, "benchmarks", &h->benchmarks);
    (void)json_unpack(instrument, "{s?o}", "type", &h->type);
    (void)json_unpack(h->creator, "{s?o}", "pid", &h->pid);
}

/* creator, instrument and benchmarks; *pid gets creator.pid, -1 without. */
static int check_header(ompb__collector *c, const char *path, const header *h,
                        json_int_t *pid)
{
    const char *type = json_string_value(h->type);
    bool ok = check_fields(c, path, "creator", h->creator, creator_fields,
                           N_FIELDS(creator_fields));
    if (!type || strcmp(type, "walltime") != 0) {
        ompb__collector_violation(c, "%s: instrument.type is %s%s%s (expected \"walltime\")",
                                  path, type ? "\"" : h->type ? "of the wrong type" : "missing",
                                  type ? type : "", type ? "\"" : "");
        ok = false;
    }
    const json_t *benchmarks = h->benchmarks;
    if (!json_is_array(benchmarks)) {
        ompb__collector_violation(c, "%s: benchmarks is missing or not an array", path);
        ok = false;
    } else if (json_array_size(benchmarks) == 0) {
        /* The runner fails the whole upload on such a file. */
        ompb__collector_violation(c, "%s: benchmarks is empty (the runner rejects the upload; "
                                  "write no results file when no instance succeeded)", path);
        ok = false;
    }
    *pid = has_type(h->pid, FIELD_COUNT) ? json_integer_value(h->pid) : -1;
    return ok ? 0 : OMPB_EPROTO;
}

int ompb__collector_check_results(ompb__collector *c, const char *path)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr), *b;
    json_int_t pid;
    size_t i;
    header h;
    if (!root) {
        ompb__collector_violation(c, "%s: unreadable results file: %s", path, jerr.text);
        return OMPB_EIO;
    }
    /* A bad header is reported, and the entries are still checked. */
    unpack_header(root, &h);
    int rc = check_header(c, path, &h, &pid);
    json_array_foreach(h.benchmarks, i, b)
        check_entry(c, path, i, pid, b);
    json_decref(root);
    return rc;
}

void ompb__collector_check_results_coverage(ompb__collector *c)
{
    char label[OMPB__STRING_MAX + 32];
    for (size_t i = 0; i < c->n_windows; i++) {
        const ompb__collector_window *w = &c->windows[i];
        if (w->n_bounds > 0 && w->results_entries == 0)
            ompb__collector_violation(c, "%s has %zu marker pairs but no entry in a results "
                                      "file", ompb__collector_window_label(c, w, label, sizeof label),
                                      w->n_bounds / 2);
    }
}
