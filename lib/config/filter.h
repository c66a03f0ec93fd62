/* SPDX-License-Identifier: MIT */
/*
 * Instance-name patterns (--filter): POSIX extended regular expressions,
 * compiled only when their cost is bounded. glibc's regcomp expands a
 * bounded repetition X{m,n} into n copies of X, the optional ones nested,
 * so nested bounds multiply and one large bound costs its square:
 * '((((a{1,100}){1,100}){1,100}){1,100})' takes more than 19 GB,
 * '.{0,20000}' 3 GB and 10 s; optional parts inside bounds chain the
 * epsilon closures of every copy: '(((a?){1,20}){1,20}){1,20}' 1.5 GB. Back-references (a glibc extension to EREs)
 * make matching exponential in the name's length. Both are refused before
 * regcomp runs. Repetitions of parts that can match empty, nested, cost
 * regcomp time exponential in the nesting ('^f*+++++'): a pattern with one
 * is compiled first in a child limited in CPU time.
 */
#ifndef OMPB_FILTER_H
#define OMPB_FILTER_H

#include <regex.h>
#include <stdint.h>

#include <ompbench/error.h>

/* Largest estimated expansion accepted, in units of about 8 bytes of
 * regcomp memory: '(a{1,100}){1,100}' (about 2 million, 13 MB) passes,
 * 'a{1,10000}' (100 million, 790 MB) does not. fuzz/fuzz_options builds
 * with a smaller one: under ASan each accepted pattern near this limit
 * cost seconds and megabytes that the quarantine kept. */
#ifndef OMPB__FILTER_MAX_COST
#define OMPB__FILTER_MAX_COST (UINT64_C(1) << 22)
#endif

/* Deepest nesting accepted of repetitions (*, + or {m,n} with n > 1 or
 * open) of a part that can match empty: glibc's epsilon closures of such
 * loops take time exponential in their depth. Measured (regcomp alone,
 * 2-core KVM EPYC): '^f*++++' (4 deep) 4 ms, '^f*+++++' (5) and
 * '^(f*|g*)++++' (4, two branches) over 10 s; 3 deep with 12 branches
 * 16 ms. */
#define OMPB__FILTER_MAX_LOOPS 3

/* The estimated expansion of pattern (saturating; an upper bound of what
 * glibc builds, within a small factor). Exposed for the tests. */
uint64_t ompb__filter_cost(const char *pattern);

/*
 * Compiles pattern with REG_EXTENDED | REG_NOSUB into *re. Returns 0 (free
 * re with regfree), or OMPB_EINVAL with one line in err naming opt, the
 * pattern and what is accepted: a syntax error, a back-reference, a cost
 * above OMPB__FILTER_MAX_COST or repetitions of parts that can match empty
 * nested deeper than OMPB__FILTER_MAX_LOOPS (then regcomp is never
 * called); a pattern that nests them at all is first compiled in a child
 * limited in CPU time, and refused if it runs out.
 */
int ompb__filter_compile(regex_t *re, const char *pattern, const char *opt, ompb_error *err);

#endif
