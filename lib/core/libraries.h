/* SPDX-License-Identifier: MIT */
/*
 * The shared objects loaded in this process, as the official CodSpeed hooks
 * list them in the environment file ("linked_libraries": soname -> path and
 * GNU build ID): what a profile of this process was linked against, so two
 * runs with different libgomp or libc builds can be told apart; the main
 * program's own build ID (the run context's). And the main program's
 * read-only segments, whose strings the region markers
 * need not compare again. And where a function lives on disk, for the
 * tool's code identity check (tools/lib/analysis/codeid.h).
 */
#ifndef OMPB_LIBRARIES_H
#define OMPB_LIBRARIES_H

#include <stddef.h>
#include <stdint.h>

/* The longest GNU build ID kept, in bytes (SHA-1 ones are 20; a longer one
 * is cut, which no linker produces); its hex text needs twice that plus
 * the NUL. */
#define OMPB__BUILD_ID_MAX 64

typedef struct ompb__linked_library {
    const char *name;     /* DT_SONAME, or the path's file name without one */
    const char *path;     /* as the dynamic loader has it */
    const char *build_id; /* lowercase hex of NT_GNU_BUILD_ID; NULL without one */
} ompb__linked_library;

/* Calls fn once per loaded shared object with a path (the main program is
 * not a library), in the loader's order; the strings live only during the
 * call. Stops at, and returns, the first nonzero value fn returns; else 0. */
int ompb__linked_libraries(int (*fn)(const ompb__linked_library *lib, void *arg), void *arg);

/* The main program's GNU build ID as lowercase hex into hex (len bytes
 * with the NUL, at least 2 * OMPB__BUILD_ID_MAX + 1), read from its mapped
 * PT_NOTE segments as each library's is; "" when it has none. */
void ompb__main_program_build_id(char *hex, size_t len);

/* The bytes from p to the end of the main program's loaded segment that
 * holds p when that segment is mapped without write permission (its code
 * and string literals), else 0: memory there keeps its content for the
 * whole process (the main program is never unloaded). The segments are
 * read once, at the first call. */
size_t ompb__main_program_readonly_bytes(const void *p);

/* The loaded object (the main program or a shared library) whose segments
 * hold fn: its absolute path into path (len bytes with the NUL; the main
 * program's from /proc/self/exe, a library's the realpath of the loader's
 * name), and fn's ELF virtual address in that file (the run-time address
 * minus the object's load bias, so it holds for PIE and non-PIE programs
 * and shared libraries alike). Returns 0, OMPB_ENOENT (no loaded object
 * holds fn), OMPB_EIO (its path cannot be resolved) or OMPB_EINVAL (the
 * path is longer than len - 1); path and *vaddr are set only on success. */
int ompb__code_locate(const void *fn, char *path, size_t len, uint64_t *vaddr);

/* A string a caller passed earlier (a region's __FILE__), for a message:
 * p itself while no shared object was ever unloaded (or p lies in the main
 * program), else a copy of what is still readable at p into buf (cut to
 * len - 1 bytes), or NULL when p's memory is gone (its library was
 * dlclose()d). Never faults on unmapped memory. */
const char *ompb__loaded_text(const char *p, char *buf, size_t len);

#endif
