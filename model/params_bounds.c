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
#define PARAM_MIN_BYTES_PER_NS 1e-6         /* 1 kB/s */

static const param_bound param_bounds[] = {
    {"fit_r2", -DBL_MAX, 1, "R^2 = 1 - chi^2/SST is at most 1"},
    {"fit_chi2_dof", 0, DBL_MAX, "a sum of squares is not negative"},
    {"launch_coverage", 0, 1, "a probability"},
    {"fit_residual_rms", 0, 10, "a relative scatter over 1000% is no fit"},
    {"*_err", 0, DBL_MAX, "a standard error is not negative"},
    {"cov_*", -DBL_MAX, DBL_MAX, "a covariance may be negative (its bound is the errors')"},
    /* before "*_ns", which also matches it (and held it to 0..1e9); from
     * 1 kB/s, as the slowest *_ns_per_byte: 1e-300 B/ns gave 1e300 ns loads */
    {"link_bw_bytes_per_ns", PARAM_MIN_BYTES_PER_NS, PARAM_MAX_BYTES_PER_NS,
     "1e-6..1e6 B/ns is 1 kB/s, slower than any network, to 1 PB/s, beyond any link"},
    {"*_ns_per_byte", 0, PARAM_MAX_NS_PER_BYTE,
     "1e6 ns/B is 1 kB/s, slower than any network or memory copy"},
    {"*_bytes", 0, PARAM_MAX_BYTES, "no single message is larger than 1 TiB"},
    {"*_ns", 0, PARAM_MAX_NS,
     "an overhead or a hop of 1 s is a stalled machine, not a latency"},
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

/* Where a piecewise-linear quantity (segments, or the line ns0 + slope
 * (m - ref)) is negative: slopes are >= 0 (the table above), so on each
 * segment it is smallest at the segment's start, and below the first
 * segment the first one's line goes on down to 0 B.  Returns the smallest
 * size with a negative value and that value in *v, or -1 when none. */
static double first_negative(const model_oseg *seg, int n, double *v)
{
    for (int i = 0; i < n; i++) {
        double at = i ? seg[i].from_bytes : 0;
        *v = seg[i].ns + seg[i].ns_per_byte * (at - seg[i].from_bytes);
        if (*v < 0)
            return at;
    }
    return -1;
}

int params_check_nonnegative(const model_params *p, long line, model_params_error *err)
{
    model_oseg line_o = {p->mref_bytes, p->o0_ns, p->o1_ns_per_byte};
    const struct {
        const char *what;
        const model_oseg *seg;
        int n;
    } q[] = {
        {"o(m)", p->o_segments ? p->oseg : &line_o, p->o_segments ? p->o_segments : 1},
        {"the relays' cost lb(m)", p->lbseg, p->lb_segments},
        {"os(m)", p->logp.seg[MODEL_LOGP_OS], p->logp.present ? p->logp.segments[0] : 0},
        {"or(m)", p->logp.seg[MODEL_LOGP_OR], p->logp.present ? p->logp.segments[1] : 0},
        {"g(m)", p->logp.seg[MODEL_LOGP_G], p->logp.present ? p->logp.segments[2] : 0},
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        double v, m = first_negative(q[i].seg, q[i].n, &v);
        char text[200];
        if (m < 0)
            continue;
        snprintf(text, sizeof text, "%s is negative at %.0f B (%.4g ns): a time cannot be"
                 " negative at any message size", q[i].what, m, v);
        return params_fail(err, line, "%s", text);
    }
    return 0;
}
