/* SPDX-License-Identifier: MIT */
/*
 * ompbench convert FILE --format console|csv|json [--output F]: re-renders
 * a result file (analysis/convert.h), or the report of a run's journal
 * (convert_journal.h). The file is read whole into the reporters' model
 * (refused with the place of a bad value) before anything is written; the output goes through lib/core/outfile.c
 * (atomic, never onto the file being read).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "convert_journal.h"
#include "core/core.h"
#include "tools.h"

#define OMPB__TOOL "ompbench convert"
#define bad(...) ompb__tool_usage_error(OMPB__TOOL, __VA_ARGS__)

typedef struct convert_args {
    const char *file, *format, *output;
    bool help;
} convert_args;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ompbench convert FILE --format FMT [--output OUT]\n"
            "Re-renders a result file's JSON (benchmarks, application regions, MPI runs,\n"
            "--counters and user counters) from the figures it holds, with the run's own\n"
            "reporters. FILE may also be a run's journal (FILE.journal beside its\n"
            "--output), left by a run that a crash or SIGKILL ended: the binary that\n"
            "wrote it reports its records.\n"
            "  --format FMT    %s: json gives the run's own text again, csv the\n"
            "                  run's CSV columns, console its table\n"
            "  --output OUT    write to OUT (atomically) instead of standard output\n"
            "  -h, --help      this text\n"
            "Exit status: 0 ok, 2 bad option or input.\n", OMPB__CONVERT_FORMATS);
}

int ompb__tool_convert_option(const char *tool, int argc, char **argv, int *i,
                              const char **format, const char **output)
{
    const char *v;
    if ((v = ompb__tool_option_value(argc, argv, i, "--format"))) {
        if (!ompb__convert_format_ok(v))
            return ompb__tool_usage_error(tool, "--format: invalid value '%s' (accepted: %s)", v,
                                          OMPB__CONVERT_FORMATS);
        *format = v;
    } else if ((v = ompb__tool_option_value(argc, argv, i, "--output"))) {
        if (!*v)
            return ompb__tool_usage_error(tool, "--output: empty value (accepted: a file name)");
        *output = v;
    } else {
        return 0;
    }
    return 1;
}

static int parse_option(int argc, char **argv, int *i, convert_args *a)
{
    const char *arg = argv[*i];
    int rc;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
        a->help = true;
    else if ((rc = ompb__tool_convert_option(OMPB__TOOL, argc, argv, i, &a->format,
                                             &a->output)) != 0)
        return rc == 1 ? 0 : rc;
    else
        return bad("unknown option or missing value: '%s' (accepted: --format FMT, "
                   "--output FILE, --help)", arg);
    return 0;
}

static int parse_args(int argc, char **argv, convert_args *a)
{
    ompb__tool_seen seen = {0};
    static const char *const none[] = {NULL};
    *a = (convert_args){0};
    for (int i = 1; i < argc; i++) {
        int at = i;
        bool option = argv[i][0] == '-' && argv[i][1] != '\0';
        int rc = 0;
        if (option)
            rc = parse_option(argc, argv, &i, a);
        else if (a->file)
            rc = bad("unexpected argument '%s' (accepted: one result file)", argv[i]);
        else
            a->file = argv[i];
        if (!rc && option)
            rc = ompb__tool_check_once(OMPB__TOOL, &seen, argv, at, i, none);
        if (rc)
            return rc;
    }
    if (a->help)
        return 0;
    if (!a->file || !a->format)
        return bad("expected a result file and --format FMT (accepted: ompbench convert "
                   "FILE --format %s [--output OUT]; see --help)", OMPB__CONVERT_FORMATS);
    ompb_error err = {0};
    ompb__outfile_input input = {"the result file", a->file};
    if (a->output && ompb__outfile_check_inputs("--output", a->output, &input, 1, &err))
        return bad("%s", err.text);
    return 0;
}

static int print_to(FILE *out, const ompb__result_file *f, const char *format,
                    const char *first)
{
    errno = 0;
    if (first && strcmp(format, "console") == 0 && fprintf(out, "%s\n", first) < 0)
        return OMPB_EIO;
    return ompb__convert_print(out, f, format);
}

int ompb__tool_convert_write(const char *tool, const char *output, const char *format,
                             const ompb__result_file *f, const char *console_first)
{
    ompb_error err = {0};
    if (!output) {
        if (print_to(stdout, f, format, console_first) != 0 || fflush(stdout) != 0)
            return ompb__tool_usage_error(tool, "cannot write standard output: %s",
                                          strerror(errno ? errno : EIO));
        return 0;
    }
    ompb__outfile of;
    if (ompb__outfile_open(&of, output, &err))
        return ompb__tool_usage_error(tool, "%s", err.text);
    if (print_to(of.fp, f, format, console_first) != 0) {
        int e = errno ? errno : EIO;
        ompb__outfile_abort(&of);
        return ompb__tool_usage_error(tool, "cannot write '%s': %s", output, strerror(e));
    }
    return ompb__outfile_commit(&of, &err) ? ompb__tool_usage_error(tool, "%s", err.text) : 0;
}

int ompb__tool_convert(int argc, char **argv)
{
    convert_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc || a.help) {
        if (a.help)
            usage(stdout);
        return rc;
    }
    json_error_t jerr;
    json_t *root = NULL;
    if (ompb__convert_is_journal(a.file)) {
        if ((rc = ompb__convert_journal(a.file, &root)) != 0)
            return rc;
    } else if (!(root = json_load_file(a.file, JSON_REJECT_DUPLICATES, &jerr)))
        return bad("%s: not a JSON result file: %s (line %d; accepted: the JSON of a run, "
                   "--format json or --output-format json)", a.file, jerr.text, jerr.line);
    ompb_error err = {0};
    ompb__result_file file;
    rc = ompb__result_file_read(&file, root, a.file, &err);
    json_decref(root);
    if (rc)
        return bad("%s", err.text);
    rc = ompb__tool_convert_write(OMPB__TOOL, a.output, a.format, &file, NULL);
    ompb__result_file_release(&file);
    return rc;
}
