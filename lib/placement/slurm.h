/* SPDX-License-Identifier: MIT */
/*
 * Running inside a Slurm job step: what srun and sbatch tell the task in its
 * environment (job and step, task rank, CPUs per task, the CPU binding srun
 * applied), read once, and how it compares with the PUs this process may
 * use. The run header says it; a binding that differs from the process mask
 * is a warning; SLURM_CPUS_PER_TASK is the default team width when
 * OMP_NUM_THREADS is not set (lib/config/cli.c).
 */
#ifndef OMPB_SLURM_H
#define OMPB_SLURM_H

#include <stdbool.h>
#include <stddef.h>

struct hwloc_bitmap_s;

/* Room for the mask of one task, as a PU list ("0-3,8"). */
#define OMPB__SLURM_MASK_TEXT_MAX 256

typedef struct ompb__slurm_step {
    bool in_job;            /* SLURM_JOB_ID is set */
    long job_id, step_id;   /* step -1: a batch script or salloc shell, not an srun step */
    long task, tasks;       /* SLURM_PROCID of SLURM_NTASKS (-1 unknown) */
    int cpus_per_task;      /* SLURM_CPUS_PER_TASK, 0 unset or invalid */
    bool bound;             /* srun bound the task (SLURM_CPU_BIND_LIST has its mask) */
    char mask[OMPB__SLURM_MASK_TEXT_MAX]; /* that mask as a PU list, "" when not bound */
} ompb__slurm_step;

/* Reads the environment; out->in_job false outside Slurm. */
void ompb__slurm_read(ompb__slurm_step *out);

/* SLURM_CPUS_PER_TASK when this process is in a Slurm job and it is a
 * positive integer up to OMPB__MAX_THREADS (decimal digits only); 0 outside
 * a job or when unset; -1 for any other value (abc, -1, 0, 1e9). */
int ompb__slurm_cpus_per_task(void);

/* The header's line (without "slurm: "), e.g. "job 12 step 0, task 1 of 2,
 * 2 CPUs per task (the default team width), srun bound the task to PUs 2-3,
 * the PUs ompbench plans on"; usable is the process's PU set. */
void ompb__slurm_describe(const ompb__slurm_step *s, const struct hwloc_bitmap_s *usable,
                          char *buf, size_t len);

/* When srun bound the task to other PUs than the process may use (a taskset
 * or numactl between srun and the benchmark, or a binding the runtime
 * changed), the warning saying how they differ into buf and true; else
 * false. */
bool ompb__slurm_mismatch(const ompb__slurm_step *s, const struct hwloc_bitmap_s *usable,
                          char *buf, size_t len);

#endif
