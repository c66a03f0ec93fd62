/* SPDX-License-Identifier: MIT */
/*
 * The Fortran name table's cost against its size
 * (tests/integration/fortran_intern_scale.sh, issue 30 item 4, defect 10):
 * interns N distinct names (as Fortran passes them: bytes and a length),
 * then looks each up again PASSES times, and prints the nanoseconds of CPU
 * time that took (the process's CPU clock: a preemption by another
 * program, which a run of 30 ms under CPU hogs always meets and one of
 * 2 ms may not, does not count). A table that walks a list per lookup grows with N^2, a hashed one
 * with N; the script compares the times of two sizes in the same run.
 *
 * Usage: fortran_intern_scale N
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fortran/intern.h"

#define PASSES 4

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    if (n <= 0 || n > 10000000) {
        fprintf(stderr, "usage: fortran_intern_scale N (1 <= N <= 10000000)\n");
        return 2;
    }
    char name[32];
    long long t0 = now_ns();
    for (int pass = 0; pass <= PASSES; pass++)
        for (long i = 0; i < n; i++) {
            int len = snprintf(name, sizeof name, "region_%08ld", i);
            const char *s = ompb__fortran_intern(name, (size_t)len);
            if (!s || strcmp(s, name) != 0) {
                fprintf(stderr, "fortran_intern_scale: wrong copy of %s\n", name);
                return 1;
            }
        }
    printf("%lld\n", now_ns() - t0);
    return 0;
}
