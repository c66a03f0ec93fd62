/* SPDX-License-Identifier: MIT */
/*
 * Region markers for application code: time named parts of a real program
 * (a solver's sweep, a halo exchange, an I/O phase) the way ompbench times a
 * benchmark round.
 *
 *     #pragma omp parallel
 *     for (int it = 0; it < iterations; it++) {
 *         ompb_region_begin("sweep");
 *         #pragma omp for
 *         for (...) ...;
 *         ompb_region_end("sweep");
 *     }
 *
 * Collective form: every thread of the enclosing OpenMP team calls
 * ompb_region_begin and ompb_region_end, as above. One instance of a region
 * is one begin/end by each thread of the team; the library pairs them (the
 * k-th begin/end of thread t with the k-th of every other thread of the same
 * team) and reduces each instance as a benchmark round: makespan = max end -
 * min start, each thread's busy time (end - start), start skew and
 * imbalance. Serial form: one thread outside any parallel region (or any
 * thread that is not an OpenMP team thread, a pthread say) is a team of one.
 * Teams of different sizes are separate: a region entered by teams of 2 and
 * of 4 threads is reported as region:NAME[t=2] and region:NAME[t=4]. A
 * serial region whose thread begins regions in teams it forks (a phase
 * region around parallel loops that are themselves marked) is named by
 * those teams' width, so runs at OMP_NUM_THREADS=1 and 2 give
 * region:NAME[t=1] and region:NAME[t=2] (docs/guide.md, "Phase regions").
 *
 * No initialization call: the first call sets everything up, whenever and
 * wherever it happens (before or inside the first parallel region). On the
 * hot path, after a thread's first use of a name, a call reads the clock
 * (CLOCK_MONOTONIC through the vDSO) and writes the thread's own memory: no
 * lock waited for, no system call, and no allocation but the few below.
 * Every quarter of its buffer (16 instances, then 128 once a thread has
 * run the region 512 times), thread 0 of the team folds the team's
 * instances into the region's statistics, if no other team is folding
 * into them right then. Allocations after the first use, all counted:
 * per entry (region and team size), at most 4 while the kept instances
 * grow (folds of the 16th, 64th, 256th and 1024th kept instance) and 1 for
 * the histogram (once past 1024 instances); per thread, 1 when its buffer
 * grows at its 512th instance, and up to 11 doublings for a thread that
 * runs more than a buffer ahead of the slowest thread of its team; under
 * the CodSpeed runner, the open window's marker buffer doubles from 1024
 * pairs. tests/integration/region_alloc.sh counts them.
 *
 * Results: at exit, and whenever the program calls ompb_regions_report(),
 * every region is reported as one entry per team size in ompbench's console,
 * JSON or CSV format (docs/guide.md, "Marking regions in your application";
 * docs/json.md). Under the CodSpeed runner, regions also reach the runner
 * (docs/protocol.md, "Application regions").
 *
 * Environment, read once when the library is loaded (bad values stop the
 * program before main() with a message naming the value, exit status 2):
 *   OMPB_REGIONS=0            every call returns at once (one branch);
 *                             ompb_regions_report() writes nothing, returns 0
 *   OMPB_REGIONS_OUTPUT=FILE  where reports go ("%p" becomes the process
 *                             id; "-" is standard output); default: the
 *                             console table on standard error
 *   OMPB_REGIONS_FORMAT=FMT   console, json or csv; default: from FILE's
 *                             extension (.json, .csv), else console
 *
 * Compiling with -DOMPB_REGIONS_DISABLE turns ompb_region_begin and
 * ompb_region_end into nothing: their arguments are then not evaluated
 * (only compiled, so a variable holding the name is not unused), so
 * do not put side effects in them (with OMPB_REGIONS=0 they are evaluated,
 * as any function argument); ompb_regions_report then returns 0 without
 * reporting. Nothing of the library is referenced.
 *
 * Misuse never crashes and never takes other regions down: begin without
 * end, end without begin, mismatched names, recursion into a region already
 * open on the thread, threads of a team that skip an instance, an invalid
 * name, two teams using one name at once. Each gives one message on standard
 * error naming the region, the thread and the call site, and marks that
 * region's entry failed (with the message) in every report; the other
 * regions are reported as usual.
 */
#ifndef OMPBENCH_REGION_H
#define OMPBENCH_REGION_H

#include <ompbench/counter.h>
#include <ompbench/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest region name, in bytes (UTF-8). A longer name, an empty one, one
 * that is not UTF-8, or one with a control character (C0, DEL, C1) or a
 * bracket ('[' or ']', which would make region:NAME[t=T] ambiguous) is an
 * error of its own region entry (its instances still recorded, shown with
 * those bytes escaped as \xNN and the region's number, "~N"), never of the
 * others. */
#define OMPB_REGION_NAME_MAX 200

/* The functions behind ompb_region_begin / ompb_region_end; call them
 * through the macros, which pass the call site. name: the region's name
 * (any string; compared by content, so a name built in a buffer works);
 * file and line: the call site, for URIs and messages. The first call
 * site's file names the region in URIs ("<file>::region:NAME[t=T]").
 * Never fail: a misuse is reported as described above. */
OMPB_API void ompb_region_begin_at(const char *name, const char *file, int line);
OMPB_API void ompb_region_end_at(const char *name, const char *file, int line);

/*
 * A user counter of a region (the region form of ompb_counter): adds value
 * to this thread's counter `name` of its innermost open instance of
 * `region` (call it between that region's begin and end), lock-free. The
 * report shows it like a benchmark's user counter (a console column, a
 * top-level key of the JSON entry, a CSV column), over every instance:
 * the team's total per instance, or with OMPB_COUNTER_RATE the team's
 * total over the sum of the instances' makespans ("lookups per second" of a
 * marked loop); OMPB_COUNTER_AVG_THREADS divides by the team size, and
 * OMPB_COUNTER_PER_ITERATION changes nothing (an instance is one
 * iteration). Names and flags as ompb_counter takes them (at most 8 per
 * region over all its threads, the same flags on every call: a call with a
 * ninth name is refused). Returns 0; OMPB_EINVAL
 * (nothing added) when no instance of region is open on this thread, or
 * for a name, flags or value ompb_counter refuses: the first such call of
 * the process prints one line on standard error naming the region, the
 * counter and why. With OMPB_REGIONS=0 or -DOMPB_REGIONS_DISABLE: 0, nothing.
 */
OMPB_API int ompb_region_counter(const char *region, const char *name, double value,
                                 unsigned flags);

/*
 * Writes the report of every region instance completed so far (cumulative:
 * each report holds everything since the start) and, under the CodSpeed
 * runner, hands the runner what it has buffered (a region-set boundary:
 * call it between the phases of a program to give each phase's first
 * region a runner window of its own, see docs/protocol.md).
 *
 * path: a file (written atomically: a failed report leaves no partial file
 * and the previous one untouched), "-" for standard output, or NULL for
 * OMPB_REGIONS_OUTPUT, else the console table on standard error. format:
 * "console", "json", "csv", or NULL for OMPB_REGIONS_FORMAT, else the
 * path's extension, else console. Instances still open are not in this
 * report; they are in the next. Call it from outside every region: the
 * report's own time is not measured, but a region open on the calling
 * thread contains it; called so, it warns, and sends nothing to the
 * CodSpeed runner (that waits for a report outside regions, or exit).
 *
 * At exit the report is written again, to OMPB_REGIONS_OUTPUT or standard
 * error, when anything happened since the last one (instances completed,
 * misuse found). That report is the last: a call made after it began (from
 * an atexit handler or a destructor run later) writes nothing and returns 0.
 *
 * Returns 0; OMPB_ERUN when the report was written but a region failed
 * (misuse); OMPB_EINVAL for an unknown format (nothing written; a message
 * names it); OMPB_EIO when the file could not be written; OMPB_ENOMEM.
 * Safe to call from any thread at any time.
 */
OMPB_API int ompb_regions_report(const char *path, const char *format);

#ifdef OMPB_REGIONS_DISABLE
/* Inside sizeof the argument is compiled and type-checked (a variable
 * holding the name counts as used) but never evaluated, and the function
 * is never called. */
static inline int ompb_region_disabled(const char *name)
{
    (void)name;
    return 0;
}
#define ompb_region_begin(name) ((void)sizeof(ompb_region_disabled(name)))
#define ompb_region_end(name) ((void)sizeof(ompb_region_disabled(name)))
/* Reports nothing and returns 0 (its arguments are evaluated). */
static inline int ompb_regions_report_disabled(const char *path, const char *format)
{
    (void)path;
    (void)format;
    return 0;
}
#define ompb_regions_report(path, format) ompb_regions_report_disabled((path), (format))
static inline int ompb_region_counter_disabled(const char *region, const char *name,
                                               double value, unsigned flags)
{
    (void)region;
    (void)name;
    (void)value;
    (void)flags;
    return 0;
}
#define ompb_region_counter(region, name, value, flags)                            \
    ompb_region_counter_disabled((region), (name), (value), (flags))
#else
/* Begin and end of one region on the calling thread (see the top). */
#define ompb_region_begin(name) ompb_region_begin_at((name), __FILE__, __LINE__)
#define ompb_region_end(name) ompb_region_end_at((name), __FILE__, __LINE__)
#endif

#ifdef __cplusplus
}
#endif

#endif /* OMPBENCH_REGION_H */
