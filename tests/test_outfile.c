/* SPDX-License-Identifier: MIT */
/*
 * Output targets (lib/core/outfile.c) in a private temporary directory: links
 * written through with the mode kept, long names, dangling links and link
 * loops, files the user may not write, FIFOs and descriptor aliases
 * written directly, probes that do not open a FIFO, descriptors kept
 * above 2. Device nodes are left to tests/integration/output_targets.sh,
 * which only touches them in a private mount namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outfile.h"
#include "suite.h"

static char dir[64];

static int make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/ompb-outfile-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void in_dir(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
}

static void read_text(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    size_t n = fread(buf, 1, cap - 1, fp);
    buf[n] = '\0';
    fclose(fp);
}

static int write_through(const char *path, const char *text, ompb_error *err)
{
    ompb__outfile of;
    int rc = ompb__outfile_open(&of, path, err);
    if (rc)
        return rc;
    fputs(text, of.fp);
    return ompb__outfile_commit(&of, err);
}

/* Names in dir with ".tmp." in them. */
static int temp_files(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '\\.tmp\\.' >/dev/null", dir);
    return system(cmd) == 0;
}

static void test_symlink_chain_keeps_link_and_mode(void)
{
    char real[96], hop[96], link[96], buf[16];
    ompb_error err = {0};
    in_dir(real, sizeof real, "real");
    in_dir(hop, sizeof hop, "hop");
    in_dir(link, sizeof link, "link");
    write_text(real, "old");
    chmod(real, 0640);
    CU_ASSERT_EQUAL_FATAL(symlink("real", hop), 0);   /* relative, as ln -s makes them */
    CU_ASSERT_EQUAL_FATAL(symlink(hop, link), 0);     /* absolute */
    CU_ASSERT_EQUAL(write_through(link, "new", &err), 0);
    struct stat st;
    CU_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT(lstat(hop, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT(lstat(real, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640);
    read_text(real, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "new");
    CU_ASSERT_FALSE(temp_files());
}

static void test_dangling_link_and_loop(void)
{
    char link[96], target[96], loop_a[96], loop_b[96], buf[16];
    ompb_error err = {0};
    in_dir(link, sizeof link, "dangling");
    in_dir(target, sizeof target, "created");
    CU_ASSERT_EQUAL_FATAL(symlink("created", link), 0);
    CU_ASSERT_EQUAL(write_through(link, "made", &err), 0);
    read_text(target, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "made");
    in_dir(loop_a, sizeof loop_a, "loop_a");
    in_dir(loop_b, sizeof loop_b, "loop_b");
    CU_ASSERT_EQUAL_FATAL(symlink("loop_b", loop_a), 0);
    CU_ASSERT_EQUAL_FATAL(symlink("loop_a", loop_b), 0);
    CU_ASSERT_EQUAL(write_through(loop_a, "x", &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, strerror(ELOOP)));
    CU_ASSERT_FALSE(temp_files());
}

/* NAME_MAX is 255: "<250 bytes>.tmp.XXXXXX" would not fit. */
static void test_long_name(void)
{
    char name[251], path[400], buf[16];
    ompb_error err = {0};
    memset(name, 'n', 250);
    name[250] = '\0';
    in_dir(path, sizeof path, name);
    CU_ASSERT_EQUAL(write_through(path, "long", &err), 0);
    read_text(path, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "long");
    CU_ASSERT_FALSE(temp_files());
}

/* As a shell redirection: a file the user may not write is refused (root
 * may write anything, so there is nothing to check for root). */
static void test_unwritable_file_refused(void)
{
    char path[96], buf[16];
    ompb_error err = {0};
    if (geteuid() == 0)
        return;
    in_dir(path, sizeof path, "readonly");
    write_text(path, "keep");
    chmod(path, 0444);
    CU_ASSERT_EQUAL(write_through(path, "new", &err), OMPB_EIO);
    CU_ASSERT_EQUAL(ompb__outfile_probe(path, &err), OMPB_EIO);
    read_text(path, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "keep");
}

/* A FIFO is written, not replaced; the probe does not open it (its reader
 * would see an end of file before the report). */
static void test_fifo_written_directly(void)
{
    char fifo[96], buf[16] = "";
    ompb_error err = {0};
    in_dir(fifo, sizeof fifo, "fifo");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    int reader = open(fifo, O_RDONLY | O_NONBLOCK);
    CU_ASSERT_FATAL(reader >= 0);
    /* inotify sees every open of the FIFO from here on. */
    int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    CU_ASSERT_FATAL(watch >= 0);
    CU_ASSERT_FATAL(inotify_add_watch(watch, fifo, IN_OPEN) >= 0);
    char events[4096];
    CU_ASSERT_EQUAL(ompb__outfile_probe(fifo, &err), 0);
    CU_ASSERT_EQUAL(read(watch, events, sizeof events), -1);  /* the probe opened nothing */
    CU_ASSERT_EQUAL(write_through(fifo, "via fifo", &err), 0);
    CU_ASSERT(read(watch, events, sizeof events) > 0);        /* the write did */
    close(watch);
    ssize_t n = read(reader, buf, sizeof buf - 1);
    CU_ASSERT_EQUAL(n, 8);
    buf[n > 0 ? n : 0] = '\0';
    CU_ASSERT_STRING_EQUAL(buf, "via fifo");
    close(reader);
    struct stat st;
    CU_ASSERT(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CU_ASSERT_FALSE(temp_files());
}

/* /dev/fd/N and /proc/self/fd/N are the descriptor, duplicated. */
static void test_descriptor_aliases(void)
{
    int p[2];
    char path[64], buf[32] = "";
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
    snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
    CU_ASSERT_EQUAL(write_through(path, "one,", &err), 0);
    snprintf(path, sizeof path, "/proc/self/fd/%d", p[1]);
    CU_ASSERT_EQUAL(write_through(path, "two", &err), 0);
    close(p[1]);
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    CU_ASSERT_STRING_EQUAL(buf, "one,two");
    /* Closed, or open for reading only: an error naming the path. */
    snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
    CU_ASSERT_EQUAL(write_through(path, "x", &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, path));
    CU_ASSERT_EQUAL(ompb__outfile_probe(path, &err), OMPB_EIO);
    snprintf(path, sizeof path, "/dev/fd/%d", p[0]);
    CU_ASSERT_EQUAL(write_through(path, "x", &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "reading only"));
    close(p[0]);
}

/* With fd 0 closed, the temporary file must not become fd 0 (nor 1, 2):
 * a closed standard stream would then write into the report. */
static void test_descriptors_above_stdio(void)
{
    char path[96];
    ompb_error err = {0};
    in_dir(path, sizeof path, "above");
    int saved = dup(STDIN_FILENO);
    CU_ASSERT_FATAL(saved >= 0);
    close(STDIN_FILENO);
    ompb__outfile of;
    int rc = ompb__outfile_open(&of, path, &err);
    int fd = rc == 0 ? fileno(of.fp) : -1;
    if (rc == 0)
        ompb__outfile_abort(&of);
    dup2(saved, STDIN_FILENO);
    close(saved);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT(fd > STDERR_FILENO);
}

/* A Unix socket cannot be opened by name: an error that says so. */
static void test_socket_refused(void)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    ompb_error err = {0};
    in_dir(addr.sun_path, sizeof addr.sun_path, "sock");
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CU_ASSERT_FATAL(s >= 0);
    CU_ASSERT_EQUAL_FATAL(bind(s, (struct sockaddr *)&addr, sizeof addr), 0);
    CU_ASSERT_EQUAL(write_through(addr.sun_path, "x", &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "it is a socket"));
    struct stat st;
    CU_ASSERT(lstat(addr.sun_path, &st) == 0 && S_ISSOCK(st.st_mode));   /* left as it was */
    close(s);
}

static void test_errors_name_the_path(void)
{
    char path[128];
    ompb_error err = {0};
    ompb__outfile of;
    in_dir(path, sizeof path, "no/such/dir/out.json");
    CU_ASSERT_EQUAL(ompb__outfile_open(&of, path, &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, path));
    CU_ASSERT_EQUAL(ompb__outfile_probe(path, &err), OMPB_EIO);
    CU_ASSERT_EQUAL(ompb__outfile_open(&of, dir, &err), OMPB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "is a directory"));
    CU_ASSERT_EQUAL(ompb__outfile_open(&of, "", &err), OMPB_EIO);
}

/* Issue 19: an output that is one of the inputs, by any name (a symbolic
 * link, a hard link, /dev/fd/N), is refused; an output that does not exist
 * yet or a device is not. */
static void test_output_is_an_input(void)
{
    char in[128], alias[128], hard[128], other[128], fd_path[32];
    ompb_error err = {0};
    in_dir(in, sizeof in, "in.json");
    in_dir(alias, sizeof alias, "link.json");
    in_dir(hard, sizeof hard, "hard.json");
    in_dir(other, sizeof other, "other.json");
    write_text(in, "input");
    CU_ASSERT_EQUAL_FATAL(symlink("in.json", alias), 0);
    CU_ASSERT_EQUAL_FATAL(link(in, hard), 0);
    const ompb__outfile_input inputs[] = {{"the input", NULL}, {"the input", alias}};
    const char *same[] = {in, alias, hard};
    for (size_t i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(ompb__outfile_check_inputs("--output", same[i], inputs, 2, &err),
                        OMPB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "--output: '"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "the input '"));
    }
    int fd = open(in, O_RDONLY);
    snprintf(fd_path, sizeof fd_path, "/dev/fd/%d", fd);
    CU_ASSERT_EQUAL(ompb__outfile_check_inputs("--output", fd_path, inputs, 2, &err), OMPB_EINVAL);
    close(fd);
    CU_ASSERT_EQUAL(ompb__outfile_check_inputs("--output", other, inputs, 2, &err), 0);
    write_text(other, "another file");
    CU_ASSERT_EQUAL(ompb__outfile_check_inputs("--output", other, inputs, 2, &err), 0);
    /* Two outputs not written yet, one a dangling link to the other. */
    char new_out[128], new_link[128];
    in_dir(new_out, sizeof new_out, "new.txt");
    in_dir(new_link, sizeof new_link, "new-link.svg");
    CU_ASSERT_EQUAL_FATAL(symlink("new.txt", new_link), 0);
    const ompb__outfile_input outputs[] = {{"--output", new_out}};
    CU_ASSERT_EQUAL(ompb__outfile_check_inputs("--svg", new_link, outputs, 1, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "is the same file as --output"));
    CU_ASSERT_EQUAL(ompb__outfile_check_inputs("--svg", other, outputs, 1, &err), 0);
    const ompb__outfile_input devices[] = {{"the input", "/dev/null"}};
    CU_ASSERT_EQUAL(ompb__outfile_check_inputs("--output", "/dev/null", devices, 1, &err), 0);
    char text[16];
    read_text(in, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "input");
}

/* Issue 19: a file of /proc exists, but no temporary file can be made
 * beside it; the message says that, not "No such file or directory" about
 * the file. */
static void test_temp_file_reason(void)
{
    ompb_error err = {0};
    ompb__outfile of;
    CU_ASSERT_EQUAL(ompb__outfile_open(&of, "/proc/self/status", &err), OMPB_EIO);
    /* Only root may write the file (mode 0444); anyone else is told that. */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, geteuid() != 0 ? "cannot write '/proc/self/status': "
                                            "Permission denied"
                                            : "cannot write '/proc/self/status': no temporary "
                                              "file can be created beside it in '/proc/self'"));
}

static void run_in_dir(void (*fn)(void))
{
    CU_ASSERT_EQUAL_FATAL(make_dir(), 0);
    fn();
    CU_ASSERT_EQUAL(remove_dir(), 0);
}

#define IN_DIR(name) \
    static void name##_in_dir(void) { run_in_dir(name); }
IN_DIR(test_symlink_chain_keeps_link_and_mode)
IN_DIR(test_dangling_link_and_loop)
IN_DIR(test_long_name)
IN_DIR(test_unwritable_file_refused)
IN_DIR(test_fifo_written_directly)
IN_DIR(test_descriptors_above_stdio)
IN_DIR(test_socket_refused)
IN_DIR(test_errors_name_the_path)
IN_DIR(test_output_is_an_input)

static const ompb_test_case cases[] = {
    {"symlink_chain_keeps_link_and_mode", test_symlink_chain_keeps_link_and_mode_in_dir},
    {"dangling_link_and_loop", test_dangling_link_and_loop_in_dir},
    {"long_name", test_long_name_in_dir},
    {"unwritable_file_refused", test_unwritable_file_refused_in_dir},
    {"fifo_written_directly", test_fifo_written_directly_in_dir},
    {"descriptor_aliases", test_descriptor_aliases},
    {"descriptors_above_stdio", test_descriptors_above_stdio_in_dir},
    {"socket_refused", test_socket_refused_in_dir},
    {"errors_name_the_path", test_errors_name_the_path_in_dir},
    {"output_is_an_input", test_output_is_an_input_in_dir},
    {"temp_file_reason", test_temp_file_reason},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_outfile = {"outfile", NULL, NULL, cases};
