/* SPDX-License-Identifier: MIT */
/*
 * The regions' table: every name a process uses, in a hash table read
 * without a lock (inserts take the global lock), the shown form and URI
 * file of each, and every (region, team size) entry in creation order.
 * The global lock lives here. A link of the regions' one-way chain above
 * the entries (lib/regions/region_entry.h), below the threads' state.
 */
#include "regions/region_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "core/core.h"

#define TABLE_SIZE (2u * OMPB__REGIONS_MAX)
/* Longest shown form of a refused name (escaped, valid UTF-8), and of
 * the file part of URIs: names and URIs fit the reports' buffers whole. */
#define DISPLAY_CUT 120
#define FILE_CUT 256

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(ompb__region *) table[TABLE_SIZE];
static ompb__region *regions[OMPB__REGIONS_MAX];
static _Atomic size_t n_regions;
static _Atomic uint64_t ignored_names;
static ompb__region_entry *entries_head, *entries_tail;
static uint32_t n_entries;

void ompb__regions_lock(void)
{
    pthread_mutex_lock(&global_lock);
}

void ompb__regions_unlock(void)
{
    pthread_mutex_unlock(&global_lock);
}

/* ---- names ---------------------------------------------------------------- */

static uint64_t hash_name(const char *name)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i <= OMPB_REGION_NAME_MAX && name[i]; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
    return h;
}

static ompb__region *table_find(const char *name, uint64_t h)
{
    for (size_t i = h & (TABLE_SIZE - 1);; i = (i + 1) & (TABLE_SIZE - 1)) {
        ompb__region *r = atomic_load_explicit(&table[i], memory_order_acquire);
        if (!r)
            return NULL;
        if (r->hash == h && ompb__region_name_equal(r, name))
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
    ompb__region *r = ompb__calloc_lines(sizeof *r);
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

ompb__region *ompb__region_find(const char *name, const char *file)
{
    uint64_t h = hash_name(name);
    ompb__region *r = table_find(name, h);
    if (r)
        return r;
    ompb__regions_lock();
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
    ompb__regions_unlock();
    return r;
}

/* ---- entries -------------------------------------------------------------- */

static ompb__region_entry *entry_find(const ompb__region *r, int threads)
{
    for (ompb__region_entry *e = atomic_load_explicit(&r->entries, memory_order_acquire); e;
         e = e->next)
        if (e->threads == threads)
            return e;
    return NULL;
}

ompb__region_entry *ompb__regions_entry_get(ompb__region *r, int threads, const char *file,
                                            int line)
{
    ompb__region_entry *e = entry_find(r, threads);
    if (e)
        return e;
    ompb__regions_lock();
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
    ompb__regions_unlock();
    if (e && r->invalid[0])
        ompb__region_entry_fail(e, "%s (first used at %s:%d); its instances are recorded "
                                "and reported under the escaped name, marked failed: give the "
                                "region a valid name", r->invalid, file ? file : "?", line);
    return e;
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

void ompb__regions_table_reset(void)
{
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
}
