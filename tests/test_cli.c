/* SPDX-License-Identifier: MIT */
/* CLI: every option, every bad input named with the accepted values. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ompbench/hooks.h>
#include <ompbench/version.h>

#include "config/cli.h"
#include "core/clock.h"
#include "placement/pin.h"
#include "report/report.h"
#include "suite.h"

/* Parses a NULL-terminated argument list; returns the status and keeps the
 * error text. */
static int parse(ompb__config *cfg, ompb_error *err, const char *first, ...)
{
    char *argv[32] = {"bench"};
    int argc = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    memset(err, 0, sizeof *err);
    return ompb__config_parse(cfg, argc, argv, err);
}

static void test_defaults(void)
{
    ompb__config cfg;
    ompb_error err;
    unsetenv("OMP_NUM_THREADS");
    CU_ASSERT_EQUAL_FATAL(parse(&cfg, &err, NULL), 0);
    CU_ASSERT_EQUAL(cfg.sample_count, 100);
    CU_ASSERT_EQUAL(cfg.warmup_ns, 100000000ull);
    CU_ASSERT_EQUAL(cfg.min_time_ns, 1000000ull);
    CU_ASSERT_EQUAL(cfg.max_time_ns, 5000000000ull);
    CU_ASSERT_PTR_EQUAL(cfg.reporter, &ompb__reporter_console);
    CU_ASSERT_EQUAL(cfg.n_threads, 0);
    CU_ASSERT_TRUE(cfg.default_threads >= 1);
    ompb__config_release(&cfg);
}

static void test_all_options(void)
{
    ompb__config cfg;
    ompb_error err;
    setenv("OMP_NUM_THREADS", "3,2", 1);
    CU_ASSERT_EQUAL_FATAL(parse(&cfg, &err, "--filter", "^fib", "--threads=1,2,4", "--sample-count",
                                "7", "--sample-size", "9", "--warmup-time", "500ms", "--min-time",
                                "250us", "--max-time", "2s", "--timeout", "90s", "--format", "json", "--output",
                                "r.json", "--test", "--exact", "fib[5]", NULL), 0);
    CU_ASSERT_EQUAL(cfg.n_filters, 1);
    CU_ASSERT_EQUAL(regexec(&cfg.filter[0], "fibonacci[5]", 0, NULL, 0), 0);
    CU_ASSERT_NOT_EQUAL(regexec(&cfg.filter[0], "x_fib", 0, NULL, 0), 0);
    CU_ASSERT_EQUAL(cfg.n_threads, 3);
    CU_ASSERT_EQUAL(cfg.threads[2], 4);
    CU_ASSERT_EQUAL(cfg.sample_count, 7);
    CU_ASSERT_EQUAL(cfg.sample_size, 9);
    CU_ASSERT_EQUAL(cfg.warmup_ns, 500000000ull);
    CU_ASSERT_EQUAL(cfg.min_time_ns, 250000ull);
    CU_ASSERT_EQUAL(cfg.max_time_ns, 2000000000ull);
    CU_ASSERT_EQUAL(cfg.timeout_ns, 90000000000ull);
    CU_ASSERT_PTR_EQUAL(cfg.reporter, &ompb__reporter_json);
    CU_ASSERT_STRING_EQUAL(cfg.output, "r.json");
    CU_ASSERT_EQUAL(cfg.n_exact, 1);
    CU_ASSERT_STRING_EQUAL(cfg.exact[0], "fib[5]");
    CU_ASSERT_TRUE(cfg.test && !cfg.list);
    CU_ASSERT_EQUAL(cfg.default_threads, 3);
    ompb__config_release(&cfg);
    unsetenv("OMP_NUM_THREADS");
}

static void test_thread_lists(void)
{
    int out[OMPB__MAX_THREAD_LIST];
    size_t n;
    ompb_error err;
    CU_ASSERT_EQUAL_FATAL(ompb__parse_thread_list("1..8", 2, out, OMPB__MAX_THREAD_LIST, &n, &err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT(out[0] == 1 && out[1] == 2 && out[2] == 4 && out[3] == 8);
    CU_ASSERT_EQUAL_FATAL(ompb__parse_thread_list("3..12", 2, out, OMPB__MAX_THREAD_LIST, &n, &err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT(out[0] == 3 && out[1] == 4 && out[2] == 8 && out[3] == 12);
    CU_ASSERT_EQUAL_FATAL(ompb__parse_thread_list("5..5", 2, out, OMPB__MAX_THREAD_LIST, &n, &err), 0);
    CU_ASSERT(n == 1 && out[0] == 5);
    CU_ASSERT_EQUAL_FATAL(ompb__parse_thread_list("max", 6, out, OMPB__MAX_THREAD_LIST, &n, &err), 0);
    CU_ASSERT(n == 1 && out[0] == 6);
    CU_ASSERT_EQUAL_FATAL(ompb__parse_thread_list("2,1", 6, out, OMPB__MAX_THREAD_LIST, &n, &err), 0);
    CU_ASSERT(n == 2 && out[0] == 2 && out[1] == 1);
}

/* Each bad input: rejected, and the message names the value and what is accepted. */
static void expect_rejected(const char *opt, const char *value, const char *accepted_word)
{
    ompb__config cfg;
    ompb_error err;
    int rc = value ? parse(&cfg, &err, opt, value, NULL) : parse(&cfg, &err, opt, NULL);
    CU_ASSERT_EQUAL(rc, OMPB_EINVAL);
    if (value)
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, value));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, accepted_word));
    CU_ASSERT_PTR_NULL(strchr(err.text, '\n'));
}

static void test_bad_inputs(void)
{
    expect_rejected("--threads", "0", "accepted");
    expect_rejected("--threads", "abc", "accepted");
    expect_rejected("--threads", "1,,2", "accepted");
    expect_rejected("--threads", "4..2", "accepted");
    expect_rejected("--threads", "99999", "accepted");
    expect_rejected("--threads", "-1", "accepted");
    expect_rejected("--filter", "fib(", "POSIX extended");
    expect_rejected("--sample-count", "0", "from 1 to 1000000");
    expect_rejected("--sample-count", "1000001", "from 1 to 1000000");
    expect_rejected("--sample-size", "-5", "from 1 to");
    expect_rejected("--threads", "2,2", "no repeats");
    expect_rejected("--warmup-time", "fast", "500ms");
    expect_rejected("--max-time", "0s", "above zero");
    expect_rejected("--min-time", "3 parsecs", "ms");
    expect_rejected("--format", "xml", "console, json, csv");
    expect_rejected("--frobnicate", NULL, "--help");
    expect_rejected("--list=yes", NULL, "no value");
    expect_rejected("--threads", NULL, "missing value");
    /* Digits only: strtol would take these. */
    expect_rejected("--threads", " 4", "accepted");
    expect_rejected("--threads", "+4", "accepted");
    expect_rejected("--threads", "4,+2", "accepted");
    expect_rejected("--threads", "0x4", "accepted");
    expect_rejected("--sample-count", " 5", "from 1 to");
    expect_rejected("--sample-count", "+5", "from 1 to");
    expect_rejected("--sample-size", "18446744073709551617", "from 1 to");
    expect_rejected("--max-time", "100", "unit");
    expect_rejected("--warmup-time", " 2s", "unit");
    expect_rejected("--max-time", "+2s", "unit");
    expect_rejected("--max-time", "0x10s", "unit");
    expect_rejected("--timeout", "0s", "above zero");
    expect_rejected("--timeout", "0", "above zero");
    expect_rejected("--timeout", "10", "unit");
    expect_rejected("--timeout", "soon", "unit");
    expect_rejected("--timeout", NULL, "missing value");
}

/* --output next to an option that prints to stdout would be ignored. */
static void test_output_with_list_refused(void)
{
    ompb__config cfg;
    ompb_error err;
    unsetenv("OMP_NUM_THREADS");
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--list", "--output", "x.json", NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--output: not used with --list"));
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--output", "x.json", "--show-plan", NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--show-plan"));
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--list-counters", "--output", "x.txt", NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--output: not used with --list-counters"));
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--list", NULL), 0);
    ompb__config_release(&cfg);
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--list-counters", NULL), 0);
    ompb__config_release(&cfg);
}

/* --max-time 0 is refused, and the message does not offer 0; the other
 * durations accept it and say so. */
static void test_max_time_zero_text(void)
{
    ompb__config cfg;
    ompb_error err;
    unsetenv("OMP_NUM_THREADS");
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--max-time", "0", NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--max-time: invalid duration '0' (accepted: a "
                                            "number above zero with unit ns, us, ms, s or m, "
                                            "e.g. 500ms, 2s)"));
    CU_ASSERT_PTR_NULL(strstr(err.text, "or 0"));
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--warmup-time", "soon", NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "e.g. 500ms, 2s, or 0)"));
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--warmup-time", "0", NULL), 0);
    ompb__config_release(&cfg);
}

/* OMPB_HOOKS_TIMEOUT_MS and OMPB_HOOKS_BUDGET_MS: refused by the command
 * line; --help still works. */
static void check_bad_hooks_ms(const char *name)
{
    static const char *bad[] = {"abc", "0", "-5", " 250", "250ms", "", "1073741824"};
    ompb__config cfg;
    ompb_error err;
    char want[64];
    snprintf(want, sizeof want, "%s: invalid value", name);
    unsetenv("OMP_NUM_THREADS");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(name, bad[i], 1);
        CU_ASSERT_EQUAL(parse(&cfg, &err, NULL), OMPB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, want));
    }
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--help", NULL), 0);
    ompb__config_release(&cfg);
    setenv(name, "250", 1);
    CU_ASSERT_EQUAL(parse(&cfg, &err, NULL), 0);
    ompb__config_release(&cfg);
    unsetenv(name);
}

static void test_bad_hooks_timeout(void)
{
    check_bad_hooks_ms("OMPB_HOOKS_TIMEOUT_MS");
    check_bad_hooks_ms("OMPB_HOOKS_BUDGET_MS");
}

static void test_help_ignores_bad_environment(void)
{
    ompb__config cfg;
    ompb_error err;
    setenv("OMP_NUM_THREADS", "-3", 1);
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--help", NULL), 0);
    ompb__config_release(&cfg);
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--version", NULL), 0);
    ompb__config_release(&cfg);
    setenv("OMP_NUM_THREADS", " 4 ", 1); /* libgomp accepts blanks around the value */
    CU_ASSERT_EQUAL(parse(&cfg, &err, NULL), 0);
    CU_ASSERT_EQUAL(cfg.default_threads, 4);
    ompb__config_release(&cfg);
    unsetenv("OMP_NUM_THREADS");
}

/* What libgomp 12 accepts, and what it refuses (checked on Debian 12 with
 * a program printing omp_get_max_threads()). */
static void test_good_omp_num_threads(void)
{
    static const struct { const char *v; int want; } good[] = {
        {"4", 4}, {" 4", 4}, {"4 ", 4}, {"+4", 4}, {"04", 4}, {"\t4", 4}, {"4,2", 4},
        {"4, 2", 4}, {"4 ,2", 4}, {"4,+2", 4}, {"1,2,3,4,5", 1}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ompb__config cfg;
        ompb_error err;
        setenv("OMP_NUM_THREADS", good[i].v, 1);
        CU_ASSERT_EQUAL_FATAL(parse(&cfg, &err, NULL), 0);
        CU_ASSERT_EQUAL(cfg.default_threads, good[i].want);
        ompb__config_release(&cfg);
    }
    unsetenv("OMP_NUM_THREADS");
}

static void test_bad_omp_num_threads(void)
{
    static const char *bad[] = {"-3", "0", "abc", "2x", "4 junk", "2,abc", "4,", "", " ",
                                "0x4", "4,,2", "4,0", "3 4", "4,-2", "99999999999999999999",
                                "5000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ompb__config cfg;
        ompb_error err;
        setenv("OMP_NUM_THREADS", bad[i], 1);
        CU_ASSERT_EQUAL(parse(&cfg, &err, NULL), OMPB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "OMP_NUM_THREADS"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, bad[i]));
    }
    unsetenv("OMP_NUM_THREADS");
}

static void test_durations(void)
{
    uint64_t ns;
    CU_ASSERT(ompb__parse_duration("1.5s", &ns) == 0 && ns == 1500000000ull);
    CU_ASSERT(ompb__parse_duration("2s", &ns) == 0 && ns == 2000000000ull);
    CU_ASSERT(ompb__parse_duration("100ns", &ns) == 0 && ns == 100);
    CU_ASSERT(ompb__parse_duration("1m", &ns) == 0 && ns == 60000000000ull);
    CU_ASSERT(ompb__parse_duration("0s", &ns) == 0 && ns == 0);
    /* Zero is zero in every unit: a bare "0" is the one number without one. */
    ns = 7;
    CU_ASSERT(ompb__parse_duration("0", &ns) == 0 && ns == 0);
    CU_ASSERT(ompb__parse_duration("1e3us", &ns) == 0 && ns == 1000000ull);
    CU_ASSERT(ompb__parse_duration("2.5E-1s", &ns) == 0 && ns == 250000000ull);
    /* A unit is required; only digits, a fraction and an exponent before it. */
    static const char *bad[] = {"2", "00", "0.0", "100", " 2s", "2s ", "+2s", "0x10s", "inf", "infs",
                                "nans", "1.s", ".5s", "1e", "1es", "1e+s", "2 s", "2sec",
                                "1,5s", "s", NULL};
    for (size_t i = 0; bad[i]; i++)
        CU_ASSERT_EQUAL(ompb__parse_duration(bad[i], &ns), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__parse_duration("-1s", &ns), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__parse_duration("1h", &ns), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__parse_duration("", &ns), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__parse_duration("nan", &ns), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__parse_duration("1e30s", &ns), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__parse_duration("1e10s", &ns), OMPB_EINVAL);
    CU_ASSERT_EQUAL(ompb__parse_duration("9.3e18ns", &ns), OMPB_EINVAL);
    CU_ASSERT(ompb__parse_duration("9e18ns", &ns) == 0 && ns == 9000000000000000000ull);
}

/* Repetitions, processes and the seed; the child option of --processes. */
static void test_repetitions(void)
{
    ompb__config cfg;
    ompb_error err;
    CU_ASSERT_EQUAL_FATAL(parse(&cfg, &err, NULL), 0);
    CU_ASSERT_EQUAL(cfg.repetitions, 1);
    CU_ASSERT_EQUAL(cfg.processes, 1);
    CU_ASSERT_FALSE(cfg.seed_given || cfg.child);
    ompb__config_release(&cfg);
    CU_ASSERT_EQUAL_FATAL(parse(&cfg, &err, "--repetitions", "10", "--processes=5", "--seed",
                                "0x10", NULL), 0);
    CU_ASSERT_EQUAL(cfg.repetitions, 10);
    CU_ASSERT_EQUAL(cfg.processes, 5);
    CU_ASSERT_TRUE(cfg.seed_given);
    CU_ASSERT_EQUAL(cfg.seed, 16);
    ompb__config_release(&cfg);
    /* --processes alone: one repetition per process. */
    CU_ASSERT_EQUAL_FATAL(parse(&cfg, &err, "--processes", "3", "--seed", "0", NULL), 0);
    CU_ASSERT_EQUAL(cfg.repetitions, 3);
    CU_ASSERT_EQUAL(cfg.seed, 0);
    ompb__config_release(&cfg);
    CU_ASSERT_EQUAL_FATAL(parse(&cfg, &err, "--processes", "2", "--repetitions", "4",
                                "--ompb-child=1,18446744073709551615,/tmp/d/1.json", NULL), 0);
    CU_ASSERT_TRUE(cfg.child);
    CU_ASSERT_EQUAL(cfg.child_index, 1);
    CU_ASSERT_EQUAL(cfg.seed, UINT64_MAX);
    CU_ASSERT_STRING_EQUAL(cfg.child_path, "/tmp/d/1.json");
    ompb__config_release(&cfg);
    static const struct { const char *opt, *value, *want; } bad[] = {
        {"--repetitions", "0", "--repetitions: invalid value '0' (accepted: an integer from 1 to 1000)"},
        {"--repetitions", "1001", "--repetitions: invalid value '1001'"},
        {"--processes", "x", "--processes: invalid value 'x' (accepted: an integer from 1 to 1000)"},
        {"--seed", "-1", "--seed: invalid value '-1' (accepted: an integer from 0 to 18446744073709551615"},
        {"--seed", "18446744073709551616", "--seed: invalid value '18446744073709551616'"},
        {"--seed", "", "--seed: invalid value ''"},
        {"--ompb-child", "1,2", "--ompb-child: invalid value '1,2' (internal option of --processes"},
        {"--ompb-child", "a,2,/x", "--ompb-child: invalid value 'a,2,/x'"},
        {"--ompb-child", "0,2,", "--ompb-child: invalid value '0,2,'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(parse(&cfg, &err, bad[i].opt, bad[i].value, NULL), OMPB_EINVAL);
        if (!strstr(err.text, bad[i].want))
            fprintf(stderr, "\n'%s' lacks '%s'\n", err.text, bad[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, bad[i].want));
    }
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--repetitions", "2", "--processes", "3", NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--processes: 3 processes for 2 repetitions (accepted: "
                                            "1 to the --repetitions count"));
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--processes", "2", "--ompb-child=2,1,/x", NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "process 2 of 2"));
}

/* Issue 19: an option with a value given twice is refused, naming both;
 * flags may repeat. */
static void test_repeated_options(void)
{
    static const struct { const char *opt, *a, *b; } twice[] = {
        {"--output", "a.json", "b.json"}, {"--sample-count", "3", "4"},
        {"--counters", "task-clock", "page-faults"}, {"--threads", "1", "2"}, {"--pin", "compact", "spread"}, {"--max-time", "1s", "2s"},
    };
    ompb__config cfg;
    ompb_error err;
    char want[128];
    for (size_t i = 0; i < sizeof twice / sizeof twice[0]; i++) {
        CU_ASSERT_EQUAL(parse(&cfg, &err, twice[i].opt, twice[i].a, twice[i].opt, twice[i].b,
                              NULL), OMPB_EINVAL);
        snprintf(want, sizeof want, "%s: given twice, '%s' and '%s'", twice[i].opt, twice[i].a,
                 twice[i].b);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, want));
    }
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--output=a.json", "--output", "b.json", NULL), OMPB_EINVAL);
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--test", "--test", NULL), 0);
    ompb__config_release(&cfg);
    /* The selections accumulate, each narrowing the others (ompbench ab
     * adds its own to a wrapper command's), up to a bound. */
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--filter", "fib", "--exact", "fib[5]", "--filter", "5",
                          NULL), 0);
    CU_ASSERT_EQUAL(cfg.n_filters, 2);
    CU_ASSERT_EQUAL(cfg.n_exact, 1);
    ompb__config_release(&cfg);
    CU_ASSERT_EQUAL(OMPB__MAX_SELECTIONS, 8);
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--filter", "a", "--filter", "a", "--filter", "a",
                          "--filter", "a", "--filter", "a", "--filter", "a", "--filter", "a",
                          "--filter", "a", "--filter", "a", NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--filter: more than 8 selections"));
    ompb__config_release(&cfg);
}

/* Issue 19: a value with control characters is echoed escaped, so the
 * message stays one line. */
static void test_values_escaped(void)
{
    static const char *const opts[][2] = {
        {"--filter", "(a\nb"}, {"--sample-count", "1\n2"}, {"--threads", "1,\n2"},
        {"--counters", "task-clock,\x1b[2J"}, {"--max-time", "1\rs"}, {"--format", "j\tson"},
    };
    ompb__config cfg;
    ompb_error err;
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        CU_ASSERT_EQUAL(parse(&cfg, &err, opts[i][0], opts[i][1], NULL), OMPB_EINVAL);
        for (const char *p = err.text; *p; p++)
            CU_ASSERT_FALSE((unsigned char)*p < 0x20 || *p == 0x7f);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "\\x"));
    }
}

/* The version as a string, as numbers and as one number agree, the
 * linked library's with the headers'; the 0.1 name of ompb_hooks_new
 * still gives a handle. */
static void test_version(void)
{
    char text[32];
    snprintf(text, sizeof text, "%d.%d.%d", OMPB_VERSION_MAJOR, OMPB_VERSION_MINOR,
             OMPB_VERSION_PATCH);
    CU_ASSERT_STRING_EQUAL(text, OMPB_VERSION_STRING);
    CU_ASSERT_STRING_EQUAL(ompb_version(), OMPB_VERSION_STRING);
    CU_ASSERT_EQUAL(ompb_version_number(), OMPB_VERSION);
    CU_ASSERT_TRUE(OMPB_VERSION_OF(0, 3, 0) <= OMPB_VERSION);
    CU_ASSERT_TRUE(OMPB_VERSION_OF(OMPB_VERSION_MAJOR, OMPB_VERSION_MINOR + 1, 0) > OMPB_VERSION);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ompb_hooks *h = ompb_hooks_init();
#pragma GCC diagnostic pop
    CU_ASSERT_PTR_NOT_NULL(h);
    ompb_hooks_free(h);
}

/* --help as printed; with flat, every run of blanks and line breaks
 * collapsed to one blank, so a generated list reads whole whatever its
 * wrapping. malloc'd. */
static char *help_text(bool flat)
{
    char *text = NULL;
    size_t len = 0, k = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    ompb__config_usage("bench", f);
    fclose(f);
    for (size_t i = 0; flat && i < len; i++)
        if (!(text[i] == ' ' || text[i] == '\n') || !k || text[k - 1] != ' ')
            text[k++] = text[i] == '\n' ? ' ' : text[i];
    if (flat)
        text[k] = '\0';
    return text;
}

/* --help's --pin list is lib/placement/pin.c's table, in its order, the first row
 * marked as the default; --format's is the reporter table. */
static void test_help_lists_tables(void)
{
    char want[512];
    size_t n, pos = 0;
    const ompb__pin_policy *rows = ompb__pin_policies(&n);
    char *help = help_text(true);
    CU_ASSERT_PTR_NOT_NULL_FATAL(help);
    CU_ASSERT_TRUE(n >= 5);
    for (size_t i = 0; i < n; i++)
        pos += (size_t)snprintf(want + pos, sizeof want - pos, "%s%s%s", i ? " | " : "",
                                rows[i].brief, i ? "" : " (default)");
    CU_ASSERT_PTR_NOT_NULL(strstr(help, want));
    snprintf(want, sizeof want, "--format FMT %s (default: %s)", ompb__reporter_names(),
             ompb__reporter_default()->name);
    CU_ASSERT_PTR_NOT_NULL(strstr(help, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(help, "--sample-count N measured rounds per instance "
                                        "(default 100, at most 1000000)"));
    CU_ASSERT_PTR_NULL(strstr(help, OMPB__CHILD_OPTION));
    free(help);
}

/* Every option --help lists is one the parser knows: given alone, it is
 * accepted or wants its value, never unknown. */
static void test_help_options_parse(void)
{
    char *help = help_text(false), *save = NULL;
    size_t checked = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(help);
    for (char *line = strtok_r(help, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "  --", 4) != 0)
            continue;
        /* The label ends at the text column; ", " separates the options
         * a line lists together, a blank the value's name. */
        char *end = strstr(line + 2, "  ");
        if (end)
            *end = '\0';
        for (char *opt = line + 2, *next; opt; opt = next ? next + 2 : NULL) {
            next = strstr(opt, ", --");
            char name[64];
            ompb__config cfg;
            ompb_error err;
            snprintf(name, sizeof name, "%.*s", (int)strcspn(opt, " ,"), opt);
            if (parse(&cfg, &err, name, NULL) == 0)
                ompb__config_release(&cfg);
            else
                CU_ASSERT_PTR_NULL(strstr(err.text, "unknown option"));
            checked++;
        }
    }
    CU_ASSERT_TRUE(checked >= 24);
    free(help);
}

/* Issue 30: --exact-file selects by exact names read from a file (ompbench
 * ab's thousands of names do not fit one argument). */
static void test_exact_file(void)
{
    char path[] = "/tmp/ompb-exact-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_TRUE_FATAL(fd >= 0);
    static const char text[] = "zeta[2]\r\n\nalpha\nfib[5]\nalpha";
    CU_ASSERT_EQUAL(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    ompb__config cfg;
    ompb_error err;
    CU_ASSERT_EQUAL_FATAL(parse(&cfg, &err, "--exact-file", path, NULL), 0);
    CU_ASSERT_EQUAL(cfg.exact_file.n, 4);
    CU_ASSERT_TRUE(ompb__names_file_has(&cfg.exact_file, "alpha"));
    CU_ASSERT_TRUE(ompb__names_file_has(&cfg.exact_file, "fib[5]"));
    CU_ASSERT_TRUE(ompb__names_file_has(&cfg.exact_file, "zeta[2]"));
    CU_ASSERT_FALSE(ompb__names_file_has(&cfg.exact_file, "fib"));
    CU_ASSERT_FALSE(ompb__names_file_has(&cfg.exact_file, ""));
    ompb__config_release(&cfg);
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--exact-file", path, "--exact-file", path, NULL),
                    OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--exact-file: given twice"));
    /* A NUL would cut a name silently: refused. */
    FILE *f = fopen(path, "wb");
    CU_ASSERT_TRUE_FATAL(f != NULL);
    fwrite("a\0b\n", 1, 4, f);
    fclose(f);
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--exact-file", path, NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "holds a NUL byte"));
    unlink(path);
    CU_ASSERT_EQUAL(parse(&cfg, &err, "--exact-file", path, NULL), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--exact-file: cannot read"));
}

static const ompb_test_case cases[] = {
    {"exact_file", test_exact_file},
    {"repeated_options", test_repeated_options},
    {"values_escaped", test_values_escaped},
    {"repetitions", test_repetitions},
    {"defaults", test_defaults},
    {"all_options", test_all_options},
    {"thread_lists", test_thread_lists},
    {"bad_inputs", test_bad_inputs},
    {"good_omp_num_threads", test_good_omp_num_threads},
    {"bad_omp_num_threads", test_bad_omp_num_threads},
    {"output_with_list_refused", test_output_with_list_refused},
    {"max_time_zero_text", test_max_time_zero_text},
    {"bad_hooks_timeout", test_bad_hooks_timeout},
    {"help_ignores_bad_environment", test_help_ignores_bad_environment},
    {"durations", test_durations},
    {"version", test_version},
    {"help_lists_tables", test_help_lists_tables},
    {"help_options_parse", test_help_options_parse},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_cli = {"cli", NULL, NULL, cases};
