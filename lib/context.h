/* SPDX-License-Identifier: MIT */
/*
 * The run environment: host, CPU, topology summary, OpenMP runtime and
 * settings, compiler, load, pin policy; and the warnings that make numbers
 * suspect. Collected once per run, printed as the console header and
 * written as the JSON "context" object.
 */
#ifndef OMPB_CONTEXT_H
#define OMPB_CONTEXT_H

#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "pin_plan.h"
#include "topology.h"

typedef struct ompb__context ompb__context;

/* Collects the context for a run of argv0 with cfg (cfg may be NULL) and
 * raises the warnings that depend only on the environment: unoptimized
 * build of libompbench, OMP_WAIT_POLICY=passive, frequency governor not
 * "performance". Strings from outside (argv0, host name, CPU model) need not
 * be UTF-8: the JSON gets a valid stand-in. NULL on ENOMEM.
 * Freed with ompb__context_free. */
ompb__context *ompb__context_new(const ompb__config *cfg, const char *argv0);
void ompb__context_free(ompb__context *ctx);

/* Adds a warning (one line, printed to stderr at once as
 * "ompbench: warning: ..." and recorded). A warning identical to one already
 * recorded is neither printed nor recorded again. ctx may be NULL (print only). */
void ompb__context_warn(ompb__context *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records the topology summary (machine counts, usable cpuset, CPU model)
 * and the cache levels, and warns when the load average is above the usable
 * cores, or above the machine's PUs when this process may use only some of
 * them (the load counts the whole machine). Until it is called the context
 * knows nothing of the machine (JSON nulls, "topology unknown").
 * topo is not kept. */
void ompb__context_set_topology(ompb__context *ctx, const ompb__topology *topo);

/* Records the policy, binder and thread -> PU map of a plan (once per thread
 * count) and warns, once per run, on oversubscription and on threads that
 * nobody pins (or that a runtime reporting proc_bind false was left to
 * pin). plan is not kept. */
void ompb__context_add_plan(ompb__context *ctx, const ompb__pin_plan *plan);

/* The Google Benchmark "context" object plus our "ompbench" extras.
 * New reference; the caller json_decref()s it. NULL on ENOMEM. */
json_t *ompb__context_to_json(const ompb__context *ctx);

/* Console run header (a few lines). */
void ompb__context_print_header(FILE *out, const ompb__context *ctx);

/* Tests only: read /proc and /sys files below root instead of "/"
 * (NULL restores "/"). Affects contexts created afterwards. */
void ompb__context_set_sysroot(const char *root);

#endif
