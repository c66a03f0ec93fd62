/* SPDX-License-Identifier: MIT */
/*
 * Pin plans: the policy's PU order (lib/placement/pin.c) wrapped round-robin over the
 * team, with each PU's core, in one allocation; binding goes through the
 * topology (lib/placement/topology.c), one thread at a time.
 */
#include "placement/pin_plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/core.h"

static ompb__pin_plan *plan_alloc(int threads, const char *policy)
{
    size_t arrays = 2 * (size_t)threads * sizeof(int), plen = strlen(policy) + 1;
    ompb__pin_plan *p = calloc(1, sizeof *p + arrays + plen);
    if (!p)
        return NULL;
    p->threads = threads;
    p->pu = (int *)(void *)(p + 1);
    p->core = p->pu + threads;
    char *name = (char *)(p->core + threads);
    memcpy(name, policy, plen);
    p->policy = name;
    for (int t = 0; t < threads; t++)
        p->pu[t] = p->core[t] = -1;
    return p;
}

/* Threads wrap round-robin over the n PUs of the policy's order. */
static int plan_fill(ompb__pin_plan *plan, const ompb__topology *t, const ompb__pin_spec *pin,
                     ompb_error *err)
{
    const ompb__pin_policy *row = ompb__pin_row(pin);
    int usable = ompb__topology_usable_pus(t), n = 0;
    int want = plan->threads < usable ? plan->threads : usable;
    int room = ompb__pin_given(pin) && pin->n_pus > want ? pin->n_pus : want;
    int *order = malloc((size_t)(room > 0 ? room : 1) * sizeof *order);
    if (!order)
        return ompb__error_set(err, OMPB_ENOMEM, "--pin: out of memory");
    int rc = row->order(t, ompb__pin_given(pin) ? pin : NULL, want, order, &n, err);
    if (rc == 0 && n <= 0)
        rc = ompb__error_set(err, OMPB_EIO, "topology: no PU found");
    if (rc == 0) {
        for (int i = 0; i < plan->threads; i++) {
            plan->pu[i] = order[i % n];
            plan->core[i] = ompb__topology_core_of(t, plan->pu[i]);
        }
        plan->oversubscribed = plan->threads > n;
    }
    free(order);
    return rc;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int ompb__pin_plan_new(const ompb__topology *topo, const ompb__pin_spec *pin, int threads,
                       ompb__pin_plan **out, ompb_error *err)
{
    *out = NULL;
    if (threads < 1)
        return ompb__error_set(err, OMPB_EINVAL, "pin plan: invalid thread count %d "
                               "(accepted: 1 or more)", threads);
    ompb__binder binder = ompb__binder_for(pin);
    ompb__pin_plan *plan = plan_alloc(threads, ompb__binder_policy_name(pin));
    if (!plan)
        return ompb__error_set(err, OMPB_ENOMEM, "pin plan: out of memory");
    plan->binder = binder;
    plan->pin_given = ompb__pin_given(pin);
    plan->topo = topo;
    plan->oversubscribed = threads > ompb__topology_usable_pus(topo);
    int rc = binder == OMPB__BINDER_OURS ? plan_fill(plan, topo, pin, err) : 0;
    if (rc != 0) {
        ompb__pin_plan_free(plan);
        return rc;
    }
    *out = plan;
    return 0;
}

void ompb__pin_plan_free(ompb__pin_plan *plan)
{
    free(plan);
}

int ompb__pin_plan_pus(const ompb__pin_plan *plan)
{
    if (plan->binder != OMPB__BINDER_OURS)
        return ompb__topology_usable_pus(plan->topo);
    int *pus = malloc((size_t)plan->threads * sizeof *pus), n = 0;
    if (!pus)
        return plan->threads;
    memcpy(pus, plan->pu, (size_t)plan->threads * sizeof *pus);
    qsort(pus, (size_t)plan->threads, sizeof *pus, cmp_int);
    for (int t = 0; t < plan->threads; t++)
        n += t == 0 || pus[t] != pus[t - 1];
    free(pus);
    return n;
}

int ompb__pin_plan_bind_self(const ompb__pin_plan *plan, int t)
{
    if (!plan || plan->binder != OMPB__BINDER_OURS)
        return 0;
    if (t < 0 || t >= plan->threads || !plan->topo)
        return OMPB_EINVAL;
    return ompb__topology_bind_thread(plan->topo, plan->pu[t]);
}
