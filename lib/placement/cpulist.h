/* SPDX-License-Identifier: MIT */
/*
 * PU lists as users write them, "0-3,6,9": the LIST of --pin cpus:LIST and
 * the masks the tests restrict topologies to. Only the syntax is checked
 * here; whether the PUs exist or may be used is the caller's business.
 */
#ifndef OMPB_CPULIST_H
#define OMPB_CPULIST_H

#include <stddef.h>

/* An OS index above this is a typo, not a machine; also the largest mask
 * the process affinity is read into (lib/placement/topology.c). */
#define OMPB__CPULIST_MAX_INDEX (1 << 20)
/* Most PUs one list may name. */
#define OMPB__CPULIST_MAX_PUS 65536
/* Room for the reason ompb__cpulist_parse gives. */
#define OMPB__CPULIST_WHY_MAX 96

/*
 * Parses text: items "N" or "N-M" (N <= M) separated by single commas, no
 * spaces, no PU named twice (almost surely a typo), each at most
 * OMPB__CPULIST_MAX_INDEX, at most OMPB__CPULIST_MAX_PUS in all.
 * On success returns 0 with *n set and, unless pus is NULL (check only),
 * *pus a malloc'd array of the *n PUs in the order written (the caller
 * frees it). Otherwise returns OMPB_EINVAL with why set to the first
 * problem, e.g. "range 3-1 is reversed", "PU 1 is listed twice",
 * "unexpected 'x' (expected a PU number or a range N-M)", "a PU number is
 * missing at the end", "PU number above 1048576", or OMPB_ENOMEM ("out of
 * memory"); *pus is then NULL.
 */
int ompb__cpulist_parse(const char *text, int **pus, int *n, char *why, size_t why_len);

#endif
