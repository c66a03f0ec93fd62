/* SPDX-License-Identifier: MIT */
/*
 * The NUMA page check (lib/engine/pages.c, ompb_declare_buffer): on machine shapes
 * of the corpus (tests/topologies) through a double of move_pages(2) and
 * getcpu that places each team thread on the NUMA node of its spread plan's
 * PU and each share's pages where a right or a wrong first touch would put
 * them, through the real engine (ompb__round_run) so that the warning is
 * the one a run gives; and the real query on this machine, whatever its
 * node count: touched pages are found on the thread's own node, untouched
 * ones are not there yet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hwloc.h>

#include "engine/pages.h"
#include "placement/pin.h"
#include "placement/pin_plan.h"
#include "model/record.h"
#include "engine/round.h"
#include "suite.h"
#include "test_env.h"
#include "placement/topology.h"

#define CORPUS OMPB_TEST_DATA_DIR "/../topologies/"
#define MAX_T 16
#define SHARE_PAGES 64
#define PAGE 4096

/* ---- the double -------------------------------------------------------- */

typedef enum { TOUCH_RIGHT, TOUCH_BY_MASTER, TOUCH_HBM } touch_kind;

static int node_of_thread[MAX_T];   /* from the corpus plan */
static touch_kind touch;
static int cpuless_node = -1;       /* a node without CPUs (KNL flat's MCDRAM) */
static _Thread_local int my_node = -1;

static long fake_query(unsigned long count, void **pages, int *status)
{
    (void)pages;
    for (unsigned long i = 0; i < count; i++)
        status[i] = touch == TOUCH_RIGHT ? my_node : touch == TOUCH_HBM ? cpuless_node : 0;
    return 0;
}
static int fake_current_node(void)
{
    return my_node;
}
static long fake_page_size(void)
{
    return PAGE;
}
static bool fake_node_has_cpus(int node)
{
    return node != cpuless_node;
}
static const ompb__pages_ops fake_ops = {fake_query, fake_current_node, fake_page_size,
                                         fake_node_has_cpus};

/* Thread t declares its share of a buffer it never dereferences (the double
 * answers for the addresses). */
static int declare_share(ompb_state *s)
{
    static char buffer[MAX_T * SHARE_PAGES * PAGE];
    int t = ompb_thread_index(s);
    my_node = node_of_thread[t];
    return ompb_declare_buffer(s, buffer + (size_t)t * SHARE_PAGES * PAGE, SHARE_PAGES * PAGE);
}
static void empty_body(ompb_state *s)
{
    OMPB_ITER(s) {}
}

/* ---- helpers ----------------------------------------------------------- */

/* Opens the corpus shape's synthetic description. */
static ompb__topology *open_shape(const char *shape)
{
    char path[256], line[256], *desc = NULL;
    snprintf(path, sizeof path, CORPUS "%s.synthetic", shape);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    while (!desc && fgets(line, sizeof line, f))
        if (strncmp(line, "synthetic: ", 11) == 0)
            desc = line + 11;
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(desc);
    desc[strcspn(desc, "\n")] = '\0';
    ompb__topology *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ompb__topology_open_synthetic(desc, &t, NULL), 0);
    return t;
}

/* Fills node_of_thread from the spread plan of T threads; returns how many
 * threads are not on node 0. */
static int place_threads(ompb__topology *topo, int T)
{
    ompb__pin_spec pin = {0};
    ompb__pin_plan *plan = NULL;
    int off0 = 0;
    CU_ASSERT_EQUAL_FATAL(ompb__pin_parse("spread", &pin, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__pin_plan_new(topo, &pin, T, &plan, NULL), 0);
    hwloc_topology_t m = ompb__topology_machine_view(topo);
    for (int t = 0; t < T; t++) {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(m, (unsigned)plan->pu[t]);
        node_of_thread[t] = hwloc_bitmap_first(pu->nodeset);
        off0 += node_of_thread[t] != 0;
    }
    ompb__pin_plan_free(plan);
    ompb__pin_spec_release(&pin);
    return off0;
}

/* Runs a T-thread instance whose threads declare their shares; returns the
 * record (caller frees). */
static ompb__record run_declaring(int T)
{
    static ompb_benchmark b = {.name = "triad", .fn = empty_body, .thread_setup = declare_share};
    ompb__instance inst;
    memset(&inst, 0, sizeof inst);
    inst.bench = &b;
    inst.threads = T;
    snprintf(inst.name, sizeof inst.name, "triad[t=%d]", T);
    ompb__sampling sp = {.mode = OMPB__SAMPLING_MEASURE, .threads = T, .rounds = 2,
                         .sample_size = 1, .min_round_ns = 1000, .budget_ns = 60000000000ull};
    ompb__record rec;
    memset(&rec, 0, sizeof rec);
    ompb__engine_env env = *ompb_test_env_default();
    env.pages = &fake_ops; /* what the team's ompb_declare_buffer calls look up through */
    CU_ASSERT_EQUAL(ompb__round_run(&env, &inst, &sp, NULL, &rec), 0);
    return rec;
}

static const char *pages_warning(const ompb__record *rec)
{
    for (size_t i = 0; i < rec->n_warnings; i++)
        if (strstr(rec->warnings[i], "first touch"))
            return rec->warnings[i];
    return NULL;
}

/* ---- tests ------------------------------------------------------------- */

/* Multi-node shapes, T = 2 threads per NUMA node spread: a master's first
 * touch (every page on node 0) is named with the first misplaced thread,
 * its node and how many threads are affected; each thread's own first touch
 * gives no warning. */
static void test_first_touch_on_corpus(void)
{
    static const struct { const char *shape; int T; } shapes[] = {
        {"epyc-genoa-nps4", 16}, {"spr-snc4", 16}, {"a64fx", 8}, {"grace-grace", 4},
        {"power9", 4}, {"epyc-genoa-nps1", 4},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        ompb__topology *topo = open_shape(shapes[i].shape);
        int T = shapes[i].T, off0 = place_threads(topo, T), first = 0;
        CU_ASSERT_TRUE(off0 > 0 && off0 < T);
        while (node_of_thread[first] == 0)
            first++;
        char want[160];
        snprintf(want, sizeof want, "first touch: 100%% of thread %d's declared pages are on NUMA "
                 "node 0, but it runs on node %d (%d of %d threads' shares are misplaced)",
                 first, node_of_thread[first], off0, T);
        touch = TOUCH_BY_MASTER;
        ompb__record rec = run_declaring(T);
        const char *w = pages_warning(&rec);
        if (!w || !strstr(w, want))
            fprintf(stderr, "\n%s: warning '%s', want '%s'\n", shapes[i].shape, w ? w : "none",
                    want);
        CU_ASSERT_TRUE(w && strstr(w, want));
        ompb__record_free(&rec);
        touch = TOUCH_RIGHT;
        rec = run_declaring(T);
        CU_ASSERT_PTR_NULL(pages_warning(&rec));
        ompb__record_free(&rec);
        ompb__topology_close(topo);
    }
}

/* KNL in flat mode: pages bound to the MCDRAM node (CPU-less on Linux, as
 * numactl -m 1 puts them) are there by policy: no warning. On Grace, one
 * node: nothing can be misplaced. */
static void test_policy_nodes_are_not_first_touch(void)
{
    ompb__topology *topo = open_shape("knl-flat");
    CU_ASSERT_EQUAL(place_threads(topo, 4), 0);
    cpuless_node = 1;
    touch = TOUCH_HBM;
    ompb__record rec = run_declaring(4);
    CU_ASSERT_PTR_NULL(pages_warning(&rec));
    ompb__record_free(&rec);
    cpuless_node = -1;
    ompb__topology_close(topo);

    topo = open_shape("grace");
    CU_ASSERT_EQUAL(place_threads(topo, 4), 0);
    touch = TOUCH_BY_MASTER;
    rec = run_declaring(4);
    CU_ASSERT_PTR_NULL(pages_warning(&rec));
    ompb__record_free(&rec);
    ompb__topology_close(topo);
}

/* The real query on this machine: pages this thread wrote are on the node
 * it runs on (a 1-node machine reports node 0 for all of them); untouched
 * pages are absent and warned about. Skipped where the kernel refuses
 * move_pages (a seccomp filter). */
static void test_real_query(void)
{
    size_t bytes = 256 * (size_t)sysconf(_SC_PAGESIZE);
    char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CU_ASSERT_FATAL(buf != MAP_FAILED);
    ompb__pages_tally fresh = {0}, touched = {0};
    int rc = ompb__pages_tally_share(&ompb__pages_ops_system, &fresh, buf, bytes);
    if (rc == -ENOSYS || rc == -EPERM) {
        fprintf(stderr, "\n(move_pages refused here: %s; real query not checked)\n",
                strerror(-rc));
        munmap(buf, bytes);
        return;
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(fresh.pages, 256);
    CU_ASSERT_EQUAL(fresh.absent, 256);
    CU_ASSERT_TRUE(ompb__pages_misplaced(&fresh));
    memset(buf, 1, bytes);
    CU_ASSERT_EQUAL(ompb__pages_tally_share(NULL, &touched, buf, bytes), 0); /* the system's */
    CU_ASSERT_EQUAL(touched.pages, 256);
    CU_ASSERT_EQUAL(touched.local, 256);
    CU_ASSERT_EQUAL(touched.remote, 0);
    CU_ASSERT_TRUE(touched.thread_node >= 0);
    CU_ASSERT_FALSE(ompb__pages_misplaced(&touched));
    fprintf(stderr, "\n(real query: 256 pages on node %d, the node this thread runs on)\n",
            touched.thread_node);
    munmap(buf, bytes);
}

/* A large share is sampled: at most OMPB__PAGES_SAMPLE_MAX pages looked up,
 * spread over the whole share; bad arguments are refused. */
static void test_sampling_and_arguments(void)
{
    ompb__pages_tally t = {0};
    my_node = 3;
    touch = TOUCH_RIGHT;
    CU_ASSERT_EQUAL(ompb__pages_tally_share(&fake_ops, &t, (void *)(uintptr_t)PAGE,
                                            (size_t)1 << 36), 0);
    CU_ASSERT_TRUE(t.pages > 0 && t.pages <= OMPB__PAGES_SAMPLE_MAX);
    CU_ASSERT_EQUAL(t.local, t.pages);
    CU_ASSERT_EQUAL(t.thread_node, 3);
    CU_ASSERT_EQUAL(ompb_declare_buffer(NULL, &t, 1), OMPB_EINVAL);
}

static const ompb_test_case cases[] = {
    {"first_touch_on_corpus", test_first_touch_on_corpus},
    {"policy_nodes_are_not_first_touch", test_policy_nodes_are_not_first_touch},
    {"real_query", test_real_query},
    {"sampling_and_arguments", test_sampling_and_arguments},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_pages = {"pages", NULL, NULL, cases};
