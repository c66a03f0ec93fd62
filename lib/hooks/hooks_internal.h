/* SPDX-License-Identifier: MIT */
/*
 * What the instrument facade needs from a public hooks handle beyond the
 * public API: its transport, for pipelined flushes, and the mode the runner
 * answered.
 */
#ifndef OMPB_HOOKS_INTERNAL_H
#define OMPB_HOOKS_INTERNAL_H

#include <ompbench/hooks.h>

#include "hooks/codec.h"
#include "hooks/transport.h"

/* The handle's transport; NULL unless its mode is OMPB_HOOKS_WALLTIME. */
ompb__transport *ompb__hooks_transport(const ompb_hooks *hooks);
/* What the runner answered to GetIntegrationMode; OMPB__RUNNER_MODE_COUNT
 * when the handle does not talk to a runner. */
ompb__runner_mode ompb__hooks_runner_mode(const ompb_hooks *hooks);

/* Tests only: forgets the instrument facade's detected mode and buffers so
 * that the next ompb__instrument_init() detects afresh. */
void ompb__instrument_reset(void);

#endif
