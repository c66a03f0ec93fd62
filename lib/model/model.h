/* SPDX-License-Identifier: MIT */
/*
 * The face of lib/model/ (layer model: the values every later layer reads: instances (registry), the engine's sampling, the record, user-counter tables): what other
 * folders include of it, and all they include (tests/boundary/layers.txt,
 * checked by boundary.include_rule). Headers of the folder that no other
 * folder needs stay out, and so private to it.
 */
#ifndef OMPB_MODEL_MODEL_H
#define OMPB_MODEL_MODEL_H

#include "model/record.h"
#include "model/registry.h"
#include "model/sampling.h"
#include "model/ucounter.h"

#endif
