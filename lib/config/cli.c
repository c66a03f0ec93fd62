/* SPDX-License-Identifier: MIT */
/*
 * Command line and environment -> ompb__config. Every rejected value yields
 * one line naming the option, the value and what is accepted; the caller
 * prints it and exits 2. Nothing here runs a benchmark or writes a file.
 */
#include "config/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "core/core.h"
#include "counters/counters.h"
#include "config/filter.h"
#include "placement/placement.h"
#include "report/report.h"

typedef enum { ARG_NONE, ARG_REQUIRED } arg_kind;

typedef struct option_def option_def;

/* One option is one row: the parser finds it by name and hands its value
 * to the row's handler, which writes the row's field; --help prints the
 * same row. */
struct option_def {
    const char *name;          /* "--threads" */
    arg_kind arg;
    /* --help's left column after the name: the value's name for an option
     * with one (" LIST"), the options listed with a flag (", --version") */
    const char *shown;
    int (*apply)(ompb__config *cfg, const option_def *o, const char *value, ompb_error *err);
    size_t field;              /* offsetof(ompb__config, ...) the handler writes */
    uint64_t max;              /* a count's largest value */
    bool accumulates;          /* may be given again, each value narrowing the selection */
    const char *section;       /* --help heading printed before the row; NULL: none */
    /* --help text, lines split at '\n', with "{}" standing for what part()
     * writes (defaults, the accepted values of another table); NULL: not
     * listed (aliases, the internal --ompb-child) */
    const char *help;
    void (*part)(char *buf, size_t cap);
};

/* The field a row's handler writes. */
#define FIELD(cfg, o, type) ((type *)(void *)((char *)(cfg) + (o)->field))

static int parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    return ompb__parse_uint(text, 1, max, out);
}

static int opt_threads(ompb__config *cfg, const option_def *o, const char *value,
                       ompb_error *err)
{
    (void)o;
    return ompb__parse_thread_list(value, omp_get_num_procs(), cfg->threads,
                                   OMPB__MAX_THREAD_LIST, &cfg->n_threads, err);
}

static int too_many_selections(const char *opt, ompb_error *err)
{
    return ompb__error_set(err, OMPB_EINVAL, "%s: more than %d selections (accepted: up to %d "
                           "--filter and %d --exact options, each narrowing the selection)", opt,
                           OMPB__MAX_SELECTIONS, OMPB__MAX_SELECTIONS, OMPB__MAX_SELECTIONS);
}

static int opt_filter(ompb__config *cfg, const option_def *o, const char *value,
                      ompb_error *err)
{
    if (cfg->n_filters == OMPB__MAX_SELECTIONS)
        return too_many_selections(o->name, err);
    if (ompb__filter_compile(&cfg->filter[cfg->n_filters], value, o->name, err) != 0)
        return OMPB_EINVAL;
    cfg->filter_text[cfg->n_filters++] = value;
    return 0;
}

/* An integer from 1 to the row's max, digits only. */
static int parse_count(const option_def *o, const char *value, uint64_t *v, ompb_error *err)
{
    if (parse_u64(value, o->max, v) != 0)
        return ompb__error_set(err, OMPB_EINVAL, "%s: invalid value '%s' (accepted: an integer "
                               "from 1 to %" PRIu64 ")", o->name, value, o->max);
    return 0;
}

static int opt_count(ompb__config *cfg, const option_def *o, const char *value,
                     ompb_error *err)
{
    return parse_count(o, value, FIELD(cfg, o, uint64_t), err);
}

static int opt_count32(ompb__config *cfg, const option_def *o, const char *value,
                       ompb_error *err)
{
    uint64_t v;
    if (parse_count(o, value, &v, err) != 0)
        return OMPB_EINVAL;
    *FIELD(cfg, o, uint32_t) = (uint32_t)v;
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

static int opt_seed(ompb__config *cfg, const option_def *o, const char *value, ompb_error *err)
{
    if (parse_seed(value, &cfg->seed) != 0)
        return ompb__error_set(err, OMPB_EINVAL, "%s: invalid value '%s' (accepted: an integer from 0 to "
                               "18446744073709551615, decimal or 0x hexadecimal)", o->name, value);
    cfg->seed_given = true;
    return 0;
}

/* --ompb-child=K,SEED,PATH: written by lib/run/children.c only, never by a user,
 * so it is not in --help; still checked, as any input. */
/* --ompb-journal=PATH, --ompb-journal-json=PATH: written by the run's crash
 * handler and by ompbench convert only, so not in --help. */
static int opt_journal(ompb__config *cfg, const option_def *o, const char *value,
                       ompb_error *err)
{
    if (!*value)
        return ompb__error_set(err, OMPB_EINVAL, "%s: empty value (internal option; accepted: "
                               "a journal's path)", o->name);
    cfg->journal_in = value;
    cfg->journal_json = strcmp(o->name, OMPB__JOURNAL_JSON_OPTION) == 0;
    return 0;
}

static int opt_child(ompb__config *cfg, const option_def *o, const char *value,
                     ompb_error *err)
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
                           "accepted: K,SEED,PATH)", o->name, value);
}

/* A duration with a unit; 0 only where positive is false, and then the
 * message offers it. */
static int set_duration(ompb__config *cfg, const option_def *o, const char *value,
                        bool positive, ompb_error *err)
{
    uint64_t ns;
    if (ompb__parse_duration(value, &ns) != 0 || (ns == 0 && positive))
        return ompb__error_set(err, OMPB_EINVAL,
                               "%s: invalid duration '%s' (accepted: %s with unit ns, us, ms, s "
                               "or m, e.g. 500ms, 2s%s)", o->name, value,
                               positive ? "a number above zero" : "a number", positive ? "" : ", or 0");
    *FIELD(cfg, o, uint64_t) = ns;
    return 0;
}

static int opt_duration(ompb__config *cfg, const option_def *o, const char *value,
                        ompb_error *err)
{
    return set_duration(cfg, o, value, false, err);
}

/* --max-time and --timeout: 0 would mean no time at all, not "none". */
static int opt_positive_duration(ompb__config *cfg, const option_def *o, const char *value,
                                 ompb_error *err)
{
    return set_duration(cfg, o, value, true, err);
}

static int opt_format(ompb__config *cfg, const option_def *o, const char *value,
                      ompb_error *err)
{
    const struct ompb__reporter **dst = FIELD(cfg, o, const struct ompb__reporter *);
    *dst = ompb__reporter_find(value);
    if (!*dst)
        return ompb__error_set(err, OMPB_EINVAL, "%s: unknown format '%s' (accepted: %s)",
                               o->name, value, ompb__reporter_names());
    return 0;
}

static int empty_value(const char *opt, ompb_error *err)
{
    return ompb__error_set(err, OMPB_EINVAL, "%s: empty value (accepted: a non-empty string)", opt);
}

static int opt_string(ompb__config *cfg, const option_def *o, const char *value,
                      ompb_error *err)
{
    if (!*value)
        return empty_value(o->name, err);
    *FIELD(cfg, o, const char *) = value;
    return 0;
}

static int opt_exact(ompb__config *cfg, const option_def *o, const char *value,
                     ompb_error *err)
{
    if (!*value)
        return empty_value(o->name, err);
    if (cfg->n_exact == OMPB__MAX_SELECTIONS)
        return too_many_selections(o->name, err);
    cfg->exact[cfg->n_exact++] = value;
    return 0;
}

static int opt_exact_file(ompb__config *cfg, const option_def *o, const char *value,
                          ompb_error *err)
{
    if (!*value)
        return empty_value(o->name, err);
    return ompb__names_file_load(&cfg->exact_file, value, o->name, err) ? OMPB_EINVAL : 0;
}

/* --pin is parsed here, once (a second --pin is refused before this). */
static int opt_pin(ompb__config *cfg, const option_def *o, const char *value, ompb_error *err)
{
    ompb__pin_spec pin;
    if (!*value)
        return empty_value(o->name, err);
    if (ompb__pin_parse(value, &pin, err) != 0)
        return OMPB_EINVAL;
    ompb__pin_spec_release(&cfg->pin);
    cfg->pin = pin;
    return 0;
}

/* --counters is parsed here, once; whether this machine can count the
 * events is checked before the run (ompb__counters_probe). */
static int opt_counters(ompb__config *cfg, const option_def *o, const char *value,
                        ompb_error *err)
{
    (void)o;
    return ompb__counters_parse(value, &cfg->counters, err);
}

static int opt_flag(ompb__config *cfg, const option_def *o, const char *value,
                    ompb_error *err)
{
    (void)value;
    (void)err;
    *FIELD(cfg, o, bool) = true;
    return 0;
}

/* ---- what --help shows of other tables and the defaults ------------------ */

static void duration_part(char *buf, size_t cap, uint64_t ns)
{
    ompb__format_duration((double)ns, buf, cap);
}

static void warmup_part(char *buf, size_t cap)
{
    duration_part(buf, cap, OMPB__DEFAULT_WARMUP_NS);
}

static void min_time_part(char *buf, size_t cap)
{
    duration_part(buf, cap, OMPB__DEFAULT_MIN_TIME_NS);
}

static void max_time_part(char *buf, size_t cap)
{
    duration_part(buf, cap, OMPB__DEFAULT_MAX_TIME_NS);
}

static void sample_count_part(char *buf, size_t cap)
{
    snprintf(buf, cap, "%d, at most %d", OMPB__DEFAULT_SAMPLE_COUNT, OMPB__MAX_SAMPLE_COUNT);
}

/* lib/report/reporters.c's table. */
static void format_part(char *buf, size_t cap)
{
    snprintf(buf, cap, "%s (default: %s)", ompb__reporter_names(),
             ompb__reporter_default()->name);
}

/* lib/placement/pin.c's table; its first row is the default. */
static void pin_part(char *buf, size_t cap)
{
    size_t n, pos = 0;
    const ompb__pin_policy *rows = ompb__pin_policies(&n);
    buf[0] = '\0';
    for (size_t i = 0; i < n && pos < cap; i++)
        pos += (size_t)snprintf(buf + pos, cap - pos, "%s%s%s", i ? " | " : "", rows[i].brief,
                                i ? "" : " (default)");
}

/* ---- the table ------------------------------------------------------------ */

#define AT(member) offsetof(ompb__config, member)

/* In --help's order; the parser looks rows up by name. */
static const option_def options[] = {
    {"--list", ARG_NONE, "", opt_flag, AT(list), 0, false, "Selection",
     "print the instance names and exit", NULL},
    {"--filter", ARG_REQUIRED, " REGEX", opt_filter, 0, 0, true, NULL,
     "run instances whose name matches (POSIX extended);\n"
     "repeated, each --filter and --exact narrows the others", NULL},
    {"--exact", ARG_REQUIRED, " NAME", opt_exact, 0, 0, true, NULL,
     "run the instance with exactly this name", NULL},
    {"--exact-file", ARG_REQUIRED, " FILE", opt_exact_file, 0, 0, false, NULL,
     "run the instances named in FILE, one exact name per\n"
     "line (narrows the others as --exact does)", NULL},
    {"--threads", ARG_REQUIRED, " LIST", opt_threads, 0, 0, false, "Round width and placement",
     "thread counts: 4 | 1,2,4 | 1..8 (powers of two plus\n"
     "the ends) | max; default OMP_NUM_THREADS, else\n"
     "SLURM_CPUS_PER_TASK in a Slurm job, else the\n"
     "OpenMP default, for benchmarks listing no counts", NULL},
    {"--pin", ARG_REQUIRED, " POLICY", opt_pin, 0, 0, false, NULL, "{}", pin_part},
    {"--show-plan", ARG_NONE, "", opt_flag, AT(show_plan), 0, false, NULL,
     "print each instance's thread -> core/PU map and exit", NULL},
    {"--topology-xml", ARG_REQUIRED, " FILE", opt_string, AT(topology_xml), 0, false, NULL,
     "export the machine's hwloc topology as XML", NULL},
    {"--sample-count", ARG_REQUIRED, " N", opt_count, AT(sample_count), OMPB__MAX_SAMPLE_COUNT,
     false, "Sampling", "measured rounds per instance (default {})", sample_count_part},
    {"--min-clean-rounds", ARG_REQUIRED, " N", opt_count, AT(min_clean_rounds),
     OMPB__MAX_SAMPLE_COUNT, false, NULL,
     "keep measuring past --sample-count (up to " OMPB__STR(OMPB__CLEAN_EXTEND) "x its\n"
     "rounds, within --max-time) until N rounds were\n"
     "clean: no thread lost its CPU (default: off)", NULL},
    {"--sample-size", ARG_REQUIRED, " N", opt_count, AT(sample_size), OMPB__MAX_SAMPLE_SIZE,
     false, NULL, "iterations per round per thread (default: calibrated)", NULL},
    {"--warmup-time", ARG_REQUIRED, " D", opt_duration, AT(warmup_ns), 0, false, NULL,
     "warm-up per instance (default {})", warmup_part},
    {"--min-time", ARG_REQUIRED, " D", opt_duration, AT(min_time_ns), 0, false, NULL,
     "minimum round time when calibrating (default {})", min_time_part},
    {"--max-time", ARG_REQUIRED, " D", opt_positive_duration, AT(max_time_ns), 0, false, NULL,
     "time budget per instance (default {})", max_time_part},
    {"--test", ARG_NONE, "", opt_flag, AT(test), 0, false, NULL,
     "run every selected instance for one short round", NULL},
    {"--timeout", ARG_REQUIRED, " D", opt_positive_duration, AT(timeout_ns), 0, false, NULL,
     "a repetition of an instance that runs longer (a hung\n"
     "body) fails and ends the run: the completed results\n"
     "are written, exit status 1 (default: none)", NULL},
    {"--counters", ARG_REQUIRED, " LIST", opt_counters, 0, 0, false, "Counters",
     "performance counters per thread and round, e.g.\n"
     "instructions,cycles or task-clock,context-switches", NULL},
    {"--list-counters", ARG_NONE, "", opt_flag, AT(list_counters), 0, false, NULL,
     "print the events this machine offers and exit", NULL},
    {"--repetitions", ARG_REQUIRED, " N", opt_count32, AT(repetitions), OMPB__MAX_REPETITIONS,
     false, "Repetitions (the budget above is per instance, split across them)",
     "measure each instance N times, independently, in a\n"
     "shuffled round-robin over the instances (default 1)", NULL},
    {"--processes", ARG_REQUIRED, " P", opt_count32, AT(processes), OMPB__MAX_REPETITIONS,
     false, NULL,
     "run the repetitions in P fresh processes of this\n"
     "binary, one after another (default 1; without\n"
     "--repetitions: P repetitions)", NULL},
    {"--seed", ARG_REQUIRED, " S", opt_seed, 0, 0, false, NULL,
     "seed of the interleaved order (default: from the\n"
     "clock; printed in the header and the JSON)", NULL},
    {"--format", ARG_REQUIRED, " FMT", opt_format, AT(reporter), 0, false, "Output", "{}",
     format_part},
    {"--output", ARG_REQUIRED, " FILE", opt_string, AT(output), 0, false, NULL,
     "write the report to FILE (atomically) instead of stdout", NULL},
    {"--output-format", ARG_REQUIRED, " FMT", opt_format, AT(output_reporter), 0, false, NULL,
     "with --output: FILE gets FMT while stdout still gets\n"
     "--format's report (one run, console and file)", NULL},
    {"--thread-columns", ARG_NONE, "", opt_flag, AT(thread_columns), 0, false, NULL,
     "CSV: per-thread busy mean, median, CV and slowest\n"
     "share columns (the first 4 threads; the JSON has all)", NULL},
    {"--help", ARG_NONE, ", --version", opt_flag, AT(help), 0, false, NULL, "", NULL},
    {"-h", ARG_NONE, "", opt_flag, AT(help), 0, false, NULL, NULL, NULL},
    {"--version", ARG_NONE, "", opt_flag, AT(version), 0, false, NULL, NULL, NULL},
    {OMPB__CHILD_OPTION, ARG_REQUIRED, "", opt_child, 0, 0, false, NULL, NULL, NULL},
    {OMPB__JOURNAL_OPTION, ARG_REQUIRED, "", opt_journal, 0, 0, false, NULL, NULL, NULL},
    {OMPB__JOURNAL_JSON_OPTION, ARG_REQUIRED, "", opt_journal, 0, 0, false, NULL, NULL, NULL},
};

#define N_OPTIONS (sizeof options / sizeof options[0])

static const option_def *find_option(const char *arg, size_t name_len)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (strlen(options[i].name) == name_len && strncmp(arg, options[i].name, name_len) == 0)
            return &options[i];
    return NULL;
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

/* Only rows marked accumulates take a value more than once (the
 * selections: --filter and --exact narrow one another); for any other, a
 * second value would silently replace the first (a second --output, a
 * second --counters list), so both are named and refused. Flags may
 * repeat; they mean the same each time. */
static int check_repeat(const option_def *o, const char *value, const char **given,
                        ompb_error *err)
{
    const char **first = &given[o - options];
    if (o->arg != ARG_REQUIRED || o->accumulates)
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
        if (check_repeat(o, value, given, err) != 0 || o->apply(cfg, o, value, err) != 0) {
            ompb__config_release(cfg);
            return OMPB_EINVAL;
        }
    }
    if (cfg->help || cfg->version)
        return 0;
    if (check_repetitions(cfg, err) != 0 || ompb__default_threads(&cfg->default_threads, err) != 0
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
    ompb__names_file_release(&cfg->exact_file);
}

/* --help's layout: the text column, and the widest line (--sample-count's
 * with its default and maximum). */
#define HELP_INDENT 23
#define HELP_WIDTH 82

/* Where a line of text longer than room breaks: after the last " | "
 * within it (a list of values stays whole per item), else at its last
 * blank; the whole line when it fits or cannot break. */
static size_t help_break(const char *line, size_t len, size_t room)
{
    size_t at = 0;
    if (len <= room)
        return len;
    for (size_t k = room; k > 0; k--)
        if (line[k] == ' ' && line[k - 1] == '|') {
            at = k;
            break;
        }
    for (size_t k = room; k > 0 && !at; k--)
        if (line[k] == ' ')
            at = k;
    return at ? at : len;
}

/* The row's text in the column after its label, "{}" replaced by part. */
static void print_help_text(FILE *out, const option_def *o)
{
    char part[256] = "", text[1024];
    const char *mark = strstr(o->help, "{}");
    if (o->part)
        o->part(part, sizeof part);
    if (mark)
        snprintf(text, sizeof text, "%.*s%s%s", (int)(mark - o->help), o->help, part, mark + 2);
    else
        snprintf(text, sizeof text, "%s", o->help);
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n"), cut = help_break(p, len, HELP_WIDTH - HELP_INDENT);
        fprintf(out, "%.*s\n", (int)cut, p);
        p += cut + (p[cut] == ' ' || p[cut] == '\n');
        if (*p)
            fprintf(out, "%*s", HELP_INDENT, "");
    }
}

static void print_option(FILE *out, const option_def *o)
{
    char label[64];
    if (o->section)
        fprintf(out, "%s:\n", o->section);
    snprintf(label, sizeof label, "%s%s", o->name, o->shown);
    if (!*o->help) {
        fprintf(out, "  %s\n", label);
        return;
    }
    fprintf(out, "  %-*s", HELP_INDENT - 3, label);
    fputc(' ', out);
    print_help_text(out, o);
}

void ompb__config_usage(const char *argv0, void *stream)
{
    FILE *out = stream;
    fprintf(out, "Usage: %s [OPTION]...\n"
                 "Runs the benchmarks of this binary; each round is an OpenMP parallel region.\n"
                 "\n", argv0);
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].help)
            print_option(out, &options[i]);
    fputs("Durations: a number and a unit, ns, us, ms, s or m (500ms, 2s; the unit is\n"
          "required).\n"
          "Exit status: 0 ok, 1 a benchmark failed, 2 bad option or input.\n", out);
}
