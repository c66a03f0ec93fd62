/* SPDX-License-Identifier: MIT */
/*
 * Cost of the hook transport, next to its floor (docs/performance.md):
 *
 * - pipe, fifo: a bare two-process ping-pong (8 bytes each way, blocking
 *   reads) over anonymous pipes, and over FIFOs opened as the runner's are:
 *   the least any request+ack can cost on this machine;
 * - raw: the least a client can do on the runner stand-in (one write of an
 *   AddMarker frame, read the Ack, poll only when it is not there yet);
 * - req: one ompb__transport_request (AddMarker + Ack) on the same peer,
 *   which answers every frame at once;
 * - flush: one instance's 1000 marker pairs + StopBenchmark +
 *   CurrentBenchmark pipelined (ompb__transport_send_all), and the same
 *   2002 frames as sequential requests;
 * - what the facade costs when nothing is instrumented (mode none).
 *
 * Each figure is taken with the two processes on different CPUs and on the
 * same CPU; the kinds run in alternating blocks, and ratios are medians of
 * per-block ratios, so load changes hit all kinds alike. Usage:
 * transport [--test] (--test: tiny counts, a smoke run that checks that
 * everything works; its figures mean nothing).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "hooks/codec.h"
#include "hooks/instrument.h"
#include "hooks/transport.h"
#include "model/record.h"

#define BLOCKS 40
#define TRIPS_PER_BLOCK 500
#define FLUSH_PAIRS 1000
#define FLUSH_REPS 30
#define NOOP_CALLS 20000000
#define PEER_BUF 65536

typedef struct placement {
    const char *name;
    int parent_cpu, child_cpu;
} placement;

typedef struct sizes {
    int blocks, trips, flush_reps, noop_calls;
} sizes;

/* ---- helpers -------------------------------------------------------------- */

static void pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        fprintf(stderr, "transport: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static void stop_child(pid_t pid)
{
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        continue;
}

/* ---- the bare floor: pipe ping-pong --------------------------------------- */

static void echo_loop(int in, int out)
{
    uint64_t word;
    for (;;) {
        ssize_t r = read(in, &word, sizeof word);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof word || write_all(out, &word, sizeof word) != 0)
            _exit(0);
    }
}

typedef struct echo {
    pid_t pid;
    int to, from;
    char path[2][96];   /* the FIFOs of a FIFO echo, else empty */
} echo;

/* Two one-way channels: anonymous pipes, or FIFOs like the runner's. */
static int make_channels(echo *e, const char *fifo_dir, int a[2], int b[2])
{
    if (!fifo_dir)
        return pipe(a) != 0 || pipe(b) != 0 ? -1 : 0;
    for (int i = 0; i < 2; i++) {
        snprintf(e->path[i], sizeof e->path[i], "%s/echo%d.fifo", fifo_dir, i);
        if (mkfifo(e->path[i], 0600) != 0)
            return -1;
    }
    /* O_RDWR never blocks in open(2) and never sees EOF: the runner's way. */
    a[0] = a[1] = open(e->path[0], O_RDWR);
    b[0] = b[1] = open(e->path[1], O_RDWR);
    return a[0] < 0 || b[0] < 0 ? -1 : 0;
}

static int echo_start(echo *e, int child_cpu, const char *fifo_dir)
{
    int a[2], b[2];
    memset(e, 0, sizeof *e);
    e->pid = e->to = e->from = -1;
    if (make_channels(e, fifo_dir, a, b) != 0)
        return -1;
    e->pid = fork();
    if (e->pid == 0) {
        pin_to(child_cpu);
        echo_loop(a[0], b[1]);
    }
    if (!fifo_dir) {
        close(a[0]);
        close(b[1]);
    }
    e->to = a[1];
    e->from = b[0];
    return e->pid > 0 ? 0 : -1;
}

static void echo_stop(echo *e)
{
    if (e->pid > 0)
        stop_child(e->pid);
    if (e->to >= 0)
        close(e->to);
    if (e->from >= 0 && e->from != e->to)
        close(e->from);
    for (int i = 0; i < 2; i++)
        if (e->path[i][0])
            unlink(e->path[i]);
}

static int bare_trips(const echo *e, uint64_t *out, int n)
{
    uint64_t word = 42;
    for (int i = 0; i < n; i++) {
        uint64_t t0 = ompb__now_ns();
        if (write_all(e->to, &word, sizeof word) != 0)
            return -1;
        ssize_t r;
        while ((r = read(e->from, &word, sizeof word)) < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof word)
            return -1;
        out[i] = ompb__now_ns() - t0;
    }
    return 0;
}

/* ---- the runner stand-in: acks every frame at once ------------------------ */

/* Reads whatever the pipe holds and answers every whole frame in it with
 * one write, as fast as a runner could. */
static void ack_loop(int ctl, int ack)
{
    static uint8_t buf[PEER_BUF], acks[PEER_BUF / OMPB__FRAME_MIN * OMPB__FRAME_MIN];
    static const uint8_t one_ack[OMPB__FRAME_MIN] = {4, 0, 0, 0, OMPB__CMD_ACK, 0, 0, 0};
    size_t have = 0;
    for (;;) {
        ssize_t r = read(ctl, buf + have, sizeof buf - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            _exit(0);
        have += (size_t)r;
        size_t off = 0, flen, n = 0;
        while (ompb__frame_peek(buf + off, have - off, &flen) == 1) {
            memcpy(acks + n++ * OMPB__FRAME_MIN, one_ack, sizeof one_ack);
            off += flen;
        }
        if (n && write_all(ack, acks, n * OMPB__FRAME_MIN) != 0)
            _exit(0);
        memmove(buf, buf + off, have - off);
        have -= off;
    }
}

typedef struct runner {
    pid_t pid;
    char dir[64], ctl[96], ack[96];
    ompb__transport *t;
} runner;

static int runner_start(runner *rn, int child_cpu)
{
    rn->t = NULL;
    rn->pid = -1;
    snprintf(rn->dir, sizeof rn->dir, "/tmp/ompb-bench.XXXXXX");
    if (!mkdtemp(rn->dir))
        return -1;
    snprintf(rn->ctl, sizeof rn->ctl, "%s/ctl.fifo", rn->dir);
    snprintf(rn->ack, sizeof rn->ack, "%s/ack.fifo", rn->dir);
    if (mkfifo(rn->ctl, 0600) != 0 || mkfifo(rn->ack, 0600) != 0)
        return -1;
    rn->pid = fork();
    if (rn->pid == 0) {
        pin_to(child_cpu);
        int ctl = open(rn->ctl, O_RDWR), ack = open(rn->ack, O_RDWR);
        if (ctl >= 0 && ack >= 0)
            ack_loop(ctl, ack);
        _exit(1);
    }
    ompb_error err = {0};
    if (rn->pid < 0 || ompb__transport_open(rn->ctl, rn->ack, 5000, &rn->t, &err) != 0) {
        fprintf(stderr, "transport: %s\n", err.text);
        return -1;
    }
    return 0;
}

static void runner_stop(runner *rn)
{
    ompb__transport_close(rn->t);
    stop_child(rn->pid);
    unlink(rn->ctl);
    unlink(rn->ack);
    rmdir(rn->dir);
}

static int request_trips(const runner *rn, uint64_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t t0 = ompb__now_ns();
        ompb__cmd m = ompb__cmd_marker(1, OMPB_MARKER_BENCHMARK_START, t0);
        if (ompb__transport_request(rn->t, &m, NULL, NULL) != 0)
            return -1;
        out[i] = ompb__now_ns() - t0;
    }
    return 0;
}

/* The least a client can do on the runner's pipes: one write of the frame,
 * then read, polling only when the ack is not there yet. No lock, no
 * deadline bookkeeping: what the transport adds shows against this. */
static int raw_trips(const runner *rn, uint64_t *out, int n)
{
    int ctl = open(rn->ctl, O_RDWR | O_NONBLOCK), ack = open(rn->ack, O_RDWR | O_NONBLOCK);
    int rc = ctl >= 0 && ack >= 0 ? 0 : -1;
    for (int i = 0; rc == 0 && i < n; i++) {
        uint8_t frame[OMPB__FRAME_MAX], reply[OMPB__FRAME_MIN];
        size_t len;
        uint64_t t0 = ompb__now_ns();
        ompb__cmd m = ompb__cmd_marker(1, OMPB_MARKER_BENCHMARK_START, t0);
        ompb__cmd_encode(&m, frame, sizeof frame, &len);
        rc = write(ctl, frame, len) == (ssize_t)len ? 0 : -1;
        while (rc == 0 && read(ack, reply, sizeof reply) != (ssize_t)sizeof reply) {
            struct pollfd p = {.fd = ack, .events = POLLIN};
            rc = poll(&p, 1, 5000) == 1 ? 0 : -1;
        }
        out[i] = ompb__now_ns() - t0;
    }
    if (ctl >= 0)
        close(ctl);
    if (ack >= 0)
        close(ack);
    return rc;
}

/* One instance's flush: markers, StopBenchmark, CurrentBenchmark. */
static ompb__cmd *flush_frames(size_t *n)
{
    *n = 2 * FLUSH_PAIRS + 2;
    ompb__cmd *cmds = calloc(*n, sizeof *cmds);
    for (size_t i = 0; cmds && i < 2 * FLUSH_PAIRS; i++)
        cmds[i] = ompb__cmd_marker(1, i % 2 ? OMPB_MARKER_BENCHMARK_END
                                            : OMPB_MARKER_BENCHMARK_START, i);
    if (cmds) {
        cmds[*n - 2] = ompb__cmd_simple(OMPB__CMD_STOP_BENCHMARK);
        cmds[*n - 1] = ompb__cmd_current_benchmark(1, "benches/examples.c::thread_example[t=4]");
    }
    return cmds;
}

static int sequential(const runner *rn, const ompb__cmd *cmds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ompb__transport_request(rn->t, &cmds[i], NULL, NULL) != 0)
            return -1;
    return 0;
}

/* ---- figures -------------------------------------------------------------- */

typedef struct figures {
    double pipe_ns, fifo_ns, raw_ns, request_ns;
    double ratio_pipe, ratio_fifo, ratio_raw, flush_ns, sequential_ns;
} figures;

/* Median over blocks of num/den block medians: each block's samples were
 * taken back to back, so load changes between blocks cancel out. */
static double block_ratio(uint64_t *num, uint64_t *den, int blocks, int trips)
{
    uint64_t *r = malloc((size_t)blocks * sizeof *r);
    if (!r)
        return 0;
    for (int b = 0; b < blocks; b++) {
        size_t off = (size_t)b * (size_t)trips;
        /* Fixed point (1e-6), so the shared median() can sort them. */
        r[b] = (uint64_t)(1e6 * median(num + off, (size_t)trips)
                          / median(den + off, (size_t)trips));
    }
    double ratio = median(r, (size_t)blocks) / 1e6;
    free(r);
    return ratio;
}

typedef struct trip_set {
    echo pipe_echo, fifo_echo;
    runner rn;
    uint64_t *pipe, *fifo, *raw, *req;
} trip_set;

static int trips_start(trip_set *ts, const placement *pl, size_t total)
{
    memset(ts, 0, sizeof *ts);
    ts->pipe_echo.pid = ts->fifo_echo.pid = ts->rn.pid = -1;
    ts->pipe_echo.to = ts->pipe_echo.from = ts->fifo_echo.to = ts->fifo_echo.from = -1;
    ts->pipe = malloc(total * sizeof *ts->pipe);
    ts->fifo = malloc(total * sizeof *ts->fifo);
    ts->raw = malloc(total * sizeof *ts->raw);
    ts->req = malloc(total * sizeof *ts->req);
    if (!ts->pipe || !ts->fifo || !ts->raw || !ts->req || runner_start(&ts->rn, pl->child_cpu) != 0)
        return -1;
    if (echo_start(&ts->pipe_echo, pl->child_cpu, NULL) != 0)
        return -1;
    return echo_start(&ts->fifo_echo, pl->child_cpu, ts->rn.dir);
}

static void trips_stop(trip_set *ts)
{
    echo_stop(&ts->pipe_echo);
    echo_stop(&ts->fifo_echo);
    if (ts->rn.pid > 0)
        runner_stop(&ts->rn);
    free(ts->pipe);
    free(ts->fifo);
    free(ts->raw);
    free(ts->req);
}

static int measure_trips(const placement *pl, const sizes *sz, figures *f)
{
    size_t total = (size_t)sz->blocks * (size_t)sz->trips;
    trip_set ts;
    int rc = trips_start(&ts, pl, total);
    for (int b = 0; rc == 0 && b < sz->blocks; b++) {
        size_t off = (size_t)b * (size_t)sz->trips;
        rc = bare_trips(&ts.pipe_echo, ts.pipe + off, sz->trips);
        if (rc == 0)
            rc = bare_trips(&ts.fifo_echo, ts.fifo + off, sz->trips);
        if (rc == 0)
            rc = raw_trips(&ts.rn, ts.raw + off, sz->trips);
        if (rc == 0)
            rc = request_trips(&ts.rn, ts.req + off, sz->trips);
    }
    if (rc == 0) {
        f->ratio_pipe = block_ratio(ts.req, ts.pipe, sz->blocks, sz->trips);
        f->ratio_fifo = block_ratio(ts.req, ts.fifo, sz->blocks, sz->trips);
        f->ratio_raw = block_ratio(ts.req, ts.raw, sz->blocks, sz->trips);
        f->raw_ns = median(ts.raw, total);
        f->pipe_ns = median(ts.pipe, total);
        f->fifo_ns = median(ts.fifo, total);
        f->request_ns = median(ts.req, total);
    }
    trips_stop(&ts);
    return rc;
}

static int measure_flush(const placement *pl, const sizes *sz, figures *f)
{
    size_t n;
    ompb__cmd *cmds = flush_frames(&n);
    uint64_t *t = malloc((size_t)sz->flush_reps * sizeof *t);
    runner rn = {.pid = -1};
    int rc = cmds && t ? runner_start(&rn, pl->child_cpu) : -1;
    for (int r = 0; rc == 0 && r < sz->flush_reps; r++) {
        uint64_t t0 = ompb__now_ns();
        rc = ompb__transport_send_all(rn.t, cmds, n, NULL);
        t[r] = ompb__now_ns() - t0;
    }
    if (rc == 0) {
        f->flush_ns = median(t, (size_t)sz->flush_reps);
        uint64_t t0 = ompb__now_ns();
        rc = sequential(&rn, cmds, n);
        f->sequential_ns = (double)(ompb__now_ns() - t0);
    }
    if (rn.pid > 0)
        runner_stop(&rn);
    free(cmds);
    free(t);
    return rc;
}

/* Mode none: the calls the round engine makes per instance (none per round:
 * the markers leave from the record after the team is done). */
static void measure_noop(const sizes *sz)
{
    ompb__instance inst;
    memset(&inst, 0, sizeof inst);
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    rec.inst = &inst;
    setenv(OMPB__CTL_FIFO_ENV, "/nonexistent/ompb.ctl", 1);
    setenv(OMPB__ACK_FIFO_ENV, "/nonexistent/ompb.ack", 1);
    uint64_t t0 = ompb__now_ns();
    ompb__instrument_init();
    double init_ns = (double)(ompb__now_ns() - t0);
    t0 = ompb__now_ns();
    for (int i = 0; i < sz->noop_calls; i++) {
        ompb__instrument_instance_begin(&inst);
        ompb__instrument_instance_end(&rec, true);
    }
    double instance_ns = (double)(ompb__now_ns() - t0) / sz->noop_calls;
    printf("not instrumented (mode %s): init %.1f us, instance_begin+end %.2f ns per "
           "instance, nothing per round\n",
           ompb__instrument_mode() == OMPB__MODE_NONE ? "none" : "NOT none", init_ns / 1e3,
           instance_ns);
}

static void print_row(const placement *pl, const figures *f)
{
    printf("%-10s %8.2f %8.2f %8.2f %8.2f %6.2f %6.2f %6.2f %9.3f %10.2f\n", pl->name,
           f->pipe_ns / 1e3, f->fifo_ns / 1e3, f->raw_ns / 1e3, f->request_ns / 1e3,
           f->ratio_pipe, f->ratio_fifo, f->ratio_raw, f->flush_ns / 1e6, f->sequential_ns / 1e6);
}

static int allowed_cpus(int *cpus, int cap)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && n < cap; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

int main(int argc, char **argv)
{
    bool test = argc > 1 && strcmp(argv[1], "--test") == 0;
    sizes sz = test ? (sizes){2, 50, 2, 1000}
                    : (sizes){BLOCKS, TRIPS_PER_BLOCK, FLUSH_REPS, NOOP_CALLS};
    int cpus[2] = {0, 0}, n_cpus = allowed_cpus(cpus, 2), failures = 0;
    placement pls[2] = {{"cross-CPU", cpus[0], n_cpus > 1 ? cpus[1] : cpus[0]},
                        {"same CPU", cpus[0], cpus[0]}};
    printf("ompbench hook transport: medians of %d x %d round trips per figure.\n"
           "pipe, fifo: bare 8-byte ping-pong over pipes / over FIFOs like the runner's;\n"
           "raw: minimal client (write frame, read ack) on the runner stand-in; req: one\n"
           "ompb__transport_request (AddMarker + Ack) on it; /x: median over blocks of req / x;\n"
           "flush: %d x (1000 marker pairs + StopBenchmark + CurrentBenchmark) pipelined,\n"
           "sequential: the same 2002 frames one request at a time\n",
           sz.blocks, sz.trips, sz.flush_reps);
    printf("%-10s %8s %8s %8s %8s %6s %6s %6s %9s %10s\n", "placement", "pipe us", "fifo us",
           "raw us", "req us", "/pipe", "/fifo", "/raw", "flush ms", "seq ms");
    for (int p = n_cpus > 1 ? 0 : 1; p < 2; p++) {
        figures f = {0};
        pin_to(pls[p].parent_cpu);
        if (measure_trips(&pls[p], &sz, &f) != 0 || measure_flush(&pls[p], &sz, &f) != 0) {
            fprintf(stderr, "transport: %s: measurement failed\n", pls[p].name);
            failures++;
            continue;
        }
        print_row(&pls[p], &f);
    }
    measure_noop(&sz);
    return failures ? 1 : 0;
}
