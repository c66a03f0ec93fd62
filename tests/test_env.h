/* SPDX-License-Identifier: MIT */
/*
 * Engine environments for the unit tests (lib/engine/engine_env.h): doubles that
 * record what the engine asked of them, so that a round runs with no
 * process-wide collaborator. A marker sink that counts instance_begin and
 * instance_end (and keeps the last close flag and round count), body hooks
 * whose stop signal a test sets and which keep the team they were given,
 * and the GNU fork guard's watch (ompbench::fork_guard, linked into the test
 * runner) with the coverage its installation showed. One process unless a
 * test points env.dist at a fake distribution of its own.
 */
#ifndef OMPB_TEST_ENV_H
#define OMPB_TEST_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine_env.h"
#include "fixtures.h" /* ompb_test_instance */

typedef struct ompb_test_env {
    ompb__engine_env env;        /* what the engine is given */
    /* marker sink */
    int begins, ends;
    const ompb__instance *begun; /* the last instance_begin's */
    bool last_close;             /* the last instance_end's close */
    size_t ended_rounds;         /* rec->rounds at the last instance_end */
    bool ended_failed;           /* rec->failed at the last instance_end */
    /* body hooks */
    int stop_signal;             /* what stop_signal returns */
    int signal_reads;
    int team_calls;
    int thread_calls;            /* thread_begin calls, all threads */
    const struct ompb_state *team_states; /* the last team given (NULL: none) */
    int team_threads;
} ompb_test_env;

/* Fills te as described above and returns &te->env. */
const ompb__engine_env *ompb_test_env_init(ompb_test_env *te);

/* The default environment of a run (ompb__engine_env_default), for suites
 * that test what a run does with the process-wide collaborators. */
const ompb__engine_env *ompb_test_env_default(void);

#endif
