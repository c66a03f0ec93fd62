/* SPDX-License-Identifier: MIT */
/*
 * Inside the counters module (lib/counters/counters.h is its face): what its files
 * share and nothing outside includes. Each file calls only those listed
 * after it:
 *
 * - lib/counters/counters_list.c: --list-counters;
 * - lib/counters/counters.c: groups: the perf_event_attr of an event, open, read,
 *   the window brackets, multiplex scaling and the probe;
 * - lib/counters/counters_refusals.c: the one-line reason when perf_event_open
 *   refuses an event;
 * - lib/counters/counters_ops.c: the system calls behind an ops table, and the
 *   kernel's paranoid level;
 * - lib/counters/counters_names.c: the table of events and their aliases (data),
 *   canonical names, and parsing a --counters list;
 * - lib/counters/counters_pfm.c: libpfm4, opened at run time, for the processor's
 *   named events.
 */
#ifndef OMPB_COUNTERS_INTERNAL_H
#define OMPB_COUNTERS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ompbench/error.h>

#include "counters/counters.h"

struct perf_event_attr;

/* ---- lib/counters/counters.c ----------------------------------------------------------- */

/* The attributes ev is opened with: counting disabled for a group's
 * leader (its members follow it), kernel counting only where ev->kernel,
 * and the read format of a whole group with its enabled/running times. */
void ompb__counters_make_attr(struct perf_event_attr *attr, const ompb__counter_event *ev,
                              bool leader);

/* ---- lib/counters/counters_refusals.c ------------------------------------------------ */

/* Fills err with the one line for event i of set refused by
 * perf_event_open with errno e (i > 0 and EINVAL: the group is full):
 * which event, why (the paranoid level as ops read it), and how to fix it.
 * Returns OMPB_EINVAL. */
int ompb__counters_open_error(const ompb__counter_ops *ops, ompb_error *err,
                              const ompb__counter_set *set, int i, int e);

/* ---- lib/counters/counters_ops.c ----------------------------------------------------- */

/* ops, or the system's when NULL. */
const ompb__counter_ops *ompb__counters_ops(const ompb__counter_ops *ops);
/* kernel.perf_event_paranoid through ops (NULL, or no paranoid function:
 * the system's), or OMPB__PARANOID_UNKNOWN. */
int ompb__counters_paranoid(const ompb__counter_ops *ops);

/* ---- lib/counters/counters_names.c --------------------------------------------------- */

/* One other name of an event (perf's, or a spelling users write): a
 * --counters list may use it, results carry the canonical name. */
typedef struct ompb__counter_alias {
    const char *alias;
    const char *canonical;      /* a generic or cache event's name, or a libpfm4 name */
} ompb__counter_alias;

/* The alias table, for tests that check it is consistent. */
extern const ompb__counter_alias ompb__counter_aliases[];
extern const size_t ompb__counter_n_aliases;

/* Resolves a generic or cache event (not libpfm4's) by any of its names
 * into *ev, canonical name set; false when unknown. */
bool ompb__counters_find(const char *name, ompb__counter_event *ev);
/* Calls fn for every generic event (cache false) or every cache event, in
 * --list-counters order, with its canonical name and its aliases
 * (", "-separated, "" for none). */
void ompb__counters_each_event(bool cache,
                               void (*fn)(void *arg, const char *name, const char *aliases),
                               void *arg);

/* ---- lib/counters/counters_pfm.c ----------------------------------------------------- */

/* libpfm4's encoding of a named event for perf_event_open; false when the
 * name is not libpfm4's or libpfm4 is not usable here (or not built in). */
bool ompb__counters_pfm_encode(const char *name, uint32_t *type, uint64_t config[3]);
/* --list-counters' part for libpfm4's named events (or why there are none). */
void ompb__counters_pfm_list(FILE *out);

#endif
