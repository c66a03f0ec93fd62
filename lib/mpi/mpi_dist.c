/* SPDX-License-Identifier: MIT */
/*
 * The MPI distribution. Every collective is nonblocking and polled against
 * a deadline, so a rank that died or hangs costs the others a bounded wait
 * and a message naming it, then MPI_Abort, not a hang until the job's time
 * limit (errors are returned, MPI_ERRORS_RETURN, never fatal inside MPI).
 *
 * Clocks of different nodes are never subtracted by the engine (each rank
 * measures from its own barrier exit). What that leaves open, how far apart
 * the ranks really leave the barrier, is estimated once here: the offset of
 * each rank's clock to rank 0's by ping-pong (the sample of the shortest
 * round trip, offset = t_remote - (t_send + t_back) / 2, error <= half that
 * round trip: Hoefler, Schneider, Lumsdaine; OSU/IMB practice), then the
 * spread of the exit times of the round-start collective translated to
 * rank 0's clock, median over repetitions.
 */
#include "mpi_dist.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include <ompbench/error.h>

#define PING_PONGS 16
#define SKEW_REPS 31
#define SPIN_NS 200000            /* poll without pause for this long */
#define NAP_AFTER_NS 20000000     /* then yield; after this long, nap 100 us */
#define HINT_FACTOR 4             /* slower ranks may take this many of our rounds */
#define HOST_MAX 256
#define CPUSET_TEXT_MAX 1024
#define WARNING_MAX 512
#define TAG_PING 0x6f6d

struct ompb__mpi_dist {
    int rank, size;
    uint64_t timeout_ns;
    char (*host)[HOST_MAX];        /* rank 0: [size] */
    char (*cpuset)[CPUSET_TEXT_MAX];
    const char **host_p, **cpuset_p;
    int64_t *offset;
    uint64_t *offset_err;
    char warning[WARNING_MAX];
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int mpi_failed(const ompb__mpi_dist *md, int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    fprintf(stderr, "ompbench: rank %d: %s failed: %s (a rank died or left early?)\n",
            md->rank, what, text);
    return OMPB_EIO;
}

/* Polls req until it completes or the deadline passes: spinning first (a
 * round's collectives usually complete in microseconds), then yielding,
 * then napping, so a waiting rank does not take the CPU from a slower one
 * on the same node. */
static int wait_for(const ompb__mpi_dist *md, MPI_Request *req, const char *what,
                    uint64_t hint_ns)
{
    uint64_t begin = now_ns(), limit = md->timeout_ns + HINT_FACTOR * hint_ns;
    for (;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return mpi_failed(md, rc, what);
        if (done)
            return 0;
        uint64_t waited = now_ns() - begin;
        if (waited > limit) {
            fprintf(stderr, "ompbench: rank %d: %s: no answer from every rank within %.1f s "
                    "(a rank died, hangs, or is far slower; OMPB_MPI_TIMEOUT sets the limit, "
                    "now %.1f s)\n", md->rank, what, (double)waited * 1e-9,
                    (double)md->timeout_ns * 1e-9);
            return OMPB_ETIMEDOUT;
        }
        if (waited > NAP_AFTER_NS)
            nanosleep(&(struct timespec){0, 100000}, NULL);
        else if (waited > SPIN_NS)
            sched_yield();
    }
}

static int op_max_i64(void *ctx, int64_t *v, int n, uint64_t wait_hint_ns)
{
    ompb__mpi_dist *md = ctx;
    MPI_Request req;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS)
        return mpi_failed(md, rc, "MPI_Iallreduce");
    return wait_for(md, &req, "the ranks' round agreement (MPI_Iallreduce)", wait_hint_ns);
}

static int op_gather(void *ctx, const void *send, size_t bytes, void *recv)
{
    ompb__mpi_dist *md = ctx;
    if (bytes > (size_t)INT32_MAX) {
        fprintf(stderr, "ompbench: rank %d: %zu bytes to gather: too many for one MPI call\n",
                md->rank, bytes);
        return OMPB_EINVAL;
    }
    MPI_Request req;
    int rc = MPI_Igather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, 0,
                         MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS)
        return mpi_failed(md, rc, "MPI_Igather");
    return wait_for(md, &req, "gathering the ranks' rounds on rank 0 (MPI_Igather)", 0);
}

static void op_abort(void *ctx, int status)
{
    (void)ctx;
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

/* The PUs this rank may run on, as a list "0-3,8". */
static void cpuset_text(const cpu_set_t *set, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && pos < len; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
            e++;
        int w = e > c ? snprintf(buf + pos, len - pos, "%s%d-%d", pos ? "," : "", c, e)
                      : snprintf(buf + pos, len - pos, "%s%d", pos ? "," : "", c);
        pos += w > 0 ? (size_t)w : 0;
        c = e;
    }
}

/* Gathers a fixed-size text of every rank on rank 0. */
static int gather_text(ompb__mpi_dist *md, const char *mine, size_t len, char *all)
{
    char *buf = calloc(1, len);
    if (!buf)
        return OMPB_ENOMEM;
    snprintf(buf, len, "%s", mine);
    int rc = op_gather(md, buf, len, md->rank == 0 ? all : NULL);
    free(buf);
    return rc;
}

/* Warns when two ranks of one host may run on a common PU: their pin plans
 * then put threads of both on one PU (the launcher did not bind them apart). */
static void check_overlap(ompb__mpi_dist *md, const cpu_set_t *sets)
{
    for (int a = 0; a < md->size; a++)
        for (int b = a + 1; b < md->size; b++) {
            cpu_set_t both;
            CPU_AND(&both, &sets[a], &sets[b]);
            if (strcmp(md->host[a], md->host[b]) != 0 || CPU_COUNT(&both) == 0)
                continue;
            char common[128];
            cpuset_text(&both, common, sizeof common);
            snprintf(md->warning, sizeof md->warning,
                     "ranks %d and %d on host %.64s may both run on PUs %s: their pin plans "
                     "overlap and the ranks share cores; bind each rank to its own PUs with "
                     "the launcher (mpirun --map-by slot:PE=T --bind-to core, srun "
                     "--cpus-per-task=T --cpu-bind=cores)", a, b, md->host[a], common);
            return;
        }
}

static int describe_ranks(ompb__mpi_dist *md)
{
    char host[MPI_MAX_PROCESSOR_NAME] = "unknown";
    int len = 0;
    if (MPI_Get_processor_name(host, &len) != MPI_SUCCESS)
        snprintf(host, sizeof host, "unknown");
    cpu_set_t mine, *sets = md->rank == 0 ? calloc((size_t)md->size, sizeof *sets) : NULL;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine);
    char text[CPUSET_TEXT_MAX];
    cpuset_text(&mine, text, sizeof text);
    if (md->rank == 0 && !sets)
        return OMPB_ENOMEM;
    int rc = gather_text(md, host, HOST_MAX, md->rank == 0 ? md->host[0] : NULL);
    rc = rc ? rc : gather_text(md, text, CPUSET_TEXT_MAX, md->rank == 0 ? md->cpuset[0] : NULL);
    rc = rc ? rc : op_gather(md, &mine, sizeof mine, sets);
    if (rc == 0 && md->rank == 0)
        check_overlap(md, sets);
    free(sets);
    return rc;
}

/* One ping-pong between rank 0 and rank k; rank 0 keeps the sample of the
 * shortest round trip. */
static int ping_pong(ompb__mpi_dist *md, int k)
{
    for (int i = 0; i < PING_PONGS; i++) {
        MPI_Request req;
        int64_t t[2] = {0, 0};
        if (md->rank == 0) {
            uint64_t t0 = now_ns();
            int rc = MPI_Isend(&t[0], 1, MPI_INT64_T, k, TAG_PING, MPI_COMM_WORLD, &req);
            rc = rc ? rc : wait_for(md, &req, "clock ping-pong (send)", 0);
            rc = rc ? rc : MPI_Irecv(&t[1], 1, MPI_INT64_T, k, TAG_PING, MPI_COMM_WORLD, &req);
            rc = rc ? rc : wait_for(md, &req, "clock ping-pong (answer)", 0);
            if (rc)
                return rc;
            uint64_t t2 = now_ns(), half = (t2 - t0) / 2;
            if (i == 0 || half < md->offset_err[k]) {
                md->offset_err[k] = half;
                md->offset[k] = t[1] - (int64_t)(t0 + half);
            }
        } else if (md->rank == k) {
            int rc = MPI_Irecv(&t[0], 1, MPI_INT64_T, 0, TAG_PING, MPI_COMM_WORLD, &req);
            rc = rc ? rc : wait_for(md, &req, "clock ping-pong (receive)", 0);
            t[1] = (int64_t)now_ns();
            rc = rc ? rc : MPI_Isend(&t[1], 1, MPI_INT64_T, 0, TAG_PING, MPI_COMM_WORLD, &req);
            rc = rc ? rc : wait_for(md, &req, "clock ping-pong (reply)", 0);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The spread of the exit times of the engine's round-start collective (an
 * all-reduce), on rank 0's clock: median over SKEW_REPS. */
static int exit_skew(ompb__mpi_dist *md, double *skew)
{
    uint64_t spreads[SKEW_REPS];
    int64_t *exits = md->rank == 0 ? calloc((size_t)md->size, sizeof *exits) : NULL;
    if (md->rank == 0 && !exits)
        return OMPB_ENOMEM;
    int rc = 0;
    for (int i = 0; i < SKEW_REPS && rc == 0; i++) {
        int64_t x = 0;
        rc = op_max_i64(md, &x, 1, 0);
        int64_t t = (int64_t)now_ns();
        rc = rc ? rc : op_gather(md, &t, sizeof t, exits);
        if (rc || md->rank != 0)
            continue;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int k = 0; k < md->size; k++) {
            int64_t e = exits[k] - md->offset[k];
            lo = e < lo ? e : lo;
            hi = e > hi ? e : hi;
        }
        spreads[i] = (uint64_t)(hi - lo);
    }
    free(exits);
    if (rc == 0 && md->rank == 0) {
        qsort(spreads, SKEW_REPS, sizeof spreads[0], cmp_u64);
        *skew = (double)spreads[SKEW_REPS / 2];
    }
    return rc;
}

void ompb__mpi_dist_free(ompb__mpi_dist *md)
{
    if (!md)
        return;
    free(md->host);
    free(md->cpuset);
    free(md->host_p);
    free(md->cpuset_p);
    free(md->offset);
    free(md->offset_err);
    free(md);
}

static int alloc_rank0(ompb__mpi_dist *md)
{
    size_t n = (size_t)md->size;
    md->offset = calloc(n, sizeof *md->offset);
    md->offset_err = calloc(n, sizeof *md->offset_err);
    if (md->rank != 0)
        return md->offset && md->offset_err ? 0 : OMPB_ENOMEM;
    md->host = calloc(n, sizeof *md->host);
    md->cpuset = calloc(n, sizeof *md->cpuset);
    md->host_p = calloc(n, sizeof *md->host_p);
    md->cpuset_p = calloc(n, sizeof *md->cpuset_p);
    if (!md->offset || !md->offset_err || !md->host || !md->cpuset || !md->host_p
        || !md->cpuset_p)
        return OMPB_ENOMEM;
    for (size_t k = 0; k < n; k++) {
        md->host_p[k] = md->host[k];
        md->cpuset_p[k] = md->cpuset[k];
    }
    return 0;
}

ompb__mpi_dist *ompb__mpi_dist_new(double timeout_s, ompb_distribution *out)
{
    ompb__mpi_dist *md = calloc(1, sizeof *md);
    if (!md)
        return NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &md->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &md->size);
    md->timeout_ns = (uint64_t)(timeout_s * 1e9);
    int len = 0;
    if (MPI_Get_library_version(md->library, &len) != MPI_SUCCESS)
        md->library[0] = '\0';
    md->library[strcspn(md->library, ",\n")] = '\0';
    double skew = 0;
    int rc = alloc_rank0(md);
    rc = rc ? rc : describe_ranks(md);
    for (int k = 1; rc == 0 && k < md->size; k++)
        rc = ping_pong(md, k);
    rc = rc ? rc : exit_skew(md, &skew);
    if (rc) {
        if (rc == OMPB_ENOMEM)
            fprintf(stderr, "ompbench: rank %d: out of memory\n", md->rank);
        ompb__mpi_dist_free(md);
        return NULL;
    }
    *out = (ompb_distribution){
        .rank = md->rank, .size = md->size, .ctx = md, .max_i64 = op_max_i64,
        .gather = op_gather, .abort = op_abort, .hosts = md->host_p,
        .cpusets = md->cpuset_p, .clock_offset_ns = md->offset,
        .clock_offset_error_ns = md->offset_err, .barrier_exit_skew_ns = skew,
        .clock_method = "bounds relative to each rank's own exit of the round-start "
                        "all-reduce; offsets to rank 0 by ping-pong (shortest round trip), "
                        "exit skew = median spread of that collective's exits on rank 0's clock",
        .warning = md->warning[0] ? md->warning : NULL,
        .library = md->library[0] ? md->library : NULL,
    };
    return md;
}
