/* scilogp: a small C library over scitorus's measured parameters, as
 * LogP/MPI's liblogp is over its measurements.  It reads a params file
 * (calibrate, calibrate --logp) or a LogP file (scibench or mpibench
 * --pattern logp) and evaluates, at any message size m in bytes:
 *   os(m), or(m), g(m)  send and receive overheads, gap (LogP);
 *   L                   the latency of the LogP model;
 *   o(m)                the torus model's overhead (params files);
 *   a route's latency   the torus model's request latency along a hop
 *                       vector on a torus shape (params files).
 * A params file's values are scimodel's (the same code: the model layer).
 * A LogP file's are its rows, linear between its sizes and the first or
 * last row's beyond them.  What the file cannot give is NaN.
 * Build with: cc app.c $(pkg-config --cflags --libs scilogp) */
#ifndef SCILOGP_H
#define SCILOGP_H

#include <stddef.h>

typedef struct scilogp scilogp;

/* Opens path (which kind: its first lines).  NULL on failure, with the
 * reason ("path:line: msg") in err (errlen bytes). */
scilogp *scilogp_open(const char *path, char *err, size_t errlen);
void scilogp_close(scilogp *l);

double scilogp_os(const scilogp *l, double m);
double scilogp_or(const scilogp *l, double m);
double scilogp_g(const scilogp *l, double m);
double scilogp_L(const scilogp *l);
double scilogp_o(const scilogp *l, double m);

/* The request latency in ns of an m-byte message from node 0 along hops
 * (one per dimension, 0 <= hops[i] < n_i, not all 0) on shape ("8",
 * "4x4x4"), with the file's links; NaN for a bad shape or hop vector or a
 * LogP file. */
double scilogp_route_ns(const scilogp *l, const char *shape, const long *hops, double m);

#endif
