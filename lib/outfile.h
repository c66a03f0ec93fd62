/* SPDX-License-Identifier: MIT */
/*
 * Atomic output files: write to a temporary file beside the target, then
 * rename over it, so a reader never sees a partial file and a failed run
 * leaves the previous file untouched.
 */
#ifndef OMPB_OUTFILE_H
#define OMPB_OUTFILE_H

#include <stdio.h>

#include <ompbench/error.h>

typedef struct ompb__outfile {
    FILE *fp;
    char *path;     /* final path */
    char *tmp;      /* temporary path in the same directory */
} ompb__outfile;

/* Opens a temporary file next to path. Returns 0, or OMPB_EIO with err
 * naming the path and the reason (the directory is missing or unwritable). */
int ompb__outfile_open(ompb__outfile *of, const char *path, ompb_error *err);
/* Flushes, fsyncs and renames over path. Returns 0 or OMPB_EIO (then the
 * temporary file is removed and path is untouched). */
int ompb__outfile_commit(ompb__outfile *of, ompb_error *err);
/* Checks that path could be written (creates and removes a temporary file
 * beside it), so a run can refuse a bad path before it starts without
 * leaving a temporary file behind for its whole duration. */
int ompb__outfile_probe(const char *path, ompb_error *err);
/* Removes the temporary file without touching path. */
void ompb__outfile_abort(ompb__outfile *of);

#endif
