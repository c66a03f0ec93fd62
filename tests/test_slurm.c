/* SPDX-License-Identifier: MIT */
/*
 * The Slurm job step as srun describes it in the environment (lib/slurm):
 * the header's line, the binding check and the default team width, from
 * variables set here as srun sets them (no Slurm needed; the real daemons
 * run in tests/integration/slurm.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <omp.h>

#include "config/cli.h"
#include "placement/slurm.h"
#include "suite.h"

static const char *const vars[] = {"SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_PROCID",
                                   "SLURM_NTASKS", "SLURM_CPUS_PER_TASK", "SLURM_CPU_BIND_LIST",
                                   "SLURM_LOCALID", "OMP_NUM_THREADS"};

static void clear_vars(void)
{
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

/* Task 1 of 2 on a node, srun --cpus-per-task=2 --cpu-bind=cores. */
static void set_step(void)
{
    clear_vars();
    setenv("SLURM_JOB_ID", "42", 1);
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_NTASKS", "2", 1);
    setenv("SLURM_CPUS_PER_TASK", "2", 1);
    setenv("SLURM_CPU_BIND_LIST", "0x3,0xC", 1);
    setenv("SLURM_LOCALID", "1", 1);
}

static hwloc_bitmap_t set_of(const char *list)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    CU_ASSERT_EQUAL_FATAL(hwloc_bitmap_list_sscanf(s, list), 0);
    return s;
}

static void test_step_and_binding(void)
{
    ompb__slurm_step step;
    char line[512], warning[512];
    set_step();
    ompb__slurm_read(&step);
    CU_ASSERT_TRUE(step.in_job);
    CU_ASSERT_TRUE(step.bound);
    CU_ASSERT_STRING_EQUAL(step.mask, "2-3");   /* local task 1's mask, 0xC */
    hwloc_bitmap_t same = set_of("2-3"), wider = set_of("0-3");
    ompb__slurm_describe(&step, same, line, sizeof line);
    CU_ASSERT_STRING_EQUAL(line, "job 42 step 0, task 1 of 2, 2 CPUs per task (the default "
                                 "team width), srun bound the task to PUs 2-3, the PUs ompbench "
                                 "plans on");
    CU_ASSERT_FALSE(ompb__slurm_mismatch(&step, same, warning, sizeof warning));
    CU_ASSERT_TRUE(ompb__slurm_mismatch(&step, wider, warning, sizeof warning));
    CU_ASSERT_STRING_EQUAL(warning, "Slurm bound task 1 to PUs 2-3 (srun --cpu-bind), but this "
                                    "process may use PUs 0-3: something between srun and the "
                                    "benchmark (taskset, numactl, OMP_PLACES) changed the binding; "
                                    "ompbench plans on PUs 0-3");
    /* A batch script's shell: no step, no binding. */
    unsetenv("SLURM_STEP_ID");
    unsetenv("SLURM_CPU_BIND_LIST");
    ompb__slurm_read(&step);
    ompb__slurm_describe(&step, wider, line, sizeof line);
    CU_ASSERT_STRING_EQUAL(line, "job 42 batch script, task 1 of 2, 2 CPUs per task (the "
                                 "default team width), no CPU binding by srun; ompbench plans on "
                                 "PUs 0-3");
    CU_ASSERT_FALSE(ompb__slurm_mismatch(&step, wider, warning, sizeof warning));
    /* A mask list too short for this task, or garbage: not bound. */
    setenv("SLURM_CPU_BIND_LIST", "0x3", 1);
    ompb__slurm_read(&step);
    CU_ASSERT_FALSE(step.bound);
    setenv("SLURM_CPU_BIND_LIST", "zz,yy", 1);
    ompb__slurm_read(&step);
    CU_ASSERT_FALSE(step.bound);
    hwloc_bitmap_free(same);
    hwloc_bitmap_free(wider);
    clear_vars();
    ompb__slurm_read(&step);
    CU_ASSERT_FALSE(step.in_job);
}

/* SLURM_CPUS_PER_TASK is the default width inside a job only, and only
 * when OMP_NUM_THREADS does not say otherwise; a bad value is refused then
 * (want -1: one line naming it), ignored otherwise. */
static void test_default_width(void)
{
    static const struct { const char *job, *cpt, *omp; int want; } cases[] = {
        {"42", "3", NULL, 3}, {"42", "3", "5", 5}, {NULL, "3", NULL, 0},
        {"42", "0", NULL, -1}, {"42", "x", NULL, -1}, {"42", "999999", NULL, -1},
        {"42", "-1", NULL, -1}, {"42", "1e9", NULL, -1}, {"42", "x", "2", 2},
        {NULL, "x", NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clear_vars();
        if (cases[i].job)
            setenv("SLURM_JOB_ID", cases[i].job, 1);
        setenv("SLURM_CPUS_PER_TASK", cases[i].cpt, 1);
        if (cases[i].omp)
            setenv("OMP_NUM_THREADS", cases[i].omp, 1);
        char *argv[] = {"bench", NULL};
        ompb__config cfg;
        ompb_error err = {0};
        if (cases[i].want < 0) {
            CU_ASSERT_EQUAL(ompb__config_parse(&cfg, 1, argv, &err), OMPB_EINVAL);
            char line[128];
            snprintf(line, sizeof line, "SLURM_CPUS_PER_TASK: invalid value '%s'", cases[i].cpt);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.text, line));
            continue;
        }
        CU_ASSERT_EQUAL_FATAL(ompb__config_parse(&cfg, 1, argv, &err), 0);
        CU_ASSERT_EQUAL(cfg.default_threads, cases[i].want ? cases[i].want
                                                            : omp_get_max_threads());
        ompb__config_release(&cfg);
    }
    clear_vars();
}

static const ompb_test_case cases[] = {
    {"step_and_binding", test_step_and_binding},
    {"default_width", test_default_width},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_slurm = {"slurm", NULL, NULL, cases};
