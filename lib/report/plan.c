/* SPDX-License-Identifier: MIT */
/*
 * The --show-plan preview, rendered from the topology summary, the --pin
 * value and the plans; nothing is bound or measured.
 */
#include "report/plan.h"

#include <stdlib.h>
#include <string.h>

#include "placement/placement.h"

static void print_summary(FILE *out, const ompb__topology *topo)
{
    ompb__topology_summary s;
    ompb__topology_summarize(topo, &s);
    fprintf(out, "topology: %d package%s, %d NUMA node%s, %d core%s, %d PU%s%s\n",
            s.packages, ompb__plural(s.packages), s.numa_nodes, ompb__plural(s.numa_nodes),
            s.cores, ompb__plural(s.cores), s.pus, ompb__plural(s.pus),
            s.this_system ? "" : " (not this machine: synthetic or XML, nothing is bound)");
    fprintf(out, "usable:   %d core%s, %d PU%s (cpuset %s)\n", s.usable_cores,
            ompb__plural(s.usable_cores), s.usable_pus, ompb__plural(s.usable_pus),
            s.usable_cpuset);
}

static const char *env_or_unset(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : "(unset)";
}

static void print_binder(FILE *out, const ompb__topology *topo, const ompb__pin_spec *pin)
{
    char text[OMPB__PLACEMENT_TEXT_MAX], places[OMPB__PLACES_TEXT_MAX];
    ompb__topology_summary s;
    ompb__binder_describe(pin, text, sizeof text);
    fprintf(out, "pin:      %s\n", text);
    if (ompb__binder_for(pin) != OMPB__BINDER_RUNTIME)
        return;
    ompb__topology_summarize(topo, &s);
    if (!s.this_system) {
        /* The runtime's places are this machine's PUs, not the previewed
         * machine's: showing them would describe the wrong machine. */
        fprintf(out, "places:   OMP_PLACES=%s OMP_PROC_BIND=%s (the OpenMP runtime applies "
                "them to this machine, not to the previewed topology)\n",
                env_or_unset("OMP_PLACES"), env_or_unset("OMP_PROC_BIND"));
        return;
    }
    ompb__omp_places_text(places, sizeof places);
    fprintf(out, "places:   %s (proc_bind %s)\n", places,
            ompb__proc_bind_name(ompb__omp_proc_bind()));
}

/* A caller team's thread t is thread t of the regions the code opens, the
 * caller being thread 0; the plan is applied to the runtime's own threads. */
static void print_map(FILE *out, const ompb__pin_plan *plan, bool caller_team)
{
    if (plan->binder != OMPB__BINDER_OURS) {
        fprintf(out, "%s", plan->binder == OMPB__BINDER_RUNTIME ? "decided by the OpenMP runtime"
                                                                : "not bound");
    }
    for (int t = 0; plan->binder == OMPB__BINDER_OURS && t < plan->threads; t++) {
        fprintf(out, "%st%d->PU%d", t ? " " : "", t, plan->pu[t]);
        if (plan->core[t] >= 0)
            fprintf(out, "/core%d", plan->core[t]);
    }
    if (plan->oversubscribed)
        fprintf(out, "  [oversubscribed: %d threads on %d PU%s]", plan->threads,
                ompb__pin_plan_pus(plan), ompb__plural(ompb__pin_plan_pus(plan)));
    if (caller_team)
        fputs("  [caller team: t0 is the caller]", out);
    fputc('\n', out);
}

void ompb__report_plan(FILE *out, const ompb__topology *topo, const ompb__pin_spec *pin,
                       const ompb__instance *inst, ompb__pin_plan *const *plans, size_t n)
{
    int width = 8;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(inst[i].name) > width)
            width = (int)strlen(inst[i].name);
    print_summary(out, topo);
    print_binder(out, topo, pin);
    fprintf(out, "%-*s  %3s  %s\n", width, "instance", "T", "thread->PU/core");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%-*s  %3d  ", width, inst[i].name, inst[i].threads);
        print_map(out, plans[i], inst[i].bench && inst[i].bench->team == OMPB_TEAM_CALLER);
    }
}
