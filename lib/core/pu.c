/* SPDX-License-Identifier: MIT */
/*
 * Which instruction reads the calling thread's PU (lib/core/pu.h).
 */
#include "core/pu.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define HAVE_X86 1
#else
#define HAVE_X86 0
#endif

bool ompb__pu_rdpid;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Atomic bool started;
static char reason[160];

/* Samples taken at start: enough for a thread the scheduler moves now
 * and then to leave agreeing ones. */
#define SAMPLES 16

bool ompb__pu_trust(bool has_rdpid, long cpus, const unsigned *aux, const int *before,
                    const int *after, size_t n, char *why, size_t len)
{
    if (!has_rdpid) {
        snprintf(why, len, "the CPU has no RDPID");
        return false;
    }
    if (cpus < 1 || cpus >= 4096) {
        snprintf(why, len, "%ld CPUs configured (TSC_AUX holds 12 bits of CPU number)", cpus);
        return false;
    }
    size_t agreeing = 0;
    for (size_t i = 0; i < n; i++) {
        if (before[i] < 0 || before[i] != after[i])
            continue; /* moved during the sample, or no sched_getcpu */
        if ((int)(aux[i] & 0xfffu) != before[i]) {
            snprintf(why, len, "TSC_AUX reads %u on CPU %d", aux[i], before[i]);
            return false;
        }
        agreeing++;
    }
    if (!agreeing) {
        snprintf(why, len, "no sample stayed on one CPU");
        return false;
    }
    return true;
}

static bool cpu_has_rdpid(void)
{
#if HAVE_X86
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7)
        return false;
    __cpuid_count(7, 0, a, b, c, d);
    (void)a, (void)b, (void)d;
    return (c >> 22) & 1u;
#else
    return false;
#endif
}

static void start_once(void)
{
    bool has = cpu_has_rdpid();
    unsigned aux[SAMPLES] = {0};
    int before[SAMPLES], after[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        before[i] = sched_getcpu();
#if HAVE_X86
        if (has) {
            unsigned long v;
            __asm__ volatile("rdpid %0" : "=r"(v));
            aux[i] = (unsigned)v;
        }
#endif
        after[i] = sched_getcpu();
    }
    ompb__pu_rdpid = ompb__pu_trust(has, sysconf(_SC_NPROCESSORS_CONF), aux, before, after,
                                    SAMPLES, reason, sizeof reason);
    started = true;
}

void ompb__pu_start(void)
{
    pthread_once(&once, start_once);
}

void ompb__pu_describe(char *buf, size_t len)
{
    if (!started)
        snprintf(buf, len, "%s", "");
    else if (ompb__pu_rdpid)
        snprintf(buf, len, "RDPID");
    else
        snprintf(buf, len, "sched_getcpu (RDPID not used: %s)", reason);
}
