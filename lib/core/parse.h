/* SPDX-License-Identifier: MIT */
/*
 * Strict numbers from the command line and the environment. strtol and
 * friends accept leading blanks, a sign, hex with base 0, and stop at the
 * first junk; a value that reaches the harness through any of those is a
 * typo the user should hear about, so these accept decimal digits only.
 */
#ifndef OMPB_PARSE_H
#define OMPB_PARSE_H

#include <stdint.h>

/* text is one or more decimal digits (nothing else) with a value in
 * [min, max]: 0 and *out set; OMPB_EINVAL otherwise (*out untouched). */
int ompb__parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out);

#endif
