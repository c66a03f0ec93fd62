/* SPDX-License-Identifier: MIT */
/*
 * Children (--processes): what the parent makes of a child that exits 0,
 * that a signal ends after it handed over its completed repetitions, that
 * hands over nothing, and that hangs until the parent's own signal is
 * passed on to it. No child process is started: test doubles of the spawn,
 * wait and signal operations (ompb__children_ops) play the child, writing
 * its dump with lib/run/dump.c as a real child does and returning the wait
 * status it would have ended with.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "run/children.h"
#include "config/cli.h"
#include "core/signals.h"
#include "context/context.h"
#include "run/dump.h"
#include "fixtures.h"
#include "model/record.h"
#include "suite.h"

#define PROCESSES 2
#define INSTANCES 2
#define SEED 77u
#define FAKE_PID 4000
/* Waits a hanging child is given before the double stops pretending. */
#define MAX_WAITS 4

/* What a child does: its dump (none, or the first `hands` instances of its
 * repetition) and how it ends. */
typedef enum { ENDS_EXIT, ENDS_SIGNAL, HANGS } ending;

typedef struct child_script {
    int hands;       /* records it writes (-1: no file at all) */
    ending ends;
    int code;        /* exit status, or the signal it dies of */
} child_script;

typedef struct fake {
    child_script child[PROCESSES];
    const ompb__instance *inst;
    ompb__context *ctx;
    int spawned, waits;
    char path[PROCESSES][4300]; /* where child k's dump goes */
    char seed[PROCESSES][32];   /* the seed child k was given */
    pid_t signalled_pid;        /* the last signal passed on: to whom, which */
    int signalled;
    int dying;                  /* the signal a hanging child got */
} fake;

static fake fk;

static void body(ompb_state *s) { (void)s; }

static const ompb_benchmark benches[INSTANCES] = {
    {.name = "alpha", .fn = body}, {.name = "beta", .fn = body}};

/* One round of one thread, as the engine records repetition rep. */
static void make_record(ompb__record *rec, const ompb__instance *inst, uint32_t rep)
{
    memset(rec, 0, sizeof *rec);
    CU_ASSERT_EQUAL_FATAL(ompb__record_alloc(rec, 1, 1), 0);
    rec->inst = inst;
    rec->rounds = 1;
    rec->sampling = (ompb__sampling){.mode = OMPB__SAMPLING_MEASURE, .threads = 1, .rounds = 1,
                                     .sample_size = 10, .repetition = rep,
                                     .repetitions = PROCESSES};
    rec->sample_size = 10;
    rec->start_ns[0] = rec->thread_start_ns[0] = 1000;
    rec->end_ns[0] = 2000;
    rec->busy_ns[0] = 1000;
    rec->thread_iters[0] = 10;
}

/* Child k's dump: its repetition (k) of the first `hands` instances. */
static void write_dump(uint32_t k, int hands)
{
    ompb__record rec[INSTANCES];
    const ompb__record *recs[INSTANCES];
    for (int i = 0; i < hands; i++) {
        make_record(&rec[i], &fk.inst[i], k);
        recs[i] = &rec[i];
    }
    ompb__dump_out d = {.process = k, .sel = fk.inst, .records = recs, .n = (size_t)hands};
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__dump_write(fk.path[k], &d, &err), 0);
    for (int i = 0; i < hands; i++)
        ompb__record_free(&rec[i]);
}

static int fake_spawn(void *ctx, char *const argv[], pid_t *pid)
{
    (void)ctx;
    const char *opt = NULL;
    for (int i = 0; argv[i]; i++)
        if (strncmp(argv[i], OMPB__CHILD_OPTION "=", strlen(OMPB__CHILD_OPTION) + 1) == 0)
            opt = argv[i] + strlen(OMPB__CHILD_OPTION) + 1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(opt);
    unsigned k = 0;
    int used = 0;
    char seed[32] = "";
    CU_ASSERT_FATAL(sscanf(opt, "%u,%31[0-9],%n", &k, seed, &used) == 2 && used > 0);
    CU_ASSERT_FATAL(k == (unsigned)fk.spawned && k < PROCESSES);
    snprintf(fk.seed[k], sizeof fk.seed[k], "%s", seed);
    snprintf(fk.path[k], sizeof fk.path[k], "%s", opt + used);
    fk.spawned++;
    if (fk.child[k].ends != HANGS && fk.child[k].hands >= 0)
        write_dump(k, fk.child[k].hands);
    *pid = FAKE_PID + (pid_t)k;
    return 0;
}

/* The user's signal reaches the parent while a child hangs: the parent's
 * handler passes it on (fake_signal), then its waitpid fails with EINTR. */
static pid_t fake_wait(void *ctx, pid_t pid, int *status)
{
    (void)ctx;
    const child_script *c = &fk.child[pid - FAKE_PID];
    if (++fk.waits > MAX_WAITS)
        CU_FAIL_FATAL("the parent waits on: the signal never reached the child");
    if (c->ends == HANGS && !fk.dying) {
        raise(SIGTERM);
        errno = EINTR;
        return -1;
    }
    if (c->ends == HANGS)
        *status = fk.dying; /* killed by it */
    else
        *status = c->ends == ENDS_SIGNAL ? c->code : c->code << 8;
    return pid;
}

/* A hanging child that gets a signal hands over what it completed, then
 * dies of it (as lib/guard.c makes it do). */
static int fake_signal(void *ctx, pid_t pid, int sig)
{
    (void)ctx;
    fk.signalled_pid = pid;
    fk.signalled = sig;
    uint32_t k = (uint32_t)(pid - FAKE_PID);
    if (k < PROCESSES && fk.child[k].ends == HANGS && !fk.dying) {
        fk.dying = sig;
        write_dump(k, fk.child[k].hands);
    }
    return 0;
}

static const ompb__children_ops fake_ops = {fake_spawn, fake_wait, fake_signal, NULL};

typedef struct taken {
    int n;
    int per_instance[INSTANCES];
} taken;

static int take(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    (void)err;
    taken *t = arg;
    t->n++;
    t->per_instance[instance]++;
    ompb__record_free(rec);
    return 0;
}

typedef struct outcome {
    taken t;
    char why[PROCESSES][OMPB__CHILDREN_WHY_MAX];
    bool partial[PROCESSES];
    int interrupted;
} outcome;

/* Runs two children that do what a and b say. */
static void run_children(child_script a, child_script b, outcome *out)
{
    static ompb__instance inst[INSTANCES];
    for (int i = 0; i < INSTANCES; i++)
        inst[i] = ompb_test_instance(&benches[i], 1);
    memset(&fk, 0, sizeof fk);
    memset(out, 0, sizeof *out);
    fk.child[0] = a;
    fk.child[1] = b;
    fk.inst = inst;
    char *argv[] = {"bench", "--processes", "2", NULL};
    ompb__context *ctx = ompb__context_new_in(&(ompb__context_env){.quiet = true}, NULL, 1,
                                              "bench");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ompb__children sp = {
        .argc = 3, .argv = argv, .processes = PROCESSES, .repetitions = PROCESSES, .seed = SEED,
        .sel = inst, .n_sel = INSTANCES, .ctx = ctx, .take = take, .arg = &out->t,
        .why = out->why, .partial = out->partial, .ops = &fake_ops,
    };
    /* The test's own SIGTERM action is the default (the parent registers
     * its handler only over a signal not ignored), and comes back: the
     * default itself, or the signal owner's dispatcher over it when the
     * output module's clean-up was registered meanwhile (at the first
     * temporary file of the process, lib/core/outfile.c). */
    struct sigaction dfl, before, after;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &dfl, &before);
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__children_run(&sp, &err), 0);
    sigaction(SIGTERM, &before, &after);
    CU_ASSERT_TRUE(after.sa_handler == SIG_DFL ||
                   ((after.sa_flags & SA_SIGINFO) &&
                    ompb__signal_app_action(SIGTERM) == OMPB__SIGNAL_APP_DEFAULT));
    out->interrupted = sp.interrupted;
    ompb__context_free(ctx);
    /* Nothing of the children's temporary directory is left. */
    struct stat st;
    for (int k = 0; k < fk.spawned; k++) {
        CU_ASSERT_NOT_EQUAL(stat(fk.path[k], &st), 0);
        char *slash = strrchr(fk.path[k], '/');
        CU_ASSERT_PTR_NOT_NULL_FATAL(slash);
        *slash = '\0';
        CU_ASSERT_NOT_EQUAL(stat(fk.path[k], &st), 0);
    }
}

static void test_exit_0(void)
{
    outcome o;
    run_children((child_script){INSTANCES, ENDS_EXIT, 0}, (child_script){INSTANCES, ENDS_EXIT, 0},
                 &o);
    CU_ASSERT_EQUAL(fk.spawned, 2);
    CU_ASSERT_STRING_EQUAL(fk.seed[0], "77");
    CU_ASSERT_STRING_EQUAL(fk.seed[1], "77");
    CU_ASSERT_EQUAL(o.t.n, 4);
    CU_ASSERT(o.t.per_instance[0] == 2 && o.t.per_instance[1] == 2);
    CU_ASSERT(o.why[0][0] == '\0' && o.why[1][0] == '\0');
    CU_ASSERT(!o.partial[0] && !o.partial[1]);
    CU_ASSERT_EQUAL(o.interrupted, 0);
    CU_ASSERT_EQUAL(fk.signalled, 0);
}

/* A signal that reached child 0 alone, after it handed over one of its
 * two repetitions: that one is kept, the other is said to be lost. */
static void test_signalled_after_dump(void)
{
    outcome o;
    run_children((child_script){1, ENDS_SIGNAL, SIGTERM}, (child_script){INSTANCES, ENDS_EXIT, 0},
                 &o);
    CU_ASSERT_EQUAL(fk.spawned, 2);
    CU_ASSERT_EQUAL(o.t.n, 3);
    CU_ASSERT(o.t.per_instance[0] == 2 && o.t.per_instance[1] == 1);
    CU_ASSERT(o.partial[0] && !o.partial[1]);
    CU_ASSERT_STRING_EQUAL(o.why[0], "was killed by signal 15 (Terminated) before it completed "
                           "this repetition");
    CU_ASSERT_STRING_EQUAL(o.why[1], "");
    CU_ASSERT_EQUAL(o.interrupted, 0);
}

/* No dump: exit 0 without a file is unusable, a signal without one leaves
 * nothing; an exit status other than 0 or 1 is a crash whatever it wrote.
 * The run goes on with the next child each time. */
static void test_hands_nothing(void)
{
    outcome o;
    run_children((child_script){-1, ENDS_EXIT, 0}, (child_script){-1, ENDS_SIGNAL, SIGKILL}, &o);
    CU_ASSERT_EQUAL(fk.spawned, 2);
    CU_ASSERT_EQUAL(o.t.n, 0);
    CU_ASSERT(!o.partial[0] && !o.partial[1]);
    CU_ASSERT_STRING_EQUAL(o.why[1], "killed by signal 9 (Killed) without results");
    CU_ASSERT_PTR_NOT_NULL(strstr(o.why[0], "exited with status 0, but its results are "
                                  "unusable: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.why[0], "cannot open"));
    run_children((child_script){INSTANCES, ENDS_EXIT, 3}, (child_script){INSTANCES, ENDS_EXIT, 1},
                 &o);
    CU_ASSERT_STRING_EQUAL(o.why[0], "exited with status 3 without results");
    /* Exit 1: a benchmark failed, and the records say which. */
    CU_ASSERT_STRING_EQUAL(o.why[1], "");
    CU_ASSERT_EQUAL(o.t.n, 2);
}

/* A child that hangs until the user's SIGTERM reaches the parent: the
 * parent passes it on to that child, takes what it handed over before
 * dying of it, starts no other child and reports the signal. */
static void test_hangs(void)
{
    outcome o;
    run_children((child_script){1, HANGS, 0}, (child_script){INSTANCES, ENDS_EXIT, 0}, &o);
    CU_ASSERT_EQUAL(fk.spawned, 1);
    CU_ASSERT_EQUAL(fk.signalled_pid, FAKE_PID);
    CU_ASSERT_EQUAL(fk.signalled, SIGTERM);
    CU_ASSERT_EQUAL(o.interrupted, SIGTERM);
    CU_ASSERT_EQUAL(o.t.n, 1);
    CU_ASSERT_EQUAL(o.t.per_instance[0], 1);
    CU_ASSERT(!o.partial[0] && !o.partial[1]);
}

static const ompb_test_case cases[] = {
    {"exit_0", test_exit_0},
    {"signalled_after_dump", test_signalled_after_dump},
    {"hands_nothing", test_hands_nothing},
    {"hangs", test_hangs},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_children = {"children", NULL, NULL, cases};
