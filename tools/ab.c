/* SPDX-License-Identifier: MIT */
/*
 * `ompbench ab [options] BASE HEAD [-- benchmark options]`: compares two
 * builds in one command. Both are checked to be runnable (their --list)
 * before the first run; then BASE and HEAD run alternately, one process
 * each with a tenth of the default budget, the order within each pair
 * drawn from --seed; after each pair the runs are pooled as compare pools
 * them and the instances due for a look take it (analysis/ab.h), and
 * only the instances still open run again, until all are decided or a
 * budget (--max-runs, --time) is spent. The report goes out in console,
 * markdown or JSON; the exit status is the CI gate.
 */
#include "ab.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"
#include "config/config.h"
#include "tools.h"


typedef struct ab_args {
    ompb__ab_settings set;      /* fixed before the first run */
    ompb__ab_exec x;            /* how the runs are made */
    ompb__ab_ledger l;          /* the runs so far */
    ompb__ab_rows rows;         /* the instances and their looks */
    ompb__ab_result res;        /* how it came out */
    const char *positional[2];
    size_t n_positional;
    const char *keep, *output, *markdown, *json;
    ompb__report_format format;
    ompb__ab_gate_opts gate;    /* --fail-on-regression and its kin */
    bool help, seed_given;
    bool no_futility;
    char tmpdir[4096];
} ab_args;

static void usage(FILE *out)
{
    fprintf(out, "usage: ompbench ab [options] BASE HEAD [-- benchmark options]\n"
            "       ompbench ab [options] --base-cmd CMD --head-cmd CMD [-- benchmark options]\n"
            "Runs two builds of a benchmark binary alternately, one process per run with a\n"
            "tenth of the default budget (--sample-count 10 --warmup-time 10ms --max-time\n"
            "500ms, before the benchmark options, which may change them), pools the runs as\n"
            "`ompbench compare --base/--head` does, and runs again only the instances still\n"
            "undecided, until each is regressed, improved or untouched, or a budget is spent.\n"
            "The looks are planned and alpha is spent across them, so stopping early does\n"
            "not inflate false claims (docs/methodology.md).\n"
            "  --base-cmd CMD, --head-cmd CMD\n"
            "                        a shell command that runs the benchmark (a wrapper such\n"
            "                        as 'mpirun -np 2 build/bench'); the options are appended\n"
            "  --min-runs N          runs a side before the first look (default 3, at least 2)\n"
            "  --max-runs N          most runs a side (default 100, at most 1000): the horizon\n"
            "                        the looks and their error rates are planned for\n"
            "  --max-time D          wall-time budget of the whole comparison (default 10m;\n"
            "                        --time is the same); no pair starts that would not fit,\n"
            "                        a run still going at the end is stopped\n"
            "  --timeout D           passed to every run: a repetition of an instance that\n"
            "                        runs longer fails (the run is stopped after D per\n"
            "                        instance plus 60 s)\n"
            "  --threshold PCT       smallest change that counts, in percent (default 5)\n"
            "  --metric NAME         judge this figure per iteration instead of time: a\n"
            "                        counter of --counters (give it after --, e.g. -- --counters\n"
            "                        instructions) or a user counter (ompb_counter)\n"
            "  --alpha A             error rate and false discovery rate, in (0, 1) (default 0.05)\n"
            "  --seed S              seed of the order within each pair (default: the clock;\n"
            "                        printed)\n"
            "  --pair-by WHAT        instance: after the first pair, a pair is one open\n"
            "                        instance's BASE and HEAD runs back to back (--exact),\n"
            "                        each open instance once per round, so that both runs\n"
            "                        see the machine alike; run: a pair is a BASE and a HEAD\n"
            "                        run of every open instance; auto (default): by\n"
            "                        instance, turning to by run for good when a round of\n"
            "                        instance pairs takes over twice the first pair\n"
            "                        (docs/guide.md)\n");
    fprintf(out,
            "  --keep DIR            keep every run's JSON file and log in DIR (default: a\n"
            "                        temporary directory, removed)\n"
            "  --format FMT          %s\n"
            "  --output FILE         write the report to FILE instead of stdout\n"
            "  --markdown FILE, --json FILE\n"
            "                        also write the report in that format to FILE\n"
            "  --fail-on-regression  exit 1 when an instance regressed or failed in HEAD, or a\n"
            "                        HEAD run crashed, hung or wrote a bad file, and when an\n"
            "                        instance is still undecided (noisy, disturbed, noise\n"
            "                        unknown) at the budget: a gate never passes silently\n"
            "  --allow-undecided     with --fail-on-regression: undecided instances do not\n"
            "                        fail the gate (the summary still counts them)\n"
            "  --allow-layout-effects\n"
            "                        with --fail-on-regression: a regressed instance whose\n"
            "                        body's machine code is the same in both builds (only\n"
            "                        moved: a code-layout effect) does not fail the gate\n"
            "  --fail-on-undecided   exit 1 when an instance is still undecided at the budget\n"
            "  --no-futility         run an instance to its last look even when, at the spread\n"
            "                        seen, not even that look would likely decide it\n"
            "  -h, --help            this text\n"
            "Benchmark options after -- shape each run; those that change what a run is\n"
            "(--help, --list, --output, --format, --processes, --repetitions, --timeout, ...)\n"
            "are refused. No report may name an input, another report or a --keep run file.\n"
            "Exit status: 0, 1 (the gate above), 2 (bad input, a build that cannot run or\n"
            "none of whose runs worked, a --max-time no run fits in, the CodSpeed runner, no\n"
            "instance in common), 128+N after signal N (partial report; what the interrupted\n"
            "run completed is pooled).\n",
            ompb__report_format_help());
}

#define bad(...) ompb__tool_usage_error(OMPB__AB_TOOL, __VA_ARGS__)

static int parse_count(const char *opt, const char *v, uint64_t min, uint64_t max, size_t *out)
{
    uint64_t n;
    if (ompb__parse_uint(v, min, max, &n))
        return bad("%s: invalid value '%s' (accepted: a whole number from %llu to %llu)", opt,
                   v, (unsigned long long)min, (unsigned long long)max);
    *out = (size_t)n;
    return 0;
}

static int parse_duration(const char *opt, const char *v, uint64_t *ns)
{
    if (ompb__parse_duration(v, ns) || *ns == 0)
        return bad("%s: invalid value '%s' (accepted: a duration above 0 with a unit: ns, us, "
                   "ms, s, m; e.g. 10m or 30s)", opt, v);
    return 0;
}

static int parse_cmd(ompb__ab_settings *set, int side, const char *v)
{
    if (!*v || strspn(v, " \t") == strlen(v))
        return bad("--%s-cmd: empty command (accepted: a shell command that runs the "
                   "benchmark binary, e.g. 'mpirun -np 2 build/benches/examples')",
                   side ? "head" : "base");
    set->cmd[side] = v;
    set->shell[side] = true;
    return 0;
}

static int parse_value_option(int argc, char **argv, int *i, ab_args *a)
{
    ompb__ab_settings *set = &a->set;
    const char *v;
    if ((v = ompb__tool_option_value(argc, argv, i, "--base-cmd")))
        return parse_cmd(set, OMPB__AB_BASE, v);
    if ((v = ompb__tool_option_value(argc, argv, i, "--head-cmd")))
        return parse_cmd(set, OMPB__AB_HEAD, v);
    if ((v = ompb__tool_option_value(argc, argv, i, "--min-runs")))
        return parse_count("--min-runs", v, 2, OMPB__SEQ_MAX_RUNS, &set->min_runs);
    if ((v = ompb__tool_option_value(argc, argv, i, "--max-runs")))
        return parse_count("--max-runs", v, 2, OMPB__SEQ_MAX_RUNS, &set->max_runs);
    static const char *const budget[] = {"--max-time", "--time"};
    for (size_t k = 0; k < 2; k++)
        if ((v = ompb__tool_option_value(argc, argv, i, budget[k]))) {
            set->time_text = v;
            set->time_opt = budget[k];
            return parse_duration(budget[k], v, &set->time_ns);
        }
    if ((v = ompb__tool_option_value(argc, argv, i, "--timeout"))) {
        a->x.timeout = v;
        return parse_duration("--timeout", v, &a->x.timeout_ns);
    }
    if ((v = ompb__tool_option_value(argc, argv, i, "--metric"))) {
        if (!*v)
            return bad("--metric: empty value (accepted: time, a counter of --counters such as "
                       "instructions, or a user counter's name)");
        set->metric = v;
        return 0;
    }
    if ((v = ompb__tool_option_value(argc, argv, i, "--threshold")))
        return ompb__tool_parse_threshold(OMPB__AB_TOOL, v, &set->opts.threshold);
    if ((v = ompb__tool_option_value(argc, argv, i, "--alpha")))
        return ompb__tool_parse_alpha(OMPB__AB_TOOL, v, &set->opts.alpha);
    if ((v = ompb__tool_option_value(argc, argv, i, "--seed"))) {
        uint64_t s;
        if (ompb__parse_uint(v, 0, UINT64_MAX, &s))
            return bad("--seed: invalid value '%s' (accepted: a whole number from 0 to "
                       "18446744073709551615)", v);
        set->seed = s;
        a->seed_given = true;
        return 0;
    }
    if ((v = ompb__tool_option_value(argc, argv, i, "--pair-by"))) {
        if (strcmp(v, "auto") == 0)
            set->pair_by = OMPB__AB_PAIR_AUTO;
        else if (strcmp(v, "run") == 0)
            set->pair_by = OMPB__AB_PAIR_RUN;
        else if (strcmp(v, "instance") == 0)
            set->pair_by = OMPB__AB_PAIR_INSTANCE;
        else
            return bad("--pair-by: invalid value '%s' (accepted: auto, instance, run)", v);
        return 0;
    }
    if ((v = ompb__tool_option_value(argc, argv, i, "--format"))) {
        return ompb__tool_parse_format(OMPB__AB_TOOL, v, &a->format);
    }
    const char **dest = (v = ompb__tool_option_value(argc, argv, i, "--keep"))       ? &a->keep
                        : (v = ompb__tool_option_value(argc, argv, i, "--output"))   ? &a->output
                        : (v = ompb__tool_option_value(argc, argv, i, "--markdown")) ? &a->markdown
                        : (v = ompb__tool_option_value(argc, argv, i, "--json"))     ? &a->json
                                                                                     : NULL;
    if (!dest)
        return bad("unknown option or missing value: '%s' (accepted: --base-cmd CMD, --head-cmd "
                   "CMD, --min-runs N, --max-runs N, --max-time D, --time D, --timeout D, "
                   "--threshold PCT, --metric NAME, --alpha A, --seed S, --pair-by WHAT, --keep DIR, "
                   "--format FMT, --output "
                   "FILE, --markdown FILE, --json FILE, --fail-on-regression, "
                   "--allow-undecided, --allow-layout-effects, --fail-on-undecided, "
                   "--no-futility, --help; "
                   "benchmark options go after --)", argv[*i]);
    if (!*v)
        return bad("%s: empty path", argv[*i - 1]);
    *dest = v;
    return 0;
}

static int parse_option(int argc, char **argv, int *i, ab_args *a)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
        a->help = true;
    else if (strcmp(arg, "--fail-on-regression") == 0)
        a->gate.fail_on_regression = true;
    else if (strcmp(arg, "--fail-on-undecided") == 0)
        a->gate.fail_on_undecided = true;
    else if (strcmp(arg, "--allow-undecided") == 0)
        a->gate.allow_undecided = true;
    else if (strcmp(arg, "--allow-layout-effects") == 0)
        a->gate.allow_layout = true;
    else if (strcmp(arg, "--no-futility") == 0)
        a->no_futility = true;
    else
        return parse_value_option(argc, argv, i, a);
    return 0;
}

/* The positional binaries fill the sides without a --base-cmd/--head-cmd. */
static int place_binaries(ab_args *a)
{
    ompb__ab_settings *set = &a->set;
    size_t want = (set->cmd[0] ? 0 : 1) + (set->cmd[1] ? 0 : 1), k = 0;
    if (a->n_positional != want)
        return bad("expected %zu benchmark binar%s (BASE HEAD, or --base-cmd/--head-cmd for "
                   "a side), got %zu; see --help", want, want == 1 ? "y" : "ies",
                   a->n_positional);
    for (int s = 0; s < 2; s++)
        if (!set->cmd[s])
            set->cmd[s] = a->positional[k++];
    return 0;
}

static int check_settings(ab_args *a)
{
    ompb__ab_settings *set = &a->set;
    if (set->max_runs < set->min_runs)
        return bad("--max-runs %zu is below --min-runs %zu (accepted: --max-runs >= --min-runs)",
                   set->max_runs, set->min_runs);
    if (ompb__seq_plan_init(&set->plan, set->min_runs, set->max_runs, set->opts.alpha,
                            set->opts.threshold))
        return bad("cannot plan looks from %zu to %zu runs", set->min_runs, set->max_runs);
    set->plan.futility = !a->no_futility;
    const char *outs[] = {a->output, a->markdown, a->json};
    static const char *const opts[] = {"--output", "--markdown", "--json"};
    for (size_t i = 0; i < 3; i++) {
        ompb_error err = {0};
        if (outs[i] && ompb__outfile_probe(outs[i], &err))
            return bad("%s", err.text);
    }
    int rc = ompb__ab_check_bench_args(&a->x);
    return rc ? rc : ompb__ab_check_outputs(set, &a->x, a->keep, opts, outs, 3);
}

static int parse_args(int argc, char **argv, ab_args *a)
{
    ompb__ab_settings *set = &a->set;
    set->opts = (ompb__compare_opts){OMPB__COMPARE_DEFAULT_THRESHOLD, OMPB__COMPARE_DEFAULT_ALPHA};
    set->min_runs = OMPB__SEQ_DEFAULT_MIN_RUNS;
    set->max_runs = OMPB__SEQ_DEFAULT_MAX_RUNS;
    set->time_ns = OMPB__AB_DEFAULT_MAX_TIME_NS;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        int rc = 0;
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            rc = parse_option(argc, argv, &i, a);
        else if (a->n_positional < 2)
            a->positional[a->n_positional++] = argv[i];
        else
            rc = bad("unexpected argument '%s' (accepted: BASE HEAD; benchmark options go "
                     "after --)", argv[i]);
        if (rc)
            return rc;
    }
    if (i < argc) {
        a->x.bench_args = argv + i + 1;
        a->x.n_bench_args = (size_t)(argc - i - 1);
    }
    if (a->help)
        return 0;
    int rc = place_binaries(a);
    return rc ? rc : check_settings(a);
}

/* ---- the run directory ---------------------------------------------------- */

static int make_dir(ab_args *a)
{
    if (a->keep) {
        errno = 0;
        if (mkdir(a->keep, 0777) != 0 && errno != EEXIST)
            return bad("--keep: cannot create '%s': %s", a->keep, strerror(errno));
        struct stat st;
        errno = 0;
        if (stat(a->keep, &st) != 0 || !S_ISDIR(st.st_mode) || access(a->keep, W_OK | X_OK) != 0)
            return bad("--keep: '%s' is not a writable directory%s%s", a->keep,
                       errno ? ": " : "", errno ? strerror(errno) : "");
        a->x.dir = a->keep;
        a->set.keep = true;
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(a->tmpdir, sizeof a->tmpdir, "%s/ompbench-ab.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(a->tmpdir))
        return bad("cannot create a directory for the runs in '%s': %s",
                   tmp && *tmp ? tmp : "/tmp", strerror(errno));
    a->x.dir = a->tmpdir;
    return 0;
}

static void remove_dir(ab_args *a)
{
    const ompb__ab_ledger *l = &a->l;
    if (a->set.keep || !a->x.dir)
        return;
    char path[4200];
    for (size_t i = 0; i < l->n_runs; i++) {
        if (!l->runs[i].path || !l->runs[i].log || !l->runs[i].names)
            continue;   /* out of memory before its files were named */
        unlink(l->runs[i].path);
        unlink(l->runs[i].log);
        unlink(l->runs[i].names);
        /* The journal a run killed after its grace left (docs/guide.md). */
        snprintf(path, sizeof path, "%s.journal", l->runs[i].path);
        unlink(path);
    }
    static const char *const lists[] = {"base.list", "head.list", "base-list.log",
                                        "head-list.log"};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", a->x.dir, lists[i]);
        unlink(path);
    }
    rmdir(a->x.dir);
}

/* ---- before the first run ------------------------------------------------- */

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Both sides' --list: runnable, and which instances they have in common. */
static int list_both(const ompb__ab_exec *x, const ompb__ab_settings *set, ompb__ab_rows *rows)
{
    for (int s = 0; s < 2; s++) {
        char **names;
        size_t n;
        int rc = ompb__ab_list(x, set, rows, s, &names, &n);
        if (rc)
            return rc;
        rc = ompb__ab_rows_add_listed(rows, s, names, n);
        free_names(names, n);
        if (rc)
            return bad("out of memory");
    }
    size_t common = 0, only[2] = {0, 0};
    for (size_t i = 0; i < rows->n; i++) {
        bool b = rows->v[i].listed[0], h = rows->v[i].listed[1];
        common += b && h;
        only[0] += b && !h;
        only[1] += h && !b;
    }
    if (common == 0)
        return bad("BASE and HEAD have no instance in common (%zu only in BASE, %zu only in "
                   "HEAD); nothing to compare", only[0], only[1]);
    if (only[0] || only[1])
        fprintf(stderr, OMPB__AB_TOOL ": warning: BASE and HEAD list different instances: %zu "
                "new (only in HEAD), %zu missing (only in BASE); comparing the %zu in common\n",
                only[1], only[0], common);
    return 0;
}

static int refuse_runner(void)
{
    const char *env = getenv("CODSPEED_ENV");
    if (!env || !*env)
        return 0;
    return bad("refused under the CodSpeed runner (CODSPEED_ENV=%s): its benchmark windows "
               "take one binary's results, not two builds run alternately; run ompbench ab "
               "outside `codspeed run` (or each build under the runner on its own)", env);
}

/* ---- the pairs ------------------------------------------------------------ */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* One pair: BASE and HEAD in a random order, over the open rows (all of
 * them when all is set, only the instance named only when not NULL). A
 * run that would start after the end of --time would be stopped at once:
 * it does not start. Returns 0 (also when --metric failed: metric_error
 * says it), or an error. */
static int run_pair(ab_args *a, uint64_t *order, uint64_t deadline, bool all, const char *only)
{
    ompb__ab_exec *x = &a->x;
    int first = (int)(splitmix(order) & 1);
    for (int k = 0; k < 2 && !ompb__ab_stop_signal() && (!deadline || ompb__now_ns() < deadline);
         k++) {
        int rc = ompb__ab_run_side(x, &a->set, &a->l, &a->rows, k ? !first : first, all, only,
                                   deadline);
        if (rc || x->metric_error[0])
            return rc;
    }
    return 0;
}

/* A round of pairs by instance (pair `pair`, numbered from 0): a pair for
 * each instance open now, in the rows' order. The rows do not change until
 * the judge, after the round, so their names are passed as they are. With
 * --pair-by auto, a round that has taken OMPB__AB_AUTO_ROUND_RATIO times
 * the first pair's first_pair_s is cut before its next pair, and the pairs
 * are by run from the next one on (*cut set): the pairs it made stand,
 * each a BASE and a HEAD run of one instance. */
static int run_instance_pairs(ab_args *a, uint64_t *order, uint64_t deadline, size_t pair,
                              double first_pair_s, bool *cut)
{
    const ompb__ab_rows *rows = &a->rows;
    uint64_t t0 = ompb__now_ns();
    size_t open = 0, done = 0;
    for (size_t i = 0; i < rows->n; i++)
        open += ompb__ab_row_runs_again(&rows->v[i]);
    *cut = false;
    for (size_t i = 0; i < rows->n; i++) {
        if (!ompb__ab_row_runs_again(&rows->v[i]))
            continue;
        if (ompb__ab_stop_signal() || (deadline && ompb__now_ns() >= deadline))
            return 0;
        double spent = (double)(ompb__now_ns() - t0) / 1e9;
        if (a->set.pair_by == OMPB__AB_PAIR_AUTO && spent > OMPB__AB_AUTO_ROUND_RATIO * first_pair_s) {
            *cut = true;
            a->res.by_run_from = pair + 2;
            snprintf(a->res.pairing_note, sizeof a->res.pairing_note,
                     "pairs by run from pair %zu: pair %zu, by instance, had taken %.1f s for "
                     "%zu of its %zu instances, over %.0fx the first pair's %.1f s",
                     pair + 2, pair + 1, spent, done, open, OMPB__AB_AUTO_ROUND_RATIO,
                     first_pair_s);
            return 0;
        }
        int rc = run_pair(a, order, deadline, false, rows->v[i].name);
        if (rc || a->x.metric_error[0])
            return rc;
        done++;
    }
    return 0;
}

static int run_pairs(ab_args *a)
{
    const ompb__ab_settings *set = &a->set;
    ompb__ab_exec *x = &a->x;
    uint64_t order = set->seed, deadline = set->time_ns ? x->start_ns + set->time_ns : 0;
    double last_pair = 0.0, first_pair = 0.0;
    a->res.by_run_from = set->pair_by == OMPB__AB_PAIR_RUN ? 2 : 0;
    for (size_t pair = 0;; pair++) {
        double elapsed = (double)(ompb__now_ns() - x->start_ns) / 1e9;
        if (ompb__ab_should_stop(set, &a->l, pair, elapsed, last_pair, ompb__ab_stop_signal(),
                                 &a->res))
            break;
        uint64_t t0 = ompb__now_ns();
        bool by_instance = pair > 0 && (a->res.by_run_from == 0 || pair + 1 < a->res.by_run_from);
        bool cut = false;
        int rc = by_instance ? run_instance_pairs(a, &order, deadline, pair, first_pair, &cut)
                             : run_pair(a, &order, deadline, pair == 0, NULL);
        if (rc)
            return rc;
        if (x->metric_error[0])
            return 0;
        rc = ompb__ab_judge(set, &a->l, &a->rows, &a->res);
        if (rc)
            return rc;
        ompb__ab_progress(x, set, &a->l, &a->rows, false);
        last_pair = (double)(ompb__now_ns() - t0) / 1e9;
        if (pair == 0)
            first_pair = last_pair;
        /* A cut round says nothing of the pairs by run that follow: the
         * budget's estimate of the next pair is the first pair's. */
        if (cut)
            last_pair = first_pair;
    }
    return 0;
}

/* ---- the report and the gate ---------------------------------------------- */

static int print(FILE *out, const ab_args *a, ompb__report_format fmt)
{
    return ompb__ab_print(out, &a->set, &a->l, &a->rows, &a->res, fmt);
}

static int write_one(const ab_args *a, const char *path, ompb__report_format fmt)
{
    ompb__outfile of;
    ompb_error err = {0};
    if (!path)
        return print(stdout, a, fmt) ? 2 : 0;
    if (ompb__outfile_open(&of, path, &err))
        return bad("%s", err.text);
    if (print(of.fp, a, fmt)) {
        int e = errno;
        ompb__outfile_abort(&of);
        return bad("cannot write '%s': %s", path, strerror(e));
    }
    if (ompb__outfile_commit(&of, &err))
        return bad("%s", err.text);
    return 0;
}

static int write_reports(const ab_args *a)
{
    int rc = write_one(a, a->output, a->format);
    if (!rc && a->markdown)
        rc = write_one(a, a->markdown, OMPB__REPORT_MARKDOWN);
    if (!rc && a->json)
        rc = write_one(a, a->json, OMPB__REPORT_JSON);
    return rc;
}

/* The exit status: 128 + N after signal N, else the gate's (analysis/ab.h). */
static int gate(const ab_args *a)
{
    if (a->res.partial)
        return 128 + ompb__ab_stop_signal();
    return ompb__ab_gate(&a->gate, &a->l, &a->rows, &a->res, stderr);
}

static int run(ab_args *a)
{
    ompb__ab_settings *set = &a->set;
    ompb__ab_exec *x = &a->x;
    x->progress = isatty(STDERR_FILENO);
    if (!a->seed_given)
        set->seed = ompb__seed_from_clock();
    ompb__ab_catch_signals();
    x->start_ns = ompb__now_ns();
    int rc = list_both(x, set, &a->rows);
    if (rc)
        return rc;
    x->list_seconds = (double)(ompb__now_ns() - x->start_ns) / 1e9;
    fprintf(stderr, OMPB__AB_TOOL ": seed %llu (--seed %llu repeats the order)%s%s\n",
            (unsigned long long)set->seed, (unsigned long long)set->seed,
            set->keep ? "; runs kept in " : "", set->keep ? x->dir : "");
    if ((rc = run_pairs(a)) || (rc = ompb__ab_judge(set, &a->l, &a->rows, &a->res)))
        return rc == OMPB_ENOMEM ? bad("out of memory")
                                 : bad("cannot write a run's files in '%s': %s", x->dir,
                                       strerror(errno));
    ompb__ab_check_code(&a->rows);
    if (x->metric_error[0])
        return bad("%s", x->metric_error);
    ompb__ab_progress(x, set, &a->l, &a->rows, true);
    a->res.seconds = (double)(ompb__now_ns() - x->start_ns) / 1e9;
    if (a->res.partial)
        fprintf(stderr, OMPB__AB_TOOL ": %s: writing the report of what was run so far\n",
                a->res.stop_reason);
    ompb__ab_warn(set, &a->l, &a->rows);
    /* No run at all within --max-time: bad input, no report. */
    if (!a->res.partial && a->l.n_runs == 0)
        return ompb__ab_check_compared(set, x, &a->l, &a->res);
    if ((rc = write_reports(a)))
        return rc;
    /* A HEAD that crashed or hung fails the gate (1) before anything
     * else; a side without a usable run compared nothing (2). */
    if (!a->res.partial && !(a->gate.fail_on_regression && ompb__ab_head_faulted(&a->l)) &&
        (rc = ompb__ab_check_compared(set, x, &a->l, &a->res)))
        return rc;
    return gate(a);
}

int ompb__tool_ab(int argc, char **argv)
{
    ab_args a;
    memset(&a, 0, sizeof a);
    int status = parse_args(argc, argv, &a);
    if (status || a.help) {
        if (a.help && !status)
            usage(stdout);
        return status ? 2 : 0;
    }
    if ((status = refuse_runner()) || (status = make_dir(&a)))
        return status;
    status = run(&a);
    remove_dir(&a);
    ompb__ab_rows_free(&a.rows);
    ompb__ab_ledger_free(&a.l);
    return status;
}
