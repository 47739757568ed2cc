/* params_bounds: the physically meaningful range of every params key, one
 * table the reader (and so the writer, model_params_check) obeys. */
#include "model/params_internal.h"

#include <float.h>
#include <fnmatch.h>
#include <stdio.h>

/* Physically meaningful ranges of the values (a typo or a broken fit).  A value outside
 * its range is a typo or a broken fit, and the model would only turn it into
 * inf, a 300-digit number or a bogus crossover, so the reader refuses it at
 * file:line.  The first row whose pattern (fnmatch) matches the key applies
 * (the last row: any other number only needs to be finite and not
 * negative).  A new key gets a row here, above the last, with the reason
 * for its limits (or is covered by its unit suffix). */
typedef struct param_bound {
    const char *pattern;
    double min, max;
    const char *why;
} param_bound;

#define PARAM_MAX_NS 1e9                    /* 1 s */
#define PARAM_MAX_NS_PER_BYTE 1e6           /* 1 kB/s */
#define PARAM_MAX_BYTES 1099511627776.0     /* 2^40 B = 1 TiB */
#define PARAM_MAX_BYTES_PER_NS 1e6          /* 1 PB/s */

static const param_bound param_bounds[] = {
    {"fit_r2", -DBL_MAX, 1, "R^2 = 1 - chi^2/SST is at most 1"},
    {"fit_chi2_dof", 0, DBL_MAX, "a sum of squares is not negative"},
    {"*_err", 0, DBL_MAX, "a standard error is not negative"},
    {"*_ns_per_byte", 0, PARAM_MAX_NS_PER_BYTE,
     "1e6 ns/B is 1 kB/s, slower than any network or memory copy"},
    {"*_bytes", 0, PARAM_MAX_BYTES, "no single message is larger than 1 TiB"},
    {"*_ns", 0, PARAM_MAX_NS,
     "an overhead or a hop of 1 s is a stalled machine, not a latency"},
    {"link_bw_bytes_per_ns", 0, PARAM_MAX_BYTES_PER_NS,
     "1e6 B/ns is 1 PB/s, ten thousand times the fastest link built"},
    {"*", 0, DBL_MAX, "a time, size, rate or count is not negative"},
};

static const param_bound *bound_of(const char *key)
{
    for (size_t i = 0; i < sizeof param_bounds / sizeof param_bounds[0]; i++)
        if (fnmatch(param_bounds[i].pattern, key, 0) == 0)
            return &param_bounds[i];
    return NULL;
}

/* 0 when v is within key's range, else -2 with err filled. */
int params_check_bounds(const char *key, double v, long line, model_params_error *err)
{
    const param_bound *b = bound_of(key);
    char text[200];
    if (!b || (v >= b->min && v <= b->max))
        return 0;
    if (v < 0 && b->min == 0) {
        snprintf(text, sizeof text, "'%.60s' must not be negative", key);
    } else {
        snprintf(text, sizeof text, "'%.40s = %.6g' is out of range: %s must be %s%.6g (%s)",
                 key, v, key, v < b->min ? "at least " : "at most ",
                 v < b->min ? b->min : b->max, b->why);
    }
    return params_fail(err, line, "%s", text);
}
