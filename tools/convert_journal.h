/* SPDX-License-Identifier: MIT */
/*
 * ompbench convert's side of a run's journal (tools/convert_journal.c): a
 * journal is recognized by its first bytes and turned into the run's JSON
 * report by the benchmark binary that wrote it.
 */
#ifndef OMPB_TOOLS_CONVERT_JOURNAL_H
#define OMPB_TOOLS_CONVERT_JOURNAL_H

#include <stdbool.h>

#include <jansson.h>

/* Whether file begins as a journal does ({"ompbench_journal"). */
bool ompb__convert_is_journal(const char *file);

/* The journal's report as a JSON result file in *root (the caller
 * json_decref's it). Returns 0, or 2 after one line on stderr naming the
 * file and what is wrong. */
int ompb__convert_journal(const char *file, json_t **root);

#endif
