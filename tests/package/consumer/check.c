/* SPDX-License-Identifier: MIT */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

void consumer_check_team(ompb_state *state, const char *lang, int seen)
{
    int want = ompb_thread_count(state);
    if (seen != want) {
        fprintf(stderr, "consumer: FAIL: %s benchmark %s: its parallel region had %d thread(s), "
                "the round %d: was the %s source compiled without OpenMP?\n",
                lang, ompb_instance_name(state), seen, want, lang);
        abort();
    }
    ompb_counter(state, "team_seen", (double)seen, OMPB_COUNTER_PER_ITERATION);
}
