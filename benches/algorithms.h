/* SPDX-License-Identifier: MIT */
/*
 * The algorithms behind the example suite (benches/examples.c), as plain C
 * functions so that tests/test_examples.c can check their results on the
 * examples' arguments. Nothing here knows about the harness. Every function
 * is reentrant: callers on different threads share no mutable state.
 * Names carry the example's own ex_ prefix: the example suite uses the
 * public API only (ompb_/OMPB_), never the library's internal ompb__ names.
 */
#ifndef EX_ALGORITHMS_H
#define EX_ALGORITHMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- Bits and integers ----------------------------------------------------- */

/* Set bits of x, one loop turn per set bit (Kernighan). */
int ex_count_set_bits(uint64_t x);
/* Index of the highest set bit (0..63), -1 for 0; one loop turn per bit. */
int ex_highest_set_bit(uint64_t x);
int64_t ex_add(int64_t a, int64_t b);

/* ---- Fibonacci --------------------------------------------------------------- */

/* fib(0) = 0, fib(1) = 1; n <= 93 fits in 64 bits. The recursive one makes
 * about 1.6^n calls: keep n small. */
uint64_t ex_fib_recursive(unsigned n);
uint64_t ex_fib_iterative(unsigned n);

/* Recursive fib memoized in a fresh map that the call creates and frees,
 * so each call pays for the map. 0 with *out set, -1 if memory runs out. */
int ex_fib_memo_hashmap(unsigned n, uint64_t *out);
int ex_fib_memo_treemap(unsigned n, uint64_t *out);

/* ---- Maps: uint64_t -> uint64_t ---------------------------------------------- */

/* Open addressing with linear probing, power-of-two capacity, grown at 70%
 * load. _new returns NULL on ENOMEM; the caller frees with _free. _put
 * inserts or overwrites: 0, or -1 on ENOMEM (the map is unchanged). */
typedef struct ex_hashmap ex_hashmap;
ex_hashmap *ex_hashmap_new(void);
void ex_hashmap_free(ex_hashmap *map);
int ex_hashmap_put(ex_hashmap *map, uint64_t key, uint64_t value);
bool ex_hashmap_get(const ex_hashmap *map, uint64_t key, uint64_t *value);
size_t ex_hashmap_size(const ex_hashmap *map);

/* Ordered map as an AVL tree, one malloc'd node per key. Same contract as
 * the hash map. _check verifies the order and balance invariants and the
 * stored heights: 0 if they hold, -1 if not (for tests). */
typedef struct ex_treemap ex_treemap;
ex_treemap *ex_treemap_new(void);
void ex_treemap_free(ex_treemap *map);
int ex_treemap_put(ex_treemap *map, uint64_t key, uint64_t value);
bool ex_treemap_get(const ex_treemap *map, uint64_t key, uint64_t *value);
size_t ex_treemap_size(const ex_treemap *map);
int ex_treemap_height(const ex_treemap *map);
int ex_treemap_check(const ex_treemap *map);

/* ---- Backtracking ------------------------------------------------------------ */

#define EX_KNIGHT_MAX 8
#define EX_SUBSET_MAX 62

/* Solutions of the n-queens problem, 1 <= n <= 32. */
uint64_t ex_n_queens(int n);

/* Proper colorings of the Petersen graph (10 vertices, 15 edges) with k
 * colors, 0 <= k <= 10. Its chromatic polynomial gives 120, 12960, 332880
 * for k = 3, 4, 5. */
uint64_t ex_graph_coloring(int k);

/* Finds one knight's tour of the n x n board from the corner by
 * backtracking that tries moves in Warnsdorff order (fewest onward moves
 * first); false if there is none or n is outside 1..EX_KNIGHT_MAX.
 * On success board[r * n + c] holds the move number 0..n*n-1 of each
 * square; board has n*n entries. */
bool ex_knight_tour(int n, int *board);

/* Undirected Hamiltonian cycles of the n x n grid graph, 1 <= n <= 6. */
uint64_t ex_hamiltonian_cycles(int n);

/* Subsets of set[0..n) (positive values, n <= EX_SUBSET_MAX) summing
 * to target, by backtracking pruned on the remaining sum. */
uint64_t ex_subset_sum_count(const uint32_t *set, int n, uint64_t target);
/* The examples' fixed input: n pseudo-random values in 1..100 (the same for
 * every call), and as target the sum of the even-indexed ones: about half
 * the total, and reached by at least one subset. */
void ex_subset_sum_input(int n, uint32_t *set, uint64_t *target);

/* Visits every k-combination of {0..n-1} in lexicographic order and writes
 * them, k bytes each, to out while they fit in cap bytes; 0 <= k <= n <= 64
 * (keep C(n, k) small: all are generated). Returns C(n, k), the number
 * generated, whether or not they all fit. */
size_t ex_combinations(int n, int k, uint8_t *out, size_t cap);

/* Visits every permutation of {0..n-1} in lexicographic order and writes
 * them, n bytes each, to out while they fit in cap bytes; 0 <= n <= 20
 * (keep n! small: all are generated). Returns n!, the number generated,
 * whether or not they all fit. */
uint64_t ex_permutations(int n, uint8_t *out, size_t cap);

/* ---- Loops and memory ---------------------------------------------------------- */

/* Left fold of + over v[0..n). */
uint64_t ex_sum_fold(const uint64_t *v, size_t n);

/* A growable vector: push appends, doubling the capacity as needed
 * (0, or -1 on ENOMEM). The caller frees data with free(). */
typedef struct ex_vec {
    uint64_t *data;
    size_t len, cap;
} ex_vec;
int ex_vec_push(ex_vec *vec, uint64_t value);
/* Builds a vector of 0..n-1 by n pushes from empty: 0, or -1 on ENOMEM
 * (nothing to free then). */
int ex_build_vec(size_t n, ex_vec *out);

/* Sum of i % d for i in [0, n), d > 0: one hardware division per term. */
uint64_t ex_rem_sum(uint64_t n, uint64_t d);

/* In-place heapsort, ascending. */
void ex_heapsort(uint64_t *v, size_t n);
/* Fills v[0..n) with pseudo-random values (splitmix64 from seed). */
void ex_fill_random(uint64_t *v, size_t n, uint64_t seed);

/* Writes "Hello, NAME=VALUE!\n" to out; VALUE is "(unset)" for NULL.
 * Returns the characters written, or -1 on an output error. */
int ex_print_greeting(FILE *out, const char *name, const char *value);

/* ---- Parallel ---------------------------------------------------------------- */

/* Thread t's static share [*lo, *hi) of n items among nthreads; the shares
 * cover [0, n) without overlap and differ in size by at most one. */
void ex_chunk(size_t n, int t, int nthreads, size_t *lo, size_t *hi);

/* Sum of v[lo..hi). */
uint64_t ex_sum_range(const uint64_t *v, size_t lo, size_t hi);

/* STREAM triad over [lo, hi): a[i] = b[i] + s * c[i]. */
void ex_triad(double *restrict a, const double *restrict b,
                    const double *restrict c, double s, size_t lo, size_t hi);

/* The same triad over [0, n) written as existing OpenMP code writes it: one
 * `parallel for` with the static schedule, opened at the caller's team size
 * (omp_set_num_threads / OMP_NUM_THREADS). Thread t of its team works on
 * ex_chunk(n, t, T), the static schedule's share. */
void ex_triad_parallel_for(double *restrict a, const double *restrict b,
                                 const double *restrict c, double s, size_t n);

/* Adds 1 to *counter n times, each as a separate load and store through the
 * volatile pointer, so the compiler cannot merge them into one addition. */
void ex_count_up(volatile uint64_t *counter, uint64_t n);

/* Per-thread counters, padded so that no two share a 64-byte cache line.
 * The unpadded layout is a plain uint64_t array. */
#define EX_CACHE_LINE 64
typedef struct ex_padded_counter {
    _Alignas(EX_CACHE_LINE) volatile uint64_t value;
    char pad[EX_CACHE_LINE - sizeof(uint64_t)];
} ex_padded_counter;

#endif /* EX_ALGORITHMS_H */
