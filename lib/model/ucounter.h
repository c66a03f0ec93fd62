/* SPDX-License-Identifier: MIT */
/*
 * User counters (ompb_counter, include/ompbench/bench.h): each thread adds
 * named values into its own slots of its ompb_state, lock-free; after each
 * round's barrier the engine's master merges the team's slots into the
 * record's table of names and one team total per name and round. The
 * reports turn the totals into figures (lib/report/ucounters.c) by the
 * flags. Names are checked once, on a thread's first use of a slot; a bad
 * call is kept as one message that fails the instance at the round's end.
 */
#ifndef OMPB_UCOUNTER_H
#define OMPB_UCOUNTER_H

#include <stdbool.h>
#include <stddef.h>

/* Names one benchmark may use, and room for a name with its NUL. */
#define OMPB__UCOUNTERS_MAX 8
#define OMPB__UCOUNTER_NAME_MAX 48
/* Every flag ompb_counter accepts. */
#define OMPB__UCOUNTER_FLAGS 7u

typedef struct ompb__ucounter_slot {
    char name[OMPB__UCOUNTER_NAME_MAX];
    unsigned flags;
    double value;              /* this thread's sum in the current round */
} ompb__ucounter_slot;

/* One thread's counters (inside its ompb_state). A caller team's state is
 * shared: the threads of the team the body forks all add into it, so
 * names are published with release/acquire, new names take a lock and
 * values are added with compare-and-swap (ompb__ucounter_add). */
typedef struct ompb__ucounters {
    int n;                     /* slots in use; read with acquire when shared */
    bool shared;               /* several threads add into these slots */
    int lock;                  /* shared: held while a new name is added */
    int error_claimed;         /* the first failure owns error */
    /* The run's --counters events: a user counter may not take one of
     * their names (two columns, and an ambiguous compare --metric). */
    const struct ompb__counter_set *events;
    ompb__ucounter_slot slot[OMPB__UCOUNTERS_MAX];
    char error[256];           /* the first bad call, "" when none */
} ompb__ucounters;

/* The names a record's counters have, in order of first use. */
typedef struct ompb__ucounter_table {
    int n;
    char name[OMPB__UCOUNTERS_MAX][OMPB__UCOUNTER_NAME_MAX];
    unsigned flags[OMPB__UCOUNTERS_MAX];
} ompb__ucounter_table;

/* Whether name may be a user counter: 1-47 of A-Z a-z 0-9 _ . -, and not
 * a key or column the reports already write for a run. */
bool ompb__ucounter_name_ok(const char *name);

/* Adds value to u's slot `name` (ompb_counter). Returns 0 or OMPB_EINVAL,
 * keeping the first failure's message in u->error. Safe from several
 * threads at once when u->shared is set (exact sums). */
int ompb__ucounter_add(ompb__ucounters *u, const char *name, double value, unsigned flags);

/* The --counters event of events (canonical or as given) that name is,
 * as given; NULL when none (or events is NULL). */
const char *ompb__ucounter_event_clash(const struct ompb__counter_set *events,
                                       const char *name);

/* Zeroes the values (before each round); names and flags stay. */
void ompb__ucounters_reset(ompb__ucounters *u);

/* Master, after a round: merges u's names into tab and adds its values into
 * row[OMPB__UCOUNTERS_MAX] (row may be NULL for an unmeasured round).
 * Returns 0, or OMPB_EINVAL with why filled (u's own error, a ninth name
 * in the team, or other flags for a name than the table's). */
int ompb__ucounters_collect(ompb__ucounter_table *tab, const ompb__ucounters *u, double *row,
                            char *why, size_t len);

/* Index of name in tab, -1 when absent. */
int ompb__ucounter_find(const ompb__ucounter_table *tab, const char *name);

/* "rate,per_iteration,avg_threads" or "sum": flags as words, into buf. */
const char *ompb__ucounter_flag_words(unsigned flags, char *buf, size_t len);
/* The reverse of one word; false when it is none of them. */
bool ompb__ucounter_flag_of_word(const char *word, unsigned *flag);

#endif
