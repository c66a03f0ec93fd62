/* SPDX-License-Identifier: MIT */
/*
 * Team widths from the command line and the environment: the --threads
 * list (counts, ranges, max) and the default width, from OMP_NUM_THREADS
 * read as libgomp reads it, else the Slurm task's CPUs, else the OpenMP
 * default. Part of the command line (lib/config/cli.h): every rejected value is
 * one line naming it and what is accepted.
 */
#include "config/cli.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "core/core.h"
#include "placement/placement.h"

#define THREADS_ACCEPTED "N, N,M,... (no repeats), A..B (powers of two plus the ends) or max, with 1 <= N <= " OMPB__STR(OMPB__MAX_THREADS)

/* Digits only: no blanks, no sign, no hex (lib/core/parse.h). */
static int parse_positive_int(const char *text, long max, long *out)
{
    uint64_t v;
    if (ompb__parse_uint(text, 1, (uint64_t)max, &v) != 0)
        return OMPB_EINVAL;
    *out = (long)v;
    return 0;
}

/* A..B: powers of two strictly between, plus both ends. */
static int expand_range(long lo, long hi, int *out, size_t cap, size_t *n)
{
    size_t k = 0;
    out[k++] = (int)lo;
    for (long p = 1; p < hi; p *= 2)
        if (p > lo && k < cap)
            out[k++] = (int)p;
    if (hi != lo && k < cap)
        out[k++] = (int)hi;
    *n = k;
    return 0;
}

int ompb__parse_thread_list(const char *text, int max_threads, int *out, size_t cap,
                            size_t *n, ompb_error *err)
{
    if (strcmp(text, "max") == 0) {
        out[0] = max_threads;
        *n = 1;
        return 0;
    }
    const char *dots = strstr(text, "..");
    if (dots) {
        char lo_s[32];
        long lo, hi;
        size_t len = (size_t)(dots - text);
        if (len >= sizeof lo_s)
            goto bad;
        memcpy(lo_s, text, len);
        lo_s[len] = '\0';
        if (parse_positive_int(lo_s, OMPB__MAX_THREADS, &lo) || parse_positive_int(dots + 2, OMPB__MAX_THREADS, &hi)
            || hi < lo)
            goto bad;
        return expand_range(lo, hi, out, cap, n);
    }
    char buf[512];
    if (strlen(text) >= sizeof buf)
        goto bad;
    strcpy(buf, text);
    size_t k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long v;
        if (parse_positive_int(tok, OMPB__MAX_THREADS, &v) || k == cap)
            goto bad;
        for (size_t j = 0; j < k; j++)
            if (out[j] == (int)v)
                goto bad; /* a repeat would give two instances the same name */
        out[k++] = (int)v;
    }
    if (k == 0 || text[strlen(text) - 1] == ',' || text[0] == ',' || strstr(text, ",,"))
        goto bad;
    *n = k;
    return 0;
bad:
    return ompb__error_set(err, OMPB_EINVAL, "--threads: invalid value '%s' (accepted: %s)",
                           text, THREADS_ACCEPTED);
}

/* One element of OMP_NUM_THREADS as libgomp reads it (checked against
 * libgomp 12 on Debian 12): blanks, an optional '+', decimal digits, a
 * value above zero that fits an unsigned long, blanks. Returns the end. */
static const char *omp_threads_element(const char *p, uint64_t *v)
{
    while (isspace((unsigned char)*p))
        p++;
    p += *p == '+';
    const char *digits = p;
    *v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (*v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return NULL;
        *v = *v * 10 + (uint64_t)(*p - '0');
    }
    if (p == digits || *v == 0)
        return NULL;
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* OMP_NUM_THREADS is a nesting list ("4" or "4,2"): the first level is
 * ours. What libgomp refuses ("4 junk", "2,abc", "4,", "", "0x4") we
 * refuse too, rather than run at a width libgomp itself ignored. */
int ompb__default_threads(int *out, ompb_error *err)
{
    const char *env = getenv("OMP_NUM_THREADS"), *p = env;
    uint64_t first = 0, v;
    if (!env) {
        /* In a Slurm job the team is as wide as the task's CPUs, even when
         * srun did not bind the task to them (--cpu-bind=none). */
        int slurm = ompb__slurm_cpus_per_task();
        if (slurm < 0)
            return ompb__error_set(err, OMPB_EINVAL, "SLURM_CPUS_PER_TASK: invalid value '%s' "
                                   "(accepted: a positive integer up to %d, the default team "
                                   "width in a Slurm job; or set OMP_NUM_THREADS)",
                                   getenv("SLURM_CPUS_PER_TASK"), OMPB__MAX_THREADS);
        *out = slurm > 0 ? slurm : omp_get_max_threads();
        return 0;
    }
    while ((p = omp_threads_element(p, &v)) != NULL) {
        first = first ? first : v;
        if (*p != ',')
            break;
        p++;
    }
    if (!p || *p || first > OMPB__MAX_THREADS)
        return ompb__error_set(err, OMPB_EINVAL,
                               "OMP_NUM_THREADS: invalid value '%s' (accepted: a positive integer up to %d, "
                               "optionally followed by ,N for nested levels)",
                               env, OMPB__MAX_THREADS);
    *out = (int)first;
    return 0;
}
