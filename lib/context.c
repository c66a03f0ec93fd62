/* SPDX-License-Identifier: MIT */
/*
 * The run environment, collected once per run: date, host, CPU model and
 * frequency, governor, load, the topology summary, every OMP_*, GOMP_* and
 * KMP_* variable, the OpenMP runtime actually loaded, libompbench's compiler
 * and flags, and the pin policy with its per-thread-count PU maps. Written
 * as the Google Benchmark "context" object plus an "ompbench" object, and
 * printed as the console run header. Warnings that make numbers suspect are printed to
 * stderr when raised and recorded once each.
 */
#include "context.h"

#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <omp.h>
#include <ompbench/version.h>

#include "binder.h"
#include "constants.h"

#ifndef OMPB_BUILD_TYPE
#define OMPB_BUILD_TYPE "unknown"
#endif
#ifndef OMPB_COMPILER
#define OMPB_COMPILER "unknown"
#endif
#ifndef OMPB_C_FLAGS
#define OMPB_C_FLAGS ""
#endif
#ifdef _OPENMP
#define OPENMP_DATE _OPENMP
#else
#define OPENMP_DATE 0
#endif
#ifdef __OPTIMIZE__
#define OPTIMIZED true
#else
#define OPTIMIZED false
#endif

#define MAX_CACHES 16
#define WARNING_MAX 512

extern char **environ;

/* Prefix for /proc and /sys reads; tests point it at tests/data. */
static char sysroot[1024] = "";

struct ompb__context {
    char date[40];
    char host[256];
    char *executable;
    int num_cpus;
    long mhz;
    char cpu_model[256];
    char governor[64];          /* "" when not readable */
    bool scaling_enabled;       /* some governor is not "performance" */
    bool have_load;
    double load[3];
    json_t *env;                /* {"OMP_NUM_THREADS": "2", ...} sorted by name */
    char omp_vendor[32];
    char omp_library[PATH_MAX];
    int omp_max_threads, omp_num_places;
    omp_proc_bind_t omp_proc_bind;
    int default_threads;
    char *pin_policy;           /* ompb__binder_policy_name of the --pin value */
    bool pin_given;
    ompb__binder binder;
    char placement[OMPB__PLACEMENT_TEXT_MAX]; /* who binds and why */
    bool have_topo;
    ompb__topology_summary topo;
    json_t *caches;             /* Google Benchmark form, [] until a topology is set */
    json_t *plans;              /* [{threads, pu[], core[], oversubscribed}] */
    json_t *warnings;           /* [string], in the order raised */
    bool warned_oversub, warned_unpinned;
};

/* Reads a small text file below the sysroot into buf, without the trailing
 * newline. Returns 0 or -1. */
static int read_text(const char *path, char *buf, size_t len)
{
    char full[PATH_MAX];
    snprintf(full, sizeof full, "%s%s", sysroot, path);
    FILE *f = fopen(full, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return n > 0 ? 0 : -1;
}

/* The value of the first "name<TAB>: value" line of /proc/cpuinfo. */
static int cpuinfo_field(const char *name, char *buf, size_t len)
{
    char full[PATH_MAX], line[512];
    size_t nlen = strlen(name);
    int rc = -1;
    snprintf(full, sizeof full, "%s/proc/cpuinfo", sysroot);
    FILE *f = fopen(full, "r");
    if (!f)
        return -1;
    while (rc != 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, name, nlen) != 0)
            continue;
        const char *v = line + nlen + strspn(line + nlen, " \t");
        if (*v != ':')
            continue;
        v += 1 + strspn(v + 1, " \t");
        snprintf(buf, len, "%s", v);
        buf[strcspn(buf, "\n")] = '\0';
        rc = 0;
    }
    fclose(f);
    return rc;
}

/* jansson refuses invalid UTF-8; an odd environment value must not drop the context. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s ? s : "");
    return j ? j : json_string("(not UTF-8)");
}

/* ISO 8601 with a numeric offset: 2026-11-29T17:30:00+01:00. */
static void collect_date(ompb__context *ctx)
{
    time_t now = time(NULL);
    struct tm tm;
    char tz[8];
    localtime_r(&now, &tm);
    strftime(ctx->date, sizeof ctx->date, "%Y-%m-%dT%H:%M:%S", &tm);
    strftime(tz, sizeof tz, "%z", &tm);
    size_t n = strlen(ctx->date);
    snprintf(ctx->date + n, sizeof ctx->date - n, "%.3s:%.2s", tz, tz + 3);
}

/* Governors of every CPU; the first that is not "performance" wins. */
static void collect_governor(ompb__context *ctx)
{
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    char path[96], gov[64];
    for (long c = 0; c < (cpus > 0 ? cpus : 1); c++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", c);
        if (read_text(path, gov, sizeof gov) != 0)
            continue;
        if (!ctx->governor[0] || strcmp(gov, "performance") != 0)
            snprintf(ctx->governor, sizeof ctx->governor, "%s", gov);
        if (strcmp(gov, "performance") != 0) {
            ctx->scaling_enabled = true;
            break;
        }
    }
}

static void collect_cpu(ompb__context *ctx)
{
    char buf[256];
    ctx->num_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (cpuinfo_field("model name", ctx->cpu_model, sizeof ctx->cpu_model) != 0)
        snprintf(ctx->cpu_model, sizeof ctx->cpu_model, "unknown");
    if (read_text("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", buf, sizeof buf) == 0)
        ctx->mhz = atol(buf) / 1000;
    else if (cpuinfo_field("cpu MHz", buf, sizeof buf) == 0)
        ctx->mhz = (long)(atof(buf) + 0.5);
    collect_governor(ctx);
    if (read_text("/proc/loadavg", buf, sizeof buf) == 0)
        ctx->have_load = sscanf(buf, "%lf %lf %lf", &ctx->load[0], &ctx->load[1],
                                &ctx->load[2]) == 3;
}

static bool wanted_env(const char *entry)
{
    return strncmp(entry, "OMP_", 4) == 0 || strncmp(entry, "GOMP_", 5) == 0
           || strncmp(entry, "KMP_", 4) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every OMP_*, GOMP_* and KMP_* variable, sorted so runs compare line by line. */
static int collect_env(ompb__context *ctx)
{
    size_t n = 0, k = 0;
    for (char **e = environ; e && *e; e++)
        n += wanted_env(*e) && strchr(*e, '=');
    const char **list = malloc((n ? n : 1) * sizeof *list);
    if (!list)
        return -1;
    for (char **e = environ; e && *e; e++)
        if (wanted_env(*e) && strchr(*e, '='))
            list[k++] = *e;
    qsort(list, k, sizeof *list, cmp_str);
    for (size_t i = 0; i < k; i++) {
        const char *eq = strchr(list[i], '=');
        char *name = strndup(list[i], (size_t)(eq - list[i]));
        if (name)
            json_object_set_new(ctx->env, name, jstr(eq + 1));
        free(name);
    }
    free(list);
    return 0;
}

/* Finds the OpenMP runtime among the loaded objects. */
static int find_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
    static const struct { const char *soname, *vendor; } known[] = {
        {"libgomp", "GNU libgomp"}, {"libiomp5", "Intel libiomp5"}, {"libomp", "LLVM libomp"},
    };
    ompb__context *ctx = data;
    (void)size;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    for (size_t i = 0; base && i < sizeof known / sizeof known[0]; i++) {
        if (strncmp(base, known[i].soname, strlen(known[i].soname)) != 0)
            continue;
        snprintf(ctx->omp_vendor, sizeof ctx->omp_vendor, "%s", known[i].vendor);
        if (!realpath(info->dlpi_name, ctx->omp_library))
            snprintf(ctx->omp_library, sizeof ctx->omp_library, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

static void collect_openmp(ompb__context *ctx)
{
    snprintf(ctx->omp_vendor, sizeof ctx->omp_vendor, "unknown (linked statically?)");
    dl_iterate_phdr(find_runtime, ctx);
    ctx->omp_max_threads = omp_get_max_threads();
    ctx->omp_num_places = omp_get_num_places();
    ctx->omp_proc_bind = omp_get_proc_bind();
}

static const char *openmp_spec(int date)
{
    static const struct { int date; const char *spec; } specs[] = {
        {200505, "2.5"}, {200805, "3.0"}, {201107, "3.1"}, {201307, "4.0"},
        {201511, "4.5"}, {201811, "5.0"}, {202011, "5.1"}, {202111, "5.2"},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (specs[i].date == date)
            return specs[i].spec;
    return "unknown";
}

static bool debug_build(void)
{
    return strcasecmp(OMPB_BUILD_TYPE, "Debug") == 0 || !OPTIMIZED;
}

/* Only libompbench's own flags are known here, not those of the benchmark
 * code, so the warning says which build it is about. */
static void environment_warnings(ompb__context *ctx)
{
    const char *wait = getenv("OMP_WAIT_POLICY");
    if (debug_build())
        ompb__context_warn(ctx, "unoptimized build of libompbench (build type %s%s): the "
                           "harness's overhead is inflated; rebuild ompbench with "
                           "-DCMAKE_BUILD_TYPE=Release", OMPB_BUILD_TYPE,
                           OPTIMIZED ? "" : ", no -O");
    if (wait && strcasecmp(wait, "passive") == 0)
        ompb__context_warn(ctx, "OMP_WAIT_POLICY=%s: idle threads sleep, so every barrier "
                           "costs ~100x more (~30 us); unset it or set it to active", wait);
    if (ctx->scaling_enabled)
        ompb__context_warn(ctx, "CPU frequency governor is '%s', not 'performance': the "
                           "clock speed may change during the run", ctx->governor);
}

/* The load average counts runnable tasks on the whole machine: when this
 * process may use only part of it (taskset, cgroup, a partial Slurm
 * allocation), the other PUs carry other jobs' load, so it is compared with
 * every PU of the machine, not with our cores. */
static void load_warning(ompb__context *ctx)
{
    const ompb__topology_summary *s = &ctx->topo;
    if (!ctx->have_load)
        return;
    if (s->usable_pus < s->pus) {
        if (ctx->load[0] > s->pus)
            ompb__context_warn(ctx, "load average %.2f is above the machine's %d PUs (of "
                               "which this process may use %d): other work competes for the "
                               "CPUs", ctx->load[0], s->pus, s->usable_pus);
    } else if (s->usable_cores > 0 && ctx->load[0] > s->usable_cores) {
        ompb__context_warn(ctx, "load average %.2f is above the %d usable cores: other work "
                           "competes for the CPUs", ctx->load[0], s->usable_cores);
    }
}

static void context_fill(ompb__context *ctx, const ompb__config *cfg)
{
    collect_date(ctx);
    if (gethostname(ctx->host, sizeof ctx->host - 1) != 0)
        snprintf(ctx->host, sizeof ctx->host, "unknown");
    collect_cpu(ctx);
    collect_openmp(ctx);
    ctx->default_threads = cfg && cfg->default_threads > 0 ? cfg->default_threads
                                                           : ctx->omp_max_threads;
    ctx->binder = ompb__binder_for(cfg ? &cfg->pin : NULL);
    ompb__binder_describe(cfg ? &cfg->pin : NULL, ctx->placement, sizeof ctx->placement);
}

/* [pu0, pu1, ...] with null for "not bound by us". */
static json_t *int_map(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, v[i] >= 0 ? json_integer(v[i]) : json_null());
    return a;
}

/* Threads nobody pins: --pin none or OMP_PROC_BIND=false without a binding
 * runtime; or a runtime we leave binding to that reported proc_bind false
 * at start-up (a variable it does not read, e.g. KMP_AFFINITY for libgomp). */
static void unpinned_warning(ompb__context *ctx, const ompb__pin_plan *plan)
{
    if (plan->binder == OMPB__BINDER_NONE && plan->pin_given)
        ompb__context_warn(ctx, "threads are not pinned (--pin none): the OS may move them "
                           "between PUs during a round");
    else if (plan->binder == OMPB__BINDER_NONE)
        ompb__context_warn(ctx, "threads are not pinned (OMP_PROC_BIND=false, no --pin): the "
                           "OpenMP runtime binds nothing and neither does ompbench; the OS "
                           "may move them between PUs during a round");
    else if (plan->binder == OMPB__BINDER_RUNTIME && ctx->omp_proc_bind == omp_proc_bind_false)
        ompb__context_warn(ctx, "threads may not be pinned: ompbench leaves binding to the "
                           "OpenMP runtime, which reports proc_bind false (a variable it does "
                           "not read, or an invalid value); use --pin to let ompbench bind");
    else
        return;
    ctx->warned_unpinned = true;
}

static void plan_warnings(ompb__context *ctx, const ompb__pin_plan *plan)
{
    if (plan->oversubscribed && !ctx->warned_oversub) {
        ctx->warned_oversub = true;
        int pus = ompb__pin_plan_pus(plan);
        ompb__context_warn(ctx, "oversubscribed: %d threads on %d PU%s; threads share PUs "
                           "round-robin and rounds include time slicing", plan->threads, pus,
                           ompb__plural(pus));
    }
    if (!ctx->warned_unpinned)
        unpinned_warning(ctx, plan);
}

/* Counts are null until a topology is set. */
static json_t *topology_json(const ompb__context *ctx)
{
    const ompb__topology_summary *s = &ctx->topo;
    if (!ctx->have_topo)
        return json_pack("{s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:n}", "packages", "numa_nodes",
                         "cores", "pus", "usable_cores", "usable_pus", "usable_cpuset",
                         "this_system");
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:b}", "packages", s->packages,
                     "numa_nodes", s->numa_nodes, "cores", s->cores, "pus", s->pus,
                     "usable_cores", s->usable_cores, "usable_pus", s->usable_pus,
                     "usable_cpuset", s->usable_cpuset, "this_system", s->this_system);
}

static json_t *openmp_json(const ompb__context *ctx)
{
    return json_pack("{s:i, s:s, s:s, s:o, s:i, s:s, s:i}", "_OPENMP", OPENMP_DATE,
                     "version", openmp_spec(OPENMP_DATE), "vendor", ctx->omp_vendor,
                     "library", jstr(ctx->omp_library), "max_threads", ctx->omp_max_threads,
                     "proc_bind", ompb__proc_bind_name((int)ctx->omp_proc_bind), "num_places",
                     ctx->omp_num_places);
}

static json_t *pin_json(const ompb__context *ctx)
{
    return json_pack("{s:o, s:b, s:s, s:o, s:O}", "policy",
                     jstr(ctx->pin_policy), "given", ctx->pin_given,
                     "binder", ompb__binder_name(ctx->binder), "description",
                     jstr(ctx->placement), "plans", ctx->plans);
}

static json_t *load_json(const ompb__context *ctx)
{
    json_t *a = json_array();
    for (int i = 0; a && ctx->have_load && i < 3; i++)
        json_array_append_new(a, json_real(ctx->load[i]));
    return a;
}

static json_t *ompbench_json(const ompb__context *ctx)
{
    json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:O, s:s, s:s, s:b, s:s, s:o, s:i}",
                          "version", OMPB_VERSION_STRING, "cpu_model", jstr(ctx->cpu_model),
                          "topology", topology_json(ctx), "openmp", openmp_json(ctx),
                          "environment", ctx->env, "compiler", OMPB_COMPILER,
                          "compiler_flags", OMPB_C_FLAGS, "optimized", OPTIMIZED,
                          "build_type", OMPB_BUILD_TYPE, "load_avg", load_json(ctx),
                          "default_threads", ctx->default_threads);
    if (o && (json_object_set_new(o, "cpu_governor", ctx->governor[0] ? jstr(ctx->governor)
                                                                      : json_null()) != 0
              || json_object_set_new(o, "pin", pin_json(ctx)) != 0
              || json_object_set(o, "warnings", ctx->warnings) != 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static void print_machine(FILE *out, const ompb__context *ctx)
{
    const ompb__topology_summary *s = &ctx->topo;
    fprintf(out, "ompbench %s on %s, %s\n", OMPB_VERSION_STRING, ctx->host, ctx->date);
    fprintf(out, "cpu:        %s", ctx->cpu_model);
    if (!ctx->have_topo) {
        fprintf(out, "; topology unknown\n");
        return;
    }
    fprintf(out, "; %d package%s, %d NUMA node%s, %d core%s, %d PU%s", s->packages,
            ompb__plural(s->packages), s->numa_nodes, ompb__plural(s->numa_nodes), s->cores,
            ompb__plural(s->cores), s->pus, ompb__plural(s->pus));
    fprintf(out, "; usable %d core%s, %d PU%s (%s)%s\n", s->usable_cores,
            ompb__plural(s->usable_cores), s->usable_pus, ompb__plural(s->usable_pus),
            s->usable_cpuset, s->this_system ? "" : " [not this machine]");
}

static void print_software(FILE *out, const ompb__context *ctx)
{
    const char *key;
    json_t *v;
    fprintf(out, "openmp:     %s, OpenMP %s (_OPENMP %d), max threads %d, proc_bind %s\n",
            ctx->omp_vendor, openmp_spec(OPENMP_DATE), OPENMP_DATE, ctx->omp_max_threads,
            ompb__proc_bind_name((int)ctx->omp_proc_bind));
    fprintf(out, "build:      libompbench: %s %s, %s%s\n", OMPB_COMPILER, OMPB_C_FLAGS,
            OMPB_BUILD_TYPE, OPTIMIZED ? "" : " (unoptimized)");
    if (ctx->have_load)
        fprintf(out, "system:     load %.2f %.2f %.2f", ctx->load[0], ctx->load[1], ctx->load[2]);
    else
        fprintf(out, "system:     load unknown");
    fprintf(out, ", governor %s\n", ctx->governor[0] ? ctx->governor : "not readable");
    fprintf(out, "env:       ");
    json_object_foreach((json_t *)ctx->env, key, v)
        fprintf(out, " %s=%s", key, json_string_value(v));
    fprintf(out, "%s\n", json_object_size(ctx->env) ? "" : " no OMP_*, GOMP_* or KMP_* set");
}

/* "T=1: 0; T=2: 0 1" for the plans we bind; the runtime's map is observed per instance. */
static void print_maps(FILE *out, const ompb__context *ctx)
{
    size_t i, t;
    json_t *p, *pu;
    if (ctx->binder != OMPB__BINDER_OURS || json_array_size(ctx->plans) == 0)
        return;
    fprintf(out, "pu map:    ");
    json_array_foreach(ctx->plans, i, p) {
        fprintf(out, "%s T=%d:", i ? ";" : "",
                (int)json_integer_value(json_object_get(p, "threads")));
        json_array_foreach(json_object_get(p, "pu"), t, pu)
            fprintf(out, " %d", (int)json_integer_value(pu));
    }
    fputc('\n', out);
}

static void print_placement(FILE *out, const ompb__context *ctx)
{
    char places[256];
    fprintf(out, "placement:  %s\n", ctx->placement);
    if (ctx->binder == OMPB__BINDER_RUNTIME) {
        ompb__omp_places_text(places, sizeof places);
        fprintf(out, "places:     %s (proc_bind %s)\n", places,
                ompb__proc_bind_name((int)ctx->omp_proc_bind));
    }
    print_maps(out, ctx);
}

void ompb__context_set_sysroot(const char *root)
{
    snprintf(sysroot, sizeof sysroot, "%s", root ? root : "");
}

ompb__context *ompb__context_new(const ompb__config *cfg, const char *argv0)
{
    ompb__context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    ctx->executable = strdup(argv0 ? argv0 : "");
    ctx->pin_policy = strdup(ompb__binder_policy_name(cfg ? &cfg->pin : NULL));
    ctx->pin_given = cfg && ompb__pin_given(&cfg->pin);
    ctx->env = json_object();
    ctx->caches = json_array();
    ctx->plans = json_array();
    ctx->warnings = json_array();
    if (!ctx->executable || !ctx->pin_policy || !ctx->env || !ctx->caches
        || !ctx->plans || !ctx->warnings || collect_env(ctx) != 0) {
        ompb__context_free(ctx);
        return NULL;
    }
    context_fill(ctx, cfg);
    environment_warnings(ctx);
    return ctx;
}

void ompb__context_free(ompb__context *ctx)
{
    if (!ctx)
        return;
    free(ctx->executable);
    free(ctx->pin_policy);
    json_decref(ctx->env);
    json_decref(ctx->caches);
    json_decref(ctx->plans);
    json_decref(ctx->warnings);
    free(ctx);
}

void ompb__context_warn(ompb__context *ctx, const char *fmt, ...)
{
    char text[WARNING_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (ctx) {
        size_t i;
        json_t *w;
        json_array_foreach(ctx->warnings, i, w)
            if (strcmp(json_string_value(w), text) == 0)
                return;
        json_array_append_new(ctx->warnings, jstr(text));
    }
    fprintf(stderr, "ompbench: warning: %s\n", text);
}

void ompb__context_set_topology(ompb__context *ctx, const ompb__topology *topo)
{
    ompb__cache_info caches[MAX_CACHES];
    if (!ctx || !topo)
        return;
    ompb__topology_summarize(topo, &ctx->topo);
    ctx->have_topo = true;
    if (ctx->topo.cpu_model[0] && strcmp(ctx->cpu_model, "unknown") == 0)
        snprintf(ctx->cpu_model, sizeof ctx->cpu_model, "%s", ctx->topo.cpu_model);
    load_warning(ctx);
    size_t n = ompb__topology_caches(topo, caches, MAX_CACHES);
    json_array_clear(ctx->caches);
    for (size_t i = 0; i < n && i < MAX_CACHES; i++)
        json_array_append_new(ctx->caches, json_pack("{s:s, s:i, s:I, s:i}", "type",
                              caches[i].type, "level", caches[i].level, "size",
                              (json_int_t)caches[i].size, "num_sharing", caches[i].num_sharing));
}

void ompb__context_add_plan(ompb__context *ctx, const ompb__pin_plan *plan)
{
    size_t i;
    json_t *p;
    if (!ctx || !plan)
        return;
    ctx->binder = plan->binder;
    plan_warnings(ctx, plan);
    json_array_foreach(ctx->plans, i, p)
        if (json_integer_value(json_object_get(p, "threads")) == plan->threads)
            return;
    json_array_append_new(ctx->plans, json_pack("{s:i, s:o, s:o, s:o, s:b}", "threads",
                          plan->threads, "policy", jstr(plan->policy), "pu",
                          int_map(plan->pu, plan->threads), "core",
                          int_map(plan->core, plan->threads), "oversubscribed",
                          plan->oversubscribed));
}

json_t *ompb__context_to_json(const ompb__context *ctx)
{
    int cpus = ctx->num_cpus > 0 ? ctx->num_cpus : 1;
    return json_pack("{s:s, s:o, s:o, s:i, s:I, s:b, s:O, s:o, s:s, s:i, s:o}",
                     "date", ctx->date, "host_name", jstr(ctx->host), "executable",
                     jstr(ctx->executable), "num_cpus", cpus, "mhz_per_cpu", (json_int_t)ctx->mhz,
                     "cpu_scaling_enabled", ctx->scaling_enabled, "caches", ctx->caches,
                     "load_avg", load_json(ctx), "library_build_type",
                     debug_build() ? "debug" : "release", "json_schema_version", OMPB__JSON_SCHEMA_VERSION,
                     "ompbench", ompbench_json(ctx));
}

void ompb__context_print_header(FILE *out, const ompb__context *ctx)
{
    print_machine(out, ctx);
    print_software(out, ctx);
    print_placement(out, ctx);
}
