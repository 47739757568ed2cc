/* fit_result: from a solution to the reported parameters -- standard
 * errors, sources, values held at 0, residuals, chi^2/dof and R^2. */
#include "fit/fit_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- result ---------------------------------------------------------- */

void fit_set_source(fit_result *res, model_param_id id, const char *src)
{
    snprintf(res->params.source[id], sizeof res->params.source[id], "%s", src);
}

/* Coefficient / covariance at a solution position; a held column is 0. */
double fit_sol_coef(const solved *sol, int pos)
{
    return pos < 0 ? 0.0 : gsl_vector_get(sol->c, (size_t)pos);
}

double fit_sol_cov(const solved *sol, int a, int b)
{
    return a < 0 || b < 0 ? 0.0 : gsl_matrix_get(sol->cov, (size_t)a, (size_t)b);
}

/* Appends "name value +- err" to a comma-separated list (res->clamped,
 * res->falling). */
void fit_note_held(char *list, size_t cap, const char *name, double v, double err)
{
    size_t len = strlen(list);
    snprintf(list + len, cap - len, "%s%s %.3g +- %.2g", len ? ", " : "", name, v, err);
}

void fit_note_clamped(fit_result *res, const char *name, double v, double err)
{
    fit_note_held(res->clamped, sizeof res->clamped, name, v, err);
}

/* One value: clamp to 0 if negative within FIT_CLAMP_SIGMAS errors. */
static void clamp_one(fit_result *res, const char *name, double *v, double err)
{
    if (*v >= 0)
        return;
    if (isnan(err) || *v + FIT_CLAMP_SIGMAS * err < 0) {
        res->infeasible = 1;
        snprintf(res->infeasible_what, sizeof res->infeasible_what, "%s = %.4g +- %.2g", name,
                 *v, err);
        return;
    }
    fit_note_clamped(res, name, *v, err);
    *v = 0;
}

/* A piece of a segment of o(m) or of the relay's cost (its start value or
 * its slope, a params key) that came out below 0: held at 0 and noted with
 * the value it had; a piece has no standard error of its own to print. */
static void clamp_piece(fit_result *res, const char *key, double *v)
{
    if (*v >= 0)
        return;
    size_t len = strlen(res->clamped);
    snprintf(res->clamped + len, sizeof res->clamped - len, "%s%s %.3g", len ? ", " : "", key,
             *v);
    *v = 0;
}

static void clamp_segment(fit_result *res, const char *kind, int i, model_oseg *seg)
{
    char key[40];
    snprintf(key, sizeof key, "%s_seg%d_ns_per_byte", kind, i + 1);
    clamp_piece(res, key, &seg->ns_per_byte);
    snprintf(key, sizeof key, "%s_seg%d_ns", kind, i + 1);
    clamp_piece(res, key, &seg->ns);
}

static void clamp_negatives(fit_result *res)
{
    model_params *p = &res->params;
    double *v[MODEL_P_ALL] = {&p->o0_ns, &p->o1_ns_per_byte, &p->lp_ns, &p->lf_ns, &p->ls_ns,
                                &p->lb_ns_per_byte};
    for (int k = 0; k < MODEL_P_ALL; k++)
        if (res->measured[k] && !(k == MODEL_P_LB && p->lb_segments))   /* pieces: as o's */
            clamp_one(res, model_param_key[k], v[k], p->err[k]);
    /* searched segmentations have no significantly negative slope; the
     * relay's cost per segment likewise: what a params file may hold */
    for (int i = 0; i < p->o_segments; i++)
        clamp_segment(res, "o", i, &p->oseg[i]);
    for (int i = 0; i < p->lb_segments; i++)
        clamp_segment(res, "lb", i, &p->lbseg[i]);
    if (p->lb_segments && p->lb_ns_per_byte < 0)
        p->lb_ns_per_byte = 0;   /* the reported slope is one of the segments' */
}

void fit_fill_result(const design *d, const solved *sol, const fit_point *pts, size_t n,
                     const fit_options *opt, fit_result *res)
{
    model_params *p = &res->params;
    double mref = opt->mref_bytes;
    int dof = (int)n - fit_design_cols(d);
    double scale = dof > 0 && sol->chi2 / dof > 1 ? sol->chi2 / dof : 1;
    double *net[NET] = {&p->lp_ns, &p->lf_ns, &p->ls_ns, &p->lb_ns_per_byte};

    memset(p, 0, sizeof *p);
    model_params_clear_optional(p);
    p->mref_bytes = mref;
    res->clamped[0] = res->falling[0] = '\0';
    for (int k = 0; k < NET; k++) {
        model_param_id id = fit_net_id[k];
        int pos = fit_net_pos(d, k);
        if (pos >= 0 || d->net_held[k]) {
            *net[k] = fit_sol_coef(sol, pos);
            p->err[id] = pos >= 0 ? sqrt(scale * fit_sol_cov(sol, pos, pos)) : d->net_held_err[k];
            res->measured[id] = 1;
            fit_set_source(res, id, "measured");
            if (d->net_held[k] &&
                d->net_held_value[k] + FIT_CLAMP_SIGMAS * d->net_held_err[k] < 0)
                fit_note_held(res->falling, sizeof res->falling, model_param_key[id],
                              d->net_held_value[k], d->net_held_err[k]);
            else if (d->net_held[k])
                fit_note_clamped(res, model_param_key[id], d->net_held_value[k],
                                 d->net_held_err[k]);
        } else {
            *net[k] = d->net_fixed[k];
            char src[40];
            snprintf(src, sizeof src, "preset %s", opt->preset_name);
            fit_set_source(res, id, opt->fixed[id] ? "fixed" : src);
        }
    }
    if (d->free_net[NET - 1] && d->lb_pieces)
        fit_relay_result(d, sol, scale, mref, res);
    /* o(m): segments; o0/o1 from the segment that holds mref */
    int s = fit_segment_of(d, mref), ia = fit_o_pos(d, 2 * s), ib = fit_o_pos(d, 2 * s + 1);
    double a = fit_sol_coef(sol, ia), b = fit_sol_coef(sol, ib);
    double dm = mref - fit_seg_ref(d, s, mref);
    double vaa = fit_sol_cov(sol, ia, ia), vbb = fit_sol_cov(sol, ib, ib);
    double vab = fit_sol_cov(sol, ia, ib);
    p->o0_ns = a + b * dm;
    p->o1_ns_per_byte = b;
    p->err[MODEL_P_O0] = ia < 0 && dm == 0 ? d->o_held_err[2 * s]
                                           : sqrt(scale * (vaa + dm * dm * vbb + 2 * dm * vab));
    p->err[MODEL_P_O1] = ib < 0 ? d->o_held_err[2 * s + 1] : sqrt(scale * vbb);
    res->measured[MODEL_P_O0] = res->measured[MODEL_P_O1] = 1;
    fit_set_source(res, MODEL_P_O0, "measured");
    fit_set_source(res, MODEL_P_O1, "measured");
    p->o_segments = d->segments > 1 ? d->segments : 0;
    for (int i = 0; i < p->o_segments; i++)
        p->oseg[i] = (model_oseg){d->from[i], fit_sol_coef(sol, fit_o_pos(d, 2 * i)),
                                  fit_sol_coef(sol, fit_o_pos(d, 2 * i + 1))};
    for (int j = 0; j < 2 * d->segments; j++) {
        char name[40];
        if (!d->o_held[j])
            continue;
        if (d->segments == 1)
            snprintf(name, sizeof name, "%s", model_param_key[j ? MODEL_P_O1 : MODEL_P_O0]);
        else
            snprintf(name, sizeof name, "o_seg%d_%s", j / 2 + 1, j % 2 ? "ns_per_byte" : "ns");
        if (d->o_held_falling[j])
            fit_note_held(res->falling, sizeof res->falling, name, d->o_held_value[j],
                          d->o_held_err[j]);
        else
            fit_note_clamped(res, name, d->o_held_value[j], d->o_held_err[j]);
    }
    res->segments = d->segments;
    clamp_negatives(res);

    /* residuals, chi2/dof and weighted R^2 */
    double sw = 0, swy = 0, sst = 0;
    for (size_t i = 0; i < n; i++) {
        double w = 1 / (pts[i].sigma_ns * pts[i].sigma_ns);
        sw += w;
        swy += w * pts[i].y_ns;
    }
    res->chi2 = 0;
    for (size_t i = 0; i < n; i++) {
        double w = 1 / (pts[i].sigma_ns * pts[i].sigma_ns);
        res->predicted_ns[i] = fit_predict_ns(p, &pts[i]);
        res->residual_ns[i] = pts[i].y_ns - res->predicted_ns[i];
        res->chi2 += w * res->residual_ns[i] * res->residual_ns[i];
        sst += w * (pts[i].y_ns - swy / sw) * (pts[i].y_ns - swy / sw);
    }
    res->chi2_dof = dof > 0 ? res->chi2 / dof : NAN;
    res->r2 = sst > 0 ? 1 - res->chi2 / sst : NAN;
    p->fit_r2 = res->r2;
    p->fit_chi2_dof = res->chi2_dof;
}

