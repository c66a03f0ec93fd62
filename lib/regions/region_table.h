/* SPDX-License-Identifier: MIT */
/*
 * The regions' table (lib/regions/region_table.c): names, their regions, the
 * entries in creation order, and the global lock. Above the entries
 * (lib/regions/region_entry.h) in the regions' one-way chain.
 */
#ifndef OMPB_REGION_TABLE_H
#define OMPB_REGION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regions/region_entry.h"

/* The global lock: name table inserts, group and entry creation, the
 * threads' list, reports. */
void ompb__regions_lock(void);
void ompb__regions_unlock(void);

/* strncmp(r->name, name, OMPB_REGION_NAME_MAX + 1) == 0, inline: names
 * are short, and a call costs more than comparing them. */
static inline bool ompb__region_name_equal(const ompb__region *r, const char *name)
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


/* Finds or adds the region of name (file: the call site of its first
 * use); NULL when the table is full (warned once) or memory ran out. */
ompb__region *ompb__region_find(const char *name, const char *file);

/* The entry of (r, threads), made under the global lock when new. A region
 * with a refused name makes entries that fail from the start (file:line,
 * the call site, for that message). NULL on ENOMEM. */
ompb__region_entry *ompb__regions_entry_get(ompb__region *r, int threads, const char *file,
                                            int line);

/* Every region in first-use order: *n of them (the array stays valid; the
 * table only grows). */
ompb__region *const *ompb__regions_all(size_t *n);
/* Entries in creation order (a list that only grows; read it with the
 * global lock held or after every thread is done). */
ompb__region_entry *ompb__regions_entries(void);
/* Names ignored because the table was full. */
uint64_t ompb__regions_ignored_names(void);

/* Global lock held, no thread inside a region call (tests): frees every
 * region, group and entry. */
void ompb__regions_table_reset(void);

#endif
