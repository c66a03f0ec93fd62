/* SPDX-License-Identifier: MIT */
/*
 * Records to JSON, for the parent of --processes (dump_read.c reads them
 * back). Every number is
 * a whole, non-negative integer (nanoseconds, counts); every array is
 * checked against the record's round and thread counts before it is
 * copied, so a damaged file is an error, never a short or garbled record.
 * A caller team's per-thread round arrays have one column (the caller's);
 * its counters have one per thread of the code's team, as in the record.
 * The one fraction, the barrier cost estimate, is a finite number >= 0.
 */
#include "run/dump.h"
#include "run/dump_internal.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/report.h"

#include "core/core.h"

/* ---- writing ------------------------------------------------------------ */

static int set(json_t *obj, const char *key, json_t *value)
{
    return obj && value ? json_object_set_new(obj, key, value) : (json_decref(value), -1);
}

static json_t *u64(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static json_t *u64_array(const uint64_t *v, size_t n)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; i < n && !bad; i++)
        bad |= json_array_append_new(a, u64(v[i]));
    return bad ? (json_decref(a), NULL) : a;
}

static json_t *int_array(const int *v, size_t n)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; i < n && !bad; i++)
        bad |= json_array_append_new(a, json_integer(v[i]));
    return bad ? (json_decref(a), NULL) : a;
}

static json_t *escaped(const char *s)
{
    char text[OMPB__DUMP_ESCAPED_MAX + 256];
    ompb__utf8_escape(s, text, sizeof text);
    return json_string(text);
}

static json_t *sampling_json(const ompb__sampling *sp)
{
    return json_pack("{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "mode", (int)sp->mode,
                     "threads", sp->threads, "rounds", (json_int_t)sp->rounds, "sample_size",
                     (json_int_t)sp->sample_size, "min_round_ns", (json_int_t)sp->min_round_ns,
                     "warmup_ns", (json_int_t)sp->warmup_ns, "budget_ns",
                     (json_int_t)sp->budget_ns, "repetition", (json_int_t)sp->repetition,
                     "repetitions", (json_int_t)sp->repetitions);
}

/* The calibration: its rounds as [sample_size, busy_ns] pairs, and the
 * rest of what the engine says of it. */
static json_t *calibration_json(const ompb__record *rec)
{
    json_t *steps = json_array();
    int bad = !steps;
    size_t n = rec->n_calib_steps < OMPB__CALIB_STEPS_MAX ? rec->n_calib_steps
                                                          : OMPB__CALIB_STEPS_MAX;
    for (size_t i = 0; i < n && !bad; i++)
        bad |= json_array_append_new(steps, json_pack("[I, I]",
                                                      (json_int_t)rec->calib_steps[i].sample_size,
                                                      (json_int_t)rec->calib_steps[i].busy_ns));
    json_t *o = json_object();
    bad |= set(o, "steps", steps);
    bad |= set(o, "barrier_cost_ns", json_real(rec->barrier_cost_ns));
    bad |= set(o, "disturbed", json_boolean(rec->calibration_disturbed));
    bad |= set(o, "short_reason", escaped(rec->short_reason));
    return bad ? (json_decref(o), NULL) : o;
}

/* --counters: the events as the engine resolved them, and the raw values. */
static json_t *counters_json(const ompb__record *rec)
{
    const ompb__counter_set *cs = &rec->counters;
    size_t cells = rec->rounds * (size_t)rec->threads;
    json_t *events = json_array();
    int bad = !events;
    for (int e = 0; e < cs->n && !bad; e++) {
        const ompb__counter_event *ev = &cs->ev[e];
        bad |= json_array_append_new(
            events, json_pack("{s:s, s:I, s:I, s:I, s:I, s:b, s:i, s:b}", "name", ev->name,
                              "type", (json_int_t)ev->type, "config", (json_int_t)ev->config,
                              "config1", (json_int_t)ev->config1, "config2",
                              (json_int_t)ev->config2, "kernel", ev->kernel, "unit",
                              (int)ev->unit, "named", ev->named));
    }
    json_t *o = json_object();
    bad |= set(o, "events", events);
    bad |= set(o, "values", u64_array(rec->counter_values, cells * (size_t)cs->n));
    bad |= set(o, "time_enabled_ns", u64_array(rec->counter_enabled_ns, cells));
    bad |= set(o, "time_running_ns", u64_array(rec->counter_running_ns, cells));
    return bad ? (json_decref(o), NULL) : o;
}

/* ompb_counter: {"names": [...], "flags": [...], "values": [round-major,
 * OMPB__UCOUNTERS_MAX a round]}; doubles, so never through u64_array. */
static json_t *ucounters_json(const ompb__record *rec)
{
    const ompb__ucounter_table *tab = &rec->ucounters;
    json_t *o = json_object(), *names = json_array(), *flags = json_array(), *values = json_array();
    int bad = !o || !names || !flags || !values;
    for (int k = 0; k < tab->n && !bad; k++) {
        bad |= json_array_append_new(names, json_string(tab->name[k]));
        bad |= json_array_append_new(flags, json_integer(tab->flags[k]));
    }
    for (size_t i = 0; i < rec->rounds * OMPB__UCOUNTERS_MAX && !bad; i++)
        bad |= json_array_append_new(values, json_real(rec->ucounter_values[i]));
    bad |= set(o, "names", names);
    bad |= set(o, "flags", flags);
    bad |= set(o, "values", values);
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *record_json(const ompb__record *rec, size_t index)
{
    size_t T = (size_t)rec->threads;
    size_t cells = rec->rounds * (size_t)ompb__record_timed_threads(rec);
    json_t *o = json_object();
    int bad = set(o, "instance", u64(index));
    bad |= set(o, "name", escaped(rec->inst->name));
    bad |= set(o, "threads", json_integer(rec->threads));
    bad |= set(o, "caller_team", json_boolean(rec->caller_team));
    bad |= set(o, "sampling", sampling_json(&rec->sampling));
    bad |= set(o, "failed", json_boolean(rec->failed));
    bad |= set(o, "error", escaped(rec->error));
    bad |= set(o, "calibration", calibration_json(rec));
    const struct { const char *key; uint64_t v; } scalars[] = {
        {"sample_size", rec->sample_size}, {"round_target_ns", rec->round_target_ns},
        {"warmup_rounds", rec->warmup_rounds}, {"warmup_iters", rec->warmup_iters},
        {"warmup_ns", rec->warmup_ns}, {"calibration_rounds", rec->calibration_rounds},
        {"bytes_per_iter", rec->bytes_per_iter}, {"items_per_iter", rec->items_per_iter},
        {"cpu_ns", rec->cpu_ns}, {"migrations", rec->migrations},
        {"nested_regions", rec->nested_regions},
        {"measure_wall_ns", rec->measure_wall_ns}, {"recalibrations", rec->recalibrations},
        {"other_width_regions", rec->other_width_regions},
    };
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        bad |= set(o, scalars[i].key, u64(scalars[i].v));
    bad |= set(o, "start_ns", u64_array(rec->start_ns, rec->rounds));
    bad |= set(o, "end_ns", u64_array(rec->end_ns, rec->rounds));
    bad |= set(o, "thread_start_ns", u64_array(rec->thread_start_ns, cells));
    bad |= set(o, "busy_ns", u64_array(rec->busy_ns, cells));
    bad |= set(o, "thread_iters", u64_array(rec->thread_iters, cells));
    bad |= set(o, "os_tid", int_array(rec->os_tid, rec->os_tid ? T : 0));
    bad |= set(o, "thread_pu", int_array(rec->thread_pu, rec->thread_pu ? T : 0));
    if (rec->involuntary_switches)
        bad |= set(o, "involuntary_switches", u64_array(rec->involuntary_switches, T));
    if (rec->away_ns) {
        bad |= set(o, "away_ns", u64_array(rec->away_ns, rec->rounds * T));
        bad |= set(o, "preemptions", u64_array(rec->preemptions, rec->rounds * T));
    }
    bad |= set(o, "accounting_off", escaped(rec->accounting_off));
    json_t *code = ompb__json_code_location(rec);
    if (code)
        bad |= set(o, "code", code);
    if (rec->counters.n > 0)
        bad |= set(o, "counters", counters_json(rec));
    if (rec->ucounters.n > 0)
        bad |= set(o, "user_counters", ucounters_json(rec));
    return bad ? (json_decref(o), NULL) : o;
}

static json_t *dump_json(const ompb__dump_out *d, const ompb__instance *base)
{
    json_t *records = json_array(), *warnings = json_array();
    int bad = !records || !warnings;
    for (size_t i = 0; i < d->n && !bad; i++)
        bad |= json_array_append_new(records, record_json(d->records[i],
                                                          (size_t)(d->records[i]->inst - base)));
    for (size_t i = 0; d->ctx && i < d->ctx->n_warnings && !bad; i++)
        bad |= json_array_append_new(warnings, escaped(d->ctx->warnings[i]));
    json_t *root = json_object();
    bad |= set(root, "ompbench_dump", json_integer(OMPB__DUMP_VERSION));
    bad |= set(root, "process", u64(d->process));
    bad |= set(root, "warnings", warnings);
    bad |= set(root, "records", records);
    return bad ? (json_decref(root), NULL) : root;
}

/* ---- signals held while the dump is made --------------------------------- */

/* A child that a signal ends between the first record it serializes and
 * the rename of its file hands its parent nothing, although its completed
 * repetitions were in hand. The signals that end a run are held instead
 * (a handler that notes the first, SA_RESTART so that the writes go on)
 * and delivered, under the actions found, once the file is in place or the
 * write failed. An ignored signal stays ignored. */
static const int held_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_HELD (sizeof held_signals / sizeof held_signals[0])

static volatile sig_atomic_t held;

static bool note_signal(int sig, const siginfo_t *info, void *arg)
{
    (void)info;
    (void)arg;
    if (!held)
        held = sig;
    return true;
}

static void hold_signals(int *ids)
{
    held = 0;
    for (size_t i = 0; i < N_HELD; i++)
        ids[i] = ompb__signal_app_action(held_signals[i]) == OMPB__SIGNAL_APP_IGNORED
                     ? -1
                     : ompb__signal_register(held_signals[i], note_signal, NULL,
                                             OMPB__SIGNAL_RESTART | OMPB__SIGNAL_MASK_ALL);
}

static void release_signals(const int *ids)
{
    for (size_t i = 0; i < N_HELD; i++)
        ompb__signal_unregister(ids[i]);
    if (held)
        raise(held); /* this thread's mask is the run's: delivered now */
}

static int write_json(const char *path, const ompb__dump_out *dump, ompb_error *err)
{
    json_t *root = dump_json(dump, dump->sel);
    if (!root)
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory writing the records");
    ompb__outfile of;
    int rc = ompb__outfile_open(&of, path, err);
    if (rc == 0) {
        if (json_dumpf(root, of.fp, JSON_COMPACT) != 0 || fputc('\n', of.fp) == EOF) {
            ompb__outfile_abort(&of);
            rc = ompb__error_set(err, OMPB_EIO, "cannot write '%s'", path);
        } else {
            rc = ompb__outfile_commit(&of, err);
        }
    }
    json_decref(root);
    return rc;
}

int ompb__dump_write(const char *path, const ompb__dump_out *dump, ompb_error *err)
{
    int ids[N_HELD];
    hold_signals(ids);
    int rc = write_json(path, dump, err);
    release_signals(ids);
    return rc;
}

json_t *ompb__dump_record_to_json(const ompb__record *rec, size_t instance)
{
    return record_json(rec, instance);
}
