/* SPDX-License-Identifier: MIT */
/*
 * The tracing library of `ompbench trace` (libompbench_trace.so, preloaded
 * into the traced program; docs/trace.md) as it is loaded and left: its
 * settings, the cost of a traced instance measured before main, the
 * runtime's hooks installed (libgomp's wrapper, libomp's OMPT hooks: a
 * program loads one runtime, whose forks reach exactly one of them), and
 * _exit/_Exit, which skip atexit, interposed to write the report first.
 *
 * Settings: the library's own copy of the region markers reads
 * OMPB_REGIONS_OUTPUT/_FORMAT when loaded; the constructor below sets them
 * to the trace's before that read and puts the user's values back after
 * it, so the program's own markers (a static copy of libompbench, say) and
 * its children report where the user said. Only the process whose id is
 * OMPB_TRACE_PID is traced: programs it execs in a child inherit the
 * preload and run untraced; a fork child is never traced (the region
 * markers are off there).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ompbench/region.h>

#include "regions/region.h"
#include "trace/trace.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the end ---------------------------------------------------------------- */

typedef void (*exit_fn)(int);

static void forward_exit(const char *name, int status) __attribute__((noreturn));
static void forward_exit(const char *name, int status)
{
    void *p = dlsym(RTLD_NEXT, name);
    exit_fn real;
    memcpy(&real, &p, sizeof real);
    if (real)
        real(status);
    abort();
}

/* _exit skips atexit: the report and the facts are written first (in the
 * traced process only; a fork child's regions are off). */
static void before_exit(void)
{
    if (ompb__trace_config.active && getpid() == ompb__trace_config.pid) {
        ompb_regions_report(NULL, NULL);
        ompb__trace_write_facts();
    }
}

__attribute__((visibility("default"))) void _exit(int status)
{
    before_exit();
    forward_exit("_exit", status);
}

__attribute__((visibility("default"))) void _Exit(int status)
{
    before_exit();
    forward_exit("_Exit", status);
}

/* ---- settings --------------------------------------------------------------- */

static void put_back(const char *name, const char *saved)
{
    const char *v = getenv(saved);
    if (!v)
        return;
    if (strcmp(v, "-") == 0)
        unsetenv(name);
    else
        setenv(name, v, 1);
    unsetenv(saved);
}

static bool read_settings(ompb__trace_settings *c)
{
    const char *pid = getenv(OMPB__TRACE_ENV_PID), *out = getenv(OMPB__TRACE_ENV_OUTPUT);
    const char *f = getenv(OMPB__TRACE_ENV_FILTER), *min = getenv(OMPB__TRACE_ENV_MIN_NS);
    const char *nm = getenv(OMPB__TRACE_ENV_NAMING);
    if (!pid || !out || atol(pid) != (long)getpid())
        return false;
    c->pid = getpid();
    if (f && *f) {
        if (regcomp(&c->filter, f, REG_EXTENDED | REG_NOSUB) != 0)
            return false;
        c->have_filter = true;
    }
    c->min_ns = min ? strtoull(min, NULL, 10) : 0;
    c->naming = nm && strcmp(nm, "symbol") == 0    ? OMPB__TRACE_NAME_SYMBOL
                : nm && strcmp(nm, "address") == 0 ? OMPB__TRACE_NAME_ADDRESS
                                                    : OMPB__TRACE_NAME_LINE;
    c->counted_path = getenv(OMPB__TRACE_ENV_COUNTED);
    c->snapshots = !getenv("CODSPEED_ENV");
    setenv("OMPB_REGIONS_OUTPUT", out, 1);
    setenv("OMPB_REGIONS_FORMAT", "json", 1);
    return true;
}

/* What a traced instance adds per thread: a region begin/end pair, timed
 * PROBE_PAIRS times on this thread (a team of one) before main, after one
 * pair that pays the first use; the probe region is then forgotten. Not
 * under the CodSpeed runner, which would be sent the probe's markers. */
#define PROBE_PAIRS 2000
static double probe_overhead(void)
{
    static const char probe[] = "ompbench-trace-probe";
    if (getenv("CODSPEED_ENV"))
        return -1;
    ompb_region_begin_at(probe, __FILE__, __LINE__);
    ompb_region_end_at(probe, __FILE__, __LINE__);
    uint64_t t0 = now_ns();
    for (int i = 0; i < PROBE_PAIRS; i++) {
        ompb_region_begin_at(probe, __FILE__, __LINE__);
        ompb_region_end_at(probe, __FILE__, __LINE__);
    }
    double per = (double)(now_ns() - t0) / PROBE_PAIRS;
    ompb__regions_reset();
    return per;
}

/* Before the library's own region constructors (priority), which then
 * find the settings read. */
__attribute__((constructor(101))) static void trace_load(void)
{
    ompb__trace_settings *c = &ompb__trace_config;
    c->active = read_settings(c);
    if (c->active && ompb__regions_settings_load()) {
        c->overhead_ns = probe_overhead();
        ompb__trace_write_facts();
        atexit(ompb__trace_write_facts);
        ompb__trace_gnu_install();
        ompb__trace_omp_install();
    } else if (c->active) {
        fprintf(stderr, "ompbench trace: the region settings were refused: nothing is traced\n");
        c->active = false;
    }
    put_back("OMPB_REGIONS_OUTPUT", OMPB__TRACE_ENV_SAVED_OUTPUT);
    put_back("OMPB_REGIONS_FORMAT", OMPB__TRACE_ENV_SAVED_FORMAT);
}
