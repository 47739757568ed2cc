/* fit_bounds: the non-negativity bounds of the fit, an active set: the
 * most negative column is held at 0 and the rest refitted. */
#include "fit/fit_internal.h"

#include <gsl/gsl_vector.h>

/* Holds at 0 the column whose estimate is the most negative in standard
 * errors and returns 1 (refit); 0 when none is negative.  One at a time, as
 * an active-set method adds constraints.  An o(m) column is held even when
 * significantly negative: small messages are often slower than slightly
 * larger ones (other code paths; seen here, 1 B 15 ns above 16 B, and in
 * OSU tables), which a line o0 + o1 m >= 0 cannot follow; the best
 * non-negative line is still the useful answer, with a warning.  A
 * significantly negative lp, lf or ls means the model does not describe
 * the data: left for fill_result to call infeasible.  (A held column is
 * not released again: with one bound active at a time, as in every case
 * seen, releasing never applies.) */
int fit_hold_negative(design *d, const solved *sol, size_t n)
{
    int dof = (int)n - fit_design_cols(d), worst_j = -1, worst_k = -1;
    double worst = 0;
    if (fit_design_cols(d) < 2)
        return 0;   /* keep at least one column */
    for (int j = 0; j < 2 * d->segments; j++) {
        int pos = fit_o_pos(d, j);
        double v = fit_sol_coef(sol, pos), e = pos >= 0 ? fit_coef_err(sol, (size_t)pos, dof) : 0;
        if (pos >= 0 && v < 0 && v / e < worst)
            worst = v / e, worst_j = j, worst_k = -1;
    }
    for (int j = 0; d->free_net[NET - 1] && d->lb_pieces && j < 2 * d->segments - 1; j++) {
        /* the relays' pieces, as o(m)'s: held even when significantly
         * negative (with a warning) */
        int pos = fit_lb_pos(d, j);
        double v = fit_sol_coef(sol, pos), e = pos >= 0 ? fit_coef_err(sol, (size_t)pos, dof) : 0;
        if (pos >= 0 && v < 0 && v / e < worst)
            worst = v / e, worst_j = 2 * MODEL_MAX_OSEG + j, worst_k = -1;
    }
    for (int k = 0; k < NET; k++) {
        if (k == NET - 1 && d->lb_pieces)
            continue;   /* pieces: above (net_pos then points past the columns) */
        int pos = fit_net_pos(d, k);
        double v = fit_sol_coef(sol, pos), e = pos >= 0 ? fit_coef_err(sol, (size_t)pos, dof) : 0;
        /* lb as o(m)'s slopes: a relay that seems to get cheaper with m is
         * held at 0 even when significantly so (a change of the machine's
         * speed during the run did that once: -0.077 +- 0.035 ns/B) */
        int hold = v + FIT_CLAMP_SIGMAS * e >= 0 || k == NET - 1;
        if (pos >= 0 && v < 0 && hold && v / e < worst)
            worst = v / e, worst_j = -1, worst_k = k;
    }
    if (worst_j >= 2 * MODEL_MAX_OSEG) {
        int j = worst_j - 2 * MODEL_MAX_OSEG, pos = fit_lb_pos(d, j);
        d->lb_held_value[j] = fit_sol_coef(sol, pos);
        d->lb_held_err[j] = fit_coef_err(sol, (size_t)pos, dof);
        d->lb_held_falling[j] = d->lb_held_value[j] + FIT_CLAMP_SIGMAS * d->lb_held_err[j] < 0;
        d->lb_held[j] = 1;
    } else if (worst_j >= 0) {
        int pos = fit_o_pos(d, worst_j);
        d->o_held[worst_j] = 1;
        d->o_held_value[worst_j] = fit_sol_coef(sol, pos);
        d->o_held_err[worst_j] = fit_coef_err(sol, (size_t)pos, dof);
        d->o_held_falling[worst_j] =
            d->o_held_value[worst_j] + FIT_CLAMP_SIGMAS * d->o_held_err[worst_j] < 0;
    } else if (worst_k >= 0) {
        int pos = fit_net_pos(d, worst_k);
        d->free_net[worst_k] = 0;
        d->net_fixed[worst_k] = 0;
        d->net_held[worst_k] = 1;
        d->net_held_value[worst_k] = fit_sol_coef(sol, pos);
        d->net_held_err[worst_k] = fit_coef_err(sol, (size_t)pos, dof);
    }
    return worst_j >= 0 || worst_k >= 0;
}
