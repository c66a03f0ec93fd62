/* SPDX-License-Identifier: MIT */
/*
 * ompbench convert of a run's journal (docs/guide.md, "Hostile bodies"):
 * the journal holds records, not figures, and only the benchmark binary
 * that wrote it knows their instances. Its first line names that binary
 * and its options; convert runs it again with the hidden
 * --ompb-journal-json=FILE, which measures nothing and prints the journal's
 * report as JSON, and renders that JSON as any result file. The binary
 * checks the records (a malformed one is its one line, exit status 2).
 */
#include "tools.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "convert_journal.h"

#define TOOL "ompbench convert"
#define FIRST_LINE_MAX (1 << 20)

extern char **environ;

/* The journal's first line, NULL (why set) when there is none. */
static char *first_line(const char *file, const char **why)
{
    FILE *fp = fopen(file, "rb");
    char *line = malloc(FIRST_LINE_MAX);
    size_t n = fp && line ? fread(line, 1, FIRST_LINE_MAX - 1, fp) : 0;
    if (fp)
        fclose(fp);
    char *nl = line ? memchr(line, '\n', n) : NULL;
    if (!nl) {
        *why = n == 0 ? "empty" : "its first line is cut";
        free(line);
        return NULL;
    }
    *nl = '\0';
    return line;
}

bool ompb__convert_is_journal(const char *file)
{
    static const char magic[] = "{\"ompbench_journal\"";
    char head[sizeof magic - 1];
    FILE *fp = fopen(file, "rb");
    size_t n = fp ? fread(head, 1, sizeof head, fp) : 0;
    if (fp)
        fclose(fp);
    return n == sizeof head && memcmp(head, magic, sizeof head) == 0;
}

/* The binary's argv from the header: its own, then the journal option. */
static char **journal_argv(const json_t *args, const char *file, char **opt)
{
    size_t n = json_array_size(args);
    char **argv = calloc(n + 2, sizeof *argv);
    size_t len = strlen("--ompb-journal-json=") + strlen(file) + 1;
    *opt = malloc(len);
    if (!argv || !*opt) {
        free(argv);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        argv[i] = (char *)json_string_value(json_array_get(args, i));
    snprintf(*opt, len, "--ompb-journal-json=%s", file);
    argv[n] = *opt;
    return argv;
}

/* Runs argv (exe) with its stdout into *out. Returns its wait status, or
 * -1 with errno-like rc in *err_no. */
static int run_capture(const char *exe, char **argv, char **out, size_t *len, int *err_no)
{
    int fds[2];
    posix_spawn_file_actions_t fa;
    pid_t pid;
    *out = NULL;
    *len = 0;
    if (pipe(fds) != 0)
        return *err_no = errno, -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return *err_no = rc, -1;
    }
    size_t cap = 0;
    for (;;) {
        if (*len + 4096 > cap) {
            char *more = realloc(*out, cap = cap ? 2 * cap : 65536);
            if (!more)
                break;
            *out = more;
        }
        ssize_t n = read(fds[0], *out + *len, cap - *len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        *len += (size_t)n;
    }
    close(fds[0]);
    if (*out)
        (*out)[*len] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

static int header(const char *file, json_t **hdr, const char **exe, const json_t **args)
{
    const char *why = NULL;
    char *line = first_line(file, &why);
    if (!line)
        return ompb__tool_usage_error(TOOL, "%s: line 1: not an ompbench journal (%s)", file,
                                      why);
    json_error_t jerr;
    *hdr = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
    free(line);
    /* *hdr is NULL when line 1 is no JSON: the unpack fails as on a
     * missing key or a wrong type, and all of them are the one refusal. */
    json_int_t version = 0;
    json_t *argv = NULL;
    bool ok = json_unpack(*hdr, "{s:I, s:s, s:o}", "ompbench_journal", &version, "exe", exe,
                          "argv", &argv) == 0 && version == 1 && **exe && json_is_array(argv)
              && json_array_size(argv) > 0;
    *args = argv;
    for (size_t i = 0; ok && i < json_array_size(*args); i++)
        ok = json_is_string(json_array_get(*args, i));
    if (!ok)
        return ompb__tool_usage_error(TOOL, "%s: line 1: not the header of an ompbench journal "
                                      "of version 1 (accepted: {\"ompbench_journal\": 1, "
                                      "\"exe\": PATH, \"argv\": [...], ...})", file);
    return 0;
}

int ompb__convert_journal(const char *file, json_t **root)
{
    json_t *hdr = NULL;
    const char *exe = NULL;
    const json_t *args = NULL;
    *root = NULL;
    int rc = header(file, &hdr, &exe, &args);
    char *opt = NULL, *out = NULL;
    char **argv = rc ? NULL : journal_argv(args, file, &opt);
    size_t len = 0;
    int err_no = 0;
    if (!rc && !argv)
        rc = ompb__tool_usage_error(TOOL, "out of memory");
    int status = rc ? 0 : run_capture(exe, argv, &out, &len, &err_no);
    if (!rc && status < 0)
        rc = ompb__tool_usage_error(TOOL, "%s: cannot run the benchmark binary that wrote it, "
                                    "'%s': %s", file, exe, strerror(err_no));
    else if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status) > 1))
        rc = WIFEXITED(status) && WEXITSTATUS(status) == 2
                 ? 2 /* the binary said what is wrong, in one line */
                 : ompb__tool_usage_error(TOOL, "%s: the benchmark binary that wrote it, '%s', "
                                          "failed to report it (status %d)", file, exe, status);
    json_error_t jerr;
    if (!rc && !(*root = json_loadb(out ? out : "", len, 0, &jerr)))
        rc = ompb__tool_usage_error(TOOL, "%s: the benchmark binary that wrote it, '%s', gave "
                                    "no JSON report: %s", file, exe, jerr.text);
    free(out);
    free(argv);
    free(opt);
    json_decref(hdr);
    return rc;
}
