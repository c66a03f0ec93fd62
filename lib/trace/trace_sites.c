/* SPDX-License-Identifier: MIT */
/*
 * The regions `ompbench trace` sees, whichever runtime forks them
 * (trace_gnu.c for libgomp, trace_omp.c for libomp): one site per parallel
 * construct, found by a key (the outlined function, or the return address
 * of the runtime call that forks it) in a table read without a lock, and
 * named once (trace_names.c); what --min-duration decides per instance;
 * the barrier waits libomp reports; the snapshots of the report; and the
 * facts file the tool reads beside the report (OMPB_TRACE_COUNTED).
 *
 * With OMPB_TRACE_MIN_NS, an instance is traced when the previous instance
 * of the same region lasted at least that long (the first one is timed
 * only); the others are counted, with their time on the encountering
 * thread.
 *
 * Nothing is lost to an abrupt end: a thread of the library's own (all
 * signals blocked) writes the report again (atomically) every SNAPSHOT_NS
 * while instances complete, off the program's threads. Not under the
 * CodSpeed runner, to which a report hands the instances it has buffered.
 */
#include "trace/trace.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ompbench/region.h>

#define SITES 1024                      /* constructs traced, at most */
#define SNAPSHOT_NS 500000000L          /* report rewritten at most this often */

ompb__trace_settings ompb__trace_config = {.naming = OMPB__TRACE_NAME_LINE,
                                           .snapshots = true, .overhead_ns = -1};

static ompb__trace_site sites[SITES];
static _Atomic uint64_t sites_full;
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t snapshot_once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t completed;    /* instances ended, for the snapshots */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- sites ------------------------------------------------------------------ */

static void site_name(ompb__trace_site *s, const void *addr)
{
    const ompb__trace_settings *c = &ompb__trace_config;
    ompb__trace_name(addr, c->naming, s->name, sizeof s->name, s->file, sizeof s->file,
                     &s->line);
    s->skip = c->have_filter && regexec(&c->filter, s->name, 0, NULL, 0) != 0;
    atomic_store_explicit(&s->traced_next, c->min_ns == 0, memory_order_relaxed);
}

static size_t slot_of(const void *key)
{
    uintptr_t k = (uintptr_t)key;
    return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 54) & (SITES - 1);
}

/* The site of key, named at its first use; NULL when the table is full.
 * Lookups read without the lock; a new site is named under it. */
static ompb__trace_site *site_find(const void *key, const void *addr)
{
    size_t i = slot_of(key);
    for (size_t probe = 0; probe < SITES; probe++, i = (i + 1) & (SITES - 1)) {
        ompb__trace_site *s = &sites[i];
        const void *k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (k == key && atomic_load_explicit(&s->ready, memory_order_acquire))
            return s;
        if (k && k != key)
            continue;
        pthread_mutex_lock(&sites_lock);
        k = atomic_load_explicit(&s->key, memory_order_relaxed);
        if (!k) {
            site_name(s, addr);
            atomic_store_explicit(&s->key, key, memory_order_release);
            atomic_store_explicit(&s->ready, 1, memory_order_release);
        }
        pthread_mutex_unlock(&sites_lock);
        if (!k || k == key)
            return s;
    }
    if (atomic_fetch_add(&sites_full, 1) == 0)
        fprintf(stderr, "ompbench trace: more than %d parallel regions (constructs): "
                "the others run untraced\n", SITES);
    return NULL;
}

ompb__trace_site *ompb__trace_site_of(const void *key, const void *addr)
{
    ompb__trace_site *s = key ? site_find(key, addr) : NULL;
    return s && !s->skip ? s : NULL;
}

/* ---- instances -------------------------------------------------------------- */

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

bool ompb__trace_enter(ompb__trace_site *s, uint64_t *t0)
{
    *t0 = ompb__trace_config.min_ns ? now_ns() : 0;
    return atomic_load_explicit(&s->traced_next, memory_order_relaxed);
}

void ompb__trace_leave(ompb__trace_site *s, bool traced, uint64_t t0)
{
    uint64_t min_ns = ompb__trace_config.min_ns;
    if (traced)
        atomic_fetch_add_explicit(&s->traced, 1, memory_order_relaxed);
    if (min_ns) {
        uint64_t d = now_ns() - t0;
        if (!traced) {
            atomic_fetch_add_explicit(&s->counted, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&s->counted_ns, d, memory_order_relaxed);
        }
        atomic_store_explicit(&s->traced_next, d >= min_ns, memory_order_relaxed);
    }
    if (ompb__trace_config.snapshots) {
        atomic_fetch_add_explicit(&completed, 1, memory_order_relaxed);
        pthread_once(&snapshot_once, snapshot_start);
    }
}

/* ---- the facts file --------------------------------------------------------- */

/* "overhead_ns<TAB>X" (negative: not measured), then "counted<TAB>name<TAB>
 * file<TAB>line<TAB>instances<TAB>ns" per region with counted-only
 * instances and "barrier<TAB>name<TAB>file<TAB>line<TAB>instances<TAB>ns"
 * per region whose traced instances waited in barriers (libomp); through a
 * temporary file renamed over OMPB_TRACE_COUNTED. */
void ompb__trace_write_facts(void)
{
    const ompb__trace_settings *c = &ompb__trace_config;
    if (!c->active || !c->counted_path)
        return;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", c->counted_path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fprintf(f, "overhead_ns\t%.1f\n", c->overhead_ns);
    for (size_t i = 0; i < SITES; i++) {
        const ompb__trace_site *s = &sites[i];
        if (!atomic_load(&s->ready))
            continue;
        uint64_t n = atomic_load(&s->counted), b = atomic_load(&s->barrier_ns);
        if (n)
            fprintf(f, "counted\t%s\t%s\t%d\t%llu\t%llu\n", s->name, s->file, s->line,
                    (unsigned long long)n, (unsigned long long)atomic_load(&s->counted_ns));
        if (b)
            fprintf(f, "barrier\t%s\t%s\t%d\t%llu\t%llu\n", s->name, s->file, s->line,
                    (unsigned long long)atomic_load(&s->traced), (unsigned long long)b);
    }
    if (fclose(f) == 0)
        rename(tmp, c->counted_path);
    else
        unlink(tmp);
}
