/* fit: the calibration fitter (docs/model.md, 'Parameters').  Each measured ping-pong point
 * is one equation of a linear model in (o(m), lp, lf, ls, lb):
 *     y = 2 o(m) + Hm lp + Fm lf + Sm ls + (Fm + Sm) m lb,
 * Hm, Fm, Sm the means of request and response counts, o(m) piecewise
 * linear in m (one segment = the thesis's o0 + o1 (m - mref)).  Weighted
 * least squares with GSL, identifiability from the SVD of the design
 * matrix, breakpoints of o(m) by segmented least squares (dynamic
 * programming, fit_segments) and BIC. */
#ifndef SCITORUS_FIT_H
#define SCITORUS_FIT_H

#include <stddef.h>

#include "model/model.h"
#include "model/params.h"

/* Speed of light in vacuum (m/s) and the thesis's signal speed in the
 * cable, half of it: 1 m of cable = 6.67 ns (thesis §5, lp). */
#define FIT_SPEED_OF_LIGHT_M_PER_S 299792458.0
#define FIT_CABLE_VELOCITY_FACTOR 0.5
#define FIT_DEFAULT_CABLE_M 1.0
/* "significantly negative": more than two standard errors below zero */
#define FIT_CLAMP_SIGMAS 2.0

typedef struct fit_point {
    double size_bytes;
    double hm, fm, sm;       /* (H + H')/2, (F + F')/2, (S + S')/2 */
    double y_ns;             /* the point's statistic (half a round trip) */
    double sigma_ns;         /* its standard error (> 0) */
} fit_point;

typedef struct fit_options {
    /* Parameters held fixed (not fitted), by model_param_id; value in
     * fixed_value.  MODEL_P_O0/O1 cannot be fixed (o(m) is always fitted).
     * fit_options_default fixes lp (the cable) and lb = 0 (cut-through,
     * the thesis's model); clear fixed[MODEL_P_LB] to fit the relays'
     * per-byte cost (docs/model.md, 'Parameters'). */
    int fixed[MODEL_P_ALL];
    double fixed_value[MODEL_P_ALL];
    model_params preset;     /* fills what the data cannot determine */
    char preset_name[32];
    double mref_bytes;       /* 64 */
    int max_segments;        /* 1..MODEL_MAX_OSEG */
    int robust;              /* gsl_multifit_robust (bisquare) instead of WLS */
} fit_options;

typedef struct fit_result {
    model_params params;             /* values, err, source, segments, fit_r2/chi2 */
    int measured[MODEL_P_ALL];     /* 1 where the data determined the value */
    int lp_lf_collinear;             /* the data alone cannot separate lp and lf */
    int segments;
    double chi2, chi2_dof, r2;
    double bic;
    size_t n;                        /* points used */
    /* Negative times and slopes mean nothing physically: a fitted value
     * below zero but within FIT_CLAMP_SIGMAS standard errors of it is held
     * at 0, the others refitted, and named in `clamped`; a significantly
     * negative lp, lf or ls (or o0 of a segmented o(m)) sets `infeasible`
     * (the model does not describe the data). */
    char clamped[256];
    /* o(m) intercepts or slopes, or lb, significantly below zero (o(m) or
     * the relays' cost falls with m in the data): held at 0 all the same,
     * named here for a warning. */
    char falling[256];
    int infeasible;
    /* lb was determined by the data but BIC preferred cut-through (lb = 0):
     * measured as 0, with the error of a free fit; lb_free_value is what
     * the free fit gave. */
    int lb_dropped;
    double lb_free_value, lb_free_err;
    char infeasible_what[128];
    double *residual_ns;             /* y - prediction, n entries (malloc'ed) */
    double *predicted_ns;
} fit_result;

void fit_options_default(fit_options *opt);

/* Cable length (m) -> lp (ns) at FIT_CABLE_VELOCITY_FACTOR c. */
double fit_lp_from_cable(double metres);

/* Fits pts (n of them).  Returns 0; -1 when there is nothing to fit (fewer
 * than two distinct sizes: o(m) needs a slope), -2 when GSL fails.  The
 * caller frees with fit_result_free. */
int fit_run(const fit_point *pts, size_t n, const fit_options *opt, fit_result *res);
void fit_result_free(fit_result *res);

/* ---- segmented least squares (the breakpoint search) ------------------
 * Reusable for any quantity that is piecewise linear in the message size
 * (o(m) here; lb(m), LogP's os(m), or(m), g(m)). */

/* Distinct sizes per segment of a multi-segment fit: two would fit a
 * segment exactly and let noise buy extra segments; three leave each
 * segment a residual. */
#define FIT_MIN_SIZES_PER_SEGMENT 3

typedef struct fit_seg_point {
    double x;        /* the message size (bytes) */
    double y;        /* the value to fit (e.g. ns) */
    double w;        /* its weight, 1 / sigma^2 (> 0) */
} fit_seg_point;

typedef struct fit_segmentation {
    int segments;                 /* K */
    double from[MODEL_MAX_OSEG];  /* segment i covers [from[i], from[i+1]); from[0] = smallest x */
    size_t first[MODEL_MAX_OSEG]; /* index of from[i] among the distinct sizes */
    double chi2;                  /* weighted residual sum of squares; INFINITY when none */
} fit_segmentation;

/* fit_segments: the best breakpoints for K = 1..max_segments independent
 * weighted lines y = a_i + b_i (x - from[i]), one per segment.
 *   pts - n points in any order (several may share an x);
 *   max_segments - 1..MODEL_MAX_OSEG;
 *   nonneg - FIT_SEG_FREE (0): any lines;
 *       FIT_SEG_REJECT (1): a segmentation of K >= 2 is admissible only if
 *       no segment's slope or intercept a_i is more than FIT_CLAMP_SIGMAS
 *       standard errors below 0 (errors from the segment's own fit, scaled
 *       by its chi^2/dof when that exceeds 1);
 *       FIT_SEG_CLAMP (2): slopes are bounded below by 0 -- a segment
 *       whose free slope is negative costs the chi^2 of its best flat line
 *       (the constrained least-squares optimum), as fit_run's active set
 *       then fits it -- and intercepts are judged as by FIT_SEG_REJECT;
 *   out - (output) max_segments entries, out[K-1] the admissible
 *       segmentation of K segments with the smallest chi2 (chi2 INFINITY
 *       when there is none, e.g. fewer than FIT_MIN_SIZES_PER_SEGMENT K
 *       distinct sizes).  K = 1 is the single line over all points (any two
 *       distinct sizes; never refused).
 * Each segment of K >= 2 spans at least FIT_MIN_SIZES_PER_SEGMENT distinct
 * sizes.  Dynamic programming over the S distinct sizes, every segment's
 * line from prefix sums: O(n log n + S^2 (1 + max_segments)) time,
 * O(S max_segments) memory; 10^4 sizes take about a second.
 * Returns 0, -1 for bad arguments (n == 0, max_segments out of range, a
 * weight <= 0 or a non-finite value), -2 out of memory. */
enum { FIT_SEG_FREE = 0, FIT_SEG_REJECT = 1, FIT_SEG_CLAMP = 2 };
int fit_segments(const fit_seg_point *pts, size_t n, int max_segments, int nonneg,
                 fit_segmentation *out);

/* What a segment of K >= 2 must span: min_sizes distinct sizes (>= 2) and
 * min_points points (several points may share a size).  fit_segments is
 * {FIT_MIN_SIZES_PER_SEGMENT, 0}. */
typedef struct fit_seg_rule {
    size_t min_sizes;
    size_t min_points;
} fit_seg_rule;

/* fit_segments with the segment rule given (returns -1 also for
 * min_sizes < 2). */
int fit_segments_rule(const fit_seg_point *pts, size_t n, int max_segments, int nonneg,
                      const fit_seg_rule *rule, fit_segmentation *out);

/* The link rate (bytes/ns) from n one-way points: time per message ns[i]
 * (standard error sigma_ns[i] > 0) at size_bytes[i], at least 3 distinct
 * sizes, at most FIT_LINK_RATE_MAX_POINTS; t(m) = a + m / bw by weighted
 * least squares.  Returns 0 with *bw and its standard error *err, or -1
 * (too few points, a bad value, a slope not above 0). */
#define FIT_LINK_RATE_MAX_POINTS 4096
int fit_link_rate(const double *size_bytes, const double *ns, const double *sigma_ns, size_t n,
                  double *bw, double *err);

/* Prediction of the model in params for one point (docs/model.md, 'Point-to-point latency'). */
double fit_predict_ns(const model_params *p, const fit_point *pt);

#endif
