/* SPDX-License-Identifier: MIT */
/*
 * Who binds the team threads. hwloc binding and OMP_PLACES/OMP_PROC_BIND
 * both end in sched_setaffinity and the last one wins, so a run decides
 * once, from --pin and the variables that make the OpenMP runtime bind
 * (OMP_PLACES, OMP_PROC_BIND, GOMP_CPU_AFFINITY, KMP_AFFINITY), and says
 * so. Also the OpenMP runtime's own view of placement, as text.
 */
#ifndef OMPB_BINDER_H
#define OMPB_BINDER_H

#include <stddef.h>

#include "placement/pin.h"

/* Who binds the team threads: whoever actually does, not what was asked. */
typedef enum {
    OMPB__BINDER_OURS,     /* we bind each team thread to plan->pu[t] */
    OMPB__BINDER_RUNTIME,  /* the OpenMP runtime binds (OMP_PLACES, OMP_PROC_BIND,
                            * GOMP_CPU_AFFINITY or KMP_AFFINITY set; no --pin or --pin none) */
    OMPB__BINDER_NONE      /* nobody: --pin none, or OMP_PROC_BIND=false without --pin */
} ompb__binder;

/* Room for ompb__binder_describe's text. */
#define OMPB__PLACEMENT_TEXT_MAX 320
/* Room for ompb__omp_places_text's text in the run header and --show-plan. */
#define OMPB__PLACES_TEXT_MAX 256

/* Who binds for this --pin value (NULL: not given) in the current
 * environment:
 * - a policy that binds (compact, spread, cpus:LIST): we do (last, over any
 *   runtime placement);
 * - none or not given: the OpenMP runtime when it binds, i.e. when
 *   OMP_PLACES, OMP_PROC_BIND, GOMP_CPU_AFFINITY or KMP_AFFINITY is set
 *   and OMP_PROC_BIND is not false;
 * - otherwise nobody for none or OMP_PROC_BIND=false, and we (compact) when
 *   not given. */
ompb__binder ompb__binder_for(const ompb__pin_spec *pin);

/* "ompbench", "runtime" or "none" (static). */
const char *ompb__binder_name(ompb__binder binder);

/* The policy a plan records for this --pin value: the value itself, else
 * "runtime" when the OpenMP variables above decide, else "compact" (static,
 * or pin->text). */
const char *ompb__binder_policy_name(const ompb__pin_spec *pin);

/* The placement line of the run header and --show-plan, e.g. "--pin compact
 * (default); ompbench binds each team thread to one PU at team start
 * (hwloc)": what was chosen, who binds and why, truncated to len. */
void ompb__binder_describe(const ompb__pin_spec *pin, char *buf, size_t len);

/* The OpenMP places as the runtime reports them, "{0,1},{2,3}", or "none";
 * truncated to len. */
void ompb__omp_places_text(char *buf, size_t len);

/* The runtime's proc_bind setting for the initial thread (an omp_proc_bind_t). */
int ompb__omp_proc_bind(void);

/* "false", "true", "primary", "close", "spread" for an omp_proc_bind_t (static). */
const char *ompb__proc_bind_name(int bind);

#endif
