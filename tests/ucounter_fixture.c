/* SPDX-License-Identifier: MIT */
/*
 * The fixture of tests/integration/user_counters.sh: one benchmark per
 * ompb_counter flag, each with a figure the script can predict exactly
 * (rates from the reported makespans), and one that passes a name the
 * reports already use, which must fail its instance and no other.
 * - `lookups`: every thread adds 3 per iteration, OMPB_COUNTER_RATE;
 * - `per_item`: every thread adds 2 per iteration, _PER_ITERATION (2);
 * - `per_thread`: thread t adds 10 (t + 1) once a round, _AVG_THREADS
 *   (at T = 2: 15);
 * - `total`: every thread adds 7 once a round, the sum (at T = 2: 14);
 * - `caller`: a caller team (OMPB_TEAM_CALLER): the caller adds 5 a round,
 *   _AVG_THREADS over its one timed thread (5 at any T);
 * - `reserved`: ompb_counter(state, "real_time", ...).
 */
#include <ompbench.h>

static unsigned spin(unsigned x)
{
    for (int i = 0; i < 32; i++)
        x = x * 1103515245u + 12345u;
    return x;
}

OMPB_BENCH(lookups) {
    OMPB_ITER(state) {
        ompb_black_box(spin((unsigned)ompb_opaque_u64(1)));
        ompb_counter(state, "lookups", 3, OMPB_COUNTER_RATE);
    }
}

OMPB_BENCH(per_item) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(2))); }
    ompb_counter(state, "items", 2.0 * (double)ompb_sample_size(state),
                 OMPB_COUNTER_PER_ITERATION);
}

OMPB_BENCH(per_thread) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(3))); }
    ompb_counter(state, "per_thread", 10.0 * (ompb_thread_index(state) + 1),
                 OMPB_COUNTER_AVG_THREADS);
}

OMPB_BENCH(total) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(4))); }
    ompb_counter(state, "total", 7, OMPB_COUNTER_SUM);
}

OMPB_BENCH(caller, .team = OMPB_TEAM_CALLER) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(6))); }
    ompb_counter(state, "caller_avg", 5, OMPB_COUNTER_AVG_THREADS);
}

OMPB_BENCH(reserved) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(5))); }
    ompb_counter(state, "real_time", 1, 0);
}
