/* SPDX-License-Identifier: MIT */
/*
 * Atomic output files. The temporary file lives in the target's directory so
 * that rename(2) replaces the target in one step; a failure at any point
 * removes the temporary file and leaves the target as it was.
 */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

int ompb__outfile_open(ompb__outfile *of, const char *path, ompb_error *err)
{
    memset(of, 0, sizeof *of);
    size_t len = strlen(path);
    struct stat st;
    if (len == 0)
        return ompb__error_set(err, OMPB_EIO, "output path is empty (accepted: a file path)");
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return ompb__error_set(err, OMPB_EIO, "cannot write '%s': is a directory", path);
    of->path = strdup(path);
    of->tmp = malloc(len + sizeof ".tmp.XXXXXX");
    if (!of->path || !of->tmp) {
        ompb__outfile_abort(of);
        return ompb__error_set(err, OMPB_ENOMEM, "out of memory");
    }
    memcpy(of->tmp, path, len);
    memcpy(of->tmp + len, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    int fd = mkstemp(of->tmp);
    if (fd < 0) {
        int e = errno;
        free(of->tmp);
        of->tmp = NULL;
        ompb__outfile_abort(of);
        return ompb__error_set(err, OMPB_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    /* mkstemp creates 0600; give the file what open(2) would have. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    of->fp = fdopen(fd, "w");
    if (!of->fp) {
        close(fd);
        ompb__outfile_abort(of);
        return ompb__error_set(err, OMPB_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    return 0;
}

int ompb__outfile_commit(ompb__outfile *of, ompb_error *err)
{
    int failed = ferror(of->fp) != 0;
    failed |= fflush(of->fp) != 0;
    failed |= fsync(fileno(of->fp)) != 0;
    int e = errno;
    failed |= fclose(of->fp) != 0;
    of->fp = NULL;
    if (!failed && rename(of->tmp, of->path) != 0) {
        e = errno;
        failed = 1;
    }
    if (failed) {
        ompb__error_set(err, OMPB_EIO, "cannot write '%s': %s", of->path, strerror(e));
        ompb__outfile_abort(of);
        return OMPB_EIO;
    }
    free(of->tmp);
    free(of->path);
    of->tmp = of->path = NULL;
    return 0;
}

int ompb__outfile_probe(const char *path, ompb_error *err)
{
    ompb__outfile of;
    int rc = ompb__outfile_open(&of, path, err);
    if (rc == 0)
        ompb__outfile_abort(&of);
    return rc;
}

void ompb__outfile_abort(ompb__outfile *of)
{
    if (of->fp)
        fclose(of->fp);
    if (of->tmp)
        unlink(of->tmp);
    free(of->tmp);
    free(of->path);
    memset(of, 0, sizeof *of);
}
