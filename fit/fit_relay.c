/* fit_relay: the relays' cost per byte (lb), whole or piecewise on o(m)'s
 * segments: its columns of the design and its pieces in the result. */
#include "fit/fit_internal.h"

#include <math.h>
#include <stdio.h>

/* Columns of network parameter k when free (lb piecewise: several, less
 * those held at 0). */
int fit_net_cols(const design *d, int k)
{
    if (k != NET - 1 || !d->lb_pieces)
        return 1;
    int cols = 0;
    for (int j = 0; j < 2 * d->segments - 1; j++)
        cols += !d->lb_held[j];
    return cols;
}

/* Position of lb piece column j (see design), or -1 when held at 0. */
int fit_lb_pos(const design *d, int j)
{
    if (d->lb_held[j])
        return -1;
    int pos = fit_net_pos(d, NET - 1);
    for (int i = 0; i < j; i++)
        pos += !d->lb_held[i];
    return pos;
}

/* Piecewise lb is determined where every segment has relays (multi-hop
 * points) at two or more sizes. */
int fit_lb_pieces_ok(const design *d, const fit_point *pts, size_t n)
{
    for (int s = 0; s < d->segments; s++) {
        double first = NAN;
        int two = 0;
        for (size_t i = 0; i < n && !two; i++) {
            if (pts[i].fm + pts[i].sm <= 0 || fit_segment_of(d, pts[i].size_bytes) != s)
                continue;
            if (isnan(first))
                first = pts[i].size_bytes;
            else
                two = pts[i].size_bytes != first;
        }
        if (!two)
            return 0;
    }
    return 1;
}

/* Row i's lb columns (see design): segment 0's slope through 0, then each
 * further segment's intercept and slope, for the relays' bytes of pt. */
void fit_relay_row(const design *d, const fit_point *pt, int s, gsl_matrix *X, size_t i, int *colp)
{
    int col = *colp;
    double relays = pt->fm + pt->sm;   /* the lb block, see design */
    for (int j = 0; j < 2 * d->segments - 1; j++) {
        int seg = (j + 1) / 2;
        if (d->lb_held[j])
            continue;
        double x = seg != s ? 0 : j == 0 ? relays * pt->size_bytes
                              : j % 2  ? relays
                                       : relays * (pt->size_bytes - d->from[seg]);
        gsl_matrix_set(X, i, (size_t)col++, x);
    }
    *colp = col;
}

/* The lb pieces of the solution into res (see design), and the pieces held
 * at 0 noted as clamped or falling. */
void fit_relay_result(const design *d, const solved *sol, double scale, double mref,
                      fit_result *res)
{
    model_params *p = &res->params;
    /* lb per segment (see design); lb_ns_per_byte: the slope of the
     * segment that holds mref, for the one-line reports */
    int sm = fit_segment_of(d, mref);
    p->lb_segments = d->segments;
    for (int i = 0; i < d->segments; i++) {
        int js = i ? 2 * i : 0, ps = fit_lb_pos(d, js), pa = i ? fit_lb_pos(d, 2 * i - 1) : -1;
        double slope = fit_sol_coef(sol, ps);
        double at = i ? fit_sol_coef(sol, pa) : slope * d->from[0];
        p->lbseg[i] = (model_oseg){d->from[i], at, slope};
        /* a piece held at 0 keeps the error it had before */
        double es = ps >= 0 ? sqrt(scale * fit_sol_cov(sol, ps, ps)) : d->lb_held_err[js];
        p->lbseg_err[i][1] = es;
        p->lbseg_err[i][0] = !i ? es * d->from[0]
                           : pa >= 0 ? sqrt(scale * fit_sol_cov(sol, pa, pa)) : d->lb_held_err[2 * i - 1];
    }
    int js = sm ? 2 * sm : 0, ps = fit_lb_pos(d, js);
    p->lb_ns_per_byte = fit_sol_coef(sol, ps);
    p->err[MODEL_P_LB] = ps >= 0 ? sqrt(scale * fit_sol_cov(sol, ps, ps)) : d->lb_held_err[js];
    for (int j = 0; j < 2 * d->segments - 1; j++) {
        char name[40];
        if (!d->lb_held[j])
            continue;
        int seg = (j + 1) / 2;
        snprintf(name, sizeof name, "lb_seg%d_%s", seg + 1,
                 j == 0 || j % 2 == 0 ? "ns_per_byte" : "ns");
        if (d->lb_held_falling[j])
            fit_note_held(res->falling, sizeof res->falling, name, d->lb_held_value[j],
                          d->lb_held_err[j]);
        else
            fit_note_clamped(res, name, d->lb_held_value[j], d->lb_held_err[j]);
    }
}
