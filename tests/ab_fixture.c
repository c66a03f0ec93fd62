/* SPDX-License-Identifier: MIT */
/*
 * The A/B fixture of benches/ab.sh (docs/performance.md): one benchmark,
 * `slowed`, whose work per iteration is multiplied by the factor in the
 * environment variable OMPB_AB_FACTOR (1 when unset; 1.2 is a 20%
 * slowdown), and unchanged neighbours of other kinds and sizes. A
 * comparison of a run at factor 1 against one at factor F must call
 * `slowed` regressed and every neighbour untouched. The work is a chain of
 * dependent integer steps (each needs the previous result), so its time is
 * proportional to the step count and does not depend on memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ompbench.h>

#define FACTOR_ENV "OMPB_AB_FACTOR"
#define BASE_STEPS 2000      /* ~1-2 us per iteration on the project's machines */
#define SUM_LEN 2048         /* 16 KiB: in L1 on every current core */

/* Steps of `slowed`: BASE_STEPS x the factor, read once before main (the
 * team's threads only read it); a factor that is not a number in (0, 100]
 * stops the program rather than measuring something else. */
static uint64_t slowed_steps = BASE_STEPS;

__attribute__((constructor)) static void read_factor(void)
{
    const char *env = getenv(FACTOR_ENV);
    char *end = NULL;
    if (!env || !*env)
        return;
    double f = strtod(env, &end);
    if (*end || !(f > 0.0 && f <= 100.0)) {
        fprintf(stderr, "ab_fixture: %s: invalid value '%s' (accepted: a number in (0, 100], "
                "e.g. 1.2)\n", FACTOR_ENV, env);
        exit(2);
    }
    slowed_steps = (uint64_t)(BASE_STEPS * f + 0.5);
}

/* n dependent multiply-xorshift steps from x. */
static uint64_t chain(uint64_t x, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        x ^= x >> 29;
    }
    return x;
}

/* OMPB_AB_FIXTURE_CHANGED builds a real change of the body (one more
 * operand: the layout fixtures' "changed code" side). */
#ifdef OMPB_AB_FIXTURE_CHANGED
#define SLOWED_SEED 3
#else
#define SLOWED_SEED 1
#endif

OMPB_BENCH(slowed)
{
    uint64_t n = slowed_steps;
    OMPB_ITER(state) {
        ompb_black_box(chain(ompb_opaque_u64(SLOWED_SEED), ompb_opaque_u64(n)) + SLOWED_SEED);
    }
}

/* Neighbours: the same work unscaled, a tenth and ten times of it. */
OMPB_BENCH(steady_chain, OMPB_ARGS(200, 2000, 20000))
{
    uint64_t n = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        ompb_black_box(chain(ompb_opaque_u64(1), ompb_opaque_u64(n)));
    }
}

static int sum_setup(ompb_state *state)
{
    uint64_t *v = malloc(SUM_LEN * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < SUM_LEN; i++)
        v[i] = i * 7 + 1;
    ompb_set_data(state, v);
    return 0;
}

static void sum_teardown(ompb_state *state)
{
    free(ompb_data(state));
}

/* A memory-reading neighbour: a sum over an array that stays in L1. */
OMPB_BENCH(steady_sum, .setup = sum_setup, .teardown = sum_teardown)
{
    const uint64_t *v = ompb_data(state);
    OMPB_ITER(state) {
        const uint64_t *p = ompb_opaque_ptr((void *)v);
        uint64_t s = 0;
        for (size_t i = 0; i < SUM_LEN; i++)
            s += p[i];
        ompb_black_box(s);
    }
}
