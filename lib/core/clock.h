/* SPDX-License-Identifier: MIT */
/*
 * The harness clock: CLOCK_MONOTONIC in nanoseconds, the clock the CodSpeed
 * runner and perf use, so marker timestamps are comparable with theirs.
 */
#ifndef OMPB_CLOCK_H
#define OMPB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ompb__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time used by the whole process so far, in nanoseconds. */
uint64_t ompb__process_cpu_ns(void);

/* Median cost of one ompb__now_ns() call, measured over a few thousand calls
 * at first use and cached. */
double ompb__clock_cost_ns(void);

/* Parses a duration such as "500ms", "2s", "1.5s", "250us", "100ns", "1m",
 * "1e3us": a decimal number (digits, an optional fraction and exponent)
 * and a unit, nothing else; "0" alone is zero. Any other bare number,
 * blanks, a sign, hex, inf and nan are refused: "--max-time 100" is more
 * likely a typo than 100 s. Returns 0 or OMPB_EINVAL. */
int ompb__parse_duration(const char *text, uint64_t *ns);

/* Formats ns with a scaled unit ("12.3 ns", "4.56 us", "7.89 ms", "1.23 s"). */
void ompb__format_duration(double ns, char *buf, size_t len);

#endif
