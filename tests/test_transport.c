/* SPDX-License-Identifier: MIT */
/*
 * Transport tests against a peer in the test (tests/hooks_peer.c): a normal
 * runner, and runners that stay silent, die, answer Err, answer garbage or
 * leave stale acknowledgements; a peer that answers a byte at a time, with
 * and without a storm of signals interrupting every wait; broken pipes.
 * What must hold: a bounded wait, one warning that says why, the process's
 * transports disabled afterwards (no further traffic), and never a crash
 * or a hang. Waits use short timeouts scaled by
 * OMPB_TEST_TIMEOUT_MULTIPLIER; no test asserts how fast anything is.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "hooks/transport.h"
#include "hooks_peer.h"
#include "suite.h"

#define SHORT_TIMEOUT_MS 100
#define LONG_TIMEOUT_MS 10000
#define FLUSH_PAIRS 1000
#define BYTEWISE_MARKERS 300
#define JUNK_BYTES (256 * 1024)
#define STORM_PERIOD_NS 100000

static int short_timeout(void)
{
    return SHORT_TIMEOUT_MS * ompb_test_timeout_multiplier();
}

static int long_timeout(void)
{
    return LONG_TIMEOUT_MS * ompb_test_timeout_multiplier();
}

/* Opens a transport on the peer's pipes. */
static ompb__transport *connect_to(const hooks_peer *p, int timeout_ms)
{
    ompb__transport *t = NULL;
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__transport_open(p->ctl, p->ack, timeout_ms, &t, &err), 0);
    return t;
}

static void request_kind(ompb__transport *t, ompb__cmd_kind kind, int want)
{
    ompb__cmd req = ompb__cmd_simple(kind);
    CU_ASSERT_EQUAL(ompb__transport_request(t, &req, NULL, NULL), want);
}

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static uint64_t deadline_in(int ms)
{
    return ompb__now_ns() + (uint64_t)ms * 1000000u;
}

/* A handshake, then n markers pipelined, against a well-behaved peer. */
static void exchange(ompb__transport *t, size_t n)
{
    ompb__cmd ask = ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE), reply;
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__transport_request(t, &ask, &reply, &err), 0);
    CU_ASSERT_EQUAL(reply.mode, OMPB__RUNNER_PERF);
    ompb__cmd *cmds = calloc(n, sizeof *cmds);
    for (size_t i = 0; i < n; i++)
        cmds[i] = ompb__cmd_marker(1, i % 2 ? OMPB_MARKER_BENCHMARK_END
                                            : OMPB_MARKER_BENCHMARK_START, (uint64_t)i);
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, cmds, n, &err), 0);
    if (err.text[0])
        fprintf(stderr, "    %s\n", err.text);
    free(cmds);
}

/* ---- normal runner -------------------------------------------------------- */

static void test_request_reply(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    ompb__cmd ask = ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE), reply;
    CU_ASSERT_EQUAL(ompb__transport_request(t, &ask, &reply, NULL), 0);
    CU_ASSERT_EQUAL(reply.kind, OMPB__CMD_INTEGRATION_MODE_RESPONSE);
    CU_ASSERT_EQUAL(reply.mode, OMPB__RUNNER_PERF);
    ompb__cmd version = ompb__cmd_set_version(2);
    CU_ASSERT_EQUAL(ompb__transport_request(t, &version, &reply, NULL), 0);
    CU_ASSERT_EQUAL(reply.kind, OMPB__CMD_ACK);
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(ompb__collector_protocol_version(p.collector), 2);
    CU_ASSERT_EQUAL(ompb__collector_frames(p.collector), 2);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* A collector stand-in with a benchmark window open (handshake and
 * StartBenchmark sent), for the flush tests. */
static ompb__transport *open_window(hooks_peer *p)
{
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(p, PEER_COLLECTOR), 0);
    hooks_peer_start_thread(p);
    ompb__transport *t = connect_to(p, long_timeout());
    ompb__cmd hello[] = {ompb__cmd_set_version(2), ompb__cmd_set_integration("t", "1"),
                         ompb__cmd_simple(OMPB__CMD_START_BENCHMARK)};
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, hello, 3, NULL), 0);
    return t;
}

/* After the stand-in stopped: it saw one window named uri holding the
 * bounds base, base + 1, ... (2 * FLUSH_PAIRS of them) and no violation. */
static void check_flush_window(const hooks_peer *p, const char *uri, uint64_t base)
{
    size_t nw;
    const ompb__collector_window *w = ompb__collector_windows(p->collector, &nw);
    CU_ASSERT_EQUAL_FATAL(nw, 1);
    CU_ASSERT_EQUAL(w[0].pid, 7);
    CU_ASSERT_STRING_EQUAL(w[0].uri, uri);
    CU_ASSERT_EQUAL_FATAL(w[0].n_bounds, 2 * FLUSH_PAIRS);
    for (size_t i = 0; i < w[0].n_bounds; i++)
        CU_ASSERT_EQUAL(w[0].bounds[i], base + i);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(p->collector), 0);
}

static void test_pipelined_flush(void)
{
    hooks_peer p;
    ompb__transport *t = open_window(&p);
    size_t n = 2 * FLUSH_PAIRS + 2;
    ompb__cmd *cmds = calloc(n, sizeof *cmds);
    uint64_t base = ompb__now_ns();
    for (size_t i = 0; i < 2 * FLUSH_PAIRS; i++)
        cmds[i] = ompb__cmd_marker(7, i % 2 ? OMPB_MARKER_BENCHMARK_END
                                            : OMPB_MARKER_BENCHMARK_START, base + i);
    cmds[n - 2] = ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK);
    cmds[n - 1] = ompb__cmd_current_benchmark(7, "t.c::flush");
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, cmds, n, NULL), 0);
    hooks_peer_stop(&p);
    check_flush_window(&p, "t.c::flush", base);
    free(cmds);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* The markers of a flush encoded straight from two bound arrays, over many
 * PIPE_BUF batches, then the tail: the runner sees the same window as from
 * the commands one by one (test_pipelined_flush), in order. */
static void test_markers_from_arrays(void)
{
    hooks_peer p;
    ompb__transport *t = open_window(&p);
    uint64_t *start = calloc(FLUSH_PAIRS, sizeof *start), *end = calloc(FLUSH_PAIRS, sizeof *end);
    uint64_t base = ompb__now_ns();
    for (size_t r = 0; r < FLUSH_PAIRS; r++) {
        start[r] = base + 2 * r;
        end[r] = base + 2 * r + 1;
    }
    ompb__cmd tail[] = {ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK),
                        ompb__cmd_current_benchmark(7, "t.c::arrays")};
    CU_ASSERT_EQUAL(ompb__transport_send_markers(t, 7, start, end, FLUSH_PAIRS, tail, 2, NULL), 0);
    hooks_peer_stop(&p);
    check_flush_window(&p, "t.c::arrays", base);
    free(start);
    free(end);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

static void test_two_transports_share_pipes(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *a = connect_to(&p, long_timeout()), *b = connect_to(&p, long_timeout());
    for (int i = 0; i < 50; i++) {
        request_kind(i % 2 ? a : b, OMPB__CMD_PING_PERF, 0);
        ompb__cmd ask = ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE), reply;
        CU_ASSERT_EQUAL(ompb__transport_request(i % 2 ? b : a, &ask, &reply, NULL), 0);
        CU_ASSERT_EQUAL(reply.kind, OMPB__CMD_INTEGRATION_MODE_RESPONSE);
    }
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(ompb__collector_frames(p.collector), 100);
    ompb__transport_close(a);
    ompb__transport_close(b);
    hooks_peer_destroy(&p);
}

/* ---- faults --------------------------------------------------------------- */

static void test_silent_peer_times_out_once(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_SILENT), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, short_timeout());
    ompb_error err = {0};
    ompb__cmd req = ompb__cmd_simple(OMPB__CMD_START_BENCHMARK);
    uint64_t t0 = ompb__now_ns();
    CU_ASSERT_EQUAL(ompb__transport_request(t, &req, NULL, &err), OMPB_ETIMEDOUT);
    /* The deadline is honoured, never cut short. */
    CU_ASSERT(ompb__now_ns() - t0 >= (uint64_t)short_timeout() * 1000000u);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "StartBenchmark"));
    CU_ASSERT_TRUE(ompb__transport_disabled());
    /* Disabled: nothing more reaches the pipe. */
    CU_ASSERT_EQUAL(ompb__transport_request(t, &req, NULL, NULL), OMPB_ENOTSUP);
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, &req, 1, NULL), OMPB_ENOTSUP);
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 1);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

static void test_silent_peer_pipelined(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_SILENT), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, short_timeout());
    ompb__cmd cmds[64];
    for (int i = 0; i < 64; i++)
        cmds[i] = ompb__cmd_marker(1, i % 2 ? OMPB_MARKER_BENCHMARK_END
                                            : OMPB_MARKER_BENCHMARK_START, (uint64_t)i);
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, cmds, 64, NULL), OMPB_ETIMEDOUT);
    CU_ASSERT_TRUE(ompb__transport_disabled());
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(atomic_load(&p.undecodable), 0);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* A runner that acks every frame a quarter of a timeout late is live, but
 * a flush of 20 frames then gets one timeout in all, not one per ack:
 * it fails after about one timeout (a deadline restarted by every ack
 * would let it succeed after five). */
static void test_slow_peer_flush_has_one_deadline(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_SLOW), 0);
    p.delay_ns = (uint64_t)short_timeout() * 1000000u / 4;
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, short_timeout());
    ompb__cmd cmds[20];
    for (int i = 0; i < 20; i++)
        cmds[i] = ompb__cmd_marker(1, i % 2 ? OMPB_MARKER_BENCHMARK_END
                                            : OMPB_MARKER_BENCHMARK_START, (uint64_t)i);
    ompb_error err = {0};
    uint64_t t0 = ompb__now_ns();
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, cmds, 20, &err), OMPB_ETIMEDOUT);
    uint64_t took = ompb__now_ns() - t0;
    CU_ASSERT(took < 3 * (uint64_t)short_timeout() * 1000000u);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "for a whole flush: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "of its 20 commands acknowledged"));
    CU_ASSERT_TRUE(ompb__transport_disabled());
    hooks_peer_stop(&p);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* Requests that each succeed, but whose waits add up past the process's
 * budget: the one that would cross it times out at the budget's end with
 * a message naming OMPB_HOOKS_BUDGET_MS, and everything is off after. */
static void test_slow_peer_spends_the_budget(void)
{
    hooks_peer p;
    char budget[32];
    /* Each request is charged its wait less the free part. */
    int delay_ms = 20 * ompb_test_timeout_multiplier();
    int budget_ms = 5 * (delay_ms - OMPB__BUDGET_FREE_MS);
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_SLOW), 0);
    p.delay_ns = (uint64_t)delay_ms * 1000000u;
    snprintf(budget, sizeof budget, "%d", budget_ms);
    setenv(OMPB__BUDGET_ENV, budget, 1);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    ompb__cmd req = ompb__cmd_simple(OMPB__CMD_START_BENCHMARK);
    ompb_error err = {0};
    int rc = 0, ok = 0;
    uint64_t t0 = ompb__now_ns();
    while (ok < 100 && (rc = ompb__transport_request(t, &req, NULL, &err)) == 0)
        ok++;
    uint64_t took = ompb__now_ns() - t0;
    CU_ASSERT_EQUAL(rc, OMPB_ETIMEDOUT);
    /* Five waits of at least a fifth of the budget each: the fifth may end
     * just in time (poll's deadline is rounded up to a millisecond). */
    CU_ASSERT(ok >= 1 && ok <= 5);
    CU_ASSERT(took < 3 * (uint64_t)budget_ms * 1000000u);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "the runner is too slow"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "OMPB_HOOKS_BUDGET_MS"));
    CU_ASSERT_TRUE(ompb__transport_disabled());
    CU_ASSERT_EQUAL(ompb__transport_request(t, &req, NULL, NULL), OMPB_ENOTSUP);
    hooks_peer_stop(&p);
    unsetenv(OMPB__BUDGET_ENV);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* A live runner that answers within the free part of each wait (5 ms,
 * OMPB__BUDGET_FREE_MS) spends nothing of the budget, so a long suite never
 * turns its hooks off; only the part of a wait beyond the free part is
 * charged. The peer answers each request 3 ms after reading it, so every
 * wait w_i is at least 3 ms and what is charged, the sum of
 * max(0, w_i - 5 ms), is at most sum(w_i) - 50 x 3 ms; charged whole it
 * would be sum(w_i). The test times each request call (S >= sum(w_i)) and
 * checks charged <= S - 150 ms: no absolute time, so scheduling delays of
 * a loaded machine (which once charged 105 ms to 34 such requests at load
 * 12) cannot break it, while charging whole waits does. The budget is
 * large enough that nothing is disabled. */
static void test_live_peer_spends_nothing(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_SLOW), 0);
    p.delay_ns = 3000000u;
    setenv(OMPB__BUDGET_ENV, "1000000", 1);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    ompb__cmd req = ompb__cmd_simple(OMPB__CMD_START_BENCHMARK);
    ompb_error err = {0};
    int rc = 0, ok = 0;
    uint64_t calls_ns = 0, before = ompb__transport_charged_ns();
    while (ok < 50) {
        uint64_t t0 = ompb__now_ns();
        rc = ompb__transport_request(t, &req, NULL, &err);
        calls_ns += ompb__now_ns() - t0;
        if (rc)
            break;
        ok++;
    }
    uint64_t charged = ompb__transport_charged_ns() - before;
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(ok, 50);
    if (rc)
        fprintf(stderr, "\n    request %d: %s\n", ok + 1, err.text);
    CU_ASSERT_TRUE(calls_ns >= 150000000u && charged <= calls_ns - 150000000u);
    if (!(calls_ns >= 150000000u && charged <= calls_ns - 150000000u))
        fprintf(stderr, "\n    charged %.1f ms of %.1f ms spent in 50 requests answered 3 ms "
                "late (at most the spent time - 150 ms)\n", charged / 1e6, calls_ns / 1e6);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    hooks_peer_stop(&p);
    unsetenv(OMPB__BUDGET_ENV);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

static void test_dying_peer(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COUNTING), 0);
    p.answer_limit = 3;
    p.exit_at_limit = true;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_start_process(&p), 0);
    ompb__transport *t = connect_to(&p, short_timeout());
    for (int i = 0; i < 3; i++)
        request_kind(t, OMPB__CMD_PING_PERF, 0);
    request_kind(t, OMPB__CMD_STOP_BENCHMARK, OMPB_ETIMEDOUT);
    CU_ASSERT_TRUE(ompb__transport_disabled());
    request_kind(t, OMPB__CMD_STOP_BENCHMARK, OMPB_ENOTSUP);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

static void test_err_answers(void)
{
    hooks_peer p;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_ERR), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    ompb__cmd req = ompb__cmd_set_version(2);
    CU_ASSERT_EQUAL(ompb__transport_request(t, &req, NULL, &err), OMPB_EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "refused protocol version 2"));
    CU_ASSERT_TRUE(ompb__transport_disabled());
    ompb__transport_revive();
    req = ompb__cmd_simple(OMPB__CMD_START_BENCHMARK);
    CU_ASSERT_EQUAL(ompb__transport_request(t, &req, NULL, &err), OMPB_EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "answered Err to StartBenchmark"));
    ompb__transport_revive();
    ompb__cmd two[2] = {req, req};
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, two, 2, &err), OMPB_EPROTO);
    CU_ASSERT_TRUE(ompb__transport_disabled());
    hooks_peer_stop(&p);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

static void test_garbage_answers(void)
{
    hooks_peer p;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_GARBAGE), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    ompb__cmd req = ompb__cmd_simple(OMPB__CMD_START_BENCHMARK);
    CU_ASSERT_EQUAL(ompb__transport_request(t, &req, NULL, &err), OMPB_EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "undecodable reply"));
    CU_ASSERT_TRUE(ompb__transport_disabled());
    hooks_peer_stop(&p);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

static void test_wrong_reply(void)
{
    hooks_peer p;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_WRONG_REPLY), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    ompb__cmd req = ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK);
    CU_ASSERT_EQUAL(ompb__transport_request(t, &req, NULL, &err), OMPB_EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "IntegrationModeResponse to StopBenchmark"));
    ompb__transport_revive();
    /* Pipelined: a 12-byte reply where an 8-byte Ack was due. */
    ompb__cmd two[2] = {req, req};
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, two, 2, &err), OMPB_EPROTO);
    hooks_peer_stop(&p);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* Acks left in the pipe by an earlier process must not answer our requests. */
static void test_stale_acks_drained(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    uint8_t stale[64];
    size_t len, total = 0;
    ompb__cmd m = ompb__cmd_mode_response(OMPB__RUNNER_ANALYSIS), ack = ompb__cmd_simple(OMPB__CMD_ACK);
    ompb__cmd_encode(&m, stale, sizeof stale, &len);
    total += len;
    ompb__cmd_encode(&ack, stale + total, sizeof stale - total, &len);
    total += len;
    stale[total++] = 0x42;   /* and half a frame */
    CU_ASSERT_EQUAL_FATAL(write(p.ack_fd, stale, total), (ssize_t)total);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    ompb__cmd ask = ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE), reply;
    CU_ASSERT_EQUAL(ompb__transport_request(t, &ask, &reply, NULL), 0);
    CU_ASSERT_EQUAL(reply.mode, OMPB__RUNNER_PERF);
    request_kind(t, OMPB__CMD_PING_PERF, 0);
    hooks_peer_stop(&p);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* ---- setup and parameters ------------------------------------------------- */

static void test_missing_or_wrong_pipes(void)
{
    ompb__transport *t = (ompb__transport *)&t;
    ompb__transport_revive();
    char dir[] = "/tmp/ompb-transport.XXXXXX", file[64], fifo[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/regular", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    close(open(file, O_CREAT | O_WRONLY, 0600));
    mkfifo(fifo, 0600);
    CU_ASSERT_FALSE(ompb__transport_present("/nonexistent/ctl", fifo));
    CU_ASSERT_FALSE(ompb__transport_present(fifo, file));
    CU_ASSERT_TRUE(ompb__transport_present(fifo, fifo));
    CU_ASSERT_EQUAL(ompb__transport_open("/nonexistent/ctl", fifo, 10, &t, NULL), OMPB_ENOENT);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_EQUAL(ompb__transport_open(fifo, file, 10, &t, NULL), OMPB_ENOENT);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    unlink(file);
    unlink(fifo);
    rmdir(dir);
}

static void test_paths_and_timeout_from_env(void)
{
    unsetenv(OMPB__CTL_FIFO_ENV);
    unsetenv(OMPB__ACK_FIFO_ENV);
    CU_ASSERT_STRING_EQUAL(ompb__transport_ctl_path(), "/tmp/runner.ctl.fifo");
    CU_ASSERT_STRING_EQUAL(ompb__transport_ack_path(), "/tmp/runner.ack.fifo");
    setenv(OMPB__CTL_FIFO_ENV, "/x/ctl", 1);
    setenv(OMPB__ACK_FIFO_ENV, "/x/ack", 1);
    CU_ASSERT_STRING_EQUAL(ompb__transport_ctl_path(), "/x/ctl");
    CU_ASSERT_STRING_EQUAL(ompb__transport_ack_path(), "/x/ack");
    ompb_test_no_runner();
    static const struct { const char *v; int want; } cases[] = {
        {"250", 250}, {"1", 1}, {"abc", 1000}, {"-5", 1000}, {"0", 1000}, {"12x", 1000},
        {"", 1000}, {" 250", 1000}, {"+250", 1000}, {"1073741824", 1000}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv(OMPB__TIMEOUT_ENV, cases[i].v, 1);
        CU_ASSERT_EQUAL(ompb__transport_timeout_ms(), cases[i].want);
    }
    unsetenv(OMPB__TIMEOUT_ENV);
    CU_ASSERT_EQUAL(ompb__transport_timeout_ms(), 1000);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv(OMPB__BUDGET_ENV, cases[i].v, 1);
        CU_ASSERT_EQUAL(ompb__transport_budget_ms(), cases[i].want == 1000 ? 10000 : cases[i].want);
    }
    unsetenv(OMPB__BUDGET_ENV);
    CU_ASSERT_EQUAL(ompb__transport_budget_ms(), 10000);
}

static void test_unencodable_request_sends_nothing(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COUNTING), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    ompb__cmd bad = ompb__cmd_current_benchmark(1, "\xc0\xaf");
    CU_ASSERT_EQUAL(ompb__transport_request(t, &bad, NULL, NULL), OMPB_EINVAL);
    ompb__cmd two[2] = {ompb__cmd_simple(OMPB__CMD_PING_PERF), bad};
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, two, 2, NULL), OMPB_EINVAL);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    request_kind(t, OMPB__CMD_PING_PERF, 0);
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 1);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* ---- partial replies, interrupted waits ------------------------------------ */

static void test_bytewise_acks(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_BYTEWISE), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    exchange(t, BYTEWISE_MARKERS);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 1 + BYTEWISE_MARKERS);
    /* Read up to each frame's end, never past it: nothing is left over. */
    uint8_t byte;
    CU_ASSERT_EQUAL(read(p.ack_fd, &byte, 1), -1);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

typedef struct storm {
    pthread_t target;
    atomic_bool stop;
} storm;

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

/* SIGALRM at the requesting thread, over and over, until told to stop. */
static void *storm_run(void *arg)
{
    storm *s = arg;
    struct timespec period = {0, STORM_PERIOD_NS};
    while (!atomic_load(&s->stop)) {
        pthread_kill(s->target, SIGALRM);
        nanosleep(&period, NULL);
    }
    return NULL;
}

/* Without SA_RESTART every signal cuts poll(2) and friends short (EINTR):
 * the transport must carry on, with its deadline intact. */
static void test_eintr_storm(void)
{
    hooks_peer p;
    storm s = {.target = pthread_self()};
    pthread_t thread;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    CU_ASSERT_EQUAL_FATAL(sigaction(SIGALRM, &sa, &old), 0);
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_BYTEWISE), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    alarms = 0;
    atomic_init(&s.stop, false);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, storm_run, &s), 0);
    exchange(t, BYTEWISE_MARKERS);
    atomic_store(&s.stop, true);
    pthread_join(thread, NULL);
    sigaction(SIGALRM, &old, NULL);
    CU_ASSERT(alarms > 0);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 1 + BYTEWISE_MARKERS);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* ---- broken pipes and broken peers ----------------------------------------- */

/* A zero-byte read sets no errno: the warning must say what happened, not
 * whatever errno an earlier call left behind. */
static void test_eof_names_its_cause(void)
{
    hooks_peer p;
    ompb_error err = {0};
    int ctl, ack, null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_SILENT), 0);
    hooks_peer_start_thread(&p);
    ompb__transport *t = connect_to(&p, long_timeout());
    ompb__transport_fds(t, &ctl, &ack);
    CU_ASSERT_EQUAL_FATAL(dup2(null_fd, ack), ack);   /* reads now return 0 */
    errno = EDOM;
    ompb__cmd req = ompb__cmd_simple(OMPB__CMD_START_BENCHMARK), two[2] = {req, req};
    CU_ASSERT_EQUAL(ompb__transport_request(t, &req, NULL, &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "end of file"));
    CU_ASSERT_PTR_NULL(strstr(err.text, strerror(EDOM)));
    ompb__transport_revive();
    errno = EDOM;
    CU_ASSERT_EQUAL(ompb__transport_send_all(t, two, 2, &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "end of file"));
    CU_ASSERT_PTR_NULL(strstr(err.text, strerror(EDOM)));
    hooks_peer_stop(&p);
    close(null_fd);
    ompb__transport_close(t);
    hooks_peer_destroy(&p);
}

/* Writes n bytes to fd, waiting for room, until the deadline; returns the
 * bytes written. */
static size_t write_until(int fd, const uint8_t *buf, size_t n, uint64_t deadline)
{
    size_t done = 0;
    while (done < n && ompb__now_ns() < deadline) {
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        ssize_t w = write(fd, buf + done, n - done);
        if (w > 0)
            done += (size_t)w;
        else
            poll(&pfd, 1, 10);
    }
    return done;
}

/* The peer loses the framing on an absurd length, as the runner does, and
 * from then on only drains what it is sent: no answer, no busy loop on a
 * full buffer, no full pipe for the writer. */
static void test_peer_drops_stream_after_absurd_length(void)
{
    hooks_peer p;
    uint8_t *junk = malloc(JUNK_BYTES);
    int unread = -1;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COUNTING), 0);
    hooks_peer_start_thread(&p);
    memset(junk, 0xab, JUNK_BYTES);
    memcpy(junk, "\xff\xff\xff\x7f", 4);
    uint64_t deadline = deadline_in(long_timeout());
    CU_ASSERT_EQUAL(write_until(p.ctl_fd, junk, JUNK_BYTES, deadline), JUNK_BYTES);
    while (ompb__now_ns() < deadline && (ioctl(p.ctl_fd, FIONREAD, &unread) != 0 || unread))
        pause_ms(5);
    CU_ASSERT_EQUAL(unread, 0);
    CU_ASSERT_EQUAL(atomic_load(&p.undecodable), 1);
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 0);
    hooks_peer_stop(&p);
    uint8_t byte;
    CU_ASSERT_EQUAL(read(p.ack_fd, &byte, 1), -1);   /* nothing was answered */
    free(junk);
    hooks_peer_destroy(&p);
}

static const ompb_test_case cases[] = {
    {"request_reply", test_request_reply},
    {"pipelined_flush", test_pipelined_flush},
    {"markers_from_arrays", test_markers_from_arrays},
    {"two_transports_share_pipes", test_two_transports_share_pipes},
    {"silent_peer_times_out_once", test_silent_peer_times_out_once},
    {"silent_peer_pipelined", test_silent_peer_pipelined},
    {"slow_peer_flush_has_one_deadline", test_slow_peer_flush_has_one_deadline},
    {"slow_peer_spends_the_budget", test_slow_peer_spends_the_budget},
    {"live_peer_spends_nothing", test_live_peer_spends_nothing},
    {"dying_peer", test_dying_peer},
    {"err_answers", test_err_answers},
    {"garbage_answers", test_garbage_answers},
    {"wrong_reply", test_wrong_reply},
    {"stale_acks_drained", test_stale_acks_drained},
    {"missing_or_wrong_pipes", test_missing_or_wrong_pipes},
    {"paths_and_timeout_from_env", test_paths_and_timeout_from_env},
    {"unencodable_request_sends_nothing", test_unencodable_request_sends_nothing},
    {"bytewise_acks", test_bytewise_acks},
    {"eintr_storm", test_eintr_storm},
    {"eof_names_its_cause", test_eof_names_its_cause},
    {"peer_drops_stream_after_absurd_length", test_peer_drops_stream_after_absurd_length},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_transport = {"transport", NULL, NULL, cases};
