/* uncertainty: what the parameters' standard errors and covariance (a
 * params file's *_err and cov_* keys) do to a projection, to first order
 * (docs/model.md, 'Intervals'), and whether a best candidate is one: its
 * interval clears the runner-up's, or the candidates tie. */
#ifndef SCITORUS_UNCERTAINTY_H
#define SCITORUS_UNCERTAINTY_H

#include <stddef.h>

#include "model/params.h"

/* Two-sided 95% of a normal distribution: the intervals printed are
 * value +- UNC_Z95 sigma. */
#define UNC_Z95 1.959963984540054

/* 1 when some parameter of p carries a standard error (a calibration's
 * file); a preset has none, and its projections no interval. */
int unc_has_errors(const model_params *p);

/* 1 when p states the covariance of every pair of parameters with errors
 * (else the interval treats the pairs it lacks as independent). */
int unc_has_cov(const model_params *p);

/* p with parameter k moved by delta as the interval moves it: o0 shifts
 * o(m) by delta at every size; o1 by delta (m - mref), or with segments
 * every segment's slope by the same fraction; lb the relays' cost by
 * delta m, or with segments all of it by the same fraction; lp, lf, ls by
 * delta. */
void unc_shift(const model_params *p, model_param_id k, double delta, model_params *out);

/* A projection as a function of the parameters (arg: the caller's). */
typedef int (*unc_fn)(const model_params *p, void *arg, double *value);

/* f at p and its standard deviation to first order: the gradient by
 * forward differences (a step of one standard error in each parameter
 * with one) through the covariance; a measured link rate's error adds
 * its own term (measured apart, independent of the rest).  Returns f's own status (0 or its
 * error), *sigma NaN when p carries no errors. */
int unc_eval(const model_params *p, unc_fn f, void *arg, double *value, double *sigma);

/* The verdict over n candidates (value, sigma; sigma NaN counts as 0):
 * best is the lowest; it is named (returns 1) when its upper 95% bound is
 * below every other's lower bound, or the others are all NaN.  Otherwise
 * (returns 0) the candidates whose interval reaches the best's are
 * tie[i] = 1; *margin is the runner-up's value minus the best's. */
int unc_verdict(const double *value, const double *sigma, size_t n, size_t *best, int *tie,
                double *margin);

/* The lines below into buf (no newline; cut at len - 1 characters), buf
 * returned.  UNC_TEXT is enough for either. */
#define UNC_TEXT 2048

/* The tie: "tie: A, B within the 95% intervals: the lowest, A, is X% (V
 * unit) below B, and its interval is +-Y%".  names[i] names candidate i;
 * scale turns ns into unit. */
char *unc_tie_text(char *buf, size_t len, const char *const *names, const double *value,
                   const double *sigma, size_t n, size_t best, const int *tie, double margin,
                   double scale, const char *unit);

/* "interval: ..." saying what the 95% intervals rest on: the parameters
 * with errors, whether their covariance was in the file, the ones without
 * (assumed, fixed); or that there is none. */
char *unc_describe_text(char *buf, size_t len, const model_params *p);

/* The parameters p uses that carry no error, with their sources ("lp_ns
 * (fixed), lf_ns (preset current)") into buf; returns how many. */
int unc_uncovered(const model_params *p, char *buf, size_t len);

/* "lo .. hi" of value +- UNC_Z95 sigma with `digits` decimals after scale
 * (e.g. 1e-3 for us from ns) into buf; "-" when sigma is NaN. */
char *unc_format(char *buf, size_t len, double value, double sigma, double scale, int digits);

#endif
