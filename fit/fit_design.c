/* fit_design: one weighted least-squares fit of a design (o(m) segments
 * and the free network parameters) with GSL. */
#include "fit/fit_internal.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <math.h>

/* ---- one weighted fit ------------------------------------------------ */


int fit_segment_of(const design *d, double m)
{
    int s = 0;
    while (s + 1 < d->segments && m >= d->from[s + 1])
        s++;
    return s;
}

/* Fitted o columns before o column j (2s: intercept of segment s, 2s+1:
 * its slope): its position in the solution vector unless held at 0. */
static int fit_o_cols_before(const design *d, int j)
{
    int pos = 0;
    for (int i = 0; i < j; i++)
        pos += !d->o_held[i];
    return pos;
}

int fit_design_cols(const design *d)
{
    int cols = fit_o_cols_before(d, 2 * d->segments);
    for (int k = 0; k < NET; k++)
        cols += d->free_net[k] * fit_net_cols(d, k);
    return cols;
}

/* Position in the solution vector of o column j, or -1 when held at 0. */
int fit_o_pos(const design *d, int j)
{
    return d->o_held[j] ? -1 : fit_o_cols_before(d, j);
}

/* Position of network parameter k, or -1 when not fitted. */
int fit_net_pos(const design *d, int k)
{
    if (!d->free_net[k])
        return -1;
    int pos = fit_o_cols_before(d, 2 * d->segments);
    for (int i = 0; i < k; i++)
        pos += d->free_net[i];
    return pos;
}

/* The reference size of segment s: mref for the single line (the thesis's
 * parametrisation), else the segment's first size. */
double fit_seg_ref(const design *d, int s, double mref)
{
    return d->segments == 1 ? mref : d->from[s];
}

static void fill_row(const design *d, const fit_point *pt, double mref, gsl_matrix *X, size_t i,
                     double *y_fixed)
{
    int s = fit_segment_of(d, pt->size_bytes), col = 0;
    for (int j = 0; j < 2 * d->segments; j++)
        if (!d->o_held[j])
            gsl_matrix_set(X, i, (size_t)col++,
                           j == 2 * s       ? 2.0
                           : j == 2 * s + 1 ? 2.0 * (pt->size_bytes - fit_seg_ref(d, s, mref))
                                            : 0.0);
    *y_fixed = 0;
    for (int k = 0; k < NET; k++) {
        if (d->free_net[k] && k == NET - 1 && d->lb_pieces) {
            fit_relay_row(d, pt, s, X, i, &col);
        } else if (d->free_net[k]) {
            gsl_matrix_set(X, i, (size_t)col++, fit_net_x(pt, k));
        } else {
            *y_fixed += fit_net_x(pt, k) * d->net_fixed[k];
        }
    }
}

/* Standard error of coefficient j, with the covariance scaled by chi2/dof
 * when the points scatter more than their error bars say. */
double fit_coef_err(const solved *sol, size_t j, int dof)
{
    double scale = dof > 0 && sol->chi2 / dof > 1 ? sol->chi2 / dof : 1;
    return sqrt(scale * gsl_matrix_get(sol->cov, j, j));
}

/* 0 when some o(m) slope or intercept is significantly negative. */
int fit_segments_feasible(const design *d, const solved *sol, int dof)
{
    for (int j = 0; j < 2 * d->segments; j++) {
        int pos = fit_o_pos(d, j);
        if (pos >= 0 && gsl_vector_get(sol->c, (size_t)pos) +
                                FIT_CLAMP_SIGMAS * fit_coef_err(sol, (size_t)pos, dof) < 0)
            return 0;
    }
    return 1;
}

int fit_solve(const design *d, const fit_point *pts, size_t n, double mref, int robust,
              solved *out)
{
    size_t p = (size_t)fit_design_cols(d);
    if (n < p)
        return -1;
    gsl_matrix *X = gsl_matrix_alloc(n, p);
    gsl_vector *y = gsl_vector_alloc(n), *w = gsl_vector_alloc(n);
    out->c = gsl_vector_alloc(p);
    out->cov = gsl_matrix_alloc(p, p);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        double yf;
        fill_row(d, &pts[i], mref, X, i, &yf);
        gsl_vector_set(y, i, pts[i].y_ns - yf);   /* fixed parameters to the left */
        gsl_vector_set(w, i, 1 / (pts[i].sigma_ns * pts[i].sigma_ns));
    }
    if (!robust) {
        gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, p);
        rc = gsl_multifit_wlinear(X, w, y, out->c, out->cov, &out->chi2, ws) ? -2 : 0;
        gsl_multifit_linear_free(ws);
    } else {
        /* gsl_multifit_robust has no weights: scale each row by sqrt(w). */
        for (size_t i = 0; i < n; i++) {
            double s = sqrt(gsl_vector_get(w, i));
            gsl_vector_view row = gsl_matrix_row(X, i);
            gsl_vector_scale(&row.vector, s);
            gsl_vector_set(y, i, gsl_vector_get(y, i) * s);
        }
        gsl_multifit_robust_workspace *ws =
            gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, n, p);
        rc = gsl_multifit_robust(X, y, out->c, out->cov, ws) ? -2 : 0;
        gsl_vector *r = gsl_vector_alloc(n);
        gsl_multifit_linear_residuals(X, y, out->c, r);
        gsl_blas_ddot(r, r, &out->chi2);
        gsl_vector_free(r);
        gsl_multifit_robust_free(ws);
    }
    gsl_matrix_free(X);
    gsl_vector_free(y);
    gsl_vector_free(w);
    return rc;
}

void fit_solved_free(solved *s)
{
    gsl_vector_free(s->c);
    gsl_matrix_free(s->cov);
    s->c = NULL;
    s->cov = NULL;
}
