/* SPDX-License-Identifier: MIT */
/*
 * The face of tools/lib/analysis/ (layer analysis: the tool's result files,
 * compare, scaling, sequential tests, convert, ab's decisions and report): what the command's files
 * (tools/NAME.c) and the HTML page include of it, and all they include
 * (tests/boundary/layers.txt, checked by boundary.include_rule). The
 * statistics (welch.h), the code identity (codeid.h) and the name index
 * come in through compare.h and resultfile.h; codeid_elf.h, codeid_x86.h
 * stay private to the folder.
 */
#ifndef OMPB_ANALYSIS_ANALYSIS_H
#define OMPB_ANALYSIS_ANALYSIS_H

#include "analysis/ab.h"
#include "analysis/compare.h"
#include "analysis/convert.h"
#include "analysis/metric.h"
#include "analysis/resultfile.h"
#include "analysis/scaling.h"
#include "analysis/sequential.h"
#include "analysis/units.h"

#endif
