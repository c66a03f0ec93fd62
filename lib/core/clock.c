/* SPDX-License-Identifier: MIT */
/*
 * Clock helpers: the cost of a clock read (which sets the calibration floor),
 * process CPU time, and parsing/printing of durations for the command line
 * and the console report.
 */
#include "core/clock.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/error.h>

#define CLOCK_COST_SAMPLES 64
#define CLOCK_COST_READS 64

uint64_t ompb__process_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over batches, so one preemption does not inflate the figure. */
static double measure_clock_cost(void)
{
    double per_read[CLOCK_COST_SAMPLES];
    for (int s = 0; s < CLOCK_COST_SAMPLES; s++) {
        uint64_t t0 = ompb__now_ns(), t1 = t0;
        for (int i = 0; i < CLOCK_COST_READS; i++)
            t1 = ompb__now_ns();
        per_read[s] = (double)(t1 - t0) / CLOCK_COST_READS;
    }
    qsort(per_read, CLOCK_COST_SAMPLES, sizeof per_read[0], cmp_double);
    return per_read[CLOCK_COST_SAMPLES / 2];
}

double ompb__clock_cost_ns(void)
{
    static double cost = -1;
    if (cost < 0)
        cost = measure_clock_cost();
    return cost;
}

/* digits [. digits] [e [+-] digits]: what strtod would read, without its
 * leading blanks, sign, hex, inf and nan. Returns the end, or NULL. */
static const char *scan_number(const char *p)
{
    const char *start = p;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == start)
        return NULL;
    if (*p == '.') {
        const char *frac = ++p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == frac)
            return NULL;
    }
    if (*p == 'e' || *p == 'E') {
        const char *exp = ++p;
        p += *p == '+' || *p == '-';
        const char *digits = p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == digits || p == exp)
            return NULL;
    }
    return p;
}

static locale_t c_numbers(void)
{
    static locale_t c;
    if (!c)
        c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    return c;
}

int ompb__parse_duration(const char *text, uint64_t *ns)
{
    static const struct { const char *suffix; double scale; } units[] = {
        {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9},
    };
    /* Zero needs no unit: "--warmup-time 0" means what it says in any. */
    if (text && strcmp(text, "0") == 0) {
        *ns = 0;
        return 0;
    }
    const char *end = text ? scan_number(text) : NULL;
    if (!end || !c_numbers())
        return OMPB_EINVAL;
    /* The number is well-formed: strtod reads exactly it, in the C locale
     * whatever the program's. */
    double v = strtod_l(text, NULL, c_numbers());
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) != 0)
            continue;
        double total = v * units[i].scale;
        if (!isfinite(total) || total >= 9.2e18) /* llround's range: about 292 years */
            return OMPB_EINVAL;
        *ns = (uint64_t)llround(total);
        return 0;
    }
    return OMPB_EINVAL;
}

void ompb__format_duration(double ns, char *buf, size_t len)
{
    static const struct { double limit, scale; const char *unit; } steps[] = {
        {1e3, 1, "ns"}, {1e6, 1e3, "us"}, {1e9, 1e6, "ms"},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (fabs(ns) < steps[i].limit) {
            snprintf(buf, len, "%.4g %s", ns / steps[i].scale, steps[i].unit);
            return;
        }
    }
    snprintf(buf, len, "%.4g s", ns / 1e9);
}
