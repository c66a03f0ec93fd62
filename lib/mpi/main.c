/* SPDX-License-Identifier: MIT */
/*
 * main() of libompbench_mpi (ompbench::mpi): a benchmark binary linked to it
 * runs as one MPI rank. MPI is initialized with MPI_THREAD_FUNNELED (only
 * this thread, the engine's master, calls MPI; the OpenMP team threads
 * never do), errors are returned rather than fatal, the distribution is
 * installed with the fork guard (ompbench::fork_guard, as ompbench::main
 * does), and ompb_main runs every round across the ranks.
 * OMPB_MPI_TIMEOUT (seconds, default 10) bounds every wait for the other
 * ranks beyond the round this rank just ran.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include <ompbench/distribution.h>
#include <ompbench/fork_guard.h>
#include <ompbench/run.h>

#include "mpi_dist.h"

#define DEFAULT_TIMEOUT_S 10.0

/* OMPB_MPI_TIMEOUT: seconds, > 0; returns a negative value when invalid. */
static double timeout_from_env(void)
{
    const char *v = getenv("OMPB_MPI_TIMEOUT");
    if (!v)
        return DEFAULT_TIMEOUT_S;
    char *end;
    errno = 0;
    double s = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(s) || s <= 0 || s > 86400)
        return -1;
    return s;
}

/* v with control characters as \xNN, cut to fit out: this library sees
 * only the public API, so it has its own copy of the rule every message
 * follows (one line; a value cannot drive the terminal). */
static const char *escaped(const char *v, char *out, size_t cap)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)v; *p && o + 5 < cap; p++) {
        if (*p < 0x20 || *p == 0x7f)
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *p);
        else
            out[o++] = (char)*p;
    }
    out[o] = '\0';
    return out;
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "%s: MPI_Init_thread failed\n", argc > 0 ? argv[0] : "ompbench");
        return OMPB_EXIT_FAILED;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double timeout = timeout_from_env();
    if (timeout < 0) {
        /* Every rank sees the same environment: all stop here. */
        char value[128];
        if (rank == 0)
            fprintf(stderr, "%s: OMPB_MPI_TIMEOUT: invalid value '%s' (accepted: seconds, a "
                    "number > 0 and <= 86400, e.g. 30)\n", argv[0],
                    escaped(getenv("OMPB_MPI_TIMEOUT"), value, sizeof value));
        MPI_Finalize();
        return OMPB_EXIT_USAGE;
    }
    if (provided < MPI_THREAD_FUNNELED && rank == 0)
        fprintf(stderr, "%s: warning: the MPI library gives thread level %d, below "
                "MPI_THREAD_FUNNELED\n", argv[0], provided);
    ompb_distribution d;
    ompb__mpi_dist *md = ompb__mpi_dist_new(timeout, &d);
    if (!md || ompb_set_distribution(&d) != 0) {
        fprintf(stderr, "%s: rank %d: the ranks could not be set up\n", argv[0], rank);
        MPI_Abort(MPI_COMM_WORLD, OMPB_EXIT_FAILED);
        return OMPB_EXIT_FAILED;
    }
    (void)ompb_set_fork_guard(&ompb_fork_guard_gnu); /* cannot fail: it has its watch */
    int status = ompb_main(argc, argv);
    ompb_set_fork_guard(NULL);
    ompb_set_distribution(NULL);
    ompb__mpi_dist_free(md);
    MPI_Finalize();
    return status;
}
