/* model: closed forms of docs/model.md ('Point-to-point latency',
 * 'Averages over all destinations'), enumeration oracle, crossovers. */
#include "model/model.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

double model_route_ns(const model_params *p, double size_bytes, double links,
                      double forwards, double switches)
{
    /* docs/model.md, 'Point-to-point latency': each of the F + S relays stores the m bytes and sends
     * them on.  With lb = 0 the term is +0.0 exactly: cut-through figures
     * are bit for bit what they were. */
    return 2 * model_overhead_ns(p, size_bytes) + links * p->lp_ns +
           forwards * p->lf_ns + switches * p->ls_ns +
           (forwards + switches) * model_relay_bytes_ns(p, size_bytes);
}

static double counts_ns(const model_params *p, double size_bytes, const topo_counts *c)
{
    return model_route_ns(p, size_bytes, (double)c->links, (double)c->forwards,
                          (double)c->switches);
}

void model_point_to_point(const model_params *p, const topo_shape *shape,
                          const long *hops, double size_bytes, model_p2p *out)
{
    topo_request_counts_links(shape, p->links, hops, &out->request);
    topo_response_counts_links(shape, p->links, hops, &out->response);
    out->request_ns = counts_ns(p, size_bytes, &out->request);
    out->response_ns = counts_ns(p, size_bytes, &out->response);
    out->transaction_ns = out->request_ns + out->response_ns;
}

static void finish_counts(double n_ratio, double hops_sum, double dims_sum,
                          model_avg_counts *out)
{
    out->hops = n_ratio * hops_sum;
    out->dims = n_ratio * dims_sum;
    out->forwards = out->hops - out->dims;
    out->switches = out->dims - 1;
}

double model_ring_avg_dist(topo_links links, double n)
{
    if (links == TOPO_LINKS_UNI)
        return (n - 1) / 2;   /* mean of 0..n-1 */
    /* mean of min(h, n - h) over h = 0..n-1; continuous n: the even form */
    if (n != floor(n) || fmod(n, 2) == 0)
        return n / 4;
    return (n * n - 1) / (4 * n);
}

void model_avg_counts_shape(const topo_shape *shape, topo_links links,
                            model_avg_counts *out)
{
    double N = (double)shape->nodes, hops = 0, dims = 0;
    for (int i = 0; i < shape->dims; i++) {
        double n = (double)shape->n[i];
        hops += model_ring_avg_dist(links, n);  /* over all n positions */
        dims += (n - 1) / n;   /* probability that h_i > 0 */
    }
    /* The sums above include the source itself (all zeros); N/(N-1)
     * rescales to the N - 1 real destinations. */
    finish_counts(N / (N - 1), hops, dims, out);
}

void model_avg_counts_continuous(topo_links links, int dims, double nodes,
                                 model_avg_counts *out)
{
    double n = pow(nodes, 1.0 / dims);
    /* real n: uni (n-1)/2, bi n/4 (docs/model.md, 'Links'), whatever n's parity */
    double a = links == TOPO_LINKS_UNI ? (n - 1) / 2 : n / 4;
    finish_counts(nodes / (nodes - 1), dims * a, dims * (n - 1) / n, out);
}

static double avg_ns(const model_params *p, double size_bytes, const model_avg_counts *c)
{
    return model_route_ns(p, size_bytes, c->hops, c->forwards, c->switches);
}

double model_avg_ns_shape(const model_params *p, const topo_shape *shape, double size_bytes)
{
    model_avg_counts c;
    model_avg_counts_shape(shape, p->links, &c);
    return avg_ns(p, size_bytes, &c);
}

double model_multicast_ns_shape(const model_params *p, const topo_shape *shape,
                                double size_bytes)
{
    return (double)(shape->nodes - 1) * model_avg_ns_shape(p, shape, size_bytes);
}

double model_avg_ns_continuous(const model_params *p, int dims, double nodes,
                               double size_bytes)
{
    model_avg_counts c;
    model_avg_counts_continuous(p->links, dims, nodes, &c);
    return avg_ns(p, size_bytes, &c);
}

double model_multicast_ns_continuous(const model_params *p, int dims, double nodes,
                                     double size_bytes)
{
    return (nodes - 1) * model_avg_ns_continuous(p, dims, nodes, size_bytes);
}

/* Largest integer n with n^dims <= nodes (pow is inexact near perfect
 * powers, so correct the estimate both ways). */
static double floor_root(int dims, double nodes)
{
    double n = floor(pow(nodes, 1.0 / dims));
    while (pow(n + 1, dims) <= nodes)
        n += 1;
    while (n > 1 && pow(n, dims) > nodes)
        n -= 1;
    return n;
}

/* Exact multi-unicast total on the integer torus n^D (n integral); the
 * continuous form where n^D is too large to be a topo_shape. */
static double multicast_on_torus(const model_params *p, int dims, double n,
                                 double size_bytes, const void *unused)
{
    (void)unused;
    topo_shape s;
    if (n <= (double)TOPO_MAX_NODES && topo_shape_equal(dims, (long)n, &s) == 0)
        return model_multicast_ns_shape(p, &s, size_bytes);
    return model_multicast_ns_continuous(p, dims, pow(n, dims), size_bytes);
}

double model_multicast_ns_interpolated(const model_params *p, int dims, double nodes,
                                       double size_bytes)
{
    return model_interpolate_tori(p, dims, nodes, size_bytes, multicast_on_torus, NULL);
}

double model_interpolate_tori(const model_params *p, int dims, double nodes, double size_bytes,
                              model_on_torus_fn on_torus, const void *extra)
{
    if (nodes < pow(2, dims))
        return NAN;
    double n = floor_root(dims, nodes);
    double a = pow(n, dims), b = pow(n + 1, dims);
    double ta = on_torus(p, dims, n, size_bytes, extra);
    if (nodes == a)
        return ta;
    double tb = on_torus(p, dims, n + 1, size_bytes, extra);
    return ta + (tb - ta) * (nodes - a) / (b - a);
}

void model_enumerate(const model_params *p, const topo_shape *shape, long src,
                     double size_bytes, double *sum_ns, double *avg_ns_out)
{
    topo_iter it;
    topo_counts c;
    double sum = 0;
    topo_iter_init(&it, shape, src);
    while (topo_iter_next(&it)) {
        topo_request_counts_links(shape, p->links, it.hops, &c);
        sum += counts_ns(p, size_bytes, &c);
    }
    *sum_ns = sum;
    *avg_ns_out = sum / (double)(shape->nodes - 1);
}

int model_nearest_torus(int dims, double nodes, topo_shape *shape)
{
    double lo = floor_root(dims, nodes);
    double n = lo < 2 ? 2 : lo;
    if (lo >= 2 && nodes - pow(lo, dims) > pow(lo + 1, dims) - nodes)
        n = lo + 1;
    if (pow(n, dims) > (double)TOPO_MAX_NODES)
        return -1;
    return topo_shape_equal(dims, (long)n, shape);
}

double model_metric_ns(const model_params *p, model_metric metric, model_fill fill,
                       int dims, double nodes, double size_bytes)
{
    if (nodes < pow(2, dims))
        return NAN;
    if (metric == MODEL_METRIC_AVG)
        return model_avg_ns_continuous(p, dims, nodes, size_bytes);
    if (metric == MODEL_METRIC_BINOMIAL)
        return model_bcast_binomial_interpolated(p, dims, nodes, size_bytes);
    if (fill == MODEL_FILL_INTERPOLATE)
        return model_multicast_ns_interpolated(p, dims, nodes, size_bytes);
    return model_multicast_ns_continuous(p, dims, nodes, size_bytes);
}

double model_curve_ns(const model_params *p, const model_curve *curve, int dims,
                      double nodes, double size_bytes)
{
    if (nodes < pow(2, dims))
        return NAN;
    if (curve->metric != MODEL_METRIC_AVG || curve->pattern == TOPO_PATTERN_UNIFORM)
        return model_metric_ns(p, curve->metric, curve->fill, dims, nodes, size_bytes);
    if (curve->fill == MODEL_FILL_CONTINUOUS && curve->pattern != TOPO_PATTERN_TRANSPOSE)
        return model_pattern_ns_continuous(p, curve->pattern, dims, nodes, size_bytes);
    return model_pattern_ns_interpolated(p, curve->pattern, dims, nodes, size_bytes);
}

const char *model_crossover_status_name(model_crossover_status st)
{
    static const char *const name[] = {"crossover", "lower_bound", "none"};
    return name[st];
}

typedef struct xo_ctx {
    const model_params *p;
    const model_curve *curve;
    int from_dims, to_dims;
    double size_bytes;
} xo_ctx;

/* f(N) = L_to(N) - L_from(N): negative where the higher D wins. */
static double xo_diff(double nodes, void *arg)
{
    const xo_ctx *c = arg;
    return model_curve_ns(c->p, c->curve, c->to_dims, nodes, c->size_bytes) -
           model_curve_ns(c->p, c->curve, c->from_dims, nodes, c->size_bytes);
}

/* Scan step: 0.1 % in N.  The curves are smooth (continuous fill) or linear
 * between integer tori at least 2^D apart (interpolate), so no sign change
 * hides inside a step; the step only bounds the bracket Brent refines. */
#define XO_SCAN_FACTOR 1.001
/* The binomial broadcast costs O(N D) per value: scan it in 1 % steps
 * (between integer tori it is linear, so a step only widens the bracket). */
#define XO_BCAST_SCAN_FACTOR 1.01
#define XO_REL_TOL 1e-12
#define XO_MAX_ITER 200

int model_crossover(const model_params *p, model_metric metric, model_fill fill,
                    int from_dims, int to_dims, double size_bytes, double *nodes,
                    model_crossover_status *status)
{
    model_curve curve = {metric, fill, TOPO_PATTERN_UNIFORM};
    return model_crossover_curve(p, &curve, from_dims, to_dims, size_bytes, nodes, status);
}

double model_crossover_limit(const model_curve *curve, int from_dims, int to_dims)
{
    if (curve->metric != MODEL_METRIC_BINOMIAL)
        return MODEL_CROSSOVER_MAX_NODES;
    /* the binomial tree is walked node by node on the tori n^D around N:
     * stop at the largest torus of either D within 2^20 nodes (a 16D
     * search needed 3^16 = 4.3e7 nodes a step and ran for minutes) */
    double a = pow(floor_root(from_dims, MODEL_BCAST_XO_MAX_NODES), from_dims);
    double b = pow(floor_root(to_dims, MODEL_BCAST_XO_MAX_NODES), to_dims);
    return fmin(a, b);
}

int model_crossover_curve(const model_params *p, const model_curve *curve, int from_dims,
                          int to_dims, double size_bytes, double *nodes,
                          model_crossover_status *status)
{
    xo_ctx ctx = {p, curve, from_dims, to_dims, size_bytes};
    double lo = pow(2, to_dims), hi;
    double max_nodes = model_crossover_limit(curve, from_dims, to_dims);
    if (lo > max_nodes) {   /* nothing to search (binomial, D >= 15) */
        *status = MODEL_XO_NONE;
        *nodes = NAN;
        return 0;
    }
    double factor = curve->metric == MODEL_METRIC_BINOMIAL ? XO_BCAST_SCAN_FACTOR
                                                           : XO_SCAN_FACTOR;

    /* start where both curves exist (tornado needs n >= 4): step past
     * the gap, then bisect back to its edge */
    if (isnan(xo_diff(lo, &ctx))) {
        double gap = lo;
        while (isnan(xo_diff(lo, &ctx)) && lo < max_nodes) {
            gap = lo;
            lo = fmin(lo * factor, max_nodes);
        }
        for (int i = 0; i < 60 && lo - gap > 1e-12 * lo; i++) {
            double mid = (gap + lo) / 2;
            *(isnan(xo_diff(mid, &ctx)) ? &gap : &lo) = mid;
        }
    }
    if (xo_diff(lo, &ctx) < 0) {
        *status = MODEL_XO_LOWER_BOUND;
        *nodes = lo;
        return 0;
    }
    for (;; lo = hi) {
        hi = fmin(lo * factor, max_nodes);
        if (xo_diff(hi, &ctx) < 0)
            break;
        if (hi >= max_nodes) {
            *status = MODEL_XO_NONE;
            *nodes = NAN;
            return 0;
        }
    }
    gsl_function f = {xo_diff, &ctx};
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    int rc = -1;
    if (!s)
        return -1;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (gsl_root_fsolver_set(s, &f, lo, hi) == GSL_SUCCESS) {
        for (int i = 0; i < XO_MAX_ITER; i++) {
            if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
                break;
            double a = gsl_root_fsolver_x_lower(s), b = gsl_root_fsolver_x_upper(s);
            if (gsl_root_test_interval(a, b, 0, XO_REL_TOL) == GSL_SUCCESS) {
                rc = 0;
                break;
            }
        }
    }
    gsl_set_error_handler(old);
    if (rc == 0) {
        *nodes = gsl_root_fsolver_root(s);
        *status = MODEL_XO_CROSSOVER;
    }
    gsl_root_fsolver_free(s);
    return rc;
}
