/* SPDX-License-Identifier: MIT */
/*
 * The fixture of tests/integration/hostile_stop.sh: bodies that work
 * against the run, each only when its environment variable is set (so the
 * --test smoke run of this binary passes):
 * - `exits`: thread 1 of its team calls exit($OMPB_HOSTILE_EXIT) (every
 *   thread, at once, with $OMPB_HOSTILE_EXIT_ALL set);
 * - `slow`: creates the file $OMPB_HOSTILE_MARK when its rounds start,
 *   then each iteration sleeps 10 ms (a run the test interrupts);
 * - `hangs`: thread 1 of its team never returns from its first
 *   iteration when $OMPB_HOSTILE_HANG is set (it creates
 *   $OMPB_HOSTILE_MARK too).
 * `quick` runs first and completes: its result must survive the others;
 * `slow` runs last (after `hangs`, which stops the run before it).
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ompbench.h>

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

OMPB_BENCH(quick)
{
    OMPB_ITER(state) {
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}

OMPB_BENCH(exits, OMPB_THREADS(2))
{
    const char *code = getenv("OMPB_HOSTILE_EXIT");
    bool all = getenv("OMPB_HOSTILE_EXIT_ALL") != NULL;
    OMPB_ITER(state) {
        if (code && (all || ompb_thread_index(state) == 1))
            exit(atoi(code));
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}

static int mark_start(ompb_state *state)
{
    (void)state;
    const char *mark = getenv("OMPB_HOSTILE_MARK");
    if (mark)
        close(open(mark, O_WRONLY | O_CREAT, 0644));
    return 0;
}

OMPB_BENCH(hangs, OMPB_THREADS(2), .setup = mark_start)
{
    bool hang = getenv("OMPB_HOSTILE_HANG") && ompb_thread_index(state) == 1;
    OMPB_ITER(state) {
        while (hang)
            nap_ms(100);
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}

OMPB_BENCH(slow, .setup = mark_start)
{
    bool sleepy = getenv("OMPB_HOSTILE_MARK") != NULL;
    OMPB_ITER(state) {
        if (sleepy)
            nap_ms(10);
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}
