/* fit_network: the network terms of the fit -- each parameter's column of
 * the design matrix (lp, lf, ls, lb), the defaults, and which of them the
 * data determine (SVD of the design matrix). */
#include "fit/fit_internal.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const model_param_id fit_net_id[NET] = {MODEL_P_LP, MODEL_P_LF, MODEL_P_LS, MODEL_P_LB};

void fit_options_default(fit_options *opt)
{
    memset(opt, 0, sizeof *opt);
    model_params_preset("current", &opt->preset);
    snprintf(opt->preset_name, sizeof opt->preset_name, "current");
    opt->mref_bytes = 64;   /* thesis Table 1 */
    opt->max_segments = MODEL_MAX_OSEG;
    opt->fixed[MODEL_P_LP] = 1;
    opt->fixed_value[MODEL_P_LP] = fit_lp_from_cable(FIT_DEFAULT_CABLE_M);
    /* Cut-through (lb = 0) as the thesis and every preset; calibrate frees it: on one network
     * a free lb trades against o1 and widens o1's standard error. */
    opt->fixed[MODEL_P_LB] = 1;
    opt->fixed_value[MODEL_P_LB] = 0;
}

double fit_lp_from_cable(double metres)
{
    return metres / (FIT_SPEED_OF_LIGHT_M_PER_S * FIT_CABLE_VELOCITY_FACTOR) * 1e9;
}

/* The design-matrix column of network parameter k: Hm, Fm, Sm, and for lb
 * (docs/model.md, 'Parameters') the relays' bytes (Fm + Sm) m. */
double fit_net_x(const fit_point *pt, int k)
{
    return k == 0 ? pt->hm : k == 1 ? pt->fm : k == 2 ? pt->sm
                                              : (pt->fm + pt->sm) * pt->size_bytes;
}

double fit_net_value(const model_params *p, int k)
{
    return k == 0 ? p->lp_ns : k == 1 ? p->lf_ns : k == 2 ? p->ls_ns : p->lb_ns_per_byte;
}

double fit_predict_ns(const model_params *p, const fit_point *pt)
{
    return model_route_ns(p, pt->size_bytes, pt->hm, pt->fm, pt->sm);
}

/* ---- identifiability --------------------------------------------------- */

/* Columns o0, o1, then the network parameters with use[k] set.  Marks in
 * undetermined[] (by column) the columns that have a component in the null
 * space of the column-scaled design matrix. */
static int null_columns(const fit_point *pts, size_t n, double mref, const int *use,
                        int *undetermined, int *ncols_out)
{
    int cols[2 + NET], p = 0;
    cols[p++] = -2;
    cols[p++] = -1;
    for (int k = 0; k < NET; k++)
        if (use[k])
            cols[p++] = k;
    size_t rows = n > (size_t)p ? n : (size_t)p;
    gsl_matrix *A = gsl_matrix_calloc(rows, (size_t)p);
    gsl_matrix *V = gsl_matrix_alloc((size_t)p, (size_t)p);
    gsl_vector *S = gsl_vector_alloc((size_t)p), *work = gsl_vector_alloc((size_t)p);
    if (!A || !V || !S || !work)
        return -2;
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < p; j++)
            gsl_matrix_set(A, i, (size_t)j, cols[j] == -2   ? 2.0
                                            : cols[j] == -1 ? 2.0 * (pts[i].size_bytes - mref)
                                                            : fit_net_x(&pts[i], cols[j]));
    for (int j = 0; j < p; j++) {
        gsl_vector_view c = gsl_matrix_column(A, (size_t)j);
        double norm = gsl_blas_dnrm2(&c.vector);
        if (norm > 0)
            gsl_vector_scale(&c.vector, 1 / norm);
    }
    int rc = gsl_linalg_SV_decomp(A, V, S, work) ? -2 : 0;
    double smax = gsl_vector_get(S, 0);
    for (int j = 0; j < p; j++)
        undetermined[j] = 0;
    for (int k = 0; rc == 0 && k < p; k++) {
        if (gsl_vector_get(S, (size_t)k) > FIT_RANK_TOL * smax)
            continue;
        for (int j = 0; j < p; j++)
            if (fabs(gsl_matrix_get(V, (size_t)j, (size_t)k)) > FIT_NULL_COMPONENT)
                undetermined[j] = 1;
    }
    *ncols_out = p;
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_vector_free(S);
    gsl_vector_free(work);
    return rc;
}

/* Decides, for lp, lf, ls: fitted, fixed by the user, or from the preset. */
int fit_decide_network(const fit_point *pts, size_t n, const fit_options *opt, int *free_net,
                       fit_result *res)
{
    int all[NET] = {1, 1, 1, 1}, und[2 + NET], p, rc;
    /* diagnostic: with every network parameter free, are lp and lf apart? */
    if ((rc = null_columns(pts, n, opt->mref_bytes, all, und, &p)))
        return rc;
    res->lp_lf_collinear = und[2] && und[3];
    for (int k = 0; k < NET; k++)
        free_net[k] = !opt->fixed[fit_net_id[k]];
    if ((rc = null_columns(pts, n, opt->mref_bytes, free_net, und, &p)))
        return rc;
    /* lb first (undetermined means 0, cut-through, as SCI): one
     * multi-hop size makes its column (Fm + Sm) m a multiple of the relays'
     * counts, and lf, ls are measurable once lb is taken as 0. */
    if (free_net[NET - 1] && und[p - 1]) {
        free_net[NET - 1] = 0;
        if ((rc = null_columns(pts, n, opt->mref_bytes, free_net, und, &p)))
            return rc;
    }
    for (int k = 0, j = 2; k < NET; k++) {
        if (!free_net[k])
            continue;
        if (und[j++])
            free_net[k] = 0;   /* not measurable: preset */
    }
    return 0;
}
