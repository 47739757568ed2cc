/* scimodel: the command line's shared pieces.  scimodel_main.c parses the
 * options (scimodel_options.c) and dispatches to one mode per file:
 * scimodel_report.c (the per-dimension report), scimodel_crossover.c,
 * scimodel_sweep.c, scimodel_shape.c (--shape, --shape --hops),
 * scimodel_broadcast.c (--bcast), scimodel_load.c (--load), scimodel_logp.c
 * (--logp), scimodel_traffic.c (--traffic); --pattern is a setting of
 * every mode but --traffic.
 * scimodel_output.c holds the printing helpers they share. */
#ifndef SCITORUS_SCIMODEL_H
#define SCITORUS_SCIMODEL_H

#include <stdio.h>

#include "model/launch.h"
#include "model/model.h"
#include "model/params.h"
#include "util/cli.h"
#include "util/atomicfile.h"
#include "util/exit.h"
#include "util/fs.h"
#include "topo/topo.h"

#define SCIMODEL_EXIT_USAGE EXIT_USAGE

typedef enum scimodel_mode {
    MODE_REPORT,      /* default: per dimension at --nodes, then crossovers */
    MODE_CROSSOVER,   /* --crossover */
    MODE_SWEEP,       /* --sweep */
    MODE_SHAPE,       /* --shape S */
    MODE_P2P,         /* --shape S --hops H */
    MODE_LOAD,        /* --load (with --shape or per D at --nodes) */
    MODE_LOGP,        /* --logp: a params file's LogP parameters at --size */
    MODE_TRAFFIC,     /* --traffic FILE: a traffic matrix onto candidate tori */
    MODE_ROUTES,      /* --shape S --routes: every node's next hop to every other */
} scimodel_mode;

#define SCIMODEL_MAX_SHAPES (2 * TOPO_MAX_DIMS)   /* --shape, repeated with --traffic */

typedef struct scimodel_options {
    model_params params;       /* params.links already set from --links */
    long dims[TOPO_MAX_DIMS];  /* sorted ascending, no duplicates */
    size_t ndims;
    long nodes;
    long size_bytes;
    int want_avg, want_multicast, want_binomial;   /* curves to show */
    model_fill fill;
    scimodel_mode mode;
    int tsv;
    topo_shape shape;
    long hops[TOPO_MAX_DIMS];
    const char *hops_text;
    const char *shape_text;
    long sweep_points;     /* 0: every integer N; else about this many, log-spaced */
    int links_given;       /* --links or a params file's `links` */
    topo_pattern pattern;  /* --pattern (default uniform) */
    int pattern_given;
    double progress_s;     /* progress line on stderr this often (0: never) */
    int bcast_given;       /* --bcast: report broadcast times, not averages */
    int shape_given;       /* --shape (MODE_LOAD keeps it) */
    double rates[64];      /* --load: --rates (messages/ns/node) or --utilisation */
    size_t nrates;
    int rates_are_util;    /* rates[] are fractions of the saturation rate */
    const char *rates_text;
    /* as given on the command line; scimodel_parse_options applies them */
    const char *params_path;   /* --params */
    const char *out_path;      /* -o */
    int preset;                /* --preset: index in its choices */
    int links_choice;          /* --links: 0 uni, 1 bi */
    int metric, fill_choice, bcast, format;
    int sweep, crossover, load, logp, routes;
    /* --traffic (scimodel_traffic.c); --shape may be repeated there */
    const char *traffic_path, *placement, *intra_path, *hostfile, *rankfile, *map_by, *rank_by;
    long slots, anneal_steps;
    const char *shape_texts[SCIMODEL_MAX_SHAPES];
    size_t nshapes;
    launch_request launch;     /* from --slots, --hostfile, --map-by, ... */
    model_params intra;        /* --intra-params, else params */
    int have_intra;
} scimodel_options;

/* scimodel_options.c: parses argv into *o.  Returns 0, OPT_DONE (--help or
 * --version printed: exit 0), or the exit status (2 usage, 1 a params file
 * could not be read) after printing one line. */
int scimodel_parse_options(int argc, char **argv, scimodel_options *o);
/* The options table (for tests: util/opt.h's opt_bad_cases). */
extern const struct opt_program scimodel_opt_program;

/* The modes: each prints to stdout and returns 0 or an exit status. */
int scimodel_report(const scimodel_options *o);
int scimodel_crossover(const scimodel_options *o);
int scimodel_sweep(const scimodel_options *o);
int scimodel_shape(const scimodel_options *o);
int scimodel_p2p(const scimodel_options *o);
int scimodel_logp(const scimodel_options *o);
int scimodel_broadcast(const scimodel_options *o);   /* report/--shape with --bcast */
int scimodel_load(const scimodel_options *o);
int scimodel_traffic(const scimodel_options *o);
int scimodel_routes(const scimodel_options *o);

/* scimodel_report.c: 1 when the output names pattern and links in extra
 * columns (either option given, or bi links from a params file); the
 * report's TSV header; one TSV report row for an integer shape. */
int scimodel_named(const scimodel_options *o);
void scimodel_report_header(const scimodel_options *o);
void scimodel_shape_tsv(const scimodel_options *o, const topo_shape *s, double size_bytes);

/* scimodel_output.c ------------------------------------------------------ */

/* -o FILE: standard output goes to FILE, created atomically, for the rest
 * of the run; "-" or NULL leaves it alone.  The output may not be one of
 * the inputs (fs_refuse_same).  Returns 0 or the exit status. */
int scimodel_output_begin(const char *path, const fs_file *in, int nin, atomic_file *af,
                          int *active);
/* Ends it: on rc == 0 the file gets its name, else it is dropped and a
 * previous file is kept.  Returns rc, or 1 when the file cannot be
 * written. */
int scimodel_output_end(atomic_file *af, int active, int rc);

/* "parameters: ..." block with o(m), lp, lf, ls and the kind of links,
 * every parameter's source (with_link_bw: the link rate's too) and what
 * the intervals rest on. */
void scimodel_print_params(const model_params *p, double size_bytes, int with_link_bw);
/* Appends v with 3 decimals ('-' for NaN) to buf; returns the new end. */
char *scimodel_format_3f(char *buf, double v);
/* One line "scimodel: ..." on stderr with " (try --help)"; returns 2. */
#define scimodel_usage_error(...) \
    cli_message(SCIMODEL_EXIT_USAGE, "scimodel", " (try --help)", __VA_ARGS__)
/* The message for an input file that could not be read (rc from
 * model_params_read or traffic_read, nonzero): "OPT 'PATH': MSG" when it
 * could not be opened (rc -1), else "PATH:LINE: MSG" (or "PATH: MSG" when
 * line is 0).  Returns EXIT_FAILURE. */
int scimodel_file_error(const char *opt, const char *path, int rc, long line, const char *msg);
/* Reads the params file given as option opt ("--params") into *p; returns
 * 0, or EXIT_FAILURE after scimodel_file_error's message. */
int scimodel_load_params(const char *opt, const char *path, model_params *p);

#endif
