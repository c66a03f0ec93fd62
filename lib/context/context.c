/* SPDX-License-Identifier: MIT */
/*
 * Collecting the run environment, once per run: date, host, CPU model and
 * frequency, governor, load, the topology summary and the Slurm step,
 * every OMP_*, GOMP_* and KMP_* variable, the OpenMP runtime actually
 * loaded, libompbench's compiler and flags, the benchmark binary's build ID
 * (lib/core/libraries.c reads it), and the --pin policy; the context's
 * lifetime. The warnings this raises go to the run log
 * (lib/context/context_log.c), which also holds what the run adds later.
 * Nothing here renders: lib/report/ does.
 */
#include "context/context.h"

#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <hwloc.h>
#include <omp.h>
#include <ompbench/version.h>

#include "engine/engine.h"
#include "core/core.h"
#include "placement/placement.h"

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

_Static_assert(sizeof ((ompb__context *)0)->omp_library >= PATH_MAX,
               "realpath() needs PATH_MAX bytes");

extern char **environ;

/* Reads a small text file below sysroot ("" for "/") into buf, without the
 * trailing newline. Returns 0 or -1. */
static int read_text(const char *sysroot, const char *path, char *buf, size_t len)
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

/* The value of the first "name<TAB>: value" line of /proc/cpuinfo below
 * sysroot. */
static int cpuinfo_field(const char *sysroot, const char *name, char *buf, size_t len)
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
static void collect_governor(ompb__context *ctx, const char *sysroot)
{
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    char path[96], gov[64];
    for (long c = 0; c < (cpus > 0 ? cpus : 1); c++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", c);
        if (read_text(sysroot, path, gov, sizeof gov) != 0)
            continue;
        if (!ctx->governor[0] || strcmp(gov, "performance") != 0)
            snprintf(ctx->governor, sizeof ctx->governor, "%s", gov);
        if (strcmp(gov, "performance") != 0) {
            ctx->scaling_enabled = true;
            break;
        }
    }
}

static void collect_cpu(ompb__context *ctx, const char *sysroot)
{
    char buf[256];
    ctx->num_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (cpuinfo_field(sysroot, "model name", ctx->cpu_model, sizeof ctx->cpu_model) != 0)
        snprintf(ctx->cpu_model, sizeof ctx->cpu_model, "unknown");
    if (read_text(sysroot, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", buf,
                  sizeof buf) == 0)
        ctx->mhz = atol(buf) / 1000;
    else if (cpuinfo_field(sysroot, "cpu MHz", buf, sizeof buf) == 0)
        ctx->mhz = (long)(atof(buf) + 0.5);
    collect_governor(ctx, sysroot);
    if (read_text(sysroot, "/proc/loadavg", buf, sizeof buf) == 0)
        ctx->have_load = sscanf(buf, "%lf %lf %lf", &ctx->load[0], &ctx->load[1],
                                &ctx->load[2]) == 3;
}

/* OMP_*, GOMP_* and KMP_* entries of environ whose name is UTF-8 (the JSON
 * "environment" object keys them by name). */
static bool wanted_env(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq && (strncmp(entry, "OMP_", 4) == 0 || strncmp(entry, "GOMP_", 5) == 0
                  || strncmp(entry, "KMP_", 4) == 0)
           && ompb__utf8_valid(entry, (size_t)(eq - entry));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends name=value to ctx->env, or replaces the value when the previous
 * entry has the same name (environ listing a name twice: the last, in
 * sorted order, wins). */
static int add_env(ompb__context *ctx, const char *entry)
{
    const char *eq = strchr(entry, '=');
    size_t nlen = (size_t)(eq - entry);
    ompb__env_var *last = ctx->n_env ? &ctx->env[ctx->n_env - 1] : NULL;
    char *value = strdup(eq + 1);
    if (!value)
        return -1;
    if (last && strlen(last->name) == nlen && strncmp(last->name, entry, nlen) == 0) {
        free(last->value);
        last->value = value;
        return 0;
    }
    char *name = strndup(entry, nlen);
    if (!name) {
        free(value);
        return -1;
    }
    ctx->env[ctx->n_env++] = (ompb__env_var){name, value};
    return 0;
}

/* Every OMP_*, GOMP_* and KMP_* variable, sorted so runs compare line by line. */
static int collect_env(ompb__context *ctx)
{
    size_t n = 0, k = 0;
    int rc = 0;
    for (char **e = environ; e && *e; e++)
        n += wanted_env(*e);
    const char **list = malloc((n ? n : 1) * sizeof *list);
    ctx->env = calloc(n ? n : 1, sizeof *ctx->env);
    if (!list || !ctx->env) {
        free(list);
        return -1;
    }
    for (char **e = environ; e && *e && k < n; e++)
        if (wanted_env(*e))
            list[k++] = *e;
    qsort(list, k, sizeof *list, cmp_str);
    for (size_t i = 0; rc == 0 && i < k; i++)
        rc = add_env(ctx, list[i]);
    free(list);
    return rc;
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

static void collect_openmp(ompb__context *ctx)
{
    ctx->openmp_date = OPENMP_DATE;
    ctx->openmp_version = openmp_spec(OPENMP_DATE);
    snprintf(ctx->omp_vendor, sizeof ctx->omp_vendor, "unknown (linked statically?)");
    dl_iterate_phdr(find_runtime, ctx);
    ctx->omp_max_threads = omp_get_max_threads();
    ctx->omp_num_places = omp_get_num_places();
    ctx->omp_proc_bind = (int)omp_get_proc_bind();
    ompb__omp_places_text(ctx->omp_places, sizeof ctx->omp_places);
    ctx->fork_guard = ompb__fork_coverage_name(ompb__fork_guard_coverage());
    ompb__tsc_describe(ctx->region_clock, sizeof ctx->region_clock);
}

static void collect_build(ompb__context *ctx)
{
    ompb__main_program_build_id(ctx->build_id, sizeof ctx->build_id);
    ctx->version = OMPB_VERSION_STRING;
    ctx->compiler = OMPB_COMPILER;
    ctx->compiler_flags = OMPB_C_FLAGS;
    ctx->build_type = OMPB_BUILD_TYPE;
    ctx->optimized = OPTIMIZED;
    ctx->debug_build = strcasecmp(OMPB_BUILD_TYPE, "Debug") == 0 || !OPTIMIZED;
}

/* Only libompbench's own flags are known here, not those of the benchmark
 * code, so the warning says which build it is about. */
static void environment_warnings(ompb__context *ctx)
{
    const char *wait = getenv("OMP_WAIT_POLICY");
    if (ctx->debug_build)
        ompb__context_warn(ctx, "unoptimized build of libompbench (build type %s%s): the "
                           "harness's overhead is inflated; rebuild ompbench with "
                           "-DCMAKE_BUILD_TYPE=Release", ctx->build_type,
                           ctx->optimized ? "" : ", no -O");
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

static int collect_pin(ompb__context *ctx, const ompb__pin_spec *pin)
{
    ctx->pin_policy = strdup(ompb__binder_policy_name(pin));
    ctx->pin_given = ompb__pin_given(pin);
    ctx->binder = ompb__binder_for(pin);
    ompb__binder_describe(pin, ctx->placement, sizeof ctx->placement);
    return ctx->pin_policy ? 0 : -1;
}

ompb__context *ompb__context_new(const ompb__pin_spec *pin, int default_threads,
                                 const char *argv0)
{
    return ompb__context_new_in(NULL, pin, default_threads, argv0);
}

ompb__context *ompb__context_new_in(const ompb__context_env *env, const ompb__pin_spec *pin,
                                    int default_threads, const char *argv0)
{
    const char *sysroot = env && env->sysroot ? env->sysroot : "";
    ompb__context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    ctx->quiet = env && env->quiet;
    ctx->executable = strdup(argv0 ? argv0 : "");
    if (!ctx->executable || collect_env(ctx) != 0 || collect_pin(ctx, pin) != 0) {
        ompb__context_free(ctx);
        return NULL;
    }
    collect_date(ctx);
    if (gethostname(ctx->host, sizeof ctx->host - 1) != 0)
        snprintf(ctx->host, sizeof ctx->host, "unknown");
    collect_cpu(ctx, sysroot);
    collect_openmp(ctx);
    collect_build(ctx);
    ctx->default_threads = default_threads > 0 ? default_threads : ctx->omp_max_threads;
    ctx->repetitions = ctx->processes = 1;
    environment_warnings(ctx);
    return ctx;
}

void ompb__context_free(ompb__context *ctx)
{
    if (!ctx)
        return;
    free(ctx->executable);
    for (size_t i = 0; i < ctx->n_env; i++) {
        free(ctx->env[i].name);
        free(ctx->env[i].value);
    }
    free(ctx->env);
    free(ctx->pin_policy);
    for (size_t i = 0; i < ctx->n_plans; i++) {
        free(ctx->plans[i].policy);
        free(ctx->plans[i].pu);
        free(ctx->plans[i].core);
        free(ctx->plans[i].rank_pu);
    }
    free(ctx->plans);
    for (size_t i = 0; i < ctx->n_warnings; i++)
        free(ctx->warnings[i]);
    free(ctx->warnings);
    free(ctx);
}

/* Inside a Slurm job step: the header's line, and a warning when srun bound
 * the task to other PUs than the process may use. */
static void slurm_context(ompb__context *ctx)
{
    ompb__slurm_step step;
    char text[OMPB__CONTEXT_SLURM_MAX];
    ompb__slurm_read(&step);
    hwloc_bitmap_t usable = step.in_job && ctx->topo.this_system ? hwloc_bitmap_alloc() : NULL;
    if (!usable || hwloc_bitmap_list_sscanf(usable, ctx->topo.usable_cpuset) != 0) {
        hwloc_bitmap_free(usable);
        return;
    }
    ompb__slurm_describe(&step, usable, ctx->slurm, sizeof ctx->slurm);
    if (ompb__slurm_mismatch(&step, usable, text, sizeof text))
        ompb__context_warn(ctx, "%s", text);
    hwloc_bitmap_free(usable);
}

void ompb__context_set_topology(ompb__context *ctx, const ompb__topology *topo)
{
    if (!ctx || !topo)
        return;
    ompb__topology_summarize(topo, &ctx->topo);
    ctx->have_topo = true;
    if (ctx->topo.cpu_model[0] && strcmp(ctx->cpu_model, "unknown") == 0)
        snprintf(ctx->cpu_model, sizeof ctx->cpu_model, "%s", ctx->topo.cpu_model);
    load_warning(ctx);
    slurm_context(ctx);
    size_t n = ompb__topology_caches(topo, ctx->caches, OMPB__CONTEXT_MAX_CACHES);
    ctx->n_caches = n < OMPB__CONTEXT_MAX_CACHES ? n : OMPB__CONTEXT_MAX_CACHES;
}
