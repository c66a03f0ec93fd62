/* SPDX-License-Identifier: MIT */
/*
 * Command line and environment -> ompb__config. Every rejected value yields
 * one line naming the option, the value and what is accepted; the caller
 * prints it and exits 2. Nothing here runs a benchmark or writes a file.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "clock.h"
#include "constants.h"
#include "counters.h"
#include "error.h"
#include "filter.h"
#include "parse.h"
#include "pin.h"
#include "slurm.h"
#include "report/reporters.h"

#define THREADS_ACCEPTED "N, N,M,... (no repeats), A..B (powers of two plus the ends) or max, with 1 <= N <= " OMPB__STR(OMPB__MAX_THREADS)

typedef enum { ARG_NONE, ARG_REQUIRED } arg_kind;

typedef struct option_def {
    const char *name;
    arg_kind arg;
    int (*apply)(ompb__config *cfg, const char *opt, const char *value, ompb_error *err);
} option_def;

/* Digits only: no blanks, no sign, no hex (lib/parse.h). */
static int parse_positive_int(const char *text, long max, long *out)
{
    uint64_t v;
    if (ompb__parse_uint(text, 1, (uint64_t)max, &v) != 0)
        return OMPB_EINVAL;
    *out = (long)v;
    return 0;
}

static int parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    return ompb__parse_uint(text, 1, max, out);
}

/* A..B: powers of two strictly between, plus both ends. */
static int expand_range(long lo, long hi, int *out, size_t cap, size_t *n)
{
    size_t k = 0;
    out[k++] = (int)lo;
    for (long p = 1; p < hi; p *= 2)
        if (p > lo && k < cap)
            out[k++] = (int)p;
    if (hi != lo && k < cap)
        out[k++] = (int)hi;
    *n = k;
    return 0;
}

int ompb__parse_thread_list(const char *text, int max_threads, int *out, size_t cap,
                            size_t *n, ompb_error *err)
{
    if (strcmp(text, "max") == 0) {
        out[0] = max_threads;
        *n = 1;
        return 0;
    }
    const char *dots = strstr(text, "..");
    if (dots) {
        char lo_s[32];
        long lo, hi;
        size_t len = (size_t)(dots - text);
        if (len >= sizeof lo_s)
            goto bad;
        memcpy(lo_s, text, len);
        lo_s[len] = '\0';
        if (parse_positive_int(lo_s, OMPB__MAX_THREADS, &lo) || parse_positive_int(dots + 2, OMPB__MAX_THREADS, &hi)
            || hi < lo)
            goto bad;
        return expand_range(lo, hi, out, cap, n);
    }
    char buf[512];
    if (strlen(text) >= sizeof buf)
        goto bad;
    strcpy(buf, text);
    size_t k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long v;
        if (parse_positive_int(tok, OMPB__MAX_THREADS, &v) || k == cap)
            goto bad;
        for (size_t j = 0; j < k; j++)
            if (out[j] == (int)v)
                goto bad; /* a repeat would give two instances the same name */
        out[k++] = (int)v;
    }
    if (k == 0 || text[strlen(text) - 1] == ',' || text[0] == ',' || strstr(text, ",,"))
        goto bad;
    *n = k;
    return 0;
bad:
    return ompb__error_set(err, OMPB_EINVAL, "--threads: invalid value '%s' (accepted: %s)",
                           text, THREADS_ACCEPTED);
}

static int opt_threads(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    (void)opt;
    return ompb__parse_thread_list(value, omp_get_num_procs(), cfg->threads,
                                   OMPB__MAX_THREAD_LIST, &cfg->n_threads, err);
}

static int too_many_selections(const char *opt, ompb_error *err)
{
    return ompb__error_set(err, OMPB_EINVAL, "%s: more than %d selections (accepted: up to %d "
                           "--filter and %d --exact options, each narrowing the selection)", opt,
                           OMPB__MAX_SELECTIONS, OMPB__MAX_SELECTIONS, OMPB__MAX_SELECTIONS);
}

static int opt_filter(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    if (cfg->n_filters == OMPB__MAX_SELECTIONS)
        return too_many_selections(opt, err);
    if (ompb__filter_compile(&cfg->filter[cfg->n_filters], value, opt, err) != 0)
        return OMPB_EINVAL;
    cfg->filter_text[cfg->n_filters++] = value;
    return 0;
}

static int opt_count(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    bool count = strcmp(opt, "--sample-count") == 0;
    uint64_t max = count ? OMPB__MAX_SAMPLE_COUNT : OMPB__MAX_SAMPLE_SIZE;
    if (parse_u64(value, max, count ? &cfg->sample_count : &cfg->sample_size) != 0)
        return ompb__error_set(err, OMPB_EINVAL, "%s: invalid value '%s' (accepted: an integer from 1 to %" PRIu64 ")",
                               opt, value, max);
    return 0;
}

static int opt_repetitions(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    uint64_t v;
    if (parse_u64(value, OMPB__MAX_REPETITIONS, &v) != 0)
        return ompb__error_set(err, OMPB_EINVAL, "%s: invalid value '%s' (accepted: an integer from 1 to %d)",
                               opt, value, OMPB__MAX_REPETITIONS);
    if (strcmp(opt, "--processes") == 0)
        cfg->processes = (uint32_t)v;
    else
        cfg->repetitions = (uint32_t)v;
    return 0;
}

/* Any 64-bit value, 0 included, in decimal or 0x hexadecimal. */
static int parse_seed(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*text || text[0] == '-' || text[0] == '+' || text[0] == ' ')
        return OMPB_EINVAL;
    unsigned long long v = strtoull(text, &end, 0);
    if (end == text || *end || errno)
        return OMPB_EINVAL;
    *out = v;
    return 0;
}

static int opt_seed(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    if (parse_seed(value, &cfg->seed) != 0)
        return ompb__error_set(err, OMPB_EINVAL, "%s: invalid value '%s' (accepted: an integer from 0 to "
                               "18446744073709551615, decimal or 0x hexadecimal)", opt, value);
    cfg->seed_given = true;
    return 0;
}

/* --ompb-child=K,SEED,PATH: written by lib/children.c only, never by a user,
 * so it is not in --help; still checked, as any input. */
static int opt_child(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    char *end;
    errno = 0;
    unsigned long k = strtoul(value, &end, 10);
    if (end == value || *end != ',' || errno || k >= OMPB__MAX_REPETITIONS)
        goto bad;
    const char *seed = end + 1, *comma = strchr(seed, ',');
    char text[32];
    if (!comma || (size_t)(comma - seed) >= sizeof text || !comma[1])
        goto bad;
    memcpy(text, seed, (size_t)(comma - seed));
    text[comma - seed] = '\0';
    if (parse_seed(text, &cfg->seed) != 0)
        goto bad;
    cfg->seed_given = true;
    cfg->child = true;
    cfg->child_index = (uint32_t)k;
    cfg->child_path = comma + 1;
    return 0;
bad:
    return ompb__error_set(err, OMPB_EINVAL, "%s: invalid value '%s' (internal option of --processes; "
                           "accepted: K,SEED,PATH)", opt, value);
}

static int opt_duration(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    uint64_t ns;
    uint64_t *dst = strcmp(opt, "--warmup-time") == 0 ? &cfg->warmup_ns
                    : strcmp(opt, "--min-time") == 0 ? &cfg->min_time_ns
                    : strcmp(opt, "--timeout") == 0  ? &cfg->timeout_ns
                                                      : &cfg->max_time_ns;
    bool positive = dst == &cfg->max_time_ns || dst == &cfg->timeout_ns;
    /* 0 is a duration for the others, never for --max-time or --timeout: its text must
     * not offer it. */
    if (ompb__parse_duration(value, &ns) != 0 || (ns == 0 && positive))
        return ompb__error_set(err, OMPB_EINVAL,
                               "%s: invalid duration '%s' (accepted: %s with unit ns, us, ms, s "
                               "or m, e.g. 500ms, 2s%s)", opt, value,
                               positive ? "a number above zero" : "a number", positive ? "" : ", or 0");
    *dst = ns;
    return 0;
}

static int opt_format(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    const struct ompb__reporter **dst =
        strcmp(opt, "--output-format") == 0 ? &cfg->output_reporter : &cfg->reporter;
    *dst = ompb__reporter_find(value);
    if (!*dst)
        return ompb__error_set(err, OMPB_EINVAL, "%s: unknown format '%s' (accepted: %s)",
                               opt, value, ompb__reporter_names());
    return 0;
}

static int empty_value(const char *opt, ompb_error *err)
{
    return ompb__error_set(err, OMPB_EINVAL, "%s: empty value (accepted: a non-empty string)", opt);
}

static int opt_string(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    if (!*value)
        return empty_value(opt, err);
    if (strcmp(opt, "--exact") == 0) {
        if (cfg->n_exact == OMPB__MAX_SELECTIONS)
            return too_many_selections(opt, err);
        cfg->exact[cfg->n_exact++] = value;
    } else if (strcmp(opt, "--output") == 0)
        cfg->output = value;
    else
        cfg->topology_xml = value;
    return 0;
}

/* --pin is parsed here, once (a second --pin is refused before this). */
static int opt_pin(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    ompb__pin_spec pin;
    if (!*value)
        return empty_value(opt, err);
    if (ompb__pin_parse(value, &pin, err) != 0)
        return OMPB_EINVAL;
    ompb__pin_spec_release(&cfg->pin);
    cfg->pin = pin;
    return 0;
}

/* --counters is parsed here, once; whether this machine can count the
 * events is checked before the run (ompb__counters_probe). */
static int opt_counters(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    (void)opt;
    return ompb__counters_parse(value, &cfg->counters, err);
}

static int opt_flag(ompb__config *cfg, const char *opt, const char *value, ompb_error *err)
{
    (void)value;
    (void)err;
    bool *flag = strcmp(opt, "--list") == 0        ? &cfg->list
                 : strcmp(opt, "--test") == 0      ? &cfg->test
                 : strcmp(opt, "--show-plan") == 0 ? &cfg->show_plan
                 : strcmp(opt, "--list-counters") == 0 ? &cfg->list_counters
                 : strcmp(opt, "--version") == 0   ? &cfg->version
                                                   : &cfg->help;
    *flag = true;
    return 0;
}

static const option_def options[] = {
    {"--list", ARG_NONE, opt_flag},           {"--filter", ARG_REQUIRED, opt_filter},
    {"--exact", ARG_REQUIRED, opt_string},    {"--threads", ARG_REQUIRED, opt_threads},
    {"--sample-count", ARG_REQUIRED, opt_count}, {"--sample-size", ARG_REQUIRED, opt_count},
    {"--warmup-time", ARG_REQUIRED, opt_duration}, {"--min-time", ARG_REQUIRED, opt_duration},
    {"--max-time", ARG_REQUIRED, opt_duration}, {"--timeout", ARG_REQUIRED, opt_duration},
    {"--format", ARG_REQUIRED, opt_format}, {"--output-format", ARG_REQUIRED, opt_format},
    {"--output", ARG_REQUIRED, opt_string},   {"--test", ARG_NONE, opt_flag},
    {"--pin", ARG_REQUIRED, opt_pin},         {"--show-plan", ARG_NONE, opt_flag},
    {"--topology-xml", ARG_REQUIRED, opt_string}, {"--help", ARG_NONE, opt_flag},
    {"-h", ARG_NONE, opt_flag},               {"--version", ARG_NONE, opt_flag},
    {"--counters", ARG_REQUIRED, opt_counters}, {"--list-counters", ARG_NONE, opt_flag},
    {"--repetitions", ARG_REQUIRED, opt_repetitions}, {"--processes", ARG_REQUIRED, opt_repetitions},
    {"--seed", ARG_REQUIRED, opt_seed},       {OMPB__CHILD_OPTION, ARG_REQUIRED, opt_child},
};

#define N_OPTIONS (sizeof options / sizeof options[0])

static const option_def *find_option(const char *arg, size_t name_len)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (strlen(options[i].name) == name_len && strncmp(arg, options[i].name, name_len) == 0)
            return &options[i];
    return NULL;
}

/* One element of OMP_NUM_THREADS as libgomp reads it (checked against
 * libgomp 12 on Debian 12): blanks, an optional '+', decimal digits, a
 * value above zero that fits an unsigned long, blanks. Returns the end. */
static const char *omp_threads_element(const char *p, uint64_t *v)
{
    while (isspace((unsigned char)*p))
        p++;
    p += *p == '+';
    const char *digits = p;
    *v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (*v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return NULL;
        *v = *v * 10 + (uint64_t)(*p - '0');
    }
    if (p == digits || *v == 0)
        return NULL;
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* OMP_NUM_THREADS is a nesting list ("4" or "4,2"): the first level is
 * ours. What libgomp refuses ("4 junk", "2,abc", "4,", "", "0x4") we
 * refuse too, rather than run at a width libgomp itself ignored. */
static int default_threads_from_env(ompb__config *cfg, ompb_error *err)
{
    const char *env = getenv("OMP_NUM_THREADS"), *p = env;
    uint64_t first = 0, v;
    if (!env) {
        /* In a Slurm job the team is as wide as the task's CPUs, even when
         * srun did not bind the task to them (--cpu-bind=none). */
        int slurm = ompb__slurm_cpus_per_task();
        cfg->default_threads = slurm > 0 && slurm <= OMPB__MAX_THREADS ? slurm
                                                                  : omp_get_max_threads();
        return 0;
    }
    while ((p = omp_threads_element(p, &v)) != NULL) {
        first = first ? first : v;
        if (*p != ',')
            break;
        p++;
    }
    if (!p || *p || first > OMPB__MAX_THREADS)
        return ompb__error_set(err, OMPB_EINVAL,
                               "OMP_NUM_THREADS: invalid value '%s' (accepted: a positive integer up to %d, "
                               "optionally followed by ,N for nested levels)",
                               env, OMPB__MAX_THREADS);
    cfg->default_threads = (int)first;
    return 0;
}

/* OMPB_HOOKS_TIMEOUT_MS and OMPB_HOOKS_BUDGET_MS are read by the hooks
 * when they connect; a typo there would silently mean the default, so the
 * command line checks them. */
static int hooks_ms_from_env(const char *name, ompb_error *err)
{
    const char *env = getenv(name);
    uint64_t ms;
    if (!env || ompb__parse_uint(env, 1, OMPB__HOOKS_TIMEOUT_MAX_MS, &ms) == 0)
        return 0;
    return ompb__error_set(err, OMPB_EINVAL, "%s: invalid value '%s' (accepted: an integer "
                           "number of milliseconds from 1 to %d)", name, env,
                           OMPB__HOOKS_TIMEOUT_MAX_MS);
}

static int hooks_env(ompb_error *err)
{
    int rc = hooks_ms_from_env(OMPB__HOOKS_TIMEOUT_ENV, err);
    return rc ? rc : hooks_ms_from_env(OMPB__HOOKS_BUDGET_ENV, err);
}

/* --list, --show-plan and --list-counters print to standard output: an
 * --output that would be ignored is refused instead. */
static int check_combinations(const ompb__config *cfg, ompb_error *err)
{
    const char *printer = cfg->list ? "--list"
                          : cfg->show_plan ? "--show-plan"
                          : cfg->list_counters ? "--list-counters" : NULL;
    if (cfg->output && printer)
        return ompb__error_set(err, OMPB_EINVAL, "--output: not used with %s, which prints to "
                               "standard output (accepted: --output with a run; redirect the "
                               "output of %s instead, e.g. > FILE)", printer, printer);
    if (cfg->output_reporter && !cfg->output)
        return ompb__error_set(err, OMPB_EINVAL, "--output-format %s: no --output FILE to "
                               "write it to (accepted: --output FILE --output-format FMT, the "
                               "file beside the table on standard output; or --format FMT "
                               "alone for standard output)", cfg->output_reporter->name);
    return 0;
}

static void set_defaults(ompb__config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->sample_count = OMPB__DEFAULT_SAMPLE_COUNT;
    cfg->warmup_ns = OMPB__DEFAULT_WARMUP_NS;
    cfg->min_time_ns = OMPB__DEFAULT_MIN_TIME_NS;
    cfg->max_time_ns = OMPB__DEFAULT_MAX_TIME_NS;
    cfg->reporter = ompb__reporter_default();
}

/* Checks between options, once all are read. Without --repetitions,
 * --processes P runs P repetitions, one per process. */
static int check_repetitions(ompb__config *cfg, ompb_error *err)
{
    if (cfg->repetitions == 0)
        cfg->repetitions = cfg->processes ? cfg->processes : 1;
    if (cfg->processes == 0)
        cfg->processes = 1;
    if (cfg->processes > cfg->repetitions)
        return ompb__error_set(err, OMPB_EINVAL,
                               "--processes: %u processes for %u repetitions (accepted: 1 to the "
                               "--repetitions count; each process runs at least one repetition)",
                               cfg->processes, cfg->repetitions);
    if (cfg->child && cfg->child_index >= cfg->processes)
        return ompb__error_set(err, OMPB_EINVAL, "%s: process %u of %u (internal option of --processes)",
                               OMPB__CHILD_OPTION, cfg->child_index, cfg->processes);
    return 0;
}

/* No option with a value accumulates but the selections (--filter and
 * --exact narrow one another): a second one would silently replace the
 * first (a second --output, a second --counters list), so both are named
 * and refused. Flags may repeat; they mean the same each time. */
static int check_repeat(const option_def *o, const char *value, const char **given,
                        ompb_error *err)
{
    const char **first = &given[o - options];
    if (o->arg != ARG_REQUIRED || strcmp(o->name, "--filter") == 0
        || strcmp(o->name, "--exact") == 0)
        return 0;
    if (*first)
        return ompb__error_set(err, OMPB_EINVAL, "%s: given twice, '%s' and '%s' (accepted: "
                               "the option once; it takes a single value, a list where it "
                               "accepts one)", o->name, *first, value);
    *first = value;
    return 0;
}

int ompb__config_parse(ompb__config *cfg, int argc, char **argv, ompb_error *err)
{
    const char *given[N_OPTIONS] = {0};
    set_defaults(cfg);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
        const option_def *o = find_option(arg, eq ? (size_t)(eq - arg) : strlen(arg));
        if (!o) {
            ompb__config_release(cfg);
            return ompb__error_set(err, OMPB_EINVAL, "unknown option '%s' (see --help for the accepted options)",
                                   arg);
        }
        const char *value = NULL;
        if (o->arg == ARG_REQUIRED) {
            value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!value) {
                ompb__config_release(cfg);
                return ompb__error_set(err, OMPB_EINVAL, "%s: missing value", o->name);
            }
        } else if (eq) {
            ompb__config_release(cfg);
            return ompb__error_set(err, OMPB_EINVAL, "%s takes no value (got '%s')", o->name, eq + 1);
        }
        if (check_repeat(o, value, given, err) != 0 || o->apply(cfg, o->name, value, err) != 0) {
            ompb__config_release(cfg);
            return OMPB_EINVAL;
        }
    }
    if (cfg->help || cfg->version)
        return 0;
    if (check_repetitions(cfg, err) != 0 || default_threads_from_env(cfg, err) != 0
        || hooks_env(err) != 0 || check_combinations(cfg, err) != 0) {
        ompb__config_release(cfg);
        return OMPB_EINVAL;
    }
    return 0;
}

void ompb__config_release(ompb__config *cfg)
{
    for (size_t i = 0; i < cfg->n_filters; i++)
        regfree(&cfg->filter[i]);
    cfg->n_filters = 0;
    ompb__pin_spec_release(&cfg->pin);
}

void ompb__config_usage(const char *argv0, void *stream)
{
    char warmup[32], min_time[32], max_time[32];
    ompb__format_duration((double)OMPB__DEFAULT_WARMUP_NS, warmup, sizeof warmup);
    ompb__format_duration((double)OMPB__DEFAULT_MIN_TIME_NS, min_time, sizeof min_time);
    ompb__format_duration((double)OMPB__DEFAULT_MAX_TIME_NS, max_time, sizeof max_time);
    fprintf((FILE *)stream,
            "Usage: %s [OPTION]...\n"
            "Runs the benchmarks of this binary; each round is an OpenMP parallel region.\n"
            "\n"
            "Selection:\n"
            "  --list               print the instance names and exit\n"
            "  --filter REGEX       run instances whose name matches (POSIX extended);\n"
            "                       repeated, each --filter and --exact narrows the others\n"
            "  --exact NAME         run the instance with exactly this name\n"
            "Round width and placement:\n"
            "  --threads LIST       thread counts: 4 | 1,2,4 | 1..8 (powers of two plus\n"
            "                       the ends) | max; default OMP_NUM_THREADS, else\n"
            "                       SLURM_CPUS_PER_TASK in a Slurm job, else the\n"
            "                       OpenMP default, for benchmarks listing no counts\n"
            "  --pin POLICY         compact (default) | spread | cpus:LIST | none |\n"
            "                       LIKWID domains, e.g. S0:0-7@S1:0-7\n"
            "  --show-plan          print each instance's thread -> core/PU map and exit\n"
            "  --topology-xml FILE  export the machine's hwloc topology as XML\n"
            "Sampling:\n"
            "  --sample-count N     measured rounds per instance (default %d, at most %d)\n"
            "  --sample-size N      iterations per round per thread (default: calibrated)\n"
            "  --warmup-time D      warm-up per instance (default %s)\n"
            "  --min-time D         minimum round time when calibrating (default %s)\n"
            "  --max-time D         time budget per instance (default %s)\n"
            "  --test               run every selected instance for one short round\n"
            "  --timeout D          a repetition of an instance that runs longer (a hung\n"
            "                       body) fails and ends the run: the completed results\n"
            "                       are written, exit status 1 (default: none)\n"
            "Counters:\n"
            "  --counters LIST      performance counters per thread and round, e.g.\n"
            "                       instructions,cycles or task-clock,context-switches\n"
            "  --list-counters      print the events this machine offers and exit\n"
            "Repetitions (the budget above is per instance, split across them):\n"
            "  --repetitions N      measure each instance N times, independently, in a\n"
            "                       shuffled round-robin over the instances (default 1)\n"
            "  --processes P        run the repetitions in P fresh processes of this\n"
            "                       binary, one after another (default 1; without\n"
            "                       --repetitions: P repetitions)\n"
            "  --seed S             seed of the interleaved order (default: from the\n"
            "                       clock; printed in the header and the JSON)\n"
            "Output:\n"
            "  --format FMT         %s (default: %s)\n"
            "  --output FILE        write the report to FILE (atomically) instead of stdout\n"
            "  --output-format FMT  with --output: FILE gets FMT while stdout still gets\n"
            "                       --format's report (one run, console and file)\n"
            "  --help, --version\n"
            "Durations: a number and a unit, ns, us, ms, s or m (500ms, 2s; the unit is\n"
            "required).\n"
            "Exit status: 0 ok, 1 a benchmark failed, 2 bad option or input.\n",
            argv0, OMPB__DEFAULT_SAMPLE_COUNT, OMPB__MAX_SAMPLE_COUNT,
            warmup, min_time, max_time, ompb__reporter_names(),
            ompb__reporter_default()->name);
}
