/* benchmerge: several runs' bench data merged into one, as SKaMPI merges
 * result files (Reussner 1999, manual section 3.4): at every point the
 * weighted median of the runs, and a run that lacks a point's size
 * contributes a point interpolated between its neighbouring sizes. */
#ifndef SCITORUS_BENCHMERGE_H
#define SCITORUS_BENCHMERGE_H

#include "benchdata/benchdata.h"

/* What a merge did, for the caller's summary. */
typedef struct bench_merge_stats {
    long points;         /* rows written */
    long candidates;     /* runs' points considered, interpolated ones included */
    long interpolated;   /* of those, interpolated */
    long chosen_interp;  /* rows whose weighted median is an interpolated point */
} bench_merge_stats;

/* Merges the points of in[0..nin-1] into out (a fresh bench_data: the
 * first file's header, then the points).  A configuration is the pattern,
 * src, dst and the six hop counts; for each and each size any run has,
 * every run with that configuration gives its point at the size, or, when
 * it has sizes of the configuration on both sides, one interpolated
 * linearly in the size between the nearest (every statistic; reps and
 * samples rounded; noisy if either is).  The merged row is the whole row
 * of the candidates' weighted median of median_ns (bench_weighted_median),
 * ties in file order.  Rows come by configuration in order of
 * first appearance, then by size; they keep node_ns (its row's) when every
 * run has the column.  Returns 0, or -1 out of memory. */
int bench_merge(const bench_data *in, int nin, bench_data *out, bench_merge_stats *st);

/* The one rule for merging repeated runs of a configuration (scimerge's
 * rows, calibrate's fit points): of n runs' points sorted by the value kept
 * (ties in the order to keep), at(i, ctx) the i-th, the index of the first
 * at which the accumulated weight reaches half the total, a run's weight
 * its batches (samples), as SKaMPI's.  Not 1/sigma^2: a run's spread says
 * how steady it was, not how far runs lie apart, and a steady run of
 * another regime would outvote every other. */
size_t bench_weighted_median(size_t n, const bench_point *(*at)(size_t i, const void *ctx),
                             const void *ctx);

/* A point between a and b at size m (a.size < m < b.size), every column
 * linear in the size (node_ns where both list the same processes, else "-"). */
bench_point bench_point_interpolate(const bench_point *a, const bench_point *b, long m);

#endif
