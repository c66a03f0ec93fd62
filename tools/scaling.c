/* SPDX-License-Identifier: MIT */
/*
 * `ompbench scaling [options] RESULT.json...`: the command line over
 * tools/lib/analysis/scaling. Loads the result files, merged in the order
 * given (problems: one line naming the file, exit 2), prints the
 * scaling table (strong or weak scaling, analysis/scaling.h) and, with --svg,
 * writes the plot; every file is written atomically, and a failed run leaves
 * neither new file behind (see commit_all for the one case that costs more).
 */
#include "analysis/analysis.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "tools.h"

#define OMPB__TOOL "ompbench scaling"

typedef struct scaling_args {
    const char **files;         /* [n_files]: pointers into argv */
    int n_files;
    ompb__report_format format;
    const char *output;
    const char *svg;
    const char *metric;         /* --metric; NULL: time */
    bool help;
} scaling_args;

typedef int (*render_fn)(FILE *out, const ompb__scaling *s, ompb__report_format fmt);

static void usage(FILE *out)
{
    fprintf(out, "usage: ompbench scaling [options] RESULT.json...\n"
            "For each benchmark measured at several thread counts: median time, speedup\n"
            "and parallel efficiency against its smallest thread count, imbalance; the\n"
            "ideal is strong scaling, or weak scaling when the benchmark declares it\n"
            "(.scaling) or its declared items/bytes per iteration grow with the width.\n"
            "Several files are merged (e.g. one MPI job per rank count: ranks x threads);\n"
            "an instance found again in a later file is counted, the first one stands.\n"
            "  --format FMT    %s\n"
            "  --output FILE   write the table to FILE instead of stdout\n"
            "  --svg FILE      also draw the scaling plot into FILE (standalone SVG)\n"
            "  --metric NAME   a counter of --counters per iteration (team sum, e.g.\n"
            "                  instructions) or a user counter (ompb_counter) instead of\n"
            "                  time; ratio and work efficiency\n"
            "                  against the smallest thread count (default: time)\n"
            "  -h, --help      this text\n"
            "Exit status: 0, 2 (bad input).\n",
            ompb__report_format_help());
}

/* One line on stderr for bad input; the exit status 2. */
#define bad(...) ompb__tool_usage_error(OMPB__TOOL, __VA_ARGS__)

static int parse_option(int argc, char **argv, int *i, scaling_args *a)
{
    const char *arg = argv[*i], *v;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
        a->help = true;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--output")))
        a->output = v;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--svg")))
        a->svg = v;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--metric"))) {
        if (!*v)
            return bad("--metric: empty value (accepted: time or a counter name such as "
                       "instructions)");
        a->metric = v;
    }
    else if ((v = ompb__tool_option_value(argc, argv, i, "--format"))) {
        return ompb__tool_parse_format(OMPB__TOOL, v, &a->format);
    } else
        return bad("unknown option or missing value: '%s' (accepted: --format FMT, "
                   "--output FILE, --svg FILE, --metric NAME, --help)", arg);
    return 0;
}

/* --output or --svg naming a result file would replace it (issue 19), and
 * the two naming one file would leave only the last: refused before
 * anything is read or written. */
static int check_outputs(const scaling_args *a)
{
    ompb_error err = {0};
    ompb__outfile_input *inputs = calloc((size_t)a->n_files + 1, sizeof *inputs);
    if (!inputs)
        return bad("out of memory");
    for (int k = 0; k < a->n_files; k++)
        inputs[k] = (ompb__outfile_input){"the result file", a->files[k]};
    int rc = a->output && ompb__outfile_check_inputs("--output", a->output, inputs,
                                                     (size_t)a->n_files, &err);
    inputs[a->n_files] = (ompb__outfile_input){"--output", a->output};
    if (!rc && a->svg)
        rc = ompb__outfile_check_inputs("--svg", a->svg, inputs, (size_t)a->n_files + 1, &err);
    free(inputs);
    return rc ? bad("%s", err.text) : 0;
}

static int parse_args(int argc, char **argv, scaling_args *a)
{
    ompb__tool_seen seen = {0};
    *a = (scaling_args){0};
    /* At most argc - 1 files: every argument but the program's name. */
    a->files = malloc((size_t)(argc > 1 ? argc - 1 : 1) * sizeof *a->files);
    if (!a->files) {
        fprintf(stderr, OMPB__TOOL ": out of memory\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            int at = i, rc = parse_option(argc, argv, &i, a);
            if (!rc)
                rc = ompb__tool_check_once(OMPB__TOOL, &seen, argv, at, i, NULL);
            if (rc)
                return rc;
        } else {
            a->files[a->n_files++] = argv[i];
        }
    }
    if (!a->help && a->n_files == 0)
        return bad("expected a result file (accepted: RESULT.json..., one or more; see --help)");
    if (a->svg && a->output && strcmp(a->svg, a->output) == 0)
        return bad("--svg and --output both name '%s' (accepted: two different files)",
                   a->svg);
    return a->help ? 0 : check_outputs(a);
}

static int svg_render(FILE *out, const ompb__scaling *s, ompb__report_format fmt)
{
    (void)fmt;
    return ompb__scaling_svg(out, s);
}

static int open_file(ompb__outfile *of, const char *path)
{
    ompb_error err = {0};
    if (ompb__outfile_open(of, path, &err) == 0)
        return 0;
    fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
    return 2;
}

/* Renders into a temporary file next to path, kept only if all went well. */
static int render_to(ompb__outfile *of, const ompb__scaling *s, render_fn render,
                     ompb__report_format fmt)
{
    if (render(of->fp, s, fmt) == 0)
        return 0;
    ompb__error_print(stderr, OMPB__TOOL ": cannot write '%s': %s", of->path, strerror(errno));
    return 2;
}

static int commit(ompb__outfile *of)
{
    ompb_error err = {0};
    if (ompb__outfile_commit(of, &err) == 0)
        return 0;
    fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
    return 2;
}

/*
 * Both files are rendered before either is committed, the table first and
 * the SVG last. Renaming cannot be undone, so when the SVG's commit fails
 * after the table's succeeded, the new table is removed: the run leaves
 * neither file, though a table that was at that path before is gone too.
 */
static int commit_all(ompb__outfile *files, const bool *opened, const char *table, int rc)
{
    for (int i = 0; i < 2; i++) {
        if (!opened[i])
            continue;
        if (rc) {
            ompb__outfile_abort(&files[i]);
            continue;
        }
        rc = commit(&files[i]);
        if (rc && i == 1 && opened[0])
            (void)unlink(table); /* committed just before, as rc was 0 */
    }
    return rc;
}

static int write_outputs(const scaling_args *a, const ompb__scaling *s)
{
    const char *paths[2] = {a->output, a->svg};
    const render_fn renders[2] = {ompb__scaling_print, svg_render};
    ompb__outfile files[2];
    bool opened[2] = {false, false};
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        if (!paths[i])
            continue;
        rc = open_file(&files[i], paths[i]);
        opened[i] = rc == 0;
        if (!rc)
            rc = render_to(&files[i], s, renders[i], a->format);
    }
    if (!rc && !a->output)
        rc = ompb__scaling_print(stdout, s, a->format) ? 2 : 0;
    return commit_all(files, opened, a->output, rc);
}

/* Loads every file (and its --metric), in order, into rfs[0..n_files);
 * on failure says why, naming the file, and frees what it loaded. */
static int load_all(const scaling_args *a, ompb__resultfile *rfs, ompb__metric_unit *unit)
{
    ompb_error err = {0};
    for (int k = 0; k < a->n_files; k++) {
        int rc = ompb__resultfile_load(a->files[k], &rfs[k], &err);
        if (rc == 0 && !ompb__metric_is_time(a->metric)) {
            rc = ompb__metric_apply(a->files[k], a->metric, &rfs[k], unit, &err);
            if (rc)
                ompb__resultfile_free(&rfs[k]);
        }
        if (rc) {
            fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
            while (k-- > 0)
                ompb__resultfile_free(&rfs[k]);
            return 2;
        }
    }
    return 0;
}

static int run(const scaling_args *a)
{
    ompb__resultfile *rfs = calloc((size_t)a->n_files, sizeof *rfs);
    if (!rfs) {
        fprintf(stderr, OMPB__TOOL ": out of memory\n");
        return 2;
    }
    ompb__metric_unit unit = OMPB__METRIC_NS;
    int status = load_all(a, rfs, &unit);
    if (status) {
        free(rfs);
        return status;
    }
    ompb__scaling s;
    status = 2;
    if (ompb__scaling_build_files(rfs, (size_t)a->n_files, &s) == 0) {
        ompb__scaling_set_metric(&s, a->metric, unit);
        status = write_outputs(a, &s);
        ompb__scaling_free(&s);
    } else {
        fprintf(stderr, OMPB__TOOL ": out of memory\n");
    }
    for (int k = 0; k < a->n_files; k++)
        ompb__resultfile_free(&rfs[k]);
    free(rfs);
    return status;
}

int ompb__tool_scaling(int argc, char **argv)
{
    scaling_args a;
    int status = parse_args(argc, argv, &a);
    if (status == 0 && a.help)
        usage(stdout);
    else if (status == 0)
        status = run(&a);
    else
        status = 2;
    free(a.files);
    return status;
}
