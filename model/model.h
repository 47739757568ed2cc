/* model: the closed-form latency model of D-dimensional SCI tori
 * (thesis eqs. 1-15, SPEC.md §2) on unidirectional or bidirectional links
 * (SPEC.md §7: every function here takes the kind of links from
 * p->links, or as an explicit argument where it has no params): point-to-point latency for a hop vector,
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
 * (n^2 - 1)/(4n) for odd n (SPEC.md §7).  n is real for the continuous
 * forms, where bi uses n/4 (the even-n form, SPEC.md §7). */
double model_ring_avg_dist(topo_links links, double n);

/* Closed-form averages for an integer shape (SPEC.md §2, §7):
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

/* --fill interpolate (SPEC.md §2): exact multi-unicast totals on the integer
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

/* ---- traffic patterns (SPEC.md §8; model/pattern.c) ----------------------
 * The pattern's latency is the mean request latency over all its messages
 * (all sources); latency is linear in H, F, S, so it is model_route_ns of
 * the mean counts.  Every function below returns -1 (or NaN) where the
 * pattern is not defined (transpose off a square 2D shape) or sends no
 * message (tornado on 2^D). */

/* Mean counts over the pattern's messages on an integer shape, in closed
 * form: O(sum n_i), any N up to TOPO_MAX_NODES.  messages (may be NULL)
 * gets the number of messages over all sources. */
int model_pattern_counts_shape(const topo_shape *shape, topo_links links,
                               topo_pattern pattern, model_avg_counts *out,
                               double *messages);
/* The same by routing every message, one pass over the sources (uniform:
 * the N - 1 destinations of source 0, the torus being the same from every
 * node): O(N D).  The closed form's check, and the loads' walk. */
int model_pattern_enumerate(const topo_shape *shape, topo_links links,
                            topo_pattern pattern, model_avg_counts *out,
                            double *messages);
/* Continuous form for D equal dimensions of real size n = N^(1/D), using
 * each closed form's even-n expression: uniform (SPEC.md §2, §7); neighbor
 * uni H = n/2, bi H = 1, k = 1; tornado H = D (n/2 - 1), k = D, for n >= 4;
 * complement uni H = D n/2, bi H = D n/4, k = D.  Transpose has none. */
int model_pattern_counts_continuous(topo_links links, topo_pattern pattern, int dims,
                                    double nodes, model_avg_counts *out);
/* Mean request latency of the pattern (NaN where undefined). */
double model_pattern_ns_shape(const model_params *p, const topo_shape *shape,
                              topo_pattern pattern, double size_bytes);
double model_pattern_ns_continuous(const model_params *p, topo_pattern pattern, int dims,
                                   double nodes, double size_bytes);
/* Exact values on the integer tori n^D, linear in N between them (as
 * --fill interpolate); NaN below the smallest torus with messages. */
double model_pattern_ns_interpolated(const model_params *p, topo_pattern pattern,
                                     int dims, double nodes, double size_bytes);

/* ---- broadcast (SPEC.md §8; model/broadcast.c) ---------------------------
 * Binomial tree over the ranks (row-major) from rank 0: in round r every
 * rank i < 2^r that holds the data sends to i + 2^r (if < N).  A child's
 * arrival t(c) = t(p) + j o(m) + (L_request(p -> c) - o(m)), j the 1-based
 * index of the send among its parent's sends after the parent received.
 * Returns max_c t(c), exact, in O(N D) time and O(log N) memory (a
 * depth-first walk of the tree); NaN if N > MODEL_BCAST_MAX_NODES.
 * argmax (may be NULL) gets the rank that receives last. */
/* 2^26 nodes: a few seconds (2^20 take about 40 ms, make bench). */
#define MODEL_BCAST_MAX_NODES (1L << 26)
double model_bcast_binomial_ns(const model_params *p, const topo_shape *shape,
                               double size_bytes, long *argmax);
/* Binomial broadcast on the integer tori n^D, linear in N between them
 * (the --fill interpolate rule); NaN below 2^D or beyond the cap. */
double model_bcast_binomial_interpolated(const model_params *p, int dims, double nodes,
                                         double size_bytes);
/* Binomial crossovers are searched up to this N (each step costs O(N D)). */
#define MODEL_BCAST_XO_MAX_NODES 1048576.0   /* 2^20 */

/* ---- latency under load (SPEC.md §9; model/load.c) -----------------------
 * Open loop: every node injects m-byte messages at rate lambda (per ns,
 * Poisson) to its pattern's destinations.  Every directed link, and every
 * node's injection and ejection channel (c = 1), is an M/D/1 queue with
 * service time t(m) = m / link_bw_bytes_per_ns, independent of the others:
 *   rho_l = lambda c_l t,  W_l = rho_l t / (2 (1 - rho_l)),
 *   L(lambda) = mean over messages of L_request + sum over its links of W_l,
 *   lambda_sat = 1 / (t max_l c_l).
 * An approximation: no flow control, and a queue's arrivals are taken as
 * Poisson although they are the departures of upstream queues.
 *
 * The latency scimodel reports (model_load_latency's latency_ns) uses an
 * exact property of FIFO servers of equal service time t instead.
 * Merge identity: if every input k of a server is the departure stream of a
 * server that carried only that input's messages, fed by Poisson traffic of
 * load rho_k, the merge's n-th departure is, on every sample path, the n-th
 * departure of one server fed by all those Poisson arrivals, plus t (the
 * m-th input departure comes at least t after the m-th arrival, so not
 * earlier; tests/test_load.c checks equality on 1.2e5 messages).  So the
 * mean total wait at the inputs' servers and the merge is W_MD1(rho), rho
 * the merge's load, and the merge's own mean wait is
 *   W_l = W_MD1(rho) - sum_k f_k A_k,  A_k = W_MD1(rho_k),  f_k = rho_k/rho.
 * scimodel applies it at every channel, each input (the injection channel,
 * a turn from a (dimension, way), the previous link of the ring) taken as a
 * server's departures; the injection channel, fed by a Poisson source, has
 * the full M/D/1 wait.  To first order in rho, W_l = (rho t/2)(1 - sum
 * f_k^2): messages that arrive over the same input are spaced by t and
 * never queue behind each other.
 * Shares: an input that is only part (rho_k < rho_u) of its upstream
 * channel's traffic left a busier server, which bunched it more than a
 * server of its own would (the simulation finds A_k above W_MD1(rho_k)).
 * A message of input k meets one of its own input with weight f_k, where
 * the identity's A_k applies, and one of another input with weight 1 - f_k,
 * against which it brings its share rho_k/rho_u of the upstream smoothing
 * W_MD1(rho_u):
 *   A_k = f_k S_k + (1 - f_k) (rho_k / rho_u) W_MD1(rho_u),  S_k = W_MD1(rho_k),
 * with rho_u at most rho.
 * Flows' age: two messages of one flow (one source, one destination, one
 * route) have crossed every link of its route together, each link shared
 * with other flows; every shared link spreads the flow's own messages
 * further, so a flow that has crossed many is smoother than its own server
 * made it.  A chain simulation (K flows share a server, regrouped at
 * random at every level; tests/test_load.c) measures the self term of a
 * flow after j shared links: S = W_MD1(rho_k) + (W_MD1(rho_u) -
 * W_MD1(rho_k)) a/(1 + a), a = (j - 2) MODEL_LOAD_AGE_KAPPA rho^(5/2) for
 * K = 2, 3, 4 and rho = 0.3..0.6 (within 5 %; the first shared link after
 * the injection adds nothing).  On a torus: the age of a channel's
 * outgoing flows is the mean, weighted by each input's same-flow pairs
 * (sq_k), of the age it brings plus MODEL_LOAD_AGE_KAPPA rho^(5/2) for the
 * channel (rho its load; an input from the injection channel brings and
 * gains 0), solved exactly ring by ring (one pass per dimension), and
 *   S_k = W_MD1(rho_k) + h_k (W_MD1(rho_u) - W_MD1(rho_k)) a_u/(1 + a_u),
 * h_k = sq_k / c_k^2 the chance that two of input k's messages belong to
 * one flow, a_u the age of the channel it leaves.  Uniform traffic (h_k
 * about 1/N) keeps the share closure.  A closure, not a theorem: the
 * simulation is its judge (README "Latency under load").  W_l never goes
 * below the first-order term (rho t/2)(1 - sum f_k^2): inputs spaced 2t or
 * more apart never wait for each other. */
#define MODEL_LOAD_AGE_KAPPA 1.1
typedef struct model_load {
    topo_shape shape;
    topo_links links;
    topo_pattern pattern;
    double *c;                 /* per directed link, topo_link_index order */
    topo_streams streams;      /* every channel's input rates, and ejection loads */
    double senders;            /* sources that send */
    double c_max;              /* busiest channel, injection (1) included */
    long bottleneck;           /* topo_link_index of a busiest network link, or -1
                                * when the injection/ejection channels are busiest */
    long bottlenecks;          /* network links at c_max (to 1e-12) */
    model_avg_counts counts;   /* zero-load mean counts of the pattern */
} model_load;

/* Computes the channel loads (topo_link_loads) and zero-load counts.
 * Returns 0, or -1 (pattern undefined or silent, too many links, no
 * memory); model_load_free releases it. */
int model_load_init(model_load *ld, const topo_shape *shape, topo_links links,
                    topo_pattern pattern);
void model_load_free(model_load *ld);
/* t(m) in ns. */
double model_load_link_ns(const model_params *p, double size_bytes);
/* lambda_sat in messages per ns per node. */
double model_load_saturation(const model_params *p, const model_load *ld, double size_bytes);
/* Mean latency at rate lambda (messages/ns/node), by the merge identity, its
 * queueing part (wait_ns), and SPEC.md §9's independent-queue latency
 * (independent_ns); the last two may be NULL.  Returns 0, -1 if
 * lambda >= lambda_sat or lambda < 0, or -2 if out of memory (the flows'
 * ages take a double per stream row and two per node). */
int model_load_latency(const model_params *p, const model_load *ld, double size_bytes,
                       double rate_per_ns, double *latency_ns, double *wait_ns,
                       double *independent_ns);

/* Exact enumeration over all destinations of source src: the sum and the
 * average of the request latency.  O(N D); the oracle for the closed forms. */
void model_enumerate(const model_params *p, const topo_shape *shape, long src,
                     double size_bytes, double *sum_ns, double *avg_ns);

/* The equal-dimension integer torus n^D nearest to N (n >= 2; ties go to
 * the smaller).  Returns 0, or -1 if n^D would exceed TOPO_MAX_NODES. */
int model_nearest_torus(int dims, double nodes, topo_shape *shape);

/* avg: mean request latency (of a pattern); multicast: one-to-all as N - 1
 * unicasts (SPEC.md §2); binomial: MPI's binomial-tree broadcast (§8),
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

/* model_crossover for any curve; the search starts at the smallest N where
 * both curves exist. */
int model_crossover_curve(const model_params *p, const model_curve *curve, int from_dims,
                          int to_dims, double size_bytes, double *nodes,
                          model_crossover_status *status);

const char *model_crossover_status_name(model_crossover_status st);

#endif
