/* SPDX-License-Identifier: MIT */
/*
 * A distributed run's ranks before measuring (lib/run/run.h): the messages of
 * rejected input, held on ranks other than 0 so the user reads one; the
 * agreement, one element-wise maximum across the ranks that decides
 * whether and how every rank goes on; and rank 0's record of every rank's
 * pin maps. Without a distribution, every step is the single process's.
 */
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompbench/run.h>

#include "engine/engine.h"
#include "model/model.h"

/* What one rank says before the run and, after the maximum across the
 * ranks, what they all said. Every field is sent so that the element-wise
 * maximum combines it as its comment says. */
typedef struct agreement {
    bool stopped;           /* any rank stops before running */
    int failure;            /* the highest exit status of a rank that failed; 0: none */
    uint64_t hash_max;      /* the largest and smallest run_hash of the ranks (0 for */
    uint64_t hash_min;      /*   one that stops): equal when all would run the same */
    bool rank0_said;        /* rank 0 failed, and printed its message */
    bool would_run;         /* any rank would run */
    int first_early;        /* the lowest rank that stopped early without error; -1: none */
} agreement;

/* Positions in the vector the ranks reduce. */
enum { A_STOPPED, A_FAILURE, A_HASH_MAX, A_HASH_MIN, A_RANK0_SAID, A_WOULD_RUN, A_FIRST_EARLY,
       A_FIELDS };

/* Hashes keep 62 bits, so that a hash and its negation are int64 values. */
#define HASH_MASK ((UINT64_C(1) << 62) - 1)

static void encode(const agreement *a, int ranks, int64_t v[A_FIELDS])
{
    v[A_STOPPED] = a->stopped;
    v[A_FAILURE] = a->failure;
    v[A_HASH_MAX] = (int64_t)a->hash_max;
    v[A_HASH_MIN] = -(int64_t)a->hash_min;          /* the maximum of -h is -(min h) */
    v[A_RANK0_SAID] = a->rank0_said;
    v[A_WOULD_RUN] = a->would_run;
    v[A_FIRST_EARLY] = a->first_early < 0 ? 0 : ranks - a->first_early; /* max: lowest rank */
}

static void decode(const int64_t v[A_FIELDS], int ranks, agreement *a)
{
    a->stopped = v[A_STOPPED] != 0;
    a->failure = (int)v[A_FAILURE];
    a->hash_max = (uint64_t)v[A_HASH_MAX];
    a->hash_min = (uint64_t)-v[A_HASH_MIN];
    a->rank0_said = v[A_RANK0_SAID] != 0;
    a->would_run = v[A_WOULD_RUN] != 0;
    a->first_early = v[A_FIRST_EARLY] ? ranks - (int)v[A_FIRST_EARLY] : -1;
}

/* This rank's say: status is -1 (would run) or its exit status. */
static agreement own_say(int status, uint64_t hash)
{
    int rank = ompb__dist_rank();
    return (agreement){
        .stopped = status >= 0, .failure = status > 0 ? status : 0,
        .hash_max = hash, .hash_min = hash, .rank0_said = rank == 0 && status > 0,
        .would_run = status < 0, .first_early = status == 0 ? rank : -1,
    };
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* What must be the same on every rank: the instances, and the sampling
 * each will be run with (which holds every option that shapes a round). */
static uint64_t run_hash(const ompb__run *r)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    uint32_t reps = r->cfg.repetitions;
    h = fnv1a(h, &reps, sizeof reps);
    for (size_t i = 0; i < r->n_sel; i++) {
        const ompb__instance *inst = &r->sel[i];
        ompb__sampling sp = ompb__sampling_resolve(&r->cfg, inst, false, 0);
        uint64_t v[] = {(uint64_t)inst->threads, (uint64_t)sp.mode, (uint64_t)sp.threads,
                        sp.rounds, sp.sample_size, sp.min_round_ns, sp.warmup_ns, sp.budget_ns,
                        sp.counters ? (uint64_t)sp.counters->n : 0};
        h = fnv1a(h, inst->name, strlen(inst->name) + 1);
        h = fnv1a(h, v, sizeof v);
    }
    return h;
}

int ompb__run_usage_error(ompb__run *r, const ompb_error *err)
{
    if (ompb__dist_rank() != 0)
        snprintf(r->held_error, sizeof r->held_error, "%s: rank %d: %s", r->argv0,
                 ompb__dist_rank(), err->text);
    else
        fprintf(stderr, "%s: %s\n", r->argv0, err->text);
    return OMPB_EXIT_USAGE;
}

void ompb__run_say_held(ompb__run *r)
{
    if (r->held_error[0])
        fprintf(stderr, "%s\n", r->held_error);
    r->held_error[0] = '\0';
}

/* A rank that stopped (bad option: it said why) stops all with its status,
 * a rank that stopped early without error (--list, --help, ...) while
 * others would run stops all with exit 2, and ranks that disagree on what
 * to run stop with one message from rank 0. */
int ompb__run_agree(ompb__run *r, int status)
{
    if (!ompb__dist())
        return status;
    int rank = ompb__dist_rank(), ranks = ompb__dist_ranks();
    agreement own = own_say(status, status < 0 ? run_hash(r) & HASH_MASK : 0), all;
    int64_t v[A_FIELDS];
    encode(&own, ranks, v);
    ompb__dist_max(v, A_FIELDS, 0);
    decode(v, ranks, &all);
    if (!all.rank0_said)
        ompb__run_say_held(r);
    r->held_error[0] = '\0';
    if (all.failure)
        return all.failure;
    if (all.stopped && all.would_run) {
        if (rank == 0)
            fprintf(stderr, "%s: the %d ranks disagree: rank %d stopped early (--list, --help, "
                    "--version and --list-counters print and stop) while others would run "
                    "(accepted: the same options on every rank)\n", r->argv0, ranks,
                    all.first_early);
        return OMPB_EXIT_USAGE;
    }
    if (all.stopped)
        return OMPB_EXIT_OK;
    if (all.hash_max == all.hash_min)
        return -1;
    if (rank == 0)
        fprintf(stderr, "%s: the %d ranks disagree on the instances or on the options that "
                "shape their rounds (accepted: the same binary with the same options on every "
                "rank)\n", r->argv0, ranks);
    return OMPB_EXIT_USAGE;
}

/* In plan order, which is the same on every rank (the instances agree). */
void ompb__run_gather_pin_maps(ompb__run *r)
{
    if (!ompb__dist())
        return;
    for (size_t i = 0; i < r->n_sel; i++) {
        const ompb__pin_plan *p = r->plans[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = r->plans[j]->threads == p->threads;
        if (seen)
            continue;
        int64_t *own = malloc((size_t)p->threads * sizeof *own), *all;
        if (!own) {
            fprintf(stderr, "%s: out of memory\n", r->argv0);
            ompb__dist_abort(OMPB_EXIT_FAILED);
        }
        for (int t = 0; t < p->threads; t++)
            own[t] = p->pu[t];
        ompb__dist_gather_i64(own, (size_t)p->threads, &all);
        if (all)
            ompb__context_set_rank_pus(r->ctx, p->threads, all, ompb__dist_ranks());
        free(own);
        free(all);
    }
}
