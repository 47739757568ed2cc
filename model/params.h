/* params: the latency parameters of the model (o0, o1, mref, lp, lf, ls, and
 * an optional piecewise-linear o(m)), the named presets of thesis Table 1 /
 * §6.2, and the params file reader and writer (docs/formats.md, 'Params file'). */
#ifndef SCITORUS_PARAMS_H
#define SCITORUS_PARAMS_H

#include <stddef.h>
#include <stdio.h>

#include "topo/topo.h"
#include "util/file_error.h"

/* Parameters in the order calibrate's unknown vector uses (docs/model.md, 'Parameters'). */
typedef enum model_param_id {
    MODEL_P_O0 = 0,   /* o0_ns: o(mref) */
    MODEL_P_O1,       /* o1_ns_per_byte: slope of o(m) */
    MODEL_P_LP,       /* lp_ns: propagation per link */
    MODEL_P_LF,       /* lf_ns: forwarding through a node */
    MODEL_P_LS,       /* ls_ns: switching dimension */
    MODEL_P_COUNT,    /* the thesis's five, calibrate's unknowns */
    /* lb_ns_per_byte: per byte at every relay (docs/model.md, 'Parameters'; optional key,
     * default 0 = cut-through, the thesis's model) */
    MODEL_P_LB = MODEL_P_COUNT,
    MODEL_P_ALL       /* every parameter: the arrays below are this long */
} model_param_id;

enum { MODEL_LAUNCH_O64 = 0, MODEL_LAUNCH_LF, MODEL_LAUNCH_LS, MODEL_LAUNCH_LB,
       MODEL_LAUNCH_COUNT };

/* At most 16 segments (of o(m), of the relays' cost and of each LogP quantity), BIC choosing:
 * room above what the joint fit of a staircase of sizes picks (test_fit). */
#define MODEL_MAX_OSEG 16

typedef struct model_oseg {
    double from_bytes;     /* segment starts at this size */
    double ns;             /* o(from_bytes) */
    double ns_per_byte;    /* slope on the segment */
} model_oseg;

/* LogP parameters (docs/model.md, 'LogP parameters'; calibrate --logp): L and piecewise-linear
 * os(m), or(m), g(m), each segment as model_oseg.  Keys L_ns,
 * <q>_segments, <q>_seg<i>_from_bytes, <q>_seg<i>_ns, <q>_seg<i>_ns_per_byte
 * for q = os, or, g. */
typedef enum model_logp_q { MODEL_LOGP_OS = 0, MODEL_LOGP_OR, MODEL_LOGP_G, MODEL_LOGP_COUNT } model_logp_q;
extern const char *const model_logp_key[MODEL_LOGP_COUNT];   /* "os", "or", "g" */

typedef struct model_logp {
    int present;                 /* 0: the file has no LogP keys */
    double L_ns;
    int segments[MODEL_LOGP_COUNT];
    model_oseg seg[MODEL_LOGP_COUNT][MODEL_MAX_OSEG];
} model_logp;

typedef struct model_params {
    double o0_ns, o1_ns_per_byte, mref_bytes, lp_ns, lf_ns, ls_ns;
    /* Store and forward (docs/model.md, 'Parameters'): every intermediate node (F + S of
     * them) pays m lb again; 0 for SCI's cut-through and every preset. */
    double lb_ns_per_byte;

    /* Piecewise o(m); o_segments == 0 means the single line o0/o1/mref.
     * Segments are sorted by from_bytes; segment i covers
     * [from_bytes_i, from_bytes_{i+1}); sizes below the first use the first. */
    int o_segments;
    model_oseg oseg[MODEL_MAX_OSEG];

    /* Piecewise relay cost (docs/model.md, 'Parameters'): each relay
     * pays g(m) = lbseg[i].ns + lbseg[i].ns_per_byte (m - lbseg[i].from_bytes)
     * on segment i instead of m lb; lb_segments == 0 means m lb. */
    int lb_segments;
    model_oseg lbseg[MODEL_MAX_OSEG];
    /* Optional, written by calibrate: each segment's standard errors of
     * its start value [0] and slope [1] (keys o_seg<i>_ns_err,
     * o_seg<i>_ns_per_byte_err, lb_seg<i>_*_err; NaN = not stated). */
    double oseg_err[MODEL_MAX_OSEG][2], lbseg_err[MODEL_MAX_OSEG][2];

    /* Optional, written by calibrate: standard errors (NaN = unknown) and
     * where each value came from ("measured", "fixed", "preset current";
     * empty = not stated), indexed by model_param_id. */
    double err[MODEL_P_ALL];
    char source[MODEL_P_ALL][40];
    /* The fit's covariance of two parameters (keys cov_<a>_<b>, a before b
     * in model_param_id order; NaN = not stated: the interval then treats
     * them as independent, from the errors alone).  Symmetric; the
     * diagonal is unused (err squared). */
    double cov[MODEL_P_ALL][MODEL_P_ALL];
    /* The link rate's standard error and source (keys
     * link_bw_bytes_per_ns_err, _source; NaN / "" = not stated). */
    double link_bw_err;
    char link_bw_source[40];
    /* When calibrate fitted the parameters (key `fitted_at`, ISO 8601 UTC,
     * written by calibrate); "" = not stated. */
    char fitted_at[32];
    double fit_r2, fit_chi2_dof;   /* NaN when not fitted */
    /* The fitted points' relative residual scatter (key fit_residual_rms, a
     * fraction; NaN when not stated): what a single measurement adds to
     * the parameters' uncertainty in a prediction interval. */
    double fit_residual_rms;
    /* The point statistic the fit used, key `fit_statistic = "min" |
     * "median" | "mean"` (calibrate --stat), so that a plot's residuals
     * are of the values that were fitted; "" when not stated. */
    char fit_statistic[8];
    /* The regime its measurements were taken in (docs/formats.md, 'Regimes'): the median and
     * quartiles of the floors beside their batches, keys regime_floor_ns, regime_floor_q1_ns,
     * regime_floor_q3_ns; NaN when not stated. */
    double regime_floor_ns[3];
    /* Across launches (calibrate --launches; docs/formats.md, 'Params file'): how many, the
     * interval's coverage, and per quantity (model_launch_key) the median of the launches'
     * fits and the nonparametric interval of that median; 0 / NaN when not stated. */
    double launches, launch_coverage;
    double launch[MODEL_LAUNCH_COUNT][3];

    /* Kind of links (docs/model.md, 'Links'; key `links = "uni" | "bi"`, default uni:
     * SCI) and the link bandwidth for the load model (docs/model.md, 'Load'; key
     * `link_bw_bytes_per_ns`, > 0, default 1.0: the IEEE 1596 SCI link rate
     * of 1 GB/s).  Every model_* function reads the links from here. */
    topo_links links;
    double link_bw_bytes_per_ns;

    char name[256];   /* "preset current" or the file name, for reports */

    model_logp logp;  /* optional (calibrate --logp) */
} model_params;

/* Default link bandwidth: IEEE 1596 SCI, 1 GB/s = 1 byte/ns (docs/model.md, 'Load'). */
#define MODEL_DEFAULT_LINK_BW_BYTES_PER_NS 1.0

/* The quantities whose spread across launches a params file can state: o at 64 B, lf, ls,
 * lb; their keys are <name>_launch_median, <name>_launch_lo, <name>_launch_hi. */
extern const char *const model_launch_key[MODEL_LAUNCH_COUNT];   /* "o64_ns", "lf_ns", ... */
/* The key of quantity q's median (which 0), lower (1) or upper (2) end. */
void model_launch_key_name(int q, int which, char *buf, size_t size);

/* The regime keys: regime_floor_ns, regime_floor_q1_ns, regime_floor_q3_ns. */
extern const char *const model_regime_key[3];
/* The regime p projects, in words, into buf (a projection's header says
 * it); 0 when the file does not state one, else 1. */
int model_params_regime_text(const model_params *p, char *buf, size_t size);

/* Key names by model_param_id (the six required keys are these but
 * lb_ns_per_byte, plus "mref_bytes"). */
extern const char *const model_param_key[MODEL_P_ALL];

/* Fills *p with preset "current" or "enhanced" (thesis Table 1, §6.2).
 * Returns 0, or -1 for an unknown name. */
int model_params_preset(const char *name, model_params *p);

/* Sets every optional field to "not stated" (err NaN, source "", fit NaN,
 * o_segments 0) and the optional settings to their defaults (links uni,
 * link_bw_bytes_per_ns 1.0). */
void model_params_clear_optional(model_params *p);

/* o(m) in ns for a message of size_bytes (the segments if any, else
 * o0 + o1 (m - mref)). */
double model_overhead_ns(const model_params *p, double size_bytes);

/* os(m), or(m) or g(m) in ns from p->logp (which present). */
double model_logp_ns(const model_params *p, model_logp_q q, double size_bytes);

/* What one relay (forward or switch) pays for an m-byte message beyond lf
 * or ls (docs/model.md, 'Parameters'): the lb segments if any, else m lb. */
double model_relay_bytes_ns(const model_params *p, double size_bytes);

/* "sources: ..." into buf (no newline): where each parameter p gives came
 * from: measured (the file, and when calibrate fitted it), fixed, assumed
 * (a preset), or stated in a file without a source; with_link_bw adds the
 * link rate (measured, or the default SCI rate, which is no measurement).
 * Returns buf. */
#define MODEL_SOURCES_TEXT 1024
char *model_params_sources_text(char *buf, size_t len, const model_params *p, int with_link_bw);

/* Why a params file was rejected. */
typedef file_error model_params_error;

/* Reads a params file (docs/formats.md, 'Params file'): `key = value` lines, `#` comments and
 * blank lines; string values in double quotes for *_source keys.
 * Rejects: unknown key, missing required key, duplicate key, non-numeric,
 * negative, NaN or infinite value, a value outside its physically
 * meaningful range (params.c, param_bounds), a NUL byte, malformed line, a
 * directory, `links` other than "uni" / "bi", a zero link_bw_bytes_per_ns.
 * lb_ns_per_byte is optional (default 0).
 * Returns 0, -1 for a file that cannot be opened or read (err->sys_errno),
 * or -2 for a malformed file (err->line, err->msg). */
int model_params_read(const char *path, model_params *p, model_params_error *err);

/* Whether model_params_read would accept what model_params_write writes
 * for p: the text is written and read back in memory, so the writer obeys
 * the reader's range table (param_bounds) and rules exactly.  Returns 0;
 * -2 refused (err->msg names the key and value, err->line its line in the
 * file), -1 out of memory (err->sys_errno). */
int model_params_check(const model_params *p, model_params_error *err);

/* Writes p to path atomically (temporary name + rename), gnuplot-loadable:
 * required keys, then every optional field that is set (lb_ns_per_byte
 * when non-zero or stated by a source), with `comments`
 * (may be NULL; each line is prefixed with "# ") at the top.  A p that the
 * reader would refuse (model_params_check) is not written: -1 with errno
 * EINVAL; callers that want the reason call model_params_check first.
 * Returns 0, or -1 with errno set (a previous file at path is untouched). */
int model_params_write(const char *path, const model_params *p, const char *comments);

/* model_params_write's text on fp (e.g. stdout for "-o -"): 0, or -1 with
 * errno set (EINVAL: the reader would refuse p). */
int model_params_write_stream(FILE *fp, const model_params *p, const char *comments);

#endif
