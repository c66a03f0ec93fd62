/* SPDX-License-Identifier: MIT */
/*
 * --show-plan: the placement preview. Prints the topology summary, who
 * binds and why, and each instance's thread -> PU (core) map, from plans
 * made before anything runs.
 */
#ifndef OMPB_REPORT_PLAN_H
#define OMPB_REPORT_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "placement/placement.h"
#include "model/model.h"

/* Prints the preview of n instances to out: plans[i] is inst[i]'s plan,
 * made on topo for the --pin value pin (NULL: not given). Reads the OpenMP
 * runtime's places when it binds. Write errors are left to the caller
 * (ferror(out)). */
void ompb__report_plan(FILE *out, const ompb__topology *topo, const ompb__pin_spec *pin,
                       const ompb__instance *inst, ompb__pin_plan *const *plans, size_t n);

#endif
