/* SPDX-License-Identifier: MIT */
/*
 * Strong scaling: family names, speedup and efficiency against the smallest
 * thread count, the tables and the SVG plot, on the crafted
 * tests/data/compare/scaling.json (make_data.py there). Expected values are
 * worked out by hand from the samples in that file. The SVG is checked here
 * for the series it must contain and for bounded size on hostile input; its
 * well-formedness is checked by real XML parsers (xmllint and Python's
 * xml.etree) in tests/integration/analysis_cli.sh, on the same files.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/scaling.h"
#include "fixtures.h"
#include "suite.h"

#define SCALING_JSON OMPB_TEST_DATA_DIR "/compare/scaling.json"
#define HOSTILE_JSON OMPB_TEST_DATA_DIR "/compare/scaling_hostile.json"
/* A generous bound on the SVG of one family: the normal one is about 5 KB. */
#define SVG_BYTES_PER_FAMILY 12000
#define MAX_TICKS_PER_PANEL 9

/* ---- families ------------------------------------------------------------ */

static void test_family_name(void)
{
    static const char *const cases[][2] = {
        {"triad[t=2]", "triad"},
        {"triad[1048576, t=4]", "triad[1048576]"},
        {"triad[1048576,t=16]", "triad[1048576]"},
        {"pair[1, 2, t=8]", "pair[1, 2]"},
        {"add_two_integers[(42, 13), t=2]", "add_two_integers[(42, 13)]"},
        {"BM_sort/1024/threads:4", "BM_sort/1024"},
        {"fib[20]", "fib[20]"},
        {"plain", "plain"},
        {"at[t=]", "at[t=]"},
        {"tx[at=2]", "tx[at=2]"},
        {"[t=2]", ""},
        {"halo[r=2, t=4]", "halo"},
        {"halo[64, r=2, t=4]", "halo[64]"},
        {"halo[r=2]", "halo"},
        {"tx[ar=2, t=1]", "tx[ar=2]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *f = ompb__scaling_family_name(cases[i][0]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        if (strcmp(f, cases[i][1]) != 0)
            fprintf(stderr, "\n'%s' -> '%s', want '%s'\n", cases[i][0], f, cases[i][1]);
        CU_ASSERT_STRING_EQUAL(f, cases[i][1]);
        free(f);
    }
}

static void test_point_fill(void)
{
    ompb__scaling_point base = {2, 800.0, 0, 0, NAN, 0, 2, 0, 0, 0, 0, NAN, NAN,
                                NULL, NAN, NAN, NAN, false};
    ompb__scaling_point pt = {4, 500.0, 0, 0, NAN, 0, 4, 0, 0, 0, 0, NAN, NAN,
                              NULL, NAN, NAN, NAN, false};
    ompb__scaling_point_fill(&base, &base);
    ompb__scaling_point_fill(&pt, &base);
    CU_ASSERT_EQUAL(base.speedup, 1.0);
    CU_ASSERT_EQUAL(base.efficiency, 1.0);
    CU_ASSERT_DOUBLE_EQUAL(pt.speedup, 1.6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(pt.efficiency, 0.8, 1e-12); /* 1.6 * 2 / 4 */
    ompb__scaling_point zero = {8, 0.0, 0, 0, NAN, 0, 8, 0, 0, 0, 0, NAN, NAN,
                                NULL, NAN, NAN, NAN, false};
    ompb__scaling_point_fill(&zero, &base);
    CU_ASSERT_TRUE(isnan(zero.speedup));
}

static void build(ompb__resultfile *rf, ompb__scaling *s)
{
    ompb_error err = {0};
    int rc = ompb__resultfile_load(SCALING_JSON, rf, &err);
    if (rc)
        fprintf(stderr, "\n%s\n", err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build(rf, s), 0);
}

/*
 * triad: medians 1000, 520, 300 ns at 1, 2, 4 threads. Busy times per round
 * (make_data.py): thread 0 = makespan - 50, the others int(that / ratio), with
 * ratio 1.04 at 2 threads and 1.25 at 4: 519950 vs 499951, and 299950 vs
 * 3 x 239960. stream starts at 2 threads: 800 -> 500 ns.
 */
static void test_build(void)
{
    ompb__resultfile rf;
    ompb__scaling s;
    build(&rf, &s);
    CU_ASSERT_EQUAL_FATAL(s.n, 2);
    CU_ASSERT_EQUAL(s.single, 2); /* lonely[t=2], fib[20] */
    const ompb__scaling_family *triad = &s.families[0], *stream = &s.families[1];
    CU_ASSERT_STRING_EQUAL(triad->name, "triad[1048576]");
    CU_ASSERT_EQUAL_FATAL(triad->n, 3);
    CU_ASSERT_EQUAL(triad->points[0].threads, 1);
    CU_ASSERT_EQUAL(triad->points[2].threads, 4);
    CU_ASSERT_EQUAL(triad->points[1].median_ns, 520.0);
    CU_ASSERT_DOUBLE_EQUAL(triad->points[1].speedup, 1000.0 / 520.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(triad->points[1].efficiency, 1000.0 / 520.0 / 2.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(triad->points[2].speedup, 1000.0 / 300.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(triad->points[2].efficiency, 1000.0 / 300.0 / 4.0, 1e-12);
    CU_ASSERT_EQUAL(triad->points[0].imbalance, 1.0);
    CU_ASSERT_DOUBLE_EQUAL(triad->points[1].imbalance,
                           519950.0 / ((519950.0 + 499951.0) / 2.0), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(triad->points[2].imbalance,
                           299950.0 / ((299950.0 + 3 * 239960.0) / 4.0), 1e-12);
    CU_ASSERT_STRING_EQUAL(stream->name, "stream");
    CU_ASSERT_EQUAL(stream->points[0].threads, 2);
    CU_ASSERT_DOUBLE_EQUAL(stream->points[1].speedup, 1.6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(stream->points[1].efficiency, 0.8, 1e-12);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

/* ---- reports ------------------------------------------------------------- */

typedef int (*render_fn)(FILE *out, const ompb__scaling *s, ompb__report_format fmt);

static int svg_render(FILE *out, const ompb__scaling *s, ompb__report_format fmt)
{
    (void)fmt;
    return ompb__scaling_svg(out, s);
}

static char *render(const ompb__scaling *s, render_fn fn, ompb__report_format fmt)
{
    FILE *out = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(fn(out, s, fmt), 0);
    return ompb_test_slurp(out);
}

static void test_tables(void)
{
    ompb__resultfile rf;
    ompb__scaling s;
    build(&rf, &s);
    char *text = render(&s, ompb__scaling_print, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "triad[1048576] (against 1 thread)\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "       2      520.0 ns     1.92x       96.2%      "
                                        "1.020\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "stream (against 2 threads)\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "       4      500.0 ns     1.60x       80.0%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "2 benchmarks measured at a single thread count"));
    free(text);
    text = render(&s, ompb__scaling_print, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| 4 | 300.0 ns | 3.33x | 83.3% | 1.176 |\n"));
    free(text);
    text = render(&s, ompb__scaling_print, OMPB__REPORT_JSON);
    json_t *root = json_loads(text, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *fam = json_array_get(json_object_get(root, "families"), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(fam, "baseline_threads")), 2);
    json_t *pt = json_array_get(json_object_get(fam, "points"), 1);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(pt, "efficiency")), 0.8, 1e-9);
    json_decref(root);
    free(text);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

/* The value of the points attribute of the polyline with id, or NULL. The key
 * is static only to keep GCC's -Wdangling-pointer from mistaking strstr's
 * result for a pointer into it. */
static const char *points_of(const char *svg, const char *id)
{
    static char key[64];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *at = strstr(svg, key);
    const char *p = at ? strstr(at, "points=\"") : NULL;
    return p ? p + 8 : NULL;
}

/* Number of "x,y" pairs in the points attribute of the polyline with id. */
static int polyline_points(const char *svg, const char *id)
{
    const char *p = points_of(svg, id);
    int n = 0;
    if (!p)
        return -1;
    for (; *p && *p != '"'; p++)
        n += *p == ',';
    return n;
}

/* y of the last point of the polyline with id, -1 when absent. */
static double last_y(const char *svg, const char *id)
{
    const char *p = points_of(svg, id), *comma = NULL;
    for (; p && *p && *p != '"'; p++)
        if (*p == ',')
            comma = p;
    return comma ? atof(comma + 1) : -1.0;
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static void test_svg(void)
{
    ompb__resultfile rf;
    ompb__scaling s;
    build(&rf, &s);
    char *svg = render(&s, svg_render, OMPB__REPORT_CONSOLE);
    CU_ASSERT_EQUAL(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "viewBox=\"0 0 960 "));
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-time-measured"), 3);
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-time-ideal"), 3);
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-efficiency-measured"), 3);
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-efficiency-ideal"), 3);
    CU_ASSERT_EQUAL(polyline_points(svg, "f1-time-measured"), 2);
    CU_ASSERT_EQUAL(polyline_points(svg, "f1-efficiency-ideal"), 2);
    CU_ASSERT_EQUAL(polyline_points(svg, "f2-time-measured"), -1);
    CU_ASSERT_EQUAL(count(svg, "<circle "), 10); /* (3 + 2) points x 2 panels */
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "data-name=\"triad[1048576]\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<title>4 threads: 300.0 ns, speedup 3.33x, "
                                       "efficiency 83.3%</title>"));
    /* Ideal time at 4 threads is 250 ns, below the measured 300 ns: the ideal
     * line ends lower on the page (larger y). */
    CU_ASSERT(last_y(svg, "f0-time-ideal") > last_y(svg, "f0-time-measured"));
    free(svg);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

/* scaling_marks.json: triad at 1, 2 (cpu_share), 4 and 8 threads
 * (oversubscribed); plain without marks. Oversubscribed points have no
 * speedup or efficiency, are hollow in the plot and not joined into the
 * measured line; a marked point is drawn in another colour and its marks are
 * in the table's marks column, which an unmarked family does not get. */
static void test_marks(void)
{
    ompb__resultfile rf;
    ompb__scaling s;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__resultfile_load(OMPB_TEST_DATA_DIR "/compare/scaling_marks.json",
                                                &rf, &err), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build(&rf, &s), 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 2);
    const ompb__scaling_family *triad = &s.families[0];
    CU_ASSERT_EQUAL_FATAL(triad->n, 4);
    CU_ASSERT_EQUAL(triad->points[1].marks, OMPB__MARK_CPU_SHARE);
    CU_ASSERT_DOUBLE_EQUAL(triad->points[1].speedup, 1000.0 / 520.0, 1e-12);
    for (size_t i = 2; i < 4; i++) {
        CU_ASSERT_TRUE(ompb__scaling_point_not_real(&triad->points[i]));
        CU_ASSERT_TRUE(isnan(triad->points[i].speedup));
        CU_ASSERT_TRUE(isnan(triad->points[i].efficiency));
    }
    CU_ASSERT_EQUAL(s.families[1].marks, 0);

    char *text = render(&s, ompb__scaling_print, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, " threads        median   speedup  efficiency  imbalance"
                                        "  marks\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "       2      520.0 ns     1.92x       96.2%          -  "
                                        "cpu_share\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "       4      480.0 ns         -           -          -  "
                                        "oversubscribed\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "       1      800.0 ns     1.00x      100.0%          "
                                        "-\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nMarks (a marked point is suspect"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  cpu_share: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nAn oversubscribed point (or any point against an "
                                        "oversubscribed base) has no speedup"));
    free(text);
    text = render(&s, ompb__scaling_print, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| Imbalance | Marks |\n|--:|--:|--:|--:|--:|:--|\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| 8 | 470.0 ns | - | - | - | oversubscribed, few_rounds "
                                        "|\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n> - `oversubscribed`: "));
    free(text);
    text = render(&s, ompb__scaling_print, OMPB__REPORT_JSON);
    json_t *root = json_loads(text, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *pts = json_object_get(json_array_get(json_object_get(root, "families"), 0), "points");
    json_t *p4 = json_array_get(pts, 2);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(p4, "marks"), 0)),
                           "oversubscribed");
    CU_ASSERT_TRUE(json_is_null(json_object_get(p4, "speedup")));
    CU_ASSERT_EQUAL(json_array_size(json_object_get(json_array_get(pts, 0), "marks")), 0);
    json_decref(root);
    free(text);

    char *svg = render(&s, svg_render, OMPB__REPORT_CONSOLE);
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-time-measured"), 2);   /* 1 and 2 threads */
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-time-ideal"), 4);
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-efficiency-measured"), 2);
    CU_ASSERT_EQUAL(count(svg, "<circle class=\"oversubscribed\""), 2); /* time panel only */
    CU_ASSERT_EQUAL(count(svg, "<circle class=\"marked\""), 2);         /* time, efficiency */
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<title>4 threads: 480.0 ns, speedup -, efficiency -; "
                                       "marked: oversubscribed (no speedup: threads took "
                                       "turns)</title>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">oversubscribed (no speedup)</text>"));
    CU_ASSERT_EQUAL(polyline_points(svg, "f1-time-measured"), 2);
    free(svg);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

/* Names are escaped; an empty report is still a valid document. */
static void test_svg_escaping_and_empty(void)
{
    ompb__scaling_point pts[2] = {
        {1, 100.0, 1.0, 1.0, NAN, 0, 1, 0, 0, 0, 0, NAN, NAN, NULL, NAN, NAN, NAN, false},
        {2, 60.0, 0, 0, NAN, 0, 2, 0, 0, 0, 0, NAN, NAN, NULL, NAN, NAN, NAN, false}};
    ompb__scaling_point_fill(&pts[1], &pts[0]);
    ompb__scaling_family fam = {.name = (char *)"a<b>&\"c", .points = pts, .n = 2};
    ompb__scaling s = {.families = &fam, .n = 1};
    char *svg = render(&s, svg_render, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "a&lt;b&gt;&amp;&quot;c"));
    free(svg);
    ompb__scaling empty = {.single = 3};
    svg = render(&empty, svg_render, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "</svg>\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "no benchmark was measured at more than one"));
    free(svg);
    char *text = render(&empty, ompb__scaling_print, OMPB__REPORT_CONSOLE);
    CU_ASSERT_STRING_EQUAL(text, "no benchmark was measured at more than one thread count\n");
    free(text);
}

/* Tick lines of each panel ("<g class="panel ..."> ... </g>"), at most max. */
static void check_ticks_per_panel(const char *svg, size_t max)
{
    size_t panels = 0;
    for (const char *p = svg; (p = strstr(p, "<g class=\"panel ")); p++, panels++) {
        const char *end = strstr(p, "</g>");
        size_t ticks = 0;
        CU_ASSERT_PTR_NOT_NULL_FATAL(end);
        for (const char *t = p; (t = strstr(t, "stroke=\"#e5e5e5\"")) && t < end; t++)
            ticks++;
        CU_ASSERT(ticks >= 2 && ticks <= max);
    }
    CU_ASSERT(panels > 0);
}

/*
 * Efficiency 5e299 (1e300 ns against 1 ns) once looped forever adding 0.5
 * ticks, and 1 ms against 1 ns wrote a million ticks (142 MB). Both axes are
 * bounded now: the document is small, each panel has a few ticks, and the
 * points beyond an axis are marked on its edge: huge (time and efficiency),
 * ms_vs_ns (two times below, two efficiencies above), zero (a time of 0 has
 * no place on a log axis).
 */
static void test_svg_extreme_values(void)
{
    ompb__resultfile rf;
    ompb__scaling s;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__resultfile_load(HOSTILE_JSON, &rf, &err), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build(&rf, &s), 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 4);
    CU_ASSERT_DOUBLE_EQUAL(s.families[1].points[1].efficiency, 5e299, 1e285);
    char *svg = render(&s, svg_render, OMPB__REPORT_CONSOLE);
    CU_ASSERT(strlen(svg) < 4 * SVG_BYTES_PER_FAMILY);
    check_ticks_per_panel(svg, MAX_TICKS_PER_PANEL);
    CU_ASSERT_EQUAL(count(svg, "class=\"off-axis\""), 7);
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<title>2 threads: 1.000 ns, speedup "));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "(off the axis)</title></polygon>"));
    CU_ASSERT_PTR_NULL(strstr(svg, "nan"));
    CU_ASSERT_PTR_NULL(strstr(svg, "inf"));
    free(svg);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);

    /* Built by hand, beyond what a file gives: an infinite speedup, and
     * thread counts 1 to 2^20 (a twenty-decade ideal line). */
    ompb__scaling_point pts[3] = {
        {1, DBL_MAX, 0, 0, NAN, 0, 1, 0, 0, 0, 0, NAN, NAN, NULL, NAN, NAN, NAN, false},
        {2, DBL_MIN, 0, 0, NAN, 0, 2, 0, 0, 0, 0, NAN, NAN, NULL, NAN, NAN, NAN, false},
        {1 << 20, 1.0, 0, 0, NAN, 0, 1 << 20, 0, 0, 0, 0, NAN, NAN, NULL, NAN, NAN, NAN, false}};
    for (int i = 0; i < 3; i++)
        ompb__scaling_point_fill(&pts[i], &pts[0]);
    ompb__scaling_family fam = {.name = (char *)"wild", .points = pts, .n = 3};
    ompb__scaling one = {.families = &fam, .n = 1};
    svg = render(&one, svg_render, OMPB__REPORT_CONSOLE);
    CU_ASSERT(strlen(svg) < SVG_BYTES_PER_FAMILY);
    check_ticks_per_panel(svg, MAX_TICKS_PER_PANEL);
    free(svg);
}

/* XML 1.0 allows no C0 control but tab, newline and return, not even as a
 * character reference, and not U+FFFE: they become '?'. Tab survives as a
 * reference (an attribute would make it a space). */
static void test_svg_control_characters(void)
{
    ompb__resultfile rf;
    ompb__scaling s;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__resultfile_load(HOSTILE_JSON, &rf, &err), 0);
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build(&rf, &s), 0);
    CU_ASSERT_STRING_EQUAL(s.families[0].name,
                           "ctl<&\"]]>\001\033[31m\177`\xef\xbf\xbe\ttab");
    char *svg = render(&s, svg_render, OMPB__REPORT_CONSOLE);
    for (const unsigned char *p = (const unsigned char *)svg; *p; p++)
        if (*p < 0x20 && *p != '\n')
            CU_FAIL("control character in the SVG");
    CU_ASSERT_PTR_NULL(strstr(svg, "\xef\xbf\xbe"));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "data-name=\"ctl&lt;&amp;&quot;]]&gt;??[31m\177`?&#9;"
                                       "tab\""));
    free(svg);
    /* The tables escape the name for the terminal and for markdown. */
    char *text = render(&s, ompb__scaling_print, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NULL(strchr(text, '\033'));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "ctl<&\"]]>\\x01\\x1B[31m\\x7F`\xef\xbf\xbe\\x09tab "
                                        "(against 1 thread)\n"));
    free(text);
    text = render(&s, ompb__scaling_print, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "#### ``ctl<&\"]]>\\x01\\x1B[31m\\x7F`\xef\xbf\xbe"
                                        "\\x09tab`` (against 1 thread)\n"));
    free(text);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

/* One Google Benchmark entry of a distributed run's file. */
#define GB_ENTRY(name, threads, ns)                                                       \
    "{\"name\": \"" name "\", \"run_type\": \"iteration\", \"time_unit\": \"ns\", " \
    "\"threads\": " #threads ", \"real_time\": " #ns "}"

static void parse_inline(const char *text, ompb__resultfile *rf)
{
    ompb_error err = {0};
    int rc = ompb__resultfile_parse(text, "inline", rf, &err);
    if (rc)
        fprintf(stderr, "\n%s\n", err.text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/*
 * Scaling over ranks x threads takes one file per rank count (one MPI job
 * each): the files' instances merge into one family, a point per (ranks,
 * width), ascending width then ranks, against the smallest; a point met
 * again in a later file is counted, the first standing. R and T are
 * separate columns of the tables, and the JSON points carry both.
 */
static void test_several_files(void)
{
    ompb__resultfile rf[2];
    parse_inline("{\"benchmarks\": [" GB_ENTRY("halo[r=1, t=1]", 1, 1000) ", "
                 GB_ENTRY("halo[r=1, t=2]", 2, 600) ", " GB_ENTRY("plain[t=1]", 1, 10) "]}",
                 &rf[0]);
    parse_inline("{\"benchmarks\": [" GB_ENTRY("halo[r=2, t=2]", 2, 250) ", "
                 GB_ENTRY("halo[r=2, t=1]", 1, 500) ", " GB_ENTRY("halo[r=1, t=2]", 2, 999)
                 ", " GB_ENTRY("plain[t=2]", 2, 5) "]}",
                 &rf[1]);
    ompb__scaling s;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build_files(rf, 2, &s), 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 2);
    CU_ASSERT_EQUAL(s.single, 0);
    CU_ASSERT_EQUAL(s.duplicates, 1);
    const ompb__scaling_family *halo = &s.families[0], *plain = &s.families[1];
    CU_ASSERT_STRING_EQUAL(halo->name, "halo");
    CU_ASSERT_TRUE(halo->ranked);
    CU_ASSERT_EQUAL_FATAL(halo->n, 4);
    static const int want[4][3] = {{1, 1, 1}, {2, 1, 2}, {2, 2, 1}, {4, 2, 2}};
    static const double median[4] = {1000, 600, 500, 250};
    for (int i = 0; i < 4; i++) {
        const ompb__scaling_point *p = &halo->points[i];
        CU_ASSERT_EQUAL(p->threads, want[i][0]);
        CU_ASSERT_EQUAL(p->ranks, want[i][1]);
        CU_ASSERT_EQUAL(p->threads_per_rank, want[i][2]);
        CU_ASSERT_EQUAL(p->median_ns, median[i]); /* 600, not the later file's 999 */
        CU_ASSERT_DOUBLE_EQUAL(p->speedup, 1000.0 / median[i], 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(p->efficiency, 1000.0 / median[i] / want[i][0], 1e-12);
    }
    CU_ASSERT_FALSE(plain->ranked);
    CU_ASSERT_EQUAL(plain->n, 2);

    char *text = render(&s, ompb__scaling_print, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "halo (against 1 rank x 1 thread)\n"
                                        " ranks   threads        median   speedup  efficiency"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n     2         1      500.0 ns     2.00x      100.0%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n     2         2      250.0 ns     4.00x      100.0%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "plain (against 1 thread)\n threads        median"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "(1 point found again in a later entry or file: "
                                        "the first stands)"));
    free(text);
    text = render(&s, ompb__scaling_print, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| Ranks | Threads | Median | Speedup | Efficiency | "
                                        "Imbalance |\n|--:|--:|--:|--:|--:|--:|\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| 2 | 1 | 500.0 ns | 2.00x | 100.0% | - |\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "| Threads | Median | Speedup | Efficiency | Imbalance |"
                                        "\n|--:|--:|--:|--:|--:|\n| 1 |"));
    free(text);
    text = render(&s, ompb__scaling_print, OMPB__REPORT_JSON);
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    json_t *pts = json_object_get(json_array_get(json_object_get(j, "families"), 0), "points");
    json_t *third = json_array_get(pts, 2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(third, "threads")), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(third, "ranks")), 2);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(third, "threads_per_rank")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "duplicate_points")), 1);
    json_t *plain_pt = json_array_get(
        json_object_get(json_array_get(json_object_get(j, "families"), 1), "points"), 0);
    CU_ASSERT_PTR_NULL(json_object_get(plain_pt, "ranks"));
    json_decref(j);
    free(text);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf[0]);
    ompb__resultfile_free(&rf[1]);
}

static void test_parse_format(void)
{
    ompb__report_format f;
    CU_ASSERT_EQUAL(ompb__report_parse_format("markdown", &f), 0);
    CU_ASSERT_EQUAL(f, OMPB__REPORT_MARKDOWN);
    CU_ASSERT_EQUAL(ompb__report_parse_format("svg", &f), OMPB_EINVAL);
}

/* ---- weak scaling, error bars, legend placement (issue 22) ---------------- */

/* An ompbench entry: per-iteration rounds of ns (sample size 1), its
 * declared scaling (NULL: none), its marks. */
#define OMP_ENTRY(name, threads, scaling, marks, r1, r2, r3)                            \
    "{\"name\": \"" name "\", \"run_type\": \"iteration\", \"time_unit\": \"ns\", "       \
    "\"threads\": " #threads ", \"real_time\": " #r2 ", \"ompbench\": {\"threads\": "     \
    #threads ", \"sample_size\": 1, " scaling "\"marks\": [" marks "], \"samples\": "     \
    "{\"makespan_ns\": [" #r1 ", " #r2 ", " #r3 "]}}}"

/* A weak-scaling MPI run whose every rank takes the time one rank took:
 * perfect weak scaling is 100% efficiency (strong scaling's ideal would
 * call it 50%), and the oversubscribed point has none. */
static void test_weak_declared(void)
{
    ompb__resultfile rf[3];
    parse_inline("{\"benchmarks\": [" OMP_ENTRY("halo[64, r=1, t=1]", 1, "\"scaling\": \"weak\", ",
                                                "", 990, 1000, 1010) "]}", &rf[0]);
    parse_inline("{\"benchmarks\": [" OMP_ENTRY("halo[64, r=2, t=1]", 1, "\"scaling\": \"weak\", ",
                                                "", 995, 1000, 1020) "]}", &rf[1]);
    parse_inline("{\"benchmarks\": [" OMP_ENTRY("halo[64, r=4, t=1]", 1, "\"scaling\": \"weak\", ",
                                                "\"oversubscribed\"", 1900, 2000, 2100) "]}",
                 &rf[2]);
    ompb__scaling s;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build_files(rf, 3, &s), 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 1);
    const ompb__scaling_family *f = &s.families[0];
    CU_ASSERT_TRUE(f->weak);
    CU_ASSERT_EQUAL(f->basis, OMPB__SCALING_DECLARED);
    CU_ASSERT_DOUBLE_EQUAL(f->points[1].efficiency, 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f->points[1].speedup, 2.0, 1e-12);
    CU_ASSERT(isnan(f->points[2].efficiency));
    char *svg = render(&s, svg_render, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "weak scaling (declared)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "efficiency 100.0%"));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "ideal (weak: same time)"));
    CU_ASSERT_EQUAL(count(svg, "<circle class=\"oversubscribed\""), 1);
    /* The ideal time is flat: every point's is the base's time, drawn per
     * rank count at the base's y. */
    for (size_t i = 0; i < f->n; i++)
        CU_ASSERT_DOUBLE_EQUAL(f->points[i].ideal_ns, f->points[0].median_ns, 1e-9);
    const char *ideal = points_of(svg, "f0-time-ideal");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ideal);
    double y[3];
    CU_ASSERT_EQUAL(sscanf(ideal, "%*f,%lf %*f,%lf %*f,%lf", &y[0], &y[1], &y[2]), 3);
    CU_ASSERT_DOUBLE_EQUAL(y[0], y[2], 1e-9);
    free(svg);
    char *text = render(&s, ompb__scaling_print, OMPB__REPORT_CONSOLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nweak scaling: ideal"));
    free(text);
    ompb__scaling_free(&s);
    for (int i = 0; i < 3; i++)
        ompb__resultfile_free(&rf[i]);
}

#define RATE_ENTRY(name, threads, ns, bytes_per_s)                                      \
    "{\"name\": \"" name "\", \"run_type\": \"iteration\", \"time_unit\": \"ns\", "     \
    "\"threads\": " #threads ", \"real_time\": " #ns ", \"bytes_per_second\": "         \
    #bytes_per_s "}"

/* Declared bytes per iteration that grow with the width say weak; fixed
 * ones say strong; a file that declares nothing keeps strong, assumed. */
static void test_weak_inferred(void)
{
    ompb__resultfile rf;
    /* 1 us per iteration at 1e9 B/s = 1000 B; at t=4, 4000 B in 1 us. */
    parse_inline("{\"benchmarks\": [" RATE_ENTRY("grow[t=1]", 1, 1000, 1e9) ", "
                 RATE_ENTRY("grow[t=4]", 4, 1000, 4e9) ", " RATE_ENTRY("fixed[t=1]", 1, 1000, 1e9)
                 ", " RATE_ENTRY("fixed[t=4]", 4, 250, 4e9) ", " GB_ENTRY("none[t=1]", 1, 1000)
                 ", " GB_ENTRY("none[t=4]", 4, 1000) "]}", &rf);
    ompb__scaling s;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build(&rf, &s), 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 3);
    CU_ASSERT_TRUE(s.families[0].weak);
    CU_ASSERT_EQUAL(s.families[0].basis, OMPB__SCALING_INFERRED);
    CU_ASSERT_DOUBLE_EQUAL(s.families[0].points[1].efficiency, 1.0, 1e-9);
    CU_ASSERT_FALSE(s.families[1].weak);
    CU_ASSERT_EQUAL(s.families[1].basis, OMPB__SCALING_INFERRED);
    CU_ASSERT_DOUBLE_EQUAL(s.families[1].points[1].efficiency, 1.0, 1e-9);
    CU_ASSERT_FALSE(s.families[2].weak);
    CU_ASSERT_EQUAL(s.families[2].basis, OMPB__SCALING_ASSUMED);
    CU_ASSERT_DOUBLE_EQUAL(s.families[2].points[1].efficiency, 0.25, 1e-9);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

/* Ranks that each bring their work and threads that share it (an MPI
 * triad): each point's ideal follows its declared work, so neither the
 * strong nor the weak ideal misjudges half of the points. */
static void test_work_mixed(void)
{
    ompb__resultfile rf;
    /* 1000 B per rank per iteration; r=2 declares 1000 B per rank too. */
    parse_inline("{\"benchmarks\": [" RATE_ENTRY("tri[r=1, t=1]", 1, 1000, 1e9) ", "
                 RATE_ENTRY("tri[r=1, t=2]", 2, 500, 2e9) ", " RATE_ENTRY("tri[r=2, t=1]", 1, 1000, 1e9)
                 ", " RATE_ENTRY("tri[r=2, t=2]", 2, 500, 2e9) "]}", &rf);
    ompb__scaling s;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build(&rf, &s), 0);
    const ompb__scaling_family *f = &s.families[0];
    CU_ASSERT_TRUE(f->mixed);
    CU_ASSERT_FALSE(f->weak);
    for (size_t i = 0; i < f->n; i++) /* perfect on both counts */
        CU_ASSERT_DOUBLE_EQUAL(f->points[i].efficiency, 1.0, 1e-9);
    char *svg = render(&s, svg_render, OMPB__REPORT_CONSOLE);
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-time-ideal-r1"), 2);
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-time-ideal-r2"), 2);
    CU_ASSERT_EQUAL(polyline_points(svg, "f0-time-ideal"), -1);
    free(svg);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

/* A declared kind other than weak or strong is bad input, named. */
static void test_scaling_key_checked(void)
{
    ompb__resultfile rf;
    ompb_error err = {0};
    CU_ASSERT_EQUAL(ompb__resultfile_parse("{\"benchmarks\": [" OMP_ENTRY("x[t=1]", 1,
                                           "\"scaling\": \"sideways\", ", "", 1, 2, 3) "]}",
                                           "inline", &rf, &err), OMPB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.text, "\"ompbench.scaling\" is not \"weak\" or \"strong\""));
}

/* Several runs of one point: its first value stands, the range is drawn. */
static void test_error_bars(void)
{
    ompb__resultfile rf[2];
    parse_inline("{\"benchmarks\": [" GB_ENTRY("t[t=1]", 1, 1000) ", " GB_ENTRY("t[t=2]", 2, 500)
                 "]}", &rf[0]);
    parse_inline("{\"benchmarks\": [" GB_ENTRY("t[t=1]", 1, 1100) ", " GB_ENTRY("t[t=2]", 2, 450)
                 "]}", &rf[1]);
    ompb__scaling s;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build_files(rf, 2, &s), 0);
    const ompb__scaling_point *p = &s.families[0].points[1];
    CU_ASSERT_EQUAL(p->median_ns, 500.0);
    CU_ASSERT_EQUAL(p->lo_ns, 450.0);
    CU_ASSERT_EQUAL(p->hi_ns, 500.0);
    CU_ASSERT_EQUAL(p->runs, 2);
    char *svg = render(&s, svg_render, OMPB__REPORT_CONSOLE);
    CU_ASSERT_EQUAL(count(svg, "class=\"errorbar\""), 4); /* 2 points x 2 panels */
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">run-to-run range</text>"));
    free(svg);
    char *json = render(&s, ompb__scaling_print, OMPB__REPORT_JSON);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"runs\": 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"low_ns\": 450.0"));
    free(json);
    ompb__scaling_free(&s);
    for (int i = 0; i < 2; i++)
        ompb__resultfile_free(&rf[i]);
}

typedef struct box {
    double x, y, w, h;
} box;

static double attr(const char *tag, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *at = strstr(tag, key);
    return at ? strtod(at + strlen(key), NULL) : NAN;
}

/* The bounding box of a data mark: a circle, a rect or a polygon with a
 * <title> (markers have one; ticks, frames and legend symbols do not). */
static bool mark_box(const char *tag, box *b)
{
    if (strncmp(tag, "<circle", 7) == 0) {
        double r = attr(tag, "r");
        *b = (box){attr(tag, "cx") - r, attr(tag, "cy") - r, 2 * r, 2 * r};
        return true;
    }
    if (strncmp(tag, "<rect", 5) == 0) {
        *b = (box){attr(tag, "x"), attr(tag, "y"), attr(tag, "width"), attr(tag, "height")};
        return true;
    }
    const char *pts = strstr(tag, " points=\"");
    if (strncmp(tag, "<polygon", 8) != 0 || !pts)
        return false;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, x, y;
    int used;
    for (pts += 9; sscanf(pts, "%lf,%lf%n", &x, &y, &used) == 2; pts += used) {
        lo[0] = fmin(lo[0], x), hi[0] = fmax(hi[0], x);
        lo[1] = fmin(lo[1], y), hi[1] = fmax(hi[1], y);
    }
    *b = (box){lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1]};
    return true;
}

static bool overlap(box a, box b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/* Counts the data marks of svg that intersect a legend box; *marks and
 * *legends say how many of each were found (the test must see some). */
static int legend_hits(const char *svg, int *marks, int *legends)
{
    box lb[64];
    int nl = 0, hits = 0;
    for (const char *p = svg; (p = strstr(p, "class=\"legend-box\"")) && nl < 64; p++) {
        const char *tag = p;
        while (tag > svg && *tag != '<')
            tag--;
        mark_box(tag, &lb[nl++]);
    }
    *legends = nl;
    *marks = 0;
    for (const char *p = svg; (p = strchr(p, '<')); p++) {
        const char *end = strchr(p, '>');
        box b;
        if (!end || end[1] != '<' || strncmp(end + 1, "<title>", 7) != 0 || !mark_box(p, &b))
            continue;
        ++*marks;
        for (int k = 0; k < nl; k++)
            hits += overlap(b, lb[k]);
    }
    return hits;
}

/* Points in every corner of both panels, off-axis ones, marked and
 * oversubscribed ones, ranks x threads series: no legend box may cover
 * any of them. */
static void test_legend_clear_of_data(void)
{
    ompb__resultfile rf[2];
    parse_inline("{\"benchmarks\": [" GB_ENTRY("a[r=1, t=1]", 1, 1000) ", "
                 GB_ENTRY("a[r=1, t=2]", 2, 5000) ", " GB_ENTRY("a[r=1, t=4]", 4, 1e-3) ", "
                 GB_ENTRY("b[t=1]", 1, 1000) ", " GB_ENTRY("b[t=2]", 2, 100) ", "
                 GB_ENTRY("b[t=8]", 8, 125) ", " GB_ENTRY("b[t=64]", 64, 1e9) "]}", &rf[0]);
    parse_inline("{\"benchmarks\": [" GB_ENTRY("a[r=2, t=1]", 1, 400) ", "
                 GB_ENTRY("a[r=2, t=2]", 2, 2000) ", " GB_ENTRY("a[r=4, t=1]", 1, 300) ", "
                 GB_ENTRY("b[t=2]", 2, 150) "]}", &rf[1]);
    ompb__scaling s;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build_files(rf, 2, &s), 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 2);
    s.families[1].points[1].marks = OMPB__MARK_FEW_ROUNDS;
    s.families[1].points[3].marks = OMPB__MARK_OVERSUB;
    s.families[1].usable_pus = 8;
    char *svg = render(&s, svg_render, OMPB__REPORT_CONSOLE);
    int marks, legends;
    CU_ASSERT_EQUAL(legend_hits(svg, &marks, &legends), 0);
    CU_ASSERT_EQUAL(legends, 4);        /* a legend per panel */
    CU_ASSERT(marks >= 2 * (6 + 4) - 1); /* every point, on both panels (but
                                           the oversubscribed one's efficiency) */
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "id=\"f0-time-measured-r2\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">2 ranks x threads</text>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "class=\"usable-pus\""));
    /* The check itself can fail: a box over the first mark is found. */
    const char *first = strstr(svg, "<circle cx=\"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    char fake[256];
    double cx = attr(first, "cx"), cy = attr(first, "cy");
    snprintf(fake, sizeof fake, "<rect class=\"legend-box\" x=\"%.1f\" y=\"%.1f\" "
             "width=\"9\" height=\"9\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\">"
             "<title>x</title></circle>", cx - 4, cy - 4, cx, cy);
    CU_ASSERT_EQUAL(legend_hits(fake, &marks, &legends), 1);
    free(svg);
    ompb__scaling_free(&s);
    for (int i = 0; i < 2; i++)
        ompb__resultfile_free(&rf[i]);
}

static const ompb_test_case cases[] = {
    {"family_name", test_family_name},
    {"point_fill", test_point_fill},
    {"build", test_build},
    {"tables", test_tables},
    {"svg", test_svg},
    {"marks", test_marks},
    {"svg_escaping_and_empty", test_svg_escaping_and_empty},
    {"svg_extreme_values", test_svg_extreme_values},
    {"svg_control_characters", test_svg_control_characters},
    {"several_files", test_several_files},
    {"weak_declared", test_weak_declared},
    {"weak_inferred", test_weak_inferred},
    {"work_mixed", test_work_mixed},
    {"scaling_key_checked", test_scaling_key_checked},
    {"error_bars", test_error_bars},
    {"legend_clear_of_data", test_legend_clear_of_data},
    {"parse_format", test_parse_format},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_scaling = {"scaling", NULL, NULL, cases};
