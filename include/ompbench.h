/* SPDX-License-Identifier: MIT */
/*
 * ompbench: a benchmark harness for OpenMP code.
 *
 * Conventions for every function of the library (see ompbench/error.h):
 * 0 on success, a negative OMPB_E* code on failure, NULL for a failed pointer
 * return; every function that returns an allocated object says who frees it.
 *
 *   ompbench/bench.h    declaring benchmarks (OMPB_BENCH, OMPB_ITER, ...)
 *   ompbench/run.h      ompb_main(): the command line of benchmark binaries
 *   ompbench/region.h   region markers for application code
 *   ompbench/hooks.h    the CodSpeed runner hooks, for hand-written loops
 *   ompbench/fork_guard.h  the fork guard, for main() libraries
 *   ompbench/error.h    error codes
 *   ompbench/version.h  version
 *   ompbench/export.h   OMPB_API, the mark of every exported function
 */
#ifndef OMPBENCH_H
#define OMPBENCH_H

#include <ompbench/error.h>
#include <ompbench/version.h>
#include <ompbench/bench.h>
#include <ompbench/run.h>
#include <ompbench/region.h>
#include <ompbench/hooks.h>
#include <ompbench/distribution.h>
#include <ompbench/fork_guard.h>

#endif /* OMPBENCH_H */
