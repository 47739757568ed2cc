/* scisim_torus: one schedule replayed on every candidate torus (--dims,
 * --shape), ranks placed as scimodel --traffic places them; a row per
 * candidate and the best one named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "model/candidates.h"
#include "model/projection.h"
#include "model/uncertainty.h"
#include "model/traffic.h"
#include "scisim/schedule_traffic.h"
#include "scisim/scisim.h"
#include "sim/router_replay.h"
#include "util/file_error.h"
#include "util/parse.h"

#define MAX_ROWS (CAND_MAX + SCISIM_MAX_CANDIDATES + 1)

typedef struct row {
    topo_shape shape;
    char name[TOPO_MAX_DIMS * 21];
    const char *placement;
    sim_result r;
    sim_router_report rep;   /* --router */
    int done;
    int grid;         /* the schedule's own process grid */
    double sigma;     /* of the makespan (NaN: no interval) */
} row;

/* --dims: every exact shape and the smallest holding ones
 * (model/candidates.h), then --shape's, then the schedule's grid read from
 * its traffic t (rows by node). */
static int make_candidates(const scisim_opts *o, const traffic_matrix *t, long nodes, row *rows,
                           size_t *count)
{
    topo_parse_error perr;
    cand c[MAX_ROWS];
    size_t n = 0, dropped = 0;
    topo_shape shape, grid;
    *count = 0;
    if (o->ndims && cand_for_dims(o->dims, o->ndims, o->nodes ? o->nodes : nodes, c, CAND_MAX, &n,
                                  &dropped))
        return scisim_usage_error("--dims: no torus of at most 1e15 nodes holds %ld nodes",
                                  o->nodes ? o->nodes : nodes);
    if (dropped)
        fprintf(stderr, "scisim: %zu of the least even exact shapes left out (at most %d "
                        "candidates; --shape names one)\n", dropped, CAND_MAX);
    for (size_t i = 0; i < o->nshapes; i++) {
        if (topo_shape_parse(o->shape_text[i], &shape, &perr))
            return scisim_usage_error("--shape '%s': %s at character %zu", o->shape_text[i], perr.what,
                                      perr.pos + 1);
        cand_add(c, MAX_ROWS, &n, &shape, CAND_GIVEN, 0);
    }
    if (o->ndims && !o->nodes && cand_grid_of(t, nodes, &grid))
        cand_add(c, MAX_ROWS, &n, &grid, CAND_EXACT, 1);
    for (size_t i = 0; i < n; i++) {
        rows[i].shape = c[i].shape;
        rows[i].grid = c[i].grid;
    }
    *count = n;
    for (size_t i = 0; i < *count; i++) {
        topo_shape_format(&rows[i].shape, rows[i].name, sizeof rows[i].name);
        if (rows[i].shape.nodes < nodes)
            return scisim_usage_error("%s: %ld nodes, the schedule needs %ld", rows[i].name,
                                      rows[i].shape.nodes, nodes);
        if (rows[i].shape.nodes > TRAFFIC_MAX_RANKS)
            return scisim_usage_error("%s: over %ld nodes", rows[i].name, TRAFFIC_MAX_RANKS);
    }
    return 0;
}

/* Logical node j on torus node pos[j]: row-major, a file, or (optimize)
 * annealed from row-major for the schedule's traffic matrix t. */
static int place(const scisim_opts *o, const traffic_matrix *t, row *c, long nodes, long *pos,
                 int optimize)
{
    traffic_error err;
    int rc;
    proj_row_major(nodes, pos);
    if (optimize) {
        if (c->shape.nodes > PROJ_ANNEAL_MAX_NODES)
            return scisim_runtime_error("--placement optimize: %s has over %ld nodes", c->name,
                                        PROJ_ANNEAL_MAX_NODES);
        proj_config pc = {&o->inter, &o->intra, o->links, 1, NULL, NULL};
        if (proj_optimize(&pc, t, &c->shape, o->anneal_steps, pos, NULL, NULL))
            return scisim_runtime_error("%s: out of memory for the annealing", c->name);
    } else if (strcmp(o->placement, "row-major") && strcmp(o->placement, "optimize") &&
               (rc = traffic_placement_read(o->placement, nodes, c->shape.nodes, pos, &err)))
        return rc == -1 ? scisim_runtime_error("--placement %s: %s", o->placement, err.msg)
                        : scisim_runtime_error("--placement %s:%ld: %s", o->placement, err.line,
                                               err.msg);
    return 0;
}

/* The makespan as a function of the network's parameters (its interval):
 * one more replay per parameter with an error; same-node messages move
 * with them unless --intra-params. */
typedef struct span_arg {
    const scisim_opts *o;
    const goal_schedule *s;
    const row *c;
    const long *node_of_rank;
} span_arg;

static int span_fn(const model_params *p, void *arg, double *v)
{
    const span_arg *a = arg;
    const scisim_opts *o = a->o;
    sim_result r;
    sim_config cf = {0};
    cf.torus = 1;
    cf.S = o->S;
    const model_params *intra = o->intra_path ? &o->intra : p;
    cf.t = (sim_torus){p, intra, &a->c->shape, o->links, a->node_of_rank, o->contention,
                       o->self_path ? &o->self : intra, o->duplex_ns, o->duplex_ns_per_byte,
                       NULL, NULL};
    cf.stop = scisim_stop;
    sim_router_report rep;
    int rc = o->router_text ? sim_run_router(a->s, &cf, &o->router, (int)o->router_passes, &r, &rep)
                            : sim_run(a->s, &cf, &r);
    if (rc)
        return -1;
    int bad = r.stuck[0] || r.interrupted;
    *v = r.makespan;
    sim_result_free(&r);
    return bad;
}

static int replay(const scisim_opts *o, const goal_schedule *s, row *c, const long *pos,
                  const long *rank_node, long *node_of_rank)
{
    for (uint32_t r = 0; r < s->ranks; r++)
        node_of_rank[r] = pos[rank_node[r]];
    sim_config cf = {0};
    cf.torus = 1;
    cf.S = o->S;
    cf.t = (sim_torus){&o->inter, &o->intra, &c->shape, o->links, node_of_rank, o->contention, &o->self,
                       o->duplex_ns, o->duplex_ns_per_byte, NULL, NULL};
    cf.stop = scisim_stop;
    if (!o->quiet) {
        cf.progress = scisim_progress;
        cf.progress_arg = c->name;
    }
    int rc = o->router_text ? sim_run_router(s, &cf, &o->router, (int)o->router_passes, &c->r, &c->rep)
                            : sim_run(s, &cf, &c->r);
    if (rc == 1)
        return scisim_runtime_error("%s: the router model deadlocked on %s (--router %s)", o->goal_path,
                                    c->name, o->router_text);
    if (rc)
        return scisim_runtime_error("%s: out of memory for the replay on %s", o->goal_path, c->name);
    if (c->r.stuck[0]) {
        sim_result_free(&c->r);
        return scisim_runtime_error("%s: %s", o->goal_path, c->r.stuck);
    }
    c->done = !c->r.interrupted;
    c->sigma = NAN;
    if (c->done && unc_has_errors(&o->inter)) {
        span_arg a = {o, s, c, node_of_rank};
        double v;
        if (unc_eval(&o->inter, span_fn, &a, &v, &c->sigma))
            c->sigma = NAN;
    }
    const sim_router_report *p = &c->rep;
    if (c->done && o->router_text && p->passes > 1) {
        /* stopping the passes: the last one's change is a 95% half-width,
         * independent of the parameters' errors */
        double d = fabs(p->makespan[p->passes - 1] - p->makespan[p->passes - 2]) / UNC_Z95;
        c->sigma = isnan(c->sigma) ? d : sqrt(c->sigma * c->sigma + d * d);
    }
    return 0;
}

static const char *link_name(const sim_link_stat *l, char *buf, size_t len)
{
    if (l->dim == -1)
        snprintf(buf, len, "node %ld injection", l->node);
    else if (l->dim == -2)
        snprintf(buf, len, "node %ld ejection", l->node);
    else
        snprintf(buf, len, "node %ld dim %d %s", l->node, l->dim + 1, l->way ? "-" : "+");
    return buf;
}

/* The verdict over the finished rows: 1 best named (*best), 0 a tie
 * (tie[]), -1 none finished. */
static int verdict(const row *rows, size_t n, size_t *best, int *tie, double *margin,
                   const char **names, char (*label)[TOPO_MAX_DIMS * 21 + 32])
{
    double *value = malloc((n + 1) * sizeof *value), *sigma = malloc((n + 1) * sizeof *sigma);
    if (!value || !sigma) {
        free(value);
        free(sigma);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        value[i] = rows[i].done ? rows[i].r.makespan : NAN;
        sigma[i] = rows[i].sigma;
        snprintf(label[i], sizeof label[i], "%s (%s)", rows[i].name, rows[i].placement);
        names[i] = label[i];
    }
    int named = unc_verdict(value, sigma, n, best, tie, margin);
    int rc = *best == n ? -1 : named;
    free(value);
    free(sigma);
    return rc;
}

static void print_tie(FILE *fp, const row *rows, size_t n, size_t best, const int *tie,
                      double margin, const char *const *names)
{
    double value[MAX_ROWS * 2], sigma[MAX_ROWS * 2];
    for (size_t i = 0; i < n; i++) {
        value[i] = rows[i].done ? rows[i].r.makespan : NAN;
        sigma[i] = rows[i].sigma;
    }
    fputc('\n', fp);
    char text[UNC_TEXT];
    fprintf(fp, "%s\n", unc_tie_text(text, sizeof text, names, value, sigma, n, best, tie, margin,
                                    1e-3, "us"));
}

/* rows: the n replays run, of total asked for; interrupted, no best is
 * named, as the candidates not replayed might beat it. */
static void print(const scisim_opts *o, const goal_schedule *s, FILE *fp, row *rows, size_t n,
                  size_t total, long nodes)
{
    const char *links = topo_links_name(o->links);
    if (o->ranks) {
        for (size_t i = 0; i < n; i++)
            if (rows[i].done) {
                fprintf(fp, "# %s %s\n", rows[i].name, rows[i].placement);
                scisim_print_ranks(fp, &rows[i].r);
            }
        return;
    }
    if (o->tsv) {
        fputs("dims\tshape\tplacement\tlinks\tmakespan_ns\tmean_finish_ns\tmessages\tbytes\twait_ns"
              "\tnodes\tmakespan_ns_lo\tmakespan_ns_hi\tgrid\n", fp);
        for (size_t i = 0; i < n; i++)
            if (rows[i].done) {
                fprintf(fp, "%d\t%s\t%s\t%s\t%.17g\t%.17g\t%llu\t%llu\t%.17g\t%ld", rows[i].shape.dims,
                        rows[i].name, rows[i].placement, links, rows[i].r.makespan, rows[i].r.mean_finish,
                        (unsigned long long)rows[i].r.messages, (unsigned long long)rows[i].r.bytes,
                        rows[i].r.wait_ns, rows[i].shape.nodes);
                if (isnan(rows[i].sigma))
                    fputs("\t-\t-", fp);
                else
                    fprintf(fp, "\t%.17g\t%.17g", rows[i].r.makespan - UNC_Z95 * rows[i].sigma,
                            rows[i].r.makespan + UNC_Z95 * rows[i].sigma);
                fprintf(fp, "\t%s\n", rows[i].grid ? "matrix" : "no");
            }
        return;
    }
    char duplex[96] = "";
    if (o->duplex_ns > 0 || o->duplex_ns_per_byte > 0)
        snprintf(duplex, sizeof duplex, ", a receive during a send +%g ns + %g ns/B", o->duplex_ns,
                 o->duplex_ns_per_byte);
    if (o->hostfile)
        fprintf(fp, "Replay of %s (%u ranks placed as mpirun from %s) on %s links, %s%s\n",
                o->goal_path, s->ranks, o->hostfile, links,
                o->contention ? "with link contention" : o->router_text ? "through the router model" : "zero-load network", duplex);
    else
        fprintf(fp, "Replay of %s (%u ranks, %ld per node) on %s links, %s%s\n", o->goal_path,
                s->ranks, o->slots, links,
                o->contention ? "with link contention" : o->router_text ? "through the router model" : "zero-load network", duplex);
    fprintf(fp, "  parameters: %s\n", o->inter.name);
    char text[UNC_TEXT];
    fprintf(fp, "  %s\n", model_params_sources_text(text, sizeof text, &o->inter,
                                                     o->contention || o->router_text));
    fprintf(fp, "  %s\n", unc_describe_text(text, sizeof text, &o->inter));
    char regime[200];
    if (model_params_regime_text(&o->inter, regime, sizeof regime))
        fprintf(fp, "  %s\n", regime);
    fputc('\n', fp);
    int errs = unc_has_errors(&o->inter);
    fprintf(fp, "  D  shape            placement   makespan (us)  mean finish (us)  messages      bytes"
                "  wait (us)  nodes%s\n", errs ? "         makespan 95% (us)" : "");
    size_t best = n;
    int *tie = calloc(n + 1, sizeof *tie);
    const char **names = calloc(n + 1, sizeof *names);
    char (*label)[TOPO_MAX_DIMS * 21 + 32] = calloc(n + 1, sizeof *label);
    double margin = NAN;
    size_t finished = 0;
    for (size_t i = 0; i < n; i++)
        finished += rows[i].done != 0;
    /* interrupted: the candidates not replayed might beat them all */
    int named = finished == total && tie && names && label
                    ? verdict(rows, n, &best, tie, &margin, names, label) : -1;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].done)
            continue;
        const sim_result *r = &rows[i].r;
        char nb[64], iv[64] = "";
        cand c = {.shape = rows[i].shape};
        cand_nodes_text(&c, nodes, nb, sizeof nb);
        if (errs)
            unc_format(iv, sizeof iv, r->makespan, rows[i].sigma, 1e-3, 3);
        const char *mark = named == 1 && i == best ? "  <- best" : named == 0 && tie[i] ? "  <- tie" : "";
        fprintf(fp, "  %d  %-15s  %-10.10s  %13.3f  %16.3f  %8llu  %9llu  %9.3f  %s", rows[i].shape.dims,
                rows[i].name, rows[i].placement, r->makespan / 1e3, r->mean_finish / 1e3,
                (unsigned long long)r->messages, (unsigned long long)r->bytes, r->wait_ns / 1e3, nb);
        if (errs || *mark || rows[i].grid)
            fprintf(fp, "%*s", strlen(nb) >= 12 ? 0 : 12 - (int)strlen(nb), "");
        if (errs)
            fprintf(fp, " %24s", iv);
        fprintf(fp, "%s%s\n", mark, rows[i].grid ? "  (the schedule's grid)" : "");
    }
    if (finished < total)
        fprintf(fp, "\nInterrupted: %zu of %zu replays finished, so no best is named.\n",
                finished, total);
    else if (named == 1)
        fprintf(fp, "\nBest: %s (%dD, %s placement), makespan %.3f us\n", rows[best].name,
                rows[best].shape.dims, rows[best].placement, rows[best].r.makespan / 1e3);
    else if (named == 0)
        print_tie(fp, rows, n, best, tie, margin, names);
    free(tie);
    free(names);
    free(label);
    for (size_t i = 0; o->contention && i < n; i++) {
        char buf[80];
        if (!rows[i].done || !rows[i].r.ntop)
            continue;
        fprintf(fp, "%s (%s) busiest links:", rows[i].name, rows[i].placement);
        for (int k = 0; k < rows[i].r.ntop; k++)
            fprintf(fp, "%s %s (%.3f us busy, %.3f us waited)", k ? ";" : "",
                    link_name(&rows[i].r.top[k], buf, sizeof buf), rows[i].r.top[k].busy_ns / 1e3,
                    rows[i].r.top[k].wait_ns / 1e3);
        fputc('\n', fp);
    }
}

/* --router: what the passes did, below the table (a comment line each with --format tsv). */
static void print_router(const scisim_opts *o, FILE *fp, const row *rows, size_t n)
{
    const sim_router_config *c = &o->router;
    const char *pre = o->tsv ? "# " : "";
    fprintf(fp, "%s%sRouter model: vc:%d buf:%s%ld delay:%d head:%d link:%d dateline:%s, flits of %ld B,"
                " packets of %ld B, a cycle %.6g ns (flit / link_bw_bytes_per_ns)\n",
            o->tsv ? "" : "\n", pre, c->vcs, c->buf ? "" : "inf", c->buf ? c->buf : 0, c->router_delay,
            c->head_delay, c->link_latency, c->dateline ? "on" : "off", c->flit_bytes, c->packet_bytes,
            (double)c->flit_bytes / o->inter.link_bw_bytes_per_ns);
    for (size_t i = 0; i < n; i++) {
        const sim_router_report *p = &rows[i].rep;
        if (!rows[i].done)
            continue;
        fprintf(fp, "%s%s (%s): makespan by pass", pre, rows[i].name, rows[i].placement);
        for (int k = 0; k < p->passes; k++)
            fprintf(fp, "%s %.3f", k ? " ->" : "", p->makespan[k] / 1e3);
        double last = p->passes > 1 ? p->makespan[p->passes - 1] - p->makespan[p->passes - 2] : 0;
        fprintf(fp, " us (the last pass moved it %+.3f us, in the interval); %llu network messages queued %.3f us in"
                    " all; %llu flit-hops\n",
                last / 1e3, (unsigned long long)p->messages, p->queue_ns / 1e3,
                (unsigned long long)p->flit_hops);
    }
}

/* Ranks onto logical nodes: blocks of --slots, or as mpirun places them
 * from --hostfile. */
static int place_ranks(const scisim_opts *o, long ranks, long *rank_node, long *nodes)
{
    file_error err;
    const char *which = NULL;
    int rc = launch_place(&o->launch, ranks, rank_node, nodes, &err, &which);
    if (rc == -3)
        return scisim_usage_error("--map-by: %s", err.msg);
    if (rc) {
        const char *path = strcmp(which, "--hostfile") ? o->rankfile : o->hostfile;
        char buf[512];
        return scisim_runtime_error("%s %s", which, file_error_text(&err, path, buf, sizeof buf));
    }
    return 0;
}

int scisim_torus(const scisim_opts *o, const goal_schedule *s)
{
    long nodes = 0;
    int optimize = strcmp(o->placement, "optimize") == 0;
    row *cand = calloc(MAX_ROWS, sizeof *cand);
    row *rows = calloc(2 * MAX_ROWS, sizeof *rows);
    long *rank_node = malloc(((size_t)s->ranks + 1) * sizeof *rank_node);
    long *nor = malloc(((size_t)s->ranks + 1) * sizeof *nor);
    long *pos = NULL;
    traffic_matrix t = {0};
    size_t n = 0, nrows = 0;
    int rc = 1, partial = 0;
    if (!cand || !rows || !rank_node || !nor || schedule_traffic(s, &t)) {
        scisim_runtime_error("out of memory");
        goto out;
    }
    if ((rc = place_ranks(o, (long)s->ranks, rank_node, &nodes)))
        goto out;
    traffic_to_nodes(&t, rank_node, nodes);
    if (!(pos = malloc((size_t)nodes * sizeof *pos))) {
        rc = scisim_runtime_error("out of memory");
        goto out;
    }
    if ((rc = make_candidates(o, &t, nodes, cand, &n)))
        goto out;
    for (size_t i = 0; i < n && !partial; i++)
        for (int opt = 0; opt <= optimize && !partial; opt++) {
            row *r = &rows[nrows++];
            *r = cand[i];
            r->placement = optimize ? (opt ? "optimize" : "row-major") : o->placement;
            if ((rc = place(o, &t, r, nodes, pos, opt)) ||
                (rc = replay(o, s, r, pos, rank_node, nor)))
                goto out;
            partial = r->r.interrupted;
        }
    scisim_out *out = scisim_out_open(o);
    if (!out) {
        rc = 1;
        goto out;
    }
    size_t total = n * (optimize ? 2 : 1);
    long finished = 0;
    for (size_t i = 0; i < nrows; i++)
        finished += rows[i].done != 0;
    print(o, s, scisim_out_fp(out), rows, nrows, total, nodes);
    if (o->router_text && !o->ranks)
        print_router(o, scisim_out_fp(out), rows, nrows);
    rc = scisim_out_close(out, partial, finished);
out:
    for (size_t i = 0; rows && i < nrows; i++)
        sim_result_free(&rows[i].r);
    traffic_free(&t);
    free(cand);
    free(rows);
    free(pos);
    free(rank_node);
    free(nor);
    return rc;
}
