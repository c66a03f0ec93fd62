/* SPDX-License-Identifier: MIT */
/*
 * libompbench_mpi's distribution (include/ompbench/distribution.h) on MPI:
 * nonblocking collectives on MPI_COMM_WORLD waited for with a deadline, the
 * start-up estimates of the ranks' clocks and barrier exit skew, and what
 * each rank runs on. Only the thread that called MPI_Init_thread calls in.
 */
#ifndef OMPB_MPI_DIST_H
#define OMPB_MPI_DIST_H

#include <ompbench/distribution.h>

typedef struct ompb__mpi_dist ompb__mpi_dist;

/* After MPI_Init_thread: fills *out (valid until ompb__mpi_dist_free) from
 * a start-up exchange with every rank; timeout_s bounds every wait beyond
 * the round a rank itself just ran. Returns NULL (after a message) when the
 * exchange failed. */
ompb__mpi_dist *ompb__mpi_dist_new(double timeout_s, ompb_distribution *out);
void ompb__mpi_dist_free(ompb__mpi_dist *md);

#endif
