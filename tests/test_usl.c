/* SPDX-License-Identifier: MIT */
/*
 * The scaling laws (tools/lib/analysis/usl.c) against published data:
 * Gunther's datasets as the R package usl ships them (data/specsdm91.rda,
 * data/raytracer.rda, decoded) and the values its tests and documentation
 * report (usl 3.0: tests/peak-scalability.R, limit-scalability.R,
 * efficiency.Rout.save, fitted.Rout.save, confint.Rout.save, coef.R),
 * each checked to the precision printed there. Then the models of a
 * family (scaling_model.c) on synthetic families of known law: recovered
 * exactly without noise, inside the interval with noise, oversubscribed
 * points left out. SciPy's curve_fit is compared on noisy data by
 * tests/integration/scaling_models.sh.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "analysis/scaling.h"
#include "analysis/usl.h"
#include "suite.h"

/* "Agrees to the published precision": |got - want| within half a unit of
 * the last printed digit. */
#define AGREES(got, want, unit) CU_ASSERT_TRUE(fabs((got) - (want)) <= 0.5 * (unit))

/* Sun SPARCcenter 2000, SPEC SDM91: load (users) -> scripts per hour. */
static const double sdm_load[] = {1, 18, 36, 72, 108, 144, 216};
static const double sdm_tput[] = {64.9, 995.9, 1652.4, 1853.2, 1828.9, 1775.0, 1702.2};
/* A ray tracer's benchmark: processors -> throughput. */
static const double rt_cpus[] = {1, 4, 8, 12, 16, 20, 24, 28, 32, 48, 64};
static const double rt_tput[] = {20, 78, 130, 170, 190, 200, 210, 230, 260, 280, 310};

static void test_specsdm91(void)
{
    ompb__usl_params f;
    CU_ASSERT_EQUAL_FATAL(ompb__usl_fit(sdm_load, sdm_tput, 7, false, &f), 0);
    /* all.equal(peak.scalability(u), 96.51956, 0.0001) and the others. */
    CU_ASSERT_TRUE(fabs(ompb__usl_peak_width(&f) / 96.51956 - 1.0) < 1e-4);
    CU_ASSERT_TRUE(fabs(f.gamma / f.sigma / 3245.589 - 1.0) < 1e-4);     /* limit */
    CU_ASSERT_TRUE(fabs(f.gamma / 0.001 / 89995.23 - 1.0) < 1e-4); /* limit, alpha 0.001 */
    /* efficiency(u), printed with 4 decimals: throughput / (gamma N). */
    static const double eff[] = {0.7211, 0.6148, 0.5100, 0.2860, 0.1882, 0.1370, 0.0876};
    /* fitted(u), printed with 3 significant digits. */
    static const double fitted[] = {90, 1078, 1541, 1850, 1879, 1822, 1646};
    for (int i = 0; i < 7; i++) {
        AGREES(sdm_tput[i] / (f.gamma * sdm_load[i]), eff[i], 1e-4);
        AGREES(ompb__usl_value(&f, sdm_load[i]), fitted[i], 1.0);
    }
}

static void test_raytracer(void)
{
    ompb__usl_params f;
    CU_ASSERT_EQUAL_FATAL(ompb__usl_fit(rt_cpus, rt_tput, 11, false, &f), 0);
    /* coef(u): alpha 0.0578, beta 0.0000 (at its bound), gamma 21.8488. */
    AGREES(f.sigma, 0.0578, 1e-4);
    CU_ASSERT_EQUAL(f.kappa, 0.0);
    AGREES(f.gamma, 21.8488, 1e-4);
    CU_ASSERT_EQUAL(ompb__usl_peak_width(&f), INFINITY);
    /* confint(u): estimate -/+ se x qt(0.95, n - 1) (the package's
     * choice of quantile; ours is t(0.975, n - p)), so the standard errors
     * are checked against the published bounds with that quantile. */
    double q = 1.812461; /* qt(0.95, 10) */
    AGREES(f.sigma - q * f.se_sigma, 0.033677, 1e-6);
    AGREES(f.sigma + q * f.se_sigma, 0.081864, 1e-6);
    AGREES(q * f.se_kappa, 0.000214, 1e-6);
    AGREES(f.gamma - q * f.se_gamma, 17.868380, 1e-6 * 10);
    AGREES(f.gamma + q * f.se_gamma, 25.829306, 1e-6 * 10);
}

/* tests/coef.R: made from alpha = beta = 0.02, gamma = 1 (rounded data). */
static void test_coef_example(void)
{
    static const double load[] = {1, 2, 4, 6, 8, 10};
    static const double tput[] = {1, 1.8868, 3.0769, 3.5294, 3.5398, 3.3557};
    ompb__usl_params f;
    CU_ASSERT_EQUAL_FATAL(ompb__usl_fit(load, tput, 6, false, &f), 0);
    AGREES(f.sigma, 0.02, 1e-3 * 0.02);
    AGREES(f.kappa, 0.02, 1e-3 * 0.02);
    AGREES(f.gamma, 1.00, 1e-2);
}

static double usl_law(double g, double s, double k, double n)
{
    return g * n / (1.0 + s * (n - 1.0) + k * n * (n - 1.0));
}

/* Exact data of a known law come back to rounding, from any base width. */
static void test_exact_recovery(void)
{
    static const double widths[][4] = {{1, 2, 4, 8}, {2, 4, 8, 16}, {3, 5, 7, 12}};
    for (int c = 0; c < 3; c++) {
        double x[4];
        for (int i = 0; i < 4; i++)
            x[i] = usl_law(3.5, 0.07, 0.004, widths[c][i]);
        ompb__usl_params f;
        CU_ASSERT_EQUAL_FATAL(ompb__usl_fit(widths[c], x, 4, false, &f), 0);
        CU_ASSERT_DOUBLE_EQUAL(f.sigma, 0.07, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(f.kappa, 0.004, 1e-11);
        CU_ASSERT_DOUBLE_EQUAL(f.gamma, 3.5, 1e-8);
        /* Amdahl from the first two widths only: exact for kappa = 0. */
        double a[2] = {usl_law(1.0, 0.25, 0.0, widths[c][0]),
                       usl_law(1.0, 0.25, 0.0, widths[c][1])};
        CU_ASSERT_EQUAL_FATAL(ompb__usl_fit(widths[c], a, 2, true, &f), 0);
        CU_ASSERT_DOUBLE_EQUAL(f.sigma, 0.25, 1e-9);
        CU_ASSERT_EQUAL(f.kappa, 0.0);
        /* Karp-Flatt of Amdahl's data is its serial fraction at every
         * width, against any base. */
        for (int i = 1; i < 4; i++)
            CU_ASSERT_DOUBLE_EQUAL(
                ompb__karp_flatt(widths[c][0], widths[c][i],
                                 usl_law(1, 0.25, 0, widths[c][i])
                                     / usl_law(1, 0.25, 0, widths[c][0])),
                0.25, 1e-12);
    }
    /* The textbook form at base 1: (1/S - 1/n) / (1 - 1/n). */
    CU_ASSERT_DOUBLE_EQUAL(ompb__karp_flatt(1, 4, 3.2), (1 / 3.2 - 0.25) / 0.75, 1e-15);
    CU_ASSERT_TRUE(isnan(ompb__karp_flatt(2, 2, 1.0)));
    CU_ASSERT_TRUE(isnan(ompb__karp_flatt(1, 2, 0.0)));
}

/* Superlinear data would want sigma < 0: the bound holds it at 0. */
static void test_bounds(void)
{
    static const double w[] = {1, 2, 4};
    static const double x[] = {1.0, 2.2, 4.6};
    ompb__usl_params f;
    CU_ASSERT_EQUAL_FATAL(ompb__usl_fit(w, x, 3, false, &f), 0);
    CU_ASSERT_EQUAL(f.sigma, 0.0);
    CU_ASSERT_TRUE(f.kappa >= 0.0);
    CU_ASSERT_EQUAL_FATAL(ompb__usl_fit(w, x, 3, true, &f), 0);
    CU_ASSERT_EQUAL(f.sigma, 0.0);
}

static void test_refusals(void)
{
    ompb__usl_params f = {0};
    static const double w[] = {1, 2, 2}, x[] = {1, 1.8, 1.9};
    static const double bad[] = {1, -1, 2}, nan_x[] = {1, NAN, 2};
    CU_ASSERT_EQUAL(ompb__usl_fit(w, x, 3, false, &f), -1); /* 2 distinct widths */
    CU_ASSERT_EQUAL(ompb__usl_fit(w, x, 1, true, &f), -1);
    CU_ASSERT_EQUAL(ompb__usl_fit(w, x, 3, true, &f), 0);   /* Amdahl: 2 are enough */
    CU_ASSERT_EQUAL(ompb__usl_fit(sdm_load, bad, 3, true, &f), -1);
    CU_ASSERT_EQUAL(ompb__usl_fit(sdm_load, nan_x, 3, true, &f), -1);
    CU_ASSERT_EQUAL(ompb__usl_fit(bad, sdm_tput, 3, true, &f), -1);
}

/* ---- a family's models ---------------------------------------------------- */

/* A family of strong scaling at the given widths, with runs values each:
 * time(N) = T1 / X(N) of USL(1, sigma, kappa), times (1 + noise_k) for run
 * k. Oversubscribed widths are marked so. */
static void make_family(ompb__scaling_family *f, const int *widths, size_t n, double sigma,
                        double kappa, const double *noise, size_t runs, int oversubscribed)
{
    static char name[] = "synthetic";
    memset(f, 0, sizeof *f);
    f->name = name;
    f->points = calloc(n, sizeof *f->points);
    f->n = n;
    for (size_t i = 0; i < n; i++) {
        ompb__scaling_point *p = &f->points[i];
        double t = 1000.0 / usl_law(1.0, sigma, kappa, widths[i]);
        p->threads = p->threads_per_rank = widths[i];
        p->run_values = malloc(runs * sizeof *p->run_values);
        for (size_t k = 0; k < runs; k++)
            p->run_values[k] = t * (1.0 + noise[(i * 7 + k) % 11]);
        p->runs = runs;
        p->median_ns = t;
        p->imbalance = NAN;
        p->work = NAN;
        if (widths[i] >= oversubscribed)
            p->marks = OMPB__MARK_OVERSUB;
    }
    for (size_t i = 0; i < n; i++)
        f->points[i].ideal_ns = f->points[0].median_ns * widths[0] / widths[i];
}

static void free_family(ompb__scaling_family *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->points[i].run_values);
    free(f->points);
}

static const double no_noise[11] = {0};
static const double noise[11] = {0.03, -0.02, 0.01, -0.04, 0.02, 0.0,
                                 -0.01, 0.04, -0.03, 0.015, -0.015};

static void test_family_exact(void)
{
    static const int widths[] = {1, 2, 4, 8, 16};
    ompb__scaling_family f;
    make_family(&f, widths, 5, 0.05, 0.002, no_noise, 1, 16);
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_fit_models(&f), 0);
    const ompb__scaling_model *m = &f.model;
    CU_ASSERT_PTR_NULL(m->none);
    CU_ASSERT_TRUE(m->usl && m->amdahl);
    CU_ASSERT_EQUAL(m->fitted, 4);
    CU_ASSERT_EQUAL(m->left_out, 1);          /* 16 threads: oversubscribed */
    CU_ASSERT_EQUAL(m->max_width, 8);
    CU_ASSERT_DOUBLE_EQUAL(m->sigma.value, 0.05, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(m->kappa.value, 0.002, 1e-11);
    CU_ASSERT_DOUBLE_EQUAL(m->peak_width.value, sqrt(0.95 / 0.002), 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(m->peak_speedup.value,
                           usl_law(1, 0.05, 0.002, sqrt(0.95 / 0.002)), 1e-6);
    /* One run per point, 4 points, 3 parameters: the fit's intervals. */
    CU_ASSERT_EQUAL(m->interval, OMPB__SCALING_INTERVAL_FIT);
    CU_ASSERT_TRUE(isnan(f.points[0].karp_flatt));
    CU_ASSERT_TRUE(isnan(f.points[4].karp_flatt)); /* left out */
    CU_ASSERT_TRUE(f.points[1].karp_flatt > 0.05);
    /* The curves go through the data. */
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_DOUBLE_EQUAL(ompb__scaling_model_time(&f, true, widths[i]) /
                                   f.points[i].median_ns, 1.0, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(ompb__scaling_model_efficiency(&f, true, widths[i]),
                               f.points[i].ideal_ns / f.points[i].median_ns, 1e-9);
    }
    free_family(&f);
}

/* Runs with noise: bootstrap intervals that hold the truth, the same
 * every time; two widths: Amdahl and Karp-Flatt, no USL. */
static void test_family_bootstrap(void)
{
    static const int widths[] = {1, 2, 3, 4};
    ompb__scaling_family f;
    make_family(&f, widths, 4, 0.1, 0.0, noise, 5, 99);
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_fit_models(&f), 0);
    const ompb__scaling_model *m = &f.model;
    CU_ASSERT_EQUAL(m->interval, OMPB__SCALING_INTERVAL_BOOTSTRAP);
    CU_ASSERT_EQUAL(m->resamples, OMPB__SCALING_RESAMPLES);
    CU_ASSERT_TRUE(m->serial.lo <= 0.1 && 0.1 <= m->serial.hi);
    CU_ASSERT_TRUE(m->serial.lo < m->serial.hi);
    CU_ASSERT_TRUE(m->sigma.lo <= m->sigma.value && m->sigma.value <= m->sigma.hi);
    for (size_t i = 1; i < 4; i++)
        CU_ASSERT_TRUE(f.points[i].karp_flatt_lo <= 0.1 && 0.1 <= f.points[i].karp_flatt_hi);
    double lo = m->serial.lo, hi = m->serial.hi;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_fit_models(&f), 0);
    CU_ASSERT_EQUAL(m->serial.lo, lo);
    CU_ASSERT_EQUAL(m->serial.hi, hi);
    free_family(&f);

    make_family(&f, widths, 2, 0.1, 0.0, noise, 3, 99);
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_fit_models(&f), 0);
    CU_ASSERT_TRUE(f.model.amdahl);
    CU_ASSERT_FALSE(f.model.usl);
    CU_ASSERT_TRUE(isnan(f.model.sigma.value));
    CU_ASSERT_TRUE(f.model.serial.lo <= 0.1 && 0.1 <= f.model.serial.hi);
    free_family(&f);
}

/* No model: one real width, a --metric, mixed work. */
static void test_family_none(void)
{
    static const int widths[] = {1, 2, 4};
    ompb__scaling_family f;
    make_family(&f, widths, 3, 0.1, 0.0, no_noise, 1, 2);
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_fit_models(&f), 0);
    CU_ASSERT_PTR_NOT_NULL(f.model.none);
    CU_ASSERT_FALSE(f.model.amdahl);
    CU_ASSERT_EQUAL(f.model.left_out, 2);
    f.points[1].marks = f.points[2].marks = 0;
    f.metric = "instructions";
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_fit_models(&f), 0);
    CU_ASSERT_PTR_NOT_NULL(f.model.none);
    CU_ASSERT_TRUE(isnan(ompb__scaling_model_speedup(&f, false, 2)));
    f.metric = NULL;
    f.mixed = true;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_fit_models(&f), 0);
    CU_ASSERT_PTR_NOT_NULL(f.model.none);
    free_family(&f);
}

/* Weak scaling: time grows as the work per thread stays; the throughput
 * is N x base time / time, and the same law comes back. */
static void test_family_weak(void)
{
    static const int widths[] = {2, 4, 8};
    ompb__scaling_family f;
    make_family(&f, widths, 3, 0.08, 0.0, no_noise, 1, 99);
    f.weak = true;
    for (size_t i = 0; i < 3; i++) {
        /* X(N) = N T(base) / (base T(N)) = usl_law(...) x c */
        f.points[i].median_ns = 1000.0 * widths[i] / usl_law(1.0, 0.08, 0.0, widths[i]);
        f.points[i].run_values[0] = f.points[i].median_ns;
    }
    for (size_t i = 0; i < 3; i++)
        f.points[i].ideal_ns = f.points[0].median_ns;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_fit_models(&f), 0);
    CU_ASSERT_DOUBLE_EQUAL(f.model.serial.value, 0.08, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(ompb__scaling_model_time(&f, false, 8) / f.points[2].median_ns, 1.0,
                           1e-9);
    free_family(&f);
}

/* An ompbench entry of `rounds` makespans (sample size 1) and their
 * clean flags. */
#define CLEAN_ENTRY(name, threads, rep, makespans, clean)                                   \
    "{\"name\": \"" name "\", \"run_type\": \"iteration\", \"time_unit\": \"ns\", "       \
    "\"threads\": " #threads ", \"repetition_index\": " #rep ", \"real_time\": 1, "        \
    "\"ompbench\": {\"threads\": " #threads ", \"sample_size\": 1, \"samples\": "         \
    "{\"makespan_ns\": " makespans ", \"clean\": " clean "}}}"

/* Accounted runs: a point reads its clean rounds when every repetition has
 * OMPB__CLEAN_MIN_ROUNDS of them, else all its rounds. */
static void test_clean_rounds(void)
{
    /* t=1: clean rounds 100, 102, 104 (the loaded 900s are not);
     * t=2: one repetition with 2 clean rounds: all rounds then. */
    static const char text[] =
        "{\"benchmarks\": ["
        CLEAN_ENTRY("c[t=1]", 1, 0, "[100, 900, 102, 900, 104]", "[true, false, true, false, true]")
        ", "
        CLEAN_ENTRY("c[t=1]", 1, 1, "[110, 112, 950, 114]", "[true, true, false, true]")
        ", "
        CLEAN_ENTRY("c[t=2]", 2, 0, "[60, 61, 62, 500, 500]", "[true, true, true, false, false]")
        ", "
        CLEAN_ENTRY("c[t=2]", 2, 1, "[70, 71, 600, 600, 600]", "[true, true, false, false, false]")
        "]}";
    ompb__resultfile rf;
    ompb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ompb__resultfile_parse(text, "inline", &rf, &err), 0);
    ompb__scaling s;
    CU_ASSERT_EQUAL_FATAL(ompb__scaling_build(&rf, &s), 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 1);
    const ompb__scaling_point *p1 = &s.families[0].points[0], *p2 = &s.families[0].points[1];
    CU_ASSERT_TRUE(p1->clean);
    CU_ASSERT_EQUAL(p1->runs, 2);
    CU_ASSERT_DOUBLE_EQUAL(p1->run_values[0], 102.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(p1->run_values[1], 112.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(p1->median_ns, 107.0, 1e-9);
    CU_ASSERT_FALSE(p2->clean);
    CU_ASSERT_DOUBLE_EQUAL(p2->run_values[0], 62.0, 1e-9);  /* all rounds' median */
    CU_ASSERT_DOUBLE_EQUAL(p2->run_values[1], 600.0, 1e-9);
    ompb__scaling_free(&s);
    ompb__resultfile_free(&rf);
}

static const ompb_test_case cases[] = {
    {"specsdm91", test_specsdm91},
    {"raytracer", test_raytracer},
    {"coef_example", test_coef_example},
    {"exact_recovery", test_exact_recovery},
    {"bounds", test_bounds},
    {"refusals", test_refusals},
    {"family_exact", test_family_exact},
    {"family_bootstrap", test_family_bootstrap},
    {"family_none", test_family_none},
    {"family_weak", test_family_weak},
    {"clean_rounds", test_clean_rounds},
    {NULL, NULL},
};

const ompb_test_suite ompb_suite_usl = {"usl", NULL, NULL, cases};
