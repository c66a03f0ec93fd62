/* SPDX-License-Identifier: MIT */
/*
 * Pages where the threads are: the NUMA check behind ompb_declare_buffer.
 * A team thread declares its share of the data in .thread_setup, after it
 * first-touched it; the share's pages are looked up with move_pages(2) in
 * query mode and counted against the NUMA node of the PU the thread runs on.
 * After every thread's setup the engine turns the tallies into at most one
 * warning per instance, when a thread's share lies mostly on another node
 * (first touch by one thread: the most common wrong STREAM result on
 * multi-socket nodes) or is mostly untouched. Every system call goes through
 * an ops table that the engine's environment names (ompb__engine_env.pages,
 * handed to each team thread's state); tests pass a double there.
 */
#ifndef OMPB_PAGES_H
#define OMPB_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ompbench/bench.h>

struct ompb__record;

/* Most pages one declaration looks up: a larger share is sampled evenly,
 * so the check costs the same for a 4 KB and a 64 GB share. */
#define OMPB__PAGES_SAMPLE_MAX 4096
/* A share is "mostly" elsewhere past this fraction of its looked-up pages. */
#define OMPB__PAGES_MOSTLY 0.5

/* What one thread's declarations found (lives in its ompb_state). */
typedef struct ompb__pages_tally {
    uint64_t bytes;       /* declared, in all */
    uint64_t pages;       /* looked up */
    uint64_t local;       /* on the thread's node, or on a CPU-less node */
    uint64_t remote;      /* on another node */
    uint64_t absent;      /* not touched yet (no page) */
    int thread_node;      /* node of the thread's PU at the declaration, -1 unknown */
    int remote_node;      /* the node most remote pages were on (when remote > 0) */
    int query_errno;      /* the query failed (ENOSYS, EPERM: no check), 0 ok */
} ompb__pages_tally;

/* The system calls behind the check; each returns what the call does, with
 * -errno instead of -1. */
typedef struct ompb__pages_ops {
    /* move_pages(2) in query mode (nodes NULL): status[i] gets the node of
     * pages[i] or -errno (-ENOENT: not present). */
    long (*query)(unsigned long count, void **pages, int *status);
    /* The NUMA node of the CPU the calling thread runs on, -1 unknown. */
    int (*current_node)(void);
    long (*page_size)(void);
    /* Whether NUMA node `node` has CPUs: pages on a CPU-less node (HBM in
     * KNL's flat mode, CXL memory) are there by policy, never by first
     * touch, so they are not counted as misplaced. */
    bool (*node_has_cpus)(int node);
} ompb__pages_ops;

/* The real system calls. */
extern const ompb__pages_ops ompb__pages_ops_system;

/* Looks up the pages of [ptr, ptr + bytes) from the calling thread through
 * ops (NULL: ompb__pages_ops_system) and adds them to *tally. Returns 0, or
 * -errno when the query failed (then tally->query_errno is set and nothing
 * else is added). */
int ompb__pages_tally_share(const ompb__pages_ops *ops, ompb__pages_tally *tally,
                            const void *ptr, size_t bytes);

/* Whether a tally deserves the warning: mostly on another node, or mostly
 * untouched. */
bool ompb__pages_misplaced(const ompb__pages_tally *tally);

/* The instance's one warning over the tallies of its n team threads
 * (states[t].pages), into rec; nothing when every declared share is in
 * place, nothing was declared or the query is not available. */
void ompb__pages_report(const ompb_state *states, int n, struct ompb__record *rec);

#endif
