/* SPDX-License-Identifier: MIT */
/*
 * ompbench trace [options] -- PROGRAM ARGS...: runs an unmodified,
 * dynamically linked OpenMP program (libgomp or libomp) with libompbench_trace.so
 * preloaded (lib/trace/), which makes each top-level parallel-region
 * instance an instance of a region named by the construct's source
 * location; then renders the program's region report (JSON, written by the
 * library into a private directory) as --format says, to --output
 * (atomically) or standard output. docs/trace.md says what is measured and
 * what happens to forks, execs, signals and _exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "config/config.h"
#include "core/core.h"
#include "trace.h"
#include "tools.h"

#define bad(...) ompb__tool_usage_error(OMPB__TRACE_TOOL, __VA_ARGS__)

typedef struct trace_args {
    const char *format, *output, *filter;
    uint64_t min_ns;
    uint64_t kill_after_ns;     /* --kill-after: SIGKILL this long after a forwarded signal */
    char **program;             /* PROGRAM ARGS..., NULL-terminated */
    bool help;
} trace_args;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ompbench trace [options] -- PROGRAM ARGS...\n"
            "Runs PROGRAM (dynamically linked; libgomp, or libomp through OMPT) with a\n"
            "preloaded library that times every thread of every top-level parallel\n"
            "region: each region (named by its construct's FILE:LINE, else its outlined\n"
            "function's symbol (libgomp) or its call site (libomp), else\n"
            "address@build-id) is reported as region markers are (docs/trace.md).\n"
            "  --format FMT         %s (default: from --output's extension, else console)\n"
            "  --output FILE        write the report to FILE (atomically) instead of\n"
            "                       standard output\n"
            "  --filter ERE         trace only the regions whose name matches ERE\n"
            "  --min-duration D     an instance is traced when the previous one of its\n"
            "                       region took at least D (500us, 2ms); the others are\n"
            "                       only counted (listed on standard error)\n"
            "  --kill-after D       when PROGRAM has not ended D (default 10s) after an\n"
            "                       INT, TERM or HUP passed on to it, kill it (SIGKILL);\n"
            "                       a second such signal kills it at once\n"
            "  -h, --help           this text\n"
            "Exit status: PROGRAM's (128+N when signal N ended it), 2 for bad input.\n",
            OMPB__CONVERT_FORMATS);
}

static int parse_option(int argc, char **argv, int *i, trace_args *a)
{
    const char *arg = argv[*i], *v;
    ompb_error err = {0};
    int rc;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
        a->help = true;
    else if ((rc = ompb__tool_convert_option(OMPB__TRACE_TOOL, argc, argv, i, &a->format,
                                             &a->output)) != 0)
        return rc == 1 ? 0 : rc;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--filter"))) {
        regex_t re;
        if (ompb__filter_compile(&re, v, "--filter", &err) != 0)
            return bad("%s", err.text);
        regfree(&re);
        a->filter = v;
    } else if ((v = ompb__tool_option_value(argc, argv, i, "--min-duration"))) {
        if (ompb__parse_duration(v, &a->min_ns) != 0)
            return bad("--min-duration: invalid value '%s' (accepted: a duration such as "
                       "500us, 2ms, 0)", v);
    } else if ((v = ompb__tool_option_value(argc, argv, i, "--kill-after"))) {
        if (ompb__parse_duration(v, &a->kill_after_ns) != 0)
            return bad("--kill-after: invalid value '%s' (accepted: a duration such as 10s, "
                       "500ms, 0)", v);
    } else
        return bad("unknown option or missing value: '%s' (accepted: --format FMT, --output "
                   "FILE, --filter ERE, --min-duration D, --kill-after D, --help, then -- "
                   "PROGRAM ARGS...)", arg);
    return 0;
}

static int parse_args(int argc, char **argv, trace_args *a)
{
    ompb__tool_seen seen = {0};
    static const char *const none[] = {NULL};
    *a = (trace_args){.kill_after_ns = 10000000000ULL};
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (argv[i][0] != '-')
            break;
        int at = i, rc = parse_option(argc, argv, &i, a);
        if (!rc)
            rc = ompb__tool_check_once(OMPB__TRACE_TOOL, &seen, argv, at, i, none);
        if (rc)
            return rc;
    }
    if (a->help)
        return 0;
    if (i >= argc || !argv[i][0])
        return bad("expected a program to run (accepted: ompbench trace [options] -- PROGRAM "
                   "ARGS...; see --help)");
    a->program = argv + i;
    if (!a->format && a->output) {
        const char *dot = strrchr(a->output, '.');
        a->format = dot && (strcmp(dot, ".json") == 0 || strcmp(dot, ".csv") == 0) ? dot + 1
                                                                                 : "console";
    }
    if (!a->format)
        a->format = "console";
    ompb_error err = {0};
    ompb__outfile_input input = {"the program", a->program[0]};
    if (a->output && ompb__outfile_probe(a->output, &err) != 0)
        return bad("--output: %s (accepted: a writable file path)", err.text);
    if (a->output && strchr(a->program[0], '/')
        && ompb__outfile_check_inputs("--output", a->output, &input, 1, &err))
        return bad("%s", err.text);
    return 0;
}

/* The preloaded library: OMPB_TRACE_LIBRARY, else the installed tool's
 * (../LIBDIR/ompbench/), else the build tree's. */
static const char *trace_library(char *buf, size_t size)
{
    const char *env = getenv("OMPB_TRACE_LIBRARY");
    if (env && *env)
        return env;
    char self[2048];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            int w = snprintf(buf, size, "%s/../%s", self, OMPB_TRACE_LIBRARY_INSTALLED);
            if (w > 0 && (size_t)w < size && access(buf, R_OK) == 0)
                return buf;
        }
    }
    return OMPB_TRACE_LIBRARY_BUILD;
}

typedef struct trace_files {
    char dir[4096], report[4200], counted[4200];
} trace_files;

/* The child's side: the environment, then exec. An exec failure's errno
 * goes through the close-on-exec pipe. */
static void run_child(const trace_args *a, const char *path, const trace_files *f, int err_fd,
                      const sigset_t *old)
{
    char buf[4096], pid[32], min[32];
    const char *lib = trace_library(buf, sizeof buf), *pre = getenv("LD_PRELOAD");
    const char *out = getenv("OMPB_REGIONS_OUTPUT"), *fmt = getenv("OMPB_REGIONS_FORMAT");
    char *preload = malloc(strlen(lib) + (pre ? strlen(pre) : 0) + 2);
    if (preload) {
        /* Ours first, then the user's: our entry points forward to theirs. */
        sprintf(preload, "%s%s%s", lib, pre && *pre ? ":" : "", pre && *pre ? pre : "");
        setenv("LD_PRELOAD", preload, 1);
    }
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    snprintf(min, sizeof min, "%llu", (unsigned long long)a->min_ns);
    setenv("OMPB_TRACE_PID", pid, 1);
    setenv("OMPB_TRACE_OUTPUT", f->report, 1);
    setenv("OMPB_TRACE_COUNTED", f->counted, 1);
    setenv("OMPB_TRACE_MIN_NS", min, 1);
    if (a->filter)
        setenv("OMPB_TRACE_FILTER", a->filter, 1);
    setenv("OMPB_TRACE_SAVED_REGIONS_OUTPUT", out ? out : "-", 1);
    setenv("OMPB_TRACE_SAVED_REGIONS_FORMAT", fmt ? fmt : "-", 1);
    sigprocmask(SIG_SETMASK, old, NULL);
    execv(path, a->program);
    int e = errno;
    if (write(err_fd, &e, sizeof e) < 0)
        _exit(127);
    _exit(127);
}

/* Waits for the child, passing INT, TERM and HUP on to it (they stay
 * blocked here, so the tool outlives the program and writes its report).
 * A program that has not ended KILL_AFTER after the first of them, or
 * that gets a second, is killed (SIGKILL): a program that ignores or
 * blocks the signal cannot make the command hang. Returns the wait
 * status. */
static int wait_child(pid_t child, const char *path, const sigset_t *set, uint64_t kill_after)
{
    int status = 0, forwarded = 0;
    bool killed = false;
    struct timespec now, deadline = {0, 0};
    for (;;) {
        pid_t w = waitpid(child, &status, WNOHANG);
        if (w == child)
            return status;
        siginfo_t info;
        int sig;
        if (forwarded && !killed) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            int64_t left = (int64_t)(deadline.tv_sec - now.tv_sec) * 1000000000
                           + (deadline.tv_nsec - now.tv_nsec);
            struct timespec wait = {left > 0 ? left / 1000000000 : 0,
                                    left > 0 ? left % 1000000000 : 0};
            sig = left > 0 ? sigtimedwait(set, &info, &wait) : -1;
            if (sig < 0 && (left <= 0 || errno == EAGAIN)) {
                char d[64];
                ompb__format_duration((double)kill_after, d, sizeof d);
                fprintf(stderr, "%s: '%s' had not ended %s after the signal passed on to it; "
                        "killing it (SIGKILL; --kill-after sets the wait)\n", OMPB__TRACE_TOOL,
                        path, d);
                kill(child, SIGKILL);
                killed = true;
                continue;
            }
        } else {
            sig = sigwaitinfo(set, &info);
        }
        if (sig <= 0 || sig == SIGCHLD || killed)
            continue;
        if (forwarded++) {
            fprintf(stderr, "%s: a second signal (%s): killing '%s' (SIGKILL)\n",
                    OMPB__TRACE_TOOL, strsignal(sig), path);
            kill(child, SIGKILL);
            killed = true;
            continue;
        }
        kill(child, sig);
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += (time_t)(kill_after / 1000000000);
        deadline.tv_nsec += (long)(kill_after % 1000000000);
        if (deadline.tv_nsec >= 1000000000) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000;
        }
    }
}

/* One entry of counted_only or barrier_wait; a name or file that is not
 * UTF-8 (a path's bytes) is kept with its bad bytes as "\xNN", as the
 * report's own names are, not dropped. */
static json_t *fact(const char *name, const char *file, int line, unsigned long long n,
                    unsigned long long ns)
{
    char nm[256 * 4], fl[1024 * 4];
    ompb__utf8_escape(name, nm, sizeof nm);
    ompb__utf8_escape(file, fl, sizeof fl);
    return json_pack("{s:s, s:s, s:i, s:I, s:I}", "name", nm, "file", fl, "line", line,
                     "instances", (json_int_t)n, "total_ns", (json_int_t)ns);
}

/* What the library found beside the report (OMPB_TRACE_COUNTED): the
 * begin/end pair's cost measured at load, the regions --min-duration kept
 * out of the report, and (libomp) the time the traced instances' threads
 * waited in barriers before the region's closing one, as the "trace"
 * object of the JSON's context. */
static json_t *trace_facts(const char *path, double *overhead)
{
    json_t *facts = json_object(), *counted = json_array(), *waits = json_array();
    FILE *f = fopen(path, "r");
    char line[2048];
    *overhead = -1;
    while (f && fgets(line, sizeof line, f)) {
        char name[256], file[1024];
        int ln;
        unsigned long long n, ns;
        double v;
        if (sscanf(line, "overhead_ns\t%lf", &v) == 1)
            *overhead = v;
        else if (sscanf(line, "counted\t%255[^\t]\t%1023[^\t]\t%d\t%llu\t%llu", name, file,
                        &ln, &n, &ns) == 5)
            json_array_append_new(counted, fact(name, file, ln, n, ns));
        else if (sscanf(line, "barrier\t%255[^\t]\t%1023[^\t]\t%d\t%llu\t%llu", name, file,
                        &ln, &n, &ns) == 5)
            json_array_append_new(waits, fact(name, file, ln, n, ns));
    }
    if (f)
        fclose(f);
    json_object_set_new(facts, "overhead_ns_per_thread",
                        *overhead >= 0 ? json_real(*overhead) : json_null());
    json_object_set_new(facts, "counted_only", counted);
    json_object_set_new(facts, "barrier_wait", waits);
    return facts;
}

/* trace_facts made each entry with these keys and types: the unpacks
 * cannot fail. */
static void print_counted(json_t *facts)
{
    size_t i;
    json_t *counted = NULL, *c;
    (void)json_unpack(facts, "{s?o}", "counted_only", &counted);
    json_array_foreach(counted, i, c) {
        const char *name = NULL;
        json_int_t instances = 0, total_ns = 0;
        char total[32];
        (void)json_unpack(c, "{s:s, s:I, s:I}", "name", &name, "instances", &instances,
                          "total_ns", &total_ns);
        ompb__format_duration((double)total_ns, total, sizeof total);
        fprintf(stderr, "%s: counted only (below --min-duration): %s: %lld instances, %s in "
                "all\n", OMPB__TRACE_TOOL, name, (long long)instances, total);
    }
}

/* The report in the format asked; the console's table gets a line with
 * the measured overhead first, the JSON its "trace" object. */
static int render(const trace_args *a, const char *report, const char *facts_path)
{
    json_error_t jerr;
    ompb_error err = {0};
    json_t *root = json_load_file(report, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return bad("the program's region report is unreadable: %s", jerr.text);
    double overhead;
    json_t *facts = trace_facts(facts_path, &overhead);
    print_counted(facts);
    json_t *ctx = NULL;
    if (json_unpack(root, "{s:o}", "context", &ctx) == 0 && json_is_object(ctx))
        json_object_set(ctx, "trace", facts);
    json_decref(facts);
    char per[64] = "not measured (under the CodSpeed runner)", first[160];
    if (overhead >= 0)
        ompb__format_duration(overhead, per, sizeof per);
    snprintf(first, sizeof first, "trace:      overhead %s per instance per thread (a region "
             "begin/end pair, measured at start)", per);
    ompb__result_file file;
    int rc = ompb__result_file_read(&file, root, "the region report", &err);
    json_decref(root);
    if (rc)
        return bad("%s", err.text);
    rc = ompb__tool_convert_write(OMPB__TRACE_TOOL, a->output, a->format, &file, first);
    ompb__result_file_release(&file);
    return rc;
}

/* What the program's end means for the exit status, with one line when it
 * did not exit by itself. */
static int program_status(const char *path, int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        fprintf(stderr, "%s: '%s' was ended by signal %d (%s); the report holds the instances "
                "completed up to its last snapshot\n", OMPB__TRACE_TOOL, path, sig,
                strsignal(sig));
        return 128 + sig;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

static int run(const trace_args *a, const char *path, const trace_files *f)
{
    int pipefd[2];
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return bad("cannot make a pipe: %s", strerror(errno));
    sigprocmask(SIG_BLOCK, &set, &old);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0)
        run_child(a, path, f, pipefd[1], &old);
    close(pipefd[1]);
    int e = 0, rc;
    if (child < 0) {
        rc = bad("cannot fork: %s", strerror(errno));
    } else if (read(pipefd[0], &e, sizeof e) == (ssize_t)sizeof e) {
        waitpid(child, NULL, 0);
        rc = bad("cannot run '%s': %s (accepted: a dynamically linked ELF program that uses "
                 "libgomp or libomp)", path, strerror(e));
    } else {
        int status = wait_child(child, path, &set, a->kill_after_ns);
        rc = program_status(path, status);
        if (access(f->report, R_OK) == 0) {
            int r = render(a, f->report, f->counted);
            rc = rc ? rc : r;
        } else {
            double overhead;
            json_t *facts = trace_facts(f->counted, &overhead);
            print_counted(facts);
            json_decref(facts);
            fprintf(stderr, "%s: '%s' ran no traced parallel region: no report\n",
                    OMPB__TRACE_TOOL, path);
        }
    }
    close(pipefd[0]);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int ompb__tool_trace(int argc, char **argv)
{
    trace_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc || a.help) {
        if (a.help)
            usage(stdout);
        return rc;
    }
    char path[4096];
    ompb__trace_runtimes rt = {{0}, {0}};
    if ((rc = ompb__trace_check_program(a.program[0], path, sizeof path, &rt)) != 0)
        return rc;
    trace_files f;
    const char *tmp = getenv("TMPDIR");
    snprintf(f.dir, sizeof f.dir, "%s/ompbench-trace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f.dir))
        return bad("cannot make a directory in '%s': %s", tmp && *tmp ? tmp : "/tmp",
                   strerror(errno));
    snprintf(f.report, sizeof f.report, "%s/report.json", f.dir);
    snprintf(f.counted, sizeof f.counted, "%s/counted.tsv", f.dir);
    rc = run(&a, path, &f);
    unlink(f.report);
    unlink(f.counted);
    rmdir(f.dir);
    return rc;
}
