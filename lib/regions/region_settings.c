/* SPDX-License-Identifier: MIT */
/*
 * The OMPB_REGIONS* settings, read once from the environment when the
 * library is loaded (by a constructor), and the switch every region call
 * tests first. A bad value turns regions off with a warning; a benchmark binary
 * refuses it instead (ompb__regions_check_settings, exit 2). Below every
 * other region module: it calls none of them.
 */
#include "regions/region_settings.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "report/report.h"

#define ENV_ON "OMPB_REGIONS"
#define ENV_OUTPUT "OMPB_REGIONS_OUTPUT"
#define ENV_FORMAT "OMPB_REGIONS_FORMAT"
#define ENV_CLOCK "OMPB_REGIONS_CLOCK"

/* The hot path's first branch: OMPB_REGIONS=0 clears it. */
bool ompb__regions_on = true;
static char *output_path;       /* OMPB_REGIONS_OUTPUT, %p expanded */
static const char *format_name;
static bool forked;
static bool tsc_allowed = true; /* OMPB_REGIONS_CLOCK is not clock_gettime */

/* Why the settings were refused ("" when they were not), for ompb_main. */
static char settings_error[OMPB_ERROR_TEXT_MAX + 64];

/* A bad setting turns regions off with a warning: the settings are read
 * by a constructor, in every program that links the library, and an
 * application's markers must never stop it (no constructor exits). A
 * benchmark binary refuses the setting in ompb_main's configuration
 * instead (exit 2, ompb__regions_check_settings). */
static void bad_setting(const char *text)
{
    snprintf(settings_error, sizeof settings_error, "%s", text);
    ompb__regions_on = false;
    ompb__error_print(stderr, "ompbench: warning: %s; region markers are off", text);
}

int ompb__regions_check_settings(ompb_error *err)
{
    if (!settings_error[0])
        return 0;
    return ompb__error_set(err, OMPB_EINVAL, "%s", settings_error);
}

static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* OMPB_REGIONS_OUTPUT with every %p replaced by the process id. */
static char *expand_output(const char *value)
{
    char pid[24];
    size_t n = 0, plen = (size_t)snprintf(pid, sizeof pid, "%ld", (long)getpid());
    for (const char *p = value; *p; p++)
        n += (p[0] == '%' && p[1] == 'p') ? (p++, plen) : 1;
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = value; *p; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            memcpy(o, pid, plen);
            o += plen;
            p++;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* An output that is the running program itself (the same device and
 * inode as /proc/self/exe, through links too) would replace the binary by
 * the report. Refused with one warning; the reports then go to standard
 * error, as without the variable, and regions stay on. A benchmark binary
 * refuses it in ompb_main (exit 2). */
static void refuse_running_program(void)
{
    const ompb__outfile_input self = {"the running program", "/proc/self/exe"};
    ompb_error err = {0};
    if (ompb__outfile_check_inputs(ENV_OUTPUT, output_path, &self, 1, &err) == 0)
        return;
    snprintf(settings_error, sizeof settings_error, "%s", err.text);
    ompb__error_print(stderr, "ompbench: warning: %s; region reports go to standard error",
                      err.text);
    free(output_path);
    output_path = NULL;
}

/* Returns false after bad_setting. */
static bool read_settings(void)
{
    char text[OMPB_ERROR_TEXT_MAX + 64];
    const char *on = env_value(ENV_ON), *fmt = env_value(ENV_FORMAT), *out = env_value(ENV_OUTPUT);
    const char *clock = env_value(ENV_CLOCK);
    if (on && strcmp(on, "0") != 0 && strcmp(on, "1") != 0) {
        snprintf(text, sizeof text, "%s: invalid value '%.100s' (accepted: 0, 1)", ENV_ON, on);
        bad_setting(text);
        return false;
    }
    if (clock && strcmp(clock, "auto") != 0 && strcmp(clock, "clock_gettime") != 0) {
        snprintf(text, sizeof text, "%s: invalid value '%.100s' (accepted: auto, clock_gettime)",
                 ENV_CLOCK, clock);
        bad_setting(text);
    }
    tsc_allowed = !clock || strcmp(clock, "auto") == 0;
    if (on && strcmp(on, "0") == 0) {
        ompb__regions_on = false;
        return true;
    }
    if (fmt && !ompb__reporter_find(fmt)) {
        snprintf(text, sizeof text, "%s: invalid value '%.100s' (accepted: %s)", ENV_FORMAT, fmt,
                 ompb__reporter_names());
        bad_setting(text);
        return false;
    }
    format_name = fmt;
    if (!out || strcmp(out, "-") == 0) {
        output_path = out ? strdup(out) : NULL;
        return true;
    }
    ompb_error err = {0};
    if (!(output_path = expand_output(out))) {
        bad_setting("out of memory");
        return false;
    }
    if (ompb__outfile_probe(output_path, &err) != 0) {
        snprintf(text, sizeof text, "%s: %s (accepted: a writable file path, or -)", ENV_OUTPUT,
                 err.text);
        free(output_path);
        output_path = NULL;
        bad_setting(text);
        return false;
    }
    refuse_running_program();
    return true;
}

static void child_after_fork(void)
{
    forked = true;
    ompb__regions_on = false;
}

bool ompb__regions_settings_load(void)
{
    static int loaded = -1;
    if (loaded >= 0)
        return loaded;
    loaded = read_settings() && ompb__regions_on;
    if (loaded)
        pthread_atfork(NULL, NULL, child_after_fork);
    return loaded;
}

/* A benchmark binary that uses no marker still refuses a bad setting
 * (ompb__regions_check_settings): this file is in it, lib/regions/region.c (whose
 * constructor reads them too, whichever runs first) may not be. */
__attribute__((constructor)) static void settings_load(void)
{
    ompb__regions_settings_load();
}

const char *ompb__regions_output(void)
{
    return output_path;
}

const char *ompb__regions_format(void)
{
    return format_name;
}

bool ompb__regions_forked(void)
{
    return forked;
}

bool ompb__regions_tsc_allowed(void)
{
    return tsc_allowed;
}

void ompb__regions_set_enabled(bool on)
{
    ompb__regions_on = on;
}

bool ompb__regions_enabled(void)
{
    return ompb__regions_on;
}
