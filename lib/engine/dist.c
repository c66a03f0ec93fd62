/* SPDX-License-Identifier: MIT */
/*
 * Distributed runs, the engine's side: the installed distribution and the
 * collective steps built on its three operations. Every step is one
 * element-wise maximum (a minimum is the maximum of the negated values; a
 * broadcast from rank 0 is the maximum when every other rank gives 0), so a
 * round costs one collective to start it and one to agree on its outcome.
 */
#include "engine/dist.h"

#include <stdio.h>
#include <stdlib.h>

#include <ompbench/error.h>
#include <ompbench/run.h>

static ompb_distribution installed;
static bool have;

int ompb_set_distribution(const ompb_distribution *d)
{
    if (!d) {
        have = false;
        return 0;
    }
    if (d->size < 1 || d->rank < 0 || d->rank >= d->size || !d->max_i64 || !d->gather
        || !d->abort)
        return OMPB_EINVAL;
    installed = *d;
    have = true;
    return 0;
}

const ompb_distribution *ompb__dist(void)
{
    return have ? &installed : NULL;
}

int ompb__dist_rank(void)
{
    return have ? installed.rank : 0;
}

int ompb__dist_ranks(void)
{
    return have ? installed.size : 0;
}

double ompb__dist_skew_error_ns(const ompb_distribution *d)
{
    if (!d || !d->clock_offset_error_ns)
        return 0;
    uint64_t first = 0, second = 0;
    for (int k = 0; k < d->size; k++) {
        uint64_t e = d->clock_offset_error_ns[k];
        if (e > first) {
            second = first;
            first = e;
        } else if (e > second) {
            second = e;
        }
    }
    return (double)first + (double)second;
}

_Noreturn void ompb__dist_abort_on(const ompb_distribution *d, int status)
{
    fflush(stdout);
    fflush(stderr);
    if (d)
        d->abort(d->ctx, status);
    exit(status);
}

void ompb__dist_max_on(const ompb_distribution *d, int64_t *v, int n, uint64_t wait_hint_ns)
{
    if (d && d->max_i64(d->ctx, v, n, wait_hint_ns) != 0)
        ompb__dist_abort_on(d, OMPB_EXIT_FAILED);
}

int ompb__dist_gather_on(const ompb_distribution *d, const int64_t *own, size_t n,
                         int64_t **all)
{
    *all = NULL;
    if (!d)
        return 0;
    int64_t *recv = NULL;
    if (d->rank == 0) {
        recv = malloc((n ? n : 1) * (size_t)d->size * sizeof *recv);
        if (!recv) {
            fprintf(stderr, "ompbench: rank 0: out of memory gathering the ranks' rounds\n");
            ompb__dist_abort_on(d, OMPB_EXIT_FAILED);
        }
    }
    if (d->gather(d->ctx, own, n * sizeof *own, recv) != 0)
        ompb__dist_abort_on(d, OMPB_EXIT_FAILED);
    *all = recv;
    return 0;
}

void ompb__dist_round_end(const ompb_distribution *d, ompb__dist_round *r,
                          uint64_t wait_hint_ns)
{
    if (!d)
        return;
    int64_t v[5] = {
        -r->start_rel, r->end_rel, (int64_t)r->busy_ns, r->failed,
        d->rank == 0 ? (int64_t)r->elapsed_ns : 0,
    };
    ompb__dist_max_on(d, v, 5, wait_hint_ns);
    r->start_rel = -v[0];
    r->end_rel = v[1];
    r->busy_ns = (uint64_t)v[2];
    r->failed = v[3] != 0;
    r->elapsed_ns = (uint64_t)v[4];
}

_Noreturn void ompb__dist_abort(int status)
{
    ompb__dist_abort_on(ompb__dist(), status);
}

void ompb__dist_max(int64_t *v, int n, uint64_t wait_hint_ns)
{
    ompb__dist_max_on(ompb__dist(), v, n, wait_hint_ns);
}

int64_t ompb__dist_from_rank0(int64_t v)
{
    int64_t x = ompb__dist_rank() == 0 ? v : 0;
    ompb__dist_max(&x, 1, 0);
    return x;
}

bool ompb__dist_all_equal(uint64_t v)
{
    /* 62 bits keep both the value and its negation in range. */
    int64_t h = (int64_t)(v & ((UINT64_C(1) << 62) - 1));
    int64_t x[2] = {h, -h};
    ompb__dist_max(x, 2, 0);
    return x[0] == -x[1];
}

int ompb__dist_gather_i64(const int64_t *own, size_t n, int64_t **all)
{
    return ompb__dist_gather_on(ompb__dist(), own, n, all);
}

void ompb__dist_order_rounds(uint64_t *start, uint64_t *end, size_t n)
{
    for (size_t r = n; r-- > 1;)
        if (end[r - 1] > start[r]) {
            uint64_t overlap = end[r - 1] - start[r];
            start[r - 1] -= overlap;
            end[r - 1] -= overlap;
        }
}
