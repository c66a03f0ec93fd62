/* SPDX-License-Identifier: MIT */
/*
 * A child's dump back into records, for the parent of --processes. Every
 * number must be a whole, non-negative integer (nanoseconds, counts); every
 * array is checked against the record's round and thread counts before it
 * is copied, so a damaged file is an error, never a short or garbled
 * record. A caller team's per-thread round arrays have one column (the
 * caller's); its counters have one per thread of the code's team, as in the
 * record. The one fraction, the barrier cost estimate, is a finite number
 * >= 0.
 */
#include "run/dump.h"
#include "run/dump_internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/core.h"

/* ---- reading ------------------------------------------------------------ */

typedef struct reader {
    const char *path;
    size_t index;               /* of the record being read, for messages */
    ompb_error *err;
} reader;

static int bad(const reader *rd, const char *what)
{
    return ompb__error_set(rd->err, OMPB_EINVAL, "%s: record %zu: %s", rd->path, rd->index, what);
}

static int get_u64(const reader *rd, const json_t *obj, const char *key, uint64_t *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        char what[96];
        snprintf(what, sizeof what, "\"%s\" is missing or not a non-negative integer", key);
        return bad(rd, what);
    }
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* Allocates and fills a u64 array of exactly n values. */
static int get_u64_array(const reader *rd, const json_t *obj, const char *key, size_t n,
                         uint64_t **out)
{
    const json_t *a = json_object_get(obj, key);
    char what[96];
    snprintf(what, sizeof what, "\"%s\" is not an array of %zu non-negative integers", key, n);
    if (!json_is_array(a) || json_array_size(a) != n)
        return bad(rd, what);
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out)
        return OMPB_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return bad(rd, what);
        (*out)[i] = (uint64_t)json_integer_value(v);
    }
    return 0;
}

static int get_int_array(const reader *rd, const json_t *obj, const char *key, size_t n,
                         int **out)
{
    const json_t *a = json_object_get(obj, key);
    char what[96];
    snprintf(what, sizeof what, "\"%s\" is not an array of %zu integers", key, n);
    if (!json_is_array(a) || json_array_size(a) != n)
        return bad(rd, what);
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out)
        return OMPB_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < -1 || json_integer_value(v) > INT32_MAX)
            return bad(rd, what);
        (*out)[i] = (int)json_integer_value(v);
    }
    return 0;
}

static int read_sampling(const reader *rd, const json_t *o, ompb__sampling *sp)
{
    uint64_t mode = 0, threads = 0, rep = 0, reps = 0;
    int rc = get_u64(rd, o, "mode", &mode);
    rc = rc ? rc : get_u64(rd, o, "threads", &threads);
    rc = rc ? rc : get_u64(rd, o, "rounds", &sp->rounds);
    rc = rc ? rc : get_u64(rd, o, "sample_size", &sp->sample_size);
    rc = rc ? rc : get_u64(rd, o, "min_round_ns", &sp->min_round_ns);
    rc = rc ? rc : get_u64(rd, o, "warmup_ns", &sp->warmup_ns);
    rc = rc ? rc : get_u64(rd, o, "budget_ns", &sp->budget_ns);
    rc = rc ? rc : get_u64(rd, o, "repetition", &rep);
    rc = rc ? rc : get_u64(rd, o, "repetitions", &reps);
    if (rc)
        return rc;
    if (mode > OMPB__SAMPLING_SIMULATE || threads < 1 || threads > OMPB__MAX_THREADS ||
        reps < 1 || reps > OMPB__MAX_REPETITIONS || rep >= reps)
        return bad(rd, "\"sampling\" holds an impossible value");
    sp->mode = (ompb__sampling_mode)mode;
    sp->threads = (int)threads;
    sp->repetition = (uint32_t)rep;
    sp->repetitions = (uint32_t)reps;
    return 0;
}

static int read_scalars(const reader *rd, const json_t *o, ompb__record *rec)
{
    struct { const char *key; uint64_t *dst; } scalars[] = {
        {"sample_size", &rec->sample_size}, {"round_target_ns", &rec->round_target_ns},
        {"warmup_rounds", &rec->warmup_rounds}, {"warmup_iters", &rec->warmup_iters},
        {"warmup_ns", &rec->warmup_ns}, {"calibration_rounds", &rec->calibration_rounds},
        {"bytes_per_iter", &rec->bytes_per_iter}, {"items_per_iter", &rec->items_per_iter},
        {"cpu_ns", &rec->cpu_ns}, {"migrations", &rec->migrations},
        {"nested_regions", &rec->nested_regions},
        {"measure_wall_ns", &rec->measure_wall_ns}, {"recalibrations", &rec->recalibrations},
        {"other_width_regions", &rec->other_width_regions},
    };
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
        int rc = get_u64(rd, o, scalars[i].key, scalars[i].dst);
        if (rc)
            return rc;
    }
    const json_t *failed = json_object_get(o, "failed"), *error = json_object_get(o, "error");
    if (!json_is_boolean(failed) || !json_is_string(error))
        return bad(rd, "\"failed\" or \"error\" is missing");
    rec->failed = json_is_true(failed);
    snprintf(rec->error, sizeof rec->error, "%s", json_string_value(error));
    return 0;
}

static int read_calibration(const reader *rd, const json_t *o, ompb__record *rec)
{
    const json_t *c = json_object_get(o, "calibration");
    const json_t *steps = json_object_get(c, "steps"), *cost = json_object_get(c, "barrier_cost_ns");
    const json_t *disturbed = json_object_get(c, "disturbed"), *why = json_object_get(c, "short_reason");
    if (!json_is_object(c) || !json_is_array(steps) ||
        json_array_size(steps) > OMPB__CALIB_STEPS_MAX || !json_is_number(cost) ||
        !(json_number_value(cost) >= 0) || !isfinite(json_number_value(cost)) ||
        !json_is_boolean(disturbed) || !json_is_string(why))
        return bad(rd, "\"calibration\" is not an object with at most "
                       OMPB__STR(OMPB__CALIB_STEPS_MAX) " steps, a barrier cost >= 0, "
                       "\"disturbed\" and \"short_reason\"");
    for (size_t i = 0; i < json_array_size(steps); i++) {
        const json_t *step = json_array_get(steps, i);
        const json_t *size = json_array_get(step, 0), *busy = json_array_get(step, 1);
        if (!json_is_array(step) || json_array_size(step) != 2 || !json_is_integer(size) ||
            json_integer_value(size) < 0 || !json_is_integer(busy) || json_integer_value(busy) < 0)
            return bad(rd, "\"calibration.steps\" holds a step that is not two non-negative "
                           "integers");
        rec->calib_steps[i] = (ompb__calib_step){(uint64_t)json_integer_value(size),
                                                 (uint64_t)json_integer_value(busy)};
    }
    rec->n_calib_steps = json_array_size(steps);
    rec->barrier_cost_ns = json_number_value(cost);
    rec->calibration_disturbed = json_is_true(disturbed);
    snprintf(rec->short_reason, sizeof rec->short_reason, "%s", json_string_value(why));
    return 0;
}

/* Disturbance accounting: both arrays or neither, and why not. */
static int read_accounting(const reader *rd, const json_t *o, ompb__record *rec)
{
    const json_t *off = json_object_get(o, "accounting_off");
    if (off && (!json_is_string(off) || strlen(json_string_value(off)) >= sizeof rec->accounting_off))
        return bad(rd, "\"accounting_off\" is not a short string");
    if (off)
        snprintf(rec->accounting_off, sizeof rec->accounting_off, "%s", json_string_value(off));
    if (!json_object_get(o, "away_ns") && !json_object_get(o, "preemptions"))
        return 0;
    size_t cells = rec->rounds * (size_t)rec->threads;
    int rc = get_u64_array(rd, o, "away_ns", cells, &rec->away_ns);
    return rc ? rc : get_u64_array(rd, o, "preemptions", cells, &rec->preemptions);
}

/* Where the body's code is: an object path and a non-negative address. */
static int read_code(const reader *rd, const json_t *o, ompb__record *rec)
{
    const json_t *code = json_object_get(o, "code");
    if (!code)
        return 0;
    const json_t *obj = json_object_get(code, "object"), *addr = json_object_get(code, "address");
    if (!json_is_string(obj) || !json_is_integer(addr) || json_integer_value(addr) < 0)
        return bad(rd, "\"code\" is not an object path and an address");
    if (!(rec->code_object = strdup(json_string_value(obj))))
        return OMPB_ENOMEM;
    rec->code_address = (uint64_t)json_integer_value(addr);
    return 0;
}

static int read_arrays(const reader *rd, const json_t *o, ompb__record *rec)
{
    const json_t *start = json_object_get(o, "start_ns");
    if (!json_is_array(start) || json_array_size(start) > OMPB__MAX_SAMPLE_COUNT)
        return bad(rd, "\"start_ns\" is not an array of at most " OMPB__STR(OMPB__MAX_SAMPLE_COUNT)
                       " rounds");
    rec->rounds = json_array_size(start);
    size_t T = (size_t)rec->threads;
    size_t cells = rec->rounds * (size_t)ompb__record_timed_threads(rec);
    int rc = get_u64_array(rd, o, "start_ns", rec->rounds, &rec->start_ns);
    rc = rc ? rc : get_u64_array(rd, o, "end_ns", rec->rounds, &rec->end_ns);
    rc = rc ? rc : get_u64_array(rd, o, "thread_start_ns", cells, &rec->thread_start_ns);
    rc = rc ? rc : get_u64_array(rd, o, "busy_ns", cells, &rec->busy_ns);
    rc = rc ? rc : get_u64_array(rd, o, "thread_iters", cells, &rec->thread_iters);
    rc = rc ? rc : get_int_array(rd, o, "os_tid", T, &rec->os_tid);
    rc = rc ? rc : get_int_array(rd, o, "thread_pu", T, &rec->thread_pu);
    if (!rc && json_object_get(o, "involuntary_switches"))
        rc = get_u64_array(rd, o, "involuntary_switches", T, &rec->involuntary_switches);
    rc = rc ? rc : read_accounting(rd, o, rec);
    rc = rc ? rc : read_code(rd, o, rec);
    if (rc)
        return rc;
    for (size_t r = 0; r < rec->rounds; r++)
        if (rec->end_ns[r] < rec->start_ns[r])
            return bad(rd, "a round ends before it starts");
    if (rec->rounds > 0 && rec->sample_size == 0)
        return bad(rd, "rounds with a sample size of 0");
    return 0;
}

static int read_event(const reader *rd, const json_t *o, ompb__counter_event *ev)
{
    const json_t *name = json_object_get(o, "name");
    const json_t *kernel = json_object_get(o, "kernel"), *named = json_object_get(o, "named");
    uint64_t type = 0, unit = 0;
    int rc = get_u64(rd, o, "type", &type);
    rc = rc ? rc : get_u64(rd, o, "config", &ev->config);
    rc = rc ? rc : get_u64(rd, o, "config1", &ev->config1);
    rc = rc ? rc : get_u64(rd, o, "config2", &ev->config2);
    rc = rc ? rc : get_u64(rd, o, "unit", &unit);
    if (rc)
        return rc;
    if (!json_is_string(name) || !json_string_value(name)[0] ||
        strlen(json_string_value(name)) >= sizeof ev->name || !json_is_boolean(kernel) ||
        !json_is_boolean(named) || type > UINT32_MAX || unit > OMPB__COUNTER_NS)
        return bad(rd, "\"counters.events\" holds an impossible event");
    snprintf(ev->name, sizeof ev->name, "%s", json_string_value(name));
    ev->type = (uint32_t)type;
    ev->kernel = json_is_true(kernel);
    ev->named = json_is_true(named);
    ev->unit = (ompb__counter_unit)unit;
    return 0;
}

/* --counters: the events first (they size the values), then the arrays. */
static int read_counters(const reader *rd, const json_t *o, ompb__record *rec)
{
    const json_t *c = json_object_get(o, "counters");
    if (!c)
        return 0;
    const json_t *events = json_object_get(c, "events");
    size_t n = json_array_size(events);
    if (!json_is_object(c) || !json_is_array(events) || n == 0 || n > OMPB__MAX_COUNTERS)
        return bad(rd, "\"counters\" is not an object with 1 to " OMPB__STR(OMPB__MAX_COUNTERS)
                       " events");
    for (size_t e = 0; e < n; e++) {
        int rc = read_event(rd, json_array_get(events, e), &rec->counters.ev[e]);
        if (rc)
            return rc;
    }
    rec->counters.n = (int)n;
    size_t cells = rec->rounds * (size_t)rec->threads;
    int rc = get_u64_array(rd, c, "values", cells * n, &rec->counter_values);
    rc = rc ? rc : get_u64_array(rd, c, "time_enabled_ns", cells, &rec->counter_enabled_ns);
    rc = rc ? rc : get_u64_array(rd, c, "time_running_ns", cells, &rec->counter_running_ns);
    for (size_t i = 0; !rc && i < cells; i++)
        if (rec->counter_running_ns[i] > rec->counter_enabled_ns[i])
            return bad(rd, "a counter ran longer than it was enabled");
    return rc;
}

/* The names and flags as ompb_counter accepts them, finite values. */
static int read_ucounter_table(const reader *rd, const json_t *c, ompb__ucounter_table *tab)
{
    const json_t *names = json_object_get(c, "names"), *flags = json_object_get(c, "flags");
    size_t n = json_array_size(names);
    if (!json_is_object(c) || !json_is_array(names) || !json_is_array(flags) ||
        json_array_size(flags) != n || n > OMPB__UCOUNTERS_MAX)
        return bad(rd, "\"user_counters\" is not an object with at most "
                       OMPB__STR(OMPB__UCOUNTERS_MAX) " names and as many flags");
    for (size_t k = 0; k < n; k++) {
        const char *name = json_string_value(json_array_get(names, k));
        const json_t *f = json_array_get(flags, k);
        if (!ompb__ucounter_name_ok(name) || !json_is_integer(f) || json_integer_value(f) < 0 ||
            json_integer_value(f) > (json_int_t)OMPB__UCOUNTER_FLAGS)
            return bad(rd, "\"user_counters\" holds a name or flags ompb_counter refuses");
        snprintf(tab->name[k], sizeof tab->name[k], "%s", name);
        tab->flags[k] = (unsigned)json_integer_value(f);
    }
    tab->n = (int)n;
    return 0;
}

static int read_ucounters(const reader *rd, const json_t *o, ompb__record *rec)
{
    const json_t *c = json_object_get(o, "user_counters");
    size_t cells = rec->rounds * OMPB__UCOUNTERS_MAX;
    rec->ucounter_values = calloc(cells ? cells : 1, sizeof *rec->ucounter_values);
    if (!rec->ucounter_values)
        return OMPB_ENOMEM;
    if (!c)
        return 0;
    int rc = read_ucounter_table(rd, c, &rec->ucounters);
    if (rc)
        return rc;
    const json_t *values = json_object_get(c, "values");
    if (!json_is_array(values) || json_array_size(values) != cells)
        return bad(rd, "\"user_counters.values\" does not hold 8 values per round");
    for (size_t i = 0; i < cells; i++) {
        const json_t *v = json_array_get(values, i);
        if (!json_is_number(v) || !isfinite(json_number_value(v)))
            return bad(rd, "\"user_counters.values\" holds a value that is not a finite number");
        rec->ucounter_values[i] = json_number_value(v);
    }
    return 0;
}

/* Which selected instance the record names, checked by index and name. */
static int read_instance(const reader *rd, const json_t *o, const ompb__instance *inst,
                         size_t n_inst, size_t *index)
{
    uint64_t i = 0;
    int rc = get_u64(rd, o, "instance", &i);
    if (rc)
        return rc;
    const json_t *name = json_object_get(o, "name");
    char text[OMPB__DUMP_ESCAPED_MAX + 256];
    if (i >= n_inst || !json_is_string(name))
        return bad(rd, "names no instance of this run");
    ompb__utf8_escape(inst[i].name, text, sizeof text);
    if (strcmp(text, json_string_value(name)) != 0)
        return bad(rd, "names another instance than this run's (a different selection?)");
    *index = (size_t)i;
    return 0;
}

static int read_record(const reader *rd, const json_t *o, const ompb__instance *inst,
                       size_t n_inst, size_t *index, ompb__record *rec)
{
    uint64_t threads = 0;
    if (!json_is_object(o))
        return bad(rd, "not an object");
    int rc = read_instance(rd, o, inst, n_inst, index);
    rc = rc ? rc : get_u64(rd, o, "threads", &threads);
    if (rc)
        return rc;
    if (threads < 1 || threads > OMPB__MAX_THREADS)
        return bad(rd, "\"threads\" is out of range");
    const json_t *caller = json_object_get(o, "caller_team");
    if (!json_is_boolean(caller))
        return bad(rd, "\"caller_team\" is missing or not a boolean");
    rec->inst = &inst[*index];
    rec->threads = (int)threads;
    rec->caller_team = json_is_true(caller);
    rc = read_sampling(rd, json_object_get(o, "sampling"), &rec->sampling);
    rc = rc ? rc : read_scalars(rd, o, rec);
    rc = rc ? rc : read_calibration(rd, o, rec);
    rc = rc ? rc : read_arrays(rd, o, rec);
    rc = rc ? rc : read_counters(rd, o, rec);
    return rc ? rc : read_ucounters(rd, o, rec);
}

static int read_warnings(const reader *rd, const json_t *root, ompb__context *ctx)
{
    const json_t *w = json_object_get(root, "warnings");
    size_t i;
    const json_t *v;
    if (!json_is_array(w))
        return ompb__error_set(rd->err, OMPB_EINVAL, "%s: \"warnings\" is not an array", rd->path);
    json_array_foreach(w, i, v)
        if (json_is_string(v))
            ompb__context_warn(ctx, "%s", json_string_value(v));
    return 0;
}

static int read_root(reader *rd, const json_t *root, uint32_t process, uint32_t processes,
                     uint32_t repetitions, const ompb__instance *inst, size_t n_inst,
                     ompb__context *ctx, ompb__dump_record_fn fn, void *arg)
{
    const json_t *version = json_object_get(root, "ompbench_dump");
    const json_t *proc = json_object_get(root, "process");
    const json_t *records = json_object_get(root, "records");
    if (!json_is_integer(version) || json_integer_value(version) != OMPB__DUMP_VERSION ||
        !json_is_integer(proc) || json_integer_value(proc) != (json_int_t)process ||
        !json_is_array(records))
        return ompb__error_set(rd->err, OMPB_EINVAL, "%s: not the records of process %u",
                               rd->path, process);
    int rc = read_warnings(rd, root, ctx);
    for (size_t i = 0; !rc && i < json_array_size(records); i++) {
        ompb__record rec;
        size_t index = 0;
        memset(&rec, 0, sizeof rec);
        rd->index = i;
        rc = read_record(rd, json_array_get(records, i), inst, n_inst, &index, &rec);
        if (!rc && (rec.sampling.repetitions != repetitions ||
                    rec.sampling.repetition % processes != process))
            rc = bad(rd, "holds a repetition this process was not given");
        if (rc) {
            ompb__record_free(&rec);
            break;
        }
        rc = fn(arg, index, &rec, rd->err);
    }
    return rc;
}

int ompb__dump_read(const char *path, uint32_t process, uint32_t processes,
                    uint32_t repetitions, const ompb__instance *inst, size_t n_inst,
                    ompb__context *ctx, ompb__dump_record_fn fn, void *arg, ompb_error *err)
{
    json_error_t jerr;
    reader rd = {path, 0, err};
    FILE *fp = fopen(path, "r");
    if (!fp)
        return ompb__error_set(err, OMPB_EIO, "%s: cannot open: %s", path, strerror(errno));
    json_t *root = json_loadf(fp, 0, &jerr);
    fclose(fp);
    if (!root)
        return ompb__error_set(err, OMPB_EINVAL, "%s: not valid JSON (line %d): %s", path,
                               jerr.line, jerr.text);
    int rc = read_root(&rd, root, process, processes, repetitions, inst, n_inst, ctx, fn, arg);
    json_decref(root);
    return rc;
}

int ompb__dump_record_from_json(const json_t *o, const char *where, size_t index,
                                const ompb__instance *inst, size_t n_inst, size_t *instance,
                                ompb__record *rec, ompb_error *err)
{
    reader rd = {where, index, err};
    return read_record(&rd, o, inst, n_inst, instance, rec);
}
