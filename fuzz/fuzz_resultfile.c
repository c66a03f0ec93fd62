/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the result-file reader and what is built on it. Any
 * input is parsed as a result file (tools/lib/analysis/resultfile.c); one
 * that loads is then compared with itself and grouped into scaling
 * families, and every report format is rendered, so the analysis code sees
 * whatever the reader lets through; then the same again with the counter
 * metric of compare/scaling --metric (tools/lib/analysis/metric.c), which
 * reads the file's ompbench.counters and flat keys itself. Sanitizers (address, undefined) turn a
 * bad access or undefined behaviour into a crash the fuzzer keeps.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/compare.h"
#include "analysis/metric.h"
#include "analysis/resultfile.h"
#include "analysis/scaling.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink(void)
{
    static FILE *null;
    if (!null)
        null = fopen("/dev/null", "w");
    return null;
}

static void analyze(const ompb__resultfile *rf, const char *metric, ompb__metric_unit unit)
{
    static const ompb__report_format formats[] = {OMPB__REPORT_CONSOLE, OMPB__REPORT_MARKDOWN,
                                                  OMPB__REPORT_JSON};
    ompb__compare_opts opts = {OMPB__COMPARE_DEFAULT_THRESHOLD, OMPB__COMPARE_DEFAULT_ALPHA};
    ompb__comparison cmp;
    ompb__scaling s;
    ompb__compare_side side = {rf, 1};
    if (ompb__compare_runs(&side, &side, &opts, &cmp) == 0) {
        cmp.metric = metric;
        cmp.unit = unit;
        for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
            ompb__compare_print(sink(), &cmp, formats[i]);
        ompb__comparison_free(&cmp);
    }
    if (ompb__scaling_build(rf, &s) == 0) {
        ompb__scaling_set_metric(&s, metric, unit);
        for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
            ompb__scaling_print(sink(), &s, formats[i]);
        ompb__scaling_svg(sink(), &s);
        ompb__scaling_free(&s);
    }
}

/* The file again, its values replaced by a counter's (--metric). */
static void with_metric(const char *text)
{
    static const char *const metrics[] = {"instructions", "task-clock"};
    for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
        ompb__resultfile rf;
        ompb_error err = {0};
        ompb__metric_unit unit;
        json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
        if (root && ompb__resultfile_parse(text, "fuzz.json", &rf, &err) == 0) {
            if (ompb__metric_apply_json(root, "fuzz.json", metrics[m], &rf, &unit, &err) == 0)
                analyze(&rf, metrics[m], unit);
            else if (!err.text[0] || strchr(err.text, '\n'))
                __builtin_trap();
            ompb__resultfile_free(&rf);
        }
        json_decref(root);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    ompb__resultfile rf;
    ompb_error err = {0};
    if (ompb__resultfile_parse(text, "fuzz.json", &rf, &err) == 0) {
        analyze(&rf, NULL, OMPB__METRIC_NS);
        ompb__resultfile_free(&rf);
        with_metric(text);
    } else if (!err.text[0] || strchr(err.text, '\n')) {
        __builtin_trap();   /* a refusal is one line, never empty */
    }
    free(text);
    return 0;
}
