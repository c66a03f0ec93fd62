/* SPDX-License-Identifier: MIT */
/*
 * --exact-file (config/names_file.h): the file read whole, cut into
 * lines, the lines sorted for binary search.
 */
#include "config/names_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* The file's bytes, NUL-terminated, in *text; its length in *len. */
static int slurp(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 0, n = 0;
    char *buf = NULL;
    if (!f)
        return errno ? errno : EIO;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            size_t ncap = cap ? 2 * cap : 65536;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                return ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int e = ferror(f) ? EIO : 0;
    fclose(f);
    if (e) {
        free(buf);
        return e;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ompb__names_file_load(ompb__names_file *nf, const char *path, const char *opt,
                          ompb_error *err)
{
    size_t len, lines = 1;
    memset(nf, 0, sizeof *nf);
    int e = slurp(path, &nf->text, &len);
    if (e)
        return ompb__error_set(err, e == ENOMEM ? OMPB_ENOMEM : OMPB_EINVAL,
                               "%s: cannot read '%s': %s (accepted: a readable file of "
                               "instance names, one per line)", opt, path, strerror(e));
    if (memchr(nf->text, '\0', len)) {
        ompb__names_file_release(nf);
        return ompb__error_set(err, OMPB_EINVAL, "%s: '%s' holds a NUL byte (accepted: a text "
                               "file of instance names, one per line)", opt, path);
    }
    for (size_t i = 0; i < len; i++)
        lines += nf->text[i] == '\n';
    nf->names = malloc(lines * sizeof *nf->names);
    if (!nf->names) {
        ompb__names_file_release(nf);
        return ompb__error_set(err, OMPB_ENOMEM, "%s: out of memory", opt);
    }
    for (char *line = nf->text, *end; line; line = end) {
        end = strchr(line, '\n');
        if (end)
            *end++ = '\0';
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[--n] = '\0';
        if (n)
            nf->names[nf->n++] = line;
    }
    qsort(nf->names, nf->n, sizeof *nf->names, cmp_name);
    nf->path = path;
    return 0;
}

bool ompb__names_file_has(const ompb__names_file *nf, const char *name)
{
    return nf->n && bsearch(&name, nf->names, nf->n, sizeof *nf->names, cmp_name) != NULL;
}

void ompb__names_file_release(ompb__names_file *nf)
{
    free(nf->text);
    free(nf->names);
    memset(nf, 0, sizeof *nf);
}
