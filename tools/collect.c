/* SPDX-License-Identifier: MIT */
/*
 * `ompbench collect`: plays the CodSpeed runner for one command. It creates
 * the two pipes and a profile folder in a private temporary directory, runs
 * the command with the runner's environment, answers it through the
 * collector (tools/lib/collector.c, which also does every check), then
 * cross-checks the walltime results file or, in simulation, the callgrind
 * dumps, and prints what the runner would have received.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/core.h"
#include "collector.h"
#include "hooks/hooks.h"
#include "tools.h"

#define EXIT_CHECK 1
#define EXIT_USAGE 2
#define PATH_CAP 4096
#define LINE_CAP 8192

typedef struct collect_opts {
    const char *ctl, *ack, *json;
    bool simulation;
    char **cmd;
} collect_opts;

typedef struct workspace {
    char dir[PATH_CAP / 2];
    char ctl[PATH_CAP], ack[PATH_CAP];
    char profile[PATH_CAP], callgrind[PATH_CAP];
    bool made_ctl, made_ack;
    int ctl_fd, ack_fd;
} workspace;

static int child_pipe[2] = {-1, -1};
/* The running command, for the signal handler; 0 when there is none. */
static volatile sig_atomic_t command_pid;
static volatile sig_atomic_t interrupted;
static int stop_ids[2] = {-1, -1}; /* SIGINT, SIGTERM with the signal owner */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ompbench collect [--ctl PATH] [--ack PATH] [--mode walltime|simulation]\n"
            "                        [--json FILE] -- CMD [ARGS...]\n"
            "Runs CMD as the CodSpeed runner would, answers its hooks, checks the protocol\n"
            "(frames, Start/End alternation, windows, URIs, results file) and prints what the\n"
            "runner received. Exit status: 0 all checks passed, 1 a check failed or CMD\n"
            "failed, 2 bad usage. See docs/protocol.md.\n");
}

/* One line on stderr for bad usage; the exit status 2. */
#define bad_usage(fmt, value) \
    ompb__tool_usage_error("ompbench collect", fmt " (see ompbench collect --help)", value)

static int parse_option(int argc, char **argv, int *i, collect_opts *o)
{
    const char *v;
    if ((v = ompb__tool_option_value(argc, argv, i, "--ctl")))
        o->ctl = v;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--ack")))
        o->ack = v;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--json")))
        o->json = v;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--mode"))) {
        if (strcmp(v, "walltime") != 0 && strcmp(v, "simulation") != 0)
            return bad_usage("--mode: invalid value '%s' (accepted: walltime, simulation)", v);
        o->simulation = strcmp(v, "simulation") == 0;
    } else {
        return bad_usage("unknown option or missing value: '%s'", argv[*i]);
    }
    if (!*v)
        return bad_usage("%san empty value is not accepted", "");
    return 0;
}

/* --json naming a pipe or the program being run would write the report
 * over it (issue 19): refused before anything runs. A command named
 * without a '/' is looked up in PATH by the shell's rules, not here. */
static int check_json(const collect_opts *o)
{
    ompb_error err = {0};
    const ompb__outfile_input inputs[] = {
        {"--ctl", o->ctl}, {"--ack", o->ack},
        {"the command", strchr(o->cmd[0], '/') ? o->cmd[0] : NULL}};
    if (o->json && ompb__outfile_check_inputs("--json", o->json, inputs,
                                              sizeof inputs / sizeof inputs[0], &err))
        return ompb__tool_usage_error("ompbench collect", "%s", err.text);
    return 0;
}

static int parse_args(int argc, char **argv, collect_opts *o)
{
    ompb__tool_seen seen = {0};
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return -1;
        }
        if (strcmp(argv[i], "--") == 0 || argv[i][0] != '-') {
            i += strcmp(argv[i], "--") == 0;
            o->cmd = i < argc ? &argv[i] : NULL;
            break;
        }
        int at = i, rc = parse_option(argc, argv, &i, o);
        if (!rc)
            rc = ompb__tool_check_once("ompbench collect", &seen, argv, at, i, NULL);
        if (rc)
            return rc;
    }
    if (!o->cmd)
        return bad_usage("%sno command given", "");
    return check_json(o);
}

/* ---- workspace ------------------------------------------------------------ */

static int ensure_fifo(const char *path, const char *opt, bool *made)
{
    struct stat st;
    *made = false;
    if (mkfifo(path, 0600) == 0) {
        *made = true;
        return 0;
    }
    if (errno == EEXIST && stat(path, &st) == 0 && S_ISFIFO(st.st_mode))
        return 0;
    ompb__error_print(stderr, "ompbench collect: %s: cannot create a FIFO at '%s': %s "
                      "(accepted: a new path or an existing FIFO)", opt, path, errno == EEXIST ? "exists and is not a "
            "FIFO" : strerror(errno));
    return EXIT_USAGE;
}

static int open_fifo(const char *path, int *fd)
{
    *fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        ompb__error_print(stderr, "ompbench collect: cannot open '%s': %s", path,
                          strerror(errno));
    return *fd < 0 ? EXIT_USAGE : 0;
}

/* Frames left in a reused pipe by an earlier run are not ours to check. */
static void drain_stale(int fd)
{
    char junk[4096];
    while (read(fd, junk, sizeof junk) > 0)
        continue;
}

static int workspace_open(workspace *ws, const collect_opts *o)
{
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    int len = snprintf(ws->dir, sizeof ws->dir, "%s/ompbench-collect.XXXXXX", tmp);
    if (len < 0 || (size_t)len >= sizeof ws->dir || !mkdtemp(ws->dir)) {
        ompb__error_print(stderr, "ompbench collect: cannot create a directory in '%s': %s", tmp,
                len < 0 || (size_t)len >= sizeof ws->dir ? "path too long" : strerror(errno));
        ws->dir[0] = '\0';
        return EXIT_USAGE;
    }
    snprintf(ws->ctl, sizeof ws->ctl, "%s", o->ctl ? o->ctl : "");
    snprintf(ws->ack, sizeof ws->ack, "%s", o->ack ? o->ack : "");
    if (!o->ctl)
        snprintf(ws->ctl, sizeof ws->ctl, "%s/runner.ctl.fifo", ws->dir);
    if (!o->ack)
        snprintf(ws->ack, sizeof ws->ack, "%s/runner.ack.fifo", ws->dir);
    snprintf(ws->profile, sizeof ws->profile, "%s/profile", ws->dir);
    snprintf(ws->callgrind, sizeof ws->callgrind, "%s/callgrind", ws->dir);
    if (mkdir(ws->profile, 0700) != 0 || mkdir(ws->callgrind, 0700) != 0)
        return bad_usage("cannot create the profile folder: %s", strerror(errno));
    int rc = ensure_fifo(ws->ctl, "--ctl", &ws->made_ctl);
    if (rc == 0)
        rc = ensure_fifo(ws->ack, "--ack", &ws->made_ack);
    if (rc == 0)
        rc = open_fifo(ws->ctl, &ws->ctl_fd);
    if (rc == 0)
        rc = open_fifo(ws->ack, &ws->ack_fd);
    if (rc == 0)
        drain_stale(ws->ctl_fd);
    return rc;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static void workspace_close(workspace *ws)
{
    if (ws->ctl_fd >= 0)
        close(ws->ctl_fd);
    if (ws->ack_fd >= 0)
        close(ws->ack_fd);
    if (ws->made_ctl)
        unlink(ws->ctl);
    if (ws->made_ack)
        unlink(ws->ack);
    if (ws->dir[0])
        nftw(ws->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the command ---------------------------------------------------------- */

/* The signal owner (lib/core/signals.h) keeps errno around its handlers. */
static bool on_sigchld(int sig, const siginfo_t *info, void *arg)
{
    (void)sig;
    (void)info;
    (void)arg;
    if (write(child_pipe[1], "x", 1) < 0) {
        /* a full pipe wakes the loop already */
    }
    return true;
}

/* SIGINT/SIGTERM while the command runs: the collector stays, to reap the
 * command, clean its temporary directory up and report. Ctrl-C reaches the
 * command anyway (the terminal signals the whole process group); a SIGTERM
 * may have been sent to the collector alone, so it is passed on (a second
 * one for a command that got it from its group too). */
static bool on_stop_signal(int sig, const siginfo_t *info, void *arg)
{
    (void)info;
    (void)arg;
    interrupted = 1;
    if (sig == SIGTERM && command_pid > 0)
        kill((pid_t)command_pid, SIGTERM);
    return true;
}

static void catch_stop_signals(void)
{
    stop_ids[0] = ompb__signal_register(SIGINT, on_stop_signal, NULL, OMPB__SIGNAL_RESTART);
    stop_ids[1] = ompb__signal_register(SIGTERM, on_stop_signal, NULL, OMPB__SIGNAL_RESTART);
}

static void restore_stop_signals(void)
{
    for (int i = 0; i < 2; i++) {
        ompb__signal_unregister(stop_ids[i]);
        stop_ids[i] = -1;
    }
}

static int watch_children(void)
{
    if (pipe2(child_pipe, O_NONBLOCK | O_CLOEXEC) != 0 ||
        ompb__signal_register(SIGCHLD, on_sigchld, NULL,
                              OMPB__SIGNAL_RESTART | OMPB__SIGNAL_NOCLDSTOP) < 0) {
        fprintf(stderr, "ompbench collect: cannot watch the command: %s\n", strerror(errno));
        return EXIT_USAGE;
    }
    return 0;
}

static void set_child_env(const workspace *ws, const collect_opts *o)
{
    setenv("CODSPEED_ENV", "runner", 1);
    setenv("CODSPEED_RUNNER_MODE", o->simulation ? "instrumentation" : "walltime", 1);
    setenv("CODSPEED_PROFILE_FOLDER", ws->profile, 1);
    setenv(OMPB__CTL_FIFO_ENV, ws->ctl, 1);
    setenv(OMPB__ACK_FIFO_ENV, ws->ack, 1);
}

/* In simulation the command runs under callgrind, as the runner runs it. */
static char **child_argv(const workspace *ws, const collect_opts *o)
{
    static char out_file[PATH_CAP + 64];
    size_t n = 0;
    while (o->cmd[n])
        n++;
    char **argv = calloc(n + 7, sizeof *argv);   /* valgrind + 5 options + CMD + NULL */
    if (!argv || !o->simulation)
        return argv ? memcpy(argv, o->cmd, (n + 1) * sizeof *argv) : NULL;
    snprintf(out_file, sizeof out_file, "--callgrind-out-file=%s/callgrind.%%p.out",
             ws->callgrind);
    char *pre[] = {"valgrind", "--tool=callgrind", "--instr-atstart=no",
                   "--trace-children=yes", "--quiet", out_file};
    memcpy(argv, pre, sizeof pre);
    memcpy(argv + 6, o->cmd, n * sizeof *argv);
    return argv;
}

/* The stop signals are blocked across fork, so that the handler knows the
 * command's pid before it can run, and the command starts with the
 * dispositions the collector was given. */
static pid_t spawn(const workspace *ws, const collect_opts *o)
{
    sigset_t stop, old;
    char **argv = child_argv(ws, o);
    if (!argv)
        return -1;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigprocmask(SIG_BLOCK, &stop, &old);
    catch_stop_signals();
    pid_t pid = fork();
    if (pid == 0) {
        restore_stop_signals();
        sigprocmask(SIG_SETMASK, &old, NULL);
        set_child_env(ws, o);
        execvp(argv[0], argv);
        fprintf(stderr, "ompbench collect: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (pid < 0)
        fprintf(stderr, "ompbench collect: fork: %s\n", strerror(errno));
    command_pid = pid > 0 ? (sig_atomic_t)pid : 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(argv);
    return pid;
}

static bool wait_command(ompb__collector *c, pid_t pid, const char *name, int *exit_code)
{
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    if (WIFEXITED(status)) {
        *exit_code = WEXITSTATUS(status);
        if (*exit_code == 0)
            return true;
        ompb__collector_violation(c, "command '%s' exited with status %d", name, *exit_code);
    } else {
        *exit_code = 128 + WTERMSIG(status);
        ompb__collector_violation(c, "command '%s' was killed by signal %d", name,
                                  WTERMSIG(status));
    }
    return false;
}

/* ---- after the run -------------------------------------------------------- */

static void check_results_dir(ompb__collector *c, const workspace *ws)
{
    char dir[PATH_CAP + 16], path[2 * PATH_CAP];
    size_t n_windows, files = 0, marked = 0;
    const ompb__collector_window *w = ompb__collector_windows(c, &n_windows);
    for (size_t i = 0; i < n_windows; i++)
        marked += w[i].n_bounds > 0;
    snprintf(dir, sizeof dir, "%s/results", ws->profile);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ompb__collector_check_results(c, path);
        files++;
    }
    if (d)
        closedir(d);
    if (files > 0)
        ompb__collector_check_results_coverage(c);
    /* ompbench writes the results file; a hand-written loop using the public
     * hooks may not, and is not held to it. */
    const char *name = ompb__collector_integration(c, NULL);
    if (files == 0 && marked > 0 && name && strcmp(name, "ompbench") == 0)
        ompb__collector_violation(c, "no walltime results file in $CODSPEED_PROFILE_FOLDER/"
                                  "results: the runner would have markers but no statistics");
}

typedef struct dump_entry {
    long pid, part;
    char name[LINE_CAP];
    unsigned long long ir;
} dump_entry;

static void parse_dump_line(const char *line, dump_entry *e, bool *client)
{
    const char *trigger = "desc: Trigger: Client Request: ";
    unsigned long long v;
    if (strncmp(line, trigger, strlen(trigger)) == 0) {
        snprintf(e->name, sizeof e->name, "%s", line + strlen(trigger));
        e->name[strcspn(e->name, "\n")] = '\0';
        *client = true;
    } else if (sscanf(line, "part: %ld", &e->part) == 1) {
        return;
    } else if (sscanf(line, "totals: %llu", &v) == 1 || sscanf(line, "summary: %llu", &v) == 1) {
        e->ir = v > e->ir ? v : e->ir;
    }
}

/* Reads one callgrind output file, named callgrind.<pid>.out[.<part>] by
 * child_argv; returns true for a client-request dump. */
static bool read_dump(const char *dir, const char *file, dump_entry *e)
{
    char line[LINE_CAP], path[2 * PATH_CAP];
    bool client = false;
    memset(e, 0, sizeof *e);
    if (sscanf(file, "callgrind.%ld.out", &e->pid) != 1)
        return false;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        parse_dump_line(line, e, &client);
    if (f)
        fclose(f);
    return client;
}

/* Per process, in dump order. */
static int by_pid_part(const void *a, const void *b)
{
    const dump_entry *x = a, *y = b;
    if (x->pid != y->pid)
        return (x->pid > y->pid) - (x->pid < y->pid);
    return (x->part > y->part) - (x->part < y->part);
}

static void collect_dumps(ompb__collector *c, const workspace *ws)
{
    dump_entry *entries = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir(ws->callgrind);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!ompb__grow((void **)&entries, &cap, n + 1, sizeof *entries, 16))
            break;
        n += read_dump(ws->callgrind, e->d_name, &entries[n]);
    }
    if (d)
        closedir(d);
    if (n)
        qsort(entries, n, sizeof *entries, by_pid_part);
    for (size_t i = 0; i < n; i++)
        ompb__collector_add_dump(c, entries[i].pid, entries[i].name, entries[i].ir);
    free(entries);
    ompb__collector_check_dumps(c);
}

static int write_json(const ompb__collector *c, ompb__outfile *of, const collect_opts *o,
                      int exit_code)
{
    json_t *root = ompb__collector_to_json(c), *cmd = json_array();
    ompb_error err = {0};
    for (char **a = o->cmd; a && *a; a++)
        json_array_append_new(cmd, json_string(*a));
    json_object_set_new(root, "mode", json_string(o->simulation ? "simulation" : "walltime"));
    json_object_set_new(root, "command", cmd);
    json_object_set_new(root, "exit_status", json_integer(exit_code));
    int rc = json_dumpf(root, of->fp, JSON_INDENT(2));
    json_decref(root);
    /* A write error (a full disk, /dev/full) is an output problem, exit 2
     * as for a bad path, not a protocol verdict. */
    if (rc != 0) {
        int e = errno;
        ompb__outfile_abort(of);
        ompb__error_print(stderr, "ompbench collect: cannot write '%s': %s", o->json,
                          strerror(e));
        return EXIT_USAGE;
    }
    if (ompb__outfile_commit(of, &err) != 0) {
        fprintf(stderr, "ompbench collect: %s\n", err.text);
        return EXIT_USAGE;
    }
    return 0;
}

static int run(const collect_opts *o, workspace *ws, ompb__outfile *of)
{
    ompb__collector *c = ompb__collector_new(o->simulation ? OMPB__RUNNER_SIMULATION
                                                           : OMPB__RUNNER_PERF);
    int exit_code = -1, rc = 0;
    pid_t pid = c ? spawn(ws, o) : -1;
    if (pid < 0) {
        ompb__collector_free(c);
        return EXIT_CHECK;
    }
    if ((rc = ompb__collector_serve(c, ws->ctl_fd, ws->ack_fd, child_pipe[0], NULL)) != 0)
        ompb__collector_violation(c, "serving the runner pipes failed: %s", ompb_strerror(rc));
    rc = 0;
    wait_command(c, pid, o->cmd[0], &exit_code);
    command_pid = 0;
    ompb__collector_finish(c, !o->simulation);
    if (o->simulation)
        collect_dumps(c, ws);
    else
        check_results_dir(c, ws);
    ompb__collector_print(c, stdout);
    if (o->json)
        rc = write_json(c, of, o, exit_code);
    if (ompb__collector_violation_count(c) > 0 && rc == 0)
        rc = EXIT_CHECK;
    /* Interrupted: the caller asked to stop, the command's status says how
     * that went (130 for a command ended by SIGINT). */
    if (interrupted)
        rc = exit_code;
    ompb__collector_free(c);
    return rc;
}

int ompb__tool_collect(int argc, char **argv)
{
    collect_opts o;
    workspace ws;
    ompb__outfile of = {0};
    ompb_error err = {0};
    memset(&ws, 0, sizeof ws);
    ws.ctl_fd = ws.ack_fd = -1;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.json && ompb__outfile_open(&of, o.json, &err) != 0) {
        fprintf(stderr, "ompbench collect: --json: %s\n", err.text);
        return EXIT_USAGE;
    }
    rc = watch_children();
    if (rc == 0)
        rc = workspace_open(&ws, &o);
    if (rc == 0) {
        fflush(stdout);
        rc = run(&o, &ws, &of);
    }
    if (of.fp)
        ompb__outfile_abort(&of);
    workspace_close(&ws);
    restore_stop_signals();
    return rc;
}
