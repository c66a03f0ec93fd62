/* SPDX-License-Identifier: MIT */
/*
 * Output targets. A regular file (or a symbolic link to one, or a path that
 * does not exist yet) is written atomically: into a temporary file beside
 * the real target, renamed over it at commit, so a reader never sees a
 * partial file and a failed run leaves the previous file untouched; the
 * link stays a link and the file keeps its mode (and owner, where the
 * process may set it). Anything else (a character or block device such as
 * /dev/null, a FIFO, /dev/stdout, /dev/fd/N as made by the shell's >(cmd))
 * is written directly, and every write error is reported. A file with
 * several hard links gets a new inode under the path named: the other
 * links keep the previous content. The temporary file is removed on
 * SIGINT, SIGTERM and SIGHUP (when their disposition was the default).
 */
#ifndef OMPB_OUTFILE_H
#define OMPB_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include <ompbench/error.h>

typedef struct ompb__outfile {
    FILE *fp;
    char *path;     /* as given, for messages */
    char *target;   /* the regular file renamed over (links resolved); NULL when direct */
    char *tmp;      /* temporary file beside target; NULL when direct */
    int slot;       /* signal-cleanup slot of tmp, -1 when none */
} ompb__outfile;

/* Opens path for writing as described above. Returns 0, or OMPB_EIO with
 * err naming the path and the reason (missing or unwritable directory, a
 * directory, a closed /dev/fd/N, a socket, ...). A FIFO without a reader
 * blocks here until one opens it, as a shell redirection does. */
int ompb__outfile_open(ompb__outfile *of, const char *path, ompb_error *err);
/* Regular targets: flushes, fsyncs and renames over the target. Direct
 * targets: flushes and closes. Returns 0 or OMPB_EIO (err says why; a
 * temporary file is removed and the target is untouched). Either way *of
 * is released. */
int ompb__outfile_commit(ompb__outfile *of, ompb_error *err);
/* Checks that path could be written without writing it (for a regular
 * target it creates and removes a temporary file beside it; a FIFO or a
 * device is not opened, so its reader sees nothing), so a run can refuse a
 * bad path before it starts. Returns 0 or OMPB_EIO. */
int ompb__outfile_probe(const char *path, ompb_error *err);
/* Whether path names what ompb__outfile_open replaces atomically: a regular
 * file or a name that does not exist yet (through links), not a device, a
 * FIFO or a descriptor (/dev/stdout, /dev/fd/N). */
bool ompb__outfile_is_regular(const char *path);
/* A file a command reads, named for messages: label is what the user
 * gave it as ("the input", "--ctl", ...), path the name given. */
typedef struct ompb__outfile_input {
    const char *label;
    const char *path;
} ompb__outfile_input;

/* Refuses an output path that names one of the inputs: the same device
 * and inode once symbolic links (and /dev/fd/N) are followed, so a hard
 * link or a link to an input counts too. An output that does not exist
 * yet is one of the "inputs" when both would create the same file (a
 * dangling link to the other): that is how two outputs of one command are
 * checked against each other. Devices are never refused. Returns 0, or
 * OMPB_EINVAL with err naming opt, both paths and what is accepted.
 * Writing would replace the input after it was read: the next run would
 * read the report instead. */
int ompb__outfile_check_inputs(const char *opt, const char *path,
                               const ompb__outfile_input *inputs, size_t n, ompb_error *err);

/* Removes the temporary file without touching the target; releases *of. */
void ompb__outfile_abort(ompb__outfile *of);

/* Flushes standard output. Returns 0, or OMPB_EIO with err saying why
 * ("standard output: No space left on device") when it is full, closed or
 * any earlier write to it failed. */
int ompb__outfile_flush_stdout(ompb_error *err);

/* Makes the calling thread format and parse numbers in the C locale from
 * now on (uselocale), whatever setlocale() a benchmark body called: the
 * reports are for machines too. Other threads are not affected. */
void ompb__outfile_c_locale(void);

#endif
