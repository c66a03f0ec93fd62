/* SPDX-License-Identifier: MIT */
/*
 * Hooks tests: the public API (include/ompbench/hooks.h) and the instrument
 * facade against a collector peer and against failing runners, a stress
 * test with many more threads than cores sharing the pipes, a fork while
 * another thread is mid-request, the collector's checks one violation at a
 * time, and the CodSpeed walltime results file cross-checked against the
 * markers of the same rounds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <ompbench/version.h>

#include "core/clock.h"
#include "collector.h"
#include "fixtures.h"
#include "hooks/hooks_internal.h"
#include "hooks/instrument.h"
#include "hooks_peer.h"
#include "report/report.h"
#include "engine/round.h"
#include "suite.h"
#include "test_env.h"

#define LONG_TIMEOUT_MS 10000
#define SHORT_TIMEOUT_MS 100
#define STRESS_THREADS 32
#define STRESS_SHARED 16          /* threads [0, 16) share one handle */
#define STRESS_REQUESTS 1000
#define FD_FILL_LIMIT 256

static void set_timeout(int ms)
{
    char v[32];
    snprintf(v, sizeof v, "%d", ms * ompb_test_timeout_multiplier());
    setenv("OMPB_HOOKS_TIMEOUT_MS", v, 1);
}

/* No runner: pipe paths that cannot exist. */
static void point_at_nothing(void)
{
    setenv("OMPB_RUNNER_CTL_FIFO", "/nonexistent/ompb.ctl", 1);
    setenv("OMPB_RUNNER_ACK_FIFO", "/nonexistent/ompb.ack", 1);
}

static void cleanup_env(void)
{
    unsetenv("OMPB_HOOKS_TIMEOUT_MS");
    unsetenv("OMPB_HOOKS_BUDGET_MS");
    ompb_test_no_runner();
    ompb__instrument_reset();
    ompb__transport_revive();
}

static bool is_string_array(const json_t *v)
{
    size_t i;
    json_t *x;
    if (!json_is_array(v))
        return false;
    json_array_foreach(v, i, x)
        if (!json_is_string(x))
            return false;
    return true;
}

static bool has_violation(const ompb__collector *c, const char *needle)
{
    for (size_t i = 0; i < ompb__collector_violation_count(c); i++)
        if (strstr(ompb__collector_violation_text(c, i), needle))
            return true;
    return false;
}

static void print_violations(const ompb__collector *c)
{
    for (size_t i = 0; i < ompb__collector_violation_count(c); i++)
        fprintf(stderr, "    violation: %s\n", ompb__collector_violation_text(c, i));
}

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static uint64_t deadline_in(int ms)
{
    return ompb__now_ns() + (uint64_t)ms * 1000000u * (uint64_t)ompb_test_timeout_multiplier();
}

/* stderr goes to a temporary file between capture_start and capture_end,
 * which returns what was written (free it). */
typedef struct capture {
    int saved;
    FILE *file;
} capture;

static void capture_start(capture *cap)
{
    fflush(stderr);
    cap->file = tmpfile();
    cap->saved = dup(STDERR_FILENO);
    dup2(fileno(cap->file), STDERR_FILENO);
}

static char *capture_end(capture *cap)
{
    fflush(stderr);
    dup2(cap->saved, STDERR_FILENO);
    close(cap->saved);
    long n = ftell(cap->file);
    char *text = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
    rewind(cap->file);
    if (n > 0 && fread(text, 1, (size_t)n, cap->file) != (size_t)n)
        text[0] = '\0';
    fclose(cap->file);
    return text;
}

static size_t count_lines_with(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* ---- public API ----------------------------------------------------------- */

static void test_api_off_is_noop(void)
{
    point_at_nothing();
    ompb_hooks *h = ompb_hooks_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(h), OMPB_HOOKS_OFF);
    CU_ASSERT_FALSE(ompb_hooks_is_instrumented(h));
    CU_ASSERT_EQUAL(ompb_hooks_set_integration(h, "x", "1"), 0);
    CU_ASSERT_EQUAL(ompb_hooks_start_benchmark(h), 0);
    CU_ASSERT_EQUAL(ompb_hooks_add_marker(h, 1, OMPB_MARKER_BENCHMARK_START, 5), 0);
    CU_ASSERT_EQUAL(ompb_hooks_stop_benchmark(h), 0);
    CU_ASSERT_EQUAL(ompb_hooks_executed_benchmark(h, 1, NULL), 0);
    ompb_hooks_free(h);
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(NULL), OMPB_HOOKS_OFF);
    CU_ASSERT_EQUAL(ompb_hooks_start_benchmark(NULL), 0);
    CU_ASSERT(ompb_hooks_current_timestamp() > 0);
    ompb_hooks_free(NULL);
    cleanup_env();
}

static void test_api_walltime_sequence(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb_hooks *h = ompb_hooks_new();
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(h), OMPB_HOOKS_WALLTIME);
    CU_ASSERT_TRUE(ompb_hooks_is_instrumented(h));
    CU_ASSERT_EQUAL(ompb_hooks_set_integration(h, "mytool", "1.2.3"), 0);
    CU_ASSERT_EQUAL(ompb_hooks_start_benchmark(h), 0);
    uint64_t t[6];
    for (int i = 0; i < 6; i++)
        t[i] = ompb_hooks_current_timestamp();
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(ompb_hooks_add_marker(h, 77, i % 2 ? OMPB_MARKER_BENCHMARK_END
                                                           : OMPB_MARKER_BENCHMARK_START, t[i]), 0);
    CU_ASSERT_EQUAL(ompb_hooks_stop_benchmark(h), 0);
    CU_ASSERT_EQUAL(ompb_hooks_executed_benchmark(h, 77, "my.c::bench[1]"), 0);
    hooks_peer_stop(&p);
    ompb__collector_finish(p.collector, true);
    print_violations(p.collector);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(p.collector), 0);
    const char *version;
    CU_ASSERT_STRING_EQUAL(ompb__collector_integration(p.collector, &version), "mytool");
    CU_ASSERT_STRING_EQUAL(version, "1.2.3");
    size_t n;
    const ompb__collector_window *w = ompb__collector_windows(p.collector, &n);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(w[0].uri, "my.c::bench[1]");
    CU_ASSERT_EQUAL(w[0].pid, 77);
    CU_ASSERT_EQUAL_FATAL(w[0].n_bounds, 6);
    CU_ASSERT(memcmp(w[0].bounds, t, sizeof t) == 0);
    ompb_hooks_free(h);
    hooks_peer_destroy(&p);
    cleanup_env();
}

static void test_api_invalid_arguments(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COUNTING), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb_hooks *h = ompb_hooks_new();
    char *long_uri = calloc(2000, 1);
    memset(long_uri, 'x', 1999);
    CU_ASSERT_EQUAL(ompb_hooks_executed_benchmark(h, 1, NULL), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_hooks_executed_benchmark(h, 1, "bad\xff"), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_hooks_executed_benchmark(h, 1, long_uri), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_hooks_set_integration(h, "x", NULL), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb_hooks_add_marker(h, 1, (ompb_marker)7, 0), OMPB_EINVAL);
    CU_ASSERT_TRUE(ompb_hooks_is_instrumented(h));
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 2);   /* the handshake only */
    free(long_uri);
    ompb_hooks_free(h);
    hooks_peer_destroy(&p);
    cleanup_env();
}

static void test_api_refused_version(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_REFUSE_VERSION), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb_hooks *h = ompb_hooks_new();
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(h), OMPB_HOOKS_OFF);
    CU_ASSERT_TRUE(ompb__transport_disabled());
    CU_ASSERT_EQUAL(ompb_hooks_start_benchmark(h), 0);
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 2);   /* nothing after the refusal */
    ompb_hooks_free(h);
    hooks_peer_destroy(&p);
    cleanup_env();
}

static void test_api_off_after_failure(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COUNTING), 0);
    p.answer_limit = 2;   /* the handshake, then silence */
    set_timeout(SHORT_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb_hooks *h = ompb_hooks_new();
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(h), OMPB_HOOKS_WALLTIME);
    CU_ASSERT_EQUAL(ompb_hooks_start_benchmark(h), OMPB_ETIMEDOUT);
    CU_ASSERT_FALSE(ompb_hooks_is_instrumented(h));
    CU_ASSERT_EQUAL(ompb_hooks_stop_benchmark(h), 0);
    CU_ASSERT_EQUAL(ompb_hooks_executed_benchmark(h, 1, "x"), 0);
    /* A new handle does not try again either. */
    ompb_hooks *h2 = ompb_hooks_new();
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(h2), OMPB_HOOKS_OFF);
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 3);
    ompb_hooks_free(h);
    ompb_hooks_free(h2);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* ---- fork and descriptors -------------------------------------------------- */

static void *start_benchmark_thread(void *h)
{
    return (void *)(intptr_t)ompb_hooks_start_benchmark(h);
}

/* In the child: every call returns at once, and nothing is on. Exit code:
 * a bit per thing that went wrong. */
static void child_calls(ompb_hooks *h)
{
    int bad = 0;
    bad |= ompb_hooks_is_instrumented(h) ? 1 : 0;
    bad |= ompb_hooks_stop_benchmark(h) != 0 ? 2 : 0;
    bad |= ompb_hooks_add_marker(h, 1, OMPB_MARKER_BENCHMARK_START, 1) != 0 ? 4 : 0;
    ompb_hooks *fresh = ompb_hooks_new();
    bad |= ompb_hooks_get_mode(fresh) != OMPB_HOOKS_OFF ? 8 : 0;
    ompb_hooks_free(fresh);
    _exit(bad);
}

/* Waits for pid until the deadline; returns its wait status, -1 on timeout
 * (the child is then killed). */
static int reap_by(pid_t pid, uint64_t deadline)
{
    int status;
    while (ompb__now_ns() < deadline) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status;
        pause_ms(5);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

/* A program that runs a region at one team size, then at another (the
 * stencil at --threads 1,2; tests/region_app.c, mode sweep): the first
 * size's window is closed, StopBenchmark stamped, before the second size's
 * first instance begins (the window holds no work of the next phase), and
 * the second size gets a window of its own. */
static void test_region_window_closes_at_next_team_size(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    set_timeout(LONG_TIMEOUT_MS);
    CU_ASSERT_EQUAL_FATAL(hooks_peer_start_thread(&p), 0);
    pid_t child = fork();
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        execl(OMPB_BUILD_DIR "/tests/region_app", "region_app", "sweep", (char *)NULL);
        _exit(127);
    }
    int status = reap_by(child, deadline_in(3 * LONG_TIMEOUT_MS));
    hooks_peer_stop(&p);
    CU_ASSERT(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(p.collector), 0);
    size_t n = 0;
    const ompb__collector_window *w = ompb__collector_windows(p.collector, &n);
    CU_ASSERT_EQUAL(n, 2);
    if (n == 2) {
        CU_ASSERT_PTR_NOT_NULL(strstr(w[0].uri ? w[0].uri : "", "region:sweep[t=1]"));
        CU_ASSERT_PTR_NOT_NULL(strstr(w[1].uri ? w[1].uri : "", "region:sweep[t=2]"));
        CU_ASSERT_EQUAL(w[0].n_bounds, 8);
        CU_ASSERT_EQUAL(w[1].n_bounds, 8);
        CU_ASSERT(w[0].stop_ns != 0 && w[1].n_bounds > 0 && w[0].stop_ns <= w[1].bounds[0]);
        CU_ASSERT(w[0].stop_ns <= w[1].start_ns);
    }
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* A fork while another thread holds the process-wide lock, waiting for its
 * ack: the child's calls must not wait for a lock nobody will release, nor
 * touch the parent's pipes. */
static void test_api_forked_child_is_off(void)
{
    hooks_peer p;
    pthread_t holder;
    void *holder_rc;
    int unread = 0;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb_hooks *h = ompb_hooks_new();
    CU_ASSERT_EQUAL_FATAL(ompb_hooks_get_mode(h), OMPB_HOOKS_WALLTIME);
    hooks_peer_stop(&p);   /* the next request waits until the peer is back */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&holder, NULL, start_benchmark_thread, h), 0);
    uint64_t deadline = deadline_in(LONG_TIMEOUT_MS / 2);
    while (ompb__now_ns() < deadline && (ioctl(p.ctl_fd, FIONREAD, &unread) != 0 || !unread))
        pause_ms(1);
    CU_ASSERT_FATAL(unread > 0);   /* StartBenchmark is out: its sender holds the lock */
    pid_t child = fork();
    if (child == 0)
        child_calls(h);
    int status = reap_by(child, deadline_in(LONG_TIMEOUT_MS / 2));
    hooks_peer_start_thread(&p);
    pthread_join(holder, &holder_rc);
    CU_ASSERT(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT_EQUAL((intptr_t)holder_rc, 0);
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(ompb__collector_frames(p.collector), 3);   /* the parent's only */
    CU_ASSERT_TRUE(ompb_hooks_is_instrumented(h));
    ompb_hooks_free(h);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* A second process: a forked child made a full process again (its
 * transports revived, as after exec). Exit code: a bit per thing that went
 * wrong. Taken: the runner is another's, so the child must say so once,
 * send nothing and have no CodSpeed results to write. Free: it talks. */
static void second_process(bool expect_taken)
{
    capture cap;
    int bad = 0;
    ompb__transport_revive();
    capture_start(&cap);
    ompb_hooks *h = ompb_hooks_new(), *h2 = ompb_hooks_new();
    int calls = ompb_hooks_start_benchmark(h);
    calls |= ompb_hooks_add_marker(h, getpid(), OMPB_MARKER_BENCHMARK_START, ompb__now_ns());
    calls |= ompb_hooks_add_marker(h, getpid(), OMPB_MARKER_BENCHMARK_END, ompb__now_ns());
    calls |= ompb_hooks_stop_benchmark(h);
    calls |= ompb_hooks_executed_benchmark(h, getpid(), expect_taken ? "taken.c::b" : "free.c::b");
    ompb_hooks_free(h2);
    ompb_hooks_free(h);
    char *text = capture_end(&cap);
    bool warned = count_lines_with(text, "another process is already talking") == 1;
    bad |= calls != 0 ? 1 : 0;
    bad |= ompb__transport_runner_taken() != expect_taken ? 2 : 0;
    bad |= warned != expect_taken ? 4 : 0;
    bad |= strstr(text, "no longer talking") ? 8 : 0;   /* nothing misleading */
    bad |= ompb__transport_disabled() ? 16 : 0;
    free(text);
    _exit(bad);
}

static int run_second_process(bool expect_taken)
{
    fflush(stderr);
    pid_t child = fork();
    if (child == 0)
        second_process(expect_taken);
    int status = reap_by(child, deadline_in(LONG_TIMEOUT_MS));
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* One process per runner: while this process holds it, another gets the
 * runner taken and sends no frame (no stolen acks, no interleaved
 * windows); once this one lets go, the next may talk. */
static void test_api_one_process_per_runner(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb_hooks *h = ompb_hooks_new();
    CU_ASSERT_EQUAL_FATAL(ompb_hooks_get_mode(h), OMPB_HOOKS_WALLTIME);
    CU_ASSERT_EQUAL(ompb_hooks_set_integration(h, "owner", "1"), 0);
    size_t before = ompb__collector_frames(p.collector);
    CU_ASSERT_EQUAL(run_second_process(true), 0);
    CU_ASSERT_EQUAL(ompb_hooks_start_benchmark(h), 0);
    CU_ASSERT_EQUAL(ompb_hooks_stop_benchmark(h), 0);
    CU_ASSERT_EQUAL(ompb_hooks_executed_benchmark(h, 7, "owner.c::b"), 0);
    CU_ASSERT_EQUAL(ompb__collector_frames(p.collector), before + 3);   /* ours only */
    ompb_hooks_free(h);
    CU_ASSERT_EQUAL(run_second_process(false), 0);
    hooks_peer_stop(&p);
    ompb__collector_finish(p.collector, true);
    print_violations(p.collector);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(p.collector), 0);
    size_t n;
    const ompb__collector_window *w = ompb__collector_windows(p.collector, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(w[0].uri, "owner.c::b");
    CU_ASSERT_STRING_EQUAL(w[1].uri, "free.c::b");
    CU_ASSERT_EQUAL(w[1].n_bounds, 2);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* Memory mode: the runner answers Analysis and aborts on integration names
 * it does not know, so the hooks ask for the mode and say nothing more. */
static void test_api_memory_mode_stays_out(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    ompb__collector_free(p.collector);
    p.collector = ompb__collector_new(OMPB__RUNNER_ANALYSIS);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p.collector);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb_hooks *h = ompb_hooks_new();
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(h), OMPB_HOOKS_OFF);
    CU_ASSERT_EQUAL(ompb_hooks_set_integration(h, "ompbench", "0.1.0"), 0);
    CU_ASSERT_EQUAL(ompb_hooks_start_benchmark(h), 0);
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(ompb__collector_frames(p.collector), 1);   /* GetIntegrationMode only */
    CU_ASSERT_EQUAL(ompb__collector_command_count(p.collector, OMPB__CMD_SET_INTEGRATION), 0);
    ompb_hooks_free(h);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* Uses up every descriptor below a lowered limit; restores with fd_fill_end. */
typedef struct fd_fill {
    struct rlimit saved;
    int fds[FD_FILL_LIMIT];
    int n;
} fd_fill;

static void fd_fill_start(fd_fill *f)
{
    struct rlimit low;
    getrlimit(RLIMIT_NOFILE, &f->saved);
    low = f->saved;
    if (low.rlim_cur > FD_FILL_LIMIT)
        low.rlim_cur = FD_FILL_LIMIT;
    setrlimit(RLIMIT_NOFILE, &low);
    for (f->n = 0; f->n < FD_FILL_LIMIT && (f->fds[f->n] = dup(STDIN_FILENO)) >= 0; f->n++)
        continue;
}

static void fd_fill_end(fd_fill *f)
{
    for (int i = 0; i < f->n; i++)
        close(f->fds[i]);
    setrlimit(RLIMIT_NOFILE, &f->saved);
}

/* Too many open files for one more handle: that handle is off, the others
 * (and later ones) are not. */
static void test_api_open_failure_is_per_handle(void)
{
    hooks_peer p;
    fd_fill fill;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb_hooks *before = ompb_hooks_new();
    fd_fill_start(&fill);
    ompb_hooks *starved = ompb_hooks_new();
    fd_fill_end(&fill);
    ompb_hooks *after = ompb_hooks_new();
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(starved), OMPB_HOOKS_OFF);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(before), OMPB_HOOKS_WALLTIME);
    CU_ASSERT_EQUAL(ompb_hooks_get_mode(after), OMPB_HOOKS_WALLTIME);
    CU_ASSERT_EQUAL(ompb_hooks_start_benchmark(after), 0);
    ompb_hooks_free(before);
    ompb_hooks_free(starved);
    ompb_hooks_free(after);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* ---- stress: many threads, many handles, one pair of pipes ---------------- */

typedef struct stress_arg {
    ompb_hooks *shared;
    int index;
    int failures;
} stress_arg;

static void *stress_thread(void *argp)
{
    stress_arg *a = argp;
    ompb_hooks *h = a->shared ? a->shared : ompb_hooks_new();
    if (ompb_hooks_get_mode(h) != OMPB_HOOKS_WALLTIME)
        a->failures++;
    for (uint64_t k = 0; k < STRESS_REQUESTS; k++)
        a->failures += ompb_hooks_add_marker(h, a->index, OMPB_MARKER_SAMPLE_START, k) != 0;
    if (!a->shared)
        ompb_hooks_free(h);
    return NULL;
}

static void test_stress_threads_share_pipes(void)
{
    hooks_peer p;
    pthread_t threads[STRESS_THREADS];
    stress_arg args[STRESS_THREADS];
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COUNTING), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb_hooks *shared = ompb_hooks_new();
    for (int i = 0; i < STRESS_THREADS; i++) {
        args[i] = (stress_arg){i < STRESS_SHARED ? shared : NULL, i, 0};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, stress_thread, &args[i]), 0);
    }
    int failures = 0;
    for (int i = 0; i < STRESS_THREADS; i++) {
        pthread_join(threads[i], NULL);
        failures += args[i].failures;
    }
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    CU_ASSERT_EQUAL(atomic_load(&p.undecodable), 0);
    CU_ASSERT_EQUAL(atomic_load(&p.sequence_errors), 0);
    for (int i = 0; i < STRESS_THREADS; i++)
        CU_ASSERT_EQUAL(p.next_seq[i], STRESS_REQUESTS);
    size_t handles = 1 + STRESS_THREADS - STRESS_SHARED;
    CU_ASSERT_EQUAL(atomic_load(&p.frames),
                    (size_t)STRESS_THREADS * STRESS_REQUESTS + 2 * handles);
    /* Every ack was taken by the request it answered: none is left over. */
    uint8_t byte;
    CU_ASSERT_EQUAL(read(p.ack_fd, &byte, 1), -1);
    CU_ASSERT_EQUAL(errno, EAGAIN);
    ompb_hooks_free(shared);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* ---- instrument facade ---------------------------------------------------- */

/* One instance as the round engine drives it; bounds[] gets the aggregates. */
static void drive_instance(const ompb__instance *inst, int rounds, uint64_t *bounds)
{
    uint64_t start[16], end[16];
    CU_ASSERT_FATAL(rounds <= 16);
    ompb__record rec = {.inst = inst, .rounds = (size_t)rounds, .start_ns = start, .end_ns = end};
    ompb__instrument_instance_begin(inst);
    for (int r = 0; r < rounds; r++) {
        start[r] = bounds[2 * r] = ompb__now_ns();
        end[r] = bounds[2 * r + 1] = ompb__now_ns();
    }
    ompb__instrument_instance_end(&rec, true);
}

static void test_facade_walltime(void)
{
    hooks_peer p;
    uint64_t a[10], b[6];
    ompb__instance ia = ompb_test_instance_named("count[42]", "benches/examples.c::count[42]");
    ompb__instance ib = ompb_test_instance_named("thread_example[t=4]",
                                                 "benches/examples.c::thread_example[t=4]");
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb__instrument_reset();
    ompb__instrument_init();
    ompb__instrument_init();   /* idempotent: one handshake */
    CU_ASSERT_EQUAL(ompb__instrument_mode(), OMPB__MODE_WALLTIME);
    CU_ASSERT_TRUE(ompb__instrument_runner_walltime());
    drive_instance(&ia, 5, a);
    drive_instance(&ib, 3, b);
    hooks_peer_stop(&p);
    ompb__collector_finish(p.collector, true);
    print_violations(p.collector);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(p.collector), 0);
    CU_ASSERT_EQUAL(ompb__collector_command_count(p.collector, OMPB__CMD_GET_INTEGRATION_MODE), 1);
    CU_ASSERT_EQUAL(ompb__collector_protocol_version(p.collector), 2);
    const char *version;
    CU_ASSERT_STRING_EQUAL(ompb__collector_integration(p.collector, &version), "ompbench");
    CU_ASSERT_STRING_EQUAL(version, OMPB_VERSION_STRING);
    size_t n;
    const ompb__collector_window *w = ompb__collector_windows(p.collector, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(w[0].uri, ia.uri);
    CU_ASSERT_STRING_EQUAL(w[1].uri, ib.uri);
    CU_ASSERT_EQUAL(w[0].pid, (int32_t)getpid());
    CU_ASSERT(w[0].n_bounds == 10 && memcmp(w[0].bounds, a, sizeof a) == 0);
    CU_ASSERT(w[1].n_bounds == 6 && memcmp(w[1].bounds, b, sizeof b) == 0);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* Succeeds in its first three rounds (calibration and two measured), then
 * leaves its loop early: the instance fails mid-measurement. */
static int engine_calls;
static void late_breaking_body(ompb_state *st)
{
    int call = ++engine_calls;
    OMPB_ITER(st) {
        if (call > 3)
            break;
    }
}

static void test_engine_failed_instance_sends_no_markers(void)
{
    hooks_peer p;
    ompb_benchmark b = {.name = "late", .fn = late_breaking_body};
    ompb__instance inst = ompb_test_instance_named("late", "tests::late");
    inst.bench = &b;
    inst.threads = 1;
    ompb__sampling sp = {.threads = 1, .rounds = 10, .sample_size = 4,
                         .budget_ns = 60000000000ull};
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb__instrument_reset();
    ompb__instrument_init();
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    engine_calls = 0;
    CU_ASSERT_EQUAL(ompb__round_run(ompb_test_env_default(), &inst, &sp, NULL, &rec), OMPB_ERUN);
    CU_ASSERT_EQUAL(rec.rounds, 2);
    ompb__record_free(&rec);
    hooks_peer_stop(&p);
    ompb__collector_finish(p.collector, true);
    print_violations(p.collector);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(p.collector), 0);
    size_t n;
    const ompb__collector_window *w = ompb__collector_windows(p.collector, &n);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(w[0].uri, "tests::late");
    CU_ASSERT_EQUAL(w[0].n_bounds, 0);
    hooks_peer_destroy(&p);
    cleanup_env();
}

static void quick_body(ompb_state *st)
{
    uint64_t acc = 0;
    OMPB_ITER(st) {
        acc += ompb_opaque_u64(acc) + 1;
    }
    ompb_black_box(acc);
}

/* A live runner that acks StartBenchmark twice the instance's budget late:
 * that wait is the runner's time, not the instance's, so every round is
 * measured (counted against the budget, it would end the instance after
 * its first measured round). */
static void test_engine_slow_start_keeps_rounds(void)
{
    hooks_peer p;
    ompb_benchmark b = {.name = "quick", .fn = quick_body};
    ompb__instance inst = ompb_test_instance_named("quick", "tests::quick");
    inst.bench = &b;
    inst.threads = 1;
    ompb__sampling sp = {.mode = OMPB__SAMPLING_MEASURE, .threads = 1, .rounds = 50,
                         .sample_size = 4,
                         .budget_ns = 200000000ull * (uint64_t)ompb_test_timeout_multiplier()};
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_SLOW), 0);
    p.delay_kind = OMPB__CMD_START_BENCHMARK;
    p.delay_ns = 2 * sp.budget_ns;
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb__instrument_reset();
    ompb__instrument_init();
    CU_ASSERT_EQUAL_FATAL(ompb__instrument_mode(), OMPB__MODE_WALLTIME);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    CU_ASSERT_EQUAL(ompb__round_run(ompb_test_env_default(), &inst, &sp, NULL, &rec), 0);
    CU_ASSERT_EQUAL(rec.rounds, 50);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    ompb__record_free(&rec);
    hooks_peer_stop(&p);
    /* Hello (3), StartBenchmark, 50 marker pairs, StopBenchmark, CurrentBenchmark. */
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 3 + 1 + 100 + 2);
    CU_ASSERT_EQUAL(atomic_load(&p.undecodable), 0);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* A live runner that acks everything late, far below the timeout: the
 * waits add up to the process's budget (OMPB_HOOKS_BUDGET_MS), and then
 * the hooks turn themselves off with one warning that names it, instead of
 * waiting for ever longer. Without a budget the loop below would run to
 * its own end, three budgets, with the runner still on. */
static void test_facade_slow_runner_spends_budget(void)
{
    hooks_peer p;
    capture cap;
    uint64_t a[10];
    char v[32];
    ompb__instance ia = ompb_test_instance_named("slow", "x.c::slow");
    int delay_ms = 20 * ompb_test_timeout_multiplier(), budget_ms = 20 * delay_ms;
    uint64_t budget_ns = (uint64_t)budget_ms * 1000000u;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_SLOW), 0);
    p.delay_ns = (uint64_t)delay_ms * 1000000u;
    snprintf(v, sizeof v, "%d", budget_ms);
    setenv("OMPB_HOOKS_BUDGET_MS", v, 1);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    capture_start(&cap);
    uint64_t t0 = ompb__now_ns();
    ompb__instrument_reset();
    ompb__instrument_init();
    int instances = 0;
    while (!ompb__transport_disabled() && ompb__now_ns() - t0 < 3 * budget_ns) {
        drive_instance(&ia, 5, a);
        instances++;
    }
    uint64_t took = ompb__now_ns() - t0;
    char *text = capture_end(&cap);
    CU_ASSERT_TRUE(ompb__transport_disabled());
    CU_ASSERT(instances >= 1);
    CU_ASSERT(took < 2 * budget_ns);
    CU_ASSERT_EQUAL(count_lines_with(text, "no longer talking to the CodSpeed runner"), 1);
    CU_ASSERT_EQUAL(count_lines_with(text, "OMPB_HOOKS_BUDGET_MS"), 1);
    if (count_lines_with(text, "OMPB_HOOKS_BUDGET_MS") != 1)
        fprintf(stderr, "    stderr: %s\n", text);
    free(text);
    hooks_peer_stop(&p);
    unsetenv("OMPB_HOOKS_BUDGET_MS");
    hooks_peer_destroy(&p);
    cleanup_env();
}

static void test_facade_none(void)
{
    uint64_t a[4];
    ompb__instance ia = ompb_test_instance_named("x", "x.c::x");
    point_at_nothing();
    ompb__instrument_reset();
    ompb__instrument_init();
    CU_ASSERT_EQUAL(ompb__instrument_mode(), OMPB__MODE_NONE);
    CU_ASSERT_FALSE(ompb__instrument_runner_walltime());
    drive_instance(&ia, 2, a);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    cleanup_env();
}

static void test_facade_silent_runner(void)
{
    hooks_peer p;
    uint64_t a[4];
    ompb__instance ia = ompb_test_instance_named("x", "x.c::x");
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_SILENT), 0);
    set_timeout(SHORT_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb__instrument_reset();
    ompb__instrument_init();
    CU_ASSERT_EQUAL(ompb__instrument_mode(), OMPB__MODE_NONE);
    drive_instance(&ia, 2, a);
    drive_instance(&ia, 2, a);
    hooks_peer_stop(&p);
    CU_ASSERT_EQUAL(atomic_load(&p.frames), 1);   /* one timeout, then silence */
    hooks_peer_destroy(&p);
    cleanup_env();
}

static void test_facade_runner_dies_mid_run(void)
{
    hooks_peer p;
    uint64_t a[20];
    ompb__instance ia = ompb_test_instance_named("a", "x.c::a");
    ompb__instance ib = ompb_test_instance_named("b", "x.c::b");
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COUNTING), 0);
    p.answer_limit = 4;   /* handshake, SetIntegration, StartBenchmark; dies in the flush */
    p.exit_at_limit = true;
    set_timeout(SHORT_TIMEOUT_MS);
    CU_ASSERT_EQUAL_FATAL(hooks_peer_start_process(&p), 0);
    ompb__instrument_reset();
    ompb__instrument_init();
    CU_ASSERT_EQUAL(ompb__instrument_mode(), OMPB__MODE_WALLTIME);
    drive_instance(&ia, 10, a);
    CU_ASSERT_TRUE(ompb__transport_disabled());
    drive_instance(&ib, 10, a);   /* returns at once: nothing left to talk to */
    hooks_peer_destroy(&p);
    cleanup_env();
}

static void test_facade_refused_version(void)
{
    hooks_peer p;
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_REFUSE_VERSION), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb__instrument_reset();
    ompb__instrument_init();
    CU_ASSERT_EQUAL(ompb__instrument_mode(), OMPB__MODE_NONE);
    hooks_peer_stop(&p);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* An instance URI the codec refuses (not UTF-8) must not take its window
 * down: markers and StopBenchmark go out, the window is named by an escaped
 * URI, one warning names the value, and the next instance is unaffected. */
static void test_facade_invalid_uri(void)
{
    hooks_peer p;
    capture cap;
    uint64_t a[6], b[4];
    ompb__instance ia = ompb_test_instance_named("caf\xe9", "benches/caf\xe9.c::x");
    ompb__instance ib = ompb_test_instance_named("ok", "benches/ok.c::y");
    CU_ASSERT_EQUAL_FATAL(hooks_peer_init(&p, PEER_COLLECTOR), 0);
    set_timeout(LONG_TIMEOUT_MS);
    hooks_peer_start_thread(&p);
    ompb__instrument_reset();
    ompb__instrument_init();
    capture_start(&cap);
    drive_instance(&ia, 3, a);
    drive_instance(&ib, 2, b);
    char *text = capture_end(&cap);
    hooks_peer_stop(&p);
    ompb__collector_finish(p.collector, true);
    print_violations(p.collector);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(p.collector), 0);
    CU_ASSERT_FALSE(ompb__transport_disabled());
    CU_ASSERT_EQUAL(count_lines_with(text, "benches/caf\\xe9.c::x"), 1);
    CU_ASSERT_EQUAL(count_lines_with(text, "warning"), 1);
    size_t n;
    const ompb__collector_window *w = ompb__collector_windows(p.collector, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT(w[0].uri && strcmp(w[0].uri, "benches/caf\\xe9.c::x") == 0);
    CU_ASSERT(w[0].n_bounds == 6 && memcmp(w[0].bounds, a, sizeof a) == 0);
    CU_ASSERT(w[1].uri && strcmp(w[1].uri, ib.uri) == 0);
    CU_ASSERT(w[1].n_bounds == 4 && memcmp(w[1].bounds, b, sizeof b) == 0);
    free(text);
    hooks_peer_destroy(&p);
    cleanup_env();
}

/* ---- collector checks ----------------------------------------------------- */

typedef struct step {
    ompb__cmd cmd;
    uint64_t now;
} step;

#define HELLO {ompb__cmd_set_version(2), 1}, {ompb__cmd_set_integration("t", "1"), 2}
#define START(t) {ompb__cmd_simple(OMPB__CMD_START_BENCHMARK), t}
#define STOP(t) {ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK), t}
#define BS(ns, t) {ompb__cmd_marker(5, OMPB_MARKER_BENCHMARK_START, ns), t}
#define BE(ns, t) {ompb__cmd_marker(5, OMPB_MARKER_BENCHMARK_END, ns), t}
#define NAME(uri, t) {ompb__cmd_current_benchmark(5, uri), t}

static ompb__collector *run_steps(const step *steps, size_t n, ompb__cmd *last_reply)
{
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_PERF);
    ompb__cmd reply;
    for (size_t i = 0; i < n; i++)
        ompb__collector_handle(c, &steps[i].cmd, steps[i].now, &reply);
    if (last_reply)
        *last_reply = reply;
    ompb__collector_finish(c, false);
    return c;
}

#define EXPECT_VIOLATION(needle, ...)                                          \
    do {                                                                      \
        const step s_[] = {__VA_ARGS__};                                      \
        ompb__collector *c_ = run_steps(s_, sizeof s_ / sizeof s_[0], NULL);  \
        CU_ASSERT(has_violation(c_, needle));                                 \
        if (!has_violation(c_, needle)) {                                     \
            fprintf(stderr, "    wanted \"%s\"\n", needle);                  \
            print_violations(c_);                                             \
        }                                                                     \
        ompb__collector_free(c_);                                             \
    } while (0)

static void test_collector_accepts_valid_run(void)
{
    const step s[] = {{ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE), 0}, HELLO,
                      START(10), BS(11, 20), BE(12, 20), BS(12, 20), BE(15, 20), STOP(30),
                      NAME("a.c::x", 31), START(40), BS(41, 50), BE(41, 50), STOP(60),
                      NAME("a.c::y", 61)};
    ompb__cmd reply;
    ompb__collector *c = run_steps(s, sizeof s / sizeof s[0], &reply);
    print_violations(c);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(c), 0);
    CU_ASSERT_EQUAL(reply.kind, OMPB__CMD_ACK);
    size_t n;
    const ompb__collector_window *w = ompb__collector_windows(c, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(w[0].n_bounds, 4);
    CU_ASSERT_EQUAL(w[0].start_ns, 10);
    CU_ASSERT_EQUAL(w[0].stop_ns, 30);
    json_t *j = ompb__collector_to_json(c);
    CU_ASSERT_TRUE(json_is_true(json_object_get(j, "ok")));
    json_t *w0 = json_array_get(json_object_get(j, "windows"), 0);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(w0, "rounds")), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(w0, "marked_ns")), 4);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(w0, "pairs")), 2);
    json_decref(j);
    ompb__collector_free(c);
}

static void test_collector_flags_each_violation(void)
{
    EXPECT_VIOLATION("before SetVersion", START(1), STOP(2), NAME("u", 3));
    EXPECT_VIOLATION("before SetIntegration", START(1), STOP(2), NAME("u", 3));
    EXPECT_VIOLATION("still open at StartBenchmark", HELLO, START(3), START(4));
    EXPECT_VIOLATION("StopBenchmark without an open window", HELLO, STOP(3));
    EXPECT_VIOLATION("outside a benchmark window", HELLO, BS(3, 3));
    EXPECT_VIOLATION("BenchmarkEnd where BenchmarkStart was due", HELLO, START(10), BE(20, 30));
    EXPECT_VIOLATION("BenchmarkStart where BenchmarkEnd was due", HELLO, START(10), BS(20, 30),
                     BS(21, 30));
    EXPECT_VIOLATION("earlier than the marker before it", HELLO, START(10), BS(30, 40),
                     BE(20, 40));
    EXPECT_VIOLATION("precedes its StartBenchmark", HELLO, START(100), BS(50, 110));
    EXPECT_VIOLATION("later than its arrival", HELLO, START(100), BS(500, 110));
    EXPECT_VIOLATION("unmatched BenchmarkStart", HELLO, START(10), BS(11, 12), STOP(13));
    EXPECT_VIOLATION("never named by CurrentBenchmark", HELLO, START(10), STOP(11), START(12));
    EXPECT_VIOLATION("names both window #1 and window #2", HELLO, START(10), STOP(11),
                     NAME("u", 12), START(13), STOP(14), NAME("u", 15));
    EXPECT_VIOLATION("names no window", HELLO, START(10), STOP(11), NAME("u", 12),
                     NAME("v", 13));
    EXPECT_VIOLATION("inside an open window", HELLO, START(10), NAME("u", 12));
    EXPECT_VIOLATION("markers came with pid 5, CurrentBenchmark with pid 6", HELLO, START(10),
                     BS(11, 12), BE(12, 12), STOP(13),
                     {ompb__cmd_current_benchmark(6, "u"), 14});
    EXPECT_VIOLATION("empty URI", HELLO, START(10), STOP(11), NAME("", 12));
    EXPECT_VIOLATION("still open at the end of the run", HELLO, START(10));
    EXPECT_VIOLATION("outside [1, 2]", {ompb__cmd_set_version(3), 1});
    EXPECT_VIOLATION("runner-only command", {ompb__cmd_simple(OMPB__CMD_ACK), 1});
}

static void test_collector_replies(void)
{
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_SIMULATION);
    ompb__cmd reply, cmd = ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE);
    ompb__collector_handle(c, &cmd, 1, &reply);
    CU_ASSERT(reply.kind == OMPB__CMD_INTEGRATION_MODE_RESPONSE && reply.mode == 1);
    cmd = ompb__cmd_set_version(0);
    ompb__collector_handle(c, &cmd, 2, &reply);
    CU_ASSERT_EQUAL(reply.kind, OMPB__CMD_ERR);
    cmd = ompb__cmd_set_version(1);
    ompb__collector_handle(c, &cmd, 3, &reply);
    CU_ASSERT_EQUAL(reply.kind, OMPB__CMD_ACK);
    ompb__collector_finish(c, false);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(c), 1);
    ompb__collector_free(c);
    c = ompb__collector_new(OMPB__RUNNER_PERF);
    ompb__collector_finish(c, true);
    CU_ASSERT(has_violation(c, "no frame received"));
    ompb__collector_free(c);
}

/* Encodes a whole session into one byte stream. */
static size_t encode_steps(const step *s, size_t n, uint8_t *buf, size_t cap)
{
    size_t off = 0, len;
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL_FATAL(ompb__cmd_encode(&s[i].cmd, buf + off, cap - off, &len), 0);
        off += len;
    }
    return off;
}

/* Feeds the encoded steps one byte at a time. */
static void feed_bytewise(ompb__collector *c, const step *s, size_t n)
{
    uint8_t stream[1024];
    size_t len = encode_steps(s, n, stream, sizeof stream);
    for (size_t i = 0; i < len; i++)
        CU_ASSERT_EQUAL(ompb__collector_feed(c, stream + i, 1), 0);
}

static void test_collector_feed_bytewise(void)
{
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_PERF);
    const step opening[] = {{ompb__cmd_simple(OMPB__CMD_GET_INTEGRATION_MODE), 0}, HELLO,
                            START(0)};
    feed_bytewise(c, opening, sizeof opening / sizeof opening[0]);
    /* Markers are stamped after the window opened, as a real integration does. */
    uint64_t t = ompb__now_ns();
    const step closing[] = {BS(t, 0), BE(t, 0), STOP(0), NAME("a.c::b", 0)};
    feed_bytewise(c, closing, sizeof closing / sizeof closing[0]);
    size_t rlen;
    const uint8_t *r = ompb__collector_replies(c, &rlen);
    /* IntegrationModeResponse (12 bytes) then seven Acks (8 bytes each). */
    CU_ASSERT_EQUAL_FATAL(rlen, 12 + 7 * 8);
    CU_ASSERT_EQUAL(r[4], OMPB__CMD_INTEGRATION_MODE_RESPONSE);
    for (size_t i = 12; i < rlen; i += 8)
        CU_ASSERT_EQUAL(r[i + 4], OMPB__CMD_ACK);
    ompb__collector_consume(c, rlen);
    ompb__collector_replies(c, &rlen);
    CU_ASSERT_EQUAL(rlen, 0);
    ompb__collector_finish(c, true);
    print_violations(c);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(c), 0);
    CU_ASSERT_EQUAL(ompb__collector_frames(c), 8);
    size_t n;
    const ompb__collector_window *w = ompb__collector_windows(c, &n);
    CU_ASSERT(n == 1 && w[0].n_bounds == 2 && strcmp(w[0].uri, "a.c::b") == 0);
    ompb__collector_free(c);
}

static void test_collector_feed_bad_frames(void)
{
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_PERF);
    uint8_t unknown[8] = {4, 0, 0, 0, 42, 0, 0, 0}, ack_me[8] = {4, 0, 0, 0, 4, 0, 0, 0};
    uint8_t absurd[8] = {0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0};
    size_t rlen;
    CU_ASSERT_EQUAL(ompb__collector_feed(c, unknown, 8), 0);
    CU_ASSERT_EQUAL(ompb__collector_feed(c, ack_me, 8), 0);   /* framing intact: goes on */
    const uint8_t *r = ompb__collector_replies(c, &rlen);
    CU_ASSERT(rlen == 16 && r[4] == OMPB__CMD_ERR && r[12] == OMPB__CMD_ACK);
    CU_ASSERT_EQUAL(ompb__collector_undecodable(c), 1);
    CU_ASSERT_EQUAL(ompb__collector_feed(c, absurd, 8), OMPB_EPROTO);
    CU_ASSERT_EQUAL(ompb__collector_feed(c, ack_me, 8), OMPB_EPROTO);   /* lost for good */
    CU_ASSERT_EQUAL(ompb__collector_frames(c), 2);
    CU_ASSERT(has_violation(c, "framing lost"));
    CU_ASSERT(has_violation(c, "unknown command tag"));
    ompb__collector_free(c);
}

/* Out of memory for the second frame's reply: the first frame is handled
 * once, the second is kept and handled by the next feed, once. */
/* An empty first feed: nothing held yet (c->in is NULL), nothing to do. In
 * the sanitizer build, NULL + 0 there stops the test. */
static void test_collector_feed_empty_first(void)
{
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_PERF);
    uint8_t none[1];
    CU_ASSERT_EQUAL(ompb__collector_feed(c, none, 0), 0);
    CU_ASSERT_EQUAL(ompb__collector_feed(c, NULL, 0), 0);
    CU_ASSERT_EQUAL(ompb__collector_frames(c), 0);
    ompb__collector_finish(c, false);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(c), 0);
    ompb__collector_free(c);
}

/* The stream ends inside a frame: the runner would wait for the rest. */
static void test_collector_truncated_trailing_frame(void)
{
    uint8_t start[8] = {4, 0, 0, 0, OMPB__CMD_START_BENCHMARK, 0, 0, 0};
    for (size_t keep = 1; keep < sizeof start; keep++) {
        ompb__collector *c = ompb__collector_new(OMPB__RUNNER_PERF);
        CU_ASSERT_EQUAL(ompb__collector_feed(c, start, keep), 0);
        ompb__collector_finish(c, false);
        CU_ASSERT(has_violation(c, "the stream ends inside frame 1"));
        ompb__collector_free(c);
    }
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_PERF);
    CU_ASSERT_EQUAL(ompb__collector_feed(c, start, sizeof start), 0);
    ompb__collector_finish(c, false);
    CU_ASSERT_FALSE(has_violation(c, "the stream ends inside"));
    ompb__collector_free(c);
}

/* URIs, names and violation texts come from the integration: printed with
 * their control characters escaped. */
static void test_collector_print_escapes_controls(void)
{
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_PERF);
    ompb__cmd reply, cmds[] = {
        ompb__cmd_set_version(2), ompb__cmd_set_integration("evil\x1b[2J", "1\a"),
        ompb__cmd_simple(OMPB__CMD_START_BENCHMARK), ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK),
        ompb__cmd_current_benchmark(1, "x.c::\x1b[31mred\r"),
        ompb__cmd_current_benchmark(1, "x.c::\x1b]0;title\x07")};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        ompb__collector_handle(c, &cmds[i], ompb__now_ns(), &reply);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ompb__collector_print(c, out);
    fclose(out);
    CU_ASSERT_PTR_NULL(strchr(text, 0x1b));
    CU_ASSERT_PTR_NULL(strchr(text, '\r'));
    CU_ASSERT_PTR_NULL(strchr(text, '\a'));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "x.c::\\x1b[31mred\\x0d"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "evil\\x1b[2J 1\\x07"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\\x1b]0;title\\x07"));   /* in a violation */
    free(text);
    ompb__collector_free(c);
}

static void test_collector_feed_out_of_memory(void)
{
    const step pings[] = {{ompb__cmd_simple(OMPB__CMD_PING_PERF), 0},
                          {ompb__cmd_simple(OMPB__CMD_PING_PERF), 0}};
    uint8_t stream[64];
    size_t len = encode_steps(pings, 2, stream, sizeof stream), rlen;
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_PERF);
    /* Allocations: the input buffer, the first reply, the second reply. */
    ompb__collector_fail_alloc(c, 3);
    CU_ASSERT_EQUAL(ompb__collector_feed(c, stream, len), OMPB_ENOMEM);
    CU_ASSERT_EQUAL(ompb__collector_command_count(c, OMPB__CMD_PING_PERF), 1);
    CU_ASSERT_EQUAL(ompb__collector_feed(c, stream, 0), 0);
    CU_ASSERT_EQUAL(ompb__collector_command_count(c, OMPB__CMD_PING_PERF), 2);
    CU_ASSERT_EQUAL(ompb__collector_frames(c), 2);
    ompb__collector_replies(c, &rlen);
    CU_ASSERT_EQUAL(rlen, 16);   /* one Ack each */
    ompb__collector_free(c);
}

static void test_collector_dumps(void)
{
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_SIMULATION);
    ompb__collector_add_dump(c, 10, "Metadata: ompbench 0.1.0", 0);
    ompb__collector_add_dump(c, 10, "b.c::x", 100);
    ompb__collector_add_dump(c, 10, "b.c::y[t=4]", 200);
    ompb__collector_check_dumps(c);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(c), 0);
    ompb__collector_free(c);
    c = ompb__collector_new(OMPB__RUNNER_SIMULATION);
    ompb__collector_add_dump(c, 10, "b.c::x", 100);
    ompb__collector_add_dump(c, 10, "b.c::x", 100);
    ompb__collector_check_dumps(c);
    CU_ASSERT(has_violation(c, "process 10: 0 \"Metadata: \""));
    CU_ASSERT(has_violation(c, "both named b.c::x"));
    ompb__collector_free(c);
}

/* One command, several benchmark processes: one Metadata dump each. */
static void test_collector_dumps_per_process(void)
{
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_SIMULATION);
    ompb__collector_add_dump(c, 10, "Metadata: ompbench 0.1.0", 0);
    ompb__collector_add_dump(c, 10, "a.c::x", 100);
    ompb__collector_add_dump(c, 11, "Metadata: ompbench 0.1.0", 0);
    ompb__collector_add_dump(c, 11, "b.c::y", 100);
    ompb__collector_check_dumps(c);
    print_violations(c);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(c), 0);
    ompb__collector_add_dump(c, 11, "Metadata: ompbench 0.1.0", 0);
    ompb__collector_add_dump(c, 12, "c.c::z", 100);
    ompb__collector_check_dumps(c);
    CU_ASSERT(has_violation(c, "process 11: 2 \"Metadata: \""));
    CU_ASSERT(has_violation(c, "process 12: 0 \"Metadata: \""));
    CU_ASSERT_FALSE(has_violation(c, "process 10"));
    ompb__collector_free(c);
}

/* ---- walltime results file ------------------------------------------------ */

typedef struct fake_run {
    ompb__instance inst[2];
    uint64_t start[3], end[3];
    ompb__result res[2];
} fake_run;

/* Two instances: one measured (3 rounds of 10 iterations), one failed. */
static void make_fake_run(fake_run *f, uint64_t base)
{
    static const uint64_t spans[3] = {1000, 2000, 1500};
    memset(f, 0, sizeof *f);
    f->inst[0] = ompb_test_instance_named("count[42]", "benches/examples.c::count[42]");
    f->inst[1] = ompb_test_instance_named("broken", "benches/examples.c::broken");
    for (int r = 0; r < 3; r++) {
        f->start[r] = base + 10000u * (uint64_t)r;
        f->end[r] = f->start[r] + spans[r];
    }
    ompb__record *rec = &f->res[0].rec;
    rec->inst = &f->inst[0];
    rec->threads = 2;
    rec->sample_size = 10;
    rec->rounds = 3;
    rec->start_ns = f->start;
    rec->end_ns = f->end;
    rec->warmup_iters = 70;
    rec->round_target_ns = 2500000;
    f->res[0].stats = (ompb__stats){.n = 3, .min = 100, .max = 200, .mean = 150, .stdev = 50,
                                    .q1 = 125, .median = 150, .q3 = 175};
    f->res[0].total_time_s = 4500e-9;
    rec->sampling = (ompb__sampling){.mode = OMPB__SAMPLING_MEASURE, .threads = 2,
                                     .rounds = 100, .warmup_ns = 5000000,
                                     .min_round_ns = 1000000, .budget_ns = 2000000000};
    f->res[1].rec.inst = &f->inst[1];
    f->res[1].rec.sampling = rec->sampling;
    f->res[1].rec.failed = true;
}

/* Opens, marks and names one more window, as ompbench would. */
static void add_window(ompb__collector *c, const char *uri, const uint64_t *start,
                       const uint64_t *end, size_t pairs)
{
    ompb__cmd reply, cmd = ompb__cmd_simple(OMPB__CMD_START_BENCHMARK);
    int32_t pid = (int32_t)getpid();
    uint64_t last = pairs ? end[pairs - 1] : start[0];
    ompb__collector_handle(c, &cmd, start[0] - 1, &reply);
    for (size_t r = 0; r < pairs; r++) {
        cmd = ompb__cmd_marker(pid, OMPB_MARKER_BENCHMARK_START, start[r]);
        ompb__collector_handle(c, &cmd, last, &reply);
        cmd = ompb__cmd_marker(pid, OMPB_MARKER_BENCHMARK_END, end[r]);
        ompb__collector_handle(c, &cmd, last, &reply);
    }
    cmd = ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK);
    ompb__collector_handle(c, &cmd, last + 1, &reply);
    cmd = ompb__cmd_current_benchmark(pid, uri);
    ompb__collector_handle(c, &cmd, last + 1, &reply);
}

/* A collector that saw the fake run's rounds as markers. */
static ompb__collector *collector_for(const fake_run *f, size_t pairs)
{
    ompb__collector *c = ompb__collector_new(OMPB__RUNNER_PERF);
    ompb__cmd reply, cmd = ompb__cmd_set_version(2);
    ompb__collector_handle(c, &cmd, 0, &reply);
    cmd = ompb__cmd_set_integration("ompbench", OMPB_VERSION_STRING);
    ompb__collector_handle(c, &cmd, 0, &reply);
    add_window(c, f->inst[0].uri, f->start, f->end, pairs);
    return c;
}

static size_t count_entries(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void check_results_json(const char *path, const fake_run *f)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(root, "instrument"),
                                                             "type")), "walltime");
    json_t *creator = json_object_get(root, "creator");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(creator, "name")), "ompbench");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(creator, "pid")), getpid());
    json_t *benchmarks = json_object_get(root, "benchmarks");
    CU_ASSERT_EQUAL_FATAL(json_array_size(benchmarks), 1);   /* the failed one is left out */
    json_t *b = json_array_get(benchmarks, 0), *st = json_object_get(b, "stats");
    json_t *cfg = json_object_get(b, "config");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(b, "uri")), f->inst[0].uri);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(b, "name")), f->inst[0].name);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(st, "rounds")), 3);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(st, "iter_per_round")), 10);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(st, "warmup_iters")), 70);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(st, "median_ns")), 150, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(st, "total_time")), 4.5e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(cfg, "warmup_time_ns")), 5e6, 1e-6);
    /* What the engine was asked for, from the record: the rounds (1 under
     * --test), and the round time calibration aimed at. */
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(cfg, "max_rounds")),
                    f->res[0].rec.sampling.mode == OMPB__SAMPLING_TEST ? 1 : 100);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(cfg, "min_round_time_ns")),
                           f->res[0].rec.round_target_ns ? 2.5e6 : 1e6, 1e-6);
    const char *keys[] = {"min_ns", "max_ns", "mean_ns", "stdev_ns", "q1_ns", "q3_ns",
                          "iqr_outlier_rounds", "stdev_outlier_rounds"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CU_ASSERT_PTR_NOT_NULL(json_object_get(st, keys[i]));
    json_decref(root);
}

/* The CodSpeed files of n results, one repetition each, for the runner
 * given (as the run layer hands it in). */
static int codspeed_with(const ompb__context *ctx, const ompb__result *res, size_t n,
                         ompb__report_runner runner, ompb_error *err)
{
    ompb__report rep;
    CU_ASSERT_EQUAL_FATAL(ompb__report_init(&rep, ctx, res, n), 0);
    rep.runner = runner;
    int rc = ompb__report_codspeed(&rep, err);
    ompb__report_release(&rep);
    return rc;
}

/* As the run hands it: the runner the instrument found. */
static int codspeed(const ompb__context *ctx, const ompb__result *res, size_t n, ompb_error *err)
{
    ompb__report_runner runner = {
        .taken = ompb__instrument_runner_taken(),
        .walltime = ompb__instrument_runner_walltime(),
        .simulation = ompb__instrument_mode() == OMPB__MODE_SIMULATION};
    return codspeed_with(ctx, res, n, runner, err);
}

/* A CodSpeed profile folder for the reporter's results file: the folder
 * made, its results/ and the file this process writes there named, a fake
 * run, no runner, a fresh instrument, CODSPEED_PROFILE_FOLDER set. */
typedef struct profile_folder {
    char dir[32], results[64], path[128];
    fake_run f;
} profile_folder;

static void profile_folder_make(profile_folder *pf)
{
    snprintf(pf->dir, sizeof pf->dir, "/tmp/ompb-profile.XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(pf->dir));
    snprintf(pf->results, sizeof pf->results, "%s/results", pf->dir);
    snprintf(pf->path, sizeof pf->path, "%s/%ld.json", pf->results, (long)getpid());
    make_fake_run(&pf->f, ompb__now_ns());
    point_at_nothing();
    ompb__instrument_reset();
    ompb__instrument_init();
    setenv("CODSPEED_PROFILE_FOLDER", pf->dir, 1);
}

/* Removes what profile_folder_make made and the environment it set. */
static void profile_folder_remove(const profile_folder *pf)
{
    unlink(pf->path);
    rmdir(pf->results);
    rmdir(pf->dir);
    unsetenv("CODSPEED_PROFILE_FOLDER");
    unsetenv("CODSPEED_RUNNER_MODE");
    cleanup_env();
}

/* The reporter decides from the runner it is handed, not from the
 * instrument (none here): walltime said by the runner writes the results
 * file, a runner taken by another process writes none even in walltime,
 * and simulation writes the environment file only. */
static void test_codspeed_runner_handed_in(void)
{
    profile_folder pf;
    ompb_error err = {0};
    profile_folder_make(&pf);
    setenv("CODSPEED_RUNNER_MODE", "walltime", 1);
    CU_ASSERT_EQUAL(codspeed_with(NULL, pf.f.res, 2, (ompb__report_runner){.taken = true}, &err),
                    0);
    CU_ASSERT_EQUAL(count_entries(pf.dir), 0);   /* taken: nothing written */
    unsetenv("CODSPEED_RUNNER_MODE");
    CU_ASSERT_EQUAL(codspeed_with(NULL, pf.f.res, 2, (ompb__report_runner){.simulation = true},
                                  &err), 0);
    CU_ASSERT_EQUAL(count_entries(pf.dir), 0);   /* simulation, no context: nothing */
    CU_ASSERT_EQUAL(codspeed_with(NULL, pf.f.res, 2, (ompb__report_runner){.walltime = true},
                                  &err), 0);
    CU_ASSERT_EQUAL(count_entries(pf.results), 1);
    check_results_json(pf.path, &pf.f);
    profile_folder_remove(&pf);
}

static void test_codspeed_results_file(void)
{
    profile_folder pf;
    fake_run *f = &pf.f;
    ompb_error err = {0};
    profile_folder_make(&pf);
    unsetenv("CODSPEED_RUNNER_MODE");
    CU_ASSERT_EQUAL(codspeed(NULL, f->res, 2, &err), 0);
    CU_ASSERT_EQUAL(count_entries(pf.dir), 0);   /* not walltime: nothing written */
    setenv("CODSPEED_RUNNER_MODE", "walltime", 1);
    CU_ASSERT_EQUAL(codspeed(NULL, f->res, 2, &err), 0);
    CU_ASSERT_EQUAL(count_entries(pf.results), 1);   /* the file, no temporary left */
    check_results_json(pf.path, f);
    /* The runner's view: statistics agree with the markers of the same rounds. */
    ompb__collector *c = collector_for(f, 3);
    CU_ASSERT_EQUAL(ompb__collector_check_results(c, pf.path), 0);
    print_violations(c);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(c), 0);
    ompb__collector_free(c);
    c = collector_for(f, 2);
    ompb__collector_check_results(c, pf.path);
    CU_ASSERT(has_violation(c, "reports 3 rounds, the runner saw 2 marker pairs"));
    ompb__collector_free(c);
    /* Uncalibrated (fixed sample size) and --test: what was configured. */
    f->res[0].rec.round_target_ns = 0;
    f->res[0].rec.sampling.mode = OMPB__SAMPLING_TEST;
    f->res[0].rec.sampling.rounds = 1;
    CU_ASSERT_EQUAL(codspeed(NULL, f->res, 2, &err), 0);
    check_results_json(pf.path, f);
    profile_folder_remove(&pf);
}

/* The fake run's results file as ompbench writes it, for breaking. */
static json_t *fake_results(const fake_run *f)
{
    json_t *entry = json_pack(
        "{s:s, s:s, s:{s:f, s:f, s:f, s:I}, s:{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:f, "
        "s:I, s:I, s:I, s:I}}", "name", f->inst[0].name, "uri", f->inst[0].uri,
        "config", "warmup_time_ns", 5e6, "min_round_time_ns", 1e6, "max_time_ns", 2e9,
        "max_rounds", (json_int_t)3,
        "stats", "min_ns", 100.0, "max_ns", 200.0, "mean_ns", 150.0, "stdev_ns", 50.0,
        "q1_ns", 125.0, "median_ns", 150.0, "q3_ns", 175.0, "rounds", (json_int_t)3,
        "total_time", 4500e-9, "iqr_outlier_rounds", (json_int_t)0,
        "stdev_outlier_rounds", (json_int_t)0, "iter_per_round", (json_int_t)10,
        "warmup_iters", (json_int_t)70);
    return json_pack("{s:{s:s, s:s, s:I}, s:{s:s}, s:[o]}", "creator", "name", "ompbench",
                     "version", OMPB_VERSION_STRING, "pid", (json_int_t)getpid(),
                     "instrument", "type", "walltime", "benchmarks", entry);
}

static json_t *entry_part(json_t *root, const char *key)
{
    json_t *entry = json_array_get(json_object_get(root, "benchmarks"), 0);
    return key ? json_object_get(entry, key) : entry;
}

/* Writes root (stolen) to path and checks it as `ompbench collect` does,
 * against a collector that saw the fake run's three marker pairs. */
static ompb__collector *check_results_file(const fake_run *f, json_t *root, const char *path)
{
    json_dump_file(root, path, 0);
    json_decref(root);
    ompb__collector *c = collector_for(f, 3);
    ompb__collector_check_results(c, path);
    ompb__collector_check_results_coverage(c);
    return c;
}

#define EXPECT_RESULTS_VIOLATION(needle, root)                                 \
    do {                                                                      \
        ompb__collector *c_ = check_results_file(&f, root, path);             \
        CU_ASSERT(has_violation(c_, needle));                                 \
        if (!has_violation(c_, needle)) {                                     \
            fprintf(stderr, "    wanted \"%s\"\n", needle);                  \
            print_violations(c_);                                             \
        }                                                                     \
        ompb__collector_free(c_);                                             \
    } while (0)

static void test_collector_results_file_checks(void)
{
    char dir[] = "/tmp/ompb-results.XXXXXX", path[64];
    fake_run f;
    json_t *r;
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%ld.json", dir, (long)getpid());
    make_fake_run(&f, ompb__now_ns());
    ompb__collector *c = check_results_file(&f, fake_results(&f), path);
    print_violations(c);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(c), 0);
    ompb__collector_free(c);
    /* Both directions: an entry per marked window, and only one. */
    r = fake_results(&f);
    json_array_clear(json_object_get(r, "benchmarks"));
    EXPECT_RESULTS_VIOLATION("has 3 marker pairs but no entry in a results file", r);
    r = fake_results(&f);
    json_array_clear(json_object_get(r, "benchmarks"));
    EXPECT_RESULTS_VIOLATION("benchmarks is empty (the runner rejects the upload", r);
    r = fake_results(&f);
    json_array_append_new(json_object_get(r, "benchmarks"), json_deep_copy(entry_part(r, NULL)));
    EXPECT_RESULTS_VIOLATION("appears more than once", r);
    /* The schema, field by field, with types. */
    r = fake_results(&f);
    json_object_del(entry_part(r, "stats"), "q1_ns");
    EXPECT_RESULTS_VIOLATION("stats.q1_ns is missing (expected a number)", r);
    r = fake_results(&f);
    json_object_set_new(entry_part(r, "stats"), "rounds", json_real(3));
    EXPECT_RESULTS_VIOLATION("stats.rounds is of the wrong type", r);
    r = fake_results(&f);
    json_object_set_new(entry_part(r, "stats"), "warmup_iters", json_integer(-1));
    EXPECT_RESULTS_VIOLATION("stats.warmup_iters is of the wrong type", r);
    r = fake_results(&f);
    json_object_del(entry_part(r, "config"), "max_rounds");
    EXPECT_RESULTS_VIOLATION("config.max_rounds is missing", r);
    r = fake_results(&f);
    json_object_set_new(entry_part(r, "config"), "max_time_ns", json_string("5s"));
    EXPECT_RESULTS_VIOLATION("config.max_time_ns is of the wrong type", r);
    r = fake_results(&f);
    json_object_del(entry_part(r, NULL), "config");
    EXPECT_RESULTS_VIOLATION("config is missing", r);
    r = fake_results(&f);
    json_object_del(entry_part(r, NULL), "name");
    EXPECT_RESULTS_VIOLATION("name is missing (expected a string)", r);
    r = fake_results(&f);
    json_object_del(json_object_get(r, "creator"), "pid");
    EXPECT_RESULTS_VIOLATION("creator.pid is missing", r);
    r = fake_results(&f);
    json_object_set_new(json_object_get(r, "instrument"), "type", json_string("cpu"));
    EXPECT_RESULTS_VIOLATION("instrument.type is \"cpu\"", r);
    r = fake_results(&f);
    json_object_set_new(json_object_get(r, "instrument"), "type", json_integer(1));
    EXPECT_RESULTS_VIOLATION("instrument.type is of the wrong type (expected \"walltime\")", r);
    r = fake_results(&f);
    json_object_del(json_object_get(r, "instrument"), "type");
    EXPECT_RESULTS_VIOLATION("instrument.type is missing", r);
    r = fake_results(&f);
    json_object_set_new(json_object_get(r, "creator"), "pid", json_integer(getpid() + 1));
    EXPECT_RESULTS_VIOLATION("entry in the results of pid", r);
    /* An entry no window names: a violation, except for an application
     * region, which may run while another holds the only window. */
    r = fake_results(&f);
    json_t *extra = json_deep_copy(entry_part(r, NULL));
    json_object_set_new(extra, "uri", json_string("benches/x.c::other"));
    json_array_append_new(json_object_get(r, "benchmarks"), extra);
    EXPECT_RESULTS_VIOLATION("benches/x.c::other has results but no benchmark window", r);
    r = fake_results(&f);
    extra = json_deep_copy(entry_part(r, NULL));
    json_object_set_new(extra, "uri", json_string("app.c::region:halo[t=2]"));
    json_array_append_new(json_object_get(r, "benchmarks"), extra);
    c = check_results_file(&f, r, path);
    print_violations(c);
    CU_ASSERT_EQUAL(ompb__collector_violation_count(c), 0);
    json_t *summary = ompb__collector_to_json(c);
    json_t *only = json_object_get(summary, "results_without_window");
    CU_ASSERT_EQUAL(json_array_size(only), 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(only, 0)), "app.c::region:halo[t=2]");
    json_decref(summary);
    ompb__collector_free(c);
    unlink(path);
    rmdir(dir);
}

/* No instance succeeded: no results file (the runner fails the upload on an
 * empty benchmarks array; exit status 1 already says the run failed). */
static void test_codspeed_no_results_no_file(void)
{
    char dir[] = "/tmp/ompb-profile.XXXXXX";
    fake_run f;
    ompb_error err = {0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    make_fake_run(&f, 1000);
    f.res[0].rec.failed = true;
    setenv("CODSPEED_PROFILE_FOLDER", dir, 1);
    setenv("CODSPEED_RUNNER_MODE", "walltime", 1);
    CU_ASSERT_EQUAL(codspeed(NULL, f.res, 2, &err), 0);
    CU_ASSERT_EQUAL(count_entries(dir), 0);
    f.res[0].rec.failed = false;
    CU_ASSERT_EQUAL(codspeed(NULL, f.res, 2, &err), 0);
    CU_ASSERT_EQUAL(count_entries(dir), 1);   /* results/ */
    char path[128];
    snprintf(path, sizeof path, "%s/results/%ld.json", dir, (long)getpid());
    unlink(path);
    snprintf(path, sizeof path, "%s/results", dir);
    rmdir(path);
    rmdir(dir);
    unsetenv("CODSPEED_PROFILE_FOLDER");
    unsetenv("CODSPEED_RUNNER_MODE");
}

/* The build ID readelf finds in path's notes ("" without one). */
static void readelf_build_id(const char *path, char *out, size_t cap)
{
    char cmd[4200], line[512];
    out[0] = '\0';
    snprintf(cmd, sizeof cmd, "readelf -n '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    while (fgets(line, sizeof line, p))
        if (sscanf(line, " Build ID: %200s", out) == 1 && strlen(out) < cap)
            break;
    pclose(p);
}

/* Every loaded library is there, this test binary's OpenMP runtime among
 * them, with its path and the build ID its file holds (as readelf reads
 * it), or null. */
static void check_linked_libraries(json_t *libs)
{
    CU_ASSERT_TRUE_FATAL(json_is_object(libs));
    const char *name;
    json_t *lib;
    bool gomp = false;
    json_object_foreach(libs, name, lib) {
        json_t *path = json_object_get(lib, "path"), *id = json_object_get(lib, "build_id");
        CU_ASSERT_TRUE(json_is_string(path) && (json_is_string(id) || json_is_null(id)));
        if (strncmp(name, "libgomp.so", 10) != 0 || !json_is_string(path))
            continue;
        char want[256];
        readelf_build_id(json_string_value(path), want, sizeof want);
        gomp = true;
        CU_ASSERT_EQUAL(access(json_string_value(path), R_OK), 0);
        CU_ASSERT_STRING_EQUAL(json_is_string(id) ? json_string_value(id) : "", want);
    }
    CU_ASSERT_TRUE(gomp);
}

/* The environment file the official hooks write, with our run context. */
static void test_codspeed_environment_file(void)
{
    char dir[] = "/tmp/ompb-profile.XXXXXX", path[128];
    fake_run f;
    ompb_error err = {0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/environment-%ld.json", dir, (long)getpid());
    make_fake_run(&f, 1000);
    f.res[0].rec.failed = true;   /* no results file: only the environment */
    setenv("OMP_NUM_THREADS", "2", 1);
    ompb__context *ctx = ompb__context_new(NULL, 2, "bench");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    point_at_nothing();
    ompb__instrument_reset();
    ompb__instrument_init();
    setenv("CODSPEED_PROFILE_FOLDER", dir, 1);
    unsetenv("CODSPEED_RUNNER_MODE");
    CU_ASSERT_EQUAL(codspeed(ctx, f.res, 2, &err), 0);
    CU_ASSERT_EQUAL(count_entries(dir), 0);   /* no runner: nothing */
    setenv("CODSPEED_RUNNER_MODE", "walltime", 1);
    CU_ASSERT_EQUAL(codspeed(ctx, f.res, 2, &err), 0);
    CU_ASSERT_EQUAL(count_entries(dir), 1);   /* environment only */
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *env = json_object_get(json_object_get(root, "integration_environment"), "ompbench");
    CU_ASSERT_TRUE_FATAL(json_is_object(env));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(env, "version")), OMPB_VERSION_STRING);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(env, "env.OMP_NUM_THREADS")), "2");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(env, "default_threads")), "2");
    const char *key;
    json_t *value;
    json_object_foreach(env, key, value)   /* string or [string], as the runner reads it */
        CU_ASSERT_TRUE(json_is_string(value) || is_string_array(value));
    check_linked_libraries(json_object_get(root, "linked_libraries"));
    /* The context's build ID of this binary comes from the same parser as
     * the libraries' (lib/core/libraries.c), and matches its file. */
    char self[4096], want[256];
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath("/proc/self/exe", self));
    readelf_build_id(self, want, sizeof want);
    CU_ASSERT_STRING_EQUAL(ctx->build_id, want);
    json_decref(root);
    ompb__context_free(ctx);
    unlink(path);
    rmdir(dir);
    unsetenv("OMP_NUM_THREADS");
    unsetenv("CODSPEED_PROFILE_FOLDER");
    unsetenv("CODSPEED_RUNNER_MODE");
    cleanup_env();
}

static void test_codspeed_results_unwritable(void)
{
    fake_run f;
    ompb_error err = {0};
    make_fake_run(&f, 1000);
    setenv("CODSPEED_PROFILE_FOLDER", "/nonexistent/dir/profile", 1);
    setenv("CODSPEED_RUNNER_MODE", "walltime", 1);
    CU_ASSERT_EQUAL(codspeed(NULL, f.res, 2, &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "/nonexistent/dir/profile"));
    unsetenv("CODSPEED_PROFILE_FOLDER");
    unsetenv("CODSPEED_RUNNER_MODE");
}

static const ompb_test_case cases[] = {
    {"api_off_is_noop", test_api_off_is_noop},
    {"api_walltime_sequence", test_api_walltime_sequence},
    {"api_memory_mode_stays_out", test_api_memory_mode_stays_out},
    {"codspeed_no_results_no_file", test_codspeed_no_results_no_file},
    {"codspeed_environment_file", test_codspeed_environment_file},
    {"api_invalid_arguments", test_api_invalid_arguments},
    {"api_refused_version", test_api_refused_version},
    {"api_off_after_failure", test_api_off_after_failure},
    {"api_forked_child_is_off", test_api_forked_child_is_off},
    {"api_one_process_per_runner", test_api_one_process_per_runner},
    {"api_open_failure_is_per_handle", test_api_open_failure_is_per_handle},
    {"stress_threads_share_pipes", test_stress_threads_share_pipes},
    {"region_window_closes_at_next_team_size", test_region_window_closes_at_next_team_size},
    {"facade_walltime", test_facade_walltime},
    {"engine_failed_instance_sends_no_markers", test_engine_failed_instance_sends_no_markers},
    {"engine_slow_start_keeps_rounds", test_engine_slow_start_keeps_rounds},
    {"facade_slow_runner_spends_budget", test_facade_slow_runner_spends_budget},
    {"facade_none", test_facade_none},
    {"facade_silent_runner", test_facade_silent_runner},
    {"facade_runner_dies_mid_run", test_facade_runner_dies_mid_run},
    {"facade_refused_version", test_facade_refused_version},
    {"facade_invalid_uri", test_facade_invalid_uri},
    {"collector_accepts_valid_run", test_collector_accepts_valid_run},
    {"collector_flags_each_violation", test_collector_flags_each_violation},
    {"collector_replies", test_collector_replies},
    {"collector_feed_bytewise", test_collector_feed_bytewise},
    {"collector_feed_bad_frames", test_collector_feed_bad_frames},
    {"collector_feed_out_of_memory", test_collector_feed_out_of_memory},
    {"collector_feed_empty_first", test_collector_feed_empty_first},
    {"collector_truncated_trailing_frame", test_collector_truncated_trailing_frame},
    {"collector_print_escapes_controls", test_collector_print_escapes_controls},
    {"collector_dumps", test_collector_dumps},
    {"collector_dumps_per_process", test_collector_dumps_per_process},
    {"codspeed_results_file", test_codspeed_results_file},
    {"codspeed_runner_handed_in", test_codspeed_runner_handed_in},
    {"codspeed_results_unwritable", test_codspeed_results_unwritable},
    {"collector_results_file_checks", test_collector_results_file_checks},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_hooks = {"hooks", NULL, NULL, cases};
