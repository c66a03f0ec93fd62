/* SPDX-License-Identifier: MIT */
/*
 * Running the registered benchmarks: the command line every benchmark binary
 * shares. Link ompbench::main to get a main() that calls ompb_main(), or call
 * it from your own main().
 */
#ifndef OMPBENCH_RUN_H
#define OMPBENCH_RUN_H

#include <ompbench/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses of ompb_main(). */
enum {
    OMPB_EXIT_OK = 0,       /* every selected instance ran */
    OMPB_EXIT_FAILED = 1,   /* a benchmark failed (setup error, early loop exit) */
    OMPB_EXIT_USAGE = 2     /* bad option, value, filter or output path */
};

/* Parses argv (see --help), runs the selected instances and writes the
 * report. Returns one of OMPB_EXIT_*. Messages go to stderr. */
OMPB_API int ompb_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* OMPBENCH_RUN_H */
