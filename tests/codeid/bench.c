/* SPDX-License-Identifier: MIT */
/*
 * A benchmark-like body for the code identity fixtures (tests/test_codeid.c):
 * bench_body calls a static helper and a switch (a jump table in
 * .rodata), opens an OpenMP parallel region (an outlined function), calls
 * the C library through the PLT and reads a string literal, a
 * floating-point constant and a global. -DCODEID_BODY,
 * -DCODEID_HELPER and -DCODEID_REGION each change one of those functions,
 * and only it; -DCODEID_CONSTANT changes only the body's constant, which
 * lives in .rodata (the body's bytes stay the same).
 */
#include <stdio.h>

#ifdef CODEID_BODY
#define BODY_STEP 7
#else
#define BODY_STEP 5
#endif
#ifdef CODEID_HELPER
#define HELPER_MUL 13
#else
#define HELPER_MUL 11
#endif
#ifdef CODEID_CONSTANT
#define BODY_SCALE 3.5
#else
#define BODY_SCALE 2.5
#endif
#ifdef CODEID_REGION
#define REGION_ADD 17
#else
#define REGION_ADD 19
#endif

long bench_calls;

long bench_body(const long *x, long n);

static __attribute__((noinline)) long helper(const long *x, long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += x[i] * HELPER_MUL;
    return s;
}

/* A switch GCC compiles to a jump table in .rodata, whose entries are
 * distances from the table to the code: they change when the function
 * moves and .rodata does not. */
static __attribute__((noinline)) long step(long s, const long *x, long k)
{
    switch (k & 7) {
    case 0:
        return s + x[0];
    case 1:
        return s - x[1] * 3;
    case 2:
        return s * 5 + x[2];
    case 3:
        return s ^ x[3];
    case 4:
        return (s << 2) - x[4];
    case 5:
        return s / 7 + x[5];
    default:
        return s - 1;
    }
}

long bench_body(const long *x, long n)
{
    long total = 0;
    if (n < 0) {
        fputs("bench_body: negative length\n", stderr);
        return -1;
    }
    bench_calls++;
#pragma omp parallel for reduction(+ : total)
    for (long i = 0; i < n; i++)
        total += x[i] + REGION_ADD;
    for (long i = 0; i < n; i += BODY_STEP)
        total ^= x[i];
    if (n > 8)
        total = step(total, x, n);
    return total + helper(x, n) + (long)((double)n * BODY_SCALE);
}
