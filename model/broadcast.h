/* broadcast: MPI's binomial-tree broadcast on a torus (model/broadcast.c;
 * docs/model.md, 'Broadcast') */
#ifndef SCITORUS_MODEL_BROADCAST_H
#define SCITORUS_MODEL_BROADCAST_H

#include "model/model.h"

/* Binomial tree over the ranks (row-major) from rank 0: in round r every
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

#endif
