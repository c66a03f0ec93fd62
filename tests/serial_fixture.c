/* SPDX-License-Identifier: MIT */
/*
 * A body of declared serial fraction, for integration/serial_fraction.sh:
 * each iteration is UNITS units of the same arithmetic, of which a share
 * S / 1000 (S the argument) runs on one thread (`omp single`: the others
 * wait at its barrier) and the rest is split evenly over the team. Its
 * time at T threads is then (S/1000 + (1 - S/1000) / T) of its time at one
 * thread, plus a barrier: Amdahl's law with serial fraction S/1000. An
 * iteration is about 0.2 ms here, so a barrier (about 0.4 us at T = 2) is
 * far below the spread that the fitted interval reflects.
 */
#include <stdint.h>

#include <ompbench.h>

#define UNITS 2000

/* One unit: a dependent chain of 64 multiply-adds (no memory traffic, so
 * two threads do not slow each other down through a shared cache). */
static uint64_t work(uint64_t x, int units)
{
    for (int u = 0; u < units; u++)
        for (int i = 0; i < 64; i++)
            x = x * 6364136223846793005u + 1442695040888963407u;
    return x;
}

OMPB_BENCH(serial_share, OMPB_ARGS(250), OMPB_THREADS(1, 2)) {
    int serial = UNITS * (int)ompb_arg(state) / 1000, parallel = UNITS - serial;
    int t = ompb_thread_index(state), T = ompb_thread_count(state);
    int mine = parallel * (t + 1) / T - parallel * t / T;
    uint64_t seed = ompb_opaque_u64(7);
    OMPB_ITER(state) {
#pragma omp single
        ompb_black_box(work(seed, serial));
        ompb_black_box(work(seed + 1, mine));
    }
}
