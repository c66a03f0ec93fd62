/* SPDX-License-Identifier: MIT */
/*
 * The face of lib/engine/ (layer engine: the engine environment, the team core and its two drivers (harness team, caller team), calibration, per-thread state, the body's calls, page check, fork watch, body guard, distribution steps): what other
 * folders include of it, and all they include (tests/boundary/layers.txt,
 * checked by boundary.include_rule). Headers of the folder that no other
 * folder needs stay out, and so private to it.
 */
#ifndef OMPB_ENGINE_ENGINE_H
#define OMPB_ENGINE_ENGINE_H

#include "engine/body_guard.h"
#include "engine/dist.h"
#include "engine/fork_guard.h"
#include "engine/round.h"

#endif
