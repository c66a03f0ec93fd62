/* SPDX-License-Identifier: MIT */
/*
 * LIKWID-style affinity domain expressions for --pin: "S0:0-7@S1:0-7".
 * Each item names a domain (N the node, S# a socket, M# a NUMA domain, C# a
 * last-level cache group such as an L3 or a CCD) and a list of indexes
 * inside it; items are joined with '@'. Inside a domain the PUs are
 * numbered as LIKWID documents: the first PU of every core (physical cores
 * first), then the second PU of every core (SMT threads), and so on. Domain
 * numbers are the machine's (S1 is the second package even when a cpuset
 * leaves only S1 usable); indexes count only the PUs this process may use.
 */
#ifndef OMPB_PIN_DOMAIN_H
#define OMPB_PIN_DOMAIN_H

#include <stdbool.h>

#include <ompbench/error.h>

#include "placement/pin.h"
#include "placement/topology.h"

/* How messages list the syntax. */
#define OMPB__PIN_DOMAIN_SYNTAX "S<n>:LIST, M<n>:LIST, C<n>:LIST or N:LIST joined with @ " \
    "(LIKWID domains, e.g. S0:0-7@S1:0-7)"

/* One item of an expression: its indexes are spec->pus[first .. first+count). */
struct ompb__pin_domain {
    char kind;   /* 'N', 'S', 'M' or 'C' */
    int number;  /* the domain's number (0 for N) */
    int first, count;
};

/* Whether value is written as a domain expression (starts "N:", "S<digit>",
 * "M<digit>" or "C<digit>"): the pin table's match for the row. */
bool ompb__pin_domain_match(const char *value);

/* The pin table's parse function for the row: fills spec->domains,
 * spec->n_domains, spec->pus (every item's indexes, concatenated) and
 * spec->n_pus. arg is the whole value. Returns 0, OMPB_EINVAL with err
 * naming the value, the bad item and the accepted syntax, or OMPB_ENOMEM. */
int ompb__pin_domain_parse(const char *value, const char *arg, ompb__pin_spec *spec,
                           ompb_error *err);

/* The pin table's order function for the row: the PUs of the items in the
 * order written (want is ignored: threads wrap over the whole list). Returns
 * 0, or OMPB_EINVAL naming the value when a domain does not exist, has no
 * usable PU, or an index is past its usable PUs. */
int ompb__pin_domain_order(const ompb__topology *topo, const ompb__pin_spec *spec, int want,
                           int *order, int *n, ompb_error *err);

#endif
