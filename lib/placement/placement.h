/* SPDX-License-Identifier: MIT */
/*
 * The face of lib/placement/ (layer placement: the machine (hwloc), PU lists, who binds, pin policies and plans, the Slurm step): what other
 * folders include of it, and all they include (tests/boundary/layers.txt,
 * checked by boundary.include_rule). Headers of the folder that no other
 * folder needs stay out, and so private to it.
 */
#ifndef OMPB_PLACEMENT_PLACEMENT_H
#define OMPB_PLACEMENT_PLACEMENT_H

#include "placement/binder.h"
#include "placement/pin.h"
#include "placement/pin_plan.h"
#include "placement/slurm.h"
#include "placement/topology.h"

#endif
