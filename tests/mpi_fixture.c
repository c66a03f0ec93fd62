/* SPDX-License-Identifier: MIT */
/*
 * Benchmarks for the MPI tests (tests/mpi/): bodies whose work depends on
 * the rank, so that the tests can make one rank slower than the other or
 * make a rank disappear. Linked to ompbench::mpi; the rank is read in
 * .setup, on the thread that calls MPI.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <ompbench.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static int rank;

static int read_rank(ompb_state *state)
{
    (void)state;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return 0;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Rank 1 sleeps OMPB_FIXTURE_SLOW_US per iteration (default 4000); every
 * other rank does next to nothing: the rank imbalance is close to 2. */
OMPB_BENCH(slow_rank, .setup = read_rank, .sample_size = 1)
{
    const char *v = getenv("OMPB_FIXTURE_SLOW_US");
    long us = v ? atol(v) : 4000;
    OMPB_ITER(state) {
        if (rank == 1)
            sleep_us(us);
    }
}

/* Sleeps 1 ms per iteration on every rank; writes this rank's pid to
 * $OMPB_FIXTURE_PID_DIR/rank<N>.pid first, so a test can kill or stop it. */
static int write_pid(ompb_state *state)
{
    read_rank(state);
    const char *dir = getenv("OMPB_FIXTURE_PID_DIR");
    if (!dir)
        return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.pid", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "%d\n", (int)getpid());
    return fclose(f) == 0 ? 0 : -1;
}

OMPB_BENCH(steady, .setup = write_pid, .sample_size = 1)
{
    OMPB_ITER(state) {
        sleep_us(1000);
    }
}

/* The rank named by $OMPB_FIXTURE_EXIT_RANK calls exit(0) in its body
 * (tests/mpi/hostile_exit.sh); unset, a body that does next to nothing. */
OMPB_BENCH(exits, .setup = read_rank, .sample_size = 1)
{
    const char *v = getenv("OMPB_FIXTURE_EXIT_RANK");
    OMPB_ITER(state) {
        if (v && atoi(v) == rank)
            exit(0);
    }
}
