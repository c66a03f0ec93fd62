/* SPDX-License-Identifier: MIT */
/*
 * Why perf_event_open refused an event, in one line (lib/counters/counters_internal.h):
 * which event (as the user wrote it), the reason in the kernel's terms and
 * the fix: not on this machine, perf_event_paranoid or a seccomp filter,
 * a busy PMU, a group too large for the PMU's counters, file descriptors,
 * a kernel without perf events. The caller exits 2.
 */
#include "counters/counters_internal.h"

#include <errno.h>
#include <string.h>

#include "core/core.h"

/* EACCES/EPERM. The paranoid level that lets an unprivileged user open
 * the event: 2 for user-space counting, 1 for an event that counts in the
 * kernel. At or below it, the level is not what refuses: a seccomp filter
 * (a container's default profile) or a security module does. */
static int permission_error(ompb_error *err, const ompb__counter_event *ev, int paranoid)
{
    int allows = ev->kernel ? 1 : 2;
    const char *where = ev->kernel ? " and this event counts in the kernel" : "";
    const char *name = ompb__counter_label(ev);
    if (paranoid == OMPB__PARANOID_UNKNOWN)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is not permitted, and "
                               "kernel.perf_event_paranoid cannot be read (fix: set it to %d "
                               "or lower, allow perf_event_open in the container's seccomp "
                               "profile, or give the binary CAP_PERFMON)", name, allows);
    if (paranoid > allows)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is not permitted: "
                               "kernel.perf_event_paranoid is %d%s (fix: sysctl -w "
                               "kernel.perf_event_paranoid=%d, or give the binary "
                               "CAP_PERFMON)", name, paranoid, where, allows);
    return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is not permitted although "
                           "kernel.perf_event_paranoid is %d, which allows it: a seccomp filter "
                           "(containers) or a security module refuses perf_event_open (fix: "
                           "allow it in the seccomp profile, or give the binary CAP_PERFMON)",
                           name, paranoid);
}

/* EINVAL: past the first event, the group is full. */
static int invalid_error(ompb_error *err, const char *name, int i, int e)
{
    if (i > 0)
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' does not fit in "
                               "one group with the %d event%s before it: too many events "
                               "for the PMU's counters (fix: count fewer events per run)",
                               name, i, i == 1 ? "" : "s");
    return ompb__error_set(err, OMPB_EINVAL, "--counters: the kernel rejects event '%s' "
                           "(perf_event_open: %s; see --list-counters)", name, strerror(e));
}

int ompb__counters_open_error(const ompb__counter_ops *ops, ompb_error *err,
                              const ompb__counter_set *set, int i, int e)
{
    const ompb__counter_event *ev = &set->ev[i];
    const char *name = ompb__counter_label(ev);
    switch (e) {
    case ENOENT:
    case EOPNOTSUPP:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s' is not available on "
                               "this machine (perf_event_open: %s: no PMU here exposes it; "
                               "virtual machines often have no hardware counters; fix: run on "
                               "a machine or VM with a PMU, or use software events such as "
                               "task-clock; see --list-counters)", name, strerror(e));
    case EACCES:
    case EPERM:
        return permission_error(err, ev, ompb__counters_paranoid(ops));
    case EBUSY:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s': the PMU is busy "
                               "(perf_event_open: %s: another user holds its counters "
                               "exclusively, e.g. another profiler or perf session; fix: stop "
                               "that user, then run again)", name, strerror(e));
    case EINVAL:
        return invalid_error(err, name, i, e);
    case EMFILE:
    case ENFILE:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s': out of file "
                               "descriptors (%s; one per event and thread; fix: raise "
                               "ulimit -n)", name, strerror(e));
    case ENOSYS:
    case ENODEV:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s': perf_event_open is "
                               "not available (%s: a kernel without perf events, or a "
                               "container's seccomp policy)", name, strerror(e));
    default:
        return ompb__error_set(err, OMPB_EINVAL, "--counters: event '%s': perf_event_open "
                               "failed: %s", name, strerror(e));
    }
}
