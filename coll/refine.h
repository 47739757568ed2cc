/* refine: where to measure next between measured sizes (SKaMPI's adaptive
 * message lengths).  At a measured size whose value departs from the
 * straight line through its two neighbours by more than a threshold
 * (relative), the wider of its two intervals is split, the largest
 * departure first, until no interval is wider than twice the minimum
 * distance.  On a straight line nothing is inserted. */
#ifndef SCITORUS_REFINE_H
#define SCITORUS_REFINE_H

typedef struct refine_cfg {
    double threshold;    /* relative departure that asks for a new size, e.g. 0.1 */
    long min_distance;   /* no new size closer than this to a measured one */
    int geometric;       /* 1: split at the geometric mean (sizes over decades) */
} refine_cfg;

/* Sizes x (ascending) with values y, n of them.  Returns the size to
 * measure next, or -1 when the curve is straight enough everywhere. */
long refine_next(const refine_cfg *cfg, const long *x, const double *y, int n);

/* Inserts (size, value) into the ascending arrays (room for one more). */
void refine_insert(long *x, double *y, int *n, long size, double value);

#endif
