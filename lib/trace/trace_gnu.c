/* SPDX-License-Identifier: MIT */
/*
 * The wrapper of `ompbench trace` on GNU OpenMP (libgomp): preloaded into
 * the traced program together with the fork guard's entry points
 * (lib/main/fork_guard_gnu.c, built into the same library), it makes each
 * top-level parallel-region instance an instance of a region: every team
 * thread runs ompb_region_begin_at / the outlined function /
 * ompb_region_end_at, so the statistics, reports and CodSpeed markers are
 * the region markers' own (lib/regions). The region is named once per
 * outlined function (trace_names.c).
 *
 * A nested region (one opened inside a team) runs inside its parent's
 * instance and is not traced apart. A region whose name does not match
 * OMPB_TRACE_FILTER runs untouched. With OMPB_TRACE_MIN_NS, an instance is
 * traced when the previous instance of the same region lasted at least
 * that long (the first one is timed only); the others are counted, with
 * their time on the encountering thread, and listed in OMPB_TRACE_COUNTED
 * at exit.
 *
 * Settings: the library's own copy of the region markers reads
 * OMPB_REGIONS_OUTPUT/_FORMAT when loaded; the constructor below sets them
 * to the trace's before that read and puts the user's values back after
 * it, so the program's own markers (a static copy of libompbench, say) and
 * its children report where the user said. Only the process whose id is
 * OMPB_TRACE_PID is traced: programs it execs in a child inherit the
 * preload and run untraced; a fork child is never traced (the region
 * markers are off there).
 *
 * Nothing is lost to an abrupt end: a thread of the library's own (all
 * signals blocked) writes the report again (atomically) every SNAPSHOT_NS
 * while instances complete, off the program's threads, and _exit/_Exit
 * write it before leaving; a SIGKILL or a crash loses at most the
 * instances of the last SNAPSHOT_NS. Not under the CodSpeed runner, to
 * which a report hands the instances it has buffered.
 */
#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ompbench/region.h>

#include "main/fork_wrap.h"
#include "regions/region.h"
#include "trace/trace.h"

#define SITES 1024                      /* outlined functions traced, at most */
#define SNAPSHOT_NS 500000000L          /* report rewritten at most this often */

typedef struct site {
    void (*_Atomic fn)(void *);       /* the key; NULL: a free slot */
    _Atomic int ready;                /* name known */
    bool skip;                        /* filtered out */
    _Atomic bool traced_next;         /* --min-duration: trace the next one */
    _Atomic uint64_t counted, counted_ns;
    int line;
    char name[OMPB_REGION_NAME_MAX + 1];
    char file[1024];
} site;

static site sites[SITES];
static _Atomic uint64_t sites_full;
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;

static bool active;                   /* this process is the one traced */
static pid_t traced_pid;
static bool have_filter;
static regex_t filter;
static uint64_t min_ns;
static ompb__trace_naming naming = OMPB__TRACE_NAME_LINE;
static const char *counted_path;
static bool snapshots = true;
static pthread_once_t snapshot_once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t completed;    /* instances ended, for the snapshots */
static double overhead_ns = -1;       /* a begin/end pair, measured at load */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- sites ------------------------------------------------------------------ */

static void site_name(site *s, void (*fn)(void *))
{
    void *addr;
    memcpy(&addr, &fn, sizeof addr);
    ompb__trace_name(addr, naming, s->name, sizeof s->name, s->file, sizeof s->file, &s->line);
    s->skip = have_filter && regexec(&filter, s->name, 0, NULL, 0) != 0;
    atomic_store_explicit(&s->traced_next, min_ns == 0, memory_order_relaxed);
}

static size_t slot_of(void (*fn)(void *))
{
    uintptr_t k;
    memcpy(&k, &fn, sizeof k);
    return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 54) & (SITES - 1);
}

/* The site of fn, named at its first use; NULL when the table is full.
 * Lookups read without the lock; a new site is named under it. */
static site *site_of(void (*fn)(void *))
{
    size_t i = slot_of(fn);
    for (size_t probe = 0; probe < SITES; probe++, i = (i + 1) & (SITES - 1)) {
        site *s = &sites[i];
        void (*k)(void *) = atomic_load_explicit(&s->fn, memory_order_acquire);
        if (k == fn && atomic_load_explicit(&s->ready, memory_order_acquire))
            return s;
        if (k && k != fn)
            continue;
        pthread_mutex_lock(&sites_lock);
        k = atomic_load_explicit(&s->fn, memory_order_relaxed);
        if (!k) {
            site_name(s, fn);
            atomic_store_explicit(&s->fn, fn, memory_order_release);
            atomic_store_explicit(&s->ready, 1, memory_order_release);
        }
        pthread_mutex_unlock(&sites_lock);
        if (!k || k == fn)
            return s;
    }
    if (atomic_fetch_add(&sites_full, 1) == 0)
        fprintf(stderr, "ompbench trace: more than %d parallel regions (outlined functions): "
                "the others run untraced\n", SITES);
    return NULL;
}

/* ---- the wrapper ------------------------------------------------------------ */

static void traced_body(void *arg)
{
    ompb__fork_call *c = arg;
    const site *s = c->site;
    ompb_region_begin_at(s->name, s->file, s->line);
    c->fn(c->data);
    ompb_region_end_at(s->name, s->file, s->line);
}

static void counted_body(void *arg)
{
    ompb__fork_call *c = arg;
    c->fn(c->data);
}

static void (*enter(ompb__fork_call *c))(void *)
{
    if (omp_get_level() != 0)
        return NULL;
    site *s = site_of(c->fn);
    if (!s || s->skip)
        return NULL;
    c->site = s;
    c->t0 = min_ns ? now_ns() : 0;
    return atomic_load_explicit(&s->traced_next, memory_order_relaxed) ? traced_body
                                                                      : counted_body;
}

/* The snapshot thread: the report again whenever instances completed in
 * the last SNAPSHOT_NS. It holds no region, so the report contains none of
 * its time, and the program's threads never wait for it. */
static void *snapshot_loop(void *arg)
{
    (void)arg;
    uint64_t seen = 0;
    for (;;) {
        struct timespec ts = {0, SNAPSHOT_NS};
        nanosleep(&ts, NULL);
        uint64_t n = atomic_load_explicit(&completed, memory_order_relaxed);
        if (n != seen) {
            seen = n;
            ompb_regions_report(NULL, NULL);
        }
    }
    return NULL;
}

static void snapshot_start(void)
{
    sigset_t all, old;
    pthread_t t;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&t, NULL, snapshot_loop, NULL) == 0)
        pthread_detach(t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void leave(ompb__fork_call *c)
{
    site *s = c->site;
    if (min_ns) {
        uint64_t d = now_ns() - c->t0;
        if (!atomic_load_explicit(&s->traced_next, memory_order_relaxed)) {
            atomic_fetch_add_explicit(&s->counted, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&s->counted_ns, d, memory_order_relaxed);
        }
        atomic_store_explicit(&s->traced_next, d >= min_ns, memory_order_relaxed);
    }
    if (snapshots) {
        atomic_fetch_add_explicit(&completed, 1, memory_order_relaxed);
        pthread_once(&snapshot_once, snapshot_start);
    }
}

static const ompb__fork_wrap wrapper = {.enter = enter, .leave = leave};

/* ---- the end ---------------------------------------------------------------- */

/* The facts the report does not hold, for the tool: "overhead_ns<TAB>X"
 * (negative: not measured), then "counted<TAB>name<TAB>file<TAB>line<TAB>
 * instances<TAB>ns" per region with counted-only instances; through a
 * temporary file renamed over OMPB_TRACE_COUNTED. */
static void write_counted(void)
{
    if (!active || !counted_path)
        return;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", counted_path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fprintf(f, "overhead_ns\t%.1f\n", overhead_ns);
    for (size_t i = 0; i < SITES; i++) {
        const site *s = &sites[i];
        uint64_t n = atomic_load(&s->counted);
        if (atomic_load(&s->ready) && n)
            fprintf(f, "counted\t%s\t%s\t%d\t%llu\t%llu\n", s->name, s->file, s->line,
                    (unsigned long long)n, (unsigned long long)atomic_load(&s->counted_ns));
    }
    if (fclose(f) == 0)
        rename(tmp, counted_path);
    else
        unlink(tmp);
}

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

/* _exit skips atexit: the report and the counted regions are written
 * first (in the traced process only; a fork child's regions are off). */
static void before_exit(void)
{
    if (active && getpid() == traced_pid) {
        ompb_regions_report(NULL, NULL);
        write_counted();
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

static bool read_settings(void)
{
    const char *pid = getenv(OMPB__TRACE_ENV_PID), *out = getenv(OMPB__TRACE_ENV_OUTPUT);
    const char *f = getenv(OMPB__TRACE_ENV_FILTER), *min = getenv(OMPB__TRACE_ENV_MIN_NS);
    const char *nm = getenv(OMPB__TRACE_ENV_NAMING);
    if (!pid || !out || atol(pid) != (long)getpid())
        return false;
    traced_pid = getpid();
    if (f && *f) {
        if (regcomp(&filter, f, REG_EXTENDED | REG_NOSUB) != 0)
            return false;
        have_filter = true;
    }
    min_ns = min ? strtoull(min, NULL, 10) : 0;
    naming = nm && strcmp(nm, "symbol") == 0    ? OMPB__TRACE_NAME_SYMBOL
             : nm && strcmp(nm, "address") == 0 ? OMPB__TRACE_NAME_ADDRESS
                                                 : OMPB__TRACE_NAME_LINE;
    counted_path = getenv(OMPB__TRACE_ENV_COUNTED);
    snapshots = !getenv("CODSPEED_ENV");
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
    active = read_settings();
    if (active && ompb__regions_settings_load()) {
        overhead_ns = probe_overhead();
        write_counted();
        atexit(write_counted);
        ompb__fork_wrap_set(&wrapper);
    } else if (active) {
        fprintf(stderr, "ompbench trace: the region settings were refused: nothing is traced\n");
        active = false;
    }
    put_back("OMPB_REGIONS_OUTPUT", OMPB__TRACE_ENV_SAVED_OUTPUT);
    put_back("OMPB_REGIONS_FORMAT", OMPB__TRACE_ENV_SAVED_FORMAT);
}
