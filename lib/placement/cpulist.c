/* SPDX-License-Identifier: MIT */
/*
 * PU list parsing: "0-3,6,9" -> {0, 1, 2, 3, 6, 9} in the order written,
 * with a reason precise enough to fix the list from the message alone.
 */
#include "placement/cpulist.h"

#include <stdio.h>
#include <stdlib.h>

#include <hwloc.h>
#include <ompbench/error.h>

#include "core/core.h"

typedef struct parser {
    const char *p;           /* next character */
    hwloc_bitmap_t seen;
    int **pus;               /* NULL: check only */
    size_t cap;
    int n;
    char *why;
    size_t why_len;
} parser;

/* Reads a decimal PU index at ps->p and advances; -1 when there is none,
 * -2 when it is above OMPB__CPULIST_MAX_INDEX. */
static long read_index(parser *ps)
{
    const char *s = ps->p;
    long v = 0;
    if (*s < '0' || *s > '9')
        return -1;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > OMPB__CPULIST_MAX_INDEX)
            return -2;
        s++;
    }
    ps->p = s;
    return v;
}

static void unexpected(parser *ps, const char *at)
{
    if (*at == '\0')
        snprintf(ps->why, ps->why_len, "a PU number is missing at the end");
    else
        snprintf(ps->why, ps->why_len, "unexpected '%c' (expected a PU number or a range N-M)",
                 *at);
}

/* Appends lo..hi in the order written. */
static int append_range(parser *ps, long lo, long hi)
{
    for (long v = lo; v <= hi; v++) {
        if (hwloc_bitmap_isset(ps->seen, (unsigned)v)) {
            snprintf(ps->why, ps->why_len, "PU %ld is listed twice", v);
            return OMPB_EINVAL;
        }
        if (ps->n >= OMPB__CPULIST_MAX_PUS) {
            snprintf(ps->why, ps->why_len, "more than %d PUs", OMPB__CPULIST_MAX_PUS);
            return OMPB_EINVAL;
        }
        if (hwloc_bitmap_set(ps->seen, (unsigned)v) != 0
            || (ps->pus && !ompb__grow((void **)ps->pus, &ps->cap, (size_t)ps->n + 1,
                                       sizeof **ps->pus, 16))) {
            snprintf(ps->why, ps->why_len, "out of memory");
            return OMPB_ENOMEM;
        }
        if (ps->pus)
            (*ps->pus)[ps->n] = (int)v;
        ps->n++;
    }
    return 0;
}

/* One item "N" or "N-M". */
static int parse_item(parser *ps)
{
    long lo = read_index(ps), hi = lo;
    if (lo >= 0 && *ps->p == '-') {
        ps->p++;
        hi = read_index(ps);
    }
    if (lo == -2 || hi == -2) {
        snprintf(ps->why, ps->why_len, "PU number above %d", OMPB__CPULIST_MAX_INDEX);
        return OMPB_EINVAL;
    }
    if (lo < 0 || hi < 0) {
        unexpected(ps, ps->p);
        return OMPB_EINVAL;
    }
    if (hi < lo) {
        snprintf(ps->why, ps->why_len, "range %ld-%ld is reversed", lo, hi);
        return OMPB_EINVAL;
    }
    return append_range(ps, lo, hi);
}

int ompb__cpulist_parse(const char *text, int **pus, int *n, char *why, size_t why_len)
{
    parser ps = {.p = text, .seen = hwloc_bitmap_alloc(), .pus = pus, .why = why,
                 .why_len = why_len};
    int rc = 0;
    if (pus)
        *pus = NULL;
    if (!ps.seen) {
        snprintf(why, why_len, "out of memory");
        rc = OMPB_ENOMEM;
    }
    while (rc == 0) {
        rc = parse_item(&ps);
        if (rc == 0 && *ps.p == '\0')
            break;
        if (rc == 0 && *ps.p++ != ',') {
            unexpected(&ps, ps.p - 1);
            rc = OMPB_EINVAL;
        }
    }
    hwloc_bitmap_free(ps.seen);
    if (rc != 0 && pus) {
        free(*pus);
        *pus = NULL;
    }
    *n = rc == 0 ? ps.n : 0;
    return rc;
}
