/* SPDX-License-Identifier: MIT */
/*
 * `ompbench compare [options] BASE.json HEAD.json` (or --base FILE...
 * --head FILE...): the command line over tools/lib/analysis/compare. Parses
 * options, loads every file (any problem is one line naming the file, exit
 * 2), checks that each side's files can be pooled, writes the report
 * atomically and maps the verdicts to the exit status (1 only with
 * --fail-on-regression). With --metric every file's repetitions take a
 * counter's values in place of their times before the comparison.
 */
#include "analysis/analysis.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "tools.h"

#define OMPB__TOOL "ompbench compare"

/* Most files per side. */
#define OMPB__MAX_SIDE_FILES 1000

typedef struct compare_args {
    const char **base, **head;   /* [argc] each, borrowed from argv */
    size_t n_base, n_head, n_positional;
    ompb__compare_opts opts;
    const char *metric;         /* --metric; NULL: time */
    ompb__metric_unit unit;     /* the metric's, once a file gave it */
    const char *unit_path;      /* the file that gave it */
    bool unit_known;
    ompb__report_format format;
    const char *output;
    bool fail_on_regression, allow_layout, help;
} compare_args;

static void usage(FILE *out)
{
    fprintf(out, "usage: ompbench compare [options] BASE.json HEAD.json\n"
            "       ompbench compare [options] --base FILE... --head FILE...\n"
            "Compares result files (ompbench or Google Benchmark JSON) instance by instance.\n"
            "The runs of each side are pooled; each run (a process of --processes, or a\n"
            "file) is one piece of evidence. Verdicts: regressed, improved, untouched,\n"
            "noisy (the run-to-run spread is too large to tell at the threshold), noise\n"
            "unknown (one run on a side), no ratio (a time of 0 on a side), new, missing,\n"
            "failed.\n"
            "  --base FILE           a BASE result file; repeat to pool runs\n"
            "  --head FILE           a HEAD result file; repeat to pool runs\n"
            "  --threshold PCT       smallest change that counts, in percent (default 5)\n"
            "  --alpha A             1 - the interval's confidence, and the false discovery\n"
            "                        rate over the instances, in (0, 1) (default 0.05)\n"
            "  --metric NAME         judge this counter of --counters per iteration (e.g.\n"
            "                        instructions), or this user counter (ompb_counter),\n"
            "                        instead of time, run by run as times are (default: time)\n"
            "  --format FMT          %s\n"
            "  --output FILE         write the report to FILE instead of stdout\n"
            "  --fail-on-regression  exit 1 when an instance regressed or failed in HEAD\n"
            "                        (what was not judged does not fail; a warning says so\n"
            "                        for a time of 0)\n"
            "  --allow-layout-effects\n"
            "                        with --fail-on-regression: a regressed instance whose\n"
            "                        body's machine code is the same in both builds (only\n"
            "                        moved: a code-layout effect) does not fail the gate\n"
            "  -h, --help            this text\n"
            "Two files without --base/--head are BASE and HEAD. Exit status: 0, 1\n"
            "(regression or failure with --fail-on-regression), 2 (bad input).\n",
            ompb__report_format_help());
}

/* One line on stderr for bad input; the exit status 2. */
#define bad(...) ompb__tool_usage_error(OMPB__TOOL, __VA_ARGS__)

static int parse_option(int argc, char **argv, int *i, compare_args *a)
{
    const char *arg = argv[*i], *v;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
        a->help = true;
    else if (strcmp(arg, "--fail-on-regression") == 0)
        a->fail_on_regression = true;
    else if (strcmp(arg, "--allow-layout-effects") == 0)
        a->allow_layout = true;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--threshold")))
        return ompb__tool_parse_threshold(OMPB__TOOL, v, &a->opts.threshold);
    else if ((v = ompb__tool_option_value(argc, argv, i, "--alpha")))
        return ompb__tool_parse_alpha(OMPB__TOOL, v, &a->opts.alpha);
    else if ((v = ompb__tool_option_value(argc, argv, i, "--output")))
        a->output = v;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--base")))
        a->base[a->n_base++] = v;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--head")))
        a->head[a->n_head++] = v;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--metric"))) {
        if (!*v)
            return bad("--metric: empty value (accepted: time or a counter name such as "
                       "instructions)");
        a->metric = v;
    } else if ((v = ompb__tool_option_value(argc, argv, i, "--format"))) {
        return ompb__tool_parse_format(OMPB__TOOL, v, &a->format);
    } else
        return bad("unknown option or missing value: '%s' (accepted: --base FILE, --head FILE, "
                   "--threshold PCT, --alpha A, --metric NAME, --format FMT, "
                   "--output FILE, --fail-on-regression, --allow-layout-effects, --help)", arg);
    return 0;
}

/* Positional files: the first is BASE, the second HEAD, ahead of any
 * --base and --head files. */
static int add_positional(compare_args *a, const char *file)
{
    if (a->n_positional == 2)
        return bad("unexpected argument '%s' (accepted: two files, BASE.json HEAD.json, or "
                   "--base FILE and --head FILE, each repeatable)", file);
    const char **side = a->n_positional++ ? a->head : a->base;
    size_t *n = a->n_positional == 1 ? &a->n_base : &a->n_head;
    memmove(side + 1, side, *n * sizeof *side);
    side[0] = file;
    (*n)++;
    return 0;
}

/* --output naming one of the result files would replace it with the
 * report (issue 19): refused before anything is read or written. */
static int check_output(const compare_args *a)
{
    ompb_error err = {0};
    size_t n = a->n_base + a->n_head;
    if (!a->output)
        return 0;
    ompb__outfile_input *inputs = calloc(n, sizeof *inputs);
    if (!inputs)
        return bad("out of memory");
    for (size_t i = 0; i < n; i++)
        inputs[i] = (ompb__outfile_input){i < a->n_base ? "the BASE file" : "the HEAD file",
                                          i < a->n_base ? a->base[i] : a->head[i - a->n_base]};
    int rc = ompb__outfile_check_inputs("--output", a->output, inputs, n, &err);
    free(inputs);
    return rc ? bad("%s", err.text) : 0;
}

/* Options that may be given more than once: each adds a file. */
static const char *const repeatable[] = {"--base", "--head", NULL};

static int parse_args(int argc, char **argv, compare_args *a)
{
    ompb__tool_seen seen = {0};
    *a = (compare_args){.opts = {OMPB__COMPARE_DEFAULT_THRESHOLD,
                                 OMPB__COMPARE_DEFAULT_ALPHA}};
    a->base = calloc((size_t)argc + 1, sizeof *a->base);
    a->head = calloc((size_t)argc + 1, sizeof *a->head);
    if (!a->base || !a->head)
        return bad("out of memory");
    for (int i = 1; i < argc; i++) {
        int at = i;
        bool option = argv[i][0] == '-' && argv[i][1] != '\0';
        int rc = option ? parse_option(argc, argv, &i, a) : add_positional(a, argv[i]);
        if (!rc && option)
            rc = ompb__tool_check_once(OMPB__TOOL, &seen, argv, at, i, repeatable);
        if (rc)
            return rc;
    }
    if (a->help)
        return 0;
    if (a->n_base == 0 || a->n_head == 0)
        return bad("expected BASE and HEAD result files, got %zu and %zu (accepted: BASE.json "
                   "HEAD.json, or --base FILE and --head FILE, each repeatable; see --help)",
                   a->n_base, a->n_head);
    if (a->n_base > OMPB__MAX_SIDE_FILES || a->n_head > OMPB__MAX_SIDE_FILES)
        return bad("too many files on a side (accepted: at most %d per side)",
                   OMPB__MAX_SIDE_FILES);
    return check_output(a);
}

static void free_args(compare_args *a)
{
    free(a->base);
    free(a->head);
}

static int write_report(const compare_args *a, const ompb__comparison *cmp)
{
    ompb__outfile of;
    ompb_error err = {0};
    if (!a->output)
        return ompb__compare_print(stdout, cmp, a->format) ? 2 : 0;
    if (ompb__outfile_open(&of, a->output, &err)) {
        fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
        return 2;
    }
    if (ompb__compare_print(of.fp, cmp, a->format)) {
        int e = errno;
        ompb__outfile_abort(&of);
        ompb__error_print(stderr, OMPB__TOOL ": cannot write '%s': %s", a->output, strerror(e));
        return 2;
    }
    if (ompb__outfile_commit(&of, &err)) {
        fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
        return 2;
    }
    return 0;
}

static int run(const compare_args *a, const ompb__compare_side *base,
               const ompb__compare_side *head)
{
    ompb__comparison cmp;
    if (ompb__compare_runs(base, head, &a->opts, &cmp)) {
        fprintf(stderr, OMPB__TOOL ": out of memory\n");
        return 2;
    }
    ompb__compare_check_code(&cmp);
    cmp.metric = ompb__metric_is_time(a->metric) ? NULL : a->metric;
    cmp.unit = a->unit;
    if (cmp.env_diffs.n)
        fprintf(stderr, OMPB__TOOL ": warning: different runtime environments (%zu "
                        "difference%s, listed in the report)\n",
                cmp.env_diffs.n, cmp.env_diffs.n == 1 ? "" : "s");
    /* A time of 0 is not judged, so it cannot fail the gate; the gate must
     * not pass it silently either. */
    size_t no_ratio = cmp.counts[OMPB__VERDICT_NO_RATIO];
    if (a->fail_on_regression && no_ratio)
        fprintf(stderr, OMPB__TOOL ": warning: %zu instance%s not judged for %s on a side "
                        "(no ratio); --fail-on-regression does not fail on %s\n",
                no_ratio, no_ratio == 1 ? "" : "s",
                cmp.metric ? "a value of 0" : "a time of 0", no_ratio == 1 ? "it" : "them");
    /* A marked side still gates (docs/guide.md): the report names it in the
     * row, and the log says the verdict rests on a suspect side. */
    if (a->fail_on_regression && cmp.marked_gating)
        fprintf(stderr, OMPB__TOOL ": warning: %zu regressed or failed instance%s %s a marked "
                        "side (see the report's marks); --fail-on-regression still fails on "
                        "%s\n", cmp.marked_gating, cmp.marked_gating == 1 ? "" : "s",
                cmp.marked_gating == 1 ? "has" : "have", cmp.marked_gating == 1 ? "it" : "them");
    if (cmp.layout_same)
        fprintf(stderr, OMPB__TOOL ": warning: %zu instance%s claimed a change although the "
                        "body's machine code is the same in both builds (a code-layout "
                        "effect, likely)%s\n", cmp.layout_same, cmp.layout_same == 1 ? "" : "s",
                a->allow_layout && cmp.layout_gating
                    ? "; --allow-layout-effects: the regressed ones do not fail the gate" : "");
    int status = write_report(a, &cmp);
    /* A benchmark that fails in HEAD is at least as bad as a slower one. */
    if (status == 0 && a->fail_on_regression &&
        ompb__verdict_count(cmp.counts, OMPB__VERDICT_GATES) >
            (a->allow_layout ? cmp.layout_gating : 0))
        status = 1;
    ompb__comparison_free(&cmp);
    return status;
}

static const char *unit_word(ompb__metric_unit u)
{
    return u == OMPB__METRIC_NS ? "ns" : u == OMPB__METRIC_USER ? "a user counter" : "events";
}

/* --metric: every file's repetitions take the counter's values in place of
 * their times (analysis/metric.h); all files of both sides must count it in
 * one unit. 2 after printing what is wrong. */
static int apply_metric(compare_args *a, const char **paths, ompb__resultfile *files, size_t n)
{
    ompb_error err = {0};
    if (ompb__metric_is_time(a->metric))
        return 0;
    for (size_t i = 0; i < n; i++) {
        ompb__metric_unit u;
        if (ompb__metric_apply(paths[i], a->metric, &files[i], &u, &err)) {
            fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
            return 2;
        }
        if (a->unit_known && u != a->unit) {
            ompb__error_print(stderr, OMPB__TOOL ": --metric %s: %s counts it in %s, %s in %s",
                              a->metric, a->unit_path, unit_word(a->unit), paths[i], unit_word(u));
            return 2;
        }
        a->unit = u;
        a->unit_path = paths[i];
        a->unit_known = true;
    }
    return 0;
}

static void free_side(ompb__compare_side *side)
{
    for (size_t i = 0; i < side->n; i++)
        ompb__resultfile_free((ompb__resultfile *)&side->files[i]);
    free((ompb__resultfile *)side->files);
    side->files = NULL;
    side->n = 0;
}

/* Loads and checks the files of one side; 2 after printing what is wrong. */
static int load_side(compare_args *a, const char **paths, size_t n, const char *name,
                     ompb__compare_side *side)
{
    ompb_error err = {0};
    ompb__resultfile *files = calloc(n, sizeof *files);
    side->files = files;
    side->n = 0;
    if (!files) {
        fprintf(stderr, OMPB__TOOL ": out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        if (ompb__resultfile_load(paths[i], &files[i], &err)) {
            fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
            return 2;
        }
        side->n++;
    }
    if (ompb__compare_check_side(side, name, &err)) {
        fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
        return 2;
    }
    return apply_metric(a, paths, files, n);
}

int ompb__tool_compare(int argc, char **argv)
{
    compare_args a;
    int status = parse_args(argc, argv, &a);
    if (status || a.help) {
        if (a.help && !status)
            usage(stdout);
        free_args(&a);
        return status ? 2 : 0;
    }
    ompb__compare_side base = {0}, head = {0};
    status = load_side(&a, a.base, a.n_base, "BASE", &base);
    if (!status)
        status = load_side(&a, a.head, a.n_head, "HEAD", &head);
    if (!status)
        status = run(&a, &base, &head);
    free_side(&base);
    free_side(&head);
    free_args(&a);
    return status;
}
