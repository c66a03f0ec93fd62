/* SPDX-License-Identifier: MIT */
/*
 * The loaded shared objects (lib/core/libraries.h), read from the dynamic
 * loader's own list (dl_iterate_phdr): each object's name from its
 * DT_SONAME and its build ID from its PT_NOTE segments, both read from
 * the mapped image, so no file is opened and a library replaced on disk
 * since it was loaded is still described as the one in use. The same list
 * says which object holds a function, and at which load bias.
 */
#include "core/libraries.h"

#include <elf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <ompbench/error.h>

typedef struct walk {
    int (*fn)(const ompb__linked_library *lib, void *arg);
    void *arg;
    int rc;
} walk;

/* Bytes [addr, addr + len) lie in one loaded segment of the object. */
static bool mapped(const struct dl_phdr_info *info, uintptr_t addr, size_t len)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && addr >= lo && len <= ph->p_memsz
            && addr - lo <= ph->p_memsz - len)
            return true;
    }
    return false;
}

static size_t align_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

/* One PT_NOTE segment's GNU build ID as hex into out; false without one. */
static bool note_build_id(const struct dl_phdr_info *info, const ElfW(Phdr) *ph, char *out)
{
    const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
    size_t left = ph->p_memsz, a = ph->p_align == 8 ? 8 : 4;
    if (!mapped(info, (uintptr_t)p, left))
        return false;
    while (left >= sizeof(ElfW(Nhdr))) {
        ElfW(Nhdr) nh;
        memcpy(&nh, p, sizeof nh);
        size_t name = align_up(nh.n_namesz, a), desc = align_up(nh.n_descsz, a);
        if (name > left || desc > left - name || sizeof nh > left - name - desc)
            return false;
        const unsigned char *d = p + sizeof nh + name;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4
            && memcmp(p + sizeof nh, "GNU", 4) == 0 && nh.n_descsz > 0) {
            static const char hex[] = "0123456789abcdef";
            size_t n = nh.n_descsz < OMPB__BUILD_ID_MAX ? nh.n_descsz : OMPB__BUILD_ID_MAX;
            for (size_t i = 0; i < n; i++) {
                out[2 * i] = hex[d[i] >> 4];
                out[2 * i + 1] = hex[d[i] & 15];
            }
            out[2 * n] = '\0';
            return true;
        }
        p += sizeof nh + name + desc;
        left -= sizeof nh + name + desc;
    }
    return false;
}

static bool build_id(const struct dl_phdr_info *info, char *out)
{
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_NOTE && note_build_id(info, &info->dlpi_phdr[i], out))
            return true;
    return false;
}

/* DT_SONAME from the mapped dynamic section, or NULL. The loader has
 * usually relocated DT_STRTAB in place (glibc does); an address below the
 * object's base is taken as not relocated yet. */
static const char *soname(const struct dl_phdr_info *info)
{
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn || !mapped(info, (uintptr_t)dyn, sizeof *dyn))
        return NULL;
    uintptr_t strtab = 0, name = UINTPTR_MAX;
    for (; dyn->d_tag != DT_NULL && mapped(info, (uintptr_t)(dyn + 1), sizeof *dyn); dyn++) {
        if (dyn->d_tag == DT_STRTAB)
            strtab = dyn->d_un.d_ptr;
        else if (dyn->d_tag == DT_SONAME)
            name = dyn->d_un.d_val;
    }
    if (!strtab || name == UINTPTR_MAX)
        return NULL;
    if (strtab < info->dlpi_addr)
        strtab += info->dlpi_addr;
    /* The name must end inside the mapping it starts in. */
    for (size_t len = 1; len <= 256; len++) {
        if (!mapped(info, strtab + name, len))
            return NULL;
        if (((const char *)(strtab + name))[len - 1] == '\0')
            return (const char *)(strtab + name);
    }
    return NULL;
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    walk *w = arg;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0; /* the main program */
    char id[2 * OMPB__BUILD_ID_MAX + 1];
    const char *so = soname(info), *slash = strrchr(info->dlpi_name, '/');
    ompb__linked_library lib = {
        .name = so && *so ? so : slash ? slash + 1 : info->dlpi_name,
        .path = info->dlpi_name,
        .build_id = build_id(info, id) ? id : NULL,
    };
    w->rc = w->fn(&lib, w->arg);
    return w->rc;
}

int ompb__linked_libraries(int (*fn)(const ompb__linked_library *lib, void *arg), void *arg)
{
    walk w = {fn, arg, 0};
    dl_iterate_phdr(visit, &w);
    return w.rc;
}

/* The main program comes first in dl_iterate_phdr's list. */
static int main_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    build_id(info, arg);
    return 1;
}

void ompb__main_program_build_id(char *hex, size_t len)
{
    char id[2 * OMPB__BUILD_ID_MAX + 1] = "";
    dl_iterate_phdr(main_build_id, id);
    if (len)
        snprintf(hex, len, "%s", id);
}

/* ---- the main program's read-only segments ------------------------------ */

/* More PT_LOAD segments than a linker makes (text, rodata, and their
 * splits); any beyond are not looked at (their strings are compared). */
#define READONLY_MAX 8

static struct {
    uintptr_t lo[READONLY_MAX], hi[READONLY_MAX];
    int n;
} readonly;
static pthread_once_t readonly_once = PTHREAD_ONCE_INIT;

static int visit_main(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (info->dlpi_name && info->dlpi_name[0])
        return 1; /* the main program comes first; do not look further */
    for (int i = 0; i < info->dlpi_phnum && readonly.n < READONLY_MAX; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) || !ph->p_memsz)
            continue;
        readonly.lo[readonly.n] = info->dlpi_addr + ph->p_vaddr;
        readonly.hi[readonly.n] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        readonly.n++;
    }
    return 1;
}

static void read_main_segments(void)
{
    dl_iterate_phdr(visit_main, NULL);
}

size_t ompb__main_program_readonly_bytes(const void *p)
{
    pthread_once(&readonly_once, read_main_segments);
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < readonly.n; i++)
        if (a >= readonly.lo[i] && a < readonly.hi[i])
            return (size_t)(readonly.hi[i] - a);
    return 0;
}

/* ---- where a function lives ---------------------------------------------- */

typedef struct locate {
    uintptr_t addr;
    char *path;
    size_t len;
    uint64_t vaddr;
    int rc;
} locate;

static int visit_locate(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    locate *l = arg;
    if (!mapped(info, l->addr, 1))
        return 0;
    char buf[PATH_MAX];
    if (!info->dlpi_name || !info->dlpi_name[0]) {
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (n <= 0) {
            l->rc = OMPB_EIO;
            return 1;
        }
        buf[n] = '\0';
    } else if (!realpath(info->dlpi_name, buf)) {
        l->rc = OMPB_EIO;
        return 1;
    }
    size_t n = strlen(buf);
    if (n >= l->len) {
        l->rc = OMPB_EINVAL;
        return 1;
    }
    memcpy(l->path, buf, n + 1);
    l->vaddr = (uint64_t)(l->addr - info->dlpi_addr);
    l->rc = 0;
    return 1;
}

int ompb__code_locate(const void *fn, char *path, size_t len, uint64_t *vaddr)
{
    locate l = {(uintptr_t)fn, path, len, 0, OMPB_ENOENT};
    dl_iterate_phdr(visit_locate, &l);
    if (l.rc == 0)
        *vaddr = l.vaddr;
    return l.rc;
}

/* ---- strings of objects that may be gone ---------------------------------- */

/* dlpi_subs: how many objects were unloaded since the start. */
static int visit_unloads(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(unsigned long long *)arg = info->dlpi_subs;
    return 1;
}

/* Copies what is readable of the string at p, page by page, through the
 * kernel: an unmapped page makes the call fail (EFAULT) instead of the
 * process. Returns the bytes copied before a NUL or the end of buf, -1
 * when not even the first byte is readable. */
static ssize_t copy_readable(const char *p, char *buf, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), got = 0;
    while (got + 1 < len) {
        uintptr_t at = (uintptr_t)p + got;
        size_t chunk = page - at % page;
        if (chunk > len - 1 - got)
            chunk = len - 1 - got;
        struct iovec local = {buf + got, chunk}, remote = {(void *)at, chunk};
        ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        if (n <= 0)
            return got ? (ssize_t)got : -1;
        char *nul = memchr(buf + got, '\0', (size_t)n);
        if (nul)
            return nul - buf;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

const char *ompb__loaded_text(const char *p, char *buf, size_t len)
{
    unsigned long long unloads = 0;
    if (!p || len == 0)
        return NULL;
    dl_iterate_phdr(visit_unloads, &unloads);
    if (unloads == 0 || ompb__main_program_readonly_bytes(p) > 0)
        return p;
    ssize_t n = copy_readable(p, buf, len);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return buf;
}
