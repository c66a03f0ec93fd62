/* SPDX-License-Identifier: MIT */
/*
 * The perf groups behind --counters: one group per thread, opened by that
 * thread for itself, one read(2) per group at each end of a timed window,
 * multiplex scaling, and the probe that tries a set once before anything
 * is measured (refusing a group the kernel never schedules). Names are
 * lib/counters/counters_names.c's, the reasons for refused events
 * lib/counters/counters_refusals.c's; every system call goes through the ops table
 * (lib/counters/counters_ops.c).
 */
#include "counters/counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "counters/counters_internal.h"

/* read(2) of a group with PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING: nr, time_enabled, time_running, values[nr]. */
#define READ_HEADER 3
#define READ_WORDS (READ_HEADER + OMPB__MAX_COUNTERS)
/* How long the probe lets its group run before it checks it was scheduled. */
#define PROBE_SPIN_NS 1000000

void ompb__counters_make_attr(struct perf_event_attr *attr, const ompb__counter_event *ev,
                              bool leader)
{
    memset(attr, 0, sizeof *attr);
    attr->size = sizeof *attr;
    attr->type = ev->type;
    attr->config = ev->config;
    attr->config1 = ev->config1;
    attr->config2 = ev->config2;
    attr->disabled = leader;   /* members follow their leader */
    attr->exclude_kernel = !ev->kernel;
    attr->exclude_hv = 1;
    attr->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                        PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* One read of the group: raw cumulative values. */
static int read_group(const ompb__counter_group *g, ompb__counter_reading *r)
{
    uint64_t buf[READ_WORDS];
    if (g->n == 0)
        return -EBADF; /* never opened: fd[0] is not ours */
    size_t want = (size_t)(READ_HEADER + g->n) * sizeof buf[0];
    long got = g->ops->read(g->fd[0], buf, sizeof buf);
    if (got < 0)
        return (int)got;
    if ((size_t)got != want || buf[0] != (uint64_t)g->n)
        return -EIO;
    r->enabled_ns = buf[1];
    r->running_ns = buf[2];
    for (int i = 0; i < g->n; i++)
        r->value[i] = buf[READ_HEADER + i];
    return 0;
}

void ompb__counter_group_close(ompb__counter_group *g)
{
    for (int i = g->n - 1; i >= 0; i--)
        if (g->fd[i] >= 0)
            (void)g->ops->close(g->fd[i]);
    g->n = 0;
}

int ompb__counter_group_open(ompb__counter_group *g, const ompb__counter_ops *ops,
                             const ompb__counter_set *set, int tid, ompb_error *err)
{
    memset(g, 0, sizeof *g);
    g->ops = ops = ompb__counters_ops(ops);
    for (int i = 0; i < set->n; i++) {
        struct perf_event_attr attr;
        ompb__counters_make_attr(&attr, &set->ev[i], i == 0);
        int fd = ops->open(&attr, tid, i == 0 ? -1 : g->fd[0]);
        if (fd < 0) {
            ompb__counter_group_close(g);
            return ompb__counters_open_error(ops, err, set, i, -fd);
        }
        g->fd[g->n++] = fd;
    }
    int rc = ops->enable(g->fd[0]);
    if (rc == 0)
        rc = read_group(g, &g->last);
    if (rc < 0) {
        ompb__counter_group_close(g);
        return ompb__error_set(err, OMPB_EIO, "--counters: cannot start the group of %s: %s",
                               ompb__counter_label(&set->ev[0]), strerror(-rc));
    }
    return 0;
}

int ompb__counter_group_read(ompb__counter_group *g)
{
    ompb__counter_reading now;
    int rc = read_group(g, &now);
    if (rc < 0) {
        g->read_errno = -rc;
        memset(&g->delta, 0, sizeof g->delta);
        return rc;
    }
    g->delta.enabled_ns = now.enabled_ns - g->last.enabled_ns;
    g->delta.running_ns = now.running_ns - g->last.running_ns;
    for (int i = 0; i < g->n; i++)
        g->delta.value[i] = now.value[i] - g->last.value[i];
    g->last = now;
    return 0;
}

int ompb__counter_group_mark(ompb__counter_group *g)
{
    int rc = read_group(g, &g->last);
    if (rc < 0)
        g->read_errno = -rc;
    return rc;
}

void ompb__counters_window_begin(ompb__counter_group *g, int n)
{
    for (int i = 0; i < n; i++)
        (void)ompb__counter_group_mark(&g[i]);
}

void ompb__counters_window_end(ompb__counter_group *g, int n)
{
    for (int i = 0; i < n; i++)
        (void)ompb__counter_group_read(&g[i]);
}

/* The calling thread runs for ns, so that its group has had the chance to
 * be on the PMU (a per-thread counter counts only while its thread runs). */
static void spin_for(uint64_t ns)
{
    uint64_t until = ompb__now_ns() + ns;
    while (ompb__now_ns() < until)
        __asm__ volatile("");
}

int ompb__counters_probe(const ompb__counter_ops *ops, const ompb__counter_set *set,
                         ompb_error *err)
{
    ompb__counter_group g;
    int rc = ompb__counter_group_open(&g, ops, set, 0, err);
    if (rc != 0)
        return rc;
    spin_for(PROBE_SPIN_NS);
    rc = ompb__counter_group_read(&g);
    ompb__counter_group_close(&g);
    char names[OMPB__MAX_COUNTERS * OMPB__COUNTER_NAME_MAX];
    ompb__counters_names(set, names, sizeof names);
    if (rc < 0)
        return ompb__error_set(err, OMPB_EIO, "--counters: the group of %s opens but cannot "
                               "be read: %s", names, strerror(-rc));
    /* A group that opens but is never scheduled (more hardware events than
     * free counters, or a counter held by someone else, such as the NMI
     * watchdog) would count nothing in every round: refuse it now. */
    if (g.delta.running_ns == 0 && g.delta.enabled_ns > 0)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: events '%s' open but are never "
                               "on the PMU (time_running 0 after %.0f us enabled: fewer free "
                               "counters than events, e.g. one held by the NMI watchdog; fix: "
                               "count fewer events, or sysctl -w kernel.nmi_watchdog=0)", names,
                               (double)g.delta.enabled_ns / 1e3);
    return 0;
}

double ompb__counter_scale(uint64_t value, uint64_t enabled_ns, uint64_t running_ns)
{
    if (running_ns == enabled_ns)
        return (double)value;
    if (running_ns == 0)
        return NAN;
    return (double)value * ((double)enabled_ns / (double)running_ns);
}
