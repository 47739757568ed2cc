/* fit_segments: segmented weighted least squares (the breakpoints of a
 * quantity piecewise linear in the message size), by dynamic programming. */
#include "fit/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
