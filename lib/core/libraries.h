/* SPDX-License-Identifier: MIT */
/*
 * The shared objects loaded in this process, as the official CodSpeed hooks
 * list them in the environment file ("linked_libraries": soname -> path and
 * GNU build ID): what a profile of this process was linked against, so two
 * runs with different libgomp or libc builds can be told apart. And the
 * main program's read-only segments, whose strings the region markers
 * need not compare again.
 */
#ifndef OMPB_LIBRARIES_H
#define OMPB_LIBRARIES_H

#include <stddef.h>

typedef struct ompb__linked_library {
    const char *name;     /* DT_SONAME, or the path's file name without one */
    const char *path;     /* as the dynamic loader has it */
    const char *build_id; /* lowercase hex of NT_GNU_BUILD_ID; NULL without one */
} ompb__linked_library;

/* Calls fn once per loaded shared object with a path (the main program is
 * not a library), in the loader's order; the strings live only during the
 * call. Stops at, and returns, the first nonzero value fn returns; else 0. */
int ompb__linked_libraries(int (*fn)(const ompb__linked_library *lib, void *arg), void *arg);

/* The bytes from p to the end of the main program's loaded segment that
 * holds p when that segment is mapped without write permission (its code
 * and string literals), else 0: memory there keeps its content for the
 * whole process (the main program is never unloaded). The segments are
 * read once, at the first call. */
size_t ompb__main_program_readonly_bytes(const void *p);

/* A string a caller passed earlier (a region's __FILE__), for a message:
 * p itself while no shared object was ever unloaded (or p lies in the main
 * program), else a copy of what is still readable at p into buf (cut to
 * len - 1 bytes), or NULL when p's memory is gone (its library was
 * dlclose()d). Never faults on unmapped memory. */
const char *ompb__loaded_text(const char *p, char *buf, size_t len);

#endif
