/* SPDX-License-Identifier: MIT */
/*
 * The pin policy table and the --pin value: every message lists the table's
 * rows, each row parses its own values and orders PUs on synthetic hwloc
 * topologies (never the host's core count), the CLI parses --pin once, and
 * PU lists are read with precise reasons. Plans and their golden maps are
 * in test_topology.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/cli.h"
#include "placement/cpulist.h"
#include "placement/pin.h"
#include "placement/pin_domain.h"
#include "suite.h"
#include "placement/topology.h"

#define ACCEPTED "accepted: compact, spread, none, cpus:LIST (e.g. cpus:0,2,4-7), S<n>:LIST, M<n>:LIST, C<n>:LIST or N:LIST joined with @ (LIKWID domains, e.g. S0:0-7@S1:0-7)"

/* ---- helpers ----------------------------------------------------------- */

static ompb__topology *synth(const char *desc)
{
    ompb__topology *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ompb__topology_open_synthetic(desc, &t, NULL), 0);
    return t;
}

/* Parses value as the CLI does and forgets it: its rc (and err). */
static int check(const char *value, ompb_error *err)
{
    ompb__pin_spec pin;
    int rc = ompb__pin_parse(value, &pin, err);
    ompb__pin_spec_release(&pin);
    return rc;
}

static const ompb__pin_policy *row_named(const char *name)
{
    size_t n;
    const ompb__pin_policy *rows = ompb__pin_policies(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

static void join_ints(const int *v, int n, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && pos < len; i++)
        pos += (size_t)snprintf(buf + pos, len - pos, "%s%d", i ? " " : "", v[i]);
}

/* Runs the order function of value's row for want threads on t and
 * compares the order with the golden string. */
static void check_order(const ompb__topology *t, const char *value, int want, const char *golden)
{
    ompb__pin_spec pin;
    ompb_error err = {0};
    int order[64], n = -1;
    char got[512];
    CU_ASSERT_EQUAL_FATAL(ompb__pin_parse(value, &pin, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pin.policy->order);
    CU_ASSERT_TRUE_FATAL(want <= 64 && pin.n_pus <= 64);
    int rc = pin.policy->order(t, &pin, want, order, &n, &err);
    if (rc != 0)
        fprintf(stderr, "\n%s: %s\n", value, err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    join_ints(order, n, got, sizeof got);
    if (strcmp(got, golden) != 0)
        fprintf(stderr, "\n%s want %d: order '%s', want '%s'\n", value, want, got, golden);
    CU_ASSERT_STRING_EQUAL(got, golden);
    ompb__pin_spec_release(&pin);
}

/* ---- the table ------------------------------------------------------------ */

/* The accepted values are the rows' syntax, in table order, and every
 * refusal names all of them. */
static void test_accepted_lists_the_table(void)
{
    size_t n;
    const ompb__pin_policy *rows = ompb__pin_policies(&n);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    CU_ASSERT_STRING_EQUAL(rows[0].name, "compact");
    CU_ASSERT_STRING_EQUAL(rows[1].name, "spread");
    CU_ASSERT_STRING_EQUAL(rows[2].name, "none");
    CU_ASSERT_STRING_EQUAL(rows[3].name, "cpus");
    CU_ASSERT_STRING_EQUAL(rows[4].name, "domains");
    CU_ASSERT_STRING_EQUAL(ompb__pin_accepted(), ACCEPTED);

    ompb_error err = {0};
    CU_ASSERT_EQUAL(check("nearest", &err), OMPB_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.text, "--pin: invalid value 'nearest' (" ACCEPTED ")");
    const char *listed = strstr(err.text, "(accepted: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(listed);
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(listed, rows[i].syntax));
        /* A row matched by name shows its name; one with its own match
         * (domain expressions) shows an example it matches. */
        const char *eg = strstr(rows[i].syntax, "e.g. ");
        CU_ASSERT_TRUE(rows[i].match ? eg && rows[i].match(eg + 5)
                                     : strncmp(rows[i].syntax, rows[i].name,
                                               strlen(rows[i].name)) == 0);
    }
    /* The first row is the default; only none binds nothing. */
    CU_ASSERT_PTR_EQUAL(ompb__pin_row(NULL), &rows[0]);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL(rows[i].order == NULL, strcmp(rows[i].name, "none") == 0);
}

/* Each row parses its bare name or name:ARG, and nothing else. */
static void test_parse_rows(void)
{
    static const char *bare[] = {"compact", "spread", "none"};
    ompb__pin_spec pin;
    ompb_error err = {0};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(ompb__pin_parse(bare[i], &pin, &err), 0);
        CU_ASSERT_PTR_EQUAL(pin.policy, row_named(bare[i]));
        CU_ASSERT_STRING_EQUAL(pin.text, bare[i]);
        CU_ASSERT_PTR_NULL(pin.pus);
        CU_ASSERT_EQUAL(pin.n_pus, 0);
        CU_ASSERT_TRUE(ompb__pin_given(&pin));
        CU_ASSERT_EQUAL(ompb__pin_binds(&pin), strcmp(bare[i], "none") != 0);
        CU_ASSERT_PTR_EQUAL(ompb__pin_row(&pin), pin.policy);
        ompb__pin_spec_release(&pin);
        CU_ASSERT_PTR_NULL(pin.policy);
        CU_ASSERT_PTR_NULL(pin.text);
    }
    CU_ASSERT_EQUAL(check("spread:2", &err), OMPB_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.text, "--pin: invalid value 'spread:2' (" ACCEPTED ")");
    CU_ASSERT_EQUAL(check("compactx", &err), OMPB_EINVAL);
    CU_ASSERT_EQUAL(check("cpus", &err), OMPB_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.text, "--pin: invalid value 'cpus' (" ACCEPTED ")");

    CU_ASSERT_EQUAL_FATAL(ompb__pin_parse("cpus:7,0-2,5", &pin, &err), 0);
    CU_ASSERT_PTR_EQUAL(pin.policy, row_named("cpus"));
    CU_ASSERT_STRING_EQUAL(pin.text, "cpus:7,0-2,5");
    CU_ASSERT_EQUAL_FATAL(pin.n_pus, 5);
    char got[64];
    join_ints(pin.pus, pin.n_pus, got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "7 0 1 2 5");
    CU_ASSERT_TRUE(ompb__pin_binds(&pin));
    ompb__pin_spec_release(&pin);
    CU_ASSERT_PTR_NULL(pin.pus);

    /* A failed parse leaves the spec zeroed: not given. */
    CU_ASSERT_EQUAL(ompb__pin_parse("cpus:1,1", &pin, NULL), OMPB_EINVAL);
    CU_ASSERT_FALSE(ompb__pin_given(&pin));
    CU_ASSERT_PTR_NULL(pin.pus);
    CU_ASSERT_FALSE(ompb__pin_given(NULL));
    CU_ASSERT_FALSE(ompb__pin_binds(NULL));
    ompb__pin_spec_release(NULL);
}

/* Each row's order on 2 packages x 2 NUMA nodes x 8 cores x 2 PUs. */
static void test_order_rows(void)
{
    ompb__topology *t = synth("pack:2 numa:2 core:8 pu:2");
    check_order(t, "compact", 1, "0");
    check_order(t, "compact", 4, "0 2 4 6");
    check_order(t, "spread", 2, "0 32");
    check_order(t, "spread", 4, "0 16 32 48");
    /* The list as written, whatever the number of threads. */
    check_order(t, "cpus:63,1", 1, "63 1");
    check_order(t, "cpus:8-11", 4, "8 9 10 11");
    ompb__topology_close(t);

    /* PUs 1-6 of 4 cores: compact takes the first usable PU of each core,
     * then the second where there is one; a listed PU outside the mask is
     * refused naming the usable ones. */
    t = synth("pack:1 core:4 pu:2");
    CU_ASSERT_EQUAL_FATAL(ompb__topology_restrict(t, "1-6", NULL), 0);
    check_order(t, "compact", 6, "1 2 4 6 3 5");
    ompb__pin_spec pin;
    ompb_error err = {0};
    int order[4], n = 0;
    CU_ASSERT_EQUAL_FATAL(ompb__pin_parse("cpus:2,7", &pin, NULL), 0);
    CU_ASSERT_EQUAL(pin.policy->order(t, &pin, 2, order, &n, &err), OMPB_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.text, "--pin: invalid value 'cpus:2,7': PU 7 is not usable by "
                                     "this process (usable PUs: 1-6)");
    ompb__pin_spec_release(&pin);
    ompb__topology_close(t);
}

static void test_bad_pin_values(void)
{
    static const struct { const char *value, *reason; } bad[] = {
        {"cpus:", "missing"},
        {"cpus:a", "unexpected 'a'"},
        {"cpus:3-1", "range 3-1 is reversed"},
        {"cpus:1,,2", "unexpected ','"},
        {"cpus:1-", "missing"},
        {"cpus:-1", "unexpected '-'"},
        {"cpus:1,", "missing"},
        {"cpus:1 2", "unexpected ' '"},
        {"cpus:1,1", "PU 1 is listed twice"},
        {"cpus:0-3,2", "PU 2 is listed twice"},
        {"cpus:99999999999", "above"},
        {"cpus:0-99999999999", "above"},
        {"bogus", ""},
        {"", ""},
        {"Compact", ""},
        {"cpus", ""},
        {"compact,spread", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ompb_error err = {0};
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i].value);
        int rc = check(bad[i].value, &err);
        if (rc != OMPB_EINVAL || !strstr(err.text, bad[i].reason))
            fprintf(stderr, "\n%s: rc %d, '%s'\n", bad[i].value, rc, err.text);
        CU_ASSERT_EQUAL(rc, OMPB_EINVAL);
        CU_ASSERT_EQUAL(err.code, OMPB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--pin"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, quoted));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, bad[i].reason));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, ACCEPTED));
        CU_ASSERT_PTR_NULL(strchr(err.text, '\n'));
    }
    static const char *good[] = {"compact", "spread", "none", "cpus:0", "cpus:0,2,4-7",
                                 "cpus:1048576"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CU_ASSERT_EQUAL(check(good[i], NULL), 0);
}

/* --pin is parsed once by the CLI; a second --pin is refused (issue 19);
 * an empty one is refused as every empty option value is. */
static void test_cli_parses_once(void)
{
    ompb__config cfg;
    ompb_error err = {0};
    char *twice[] = {"x", "--pin", "spread", "--pin=cpus:1,0", NULL};
    CU_ASSERT_EQUAL(ompb__config_parse(&cfg, 4, twice, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--pin: given twice, 'spread' and 'cpus:1,0'"));
    char *argv[] = {"x", "--pin=cpus:1,0", NULL};
    CU_ASSERT_EQUAL_FATAL(ompb__config_parse(&cfg, 2, argv, &err), 0);
    CU_ASSERT_PTR_EQUAL(cfg.pin.policy, row_named("cpus"));
    CU_ASSERT_STRING_EQUAL(cfg.pin.text, "cpus:1,0");
    CU_ASSERT_EQUAL_FATAL(cfg.pin.n_pus, 2);
    CU_ASSERT_EQUAL(cfg.pin.pus[0], 1);
    ompb__config_release(&cfg);
    CU_ASSERT_FALSE(ompb__pin_given(&cfg.pin));

    char *none[] = {"x", NULL};
    CU_ASSERT_EQUAL_FATAL(ompb__config_parse(&cfg, 1, none, &err), 0);
    CU_ASSERT_FALSE(ompb__pin_given(&cfg.pin));
    ompb__config_release(&cfg);

    char *empty[] = {"x", "--pin", "", NULL};
    CU_ASSERT_EQUAL(ompb__config_parse(&cfg, 3, empty, &err), OMPB_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.text, "--pin: empty value (accepted: a non-empty string)");
    char *bad[] = {"x", "--pin", "cpus:2-1", NULL};
    CU_ASSERT_EQUAL(ompb__config_parse(&cfg, 3, bad, &err), OMPB_EINVAL);
    CU_ASSERT_STRING_EQUAL(err.text, "--pin: invalid value 'cpus:2-1': range 2-1 is reversed ("
                                     ACCEPTED ")");
}

/* ---- PU lists --------------------------------------------------------------- */

static void test_cpulist(void)
{
    static const struct { const char *text, *why; } bad[] = {
        {"", "a PU number is missing at the end"},
        {"1,", "a PU number is missing at the end"},
        {"1-", "a PU number is missing at the end"},
        {"x", "unexpected 'x' (expected a PU number or a range N-M)"},
        {"1;2", "unexpected ';' (expected a PU number or a range N-M)"},
        {"3-1", "range 3-1 is reversed"},
        {"0-3,2", "PU 2 is listed twice"},
        {"1048577", "PU number above 1048576"},
        {"0-65536", "more than 65536 PUs"},
    };
    char why[OMPB__CPULIST_WHY_MAX], got[64];
    int *pus = NULL, n = -1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pus = (int *)1;
        CU_ASSERT_EQUAL(ompb__cpulist_parse(bad[i].text, &pus, &n, why, sizeof why), OMPB_EINVAL);
        if (strcmp(why, bad[i].why) != 0)
            fprintf(stderr, "\n'%s': '%s', want '%s'\n", bad[i].text, why, bad[i].why);
        CU_ASSERT_STRING_EQUAL(why, bad[i].why);
        CU_ASSERT_PTR_NULL(pus);
        CU_ASSERT_EQUAL(n, 0);
        CU_ASSERT_EQUAL(ompb__cpulist_parse(bad[i].text, NULL, &n, why, sizeof why), OMPB_EINVAL);
    }
    CU_ASSERT_EQUAL_FATAL(ompb__cpulist_parse("9,0-2,1048576", &pus, &n, why, sizeof why), 0);
    join_ints(pus, n, got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "9 0 1 2 1048576");
    free(pus);
    CU_ASSERT_EQUAL(ompb__cpulist_parse("0-65535", NULL, &n, why, sizeof why), 0);
    CU_ASSERT_EQUAL(n, 65536);
}

/* LIKWID numbering: inside a domain, the first PU of every core, then the
 * SMT siblings; items in the order written. The machine numbers its PUs as
 * Linux does on x86 (core c's siblings are c and c + 16), so index i of a
 * domain and PU i differ once SMT threads are reached. */
static void test_domain_expressions(void)
{
    ompb__topology *t = synth("pack:2 numa:2 l3:2 core:2 pu:2(indexes=2*16:1*2)");
    check_order(t, "N:0-3", 4, "0 1 2 3");
    check_order(t, "N:15-17", 3, "15 16 17");
    check_order(t, "S1:0-9", 10, "8 9 10 11 12 13 14 15 24 25");
    check_order(t, "S0:0@S1:0", 2, "0 8");
    check_order(t, "M1:0-3", 4, "4 5 6 7");
    check_order(t, "M3:4-7", 4, "28 29 30 31");
    check_order(t, "C2:0-3", 4, "4 5 20 21");
    check_order(t, "C0:0@C1:0@C2:0@C3:0", 4, "0 2 4 6");
    ompb__topology_close(t);

    /* A cpuset of socket 1's last two cores: S1 keeps its number, its indexes
     * count only the usable PUs, and S0 has none. */
    t = synth("pack:2 core:4 pu:2(indexes=2*8:1*2)");
    CU_ASSERT_EQUAL_FATAL(ompb__topology_restrict(t, "6-7,14-15", NULL), 0);
    check_order(t, "S1:0-3", 4, "6 7 14 15");
    ompb__pin_spec pin;
    ompb_error err = {0};
    int order[8], n = 0;
    static const struct { const char *value, *text; } refused[] = {
        {"S0:0", "--pin: invalid value 'S0:0': socket S0 has no PU this process may use "
                 "(usable PUs: 6-7,14-15)"},
        {"S1:4", "--pin: invalid value 'S1:4': index 4 is past socket S1, which has 4 usable "
                 "PUs (indexes 0-3; usable PUs: 6-7,14-15)"},
        {"M2:0", "--pin: invalid value 'M2:0': there is no NUMA domain M2 on this machine"},
        {"S1:0-1@N:1", "--pin: invalid value 'S1:0-1@N:1': PU 7 is named twice (index 1 of "
                       "node N is a PU an earlier item took)"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(ompb__pin_parse(refused[i].value, &pin, NULL), 0);
        CU_ASSERT_EQUAL(pin.policy->order(t, &pin, 1, order, &n, &err), OMPB_EINVAL);
        CU_ASSERT_STRING_EQUAL(err.text, refused[i].text);
        ompb__pin_spec_release(&pin);
    }
    ompb__topology_close(t);
}

/* The expression is parsed once into items; bad ones are refused naming
 * the item and the syntax. */
static void test_domain_parse(void)
{
    ompb__pin_spec pin;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__pin_parse("S1:0-2@N:7", &pin, &err), 0);
    CU_ASSERT_STRING_EQUAL(pin.policy->name, "domains");
    CU_ASSERT_EQUAL_FATAL(pin.n_domains, 2);
    CU_ASSERT_EQUAL(pin.domains[0].kind, 'S');
    CU_ASSERT_EQUAL(pin.domains[0].number, 1);
    CU_ASSERT_EQUAL(pin.domains[1].kind, 'N');
    CU_ASSERT_EQUAL(pin.domains[1].first, 3);
    char got[64];
    join_ints(pin.pus, pin.n_pus, got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "0 1 2 7");
    CU_ASSERT_TRUE(ompb__pin_binds(&pin));
    ompb__pin_spec_release(&pin);
    CU_ASSERT_PTR_NULL(pin.domains);

    static const struct { const char *value, *why; } bad[] = {
        {"S0:0@", "item '': expected N:, S<n>:, M<n>: or C<n>: before the list"},
        {"S0:0@@S1:0", "item '': expected"},
        {"S0@S1:0", "item 'S0': expected"},
        {"N0:1", NULL},
        {"S0:", "item 'S0:': a PU number is missing at the end"},
        {"S0:1,1", "item 'S0:1,1': index 1 is listed twice"},
        {"M1:3-1", "item 'M1:3-1': range 3-1 is reversed"},
        {"C99999999:0", "item 'C99999999:0': expected"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(ompb__pin_parse(bad[i].value, &pin, &err), OMPB_EINVAL);
        CU_ASSERT_PTR_NULL(pin.domains);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, bad[i].value));
        if (bad[i].why && !strstr(err.text, bad[i].why))
            fprintf(stderr, "\n%s: '%s' lacks '%s'\n", bad[i].value, err.text, bad[i].why);
        CU_ASSERT_TRUE(!bad[i].why || strstr(err.text, bad[i].why));
    }
}

static const ompb_test_case cases[] = {
    {"domain_expressions", test_domain_expressions},
    {"domain_parse", test_domain_parse},
    {"accepted_lists_the_table", test_accepted_lists_the_table},
    {"parse_rows", test_parse_rows},
    {"bad_pin_values", test_bad_pin_values},
    {"order_rows", test_order_rows},
    {"cli_parses_once", test_cli_parses_once},
    {"cpulist", test_cpulist},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_pin = {"pin", NULL, NULL, cases};
