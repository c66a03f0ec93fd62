/* SPDX-License-Identifier: MIT */
/*
 * --list-counters (lib/counters/counters.h): every generic and cache event of the
 * name table with its aliases, each tried alone on the calling thread and
 * listed as available or with the reason it is not, then libpfm4's named
 * events, then one line per kind of refusal seen with its fix.
 */
#include "counters/counters_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

/* Which refusals the listing saw, for the closing lines. */
#define SEEN_ABSENT 1u
#define SEEN_REFUSED 2u

typedef struct listing {
    const ompb__counter_ops *ops;
    FILE *out;
    unsigned seen;
} listing;

/* Opens one event alone on the calling thread; 0 or the errno. */
static int try_event(const ompb__counter_ops *ops, const ompb__counter_event *ev)
{
    struct perf_event_attr attr;
    ompb__counters_make_attr(&attr, ev, true);
    int fd = ops->open(&attr, 0, -1);
    if (fd < 0)
        return -fd;
    (void)ops->close(fd);
    return 0;
}

/* Why an event cannot be listed as available, in a few words; the errors of
 * --counters itself give the fix. */
static void list_one(void *arg, const char *name, const char *aliases)
{
    listing *l = arg;
    ompb__counter_event ev;
    if (!ompb__counters_find(name, &ev))
        return;
    char label[80];
    snprintf(label, sizeof label, "%s%s%s%s", name, aliases[0] ? " (" : "", aliases,
             aliases[0] ? ")" : "");
    int e = try_event(l->ops, &ev);
    if (e == 0)
        fprintf(l->out, "  %-34s available%s\n", label, ev.kernel ? "" : " (user space)");
    else if (e == ENOENT || e == EOPNOTSUPP)
        fprintf(l->out, "  %-34s NOT available: no PMU here exposes it (%s)\n", label, strerror(e));
    else if (e == EACCES || e == EPERM)
        fprintf(l->out, "  %-34s NOT permitted: kernel.perf_event_paranoid\n", label);
    else
        fprintf(l->out, "  %-34s NOT available: %s\n", label, strerror(e));
    l->seen |= e == ENOENT || e == EOPNOTSUPP ? SEEN_ABSENT
               : e == EACCES || e == EPERM    ? SEEN_REFUSED : 0u;
}

/* The closing lines: what the refusals seen mean, and their fixes. */
static void list_fixes(const ompb__counter_ops *ops, FILE *out, unsigned seen)
{
    if (seen & SEEN_ABSENT)
        fprintf(out, "Not available: the kernel has no PMU for these events here (virtual "
                     "machines often expose none); run on a machine or VM with one.\n");
    int paranoid = ompb__counters_paranoid(ops);
    if ((seen & SEEN_REFUSED) && paranoid > 1)
        fprintf(out, "Not permitted: kernel.perf_event_paranoid = %d refuses events that "
                     "count in the kernel (fix: sysctl -w kernel.perf_event_paranoid=1, or "
                     "CAP_PERFMON).\n", paranoid);
    else if (seen & SEEN_REFUSED)
        fprintf(out, "Not permitted although kernel.perf_event_paranoid = %d allows them: a "
                     "seccomp filter (a container's) or a security module refuses "
                     "perf_event_open (fix: allow it in the seccomp profile, or "
                     "CAP_PERFMON).\n", paranoid);
}

void ompb__counters_list(const ompb__counter_ops *ops, FILE *out)
{
    ops = ompb__counters_ops(ops);
    fprintf(out, "Counters for --counters on this machine (kernel.perf_event_paranoid = %d); "
                 "each team thread counts its own events, user space only for hardware and "
                 "cache events:\n", ompb__counters_paranoid(ops));
    listing l = {ops, out, 0};
    fprintf(out, "Hardware and software events:\n");
    ompb__counters_each_event(false, list_one, &l);
    fprintf(out, "Cache events:\n");
    ompb__counters_each_event(true, list_one, &l);
    ompb__counters_pfm_list(out);
    list_fixes(ops, out, l.seen);
}
