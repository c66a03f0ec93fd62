/* SPDX-License-Identifier: MIT */
/*
 * The part of the OpenMP tools interface (OMPT, OpenMP 5.0 section 4) that
 * lib/main/fork_guard_ompt.c uses, declared here from the specification so
 * that the guard builds with any compiler, without LLVM's omp-tools.h
 * (libomp-dev): the values and signatures are the runtime's ABI. Prefixed
 * ompb__ so that a translation unit may include omp-tools.h beside it.
 * Internal to lib/main.
 */
#ifndef OMPB_OMPT_ABI_H
#define OMPB_OMPT_ABI_H

#include <stdint.h>

typedef union ompb__ompt_data {
    uint64_t value;
    void *ptr;
} ompb__ompt_data;

/* The events registered (ompt_callbacks_t). */
enum {
    OMPB__OMPT_PARALLEL_BEGIN = 3,
    OMPB__OMPT_PARALLEL_END = 4,
    OMPB__OMPT_IMPLICIT_TASK = 7,
    OMPB__OMPT_SYNC_REGION_WAIT = 16
};

/* ompt_set_result_t: what ompt_set_callback answers. */
enum { OMPB__OMPT_SET_ERROR = 0, OMPB__OMPT_SET_NEVER = 1 };

/* ompt_scope_endpoint_t */
enum { OMPB__OMPT_SCOPE_BEGIN = 1, OMPB__OMPT_SCOPE_END = 2 };

/* ompt_parallel_flag_t: the team's kind, in parallel_begin's flags. */
#define OMPB__OMPT_PARALLEL_LEAGUE 0x40000000u
#define OMPB__OMPT_PARALLEL_TEAM 0x80000000u

/* ompt_task_flag_t: an implicit task (not the initial task). */
#define OMPB__OMPT_TASK_IMPLICIT 0x2

/* ompt_sync_region_t: the kinds of barrier (5.0, and 5.1's split of the
 * implicit one into a worksharing construct's and a parallel region's). */
enum {
    OMPB__OMPT_BARRIER = 1,
    OMPB__OMPT_BARRIER_IMPLICIT = 2,
    OMPB__OMPT_BARRIER_EXPLICIT = 3,
    OMPB__OMPT_BARRIER_IMPLEMENTATION = 4,
    OMPB__OMPT_BARRIER_IMPLICIT_WORKSHARE = 8,
    OMPB__OMPT_BARRIER_IMPLICIT_PARALLEL = 9,
    OMPB__OMPT_BARRIER_TEAMS = 10
};

typedef void (*ompb__ompt_callback)(void);
typedef ompb__ompt_callback (*ompb__ompt_lookup)(const char *entry_point);
typedef int (*ompb__ompt_set_callback)(int event, ompb__ompt_callback callback);
typedef int (*ompb__ompt_initialize)(ompb__ompt_lookup lookup, int initial_device_num,
                                     ompb__ompt_data *tool_data);
typedef void (*ompb__ompt_finalize)(ompb__ompt_data *tool_data);

typedef struct ompb__ompt_start_tool_result {
    ompb__ompt_initialize initialize;
    ompb__ompt_finalize finalize;
    ompb__ompt_data tool_data;
} ompb__ompt_start_tool_result;

/* The callbacks' signatures (the frame argument is not read: void *). */
typedef void (*ompb__ompt_parallel_begin)(ompb__ompt_data *encountering_task_data,
                                          const void *encountering_task_frame,
                                          ompb__ompt_data *parallel_data,
                                          unsigned int requested_parallelism, int flags,
                                          const void *codeptr_ra);
typedef void (*ompb__ompt_parallel_end)(ompb__ompt_data *parallel_data,
                                        ompb__ompt_data *encountering_task_data, int flags,
                                        const void *codeptr_ra);
typedef void (*ompb__ompt_implicit_task)(int endpoint, ompb__ompt_data *parallel_data,
                                         ompb__ompt_data *task_data,
                                         unsigned int actual_parallelism, unsigned int index,
                                         int flags);
typedef void (*ompb__ompt_sync_region)(int kind, int endpoint, ompb__ompt_data *parallel_data,
                                       ompb__ompt_data *task_data, const void *codeptr_ra);

#endif
