/* SPDX-License-Identifier: MIT */
/*
 * The hand-over from a process-level repetition (a child of --processes) to
 * its parent: every record the child measured, whole (raw round bounds,
 * per-thread starts, busy times, iterations, the sampling it was given,
 * whether the team was the caller's, nested regions, involuntary switches,
 * and the --counters events with every raw value and enabled/running
 * time), and the warnings it raised, as one private JSON file. The parent turns the
 * records back into results exactly as if it had measured them itself; no
 * statistic crosses the boundary. Not a user-facing format: it may change
 * with any version, since parent and child are always the same binary.
 */
#ifndef OMPB_DUMP_H
#define OMPB_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include <ompbench/error.h>

#include "context/context.h"
#include "model/model.h"

/* What the child hands over: records[i] for every repetition it ran. */
typedef struct ompb__dump_out {
    uint32_t process;
    const ompb__instance *sel;            /* the run's selected instances */
    const ompb__record *const *records;   /* [n], each with rec->inst in sel */
    size_t n;
    const ompb__context *ctx;             /* its warnings go along; may be NULL */
} ompb__dump_out;

/* Writes the dump to path atomically (lib/outfile). Returns 0, OMPB_EIO or
 * OMPB_ENOMEM with err set. SIGINT, SIGTERM or SIGHUP (those not ignored)
 * arriving meanwhile are held until the file is in place (or the write
 * failed), then delivered under the actions the caller had: a child that
 * a signal reaches while it writes hands over every record, then dies of
 * that signal. */
int ompb__dump_write(const char *path, const ompb__dump_out *dump, ompb_error *err);

/* Called by ompb__dump_read for each record read: inst is the selected
 * instance it belongs to (matched by name), rec the record to take over (the
 * callee owns it, ompb__record_free). Returns 0 to go on. */
typedef int (*ompb__dump_record_fn)(void *arg, size_t instance, ompb__record *rec,
                                    ompb_error *err);

/*
 * Reads the dump of process `process` from path: every record must belong
 * to one of inst[n_inst] (by name, with that instance's thread count) and
 * to a repetition below `repetitions` that this process owns (r mod
 * processes == process). The child's warnings are raised in ctx (printed
 * once, as the child itself stays quiet). Returns 0; OMPB_EIO (unreadable), OMPB_EINVAL (malformed: err says
 * where), OMPB_ENOMEM.
 */
int ompb__dump_read(const char *path, uint32_t process, uint32_t processes,
                    uint32_t repetitions, const ompb__instance *inst, size_t n_inst,
                    ompb__context *ctx, ompb__dump_record_fn fn, void *arg, ompb_error *err);

/*
 * One record in the dump's own form, for the run's journal (lib/run/journal.h),
 * so that whatever the dump carries the journal carries too. to_json:
 * instance is rec->inst's index in the selection; returns a new JSON object
 * (the caller json_decref's it), NULL when out of memory. from_json: checks
 * o as the dump reader checks a record (where names it in messages, e.g. the
 * file), fills rec (the caller frees it with ompb__record_free, also on
 * failure) and *instance. Returns 0, OMPB_EINVAL (err set) or OMPB_ENOMEM.
 */
struct json_t;
struct json_t *ompb__dump_record_to_json(const ompb__record *rec, size_t instance);
int ompb__dump_record_from_json(const struct json_t *o, const char *where, size_t index,
                                const ompb__instance *inst, size_t n_inst, size_t *instance,
                                ompb__record *rec, ompb_error *err);

#endif
