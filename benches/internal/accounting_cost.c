/* SPDX-License-Identifier: MIT */
/*
 * What a per-round disturbance reading would cost, per call, on this
 * machine (docs/methodology.md, "Clean rounds"; docs/performance.md,
 * "Disturbance accounting"): the thread CPU clock, getrusage(RUSAGE_THREAD),
 * a read(2) of a software task-clock counter, and what the engine does
 * instead, the load of a preemption watch's ring head
 * (lib/counters/preempt.h). Also whether getrusage's thread times follow a
 * short window at all: how many of 300 windows of ~300 us read 0 CPU time.
 *
 * Usage: accounting_cost [--quick]
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "counters/counters.h"

static volatile uint64_t sink;

static uint64_t thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t rusage_cpu_ns(void)
{
    struct rusage r;
    getrusage(RUSAGE_THREAD, &r);
    return (uint64_t)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000000u +
           (uint64_t)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1000u;
}

static int task_clock_fd(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

int main(int argc, char **argv)
{
    int n = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 2000 : 100000;
    uint64_t t0 = ompb__now_ns();
    for (int i = 0; i < n; i++)
        sink += thread_cpu_ns();
    uint64_t t1 = ompb__now_ns();
    for (int i = 0; i < n; i++)
        sink += rusage_cpu_ns();
    uint64_t t2 = ompb__now_ns();
    printf("clock_gettime(CLOCK_THREAD_CPUTIME_ID): %.1f ns a call\n", (double)(t1 - t0) / n);
    printf("getrusage(RUSAGE_THREAD):               %.1f ns a call\n", (double)(t2 - t1) / n);
    int fd = task_clock_fd();
    if (fd >= 0) {
        uint64_t v;
        uint64_t t3 = ompb__now_ns();
        for (int i = 0; i < n; i++)
            sink += (uint64_t)read(fd, &v, sizeof v) + v;
        printf("read(2) of a task-clock counter:        %.1f ns a call\n",
               (double)(ompb__now_ns() - t3) / n);
        close(fd);
    } else {
        printf("read(2) of a task-clock counter:        n/a (perf_event_open refused)\n");
    }
    ompb__preempt_watch w;
    ompb_error err = {0};
    if (ompb__preempt_open(&w, &err) == 0) {
        uint64_t t4 = ompb__now_ns();
        for (int i = 0; i < n; i++)
            sink += ompb__preempt_head(&w);
        printf("preemption watch, ring head load:       %.1f ns a call\n",
               (double)(ompb__now_ns() - t4) / n);
        ompb__preempt_close(&w);
    } else {
        printf("preemption watch:                       n/a (%s)\n", err.text);
    }
    int zero = 0, windows = n > 2000 ? 300 : 30;
    for (int k = 0; k < windows; k++) {
        uint64_t c0 = rusage_cpu_ns(), end = ompb__now_ns() + 300000;
        while (ompb__now_ns() < end)
            ;
        zero += rusage_cpu_ns() == c0;
    }
    printf("getrusage thread time unchanged over a 300 us busy window: %d of %d windows\n",
           zero, windows);
    return 0;
}
