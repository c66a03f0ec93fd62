/* SPDX-License-Identifier: MIT */
/* Human-readable times and changes for the analysis reports. */
#ifndef OMPB_ANALYSIS_UNITS_H
#define OMPB_ANALYSIS_UNITS_H

#include <stddef.h>

/* Room for any formatted time or change, terminator included. */
#define OMPB__UNIT_TEXT_MAX 32

/* "12.35 ns", "1.235 us", "123.5 ms", "2.000 s": four significant digits in
 * the largest unit that keeps the value >= 1; "-" for NAN. Returns buf. */
char *ompb__format_ns(char *buf, size_t cap, double ns);

/* A fraction as a signed percentage: 0.0532 -> "+5.32%", NAN -> "-". */
char *ompb__format_change(char *buf, size_t cap, double change);

#endif
