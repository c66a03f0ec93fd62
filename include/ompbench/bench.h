/* SPDX-License-Identifier: MIT */
/*
 * Declaring benchmarks.
 *
 * A benchmark is a function that every thread of a round calls once per
 * round. Inside it, the OMPB_ITER loop runs the round's sample size worth of
 * iterations between this thread's start and end timestamps:
 *
 *     OMPB_BENCH(count_set_bits, OMPB_ARGS(0, 42, 255)) {
 *         uint64_t x = (uint64_t)ompb_arg(state);
 *         OMPB_ITER(state) {
 *             ompb_black_box(__builtin_popcountll(ompb_opaque_u64(x)));
 *         }
 *     }
 *
 * The body runs inside an OpenMP parallel region of T threads, so
 * omp_get_thread_num() and omp_get_num_threads() work in it; ompb_thread_index()
 * and ompb_thread_count() say the same without including omp.h. Code before
 * and after OMPB_ITER is not timed, but it runs inside the round, between the
 * team barriers: keep it short, or put it in a setup function.
 *
 * Code that opens its own parallel region (an OpenMP kernel, a solver step,
 * a library call) must not run inside that team: its region would be nested
 * and get one thread, or a fresh OS thread per region. Declare it with
 * .team = OMPB_TEAM_CALLER instead: the body then runs on one thread, the
 * caller, and the regions it opens are top-level regions of T threads
 * (omp_set_num_threads(T) for the rounds, restored after), placed by the
 * pin plan:
 *
 *     OMPB_BENCH(triad, OMPB_THREADS(1, 2, 4), .team = OMPB_TEAM_CALLER) {
 *         OMPB_ITER(state) {
 *             my_openmp_triad(a, b, c, n);   // #pragma omp parallel for inside
 *         }
 *     }
 *
 * The round time is the caller's clock reads around the loop: fork and join
 * included, which is what the caller of that code experiences.
 *
 * Each (benchmark, argument, thread count) is one instance, named
 * "name", "name[arg]", "name[(a, b)]", and with a thread variant
 * "name[t=4]" or "name[arg, t=4]". A thread variant is named whenever the
 * thread count comes from a list (the benchmark's OMPB_THREADS or --threads);
 * benchmarks run at the default width (OMP_NUM_THREADS) carry no suffix.
 *
 * Ownership: descriptors are static data owned by the benchmark's translation
 * unit; the library only keeps pointers to them.
 *
 * Language: the declaration macros (OMPB_BENCH and its options) use C11
 * compound literals and designated initializers. They work in C++ too (g++
 * and clang++, C++11 or later, where both are GNU extensions that give the
 * arrays static storage), with the one rule C++ adds: designated
 * initializers must follow the order of ompb_benchmark's fields. So in C++
 * write the options in that order: OMPB_ARGS or OMPB_TUPLES, then
 * OMPB_THREADS, then .setup, .teardown, .batch_setup, .batch_teardown,
 * .sample_size, .team, .thread_setup (g++ refuses another order, clang++
 * warns). OMPB_BENCH silences, for its own expansion only, the warnings
 * these extensions draw under -Wall -Wextra -Wpedantic. The functions and
 * OMPB_ITER work unchanged; ompb_black_box is a template there.
 * tests/cxx_api.cpp (tests/integration/cxx_api.sh) is such a file.
 */
#ifndef OMPBENCH_BENCH_H
#define OMPBENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include <ompbench/counter.h>
#include <ompbench/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of integers in one tuple argument (OMPB_TUPLES). */
#define OMPB_MAX_ARITY 4

/* Per-thread view of a round; opaque, valid only during the call it is passed to. */
typedef struct ompb_state ompb_state;

/* Who runs the body (ompb_benchmark.team). */
typedef enum ompb_team {
    /* The harness's team: every one of the T threads calls the body each
     * round, inside one OpenMP parallel region that serves every round. */
    OMPB_TEAM_HARNESS = 0,
    /* The caller: one thread calls the body each round, outside any parallel
     * region; the code it calls opens its own regions of T threads, and
     * thread i of those runs on PU i of the pin plan. ompb_thread_index() is
     * 0 in the body and ompb_thread_count() is T. The harness sees only the
     * caller's clock reads: no per-thread busy time, skew or imbalance. */
    OMPB_TEAM_CALLER = 1
} ompb_team;

/* How the work of one round relates to the team width
 * (ompb_benchmark.scaling), for the scaling chart's ideal line. */
typedef enum ompb_scaling {
    /* Not declared: tools infer it from the items or bytes per iteration
     * (ompb_set_items/ompb_set_bytes) at each width, else assume strong. */
    OMPB_SCALING_AUTO = 0,
    /* The work per round is fixed: ideal time falls as 1/T. */
    OMPB_SCALING_STRONG = 1,
    /* Each thread (or rank) does the same work, so the round's work grows
     * with T: ideal time stays flat. Per-thread bodies are usually this. */
    OMPB_SCALING_WEAK = 2
} ompb_scaling;

/*
 * One benchmark family. Initialize it through OMPB_BENCH and the option
 * macros below rather than by hand; all fields but name and fn are optional.
 */
typedef struct ompb_benchmark {
    const char *name;              /* C identifier of the benchmark function */
    const char *file;              /* __FILE__ of the declaration, for URIs */
    void (*fn)(ompb_state *state); /* the body, called by every thread each round
                                    * (by the caller only with OMPB_TEAM_CALLER) */

    const int64_t *args;           /* scalar arguments (OMPB_ARGS) */
    const int64_t (*tuples)[OMPB_MAX_ARITY]; /* tuple arguments (OMPB_TUPLES) */
    size_t n_args;                 /* number of arguments of either kind */
    int arity;                     /* integers per tuple argument */

    const int *threads;            /* thread counts (OMPB_THREADS) */
    size_t n_threads;

    /* Once per instance, on one thread, before the team starts; not timed.
     * Nonzero return: the instance fails and is reported as an error. */
    int (*setup)(ompb_state *state);
    /* Once per instance, after the last round; undoes setup. */
    void (*teardown)(ompb_state *state);
    /* On every thread before each round (calibration, warm-up and measured),
     * outside the timed window: make ompb_sample_size() inputs here
     * (the iter_batched pattern), and store them with ompb_set_thread_data().
     * With OMPB_TEAM_CALLER, on the caller only. */
    void (*batch_setup)(ompb_state *state);
    /* On every thread after each round, outside the timed window. */
    void (*batch_teardown)(ompb_state *state);

    /* Iterations per round per thread; 0 = calibrate (default). */
    uint64_t sample_size;

    /* Who runs the body: OMPB_TEAM_HARNESS (0, the default) or
     * OMPB_TEAM_CALLER. Any other value fails the instance. */
    ompb_team team;
    /* Once per instance on each of the T threads of the placed team, after
     * they are bound and before the first round; not timed. For first touch:
     * thread ompb_thread_index() writes the part of the data it will use, so
     * that on a NUMA node its pages land on that thread's node. With
     * OMPB_TEAM_CALLER these are the OpenMP runtime's own threads, the ones
     * the code's regions then reuse (thread i of the code's team). Runs after
     * setup; nonzero return fails the instance (teardown still runs). */
    int (*thread_setup)(ompb_state *state);
    /* Strong or weak scaling (ompb_scaling), written to the JSON as
     * ompbench.scaling; appended last so older initializers keep their
     * meaning. Any other value is refused at registration. */
    ompb_scaling scaling;
} ompb_benchmark;

/* Adds a benchmark to the process-wide registry; OMPB_BENCH calls it from a
 * constructor. Returns 0, or OMPB_EINVAL for a descriptor without name/fn. */
OMPB_API int ompb_register(const ompb_benchmark *bench);

/* Notes that bench, registered just before, comes from a translation unit
 * compiled without optimization: its instances are then marked
 * "unoptimized" in every report and the run warns once. OMPB_BENCH calls it
 * from its constructor only where __OPTIMIZE__ is undefined (gcc and clang
 * at -O0), so binaries built with optimization never reference it. A
 * descriptor that was not registered is ignored. */
OMPB_API void ompb_note_unoptimized(const ompb_benchmark *bench);

/* Notes that bench, registered just before, comes from a translation unit
 * compiled without OpenMP (_OPENMP undefined: no -fopenmp, e.g. a C++ file
 * of a target that links OpenMP for C only). Its OpenMP directives were
 * ignored, so a caller-team body opens no parallel region: the warning then
 * says "compiled without OpenMP" and how to compile it with OpenMP.
 * OMPB_BENCH calls it from its constructor only where _OPENMP is undefined,
 * so binaries built with OpenMP never reference it. A descriptor that was
 * not registered is ignored. */
OMPB_API void ompb_note_no_openmp(const ompb_benchmark *bench);

/* ---- Option macros for OMPB_BENCH ---------------------------------------- */

/* Scalar arguments: OMPB_ARGS(0, 42, 255). */
#define OMPB_ARGS(...)                                                        \
    .args = (const int64_t[]){__VA_ARGS__},                                   \
    .n_args = sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t),       \
    .arity = 1

/* Tuple arguments of ARITY integers: OMPB_TUPLES(2, {0, 0}, {42, 13}). */
#define OMPB_TUPLES(arity_, ...)                                              \
    .tuples = (const int64_t[][OMPB_MAX_ARITY]){__VA_ARGS__},                 \
    .n_args = sizeof((const int64_t[][OMPB_MAX_ARITY]){__VA_ARGS__})          \
              / sizeof(int64_t[OMPB_MAX_ARITY]),                              \
    .arity = (arity_)

/* Thread counts to run every argument at: OMPB_THREADS(1, 2, 4). */
#define OMPB_THREADS(...)                                                     \
    .threads = (const int[]){__VA_ARGS__},                                    \
    .n_threads = sizeof((const int[]){__VA_ARGS__}) / sizeof(int)

/* ---- Declaration ---------------------------------------------------------- */

#if defined(__GNUC__) || defined(__clang__)
#define OMPB__CONSTRUCTOR(fn) static void fn(void) __attribute__((constructor)); \
    static void fn(void)
#else
#error "ompbench needs __attribute__((constructor)) (GCC or Clang)"
#endif

/* In C++ the descriptor's initializer uses two GNU extensions (compound
 * literals, designated initializers before C++20) and leaves fields out,
 * which is what C means; the warnings about it are silenced there and only
 * there. */
#if defined(__cplusplus) && defined(__clang__)
#define OMPB__CXX_QUIET_BEGIN _Pragma("clang diagnostic push")                \
    _Pragma("clang diagnostic ignored \"-Wc99-extensions\"")                  \
    _Pragma("clang diagnostic ignored \"-Wc++20-designator\"")                \
    _Pragma("clang diagnostic ignored \"-Wmissing-field-initializers\"")
#define OMPB__CXX_QUIET_END _Pragma("clang diagnostic pop")
#elif defined(__cplusplus)
#define OMPB__CXX_QUIET_BEGIN _Pragma("GCC diagnostic push")                  \
    _Pragma("GCC diagnostic ignored \"-Wpragmas\"")                           \
    _Pragma("GCC diagnostic ignored \"-Wpedantic\"")                          \
    _Pragma("GCC diagnostic ignored \"-Wc++20-extensions\"")                  \
    _Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")
#define OMPB__CXX_QUIET_END _Pragma("GCC diagnostic pop")
#else
#define OMPB__CXX_QUIET_BEGIN
#define OMPB__CXX_QUIET_END
#endif

/* __OPTIMIZE__ and _OPENMP are the user's translation unit's, where
 * OMPB_BENCH expands: the build of the benchmark code, not the library's. */
#ifdef __OPTIMIZE__
#define OMPB__NOTE_OPTIMIZE(desc) ((void)0)
#else
#define OMPB__NOTE_OPTIMIZE(desc) ompb_note_unoptimized(desc)
#endif
#ifdef _OPENMP
#define OMPB__NOTE_OPENMP(desc) ((void)0)
#else
#define OMPB__NOTE_OPENMP(desc) ompb_note_no_openmp(desc)
#endif
#define OMPB__NOTE_BUILD(desc) (OMPB__NOTE_OPTIMIZE(desc), OMPB__NOTE_OPENMP(desc))

/*
 * OMPB_BENCH(name, options...) { body }: declares `static void name(ompb_state
 * *state)` and registers it. Options are the macros above or designated
 * initializers of ompb_benchmark, e.g. .setup = my_setup.
 */
#define OMPB_BENCH(...) OMPB__BENCH(__VA_ARGS__, )
#define OMPB__BENCH(name_, ...)                                               \
    static void name_(ompb_state *state);                                     \
    OMPB__CXX_QUIET_BEGIN                                                     \
    static const ompb_benchmark ompb__desc_##name_ = {                        \
        .name = #name_, .file = __FILE__, .fn = name_, __VA_ARGS__};          \
    OMPB__CXX_QUIET_END                                                       \
    OMPB__CONSTRUCTOR(ompb__register_##name_) {                               \
        if (ompb_register(&ompb__desc_##name_) == 0)                          \
            OMPB__NOTE_BUILD(&ompb__desc_##name_);                            \
    }                                                                         \
    static void name_(ompb_state *state)

/* ---- The timed loop ------------------------------------------------------- */

/* Takes this thread's start timestamp and returns the iterations to run.
 * OMPB_ITER calls it; call it directly only for a hand-written loop, and then
 * call ompb_iter_end() right after the last iteration. */
OMPB_API uint64_t ompb_iter_begin(ompb_state *state);
/* Takes this thread's end timestamp. */
OMPB_API void ompb_iter_end(ompb_state *state);

/* Runs the body ompb_sample_size() times inside this thread's timed window.
 * Leaving it early (break, return, goto) is an error reported by the harness. */
#define OMPB_ITER(state)                                                      \
    for (uint64_t ompb__n_ = ompb_iter_begin(state);                          \
         ompb__n_ > 0 || (ompb_iter_end(state), 0); ompb__n_--)

/* Same, with the iteration index 0..sample_size-1 in `i` (uint64_t). */
#define OMPB_ITER_INDEXED(state, i)                                           \
    for (uint64_t i = 0, ompb__n_ = ompb_iter_begin(state);                   \
         i < ompb__n_ || (ompb_iter_end(state), 0); i++)

/* ---- Accessors (valid inside fn, setup, teardown, batch hooks) ------------ */

/* First integer of the argument, 0 if none. */
OMPB_API int64_t ompb_arg(const ompb_state *state);
/* k-th integer of a tuple argument. */
OMPB_API int64_t ompb_arg_at(const ompb_state *state, int k);
/* 0..T-1; 0 in setup/teardown, and in a caller-team body and its batch
 * hooks (only the caller runs them); 0..T-1 in thread_setup. */
OMPB_API int ompb_thread_index(const ompb_state *state);
/* T, the round width; for a caller-team benchmark, the team size the code's
 * parallel regions get. */
OMPB_API int ompb_thread_count(const ompb_state *state);
/* Iterations per round per thread. */
OMPB_API uint64_t ompb_sample_size(const ompb_state *state);
/* The instance's name, e.g. "sum[1000, t=2]". */
OMPB_API const char *ompb_instance_name(const ompb_state *state);

/* Instance-wide user data, set in setup, read by every thread. */
OMPB_API void ompb_set_data(ompb_state *state, void *data);
OMPB_API void *ompb_data(const ompb_state *state);
/* Per-thread user data, e.g. the inputs made by batch_setup. */
OMPB_API void ompb_set_thread_data(ompb_state *state, void *data);
OMPB_API void *ompb_thread_data(const ompb_state *state);

/* Throughput: bytes or items this thread processes per iteration. The team's
 * sum over threads, divided by the round time, is reported as a rate. */
OMPB_API void ompb_set_bytes(ompb_state *state, uint64_t bytes_per_iteration);
OMPB_API void ompb_set_items(ompb_state *state, uint64_t items_per_iteration);

/* ---- User counters (Google Benchmark's state.counters) ------------------- */

/* The flags (OMPB_COUNTER_RATE, ...) are in <ompbench/counter.h>. */

/* Adds value to this thread's counter `name` for the current round, without
 * a lock (each thread owns its slot; the engine sums the team's after the
 * round's barrier; in a caller team, the threads of the team the body forks
 * share the caller's state and add atomically, exactly). Call it in the
 * body, inside or around OMPB_ITER; values
 * are reset before every round, calls in setup or thread_setup count for
 * nothing. The reported figure is, per measured round, the team's total
 * transformed by flags, and over the rounds their median (a repetition) or
 * the median of the repetitions' figures (an instance). It is written as a
 * column on the console, a top-level key of the JSON run object (Google
 * Benchmark's layout) and a CSV column, and compare/scaling take it as
 * --metric NAME.
 * name: 1-47 of A-Z a-z 0-9 _ . -, not a key the reports already use
 * (real_time, bytes_per_second, ...); at most 8 names per benchmark, each
 * with the same flags on every call and thread. Returns 0, or OMPB_EINVAL
 * (bad name, unknown flag bit, a value that is not finite, a ninth name,
 * other flags than before): the instance then fails with a message naming
 * the value. */
OMPB_API int ompb_counter(ompb_state *state, const char *name, double value, unsigned flags);

/* ---- Pages where the threads are ----------------------------------------- */

/* Declares [ptr, ptr + bytes) as the calling thread's share of the data. Call
 * it in .thread_setup, after this thread wrote its share (first touch): once
 * every thread's setup is done, ompbench checks on which NUMA node the pages
 * of each share are (move_pages(2) in query mode, at most 4096 pages looked
 * up per call) and warns when a thread's share lies mostly on another node
 * than the one of the PU it runs on, or is mostly untouched; the check is
 * skipped where the kernel refuses the query. May be called several times
 * (the shares add up). Returns 0, OMPB_EINVAL (state NULL, or ptr NULL with
 * bytes > 0) or OMPB_ENOMEM. Only harness and caller teams' thread_setup
 * are checked; a call elsewhere is counted but never reported. */
OMPB_API int ompb_declare_buffer(ompb_state *state, const void *ptr, size_t bytes);

/* ---- Keeping the compiler honest ------------------------------------------ */

/* Consumes a value: the compiler must compute it, but may not see it used. */
#if defined(__GNUC__) || defined(__clang__)
static inline void ompb_black_box_u64(uint64_t v) { __asm__ volatile("" : : "r"(v)); }
static inline void ompb_black_box_double(double v) { __asm__ volatile("" : : "m"(v)); }
/* Escapes a pointer: everything reachable from it may be read. */
static inline void ompb_black_box_ptr(const void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }
/* Returns v unchanged, but the compiler can no longer assume its value,
 * so work on it cannot be hoisted out of the loop or folded away. */
static inline uint64_t ompb_opaque_u64(uint64_t v) { __asm__ volatile("" : "+r"(v)); return v; }
static inline int64_t ompb_opaque_i64(int64_t v) { __asm__ volatile("" : "+r"(v)); return v; }
static inline double ompb_opaque_double(double v) { __asm__ volatile("" : "+m"(v)); return v; }
static inline void *ompb_opaque_ptr(void *p) { __asm__ volatile("" : "+r"(p)); return p; }
/* Forces every pending store to memory. */
static inline void ompb_clobber_memory(void) { __asm__ volatile("" : : : "memory"); }
#endif

#ifdef __cplusplus
}
/* ompb_black_box(x): consume a value of any type (C++ overload). */
template <typename T> static inline void ompb_black_box(const T &v)
{
    __asm__ volatile("" : : "r,m"(v) : "memory");
}
#else
/* ompb_black_box(x): consume a value of any arithmetic or pointer type. */
#define ompb_black_box(x) _Generic((x),                                       \
    float: ompb_black_box_double, double: ompb_black_box_double,              \
    long double: ompb_black_box_double,                                       \
    _Bool: ompb_black_box_u64, char: ompb_black_box_u64,                      \
    signed char: ompb_black_box_u64, unsigned char: ompb_black_box_u64,       \
    short: ompb_black_box_u64, unsigned short: ompb_black_box_u64,            \
    int: ompb_black_box_u64, unsigned: ompb_black_box_u64,                    \
    long: ompb_black_box_u64, unsigned long: ompb_black_box_u64,              \
    long long: ompb_black_box_u64, unsigned long long: ompb_black_box_u64,    \
    default: ompb_black_box_ptr)(x)
#endif

#endif /* OMPBENCH_BENCH_H */
