/* SPDX-License-Identifier: MIT */
/*
 * Internal to the Fortran module's library (libompbench_fortran): the C
 * functions its ISO_C_BINDING interfaces call for the region markers.
 * Fortran strings come as bytes and a length (no NUL).
 */
#ifndef OMPB_FORTRAN_INTERN_H
#define OMPB_FORTRAN_INTERN_H

#include <stddef.h>

/* A NUL-terminated copy of text[0..len) that lives as long as the process
 * (a NUL inside text written as the four characters \x00), the same
 * pointer for the same bytes; NULL when out of memory. Safe from any
 * thread; each lookup costs the same whatever the number of names. */
const char *ompb__fortran_intern(const char *text, size_t len);

/* ompb_region_begin_at / ompb_region_end_at with interned name and file;
 * file_len 0 stands for "(fortran)". */
void ompb__fortran_region_begin(const char *name, size_t name_len, const char *file,
                                size_t file_len, int line);
void ompb__fortran_region_end(const char *name, size_t name_len, const char *file,
                              size_t file_len, int line);

#endif /* OMPB_FORTRAN_INTERN_H */
