/* logp_fit: calibrate --logp (docs/model.md, 'LogP parameters').  Fits piecewise-
 * linear os(m), or(m) and g(m) to a LogP file with the o(m) machinery of
 * fit/fit.h, puts them and L into the params (model_logp), checks
 * the identity PP(m)/2 = os(m) + L + or(m) size by size against ping-pong
 * files of the same platform, and exports L, o, g, G, O for LogGOPSim. */
#ifndef SCITORUS_LOGP_FIT_H
#define SCITORUS_LOGP_FIT_H

#include <stdio.h>

#include "model/params.h"

typedef struct calibrate_logp_options {
    const char *logp_path;           /* the LogP file (scibench/mpibench --pattern logp) */
    const char *const *pp_paths;     /* ping-pong files for the identity check */
    int npp;
    const char *loggopsim_path;      /* NULL: no export */
    int loggopsim_ps;                /* 1: the export in ps (and ps/B), 0: in ns */
    int max_segments;                /* 1..MODEL_MAX_OSEG */
    FILE *out;                       /* the report (NULL: stdout) */
} calibrate_logp_options;

/* Reads o->logp_path, fits, sets p->logp, prints the fit and the identity
 * check on o->out, writes the LogGOPSim export.  Returns 0, or 1 (a file
 * could not be read, is not a LogP file, or cannot be fitted: a one-line
 * message naming file and line on stderr). */
int calibrate_logp(const calibrate_logp_options *o, model_params *p);

#endif
