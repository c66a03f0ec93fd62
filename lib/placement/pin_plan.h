/* SPDX-License-Identifier: MIT */
/*
 * Pin plans: for one team size, which PU each team thread binds to and who
 * binds. Plain data made once per instance from the --pin value and the
 * topology, before anything runs; the round engine binds each team thread
 * from it, the run context records it and --show-plan prints it.
 */
#ifndef OMPB_PIN_PLAN_H
#define OMPB_PIN_PLAN_H

#include <stdbool.h>

#include <ompbench/error.h>

#include "placement/binder.h"
#include "placement/pin.h"
#include "placement/topology.h"

typedef struct ompb__pin_plan {
    int threads;
    ompb__binder binder;
    const char *policy;    /* "compact", "spread", "cpus:...", "none" or "runtime"
                            * (ompb__binder_policy_name; owned by the plan) */
    bool pin_given;        /* --pin was given (none given vs. OMP_PROC_BIND=false) */
    int *pu;               /* [threads] OS index of the PU for thread t, -1 = unbound */
    int *core;             /* [threads] logical index of the core in the whole machine, -1 unknown */
    bool oversubscribed;   /* threads > distinct PUs available: the plan wraps round-robin */
    const ompb__topology *topo; /* the topology the plan was made for; must outlive the plan */
} ompb__pin_plan;

/*
 * Makes the plan for `threads` team threads and the --pin value pin (NULL
 * or zeroed: not given; then as ompb__binder_for says). When we bind,
 * threads take the PUs of the policy's order round-robin. pin is not kept.
 * *out freed with ompb__pin_plan_free. Returns 0 or OMPB_EINVAL with err set
 * (a thread count below 1, or cpus:LIST naming a PU this process may not
 * use: the message names the value and the usable PUs), OMPB_ENOMEM, or
 * OMPB_EIO (no PU found).
 */
int ompb__pin_plan_new(const ompb__topology *topo, const ompb__pin_spec *pin, int threads,
                       ompb__pin_plan **out, ompb_error *err);
void ompb__pin_plan_free(ompb__pin_plan *plan);

/* How many distinct PUs the plan's threads share: the plan's own PUs when we
 * bind, else the usable PUs. oversubscribed == (threads > this). */
int ompb__pin_plan_pus(const ompb__pin_plan *plan);

/* Called once by team thread t at team start: binds the calling thread only
 * to plan->pu[t] when binder is OURS; otherwise does nothing. Safe to call
 * concurrently from every team thread. Returns 0, OMPB_EINVAL (t out of
 * range, or a plan we should bind on a topology that is not this machine:
 * its PU numbers are not ours, and a run must not look bound when it is
 * not), OMPB_ENOMEM or OMPB_EIO (the kernel refused). */
int ompb__pin_plan_bind_self(const ompb__pin_plan *plan, int t);

#endif
