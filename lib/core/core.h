/* SPDX-License-Identifier: MIT */
/*
 * The face of lib/core/ (layer core: errors, UTF-8, growing arrays, numbers, clocks and TSC, the current PU, statistics, quantile sketches, atomic output files, loaded libraries, the signal owner and the signal thread, version, shared limits): what other
 * folders include of it, and all they include (tests/boundary/layers.txt,
 * checked by boundary.include_rule). Headers of the folder that no other
 * folder needs stay out, and so private to it.
 */
#ifndef OMPB_CORE_CORE_H
#define OMPB_CORE_CORE_H

#include "core/clock.h"
#include "core/constants.h"
#include "core/crash.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/histogram.h"
#include "core/libraries.h"
#include "core/outfile.h"
#include "core/parse.h"
#include "core/pu.h"
#include "core/signals.h"
#include "core/sigwatch.h"
#include "core/stats.h"
#include "core/tsc.h"
#include "core/utf8.h"

#endif
