/* SPDX-License-Identifier: MIT */
/*
 * --exact-file FILE: a selection by exact instance names read from a file,
 * one name per line. It exists for `ompbench ab`, which runs again only
 * the instances still open: thousands of names joined into one --filter
 * went over the kernel's 128 KiB limit on one argument ("Argument list too
 * long"). The names are sorted once and looked up by binary search, so a
 * selection of n names out of m instances costs O((n + m) log n).
 */
#ifndef OMPB_CONFIG_NAMES_FILE_H
#define OMPB_CONFIG_NAMES_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include <ompbench/error.h>

/* Zero-initialized: no file given. */
typedef struct ompb__names_file {
    const char *path;           /* as given; NULL: none */
    char *text;                 /* the file's bytes, lines cut at '\n' */
    const char **names;         /* sorted, into text; empty lines left out */
    size_t n;
} ompb__names_file;

/* Reads path (a trailing '\r' of a line is dropped). Returns 0, or
 * OMPB_EINVAL / OMPB_ENOMEM with one line in err naming opt and the path. */
int ompb__names_file_load(ompb__names_file *nf, const char *path, const char *opt,
                          ompb_error *err);
/* Whether name is one of the file's lines exactly. */
bool ompb__names_file_has(const ompb__names_file *nf, const char *name);
void ompb__names_file_release(ompb__names_file *nf);

#endif
