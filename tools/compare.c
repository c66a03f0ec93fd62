/* SPDX-License-Identifier: MIT */
/*
 * `ompbench compare [options] BASE.json HEAD.json`: the command line over
 * tools/lib/analysis/compare. Parses options, loads both files (any problem
 * is one line naming the file, exit 2), writes the report atomically and maps
 * the verdicts to the exit status (1 only with --fail-on-regression).
 */
#include "analysis/compare.h"
#include "analysis/metric.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "outfile.h"
#include "tools.h"

#define OMPB__TOOL "ompbench compare"
#define OMPB__MAX_THRESHOLD_PCT 1000.0

typedef struct compare_args {
    const char *files[2];
    size_t n_files;
    ompb__compare_opts opts;
    const char *metric;         /* --metric; NULL: time */
    ompb__metric_unit unit;
    ompb__report_format format;
    const char *output;
    bool fail_on_regression, help;
} compare_args;

static void usage(FILE *out)
{
    fputs("usage: ompbench compare [options] BASE.json HEAD.json\n"
          "Compares two result files (ompbench or Google Benchmark JSON) instance by\n"
          "instance: improved, regressed, untouched, too few samples, new, missing,\n"
          "failed.\n"
          "  --threshold PCT       smallest change that counts, in percent (default 5)\n"
          "  --alpha A             significance level of the two-sided Mann-Whitney U\n"
          "                        test on the round samples, in (0, 1) (default 0.05)\n"
          "  --metric NAME         compare this counter of --counters per iteration (e.g.\n"
          "                        instructions) instead of time (default: time)\n"
          "  --format FMT          console (default), markdown or json\n"
          "  --output FILE         write the report to FILE instead of stdout\n"
          "  --fail-on-regression  exit 1 when an instance regressed or failed in HEAD\n"
          "  -h, --help            this text\n"
          "Exit status: 0, 1 (regression or failure with --fail-on-regression), 2 (bad input).\n",
          out);
}

/* One line on stderr for bad input; the exit status 2. */
#define bad(...) ompb__tool_usage_error(OMPB__TOOL, __VA_ARGS__)

static int parse_threshold(const char *v, double *out)
{
    char *end;
    double pct = strtod(v, &end);
    if (end != v && *end == '%')
        end++;
    if (end == v || *end || !isfinite(pct) || pct < 0.0 || pct > OMPB__MAX_THRESHOLD_PCT)
        return bad("--threshold: invalid value '%s' (accepted: a percentage from 0 to "
                   "1000, e.g. 5 or 2.5%%)", v);
    *out = pct / 100.0;
    return 0;
}

static int parse_alpha(const char *v, double *out)
{
    char *end;
    double a = strtod(v, &end);
    if (end == v || *end || !(a > 0.0 && a < 1.0))
        return bad("--alpha: invalid value '%s' (accepted: a probability strictly "
                   "between 0 and 1, e.g. 0.05)", v);
    *out = a;
    return 0;
}

static int parse_option(int argc, char **argv, int *i, compare_args *a)
{
    const char *arg = argv[*i], *v;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
        a->help = true;
    else if (strcmp(arg, "--fail-on-regression") == 0)
        a->fail_on_regression = true;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--threshold")))
        return parse_threshold(v, &a->opts.threshold);
    else if ((v = ompb__tool_option_value(argc, argv, i, "--alpha")))
        return parse_alpha(v, &a->opts.alpha);
    else if ((v = ompb__tool_option_value(argc, argv, i, "--output")))
        a->output = v;
    else if ((v = ompb__tool_option_value(argc, argv, i, "--metric"))) {
        if (!*v)
            return bad("--metric: empty value (accepted: time or a counter name such as "
                       "instructions)");
        a->metric = v;
    } else if ((v = ompb__tool_option_value(argc, argv, i, "--format"))) {
        if (ompb__report_parse_format(v, &a->format))
            return bad("--format: invalid value '%s' (accepted: console, markdown, json)", v);
    } else
        return bad("unknown option or missing value: '%s' (accepted: --threshold PCT, "
                   "--alpha A, --metric NAME, --format FMT, --output FILE, "
                   "--fail-on-regression, --help)", arg);
    return 0;
}

static int parse_args(int argc, char **argv, compare_args *a)
{
    *a = (compare_args){.opts = {OMPB__COMPARE_DEFAULT_THRESHOLD,
                                 OMPB__COMPARE_DEFAULT_ALPHA}};
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            int rc = parse_option(argc, argv, &i, a);
            if (rc)
                return rc;
        } else if (a->n_files < 2) {
            a->files[a->n_files++] = argv[i];
        } else {
            return bad("unexpected argument '%s' (accepted: exactly two files, BASE.json "
                       "HEAD.json)", argv[i]);
        }
    }
    if (!a->help && a->n_files != 2)
        return bad("expected two result files, got %zu (accepted: BASE.json HEAD.json; "
                   "see --help)", a->n_files);
    return 0;
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
        ompb__outfile_abort(&of);
        fprintf(stderr, OMPB__TOOL ": %s: cannot write the report\n", a->output);
        return 2;
    }
    if (ompb__outfile_commit(&of, &err)) {
        fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
        return 2;
    }
    return 0;
}

static int run(const compare_args *a, const ompb__resultfile *base,
               const ompb__resultfile *head)
{
    ompb__comparison cmp;
    if (ompb__compare_runs(base, head, &a->opts, &cmp)) {
        fprintf(stderr, OMPB__TOOL ": out of memory\n");
        return 2;
    }
    cmp.metric = ompb__metric_is_time(a->metric) ? NULL : a->metric;
    cmp.unit = a->unit;
    if (cmp.env_diffs.n)
        fprintf(stderr, OMPB__TOOL ": warning: different runtime environments (%zu "
                        "difference%s, listed in the report)\n",
                cmp.env_diffs.n, cmp.env_diffs.n == 1 ? "" : "s");
    int status = write_report(a, &cmp);
    /* A benchmark that fails in HEAD is at least as bad as a slower one. */
    if (status == 0 && a->fail_on_regression
        && (cmp.counts[OMPB__VERDICT_REGRESSED] || cmp.counts[OMPB__VERDICT_FAILED]))
        status = 1;
    ompb__comparison_free(&cmp);
    return status;
}

/* --metric: both files' samples become the counter's; one unit for both. */
static int load_metric(compare_args *a, ompb__resultfile *base, ompb__resultfile *head,
                       ompb_error *err)
{
    ompb__metric_unit ub, uh;
    a->unit = OMPB__METRIC_NS;
    if (ompb__metric_is_time(a->metric))
        return 0;
    if (ompb__metric_apply(a->files[0], a->metric, base, &ub, err) ||
        ompb__metric_apply(a->files[1], a->metric, head, &uh, err))
        return OMPB_EINVAL;
    if (ub != uh)
        return ompb__error_set(err, OMPB_EINVAL, "--metric %s: BASE counts it in %s, HEAD in "
                               "%s", a->metric, ub == OMPB__METRIC_NS ? "ns" : "events",
                               uh == OMPB__METRIC_NS ? "ns" : "events");
    a->unit = ub;
    return 0;
}

int ompb__tool_compare(int argc, char **argv)
{
    compare_args a;
    if (parse_args(argc, argv, &a))
        return 2;
    if (a.help) {
        usage(stdout);
        return 0;
    }
    ompb__resultfile base, head;
    ompb_error err = {0};
    if (ompb__resultfile_load(a.files[0], &base, &err)) {
        fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
        return 2;
    }
    if (ompb__resultfile_load(a.files[1], &head, &err)) {
        fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
        ompb__resultfile_free(&base);
        return 2;
    }
    if (load_metric(&a, &base, &head, &err)) {
        fprintf(stderr, OMPB__TOOL ": %s\n", err.text);
        ompb__resultfile_free(&base);
        ompb__resultfile_free(&head);
        return 2;
    }
    int status = run(&a, &base, &head);
    ompb__resultfile_free(&base);
    ompb__resultfile_free(&head);
    return status;
}
