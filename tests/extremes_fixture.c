/* SPDX-License-Identifier: MIT */
/*
 * The fixture of tests/integration/counter_extremes.sh (issue 30, item 4,
 * defect 3): user counters at the edge of a double, whose figures must
 * come back from every file exactly.
 * - `huge`: thread 0 adds DBL_MAX once a round (the sum);
 * - `tiny`: thread 0 adds the smallest subnormal and 0.1 once a round;
 * - `huge_rate`: thread 0 adds 1e300 once a round as OMPB_COUNTER_RATE,
 *   whose rate (1e300 over a round far shorter than a second, times 1e9)
 *   exceeds DBL_MAX;
 * - `clash`: a user counter named task-clock (counter_name_clash.sh).
 */
#include <float.h>

#include <ompbench.h>

static unsigned spin(unsigned x)
{
    for (int i = 0; i < 32; i++)
        x = x * 1103515245u + 12345u;
    return x;
}

OMPB_BENCH(huge) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(1))); }
    if (ompb_thread_index(state) == 0)
        ompb_counter(state, "huge", DBL_MAX, OMPB_COUNTER_SUM);
}

OMPB_BENCH(tiny) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(2))); }
    if (ompb_thread_index(state) == 0) {
        ompb_counter(state, "subnormal", 4.9406564584124654e-324, OMPB_COUNTER_SUM);
        ompb_counter(state, "tenth", 0.1, OMPB_COUNTER_SUM);
    }
}

OMPB_BENCH(huge_rate) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(3))); }
    if (ompb_thread_index(state) == 0)
        ompb_counter(state, "big_rate", 1e300, OMPB_COUNTER_RATE);
}

/* A user counter with the name of a --counters event (defect 9,
 * integration/counter_name_clash.sh): refused when the run counts
 * task-clock, an ordinary counter otherwise. */
OMPB_BENCH(clash) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(4))); }
    ompb_counter(state, "task-clock", 1, OMPB_COUNTER_SUM);
}
