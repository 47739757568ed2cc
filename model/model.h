/* model: the closed-form latency model of D-dimensional SCI tori
 * (thesis eqs. 1-15, docs/model.md, 'Latency') on unidirectional or bidirectional links
 * (docs/model.md, 'Links': every function here takes the kind of links from
 * p->links, or as an explicit argument where it has no params): point-to-point latency for a hop vector,
 * averages and one-to-all multi-unicast totals for integer shapes and for
 * continuous N (n = N^(1/D)), the interpolated fill, the exact enumeration
 * used as oracle, and crossovers between dimensions. */
#ifndef SCITORUS_MODEL_H
#define SCITORUS_MODEL_H

#include "model/params.h"
#include "topo/topo.h"

/* Crossovers are searched up to this system size (docs/model.md, 'Latency'). */
#define MODEL_CROSSOVER_MAX_NODES 1e9

/* Average route counts over all N - 1 destinations of one source. */
typedef struct model_avg_counts {
    double hops;       /* avg_hops: links */
    double dims;       /* avg_dims: expected k */
    double forwards;   /* avg_hops - avg_dims */
    double switches;   /* avg_dims - 1 */
} model_avg_counts;

/* Latency of one route with H links, F forwards and S switches (real
 * numbers: calibrate passes request/response means) for an m-byte message:
 * 2 o(m) + H lp + F lf + S ls (thesis eqs. 1-9) + (F + S) m lb (docs/model.md, 'Store and forward',
 * store and forward; 0 for cut-through).  Every latency scimodel prints
 * goes through this function (or model_point_to_point): point to point,
 * averages, continuous forms, crossovers. */
double model_route_ns(const model_params *p, double size_bytes, double links,
                      double forwards, double switches);

/* Point-to-point latencies for hop vector hops on shape (validated by the
 * caller with topo_hops_check; positive-way offsets as topo_hops gives
 * them) on p->links: on bidirectional links the request takes the shorter
 * way in every dimension and the response equals the request. */
typedef struct model_p2p {
    topo_counts request, response;
    double request_ns, response_ns, transaction_ns;
} model_p2p;
void model_point_to_point(const model_params *p, const topo_shape *shape,
                          const long *hops, double size_bytes, model_p2p *out);

/* Average number of links a message crosses in one ring of n nodes, over
 * all n offsets (0 included): uni (n - 1)/2; bi a(n) = n/4 for even n,
 * (n^2 - 1)/(4n) for odd n (docs/model.md, 'Links').  n is real for the continuous
 * forms, where bi uses n/4 (the even-n form, docs/model.md, 'Links'). */
double model_ring_avg_dist(topo_links links, double n);

/* Closed-form averages for an integer shape (docs/model.md, 'Latency' and 'Links'):
 * avg_hops = N/(N-1) sum a(n_i), avg_dims = N/(N-1) sum (n_i - 1)/n_i,
 * a(n) = model_ring_avg_dist(links, n). */
void model_avg_counts_shape(const topo_shape *shape, topo_links links,
                            model_avg_counts *out);
/* The same for D equal dimensions of real size n = N^(1/D), N > 1. */
void model_avg_counts_continuous(topo_links links, int dims, double nodes,
                                 model_avg_counts *out);

double model_avg_ns_shape(const model_params *p, const topo_shape *shape, double size_bytes);
double model_multicast_ns_shape(const model_params *p, const topo_shape *shape,
                                double size_bytes);   /* (N - 1) L_avg */
double model_avg_ns_continuous(const model_params *p, int dims, double nodes,
                               double size_bytes);
double model_multicast_ns_continuous(const model_params *p, int dims, double nodes,
                                     double size_bytes);

/* --fill interpolate (docs/model.md, 'Latency'): exact multi-unicast totals on the integer
 * equal-dimension tori n^D (n >= 2), linear in N between consecutive sizes.
 * Returns NaN for N below 2^D (no such torus). */
double model_multicast_ns_interpolated(const model_params *p, int dims, double nodes,
                                       double size_bytes);

/* The --fill interpolate rule for any quantity known on the integer
 * equal-dimension tori n^D: on_torus(p, dims, n, size_bytes, extra) at the
 * largest n with n^D <= nodes and at n + 1, linear in N between them (n
 * itself when N = n^D).  Returns NaN for N below 2^D (no such torus).  Used
 * by the multicast total, the traffic patterns and the binomial broadcast. */
typedef double (*model_on_torus_fn)(const model_params *p, int dims, double n,
                                    double size_bytes, const void *extra);
double model_interpolate_tori(const model_params *p, int dims, double nodes, double size_bytes,
                              model_on_torus_fn on_torus, const void *extra);

/* Patterns, broadcasts and latency under load have a header each
 * (model/pattern.h, model/broadcast.h, model/load.h), included here for
 * the callers that want the whole model. */

/* Exact enumeration over all destinations of source src: the sum and the
 * average of the request latency.  O(N D); the oracle for the closed forms. */
void model_enumerate(const model_params *p, const topo_shape *shape, long src,
                     double size_bytes, double *sum_ns, double *avg_ns);

/* The equal-dimension integer torus n^D nearest to N (n >= 2; ties go to
 * the smaller).  Returns 0, or -1 if n^D would exceed TOPO_MAX_NODES. */
int model_nearest_torus(int dims, double nodes, topo_shape *shape);

/* avg: mean request latency (of a pattern); multicast: one-to-all as N - 1
 * unicasts (docs/model.md, 'Latency'); binomial: MPI's binomial-tree broadcast (docs/model.md, 'Patterns'),
 * always exact on integer tori, interpolated between them. */
typedef enum model_metric {
    MODEL_METRIC_AVG, MODEL_METRIC_MULTICAST, MODEL_METRIC_BINOMIAL
} model_metric;
typedef enum model_fill { MODEL_FILL_CONTINUOUS, MODEL_FILL_INTERPOLATE } model_fill;

/* Value of a metric for D dimensions at N nodes.  fill applies to the
 * multicast metric only (the average is always the continuous form); NaN
 * where D does not exist (N < 2^D). */
double model_metric_ns(const model_params *p, model_metric metric, model_fill fill,
                       int dims, double nodes, double size_bytes);

/* A curve over N for one number of dimensions: what the crossovers and the
 * sweep compare.  The pattern applies to the avg metric (multicast is the
 * uniform one-to-all); fill as above, and a pattern without a continuous
 * form (transpose) is always interpolated. */
typedef struct model_curve {
    model_metric metric;
    model_fill fill;
    topo_pattern pattern;
} model_curve;

/* Value of a curve for D dimensions at N nodes on p->links; NaN where D
 * (or the pattern) does not exist at N. */
double model_curve_ns(const model_params *p, const model_curve *curve, int dims,
                      double nodes, double size_bytes);

typedef enum model_crossover_status {
    MODEL_XO_CROSSOVER,    /* found inside the search range */
    MODEL_XO_LOWER_BOUND,  /* the higher D already wins where it starts */
    MODEL_XO_NONE          /* never wins below MODEL_CROSSOVER_MAX_NODES */
} model_crossover_status;

/* Smallest N where the `to_dims` curve drops below the `from_dims` curve,
 * searched from N = 2^to_dims (the smallest to_dims torus) to
 * MODEL_CROSSOVER_MAX_NODES: a geometric scan brackets the first sign change
 * and GSL's Brent solver refines it.  Returns 0 with *nodes and *status
 * (nodes = the search start for lower_bound, NaN for none), or -1 if the
 * root finder failed. */
int model_crossover(const model_params *p, model_metric metric, model_fill fill,
                    int from_dims, int to_dims, double size_bytes, double *nodes,
                    model_crossover_status *status);

/* The largest N model_crossover_curve searches: MODEL_CROSSOVER_MAX_NODES,
 * or for the binomial broadcast the largest torus n^D of either D within
 * MODEL_BCAST_XO_MAX_NODES (its curve walks the tree on those tori). */
double model_crossover_limit(const model_curve *curve, int from_dims, int to_dims);
/* model_crossover for any curve; the search starts at the smallest N where
 * both curves exist and ends at model_crossover_limit. */
int model_crossover_curve(const model_params *p, const model_curve *curve, int from_dims,
                          int to_dims, double size_bytes, double *nodes,
                          model_crossover_status *status);

const char *model_crossover_status_name(model_crossover_status st);

#include "model/broadcast.h"
#include "model/load.h"
#include "model/pattern.h"

#endif
