/* SPDX-License-Identifier: MIT */
/*
 * The round engine's calibration (lib/engine/round_calibrate.c), part of the team
 * core: how long a round should be, how many iterations make one, and
 * whether the measured rounds agree. Called by the master only, between
 * rounds.
 */
#ifndef OMPB_ROUND_CALIBRATE_H
#define OMPB_ROUND_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/round_team.h"

/* Before the first round. A calibrated measurement needs the cost of a
 * team barrier first: barrier_limit says whether it does (a calibrated
 * harness team; a caller team's round no barrier brackets) and how long
 * measuring it may take. setup then takes that cost (0 when none was
 * measured) and whether its measurement was complete, sets the phase and
 * sample size to start from and, when calibrating, the round target
 * (agreed across the ranks of the team's distribution). */
bool ompb__calibrate_barrier_limit(const ompb__team *tm, uint64_t *limit_ns);
void ompb__calibrate_setup(ompb__team *tm, double barrier_ns, bool complete);

/* One calibration round of the slowest thread's busy time: grows the
 * sample size until the lowest trusted time per iteration says it reaches
 * the target, or half the budget is gone (then the last size stands, and
 * the first measured rounds check it); moves to the warm-up when done.
 * false: the round time does not grow with the sample size (the largest
 * size ran): the caller fails the instance. */
bool ompb__calibrate_step(ompb__team *tm, uint64_t busy, uint64_t spent, uint64_t now);

/* After the first OMPB__CALIB_CHECK_ROUNDS measured rounds of a calibrated
 * instance: true when they disagree with the calibration and it is redone,
 * from a size predicted from them (the rounds measured so far are
 * dropped); marks the instance when they disagree and the retries or half
 * the budget are spent. */
bool ompb__calibrate_recheck(ompb__team *tm, uint64_t spent);

/* After the last measured round: marks a calibrated instance whose rounds'
 * median (of the slowest thread's busy time) stayed far below the target,
 * whether or not the check ran (the budget may end the rounds before it). */
void ompb__calibrate_check_measured(ompb__team *tm);

/* Why fewer rounds than asked were measured, for the record. */
void ompb__calibrate_explain_short(ompb__team *tm, uint64_t spent);

#endif
