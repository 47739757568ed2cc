/* model: the closed-form latency model of D-dimensional SCI tori
 * (thesis eqs. 1-15, SPEC.md §2): point-to-point latency for a hop vector,
 * averages and one-to-all multi-unicast totals for integer shapes and for
 * continuous N (n = N^(1/D)), the interpolated fill, the exact enumeration
 * used as oracle, and crossovers between dimensions. */
#ifndef SCITORUS_MODEL_H
#define SCITORUS_MODEL_H

#include "model/params.h"
#include "topo/topo.h"

/* Crossovers are searched up to this system size (SPEC.md §2). */
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
 * 2 o(m) + H lp + F lf + S ls (thesis eqs. 1-9) + (F + S) m lb (SPEC.md §6,
 * store and forward; 0 for cut-through).  Every other latency here (point
 * to point, averages, continuous forms, crossovers) is built on it. */
double model_route_ns(const model_params *p, double size_bytes, double links,
                      double forwards, double switches);

/* Point-to-point latencies for hop vector hops on shape (validated by the
 * caller with topo_hops_check). */
typedef struct model_p2p {
    topo_counts request, response;
    double request_ns, response_ns, transaction_ns;
} model_p2p;
void model_point_to_point(const model_params *p, const topo_shape *shape,
                          const long *hops, double size_bytes, model_p2p *out);

/* Closed-form averages for an integer shape (SPEC.md §2):
 * avg_hops = N/(N-1) sum (n_i - 1)/2, avg_dims = N/(N-1) sum (n_i - 1)/n_i. */
void model_avg_counts_shape(const topo_shape *shape, model_avg_counts *out);
/* The same for D equal dimensions of real size n = N^(1/D), N > 1. */
void model_avg_counts_continuous(int dims, double nodes, model_avg_counts *out);

double model_avg_ns_shape(const model_params *p, const topo_shape *shape, double size_bytes);
double model_multicast_ns_shape(const model_params *p, const topo_shape *shape,
                                double size_bytes);   /* (N - 1) L_avg */
double model_avg_ns_continuous(const model_params *p, int dims, double nodes,
                               double size_bytes);
double model_multicast_ns_continuous(const model_params *p, int dims, double nodes,
                                     double size_bytes);

/* --fill interpolate (SPEC.md §2): exact multi-unicast totals on the integer
 * equal-dimension tori n^D (n >= 2), linear in N between consecutive sizes.
 * Returns NaN for N below 2^D (no such torus). */
double model_multicast_ns_interpolated(const model_params *p, int dims, double nodes,
                                       double size_bytes);

/* Exact enumeration over all destinations of source src: the sum and the
 * average of the request latency.  O(N D); the oracle for the closed forms. */
void model_enumerate(const model_params *p, const topo_shape *shape, long src,
                     double size_bytes, double *sum_ns, double *avg_ns);

/* The equal-dimension integer torus n^D nearest to N (n >= 2; ties go to
 * the smaller).  Returns 0, or -1 if n^D would exceed TOPO_MAX_NODES. */
int model_nearest_torus(int dims, double nodes, topo_shape *shape);

typedef enum model_metric { MODEL_METRIC_AVG, MODEL_METRIC_MULTICAST } model_metric;
typedef enum model_fill { MODEL_FILL_CONTINUOUS, MODEL_FILL_INTERPOLATE } model_fill;

/* Value of a metric for D dimensions at N nodes.  fill applies to the
 * multicast metric only (the average is always the continuous form); NaN
 * where D does not exist (N < 2^D). */
double model_metric_ns(const model_params *p, model_metric metric, model_fill fill,
                       int dims, double nodes, double size_bytes);

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

const char *model_crossover_status_name(model_crossover_status st);

#endif
