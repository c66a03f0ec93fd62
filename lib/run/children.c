/* SPDX-License-Identifier: MIT */
/*
 * Re-executing the benchmark binary for process-level repetitions. One
 * child runs at a time (two would compete for the same cores and measure
 * each other). The signal handlers only record the signal and pass it on to
 * the running child: everything else (waiting, cleaning up, dying of the
 * signal) happens in the normal flow after waitpid returns.
 */
#include "run/children.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "core/core.h"
#include "run/journal.h"

#define SELF_EXE "/proc/self/exe"

extern char **environ;

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP};
#define N_FORWARDED (sizeof forwarded / sizeof forwarded[0])

static int system_spawn(void *ctx, char *const argv[], pid_t *pid)
{
    (void)ctx;
    return posix_spawn(pid, SELF_EXE, NULL, NULL, argv, environ);
}

static pid_t system_wait(void *ctx, pid_t pid, int *status)
{
    (void)ctx;
    return waitpid(pid, status, 0);
}

static int system_signal(void *ctx, pid_t pid, int sig)
{
    (void)ctx;
    return kill(pid, sig);
}

static const ompb__children_ops system_ops = {system_spawn, system_wait, system_signal, NULL};

static volatile sig_atomic_t caught;
static volatile pid_t running = -1;
/* The ops of the run in progress, for the handler. */
static const ompb__children_ops *volatile active = &system_ops;

static bool on_signal(int sig, const siginfo_t *info, void *arg)
{
    (void)info;
    (void)arg;
    caught = sig;
    if (running > 0)
        active->signal(active->ctx, running, sig);
    return true;
}

/* Registers the handler for the signals not ignored by whoever started us
 * (nohup's SIGHUP stays ignored); unregistering puts the old actions back. */
static void install(int *ids)
{
    for (size_t i = 0; i < N_FORWARDED; i++)
        ids[i] = ompb__signal_app_action(forwarded[i]) == OMPB__SIGNAL_APP_IGNORED
                     ? -1
                     : ompb__signal_register(forwarded[i], on_signal, NULL, 0);
}

static void restore(const int *ids)
{
    for (size_t i = 0; i < N_FORWARDED; i++)
        ompb__signal_unregister(ids[i]);
}

/* Removes every file in dir (a child's records, or the temporary file of
 * an atomic write it was killed in), then dir itself. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4200];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static int make_dir(char *dir, size_t cap, ompb_error *err)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(dir, cap, "%s/ompbench-processes.XXXXXX", tmp);
    if (mkdtemp(dir))
        return 0;
    return ompb__error_set(err, OMPB_EIO, "--processes: cannot create a temporary directory in "
                           "'%s': %s (set TMPDIR to a writable directory)", tmp, strerror(errno));
}

/* The child's argv: ours, plus --ompb-child=K,SEED,PATH. */
static char **child_argv(const ompb__children *sp, char *opt)
{
    char **argv = calloc((size_t)sp->argc + 2, sizeof *argv);
    if (!argv)
        return NULL;
    for (int i = 0; i < sp->argc; i++)
        argv[i] = sp->argv[i];
    argv[sp->argc] = opt;
    return argv;
}

static void describe_status(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(status));
}

/* Runs child k to its end. Returns its wait status, or -1 (why set) when it
 * could not be started. */
static int run_child(const ompb__children *sp, uint32_t k, const char *path, char *why)
{
    char opt[4300];
    snprintf(opt, sizeof opt, "%s=%" PRIu32 ",%" PRIu64 ",%s", OMPB__CHILD_OPTION, k, sp->seed,
             path);
    char **argv = child_argv(sp, opt);
    if (!argv) {
        snprintf(why, OMPB__CHILDREN_WHY_MAX, "out of memory starting it");
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid;
    int rc = active->spawn(active->ctx, argv, &pid);
    free(argv);
    if (rc != 0) {
        snprintf(why, OMPB__CHILDREN_WHY_MAX, "could not be started: %s", strerror(rc));
        return -1;
    }
    running = pid;
    /* A signal that arrived between the spawn and this line was not passed on. */
    if (caught)
        active->signal(active->ctx, pid, caught);
    int status = 0;
    while (active->wait(active->ctx, pid, &status) < 0 && errno == EINTR)
        ;
    running = -1;
    return status;
}

/* Counts the records read back on their way to the caller's take. */
typedef struct counted {
    const ompb__children *sp;
    size_t n;
} counted;

static int take_counted(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    counted *c = arg;
    c->n++;
    return c->sp->take(c->sp->arg, instance, rec, err);
}

/* The repetitions child k was given: those r with r % processes == k. */
static size_t given(const ompb__children *sp, uint32_t k)
{
    uint32_t reps = k < sp->repetitions ? (sp->repetitions - k - 1) / sp->processes + 1 : 0;
    return sp->n_sel * reps;
}

/* A record of child k's journal: one of its own repetitions, as a dump's. */
typedef struct owned {
    counted c;
    uint32_t process;
} owned;

static int take_owned(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    owned *o = arg;
    const ompb__children *sp = o->c.sp;
    if (rec->sampling.repetitions != sp->repetitions ||
        rec->sampling.repetition % sp->processes != o->process) {
        ompb__record_free(rec);
        return ompb__error_set(err, OMPB_EINVAL, "its journal holds a repetition this process "
                               "was not given");
    }
    return take_counted(&o->c, instance, rec, err);
}

/* A child that died without its dump: what its journal kept (path's
 * journal: every whole record up to a damaged line, which is said), and
 * the repetition it crashed in; false when it kept nothing and names no
 * crash. */
static bool from_journal(ompb__children *sp, uint32_t k, const char *path, const char *how,
                         int sig, char *why)
{
    char jpath[4300];
    ompb__journal_info info;
    ompb_error err = {0};
    snprintf(jpath, sizeof jpath, "%s%s", path, OMPB__JOURNAL_SUFFIX);
    owned o = {{sp, 0}, k};
    if (access(jpath, F_OK) != 0)
        return false;
    int rc = ompb__journal_read(jpath, sp->sel, sp->n_sel, take_owned, &o, &info, &err);
    if (rc == OMPB_ENOMEM || (o.c.n == 0 && (rc != 0 || !info.crash_signal)))
        return false; /* nothing kept, no crash named: said as before */
    if (rc != 0)
        fprintf(stderr, "ompbench: warning: %s\n", err.text);
    sp->partial[k] = true;
    size_t all = given(sp, k);
    bool named = info.crash_signal && info.crash_instance != SIZE_MAX;
    if (named && sp->crashed)
        sp->crashed(sp->arg, info.crash_instance, info.crash_repetition, info.crash_signal);
    if (!info.crash_signal && info.lost_instance != SIZE_MAX) {
        /* No handler saw it (SIGKILL): the repetition it started last. */
        named = true;
        info.crash_instance = info.lost_instance;
        if (sp->crashed)
            sp->crashed(sp->arg, info.lost_instance, info.lost_repetition, sig);
    }
    snprintf(why, OMPB__CHILDREN_WHY_MAX, "was %s before it ran this repetition", how);
    fprintf(stderr, "ompbench: process %" PRIu32 " of %" PRIu32 " was %s%s%s and its journal "
            "kept %zu of its %zu repetitions%s\n", k + 1, sp->processes, how,
            named ? " in " : "", named ? sp->sel[info.crash_instance].name : "", o.c.n, all,
            o.c.n < all ? "; the others count as failed" : "");
    return true;
}

/* Reads child k's records; false (why set) when it handed over nothing
 * usable. A child that a signal ended (sent to it alone, or raised by a
 * body) wrote what it completed before it died of it, as it does when its
 * parent passes a signal on: that file is read like any other, and why
 * then says what became of the rest (partial[k]). */
static bool collect(ompb__children *sp, uint32_t k, const char *path, int status, char *why)
{
    char how[96];
    ompb_error err = {0};
    describe_status(status, how, sizeof how);
    bool signalled = WIFSIGNALED(status);
    if (signalled && access(path, F_OK) != 0 && from_journal(sp, k, path, how, WTERMSIG(status), why))
        return true;
    /* Exit 0, or 1 (a benchmark failed: its records say which), leave records. */
    if ((signalled && access(path, F_OK) != 0) ||
        (!signalled && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1)) {
        snprintf(why, OMPB__CHILDREN_WHY_MAX, "%s without results", how);
        return false;
    }
    counted c = {sp, 0};
    if (ompb__dump_read(path, k, sp->processes, sp->repetitions, sp->sel, sp->n_sel, sp->ctx,
                        take_counted, &c, &err) != 0) {
        snprintf(why, OMPB__CHILDREN_WHY_MAX, "%.60s, but its results are unusable: %.100s", how,
                 err.text);
        return false;
    }
    if (signalled) {
        sp->partial[k] = true;
        snprintf(why, OMPB__CHILDREN_WHY_MAX, "was %s before it completed this repetition", how);
        size_t all = given(sp, k);
        fprintf(stderr, "ompbench: process %" PRIu32 " of %" PRIu32 " was %s and handed over "
                "%zu of its %zu repetitions%s\n", k + 1, sp->processes, how, c.n, all,
                c.n < all ? "; the others count as failed" : "");
    }
    return true;
}

/* The records an interrupted child handed over before it died of the
 * signal passed on (or ended otherwise): whatever it wrote, if anything. */
static void collect_interrupted(const ompb__children *sp, uint32_t k, const char *path)
{
    ompb_error err = {0};
    if (access(path, F_OK) == 0)
        (void)ompb__dump_read(path, k, sp->processes, sp->repetitions, sp->sel, sp->n_sel,
                              sp->ctx, sp->take, sp->arg, &err);
}

int ompb__children_run(ompb__children *sp, ompb_error *err)
{
    char dir[4096], path[4200];
    int rc = make_dir(dir, sizeof dir, err);
    if (rc)
        return rc;
    int ids[N_FORWARDED];
    caught = 0;
    active = sp->ops ? sp->ops : &system_ops;
    install(ids);
    for (uint32_t k = 0; k < sp->processes; k++) {
        char *why = sp->why[k];
        why[0] = '\0';
        snprintf(path, sizeof path, "%s/%" PRIu32 ".json", dir, k);
        int status = caught ? -1 : run_child(sp, k, path, why);
        if (caught) {
            if (status >= 0)
                collect_interrupted(sp, k, path);
            sp->interrupted = caught;
            break;
        }
        if (status >= 0 && !collect(sp, k, path, status, why))
            status = -1;
        if (status < 0)
            fprintf(stderr, "ompbench: process %" PRIu32 " of %" PRIu32 " %s; its repetitions "
                    "count as failed\n", k + 1, sp->processes, why);
        unlink(path);
    }
    remove_dir(dir);
    restore(ids);
    active = &system_ops;
    return 0;
}
