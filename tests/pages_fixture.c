/* SPDX-License-Identifier: MIT */
/*
 * The fixture of tests/integration/pages_check.sh: a STREAM triad whose
 * threads each write their share of the arrays in .thread_setup (first
 * touch) and declare it with ompb_declare_buffer. With
 * $OMPB_PAGES_FIXTURE_UNTOUCHED set they declare their shares without
 * writing them first, as code that leaves first touch to the timed loop
 * would: the check must say so on any machine, one NUMA node or many.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <ompbench.h>

#define N_PER_THREAD (1 << 16)   /* doubles per thread and array: 512 KB */

typedef struct arrays {
    double *a, *b, *c;
} arrays;

static int triad_setup(ompb_state *s)
{
    static arrays arr;
    size_t bytes = (size_t)ompb_thread_count(s) * N_PER_THREAD * sizeof(double);
    /* Page-aligned and untouched: the threads place the pages. */
    if (posix_memalign((void **)&arr.a, 4096, bytes) != 0
        || posix_memalign((void **)&arr.b, 4096, bytes) != 0
        || posix_memalign((void **)&arr.c, 4096, bytes) != 0)
        return -1;
    ompb_set_data(s, &arr);
    return 0;
}

static void triad_teardown(ompb_state *s)
{
    arrays *arr = ompb_data(s);
    free(arr->a);
    free(arr->b);
    free(arr->c);
}

static int triad_thread_setup(ompb_state *s)
{
    arrays *arr = ompb_data(s);
    size_t first = (size_t)ompb_thread_index(s) * N_PER_THREAD;
    size_t bytes = N_PER_THREAD * sizeof(double);
    double *share[3] = {arr->a + first, arr->b + first, arr->c + first};
    for (int k = 0; k < 3; k++) {
        if (!getenv("OMPB_PAGES_FIXTURE_UNTOUCHED"))
            memset(share[k], 0, bytes);
        if (ompb_declare_buffer(s, share[k], bytes) != 0)
            return -1;
    }
    return 0;
}

OMPB_BENCH(triad, OMPB_THREADS(1, 2), .setup = triad_setup, .teardown = triad_teardown,
           .thread_setup = triad_thread_setup)
{
    arrays *arr = ompb_data(state);
    size_t first = (size_t)ompb_thread_index(state) * N_PER_THREAD;
    ompb_set_bytes(state, 3 * N_PER_THREAD * sizeof(double));
    OMPB_ITER(state) {
        for (size_t i = first; i < first + N_PER_THREAD; i++)
            arr->a[i] = arr->b[i] + 3.0 * arr->c[i];
        ompb_clobber_memory();
    }
}
