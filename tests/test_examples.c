/* SPDX-License-Identifier: MIT */
/*
 * Tests of the example suite's algorithms (benches/algorithms.c): each one's
 * result on the examples' arguments against known values (published counts
 * such as 92 eight-queens solutions, or closed forms), and against an
 * independent way of computing it (compiler builtins, brute force, qsort),
 * so a broken example cannot pass for a fast one. The parallel kernels run
 * under real OpenMP teams whose size does not depend on the host.
 */
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "algorithms.h"
#include "suite.h"

#define EX_SORT_LEN 4096
#define EX_THREAD_ARRAY_LEN (1u << 20)
#define EX_COUNT_UP_N 100000

static const uint64_t example_bits_args[] = {0, 42, 255, 1024, 65535};

/* ---- Bits, integers, Fibonacci ------------------------------------------------ */

static void test_count_set_bits(void)
{
    static const int expected[] = {0, 3, 8, 1, 16};
    for (size_t i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(ex_count_set_bits(example_bits_args[i]), expected[i]);
    CU_ASSERT_EQUAL(ex_count_set_bits(UINT64_MAX), 64);
    for (uint64_t x = 1; x < (UINT64_C(1) << 62); x = x * 3 + 1)
        CU_ASSERT_EQUAL(ex_count_set_bits(x), __builtin_popcountll(x));
}

static void test_highest_set_bit(void)
{
    static const int expected[] = {-1, 5, 7, 10, 15};
    for (size_t i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(ex_highest_set_bit(example_bits_args[i]), expected[i]);
    CU_ASSERT_EQUAL(ex_highest_set_bit(UINT64_MAX), 63);
    for (uint64_t x = 1; x < (UINT64_C(1) << 62); x = x * 3 + 1)
        CU_ASSERT_EQUAL(ex_highest_set_bit(x), 63 - __builtin_clzll(x));
}

static void test_add_two_integers(void)
{
    CU_ASSERT_EQUAL(ex_add(0, 0), 0);
    CU_ASSERT_EQUAL(ex_add(42, 13), 55);
    CU_ASSERT_EQUAL(ex_add(255, 255), 510);
    CU_ASSERT_EQUAL(ex_add(1024, -1024), 0);
    CU_ASSERT_EQUAL(ex_add(65535, -65535), 0);
    CU_ASSERT_EQUAL(ex_add(-7, 3), -4);
}

static void test_fibonacci(void)
{
    static const unsigned args[] = {0, 5, 10, 20};
    static const uint64_t expected[] = {0, 5, 55, 6765};
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(ex_fib_recursive(args[i]), expected[i]);
        CU_ASSERT_EQUAL(ex_fib_iterative(args[i]), expected[i]);
    }
    CU_ASSERT_EQUAL(ex_fib_iterative(1), 1);
    CU_ASSERT_EQUAL(ex_fib_iterative(30), 832040); /* iter_manual_simple */
    CU_ASSERT_EQUAL(ex_fib_iterative(93), UINT64_C(12200160415121876738));
    for (unsigned n = 0; n <= 25; n++)
        CU_ASSERT_EQUAL(ex_fib_recursive(n), ex_fib_iterative(n));
}

static void test_fibonacci_memoized(void)
{
    static const unsigned args[] = {0, 5, 10, 1, 2, 90};
    static const uint64_t expected[] = {0, 5, 55, 1, 1, UINT64_C(2880067194370816120)};
    for (size_t i = 0; i < 6; i++) {
        uint64_t h = UINT64_MAX, t = UINT64_MAX;
        CU_ASSERT_EQUAL(ex_fib_memo_hashmap(args[i], &h), 0);
        CU_ASSERT_EQUAL(ex_fib_memo_treemap(args[i], &t), 0);
        CU_ASSERT_EQUAL(h, expected[i]);
        CU_ASSERT_EQUAL(t, expected[i]);
    }
}

/* ---- Maps ------------------------------------------------------------------- */

/* Keys with a stride that collides in the low bits, plus the extremes. */
static uint64_t map_key(uint64_t i)
{
    return i == 0 ? UINT64_MAX : (i - 1) << 20;
}

static void test_hashmap(void)
{
    enum { N = 10000 };
    ex_hashmap *map = ex_hashmap_new();
    uint64_t v = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(map);
    CU_ASSERT_FALSE(ex_hashmap_get(map, 0, &v));
    for (uint64_t i = 0; i < N; i++)
        CU_ASSERT_EQUAL(ex_hashmap_put(map, map_key(i), i * 7), 0);
    CU_ASSERT_EQUAL(ex_hashmap_size(map), N);
    for (uint64_t i = 0; i < N; i += 2)
        CU_ASSERT_EQUAL(ex_hashmap_put(map, map_key(i), i), 0);
    CU_ASSERT_EQUAL(ex_hashmap_size(map), N);
    for (uint64_t i = 0; i < N; i++) {
        CU_ASSERT_TRUE(ex_hashmap_get(map, map_key(i), &v));
        CU_ASSERT_EQUAL(v, i % 2 ? i * 7 : i);
    }
    CU_ASSERT_FALSE(ex_hashmap_get(map, 12345, &v));
    ex_hashmap_free(map);
    ex_hashmap_free(NULL);
}

static void treemap_fill(ex_treemap *map, const uint64_t *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL(ex_treemap_put(map, keys[i], keys[i] + 1), 0);
}

/* Ascending keys turn a plain search tree into a list; AVL keeps the height
 * below 1.44 log2(n + 2), i.e. 14 for 1000 keys. */
static void test_treemap(void)
{
    enum { N = 1000 };
    static uint64_t keys[N];
    ex_treemap *map = ex_treemap_new();
    uint64_t v = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(map);
    CU_ASSERT_EQUAL(ex_treemap_height(map), 0);
    for (size_t i = 0; i < N; i++)
        keys[i] = map_key(i + 1);
    treemap_fill(map, keys, N);
    CU_ASSERT_EQUAL(ex_treemap_size(map), N);
    CU_ASSERT_EQUAL(ex_treemap_check(map), 0);
    CU_ASSERT_TRUE(ex_treemap_height(map) <= 14);
    treemap_fill(map, keys, N / 2); /* overwrites: no new nodes */
    CU_ASSERT_EQUAL(ex_treemap_size(map), N);
    for (size_t i = 0; i < N; i++) {
        CU_ASSERT_TRUE(ex_treemap_get(map, keys[i], &v));
        CU_ASSERT_EQUAL(v, keys[i] + 1);
    }
    CU_ASSERT_FALSE(ex_treemap_get(map, 1, &v));
    ex_treemap_free(map);

    map = ex_treemap_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(map);
    ex_fill_random(keys, N, 99);
    treemap_fill(map, keys, N);
    CU_ASSERT_EQUAL(ex_treemap_check(map), 0);
    CU_ASSERT_TRUE(ex_treemap_height(map) <= 14);
    ex_treemap_free(map);
}

/* ---- Backtracking ------------------------------------------------------------ */

static void test_n_queens(void)
{
    /* Known counts (OEIS A000170). */
    static const uint64_t expected[] = {1, 1, 0, 0, 2, 10, 4, 40, 92};
    for (int n = 0; n <= 8; n++)
        CU_ASSERT_EQUAL(ex_n_queens(n), expected[n]);
}

static void test_graph_coloring(void)
{
    /* The Petersen graph's chromatic polynomial at k, and 0 below its
     * chromatic number 3. */
    CU_ASSERT_EQUAL(ex_graph_coloring(2), 0);
    CU_ASSERT_EQUAL(ex_graph_coloring(3), 120);
    CU_ASSERT_EQUAL(ex_graph_coloring(4), 12960);
    CU_ASSERT_EQUAL(ex_graph_coloring(5), 332880);
}

/* A tour: every square once, move numbers 0..n*n-1, consecutive ones a
 * knight's move apart, starting in the corner. */
static int tour_errors(const int *board, int n)
{
    int where[8 * 8], errors = 0;
    for (int i = 0; i < n * n; i++)
        where[i] = -1;
    for (int i = 0; i < n * n; i++) {
        if (board[i] < 0 || board[i] >= n * n || where[board[i]] >= 0)
            return 1;
        where[board[i]] = i;
    }
    errors += board[0] != 0;
    for (int m = 1; m < n * n; m++) {
        int dr = abs(where[m] / n - where[m - 1] / n);
        int dc = abs(where[m] % n - where[m - 1] % n);
        errors += !((dr == 1 && dc == 2) || (dr == 2 && dc == 1));
    }
    return errors;
}

static void test_knight_tour(void)
{
    int board[8 * 8];
    for (int n = 5; n <= 8; n++) {
        CU_ASSERT_TRUE_FATAL(ex_knight_tour(n, board));
        CU_ASSERT_EQUAL(tour_errors(board, n), 0);
    }
    CU_ASSERT_TRUE(ex_knight_tour(1, board));
    CU_ASSERT_EQUAL(board[0], 0);
    /* No open tour exists on 2x2, 3x3 and 4x4 boards; the search is exhaustive. */
    for (int n = 2; n <= 4; n++)
        CU_ASSERT_FALSE(ex_knight_tour(n, board));
    CU_ASSERT_FALSE(ex_knight_tour(EX_KNIGHT_MAX + 1, board));
}

static void test_hamiltonian_cycle(void)
{
    /* Cycles of the n x n grid graph (OEIS A003763 for even n); an odd grid
     * is bipartite with unequal sides and has none. */
    CU_ASSERT_EQUAL(ex_hamiltonian_cycles(1), 0);
    CU_ASSERT_EQUAL(ex_hamiltonian_cycles(2), 1);
    CU_ASSERT_EQUAL(ex_hamiltonian_cycles(3), 0);
    CU_ASSERT_EQUAL(ex_hamiltonian_cycles(4), 6);
}

static uint64_t subset_sum_brute_force(const uint32_t *set, int n, uint64_t target)
{
    uint64_t count = 0;
    for (uint64_t mask = 0; mask < (UINT64_C(1) << n); mask++) {
        uint64_t sum = 0;
        for (int i = 0; i < n; i++)
            if (mask & (UINT64_C(1) << i))
                sum += set[i];
        count += sum == target;
    }
    return count;
}

static void test_subset_sum(void)
{
    static const uint32_t small[] = {3, 34, 4, 12, 5, 2};
    CU_ASSERT_EQUAL(ex_subset_sum_count(small, 6, 9), 2); /* {4,5}, {3,4,2} */
    CU_ASSERT_EQUAL(ex_subset_sum_count(small, 6, 0), 1);
    CU_ASSERT_EQUAL(ex_subset_sum_count(small, 6, 61), 0);
    static const int sizes[] = {10, 18};
    for (size_t s = 0; s < 2; s++) {
        uint32_t set[EX_SUBSET_MAX], again[EX_SUBSET_MAX];
        uint64_t target, target2, sum = 0;
        int n = sizes[s];
        ex_subset_sum_input(n, set, &target);
        ex_subset_sum_input(n, again, &target2);
        CU_ASSERT_EQUAL(memcmp(set, again, (size_t)n * sizeof set[0]), 0);
        CU_ASSERT_EQUAL(target, target2);
        for (int i = 0; i < n; i++) {
            CU_ASSERT_TRUE(set[i] >= 1 && set[i] <= 100);
            sum += i % 2 == 0 ? set[i] : 0;
        }
        CU_ASSERT_EQUAL(target, sum);
        uint64_t count = ex_subset_sum_count(set, n, target);
        CU_ASSERT_EQUAL(count, subset_sum_brute_force(set, n, target));
        CU_ASSERT_TRUE(count >= 1); /* the even-indexed values are one answer */
    }
}

/* Strictly increasing lexicographic order proves the items distinct. */
static int lex_compare(const uint8_t *a, const uint8_t *b, size_t len)
{
    return len ? memcmp(a, b, len) : 0;
}

static void test_generate_combinations(void)
{
    uint8_t out[126 * 4 + 1];
    out[126 * 4] = 0xAA;
    CU_ASSERT_EQUAL(ex_combinations(9, 4, out, 126 * 4), 126);
    CU_ASSERT_EQUAL(out[126 * 4], 0xAA);
    for (size_t c = 0; c < 126; c++) {
        const uint8_t *item = out + c * 4;
        for (int j = 1; j < 4; j++)
            CU_ASSERT_TRUE(item[j - 1] < item[j]);
        CU_ASSERT_TRUE(item[3] < 9);
        if (c > 0)
            CU_ASSERT_TRUE(lex_compare(item - 4, item, 4) < 0);
    }
    CU_ASSERT_EQUAL(memcmp(out, "\0\1\2\3", 4), 0);
    CU_ASSERT_EQUAL(memcmp(out + 125 * 4, "\5\6\7\10", 4), 0);
    /* Too small a buffer: the count is still C(n, k), nothing written past cap. */
    memset(out, 0xAA, sizeof out);
    CU_ASSERT_EQUAL(ex_combinations(9, 4, out, 10), 126);
    CU_ASSERT_EQUAL(out[8], 0xAA);
    CU_ASSERT_EQUAL(ex_combinations(5, 0, out, sizeof out), 1);
    CU_ASSERT_EQUAL(ex_combinations(5, 5, out, sizeof out), 1);
    CU_ASSERT_EQUAL(ex_combinations(20, 10, NULL, 0), 184756);
}

static void test_permutations(void)
{
    static const uint8_t expected[] = {0, 1, 2, 0, 2, 1, 1, 0, 2, 1, 2, 0, 2, 0, 1, 2, 1, 0};
    uint8_t out[24 * 4];
    CU_ASSERT_EQUAL(ex_permutations(3, out, sizeof out), 6);
    CU_ASSERT_EQUAL(memcmp(out, expected, sizeof expected), 0);
    CU_ASSERT_EQUAL(ex_permutations(4, out, sizeof out), 24);
    for (size_t p = 0; p < 24; p++) {
        unsigned seen = 0;
        for (int j = 0; j < 4; j++)
            seen |= 1u << out[p * 4 + j];
        CU_ASSERT_EQUAL(seen, 0xFu);
        if (p > 0)
            CU_ASSERT_TRUE(lex_compare(out + (p - 1) * 4, out + p * 4, 4) < 0);
    }
    CU_ASSERT_EQUAL(ex_permutations(0, out, sizeof out), 1);
    CU_ASSERT_EQUAL(ex_permutations(8, NULL, 0), 40320);
}

/* ---- Loops and memory ---------------------------------------------------------- */

static void test_sum_fold(void)
{
    uint64_t v[1024];
    for (size_t i = 0; i < 1024; i++)
        v[i] = i + 1;
    CU_ASSERT_EQUAL(ex_sum_fold(v, 1024), 1024u * 1025u / 2);
    CU_ASSERT_EQUAL(ex_sum_fold(v, 0), 0);
}

static void test_build_vec(void)
{
    ex_vec vec;
    CU_ASSERT_EQUAL_FATAL(ex_build_vec(1000, &vec), 0);
    CU_ASSERT_EQUAL(vec.len, 1000);
    CU_ASSERT_TRUE(vec.cap >= vec.len);
    int wrong = 0;
    for (size_t i = 0; i < vec.len; i++)
        wrong += vec.data[i] != i;
    CU_ASSERT_EQUAL(wrong, 0);
    free(vec.data);
    CU_ASSERT_EQUAL_FATAL(ex_build_vec(0, &vec), 0);
    CU_ASSERT_EQUAL(vec.len, 0);
    free(vec.data);
}

static void test_rem(void)
{
    /* Full periods of 0..d-1 plus the partial one: 142 * 21 + 15 for the example. */
    CU_ASSERT_EQUAL(ex_rem_sum(1000, 7), 2997);
    CU_ASSERT_EQUAL(ex_rem_sum(1000, 1), 0);
    CU_ASSERT_EQUAL(ex_rem_sum(10, 100), 45);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void check_sort(uint64_t *v, size_t n)
{
    uint64_t *copy = malloc((n ? n : 1) * sizeof *copy);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    memcpy(copy, v, n * sizeof *v);
    qsort(copy, n, sizeof *copy, compare_u64);
    ex_heapsort(v, n);
    CU_ASSERT_EQUAL(memcmp(v, copy, n * sizeof *v), 0);
    free(copy);
}

static void test_heapsort(void)
{
    static uint64_t v[EX_SORT_LEN];
    ex_fill_random(v, EX_SORT_LEN, 1);
    check_sort(v, EX_SORT_LEN);
    for (size_t i = 0; i < EX_SORT_LEN; i++)
        v[i] = (i * 7919) % 13; /* many duplicates */
    check_sort(v, EX_SORT_LEN);
    check_sort(v, 0);
    check_sort(v, 1);
    ex_fill_random(v, 3, 5);
    check_sort(v, 3);
}

static void test_print_greeting(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(ex_print_greeting(out, "MY_ENV_VAR", "ompbench"), 28);
    CU_ASSERT_EQUAL(ex_print_greeting(out, "MY_ENV_VAR", NULL), 27);
    CU_ASSERT_EQUAL(fclose(out), 0);
    CU_ASSERT_STRING_EQUAL(text, "Hello, MY_ENV_VAR=ompbench!\nHello, MY_ENV_VAR=(unset)!\n");
    free(text);
}

/* ---- Parallel ---------------------------------------------------------------- */

static void test_chunk(void)
{
    static const size_t lens[] = {0, 1, 7, 1000, (1u << 22) + 3};
    for (size_t l = 0; l < 5; l++) {
        for (int nthreads = 1; nthreads <= 5; nthreads++) {
            size_t next = 0, smallest = SIZE_MAX, largest = 0;
            for (int t = 0; t < nthreads; t++) {
                size_t lo, hi;
                ex_chunk(lens[l], t, nthreads, &lo, &hi);
                CU_ASSERT_EQUAL(lo, next);
                CU_ASSERT_TRUE(hi >= lo);
                next = hi;
                smallest = hi - lo < smallest ? hi - lo : smallest;
                largest = hi - lo > largest ? hi - lo : largest;
            }
            CU_ASSERT_EQUAL(next, lens[l]);
            CU_ASSERT_TRUE(largest - smallest <= 1);
        }
    }
}

/* thread_example: four workers' quarter sums of 1..n add up to n(n+1)/2. */
static void test_thread_example_sums(void)
{
    const size_t n = EX_THREAD_ARRAY_LEN;
    uint64_t *v = malloc(n * sizeof *v), parts[4] = {0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    for (size_t i = 0; i < n; i++)
        v[i] = i + 1;
#pragma omp parallel num_threads(4)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int w = t; w < 4; w += nt) { /* covers all four if the team is smaller */
            size_t lo, hi;
            ex_chunk(n, w, 4, &lo, &hi);
            parts[w] = ex_sum_range(v, lo, hi);
        }
    }
    CU_ASSERT_EQUAL(parts[0] + parts[1] + parts[2] + parts[3], (uint64_t)n * (n + 1) / 2);
    CU_ASSERT_EQUAL(ex_sum_range(v, 0, n), (uint64_t)n * (n + 1) / 2);
    /* Quarter w sums the integers (lo, hi], known in closed form. */
    size_t lo, hi;
    ex_chunk(n, 3, 4, &lo, &hi);
    CU_ASSERT_EQUAL(parts[3], (uint64_t)hi * (hi + 1) / 2 - (uint64_t)lo * (lo + 1) / 2);
    free(v);
}

/* Values chosen so that every result is exact in double: a[i] = i + 3 * 2. */
static void test_triad(void)
{
    enum { N = 100003 };
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
    CU_ASSERT_FATAL(a && b && c);
    for (int nthreads = 1; nthreads <= 4; nthreads++) {
        for (size_t i = 0; i < N; i++) {
            a[i] = -1.0;
            b[i] = (double)i;
            c[i] = 2.0;
        }
#pragma omp parallel num_threads(nthreads)
        {
            size_t lo, hi;
            ex_chunk(N, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
            ex_triad(a, b, c, 3.0, lo, hi);
        }
        int wrong = 0;
        for (size_t i = 0; i < N; i++)
            wrong += a[i] != (double)i + 6.0;
        CU_ASSERT_EQUAL(wrong, 0);
    }
    free(a);
    free(b);
    free(c);
}

/* The parallel-for triad at the caller's team size, 1 to 4 threads, with
 * the thread-t shares of ex_chunk first touched by the team (the
 * example's thread_setup): every element right, whatever the team size. */
static void test_triad_parallel_for(void)
{
    enum { N = 100003 };
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
    CU_ASSERT_FATAL(a && b && c);
    int saved = omp_get_max_threads(), dynamic = omp_get_dynamic();
    omp_set_dynamic(0);
    for (int nthreads = 1; nthreads <= 4; nthreads++) {
        int ran_with = 0;
        omp_set_num_threads(nthreads);
#pragma omp parallel
        {
            size_t lo, hi;
            ex_chunk(N, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
            for (size_t i = lo; i < hi; i++) {
                a[i] = -1.0;
                b[i] = (double)i;
                c[i] = 2.0;
            }
#pragma omp single
            ran_with = omp_get_num_threads();
        }
        CU_ASSERT_EQUAL(ran_with, nthreads);
        ex_triad_parallel_for(a, b, c, 3.0, N);
        int wrong = 0;
        for (size_t i = 0; i < N; i++)
            wrong += a[i] != (double)i + 6.0;
        CU_ASSERT_EQUAL(wrong, 0);
    }
    omp_set_num_threads(saved);
    omp_set_dynamic(dynamic);
    free(a);
    free(b);
    free(c);
}

/* Shared (adjacent) and padded per-thread counters reach the same totals:
 * false sharing costs time, never counts. */
static void test_false_sharing_counters(void)
{
    _Alignas(EX_CACHE_LINE) uint64_t adjacent[2] = {0, 0};
    ex_padded_counter padded[2];
    CU_ASSERT_EQUAL(sizeof(ex_padded_counter), EX_CACHE_LINE);
    CU_ASSERT_EQUAL((uintptr_t)&padded[1] - (uintptr_t)&padded[0], EX_CACHE_LINE);
    CU_ASSERT_EQUAL((uintptr_t)&padded[0] % EX_CACHE_LINE, 0);
    CU_ASSERT_EQUAL((uintptr_t)&adjacent[0] / EX_CACHE_LINE,
                    (uintptr_t)&adjacent[1] / EX_CACHE_LINE);
    padded[0].value = padded[1].value = 0;
    for (int rep = 0; rep < 3; rep++) {
#pragma omp parallel num_threads(2)
        {
            int t = omp_get_thread_num(), nt = omp_get_num_threads();
            for (int w = t; w < 2; w += nt) {
                ex_count_up(&adjacent[w], EX_COUNT_UP_N);
                ex_count_up(&padded[w].value, EX_COUNT_UP_N);
            }
        }
    }
    for (int w = 0; w < 2; w++) {
        CU_ASSERT_EQUAL(adjacent[w], 3 * EX_COUNT_UP_N);
        CU_ASSERT_EQUAL(padded[w].value, 3 * EX_COUNT_UP_N);
    }
}

static const ompb_test_case cases[] = {
    {"count_set_bits", test_count_set_bits},
    {"highest_set_bit", test_highest_set_bit},
    {"add_two_integers", test_add_two_integers},
    {"fibonacci", test_fibonacci},
    {"fibonacci_memoized", test_fibonacci_memoized},
    {"hashmap", test_hashmap},
    {"treemap", test_treemap},
    {"n_queens", test_n_queens},
    {"graph_coloring", test_graph_coloring},
    {"knight_tour", test_knight_tour},
    {"hamiltonian_cycle", test_hamiltonian_cycle},
    {"subset_sum", test_subset_sum},
    {"generate_combinations", test_generate_combinations},
    {"permutations", test_permutations},
    {"sum_fold", test_sum_fold},
    {"build_vec", test_build_vec},
    {"rem", test_rem},
    {"heapsort", test_heapsort},
    {"print_greeting", test_print_greeting},
    {"chunk", test_chunk},
    {"thread_example_sums", test_thread_example_sums},
    {"triad", test_triad},
    {"triad_parallel_for", test_triad_parallel_for},
    {"false_sharing_counters", test_false_sharing_counters},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_examples = {"examples", NULL, NULL, cases};
