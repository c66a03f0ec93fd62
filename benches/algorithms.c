/* SPDX-License-Identifier: MIT */
/*
 * The algorithms the example suite measures: bit tricks, Fibonacci in four
 * styles (with a small open-addressing hash map and an AVL tree map for the
 * memoized ones), backtracking searches (n-queens, graph coloring, knight's
 * tour, Hamiltonian cycles, subset sum, combinations, permutations), simple
 * loops, and the kernels of the parallel examples. They are plain, correct
 * and deliberately unclever, so their cost is what the examples show and
 * tests/test_examples.c can check every result.
 */
#include "algorithms.h"

#include <stdlib.h>
#include <string.h>

#define HASHMAP_MIN_CAP 16
#define HASHMAP_LOAD_NUM 7 /* grow beyond 7/10 full: linear probing slows down past it */
#define HASHMAP_LOAD_DEN 10
#define GOLDEN_64 0x9E3779B97F4A7C15ull
#define PETERSEN_VERTICES 10
#define KNIGHT_MOVES 8
#define SUBSET_VALUE_MAX 100
#define SUBSET_SEED 0x5EEDull

/* ---- Bits and integers ----------------------------------------------------- */

int ex_count_set_bits(uint64_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

int ex_highest_set_bit(uint64_t x)
{
    int bit = -1;
    for (; x; x >>= 1)
        bit++;
    return bit;
}

int64_t ex_add(int64_t a, int64_t b)
{
    return a + b;
}

/* ---- Fibonacci --------------------------------------------------------------- */

uint64_t ex_fib_recursive(unsigned n)
{
    return n < 2 ? n : ex_fib_recursive(n - 1) + ex_fib_recursive(n - 2);
}

uint64_t ex_fib_iterative(unsigned n)
{
    uint64_t a = 0, b = 1;
    for (unsigned i = 0; i < n; i++) {
        uint64_t next = a + b;
        a = b;
        b = next;
    }
    return a;
}

/* ---- Hash map -------------------------------------------------------------- */

struct ex_hashmap {
    uint64_t *keys;
    uint64_t *values;
    unsigned char *used; /* a flag array, so that every key value is storable */
    size_t cap;          /* a power of two */
    size_t size;
};

static size_t hash_slot(uint64_t key, size_t cap)
{
    uint64_t h = key * GOLDEN_64;
    return (size_t)(h ^ (h >> 32)) & (cap - 1);
}

static int hashmap_alloc(ex_hashmap *map, size_t cap)
{
    map->keys = malloc(cap * sizeof *map->keys);
    map->values = malloc(cap * sizeof *map->values);
    map->used = calloc(cap, 1);
    map->cap = cap;
    map->size = 0;
    if (map->keys && map->values && map->used)
        return 0;
    free(map->keys);
    free(map->values);
    free(map->used);
    return -1;
}

/* Finds key's slot, or the empty slot where it belongs. */
static size_t hashmap_probe(const ex_hashmap *map, uint64_t key)
{
    size_t i = hash_slot(key, map->cap);
    while (map->used[i] && map->keys[i] != key)
        i = (i + 1) & (map->cap - 1);
    return i;
}

static void hashmap_store(ex_hashmap *map, size_t i, uint64_t key, uint64_t value)
{
    if (!map->used[i]) {
        map->used[i] = 1;
        map->keys[i] = key;
        map->size++;
    }
    map->values[i] = value;
}

static int hashmap_grow(ex_hashmap *map)
{
    ex_hashmap bigger;
    if (hashmap_alloc(&bigger, map->cap * 2) != 0)
        return -1;
    for (size_t i = 0; i < map->cap; i++)
        if (map->used[i])
            hashmap_store(&bigger, hashmap_probe(&bigger, map->keys[i]),
                          map->keys[i], map->values[i]);
    free(map->keys);
    free(map->values);
    free(map->used);
    *map = bigger;
    return 0;
}

ex_hashmap *ex_hashmap_new(void)
{
    ex_hashmap *map = malloc(sizeof *map);
    if (map && hashmap_alloc(map, HASHMAP_MIN_CAP) != 0) {
        free(map);
        return NULL;
    }
    return map;
}

void ex_hashmap_free(ex_hashmap *map)
{
    if (!map)
        return;
    free(map->keys);
    free(map->values);
    free(map->used);
    free(map);
}

int ex_hashmap_put(ex_hashmap *map, uint64_t key, uint64_t value)
{
    size_t i = hashmap_probe(map, key);
    if (!map->used[i] &&
        (map->size + 1) * HASHMAP_LOAD_DEN > map->cap * HASHMAP_LOAD_NUM) {
        if (hashmap_grow(map) != 0)
            return -1;
        i = hashmap_probe(map, key);
    }
    hashmap_store(map, i, key, value);
    return 0;
}

bool ex_hashmap_get(const ex_hashmap *map, uint64_t key, uint64_t *value)
{
    size_t i = hashmap_probe(map, key);
    if (!map->used[i])
        return false;
    *value = map->values[i];
    return true;
}

size_t ex_hashmap_size(const ex_hashmap *map)
{
    return map->size;
}

/* ---- AVL tree map ------------------------------------------------------------ */

typedef struct tree_node {
    uint64_t key, value;
    struct tree_node *left, *right;
    int height; /* of the subtree rooted here; a leaf is 1 */
} tree_node;

struct ex_treemap {
    tree_node *root;
    size_t size;
};

static int node_height(const tree_node *node)
{
    return node ? node->height : 0;
}

static void node_update(tree_node *node)
{
    int l = node_height(node->left), r = node_height(node->right);
    node->height = 1 + (l > r ? l : r);
}

static tree_node *rotate_right(tree_node *top)
{
    tree_node *pivot = top->left;
    top->left = pivot->right;
    pivot->right = top;
    node_update(top);
    node_update(pivot);
    return pivot;
}

static tree_node *rotate_left(tree_node *top)
{
    tree_node *pivot = top->right;
    top->right = pivot->left;
    pivot->left = top;
    node_update(top);
    node_update(pivot);
    return pivot;
}

/* Restores |height(left) - height(right)| <= 1 after one insertion below. */
static tree_node *rebalance(tree_node *node)
{
    node_update(node);
    int balance = node_height(node->left) - node_height(node->right);
    if (balance > 1) {
        if (node_height(node->left->left) < node_height(node->left->right))
            node->left = rotate_left(node->left);
        return rotate_right(node);
    }
    if (balance < -1) {
        if (node_height(node->right->right) < node_height(node->right->left))
            node->right = rotate_right(node->right);
        return rotate_left(node);
    }
    return node;
}

/* *added: 1 for a new node, 0 for an overwrite, -1 on ENOMEM. */
static tree_node *tree_insert(tree_node *node, uint64_t key, uint64_t value, int *added)
{
    if (!node) {
        node = malloc(sizeof *node);
        if (!node) {
            *added = -1;
            return NULL;
        }
        *node = (tree_node){.key = key, .value = value, .height = 1};
        *added = 1;
        return node;
    }
    if (key == node->key) {
        node->value = value;
        *added = 0;
        return node;
    }
    if (key < node->key) {
        tree_node *child = tree_insert(node->left, key, value, added);
        if (*added < 0)
            return node;
        node->left = child;
    } else {
        tree_node *child = tree_insert(node->right, key, value, added);
        if (*added < 0)
            return node;
        node->right = child;
    }
    return *added ? rebalance(node) : node;
}

static void tree_free(tree_node *node)
{
    if (!node)
        return;
    tree_free(node->left);
    tree_free(node->right);
    free(node);
}

/* Height of the subtree if every key lies in (lo, hi) (bounds optional) and
 * every node is balanced with a correct stored height; -1 otherwise. */
static int tree_check(const tree_node *node, const uint64_t *lo, const uint64_t *hi)
{
    if (!node)
        return 0;
    if ((lo && node->key <= *lo) || (hi && node->key >= *hi))
        return -1;
    int l = tree_check(node->left, lo, &node->key);
    int r = tree_check(node->right, &node->key, hi);
    if (l < 0 || r < 0 || abs(l - r) > 1)
        return -1;
    int h = 1 + (l > r ? l : r);
    return h == node->height ? h : -1;
}

ex_treemap *ex_treemap_new(void)
{
    return calloc(1, sizeof(ex_treemap));
}

void ex_treemap_free(ex_treemap *map)
{
    if (!map)
        return;
    tree_free(map->root);
    free(map);
}

int ex_treemap_put(ex_treemap *map, uint64_t key, uint64_t value)
{
    int added = 0;
    tree_node *root = tree_insert(map->root, key, value, &added);
    if (added < 0)
        return -1;
    map->root = root;
    map->size += (size_t)added;
    return 0;
}

bool ex_treemap_get(const ex_treemap *map, uint64_t key, uint64_t *value)
{
    const tree_node *node = map->root;
    while (node && node->key != key)
        node = key < node->key ? node->left : node->right;
    if (!node)
        return false;
    *value = node->value;
    return true;
}

size_t ex_treemap_size(const ex_treemap *map)
{
    return map->size;
}

int ex_treemap_height(const ex_treemap *map)
{
    return node_height(map->root);
}

int ex_treemap_check(const ex_treemap *map)
{
    return tree_check(map->root, NULL, NULL) < 0 ? -1 : 0;
}

/* ---- Memoized Fibonacci -------------------------------------------------------- */

/* The two memo versions differ only in the map; they are written out twice
 * so that both make direct calls and compare the maps, not an indirection. */
static uint64_t fib_hashed(ex_hashmap *memo, unsigned n, int *err)
{
    uint64_t v;
    if (n < 2)
        return n;
    if (ex_hashmap_get(memo, n, &v))
        return v;
    v = fib_hashed(memo, n - 1, err) + fib_hashed(memo, n - 2, err);
    if (ex_hashmap_put(memo, n, v) != 0)
        *err = -1;
    return v;
}

static uint64_t fib_treed(ex_treemap *memo, unsigned n, int *err)
{
    uint64_t v;
    if (n < 2)
        return n;
    if (ex_treemap_get(memo, n, &v))
        return v;
    v = fib_treed(memo, n - 1, err) + fib_treed(memo, n - 2, err);
    if (ex_treemap_put(memo, n, v) != 0)
        *err = -1;
    return v;
}

int ex_fib_memo_hashmap(unsigned n, uint64_t *out)
{
    int err = 0;
    ex_hashmap *memo = ex_hashmap_new();
    if (!memo)
        return -1;
    *out = fib_hashed(memo, n, &err);
    ex_hashmap_free(memo);
    return err;
}

int ex_fib_memo_treemap(unsigned n, uint64_t *out)
{
    int err = 0;
    ex_treemap *memo = ex_treemap_new();
    if (!memo)
        return -1;
    *out = fib_treed(memo, n, &err);
    ex_treemap_free(memo);
    return err;
}

/* ---- N-queens and graph coloring -------------------------------------------------- */

/* Rows are filled top-down; cols, left and right mark the columns attacked
 * in the current row vertically and along both diagonals. */
static uint64_t queens(uint64_t all, uint64_t cols, uint64_t left, uint64_t right)
{
    if (cols == all)
        return 1;
    uint64_t count = 0;
    uint64_t free_cols = all & ~(cols | left | right);
    while (free_cols) {
        uint64_t bit = free_cols & (~free_cols + 1);
        free_cols ^= bit;
        count += queens(all, cols | bit, (left | bit) << 1, (right | bit) >> 1);
    }
    return count;
}

uint64_t ex_n_queens(int n)
{
    return queens((UINT64_C(1) << n) - 1, 0, 0, 0);
}

/* Outer 5-cycle 0..4, inner pentagram 5..9, spokes i -- i+5. */
static const uint8_t petersen_edges[][2] = {
    {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0},
    {5, 7}, {7, 9}, {9, 6}, {6, 8}, {8, 5},
    {0, 5}, {1, 6}, {2, 7}, {3, 8}, {4, 9},
};

/* by_color[c]: vertices below v colored c; earlier[v]: neighbors of v below v. */
static uint64_t color_from(int v, int k, const uint16_t *earlier, uint16_t *by_color)
{
    if (v == PETERSEN_VERTICES)
        return 1;
    uint64_t count = 0;
    for (int c = 0; c < k; c++) {
        if (by_color[c] & earlier[v])
            continue;
        by_color[c] |= (uint16_t)(1u << v);
        count += color_from(v + 1, k, earlier, by_color);
        by_color[c] &= (uint16_t)~(1u << v);
    }
    return count;
}

uint64_t ex_graph_coloring(int k)
{
    uint16_t earlier[PETERSEN_VERTICES] = {0};
    uint16_t by_color[PETERSEN_VERTICES] = {0};
    for (size_t e = 0; e < sizeof petersen_edges / sizeof petersen_edges[0]; e++) {
        int a = petersen_edges[e][0], b = petersen_edges[e][1];
        int lo = a < b ? a : b, hi = a < b ? b : a;
        earlier[hi] |= (uint16_t)(1u << lo);
    }
    return color_from(0, k, earlier, by_color);
}

/* ---- Knight's tour --------------------------------------------------------------- */

static const int knight_dr[KNIGHT_MOVES] = {2, 1, -1, -2, -2, -1, 1, 2};
static const int knight_dc[KNIGHT_MOVES] = {1, 2, 2, 1, -1, -2, -2, -1};

static bool knight_free(const int *board, int n, int r, int c)
{
    return r >= 0 && r < n && c >= 0 && c < n && board[r * n + c] < 0;
}

static int knight_degree(const int *board, int n, int r, int c)
{
    int degree = 0;
    for (int m = 0; m < KNIGHT_MOVES; m++)
        degree += knight_free(board, n, r + knight_dr[m], c + knight_dc[m]);
    return degree;
}

/* Fills moves[] with the free moves from (r, c), fewest onward moves first
 * (Warnsdorff's rule; ties keep the fixed move order). Returns how many. */
static int knight_candidates(const int *board, int n, int r, int c, int *moves)
{
    int degree[KNIGHT_MOVES], count = 0;
    for (int m = 0; m < KNIGHT_MOVES; m++) {
        int rr = r + knight_dr[m], cc = c + knight_dc[m];
        if (!knight_free(board, n, rr, cc))
            continue;
        int d = knight_degree(board, n, rr, cc), j = count++;
        for (; j > 0 && degree[j - 1] > d; j--) {
            degree[j] = degree[j - 1];
            moves[j] = moves[j - 1];
        }
        degree[j] = d;
        moves[j] = m;
    }
    return count;
}

static bool knight_visit(int *board, int n, int r, int c, int step)
{
    int moves[KNIGHT_MOVES];
    board[r * n + c] = step;
    if (step == n * n - 1)
        return true;
    int count = knight_candidates(board, n, r, c, moves);
    for (int i = 0; i < count; i++)
        if (knight_visit(board, n, r + knight_dr[moves[i]], c + knight_dc[moves[i]], step + 1))
            return true;
    board[r * n + c] = -1;
    return false;
}

bool ex_knight_tour(int n, int *board)
{
    if (n < 1 || n > EX_KNIGHT_MAX)
        return false;
    for (int i = 0; i < n * n; i++)
        board[i] = -1;
    return knight_visit(board, n, 0, 0, 0);
}

/* ---- Hamiltonian cycles -------------------------------------------------------------- */

/* Directed cycles through vertex 0 that extend the path ending at v. */
static uint64_t cycles_from(int n, int v, int depth, uint64_t visited)
{
    static const int dr[4] = {0, 1, 0, -1}, dc[4] = {1, 0, -1, 0};
    int r = v / n, c = v % n;
    uint64_t count = 0;
    for (int m = 0; m < 4; m++) {
        int rr = r + dr[m], cc = c + dc[m];
        if (rr < 0 || rr >= n || cc < 0 || cc >= n)
            continue;
        int w = rr * n + cc;
        if (w == 0 && depth == n * n)
            count++;
        else if (!(visited & (UINT64_C(1) << w)))
            count += cycles_from(n, w, depth + 1, visited | (UINT64_C(1) << w));
    }
    return count;
}

uint64_t ex_hamiltonian_cycles(int n)
{
    if (n < 2)
        return 0;
    /* Each undirected cycle through vertex 0 is found once per direction. */
    return cycles_from(n, 0, 1, 1) / 2;
}

/* ---- Subset sum ------------------------------------------------------------------- */

/* rest: sum of set[i..n). With positive values, need == 0 leaves only the
 * choice of taking nothing more, and rest < need leaves none. */
static uint64_t subsets_from(const uint32_t *set, int n, int i, uint64_t need, uint64_t rest)
{
    if (need == 0)
        return 1;
    if (i == n || rest < need)
        return 0;
    uint64_t count = subsets_from(set, n, i + 1, need, rest - set[i]);
    if (set[i] <= need)
        count += subsets_from(set, n, i + 1, need - set[i], rest - set[i]);
    return count;
}

uint64_t ex_subset_sum_count(const uint32_t *set, int n, uint64_t target)
{
    uint64_t rest = 0;
    for (int i = 0; i < n; i++)
        rest += set[i];
    return subsets_from(set, n, 0, target, rest);
}

/* splitmix64: well mixed from the first output on, whatever the seed. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += GOLDEN_64);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void ex_subset_sum_input(int n, uint32_t *set, uint64_t *target)
{
    uint64_t s = SUBSET_SEED, sum = 0;
    for (int i = 0; i < n; i++) {
        set[i] = 1 + (uint32_t)(splitmix64(&s) % SUBSET_VALUE_MAX);
        if (i % 2 == 0)
            sum += set[i];
    }
    *target = sum;
}

/* ---- Combinations and permutations ------------------------------------------------- */

static void emit(uint8_t *out, size_t cap, size_t index, const uint8_t *item, size_t len)
{
    if (len && index < cap / len)
        memcpy(out + index * len, item, len);
}

size_t ex_combinations(int n, int k, uint8_t *out, size_t cap)
{
    uint8_t c[64];
    size_t count = 0;
    for (int i = 0; i < k; i++)
        c[i] = (uint8_t)i;
    for (;;) {
        emit(out, cap, count++, c, (size_t)k);
        int i = k - 1;
        while (i >= 0 && c[i] == n - k + i)
            i--;
        if (i < 0)
            return count;
        c[i]++;
        for (int j = i + 1; j < k; j++)
            c[j] = (uint8_t)(c[j - 1] + 1);
    }
}

static void reverse(uint8_t *p, int lo, int hi)
{
    for (; lo < hi; lo++, hi--) {
        uint8_t t = p[lo];
        p[lo] = p[hi];
        p[hi] = t;
    }
}

/* Steps p to the next permutation in lexicographic order; false after the last. */
static bool next_permutation(uint8_t *p, int n)
{
    int i = n - 2;
    while (i >= 0 && p[i] >= p[i + 1])
        i--;
    if (i < 0)
        return false;
    int j = n - 1;
    while (p[j] <= p[i])
        j--;
    uint8_t t = p[i];
    p[i] = p[j];
    p[j] = t;
    reverse(p, i + 1, n - 1);
    return true;
}

uint64_t ex_permutations(int n, uint8_t *out, size_t cap)
{
    uint8_t p[20];
    uint64_t count = 0;
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)i;
    do
        emit(out, cap, (size_t)count++, p, (size_t)n);
    while (next_permutation(p, n));
    return count;
}

/* ---- Loops and memory ---------------------------------------------------------- */

uint64_t ex_sum_fold(const uint64_t *v, size_t n)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc += v[i];
    return acc;
}

int ex_vec_push(ex_vec *vec, uint64_t value)
{
    if (vec->len == vec->cap) {
        size_t cap = vec->cap ? vec->cap * 2 : 4;
        uint64_t *data = realloc(vec->data, cap * sizeof *data);
        if (!data)
            return -1;
        vec->data = data;
        vec->cap = cap;
    }
    vec->data[vec->len++] = value;
    return 0;
}

int ex_build_vec(size_t n, ex_vec *out)
{
    ex_vec vec = {NULL, 0, 0};
    for (size_t i = 0; i < n; i++) {
        if (ex_vec_push(&vec, i) != 0) {
            free(vec.data);
            return -1;
        }
    }
    *out = vec;
    return 0;
}

uint64_t ex_rem_sum(uint64_t n, uint64_t d)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += i % d;
    return sum;
}

static void sift_down(uint64_t *v, size_t root, size_t n)
{
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && v[child + 1] > v[child])
            child++;
        if (v[root] >= v[child])
            return;
        uint64_t t = v[root];
        v[root] = v[child];
        v[child] = t;
    }
}

void ex_heapsort(uint64_t *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (size_t end = n; end-- > 1;) {
        uint64_t t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift_down(v, 0, end);
    }
}

void ex_fill_random(uint64_t *v, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        v[i] = splitmix64(&seed);
}

int ex_print_greeting(FILE *out, const char *name, const char *value)
{
    int written = fprintf(out, "Hello, %s=%s!\n", name, value ? value : "(unset)");
    return written < 0 ? -1 : written;
}

/* ---- Parallel ---------------------------------------------------------------- */

void ex_chunk(size_t n, int t, int nthreads, size_t *lo, size_t *hi)
{
    size_t base = n / (size_t)nthreads, extra = n % (size_t)nthreads, ut = (size_t)t;
    *lo = ut * base + (ut < extra ? ut : extra);
    *hi = *lo + base + (ut < extra ? 1 : 0);
}

uint64_t ex_sum_range(const uint64_t *v, size_t lo, size_t hi)
{
    uint64_t sum = 0;
    for (size_t i = lo; i < hi; i++)
        sum += v[i];
    return sum;
}

void ex_triad(double *restrict a, const double *restrict b,
                    const double *restrict c, double s, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++)
        a[i] = b[i] + s * c[i];
}

void ex_triad_parallel_for(double *restrict a, const double *restrict b,
                                 const double *restrict c, double s, size_t n)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

void ex_count_up(volatile uint64_t *counter, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        *counter = *counter + 1;
}
