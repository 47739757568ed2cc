/* calibrate: what the files of the calibrate command share -- its options,
 * the fit points, and one function per step (options.c, measure.c,
 * points.c, report.c, validate.c, output.c, full.c). */
#ifndef SCITORUS_CALIBRATE_H
#define SCITORUS_CALIBRATE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchdata/benchdata.h"
#include "fit/fit.h"
#include "calibrate/full.h"
#include "model/params.h"
#include "util/cli.h"
#include "util/exit.h"
#include "util/fs.h"

/* The held-out check ran and missed its bound (docs/formats.md, 'Exit
 * status'): distinct from 1 (a file or a measurement failed). */
#define EXIT_CHECK 3
/* --full: the check missed and every run was unstable (the machine moved
 * during each): the runs cannot tell a wrong fit from a busy machine. */
#define EXIT_UNDECIDED 4
#define MAX_FILES 64
/* The held-out check's bound on the largest error, in percent (--max-error):
 * what calibrate --full promises on this kind of machine. */
#define DEFAULT_MAX_ERROR_PCT "5"
/* --quick's run lasts about a second, too short to average a change of
 * the machine's speed out, so its check allows 10%. */
#define QUICK_MAX_ERROR_PCT 10.0

/* One line "calibrate: ..." on stderr; returns the exit status. */
#define usage_error(...) cli_message(EXIT_USAGE, "calibrate", " (try --help)", __VA_ARGS__)
#define fail(...) cli_message(EXIT_FAILURE, "calibrate", "", __VA_ARGS__)
/* A stop request ended the run (util/exit.h). */
#define stopped(...) cli_message(EXIT_INTERRUPTED, "calibrate", "", __VA_ARGS__)

typedef enum { STAT_MIN, STAT_MEDIAN, STAT_MEAN } stat_kind;
typedef enum { WEIGHT_RELATIVE, WEIGHT_SEM } weight_kind;

typedef struct options {
    const char *backend;           /* shm | mpi (backend_i: its index) */
    int backend_i;
    const char *ring, *torus, *sizes, *rel_error, *max_time;
    const char *inject_forward, *inject_switch;
    int all_dst, quick, quiet;
    const char *np, *hostfile, *mpirun, *bench_prog;
    const char *data[MAX_FILES];
    int ndata;
    const char *validate[MAX_FILES];
    int nvalidate;
    const char *out_params, *out_bench;
    int stat;                      /* stat_kind */
    int weights;                   /* weight_kind */
    int full;                      /* --full: measure, fit, validate (full.h) */
    long launches;                 /* --launches K: K launches of the benchmark (launches.c) */
    long launch;                   /* the launch being measured (1..K), 0 when not launches */
    full_plan plan;
    const char *validation_out;    /* held-out table as TSV (for the plot) */
    double max_error;              /* --max-error, as a fraction once parsed */
    fit_options fit;
    long segments;                 /* --segments (into fit.max_segments) */
    double cable_m;
    int lp_given;
    const char *lp_opt;            /* the option that fixed lp, for conflicts */
    int fix_seen[4];               /* --fix keys given: lp, lf, ls, lb */
    char measure_opt[40];          /* the first option that only measuring uses */
    char command[2048];
    const char *logp, *loggopsim;   /* --logp FILE, --loggopsim FILE */
    const char *loggopsim_unit;     /* --loggopsim-unit: NULL (ns), "ns" or "ps" */
    const char *collectives;        /* --collectives FILE (collectives.c) */
    const char *algorithm;          /* --algorithm: the schedule it is compared with */
    int max_error_given;            /* --max-error given (--collectives: 0 prints only) */
    int loggopsim_unit_i;
    FILE *report;                  /* stdout, or stderr when the params go to stdout */
    char host[256];
} options;

/* options.c, options_check.c */
int options_parse(int argc, char **argv, options *o);
/* The combinations that make no sense, and the files that are one
 * another; 0 or EXIT_USAGE (with the message). */
int options_check(options *o);
/* The params file's path: -o, or the default (see --help, "Files"). */
const char *options_params_path(const options *o, char *buf, size_t len);
/* path less its extension (".params", ".tsv"), or def when path is "-" */
void options_stem(const char *path, const char *def, char *buf, size_t len);
/* 0, or EXIT_USAGE (message printed) when an output of this run (with
 * extra ones: the benchmark's files) is the same file as an input or as
 * another output. */
int options_check_files(const options *o, const fs_file *extra, int nextra);

/* measure.c: runs the benchmark for o into bench_path (or --full's plan);
 * max_time, when not NULL, bounds the run (a re-measurement). */
int measure(const options *o, const char *max_time, char *bench_path, size_t len, double *cpu_share);
/* The benchmark's bare floor (scibench --floor), NAN when the backend has
 * none or it failed. */
double measure_floor(const options *o);

/* launches.c: --launches K.  Measures K launches into o->data; 0 or an
 * exit status. */
int launches_measure(options *o);
/* Fits each launch of o->data alone, prints them and the interval of the
 * median across them, fills p's launch keys and writes the per-point
 * table beside params_path.  0 or an exit status. */
int launches_report(const options *o, model_params *p, const char *params_path);
/* Fills p's launch keys from n launches' values of each quantity
 * (model_launch_key order: o(64), lf, ls, lb): their median and its
 * interval, for the quantities p measured. */
void launches_keys(model_params *p, const double v[][MODEL_LAUNCH_COUNT], int n);
/* Widens parameter id's error to cover n values of it from separate runs or
 * launches: err^2 + their variance (docs/model.md, 'Intervals').  Returns
 * the error before. */
double calibrate_widen_err(model_params *p, int id, const double *v, int n);
/* --full's link rate (calibrate/linkrate.c): one-way bursts over the
 * 2-node ring's one link (the benchmark's ow pattern: back-to-back sends,
 * one acknowledgement a batch, as osu_bw's window) at these sizes, above a
 * 9000-byte packet and below Open MPI's 64 KiB TCP eager limit (beyond it
 * every message waits for a rendezvous: 8x slower on the shaped testbed),
 * into path.  Returns 0 or the exit status. */
#define LINK_RATE_SIZES "12288,16384,24576,32768,40960,49152"
int measure_stream(const options *o, const char *path);
/* Measures and fits it into p (link_bw_bytes_per_ns, its error and
 * source "measured"); the bench file beside the others.  On a failure
 * says why on the report and leaves p's rate alone: returns 0 then too,
 * or the exit status when interrupted. */
int linkrate_measure(const options *o, model_params *p);

/* points.c: bench rows -> fit points */
typedef struct pointset {
    fit_point *pts;
    bench_point *src;         /* the row each point came from */
    size_t n, cap;
    long skipped_ow;
    weight_kind weights;
    char backend[16];         /* the files' "# backend:" ("mixed" when they differ) */
    long unsteady;            /* rows whose median is over 1.5x their minimum, or whose
                                 batches' floors span regimes (benchdata/regime.h) */
    long rows;
    double floor_ns;          /* the first file's "# floor_ns:" (0: none) */
    /* The regime of the rows: the median and quartiles of their floors
     * (their floor_ns column; 0 when no row has one). */
    double regime[3];
} pointset;
const char *stat_name(stat_kind s);
int load_files(const char *const *files, int nfiles, stat_kind s, pointset *ps);
int merge_repeats(pointset *ps);
void relative_weights(pointset *ps);
/* The indexes of pts in table order: by path (Hm, Fm, Sm), then size;
 * malloc'ed, NULL when out of memory. */
size_t *points_by_path_then_size(const fit_point *pts, size_t n);
void pointset_free(pointset *ps);

/* report.c */
void report_fit(const options *o, const pointset *ps, const fit_result *r);
void report_notes(const options *o, const fit_result *r);

/* validate.c: the held-out check */
#define HELDOUT_WORST 3
typedef struct heldout {
    size_t n;                       /* points checked (0: no held-out data) */
    double median, max;             /* errors, fractions */
    int nworst;
    double worst_size[HELDOUT_WORST], worst_err[HELDOUT_WORST];   /* signed */
} heldout;
int load_validate(const options *o, pointset *vs);
/* Predicts vs with p: h, the table on o->report (print), --validation-out. */
int validate(const options *o, pointset *vs, const model_params *p, int print, heldout *h);
/* The verdict's closing lines; returns 0 (passed) or EXIT_CHECK. */
int verdict(const options *o, const heldout *h, const char *params_path);

/* output.c */
int params_refused(const options *o, const model_params *p, const char *path);
int write_params(const options *o, const fit_result *r, const char *path, const char *backend);
int with_logp(const options *o, model_params *p);
int logp_only(options *o);

/* run.c: loads o->data into ps and fits it into res (0, or an exit status;
 * res is freed on failure); print: the report.  calibrate_run: the plain
 * mode (measure or --data, fit, --validate, write). */
int calibrate_fit(const options *o, pointset *ps, fit_result *res, int print);
int calibrate_run(options *o);
/* collectives.c: --collectives, a measured file against its prediction. */
int calibrate_collectives(const options *o);
/* "wrote ..." and how to use it, and the time taken when measured */
void report_wrote(const options *o, const char *path, double seconds);

/* full.c */
int full_run(options *o);

#endif
