/* stats: per-point statistics of a benchmark (docs/formats.md, SKaMPI §3.2):
 * Welford's online mean and variance, the samples kept for the median, the
 * 95% confidence half-width from Student's t, the stop rule and the
 * noisy flag. */
#ifndef SCITORUS_STATS_H
#define SCITORUS_STATS_H

/* A point is noisy when its median is not known to the precision its run asked for: the
 * stop rule's test (a 95% half-width over 1.96 against --rel-error) failed by the median's
 * distribution-free interval (bench_noisy_sorted). */
#define BENCH_NOISY_LEVEL 0.95
#define BENCH_NOISY_Z 1.96

typedef struct bench_stats {
    long n;                 /* samples so far */
    double mean, m2;        /* Welford: running mean and sum of squared deviations */
    double min, max;
    double *samples;        /* all samples, for the median (cap entries) */
    long cap;
} bench_stats;

/* Allocates room for cap samples.  Returns 0, or -1 (out of memory). */
int bench_stats_init(bench_stats *s, long cap);
void bench_stats_free(bench_stats *s);
void bench_stats_reset(bench_stats *s);

/* Adds one sample (ignored beyond cap for the median, still counted). */
void bench_stats_add(bench_stats *s, double x);

double bench_stats_sd(const bench_stats *s);      /* sample sd (n - 1); 0 if n < 2 */
double bench_stats_sem(const bench_stats *s);     /* sd / sqrt(n) */
double bench_stats_ci95(const bench_stats *s);    /* t(0.975, n-1) * sem; 0 if n < 2 */
double bench_stats_median(const bench_stats *s);  /* of the stored samples */
/* The q-quantile (0..1) of the stored samples; NAN when there are none. */
double bench_stats_quantile(const bench_stats *s, double q);
/* The distribution-free 95% interval of the median of the stored samples:
 * bench_median_ci_sorted's at level 0.95 (min and max up to 8 samples, covering
 * less than 95% below 6).  -1 if n < 1 or out of memory. */
int bench_stats_median_ci95(const bench_stats *s, double *lo, double *hi);
/* Hoefler and Belli's nonparametric interval of the median of n values
 * sorted ascending (n >= 1), such as the medians of n launches: the order
 * statistics x(j) .. x(n+1-j) for the largest j whose exact binomial
 * coverage 1 - 2 P(Bin(n, 1/2) <= j - 1) is at least `level`; with too few
 * values for that, the minimum and maximum.  Their coverage in *coverage. */
void bench_median_ci_sorted(const double *x, long n, double level, double *lo, double *hi,
                            double *coverage);
/* The noisy flag of n samples sorted ascending, rel the run's precision target (its
 * --rel-error, a relative standard error): 1 when the median's interval at
 * BENCH_NOISY_LEVEL (bench_median_ci_sorted) reaches farther from the median, on either
 * side, than BENCH_NOISY_Z x rel x the median, or when n < 6 leaves no interval of that
 * coverage (min..max falls short of it); 0 for n < 1 (no point). */
int bench_noisy_sorted(const double *x, long n, double rel);
/* The same rule on a bench_stats' stored samples; 1 when there is no room to sort them. */
int bench_stats_noisy(const bench_stats *s, double rel);

/* A point's figures after SKaMPI's cut quantile: of n samples, the lowest
 * and highest floor(q n) are dropped (none when that would leave none). */
typedef struct bench_summary {
    long kept;
    double min, median, mean, sd, ci95, max;
    int noisy;              /* bench_noisy_sorted of the samples kept, at rel */
} bench_summary;
/* On x[0..n), n >= 1, which it sorts in place; rel: the run's --rel-error. */
void bench_summarise_cut(double *x, long n, double q, double rel, bench_summary *out);
/* On a bench_stats' stored samples.  0, or -1 (n < 1, out of memory). */
int bench_stats_summary(const bench_stats *s, double q, double rel, bench_summary *out);

/* SKaMPI's automatic standard-error control: 1 when n >= min_samples and
 * sem / mean <= rel_error. */
int bench_stats_converged(const bench_stats *s, double rel_error, long min_samples);

#endif
