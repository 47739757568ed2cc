/* stats: Welford variance, median, t-based confidence interval, the noisy flag. */
#include "benchdata/stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int bench_stats_init(bench_stats *s, long cap)
{
    memset(s, 0, sizeof *s);
    s->samples = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *s->samples);
    s->cap = cap;
    bench_stats_reset(s);
    return s->samples ? 0 : -1;
}

void bench_stats_free(bench_stats *s)
{
    free(s->samples);
    s->samples = NULL;
}

void bench_stats_reset(bench_stats *s)
{
    s->n = 0;
    s->mean = s->m2 = 0;
    s->min = INFINITY;
    s->max = -INFINITY;
}

void bench_stats_add(bench_stats *s, double x)
{
    /* Welford (1962): numerically stable one-pass update; GSL's gsl_stats_*
     * need all samples at once, and we test convergence after each one. */
    double delta = x - s->mean;
    if (s->n < s->cap)
        s->samples[s->n] = x;
    s->n++;
    s->mean += delta / (double)s->n;
    s->m2 += delta * (x - s->mean);
    if (x < s->min)
        s->min = x;
    if (x > s->max)
        s->max = x;
}

double bench_stats_sd(const bench_stats *s)
{
    return s->n < 2 ? 0 : sqrt(s->m2 / (double)(s->n - 1));
}

double bench_stats_sem(const bench_stats *s)
{
    return s->n < 1 ? 0 : bench_stats_sd(s) / sqrt((double)s->n);
}

double bench_stats_ci95(const bench_stats *s)
{
    if (s->n < 2)
        return 0;
    return gsl_cdf_tdist_Pinv(0.975, (double)(s->n - 1)) * bench_stats_sem(s);
}

int bench_stats_median_ci95(const bench_stats *s, double *lo, double *hi)
{
    long n = s->n < s->cap ? s->n : s->cap;
    double coverage;
    if (n < 1)
        return -1;
    double *copy = malloc((size_t)n * sizeof *copy);
    if (!copy)
        return -1;
    memcpy(copy, s->samples, (size_t)n * sizeof *copy);
    gsl_sort(copy, 1, (size_t)n);
    bench_median_ci_sorted(copy, n, 0.95, lo, hi, &coverage);
    free(copy);
    return 0;
}

double bench_stats_quantile(const bench_stats *s, double q)
{
    long n = s->n < s->cap ? s->n : s->cap;
    if (n < 1)
        return NAN;
    double *copy = malloc((size_t)n * sizeof *copy);
    if (!copy)
        return NAN;
    memcpy(copy, s->samples, (size_t)n * sizeof *copy);
    gsl_sort(copy, 1, (size_t)n);
    double m = gsl_stats_quantile_from_sorted_data(copy, 1, (size_t)n, q);
    free(copy);
    return m;
}

double bench_stats_median(const bench_stats *s)
{
    return bench_stats_quantile(s, 0.5);
}

/* The exact coverage of x(j)..x(n+1-j): 1 - 2 P(Bin(n, 1/2) <= j - 1). */
static double median_coverage(long j, long n)
{
    return 1 - 2 * gsl_cdf_binomial_P((unsigned)(j - 1), 0.5, (unsigned)n);
}

void bench_median_ci_sorted(const double *x, long n, double level, double *lo, double *hi,
                            double *coverage)
{
    /* the coverage falls as j grows: the largest j meeting the level by bisection, since a
     * point's batches or a collective's repetitions run to a million */
    long j = 1, top = (n + 1) / 2;   /* 1-based ranks of the lower end */
    while (j < top) {
        long mid = (j + top + 1) / 2;
        if (median_coverage(mid, n) >= level)
            j = mid;
        else
            top = mid - 1;
    }
    *lo = x[j - 1];
    *hi = x[n - j];
    *coverage = median_coverage(j, n);
}

int bench_noisy_sorted(const double *x, long n, double rel)
{
    double lo, hi, coverage;
    if (n < 1)
        return 0;
    bench_median_ci_sorted(x, n, BENCH_NOISY_LEVEL, &lo, &hi, &coverage);
    double med = gsl_stats_median_from_sorted_data(x, 1, (size_t)n);
    double bound = BENCH_NOISY_Z * rel * med;
    return coverage < BENCH_NOISY_LEVEL || med - lo > bound || hi - med > bound;
}

int bench_stats_noisy(const bench_stats *s, double rel)
{
    long n = s->n < s->cap ? s->n : s->cap;
    if (n < 1)
        return 0;
    double *copy = malloc((size_t)n * sizeof *copy);
    if (!copy)   /* no interval without sorting: the median is not known */
        return 1;
    memcpy(copy, s->samples, (size_t)n * sizeof *copy);
    gsl_sort(copy, 1, (size_t)n);
    int noisy = bench_noisy_sorted(copy, n, rel);
    free(copy);
    return noisy;
}

int bench_stats_converged(const bench_stats *s, double rel_error, long min_samples)
{
    return s->n >= min_samples && s->mean > 0 && bench_stats_sem(s) <= rel_error * s->mean;
}

void bench_summarise_cut(double *x, long n, double q, double rel, bench_summary *out)
{
    gsl_sort(x, 1, (size_t)n);
    long cut = (long)floor(q * (double)n), k = n - 2 * cut;
    double *y = x + cut;
    if (k < 1)
        y = x, k = n;
    out->kept = k;
    out->min = y[0];
    out->max = y[k - 1];
    out->median = gsl_stats_median_from_sorted_data(y, 1, (size_t)k);
    out->mean = gsl_stats_mean(y, 1, (size_t)k);
    out->sd = k > 1 ? gsl_stats_sd_m(y, 1, (size_t)k, out->mean) : 0;
    out->ci95 = k > 1 ? gsl_cdf_tdist_Pinv(0.975, (double)(k - 1)) * out->sd / sqrt((double)k)
                      : 0;
    out->noisy = bench_noisy_sorted(y, k, rel);
}

int bench_stats_summary(const bench_stats *s, double q, double rel, bench_summary *out)
{
    long n = s->n < s->cap ? s->n : s->cap;
    double *copy = n > 0 ? malloc((size_t)n * sizeof *copy) : NULL;
    if (!copy)
        return -1;
    memcpy(copy, s->samples, (size_t)n * sizeof *copy);
    bench_summarise_cut(copy, n, q, rel, out);
    free(copy);
    return 0;
}
