/* full_run: calibrate --full -- measure the four networks in one run, fit
 * on three, check on the held-out fourth; an unstable run is measured again
 * while time allows, a steady one that misses the check once more. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calibrate/calibrate.h"
#include "util/signals.h"

/* The whole of --full, re-measurements included, stays under a minute. */
#define FULL_BUDGET_S 55.0
/* Unstable runs are measured again up to this many runs in all (at ~250 ns the regime moved
 * within 4 runs in a row: docs/MEASUREMENTS.md, "Measured again: unstable runs only"); a steady
 * run that misses the check only once more: retried until it passes, a check checks nothing. */
#define FULL_MAX_RUNS 10
#define FULL_MAX_STEADY_MISSES 2
/* A ratio above this between any two of the run's floors is a change of regime (a steady floor
 * varies by 30% at most: docs/MEASUREMENTS.md, "Measuring"). */
#define REGIME_RATIO 1.6
/* More than this fraction of unsteady points (points.c) is an unstable run. */
#define UNSTEADY_FRACTION 0.10

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* max/min of the floors that were measured (1 when fewer than two). */
static double floor_ratio(const double *f, int n)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++)
        if (f[i] > 0)
            lo = fmin(lo, f[i]), hi = fmax(hi, f[i]);
    return hi > 0 && lo < hi ? hi / lo : 1;
}

/* One run: measure, fit, check.  *why gets what was wrong ("" if nothing). */
typedef struct attempt {
    pointset ps, vs;
    fit_result res;
    int fitted;
    heldout h;
    double floors[3];   /* before, the run's own, after */
    int unstable;       /* the floor moved, points bimodal or no fit: the measurement's fault */
    char why[256];
} attempt;

static void attempt_free(attempt *a)
{
    if (a->fitted)
        fit_result_free(&a->res);
    pointset_free(&a->ps);
    pointset_free(&a->vs);
    memset(a, 0, sizeof *a);
}

static int attempt_run(options *o, const char *max_time, attempt *a)
{
    char bench_path[PATH_MAX];
    int rc;
    a->ps.weights = a->vs.weights = o->weights;
    a->floors[0] = measure_floor(o);
    if (bench_interrupted())
        return stopped("interrupted; nothing measured, nothing fitted");
    if ((rc = measure(o, max_time, bench_path, sizeof bench_path)))
        return rc;
    a->floors[2] = measure_floor(o);
    if (bench_interrupted())
        return stopped("interrupted; the data is kept in %s; nothing fitted", bench_path);
    o->ndata = o->nvalidate = 0;
    for (int k = 0; k < FULL_NETS; k++)
        if (k != FULL_HELD_OUT)
            o->data[o->ndata++] = o->plan.path[k];
    o->validate[o->nvalidate++] = o->plan.path[FULL_HELD_OUT];
    if ((rc = load_validate(o, &a->vs)))
        return rc;
    rc = calibrate_fit(o, &a->ps, &a->res, 0);
    a->floors[1] = a->ps.floor_ns;
    long rows = a->ps.rows + a->vs.rows, unsteady = a->ps.unsteady + a->vs.unsteady;
    double ratio = floor_ratio(a->floors, 3);
    size_t len = 0;
    if (ratio > REGIME_RATIO)
        len += (size_t)snprintf(a->why + len, sizeof a->why - len, "the floor changed %.1fx"
                                " during the run (a change of regime)", ratio);
    if (rows && unsteady > UNSTEADY_FRACTION * (double)rows)
        len += (size_t)snprintf(a->why + len, sizeof a->why - len, "%s%ld of %ld points took"
                                " their batches in two regimes", len ? "; " : "", unsteady, rows);
    a->unstable = len > 0;
    if (rc == EXIT_FAILURE) {   /* a fit the model cannot describe: measured again too */
        snprintf(a->why + len, sizeof a->why - len, "%sthe fit failed", len ? "; " : "");
        a->unstable = 1;
        return 0;
    }
    if (rc)
        return rc;
    a->fitted = 1;
    if ((rc = validate(o, &a->vs, &a->res.params, 0, &a->h)))
        return rc;
    if (a->h.max > o->max_error)
        snprintf(a->why + len, sizeof a->why - len, "%sheld-out max error %.2f%% > %g%%",
                 len ? "; " : "", 100 * a->h.max, 100 * o->max_error);
    return 0;
}

/* The run's line: its floors, points and held-out error. */
static void attempt_line(const options *o, int k, const attempt *a, double took)
{
    fprintf(o->report, "calibrate: run %d (%.1f s): floor", k, took);
    if (isnan(a->floors[0]) && isnan(a->floors[2]) && !(a->floors[1] > 0))
        fprintf(o->report, " not measured (%s backend)", o->backend);
    else
        fprintf(o->report, " %.0f ns before, %.0f at the start, %.0f after", a->floors[0],
                a->floors[1], a->floors[2]);
    fprintf(o->report, "; %ld of %ld points unsteady", a->ps.unsteady + a->vs.unsteady,
            a->ps.rows + a->vs.rows);
    if (a->fitted && a->h.max <= o->max_error)   /* (else the reason says it) */
        fprintf(o->report, "; held-out max error %.2f%%", 100 * a->h.max);
    fprintf(o->report, "%s%s\n", a->why[0] ? ": " : "", a->why);
}

int full_run(options *o)
{
    char pbuf[PATH_MAX], prefix[PATH_MAX], def[sizeof o->host + 32], max_time[32];
    attempt a;
    const char *path = options_params_path(o, pbuf, sizeof pbuf);
    snprintf(def, sizeof def, "%s-%s-full", o->host, o->backend);
    options_stem(path, def, prefix, sizeof prefix);
    if (full_plan_make(&o->plan, prefix, o->ring ? o->ring : FULL_DEFAULT_RING))
        return fail("--full: file names from '%s' too long", prefix);
    if (!o->validation_out)
        o->validation_out = o->plan.validation;
    fs_file mine[FULL_NETS];   /* (the held-out table: as --validation-out) */
    int nmine = 0;
    for (int k = 0; k < FULL_NETS; k++)
        mine[nmine++] = (fs_file){"--full's data file", o->plan.path[k]};
    if (options_check_files(o, mine, nmine))
        return EXIT_USAGE;
    double t0 = now_s(), took = 0;
    int rc = 0, k, misses = 0;
    memset(&a, 0, sizeof a);
    for (k = 1; k <= FULL_MAX_RUNS; k++) {
        double start = now_s(), left = FULL_BUDGET_S - (start - t0);
        const char *bound = NULL;
        if (k > 1) {   /* bounded by what is left of the budget */
            double mt = fmin(o->max_time ? atof(o->max_time) : 20, left - 5);
            snprintf(max_time, sizeof max_time, "%.1f", mt);
            bound = max_time;
        }
        attempt_free(&a);
        if ((rc = attempt_run(o, bound, &a)))
            break;
        took = now_s() - start;
        attempt_line(o, k, &a, took);
        left = FULL_BUDGET_S - (now_s() - t0);
        if (!a.why[0])
            break;
        misses += !a.unstable;
        const char *stop = k == FULL_MAX_RUNS ? "that was the last run --full takes"
                         : misses == FULL_MAX_STEADY_MISSES
                             ? "a steady run missed the check twice: the fit, not the measurement"
                         : left < 1.3 * took + 6 ? "no time left" : NULL;
        if (stop) {
            fprintf(o->report, "calibrate: not measuring again: %s (%.0f s of %.0f s used)\n", stop,
                    FULL_BUDGET_S - left, FULL_BUDGET_S);
            break;
        }
        fprintf(o->report, "calibrate: measuring again\n");
    }
    if (!rc && !a.fitted)
        rc = fail("--full: no run could be fitted (%s); the data is kept in %s", a.why,
                  o->plan.path[0]);
    if (!rc) {
        if (!o->quiet)
            fputc('\n', o->report);
        report_fit(o, &a.ps, &a.res);
        report_notes(o, &a.res);
        rc = params_refused(o, &a.res.params, path);
        if (!rc)
            rc = validate(o, &a.vs, &a.res.params, !o->quiet, &a.h);
        if (!rc && a.why[0] && a.h.max <= o->max_error)
            fprintf(o->report, "\nwarning: the last run was unstable (%s); its held-out check"
                               " passed all the same\n", a.why);
        if (!rc)
            rc = verdict(o, &a.h, path);
        if (!rc && (rc = write_params(o, &a.res, path, o->backend)) == 0)
            report_wrote(o, path, now_s() - t0);
    }
    attempt_free(&a);
    return rc;
}
