/* SPDX-License-Identifier: MIT */
/*
 * The face of lib/hooks/ (layer hooks: the CodSpeed runner: wire codec, FIFO transport, public hooks API, the instrument (markers from a record)): what other
 * folders include of it, and all they include (tests/boundary/layers.txt,
 * checked by boundary.include_rule). Headers of the folder that no other
 * folder needs stay out, and so private to it.
 */
#ifndef OMPB_HOOKS_HOOKS_H
#define OMPB_HOOKS_HOOKS_H

#include "hooks/codec.h"
#include "hooks/instrument.h"
#include "hooks/runner_gate.h"

#endif
