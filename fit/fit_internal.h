/* fit_internal: what the files of the fitter share (not installed, not for
 * callers: fit/fit.h is the interface). */
#ifndef SCITORUS_FIT_INTERNAL_H
#define SCITORUS_FIT_INTERNAL_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "fit/fit.h"

/* A singular value below this fraction of the largest (columns scaled to
 * unit norm) is a null direction of the design matrix. */
#define FIT_RANK_TOL 1e-9
/* A parameter with a null-vector component above this is undetermined. */
#define FIT_NULL_COMPONENT 1e-6
#define NET 4   /* network parameters lp, lf, ls, lb */
/* Rounds of the alternation between breakpoints and network parameters
 * (fit_run): in every case seen the breakpoints repeat after one or two. */
#define FIT_SEGMENT_ROUNDS 8

extern const model_param_id fit_net_id[NET];   /* lp, lf, ls, lb */

typedef struct design {
    int segments;
    double from[MODEL_MAX_OSEG];     /* segment i starts at from[i] bytes */
    int free_net[NET];
    double net_fixed[NET];           /* value used when not free */
    /* lb piecewise on o(m)'s segments (docs/model.md, 'Parameters'): the relays pay what
     * the sender and receiver pay, copies, so their cost per byte changes
     * where o(m)'s does.  Columns, when free: segment 0's slope (through
     * 0: its intercept is lf), then each further segment's intercept and
     * slope -- 2 segments - 1 of them (lb_cols). */
    int lb_pieces;
    /* Non-negativity bounds as an active set (hold_negative; held_* keep the estimate for the
     * report): a coefficient zeroed after the fit instead leaves the others fitted to a
     * negative one, and the model off the points it was fitted on. */
    int o_held[2 * MODEL_MAX_OSEG];
    int o_held_falling[2 * MODEL_MAX_OSEG];   /* significantly negative */
    int net_held[NET];
    double o_held_value[2 * MODEL_MAX_OSEG], o_held_err[2 * MODEL_MAX_OSEG];
    /* the lb pieces' columns (lb_pieces) held at 0, as o(m)'s, for the same reason */
    int lb_held[2 * MODEL_MAX_OSEG];
    int lb_held_falling[2 * MODEL_MAX_OSEG];
    double lb_held_value[2 * MODEL_MAX_OSEG], lb_held_err[2 * MODEL_MAX_OSEG];
    double net_held_value[NET], net_held_err[NET];
} design;

typedef struct solved {
    gsl_vector *c;
    gsl_matrix *cov;
    double chi2;
} solved;

/* The search over designs for fit_run: every candidate is fitted jointly
 * (o(m) segments and the free network parameters) and scored by BIC. */
typedef struct search {
    const fit_point *pts;
    size_t n;
    const fit_options *opt;
    design best;
    double best_bic;
    /* pts with every (size, hm, fm, sm) once (group_points; gpts == pts,
     * gscatter 0, when none repeats): what the joint fits solve */
    const fit_point *gpts;
    size_t gn;
    double gscatter;
} search;

/* fit_network.c */
double fit_net_x(const fit_point *pt, int k);   /* column of network parameter k */
double fit_net_value(const model_params *p, int k);
/* Which of lp, lf, ls, lb the data determine (free_net[k] = 1), which are
 * fixed or from the preset; res->lp_lf_collinear. */
int fit_decide_network(const fit_point *pts, size_t n, const fit_options *opt, int *free_net,
                       fit_result *res);

/* fit_design.c */
int fit_segment_of(const design *d, double m);
int fit_design_cols(const design *d);
int fit_o_pos(const design *d, int j);     /* -1: held at 0 */
int fit_net_pos(const design *d, int k);   /* -1: not fitted */
double fit_seg_ref(const design *d, int s, double mref);
double fit_coef_err(const solved *sol, size_t j, int dof);
int fit_segments_feasible(const design *d, const solved *sol, int dof);
int fit_solve(const design *d, const fit_point *pts, size_t n, double mref, int robust,
              solved *out);
void fit_solved_free(solved *s);

/* fit_relay.c */
int fit_net_cols(const design *d, int k);
int fit_lb_pos(const design *d, int j);    /* -1: held at 0 */
int fit_lb_pieces_ok(const design *d, const fit_point *pts, size_t n);
void fit_relay_row(const design *d, const fit_point *pt, int s, gsl_matrix *X, size_t i,
                   int *colp);
void fit_relay_result(const design *d, const solved *sol, double scale, double mref,
                      fit_result *res);

/* fit_search.c */
size_t fit_group_points(const fit_point *pts, size_t n, fit_point **out, double *scatter);
int fit_solve_grouped(const search *s, const design *d, int robust, solved *sol);
int fit_evaluate(search *s, const design *d0, double *net_out);
int fit_search_segments(search *s, const design *base, const double *net1);
size_t fit_distinct_sizes(const fit_point *pts, size_t n, double *out);

/* fit_result.c */
void fit_set_source(fit_result *res, model_param_id id, const char *src);
double fit_sol_coef(const solved *sol, int pos);   /* 0 for a held column */
double fit_sol_cov(const solved *sol, int a, int b);
void fit_note_held(char *list, size_t cap, const char *name, double v, double err);
void fit_note_clamped(fit_result *res, const char *name, double v, double err);
void fit_fill_result(const design *d, const solved *sol, const fit_point *pts, size_t n,
                     const fit_options *opt, fit_result *res);

/* fit_bounds.c */
int fit_hold_negative(design *d, const solved *sol, size_t n);

#endif
