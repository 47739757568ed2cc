/* launches: calibrate --launches K -- K launches of the benchmark (or K
 * --data files, one a launch) fitted together and one by one.  Results
 * differ more between launches than within one (Hunold and Carpen-Amarie),
 * so each launch's medians and the nonparametric interval of the median
 * across launches (Hoefler and Belli) are reported per point
 * (FILE-launches.tsv) and per parameter (the params file's <q>_launch_*
 * keys): the uncertainty a single launch cannot show. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "benchdata/stats.h"
#include "calibrate/calibrate.h"
#include "util/atomicfile.h"

/* The interval's wanted coverage; with few launches the widest one
 * (minimum..maximum) has less, and the files say how much. */
#define LAUNCH_LEVEL 0.95
#define MAX_LAUNCHES 64

static char launch_path[MAX_LAUNCHES][PATH_MAX];

int launches_measure(options *o)
{
    for (long k = 1; k <= o->launches; k++) {
        o->launch = k;
        int rc = measure(o, NULL, launch_path[k - 1], PATH_MAX, NULL);
        o->launch = 0;
        if (rc)
            return rc;
        o->data[o->ndata++] = launch_path[k - 1];
    }
    return 0;
}

/* Launch k's fit alone (o's data file k).  0 or an exit status. */
static int launch_fit(const options *o, int k, model_params *out)
{
    options one = *o;
    pointset ps = {0};
    fit_result res;
    one.data[0] = o->data[k];
    one.ndata = 1;
    ps.weights = o->weights;
    int rc = calibrate_fit(&one, &ps, &res, 0);
    if (!rc) {
        *out = res.params;
        fit_result_free(&res);
    }
    pointset_free(&ps);
    return rc;
}

double calibrate_widen_err(model_params *p, int id, const double *v, int n)
{
    double was = p->err[id], mean = 0, var = 0;
    if (n < 2 || isnan(was))
        return was;   /* not fitted: no spread of its own */
    for (int i = 0; i < n; i++)
        mean += v[i] / n;
    for (int i = 0; i < n; i++)
        var += (v[i] - mean) * (v[i] - mean) / (n - 1);
    p->err[id] = sqrt(was * was + var);
    return was;
}

/* Quantity q of p when it was measured (NaN when assumed or fixed). */
static double launch_value(const model_params *p, int q)
{
    static const int id[MODEL_LAUNCH_COUNT] = {MODEL_P_O0, MODEL_P_LF, MODEL_P_LS, MODEL_P_LB};
    if (strcmp(p->source[id[q]], "measured") != 0)
        return NAN;
    return q == MODEL_LAUNCH_O64 ? model_overhead_ns(p, 64)
         : q == MODEL_LAUNCH_LF  ? p->lf_ns
         : q == MODEL_LAUNCH_LS  ? p->ls_ns
                                 : p->lb_ns_per_byte;
}

/* The median of n values and its interval across them, sorting v. */
static void across(double *v, long n, double out[3], double *coverage)
{
    gsl_sort(v, 1, (size_t)n);
    out[0] = gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
    bench_median_ci_sorted(v, n, LAUNCH_LEVEL, &out[1], &out[2], coverage);
}

void launches_keys(model_params *p, const double v[][MODEL_LAUNCH_COUNT], int n)
{
    p->launches = n;
    for (int q = 0; q < MODEL_LAUNCH_COUNT; q++) {
        double x[MAX_LAUNCHES];
        if (isnan(launch_value(p, q)) || n > MAX_LAUNCHES)
            continue;   /* assumed or fixed in the fit kept: no spread of its own */
        for (int i = 0; i < n; i++)
            x[i] = v[i][q];
        across(x, n, p->launch[q], &p->launch_coverage);
    }
}

/* One launch file's pp row of the configuration and size of r, or NULL. */
static const bench_point *same_point(const bench_data *d, const bench_point *r)
{
    for (long i = 0; i < d->count; i++) {
        const bench_point *p = &d->points[i];
        if (!strcmp(p->pattern, "pp") && p->src == r->src && p->dst == r->dst &&
            p->size_bytes == r->size_bytes)
            return p;
    }
    return NULL;
}

/* The table of every point: each launch's median and the interval of the
 * median across the launches that measured it. */
static int write_table(const options *o, const char *path)
{
    bench_data d[MAX_LAUNCHES];
    bench_read_error err;
    atomic_file af;
    int rc = 0, nread = 0;
    for (; nread < o->ndata && !rc; nread++)
        if (bench_data_read(o->data[nread], &d[nread], &err))
            rc = fail("'%s': %s", o->data[nread], err.msg), nread--;
    if (!rc && atomic_file_open(&af, path))
        rc = fail("'%s': %s", path, strerror(errno));
    for (int k = 0; rc && k < nread; k++)
        bench_data_free(&d[k]);
    if (rc)
        return rc;
    fprintf(af.fp, "# scitorus-launches 1\n# launches: %d\n# level: %g\n# files:", o->ndata,
            LAUNCH_LEVEL);
    for (int k = 0; k < o->ndata; k++)
        fprintf(af.fp, " %s", o->data[k]);
    fprintf(af.fp, "\n# columns: src dst hops fwd sw size launches median_ns lo_ns hi_ns"
                   " coverage launch_medians_ns\n");
    for (long i = 0; i < d[0].count; i++) {
        const bench_point *r = &d[0].points[i];
        double v[MAX_LAUNCHES], m[3], cov;
        long n = 0;
        if (strcmp(r->pattern, "pp") != 0)
            continue;
        for (int k = 0; k < o->ndata; k++) {
            const bench_point *p = same_point(&d[k], r);
            if (p)
                v[n++] = p->median_ns;
        }
        char each[MAX_LAUNCHES * 24];
        size_t len = 0;
        for (long k = 0; k < n; k++)   /* in launch order, before sorting */
            len += (size_t)snprintf(each + len, sizeof each - len, "%s%.1f", k ? "," : "", v[k]);
        across(v, n, m, &cov);
        fprintf(af.fp, "%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%.1f\t%.1f\t%.1f\t%.4f\t%s\n", r->src,
                r->dst, r->hops, r->fwd, r->sw, r->size_bytes, n, m[0], m[1], m[2], cov,
                n ? each : "-");
    }
    for (int k = 0; k < nread; k++)
        bench_data_free(&d[k]);
    if (atomic_file_commit(&af))
        return fail("'%s': %s", path, strerror(errno));
    return 0;
}

int launches_report(const options *o, model_params *p, const char *params_path)
{
    static const char *const label[MODEL_LAUNCH_COUNT] = {"o(64 B)", "lf", "ls", "lb"};
    static const char *const unit[MODEL_LAUNCH_COUNT] = {"ns", "ns", "ns", "ns/B"};
    double v[MODEL_LAUNCH_COUNT][MAX_LAUNCHES], cov = NAN;
    char stem[PATH_MAX], table[PATH_MAX + 16];
    int n = o->ndata;
    fprintf(o->report, "\nlaunches: %d, each fitted alone:\n", n);
    for (int k = 0; k < n; k++) {
        model_params one;
        int rc = launch_fit(o, k, &one);
        if (rc)
            return rc;
        fprintf(o->report, "  launch %d (%s):", k + 1, o->data[k]);
        for (int q = 0; q < MODEL_LAUNCH_COUNT; q++)
            if (!isnan(v[q][k] = launch_value(&one, q)))
                fprintf(o->report, "  %s %.4g %s", label[q], v[q][k], unit[q]);
        fputc('\n', o->report);
    }
    p->launches = n;
    for (int q = 0; q < MODEL_LAUNCH_COUNT; q++) {
        double all = launch_value(p, q);
        int measured = !isnan(all);
        for (int k = 0; k < n; k++)
            measured &= !isnan(v[q][k]);
        if (!measured)
            continue;
        across(v[q], n, p->launch[q], &cov);
        fprintf(o->report, "  across them, %s: median %.4g %s, interval %.4g..%.4g (coverage"
                           " %.1f%%); all launches fitted together: %.4g%s\n", label[q],
                p->launch[q][0], unit[q], p->launch[q][1], p->launch[q][2], 100 * cov, all,
                all < p->launch[q][1] || all > p->launch[q][2] ? ", outside the interval" : "");
    }
    p->launch_coverage = cov;
    /* The errors written cover the spread across launches, as over --full's runs. */
    static const int pid[MODEL_LAUNCH_COUNT] = {MODEL_P_O0, MODEL_P_LF, MODEL_P_LS, MODEL_P_LB};
    fprintf(o->report, "  the errors written cover the spread of the %d launches:", n);
    for (int q = 0; q < MODEL_LAUNCH_COUNT; q++) {
        if (isnan(p->launch[q][0]) || isnan(p->err[pid[q]]))
            continue;
        double was = calibrate_widen_err(p, pid[q], v[q], n);
        fprintf(o->report, " %s +- %.3g (fit %.3g)", model_param_key[pid[q]], p->err[pid[q]], was);
    }
    fputc('\n', o->report);
    if (!strcmp(params_path, "-"))
        return 0;
    options_stem(params_path, "", stem, sizeof stem);
    snprintf(table, sizeof table, "%s-launches.tsv", stem);
    int rc = write_table(o, table);
    if (!rc)
        fprintf(o->report, "  each point's launches: %s\n", table);
    return rc;
}
