/* SPDX-License-Identifier: MIT */
/*
 * The C side of the Fortran module (lib/fortran/ompbench.f90): region
 * markers called with Fortran strings, which carry a length instead of a
 * NUL and usually live in a temporary. The region library keeps the
 * pointers it is given (the call site's file for messages, the name's
 * address as a fast "same name as begin" check at end), as C's string
 * literals allow; a temporary buffer would dangle, and two different
 * names built at the same stack address would pass that check. So each
 * distinct name and file is copied once into memory that lives as long
 * as the process (never freed: there are at most as many as the program
 * has distinct region names and files), kept in a hash table, and a
 * thread finds its copies in a small cache of its own, without a lock,
 * after the first use.
 */
#include "fortran/intern.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/region.h>

/* Per-thread cache entries: a program's hot regions (a few names, one or
 * two files) fit; a miss only costs a lock and a list walk. */
#define CACHE_SIZE 16

typedef struct interned {
    struct interned *next;     /* in its bucket */
    uint64_t hash;
    size_t len;
    char *raw;   /* the len bytes as given (inside text's allocation) */
    char text[]; /* the C string (NULs escaped), then raw */
} interned;

typedef struct cached {
    size_t len;
    const interned *s;
} cached;

/* Every copy, by hash: a lookup costs the same whatever the number of
 * names (a list walked per new name made 16,000 names take 12 s). The
 * buckets double when there are more copies than buckets. */
#define BUCKETS_FIRST 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static interned **buckets;
static size_t n_buckets, n_interned;
static _Thread_local cached cache[CACHE_SIZE];
static _Thread_local unsigned next_slot;

/* A Fortran string may hold NUL characters (char(0)), where a C string
 * would end: each becomes the four characters \x00 in the copy, so the
 * name is neither cut nor taken for another ("a"//char(0)//"b" is
 * region a\x00b, not a). */
static size_t escaped_len(const char *text, size_t len)
{
    size_t n = len;
    for (const char *p = text; (p = memchr(p, '\0', len - (size_t)(p - text))) != NULL; p++)
        n += 3;
    return n;
}

static void copy_escaped(char *out, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i]) {
            *out++ = text[i];
        } else {
            memcpy(out, "\\x00", 4);
            out += 4;
        }
    }
    *out = '\0';
}

/* FNV-1a over the Fortran bytes. */
static uint64_t hash_of(const char *text, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    return h;
}

/* Twice the buckets, every copy moved; false (and the table unchanged)
 * when out of memory: it keeps working, with longer chains. Lock held. */
static bool grow(void)
{
    size_t n = n_buckets ? 2 * n_buckets : BUCKETS_FIRST;
    interned **b = calloc(n, sizeof *b);
    if (!b)
        return false;
    for (size_t i = 0; i < n_buckets; i++)
        for (interned *s = buckets[i], *next; s; s = next) {
            next = s->next;
            s->next = b[s->hash & (n - 1)];
            b[s->hash & (n - 1)] = s;
        }
    free(buckets);
    buckets = b;
    n_buckets = n;
    return true;
}

/* The process-wide copy of text[0..len), made on first sight; NULL when
 * out of memory. s->len is the Fortran length (what the caches compare),
 * s->text the escaped C string. */
static const interned *intern_slow(const char *text, size_t len)
{
    uint64_t h = hash_of(text, len);
    pthread_mutex_lock(&lock);
    if (n_interned >= n_buckets && !grow() && !n_buckets) {
        pthread_mutex_unlock(&lock);
        return NULL;
    }
    interned **head = &buckets[h & (n_buckets - 1)], *s = *head;
    while (s && (s->hash != h || s->len != len || memcmp(s->raw, text, len) != 0))
        s = s->next;
    size_t shown = s ? 0 : escaped_len(text, len);
    if (!s && (s = malloc(sizeof *s + len + shown + 1))) {
        s->hash = h;
        s->len = len;
        s->raw = s->text + shown + 1;
        memcpy(s->raw, text, len);
        copy_escaped(s->text, text, len);
        s->next = *head;
        *head = s;
        n_interned++;
    }
    pthread_mutex_unlock(&lock);
    return s;
}

const char *ompb__fortran_intern(const char *text, size_t len)
{
    for (unsigned i = 0; i < CACHE_SIZE; i++)
        if (cache[i].s && cache[i].len == len && memcmp(cache[i].s->raw, text, len) == 0)
            return cache[i].s->text;
    const interned *s = intern_slow(text, len);
    if (!s)
        return NULL;
    cache[next_slot] = (cached){len, s};
    next_slot = (next_slot + 1) % CACHE_SIZE;
    return s->text;
}

/* Out of memory for a name: "" makes the call a misuse of its own (an
 * invalid name) that the report shows, rather than a crash. */
static const char *name_of(const char *text, size_t len)
{
    const char *s = ompb__fortran_intern(text, len);
    return s ? s : "";
}

static const char *file_of(const char *text, size_t len)
{
    const char *s = len ? ompb__fortran_intern(text, len) : NULL;
    return s ? s : "(fortran)";
}

void ompb__fortran_region_begin(const char *name, size_t name_len, const char *file,
                                size_t file_len, int line)
{
    ompb_region_begin_at(name_of(name, name_len), file_of(file, file_len), line);
}

void ompb__fortran_region_end(const char *name, size_t name_len, const char *file,
                              size_t file_len, int line)
{
    ompb_region_end_at(name_of(name, name_len), file_of(file, file_len), line);
}
