/* SPDX-License-Identifier: MIT */
/*
 * The fixture of tests/integration/crash_journal.sh: five instances,
 * crash[1] to crash[5], run in that order; the one whose argument is
 * $OMPB_CRASH_AT ends its process in its body with $OMPB_CRASH_HOW:
 * `segv` (a store to address 16: a SIGSEGV the hardware raises),
 * `abort` (abort(): SIGABRT), `kill` (SIGKILL to itself: what the OOM
 * killer does) or `overflow` (a recursion without bound on thread 1 of
 * the team, or on the only one: a SIGSEGV on the stack's guard page, with
 * no room left on that stack for a handler). Without the variables every instance completes (the
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

/* Recurses without bound (while opaque_u64 says so, which it always
 * does): each frame keeps 1 KiB, used after the call returns, so that no
 * compiler makes it a loop. */
static uint64_t deeper(uint64_t n)
{
    volatile char frame[1024];
    frame[n % sizeof frame] = (char)n;
    uint64_t below = ompb_opaque_u64(1) ? deeper(n + 1) : 0;
    return below + (uint64_t)frame[(n * 7) % sizeof frame];
}

static void crash_now(const ompb_state *state)
{
    const char *how = getenv("OMPB_CRASH_HOW");
    if (!how)
        return;
    if (strcmp(how, "overflow") == 0) {
        /* On a team thread other than the master's when there is one: its
         * stack is the pool's fixed one, not the main thread's. */
        if (ompb_thread_count(state) == 1 || ompb_thread_index(state) == 1)
            ompb_black_box_u64(deeper(0));
    } else if (strcmp(how, "segv") == 0) {
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
            crash_now(state);
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}
