/* pattern (model): mean request latency of the traffic patterns
 * (docs/model.md, 'Patterns') on unidirectional or bidirectional tori:
 * closed forms over the ring sizes (O(1) per dimension), the one-pass
 * enumeration that checks them, continuous forms and the interpolated fill. */
#include <math.h>

#include "model/pattern.h"

/* Relative rounding of pow(n^D, 1/D) (a few ulps; 1e-12 is ample). */
#define ROOT_TOL 1e-12

/* Links crossed in one ring of n nodes for the positive-way offset h. */
static double ring_dist(topo_links links, long n, long h)
{
    return links == TOPO_LINKS_BI && n - h < h ? (double)(n - h) : (double)h;
}

static void set_counts(double hops, double dims, model_avg_counts *out)
{
    out->hops = hops;
    out->dims = dims;
    out->forwards = hops - dims;
    out->switches = dims - 1;
}

/* Sum over the n positions s of one ring of the links crossed (*dist) and
 * of the positions that move (*used), for d(s) as topo_pattern_dests
 * defines it, in O(1) (docs/model.md, 'Patterns'):
 * - tornado: every s moves h = ceil(n/2) - 1 the positive way, and on bi
 *   links n - h > h, so dist = n h, used = n if h > 0;
 * - complement: h(s) = (n - 1 - 2s) mod n.  Even n: each odd h in 1..n-1
 *   twice, uni sum n^2/2; bi sum of min(h, n - h): m^2 (m = n/2 even) or
 *   m^2 + 1 (m odd).  Odd n = 2m + 1: each h in 0..n-1 once (h = 0 at
 *   s = m), uni n(n-1)/2, bi m(m+1). */
static void ring_sums(topo_links links, topo_pattern pattern, long n, double *dist,
                      double *used)
{
    double x = (double)n;
    int bi = links == TOPO_LINKS_BI;
    if (pattern == TOPO_PATTERN_TORNADO) {
        long h = (n + 1) / 2 - 1;
        *dist = x * ring_dist(links, n, h);
        *used = h > 0 ? x : 0;
        return;
    }
    if (n % 2 == 0) {
        long m = n / 2;
        double md = (double)m;
        *dist = bi ? md * md + (double)(m % 2) : x * x / 2;
        *used = x;
    } else {
        double md = (double)(n / 2);
        *dist = bi ? md * (md + 1) : x * (x - 1) / 2;
        *used = x - 1;
    }
}

/* Tornado and complement move every coordinate by a function of itself
 * alone: sum over sources of H and k is a sum over dimensions, and the
 * sources that send nothing (d = s) are those at offset 0 everywhere. */
static int separable(const topo_shape *shape, topo_links links, topo_pattern pattern,
                     model_avg_counts *out, double *messages)
{
    double N = (double)shape->nodes, sum_h = 0, sum_k = 0, silent = 1;
    for (int i = 0; i < shape->dims; i++) {
        long n = shape->n[i];
        double dist, used;
        ring_sums(links, pattern, n, &dist, &used);
        sum_h += dist * (N / (double)n);   /* N / n sources per position */
        sum_k += used * (N / (double)n);
        silent *= (double)n - used;
    }
    double m = N - silent;
    if (m <= 0)
        return -1;
    set_counts(sum_h / m, sum_k / m, out);
    if (messages)
        *messages = m;
    return 0;
}

int model_pattern_counts_shape(const topo_shape *shape, topo_links links,
                               topo_pattern pattern, model_avg_counts *out,
                               double *messages)
{
    double N = (double)shape->nodes, per_src = 0, hops = 0;
    if (topo_pattern_check(shape, pattern))
        return -1;
    switch (pattern) {
    case TOPO_PATTERN_UNIFORM:
        model_avg_counts_shape(shape, links, out);
        if (messages)
            *messages = N * (N - 1);
        return 0;
    case TOPO_PATTERN_NEIGHBOR:
        /* every message stays in one dimension: +1 hop, and -1 which is
         * n - 1 hops the positive way on uni rings, 1 on bi */
        for (int i = 0; i < shape->dims; i++) {
            long n = shape->n[i];
            per_src += n == 2 ? 1 : 2;
            hops += n == 2 ? 1 : links == TOPO_LINKS_BI ? 2 : (double)n;
        }
        set_counts(hops / per_src, 1, out);
        if (messages)
            *messages = N * per_src;
        return 0;
    case TOPO_PATTERN_TORNADO:
    case TOPO_PATTERN_COMPLEMENT:
        return separable(shape, links, pattern, out, messages);
    case TOPO_PATTERN_TRANSPOSE: {
        /* (x, y) -> (y, x): offsets t and n - t, t = 1..n-1 (n sources
         * each); uni H = n; bi H = 2 min(t, n - t), mean 2 n a(n) / (n-1) */
        double n = (double)shape->n[0];
        set_counts(links == TOPO_LINKS_BI ? 2 * n * model_ring_avg_dist(links, n) / (n - 1) : n,
                   2, out);
        if (messages)
            *messages = N - n;
        return 0;
    }
    default:
        return -1;
    }
}

int model_pattern_enumerate(const topo_shape *shape, topo_links links,
                            topo_pattern pattern, model_avg_counts *out,
                            double *messages)
{
    double sum_h = 0, sum_k = 0, m = 0;
    long dst[TOPO_PATTERN_MAX_DESTS], a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS], h[TOPO_MAX_DIMS];
    topo_counts c;
    if (topo_pattern_check(shape, pattern))
        return -1;
    if (pattern == TOPO_PATTERN_UNIFORM) {
        topo_iter it;
        topo_iter_init(&it, shape, 0);
        while (topo_iter_next(&it)) {
            topo_request_counts_links(shape, links, it.hops, &c);
            sum_h += (double)c.links;
            sum_k += (double)c.dims_used;
        }
        m = (double)shape->nodes - 1;
        set_counts(sum_h / m, sum_k / m, out);
        if (messages)
            *messages = m * (double)shape->nodes;
        return 0;
    }
    for (long src = 0; src < shape->nodes; src++) {
        int k = topo_pattern_dests(shape, pattern, src, dst);
        topo_rank_to_coords(shape, src, a);
        for (int j = 0; j < k; j++) {
            topo_rank_to_coords(shape, dst[j], b);
            topo_hops(shape, a, b, h);
            topo_request_counts_links(shape, links, h, &c);
            sum_h += (double)c.links;
            sum_k += (double)c.dims_used;
            m += 1;
        }
    }
    if (m == 0)
        return -1;
    set_counts(sum_h / m, sum_k / m, out);
    if (messages)
        *messages = m;
    return 0;
}

int model_pattern_counts_continuous(topo_links links, topo_pattern pattern, int dims,
                                    double nodes, model_avg_counts *out)
{
    double n = pow(nodes, 1.0 / dims), D = dims;
    int bi = links == TOPO_LINKS_BI;
    /* pow(4^D, 1/D) may come out a hair below 4: compare with a margin */
    if (n < 2 * (1 - ROOT_TOL))
        return -1;
    switch (pattern) {
    case TOPO_PATTERN_UNIFORM:
        model_avg_counts_continuous(links, dims, nodes, out);
        return 0;
    case TOPO_PATTERN_NEIGHBOR:
        set_counts(bi ? 1 : n / 2, 1, out);
        return 0;
    case TOPO_PATTERN_TORNADO:
        if (n < 4 * (1 - ROOT_TOL))
            return -1;   /* the even form n/2 - 1 needs n >= 4 for a whole hop */
        set_counts(D * (n / 2 - 1), D, out);
        return 0;
    case TOPO_PATTERN_COMPLEMENT:
        set_counts(D * (bi ? n / 4 : n / 2), D, out);
        return 0;
    default:
        return -1;
    }
}

static double counts_latency(const model_params *p, double size_bytes,
                             const model_avg_counts *c)
{
    return model_route_ns(p, size_bytes, c->hops, c->forwards, c->switches);
}

double model_pattern_ns_shape(const model_params *p, const topo_shape *shape,
                              topo_pattern pattern, double size_bytes)
{
    model_avg_counts c;
    if (model_pattern_counts_shape(shape, p->links, pattern, &c, NULL))
        return NAN;
    return counts_latency(p, size_bytes, &c);
}

double model_pattern_ns_continuous(const model_params *p, topo_pattern pattern, int dims,
                                   double nodes, double size_bytes)
{
    model_avg_counts c;
    if (model_pattern_counts_continuous(p->links, pattern, dims, nodes, &c))
        return NAN;
    return counts_latency(p, size_bytes, &c);
}

/* extra: the topo_pattern. */
static double pattern_on_torus(const model_params *p, int dims, double n, double size_bytes,
                               const void *extra)
{
    topo_pattern pattern = *(const topo_pattern *)extra;
    topo_shape s;
    if (n > (double)TOPO_MAX_NODES || topo_shape_equal(dims, (long)n, &s))
        return NAN;
    return model_pattern_ns_shape(p, &s, pattern, size_bytes);
}

double model_pattern_ns_interpolated(const model_params *p, topo_pattern pattern,
                                     int dims, double nodes, double size_bytes)
{
    return model_interpolate_tori(p, dims, nodes, size_bytes, pattern_on_torus, &pattern);
}
