/* params_internal: what the params reader, its range table and the writer
 * share (callers use model/params.h). */
#ifndef SCITORUS_PARAMS_INTERNAL_H
#define SCITORUS_PARAMS_INTERNAL_H

#include <stdio.h>

#include "model/params.h"

/* Fills err (line, msg from fmt with one string argument); returns -2. */
int params_fail(model_params_error *err, long line, const char *fmt, const char *arg);

/* 0 when v is within key's range (params_bounds.c), else -2 with err set. */
int params_check_bounds(const char *key, double v, long line, model_params_error *err);

/* 0 when o(m), the relays' cost and the LogP quantities are >= 0 at every
 * size from 0 B on, else -2 with err naming the quantity and the size. */
int params_check_nonnegative(const model_params *p, long line, model_params_error *err);

/* Reads the lines of fp into p and closes fp; returns as model_params_read. */
int params_read_stream(FILE *fp, model_params *p, model_params_error *err);

#endif
