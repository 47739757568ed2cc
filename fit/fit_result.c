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

/* Each reported parameter as a combination of the solution's columns (at
 * most two: o0 = a + b dm); n = 0 for one not fitted. */
typedef struct loading {
    int n, pos[2];
    double w[2];
} loading;

/* The covariance of every two reported parameters with errors, from the
 * solution's (scaled as their errors are); a parameter held at 0 has none
 * with the others. */
static void fill_cov(const design *d, const solved *sol, double scale, double dm, fit_result *res)
{
    model_params *p = &res->params;
    loading l[MODEL_P_ALL] = {{0, {0, 0}, {0, 0}}};
    int s = fit_segment_of(d, p->mref_bytes);
    int ia = fit_o_pos(d, 2 * s), ib = fit_o_pos(d, 2 * s + 1);
    if (ia >= 0)
        l[MODEL_P_O0].pos[l[MODEL_P_O0].n] = ia, l[MODEL_P_O0].w[l[MODEL_P_O0].n++] = 1;
    if (ib >= 0 && dm != 0)
        l[MODEL_P_O0].pos[l[MODEL_P_O0].n] = ib, l[MODEL_P_O0].w[l[MODEL_P_O0].n++] = dm;
    if (ib >= 0)
        l[MODEL_P_O1] = (loading){1, {ib, 0}, {1, 0}};
    for (int k = 0; k < NET; k++) {
        int pos = fit_net_pos(d, k);
        if (k == NET - 1 && d->lb_pieces && pos >= 0) {
            int sm = fit_segment_of(d, p->mref_bytes);
            pos = fit_lb_pos(d, sm ? 2 * sm : 0);
        }
        if (pos >= 0)
            l[fit_net_id[k]] = (loading){1, {pos, 0}, {1, 0}};
    }
    for (int i = 0; i < MODEL_P_ALL; i++)
        for (int j = 0; j < MODEL_P_ALL; j++) {
            if (i == j || isnan(p->err[i]) || isnan(p->err[j]))
                continue;
            double c = 0;
            for (int a = 0; a < l[i].n; a++)
                for (int b = 0; b < l[j].n; b++)
                    c += l[i].w[a] * l[j].w[b] * fit_sol_cov(sol, l[i].pos[a], l[j].pos[b]);
            p->cov[i][j] = scale * c;
        }
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
    for (int i = 0; i < p->o_segments; i++) {
        int pa = fit_o_pos(d, 2 * i), pb = fit_o_pos(d, 2 * i + 1);
        p->oseg[i] = (model_oseg){d->from[i], fit_sol_coef(sol, pa), fit_sol_coef(sol, pb)};
        /* a piece held at 0 keeps the error it had before */
        p->oseg_err[i][0] = pa >= 0 ? sqrt(scale * fit_sol_cov(sol, pa, pa)) : d->o_held_err[2 * i];
        p->oseg_err[i][1] = pb >= 0 ? sqrt(scale * fit_sol_cov(sol, pb, pb))
                                    : d->o_held_err[2 * i + 1];
    }
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
    fill_cov(d, sol, scale, dm, res);

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
    double rel2 = 0;
    for (size_t i = 0; i < n; i++)
        rel2 += pow(res->residual_ns[i] / pts[i].y_ns, 2);
    p->fit_residual_rms = n ? sqrt(rel2 / (double)n) : NAN;
    res->chi2_dof = dof > 0 ? res->chi2 / dof : NAN;
    res->r2 = sst > 0 ? 1 - res->chi2 / sst : NAN;
    p->fit_r2 = res->r2;
    p->fit_chi2_dof = res->chi2_dof;
}

