/* refine: the next size where the measured curve bends (coll/refine.h). */
#include "coll/refine.h"

#include <math.h>

static long split(const refine_cfg *c, long a, long b)
{
    double m = c->geometric && a > 0 ? sqrt((double)a * (double)b) : 0.5 * ((double)a + (double)b);
    long s = lround(m);
    if (s - a < c->min_distance)
        s = a + c->min_distance;
    if (b - s < c->min_distance)
        s = b - c->min_distance;
    return s;
}

long refine_next(const refine_cfg *cfg, const long *x, const double *y, int n)
{
    double best = cfg->threshold;
    long pick = -1;
    for (int i = 1; i + 1 < n; i++) {
        double t = (double)(x[i] - x[i - 1]) / (double)(x[i + 1] - x[i - 1]);
        double line = y[i - 1] + t * (y[i + 1] - y[i - 1]);
        double dep = fabs(y[i] - line) / fmax(fabs(y[i]), 1e-300);
        if (dep <= best)
            continue;
        /* the wider side of the bend that still has room */
        long wl = x[i] - x[i - 1], wr = x[i + 1] - x[i];
        int left = wl >= wr;
        for (int k = 0; k < 2; k++, left = !left) {
            long a = left ? x[i - 1] : x[i], b = left ? x[i] : x[i + 1];
            if (b - a >= 2 * cfg->min_distance) {
                best = dep;
                pick = split(cfg, a, b);
                break;
            }
        }
    }
    return pick;
}

void refine_insert(long *x, double *y, int *n, long size, double value)
{
    int i = *n;
    while (i > 0 && x[i - 1] > size) {
        x[i] = x[i - 1];
        y[i] = y[i - 1];
        i--;
    }
    x[i] = size;
    y[i] = value;
    ++*n;
}
