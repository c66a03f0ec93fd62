/* SPDX-License-Identifier: MIT */
/*
 * The run's journal (lib/run/run.h, lib/run/journal.h): where it goes, the
 * crash handler that finishes it, and the report made from it. A process
 * that measures journals every repetition it completes. When a body
 * crashes, the handler (lib/core/crash.h) appends the crash line and, in a
 * process that reports (not a child of --processes, whose parent reads the
 * journal), starts the benchmark binary again with the same options and
 * --ompb-journal=PATH, waits for it to write the report of the journal
 * (marked partial, the crashed repetition failed with its signal), and
 * lets the signal end the process. The same binary turns a journal left by
 * a SIGKILL into a report for ompbench convert (--ompb-journal-json).
 */
#include "run/run.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ompbench/run.h>

#include "core/core.h"
#include "report/report.h"

extern char **environ;

/* Where the journal goes: beside the dump of a child, beside --output when
 * it names a regular file (or none yet) whose name leaves room for the
 * suffix, else in $TMPDIR (or /tmp) under a name of its own (returns true
 * then: a process id alone could be one a killed run's journal bears). */
static bool journal_path(const ompb__run *r, char *path, size_t cap)
{
    const char *out = r->cfg.output, *slash = out ? strrchr(out, '/') : NULL;
    size_t name = out ? strlen(slash ? slash + 1 : out) : 0;
    if (r->cfg.child)
        snprintf(path, cap, "%s%s", r->cfg.child_path, OMPB__JOURNAL_SUFFIX);
    else if (out && name + strlen(OMPB__JOURNAL_SUFFIX) <= NAME_MAX &&
             ompb__outfile_is_regular(out))
        snprintf(path, cap, "%s%s", out, OMPB__JOURNAL_SUFFIX);
    else {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, cap, "%s/ompbench.%ld.XXXXXX%s", tmp && *tmp ? tmp : "/tmp",
                 (long)getpid(), OMPB__JOURNAL_SUFFIX);
        return true;
    }
    return false;
}

/* On the crashing thread: async-signal-safe calls only. */
static void on_crash(int sig, void *arg)
{
    ompb__run *r = arg;
    ompb__journal_crash(&r->journal, sig);
    if (!r->crash_argv)
        return;
    pid_t pid = vfork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL); /* the handler's mask would be inherited */
        /* and the crashing thread's PU: the report's context is the run's */
        sched_setaffinity(0, sizeof r->cpus, &r->cpus);
        execve("/proc/self/exe", r->crash_argv, environ);
        _exit(127);
    }
    int status;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
}

/* The argv of the process a crash starts: ours plus --ompb-journal=PATH. */
static char **crash_argv(const ompb__run *r, char **opt)
{
    size_t n = (size_t)r->argc;
    char **argv = calloc(n + 2, sizeof *argv);
    size_t len = strlen(OMPB__JOURNAL_OPTION) + strlen(r->journal.path) + 2;
    *opt = malloc(len);
    if (!argv || !*opt) {
        free(argv);
        free(*opt);
        *opt = NULL;
        return NULL;
    }
    snprintf(*opt, len, "%s=%s", OMPB__JOURNAL_OPTION, r->journal.path);
    for (size_t i = 0; i < n; i++)
        argv[i] = r->argv[i];
    argv[n] = *opt;
    return argv;
}

int ompb__run_journal_begin(ompb__run *r, ompb_error *err)
{
    char path[OMPB__JOURNAL_PATH_MAX];
    bool unique = journal_path(r, path, sizeof path);
    if (sched_getaffinity(0, sizeof r->cpus, &r->cpus) != 0)
        CPU_ZERO(&r->cpus);
    if (ompb__journal_open(&r->journal, path, unique, r->seed, r->argc, r->argv, err) != 0)
        return OMPB_EIO;
    if (!r->cfg.child)
        r->crash_argv = crash_argv(r, &r->crash_opt);
    if (r->crash_handler)
        ompb__crash_install(on_crash, r);
    return 0;
}

/* A record of the journal into its result. */
static int take(void *arg, size_t instance, ompb__record *rec, ompb_error *err)
{
    ompb__run *r = arg;
    if (rec->sampling.repetition >= r->reps) {
        ompb__record_free(rec);
        return ompb__error_set(err, OMPB_EINVAL, "%s: %s: repetition %u of a run of %u",
                               r->cfg.journal_in, r->sel[instance].name,
                               rec->sampling.repetition + 1, r->reps);
    }
    ompb__result *res = ompb__run_result(r, instance, rec->sampling.repetition);
    if (res->rec.inst) {
        ompb__record_free(rec);
        return ompb__error_set(err, OMPB_EINVAL, "%s: %s: repetition %u appears twice",
                               r->cfg.journal_in, r->sel[instance].name,
                               rec->sampling.repetition + 1);
    }
    res->rec = *rec;
    ompb__run_analyze(r, res);
    return 0;
}

int ompb__run_from_journal(ompb__run *r, ompb_error *err)
{
    ompb__journal_info info;
    const char *path = r->cfg.journal_in;
    if (r->cfg.journal_json) {
        r->cfg.output = NULL;
        r->cfg.output_reporter = NULL;
        r->cfg.reporter = ompb__reporter_find("json");
    }
    if (ompb__journal_read(path, r->sel, r->n_sel, take, r, &info, err) != 0) {
        fprintf(stderr, "%s: %s\n", r->argv0, err->text);
        return OMPB_EXIT_USAGE;
    }
    if (info.crash_signal && info.crash_instance != SIZE_MAX && info.crash_repetition >= r->reps) {
        fprintf(stderr, "%s: %s: the crash line names repetition %u of a run of %u\n",
                r->argv0, path, info.crash_repetition + 1, r->reps);
        return OMPB_EXIT_USAGE;
    }
    if (info.truncated)
        fprintf(stderr, "%s: warning: %s: its last line was cut mid-write; the %zu whole "
                "records before it are read\n", r->argv0, path, info.records);
    r->seed = info.seed;
    ompb__context_set_repetitions(r->ctx, r->reps, r->processes, r->interleave && r->reps > 1,
                                  r->seed);
    ompb__outfile_c_locale();
    char why[160], said[OMPB__JOURNAL_PATH_MAX + 512];
    int sig = info.crash_signal;
    if (sig && info.crash_instance == SIZE_MAX) {
        snprintf(said, sizeof said, "%s: crashed with %s (%s) between instances; the completed "
                 "instances are written, marked partial", r->argv0, ompb__signal_name(sig),
                 strsignal(sig));
        return ompb__run_report_journal(r, ompb__signal_name(sig), SIZE_MAX, NULL, said, err);
    }
    if (sig) {
        snprintf(why, sizeof why, "crashed with %s (%s) while it was being measured",
                 ompb__signal_name(sig), strsignal(sig));
        snprintf(said, sizeof said, "%s: %s: %s; the completed instances are written, marked "
                 "partial", r->argv0, r->sel[info.crash_instance].name, why);
        return ompb__run_report_journal(r, ompb__signal_name(sig),
                                        info.crash_instance * r->reps + info.crash_repetition,
                                        why, said, err);
    }
    if (info.lost_instance != SIZE_MAX && info.lost_repetition < r->reps) {
        snprintf(why, sizeof why, "killed or lost while running (SIGKILL, the OOM killer?): "
                 "its journal holds its start and no end");
        snprintf(said, sizeof said, "%s: %s: %s: %s; the %zu completed repetitions in its "
                 "journal are written, marked partial", r->argv0, path,
                 r->sel[info.lost_instance].name, why, info.records);
        return ompb__run_report_journal(r, "killed",
                                        info.lost_instance * r->reps + info.lost_repetition,
                                        why, said, err);
    }
    snprintf(said, sizeof said, "%s: %s: the run ended without a word (SIGKILL, the OOM "
             "killer?); the %zu completed repetitions in its journal are written, marked "
             "partial", r->argv0, path, info.records);
    return ompb__run_report_journal(r, "killed", SIZE_MAX, NULL, said, err);
}
