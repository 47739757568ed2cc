/* Tests for bench/stats: Welford against the two-pass formulas (GSL), the
 * CI half-width against Student's t table values, median, the noisy flag
 * against intervals whose order statistics are placed by hand. */
#include <criterion/criterion.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

#include "benchdata/regime.h"
#include "benchdata/stats.h"

Test(stats, welford_equals_two_pass)
{
    enum { N = 10000 };
    static double x[N];
    bench_stats s;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 42);
    cr_assert_eq(bench_stats_init(&s, N), 0);
    for (int i = 0; i < N; i++) {
        /* a large offset is where the naive sum-of-squares formula fails */
        x[i] = 1e9 + gsl_ran_gaussian(r, 3.0);
        bench_stats_add(&s, x[i]);
    }
    double mean = gsl_stats_mean(x, 1, N), sd = gsl_stats_sd(x, 1, N);
    cr_assert(fabs(s.mean - mean) <= 1e-12 * mean);
    cr_assert(fabs(bench_stats_sd(&s) - sd) <= 1e-6 * sd, "%g vs %g", bench_stats_sd(&s), sd);
    cr_assert_eq(s.min, gsl_stats_min(x, 1, N));
    cr_assert_eq(s.max, gsl_stats_max(x, 1, N));
    bench_stats_free(&s);
    gsl_rng_free(r);
}

/* Student's t, two-sided 95%: 12.706 (df 1), 2.262 (df 9), 2.045 (df 29)
 * from any statistics table. */
Test(stats, ci95_uses_t_quantile)
{
    static const struct { int n; double t; } table[] = {{2, 12.7062}, {10, 2.2622}, {30, 2.0452}};
    for (int k = 0; k < 3; k++) {
        bench_stats s;
        bench_stats_init(&s, 100);
        for (int i = 0; i < table[k].n; i++)
            bench_stats_add(&s, i % 2 ? 110 : 90);   /* known spread */
        double want = table[k].t * bench_stats_sd(&s) / sqrt(table[k].n);
        cr_assert(fabs(bench_stats_ci95(&s) - want) <= 1e-4 * want, "n=%d: %g vs %g",
                  table[k].n, bench_stats_ci95(&s), want);
        bench_stats_free(&s);
    }
}

Test(stats, median_noise_and_convergence)
{
    bench_stats s;
    const double v[] = {5, 1, 4, 2, 3};
    bench_stats_init(&s, 10);
    for (int i = 0; i < 5; i++)
        bench_stats_add(&s, v[i]);
    cr_assert_eq(bench_stats_median(&s), 3);
    /* five batches: no interval of the median reaches 95% (min..max: 1 - 2/32) */
    cr_assert(bench_stats_noisy(&s, 1));
    cr_assert_not(bench_stats_converged(&s, 0.5, 8));   /* fewer than 8 samples */
    bench_stats_reset(&s);
    for (int i = 0; i < 8; i++)
        bench_stats_add(&s, 100 + (i % 2));    /* min..max 100..101 (coverage 1 - 2/256) */
    cr_assert_not(bench_stats_noisy(&s, 0.01), "101 - 100.5 is within 1.96% of 100.5");
    cr_assert(bench_stats_noisy(&s, 0.002), "0.5 is beyond 1.96 x 0.2% of 100.5");
    cr_assert(bench_stats_converged(&s, 0.01, 8));
    cr_assert_not(bench_stats_converged(&s, 0.0001, 8));
    bench_stats_free(&s);
}

/* The noisy flag against intervals placed by hand: ten sorted values give
 * x(2)..x(9) at 95% (the binomial's ranks, median_interval_across_launches),
 * so with the median 100 and rel 0.05 the bound is 1.96 x 5 = 9.8 ns each
 * side; an end just inside it is ok and just beyond it noisy, on either
 * side, whatever the extremes x(1) and x(10). */
Test(stats, noisy_when_the_median_interval_passes_the_bound)
{
    const double bound = BENCH_NOISY_Z * 0.05 * 100;
    const double in = bound * (1 - 1e-9), out = bound * (1 + 1e-9);
    const double ends[4][2] = {{100 - in, 100 + in}, {100 - out, 100}, {100, 100 + out},
                               {100 - in, 100 + out}};
    const int want[4] = {0, 1, 1, 1};
    cr_assert_float_eq(bound, 9.8, 1e-12);
    for (int k = 0; k < 4; k++) {
        double x[10] = {1, ends[k][0], 100, 100, 100, 100, 100, 100, ends[k][1], 1e6}, lo, hi, cov;
        bench_median_ci_sorted(x, 10, BENCH_NOISY_LEVEL, &lo, &hi, &cov);
        cr_assert(lo == ends[k][0] && hi == ends[k][1], "the interval is x(2)..x(9)");
        cr_assert_eq(bench_noisy_sorted(x, 10, 0.05), want[k], "case %d", k);
    }
    double six[6] = {100, 100, 100, 100, 100, 100};
    cr_assert_not(bench_noisy_sorted(six, 6, 0.01), "six batches: min..max at 1 - 2/64");
    cr_assert(bench_noisy_sorted(six, 5, 1), "five: no 95%% interval, at any width");
    cr_assert_not(bench_noisy_sorted(six, 0, 0.01), "no batches, no point");
}

/* The flag follows the median's interval, not the batches' spread: a
 * thousand batches spread evenly over +-10% (an interquartile range of 10%)
 * pin their median to about +-0.6%, within 1.96% (rel 0.01), not within
 * 0.39% (rel 0.002); one interrupted batch in a thousand changes nothing; a
 * set in two modes whose median falls in the gap is noisy (the interval
 * straddles it), and one whose interval lies inside one mode is not. */
Test(stats, noisy_follows_the_median_not_the_spread)
{
    bench_stats s;
    bench_stats_init(&s, 1000);
    for (int i = 0; i < 1000; i++)
        bench_stats_add(&s, 90 + 20.0 * i / 999);
    cr_assert_float_eq(bench_stats_quantile(&s, 0.75) - bench_stats_quantile(&s, 0.25), 10, 1e-9);
    double lo, hi;
    cr_assert_eq(bench_stats_median_ci95(&s, &lo, &hi), 0);
    cr_assert(hi - lo < 1.4 && hi - lo > 1.0, "about x(470)..x(531): %g..%g", lo, hi);
    cr_assert_not(bench_stats_noisy(&s, 0.01));
    cr_assert(bench_stats_noisy(&s, 0.002));
    bench_stats_reset(&s);
    for (int i = 0; i < 1000; i++)
        bench_stats_add(&s, i == 500 ? 10000 : 100 + (i % 3));   /* one interrupt */
    cr_assert_not(bench_stats_noisy(&s, 0.01));
    bench_stats_reset(&s);
    for (int i = 0; i < 1000; i++)
        bench_stats_add(&s, i % 2 ? 200 : 100);   /* median 150, in the gap */
    cr_assert(bench_stats_noisy(&s, 0.1), "100..200 around 150: beyond 1.96 x 10%%");
    bench_stats_reset(&s);
    for (int i = 0; i < 1000; i++)
        bench_stats_add(&s, i % 5 < 2 ? 200 : 100);   /* 60% at 100: the median is 100 */
    cr_assert_not(bench_stats_noisy(&s, 0.01), "every rank of the interval is 100");
    bench_stats_free(&s);
}

/* The cut summary flags the batches it keeps, at the rel it is given: ten
 * equal batches pin their median, the four that a cut of 0.3 keeps give no
 * 95% interval; and the rank search agrees with the binomial's by hand at a
 * collective's million repetitions: n/2 - 980 (1.96 x sqrt(n)/2), coverage
 * within one rank's step (2 x 0.058 / 500) of 95%. */
Test(stats, noisy_after_the_cut_and_at_a_million)
{
    double x[10];
    bench_summary sum;
    for (int i = 0; i < 10; i++)
        x[i] = 100;
    bench_summarise_cut(x, 10, 0, 0.01, &sum);
    cr_assert(sum.kept == 10 && !sum.noisy);
    bench_summarise_cut(x, 10, 0.3, 0.01, &sum);
    cr_assert(sum.kept == 4 && sum.noisy);
    for (int i = 0; i < 10; i++)
        x[i] = i < 5 ? 99 : 101;
    bench_summarise_cut(x, 10, 0, 0.01, &sum);   /* x(2)..x(9): 99..101, 1 from 100 */
    cr_assert_not(sum.noisy);
    bench_summarise_cut(x, 10, 0, 0.005, &sum);
    cr_assert(sum.noisy);
    enum { M = 1000000 };
    double *y = malloc(M * sizeof *y), lo, hi, cov;
    cr_assert_not_null(y);
    for (long i = 0; i < M; i++)
        y[i] = (double)i;
    bench_median_ci_sorted(y, M, 0.95, &lo, &hi, &cov);
    cr_assert(cov >= 0.95 && cov < 0.95025, "coverage %.6f", cov);
    cr_assert(fabs(lo - (M / 2 - 980)) <= 2 && hi == M - 1 - lo, "x(%g)..x(%g)", lo + 1, hi + 1);
    free(y);
}

/* The median's 95% interval covers the population's median as often as its
 * exact binomial coverage says: exponential draws (median ln 2, known
 * exactly), 4000 samples of each size, within what 4000 trials allow. */
Test(stats, median_interval_covers_the_median_95_percent)
{
    static const long sizes[] = {20, 100, 1000};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    for (int z = 0; z < 3; z++) {
        bench_stats s;
        long hit = 0, trials = 4000;
        cr_assert_eq(bench_stats_init(&s, sizes[z]), 0);
        for (long t = 0; t < trials; t++) {
            double lo, hi;
            bench_stats_reset(&s);
            for (long i = 0; i < sizes[z]; i++)
                bench_stats_add(&s, gsl_ran_exponential(rng, 1.0));
            cr_assert_eq(bench_stats_median_ci95(&s, &lo, &hi), 0);
            cr_assert_leq(lo, bench_stats_median(&s));
            cr_assert_geq(hi, bench_stats_median(&s));
            hit += lo <= M_LN2 && M_LN2 <= hi;
        }
        double cover = (double)hit / (double)trials;
        /* the exact binomial ranks' coverage, found here rank by rank (the
         * library bisects): n = 20 gives x(6)..x(15), 0.9586; the observed
         * share within 4 standard errors of a 4000-trial proportion of it */
        long j = 1;
        while (1 - 2 * gsl_cdf_binomial_P((unsigned)j, 0.5, (unsigned)sizes[z]) >= 0.95)
            j++;
        double p = 1 - 2 * gsl_cdf_binomial_P((unsigned)(j - 1), 0.5, (unsigned)sizes[z]);
        cr_assert(p >= 0.95 && (sizes[z] != 20 || fabs(p - 0.9586) < 1e-4), "n = %ld: %g",
                  sizes[z], p);
        cr_assert_float_eq(cover, p, 4 * sqrt(p * (1 - p) / (double)trials),
                           "n = %ld: coverage %.4f of %.4f", sizes[z], cover, p);
        bench_stats_free(&s);
    }
    gsl_rng_free(rng);
}

/* A regime is the floor's band: floors a steady machine gives (within 30%)
 * are one regime, a cache-topology jump (55 to 250 ns) is two; a point's
 * floors span regimes by their quartiles, so one descheduled floor batch
 * among ten does not, a quarter of them in another regime does. */
Test(stats, regimes_by_the_floors_quartiles)
{
    cr_assert(bench_regime_same(55, 70));
    cr_assert_not(bench_regime_same(55, 250));
    cr_assert_not(bench_regime_same(0, 55), "an unmeasured floor is in no regime");
    cr_assert_not(bench_regime_spans(0, 250));
    bench_stats s;
    bench_stats_init(&s, 100);
    for (int i = 0; i < 10; i++)
        bench_stats_add(&s, i == 7 ? 1500 : 55 + i % 2);
    cr_assert_not(bench_regime_spans(bench_stats_quantile(&s, 0.25), bench_stats_quantile(&s, 0.75)));
    cr_assert(bench_regime_spans(s.min, s.max), "the extremes alone would call it two regimes");
    bench_stats_reset(&s);
    for (int i = 0; i < 12; i++)
        bench_stats_add(&s, i < 4 ? 250 : 55);
    cr_assert(bench_regime_spans(bench_stats_quantile(&s, 0.25), bench_stats_quantile(&s, 0.75)));
    cr_assert_float_eq(bench_stats_quantile(&s, 0.5), 55, 1e-9);
    bench_stats_free(&s);
}

/* The interval of the median across launches: the ranks and coverage the
 * binomial gives by hand (5 values: min..max at 1 - 2/32; 10 values:
 * x(2)..x(9) at 1 - 22/1024), and that coverage observed on draws of a
 * known median (exponential: ln 2), 4000 trials of 10 launches. */
Test(stats, median_interval_across_launches)
{
    double x5[] = {1, 2, 3, 4, 5}, x10[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, lo, hi, cov;
    bench_median_ci_sorted(x5, 5, 0.95, &lo, &hi, &cov);
    cr_assert_eq(lo, 1);
    cr_assert_eq(hi, 5);
    cr_assert_float_eq(cov, 1 - 2.0 / 32, 1e-12);
    bench_median_ci_sorted(x10, 10, 0.95, &lo, &hi, &cov);
    cr_assert_eq(lo, 2);
    cr_assert_eq(hi, 9);
    cr_assert_float_eq(cov, 1 - 22.0 / 1024, 1e-12);
    bench_median_ci_sorted(x5, 1, 0.95, &lo, &hi, &cov);
    cr_assert(lo == 1 && hi == 1 && cov == 0, "one launch: no interval");
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 35);
    int trials = 4000, covered = 0;
    for (int t = 0; t < trials; t++) {
        double v[10];
        for (int i = 0; i < 10; i++)
            v[i] = gsl_ran_exponential(rng, 1.0);
        gsl_sort(v, 1, 10);
        bench_median_ci_sorted(v, 10, 0.95, &lo, &hi, &cov);
        covered += lo <= M_LN2 && M_LN2 <= hi;
    }
    double p = 1 - 22.0 / 1024, sd = sqrt(p * (1 - p) / trials);
    cr_assert_float_eq((double)covered / trials, p, 4 * sd, "%d of %d covered", covered, trials);
    gsl_rng_free(rng);
}
