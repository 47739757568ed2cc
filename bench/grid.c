/* grid: the ping-pong (pp) and one-way (ow) patterns on a ring or torus,
 * and --floor: bench/pattern.c measures; this file chooses destinations,
 * checks the configuration, opens the outputs and ends them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "bench/cli.h"
#include "benchdata/regime.h"
#include "util/signals.h"

#define FLOOR_BATCHES 15
#define LINE_PASSES 5   /* --lines: passes over the places */
#define LINE_SLOW 1.2   /* --lines: a place this much above the median is counted as slow */

/* Every destination of node 0 (all), or the symmetric one, n_i/2 hops away
 * in every dimension; or the one of the hop vector h when given.  NULL when
 * out of memory. */
static long *destinations(const topo_shape *s, int all, const long *h, long *ndst)
{
    long sym[TOPO_MAX_DIMS];
    *ndst = all ? s->nodes - 1 : 1;
    long *d = malloc((size_t)*ndst * sizeof *d);
    if (!d || all) {
        for (long i = 1; d && i < s->nodes; i++)
            d[i - 1] = i;
        return d;
    }
    if (!h) {
        for (int i = 0; i < s->dims; i++)
            sym[i] = s->n[i] / 2;
        h = sym;
    }
    d[0] = topo_coords_to_rank(s, h);   /* node 0 is the source: coordinates = hops */
    return d;
}

/* Destinations: --hops, --dst, --all-dst, or the symmetric one. */
static int choose_destinations(bench_cli *c)
{
    topo_shape *s = &c->cfg.shape;
    int badd;
    if ((c->have_hops > 0) + c->have_dst + c->all_dst > 1)
        return bench_cli_usage(c, "--hops/--dst/--all-dst: give only one of them");
    if (c->have_dst && (c->dst <= 0 || c->dst >= s->nodes))
        return bench_cli_usage(c, "--dst '%ld': expected a node 1..%ld", c->dst, s->nodes - 1);
    if (c->have_hops) {
        if (c->have_hops != s->dims)
            return bench_cli_usage(c, "--hops '%s': %d values for %d dimensions", c->hops_text,
                                   c->have_hops, s->dims);
        if (topo_hops_check(s, c->hops, &badd))
            return bench_cli_usage(c, "--hops '%s': %s", c->hops_text,
                                   badd < 0 ? "all zero (source = destination)"
                                            : "a hop count is not below n_i");
    }
    free(c->cfg.dsts);
    c->cfg.dsts = destinations(s, c->all_dst, c->have_hops ? c->hops : NULL, &c->cfg.ndst);
    if (!c->cfg.dsts)
        return EXIT_FAILURE;
    if (c->have_dst)
        c->cfg.dsts[0] = c->dst;
    return 0;
}

/* The main network, once its nodes are known: destinations, payload and
 * window, and ow's one-hop rule. */
static int check_network(bench_cli *c)
{
    long max = 1;
    int rc;
    if (c->bc->caps & BENCH_CAP_SPAWNS && c->cfg.shape.nodes < c->setup.cfg.procs)
        return bench_cli_usage(c, "--procs %d: more processes than the %ld nodes",
                               c->setup.cfg.procs, c->cfg.shape.nodes);
    if ((rc = choose_destinations(c)))
        return rc;
    for (size_t i = 0; i < c->cfg.nsizes; i++)
        if (c->cfg.sizes[i] > max)
            max = c->cfg.sizes[i];
    c->setup.cfg.max_payload_bytes = (size_t)max;
    c->setup.cfg.window = c->cfg.pattern == BENCH_PP;   /* see bench_backend_config */
    /* One destination after another, a drift of the machine's speed falls
     * between hop counts and bends the curve; in turn it falls on all alike.
     * The points share the wall time one after another would have taken. */
    if (c->cfg.ndst > 1 && !c->point_by_point && !c->cfg.interleave_sizes && !c->nextra) {
        c->cfg.interleave_sizes = 1;
        c->cfg.max_time_s *= (double)c->cfg.ndst * (double)c->cfg.nsizes;
    }
    for (long d = 0; c->cfg.pattern == BENCH_OW && d < c->cfg.ndst; d++) {
        long h[TOPO_MAX_DIMS], z[TOPO_MAX_DIMS] = {0};
        topo_counts q;
        topo_rank_to_coords(&c->cfg.shape, c->cfg.dsts[d], h);
        topo_hops(&c->cfg.shape, z, h, h);
        topo_request_counts(&c->cfg.shape, h, &q);
        if (q.links != 1)
            return bench_cli_usage(c, "--pattern ow: measures a direct link; destination %ld is"
                                      " %ld hops away (use --hops with one 1)", c->cfg.dsts[d],
                                   q.links);
    }
    return 0;
}

/* --floor measures the bare transport, between two CPUs, into standard
 * output: an option that shapes a benchmark run would be silently ignored,
 * so it is refused, naming both. */
static int check_floor(bench_cli *c)
{
    const struct { int given; const char *name; } other[] = {
        {c->have_topology, c->topology_opt}, {c->have_pattern, "--pattern"},
        {c->all_dst, "--all-dst"}, {c->have_hops > 0, "--hops"}, {c->have_dst, "--dst"},
        {c->nextra > 0, "--interleave"}, {c->resume_path != NULL, "--resume"},
        {c->out_path != NULL, "-o (--floor prints to standard output)"},
        {c->cfg.inject_forward_ns > 0, "--inject-forward"},
        {c->cfg.inject_switch_ns > 0, "--inject-switch"},
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (other[i].given)
            return bench_cli_usage(c, "--floor and %s%s: --floor measures only the bare flag"
                                      " bounce (and --sizes copies) between two CPUs",
                                   strcmp(other[i].name, "ring") && strcmp(other[i].name, "torus")
                                       ? "" : "--", other[i].name);
    return 0;
}

/* --floor --lines: each place's floor, then how they spread (GSL's quantiles). */
static int run_floor_lines(bench_cli *c)
{
    double ns[BENCH_FLOOR_PLACES_MAX], sorted[BENCH_FLOOR_PLACES_MAX];
    int places = 0, rc = c->be->floor_lines(&c->setup.cfg, LINE_PASSES, ns, &places);
    if (rc) {
        fprintf(stderr, "%s: --floor --lines: %s\n", c->prog, bench_cli_error_text(rc));
        return EXIT_FAILURE;
    }
    printf("# lines: the floor's bounce on each of its %d places alone (a ping and a pong line on"
           " a page of their own); half round trips, medians of %d passes over the places in"
           " turn\n# columns: place floor_ns\n", places, LINE_PASSES);
    for (int k = 0; k < places; k++)
        printf("%d\t%.1f\n", k, ns[k]);
    memcpy(sorted, ns, (size_t)places * sizeof *ns);
    gsl_sort(sorted, 1, (size_t)places);
    double med = gsl_stats_median_from_sorted_data(sorted, 1, (size_t)places);
    int slow = 0;
    for (int k = 0; k < places; k++)
        slow += sorted[k] > LINE_SLOW * med;
    printf("# spread: median %.1f ns, quartiles %.1f..%.1f, fastest %.1f, slowest %.1f (%.2fx the"
           " median); %d of %d places above %.1fx the median\n", med,
           gsl_stats_quantile_from_sorted_data(sorted, 1, (size_t)places, 0.25),
           gsl_stats_quantile_from_sorted_data(sorted, 1, (size_t)places, 0.75), sorted[0],
           sorted[places - 1], sorted[places - 1] / med, slow, places, LINE_SLOW);
    return 0;
}

/* --floor: the flag alone; with --sizes, for each size the flag and the
 * same bounce carrying that many bytes, measured alternately. */
static int run_floor(bench_cli *c, int have_sizes)
{
    double floor_ns, copy_ns;
    if (have_sizes)
        printf("# copy: the floor's bounce carrying size bytes, copied in by the sender and"
               " out by the receiver; half round trips, medians of %d batches, alternating\n"
               "# columns: size_bytes floor_ns copy_ns\n", FLOOR_BATCHES);
    for (size_t i = 0; i < (have_sizes ? c->cfg.nsizes : 1); i++) {
        size_t size = have_sizes ? (size_t)c->cfg.sizes[i] : 0;
        int rc = c->be->floor(&c->setup.cfg, FLOOR_BATCHES, size, &floor_ns, &copy_ns);
        if (rc) {
            fprintf(stderr, "%s: --floor: %s\n", c->prog, bench_cli_error_text(rc));
            return EXIT_FAILURE;
        }
        if (have_sizes)
            printf("%zu\t%.1f\t%.1f\n", size, floor_ns, copy_ns);
        else
            printf("floor_ns\t%.1f\n", floor_ns);
        fflush(stdout);
    }
    return 0;
}

/* What a message header ranges over (bench_backend_config): the mpi
 * backend packs it into the MPI tag.  The main network's nodes are the
 * ranks when nothing named them (0: one per process). */
static void header_ranges(bench_cli *c)
{
    bench_backend_config *b = &c->setup.cfg;
    b->nets = 1 + c->nextra;
    b->max_nodes = c->have_topology || c->bc->caps & BENCH_CAP_SPAWNS ? c->cfg.shape.nodes : 0;
    b->max_dims = c->cfg.shape.dims;
    for (int k = 0; k < c->nextra; k++) {
        const topo_shape *sh = &c->extra[k].shape;
        if (sh->nodes > b->max_nodes)
            b->max_nodes = sh->nodes;
        if (sh->dims > b->max_dims)
            b->max_dims = sh->dims;
    }
}


/* The networks of a run: the main one, then each --interleave network, a
 * copy of the main configuration on its own shape with its symmetric
 * destination (or every destination).  Returns how many, or -(exit status)
 * on an error (then no cfgs[k].dsts is left allocated for k > 0). */
static int interleave_configs(bench_cli *c, bench_config *cfgs, const char **paths)
{
    int rc = 0, k;
    cfgs[0] = c->cfg;
    paths[0] = c->out_path;
    if (!c->nextra)
        return 1;
    if (c->cfg.done)
        return -bench_cli_usage(c, "--resume: a run with --interleave cannot be resumed; run"
                                   " it again");
    if (c->have_dst || c->have_hops)
        return -bench_cli_usage(c, "--interleave: --dst and --hops name one network's node;"
                                   " the networks take their symmetric destinations or"
                                   " --all-dst");
    if (c->cfg.pattern == BENCH_OW)
        return -bench_cli_usage(c, "--interleave: measures ping-pong only (--pattern pp)");
    for (k = 0; k < c->nextra && !rc; k++) {
        const topo_shape *sh = &c->extra[k].shape;
        if (c->bc->caps & BENCH_CAP_SPAWNS && sh->nodes < c->setup.cfg.procs) {
            rc = bench_cli_usage(c, "--interleave '%s': more processes (%d) than its %ld nodes",
                                 c->extra[k].text, c->setup.cfg.procs, sh->nodes);
            break;
        }
        /* the same file under two names (./a.tsv, a link) is the same file */
        for (int j = 0; j <= k && !rc; j++)
            if (paths[j] && file_same(paths[j], c->extra[k].path))
                rc = bench_cli_usage(c, "--interleave '%s': '%s' is the same file as '%s',"
                                        " already an output of this run", c->extra[k].text,
                                     c->extra[k].path, paths[j]);
        if (rc)
            break;
        paths[k + 1] = c->extra[k].path;
        cfgs[k + 1] = c->cfg;
        cfgs[k + 1].shape = *sh;
        if (!(cfgs[k + 1].dsts = destinations(sh, c->all_dst, NULL, &cfgs[k + 1].ndst))) {
            fprintf(stderr, "%s: out of memory\n", c->prog);
            rc = EXIT_FAILURE;
        }
    }
    if (!rc)
        return 1 + c->nextra;
    for (int j = 1; j <= k; j++)
        free(cfgs[j].dsts);
    return -rc;
}

/* The launcher's ranks are the main network's nodes: without --ring or
 * --torus they form a ring.  Known only after init. */
static int ranks_are_nodes(bench_cli *c, int ranks, bench_data *header, bench_config *cfgs)
{
    int rc;
    if (ranks < 2)
        return bench_cli_usage(c, "needs at least 2 MPI ranks (mpirun -np 2 %s ...)", c->prog);
    if (!c->have_topology)
        topo_shape_equal(1, ranks, &c->cfg.shape);
    if (c->cfg.shape.nodes != ranks)
        return bench_cli_usage(c, "%ld nodes but %d MPI ranks: each rank is one node",
                               c->cfg.shape.nodes, ranks);
    bench_cli_header_shape(&c->cfg.shape, header);
    if ((rc = check_network(c)) || (rc = bench_cli_check_resumed(c)))
        return rc;
    for (int k = 0; k < c->nextra; k++)
        if (c->extra[k].shape.nodes < ranks)
            return bench_cli_usage(c, "--interleave '%s': more MPI ranks (%d) than its %ld"
                                      " nodes", c->extra[k].text, ranks,
                                   c->extra[k].shape.nodes);
    cfgs[0] = c->cfg;
    return 0;
}

static void grid_header(const bench_cli *c, bench_data *h)
{
    bench_cli_header_start(c, h);
    if (c->bc->caps & BENCH_CAP_ROUTE)
        bench_data_set_header(h, "route", "%s",
                              c->cfg.route == BENCH_ROUTE_NETWORK ? "network" : "software");
    bench_data_set_header(h, "procs", "%d", c->setup.cfg.procs);
    bench_cli_header_shape(&c->cfg.shape, h);
    bench_data_set_header(h, "pattern", "%s", c->cfg.pattern == BENCH_PP ? "pp" : "ow");
    bench_data_set_header(h, "inject", "forward_ns=%g switch_ns=%g", c->cfg.inject_forward_ns,
                          c->cfg.inject_switch_ns);
    bench_data_set_header(h, "send_from", "%s", c->cfg.echo ? "received bytes (--echo)"
                                                            : "send buffer");
    if (c->cfg.cut_quantile > 0)
        bench_data_set_header(h, "cut_quantile", "%g", c->cfg.cut_quantile);
    h->node_times = c->coll.node_times;
}

/* Output goes to atomic files (or stdout); on failure the finished points
 * are kept and each file is marked incomplete. */
static int measure(bench_cli *c, int *argc, char ***argv, bench_config *cfgs,
                   const char *const *paths, int nnets)
{
    bench_comm *comm;
    bench_data header[BENCH_MAX_NETS];
    atomic_file af[BENCH_MAX_NETS];
    FILE *out[BENCH_MAX_NETS];
    double floor_ns = 0;
    int rc = 0;

    /* from here on Ctrl-C or SIGTERM ends the run with its finished points */
    bench_signals_install_stop();
    grid_header(c, &header[0]);
    if (c->be->floor && c->be->floor(&c->setup.cfg, FLOOR_BATCHES, 0, &floor_ns, NULL) == 0)
        bench_data_set_header(&header[0], "floor_ns", "%.1f", floor_ns);
    header_ranges(c);
    if ((rc = c->be->init(&comm, argc, argv, &c->setup.cfg))) {
        fprintf(stderr, "%s: cannot start: %s\n", c->prog, bench_cli_error_text(rc));
        return rc == BENCH_ERR_TAGS ? EXIT_USAGE : EXIT_FAILURE;
    }
    if (!(c->bc->caps & BENCH_CAP_SPAWNS) &&
        (rc = ranks_are_nodes(c, c->be->size(comm), &header[0], cfgs))) {
        c->be->finalize(comm, 0);
        return rc;
    }
    bench_data_set_header(&header[0], "procs", "%d", c->be->size(comm));
    int root = c->be->rank(comm) == bench_host(cfgs[0].src, c->be->size(comm));
    for (int k = 0; k < nnets; k++) {
        af[k] = (atomic_file){NULL, NULL, NULL, 0, NULL};
        out[k] = stdout;
        if (k > 0) {
            header[k] = header[0];
            bench_cli_header_shape(&cfgs[k].shape, &header[k]);
        }
    }
    for (int k = 0; root && k < nnets && !rc; k++)
        if (bench_cli_open(c, k ? "--interleave" : "-o", paths[k], &af[k], &out[k]))
            rc = BENCH_ERR_SYSTEM;
    if (rc) {
        for (int k = 0; k < nnets; k++)
            atomic_file_abort(&af[k]);   /* nothing to do where none was opened */
        c->be->finalize(comm, 1);
        return EXIT_FAILURE;
    }
    rc = bench_run(c->be, comm, cfgs, nnets, header, out);
    /* stopped before the run wrote its header (a signal during the floor
     * probe or the start): the file still gets it, and a resumed file its
     * points, so that it stays a data file --resume can continue */
    for (int k = 0; root && rc && k < nnets; k++)
        if (af[k].fp && ftell(af[k].fp) == 0) {
            bench_data_write_header(out[k], &header[k]);
            for (long i = 0; k == 0 && cfgs[0].done && i < cfgs[0].done->count; i++)
                bench_data_write_point(out[k], &cfgs[0].done->points[i]);
        }
    int status = bench_cli_status(rc);
    for (int k = 0; root && k < nnets; k++)
        if (bench_cli_commit(c, &af[k], out[k], paths[k], rc, "points")) {
            status = EXIT_FAILURE;
            rc = rc ? rc : BENCH_ERR_SYSTEM;
        }
    for (int k = 0; root && k < nnets && !rc; k++)
        bench_sort_rows(c->prog, paths[k]);
    /* An interrupted process other than the root leaves the ending to the
     * root, which writes its '# incomplete' file first and then aborts the
     * job (an abort from here could kill the root before it has written). */
    int frc = c->be->finalize(comm, rc != 0 && (root || rc != BENCH_ERR_INTERRUPT) ? status : 0);
    if (!rc && frc) {
        fprintf(stderr, "%s: %s\n", c->prog, bench_cli_error_text(frc));
        status = EXIT_FAILURE;
    }
    return status;
}

/* H, F, S and H', F', S' of the route from cfg->src to dst and back. */
void bench_fill_counts(const bench_config *cfg, long dst, bench_point *pt)
{
    long s[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS], h[TOPO_MAX_DIMS];
    topo_counts q, r;
    topo_rank_to_coords(&cfg->shape, cfg->src, s);
    topo_rank_to_coords(&cfg->shape, dst, d);
    topo_hops(&cfg->shape, s, d, h);
    topo_request_counts(&cfg->shape, h, &q);
    topo_response_counts(&cfg->shape, h, &r);
    pt->hops = q.links;
    pt->fwd = q.forwards;
    pt->sw = q.switches;
    pt->rhops = r.links;
    pt->rfwd = r.forwards;
    pt->rsw = r.switches;
}

static int grid_check(bench_cli *c)
{
    c->cfg.node_times = c->coll.node_times;
    if (c->floor_only && c->cfg.node_times)
        return bench_cli_usage(c, "--node-times: not with --floor (no points)");
    if (c->cfg.min_samples > c->cfg.max_samples)
        return bench_cli_usage(c, "--min-samples %ld: more than --max-samples %ld",
                               c->cfg.min_samples, c->cfg.max_samples);
    if (c->floor_lines && !c->floor_only)
        return bench_cli_usage(c, "--lines: only with --floor (it measures the floor's places)");
    if (c->floor_lines && c->have_sizes)
        return bench_cli_usage(c, "--lines and --sizes: --lines bounces the bare flag alone");
    if (c->floor_only)
        return check_floor(c);
    return 0;
}

static int grid_run(bench_cli *c, int *argc, char ***argv)
{
    bench_config cfgs[BENCH_MAX_NETS];
    const char *paths[BENCH_MAX_NETS];
    int rc = 0, nnets;
    if (c->floor_only)
        return (rc = bench_cli_prepare(c)) ? rc
               : c->floor_lines                  ? run_floor_lines(c)
                                                 : run_floor(c, c->have_sizes);
    if (c->bc->caps & BENCH_CAP_SPAWNS &&
        ((rc = check_network(c)) || (rc = bench_cli_check_resumed(c))))
        return rc;
    nnets = interleave_configs(c, cfgs, paths);
    if (nnets < 0)
        return -nnets;
    if ((rc = bench_cli_prepare(c)))
        ;   /* the CPUs refused */
    else if (c->resume_path && !c->resume_data.incomplete)
        fprintf(stderr, "%s: %s is already complete; nothing to resume\n", c->prog,
                c->resume_path);
    else
        rc = measure(c, argc, argv, cfgs, paths, nnets);
    for (int k = 1; k < nnets; k++)
        free(cfgs[k].dsts);
    return rc;
}

const bench_pattern_desc bench_pattern_pp = {"pp", BENCH_IN_GRID, "1..65536", grid_check,
                                             grid_run, NULL};
const bench_pattern_desc bench_pattern_ow = {"ow", BENCH_IN_GRID, "1..65536", grid_check,
                                             grid_run, NULL};

const char *bench_grid_help(const bench_cli *c, char *epilog, size_t size)
{
    printf("Usage: %s [OPTIONS]\n%s", c->prog, c->bc->intro);
    snprintf(epilog, size, "\nOutput: a scitorus-bench TSV (docs/formats.md): '#' header lines,"
             " one row per\npoint: pattern src dst hops fwd sw rhops rfwd rsw size reps samples"
             " min_ns\nmedian_ns mean_ns sd_ns ci95_ns max_ns flag floor_ns floor_q1_ns"
             " floor_q3_ns;\nloads straight into gnuplot.  The floor, an idle 0-byte ping-pong"
             " to a\nneighbour process, is timed beside the batches (at most every 1 ms): each"
             " row\ngives its batches' floor, and a point over a quarter of whose batches lie"
             " in\nanother regime (floors %gx apart: docs/formats.md, 'Regimes') says so.  An"
             "\ninterrupted run (Ctrl-C, SIGTERM to any process, a dead peer, --timeout)"
             "\nkeeps its finished points and ends '# incomplete'; it never replaces an"
             "\nexisting FILE (which may hold a complete run): then it writes FILE.incomplete"
             "\nbeside it and says so.  Points go to FILE.incomplete as they finish, so even"
             "\na killed run leaves them there.\nExit status: 0 success, 1 runtime failure, 2 usage error,"
             " 130 interrupted\n(SIGINT, SIGTERM, SIGHUP: the finished points kept).\n\n"
             "Examples:\n%s", BENCH_REGIME_RATIO, c->bc->examples);
    return epilog;
}
