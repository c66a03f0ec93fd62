/* SPDX-License-Identifier: MIT */
/*
 * The runs of `ompbench ab`: each one process (a binary, or /bin/sh running
 * a wrapper command with the arguments appended), started in a process
 * group of its own so that a deadline can stop all of it (mpirun and its
 * ranks too), its output in a log beside its JSON file, stdin from
 * /dev/null. Ctrl-C reaches only ompbench ab (the run is not in the
 * terminal's foreground group); the handler passes the signal on, so the
 * benchmark writes what it completed and ab then writes its partial report.
 * Every way a run can end is classified; none is dropped silently. The
 * ledger (analysis/ab.h) records the runs and pools their files.
 */
#include "ab.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "tools.h"

/* How long a --list may take (a wrapper such as mpirun starts slowly). */
#define LIST_DEADLINE_NS (UINT64_C(120) * 1000000000)
/* After SIGTERM, how long a run gets to write its file before SIGKILL. */
#define KILL_GRACE_NS (UINT64_C(5) * 1000000000)
/* A run's own deadline with --timeout: per selected instance that much
 * plus this slack (start-up, calibration outside the watchdog). */
#define RUN_SLACK_NS (UINT64_C(60) * 1000000000)
#define POLL_NS 20000000L
#define PROGRESS_EVERY_NS (UINT64_C(1) * 1000000000)

static volatile sig_atomic_t stop_signal, run_group;

static bool on_stop(int sig, const siginfo_t *info, void *arg)
{
    (void)info, (void)arg;
    if (!stop_signal)
        stop_signal = sig;
    if (run_group > 0)
        kill(-(pid_t)run_group, sig);
    return true;
}

void ompb__ab_catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        (void)ompb__signal_register(sigs[i], on_stop, NULL, 0); /* lib/core/signals.h */
}

int ompb__ab_stop_signal(void)
{
    return stop_signal;
}

/* ---- argv ---------------------------------------------------------------- */

typedef struct argv_list {
    char **v;
    size_t n, cap;
} argv_list;

static int push(argv_list *a, const char *s)
{
    if (!ompb__grow((void **)&a->v, &a->cap, a->n + 2, sizeof *a->v, 16))
        return OMPB_ENOMEM;
    a->v[a->n++] = (char *)s;
    a->v[a->n] = NULL;
    return 0;
}

/* The side's command: a binary, or /bin/sh -c 'CMD "$@"' sh ARGS..., so
 * that the arguments reach the benchmark however the wrapper is written. */
static int command(const ompb__ab_settings *set, int side, argv_list *a, char **script)
{
    *script = NULL;
    if (!set->shell[side])
        return push(a, set->cmd[side]);
    if (asprintf(script, "%s \"$@\"", set->cmd[side]) < 0) {
        *script = NULL;
        return OMPB_ENOMEM;
    }
    int rc = push(a, "/bin/sh");
    rc = rc ? rc : push(a, "-c");
    rc = rc ? rc : push(a, *script);
    return rc ? rc : push(a, "sh");
}

/* Whether the benchmark option at args[*i] is `name` with its value
 * ("--name VALUE", then *i moves to the value, or "--name=VALUE"). */
static bool is_option(const ompb__ab_exec *x, int *i, const char *name)
{
    return ompb__tool_option_value((int)x->n_bench_args, x->bench_args, i, name) != NULL;
}

/* The benchmark options after `--`. When ab selects the instances itself
 * (by their exact names, which the user's --filter or --exact chose in
 * the first place), the user's selection is left out: the benchmark
 * refuses an option given twice. */
static int bench_args(const ompb__ab_exec *x, argv_list *a, bool selects)
{
    int rc = 0;
    for (int i = 0; i < (int)x->n_bench_args && !rc; i++) {
        if (selects && (is_option(x, &i, "--filter") || is_option(x, &i, "--exact") ||
                        is_option(x, &i, "--exact-file")))
            continue;
        rc = push(a, x->bench_args[i]);
    }
    return rc;
}

/* ---- one process ---------------------------------------------------------- */

/* What the progress line shows while a process runs. */
typedef struct watch {
    const ompb__ab_exec *x;
    const ompb__ab_settings *set;
    const ompb__ab_ledger *l;
    const ompb__ab_rows *rows;
} watch;

typedef struct exec_result {
    int status;                 /* waitpid's */
    bool killed;                /* past its deadline */
    bool interrupted;           /* a stop signal arrived meanwhile */
    bool spawned;
    double seconds;
} exec_result;

static void child(char **argv, const char *out, const char *log)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        ompb__signal_default(sigs[i]);
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = strcmp(out, log) == 0 ? o : open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || o < 0 || e < 0)
        _exit(127);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
}

static void nap(void)
{
    struct timespec ts = {0, POLL_NS};
    nanosleep(&ts, NULL);
}

/* Stops the run's group past its deadline: SIGTERM (it writes what it
 * completed), SIGKILL after the grace. */
static void enforce_deadline(pid_t pid, uint64_t now, uint64_t deadline, uint64_t *kill_at,
                             exec_result *r)
{
    if (deadline && now >= deadline && !r->killed) {
        r->killed = true;
        kill(-pid, SIGTERM);
        *kill_at = now + KILL_GRACE_NS;
    }
    if (*kill_at && now >= *kill_at) {
        kill(-pid, SIGKILL);
        *kill_at = 0;
    }
}

/* Runs argv with stdout to out and stderr to log (the same file when the
 * names are equal), until it ends or deadline_ns (0: none) passes. */
static exec_result run_process(const watch *w, char **argv, const char *out,
                               const char *log, uint64_t deadline_ns)
{
    exec_result r = {0};
    uint64_t t0 = ompb__now_ns(), kill_at = 0, next_progress = t0 + PROGRESS_EVERY_NS;
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, &old);
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        child(argv, out, log);
    }
    if (pid > 0) {
        setpgid(pid, pid);
        run_group = pid;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0)
        return r;
    r.spawned = true;
    /* A signal that came before the group existed is passed on here. */
    if (stop_signal)
        kill(-pid, stop_signal);
    uint64_t stop_deadline = 0;
    for (;;) {
        pid_t done = waitpid(pid, &r.status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR))
            break;
        uint64_t now = ompb__now_ns();
        /* An interrupted run gets the grace to write its file, no more. */
        if (stop_signal && !stop_deadline)
            stop_deadline = now + KILL_GRACE_NS;
        uint64_t due = deadline_ns;
        if (stop_deadline && (!due || stop_deadline < due))
            due = stop_deadline;
        enforce_deadline(pid, now, due, &kill_at, &r);
        if (now >= next_progress) {
            ompb__ab_progress(w->x, w->set, w->l, w->rows, false);
            next_progress = now + PROGRESS_EVERY_NS;
        }
        nap();
    }
    run_group = 0;
    if (r.killed)
        kill(-pid, SIGKILL);    /* whatever of the group is left */
    r.interrupted = stop_signal != 0;
    r.seconds = (double)(ompb__now_ns() - t0) / 1e9;
    return r;
}

/* src into dst[cap], cut to fit (a detail line, not data). */
static void cut_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The last non-empty line of a log (cut to fit), for a fault's detail. */
static void last_line(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0])
            cut_copy(buf, cap, line);
    }
    fclose(f);
}

/* ---- --list -------------------------------------------------------------- */

/* The lines of path, in order, each once (a name index: a list of 40,000
 * names took 13 s with a linear search per line). */
static int read_names(const char *path, char ***names, size_t *n)
{
    FILE *f = fopen(path, "r");
    size_t cap = 0;
    char *line = NULL;
    size_t len = 0;
    ompb__name_index seen = {0};
    *names = NULL;
    *n = 0;
    if (!f)
        return OMPB_EIO;
    int rc = 0;
    while (!rc && getline(&line, &len, f) >= 0) {
        line[strcspn(line, "\r\n")] = '\0';
        size_t at;
        if (!line[0] || ompb__name_index_get(&seen, line, &at))
            continue;
        if (!ompb__grow((void **)names, &cap, *n + 1, sizeof **names, 16) ||
            !((*names)[*n] = strdup(line)))
            rc = OMPB_ENOMEM;
        else if ((rc = ompb__name_index_put(&seen, (*names)[*n], *n)) != 0)
            free((*names)[*n]);
        else
            (*n)++;
    }
    ompb__name_index_free(&seen);
    free(line);
    fclose(f);
    return rc;
}

static const char *side_name(int side)
{
    return side == OMPB__AB_BASE ? "BASE" : "HEAD";
}

static void explain_list_failure(const ompb__ab_settings *set, int side, const exec_result *r,
                                 const char *log)
{
    char tail[200];
    last_line(log, tail, sizeof tail);
    fprintf(stderr, OMPB__AB_TOOL ": %s '%s' cannot run (", side_name(side), set->cmd[side]);
    if (!r->spawned)
        fprintf(stderr, "fork: %s", strerror(errno));
    else if (r->killed)
        fprintf(stderr, "--list took more than %llu s", (unsigned long long)(LIST_DEADLINE_NS / 1000000000));
    else if (WIFSIGNALED(r->status))
        fprintf(stderr, "--list was killed by signal %d", WTERMSIG(r->status));
    else
        fprintf(stderr, "--list ended with exit status %d", WEXITSTATUS(r->status));
    fprintf(stderr, ")%s%s; expected a benchmark binary built with ompbench (or --%s-cmd with "
            "a command that runs one)\n", tail[0] ? ": " : "", tail,
            side == OMPB__AB_BASE ? "base" : "head");
}

int ompb__ab_list(const ompb__ab_exec *x, const ompb__ab_settings *set,
                  const ompb__ab_rows *rows, int side, char ***names, size_t *n)
{
    static const ompb__ab_ledger no_runs;
    const watch w = {x, set, &no_runs, rows};
    char out[4096], log[4096], *script;
    snprintf(out, sizeof out, "%s/%s.list", x->dir, side ? "head" : "base");
    snprintf(log, sizeof log, "%s/%s-list.log", x->dir, side ? "head" : "base");
    argv_list a = {0};
    int rc = command(set, side, &a, &script);
    rc = rc ? rc : bench_args(x, &a, false);
    rc = rc ? rc : push(&a, "--list");
    if (rc) {
        free(a.v);
        free(script);
        fprintf(stderr, OMPB__AB_TOOL ": out of memory\n");
        return 2;
    }
    exec_result r = run_process(&w, a.v, out, log, ompb__now_ns() + LIST_DEADLINE_NS);
    free(a.v);
    free(script);
    if (r.interrupted)
        return 128 + stop_signal;
    if (!r.spawned || r.killed || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
        explain_list_failure(set, side, &r, log);
        return 2;
    }
    if (read_names(out, names, n) || *n == 0) {
        fprintf(stderr, OMPB__AB_TOOL ": %s '%s' lists no benchmark instance with --list "
                "(expected one name per line from a benchmark binary built with ompbench)\n",
                side_name(side), set->cmd[side]);
        return 2;
    }
    return 0;
}

/* ---- one run ------------------------------------------------------------- */

/* An ERE that matches exactly the open rows' names. */
static char *exact_pattern(const ompb__ab_rows *rows)
{
    size_t cap = 16;
    for (size_t i = 0; i < rows->n; i++)
        cap += 2 * strlen(rows->v[i].name) + 1;
    char *re = malloc(cap), *p = re;
    if (!re)
        return NULL;
    p += sprintf(p, "^(");
    bool first = true;
    for (size_t i = 0; i < rows->n; i++) {
        if (!ompb__ab_row_runs_again(&rows->v[i]))
            continue;
        if (!first)
            *p++ = '|';
        first = false;
        for (const char *c = rows->v[i].name; *c; c++) {
            if (strchr(".[]()*+?{}|^$\\", *c))
                *p++ = '\\';
            *p++ = *c;
        }
    }
    strcpy(p, ")$");
    return re;
}

/* The open rows' names, one a line, into run->names (for --exact-file). */
static int write_names(const ompb__ab_rows *rows, const ompb__ab_run *run)
{
    FILE *f = fopen(run->names, "w");
    if (!f)
        return OMPB_EIO;
    for (size_t i = 0; i < rows->n; i++)
        if (ompb__ab_row_runs_again(&rows->v[i]))
            fprintf(f, "%s\n", rows->v[i].name);
    bool bad = ferror(f) != 0;
    return fclose(f) == 0 && !bad ? 0 : OMPB_EIO;
}

static size_t open_common(const ompb__ab_rows *rows, const char **only)
{
    size_t n = 0;
    for (size_t i = 0; i < rows->n; i++)
        if (ompb__ab_row_runs_again(&rows->v[i])) {
            *only = rows->v[i].name;
            n++;
        }
    return n;
}

/* The selection of a run: everything on the first, else the open rows by
 * name (--exact for one, an anchored alternation of escaped names for
 * more, and past OMPB__AB_FILTER_MAX bytes a file of their names given
 * to --exact-file: Linux refuses one argument over 128 KiB), the
 * benchmark's own selection, placed after the user's options. */
static int selection(const ompb__ab_rows *rows, bool all, ompb__ab_run *run, argv_list *a,
                     char **pattern)
{
    const char *only = NULL;
    *pattern = NULL;
    run->instances = open_common(rows, &only);
    if (all) {
        run->instances = 0;
        for (size_t i = 0; i < rows->n; i++)
            run->instances += rows->v[i].listed[0] || rows->v[i].listed[1];
        return 0;
    }
    if (run->instances == 1) {
        int rc = push(a, "--exact");
        return rc ? rc : push(a, only);
    }
    if (!(*pattern = exact_pattern(rows)))
        return OMPB_ENOMEM;
    if (strlen(*pattern) <= OMPB__AB_FILTER_MAX) {
        int rc = push(a, "--filter");
        return rc ? rc : push(a, *pattern);
    }
    int rc = write_names(rows, run);
    rc = rc ? rc : push(a, "--exact-file");
    return rc ? rc : push(a, run->names);
}

/* Whether the benchmark options after `--` give option `name`: the
 * benchmark refuses an option given twice, and the user's value wins over
 * the run's budget. */
static bool given(const ompb__ab_exec *x, const char *name)
{
    for (int i = 0; i < (int)x->n_bench_args; i++)
        if (is_option(x, &i, name))
            return true;
    return false;
}

static int run_argv(const watch *w, bool all, const char *only, ompb__ab_run *run, argv_list *a,
                    char **script, char **pattern)
{
    static const char *const budget[] = {OMPB__AB_RUN_BUDGET};
    int rc = command(w->set, run->side, a, script);
    for (size_t i = 0; i + 1 < sizeof budget / sizeof budget[0] && !rc; i += 2)
        if (!given(w->x, budget[i])) {
            rc = push(a, budget[i]);
            rc = rc ? rc : push(a, budget[i + 1]);
        }
    rc = rc ? rc : bench_args(w->x, a, !all);
    rc = rc ? rc : push(a, "--format");
    rc = rc ? rc : push(a, "json");
    rc = rc ? rc : push(a, "--output");
    rc = rc ? rc : push(a, run->path);
    if (!rc && w->x->timeout) {
        rc = push(a, "--timeout");
        rc = rc ? rc : push(a, w->x->timeout);
    }
    if (!rc && only) {
        /* One instance of a pair by instance (--pair-by instance). */
        run->instances = 1;
        rc = push(a, "--exact");
        return rc ? rc : push(a, only);
    }
    return rc ? rc : selection(w->rows, all, run, a, pattern);
}

static void describe_exit(const ompb__ab_settings *set, ompb__ab_run *run, const exec_result *r)
{
    char tail[140];
    last_line(run->log, tail, sizeof tail);
    int code = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 0;
    /* A shell reports a command killed by signal N as status 128 + N. */
    if (set->shell[run->side] && code > 128 && code < 128 + NSIG) {
        run->outcome = OMPB__AB_RUN_CRASHED;
        snprintf(run->detail, sizeof run->detail, "killed by signal %d (%s; exit status %d "
                 "from the shell)%s%s", code - 128, strsignal(code - 128), code,
                 tail[0] ? ": " : "", tail);
    } else if (WIFSIGNALED(r->status)) {
        run->outcome = OMPB__AB_RUN_CRASHED;
        snprintf(run->detail, sizeof run->detail, "killed by signal %d (%s)%s%s",
                 WTERMSIG(r->status), strsignal(WTERMSIG(r->status)), tail[0] ? ": " : "",
                 tail);
    } else {
        run->outcome = OMPB__AB_RUN_EXIT;
        snprintf(run->detail, sizeof run->detail, "exit status %d%s%s", WEXITSTATUS(r->status),
                 tail[0] ? ": " : "", tail);
    }
}

/* The run's file, through --metric when it is given: pooled, or why not
 * in run->detail (a bad file) or x->metric_error (stops the comparison). */
static int keep_file(ompb__ab_exec *x, const ompb__ab_settings *set, ompb__ab_ledger *l,
                     ompb__ab_run *run)
{
    ompb__resultfile rf;
    ompb_error err = {0};
    if (ompb__resultfile_load(run->path, &rf, &err)) {
        run->outcome = OMPB__AB_RUN_BAD_FILE;
        cut_copy(run->detail, sizeof run->detail, err.text);
        return 0;
    }
    if (set->metric && !ompb__metric_is_time(set->metric)) {
        ompb__metric_unit u;
        const char *side = run->side ? "HEAD" : "BASE";
        if (ompb__metric_apply(run->path, set->metric, &rf, &u, &err))
            snprintf(x->metric_error, sizeof x->metric_error, "--metric %s: %s run %zu: %s",
                     set->metric, side, run->index, err.text);
        else if (l->unit_known && u != l->unit)
            snprintf(x->metric_error, sizeof x->metric_error, "--metric %s: %s run %zu gives "
                     "it in another unit than the runs before", set->metric, side, run->index);
        l->unit = u;
        l->unit_known = true;
        if (x->metric_error[0]) {
            ompb__resultfile_free(&rf);
            return 0;
        }
    }
    return ompb__ab_ledger_pool(l, run, &rf);
}

/* A run that Ctrl-C (or SIGTERM, SIGHUP) reached wrote the instances it
 * completed, marked partial, before it died of the signal (docs/guide.md,
 * "Faults"): those are pooled, as the harness itself keeps them. */
static int keep_interrupted(ompb__ab_exec *x, const ompb__ab_settings *set, ompb__ab_ledger *l,
                            ompb__ab_run *run)
{
    int sig = ompb__ab_stop_signal();
    struct stat st;
    run->outcome = OMPB__AB_RUN_INTERRUPTED;
    if (stat(run->path, &st) != 0 || st.st_size == 0) {
        snprintf(run->detail, sizeof run->detail, "interrupted by signal %d (%s) before it "
                 "completed an instance; nothing to pool", sig, strsignal(sig));
        return 0;
    }
    size_t pooled = l->pooled[run->side];
    int rc = keep_file(x, set, l, run);
    if (l->pooled[run->side] > pooled)
        snprintf(run->detail, sizeof run->detail, "interrupted by signal %d (%s); the instances "
                 "it completed are pooled", sig, strsignal(sig));
    else {
        char why[160];
        cut_copy(why, sizeof why, run->detail);
        snprintf(run->detail, sizeof run->detail, "interrupted by signal %d (%s); its file is "
                 "not usable: %.100s", sig, strsignal(sig), why);
    }
    run->outcome = OMPB__AB_RUN_INTERRUPTED;
    return rc;
}

/* Sorts out how the run ended; a usable file is pooled. */
static int classify(ompb__ab_exec *x, const ompb__ab_settings *set, ompb__ab_ledger *l,
                    ompb__ab_run *run, const exec_result *r)
{
    if (!r->spawned) {
        run->outcome = OMPB__AB_RUN_EXIT;
        snprintf(run->detail, sizeof run->detail, "fork: %s", strerror(errno));
    } else if (r->interrupted) {
        return keep_interrupted(x, set, l, run);
    } else if (r->killed) {
        run->outcome = OMPB__AB_RUN_KILLED;
        snprintf(run->detail, sizeof run->detail, "still running at its deadline (%s%s); stopped",
                 run->cut_by_time ? "the end of " : "",
                 !run->cut_by_time ? "--timeout per selected instance plus 60 s"
                 : set->time_opt   ? set->time_opt
                                   : "--max-time");
    } else if (WIFEXITED(r->status) && WEXITSTATUS(r->status) <= 1) {
        run->outcome = WEXITSTATUS(r->status) ? OMPB__AB_RUN_FAILED : OMPB__AB_RUN_OK;
        if (run->outcome == OMPB__AB_RUN_FAILED)
            snprintf(run->detail, sizeof run->detail, "exit status 1: a benchmark failed or "
                     "outlived --timeout (its file is pooled; see the failed instances)");
        return keep_file(x, set, l, run);
    } else {
        describe_exit(set, run, r);
    }
    return 0;
}

/* The earlier of the run's own deadline (with --timeout) and the end of
 * --time (deadline_ns); which one it is goes into run->cut_by_time. */
static uint64_t run_deadline(const ompb__ab_exec *x, ompb__ab_run *run, uint64_t deadline_ns)
{
    uint64_t own = 0;
    if (x->timeout_ns)
        own = ompb__now_ns() + x->timeout_ns * (run->instances ? run->instances : 1) +
              RUN_SLACK_NS;
    run->cut_by_time = deadline_ns && (!own || deadline_ns < own);
    return run->cut_by_time ? deadline_ns : own;
}

/* A new run of side in the ledger, with its files' names in x->dir. */
static int new_run(const ompb__ab_exec *x, ompb__ab_ledger *l, int side, ompb__ab_run **out)
{
    ompb__ab_run *run = ompb__ab_ledger_add_run(l, side);
    if (!run)
        return OMPB_ENOMEM;
    const char *s = side ? "head" : "base";
    /* asprintf leaves its pointer undefined on failure: the ledger frees
     * these, and the run directory's clean-up unlinks them. */
    if (asprintf(&run->path, "%s/%s-%03zu.json", x->dir, s, run->index) < 0)
        run->path = NULL;
    if (asprintf(&run->log, "%s/%s-%03zu.log", x->dir, s, run->index) < 0)
        run->log = NULL;
    if (asprintf(&run->names, "%s/%s-%03zu.names", x->dir, s, run->index) < 0)
        run->names = NULL;
    if (!run->path || !run->log || !run->names)
        return OMPB_ENOMEM;
    *out = run;
    return 0;
}

int ompb__ab_run_side(ompb__ab_exec *x, const ompb__ab_settings *set, ompb__ab_ledger *l,
                      const ompb__ab_rows *rows, int side, bool all, const char *only,
                      uint64_t deadline_ns)
{
    const watch w = {x, set, l, rows};
    ompb__ab_run *run;
    argv_list a = {0};
    char *script = NULL, *pattern = NULL;
    int rc = new_run(x, l, side, &run);
    rc = rc ? rc : run_argv(&w, all, only, run, &a, &script, &pattern);
    if (!rc) {
        exec_result r = run_process(&w, a.v, run->log, run->log,
                                    run_deadline(x, run, deadline_ns));
        run->seconds = r.seconds;
        rc = classify(x, set, l, run, &r);
        ompb__ab_ledger_end_run(l, run);
    }
    free(a.v);
    free(script);
    free(pattern);
    return rc;
}

/* ---- progress ------------------------------------------------------------ */

void ompb__ab_progress(const ompb__ab_exec *x, const ompb__ab_settings *set,
                       const ompb__ab_ledger *l, const ompb__ab_rows *rows, bool done)
{
    if (!x->progress)
        return;
    if (done) {
        fprintf(stderr, "\r%-79s\r", "");
        return;
    }
    size_t decided = 0, all = 0;
    /* Decided means a verdict: noisy at the end of its looks is not one. */
    for (size_t i = 0; i < rows->n; i++) {
        all++;
        decided += rows->v[i].decided && rows->v[i].verdict != OMPB__VERDICT_NOISY;
    }
    double elapsed = (double)(ompb__now_ns() - x->start_ns) / 1e9;
    char left[48] = "";
    if (set->time_ns) {
        double t = (double)set->time_ns / 1e9 - elapsed;
        snprintf(left, sizeof left, ", %.0f s left", t > 0 ? t : 0.0);
    }
    fprintf(stderr, "\r" OMPB__AB_TOOL ": %zu of %zu instances decided, runs %zu+%zu, %.0f s%s   ",
            decided, all, l->side_runs[0], l->side_runs[1], elapsed, left);
    fflush(stderr);
}
