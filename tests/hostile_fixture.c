/* SPDX-License-Identifier: MIT */
/*
 * The fixture of tests/integration/hostile_stop.sh: bodies that work
 * against the run, each only when its environment variable is set (so the
 * --test smoke run of this binary passes):
 * - `exits`: thread 1 of its team calls exit($OMPB_HOSTILE_EXIT) (every
 *   thread, at once, with $OMPB_HOSTILE_EXIT_ALL set);
 * - `slow`: creates the file $OMPB_HOSTILE_MARK (holding the process id)
 *   when its rounds start, then each iteration sleeps 10 ms (a run the
 *   test interrupts); with $OMPB_HOSTILE_FROM=N only from the N-th time
 *   this process runs it (the earlier repetitions complete quickly); with
 *   $OMPB_HOSTILE_RAISE=INT or TERM its first sleepy iteration raises
 *   that signal instead (a body that interrupts its own process); with
 *   $OMPB_HOSTILE_GATE, its setup waits after the mark until that file
 *   exists;
 * - `blocks`: with $OMPB_HOSTILE_BLOCK set, every thread of its team blocks
 *   every signal in thread_setup, marks like `slow` and sleeps 10 ms per
 *   iteration (the guard must still hear SIGINT/SIGTERM);
 * - `handles`: with $OMPB_HOSTILE_HANDLER set, its setup installs a SIGINT
 *   handler of its own (the run warns that SIGINT is the body's);
 * - `jumps`: thread $OMPB_HOSTILE_JUMP (0 or 1) of its team longjmps from
 *   its first iteration to a setjmp of its own body (before the loop),
 *   which leaves the loop early (the one longjmp out of the loop that C
 *   and OpenMP define: docs/guide.md);
 * - `jumps_stale`: thread $OMPB_HOSTILE_JUMP_STALE of its team longjmps to
 *   a jmp_buf its setup set, whose frame has returned: undefined behaviour,
 *   which docs/guide.md documents as unsupported (this reproduces what it
 *   measured; no test runs it);
 * - `hangs`: thread 1 of its team never returns from its first
 *   iteration when $OMPB_HOSTILE_HANG is set (it creates
 *   $OMPB_HOSTILE_MARK too).
 * `quick` runs first and completes: its result must survive the others;
 * `slow` runs last (after `hangs`, which stops the run before it).
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

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

/* The mark holds the process id: the test signals that process alone (a
 * --processes child). Written whole before it appears (rename). */
static int mark_start(ompb_state *state)
{
    (void)state;
    const char *mark = getenv("OMPB_HOSTILE_MARK");
    char tmp[4200], pid[24];
    if (!mark || snprintf(tmp, sizeof tmp, "%s.%ld", mark, (long)getpid()) >= (int)sizeof tmp)
        return 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        ssize_t w = write(fd, pid, (size_t)n);
        close(fd);
        if (w == n)
            rename(tmp, mark);
    }
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

/* slow's setups so far in this process, and whether this one sleeps. */
static int slow_setups;
static bool slow_sleepy;

static int slow_start(ompb_state *state)
{
    const char *from = getenv("OMPB_HOSTILE_FROM");
    slow_setups++;
    slow_sleepy = getenv("OMPB_HOSTILE_MARK") && slow_setups >= (from ? atoi(from) : 1);
    if (!slow_sleepy)
        return 0;
    mark_start(state);
    /* The test changes the machine's state between the mark and the gate
     * (at most a minute: the test's own bound ends it sooner). */
    const char *gate = getenv("OMPB_HOSTILE_GATE");
    for (int i = 0; gate && access(gate, F_OK) != 0 && i < 6000; i++)
        nap_ms(10);
    return 0;
}

OMPB_BENCH(slow, .setup = slow_start)
{
    const char *raise_it = slow_sleepy ? getenv("OMPB_HOSTILE_RAISE") : NULL;
    OMPB_ITER(state) {
        if (raise_it && ompb_thread_index(state) == 0) {
            raise(strcmp(raise_it, "TERM") == 0 ? SIGTERM : SIGINT);
            raise_it = NULL;
        }
        if (slow_sleepy)
            nap_ms(10);
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}

static int block_all(ompb_state *state)
{
    (void)state;
    sigset_t all;
    sigfillset(&all);
    if (getenv("OMPB_HOSTILE_BLOCK"))
        pthread_sigmask(SIG_BLOCK, &all, NULL);
    return 0;
}

OMPB_BENCH(blocks, OMPB_THREADS(2), .setup = mark_start, .thread_setup = block_all)
{
    bool sleepy = getenv("OMPB_HOSTILE_BLOCK") != NULL;
    OMPB_ITER(state) {
        if (sleepy)
            nap_ms(10);
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}

static void count_signal(int sig)
{
    (void)sig;
}

static int own_handler(ompb_state *state)
{
    (void)state;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_signal;
    sigemptyset(&sa.sa_mask);
    if (getenv("OMPB_HOSTILE_HANDLER"))
        sigaction(SIGINT, &sa, NULL);
    return 0;
}

OMPB_BENCH(handles, .setup = own_handler)
{
    OMPB_ITER(state) {
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}

OMPB_BENCH(jumps, OMPB_THREADS(2))
{
    static _Thread_local jmp_buf back;
    const char *who = getenv("OMPB_HOSTILE_JUMP");
    volatile bool jump = who && ompb_thread_index(state) == atoi(who);
    if (setjmp(back))
        return;
    OMPB_ITER(state) {
        if (jump)
            longjmp(back, 1);
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}

/* Set in jumps_stale's setup, which then returns: every jump to it is
 * undefined behaviour. */
static jmp_buf stale;

static int stale_setup(ompb_state *state)
{
    (void)state;
    (void)setjmp(stale);
    return 0;
}

OMPB_BENCH(jumps_stale, OMPB_THREADS(2), .setup = stale_setup)
{
    const char *who = getenv("OMPB_HOSTILE_JUMP_STALE");
    bool jump = who && ompb_thread_index(state) == atoi(who);
    OMPB_ITER(state) {
        if (jump)
            longjmp(stale, 1);
        ompb_black_box_u64(ompb_opaque_u64(3) * 7);
    }
}
