/* scisim: replays a GOAL schedule (sched/goal.h) on a LogGP network or on
 * candidate tori (sim/engine.h).  Shared between the main, the options
 * and the modes. */
#ifndef SCITORUS_SCISIM_H
#define SCITORUS_SCISIM_H

#include <stdio.h>

#include "model/launch.h"
#include "model/params.h"
#include "sim/engine.h"
#include "sim/router.h"
#include "sched/goal.h"
#include "topo/topo.h"

#define SCISIM_MAX_CANDIDATES 32
#define SCISIM_MAX_COLL 256      /* --procs, --size: values of a list */

typedef struct scisim_opts {
    const char *goal_path, *out_path, *placement, *params_path, *intra_path, *self_path;
    const char *hostfile, *rankfile, *map_by, *rank_by;
    int loggp_given, preset, links_choice, format, contention, ranks, tsv, quiet;
    double duplex_ns, duplex_ns_per_byte;   /* --duplex */
    launch_request launch;
    sim_loggp lg;
    uint64_t S;
    model_params inter, intra, self;
    topo_links links;
    long slots, nodes, anneal_steps;
    long dims[TOPO_MAX_DIMS];
    size_t ndims;
    const char *shape_text[SCISIM_MAX_CANDIDATES];
    size_t nshapes;
    /* --collective OP (scisim_collective.c): a named algorithm's schedule */
    int collective, collective_given, emit_goal, collective_list;
    const char *algorithm, *logp_path;
    long procs[SCISIM_MAX_COLL], sizes[SCISIM_MAX_COLL], root;
    size_t nprocs, nsizes;
    /* --traffic-pattern (scisim_traffic.c): synthetic traffic through the
     * router model (--router) on one --shape */
    int traffic_given;
    topo_pattern pattern;
    const char *router_text;
    double rates[SCISIM_MAX_COLL], sat_step;
    size_t nrates;
    long warmup, measure, traffic_seed, sat_latency;
    sim_router_config router;   /* --router (router_text NULL: off) */
    long router_passes;
} scisim_opts;

int scisim_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int scisim_runtime_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* 0, or the exit status (2 usage, 1 runtime); *done = 1 after --help. */
int scisim_parse_options(int argc, char **argv, scisim_opts *o, int *done);

/* Reads the schedule; 0 or exit status 1 with the message printed. */
int scisim_read_goal(const scisim_opts *o, goal_schedule *s);

/* The modes: exit statuses. */
int scisim_loggp(const scisim_opts *o, const goal_schedule *s);
int scisim_torus(const scisim_opts *o, const goal_schedule *s);
/* --collective: the schedule generated, then --emit-goal, --logp FILE's
 * prediction, or the replay above (one P and one size). */
int scisim_collective(const scisim_opts *o);
/* --traffic-pattern: the latency-load table and the saturation throughput. */
int scisim_traffic(const scisim_opts *o);

/* Output (scisim_output.c): -o FILE or stdout. */
typedef struct scisim_out scisim_out;
scisim_out *scisim_out_open(const scisim_opts *o);
FILE *scisim_out_fp(scisim_out *out);
/* Ctrl-C came while the schedule was read: says so, returns 130. */
int scisim_interrupted_reading(const scisim_opts *o);
/* The last line of an interrupted run's output, as every program ends one
 * (docs/formats.md, 'Conventions'). */
#define SCISIM_INCOMPLETE "# incomplete\n"
/* Commits, returns the exit status.  partial: an interrupted run's, with
 * finished results: it ends SCISIM_INCOMPLETE and goes beside an existing
 * file; none finished: nothing is written. */
int scisim_out_close(scisim_out *out, int partial, long finished);
void scisim_print_ranks(FILE *fp, const sim_result *r);

/* Progress on stderr for long runs and Ctrl-C. */
void scisim_progress(void *arg, uint64_t events, uint64_t done, uint64_t ops);
int scisim_stop(void);

#endif
