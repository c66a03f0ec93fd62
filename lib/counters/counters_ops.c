/* SPDX-License-Identifier: MIT */
/*
 * The system calls behind --counters (lib/counters/counters_internal.h): every
 * perf_event_open, ioctl, read and close of the module goes through the
 * ops table its caller passes in, which tests fill with a double that hands
 * out fake file descriptors (this VM has no PMU), and the kernel's
 * perf_event_paranoid level, which the refusals and the listing name.
 */
#include "counters/counters_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

static int sys_open(void *attr, int tid, int group_fd)
{
    long fd = syscall(SYS_perf_event_open, attr, (pid_t)tid, -1, group_fd,
                      (unsigned long)PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
}

static int sys_enable(int leader_fd)
{
    return ioctl(leader_fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0 ? -errno : 0;
}

static long sys_read(int fd, void *buf, size_t len)
{
    ssize_t n = read(fd, buf, len);
    return n < 0 ? -errno : (long)n;
}

static int sys_close(int fd)
{
    return close(fd) < 0 ? -errno : 0;
}

static int sys_paranoid(void)
{
    FILE *fp = fopen(PARANOID_PATH, "r");
    int level = OMPB__PARANOID_UNKNOWN;
    if (fp) {
        if (fscanf(fp, "%d", &level) != 1)
            level = OMPB__PARANOID_UNKNOWN;
        fclose(fp);
    }
    return level;
}

const ompb__counter_ops ompb__counter_ops_system = {sys_open, sys_enable, sys_read, sys_close,
                                                    sys_paranoid};

const ompb__counter_ops *ompb__counters_ops(const ompb__counter_ops *ops)
{
    return ops ? ops : &ompb__counter_ops_system;
}

int ompb__counters_paranoid(const ompb__counter_ops *ops)
{
    return ops && ops->paranoid ? ops->paranoid() : sys_paranoid();
}
