/* full: the networks of `calibrate --full`: a 2-node ring, a 4- or 8-node
 * ring and a 4x4 torus to fit o(m), lf, ls and lb on, and a 6-node ring
 * held out to validate the fit, all measured interleaved in one benchmark
 * run; and the held-out table's data file for the plot. */
#ifndef SCITORUS_FULL_H
#define SCITORUS_FULL_H

#include <limits.h>
#include <stddef.h>

#define FULL_NETS 4       /* ring 2, ring 4|8, torus 4x4, ring 6 */
#define FULL_HELD_OUT 3   /* index of the held-out ring 6 */
#define FULL_DEFAULT_RING "8"
/* The torus, 4x4 rather than 3x3: on two processes a third of a 3x3's hops are local copies,
 * which cost far less than a hop between processes and bend the fit (test_full's held-out
 * ring). */
#define FULL_TORUS "4x4"
/* --launches K of --full (one unless asked: K take K times as long, and a median of a few
 * picks between launches that fall in two groups: docs/model.md, 'Launches of --full'), and
 * the runs --full takes at most, re-measurements included. */
#define FULL_DEFAULT_LAUNCHES 1
#define FULL_MAX_RUNS 10
#define FULL_MAX_RUNS_TEXT "10"

typedef struct full_plan {
    const char *shape[FULL_NETS];          /* "2", "8", "4x4", "6" */
    char path[FULL_NETS][PATH_MAX];        /* each network's bench TSV */
    char interleave[FULL_NETS][PATH_MAX + 16];   /* "8=path" for index >= 1 */
    char validation[PATH_MAX];             /* held-out table (TSV) */
    char linkrate[PATH_MAX];               /* the link rate's one-way bursts (bench TSV) */
} full_plan;

/* Names the files of a --full run PREFIX-ring2.tsv, PREFIX-ring8.tsv (or
 * ring4), PREFIX-torus4x4.tsv, PREFIX-ring6.tsv, PREFIX-validation.tsv and
 * PREFIX-linkrate.tsv;
 * ring is the multi-hop ring to fit on, "4" or "8".  Returns 0, or -1 when
 * ring is neither (the caller reports the usage error) or a path would not
 * fit. */
int full_plan_make(full_plan *plan, const char *prefix, const char *ring);

/* One held-out point of the validation table. */
typedef struct full_row {
    double size_bytes, hm, fm, sm, measured_ns, predicted_ns;
} full_row;

/* Writes rows as a gnuplot-ready TSV (atomically):
 *   # scitorus-validation 1 / # held-out: FILE / # params: ... header lines,
 *   columns size_bytes hm fm sm measured_ns predicted_ns error_pct,
 * sorted by size.  Returns 0, or -1 with errno set. */
int full_write_validation(const char *path, const char *held_out, const char *fitted_on,
                          full_row *rows, size_t n);

#endif
