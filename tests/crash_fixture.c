/* SPDX-License-Identifier: MIT */
/*
 * The fixture of tests/integration/crash_journal.sh: five instances,
 * crash[1] to crash[5], run in that order; the one whose argument is
 * $OMPB_CRASH_AT ends its process in its body with $OMPB_CRASH_HOW:
 * `segv` (a store to address 16: a SIGSEGV the hardware raises),
 * `abort` (abort(): SIGABRT) or `kill` (SIGKILL to itself: what the OOM
 * killer does). Without the variables every instance completes (the
 * --test smoke run of this binary passes).
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ompbench.h>

static void crash_now(void)
{
    const char *how = getenv("OMPB_CRASH_HOW");
    if (!how)
        return;
    if (strcmp(how, "segv") == 0) {
        /* Page 0 but not the null pointer, which UBSan would stop at first. */
        volatile int *volatile nowhere = (volatile int *)(uintptr_t)ompb_opaque_u64(16);
        *nowhere = 1;
    } else if (strcmp(how, "abort") == 0) {
        abort();
    } else if (strcmp(how, "kill") == 0) {
        kill(getpid(), SIGKILL);
    }
}

OMPB_BENCH(crash, OMPB_ARGS(1, 2, 3, 4, 5))
{
    const char *at = getenv("OMPB_CRASH_AT");
    bool crashes = at && atoll(at) == ompb_arg(state);
    OMPB_ITER(state) {
        if (crashes)
            crash_now();
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}
