/* SPDX-License-Identifier: MIT */
/*
 * A hybrid MPI + OpenMP benchmark: 2-D Jacobi sweeps of a plate split into
 * horizontal strips, one strip per MPI rank. Each iteration exchanges the
 * halo rows with the ranks above and below (MPI_Sendrecv, on the calling
 * thread: MPI_THREAD_FUNNELED) and then sweeps the strip with an OpenMP
 * parallel for: a caller team (OMPB_TEAM_CALLER), since the code forks its
 * own team. Linked to ompbench::mpi; run it with
 *
 *   OMP_NUM_THREADS=2 mpirun -np 2 build/benches/halo
 *
 * The argument is the number of rows of each rank's strip (weak scaling:
 * the plate grows with the ranks, declared as .scaling = OMPB_SCALING_WEAK);
 * the strips are COLS columns wide.
 */
#include <ompbench.h>

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define COLS 1024

typedef struct strip {
    int rank, size;
    size_t rows;                /* interior rows of this rank */
    double *cur, *next;         /* (rows + 2) x COLS: halo row above and below */
} strip;

static int strip_setup(ompb_state *state)
{
    strip *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    s->rows = (size_t)ompb_arg(state);
    size_t cells = (s->rows + 2) * COLS;
    s->cur = calloc(cells, sizeof *s->cur);
    s->next = calloc(cells, sizeof *s->next);
    if (!s->cur || !s->next) {
        free(s->cur);
        free(s->next);
        free(s);
        return -1;
    }
    /* The plate's top edge is held at 1: rank 0's upper halo row. */
    for (size_t j = 0; s->rank == 0 && j < COLS; j++)
        s->cur[j] = s->next[j] = 1.0;
    ompb_set_data(state, s);
    return 0;
}

static void strip_teardown(ompb_state *state)
{
    strip *s = ompb_data(state);
    free(s->cur);
    free(s->next);
    free(s);
}

/* Sends the first and last interior rows to the neighbours and receives
 * their rows into the halo rows; the plate's edges have no neighbour. */
static void exchange_halos(strip *s)
{
    int up = s->rank > 0 ? s->rank - 1 : MPI_PROC_NULL;
    int down = s->rank + 1 < s->size ? s->rank + 1 : MPI_PROC_NULL;
    double *first = s->cur + COLS, *last = s->cur + s->rows * COLS;
    MPI_Sendrecv(first, COLS, MPI_DOUBLE, up, 0, s->cur + (s->rows + 1) * COLS, COLS,
                 MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(last, COLS, MPI_DOUBLE, down, 1, s->cur, COLS, MPI_DOUBLE, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void sweep(strip *s)
{
    const double *c = s->cur;
    double *n = s->next;
    long rows = (long)s->rows;
#pragma omp parallel for schedule(static)
    for (long i = 1; i <= rows; i++)
        for (size_t j = 1; j < COLS - 1; j++)
            n[i * COLS + j] = 0.25 * (c[(i - 1) * COLS + j] + c[(i + 1) * COLS + j] +
                                      c[i * COLS + j - 1] + c[i * COLS + j + 1]);
    double *t = s->cur;
    s->cur = s->next;
    s->next = t;
}

OMPB_BENCH(halo_jacobi, OMPB_ARGS(64, 512), .team = OMPB_TEAM_CALLER, .setup = strip_setup,
           .teardown = strip_teardown, .scaling = OMPB_SCALING_WEAK)
{
    strip *s = ompb_data(state);
    /* Bytes this rank's sweep reads and writes per iteration. */
    ompb_set_bytes(state, 2 * s->rows * COLS * sizeof(double));
    OMPB_ITER(state) {
        exchange_halos(s);
        sweep(s);
        ompb_black_box_ptr(s->cur);
    }
}
