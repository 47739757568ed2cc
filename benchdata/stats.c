/* stats: Welford variance, median, t-based confidence interval. */
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
    if (n < 1)
        return -1;
    double *copy = malloc((size_t)n * sizeof *copy);
    if (!copy)
        return -1;
    memcpy(copy, s->samples, (size_t)n * sizeof *copy);
    gsl_sort(copy, 1, (size_t)n);
    double half = 1.96 * sqrt((double)n) / 2;
    /* Conover's ranks, 1-based: floor(n/2 - half) and ceil(1 + n/2 + half) */
    long j = (long)floor((double)n / 2 - half) - 1, k = (long)ceil((double)n / 2 + half);
    *lo = copy[j < 0 ? 0 : j];
    *hi = copy[k > n - 1 ? n - 1 : k];
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

void bench_median_ci_sorted(const double *x, long n, double level, double *lo, double *hi,
                            double *coverage)
{
    long j = 1;   /* 1-based rank of the lower end */
    while (2 * (j + 1) <= n + 1 &&
           1 - 2 * gsl_cdf_binomial_P((unsigned)j, 0.5, (unsigned)n) >= level)
        j++;
    *lo = x[j - 1];
    *hi = x[n - j];
    *coverage = 1 - 2 * gsl_cdf_binomial_P((unsigned)(j - 1), 0.5, (unsigned)n);
    if (*coverage < 0)   /* n = 1 */
        *coverage = 0;
}

int bench_noisy_sorted(const double *x, long n)
{
    if (n < 1)
        return 0;
    double q1 = gsl_stats_quantile_from_sorted_data(x, 1, (size_t)n, 0.25);
    double q3 = gsl_stats_quantile_from_sorted_data(x, 1, (size_t)n, 0.75);
    double med = gsl_stats_median_from_sorted_data(x, 1, (size_t)n);
    return q3 - q1 > BENCH_NOISY_FRACTION * med;
}

int bench_stats_noisy(const bench_stats *s)
{
    long n = s->n < s->cap ? s->n : s->cap;
    if (n < 1)
        return 0;
    double *copy = malloc((size_t)n * sizeof *copy);
    if (!copy)   /* no room to sort: the spread of the extremes, as a bound */
        return s->max - s->min > BENCH_NOISY_FRACTION * s->min;
    memcpy(copy, s->samples, (size_t)n * sizeof *copy);
    gsl_sort(copy, 1, (size_t)n);
    int noisy = bench_noisy_sorted(copy, n);
    free(copy);
    return noisy;
}

int bench_stats_converged(const bench_stats *s, double rel_error, long min_samples)
{
    return s->n >= min_samples && s->mean > 0 && bench_stats_sem(s) <= rel_error * s->mean;
}

void bench_summarise_cut(double *x, long n, double q, bench_summary *out)
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
    out->noisy = bench_noisy_sorted(y, k);
}

int bench_stats_summary(const bench_stats *s, double q, bench_summary *out)
{
    long n = s->n < s->cap ? s->n : s->cap;
    double *copy = n > 0 ? malloc((size_t)n * sizeof *copy) : NULL;
    if (!copy)
        return -1;
    memcpy(copy, s->samples, (size_t)n * sizeof *copy);
    bench_summarise_cut(copy, n, q, out);
    free(copy);
    return 0;
}
