/* SPDX-License-Identifier: MIT */
/*
 * The example suite: one benchmark per way of using the API, over the plain
 * algorithms of algorithms.c (whose results tests/test_examples.c checks).
 * Serial examples run at the default round width, every thread doing the
 * same work on its own data; the parallel ones (thread_example, stream_triad,
 * false_sharing_*) split work between the threads of a round or make their
 * interaction visible; triad_parallel_for is a caller team, an OpenMP
 * function that forks its own team. Loop-invariant inputs go through ompb_opaque_* and
 * results through ompb_black_box, so the compiler can neither hoist the work
 * out of the timed loop nor drop it. `make bench` runs the whole suite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#include <ompbench.h>

#include "algorithms.h"

#define SUM_FOLD_LEN 1024
#define BUILD_VEC_LEN 1000
#define REM_LEN 1000
#define REM_DIVISOR 7
#define SORT_LEN 4096         /* 32 KiB per input of iter_batched_large_input */
#define MANUAL_FIB_N 30
#define GREETING_VAR "MY_ENV_VAR"
#define COMBO_BUF 4096        /* bytes: C(9, 4) * 4 = 504 for the example */
#define PERM_BUF 4096         /* bytes: 3! * 3 = 18 for the example */
#define THREAD_EXAMPLE_LEN (1u << 20) /* 8 MiB of uint64_t, a quarter per worker */
#define TRIAD_LEN (1u << 22)  /* doubles per array: 32 MiB each, far above the caches */
#define TRIAD_SCALAR 3.0
#define COUNT_UP_N 10000      /* increments per thread per iteration */

/* ---- Setup helpers ----------------------------------------------------------- */

/* A read-only array of n uint64_t holding 1..n, shared by the team. */
typedef struct u64_array {
    uint64_t *v;
    size_t n;
} u64_array;

static int array_setup(ompb_state *state, size_t n)
{
    u64_array *arr = malloc(sizeof *arr);
    uint64_t *v = malloc(n * sizeof *v);
    if (!arr || !v) {
        free(arr);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = i + 1;
    *arr = (u64_array){v, n};
    ompb_set_data(state, arr);
    return 0;
}

static void array_teardown(ompb_state *state)
{
    u64_array *arr = ompb_data(state);
    if (arr)
        free(arr->v);
    free(arr);
}

/* ---- Bits and integers --------------------------------------------------------- */

OMPB_BENCH(count_set_bits, OMPB_ARGS(0, 42, 255, 1024, 65535))
{
    uint64_t x = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        ompb_black_box(ex_count_set_bits(ompb_opaque_u64(x)));
    }
}

OMPB_BENCH(add_two_integers,
           OMPB_TUPLES(2, {0, 0}, {42, 13}, {255, 255}, {1024, -1024}, {65535, -65535}))
{
    int64_t a = ompb_arg_at(state, 0), b = ompb_arg_at(state, 1);
    OMPB_ITER(state) {
        ompb_black_box(ex_add(ompb_opaque_i64(a), ompb_opaque_i64(b)));
    }
}

OMPB_BENCH(find_highest_set_bit, OMPB_ARGS(0, 42, 255, 1024, 65535))
{
    uint64_t x = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        ompb_black_box(ex_highest_set_bit(ompb_opaque_u64(x)));
    }
}

/* ---- Fibonacci ------------------------------------------------------------------ */

OMPB_BENCH(fibonacci_recursive, OMPB_ARGS(0, 5, 10, 20))
{
    uint64_t n = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        ompb_black_box(ex_fib_recursive((unsigned)ompb_opaque_u64(n)));
    }
}

OMPB_BENCH(fibonacci_iterative, OMPB_ARGS(0, 5, 10, 20))
{
    uint64_t n = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        ompb_black_box(ex_fib_iterative((unsigned)ompb_opaque_u64(n)));
    }
}

/* Each iteration builds and frees its own memo, so the map's allocations and
 * lookups are what the hash map and tree map variants compare. */
OMPB_BENCH(recursive_memoized_hashmap, OMPB_ARGS(0, 5, 10))
{
    uint64_t n = (uint64_t)ompb_arg(state), fib;
    OMPB_ITER(state) {
        ompb_black_box(ex_fib_memo_hashmap((unsigned)ompb_opaque_u64(n), &fib));
        ompb_black_box(fib);
    }
}

OMPB_BENCH(recursive_memoized_treemap, OMPB_ARGS(0, 5, 10))
{
    uint64_t n = (uint64_t)ompb_arg(state), fib;
    OMPB_ITER(state) {
        ompb_black_box(ex_fib_memo_treemap((unsigned)ompb_opaque_u64(n), &fib));
        ompb_black_box(fib);
    }
}

/* ---- Backtracking ---------------------------------------------------------------- */

OMPB_BENCH(n_queens_solver, OMPB_ARGS(4, 5, 6))
{
    uint64_t n = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        ompb_black_box(ex_n_queens((int)ompb_opaque_u64(n)));
    }
}

/* The argument is the number of colors for the Petersen graph. */
OMPB_BENCH(graph_coloring, OMPB_ARGS(4, 5))
{
    uint64_t k = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        ompb_black_box(ex_graph_coloring((int)ompb_opaque_u64(k)));
    }
}

/* Arguments are fixed at compile time, but the bodies below size stack
 * buffers by their limits: an out-of-range argument fails the instance. */
static int check_arg(ompb_state *state, int64_t lo, int64_t hi)
{
    int64_t arg = ompb_arg(state);
    if (arg >= lo && arg <= hi)
        return 0;
    fprintf(stderr, "%s: argument %lld is outside [%lld, %lld]\n", ompb_instance_name(state),
            (long long)arg, (long long)lo, (long long)hi);
    return -1;
}

static int knight_tour_setup(ompb_state *state)
{
    return check_arg(state, 1, EX_KNIGHT_MAX);
}

OMPB_BENCH(knight_tour, OMPB_ARGS(5), .setup = knight_tour_setup)
{
    int n = (int)ompb_arg(state), board[EX_KNIGHT_MAX * EX_KNIGHT_MAX];
    OMPB_ITER(state) {
        ompb_black_box(ex_knight_tour((int)ompb_opaque_u64((uint64_t)n), board));
        ompb_black_box_ptr(board);
    }
}

static int subset_sum_setup(ompb_state *state)
{
    return check_arg(state, 0, EX_SUBSET_MAX);
}

/* The argument is the size of the fixed pseudo-random set; the target is
 * about half its sum (algorithms.h). */
OMPB_BENCH(subset_sum, OMPB_ARGS(10, 18), .setup = subset_sum_setup)
{
    uint32_t set[EX_SUBSET_MAX];
    uint64_t target;
    int n = (int)ompb_arg(state);
    ex_subset_sum_input(n, set, &target);
    OMPB_ITER(state) {
        ompb_black_box(ex_subset_sum_count(ompb_opaque_ptr(set), n,
                                                 ompb_opaque_u64(target)));
    }
}

/* All C(n, n/2) combinations of n items, written out in lexicographic order. */
OMPB_BENCH(generate_combinations, OMPB_ARGS(9))
{
    uint8_t out[COMBO_BUF];
    uint64_t n = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        int items = (int)ompb_opaque_u64(n);
        ompb_black_box(ex_combinations(items, items / 2, out, sizeof out));
        ompb_black_box_ptr(out);
    }
}

OMPB_BENCH(permutations, OMPB_ARGS(3))
{
    uint8_t out[PERM_BUF];
    uint64_t n = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        ompb_black_box(ex_permutations((int)ompb_opaque_u64(n), out, sizeof out));
        ompb_black_box_ptr(out);
    }
}

/* Counts the Hamiltonian cycles of the n x n grid graph. */
OMPB_BENCH(hamiltonian_cycle, OMPB_ARGS(4))
{
    uint64_t n = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        ompb_black_box(ex_hamiltonian_cycles((int)ompb_opaque_u64(n)));
    }
}

/* ---- Loops and memory ------------------------------------------------------------- */

static int sum_fold_setup(ompb_state *state)
{
    return array_setup(state, SUM_FOLD_LEN);
}

OMPB_BENCH(sum_fold, .setup = sum_fold_setup, .teardown = array_teardown)
{
    const u64_array *arr = ompb_data(state);
    OMPB_ITER(state) {
        ompb_black_box(ex_sum_fold(ompb_opaque_ptr(arr->v), arr->n));
    }
}

/* Growing a vector by pushes: the reallocations are the work. */
OMPB_BENCH(build_vec)
{
    OMPB_ITER(state) {
        ex_vec vec;
        if (ex_build_vec(ompb_opaque_u64(BUILD_VEC_LEN), &vec) == 0) {
            ompb_black_box_ptr(vec.data);
            free(vec.data);
        }
    }
}

/* A thousand hardware divisions by a divisor the compiler cannot see. */
OMPB_BENCH(rem)
{
    OMPB_ITER(state) {
        ompb_black_box(ex_rem_sum(REM_LEN, ompb_opaque_u64(REM_DIVISOR)));
    }
}

/* iter_batched: sorting consumes its input, so every iteration needs a fresh
 * unsorted array. batch_setup makes one per iteration of the coming round,
 * outside the timed window; iteration i sorts input i. */
static void sort_inputs_setup(ompb_state *state)
{
    uint64_t count = ompb_sample_size(state);
    if (count > SIZE_MAX / (SORT_LEN * sizeof(uint64_t))) {
        fprintf(stderr, "iter_batched_large_input: sample size %llu is too large\n",
                (unsigned long long)count);
        abort();
    }
    uint64_t *inputs = malloc((size_t)count * SORT_LEN * sizeof *inputs);
    if (!inputs && count) {
        fprintf(stderr, "iter_batched_large_input: out of memory for %llu inputs\n",
                (unsigned long long)count);
        abort(); /* batch_setup cannot fail an instance, and the loop needs the inputs */
    }
    for (uint64_t i = 0; i < count; i++)
        ex_fill_random(inputs + i * SORT_LEN, SORT_LEN, i + 1);
    ompb_set_thread_data(state, inputs);
}

static void sort_inputs_teardown(ompb_state *state)
{
    free(ompb_thread_data(state));
    ompb_set_thread_data(state, NULL);
}

OMPB_BENCH(iter_batched_large_input, .batch_setup = sort_inputs_setup,
           .batch_teardown = sort_inputs_teardown)
{
    uint64_t *inputs = ompb_thread_data(state);
    OMPB_ITER_INDEXED(state, i) {
        ex_heapsort(inputs + i * SORT_LEN, SORT_LEN);
        ompb_black_box_ptr(inputs + i * SORT_LEN);
    }
}

/* A hand-written timed loop instead of OMPB_ITER. */
OMPB_BENCH(iter_manual_simple)
{
    uint64_t n = ompb_iter_begin(state);
    for (uint64_t i = 0; i < n; i++)
        ompb_black_box(ex_fib_iterative((unsigned)ompb_opaque_u64(MANUAL_FIB_N)));
    ompb_iter_end(state);
}

/* print_env_hello measures reading an environment variable and printing a
 * greeting with it through stdio: formatting plus the buffered write, whose
 * write(2) to /dev/null comes once per buffer, not per line. Each thread has
 * its own stream so that no stdio lock is shared, and /dev/null keeps the
 * greetings out of the report on stdout. */
typedef struct greeting_streams {
    FILE **out;
    int n;
} greeting_streams;

static void greeting_teardown(ompb_state *state)
{
    greeting_streams *gs = ompb_data(state);
    if (!gs)
        return;
    for (int t = 0; t < gs->n; t++)
        if (gs->out[t])
            fclose(gs->out[t]);
    free(gs->out);
    free(gs);
}

/* On failure it cleans up itself and leaves no data, so teardown is a no-op
 * whether or not the harness calls it after a failed setup. */
static int greeting_setup(ompb_state *state)
{
    int nthreads = ompb_thread_count(state), opened = 0;
    greeting_streams *gs = calloc(1, sizeof *gs);
    ompb_set_data(state, gs);
    if (gs && (gs->out = calloc((size_t)nthreads, sizeof *gs->out))) {
        gs->n = nthreads;
        while (opened < nthreads && (gs->out[opened] = fopen("/dev/null", "w")))
            opened++;
    }
    if (gs && opened == nthreads)
        return 0;
    greeting_teardown(state);
    ompb_set_data(state, NULL);
    return -1;
}

OMPB_BENCH(print_env_hello, .setup = greeting_setup, .teardown = greeting_teardown)
{
    const greeting_streams *gs = ompb_data(state);
    FILE *out = gs->out[ompb_thread_index(state)];
    OMPB_ITER(state) {
        ompb_black_box(ex_print_greeting(out, GREETING_VAR, getenv(GREETING_VAR)));
    }
}

/* ---- Parallel ------------------------------------------------------------------ */

static int thread_example_setup(ompb_state *state)
{
    return array_setup(state, THREAD_EXAMPLE_LEN);
}

/* Four workers, each summing its own quarter of a shared array: the round
 * time is the slowest worker's, so an idle or preempted worker shows. */
OMPB_BENCH(thread_example, OMPB_THREADS(4), .setup = thread_example_setup,
           .teardown = array_teardown)
{
    const u64_array *arr = ompb_data(state);
    size_t lo, hi;
    ex_chunk(arr->n, ompb_thread_index(state), ompb_thread_count(state), &lo, &hi);
    ompb_set_items(state, hi - lo);
    OMPB_ITER(state) {
        ompb_black_box(ex_sum_range(ompb_opaque_ptr(arr->v), lo, hi));
    }
}

typedef struct triad_arrays {
    double *a, *b, *c;
    size_t n;
} triad_arrays;

static void triad_teardown(ompb_state *state)
{
    triad_arrays *d = ompb_data(state);
    if (!d)
        return;
    free(d->a);
    free(d->b);
    free(d->c);
    free(d);
}

/* Each thread writes the chunk it will own in the rounds first, so that on a
 * NUMA machine the pages land near it (first touch). The setup team is not
 * pinned the way the round team is: it is the usual OpenMP practice, no more. */
static void triad_first_touch(triad_arrays *d, int nthreads)
{
#pragma omp parallel num_threads(nthreads)
    {
        size_t lo, hi;
        ex_chunk(d->n, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            d->a[i] = 0.0;
            d->b[i] = 1.0;
            d->c[i] = 2.0;
        }
    }
}

static int triad_setup(ompb_state *state)
{
    triad_arrays *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    d->n = TRIAD_LEN;
    d->a = malloc(d->n * sizeof(double));
    d->b = malloc(d->n * sizeof(double));
    d->c = malloc(d->n * sizeof(double));
    ompb_set_data(state, d);
    if (!d->a || !d->b || !d->c) {
        triad_teardown(state);
        ompb_set_data(state, NULL);
        return -1;
    }
    triad_first_touch(d, ompb_thread_count(state));
    return 0;
}

/* STREAM triad a = b + s*c, each thread on its static chunk. Bytes count
 * STREAM's way: two arrays read and one written, 24 bytes per element; the
 * write-allocate read of a is real traffic but not counted. */
OMPB_BENCH(stream_triad, OMPB_THREADS(1, 2, 4), .setup = triad_setup,
           .teardown = triad_teardown)
{
    const triad_arrays *d = ompb_data(state);
    size_t lo, hi;
    ex_chunk(d->n, ompb_thread_index(state), ompb_thread_count(state), &lo, &hi);
    ompb_set_bytes(state, 3 * (hi - lo) * sizeof(double));
    OMPB_ITER(state) {
        ex_triad(d->a, d->b, d->c, ompb_opaque_double(TRIAD_SCALAR), lo, hi);
        ompb_black_box_ptr(d->a);
    }
}

/* The triad as an existing OpenMP function (a plain `parallel for`),
 * benchmarked as it is called: declared a caller team, its body runs on one
 * thread and the function forks its own team of T threads, placed by the
 * pin plan. setup allocates without touching; thread_setup runs on thread
 * t of the placed team and first-touches the share that thread t of the
 * function's static schedule will use, so on a NUMA node each share's
 * pages sit next to the thread that streams them. Bytes are the whole
 * team's: the caller's one state stands for the code. */
static int triad_alloc_setup(ompb_state *state)
{
    triad_arrays *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    d->n = TRIAD_LEN;
    d->a = malloc(d->n * sizeof(double));
    d->b = malloc(d->n * sizeof(double));
    d->c = malloc(d->n * sizeof(double));
    ompb_set_data(state, d);
    if (!d->a || !d->b || !d->c) {
        triad_teardown(state);
        ompb_set_data(state, NULL);
        return -1;
    }
    return 0;
}

static int triad_touch_share(ompb_state *state)
{
    triad_arrays *d = ompb_data(state);
    size_t lo, hi;
    ex_chunk(d->n, ompb_thread_index(state), ompb_thread_count(state), &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        d->a[i] = 0.0;
        d->b[i] = 1.0;
        d->c[i] = 2.0;
    }
    return 0;
}

OMPB_BENCH(triad_parallel_for, OMPB_THREADS(1, 2, 4), .team = OMPB_TEAM_CALLER,
           .setup = triad_alloc_setup, .thread_setup = triad_touch_share,
           .teardown = triad_teardown)
{
    const triad_arrays *d = ompb_data(state);
    ompb_set_bytes(state, 3 * d->n * sizeof(double));
    OMPB_ITER(state) {
        ex_triad_parallel_for(d->a, d->b, d->c, ompb_opaque_double(TRIAD_SCALAR), d->n);
        ompb_black_box_ptr(d->a);
    }
}

/* False sharing: every thread increments only its own counter, yet with the
 * counters in adjacent words of one cache line each store steals the line
 * from the other cores; padding each counter to its own line removes that.
 * Both versions do the same work and reach the same totals. The effect needs
 * the threads on different cores: if both run on one core (one-core machine,
 * hyperthread siblings, --pin placing them together) it can vanish. */
static int counters_setup(ompb_state *state, size_t counter_size)
{
    size_t bytes = (size_t)ompb_thread_count(state) * counter_size;
    bytes = (bytes + EX_CACHE_LINE - 1) / EX_CACHE_LINE * EX_CACHE_LINE;
    void *counters = aligned_alloc(EX_CACHE_LINE, bytes);
    if (!counters)
        return -1;
    memset(counters, 0, bytes);
    ompb_set_data(state, counters);
    return 0;
}

static int adjacent_setup(ompb_state *state)
{
    return counters_setup(state, sizeof(uint64_t));
}

static int padded_setup(ompb_state *state)
{
    return counters_setup(state, sizeof(ex_padded_counter));
}

static void counters_teardown(ompb_state *state)
{
    free(ompb_data(state));
}

OMPB_BENCH(false_sharing_adjacent, OMPB_THREADS(2), .setup = adjacent_setup,
           .teardown = counters_teardown)
{
    volatile uint64_t *mine = (uint64_t *)ompb_data(state) + ompb_thread_index(state);
    ompb_set_items(state, COUNT_UP_N);
    OMPB_ITER(state) {
        ex_count_up(mine, COUNT_UP_N);
    }
}

OMPB_BENCH(false_sharing_padded, OMPB_THREADS(2), .setup = padded_setup,
           .teardown = counters_teardown)
{
    ex_padded_counter *counters = ompb_data(state);
    ompb_set_items(state, COUNT_UP_N);
    OMPB_ITER(state) {
        ex_count_up(&counters[ompb_thread_index(state)].value, COUNT_UP_N);
    }
}
