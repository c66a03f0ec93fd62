/* SPDX-License-Identifier: MIT */
/*
 * The run context: every JSON field is written and parsed back with jansson;
 * environment warnings are driven by recorded /proc and /sys files
 * (tests/data/context) and by the environment, never by the host's state;
 * warnings are printed once to stderr and recorded once. The reporters'
 * header and JSON are also checked against golden text rendered from a
 * context filled by hand.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <omp.h>
#include <ompbench/version.h>

#include "context/context.h"
#include "suite.h"

#define SYSROOT(name) OMPB_TEST_DATA_DIR "/context/" name

/* ---- helpers ----------------------------------------------------------- */

/* Variables that change warnings or the binder; cleared for each test. */
static const char *const controlled[] = {"OMP_PLACES", "OMP_PROC_BIND", "OMP_WAIT_POLICY",
                                         "GOMP_CPU_AFFINITY", "KMP_AFFINITY"};
#define N_CONTROLLED (sizeof controlled / sizeof controlled[0])
static char *saved[N_CONTROLLED];

static int clear_env(void)
{
    for (size_t i = 0; i < N_CONTROLLED; i++) {
        const char *v = getenv(controlled[i]);
        saved[i] = v ? strdup(v) : NULL;
        unsetenv(controlled[i]);
    }
    return 0;
}

static int restore_env(void)
{
    for (size_t i = 0; i < N_CONTROLLED; i++) {
        unsetenv(controlled[i]);
        if (saved[i])
            setenv(controlled[i], saved[i], 1);
        free(saved[i]);
        saved[i] = NULL;
    }
    return 0;
}

/* Serializes and parses back, as a reader of the results file would. */
static json_t *round_trip(const ompb__context *ctx)
{
    json_t *j = ompb__context_to_json(ctx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    json_error_t jerr;
    json_t *back = json_loads(text, 0, &jerr);
    free(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    return back;
}

static json_t *ompb_obj(json_t *ctx_json)
{
    json_t *o = json_object_get(ctx_json, "ompbench");
    CU_ASSERT_TRUE_FATAL(json_is_object(o));
    return o;
}

/* Number of recorded warnings containing needle. */
static int warnings_with(json_t *ctx_json, const char *needle)
{
    json_t *w = json_object_get(ompb_obj(ctx_json), "warnings"), *v;
    size_t i;
    int n = 0;
    CU_ASSERT_TRUE_FATAL(json_is_array(w));
    json_array_foreach(w, i, v)
        n += strstr(json_string_value(v), needle) != NULL;
    return n;
}

static bool matches(const char *text, const char *pattern)
{
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return false;
    bool ok = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* Redirects stderr to a temporary file while a warning is raised. */
static int saved_fd = -1;
static FILE *capture_file;

static void capture_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(capture_file);
    saved_fd = dup(STDERR_FILENO);
    dup2(fileno(capture_file), STDERR_FILENO);
}

static void capture_end(char *buf, size_t len)
{
    fflush(stderr);
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    rewind(capture_file);
    size_t n = fread(buf, 1, len - 1, capture_file);
    buf[n] = '\0';
    fclose(capture_file);
}

/* The --pin text as the CLI parses it; NULL: not given (a zeroed spec). */
static ompb__pin_spec pin_of(const char *text)
{
    ompb__pin_spec pin = {0};
    if (text)
        CU_ASSERT_EQUAL_FATAL(ompb__pin_parse(text, &pin, NULL), 0);
    return pin;
}

/* The plan on t for the --pin text (NULL: not given). */
static ompb__pin_plan *plan_for(const ompb__topology *t, const char *text, int threads)
{
    ompb__pin_plan *plan = NULL;
    ompb__pin_spec pin = pin_of(text);
    CU_ASSERT_EQUAL_FATAL(ompb__pin_plan_new(t, &pin, threads, &plan, NULL), 0);
    ompb__pin_spec_release(&pin);
    return plan;
}

static ompb__pin_plan *plan_on(ompb__topology **t, const char *desc, const char *pin, int threads)
{
    CU_ASSERT_EQUAL_FATAL(ompb__topology_open_synthetic(desc, t, NULL), 0);
    return plan_for(*t, pin, threads);
}

/* A context read from the recorded sysroot, with the synthetic machine desc
 * narrowed to the PUs of pus (NULL: all), as taskset or a cgroup would. */
static ompb__context *context_on(const char *sysroot, const char *desc, const char *pus)
{
    ompb__topology *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ompb__topology_open_synthetic(desc, &t, NULL), 0);
    if (pus)
        CU_ASSERT_EQUAL_FATAL(ompb__topology_restrict(t, pus, NULL), 0);
    ompb__context_env at = {.sysroot = sysroot};
    ompb__context *ctx = ompb__context_new_in(&at, NULL, 0, "x");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ompb__context_set_topology(ctx, t);
    ompb__topology_close(t);
    return ctx;
}

static char *header_of(const ompb__context *ctx)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    ompb__context_print_header(out, ctx);
    fclose(out);
    return text;
}

/* ---- tests -------------------------------------------------------------- */

/* The Google Benchmark context fields, with the types its tools expect. */
static void test_gbench_fields(void)
{
    char host[256] = "";
    ompb__context *ctx = ompb__context_new(NULL, 0, "benches/examples");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    json_t *j = round_trip(ctx);
    const char *date = json_string_value(json_object_get(j, "date"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(date);
    CU_ASSERT_TRUE(matches(date, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
                                 "[+-][0-9]{2}:[0-9]{2}$"));
    gethostname(host, sizeof host - 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "host_name")), host);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "executable")),
                           "benches/examples");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "num_cpus")),
                    sysconf(_SC_NPROCESSORS_ONLN));
    CU_ASSERT_TRUE(json_is_integer(json_object_get(j, "mhz_per_cpu")));
    CU_ASSERT_TRUE(json_is_boolean(json_object_get(j, "cpu_scaling_enabled")));
    CU_ASSERT_TRUE(json_is_array(json_object_get(j, "caches")));
    json_t *load = json_object_get(j, "load_avg");
    CU_ASSERT_TRUE(json_is_array(load) && json_array_size(load) == 3);
    CU_ASSERT_TRUE(json_is_number(json_array_get(load, 0)));
    const char *bt = json_string_value(json_object_get(j, "library_build_type"));
    CU_ASSERT_TRUE(bt && (strcmp(bt, "release") == 0 || strcmp(bt, "debug") == 0));
    /* "debug" exactly when the library is a Debug or unoptimized build. */
    json_t *o = ompb_obj(j);
    bool dbg = strcmp(json_string_value(json_object_get(o, "build_type")), "Debug") == 0
               || !json_is_true(json_object_get(o, "optimized"));
    CU_ASSERT_EQUAL(strcmp(bt, "debug") == 0, dbg);
    /* Only the library's flags are known: the warning says whose build it is. */
    CU_ASSERT_EQUAL(warnings_with(j, "unoptimized build of libompbench") == 1, dbg);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "json_schema_version")), 1);
    json_decref(j);
    ompb__context_free(ctx);
}

/* Our extras: version, CPU, OpenMP runtime, environment, compiler, pin. */
static void test_ompbench_fields(void)
{
    setenv("OMP_OMPBTEST_B", "2", 1);
    setenv("OMP_OMPBTEST_A", "1", 1);
    setenv("GOMP_OMPBTEST", "g", 1);
    setenv("KMP_OMPBTEST", "k", 1);
    setenv("XOMP_OMPBTEST", "no", 1);
    ompb__context *ctx = ompb__context_new(NULL, 3, "x");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    json_t *j = round_trip(ctx), *o = ompb_obj(j);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "version")), OMPB_VERSION_STRING);
    CU_ASSERT_TRUE(json_is_string(json_object_get(o, "cpu_model")));
    json_t *env = json_object_get(o, "environment");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(env, "OMP_OMPBTEST_A")), "1");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(env, "GOMP_OMPBTEST")), "g");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(env, "KMP_OMPBTEST")), "k");
    CU_ASSERT_PTR_NULL(json_object_get(env, "XOMP_OMPBTEST"));
    CU_ASSERT_PTR_NULL(json_object_get(env, "PATH"));
    /* Sorted by name, so two runs' contexts diff cleanly. */
    char *text = json_dumps(env, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CU_ASSERT_TRUE(strstr(text, "OMP_OMPBTEST_A") < strstr(text, "OMP_OMPBTEST_B"));
    CU_ASSERT_TRUE(strstr(text, "GOMP_OMPBTEST") < strstr(text, "KMP_OMPBTEST"));
    free(text);

    json_t *omp = json_object_get(o, "openmp");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(omp, "_OPENMP")), _OPENMP);
    CU_ASSERT_TRUE(json_is_string(json_object_get(omp, "version")));
    CU_ASSERT_PTR_NOT_NULL(strstr("GNU libgomp|LLVM libomp|Intel libiomp5",
                                  json_string_value(json_object_get(omp, "vendor"))));
    CU_ASSERT_TRUE(json_integer_value(json_object_get(omp, "max_threads")) >= 1);
    CU_ASSERT_TRUE(json_is_string(json_object_get(omp, "proc_bind")));
    /* This test binary links libompbench statically, built with GCC: the
     * guard sees every fork of libgomp. */
#ifndef __clang__
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(omp, "fork_guard")), "all");
#endif
    CU_ASSERT_TRUE(strlen(json_string_value(json_object_get(o, "compiler"))) > 0);
    CU_ASSERT_TRUE(json_is_string(json_object_get(o, "compiler_flags")));
    CU_ASSERT_TRUE(json_is_boolean(json_object_get(o, "optimized")));
    CU_ASSERT_TRUE(json_is_string(json_object_get(o, "build_type")));
    CU_ASSERT_EQUAL(json_array_size(json_object_get(o, "load_avg")), 3);
    json_t *gov = json_object_get(o, "cpu_governor");
    CU_ASSERT_TRUE(json_is_null(gov) || json_is_string(gov));
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(o, "default_threads")), 3);
    /* No topology set yet: nothing about the machine is guessed from sysfs. */
    json_t *topo = json_object_get(o, "topology");
    CU_ASSERT_TRUE(json_is_null(json_object_get(topo, "usable_pus")));
    CU_ASSERT_TRUE(json_is_null(json_object_get(topo, "usable_cores")));
    CU_ASSERT_TRUE(json_is_null(json_object_get(topo, "usable_cpuset")));
    json_t *pin = json_object_get(o, "pin");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "policy")), "compact");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "binder")), "ompbench");
    CU_ASSERT_TRUE(json_is_false(json_object_get(pin, "given")));
    CU_ASSERT_EQUAL(json_array_size(json_object_get(pin, "plans")), 0);
    CU_ASSERT_TRUE(json_is_array(json_object_get(o, "warnings")));
    json_decref(j);
    ompb__context_free(ctx);
    unsetenv("OMP_OMPBTEST_A");
    unsetenv("OMP_OMPBTEST_B");
    unsetenv("GOMP_OMPBTEST");
    unsetenv("KMP_OMPBTEST");
    unsetenv("XOMP_OMPBTEST");
}

/* Recorded /proc and /sys of a busy machine with a powersave governor. */
static void test_sysroot_busy(void)
{
    ompb__context *ctx = context_on(SYSROOT("sysroot-busy"), "pack:1 core:2 pu:1", NULL);
    json_t *j = round_trip(ctx), *o = ompb_obj(j);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "cpu_model")),
                           "Test CPU 9000 @ 2.40GHz");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "mhz_per_cpu")), 2400);
    CU_ASSERT_TRUE(json_is_true(json_object_get(j, "cpu_scaling_enabled")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "cpu_governor")), "powersave");
    CU_ASSERT_EQUAL(json_real_value(json_array_get(json_object_get(j, "load_avg"), 0)), 100000.0);
    CU_ASSERT_EQUAL(warnings_with(j, "governor is 'powersave', not 'performance'"), 1);
    CU_ASSERT_EQUAL(warnings_with(j, "load average 100000.00 is above the 2 usable cores"), 1);
    json_decref(j);
    ompb__context_free(ctx);
}

/* The load average counts the whole machine: under taskset or a cgroup it
 * is compared with every PU of the machine, not with the usable cores. */
static void test_load_partial_machine(void)
{
    /* Load 3 on 8 PUs, 1 usable core: the other PUs carry that load. */
    ompb__context *ctx = context_on(SYSROOT("sysroot-load3"), "pack:1 core:4 pu:2", "0-1");
    json_t *j = round_trip(ctx);
    CU_ASSERT_EQUAL(warnings_with(j, "load average"), 0);
    json_decref(j);
    ompb__context_free(ctx);

    ctx = context_on(SYSROOT("sysroot-busy"), "pack:1 core:4 pu:2", "0-1");
    j = round_trip(ctx);
    CU_ASSERT_EQUAL(warnings_with(j, "load average 100000.00 is above the machine's 8 PUs (of "
                                     "which this process may use 2)"), 1);
    json_decref(j);
    ompb__context_free(ctx);

    /* The whole machine usable: compared with its cores. */
    ctx = context_on(SYSROOT("sysroot-load3"), "pack:1 core:2 pu:2", NULL);
    j = round_trip(ctx);
    CU_ASSERT_EQUAL(warnings_with(j, "load average 3.00 is above the 2 usable cores"), 1);
    json_decref(j);
    ompb__context_free(ctx);
}

/* A non-UTF-8 argv[0] or CPU model must not cost the JSON report. */
static void test_not_utf8(void)
{
    ompb__context_env at = {.sysroot = SYSROOT("sysroot-latin1")};
    ompb__context *ctx = ompb__context_new_in(&at, NULL, 0, "./bench-\xff\xfe");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    json_t *j = round_trip(ctx);
    CU_ASSERT_TRUE(json_is_string(json_object_get(j, "executable")));
    CU_ASSERT_TRUE(json_is_string(json_object_get(j, "host_name")));
    CU_ASSERT_TRUE(json_is_string(json_object_get(ompb_obj(j), "cpu_model")));
    json_decref(j);
    ompb__context_free(ctx);
}

static void test_sysroot_quiet(void)
{
    ompb__context_env at = {.sysroot = SYSROOT("sysroot-quiet")};
    ompb__context *ctx = ompb__context_new_in(&at, NULL, 0, "x");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    json_t *j = round_trip(ctx), *o = ompb_obj(j);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "cpu_model")), "Quiet CPU");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "mhz_per_cpu")), 3100);
    CU_ASSERT_TRUE(json_is_false(json_object_get(j, "cpu_scaling_enabled")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "cpu_governor")), "performance");
    CU_ASSERT_EQUAL(warnings_with(j, "governor"), 0);
    CU_ASSERT_EQUAL(warnings_with(j, "load average"), 0);
    CU_ASSERT_EQUAL(warnings_with(j, "OMP_WAIT_POLICY"), 0);
    json_decref(j);
    ompb__context_free(ctx);
}

static void test_passive_wait_policy(void)
{
    setenv("OMP_WAIT_POLICY", "Passive", 1);
    ompb__context *ctx = ompb__context_new(NULL, 0, "x");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    json_t *j = round_trip(ctx);
    CU_ASSERT_EQUAL(warnings_with(j, "OMP_WAIT_POLICY=Passive"), 1);
    CU_ASSERT_EQUAL(warnings_with(j, "100x"), 1);
    json_decref(j);
    ompb__context_free(ctx);
    setenv("OMP_WAIT_POLICY", "active", 1);
    ctx = ompb__context_new(NULL, 0, "x");
    j = round_trip(ctx);
    CU_ASSERT_EQUAL(warnings_with(j, "OMP_WAIT_POLICY"), 0);
    json_decref(j);
    ompb__context_free(ctx);
    unsetenv("OMP_WAIT_POLICY");
}

/* A synthetic machine: counts, usable cpuset and caches in both forms. */
static void test_topology_and_caches(void)
{
    ompb__topology *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ompb__topology_open_synthetic("pack:2 numa:2 l3:1 core:4 pu:2", &t,
                                                        NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__topology_restrict(t, "0-7,16", NULL), 0);
    ompb__context *ctx = ompb__context_new(NULL, 0, "x");
    ompb__context_set_topology(ctx, t);
    json_t *j = round_trip(ctx);
    json_t *topo = json_object_get(ompb_obj(j), "topology");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(topo, "packages")), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(topo, "numa_nodes")), 4);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(topo, "cores")), 16);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(topo, "pus")), 32);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(topo, "usable_cores")), 5);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(topo, "usable_pus")), 9);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(topo, "usable_cpuset")), "0-7,16");
    CU_ASSERT_TRUE(json_is_false(json_object_get(topo, "this_system")));
    json_t *caches = json_object_get(j, "caches"), *l3 = json_array_get(caches, 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(caches), 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(l3, "type")), "Unified");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(l3, "level")), 3);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(l3, "num_sharing")), 8);
    CU_ASSERT_TRUE(json_integer_value(json_object_get(l3, "size")) > 0);
    json_decref(j);
    ompb__context_free(ctx);
    ompb__topology_close(t);
}

/* Per-T maps are recorded once each; oversubscription warns once per run. */
static void test_plans_and_oversubscription(void)
{
    ompb__topology *t = NULL;
    ompb__pin_plan *p2 = plan_on(&t, "pack:1 core:2 pu:2", "compact", 2), *p6, *p8;
    p6 = plan_for(t, "compact", 6);
    p8 = plan_for(t, "compact", 8);
    ompb__pin_spec compact = pin_of("compact");
    ompb__context *ctx = ompb__context_new(&compact, 0, "x");
    ompb__pin_spec_release(&compact);
    char err[1024];
    capture_begin();
    ompb__context_add_plan(ctx, p2);
    ompb__context_add_plan(ctx, p2);
    ompb__context_add_plan(ctx, p6);
    ompb__context_add_plan(ctx, p8);
    capture_end(err, sizeof err);
    CU_ASSERT_STRING_EQUAL(err, "ompbench: warning: oversubscribed: 6 threads on 4 PUs; threads "
                                "share PUs round-robin and rounds include time slicing\n");
    json_t *j = round_trip(ctx), *pin = json_object_get(ompb_obj(j), "pin");
    CU_ASSERT_TRUE(json_is_true(json_object_get(pin, "given")));
    json_t *plans = json_object_get(pin, "plans"), *first = json_array_get(plans, 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(plans), 3);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(first, "threads")), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(first, "pu"), 1)), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(first, "core"), 1)), 1);
    CU_ASSERT_TRUE(json_is_false(json_object_get(first, "oversubscribed")));
    CU_ASSERT_TRUE(json_is_true(json_object_get(json_array_get(plans, 1), "oversubscribed")));
    CU_ASSERT_EQUAL(warnings_with(j, "oversubscribed"), 1);
    json_decref(j);

    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ompb__context_print_header(out, ctx);
    fclose(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "placement:  --pin compact; ompbench binds"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "pu map:     T=2: 0 2; T=6: 0 2 1 3 0 2; T=8:"));
    free(text);
    ompb__context_free(ctx);
    ompb__pin_plan_free(p2);
    ompb__pin_plan_free(p6);
    ompb__pin_plan_free(p8);
    ompb__topology_close(t);
}

/* OMP_PROC_BIND=false without --pin: the runtime binds nothing, nor do we. */
static void test_proc_bind_false(void)
{
    ompb__topology *t = NULL;
    setenv("OMP_PROC_BIND", "false", 1);
    setenv("OMP_PLACES", "cores", 1);
    ompb__pin_plan *plan = plan_on(&t, "pack:1 core:2 pu:1", NULL, 2);
    ompb__context *ctx = ompb__context_new(NULL, 0, "x");
    ompb__context_add_plan(ctx, plan);
    json_t *j = round_trip(ctx), *pin = json_object_get(ompb_obj(j), "pin");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "binder")), "none");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "policy")), "runtime");
    CU_ASSERT_EQUAL(warnings_with(j, "threads are not pinned (OMP_PROC_BIND=false, no --pin)"), 1);
    json_decref(j);
    char *text = header_of(ctx);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "placement:  no --pin; nobody binds: OMP_PROC_BIND=false, "
                                        "so the OpenMP runtime binds nothing"));
    free(text);
    ompb__context_free(ctx);
    ompb__pin_plan_free(plan);
    ompb__topology_close(t);
    unsetenv("OMP_PROC_BIND");
    unsetenv("OMP_PLACES");
}

static void test_not_pinned(void)
{
    ompb__topology *t = NULL;
    ompb__pin_plan *plan = plan_on(&t, "pack:1 core:2 pu:1", "none", 2);
    ompb__context *ctx = ompb__context_new(NULL, 0, "x");
    ompb__context_add_plan(ctx, plan);
    ompb__context_add_plan(ctx, plan);
    json_t *j = round_trip(ctx);
    CU_ASSERT_EQUAL(warnings_with(j, "threads are not pinned (--pin none)"), 1);
    json_t *p = json_array_get(json_object_get(json_object_get(ompb_obj(j), "pin"), "plans"), 0);
    CU_ASSERT_TRUE(json_is_null(json_array_get(json_object_get(p, "pu"), 0)));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(ompb_obj(j), "pin"),
                                                             "binder")), "none");
    json_decref(j);
    ompb__context_free(ctx);
    ompb__pin_plan_free(plan);
    ompb__topology_close(t);
}

/* OMP_PLACES without --pin: the runtime binds and the header says so. */
static void test_runtime_binder(void)
{
    setenv("OMP_PLACES", "cores", 1);
    setenv("OMP_PROC_BIND", "close", 1);
    ompb__context *ctx = ompb__context_new(NULL, 0, "x");
    json_t *j = round_trip(ctx), *o = ompb_obj(j), *pin = json_object_get(o, "pin");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "binder")), "runtime");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "policy")), "runtime");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(o, "environment"),
                                                             "OMP_PLACES")), "cores");
    json_decref(j);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ompb__context_print_header(out, ctx);
    fclose(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "placement:  no --pin; the OpenMP runtime binds"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "OMP_PLACES=cores OMP_PROC_BIND=close"));
    free(text);
    ompb__context_free(ctx);

    ompb__pin_spec spread = pin_of("spread");
    ctx = ompb__context_new(&spread, 0, "x");
    ompb__pin_spec_release(&spread);
    j = round_trip(ctx);
    pin = json_object_get(ompb_obj(j), "pin");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "binder")), "ompbench");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "policy")), "spread");
    json_decref(j);
    ompb__context_free(ctx);
    unsetenv("OMP_PLACES");
    unsetenv("OMP_PROC_BIND");
}

/* --pin none with a binding runtime: we do not bind, the runtime still
 * does, and nobody calls the threads unpinned. GOMP_CPU_AFFINITY and
 * KMP_AFFINITY bind as OMP_PLACES does. */
static void test_runtime_binds_anyway(void)
{
    ompb__topology *t = NULL;
    setenv("OMP_PLACES", "cores", 1);
    ompb__pin_plan *plan = plan_on(&t, "pack:1 core:2 pu:1", "none", 2);
    ompb__pin_spec none = pin_of("none");
    ompb__context *ctx = ompb__context_new(&none, 0, "x");
    ompb__pin_spec_release(&none);
    ompb__context_add_plan(ctx, plan);
    json_t *j = round_trip(ctx), *pin = json_object_get(ompb_obj(j), "pin");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "binder")), "runtime");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "policy")), "none");
    CU_ASSERT_EQUAL(warnings_with(j, "threads are not pinned"), 0);
    /* The runtime read its variables at start-up: if it reports it binds
     * nothing, the run says the threads may not be pinned. */
    bool runtime_off = omp_get_proc_bind() == omp_proc_bind_false;
    CU_ASSERT_EQUAL(warnings_with(j, "threads may not be pinned") == 1, runtime_off);
    json_decref(j);
    char *text = header_of(ctx);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "placement:  --pin none; ompbench does not bind, but the "
                                        "OpenMP runtime still does (OMP_PLACES set)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nplaces:     "));
    free(text);
    ompb__context_free(ctx);
    ompb__pin_plan_free(plan);
    unsetenv("OMP_PLACES");

    static const char *const vars[] = {"GOMP_CPU_AFFINITY", "KMP_AFFINITY"};
    for (size_t i = 0; i < 2; i++) {
        setenv(vars[i], "0", 1);
        ctx = ompb__context_new(NULL, 0, "x");
        j = round_trip(ctx);
        pin = json_object_get(ompb_obj(j), "pin");
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pin, "binder")), "runtime");
        CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_object_get(pin, "description")),
                                      vars[i]));
        json_decref(j);
        ompb__context_free(ctx);
        unsetenv(vars[i]);
    }
    ompb__topology_close(t);
}

/* Printed at once with the prefix, recorded once, identical text only once. */
static void test_warn_dedup(void)
{
    ompb__context *ctx = ompb__context_new(NULL, 0, "x");
    json_t *j = round_trip(ctx);
    size_t before = json_array_size(json_object_get(ompb_obj(j), "warnings"));
    json_decref(j);
    char err[512];
    capture_begin();
    ompb__context_warn(ctx, "%s: %d thread migrations", "bench[1]", 3);
    ompb__context_warn(ctx, "%s: %d thread migrations", "bench[1]", 3);
    ompb__context_warn(ctx, "%s: %d thread migrations", "bench[2]", 1);
    ompb__context_warn(NULL, "no context");
    capture_end(err, sizeof err);
    CU_ASSERT_STRING_EQUAL(err, "ompbench: warning: bench[1]: 3 thread migrations\n"
                                "ompbench: warning: bench[2]: 1 thread migrations\n"
                                "ompbench: warning: no context\n");
    j = round_trip(ctx);
    json_t *w = json_object_get(ompb_obj(j), "warnings");
    CU_ASSERT_EQUAL(json_array_size(w), before + 2);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(w, before)),
                           "bench[1]: 3 thread migrations");
    json_decref(j);
    ompb__context_free(ctx);
}

static void test_header(void)
{
    ompb__topology *t = NULL;
    ompb__pin_plan *plan = plan_on(&t, "pack:1 core:2 pu:1", "compact", 2);
    setenv("OMP_OMPBTEST", "v", 1);
    ompb__context *ctx = ompb__context_new(NULL, 0, "x");
    ompb__context_set_topology(ctx, t);
    ompb__context_add_plan(ctx, plan);
    char *text = NULL;
    size_t len = 0, lines = 0;
    FILE *out = open_memstream(&text, &len);
    ompb__context_print_header(out, ctx);
    fclose(out);
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CU_ASSERT_TRUE(lines >= 6 && lines <= 9);
    static const char *first = "ompbench " OMPB_VERSION_STRING " on ";
    CU_ASSERT_TRUE(strncmp(text, first, strlen(first)) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 package, 1 NUMA node, 2 cores, 2 PUs; usable 2 cores,"
                                        " 2 PUs (0-1) [not this machine]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nopenmp:     "));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nbuild:      libompbench: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "OMP_OMPBTEST=v"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "placement:  --pin compact (default); ompbench binds"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "pu map:     T=2: 0 1\n"));
    free(text);
    unsetenv("OMP_OMPBTEST");
    ompb__context_free(ctx);
    ompb__pin_plan_free(plan);
    ompb__topology_close(t);
}

/* A distributed run's header and JSON give the skew's error bound that the
 * context recorded with the distribution (the two largest clock offset
 * errors), not one the reporters work out from the distribution again. */
static void test_distribution_skew_error(void)
{
    static const uint64_t offset_error[] = {0, 500, 300};
    static const char *const hosts[] = {"a", "b", "c"};
    ompb_distribution d = {.rank = 0, .size = 3, .hosts = hosts,
                           .clock_offset_error_ns = offset_error, .barrier_exit_skew_ns = 42};
    ompb__context *ctx = ompb__context_new(NULL, 2, "x");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ompb__context_set_distribution(ctx, &d);
    CU_ASSERT_DOUBLE_EQUAL(ctx->dist_skew_error_ns, 800.0, 1e-9);
    char *text = header_of(ctx);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "barrier exit skew 42 ns +- 800 ns"));
    free(text);
    json_t *j = ompb__context_to_json(ctx);
    json_t *dist = json_object_get(json_object_get(j, "ompbench"), "distribution");
    CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(dist, "barrier_exit_skew_error_ns")),
                           800.0, 1e-9);
    json_decref(j);
    ompb__context_free(ctx);
}

/* Unreadable /proc/loadavg: "load unknown", not zeros; no topology yet:
 * "topology unknown", not "usable 0 cores"; without Core objects the PUs
 * count as cores. */
static void test_header_unknowns(void)
{
    ompb__context_env at = {.sysroot = SYSROOT("missing")};
    ompb__context *ctx = ompb__context_new_in(&at, NULL, 0, "x");
    char *text = header_of(ctx);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nsystem:     load unknown, governor not readable\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "; topology unknown\n"));
    CU_ASSERT_PTR_NULL(strstr(text, "0.00"));
    free(text);
    json_t *j = round_trip(ctx);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "load_avg")), 0);
    json_decref(j);
    ompb__context_free(ctx);

    ctx = context_on(SYSROOT("sysroot-quiet"), "pack:1 pu:4", NULL);
    text = header_of(ctx);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "; usable 4 cores, 4 PUs (0-3)"));
    free(text);
    ompb__context_free(ctx);
}

/* ---- rendering a hand-filled context (no /proc, no runtime) -------------- */

/* A context as a run on a small machine would collect it. The caller
 * supplies the owned members; nothing here is freed. */
static ompb__context plain_context(char *exe, char *policy, ompb__env_var *env, size_t n_env,
                                   ompb__plan_summary *plans, size_t n_plans, char **warnings,
                                   size_t n_warnings)
{
    ompb__context ctx = {
        .date = "2026-11-29T17:30:00+01:00", .host = "node1", .executable = exe,
        .version = "9.8.7", .default_threads = 2, .num_cpus = 4, .mhz = 3100,
        .cpu_model = "Test CPU 9000", .governor = "performance", .have_load = true,
        .load = {0.5, 0.25, 1.75}, .have_topo = true,
        .topo = {.packages = 1, .numa_nodes = 1, .cores = 2, .pus = 4, .usable_cores = 2,
                 .usable_pus = 4, .this_system = true, .usable_cpuset = "0-3",
                 .cpu_model = "Test CPU 9000"},
        .caches = {{"Data", 1, 32768, 2}, {"Unified", 2, 1048576, 4}}, .n_caches = 2,
        .openmp_date = 201511, .openmp_version = "4.5", .omp_vendor = "GNU libgomp",
        .omp_library = "/usr/lib/libgomp.so.1", .omp_max_threads = 4, .omp_num_places = 0,
        .omp_proc_bind = omp_proc_bind_false, .omp_places = "none", .fork_guard = "all",
        .env = env, .n_env = n_env,
        .compiler = "GNU 12.2.0", .compiler_flags = "-O3 -DNDEBUG", .build_type = "Release",
        .optimized = true, .debug_build = false, .pin_policy = policy, .pin_given = false,
        .binder = OMPB__BINDER_OURS,
        .placement = "--pin compact (default); ompbench binds each team thread to one PU at "
                     "team start (hwloc)",
        .plans = plans, .n_plans = n_plans, .warnings = warnings, .n_warnings = n_warnings,
        .repetitions = 1, .processes = 1, .seed = 18446744073709551615ull,
    };
    return ctx;
}

static void test_plain_header(void)
{
    char exe[] = "./bench", policy[] = "compact", name[] = "OMP_NUM_THREADS", value[] = "2";
    char p1[] = "compact", p3[] = "compact", warning[] = "a warning";
    int pu1[] = {0}, core1[] = {0}, pu3[] = {0, 2, 1}, core3[] = {0, 1, 0};
    ompb__env_var env[] = {{name, value}};
    ompb__plan_summary plans[] = {
        {.threads = 1, .policy = p1, .binder = OMPB__BINDER_OURS, .pu = pu1, .core = core1},
        {.threads = 3, .policy = p3, .binder = OMPB__BINDER_OURS, .pu = pu3, .core = core3},
    };
    char *warnings[] = {warning};
    ompb__context ctx = plain_context(exe, policy, env, 1, plans, 2, warnings, 1);
    static const char *golden =
        "ompbench 9.8.7 on node1, 2026-11-29T17:30:00+01:00\n"
        "cpu:        Test CPU 9000; 1 package, 1 NUMA node, 2 cores, 4 PUs; usable 2 cores, 4 "
        "PUs (0-3)\n"
        "openmp:     GNU libgomp, OpenMP 4.5 (_OPENMP 201511), max threads 4, proc_bind false\n"
        "build:      libompbench: GNU 12.2.0 -O3 -DNDEBUG, Release\n"
        "system:     load 0.50 0.25 1.75, governor performance\n"
        "env:        OMP_NUM_THREADS=2\n"
        "placement:  --pin compact (default); ompbench binds each team thread to one PU at team "
        "start (hwloc)\n"
        "pu map:     T=1: 0; T=3: 0 2 1\n";
    char *text = header_of(&ctx);
    if (strcmp(text, golden) != 0)
        fprintf(stderr, "\n--- got\n%s--- want\n%s", text, golden);
    CU_ASSERT_STRING_EQUAL(text, golden);
    free(text);

    /* Repeated runs say how, and the seed that replays the order. */
    ctx.repetitions = 5;
    ctx.processes = 5;
    ctx.interleaved = true;
    text = header_of(&ctx);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nrepeats:    5 repetitions per instance in 5 processes, "
                                        "interleaved, seed 18446744073709551615 (replay: --seed "
                                        "18446744073709551615)\n"));
    free(text);
    ctx.processes = 1;
    ctx.interleaved = false;
    text = header_of(&ctx);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nrepeats:    5 repetitions per instance, back to back "
                                        "(one CodSpeed window per instance)\n"));
    free(text);
    ctx.repetitions = 1;

    /* The runtime binds: its places instead of a map; nothing known of the
     * machine, the load or the environment; an unoptimized Debug build. */
    char bad_value[] = "\xff";
    env[0].value = bad_value;
    ctx.binder = OMPB__BINDER_RUNTIME;
    ctx.omp_proc_bind = omp_proc_bind_close;
    snprintf(ctx.omp_places, sizeof ctx.omp_places, "{0},{1}");
    snprintf(ctx.placement, sizeof ctx.placement, "no --pin; the OpenMP runtime binds "
             "(OMP_PLACES set); ompbench only observes");
    ctx.have_topo = ctx.have_load = false;
    ctx.governor[0] = '\0';
    ctx.build_type = "Debug";
    ctx.optimized = false;
    static const char *golden2 =
        "ompbench 9.8.7 on node1, 2026-11-29T17:30:00+01:00\n"
        "cpu:        Test CPU 9000; topology unknown\n"
        "openmp:     GNU libgomp, OpenMP 4.5 (_OPENMP 201511), max threads 4, proc_bind close\n"
        "build:      libompbench: GNU 12.2.0 -O3 -DNDEBUG, Debug (unoptimized)\n"
        "system:     load unknown, governor not readable\n"
        "env:        OMP_NUM_THREADS=(not UTF-8)\n"
        "placement:  no --pin; the OpenMP runtime binds (OMP_PLACES set); ompbench only "
        "observes\n"
        "places:     {0},{1} (proc_bind close)\n";
    text = header_of(&ctx);
    if (strcmp(text, golden2) != 0)
        fprintf(stderr, "\n--- got\n%s--- want\n%s", text, golden2);
    CU_ASSERT_STRING_EQUAL(text, golden2);
    free(text);
    ctx.n_env = 0;
    text = header_of(&ctx);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nenv:        no OMP_*, GOMP_* or KMP_* set\n"));
    free(text);
}

static void test_plain_json(void)
{
    char exe[] = "./bench", policy[] = "cpus:2,0", name[] = "OMP_PLACES", value[] = "cores";
    char p2[] = "cpus:2,0", w1[] = "first warning", w2[] = "second warning";
    int pu2[] = {2, 0}, core2[] = {1, 0};
    ompb__env_var env[] = {{name, value}};
    ompb__plan_summary plans[] = {
        {.threads = 2, .policy = p2, .binder = OMPB__BINDER_OURS, .pu = pu2, .core = core2,
         .oversubscribed = true},
    };
    char *warnings[] = {w1, w2};
    ompb__context ctx = plain_context(exe, policy, env, 1, plans, 1, warnings, 2);
    ctx.pin_given = true;
    snprintf(ctx.placement, sizeof ctx.placement, "--pin cpus:2,0; ompbench binds");
    static const char *golden =
        "{\"date\":\"2026-11-29T17:30:00+01:00\",\"host_name\":\"node1\","
        "\"executable\":\"./bench\",\"num_cpus\":4,\"mhz_per_cpu\":3100,"
        "\"cpu_scaling_enabled\":false,\"caches\":["
        "{\"type\":\"Data\",\"level\":1,\"size\":32768,\"num_sharing\":2},"
        "{\"type\":\"Unified\",\"level\":2,\"size\":1048576,\"num_sharing\":4}],"
        "\"load_avg\":[0.5,0.25,1.75],\"library_build_type\":\"release\","
        "\"json_schema_version\":1,\"ompbench\":{\"version\":\"9.8.7\","
        "\"cpu_model\":\"Test CPU 9000\",\"topology\":{\"packages\":1,\"numa_nodes\":1,"
        "\"cores\":2,\"pus\":4,\"usable_cores\":2,\"usable_pus\":4,\"usable_cpuset\":\"0-3\","
        "\"this_system\":true},\"openmp\":{\"_OPENMP\":201511,\"version\":\"4.5\","
        "\"vendor\":\"GNU libgomp\",\"library\":\"/usr/lib/libgomp.so.1\",\"max_threads\":4,"
        "\"proc_bind\":\"false\",\"num_places\":0,\"fork_guard\":\"all\"},"
        "\"environment\":{\"OMP_PLACES\":\"cores\"},"
        "\"compiler\":\"GNU 12.2.0\",\"compiler_flags\":\"-O3 -DNDEBUG\",\"optimized\":true,"
        "\"build_type\":\"Release\",\"load_avg\":[0.5,0.25,1.75],\"default_threads\":2,"
        "\"cpu_governor\":\"performance\",\"pin\":{\"policy\":\"cpus:2,0\",\"given\":true,"
        "\"binder\":\"ompbench\",\"description\":\"--pin cpus:2,0; ompbench binds\","
        "\"plans\":[{\"threads\":2,\"policy\":\"cpus:2,0\",\"pu\":[2,0],\"core\":[1,0],"
        "\"oversubscribed\":true}]},\"region_clock\":null,\"build_id\":null,\"run\":{"
        "\"repetitions\":1,"
        "\"processes\":1,\"interleaved\":false,\"seed\":\"18446744073709551615\"},"
        "\"warnings\":[\"first warning\",\"second warning\"]}}";
    json_t *j = ompb__context_to_json(&ctx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    if (strcmp(text, golden) != 0)
        fprintf(stderr, "\n--- got\n%s\n--- want\n%s\n", text, golden);
    CU_ASSERT_STRING_EQUAL(text, golden);
    free(text);

    /* Before a topology: nulls; no load: []; an unbound plan: null PUs; a
     * Debug build says "debug"; strings that are not UTF-8 get a stand-in. */
    char bad[] = "\xfe";
    pu2[0] = pu2[1] = core2[0] = core2[1] = -1;
    plans[0].binder = OMPB__BINDER_NONE;
    ctx.have_topo = ctx.have_load = false;
    ctx.governor[0] = '\0';
    ctx.debug_build = true;
    ctx.executable = bad;
    env[0].value = bad;
    j = ompb__context_to_json(&ctx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    json_t *o = ompb_obj(j), *topo = json_object_get(o, "topology");
    CU_ASSERT_EQUAL(json_object_size(topo), 8);
    CU_ASSERT_TRUE(json_is_null(json_object_get(topo, "usable_cpuset")));
    CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "load_avg")), 0);
    CU_ASSERT_TRUE(json_is_null(json_object_get(o, "cpu_governor")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "library_build_type")), "debug");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "executable")), "(not UTF-8)");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(o, "environment"),
                                                             "OMP_PLACES")), "(not UTF-8)");
    json_t *p = json_array_get(json_object_get(json_object_get(o, "pin"), "plans"), 0);
    CU_ASSERT_TRUE(json_is_null(json_array_get(json_object_get(p, "pu"), 1)));
    CU_ASSERT_TRUE(json_is_null(json_array_get(json_object_get(p, "core"), 0)));
    json_decref(j);
}

/* What ompb__context_new collects about the --pin value and the run, as
 * plain fields. */
static void test_collected_fields(void)
{
    ompb__pin_spec pin = pin_of("cpus:1");
    setenv("OMP_OMPBTEST_Z", "z", 1);
    setenv("OMP_OMPBTEST_Y", "y", 1);
    ompb__context *ctx = ompb__context_new(&pin, 5, "prog");
    ompb__pin_spec_release(&pin);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    CU_ASSERT_STRING_EQUAL(ctx->executable, "prog");
    CU_ASSERT_STRING_EQUAL(ctx->version, OMPB_VERSION_STRING);
    CU_ASSERT_EQUAL(ctx->default_threads, 5);
    CU_ASSERT_STRING_EQUAL(ctx->pin_policy, "cpus:1");
    CU_ASSERT_TRUE(ctx->pin_given);
    CU_ASSERT_EQUAL(ctx->binder, OMPB__BINDER_OURS);
    CU_ASSERT_PTR_NOT_NULL(strstr(ctx->placement, "--pin cpus:1; ompbench binds"));
    CU_ASSERT_EQUAL(ctx->openmp_date, _OPENMP);
    CU_ASSERT_EQUAL(ctx->omp_proc_bind, (int)omp_get_proc_bind());
    CU_ASSERT_EQUAL(ctx->omp_max_threads, omp_get_max_threads());
    CU_ASSERT_FALSE(ctx->have_topo);
    CU_ASSERT_EQUAL(ctx->n_plans, 0);
    size_t y = ctx->n_env, z = ctx->n_env;
    for (size_t i = 0; i < ctx->n_env; i++) {
        y = strcmp(ctx->env[i].name, "OMP_OMPBTEST_Y") == 0 ? i : y;
        z = strcmp(ctx->env[i].name, "OMP_OMPBTEST_Z") == 0 ? i : z;
    }
    CU_ASSERT_TRUE_FATAL(y < z && z < ctx->n_env);
    CU_ASSERT_STRING_EQUAL(ctx->env[z].value, "z");
    ompb__context_free(ctx);
    unsetenv("OMP_OMPBTEST_Z");
    unsetenv("OMP_OMPBTEST_Y");
}

static const ompb_test_case cases[] = {
    {"gbench_fields", test_gbench_fields},
    {"ompbench_fields", test_ompbench_fields},
    {"sysroot_busy", test_sysroot_busy},
    {"sysroot_quiet", test_sysroot_quiet},
    {"load_partial_machine", test_load_partial_machine},
    {"not_utf8", test_not_utf8},
    {"passive_wait_policy", test_passive_wait_policy},
    {"topology_and_caches", test_topology_and_caches},
    {"plans_and_oversubscription", test_plans_and_oversubscription},
    {"not_pinned", test_not_pinned},
    {"proc_bind_false", test_proc_bind_false},
    {"runtime_binder", test_runtime_binder},
    {"runtime_binds_anyway", test_runtime_binds_anyway},
    {"warn_dedup", test_warn_dedup},
    {"header", test_header},
    {"header_unknowns", test_header_unknowns},
    {"distribution_skew_error", test_distribution_skew_error},
    {"plain_header", test_plain_header},
    {"plain_json", test_plain_json},
    {"collected_fields", test_collected_fields},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_context = {"context", clear_env, restore_env, cases};
