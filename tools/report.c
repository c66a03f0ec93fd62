/* SPDX-License-Identifier: MIT */
/*
 * `ompbench report FILE... [--compare BASE... --vs HEAD...] --output
 * report.html`: the command line over tools/lib/html/html. Every file is
 * loaded and validated first (a bad one: one line naming it, exit 2, no
 * output file); the page is written atomically, never over an input.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "core/core.h"
#include "html/html.h"
#include "tools.h"

#define OMPB__TOOL "ompbench report"
#define bad(...) ompb__tool_usage_error(OMPB__TOOL, __VA_ARGS__)

typedef struct report_args {
    const char **paths[3];      /* runs, BASE, HEAD: pointers into argv */
    size_t n[3];
    const char *output;
    bool help;
} report_args;

enum { RUNS, BASE, HEAD };

static void usage(FILE *out)
{
    fputs("usage: ompbench report FILE... [--compare BASE... --vs HEAD...] --output "
          "report.html\n"
          "One self-contained HTML page (inline SVG, CSS and script; no network) from\n"
          "result files: per instance the round times, the rounds in time order, the\n"
          "threads of one round, imbalance and skew; the scaling chart over the files;\n"
          "with --compare/--vs, the comparison of BASE and HEAD as a forest plot.\n"
          "Several FILEs are several runs. At most 200 rounds per instance are drawn\n"
          "(fewer when there are many instances), and at most 2000 instances; the\n"
          "others show their median only. The result files keep them all.\n"
          "  --compare BASE...  result files of the base side (then --vs)\n"
          "  --vs HEAD...       result files of the head side\n"
          "  --output FILE      the page (required)\n"
          "  -h, --help         this text\n"
          "Exit status: 0, 2 (bad input).\n",
          out);
}

static int parse_args(int argc, char **argv, report_args *a)
{
    int list = RUNS;
    const char *v;
    for (int k = 0; k < 3; k++)
        if (!(a->paths[k] = calloc((size_t)argc, sizeof *a->paths[k])))
            return bad("out of memory");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            a->help = true;
        else if (strcmp(argv[i], "--compare") == 0)
            list = BASE;
        else if (strcmp(argv[i], "--vs") == 0)
            list = HEAD;
        else if ((v = ompb__tool_option_value(argc, argv, &i, "--output"))) {
            if (a->output)
                return bad("--output given twice: '%s' and '%s' (accepted: once)", a->output, v);
            a->output = v;
        } else if (argv[i][0] == '-' && argv[i][1])
            return bad("unknown option or missing value: '%s' (accepted: --compare BASE..., "
                       "--vs HEAD..., --output FILE, --help)", argv[i]);
        else
            a->paths[list][a->n[list]++] = argv[i];
    }
    if (a->help)
        return 0;
    if (!a->output)
        return bad("--output FILE is required (the HTML page to write)");
    if ((a->n[BASE] == 0) != (a->n[HEAD] == 0))
        return bad("--compare needs --vs and both need files (given: %zu BASE, %zu HEAD)",
                   a->n[BASE], a->n[HEAD]);
    if (a->n[RUNS] + a->n[BASE] + a->n[HEAD] == 0)
        return bad("expected a result file (accepted: FILE..., or --compare BASE... --vs HEAD...)");
    return 0;
}

/* --output naming any input would replace it: refused before any reading. */
static int check_output(const report_args *a)
{
    size_t n = a->n[RUNS] + a->n[BASE] + a->n[HEAD], k = 0;
    ompb__outfile_input *inputs = calloc(n, sizeof *inputs);
    ompb_error err = {0};
    if (!inputs)
        return bad("out of memory");
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < a->n[l]; i++)
            inputs[k++] = (ompb__outfile_input){"the result file", a->paths[l][i]};
    int rc = ompb__outfile_check_inputs("--output", a->output, inputs, n, &err);
    free(inputs);
    return rc ? bad("%s", err.text) : 0;
}

typedef struct loaded {
    ompb__resultfile *files;    /* runs, then BASE, then HEAD */
    json_t **roots;
    size_t n;
} loaded;

static void unload(loaded *L)
{
    for (size_t i = 0; i < L->n; i++) {
        ompb__resultfile_free(&L->files[i]);
        json_decref(L->roots[i]);
    }
    free(L->files);
    free(L->roots);
}

/* Validated by the result-file reader, then read again whole for the raw
 * rounds it does not keep. */
static int load_all(const report_args *a, loaded *L)
{
    size_t n = a->n[RUNS] + a->n[BASE] + a->n[HEAD];
    ompb_error err = {0};
    L->n = 0;
    L->files = calloc(n, sizeof *L->files);
    L->roots = calloc(n, sizeof *L->roots);
    if (!L->files || !L->roots)
        return bad("out of memory");
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < a->n[l]; i++) {
            json_error_t jerr;
            if (ompb__resultfile_load(a->paths[l][i], &L->files[L->n], &err)) {
                fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
                return 2;
            }
            L->roots[L->n] = json_load_file(a->paths[l][i], 0, &jerr);
            L->n++;
            if (!L->roots[L->n - 1])
                return bad("%s: cannot read it again: %s", a->paths[l][i], jerr.text);
        }
    return 0;
}

static int write_page(const report_args *a, const ompb__html_input *in)
{
    ompb__outfile of;
    ompb_error err = {0};
    if (ompb__outfile_open(&of, a->output, &err)) {
        fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
        return 2;
    }
    errno = 0; /* what a failed write leaves here is the reason */
    if (ompb__html_report(of.fp, in)) {
        int e = errno ? errno : EIO;
        ompb__outfile_abort(&of);
        return bad("cannot write '%s': %s", a->output, strerror(e));
    }
    if (ompb__outfile_commit(&of, &err)) {
        fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
        return 2;
    }
    return 0;
}

static int run(const report_args *a, loaded *L)
{
    ompb__comparison cmp;
    bool compared = false;
    ompb_error err = {0};
    ompb__html_input in = {L->files, L->roots, a->n[RUNS] ? a->n[RUNS] : L->n, NULL};
    if (a->n[BASE]) {
        ompb__compare_side base = {L->files + a->n[RUNS], a->n[BASE]};
        ompb__compare_side head = {L->files + a->n[RUNS] + a->n[BASE], a->n[HEAD]};
        ompb__compare_opts opts = {OMPB__COMPARE_DEFAULT_THRESHOLD, OMPB__COMPARE_DEFAULT_ALPHA};
        if (ompb__compare_check_side(&base, "BASE", &err)
            || ompb__compare_check_side(&head, "HEAD", &err)) {
            fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
            return 2;
        }
        if (ompb__compare_runs(&base, &head, &opts, &cmp))
            return bad("out of memory");
        compared = true;
        in.cmp = &cmp;
    }
    int status = write_page(a, &in);
    if (compared)
        ompb__comparison_free(&cmp);
    return status;
}

int ompb__tool_report(int argc, char **argv)
{
    report_args a = {0};
    loaded L = {0};
    int status = parse_args(argc, argv, &a);
    if (!status && a.help)
        usage(stdout);
    else if (!status && !(status = check_output(&a)) && !(status = load_all(&a, &L)))
        status = run(&a, &L);
    unload(&L);
    for (int k = 0; k < 3; k++)
        free(a.paths[k]);
    return status ? 2 : 0;
}
