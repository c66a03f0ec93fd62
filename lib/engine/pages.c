/* SPDX-License-Identifier: MIT */
/*
 * ompb_declare_buffer and the NUMA page check: a thread's declared share is
 * looked up with move_pages(2) in query mode (the raw system call: no
 * libnuma needed), sampled to at most OMPB__PAGES_SAMPLE_MAX pages, and
 * counted against the node of the thread's PU (getcpu). The engine calls
 * ompb__pages_report once per instance after every thread's setup.
 */
#include "engine/pages.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ompbench/error.h>

#include "model/model.h"
#include "engine/state.h"

/* Pages looked up per system call: the status array stays on the stack. */
#define QUERY_BATCH 512
/* Most distinct nodes told apart when naming where remote pages were. */
#define MAX_NODES 1024

static long system_query(unsigned long count, void **pages, int *status)
{
    long rc = syscall(SYS_move_pages, 0, count, pages, NULL, status, 0);
    return rc < 0 ? -errno : rc;
}

static int system_current_node(void)
{
    unsigned cpu = 0, node = 0;
    return syscall(SYS_getcpu, &cpu, &node, NULL) == 0 ? (int)node : -1;
}

static long system_page_size(void)
{
    return sysconf(_SC_PAGESIZE);
}

/* A node whose cpulist in sysfs is empty has no CPUs; unknown counts as
 * having some (the check then stays as strict as without this). */
static bool system_node_has_cpus(int node)
{
    char path[96], line[8] = "";
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    bool some = fgets(line, sizeof line, f) && line[0] >= '0' && line[0] <= '9';
    fclose(f);
    return some;
}

const ompb__pages_ops ompb__pages_ops_system = {system_query, system_current_node,
                                                 system_page_size, system_node_has_cpus};

/* Counts one batch's statuses into tally; pages on other nodes are counted
 * per node in node_pages (decided later, once per node) unless the node
 * number is past MAX_NODES. */
static void count_batch(ompb__pages_tally *t, const int *status, long n, uint64_t *node_pages)
{
    for (long i = 0; i < n; i++) {
        t->pages++;
        if (status[i] < 0)
            t->absent++;
        else if (status[i] == t->thread_node || t->thread_node < 0)
            t->local++;
        else if (status[i] < MAX_NODES)
            node_pages[status[i]]++;
        else
            t->remote++;
    }
}

/* Other nodes' pages: misplaced on a node with CPUs, by policy on one
 * without; remote_node is the node with CPUs holding most of them. */
static void settle_nodes(const ompb__pages_ops *ops, ompb__pages_tally *t,
                         const uint64_t *node_pages)
{
    uint64_t best = 0;
    for (int n = 0; n < MAX_NODES; n++) {
        if (node_pages[n] == 0)
            continue;
        if (!ops->node_has_cpus(n)) {
            t->local += node_pages[n];
            continue;
        }
        t->remote += node_pages[n];
        if (node_pages[n] > best) {
            best = node_pages[n];
            t->remote_node = n;
        }
    }
}

int ompb__pages_tally_share(const ompb__pages_ops *ops, ompb__pages_tally *t, const void *ptr,
                            size_t bytes)
{
    if (!ops)
        ops = &ompb__pages_ops_system;
    long page = ops->page_size();
    if (page <= 0 || bytes == 0)
        return 0;
    uintptr_t first = (uintptr_t)ptr / (uintptr_t)page;
    uintptr_t last = ((uintptr_t)ptr + bytes - 1) / (uintptr_t)page;
    uint64_t total = last - first + 1;
    uint64_t step = (total + OMPB__PAGES_SAMPLE_MAX - 1) / OMPB__PAGES_SAMPLE_MAX;
    uint64_t *node_pages = calloc(MAX_NODES, sizeof *node_pages);
    if (!node_pages)
        return -ENOMEM;
    t->bytes += bytes;
    t->thread_node = ops->current_node();
    void *pages[QUERY_BATCH];
    int status[QUERY_BATCH];
    long rc = 0;
    for (uint64_t i = 0; i < total && rc >= 0;) {
        long n = 0;
        for (; n < QUERY_BATCH && i < total; n++, i += step)
            pages[n] = (void *)((first + i) * (uintptr_t)page);
        if ((rc = ops->query((unsigned long)n, pages, status)) >= 0)
            count_batch(t, status, n, node_pages);
    }
    if (rc < 0)
        t->query_errno = (int)-rc;
    settle_nodes(ops, t, node_pages);
    free(node_pages);
    return rc < 0 ? (int)rc : 0;
}

bool ompb__pages_misplaced(const ompb__pages_tally *t)
{
    if (t->pages == 0 || t->query_errno)
        return false;
    return (double)t->remote > OMPB__PAGES_MOSTLY * (double)t->pages
           || (double)t->absent > OMPB__PAGES_MOSTLY * (double)t->pages;
}

int ompb_declare_buffer(ompb_state *state, const void *ptr, size_t bytes)
{
    if (!state || (!ptr && bytes > 0))
        return OMPB_EINVAL;
    int rc = ompb__pages_tally_share(state->pages_ops, &state->pages, ptr, bytes);
    return rc == -ENOMEM ? OMPB_ENOMEM : 0;
}

/* The first misplaced thread's share, in words. */
static void describe(char *buf, size_t len, int t, const ompb__pages_tally *p)
{
    if ((double)p->remote > OMPB__PAGES_MOSTLY * (double)p->pages)
        snprintf(buf, len, "%.0f%% of thread %d's declared pages are on NUMA node %d, but it "
                 "runs on node %d", 100.0 * (double)p->remote / (double)p->pages, t,
                 p->remote_node, p->thread_node);
    else
        snprintf(buf, len, "%.0f%% of thread %d's declared pages are not touched yet (they "
                 "will land on the node of whichever thread writes them first)",
                 100.0 * (double)p->absent / (double)p->pages, t);
}

void ompb__pages_report(const ompb_state *states, int n, ompb__record *rec)
{
    int bad = 0, first = -1;
    for (int t = 0; t < n; t++)
        if (ompb__pages_misplaced(&states[t].pages) && bad++ == 0)
            first = t;
    if (bad == 0)
        return;
    char what[192];
    describe(what, sizeof what, first, &states[first].pages);
    ompb__record_warn(rec, "%s: first touch: %s (%d of %d threads' shares are misplaced): "
                      "write each thread's share from that thread in .thread_setup, or the "
                      "rounds measure remote memory", states[0].inst->name, what, bad, n);
}
