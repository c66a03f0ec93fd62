/* SPDX-License-Identifier: MIT */
/*
 * The `ompbench` command: a thin dispatcher over the library's tools.
 *   ompbench collect [...] -- CMD ARGS...   act as the CodSpeed runner, check what CMD sends
 *   ompbench compare BASE.json HEAD.json    verdict per benchmark between two runs
 *   ompbench scaling RESULT.json            speedup and efficiency per thread count
 */
#include <stdio.h>
#include <string.h>

#include <ompbench/version.h>

#include "tools.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"collect", ompb__tool_collect, "run a benchmark binary under a CodSpeed-runner stand-in and check its hooks"},
    {"compare", ompb__tool_compare, "compare two result files: improved, regressed, untouched, new, missing"},
    {"scaling", ompb__tool_scaling, "strong-scaling table (and SVG plot) from a result file"},
};

static void usage(FILE *out)
{
    fprintf(out, "Usage: ompbench COMMAND [ARGS]...   (ompbench COMMAND --help for details)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ompbench %s\n", ompb_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "ompbench: unknown command '%s' (accepted: collect, compare, scaling)\n", argv[1]);
    return 2;
}
