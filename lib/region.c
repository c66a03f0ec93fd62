/* SPDX-License-Identifier: MIT */
/*
 * Region markers: the public calls, their hot path and everything a thread
 * keeps for itself. A thread's first call allocates its state; its first
 * use of a name finds the region in a table that is read without a lock
 * (inserts take the global lock); its first use of a region in a team shape
 * finds the group the same way. After that a begin is: a branch, a
 * thread-local pointer, a pointer-keyed cache hit checked by content, three
 * OpenMP queries for the team, a stack push, the PU, the clock; an end is
 * the clock, a stack pop checked by name, one store into the thread's own
 * ring and one release store of its count. Misuse leaves the hot path for
 * the slow functions at the bottom, which name the region, the thread and
 * the call site once per entry.
 *
 * Settings come from the environment when the library is loaded, so a bad
 * value stops the program before main() (exit status 2), not after hours
 * of work.
 */
#include "region.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>
#include <ompbench/run.h>

#include "clock.h"
#include "error.h"
#include "grow.h"
#include "outfile.h"
#include "region_counters.h"
#include "registry.h"
#include "tsc.h"
#include "report/report.h"
#include "utf8.h"

#define TABLE_SIZE (2u * OMPB__REGIONS_MAX)
#define NAME_CACHE 64
#define ENV_ON "OMPB_REGIONS"
#define ENV_OUTPUT "OMPB_REGIONS_OUTPUT"
#define ENV_FORMAT "OMPB_REGIONS_FORMAT"
#define ENV_CLOCK "OMPB_REGIONS_CLOCK"
/* Longest shown form of a refused name (escaped, valid UTF-8), and of
 * the file part of URIs: names and URIs fit the reports' buffers whole. */
#define DISPLAY_CUT 120
#define FILE_CUT 256
/* sched_yield() rounds a conflicting begin waits, at most, for the
 * occupant's call site (written right after it claims the lane). */
#define SITE_WAIT_TRIES 1000

#if defined(__GNUC__) || defined(__clang__)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#else
#define likely(x) (x)
#define unlikely(x) (x)
#endif

/* One open region on a thread. lane is NULL for a begin that is only
 * remembered so that its end pairs with it (recursion, a conflicting
 * team): nothing is recorded for it. */
typedef struct frame {
    ompb__region *region;
    const char *name;           /* the caller's pointer at begin */
    ompb__region_group *group;
    ompb__region_lane *lane;
    const char *file;
    int line;
    int32_t pu;
    uint64_t start_ns;
} frame;

/* A thread's cached group of one region: the shape is copied here so the
 * check reads only thread-local memory. */
typedef struct group_slot {
    ompb__region_group *group;
    uint64_t key;
    uint64_t shape;             /* team.shape */
} group_slot;

typedef struct thread_state {
    uint64_t serial;            /* nonzero, unique in the process */
    int os_tid;
    int depth;
    /* The team key of the thread's last begin: another thread that finds
     * it taking over lane 0 of that team's shape reads it (team_switch). */
    _Atomic uint64_t last_key;
    uint64_t solo_key;          /* its team key outside OpenMP */
    uint32_t overflow;          /* begins past the depth limit, ignored */
    frame stack[OMPB__REGION_DEPTH_MAX];
    struct { const char *ptr; ompb__region *region; } names[NAME_CACHE];
    group_slot *groups;         /* [n_groups], by region id */
    size_t n_groups;
    struct thread_state *prev, *next;
} thread_state;

/* The team the calling thread is in, as far as pairing is concerned. */
typedef struct team {
    uint64_t key;
    /* level << 32 | threads, compared in one load: the cached shape of
     * group_slot is checked against it without a store-forwarding stall
     * (two 4-byte stores read back as one 8-byte load). */
    uint64_t shape;
    int level, threads, tid;
    int ancestors[OMPB__REGION_LEVELS_MAX];
} team;

static inline uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

/* ---- settings (read at load time) ----------------------------------------- */

/* The hot path's first branch: OMPB_REGIONS=0 clears it. */
static bool regions_on = true;
static char *output_path;       /* OMPB_REGIONS_OUTPUT, %p expanded */
static const char *format_name;
static bool forked;
static bool tsc_allowed = true; /* OMPB_REGIONS_CLOCK is not clock_gettime */

/* ---- global state --------------------------------------------------------- */

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(ompb__region *) table[TABLE_SIZE];
static ompb__region *regions[OMPB__REGIONS_MAX];
static _Atomic size_t n_regions;
static _Atomic uint64_t ignored_names;
static ompb__region_entry *entries_head, *entries_tail;
static uint32_t n_entries;
static thread_state *threads_head;
static _Atomic uint64_t next_serial = 1;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
static bool key_made;

/* The default TLS model: an executable that links libompbench statically
 * gets a thread-pointer load anyway (the linker relaxes it); a shared
 * libompbench stays loadable by dlopen, which initial-exec would stop once
 * the static TLS space is used up (the STATIC_TLS flag), for the price of
 * one __tls_get_addr call per marker there (docs/performance.md). */
static __thread thread_state *self;

void ompb__regions_lock(void)
{
    pthread_mutex_lock(&global_lock);
}

void ompb__regions_unlock(void)
{
    pthread_mutex_unlock(&global_lock);
}

const char *ompb__regions_output(void)
{
    return output_path;
}

const char *ompb__regions_format(void)
{
    return format_name;
}

bool ompb__regions_forked(void)
{
    return forked;
}

void *ompb__region_calloc(size_t size)
{
    size = (size + 63) / 64 * 64;
    void *p = aligned_alloc(64, size ? size : 64);
    if (p)
        memset(p, 0, size);
    return p;
}

/* ---- messages ------------------------------------------------------------- */

/* "thread 1 of a team of 4 (OpenMP level 1, OS thread 4242)". */
static void describe_thread(const thread_state *ts, int level, int tid, int threads,
                            char *buf, size_t len)
{
    int os = ts ? ts->os_tid : 0;
    if (level == 0)
        snprintf(buf, len, "OS thread %d (outside any OpenMP team)", os);
    else
        snprintf(buf, len, "thread %d of a team of %d (OpenMP level %d, OS thread %d)", tid,
                 threads, level, os);
}

static void describe_frame(const thread_state *ts, const frame *f, char *buf, size_t len)
{
    const ompb__region_group *g = f->group;
    int tid = f->lane ? (int)(f->lane - g->lanes) : 0;
    if (!f->lane && g->level > 0)
        tid = omp_get_thread_num();
    describe_thread(ts, g->level, tid, g->threads, buf, len);
}

void ompb__region_entry_fail(ompb__region_entry *e, const char *fmt, ...)
{
    char raw[OMPB__REGION_ERROR_MAX], text[OMPB__REGION_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* Call sites are the caller's __FILE__: whatever bytes, the message
     * ends up in JSON and on one line of standard error. */
    ompb__utf8_escape_controls(raw, text, sizeof text);
    pthread_mutex_lock(&e->lock);
    bool first = !e->failed;
    e->misuse++;
    if (first) {
        e->failed = true;
        snprintf(e->error, sizeof e->error, "%s", text);
    }
    pthread_mutex_unlock(&e->lock);
    if (first)
        fprintf(stderr, "ompbench: region:%s[t=%d]: %s\n", e->region->display, e->threads, text);
}

/* ---- settings ------------------------------------------------------------- */

/* Why the settings were refused ("" when they were not), for ompb_main. */
static char settings_error[OMPB_ERROR_TEXT_MAX + 64];

/* A bad setting turns regions off with a warning: the settings are read
 * by a constructor, in every program that links the library, and an
 * application's markers must never stop it (no constructor exits). A
 * benchmark binary refuses the setting in ompb_main's configuration
 * instead (exit 2, ompb__regions_check_settings). */
static void bad_setting(const char *text)
{
    snprintf(settings_error, sizeof settings_error, "%s", text);
    regions_on = false;
    ompb__error_print(stderr, "ompbench: warning: %s; region markers are off", text);
}

int ompb__regions_check_settings(ompb_error *err)
{
    if (!settings_error[0])
        return 0;
    return ompb__error_set(err, OMPB_EINVAL, "%s", settings_error);
}

static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* OMPB_REGIONS_OUTPUT with every %p replaced by the process id. */
static char *expand_output(const char *value)
{
    char pid[24];
    size_t n = 0, plen = (size_t)snprintf(pid, sizeof pid, "%ld", (long)getpid());
    for (const char *p = value; *p; p++)
        n += (p[0] == '%' && p[1] == 'p') ? (p++, plen) : 1;
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = value; *p; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            memcpy(o, pid, plen);
            o += plen;
            p++;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* Returns false after bad_setting. */
static bool read_settings(void)
{
    char text[OMPB_ERROR_TEXT_MAX + 64];
    const char *on = env_value(ENV_ON), *fmt = env_value(ENV_FORMAT), *out = env_value(ENV_OUTPUT);
    const char *clock = env_value(ENV_CLOCK);
    if (on && strcmp(on, "0") != 0 && strcmp(on, "1") != 0) {
        snprintf(text, sizeof text, "%s: invalid value '%.100s' (accepted: 0, 1)", ENV_ON, on);
        bad_setting(text);
        return false;
    }
    if (clock && strcmp(clock, "auto") != 0 && strcmp(clock, "clock_gettime") != 0) {
        snprintf(text, sizeof text, "%s: invalid value '%.100s' (accepted: auto, clock_gettime)",
                 ENV_CLOCK, clock);
        bad_setting(text);
    }
    tsc_allowed = !clock || strcmp(clock, "auto") == 0;
    if (on && strcmp(on, "0") == 0) {
        regions_on = false;
        return true;
    }
    if (fmt && !ompb__reporter_find(fmt)) {
        snprintf(text, sizeof text, "%s: invalid value '%.100s' (accepted: %s)", ENV_FORMAT, fmt,
                 ompb__reporter_names());
        bad_setting(text);
        return false;
    }
    format_name = fmt;
    if (!out || strcmp(out, "-") == 0) {
        output_path = out ? strdup(out) : NULL;
        return true;
    }
    ompb_error err = {0};
    if (!(output_path = expand_output(out))) {
        bad_setting("out of memory");
        return false;
    }
    if (ompb__outfile_probe(output_path, &err) != 0) {
        snprintf(text, sizeof text, "%s: %s (accepted: a writable file path, or -)", ENV_OUTPUT,
                 err.text);
        free(output_path);
        output_path = NULL;
        bad_setting(text);
        return false;
    }
    return true;
}

static void child_after_fork(void)
{
    forked = true;
    regions_on = false;
}

__attribute__((constructor)) static void regions_load(void)
{
    if (!read_settings() || !regions_on)
        return;
    pthread_atfork(NULL, NULL, child_after_fork);
    atexit(ompb__regions_exit_report);
}

void ompb__regions_set_enabled(bool on)
{
    regions_on = on;
}

bool ompb__regions_enabled(void)
{
    return regions_on;
}

/* ---- names ---------------------------------------------------------------- */

static uint64_t hash_name(const char *name)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i <= OMPB_REGION_NAME_MAX && name[i]; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
    return h;
}

/* strncmp(r->name, name, OMPB_REGION_NAME_MAX + 1) == 0, inline: names
 * are short, and a call costs more than comparing them. */
static inline bool name_equal(const ompb__region *r, const char *name)
{
    const char *a = r->name;
    for (size_t i = 0; i <= OMPB_REGION_NAME_MAX; i++) {
        if (a[i] != name[i])
            return false;
        if (!a[i])
            return true;
    }
    return true;
}

static ompb__region *table_find(const char *name, uint64_t h)
{
    for (size_t i = h & (TABLE_SIZE - 1);; i = (i + 1) & (TABLE_SIZE - 1)) {
        ompb__region *r = atomic_load_explicit(&table[i], memory_order_acquire);
        if (!r)
            return NULL;
        if (r->hash == h && name_equal(r, name))
            return r;
    }
}

/* A C0 control, DEL, or a C1 control (U+0080-U+009F, UTF-8 C2 80-9F). */
static bool has_control(const char *name)
{
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            return true;
    return false;
}

/* The shown form of a refused name: valid UTF-8, no control character,
 * no bracket (each such byte as \xNN), cut to fit cap. Returns its length. */
static size_t escape_name(const char *name, char *out, size_t cap)
{
    char plain[4 * (OMPB_REGION_NAME_MAX + 1) + 1];
    ompb__utf8_escape_controls(name, plain, sizeof plain);
    size_t n = 0;
    for (const char *p = plain; *p; p++) {
        bool bracket = *p == '[' || *p == ']';
        size_t need = bracket ? 4 : 1;
        if (n + need + 1 > cap)
            break;
        if (bracket)
            n += (size_t)snprintf(out + n, cap - n, "\\x%02x", (unsigned char)*p);
        else
            out[n++] = *p;
    }
    if (cap)
        out[n < cap ? n : cap - 1] = '\0';
    return n;
}

/* Why a name is refused, or "" when it is fine. */
static void check_name(ompb__region *r, size_t len)
{
    if (len == 0)
        snprintf(r->invalid, sizeof r->invalid, "the region name is empty");
    else if (len > OMPB_REGION_NAME_MAX)
        snprintf(r->invalid, sizeof r->invalid, "the region name is longer than %d bytes",
                 OMPB_REGION_NAME_MAX);
    else if (!ompb__utf8_valid(r->name, len))
        snprintf(r->invalid, sizeof r->invalid, "the region name is not valid UTF-8 (bad bytes "
                 "shown as \\xNN)");
    else if (has_control(r->name))
        snprintf(r->invalid, sizeof r->invalid, "the region name contains a control character "
                 "(shown as \\xNN), which would break the console and CSV rows");
    else if (strpbrk(r->name, "[]"))
        snprintf(r->invalid, sizeof r->invalid, "the region name contains '[' or ']' (shown as "
                 "\\x5b, \\x5d), which would make region:NAME[t=T] ambiguous");
}

/* The name as reports show it: itself, or for a refused name an escaped,
 * cut copy made unique by the region's number. */
static char *display_name(const ompb__region *r)
{
    if (!r->invalid[0])
        return strdup(r->name);
    char full[4 * (OMPB_REGION_NAME_MAX + 1) + 1], shown[DISPLAY_CUT + 1];
    char *out = malloc(sizeof shown + 24);
    size_t all = escape_name(r->name, full, sizeof full);
    size_t len = escape_name(r->name, shown, sizeof shown);
    if (out)
        snprintf(out, sizeof shown + 24, "%s%s~%u", shown, len < all ? "..." : "", r->id);
    return out;
}

static ompb__region *region_new(const char *name, const char *file, uint64_t h, uint32_t id)
{
    ompb__region *r = ompb__region_calloc(sizeof *r);
    size_t len = strnlen(name, OMPB_REGION_NAME_MAX + 1);
    if (!r || !(r->name = strndup(name, len))) {
        free(r);
        return NULL;
    }
    r->hash = h;
    r->id = id;
    check_name(r, len);
    char uri_file[FILE_CUT + 1];
    ompb__utf8_escape(ompb__uri_file(file ? file : "unknown"), uri_file, sizeof uri_file);
    r->display = display_name(r);
    r->file = strdup(uri_file);
    if (!r->display || !r->file) {
        free(r->display);
        free(r->file);
        free(r->name);
        free(r);
        return NULL;
    }
    return r;
}

/* Finds or adds the region of name; NULL when the table is full (warned
 * once) or memory ran out. */
static ompb__region *region_slow(const char *name, const char *file)
{
    uint64_t h = hash_name(name);
    ompb__region *r = table_find(name, h);
    if (r)
        return r;
    pthread_mutex_lock(&global_lock);
    r = table_find(name, h);
    size_t n = atomic_load_explicit(&n_regions, memory_order_relaxed);
    if (!r && n < OMPB__REGIONS_MAX && (r = region_new(name, file, h, (uint32_t)n))) {
        regions[n] = r;
        size_t i = h & (TABLE_SIZE - 1);
        while (atomic_load_explicit(&table[i], memory_order_relaxed))
            i = (i + 1) & (TABLE_SIZE - 1);
        atomic_store_explicit(&table[i], r, memory_order_release);
        atomic_store_explicit(&n_regions, n + 1, memory_order_release);
    } else if (!r && n >= OMPB__REGIONS_MAX && atomic_fetch_add(&ignored_names, 1) == 0) {
        fprintf(stderr, "ompbench: more than %d distinct region names: calls with new names "
                "are ignored (the report counts them)\n", OMPB__REGIONS_MAX);
    }
    pthread_mutex_unlock(&global_lock);
    return r;
}

static size_t name_slot(const char *name)
{
    return (size_t)(((uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 58) & (NAME_CACHE - 1);
}

/* The region of name through the thread's pointer cache, checked by
 * content: a buffer reused for another name must not hit. */
static inline ompb__region *region_of(thread_state *ts, const char *name, const char *file)
{
    size_t slot = name_slot(name);
    ompb__region *r = ts->names[slot].region;
    if (likely(ts->names[slot].ptr == name && r && name_equal(r, name)))
        return r;
    r = region_slow(name, file);
    ts->names[slot].ptr = name;
    ts->names[slot].region = r;
    return r;
}

/* ---- threads -------------------------------------------------------------- */

static void thread_exit(void *arg);

static void make_key(void)
{
    key_made = pthread_key_create(&thread_key, thread_exit) == 0;
    ompb__tsc_start(tsc_allowed);
    ompb__region_runner_init();
    ompb__regions_signals_init();
}

static thread_state *thread_first_use(void)
{
    pthread_once(&once, make_key);
    thread_state *ts = ompb__region_calloc(sizeof *ts);
    if (!ts)
        return NULL;
    ts->serial = atomic_fetch_add(&next_serial, 1);
    ts->solo_key = mix(ts->serial, 0);
    ts->os_tid = gettid();
    pthread_mutex_lock(&global_lock);
    ts->next = threads_head;
    if (threads_head)
        threads_head->prev = ts;
    threads_head = ts;
    pthread_mutex_unlock(&global_lock);
    if (key_made)
        pthread_setspecific(thread_key, ts);
    self = ts;
    return ts;
}

static void close_frames(thread_state *ts, const char *why);

/* Folds what the exiting thread's own groups hold and leaves them to the
 * next thread outside OpenMP. */
static void vacate_groups(thread_state *ts)
{
    for (size_t i = 0; i < ts->n_groups; i++) {
        ompb__region_group *g = ts->groups[i].group;
        if (!g || g->level != 0 || atomic_load(&g->serial) != ts->serial)
            continue;
        ompb__region_group_reduce_all(g);
        atomic_store(&g->vacant, true);
    }
}

/* A thread that ends inside regions began them without ending them. */
static void thread_exit(void *arg)
{
    thread_state *ts = arg;
    close_frames(ts, "its thread exited");
    pthread_mutex_lock(&global_lock);
    vacate_groups(ts);
    if (ts->prev)
        ts->prev->next = ts->next;
    else
        threads_head = ts->next;
    if (ts->next)
        ts->next->prev = ts->prev;
    pthread_mutex_unlock(&global_lock);
    if (self == ts)
        self = NULL;
    free(ts->groups);
    free(ts);
}

/* ---- teams and groups ----------------------------------------------------- */

/* The calling thread's team: outside OpenMP a team of one of its own, in
 * OpenMP the nesting path (thread numbers of the ancestors) and size, so
 * concurrent inner teams are told apart and consecutive teams of one shape
 * share their pairing. */
static inline void team_now(const thread_state *ts, team *t)
{
    int level = omp_get_level();
    t->level = level;
    if (level == 0) {
        t->threads = 1;
        t->tid = 0;
        t->key = ts->solo_key;
        t->shape = 1;
        return;
    }
    t->threads = omp_get_num_threads();
    t->tid = omp_get_thread_num();
    uint64_t h = mix((uint64_t)level, (uint64_t)t->threads);
    for (int l = 1; l < level; l++) {
        int a = omp_get_ancestor_thread_num(l);
        if (l - 1 < OMPB__REGION_LEVELS_MAX)
            t->ancestors[l - 1] = a;
        h = mix(h, (uint64_t)a);
    }
    t->key = h | 1; /* never the empty slot's 0 */
    t->shape = (uint64_t)(uint32_t)level << 32 | (uint32_t)t->threads;
}

static bool group_matches(const ompb__region_group *g, const team *t, const thread_state *ts)
{
    if (atomic_load_explicit(&g->key, memory_order_relaxed) != t->key || g->level != t->level
        || g->threads != t->threads)
        return false;
    if (t->level == 0)
        return atomic_load_explicit(&g->serial, memory_order_relaxed) == ts->serial;
    int known = t->level - 1 < OMPB__REGION_LEVELS_MAX ? t->level - 1 : OMPB__REGION_LEVELS_MAX;
    return memcmp(g->ancestors, t->ancestors, (size_t)known * sizeof(int)) == 0;
}

static ompb__region_group *group_find(const ompb__region *r, const team *t,
                                      const thread_state *ts)
{
    for (ompb__region_group *g = atomic_load_explicit(&r->groups, memory_order_acquire); g;
         g = g->next)
        if (group_matches(g, t, ts))
            return g;
    return NULL;
}

static ompb__region_entry *entry_find(const ompb__region *r, int threads)
{
    for (ompb__region_entry *e = atomic_load_explicit(&r->entries, memory_order_acquire); e;
         e = e->next)
        if (e->threads == threads)
            return e;
    return NULL;
}

/* The entry of (r, threads), made under the global lock when new. A region
 * with a refused name makes entries that fail from the start. */
static ompb__region_entry *entry_get(ompb__region *r, int threads, const char *file, int line)
{
    ompb__region_entry *e = entry_find(r, threads);
    if (e)
        return e;
    pthread_mutex_lock(&global_lock);
    if (!(e = entry_find(r, threads)) && (e = ompb__region_entry_new(r, threads, n_entries))) {
        n_entries++;
        e->next = atomic_load_explicit(&r->entries, memory_order_relaxed);
        if (entries_tail)
            entries_tail->next_all = e;
        else
            entries_head = e;
        entries_tail = e;
        atomic_store_explicit(&r->entries, e, memory_order_release);
    }
    pthread_mutex_unlock(&global_lock);
    if (e && r->invalid[0])
        ompb__region_entry_fail(e, "%s (first used at %s:%d); its instances are recorded "
                                "and reported under the escaped name, marked failed: give the "
                                "region a valid name", r->invalid, file ? file : "?", line);
    return e;
}

/* A group of r that an exited thread outside OpenMP left (global lock held). */
static ompb__region_group *adopt_vacant(const ompb__region *r, const team *t,
                                        const thread_state *ts)
{
    if (t->level != 0)
        return NULL;
    for (ompb__region_group *g = atomic_load_explicit(&r->groups, memory_order_relaxed); g;
         g = g->next) {
        if (g->level == 0 && atomic_load_explicit(&g->vacant, memory_order_relaxed)) {
            atomic_store_explicit(&g->serial, ts->serial, memory_order_relaxed);
            atomic_store_explicit(&g->key, t->key, memory_order_relaxed);
            atomic_store_explicit(&g->vacant, false, memory_order_relaxed);
            return g;
        }
    }
    return NULL;
}

static ompb__region_group *group_slow(ompb__region *r, const team *t, const thread_state *ts,
                                      const char *file, int line)
{
    ompb__region_group *g = group_find(r, t, ts);
    if (g)
        return g;
    ompb__region_entry *e = entry_get(r, t->threads, file, line);
    if (!e)
        return NULL;
    pthread_mutex_lock(&global_lock);
    if (!(g = group_find(r, t, ts)) && !(g = adopt_vacant(r, t, ts))
        && (g = ompb__region_group_new(e, t->threads))) {
        atomic_store_explicit(&g->key, t->key, memory_order_relaxed);
        g->level = t->level;
        atomic_store_explicit(&g->serial, t->level == 0 ? ts->serial : 0, memory_order_relaxed);
        memcpy(g->ancestors, t->ancestors, sizeof g->ancestors);
        g->next = atomic_load_explicit(&r->groups, memory_order_relaxed);
        atomic_store_explicit(&r->groups, g, memory_order_release);
    }
    pthread_mutex_unlock(&global_lock);
    return g;
}

/* Room in the thread's group cache for region id. Its lines are the
 * thread's own (not malloc's neighbours, which other threads may write). */
static bool grow_slots(thread_state *ts, uint32_t id)
{
    size_t n = ts->n_groups ? ts->n_groups : 16;
    while (n <= id)
        n *= 2;
    group_slot *slots = ompb__region_calloc(n * sizeof *slots);
    if (!slots)
        return false;
    if (ts->groups)
        memcpy(slots, ts->groups, ts->n_groups * sizeof *slots);
    free(ts->groups);
    ts->groups = slots;
    ts->n_groups = n;
    return true;
}

/* The group of (r, team) through the thread's cache, keyed by region id. */
static inline ompb__region_group *group_of(thread_state *ts, ompb__region *r, const team *t,
                                           const char *file, int line)
{
    if (likely(r->id < ts->n_groups)) {
        group_slot *s = &ts->groups[r->id];
        if (likely(s->key == t->key && s->shape == t->shape && s->group))
            return s->group;
    } else if (!grow_slots(ts, r->id)) {
        return NULL;
    }
    ompb__region_group *g = group_slow(r, t, ts, file, line);
    if (g)
        ts->groups[r->id] = (group_slot){g, t->key, t->shape};
    return g;
}

/* ---- misuse (slow paths) -------------------------------------------------- */


/* Pushes a begin that records nothing, so that its end pairs with it. */
static void push_ignored(thread_state *ts, ompb__region *r, const char *name,
                         ompb__region_group *g, const char *file, int line)
{
    frame *f = &ts->stack[ts->depth++];
    *f = (frame){.region = r, .name = name, .group = g, .file = file, .line = line, .pu = -1};
}

static void begin_recursive(thread_state *ts, ompb__region *r, const char *name,
                            ompb__region_group *g, const team *t, const char *file, int line,
                            const frame *open)
{
    char who[160];
    describe_thread(ts, t->level, t->tid, t->threads, who, sizeof who);
    ompb__region_entry_fail(g->entry, "began again at %s:%d by %s while already open since "
                            "%s:%d (recursion into an open region); the inner begin/end is "
                            "not recorded", file, line, who, open->file, open->line);
    push_ignored(ts, r, name, g, file, line);
}

/* The kernel id of the live thread with this serial, 0 when none. Global
 * lock: the thread list. */
static int os_tid_of(uint64_t serial)
{
    int os = 0;
    pthread_mutex_lock(&global_lock);
    for (const thread_state *o = threads_head; o && serial; o = o->next)
        if (o->serial == serial)
            os = o->os_tid;
    pthread_mutex_unlock(&global_lock);
    return os;
}

/* The call site of occupant's begin on ln into *file and *line, once that
 * begin has written it: it claims the lane first and writes its site just
 * after, so a conflicting begin may come in between. It waits for that a
 * little (a misuse path: the hot path never comes here). False when the
 * site is still not there, or the occupant has left. */
static bool occupant_site(const ompb__region_lane *ln, uint64_t occupant, const char **file,
                          int *line)
{
    for (int tries = 0; tries < SITE_WAIT_TRIES; tries++) {
        if (atomic_load_explicit(&ln->occupant, memory_order_relaxed) != occupant)
            return false;
        if (atomic_load_explicit(&ln->site_serial, memory_order_acquire) == occupant) {
            *file = atomic_load_explicit(&ln->begin_file, memory_order_relaxed);
            *line = atomic_load_explicit(&ln->begin_line, memory_order_relaxed);
            return *file != NULL;
        }
        sched_yield();
    }
    return false;
}

/* "OS thread 4242 is inside it ... (begun at a.c:12)", or what of that is
 * not known, said as such: never a placeholder thread 0 or "?:0". */
static void describe_occupant(const ompb__region_lane *ln, char *buf, size_t len)
{
    static const char shape[] = "as the same thread of a team of the same shape";
    uint64_t occupant = atomic_load_explicit(&ln->occupant, memory_order_acquire);
    int os = os_tid_of(occupant);
    const char *file = NULL;
    int line = 0;
    bool site = occupant && occupant_site(ln, occupant, &file, &line);
    char who[64];
    if (!occupant) {
        snprintf(buf, len, "another thread was inside it %s, and has left it since (its OS "
                 "thread and call site are no longer known)", shape);
        return;
    }
    if (os)
        snprintf(who, sizeof who, "OS thread %d is", os);
    else
        snprintf(who, sizeof who, "a thread that has ended since (OS id unknown) was");
    if (site)
        snprintf(buf, len, "%s inside it %s (begun at %s:%d)", who, shape, file, line);
    else
        snprintf(buf, len, "%s inside it %s (its call site unknown: that begin had not "
                 "recorded it yet, or the thread has left the region since)", who, shape);
}

static void begin_conflict(thread_state *ts, ompb__region *r, const char *name,
                           ompb__region_group *g, const team *t, const char *file, int line)
{
    char who[160], other[OMPB__REGION_ERROR_MAX / 2];
    describe_thread(ts, t->level, t->tid, t->threads, who, sizeof who);
    describe_occupant(&g->lanes[t->tid], other, sizeof other);
    ompb__region_entry_fail(g->entry, "began at %s:%d by %s while %s: two teams use this "
                            "region at once, e.g. teams of pthreads that each start OpenMP; "
                            "give each its own region name", file, line, who, other);
    push_ignored(ts, r, name, g, file, line);
}

/* Lane 0 of a team at OpenMP level >= 1 is the thread that started the
 * team. OpenMP tells a worker thread its level, team size and ancestors'
 * thread numbers, not which team it is in: two pthreads that each start a
 * team of one shape share its lanes, and their instances would pair across
 * teams without a single overlapping begin. So a new thread on lane 0 is a
 * team switch; it is one only if the previous thread there is gone or has
 * since begun a region outside that team. A previous thread still alive
 * whose last begin was in a team of this shape may still be in its team:
 * the pairing cannot be trusted and the entry fails. (One pthread's teams
 * after another's, with the first still alive and not having begun any
 * region since, are refused the same way: the library cannot tell them
 * apart from concurrent teams.) Global lock: the thread list. */
static bool team_switch_ok(const thread_state *ts, int prev_tid, uint64_t key, int *other)
{
    bool ok = true;
    pthread_mutex_lock(&global_lock);
    for (const thread_state *o = threads_head; o; o = o->next)
        if (o != ts && o->os_tid == prev_tid
            && atomic_load_explicit(&o->last_key, memory_order_relaxed) == key) {
            ok = false;
            *other = o->os_tid;
        }
    pthread_mutex_unlock(&global_lock);
    return ok;
}

/* A thread plays lane ln of g for the first time (its begin holds the
 * lane). False when the begin was turned into an ignored one. */
static bool lane_new_player(thread_state *ts, ompb__region *r, const char *name,
                            ompb__region_group *g, ompb__region_lane *ln, const team *t,
                            const char *file, int line)
{
    int prev = atomic_load_explicit(&ln->os_tid, memory_order_relaxed), other = 0;
    if (t->level > 0 && t->tid == 0 && prev != 0 && !team_switch_ok(ts, prev, t->key, &other)) {
        char who[160];
        describe_thread(ts, t->level, t->tid, t->threads, who, sizeof who);
        ompb__region_entry_fail(g->entry, "began at %s:%d by %s while OS thread %d, which "
                                "started another team of the same shape, may still be in it: "
                                "two teams use this region at once, e.g. teams of pthreads "
                                "that each start OpenMP, and their instances cannot be paired "
                                "per team; give each its own region name", file, line, who,
                                other);
        atomic_store_explicit(&g->dead, true, memory_order_relaxed);
        atomic_store_explicit(&ln->occupant, 0, memory_order_release);
        push_ignored(ts, r, name, g, file, line);
        return false;
    }
    atomic_store_explicit(&ln->os_tid, ts->os_tid, memory_order_relaxed);
    return true;
}

/* Two threads entered one lane so close together that begin did not see
 * it; the one that finds the lane taken at its end says so. */
static void end_conflict(const thread_state *ts, frame *f)
{
    char who[160], other[OMPB__REGION_ERROR_MAX / 2];
    describe_frame(ts, f, who, sizeof who);
    describe_occupant(f->lane, other, sizeof other);
    ompb__region_entry_fail(f->group->entry, "began at %s:%d by %s while %s: two teams use "
                            "this region at once, e.g. teams of pthreads that each start "
                            "OpenMP; give each its own region name", f->file, f->line, who,
                            other);
    f->lane = NULL;
}

static void begin_too_deep(thread_state *ts, ompb__region_group *g, const team *t,
                           const char *file, int line)
{
    char who[160];
    describe_thread(ts, t->level, t->tid, t->threads, who, sizeof who);
    ompb__region_entry_fail(g->entry, "began at %s:%d by %s with %d regions already open on "
                            "that thread (the limit): not recorded", file, line, who,
                            OMPB__REGION_DEPTH_MAX);
    ts->overflow++;
}

/* Releases the lane of a frame that will never be recorded. */
static void drop_frame(frame *f)
{
    if (f->lane)
        atomic_store_explicit(&f->lane->occupant, 0, memory_order_release);
    f->lane = NULL;
}

/* Fails every open frame of ts (begun, never ended): at thread exit and,
 * for the calling thread, at process exit. */
static void close_frames(thread_state *ts, const char *why)
{
    char who[160];
    for (int i = ts->depth - 1; i >= 0; i--) {
        frame *f = &ts->stack[i];
        if (f->lane) {
            describe_frame(ts, f, who, sizeof who);
            ompb__region_entry_fail(f->group->entry, "began at %s:%d by %s and never ended "
                                    "(%s)", f->file, f->line, who, why);
        }
        drop_frame(f);
    }
    ts->depth = 0;
}

static void record(const thread_state *ts, frame *f, uint64_t now);

/* end(name) that does not match the innermost open region. */
static void end_slow(thread_state *ts, const char *name, const char *file, int line,
                     uint64_t now)
{
    char who[160];
    int i = ts->depth - 1;
    while (i >= 0 && !name_equal(ts->stack[i].region, name))
        i--;
    if (i < 0) {
        team t;
        team_now(ts, &t);
        ompb__region *r = region_slow(name, file);
        ompb__region_entry *e = r ? entry_get(r, t.threads, file, line) : NULL;
        describe_thread(ts, t.level, t.tid, t.threads, who, sizeof who);
        if (e)
            ompb__region_entry_fail(e, "ended at %s:%d by %s without a matching begin on that "
                                    "thread", file, line, who);
        return;
    }
    /* Regions begun inside name and still open: none of them ends well. */
    frame *outer = &ts->stack[i];
    describe_frame(ts, outer, who, sizeof who);
    for (int j = ts->depth - 1; j > i; j--) {
        frame *f = &ts->stack[j];
        if (f->lane)
            ompb__region_entry_fail(f->group->entry, "began at %s:%d by %s and still open "
                                    "when the enclosing region '%s' ended at %s:%d (regions "
                                    "must nest: end the inner one first)", f->file, f->line,
                                    who, outer->region->display, file, line);
        drop_frame(f);
    }
    ompb__region_entry_fail(outer->group->entry, "ended at %s:%d by %s while '%s', begun "
                            "inside it at %s:%d, was still open (mismatched names: regions "
                            "must nest)", file, line, who, ts->stack[i + 1].region->display,
                            ts->stack[i + 1].file, ts->stack[i + 1].line);
    ts->depth = i + 1;
    if (outer->lane)
        record(ts, outer, now);
    ts->depth = i;
}

/* ---- the hot path --------------------------------------------------------- */

void ompb_region_begin_at(const char *name, const char *file, int line)
{
    if (unlikely(!regions_on))
        return;
    thread_state *ts = self;
    if (unlikely(!ts) && !(ts = thread_first_use()))
        return;
    if (unlikely(!name))
        name = "";
    ompb__region *r = region_of(ts, name, file);
    if (unlikely(!r))
        return;
    team t;
    team_now(ts, &t);
    ompb__region_group *g = group_of(ts, r, &t, file, line);
    if (unlikely(!g))
        return;
    if (unlikely(ts->depth >= OMPB__REGION_DEPTH_MAX)) {
        begin_too_deep(ts, g, &t, file, line);
        return;
    }
    for (int i = 0; i < ts->depth; i++)
        if (unlikely(ts->stack[i].region == r)) {
            begin_recursive(ts, r, name, g, &t, file, line, &ts->stack[i]);
            return;
        }
    ompb__region_lane *ln = &g->lanes[t.tid];
    if (unlikely(atomic_load_explicit(&g->dead, memory_order_relaxed))) {
        push_ignored(ts, r, name, g, file, line);
        return;
    }
    /* Claimed by compare-and-swap: of two begins on one lane at once,
     * exactly one gets it and the other is told. */
    uint64_t none = 0;
    if (unlikely(!atomic_compare_exchange_strong_explicit(&ln->occupant, &none, ts->serial,
                                                          memory_order_acquire,
                                                          memory_order_relaxed))) {
        begin_conflict(ts, r, name, g, &t, file, line);
        return;
    }
    if (unlikely(!ln->ring) && !ompb__region_lane_make_room(g, ln)) {
        atomic_store_explicit(&ln->occupant, 0, memory_order_release);
        push_ignored(ts, r, name, g, file, line);
        return;
    }
    atomic_store_explicit(&ln->begin_file, file, memory_order_relaxed);
    atomic_store_explicit(&ln->begin_line, line, memory_order_relaxed);
    atomic_store_explicit(&ln->site_serial, ts->serial, memory_order_release);
    if (unlikely(atomic_load_explicit(&ln->os_tid, memory_order_relaxed) != ts->os_tid)
        && !lane_new_player(ts, r, name, g, ln, &t, file, line))
        return;
    if (unlikely(atomic_load_explicit(&ts->last_key, memory_order_relaxed) != t.key))
        atomic_store_explicit(&ts->last_key, t.key, memory_order_relaxed);
    /* A window opens only from a thread with no region open: the runner's
     * round trip must not land inside a timed instance of this thread. */
    if (unlikely(atomic_load_explicit(&ompb__region_runner_watch, memory_order_relaxed))
        && ts->depth == 0)
        ompb__region_runner_begin(g->entry);
    frame *f = &ts->stack[ts->depth++];
    f->region = r;
    f->name = name;
    f->group = g;
    f->lane = ln;
    f->file = file;
    f->line = line;
    f->pu = sched_getcpu();
    f->start_ns = ompb__stamp_ns();
    /* OMPB_REGIONS_COUNTERS (lib/region_counters.c): after the timestamp. */
    if (unlikely(ompb__region_counters_on))
        ompb__region_counters_begin(ts->depth - 1);
}

/* Appends the frame's pair to its lane and publishes it. */
static void record(const thread_state *ts, frame *f, uint64_t now)
{
    ompb__region_lane *ln = f->lane;
    uint64_t k = ln->count;
    if (unlikely(atomic_load_explicit(&ln->occupant, memory_order_relaxed) != ts->serial)) {
        end_conflict(ts, f);
        return;
    }
    if (unlikely(k - ln->reduced_seen > ln->mask)) {
        /* Full as last seen: another thread may have folded since. */
        ln->reduced_seen = atomic_load_explicit(&f->group->reduced, memory_order_acquire);
        if (k - ln->reduced_seen > ln->mask && !ompb__region_lane_make_room(f->group, ln)) {
            drop_frame(f);
            return;
        }
    }
    ln->ring[k & ln->mask] = ompb__region_pack(f->start_ns, now, f->pu);
    /* The line four pairs ahead was last read by the reducer, on another
     * core: ask for it now, for writing, rather than stall on it then. */
    __builtin_prefetch(&ln->ring[(k + 16) & ln->mask], 1);
    ln->count = k + 1;
    atomic_store_explicit(&ln->published, k + 1, memory_order_release);
    if (unlikely(k + 1 >= ln->next_try))
        ompb__region_group_try_reduce(f->group, ln);
    if (unlikely(k + 1 == OMPB__REGION_RING_HOT))
        ompb__region_lane_heat(f->group, ln);
    /* Last: the lane is handed back only once this thread's writes to it
     * (count, ring, the ring's growth) are done, and released with them to
     * whoever claims it next (the claim's compare-and-swap acquires). */
    atomic_store_explicit(&ln->occupant, 0, memory_order_release);
}

void ompb_region_end_at(const char *name, const char *file, int line)
{
    if (unlikely(!regions_on))
        return;
    /* OMPB_REGIONS_COUNTERS: before the timestamp. */
    if (unlikely(ompb__region_counters_on))
        ompb__region_counters_end();
    uint64_t now = ompb__stamp_end_ns();
    thread_state *ts = self;
    if (unlikely(!ts) && !(ts = thread_first_use()))
        return;
    if (unlikely(!name))
        name = "";
    if (unlikely(ts->overflow)) {
        ts->overflow--;
        return;
    }
    frame *f = ts->depth ? &ts->stack[ts->depth - 1] : NULL;
    if (unlikely(!f || (f->name != name && !name_equal(f->region, name)))) {
        end_slow(ts, name, file, line, now);
        return;
    }
    if (likely(f->lane != NULL)) {
        record(ts, f, now);
        if (unlikely(ompb__region_counters_on))
            ompb__region_counters_add(f->group->entry, ts->depth - 1);
    }
    ts->depth--;
}

/* ---- reports and tests ---------------------------------------------------- */

ompb__region_entry *ompb__regions_open_entry(const char *name)
{
    thread_state *ts = self;
    for (int i = ts && name ? ts->depth - 1 : -1; i >= 0; i--)
        if (ts->stack[i].lane && name_equal(ts->stack[i].region, name))
            return ts->stack[i].group->entry;
    return NULL;
}

ompb__region *const *ompb__regions_all(size_t *n)
{
    *n = atomic_load_explicit(&n_regions, memory_order_acquire);
    return regions;
}

ompb__region_entry *ompb__regions_entries(void)
{
    return entries_head;
}

uint64_t ompb__regions_ignored_names(void)
{
    return atomic_load(&ignored_names);
}

bool ompb__regions_open_here(char *buf, size_t len)
{
    const thread_state *ts = self;
    if (!ts || ts->depth == 0)
        return false;
    const frame *f = &ts->stack[ts->depth - 1];
    snprintf(buf, len, "'%s' (begun at %s:%d)", f->region->display, f->file ? f->file : "?",
             f->line);
    return true;
}

/* The calling thread's open regions at process exit. */
void ompb__regions_close_own_frames(void)
{
    if (self)
        close_frames(self, "still open at process exit");
}

void ompb__regions_reset(void)
{
    ompb__regions_report_reset();
    pthread_mutex_lock(&global_lock);
    for (thread_state *ts = threads_head; ts; ts = ts->next) {
        ts->depth = 0;
        ts->overflow = 0;
        memset(ts->names, 0, sizeof ts->names);
        free(ts->groups);
        ts->groups = NULL;
        ts->n_groups = 0;
    }
    size_t n = atomic_load(&n_regions);
    for (size_t i = 0; i < n; i++) {
        ompb__region *r = regions[i];
        for (ompb__region_group *g = atomic_load(&r->groups), *next; g; g = next) {
            next = g->next;
            ompb__region_group_free(g);
        }
        free(r->name);
        free(r->display);
        free(r->file);
        free(r);
        regions[i] = NULL;
    }
    for (ompb__region_entry *e = entries_head, *next; e; e = next) {
        next = e->next_all;
        ompb__region_entry_free(e);
    }
    entries_head = entries_tail = NULL;
    n_entries = 0;
    for (size_t i = 0; i < TABLE_SIZE; i++)
        atomic_store(&table[i], NULL);
    atomic_store(&n_regions, 0);
    atomic_store(&ignored_names, 0);
    pthread_mutex_unlock(&global_lock);
}
