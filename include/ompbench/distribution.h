/* SPDX-License-Identifier: MIT */
/*
 * Distribution: running the rounds of every instance across several
 * processes (MPI ranks), each with its own OpenMP team. libompbench knows no
 * MPI: it calls the few collective operations below, which a distribution
 * library provides (ompbench::mpi, libompbench_mpi, maps them to MPI and
 * calls ompb_set_distribution() from its own main() before ompb_main()).
 * Without one, a run is one process, as always.
 *
 * Every operation is called by the master thread of the engine only (the
 * thread that called ompb_main), outside every timed window, in the same
 * order on every rank. An operation returns 0, or a negative OMPB_E* code
 * after printing one line saying why (a rank that died, a deadline passed);
 * the engine then stops the run, and the distribution's abort() ends every
 * rank with the given status.
 */
#ifndef OMPBENCH_DISTRIBUTION_H
#define OMPBENCH_DISTRIBUTION_H

#include <stddef.h>
#include <stdint.h>

#include <ompbench/export.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ompb_distribution {
    int rank, size;          /* this process's rank, and how many there are */
    void *ctx;               /* handed back to every operation */
    /* v[0..n) := the element-wise maximum over all ranks, in place. It
     * returns on no rank before every rank has called it, so it is also
     * the barrier that starts every round: the engine reads its clock right
     * after it returns (each rank's common event). wait_hint_ns: how long
     * this rank's own last round took, so a deadline can allow for slower
     * ranks (0: no round just ran). */
    int (*max_i64)(void *ctx, int64_t *v, int n, uint64_t wait_hint_ns);
    /* Rank 0 receives every rank's `bytes` bytes in rank order into recv
     * (size * bytes); other ranks pass recv = NULL. */
    int (*gather)(void *ctx, const void *send, size_t bytes, void *recv);
    /* Ends every rank now with this exit status (after a message). */
    void (*abort)(void *ctx, int status);

    /* What the distribution learned at start-up, for the run context; the
     * strings stay valid until ompb_main returns. NULL/0: unknown. */
    const char *const *hosts;    /* [size] host name of each rank */
    const char *const *cpusets;  /* [size] PUs each rank may run on, as a list "0-3,8" */
    const int64_t *clock_offset_ns;  /* [size] rank's clock minus rank 0's (estimate) */
    const uint64_t *clock_offset_error_ns; /* [size] half the ping-pong round trip */
    double barrier_exit_skew_ns; /* median spread of the barrier's exit times */
    const char *clock_method;    /* how the above was estimated, one line */
    const char *warning;         /* a placement warning (overlapping ranks), or NULL */
    const char *library;         /* e.g. "Open MPI v4.1.4" */
} ompb_distribution;

/* Installs d (copied; the pointers it holds are borrowed) for the next
 * ompb_main(); NULL restores the single process. Returns 0, or OMPB_EINVAL
 * when d's rank/size are out of range or an operation is missing. */
OMPB_API int ompb_set_distribution(const ompb_distribution *d);

#ifdef __cplusplus
}
#endif

#endif /* OMPBENCH_DISTRIBUTION_H */
