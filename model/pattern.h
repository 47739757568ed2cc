/* pattern: the mean request latency of a traffic pattern (model/pattern.c;
 * docs/model.md, 'Patterns') */
#ifndef SCITORUS_MODEL_PATTERN_H
#define SCITORUS_MODEL_PATTERN_H

#include "model/model.h"

/* The pattern's latency is the mean request latency over all its messages
 * (all sources); latency is linear in H, F, S, so it is model_route_ns of
 * the mean counts.  Every function below returns -1 (or NaN) where the
 * pattern is not defined (transpose off a square 2D shape) or sends no
 * message (tornado on 2^D). */

/* Mean counts over the pattern's messages on an integer shape, in closed
 * form: O(D), any N up to TOPO_MAX_NODES.  messages (may be NULL)
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
 * each closed form's even-n expression: uniform (docs/model.md); neighbor
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

#endif
