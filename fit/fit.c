/* fit: weighted least squares of the latency model (docs/model.md,
 * 'Calibration'): fit_run drives the search (fit_search.c), the bounds
 * (fit_bounds.c) and the result (fit_result.c). */
#include "fit/fit_internal.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* A singular value below this fraction of the largest (columns scaled to
 * unit norm) is a null direction of the design matrix. */
/* A parameter with a null-vector component above this is undetermined. */
/* Rounds of the alternation between breakpoints and network parameters
 * (fit_run): in every case seen the breakpoints repeat after one or two. */

int fit_run(const fit_point *pts, size_t n, const fit_options *opt, fit_result *res)
{
    memset(res, 0, sizeof *res);
    double *sizes = malloc((n ? n : 1) * sizeof *sizes);
    res->residual_ns = calloc(n ? n : 1, sizeof *res->residual_ns);
    res->predicted_ns = calloc(n ? n : 1, sizeof *res->predicted_ns);
    if (!sizes || !res->residual_ns || !res->predicted_ns) {
        free(sizes);
        return -2;
    }
    res->n = n;
    size_t nsizes = fit_distinct_sizes(pts, n, sizes);
    if (nsizes < 2) {   /* o(m) needs a slope */
        free(sizes);
        return -1;
    }
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    search s = {pts, n, opt, {0}, INFINITY, pts, n, 0};
    fit_point *grouped = NULL;
    size_t gn = fit_group_points(pts, n, &grouped, &s.gscatter);
    if (grouped) {
        s.gpts = grouped;
        s.gn = gn;
    }
    design d = {0};
    double net1[NET];
    int rc = fit_decide_network(pts, n, opt, d.free_net, res);
    for (int k = 0; k < NET; k++)
        d.net_fixed[k] = opt->fixed[fit_net_id[k]] ? opt->fixed_value[fit_net_id[k]]
                                               : fit_net_value(&opt->preset, k);
    /* lb, where the data determine it, is kept only if BIC prefers it, as
     * o(m)'s segments are: on messages of a few bytes (m lb far below the
     * noise) a free lb only trades precision of lf for nothing -- the
     * thesis's Fig. 13 check (1..16 B) scattered from 1.5% to 34% with it. */
    int lb_free = d.free_net[NET - 1];
    for (int with_lb = lb_free; rc == 0 && with_lb >= 0; with_lb--) {
        d.free_net[NET - 1] = with_lb;
        d.segments = 1;   /* the thesis's single line */
        d.from[0] = sizes[0];
        if (fit_evaluate(&s, &d, net1) == 0 && opt->max_segments > 1 &&
            nsizes >= 2 * FIT_MIN_SIZES_PER_SEGMENT)
            rc = fit_search_segments(&s, &d, net1);
    }
    solved sol = {NULL, NULL, 0};
    if (rc == 0 && isinf(s.best_bic))
        rc = -1;
    if (rc == 0 && lb_free && !s.best.free_net[NET - 1]) {
        /* what a free lb would have been, for the report */
        design e = s.best;
        e.free_net[NET - 1] = 1;
        if (fit_solve_grouped(&s, &e, 0, &sol) == 0) {
            int pos = fit_net_pos(&e, NET - 1);
            res->lb_dropped = 1;
            res->lb_free_value = gsl_vector_get(sol.c, (size_t)pos);
            res->lb_free_err = fit_coef_err(&sol, (size_t)pos, (int)n - fit_design_cols(&e));
        }
        fit_solved_free(&sol);
        s.best.net_fixed[NET - 1] = 0;   /* cut-through */
    }
    while (rc == 0 && (rc = fit_solve_grouped(&s, &s.best, opt->robust, &sol)) == 0 &&
           fit_hold_negative(&s.best, &sol, n))
        fit_solved_free(&sol);
    if (rc == 0) {
        res->bic = s.best_bic;
        fit_fill_result(&s.best, &sol, pts, n, opt, res);
    }
    if (rc == 0 && res->lb_dropped) {
        /* measured: the data say 0 within this error */
        res->measured[MODEL_P_LB] = 1;
        res->params.err[MODEL_P_LB] = res->lb_free_err;
        for (int k = 0; k < MODEL_P_ALL; k++)   /* held at 0: no covariance with the rest */
            if (k != MODEL_P_LB && !isnan(res->params.err[k]))
                res->params.cov[k][MODEL_P_LB] = res->params.cov[MODEL_P_LB][k] = 0;
        fit_set_source(res, MODEL_P_LB, "measured");
    }
    fit_solved_free(&sol);
    gsl_set_error_handler(old);
    free(grouped);
    free(sizes);
    return rc;
}

void fit_result_free(fit_result *res)
{
    free(res->residual_ns);
    free(res->predicted_ns);
    res->residual_ns = res->predicted_ns = NULL;
}
