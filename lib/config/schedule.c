/* SPDX-License-Identifier: MIT */
/*
 * Run order of the (instance, repetition) slots: a shuffled round-robin
 * driven by SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom
 * number generators", OOPSLA 2014), whose one 64-bit word of state makes a
 * seed easy to print and replay, and Fisher-Yates shuffles with unbiased
 * bounded draws (rejection of the short last interval).
 */
#include "config/schedule.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ompbench/error.h>

/* The golden-ratio increment of SplitMix64. */
#define SPLITMIX_GAMMA UINT64_C(0x9e3779b97f4a7c15)

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += SPLITMIX_GAMMA);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [0, bound), bound >= 1, without modulo bias. */
static uint64_t bounded(uint64_t *state, uint64_t bound)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do
        r = splitmix64(state);
    while (r >= limit);
    return r % bound;
}

static void shuffle(uint32_t *v, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)bounded(state, i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

uint32_t ompb__schedule_share(uint32_t repetitions, uint32_t processes, uint32_t k)
{
    if (processes == 0 || k >= repetitions)
        return 0;
    return (repetitions - k + processes - 1) / processes;
}

int ompb__schedule_make(const ompb__schedule_spec *spec, ompb__slot **slots, size_t *n)
{
    uint32_t share = ompb__schedule_share(spec->repetitions, spec->processes, spec->process);
    size_t total = spec->instances * share;
    ompb__slot *out = malloc((total ? total : 1) * sizeof *out);
    uint32_t *order = malloc((spec->instances ? spec->instances : 1) * sizeof *order);
    if (!out || !order) {
        free(out);
        free(order);
        return OMPB_ENOMEM;
    }
    uint64_t state = spec->seed;
    bool shuffled = spec->interleave && spec->repetitions > 1;
    size_t k = 0;
    if (spec->interleave) {
        for (uint32_t pass = 0; pass < share; pass++) {
            for (size_t i = 0; i < spec->instances; i++)
                order[i] = (uint32_t)i;
            if (shuffled)
                shuffle(order, spec->instances, &state);
            for (size_t i = 0; i < spec->instances; i++)
                out[k++] = (ompb__slot){order[i], spec->process + pass * spec->processes};
        }
    } else {
        for (size_t i = 0; i < spec->instances; i++)
            for (uint32_t pass = 0; pass < share; pass++)
                out[k++] = (ompb__slot){(uint32_t)i, spec->process + pass * spec->processes};
    }
    free(order);
    *slots = out;
    *n = total;
    return 0;
}

uint64_t ompb__seed_from_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t state = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
    state ^= (uint64_t)getpid() << 32;
    return splitmix64(&state);
}

uint64_t ompb__seed_for_process(uint64_t seed, uint32_t k)
{
    if (k == 0)
        return seed;
    uint64_t state = seed ^ ((uint64_t)k * UINT64_C(0xd1b54a32d192ed03));
    return splitmix64(&state);
}
