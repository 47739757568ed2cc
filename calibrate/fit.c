/* fit: weighted least squares of the latency model, SPEC.md §4. */
#include "calibrate/fit.h"

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
#define FIT_RANK_TOL 1e-9
/* A parameter with a null-vector component above this is undetermined. */
#define FIT_NULL_COMPONENT 1e-6
#define NET 4   /* network parameters lp, lf, ls, lb */
/* Rounds of the alternation between breakpoints and network parameters
 * (fit_run): in every case seen the breakpoints repeat after one or two. */
#define FIT_SEGMENT_ROUNDS 8

static const model_param_id net_id[NET] = {MODEL_P_LP, MODEL_P_LF, MODEL_P_LS, MODEL_P_LB};

void fit_options_default(fit_options *opt)
{
    memset(opt, 0, sizeof *opt);
    model_params_preset("current", &opt->preset);
    snprintf(opt->preset_name, sizeof opt->preset_name, "current");
    opt->mref_bytes = 64;   /* thesis Table 1 */
    opt->max_segments = MODEL_MAX_OSEG;
    opt->fixed[MODEL_P_LP] = 1;
    opt->fixed_value[MODEL_P_LP] = fit_lp_from_cable(FIT_DEFAULT_CABLE_M);
    /* The thesis's model is cut-through (lb = 0, as every preset); a caller
     * that fits store-and-forward relays (calibrate) frees it.  On the
     * thesis's own data a free lb costs the other parameters precision:
     * with 1% noise o1's standard error grows from 0.048 to 0.076 ns/B. */
    opt->fixed[MODEL_P_LB] = 1;
    opt->fixed_value[MODEL_P_LB] = 0;
}

double fit_lp_from_cable(double metres)
{
    return metres / (FIT_SPEED_OF_LIGHT_M_PER_S * FIT_CABLE_VELOCITY_FACTOR) * 1e9;
}

/* The design-matrix column of network parameter k: Hm, Fm, Sm, and for lb
 * (SPEC.md §6) the relays' bytes (Fm + Sm) m. */
static double net_x(const fit_point *pt, int k)
{
    return k == 0 ? pt->hm : k == 1 ? pt->fm : k == 2 ? pt->sm
                                              : (pt->fm + pt->sm) * pt->size_bytes;
}

static double net_value(const model_params *p, int k)
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
                                                            : net_x(&pts[i], cols[j]));
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
static int decide_network(const fit_point *pts, size_t n, const fit_options *opt, int *free_net,
                          fit_result *res)
{
    int all[NET] = {1, 1, 1, 1}, und[2 + NET], p, rc;
    /* diagnostic: with every network parameter free, are lp and lf apart? */
    if ((rc = null_columns(pts, n, opt->mref_bytes, all, und, &p)))
        return rc;
    res->lp_lf_collinear = und[2] && und[3];
    for (int k = 0; k < NET; k++)
        free_net[k] = !opt->fixed[net_id[k]];
    if ((rc = null_columns(pts, n, opt->mref_bytes, free_net, und, &p)))
        return rc;
    /* lb first (SPEC.md §6: undetermined means 0, cut-through): one
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

/* ---- one weighted fit ------------------------------------------------ */

typedef struct design {
    int segments;
    double from[MODEL_MAX_OSEG];     /* segment i starts at from[i] bytes */
    int free_net[NET];
    double net_fixed[NET];           /* value used when not free */
    /* lb piecewise on o(m)'s segments (SPEC.md §6): the relays pay what
     * the sender and receiver pay, copies, so their cost per byte changes
     * where o(m)'s does.  Columns, when free: segment 0's slope (through
     * 0: its intercept is lf), then each further segment's intercept and
     * slope -- 2 segments - 1 of them (lb_cols). */
    int lb_pieces;
    /* Active set of the non-negativity bounds (see hold_negative): a column
     * whose estimate came out negative is held at 0 and the rest refitted,
     * so the other parameters absorb it.  Zeroing it after
     * the fit instead shifts the model by o1 (m - mref) at every size (the
     * fit then misses its own data: 2-node ring at 1..16 B, o1 -0.39 +-
     * 0.52, every point 30 ns above the model). held_* keep the estimate
     * for the report. */
    int o_held[2 * MODEL_MAX_OSEG];
    int o_held_falling[2 * MODEL_MAX_OSEG];   /* significantly negative */
    int net_held[NET];
    double o_held_value[2 * MODEL_MAX_OSEG], o_held_err[2 * MODEL_MAX_OSEG];
    /* the lb pieces' columns (lb_pieces) held at 0, as o(m)'s: a relay
     * cannot cost less than nothing, and zeroing a negative piece after the
     * fit instead shifted the held-out ring by its value at every relay
     * (--full: lb_seg2_ns -8.7 ns set to 0 put the 6-node ring 3.3% high
     * at 4-24 B) */
    int lb_held[2 * MODEL_MAX_OSEG];
    int lb_held_falling[2 * MODEL_MAX_OSEG];
    double lb_held_value[2 * MODEL_MAX_OSEG], lb_held_err[2 * MODEL_MAX_OSEG];
    double net_held_value[NET], net_held_err[NET];
} design;

static int segment_of(const design *d, double m)
{
    int s = 0;
    while (s + 1 < d->segments && m >= d->from[s + 1])
        s++;
    return s;
}

/* Fitted o columns before o column j (2s: intercept of segment s, 2s+1:
 * its slope): its position in the solution vector unless held at 0. */
static int o_cols_before(const design *d, int j)
{
    int pos = 0;
    for (int i = 0; i < j; i++)
        pos += !d->o_held[i];
    return pos;
}

/* Columns of network parameter k when free (lb piecewise: several, less
 * those held at 0). */
static int net_cols(const design *d, int k)
{
    if (k != NET - 1 || !d->lb_pieces)
        return 1;
    int cols = 0;
    for (int j = 0; j < 2 * d->segments - 1; j++)
        cols += !d->lb_held[j];
    return cols;
}

static int design_cols(const design *d)
{
    int cols = o_cols_before(d, 2 * d->segments);
    for (int k = 0; k < NET; k++)
        cols += d->free_net[k] * net_cols(d, k);
    return cols;
}

/* Position in the solution vector of o column j, or -1 when held at 0. */
static int o_pos(const design *d, int j)
{
    return d->o_held[j] ? -1 : o_cols_before(d, j);
}

/* Position of network parameter k, or -1 when not fitted. */
static int net_pos(const design *d, int k)
{
    if (!d->free_net[k])
        return -1;
    int pos = o_cols_before(d, 2 * d->segments);
    for (int i = 0; i < k; i++)
        pos += d->free_net[i];
    return pos;
}

/* Position of lb piece column j (see design), or -1 when held at 0. */
static int lb_pos(const design *d, int j)
{
    if (d->lb_held[j])
        return -1;
    int pos = net_pos(d, NET - 1);
    for (int i = 0; i < j; i++)
        pos += !d->lb_held[i];
    return pos;
}

/* The reference size of segment s: mref for the single line (the thesis's
 * parametrisation), else the segment's first size. */
static double seg_ref(const design *d, int s, double mref)
{
    return d->segments == 1 ? mref : d->from[s];
}

static void fill_row(const design *d, const fit_point *pt, double mref, gsl_matrix *X, size_t i,
                     double *y_fixed)
{
    int s = segment_of(d, pt->size_bytes), col = 0;
    for (int j = 0; j < 2 * d->segments; j++)
        if (!d->o_held[j])
            gsl_matrix_set(X, i, (size_t)col++,
                           j == 2 * s       ? 2.0
                           : j == 2 * s + 1 ? 2.0 * (pt->size_bytes - seg_ref(d, s, mref))
                                            : 0.0);
    *y_fixed = 0;
    for (int k = 0; k < NET; k++) {
        if (d->free_net[k] && k == NET - 1 && d->lb_pieces) {
            double relays = pt->fm + pt->sm;   /* the lb block, see design */
            for (int j = 0; j < 2 * d->segments - 1; j++) {
                int seg = (j + 1) / 2;
                if (d->lb_held[j])
                    continue;
                double x = seg != s ? 0 : j == 0 ? relays * pt->size_bytes
                                      : j % 2  ? relays
                                               : relays * (pt->size_bytes - d->from[seg]);
                gsl_matrix_set(X, i, (size_t)col++, x);
            }
        } else if (d->free_net[k]) {
            gsl_matrix_set(X, i, (size_t)col++, net_x(pt, k));
        } else {
            *y_fixed += net_x(pt, k) * d->net_fixed[k];
        }
    }
}

/* Piecewise lb is determined where every segment has relays (multi-hop
 * points) at two or more sizes. */
static int lb_pieces_ok(const design *d, const fit_point *pts, size_t n)
{
    for (int s = 0; s < d->segments; s++) {
        double first = NAN;
        int two = 0;
        for (size_t i = 0; i < n && !two; i++) {
            if (pts[i].fm + pts[i].sm <= 0 || segment_of(d, pts[i].size_bytes) != s)
                continue;
            if (isnan(first))
                first = pts[i].size_bytes;
            else
                two = pts[i].size_bytes != first;
        }
        if (!two)
            return 0;
    }
    return 1;
}

typedef struct solved {
    gsl_vector *c;
    gsl_matrix *cov;
    double chi2;
} solved;

/* Standard error of coefficient j, with the covariance scaled by chi2/dof
 * when the points scatter more than their error bars say. */
static double coef_err(const solved *sol, size_t j, int dof)
{
    double scale = dof > 0 && sol->chi2 / dof > 1 ? sol->chi2 / dof : 1;
    return sqrt(scale * gsl_matrix_get(sol->cov, j, j));
}

/* 0 when some o(m) slope or intercept is significantly negative. */
static int segments_feasible(const design *d, const solved *sol, int dof)
{
    for (int j = 0; j < 2 * d->segments; j++) {
        int pos = o_pos(d, j);
        if (pos >= 0 && gsl_vector_get(sol->c, (size_t)pos) +
                                FIT_CLAMP_SIGMAS * coef_err(sol, (size_t)pos, dof) < 0)
            return 0;
    }
    return 1;
}

static int solve(const design *d, const fit_point *pts, size_t n, double mref, int robust,
                 solved *out)
{
    size_t p = (size_t)design_cols(d);
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

static void solved_free(solved *s)
{
    gsl_vector_free(s->c);
    gsl_matrix_free(s->cov);
    s->c = NULL;
    s->cov = NULL;
}

/* ---- breakpoints ----------------------------------------------------- */

static double bic(double chi2, size_t n, int p)
{
    /* Gaussian likelihood with the noise scale unknown (weights relative) */
    return (double)n * log(chi2 / (double)n + 1e-300) + p * log((double)n);
}

/* Weighted sums of the points of one or more distinct sizes, x and y
 * relative to their weighted means (less cancellation in the differences
 * of prefix sums).  Doubles: long double (x87) made the search 3x slower,
 * and a segmentation only has to win by more than the rounding; the
 * chosen one is refitted with GSL (evaluate). */
typedef struct seg_sums {
    double w, wx, wxx, wy, wxy, wyy;
    size_t count;
} seg_sums;

static int seg_point_cmp(const void *pa, const void *pb)
{
    const fit_seg_point *a = pa, *b = pb;
    return (a->x > b->x) - (a->x < b->x);
}

static seg_sums seg_diff(const seg_sums *hi, const seg_sums *lo)
{
    return (seg_sums){hi->w - lo->w,     hi->wx - lo->wx,   hi->wxx - lo->wxx, hi->wy - lo->wy,
                      hi->wxy - lo->wxy, hi->wyy - lo->wyy, hi->count - lo->count};
}

/* chi^2 of the weighted line Y = A + B X over sums s, the residual of the
 * normal equations: yWy - (wxx wy^2 - 2 wx wy wxy + w wxy^2) / det with
 * det = w wxx - wx^2; INFINITY when the points do not span two sizes. */
static double seg_chi2(const seg_sums *s)
{
    double det = s->w * s->wxx - s->wx * s->wx;
    if (!(det > 0))
        return INFINITY;
    double q = s->wxx * s->wy * s->wy - 2 * s->wx * s->wy * s->wxy + s->w * s->wxy * s->wxy;
    double chi2 = s->wyy - q / det;
    return chi2 > 0 ? chi2 : 0;
}

/* One segment's chi^2 under rule nonneg (fit.h): the weighted line's,
 * or under FIT_SEG_CLAMP with a negative slope B = (w wxy - wx wy) / det
 * the flat line's through the weighted mean, wyy - wy^2 / w (with B >= 0
 * imposed the convex chi^2 has its minimum on the bound); *flat says
 * which.  INFINITY when the points do not span two sizes. */
static double seg_cost(const seg_sums *s, int nonneg, int *flat)
{
    double chi2 = seg_chi2(s);
    *flat = !isinf(chi2) && nonneg == FIT_SEG_CLAMP && s->w * s->wxy - s->wx * s->wy < 0;
    if (!*flat)
        return chi2;
    double c = s->wyy - s->wy * s->wy / s->w;
    return c > 0 ? c : 0;
}

/* The non-negativity rule of fit_segments for one segment of cost chi2
 * (flat: its slope held at 0) whose first size is x0 (centred); yc the
 * centre of y.  A = (wy - B wx) / w; cov(A, B) = [wxx, -wx; -wx, w] / det;
 * the flat line's mean has variance 1 / w.  Under FIT_SEG_CLAMP only the
 * intercept is judged (the slope is bounded, not refused). */
static int seg_admissible(const seg_sums *s, int nonneg, double chi2, int flat, double x0,
                          double yc)
{
    if (isinf(chi2))
        return 0;
    double det = s->w * s->wxx - s->wx * s->wx;
    double dof = (double)s->count - (flat ? 1 : 2);
    double scale = dof > 0 && chi2 / dof > 1 ? chi2 / dof : 1;
    if (flat)
        return s->wy / s->w + yc + FIT_CLAMP_SIGMAS * sqrt(scale / s->w) >= 0;
    double b = (s->w * s->wxy - s->wx * s->wy) / det, a = (s->wy - b * s->wx) / s->w;
    double a0 = a + b * x0 + yc;   /* the intercept at the segment's start */
    double var_b = scale * s->w / det;
    double var_a0 = scale * (s->wxx - 2 * x0 * s->wx + x0 * x0 * s->w) / det;
    return a0 + FIT_CLAMP_SIGMAS * sqrt(fabs(var_a0)) >= 0 &&
           (nonneg == FIT_SEG_CLAMP || b + FIT_CLAMP_SIGMAS * sqrt(fabs(var_b)) >= 0);
}

/* Sorted copy of pts, the distinct sizes xs (centred by xc), and prefix
 * sums P[0..S] over them.  Returns S, or 0 out of memory. */
static size_t seg_prefix(const fit_seg_point *pts, size_t n, double *xs, seg_sums *P,
                         double *xc, double *yc)
{
    fit_seg_point *q = malloc(n * sizeof *q);
    if (!q)
        return 0;
    memcpy(q, pts, n * sizeof *q);
    qsort(q, n, sizeof *q, seg_point_cmp);
    double sw = 0, sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++)
        sw += q[i].w, sx += q[i].w * q[i].x, sy += q[i].w * q[i].y;
    *xc = sx / sw;
    *yc = sy / sw;
    size_t S = 0;
    memset(&P[0], 0, sizeof P[0]);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || q[i].x != q[i - 1].x) {
            xs[S++] = q[i].x;
            P[S] = P[S - 1];
        }
        double w = q[i].w, x = q[i].x - *xc, y = q[i].y - *yc;
        seg_sums *t = &P[S];
        t->w += w, t->wx += w * x, t->wxx += w * x * x;
        t->wy += w * y, t->wxy += w * x * y, t->wyy += w * y * y;
        t->count++;
    }
    free(q);
    return S;
}

/* The dynamic programme: cost[k][j] (k = 1..K segments) is the smallest
 * chi^2 of the sizes 0..j-1 in k admissible segments, the last starting
 * at arg[k][j].  Every segment's line is computed once, for all k.  A
 * segment [i, j) of K >= 2 spans at least rule->min_sizes distinct sizes
 * and rule->min_points points (fit_seg_rule). */
static void seg_dp(const seg_sums *P, const double *xs, size_t S, int K, int nonneg,
                   const fit_seg_rule *rule, double xc, double yc, double **cost, size_t **arg)
{
    const size_t m = rule->min_sizes;
    for (int k = 1; k <= K; k++)
        for (size_t j = 0; j <= S; j++)
            cost[k][j] = INFINITY, arg[k][j] = 0;
    for (size_t j = m; j <= S; j++)
        for (size_t i = 0; i + m <= j; i++) {
            if (i > 0 && i < m)
                continue;   /* no first segment ends there */
            seg_sums d = seg_diff(&P[j], &P[i]);
            if (d.count < rule->min_points)
                continue;
            int flat, checked = 0, ok = 1;
            double c = seg_cost(&d, nonneg, &flat);
            for (int k = i == 0 ? 1 : 2; k <= (i == 0 ? 1 : K); k++) {
                double v = i == 0 ? c : cost[k - 1][i] + c;
                if (!(v < cost[k][j]))
                    continue;
                if (!checked)   /* only for a segment that would improve */
                    ok = !nonneg || seg_admissible(&d, nonneg, c, flat, xs[i] - xc, yc),
                    checked = 1;
                if (ok)
                    cost[k][j] = v, arg[k][j] = i;
            }
        }
}

int fit_segments(const fit_seg_point *pts, size_t n, int max_segments, int nonneg,
                 fit_segmentation *out)
{
    const fit_seg_rule sizes_only = {FIT_MIN_SIZES_PER_SEGMENT, 0};
    return fit_segments_rule(pts, n, max_segments, nonneg, &sizes_only, out);
}

int fit_segments_rule(const fit_seg_point *pts, size_t n, int max_segments, int nonneg,
                      const fit_seg_rule *rule, fit_segmentation *out)
{
    if (n == 0 || max_segments < 1 || max_segments > MODEL_MAX_OSEG || rule->min_sizes < 2)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!(pts[i].w > 0) || !isfinite(pts[i].w) || !isfinite(pts[i].x) || !isfinite(pts[i].y))
            return -1;
    int K = max_segments, rc = -2;
    double *xs = malloc(n * sizeof *xs), *cost[MODEL_MAX_OSEG + 1] = {NULL};
    size_t *arg[MODEL_MAX_OSEG + 1] = {NULL};
    seg_sums *P = malloc((n + 1) * sizeof *P);
    double xc, yc;
    size_t S = xs && P ? seg_prefix(pts, n, xs, P, &xc, &yc) : 0;
    for (int k = 1; S && k <= K; k++) {
        cost[k] = malloc((S + 1) * sizeof *cost[k]);
        arg[k] = malloc((S + 1) * sizeof *arg[k]);
        if (!cost[k] || !arg[k])
            S = 0;
    }
    if (S) {
        rc = 0;
        seg_dp(P, xs, S, K, nonneg, rule, xc, yc, cost, arg);
        for (int k = 1; k <= K; k++) {
            fit_segmentation *o = &out[k - 1];
            memset(o, 0, sizeof *o);
            o->segments = k;
            if (k == 1) {   /* the single line: any two sizes, never refused */
                o->chi2 = seg_chi2(&P[S]);
                o->from[0] = xs[0];
                continue;
            }
            o->chi2 = cost[k][S];
            for (size_t j = S, i = (size_t)k; !isinf(o->chi2) && i-- > 0; j = arg[i + 1][j]) {
                o->first[i] = arg[i + 1][j];
                o->from[i] = xs[o->first[i]];
            }
        }
    }
    for (int k = 1; k <= K; k++)
        free(cost[k]), free(arg[k]);
    free(xs);
    free(P);
    return rc;
}

/* The search over designs for fit_run: every candidate is fitted jointly
 * (o(m) segments and the free network parameters) and scored by BIC. */
typedef struct search {
    const fit_point *pts;
    size_t n;
    const fit_options *opt;
    design best;
    double best_bic;
    /* pts with every (size, hm, fm, sm) once (group_points; gpts == pts,
     * gscatter 0, when none repeats): what the joint fits solve */
    const fit_point *gpts;
    size_t gn;
    double gscatter;
} search;

static int point_key_cmp(const void *pa, const void *pb)
{
    const fit_point *a = pa, *b = pb;
    double ka[4] = {a->size_bytes, a->hm, a->fm, a->sm}, kb[4] = {b->size_bytes, b->hm, b->fm, b->sm};
    for (int j = 0; j < 4; j++)
        if (ka[j] != kb[j])
            return (ka[j] > kb[j]) - (ka[j] < kb[j]);
    return 0;
}

/* A design row is a function of (size, hm, fm, sm) alone (fill_row), so
 * the points that share them are one weighted point for every design the
 * search tries: weight sum 1/sigma^2, the weighted mean of y, and their
 * scatter about it, which is the same for every design.  With that weight
 * and target the normal equations, hence the coefficients and
 * (X'WX)^-1, are exactly those of all the points, and chi^2 is the
 * grouped problem's plus the scatter, which no coefficient can change.  Done once, so that each of the search's many joint fits costs
 * the distinct points, not the rows: the 5 x 10^5 configurations of
 * make bench-calibrate's 100x100 torus are 2 (hm, fm, sm) at each of its
 * 50 sizes (10^6 rows: 9.6 s, was beyond 30 min).  Returns the number of
 * groups, 0 when allocation failed; *out NULL when nothing repeats. */
static size_t group_points(const fit_point *pts, size_t n, fit_point **out, double *scatter)
{
    fit_point *v = malloc((n ? n : 1) * sizeof *v);
    size_t m = 0;
    *out = NULL;
    *scatter = 0;
    if (!v)
        return 0;
    memcpy(v, pts, n * sizeof *v);
    qsort(v, n, sizeof *v, point_key_cmp);
    for (size_t g = 0; g < n;) {
        size_t e = g + 1;
        while (e < n && point_key_cmp(&v[g], &v[e]) == 0)
            e++;
        double W = 0, Wy = 0;
        for (size_t k = g; k < e; k++) {
            double w = 1 / (v[k].sigma_ns * v[k].sigma_ns);
            W += w;
            Wy += w * v[k].y_ns;
        }
        double ybar = Wy / W;
        for (size_t k = g; k < e; k++) {
            double r = v[k].y_ns - ybar;
            *scatter += r * r / (v[k].sigma_ns * v[k].sigma_ns);
        }
        v[m] = v[g];
        v[m].y_ns = ybar;
        v[m].sigma_ns = 1 / sqrt(W);
        m++;
        g = e;
    }
    if (m == n) {
        free(v);
        *scatter = 0;
        return n;
    }
    *out = v;
    return m;
}

/* Fits d jointly and keeps it when its BIC is the best so far; with lb
 * free and several segments, also with lb piecewise on them (the relays
 * pay copies, as o(m) does, so their cost per byte changes where o(m)'s
 * does).  With free network parameters, which the segments share, a
 * multi-segment d must also have no o slope or intercept significantly
 * negative in the joint fit (fit_segments judged each segment alone); with
 * none free, the joint fit's segments are fit_segments' own lines and its
 * rule stands alone.  net_out (may be NULL) gets lp, lf, ls, lb as fitted
 * (single lb) or fixed.  Returns 0 when solved. */
static int hold_negative(design *d, const solved *sol, size_t n);

/* solve on the search's grouped points: the same coefficients and
 * covariance as on every point, chi^2 plus the groups' own scatter.  A
 * robust fit weighs every point by its own residual, so it takes them all. */
static int solve_grouped(const search *s, const design *d, int robust, solved *sol)
{
    if (robust || s->gpts == s->pts || s->gn < (size_t)design_cols(d))
        return solve(d, s->pts, s->n, s->opt->mref_bytes, robust, sol);
    int rc = solve(d, s->gpts, s->gn, s->opt->mref_bytes, 0, sol);
    sol->chi2 += s->gscatter;
    return rc;
}

static int evaluate(search *s, const design *d0, double *net_out)
{
    design d = *d0;
    int shared = d.free_net[0] || d.free_net[1] || d.free_net[2] || d.free_net[3];
    int pieces_max = d.free_net[NET - 1] && d.segments > 1 && lb_pieces_ok(&d, s->pts, s->n);
    int rc = 0;
    for (d.lb_pieces = pieces_max; d.lb_pieces >= 0; d.lb_pieces--) {
        solved sol = {NULL, NULL, 0};
        int dof = (int)s->n - design_cols(&d);
        rc = solve_grouped(s, &d, 0, &sol);
        /* o(m) alone (a 2-node ring): the bounds as fit_run will impose
         * them, so that BIC scores the fit that will be reported (and
         * fit_segments' FIT_SEG_CLAMP lines) */
        while (rc == 0 && !shared && hold_negative(&d, &sol, s->n)) {
            solved_free(&sol);
            rc = solve_grouped(s, &d, 0, &sol);
            dof = (int)s->n - design_cols(&d);
        }
        if (rc == 0 && (d.segments == 1 || !shared || segments_feasible(&d, &sol, dof))) {
            /* a breakpoint chosen by search is a parameter too */
            double b = bic(sol.chi2, s->n, design_cols(&d) + d.segments - 1);
            if (b < s->best_bic) {
                s->best_bic = b;
                s->best = d;
            }
        }
        for (int k = 0; rc == 0 && !d.lb_pieces && net_out && k < NET; k++)
            net_out[k] = d.free_net[k] ? gsl_vector_get(sol.c, (size_t)net_pos(&d, k))
                                       : d.net_fixed[k];
        solved_free(&sol);
    }
    return rc;
}

/* The o(m) part of every point once the network's share is taken off:
 * y = 2 o(m) + net, so o(m) = (y - net) / 2 with weight 4 / sigma^2 (the
 * same chi^2). */
static void o_targets(const fit_point *pts, size_t n, const double *net, fit_seg_point *q)
{
    for (size_t i = 0; i < n; i++) {
        double y = pts[i].y_ns;
        for (int k = 0; k < NET; k++)
            y -= net_x(&pts[i], k) * net[k];
        q[i] = (fit_seg_point){pts[i].size_bytes, y / 2,
                               4 / (pts[i].sigma_ns * pts[i].sigma_ns)};
    }
}

/* What a segment must span.  Every segment must leave the fit a residual,
 * or noise buys segments: the minimum is one point more than the
 * segment's own coefficients.  o(m) alone (a 2-node ring, one point a
 * size): its intercept and slope, so three sizes (FIT_MIN_SIZES_PER_SEGMENT).
 * With multi-hop data (network parameters free) every size has a point per
 * network, and a segment owns o's intercept and slope and, with lb free,
 * lb's piece (intercept and slope): two sizes suffice when they hold five
 * points or more (three networks: six).  So the pieces can follow a
 * staircase whose steps are only a size or two apart: scibench's copies on
 * the development VM step every 16 cache lines (1 KiB) up to 4 KiB, and
 * any three neighbouring sizes of --full's 768 B, 1, 1.5, 2, 3 and 4 KiB
 * straddle a step.  With three sizes a segment the held-out ring missed by
 * up to 5.4% at 1-4 KiB in 20 runs; with two, by at most 2.5%, refitting
 * the same files (README, "Every parameter measured").  A 2-node ring
 * keeps three sizes (one point each): two would fit a segment exactly. */
static fit_seg_rule segment_rule(const design *base)
{
    int free_any = base->free_net[0] || base->free_net[1] || base->free_net[2] ||
                   base->free_net[3];
    if (!free_any)
        return (fit_seg_rule){FIT_MIN_SIZES_PER_SEGMENT, 0};
    return (fit_seg_rule){2, (size_t)(2 + 2 * base->free_net[NET - 1] + 1)};
}

/* Breakpoints for K = 2..max_segments.  With the network parameters fixed
 * (a 2-node ring) the chi^2 is a sum over segments and fit_segments is
 * exact: the same segmentation as trying every one.  With free network
 * parameters, which every segment shares, it alternates: breakpoints for
 * the network values of the last joint fit, then the joint fit for those
 * breakpoints, until the breakpoints repeat (at most FIT_SEGMENT_ROUNDS;
 * chi^2 never rises).  O(rounds K S^2) for S distinct sizes, where trying
 * every segmentation was O(S^(K-1)) joint fits. */
static int search_segments(search *s, const design *base, const double *net1)
{
    int K = s->opt->max_segments, free_any = base->free_net[0] || base->free_net[1] ||
                                             base->free_net[2] || base->free_net[3];
    fit_seg_rule rule = segment_rule(base);
    fit_seg_point *q = malloc(s->n * sizeof *q);
    fit_segmentation seg[MODEL_MAX_OSEG];
    int rc = q ? 0 : -2;
    if (rc == 0) {
        o_targets(s->pts, s->n, net1, q);
        rc = fit_segments_rule(q, s->n, K, free_any ? FIT_SEG_REJECT : FIT_SEG_CLAMP, &rule,
                               seg);
    }
    for (int k = 2; rc == 0 && k <= K; k++) {
        fit_segmentation cur = seg[k - 1];
        for (int round = 0; !isinf(cur.chi2) && round < FIT_SEGMENT_ROUNDS; round++) {
            design d = *base;
            double net[NET];
            fit_segmentation next[MODEL_MAX_OSEG];
            d.segments = k;
            memcpy(d.from, cur.from, sizeof d.from);
            if (evaluate(s, &d, net) != 0 || !free_any)
                break;
            o_targets(s->pts, s->n, net, q);
            if ((rc = fit_segments_rule(q, s->n, k, FIT_SEG_REJECT, &rule, next)) != 0 ||
                memcmp(next[k - 1].first, cur.first, sizeof cur.first) == 0)
                break;
            cur = next[k - 1];
        }
    }
    free(q);
    return rc == -1 ? 0 : rc;
}

static size_t distinct_sizes(const fit_point *pts, size_t n, double *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        out[i] = pts[i].size_bytes;
    gsl_sort(out, 1, n);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || out[i] != out[k - 1])
            out[k++] = out[i];
    return k;
}

/* ---- result ---------------------------------------------------------- */

static void set_source(fit_result *res, model_param_id id, const char *src)
{
    snprintf(res->params.source[id], sizeof res->params.source[id], "%s", src);
}

/* Coefficient / covariance at a solution position; a held column is 0. */
static double sol_coef(const solved *sol, int pos)
{
    return pos < 0 ? 0.0 : gsl_vector_get(sol->c, (size_t)pos);
}

static double sol_cov(const solved *sol, int a, int b)
{
    return a < 0 || b < 0 ? 0.0 : gsl_matrix_get(sol->cov, (size_t)a, (size_t)b);
}

/* Appends "name value +- err" to a comma-separated list (res->clamped,
 * res->falling). */
static void note_held(char *list, size_t cap, const char *name, double v, double err)
{
    size_t len = strlen(list);
    snprintf(list + len, cap - len, "%s%s %.3g +- %.2g", len ? ", " : "", name, v, err);
}

static void note_clamped(fit_result *res, const char *name, double v, double err)
{
    note_held(res->clamped, sizeof res->clamped, name, v, err);
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
    note_clamped(res, name, *v, err);
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

static void fill_result(const design *d, const solved *sol, const fit_point *pts, size_t n,
                        const fit_options *opt, fit_result *res)
{
    model_params *p = &res->params;
    double mref = opt->mref_bytes;
    int dof = (int)n - design_cols(d);
    double scale = dof > 0 && sol->chi2 / dof > 1 ? sol->chi2 / dof : 1;
    double *net[NET] = {&p->lp_ns, &p->lf_ns, &p->ls_ns, &p->lb_ns_per_byte};

    memset(p, 0, sizeof *p);
    model_params_clear_optional(p);
    p->mref_bytes = mref;
    res->clamped[0] = res->falling[0] = '\0';
    for (int k = 0; k < NET; k++) {
        model_param_id id = net_id[k];
        int pos = net_pos(d, k);
        if (pos >= 0 || d->net_held[k]) {
            *net[k] = sol_coef(sol, pos);
            p->err[id] = pos >= 0 ? sqrt(scale * sol_cov(sol, pos, pos)) : d->net_held_err[k];
            res->measured[id] = 1;
            set_source(res, id, "measured");
            if (d->net_held[k] &&
                d->net_held_value[k] + FIT_CLAMP_SIGMAS * d->net_held_err[k] < 0)
                note_held(res->falling, sizeof res->falling, model_param_key[id],
                          d->net_held_value[k], d->net_held_err[k]);
            else if (d->net_held[k])
                note_clamped(res, model_param_key[id], d->net_held_value[k], d->net_held_err[k]);
        } else {
            *net[k] = d->net_fixed[k];
            char src[40];
            snprintf(src, sizeof src, "preset %s", opt->preset_name);
            set_source(res, id, opt->fixed[id] ? "fixed" : src);
        }
    }
    if (d->free_net[NET - 1] && d->lb_pieces) {
        /* lb per segment (see design); lb_ns_per_byte: the slope of the
         * segment that holds mref, for the one-line reports */
        int sm = segment_of(d, mref);
        p->lb_segments = d->segments;
        for (int i = 0; i < d->segments; i++) {
            double slope = sol_coef(sol, lb_pos(d, i ? 2 * i : 0));
            double at = i ? sol_coef(sol, lb_pos(d, 2 * i - 1)) : slope * d->from[0];
            p->lbseg[i] = (model_oseg){d->from[i], at, slope};
        }
        int js = sm ? 2 * sm : 0, ps = lb_pos(d, js);
        p->lb_ns_per_byte = sol_coef(sol, ps);
        p->err[MODEL_P_LB] = ps >= 0 ? sqrt(scale * sol_cov(sol, ps, ps)) : d->lb_held_err[js];
        for (int j = 0; j < 2 * d->segments - 1; j++) {
            char name[40];
            if (!d->lb_held[j])
                continue;
            int seg = (j + 1) / 2;
            snprintf(name, sizeof name, "lb_seg%d_%s", seg + 1,
                     j == 0 || j % 2 == 0 ? "ns_per_byte" : "ns");
            if (d->lb_held_falling[j])
                note_held(res->falling, sizeof res->falling, name, d->lb_held_value[j],
                          d->lb_held_err[j]);
            else
                note_clamped(res, name, d->lb_held_value[j], d->lb_held_err[j]);
        }
    }
    /* o(m): segments; o0/o1 from the segment that holds mref */
    int s = segment_of(d, mref), ia = o_pos(d, 2 * s), ib = o_pos(d, 2 * s + 1);
    double a = sol_coef(sol, ia), b = sol_coef(sol, ib);
    double dm = mref - seg_ref(d, s, mref);
    double vaa = sol_cov(sol, ia, ia), vbb = sol_cov(sol, ib, ib), vab = sol_cov(sol, ia, ib);
    p->o0_ns = a + b * dm;
    p->o1_ns_per_byte = b;
    p->err[MODEL_P_O0] = ia < 0 && dm == 0 ? d->o_held_err[2 * s]
                                           : sqrt(scale * (vaa + dm * dm * vbb + 2 * dm * vab));
    p->err[MODEL_P_O1] = ib < 0 ? d->o_held_err[2 * s + 1] : sqrt(scale * vbb);
    res->measured[MODEL_P_O0] = res->measured[MODEL_P_O1] = 1;
    set_source(res, MODEL_P_O0, "measured");
    set_source(res, MODEL_P_O1, "measured");
    p->o_segments = d->segments > 1 ? d->segments : 0;
    for (int i = 0; i < p->o_segments; i++)
        p->oseg[i] = (model_oseg){d->from[i], sol_coef(sol, o_pos(d, 2 * i)),
                                  sol_coef(sol, o_pos(d, 2 * i + 1))};
    for (int j = 0; j < 2 * d->segments; j++) {
        char name[40];
        if (!d->o_held[j])
            continue;
        if (d->segments == 1)
            snprintf(name, sizeof name, "%s", model_param_key[j ? MODEL_P_O1 : MODEL_P_O0]);
        else
            snprintf(name, sizeof name, "o_seg%d_%s", j / 2 + 1, j % 2 ? "ns_per_byte" : "ns");
        if (d->o_held_falling[j])
            note_held(res->falling, sizeof res->falling, name, d->o_held_value[j],
                      d->o_held_err[j]);
        else
            note_clamped(res, name, d->o_held_value[j], d->o_held_err[j]);
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

/* Holds at 0 the column whose estimate is the most negative in standard
 * errors and returns 1 (refit); 0 when none is negative.  One at a time, as
 * an active-set method adds constraints.  An o(m) column is held even when
 * significantly negative: small messages are often slower than slightly
 * larger ones (other code paths; seen here, 1 B 15 ns above 16 B, and in
 * OSU tables), which a line o0 + o1 m >= 0 cannot follow; the best
 * non-negative line is still the useful answer, with a warning.  A
 * significantly negative lp, lf or ls means the model does not describe
 * the data: left for fill_result to call infeasible.  (A held column is
 * not released again: with one bound active at a time, as in every case
 * seen, releasing never applies.) */
static int hold_negative(design *d, const solved *sol, size_t n)
{
    int dof = (int)n - design_cols(d), worst_j = -1, worst_k = -1;
    double worst = 0;
    if (design_cols(d) < 2)
        return 0;   /* keep at least one column */
    for (int j = 0; j < 2 * d->segments; j++) {
        int pos = o_pos(d, j);
        double v = sol_coef(sol, pos), e = pos >= 0 ? coef_err(sol, (size_t)pos, dof) : 0;
        if (pos >= 0 && v < 0 && v / e < worst)
            worst = v / e, worst_j = j, worst_k = -1;
    }
    for (int j = 0; d->free_net[NET - 1] && d->lb_pieces && j < 2 * d->segments - 1; j++) {
        /* the relays' pieces, as o(m)'s: held even when significantly
         * negative (with a warning) */
        int pos = lb_pos(d, j);
        double v = sol_coef(sol, pos), e = pos >= 0 ? coef_err(sol, (size_t)pos, dof) : 0;
        if (pos >= 0 && v < 0 && v / e < worst)
            worst = v / e, worst_j = 2 * MODEL_MAX_OSEG + j, worst_k = -1;
    }
    for (int k = 0; k < NET; k++) {
        if (k == NET - 1 && d->lb_pieces)
            continue;   /* pieces: above (net_pos then points past the columns) */
        int pos = net_pos(d, k);
        double v = sol_coef(sol, pos), e = pos >= 0 ? coef_err(sol, (size_t)pos, dof) : 0;
        /* lb as o(m)'s slopes: a relay that seems to get cheaper with m is
         * held at 0 even when significantly so (a change of the machine's
         * speed during the run did that once: -0.077 +- 0.035 ns/B) */
        int hold = v + FIT_CLAMP_SIGMAS * e >= 0 || k == NET - 1;
        if (pos >= 0 && v < 0 && hold && v / e < worst)
            worst = v / e, worst_j = -1, worst_k = k;
    }
    if (worst_j >= 2 * MODEL_MAX_OSEG) {
        int j = worst_j - 2 * MODEL_MAX_OSEG, pos = lb_pos(d, j);
        d->lb_held_value[j] = sol_coef(sol, pos);
        d->lb_held_err[j] = coef_err(sol, (size_t)pos, dof);
        d->lb_held_falling[j] = d->lb_held_value[j] + FIT_CLAMP_SIGMAS * d->lb_held_err[j] < 0;
        d->lb_held[j] = 1;
    } else if (worst_j >= 0) {
        int pos = o_pos(d, worst_j);
        d->o_held[worst_j] = 1;
        d->o_held_value[worst_j] = sol_coef(sol, pos);
        d->o_held_err[worst_j] = coef_err(sol, (size_t)pos, dof);
        d->o_held_falling[worst_j] =
            d->o_held_value[worst_j] + FIT_CLAMP_SIGMAS * d->o_held_err[worst_j] < 0;
    } else if (worst_k >= 0) {
        int pos = net_pos(d, worst_k);
        d->free_net[worst_k] = 0;
        d->net_fixed[worst_k] = 0;
        d->net_held[worst_k] = 1;
        d->net_held_value[worst_k] = sol_coef(sol, pos);
        d->net_held_err[worst_k] = coef_err(sol, (size_t)pos, dof);
    }
    return worst_j >= 0 || worst_k >= 0;
}

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
    size_t nsizes = distinct_sizes(pts, n, sizes);
    if (nsizes < 2) {   /* o(m) needs a slope */
        free(sizes);
        return -1;
    }
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    search s = {pts, n, opt, {0}, INFINITY, pts, n, 0};
    fit_point *grouped = NULL;
    size_t gn = group_points(pts, n, &grouped, &s.gscatter);
    if (grouped) {
        s.gpts = grouped;
        s.gn = gn;
    }
    design d = {0};
    double net1[NET];
    int rc = decide_network(pts, n, opt, d.free_net, res);
    for (int k = 0; k < NET; k++)
        d.net_fixed[k] = opt->fixed[net_id[k]] ? opt->fixed_value[net_id[k]]
                                               : net_value(&opt->preset, k);
    /* lb, where the data determine it, is kept only if BIC prefers it, as
     * o(m)'s segments are: on messages of a few bytes (m lb far below the
     * noise) a free lb only trades precision of lf for nothing -- the
     * thesis's Fig. 13 check (1..16 B) scattered from 1.5% to 34% with it. */
    int lb_free = d.free_net[NET - 1];
    for (int with_lb = lb_free; rc == 0 && with_lb >= 0; with_lb--) {
        d.free_net[NET - 1] = with_lb;
        d.segments = 1;   /* the thesis's single line */
        d.from[0] = sizes[0];
        if (evaluate(&s, &d, net1) == 0 && opt->max_segments > 1 &&
            nsizes >= 2 * FIT_MIN_SIZES_PER_SEGMENT)
            rc = search_segments(&s, &d, net1);
    }
    solved sol = {NULL, NULL, 0};
    if (rc == 0 && isinf(s.best_bic))
        rc = -1;
    if (rc == 0 && lb_free && !s.best.free_net[NET - 1]) {
        /* what a free lb would have been, for the report */
        design e = s.best;
        e.free_net[NET - 1] = 1;
        if (solve_grouped(&s, &e, 0, &sol) == 0) {
            int pos = net_pos(&e, NET - 1);
            res->lb_dropped = 1;
            res->lb_free_value = gsl_vector_get(sol.c, (size_t)pos);
            res->lb_free_err = coef_err(&sol, (size_t)pos, (int)n - design_cols(&e));
        }
        solved_free(&sol);
        s.best.net_fixed[NET - 1] = 0;   /* cut-through */
    }
    while (rc == 0 && (rc = solve_grouped(&s, &s.best, opt->robust, &sol)) == 0 &&
           hold_negative(&s.best, &sol, n))
        solved_free(&sol);
    if (rc == 0) {
        res->bic = s.best_bic;
        fill_result(&s.best, &sol, pts, n, opt, res);
    }
    if (rc == 0 && res->lb_dropped) {
        /* measured: the data say 0 within this error */
        res->measured[MODEL_P_LB] = 1;
        res->params.err[MODEL_P_LB] = res->lb_free_err;
        set_source(res, MODEL_P_LB, "measured");
    }
    solved_free(&sol);
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
