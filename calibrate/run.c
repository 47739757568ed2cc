/* run: calibrate's plain mode -- measure (or read --data), fit, check on
 * --validate, write -- and the fit step --full repeats. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "calibrate/calibrate.h"

int calibrate_fit(const options *o, pointset *ps, fit_result *res, int print)
{
    int rc;
    fit_options fo = o->fit;
    memset(res, 0, sizeof *res);
    if ((rc = load_files(o->data, o->ndata, o->stat, ps)))
        return rc;
    if (merge_repeats(ps))
        return fail("out of memory");
    relative_weights(ps);
    fo.fixed[MODEL_P_LP] = 1;   /* lp: --lp, --cable-length or 1 m of cable (too small to fit) */
    rc = fit_run(ps->pts, ps->n, &fo, res);
    if (rc == -1) {
        fit_result_free(res);
        return fail("%s: %s", o->data[0], ps->n ? "every point has the same message size: nothing"
                                                  " to fit (o(m) needs at least two sizes)"
                                                : "no ping-pong points to fit");
    }
    if (rc) {
        fit_result_free(res);
        return fail("the least-squares fit failed (GSL)");
    }
    if (print) {
        report_fit(o, ps, res);
        report_notes(o, res);
    }
    if (res->infeasible) {
        rc = fail("%s is significantly negative: the model does not describe this data "
                  "(see the residuals); no params file written, the data is kept in %s",
                  res->infeasible_what, o->data[0]);
        fit_result_free(res);
        return rc;
    }
    /* which column of the bench files was fitted, for plots/calibration.gp */
    snprintf(res->params.fit_statistic, sizeof res->params.fit_statistic, "%s",
             stat_name(o->stat));
    for (int i = 0; i < 3; i++)   /* the regime its points were measured in */
        if (ps->regime[i] > 0)
            res->params.regime_floor_ns[i] = ps->regime[i];
    return 0;
}

void report_wrote(const options *o, const char *path, double seconds)
{
    if (!strcmp(path, "-"))
        fprintf(o->report, "\nwrote the params to standard output (data: %s%s)\n", o->data[0],
                o->ndata > 1 ? ", ..." : "");
    else
        fprintf(o->report, "%swrote %s (data: %s%s)\nuse it:  scimodel --params %s --dims 1..4"
                           " --nodes 1000\n", o->quiet ? "" : "\n", path, o->data[0],
                o->ndata > 1 ? ", ..." : "", path);
    if (o->full && o->validation_out)
        fprintf(o->report, "held-out table: %s (plots/validation.gp draws it)\n",
                o->validation_out);
    if (seconds >= 0)
        fprintf(o->report, "calibrate: measured and fitted in %.1f s\n", seconds);
}

static double since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

int calibrate_run(options *o)
{
    char bench_path[PATH_MAX], pbuf[PATH_MAX];
    pointset ps = {0}, vs = {0};
    fit_result res;
    heldout h = {0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ps.weights = vs.weights = o->weights;
    const char *path = options_params_path(o, pbuf, sizeof pbuf);
    int rc = load_validate(o, &vs), measured = !o->ndata;
    if (!rc && measured && o->launches > 1)
        rc = launches_measure(o);
    else if (!rc && measured && (rc = measure(o, NULL, bench_path, sizeof bench_path, NULL)) == 0)
        o->data[o->ndata++] = bench_path;
    if (!rc && (rc = calibrate_fit(o, &ps, &res, 1)) == 0) {
        if (o->launches > 1)
            rc = launches_report(o, &res.params, path);
        if (!rc && o->logp)
            rc = with_logp(o, &res.params);
        if (!rc)
            rc = params_refused(o, &res.params, path);
        if (!rc && o->nvalidate)
            rc = validate(o, &vs, &res.params, !o->quiet, &h);
        if (!rc)
            rc = verdict(o, &h, path);
        if (!rc && (rc = write_params(o, &res, path, measured ? o->backend : ps.backend)) == 0)
            report_wrote(o, path, measured ? since(&t0) : -1);
        fit_result_free(&res);
    }
    pointset_free(&ps);
    pointset_free(&vs);
    return rc;
}
