/* scisim_torus: one schedule replayed on every candidate torus (--dims,
 * --shape), ranks placed as scimodel --traffic places them; a row per
 * candidate and the best one named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/projection.h"
#include "model/traffic.h"
#include "scisim/schedule_traffic.h"
#include "scisim/scisim.h"
#include "util/file_error.h"
#include "util/parse.h"

typedef struct row {
    topo_shape shape;
    char name[TOPO_MAX_DIMS * 21];
    const char *placement;
    sim_result r;
    int done;
} row;

static int make_candidates(const scisim_opts *o, long nodes, row *rows, size_t *count)
{
    topo_parse_error perr;
    *count = 0;
    for (size_t i = 0; i < o->ndims; i++)
        if (proj_smallest_torus((int)o->dims[i], o->nodes ? o->nodes : nodes, &rows[(*count)++].shape))
            return scisim_usage_error("--dims: no %ldD torus of at most 1e15 nodes", o->dims[i]);
    for (size_t i = 0; i < o->nshapes; i++) {
        row *c = &rows[(*count)++];
        if (topo_shape_parse(o->shape_text[i], &c->shape, &perr))
            return scisim_usage_error("--shape '%s': %s at character %zu", o->shape_text[i], perr.what,
                                      perr.pos + 1);
    }
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

static int replay(const scisim_opts *o, const goal_schedule *s, row *c, const long *pos,
                  const long *rank_node, long *node_of_rank)
{
    for (uint32_t r = 0; r < s->ranks; r++)
        node_of_rank[r] = pos[rank_node[r]];
    sim_config cf = {0};
    cf.torus = 1;
    cf.S = o->S;
    cf.t = (sim_torus){&o->inter, &o->intra, &c->shape, o->links, node_of_rank, o->contention, &o->self,
                       o->duplex_ns, o->duplex_ns_per_byte};
    cf.stop = scisim_stop;
    if (!o->quiet) {
        cf.progress = scisim_progress;
        cf.progress_arg = c->name;
    }
    if (sim_run(s, &cf, &c->r))
        return scisim_runtime_error("%s: out of memory for the replay on %s", o->goal_path, c->name);
    if (c->r.stuck[0]) {
        sim_result_free(&c->r);
        return scisim_runtime_error("%s: %s", o->goal_path, c->r.stuck);
    }
    c->done = !c->r.interrupted;
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

/* rows: the n replays run, of total asked for; interrupted, no best is
 * named, as the candidates not replayed might beat it. */
static void print(const scisim_opts *o, const goal_schedule *s, FILE *fp, row *rows, size_t n,
                  size_t total)
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
        fputs("dims\tshape\tplacement\tlinks\tmakespan_ns\tmean_finish_ns\tmessages\tbytes\twait_ns\n", fp);
        for (size_t i = 0; i < n; i++)
            if (rows[i].done)
                fprintf(fp, "%d\t%s\t%s\t%s\t%.17g\t%.17g\t%llu\t%llu\t%.17g\n", rows[i].shape.dims,
                        rows[i].name, rows[i].placement, links, rows[i].r.makespan, rows[i].r.mean_finish,
                        (unsigned long long)rows[i].r.messages, (unsigned long long)rows[i].r.bytes,
                        rows[i].r.wait_ns);
        return;
    }
    char duplex[96] = "";
    if (o->duplex_ns > 0 || o->duplex_ns_per_byte > 0)
        snprintf(duplex, sizeof duplex, ", a receive during a send +%g ns + %g ns/B", o->duplex_ns,
                 o->duplex_ns_per_byte);
    if (o->hostfile)
        fprintf(fp, "Replay of %s (%u ranks placed as mpirun from %s) on %s links, %s%s\n\n",
                o->goal_path, s->ranks, o->hostfile, links,
                o->contention ? "with link contention" : "zero-load network", duplex);
    else
        fprintf(fp, "Replay of %s (%u ranks, %ld per node) on %s links, %s%s\n\n", o->goal_path,
                s->ranks, o->slots, links,
                o->contention ? "with link contention" : "zero-load network", duplex);
    char regime[200];
    if (model_params_regime_text(&o->inter, regime, sizeof regime))
        fprintf(fp, "%s\n\n", regime);
    fprintf(fp, "  D  shape            placement   makespan (us)  mean finish (us)  messages      bytes"
                "  wait (us)\n");
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].done)
            continue;
        const sim_result *r = &rows[i].r;
        fprintf(fp, "  %d  %-15s  %-10.10s  %13.3f  %16.3f  %8llu  %9llu  %9.3f\n", rows[i].shape.dims,
                rows[i].name, rows[i].placement, r->makespan / 1e3, r->mean_finish / 1e3,
                (unsigned long long)r->messages, (unsigned long long)r->bytes, r->wait_ns / 1e3);
        if (best == n || r->makespan < rows[best].r.makespan)
            best = i;
    }
    size_t finished = 0;
    for (size_t i = 0; i < n; i++)
        finished += rows[i].done != 0;
    if (finished < total)
        fprintf(fp, "\nInterrupted: %zu of %zu replays finished, so no best is named.\n",
                finished, total);
    else if (best < n)
        fprintf(fp, "\nBest: %s (%dD, %s placement), makespan %.3f us\n", rows[best].name,
                rows[best].shape.dims, rows[best].placement, rows[best].r.makespan / 1e3);
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
    row *cand = calloc(SCISIM_MAX_CANDIDATES + TOPO_MAX_DIMS, sizeof *cand);
    row *rows = calloc(2 * (SCISIM_MAX_CANDIDATES + TOPO_MAX_DIMS), sizeof *rows);
    long *rank_node = malloc(((size_t)s->ranks + 1) * sizeof *rank_node);
    long *nor = malloc(((size_t)s->ranks + 1) * sizeof *nor);
    long *pos = NULL;
    traffic_matrix t = {0};
    size_t n = 0, nrows = 0;
    int rc = 1, partial = 0;
    if (!cand || !rows || !rank_node || !nor || (optimize && schedule_traffic(s, &t))) {
        scisim_runtime_error("out of memory");
        goto out;
    }
    if ((rc = place_ranks(o, (long)s->ranks, rank_node, &nodes)))
        goto out;
    if (optimize)
        traffic_to_nodes(&t, rank_node, nodes);
    if (!(pos = malloc((size_t)nodes * sizeof *pos))) {
        rc = scisim_runtime_error("out of memory");
        goto out;
    }
    if ((rc = make_candidates(o, nodes, cand, &n)))
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
    print(o, s, scisim_out_fp(out), rows, nrows, total);
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
