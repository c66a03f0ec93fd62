/* SPDX-License-Identifier: MIT */
/*
 * Names of traced regions: the source file and line of a code address (the
 * outlined function's entry for libgomp: GCC names the function
 * main._omp_fn.N and gives its entry the line of the construct; the fork
 * call for libomp: Clang gives it the construct's line) from the DWARF line
 * table through elfutils' libdwfl,
 * else its ELF symbol and the offset into it, else its address relative to
 * its object with the object's build-id (or file name). One Dwfl of the
 * running process, made at the first lookup and made again once when an
 * address lies in no module it knows (a library loaded since).
 */
#include "trace/trace.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <ompbench/region.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *dwfl;

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

static Dwfl *process_modules(void)
{
    Dwfl *d = dwfl_begin(&callbacks);
    if (!d)
        return NULL;
    if (dwfl_linux_proc_report(d, getpid()) != 0 || dwfl_report_end(d, NULL, NULL) != 0) {
        dwfl_end(d);
        return NULL;
    }
    return d;
}

static Dwfl_Module *module_of(Dwarf_Addr a)
{
    Dwfl_Module *m = dwfl ? dwfl_addrmodule(dwfl, a) : NULL;
    if (m)
        return m;
    if (dwfl)
        dwfl_end(dwfl);
    dwfl = process_modules();
    return dwfl ? dwfl_addrmodule(dwfl, a) : NULL;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Region names may not hold brackets (region:NAME[t=T]) or control
 * characters: C++ symbols (operator[]) get parentheses, the rest '?'. */
static void clean(char *s)
{
    for (; *s; s++) {
        if (*s == '[')
            *s = '(';
        else if (*s == ']')
            *s = ')';
        else if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
    }
}

/* The line of a in a unit that covers it, found by walking the units: for
 * objects without .debug_aranges (Clang emits none unless asked with
 * -gdwarf-aranges), through which dwfl_module_getsrc finds the unit. */
static const char *line_by_units(Dwfl_Module *m, Dwarf_Addr a, int *lineno)
{
    Dwarf_Addr bias;
    for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(m, cu, &bias));) {
        if (dwarf_haspc(cu, a - bias) != 1)
            continue;
        Dwarf_Line *l = dwarf_getsrc_die(cu, a - bias);
        if (l && dwarf_lineno(l, lineno) == 0)
            return dwarf_linesrc(l, NULL, NULL);
        return NULL;
    }
    return NULL;
}

static int by_line(Dwfl_Module *m, Dwarf_Addr a, char *name, size_t ns, char *file, size_t fs,
                   int *line)
{
    Dwfl_Line *l = dwfl_module_getsrc(m, a);
    int lineno = 0;
    const char *src = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL)
                        : line_by_units(m, a, &lineno);
    if (!src || lineno <= 0)
        return -1;
    snprintf(name, ns, "%s:%d", base_name(src), lineno);
    snprintf(file, fs, "%s", src);
    *line = lineno;
    return 0;
}

static int by_symbol(Dwfl_Module *m, Dwarf_Addr a, char *name, size_t ns)
{
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *s = dwfl_module_addrinfo(m, a, &off, &sym, NULL, NULL, NULL);
    if (!s || !*s)
        return -1;
    if (off)
        snprintf(name, ns, "%s+0x%" PRIx64, s, (uint64_t)off);
    else
        snprintf(name, ns, "%s", s);
    return 0;
}

static void by_address(Dwfl_Module *m, Dwarf_Addr a, char *name, size_t ns)
{
    Dwarf_Addr start = 0;
    const char *path = m ? dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, NULL, NULL) : NULL;
    const unsigned char *bits = NULL;
    GElf_Addr vaddr, bias;
    /* The build-id is read with the module's ELF file, opened on demand. */
    int n = m && dwfl_module_getelf(m, &bias) ? dwfl_module_build_id(m, &bits, &vaddr) : -1;
    int at = snprintf(name, ns, "0x%" PRIx64 "@", (uint64_t)(a - start));
    if (n > 0 && at > 0) {
        for (int i = 0; i < n && i < 8 && (size_t)at + 3 < ns; i++)
            at += snprintf(name + at, ns - (size_t)at, "%02x", bits[i]);
    } else if (at > 0 && (size_t)at < ns) {
        snprintf(name + at, ns - (size_t)at, "%s", path ? base_name(path) : "unknown");
    }
}

void ompb__trace_name(const void *addr, ompb__trace_naming best, char *name, size_t name_size,
                      char *file, size_t file_size, int *line)
{
    Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)addr;
    size_t ns = name_size < OMPB_REGION_NAME_MAX + 1 ? name_size : OMPB_REGION_NAME_MAX + 1;
    *line = 0;
    pthread_mutex_lock(&lock);
    Dwfl_Module *m = module_of(a);
    const char *path = m ? dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;
    snprintf(file, file_size, "%s", path ? path : "unknown");
    if (!(m && best <= OMPB__TRACE_NAME_LINE && by_line(m, a, name, ns, file, file_size, line) == 0)
        && !(m && best <= OMPB__TRACE_NAME_SYMBOL && by_symbol(m, a, name, ns) == 0))
        by_address(m, a, name, ns);
    pthread_mutex_unlock(&lock);
    clean(name);
}
