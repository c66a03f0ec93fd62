/* SPDX-License-Identifier: MIT */
/*
 * Pin policies and the --pin value. A policy is one row of the table in
 * lib/placement/pin.c: its name, how messages list it, a parse function for its
 * argument and an order function that lists the PUs team threads take.
 * Adding a policy is one row plus its two functions. The CLI parses --pin
 * once into an ompb__pin_spec; plans (lib/placement/pin_plan.h), the run context and
 * --show-plan read that value and never the text again.
 */
#ifndef OMPB_PIN_H
#define OMPB_PIN_H

#include <stdbool.h>
#include <stddef.h>

#include <ompbench/error.h>

#include "placement/topology.h"

typedef struct ompb__pin_spec ompb__pin_spec;
struct ompb__pin_domain;

/* One pin policy, a row of the table (static storage). */
typedef struct ompb__pin_policy {
    const char *name;    /* --pin name, or its prefix for name:ARG ("cpus") */
    /* Recognizes the row's values when they do not start with its name
     * (domain expressions, "S0:0-7"); the whole value is then the argument.
     * NULL: matched by name. */
    bool (*match)(const char *value);
    const char *syntax;  /* as the accepted values list it, e.g. "cpus:LIST (e.g. cpus:0,2,4-7)" */
    /* Parses the argument: the text after "name:", NULL when value is the
     * bare name. Fills spec's argument fields. Returns 0 or OMPB_EINVAL /
     * OMPB_ENOMEM with err naming value (the whole --pin text). */
    int (*parse)(const char *value, const char *arg, ompb__pin_spec *spec, ompb_error *err);
    /* Writes into order the OS indexes of the PUs team threads take, in
     * thread order, for want threads (1 <= want <= the usable PUs), and sets
     * *n (> 0): threads wrap round-robin over those n. order has room for
     * max(want, spec->n_pus) entries; spec is NULL when --pin was not given.
     * Returns 0 or OMPB_E* with err set. NULL: the policy binds nothing. */
    int (*order)(const ompb__topology *topo, const ompb__pin_spec *spec, int want, int *order,
                 int *n, ompb_error *err);
    const char *brief;   /* as --help lists it, e.g. "cpus:LIST" */
} ompb__pin_policy;

/* The --pin value, parsed once. A zeroed spec (or a NULL pointer wherever
 * a const ompb__pin_spec * is taken) means --pin was not given: then who
 * binds depends on the OpenMP variables (lib/placement/binder.h), and when ompbench
 * binds it does so as the default policy, compact. Owns its memory:
 * ompb__pin_spec_release frees it. */
struct ompb__pin_spec {
    const ompb__pin_policy *policy; /* the row; NULL: --pin not given */
    char *text;                     /* the value as given, e.g. "cpus:0,2"; NULL: not given */
    int *pus;                       /* cpus:LIST: the PUs as written; a domain expression
                                     * (lib/placement/pin_domain.h): every item's indexes in its
                                     * domain, concatenated; else NULL */
    int n_pus;
    struct ompb__pin_domain *domains; /* a domain expression's items, else NULL */
    int n_domains;
};

/* Parses a --pin value into *out (overwritten; released by the caller with
 * ompb__pin_spec_release). Returns 0; OMPB_EINVAL with err naming the value
 * and the accepted ones (ompb__pin_accepted), e.g. "--pin: invalid value
 * 'cpus:3-1': range 3-1 is reversed (accepted: ...)"; or OMPB_ENOMEM.
 * *out is zeroed on failure. */
int ompb__pin_parse(const char *value, ompb__pin_spec *out, ompb_error *err);

/* Frees what spec owns and zeroes it (not given). NULL is fine. */
void ompb__pin_spec_release(ompb__pin_spec *spec);

/* True when --pin was given. */
static inline bool ompb__pin_given(const ompb__pin_spec *pin)
{
    return pin && pin->policy;
}

/* True when --pin was given with a policy that binds (not none). */
static inline bool ompb__pin_binds(const ompb__pin_spec *pin)
{
    return ompb__pin_given(pin) && pin->policy->order;
}

/* The row that orders the threads when ompbench binds for pin: pin's own,
 * or the default (compact) when --pin was not given. */
const ompb__pin_policy *ompb__pin_row(const ompb__pin_spec *pin);

/* The table, in the order messages list it (*n rows). */
const ompb__pin_policy *ompb__pin_policies(size_t *n);

/* "accepted: compact, spread, none, cpus:LIST (e.g. cpus:0,2,4-7)": the
 * rows' syntax in table order, for messages (static string). */
const char *ompb__pin_accepted(void);

#endif
