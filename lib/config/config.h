/* SPDX-License-Identifier: MIT */
/*
 * The face of lib/config/ (layer config: argv and environment -> ompb__config (validated once), --filter, the schedule, config -> sampling): what other
 * folders include of it, and all they include (tests/boundary/layers.txt,
 * checked by boundary.include_rule). Headers of the folder that no other
 * folder needs stay out, and so private to it.
 */
#ifndef OMPB_CONFIG_CONFIG_H
#define OMPB_CONFIG_CONFIG_H

#include "config/cli.h"
#include "config/filter.h"
#include "config/schedule.h"

#endif
