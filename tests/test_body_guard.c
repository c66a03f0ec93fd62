/* SPDX-License-Identifier: MIT */
/*
 * The body guard (lib/engine/body_guard.c): what guards a run against hostile
 * benchmark bodies, driven directly, with no engine and no run. Checked:
 * a signal while guarded only sets the flag the master reads, the master's
 * claim returns it, and the end of the run puts back every action it found
 * (the caught signal's repeats are ignored instead); a body's own handler
 * is reported once; an exit() from a body and a slot past --timeout each
 * call the run's stop function with the words the run prints (the second
 * naming the thread still in the body) and end the process with status 1.
 * Those two end their process, so they run in a child, bounded by a
 * deadline that scales with OMPB_TEST_TIMEOUT_MULTIPLIER. Signals are
 * raised on this thread only (SIGTERM and SIGHUP: a shell may have
 * ignored SIGINT for a background ctest).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ompbench/run.h>

#include "core/signals.h"
#include "engine/body_guard.h"
#include "engine/state.h"
#include "fixtures.h"
#include "suite.h"

#define CHILD_DEADLINE_MS 10000 /* x OMPB_TEST_TIMEOUT_MULTIPLIER */
#define STOP_TEXT_MAX 512

static volatile sig_atomic_t prior_calls;

static void prior_handler(int sig)
{
    (void)sig;
    prior_calls++;
}

static void own_handler(int sig)
{
    (void)sig;
}

static void never_stop(void *arg, const char *by, const char *why)
{
    (void)arg;
    (void)by;
    (void)why;
}

static void test_signal_names(void)
{
    CU_ASSERT_STRING_EQUAL(ompb__signal_name(SIGINT), "SIGINT");
    CU_ASSERT_STRING_EQUAL(ompb__signal_name(SIGTERM), "SIGTERM");
    CU_ASSERT_STRING_EQUAL(ompb__signal_name(SIGHUP), "SIGHUP");
    CU_ASSERT_STRING_EQUAL(ompb__signal_name(SIGUSR1), "signal");
}

/* SIGTERM while guarded: flagged, not delivered to the action the run
 * found; claimed by the master; afterwards SIGTERM's repeats are ignored
 * and SIGHUP has its action back. */
static void test_signal_flagged_and_claimed(void)
{
    struct sigaction term, hup;
    ompb_test_set_action(SIGTERM, prior_handler, &term);
    ompb_test_set_action(SIGHUP, prior_handler, &hup);
    prior_calls = 0;
    ompb__body_guard_run_begin(never_stop, NULL, true, 0, 1);
    CU_ASSERT_EQUAL(ompb__body_guard_signal(), 0);
    CU_ASSERT_TRUE(ompb_test_handler_of(SIGTERM) != prior_handler);
    raise(SIGTERM);
    CU_ASSERT_EQUAL(ompb__body_guard_signal(), SIGTERM);
    CU_ASSERT_EQUAL(prior_calls, 0);
    CU_ASSERT_EQUAL(ompb__body_guard_claim(), SIGTERM);
    ompb__body_guard_run_end();
    CU_ASSERT_TRUE(ompb_test_handler_of(SIGTERM) == SIG_IGN);
    CU_ASSERT_TRUE(ompb_test_handler_of(SIGHUP) == prior_handler);
    sigaction(SIGTERM, &term, NULL);
    sigaction(SIGHUP, &hup, NULL);
    /* A new run starts with no signal caught. */
    ompb__body_guard_run_begin(never_stop, NULL, false, 0, 1);
    CU_ASSERT_EQUAL(ompb__body_guard_signal(), 0);
    CU_ASSERT_EQUAL(ompb__body_guard_claim(), 0);
    ompb__body_guard_run_end();
}

/* A body that installs its own handler: reported once (that signal is the
 * body's until the run ends), and the run's action comes back at the end. */
static void test_own_handler_reported(void)
{
    struct sigaction hup;
    ompb_test_set_action(SIGHUP, prior_handler, &hup);
    ompb__body_guard_run_begin(never_stop, NULL, true, 0, 1);
    CU_ASSERT_EQUAL(ompb__body_guard_handler_replaced(), 0);
    ompb_test_set_action(SIGHUP, own_handler, NULL);
    CU_ASSERT_EQUAL(ompb__body_guard_handler_replaced(), SIGHUP);
    CU_ASSERT_EQUAL(ompb__body_guard_handler_replaced(), 0);
    CU_ASSERT_EQUAL(ompb__body_guard_claim(), 0);
    ompb__body_guard_run_end();
    CU_ASSERT_TRUE(ompb_test_handler_of(SIGHUP) == prior_handler);
    sigaction(SIGHUP, &hup, NULL);
}

/* ---- stops, in a child process ----------------------------------------------- */

static int stop_fd = -1;

/* The run's stop function: "by|why" to the parent. */
static void report_stop(void *arg, const char *by, const char *why)
{
    (void)arg;
    char buf[STOP_TEXT_MAX];
    int n = snprintf(buf, sizeof buf, "%s|%s", by, why);
    if (n > 0 && write(stop_fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0)
        _exit(99);
}

/* Runs fn in a child whose stop function writes to a pipe; returns the
 * child's wait status (-1 when it outlived the deadline: killed) and the
 * text it reported in text. */
static int in_child(void (*fn)(void), char *text, size_t cap)
{
    int fds[2];
    text[0] = '\0';
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        stop_fd = fds[1];
        fn();
        _exit(98); /* the guard did not end the process */
    }
    close(fds[1]);
    size_t len = 0;
    int deadline = CHILD_DEADLINE_MS * ompb_test_timeout_multiplier();
    struct pollfd p = {fds[0], POLLIN, 0};
    while (pid > 0 && len + 1 < cap && poll(&p, 1, deadline) > 0) {
        ssize_t n = read(fds[0], text + len, cap - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    text[len] = '\0';
    close(fds[0]);
    int status = 0;
    if (pid < 0)
        return -1;
    if (p.revents == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

static void exiting_body(void)
{
    ompb__body_guard_run_begin(report_stop, NULL, false, 0, 1);
    ompb__body_guard_slot_begin(0);
    exit(0);
}

static void test_exit_from_body_stops(void)
{
    char text[STOP_TEXT_MAX];
    int status = in_child(exiting_body, text, sizeof text);
    CU_ASSERT_TRUE(status != -1 && WIFEXITED(status));
    CU_ASSERT_EQUAL(WEXITSTATUS(status), OMPB_EXIT_FAILED);
    CU_ASSERT_STRING_EQUAL(text, "exit|the benchmark called exit(0) while it was being measured");
}

/* Thread 1 of a team of 2 stays in its body past a 50 ms --timeout. */
static void stuck_body(void)
{
    static ompb_state states[2];
    atomic_store(&states[1].in_body, true);
    ompb__body_guard_run_begin(report_stop, NULL, false, 50000000, 2);
    ompb__body_guard_team(states, 2);
    ompb__body_guard_slot_begin(0);
    for (int i = 0; i < 100 * ompb_test_timeout_multiplier(); i++)
        usleep(100000);
}

static void test_timeout_names_stuck_thread(void)
{
    char text[STOP_TEXT_MAX];
    int status = in_child(stuck_body, text, sizeof text);
    CU_ASSERT_TRUE(status != -1 && WIFEXITED(status));
    CU_ASSERT_EQUAL(WEXITSTATUS(status), OMPB_EXIT_FAILED);
    CU_ASSERT_STRING_EQUAL(text, "timeout|--timeout 50ms expired (thread 1 of 2 still in the "
                           "body); a stuck body cannot be stopped in-process, so the run "
                           "ends here");
}

static const ompb_test_case cases[] = {
    {"signal_names", test_signal_names},
    {"signal_flagged_and_claimed", test_signal_flagged_and_claimed},
    {"own_handler_reported", test_own_handler_reported},
    {"exit_from_body_stops", test_exit_from_body_stops},
    {"timeout_names_stuck_thread", test_timeout_names_stuck_thread},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_body_guard = {"body_guard", NULL, NULL, cases};
