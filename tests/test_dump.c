/* SPDX-License-Identifier: MIT */
/* Dump: a child's records to its parent and back, whole (counters and
 * caller teams included), and every check of the reader on damaged or
 * foreign files. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ompbench/bench.h>
#include <ompbench/error.h>

#include "context/context.h"
#include "run/dump.h"
#include "model/record.h"
#include "model/registry.h"
#include "suite.h"

#define ROUNDS 3
#define THREADS 2

static void body(ompb_state *s) { (void)s; }

static const ompb_benchmark bench = {.name = "triad", .file = "benches/x.c", .fn = body};

static void make_instances(ompb__instance inst[2])
{
    memset(inst, 0, 2 * sizeof *inst);
    for (int i = 0; i < 2; i++) {
        inst[i].bench = &bench;
        inst[i].threads = THREADS;
        snprintf(inst[i].name, sizeof inst[i].name, "triad[%d, t=2]", i);
        snprintf(inst[i].uri, sizeof inst[i].uri, "benches/x.c::triad[%d, t=2]", i);
    }
}

/* Two events as --counters task-clock,page-faults resolves them. */
static void set_counters(ompb__counter_set *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->n = 2;
    snprintf(cs->ev[0].name, sizeof cs->ev[0].name, "task-clock");
    cs->ev[0].type = 1;
    cs->ev[0].config = 1;
    cs->ev[0].unit = OMPB__COUNTER_NS;
    snprintf(cs->ev[1].name, sizeof cs->ev[1].name, "page-faults");
    cs->ev[1].type = 1;
    cs->ev[1].config = 2;
    cs->ev[1].config1 = 7;
    cs->ev[1].kernel = true;
    cs->ev[1].named = true;
}

/* A record of instance inst, repetition rep of 4 in 2 processes; with
 * counters when `counted`, for a caller team when `caller`. */
static void make_record(ompb__record *rec, const ompb__instance *inst, uint32_t rep,
                        bool counted, bool caller)
{
    memset(rec, 0, sizeof *rec);
    rec->caller_team = caller;
    if (counted)
        set_counters(&rec->counters);
    CU_ASSERT_EQUAL_FATAL(ompb__record_alloc(rec, ROUNDS, THREADS), 0);
    rec->inst = inst;
    rec->rounds = ROUNDS;
    rec->sampling = (ompb__sampling){.mode = OMPB__SAMPLING_MEASURE, .threads = THREADS,
                                     .rounds = ROUNDS, .min_round_ns = 1000000,
                                     .warmup_ns = 25000000, .budget_ns = 1250000000,
                                     .repetition = rep, .repetitions = 4};
    rec->sample_size = 1000;
    rec->round_target_ns = 1000000;
    rec->warmup_rounds = 7;
    rec->warmup_iters = 7000;
    rec->warmup_ns = 25000001;
    rec->calibration_rounds = 4;
    rec->bytes_per_iter = 64;
    /* ompb_counter: a fractional value that must come back bit for bit. */
    rec->ucounters.n = 1;
    snprintf(rec->ucounters.name[0], OMPB__UCOUNTER_NAME_MAX, "lookups");
    rec->ucounters.flags[0] = OMPB_COUNTER_RATE | OMPB_COUNTER_AVG_THREADS;
    for (size_t r = 0; r < ROUNDS; r++)
        rec->ucounter_values[r * OMPB__UCOUNTERS_MAX] = 0.1 * (double)(r + 1) + rep;
    rec->cpu_ns = 6000000;
    rec->migrations = 1;
    rec->nested_regions = caller ? 0 : 3;
    rec->other_width_regions = caller ? 5 : 0;
    /* The calibration as the engine reports it: 3 steps, a fractional
     * barrier estimate, one retry; a short-round reason that needs
     * escaping in JSON. */
    rec->n_calib_steps = 3;
    for (size_t i = 0; i < 3; i++)
        rec->calib_steps[i] = (ompb__calib_step){10 * (i + 1) * (i + 1), 40000 * (i + 1) + rep};
    rec->barrier_cost_ns = 312.75;
    rec->recalibrations = 1;
    rec->calibration_disturbed = rep == 3;
    rec->measure_wall_ns = 3000007 + rep;
    snprintf(rec->short_reason, sizeof rec->short_reason, "budget: body \"%u\" ms per iteration",
             rep);
    int timed = ompb__record_timed_threads(rec);
    for (size_t r = 0; r < ROUNDS; r++) {
        rec->start_ns[r] = 1000000000000ull + r * 2000000 + rep;
        rec->end_ns[r] = rec->start_ns[r] + 1000000 + r;
        for (int t = 0; t < timed; t++) {
            rec->thread_start_ns[r * (size_t)timed + (size_t)t] = rec->start_ns[r] + (uint64_t)t * 10;
            rec->busy_ns[r * (size_t)timed + (size_t)t] = 990000 + (uint64_t)t;
            rec->thread_iters[r * (size_t)timed + (size_t)t] = 1000;
        }
    }
    for (int t = 0; t < THREADS; t++) {
        rec->os_tid[t] = 4000 + t;
        rec->thread_pu[t] = t;
        rec->involuntary_switches[t] = 20 + (uint64_t)t;
    }
    size_t cells = ROUNDS * THREADS;
    for (size_t c = 0; counted && c < cells; c++) {
        rec->counter_enabled_ns[c] = 5000 + c;
        /* cell 1 was multiplexed: on the PMU half the time */
        rec->counter_running_ns[c] = c == 1 ? 2500 : 5000 + c;
        for (int e = 0; e < 2; e++)
            rec->counter_values[c * 2 + (size_t)e] = 100 + 2 * c + (size_t)e;
    }
}

typedef struct taken {
    ompb__record rec[4];
    size_t instance[4];
    size_t n;
} taken;

static int take(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    (void)err;
    taken *t = arg;
    CU_ASSERT_FATAL(t->n < 4);
    t->instance[t->n] = instance;
    t->rec[t->n++] = *rec;
    return 0;
}

static void release(taken *t)
{
    for (size_t i = 0; i < t->n; i++)
        ompb__record_free(&t->rec[i]);
    t->n = 0;
}

static void same_counters(const ompb__record *a, const ompb__record *b)
{
    CU_ASSERT_EQUAL_FATAL(a->counters.n, b->counters.n);
    for (int e = 0; e < a->counters.n; e++) {
        const ompb__counter_event *x = &a->counters.ev[e], *y = &b->counters.ev[e];
        CU_ASSERT_STRING_EQUAL(x->name, y->name);
        CU_ASSERT(x->type == y->type && x->config == y->config && x->config1 == y->config1 &&
                  x->config2 == y->config2 && x->kernel == y->kernel && x->unit == y->unit &&
                  x->named == y->named);
    }
    if (a->counters.n == 0) {
        CU_ASSERT_PTR_NULL(b->counter_values);
        return;
    }
    size_t cells = a->rounds * (size_t)a->threads;
    CU_ASSERT_EQUAL(memcmp(a->counter_values, b->counter_values,
                           cells * (size_t)a->counters.n * sizeof(uint64_t)), 0);
    CU_ASSERT_EQUAL(memcmp(a->counter_enabled_ns, b->counter_enabled_ns, cells * sizeof(uint64_t)), 0);
    CU_ASSERT_EQUAL(memcmp(a->counter_running_ns, b->counter_running_ns, cells * sizeof(uint64_t)), 0);
}

static void same_record(const ompb__record *a, const ompb__record *b)
{
    CU_ASSERT_PTR_EQUAL(a->inst, b->inst);
    CU_ASSERT_EQUAL(a->caller_team, b->caller_team);
    CU_ASSERT_EQUAL(a->nested_regions, b->nested_regions);
    CU_ASSERT_EQUAL(a->other_width_regions, b->other_width_regions);
    CU_ASSERT_EQUAL(a->measure_wall_ns, b->measure_wall_ns);
    CU_ASSERT_EQUAL(a->recalibrations, b->recalibrations);
    CU_ASSERT_EQUAL(a->calibration_disturbed, b->calibration_disturbed);
    CU_ASSERT_DOUBLE_EQUAL(a->barrier_cost_ns, b->barrier_cost_ns, 0);
    CU_ASSERT_STRING_EQUAL(a->short_reason, b->short_reason);
    CU_ASSERT_EQUAL_FATAL(a->n_calib_steps, b->n_calib_steps);
    CU_ASSERT_EQUAL(memcmp(a->calib_steps, b->calib_steps, a->n_calib_steps * sizeof *a->calib_steps), 0);
    CU_ASSERT_EQUAL(memcmp(&a->sampling, &b->sampling, sizeof a->sampling), 0);
    CU_ASSERT_EQUAL(a->threads, b->threads);
    CU_ASSERT_EQUAL(a->rounds, b->rounds);
    CU_ASSERT_EQUAL(a->sample_size, b->sample_size);
    CU_ASSERT_EQUAL(a->round_target_ns, b->round_target_ns);
    CU_ASSERT_EQUAL(a->warmup_ns, b->warmup_ns);
    CU_ASSERT_EQUAL(a->cpu_ns, b->cpu_ns);
    CU_ASSERT_EQUAL(a->migrations, b->migrations);
    CU_ASSERT_EQUAL(a->bytes_per_iter, b->bytes_per_iter);
    CU_ASSERT_EQUAL(a->failed, b->failed);
    CU_ASSERT_STRING_EQUAL(a->error, b->error);
    size_t cells = a->rounds * (size_t)ompb__record_timed_threads(a);
    CU_ASSERT_EQUAL(memcmp(a->start_ns, b->start_ns, a->rounds * sizeof *a->start_ns), 0);
    CU_ASSERT_EQUAL(memcmp(a->end_ns, b->end_ns, a->rounds * sizeof *a->end_ns), 0);
    CU_ASSERT_EQUAL(memcmp(a->thread_start_ns, b->thread_start_ns, cells * sizeof(uint64_t)), 0);
    CU_ASSERT_EQUAL(memcmp(a->busy_ns, b->busy_ns, cells * sizeof(uint64_t)), 0);
    CU_ASSERT_EQUAL(memcmp(a->thread_iters, b->thread_iters, cells * sizeof(uint64_t)), 0);
    CU_ASSERT_EQUAL(memcmp(a->os_tid, b->os_tid, (size_t)a->threads * sizeof(int)), 0);
    CU_ASSERT_EQUAL(memcmp(a->thread_pu, b->thread_pu, (size_t)a->threads * sizeof(int)), 0);
    CU_ASSERT_EQUAL(memcmp(a->involuntary_switches, b->involuntary_switches,
                           (size_t)a->threads * sizeof(uint64_t)), 0);
    same_counters(a, b);
    CU_ASSERT_EQUAL_FATAL(a->ucounters.n, b->ucounters.n);
    CU_ASSERT_EQUAL(memcmp(&a->ucounters, &b->ucounters, sizeof a->ucounters), 0);
    CU_ASSERT_EQUAL(memcmp(a->ucounter_values, b->ucounter_values,
                           a->rounds * OMPB__UCOUNTERS_MAX * sizeof(double)), 0);
}

static char *temp_path(void)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/ompb-dump-%ld.json", (long)getpid());
    return path;
}

/* Process 1 of 2 ran repetitions 1 and 3 of both instances: the first
 * two records counted task-clock and page-faults, the second on a caller
 * team; the last one failed. */
static void write_dump(ompb__instance inst[2], ompb__record rec[4], ompb__context *ctx)
{
    const ompb__record *recs[4];
    for (int k = 0; k < 4; k++) {
        make_record(&rec[k], &inst[k / 2], k % 2 ? 3 : 1, k < 2, k == 1);
        recs[k] = &rec[k];
    }
    rec[3].failed = true;
    snprintf(rec[3].error, sizeof rec[3].error, "triad[1, t=2]: setup failed");
    ompb__dump_out d = {.process = 1, .sel = inst, .records = recs, .n = 4, .ctx = ctx};
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__dump_write(temp_path(), &d, &err), 0);
}

static void test_round_trip(void)
{
    ompb__instance inst[2];
    ompb__record rec[4];
    make_instances(inst);
    ompb__context *child = ompb__context_new_in(&(ompb__context_env){.quiet = true}, NULL, 2,
                                                "bench");
    ompb__context *parent = ompb__context_new(NULL, 2, "bench");
    CU_ASSERT_PTR_NOT_NULL_FATAL(child);
    CU_ASSERT_PTR_NOT_NULL_FATAL(parent);
    size_t before = parent->n_warnings;
    ompb__context_warn(child, "triad[0, t=2]: 1 thread migrations observed between rounds");
    write_dump(inst, rec, child);
    taken t = {0};
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__dump_read(temp_path(), 1, 2, 4, inst, 2, parent, take, &t, &err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n, 4);
    for (int k = 0; k < 4; k++) {
        CU_ASSERT_EQUAL(t.instance[k], (size_t)(k / 2));
        same_record(&t.rec[k], &rec[k]);
    }
    /* The child's warnings reach the parent's context (once each). */
    CU_ASSERT_EQUAL(parent->n_warnings, before + 1);
    CU_ASSERT_STRING_EQUAL(parent->warnings[parent->n_warnings - 1],
                           "triad[0, t=2]: 1 thread migrations observed between rounds");
    release(&t);
    for (int k = 0; k < 4; k++)
        ompb__record_free(&rec[k]);
    unlink(temp_path());
    ompb__context_free(child);
    ompb__context_free(parent);
}

/* Writes text to the temporary path and reads it as process 1 of 2 of a
 * 4-repetition run; returns the error text. */
static const char *read_text(const char *text, int want)
{
    static ompb_error err;
    ompb__instance inst[2];
    make_instances(inst);
    FILE *f = fopen(temp_path(), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    taken t = {0};
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(ompb__dump_read(temp_path(), 1, 2, 4, inst, 2, NULL, take, &t, &err), want);
    release(&t);
    unlink(temp_path());
    return err.text;
}

/* A valid dump's text with one substitution applied (from -> to). */
static char *edited(const char *from, const char *to)
{
    ompb__instance inst[2];
    ompb__record rec[4];
    make_instances(inst);
    write_dump(inst, rec, NULL);
    for (int k = 0; k < 4; k++)
        ompb__record_free(&rec[k]);
    FILE *f = fopen(temp_path(), "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char text[32768], out[32768];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *at = strstr(text, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static void test_reader_checks(void)
{
    static const struct { const char *from, *to, *want; } cases[] = {
        {"\"process\":1", "\"process\":0", "not the records of process 1"},
        {"\"ompbench_dump\":3", "\"ompbench_dump\":2", "not the records of process 1"},
        {"\"repetition\":1", "\"repetition\":2", "holds a repetition this process was not given"},
        {"\"repetitions\":4", "\"repetitions\":5", "holds a repetition this process was not"},
        {"\"repetition\":1", "\"repetition\":7", "\"sampling\" holds an impossible value"},
        {"\"instance\":0", "\"instance\":2", "names no instance of this run"},
        {"\"name\":\"triad[0, t=2]\"", "\"name\":\"other\"", "names another instance"},
        {"\"threads\":2,\"caller_team\"", "\"threads\":0,\"caller_team\"", "\"threads\" is out of range"},
        {"\"end_ns\":[", "\"end_ns\":[1,", "\"end_ns\" is not an array of 3"},
        {"\"busy_ns\":[", "\"busy_ns\":[-1,", "\"busy_ns\" is not an array of 6"},
        {"\"os_tid\":[4000,", "\"os_tid\":[", "\"os_tid\" is not an array of 2 integers"},
        {"\"cpu_ns\":6000000", "\"cpu_ns\":-1", "\"cpu_ns\" is missing or not a non-negative"},
        {"\"failed\":false", "\"failed\":0", "\"failed\" or \"error\" is missing"},
        {"\"end_ns\":[1000001000001", "\"end_ns\":[1", "a round ends before it starts"},
        {"\"caller_team\":false", "\"caller_team\":0", "\"caller_team\" is missing or not"},
        {"\"involuntary_switches\":[", "\"involuntary_switches\":[1,",
         "\"involuntary_switches\" is not an array of 2"},
        {"\"counters\":{\"events\":[", "\"counters\":{\"events\":[],\"x\":[",
         "\"counters\" is not an object with 1 to 8 events"},
        {"\"unit\":1", "\"unit\":7", "\"counters.events\" holds an impossible event"},
        {"\"name\":\"task-clock\"", "\"name\":\"\"", "holds an impossible event"},
        {"\"values\":[100,", "\"values\":[", "\"values\" is not an array of 12"},
        {"\"time_enabled_ns\":[", "\"time_enabled_ns\":[-1,", "\"time_enabled_ns\" is not an"},
        {"\"time_running_ns\":[5000", "\"time_running_ns\":[9999",
         "a counter ran longer than it was enabled"},
        {"\"steps\":[[10,", "\"steps\":[[-10,", "holds a step that is not two non-negative"},
        {"\"steps\":[[10,40001]", "\"steps\":[[10]", "holds a step that is not two"},
        {"\"barrier_cost_ns\":312.75", "\"barrier_cost_ns\":-1.5",
         "\"calibration\" is not an object with at most 24 steps, a barrier cost >= 0"},
        {"\"disturbed\":false", "\"disturbed\":0", "\"calibration\" is not an object"},
        {"\"short_reason\":\"budget", "\"short_reason\":7,\"x\":\"budget",
         "\"calibration\" is not an object"},
        {"\"calibration\":{", "\"calibration\":7,\"y\":{", "\"calibration\" is not an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *text = read_text(edited(cases[i].from, cases[i].to), OMPB_EINVAL);
        if (!strstr(text, cases[i].want))
            fprintf(stderr, "\ncase %zu: '%s' lacks '%s'\n", i, text, cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, cases[i].want));
        CU_ASSERT_EQUAL(strncmp(text, temp_path(), strlen(temp_path())), 0);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(read_text("{\"ompbench_dump\": ", OMPB_EINVAL),
                                  "not valid JSON"));
    ompb__instance inst[2];
    make_instances(inst);
    ompb_error err = {0};
    taken t = {0};
    CU_ASSERT_EQUAL(ompb__dump_read("/nonexistent/x.json", 1, 2, 4, inst, 2, NULL, take, &t,
                                    &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "/nonexistent/x.json: cannot open"));
}

/* A record of `rounds` rounds of one thread, large enough that its dump
 * cannot fit in a pipe's buffer. */
static void make_long_record(ompb__record *rec, const ompb__instance *inst, size_t rounds)
{
    memset(rec, 0, sizeof *rec);
    CU_ASSERT_EQUAL_FATAL(ompb__record_alloc(rec, rounds, 1), 0);
    rec->inst = inst;
    rec->rounds = rounds;
    rec->sampling = (ompb__sampling){.mode = OMPB__SAMPLING_MEASURE, .threads = 1,
                                     .rounds = rounds, .sample_size = 10, .repetition = 1,
                                     .repetitions = 4};
    rec->sample_size = 10;
    for (size_t r = 0; r < rounds; r++) {
        rec->start_ns[r] = rec->thread_start_ns[r] = 1000000000000ull + r * 2000;
        rec->end_ns[r] = rec->start_ns[r] + 1000;
        rec->busy_ns[r] = 1000;
        rec->thread_iters[r] = 10;
    }
}

/* The child's side: writes the dump into the FIFO at path, then exits 0
 * (or 3 when the write failed), unless a signal ended it. */
static _Noreturn void write_to_fifo(const char *path, const ompb__instance *inst)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &dfl, NULL);
    ompb__record rec;
    make_long_record(&rec, &inst[0], 20000);
    const ompb__record *recs[] = {&rec};
    ompb__dump_out d = {.process = 1, .sel = inst, .records = recs, .n = 1};
    ompb_error err = {0};
    _exit(ompb__dump_write(path, &d, &err) == 0 ? 0 : 3);
}

/* Up to cap bytes from the FIFO (non-blocking) once some are there; 0 at
 * its end, -1 when nothing came within the bound (a writer that hung or
 * never started). */
static ssize_t read_within(int fd, char *buf, size_t cap)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ms = 30000 * ompb_test_timeout_multiplier();
    for (;;) {
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t n = read(fd, buf, cap);
        if (n >= 0 || (errno != EINTR && errno != EAGAIN))
            return n;
    }
}

/* Everything the FIFO gives until its writer closes it, appended to out. */
static size_t drain(int fd, FILE *out)
{
    char buf[65536];
    size_t total = 0;
    ssize_t n;
    while ((n = read_within(fd, buf, sizeof buf)) > 0)
        total += fwrite(buf, 1, (size_t)n, out);
    CU_ASSERT_EQUAL(n, 0);
    return total;
}

/* Issue 19: a SIGTERM that reaches a --processes child while it writes
 * its dump. The writer (a forked process) is stopped in the middle: it
 * has written the first bytes and cannot go on until this side reads. The
 * dump must come out whole, and the child die of the signal after it. */
static void test_signal_while_writing(void)
{
    ompb__instance inst[2];
    make_instances(inst);
    char dir[] = "/tmp/ompb-dump-fifo.XXXXXX", fifo[64], copy[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/dump", dir);
    snprintf(copy, sizeof copy, "%s/copy.json", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0)
        write_to_fifo(fifo, inst);
    /* Non-blocking: a writer that never comes fails the test, not hangs it. */
    int fd = open(fifo, O_RDONLY | O_NONBLOCK);
    CU_ASSERT_FATAL(fd >= 0);
    char first[16];
    ssize_t got = read_within(fd, first, sizeof first);
    if (got != (ssize_t)sizeof first)
        kill(pid, SIGKILL);
    CU_ASSERT_EQUAL_FATAL(got, (ssize_t)sizeof first);
    kill(pid, SIGTERM);
    FILE *out = fopen(copy, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    fwrite(first, 1, sizeof first, out);
    size_t more = drain(fd, out);
    fclose(out);
    close(fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    CU_ASSERT_TRUE(more > 65536);
    /* Read back as the parent reads a dump. */
    taken t = {0};
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__dump_read(copy, 1, 2, 4, inst, 2, NULL, take, &t, &err), 0);
    CU_ASSERT_EQUAL(t.n, 1);
    if (t.n == 1)
        CU_ASSERT_EQUAL(t.rec[0].rounds, 20000);
    release(&t);
    unlink(fifo);
    unlink(copy);
    rmdir(dir);
}

static const ompb_test_case cases[] = {
    {"round_trip", test_round_trip},
    {"signal_while_writing", test_signal_while_writing},
    {"reader_checks", test_reader_checks},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_dump = {"dump", NULL, NULL, cases};
