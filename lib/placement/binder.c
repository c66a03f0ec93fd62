/* SPDX-License-Identifier: MIT */
/*
 * Binder detection: which of ompbench and the OpenMP runtime binds the team
 * threads, read from --pin and the runtime's variables, and the sentence
 * the run header and --show-plan print about it.
 */
#include "placement/binder.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <omp.h>

/* Variables that make the OpenMP runtime bind its threads: the standard ones,
 * libgomp's (which LLVM libomp also reads) and the LLVM/Intel one. */
static const char *const runtime_vars[] = {
    "OMP_PLACES", "OMP_PROC_BIND", "GOMP_CPU_AFFINITY", "KMP_AFFINITY",
};

#define N_RUNTIME_VARS (sizeof runtime_vars / sizeof runtime_vars[0])

static bool env_set(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] != '\0';
}

/* OMP_PROC_BIND=false (its first item, any case): the runtime binds nothing,
 * whatever OMP_PLACES or GOMP_CPU_AFFINITY say (libgomp, and the spec). */
static bool proc_bind_false(void)
{
    const char *v = getenv("OMP_PROC_BIND");
    if (!v)
        return false;
    v += strspn(v, " \t");
    return strcspn(v, ", \t") == 5 && strncasecmp(v, "false", 5) == 0;
}

static bool runtime_configured(void)
{
    for (size_t i = 0; i < N_RUNTIME_VARS; i++)
        if (env_set(runtime_vars[i]))
            return true;
    return false;
}

static bool runtime_binds(void)
{
    return runtime_configured() && !proc_bind_false();
}

/* The runtime variables that are set, as "OMP_PLACES/OMP_PROC_BIND". */
static void runtime_vars_text(char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_RUNTIME_VARS && pos < len; i++) {
        if (!env_set(runtime_vars[i]))
            continue;
        int w = snprintf(buf + pos, len - pos, "%s%s", pos ? "/" : "", runtime_vars[i]);
        pos += w > 0 ? (size_t)w : 0;
    }
}

/* Who binds and why, the part of ompb__binder_describe after "--pin ...; ". */
static void binder_reason(const ompb__pin_spec *pin, char *buf, size_t len)
{
    char vars[80];
    bool overridden = runtime_binds(), given = ompb__pin_given(pin);
    runtime_vars_text(vars, sizeof vars);
    switch (ompb__binder_for(pin)) {
    case OMPB__BINDER_OURS:
        snprintf(buf, len, "ompbench binds each team thread to one PU at team start (hwloc)%s%s%s",
                 overridden ? "; --pin overrides " : "", overridden ? vars : "",
                 overridden ? " (ompbench binds last)" : "");
        break;
    case OMPB__BINDER_RUNTIME:
        snprintf(buf, len, "%s (%s set); ompbench only observes",
                 given ? "ompbench does not bind, but the OpenMP runtime still does"
                       : "the OpenMP runtime binds", vars);
        break;
    default:
        snprintf(buf, len, "%s", given ? "nobody binds (--pin none): the OS may move threads"
                                       : "nobody binds: OMP_PROC_BIND=false, so the OpenMP "
                                         "runtime binds nothing, and ompbench binds only with "
                                         "--pin; the OS may move threads");
    }
}

/* Appends to buf at *pos, never past len. */
static void append(char *buf, size_t len, size_t *pos, const char *fmt, int v)
{
    if (*pos >= len)
        return;
    int w = snprintf(buf + *pos, len - *pos, fmt, v);
    *pos += w > 0 ? (size_t)w : 0;
}

ompb__binder ompb__binder_for(const ompb__pin_spec *pin)
{
    if (ompb__pin_binds(pin))
        return OMPB__BINDER_OURS;
    if (runtime_binds())
        return OMPB__BINDER_RUNTIME;
    return ompb__pin_given(pin) || proc_bind_false() ? OMPB__BINDER_NONE : OMPB__BINDER_OURS;
}

const char *ompb__binder_name(ompb__binder binder)
{
    switch (binder) {
    case OMPB__BINDER_OURS: return "ompbench";
    case OMPB__BINDER_RUNTIME: return "runtime";
    default: return "none";
    }
}

const char *ompb__binder_policy_name(const ompb__pin_spec *pin)
{
    if (ompb__pin_given(pin))
        return pin->text;
    return runtime_configured() ? "runtime" : ompb__pin_row(NULL)->name;
}

void ompb__binder_describe(const ompb__pin_spec *pin, char *buf, size_t len)
{
    int w = ompb__pin_given(pin) ? snprintf(buf, len, "--pin %s; ", pin->text)
            : runtime_configured() ? snprintf(buf, len, "no --pin; ")
                                   : snprintf(buf, len, "--pin %s (default); ",
                                              ompb__pin_row(NULL)->name);
    if (w > 0 && (size_t)w < len)
        binder_reason(pin, buf + w, len - (size_t)w);
}

void ompb__omp_places_text(char *buf, size_t len)
{
    int places = omp_get_num_places();
    size_t pos = 0;
    buf[0] = '\0';
    if (places <= 0)
        snprintf(buf, len, "none");
    for (int p = 0; p < places; p++) {
        int n = omp_get_place_num_procs(p);
        int *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
        if (ids)
            omp_get_place_proc_ids(p, ids);
        append(buf, len, &pos, p ? ",{" : "{", 0);
        for (int i = 0; ids && i < n; i++)
            append(buf, len, &pos, i ? ",%d" : "%d", ids[i]);
        append(buf, len, &pos, "}", 0);
        free(ids);
    }
}

int ompb__omp_proc_bind(void)
{
    return (int)omp_get_proc_bind();
}

const char *ompb__proc_bind_name(int bind)
{
    switch (bind) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "primary";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    default: return "unknown";
    }
}
