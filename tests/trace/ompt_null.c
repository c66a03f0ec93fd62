/* SPDX-License-Identifier: MIT */
/*
 * An OMPT tool that registers the callbacks `ompbench trace`'s tool
 * registers on libomp (lib/main/fork_guard_ompt.c: parallel_begin and
 * parallel_end, implicit_task, sync_region_wait) and does nothing in them:
 * preloaded into tests/trace/cost.c by `RUNTIME=libomp
 * benches/trace_cost.sh`, it measures what the runtime's OMPT dispatch
 * costs a region by itself, apart from the trace's own work. Built there
 * by clang, whose omp-tools.h declares the interface; not a test.
 */
#include <omp-tools.h>

static void parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                           unsigned requested, int flags, const void *ra)
{
    (void)task, (void)frame, (void)parallel, (void)requested, (void)flags, (void)ra;
}

static void parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *ra)
{
    (void)parallel, (void)task, (void)flags, (void)ra;
}

static void implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                          ompt_data_t *task, unsigned actual, unsigned index, int flags)
{
    (void)endpoint, (void)parallel, (void)task, (void)actual, (void)index, (void)flags;
}

static void sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                      ompt_data_t *parallel, ompt_data_t *task, const void *ra)
{
    (void)kind, (void)endpoint, (void)parallel, (void)task, (void)ra;
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set)
        return 0;
    set(ompt_callback_parallel_begin, (ompt_callback_t)parallel_begin);
    set(ompt_callback_parallel_end, (ompt_callback_t)parallel_end);
    set(ompt_callback_implicit_task, (ompt_callback_t)implicit_task);
    set(ompt_callback_sync_region_wait, (ompt_callback_t)sync_wait);
    return 1;
}

static void finalize(ompt_data_t *data)
{
    (void)data;
}

/* The runtime's entry into the tool (omp-tools.h declares it only for
 * some compilers). */
ompt_start_tool_result_t *ompt_start_tool(unsigned version, const char *runtime);

ompt_start_tool_result_t *ompt_start_tool(unsigned version, const char *runtime)
{
    (void)version, (void)runtime;
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}
