/* fit_search: the search over designs -- segmentations of o(m), with and
 * without lb, its pieces -- scored by BIC. */
#include "fit/fit_internal.h"

#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double bic(double chi2, size_t n, int p)
{
    /* Gaussian likelihood with the noise scale unknown (weights relative) */
    return (double)n * log(chi2 / (double)n + 1e-300) + p * log((double)n);
}


static int point_key_cmp(const void *pa, const void *pb)
{
    const fit_point *a = pa, *b = pb;
    double ka[4] = {a->size_bytes, a->hm, a->fm, a->sm};
    double kb[4] = {b->size_bytes, b->hm, b->fm, b->sm};
    for (int j = 0; j < 4; j++)
        if (ka[j] != kb[j])
            return (ka[j] > kb[j]) - (ka[j] < kb[j]);
    return 0;
}

/* Points sharing (size, hm, fm, sm) are one weighted point for every design (the same normal
 * equations; chi^2 gains only their scatter), so they are grouped once, and a million rows fit in
 * bounded time (make bench-calibrate). Returns the number
 * of groups, 0 when allocation failed; *out NULL when nothing repeats. */
size_t fit_group_points(const fit_point *pts, size_t n, fit_point **out, double *scatter)
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

/* solve on the search's grouped points: the same coefficients and
 * covariance as on every point, chi^2 plus the groups' own scatter.  A
 * robust fit weighs every point by its own residual, so it takes them all. */
int fit_solve_grouped(const search *s, const design *d, int robust, solved *sol)
{
    if (robust || s->gpts == s->pts || s->gn < (size_t)fit_design_cols(d))
        return fit_solve(d, s->pts, s->n, s->opt->mref_bytes, robust, sol);
    int rc = fit_solve(d, s->gpts, s->gn, s->opt->mref_bytes, 0, sol);
    sol->chi2 += s->gscatter;
    return rc;
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
int fit_evaluate(search *s, const design *d0, double *net_out)
{
    design d = *d0;
    int shared = d.free_net[0] || d.free_net[1] || d.free_net[2] || d.free_net[3];
    int pieces_max = d.free_net[NET - 1] && d.segments > 1 && fit_lb_pieces_ok(&d, s->pts, s->n);
    int rc = 0;
    for (d.lb_pieces = pieces_max; d.lb_pieces >= 0; d.lb_pieces--) {
        solved sol = {NULL, NULL, 0};
        int dof = (int)s->n - fit_design_cols(&d);
        rc = fit_solve_grouped(s, &d, 0, &sol);
        /* o(m) alone (a 2-node ring): the bounds as fit_run will impose
         * them, so that BIC scores the fit that will be reported (and
         * fit_segments' FIT_SEG_CLAMP lines) */
        while (rc == 0 && !shared && fit_hold_negative(&d, &sol, s->n)) {
            fit_solved_free(&sol);
            rc = fit_solve_grouped(s, &d, 0, &sol);
            dof = (int)s->n - fit_design_cols(&d);
        }
        if (rc == 0 && (d.segments == 1 || !shared || fit_segments_feasible(&d, &sol, dof))) {
            /* a breakpoint chosen by search is a parameter too */
            double b = bic(sol.chi2, s->n, fit_design_cols(&d) + d.segments - 1);
            if (b < s->best_bic) {
                s->best_bic = b;
                s->best = d;
            }
        }
        for (int k = 0; rc == 0 && !d.lb_pieces && net_out && k < NET; k++)
            net_out[k] = d.free_net[k] ? gsl_vector_get(sol.c, (size_t)fit_net_pos(&d, k))
                                       : d.net_fixed[k];
        fit_solved_free(&sol);
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
            y -= fit_net_x(&pts[i], k) * net[k];
        q[i] = (fit_seg_point){pts[i].size_bytes, y / 2,
                               4 / (pts[i].sigma_ns * pts[i].sigma_ns)};
    }
}

/* A segment must leave the fit a residual: three sizes for o(m) alone, two holding more points
 * than its coefficients with multi-hop data, whose other networks constrain it (calibrate
 * --full's held-out ring, test_full). */
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
int fit_search_segments(search *s, const design *base, const double *net1)
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
            if (fit_evaluate(s, &d, net) != 0 || !free_any)
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

size_t fit_distinct_sizes(const fit_point *pts, size_t n, double *out)
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
