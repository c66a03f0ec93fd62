/* SPDX-License-Identifier: MIT */
/*
 * The fixture of tests/integration/marks.sh: one benchmark per mark a run
 * can provoke, beside one that earns none. Built with the project's
 * optimization; marks_fixture_O0.c, linked into the same binary, is built
 * at -O0 (tests/CMakeLists.txt).
 * - `plain`: a short loop; no mark of its own (oversubscribed under
 *   taskset -c 0 at t=2, starved of CPU with a hog on its PU);
 * - `nested`: a harness-team body that opens a parallel region (nested);
 * - `wide`: a caller-team body whose region asks for 2 threads more than T
 *   (team_width).
 */
#include <ompbench.h>

static unsigned spin(unsigned x)
{
    for (int i = 0; i < 64; i++)
        x = x * 1103515245u + 12345u;
    return x;
}

OMPB_BENCH(plain) {
    OMPB_ITER(state) { ompb_black_box(spin((unsigned)ompb_opaque_u64(1))); }
}

static void nested_kernel(void)
{
#pragma omp parallel
    ompb_clobber_memory();
}

OMPB_BENCH(nested) {
    OMPB_ITER(state) { nested_kernel(); }
}

static void wider_kernel(int width)
{
#pragma omp parallel num_threads(width)
    ompb_clobber_memory();
}

OMPB_BENCH(wide, .team = OMPB_TEAM_CALLER) {
    int width = ompb_thread_count(state) + 2;
    OMPB_ITER(state) { wider_kernel(width); }
}
