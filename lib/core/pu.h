/* SPDX-License-Identifier: MIT */
/*
 * The PU the calling thread runs on, for the region markers' begin (which
 * records it per instance: migrations, two threads on one PU). Linux
 * writes (node << 12) | cpu into every CPU's TSC_AUX register for its
 * vDSO getcpu; RDPID reads that register in about 2 ns here, a third of a
 * sched_getcpu call. RDPID is used where CPUID says the CPU has it, the
 * machine has fewer than 4096 CPUs (the field's width) and its low 12 bits
 * agree with sched_getcpu at start; elsewhere (another architecture,
 * valgrind, which hides RDPID) sched_getcpu.
 */
#ifndef OMPB_PU_H
#define OMPB_PU_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* True once ompb__pu_start found RDPID usable. */
extern bool ompb__pu_rdpid;

/* Decides between RDPID and sched_getcpu (once; later calls return;
 * thread-safe). */
void ompb__pu_start(void);

/* Whether RDPID can stand in for sched_getcpu: has_rdpid (CPUID leaf 7,
 * ECX bit 22), cpus (CPUs configured) below 4096, and in each of n
 * samples whose two sched_getcpu readings (before and after) agree, the
 * low 12 bits of aux equal them. At least one such sample is needed.
 * Pure (unit-tested); false with the first reason that fails in why. */
bool ompb__pu_trust(bool has_rdpid, long cpus, const unsigned *aux, const int *before,
                    const int *after, size_t n, char *why, size_t len);

/* "RDPID" or "sched_getcpu (RDPID not used: why)"; "" before the start. */
void ompb__pu_describe(char *buf, size_t len);

/* The PU of the calling thread, or -1 when the system cannot say. */
static inline int ompb__pu_now(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_expect(ompb__pu_rdpid, 1)) {
        unsigned long aux;
        __asm__ volatile("rdpid %0" : "=r"(aux));
        return (int)(aux & 0xfffu);
    }
#endif
    return sched_getcpu();
}

#endif
