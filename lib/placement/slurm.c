/* SPDX-License-Identifier: MIT */
/*
 * The Slurm job step from the environment srun and sbatch set. Nothing here
 * talks to Slurm: the variables are the contract (srun(1), "OUTPUT
 * ENVIRONMENT VARIABLES"), and SLURM_CPU_BIND_LIST holds one hex mask per
 * local task, SLURM_LOCALID's being this task's.
 */
#include "placement/slurm.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "core/core.h"

/* A decimal environment value, or fallback when unset or not a number. */
static long env_long(const char *name, long fallback)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return fallback;
    errno = 0;
    long n = strtol(v, &end, 10);
    return errno || *end ? fallback : n;
}

/* This task's mask from SLURM_CPU_BIND_LIST ("0x3,0xC"), into set. */
static bool task_mask(hwloc_bitmap_t set)
{
    const char *list = getenv("SLURM_CPU_BIND_LIST");
    long local = env_long("SLURM_LOCALID", 0);
    if (!list || !*list || local < 0)
        return false;
    for (long i = 0; i < local && list; i++)
        if ((list = strchr(list, ',')) != NULL)
            list++;
    if (!list)
        return false;
    char one[OMPB__SLURM_MASK_TEXT_MAX];
    size_t n = strcspn(list, ",");
    if (n == 0 || n >= sizeof one)
        return false;
    memcpy(one, list, n);
    one[n] = '\0';
    return hwloc_bitmap_taskset_sscanf(set, one) == 0 && !hwloc_bitmap_iszero(set);
}

void ompb__slurm_read(ompb__slurm_step *s)
{
    memset(s, 0, sizeof *s);
    s->in_job = env_long("SLURM_JOB_ID", -1) >= 0;
    if (!s->in_job)
        return;
    s->job_id = env_long("SLURM_JOB_ID", -1);
    s->step_id = env_long("SLURM_STEP_ID", -1);
    s->task = env_long("SLURM_PROCID", -1);
    s->tasks = env_long("SLURM_NTASKS", -1);
    s->cpus_per_task = ompb__slurm_cpus_per_task();
    if (s->cpus_per_task < 0)
        s->cpus_per_task = 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && task_mask(set)) {
        s->bound = true;
        hwloc_bitmap_list_snprintf(s->mask, sizeof s->mask, set);
    }
    hwloc_bitmap_free(set);
}

int ompb__slurm_cpus_per_task(void)
{
    const char *v = getenv("SLURM_CPUS_PER_TASK");
    uint64_t n;
    if (env_long("SLURM_JOB_ID", -1) < 0 || !v)
        return 0;
    return ompb__parse_uint(v, 1, OMPB__MAX_THREADS, &n) == 0 ? (int)n : -1;
}

/* Whether s's mask equals usable; false when it cannot be told. */
static bool mask_equals(const ompb__slurm_step *s, hwloc_const_bitmap_t usable)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    bool same = set && hwloc_bitmap_list_sscanf(set, s->mask) == 0
                && hwloc_bitmap_isequal(set, usable);
    hwloc_bitmap_free(set);
    return same;
}

void ompb__slurm_describe(const ompb__slurm_step *s, const struct hwloc_bitmap_s *usable,
                          char *buf, size_t len)
{
    char step[32] = "batch script", cpt[64] = "", have[OMPB__SLURM_MASK_TEXT_MAX];
    char bind[3 * OMPB__SLURM_MASK_TEXT_MAX];
    if (s->step_id >= 0)
        snprintf(step, sizeof step, "step %ld", s->step_id);
    if (s->cpus_per_task > 0)
        snprintf(cpt, sizeof cpt, ", %d CPU%s per task (the default team width)",
                 s->cpus_per_task, s->cpus_per_task == 1 ? "" : "s");
    hwloc_bitmap_list_snprintf(have, sizeof have, usable);
    if (s->bound && mask_equals(s, usable))
        snprintf(bind, sizeof bind, "srun bound the task to PUs %s, the PUs ompbench plans on",
                 s->mask);
    else if (s->bound)
        snprintf(bind, sizeof bind, "srun bound the task to PUs %s, but ompbench plans on PUs %s "
                 "(see the warning)", s->mask, have);
    else
        snprintf(bind, sizeof bind, "no CPU binding by srun; ompbench plans on PUs %s", have);
    snprintf(buf, len, "job %ld %s, task %ld of %ld%s, %s", s->job_id, step, s->task, s->tasks,
             cpt, bind);
}

bool ompb__slurm_mismatch(const ompb__slurm_step *s, const struct hwloc_bitmap_s *usable,
                          char *buf, size_t len)
{
    char have[OMPB__SLURM_MASK_TEXT_MAX];
    if (!s->bound || mask_equals(s, usable))
        return false;
    hwloc_bitmap_list_snprintf(have, sizeof have, usable);
    snprintf(buf, len, "Slurm bound task %ld to PUs %s (srun --cpu-bind), but this process may "
             "use PUs %s: something between srun and the benchmark (taskset, numactl, "
             "OMP_PLACES) changed the binding; ompbench plans on PUs %s", s->task, s->mask, have,
             have);
    return true;
}
