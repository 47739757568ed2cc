/* scimodel_traffic: `scimodel --traffic FILE`: reads a traffic matrix,
 * projects it onto each candidate torus (model/projection.h) with the
 * chosen placement, prints one row per candidate and placement, and names
 * the winner. */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/candidates.h"
#include "model/launch.h"
#include "model/model.h"
#include "model/params.h"
#include "model/projection.h"
#include "scimodel/scimodel.h"
#include "model/traffic.h"
#include "model/uncertainty.h"
#include "util/atomicfile.h"
#include "util/fs.h"
#include "util/opt.h"
#include "util/parse.h"
#include "topo/topo.h"

#define MAX_CANDIDATES (CAND_MAX + SCIMODEL_MAX_SHAPES + 1)

typedef cand candidate;

/* One output row. */
typedef struct result_row {
    const candidate *cand;
    const char *placement;
    proj_result r;
    double sigma;   /* of r.total_ns (NaN: no interval) */
} result_row;

/* The candidate tori (model/candidates.h): for --dims, every exact shape
 * and the smallest ones holding the nodes; the --shape ones (which must
 * hold them); and the application's grid read from the matrix. */
static int make_candidates(const scimodel_options *o, const traffic_matrix *t, long nodes,
                           candidate *cand, size_t *count)
{
    topo_parse_error perr;
    size_t dropped = 0;
    topo_shape s, grid;
    *count = 0;
    if (o->ndims && cand_for_dims(o->dims, o->ndims, nodes, cand, CAND_MAX, count, &dropped))
        return scimodel_usage_error("--dims: no torus of at most 1e15 nodes holds %ld", nodes);
    if (dropped)
        fprintf(stderr, "scimodel: %zu of the least even exact shapes left out (at most %d "
                        "candidates; --shape names one)\n", dropped, CAND_MAX);
    for (size_t i = 0; i < o->nshapes; i++) {
        if (topo_shape_parse(o->shape_texts[i], &s, &perr))
            return scimodel_usage_error("--shape '%s': %s at character %zu", o->shape_texts[i], perr.what,
                               perr.pos + 1);
        if (s.nodes < nodes)
            return scimodel_usage_error("--shape '%s': %ld nodes, the matrix needs %ld", o->shape_texts[i],
                               s.nodes, nodes);
        cand_add(cand, MAX_CANDIDATES, count, &s, CAND_GIVEN, 0);
    }
    /* the grid the application made (MPI_Cart_create), when a rank is a
     * node; else one its traffic shows */
    if (o->ndims && t->grid.dims && nodes == t->ranks && o->slots == 1 && !o->hostfile &&
        !o->rankfile)
        cand_add(cand, MAX_CANDIDATES, count, &t->grid, CAND_EXACT, 2);
    else if (o->ndims && cand_grid_of(t, nodes, &grid))
        cand_add(cand, MAX_CANDIDATES, count, &grid, CAND_EXACT, 1);
    for (size_t i = 0; i < *count; i++)
        if (cand[i].shape.nodes > TRAFFIC_MAX_RANKS)
            return scimodel_usage_error("candidate %s: over %ld nodes", cand[i].name, TRAFFIC_MAX_RANKS);
    return 0;
}

/* The total latency as a function of the network's parameters (for its
 * interval); same-node messages move with them unless --intra-params. */
typedef struct total_arg {
    const proj_config *pc;
    const traffic_matrix *t;
    const topo_shape *shape;
    const long *pos;
    int have_intra;
} total_arg;

static int total_fn(const model_params *p, void *arg, double *v)
{
    const total_arg *a = arg;
    proj_config pc = *a->pc;
    pc.inter = p;
    if (!a->have_intra)
        pc.intra = p;
    *v = proj_total_ns(&pc, a->t, a->shape, a->pos);
    return 0;
}

static int project_one(const proj_config *pc, const traffic_matrix *t, const candidate *cand,
                       const long *pos, const char *name, int have_intra, result_row *row)
{
    row->cand = cand;
    row->placement = name;
    if (proj_project(pc, t, &cand->shape, pos, &row->r)) {
        fprintf(stderr, "scimodel: %s: out of memory for the link loads\n", cand->name);
        return EXIT_FAILURE;
    }
    total_arg a = {pc, t, &cand->shape, pos, have_intra};
    double v;
    unc_eval(pc->inter, total_fn, &a, &v, &row->sigma);
    return 0;
}

/* Rows of one candidate: the placement asked for (optimize: row-major
 * first, then the annealed one). */
/* Progress of a long annealing on stderr, every PROGRESS_SECONDS. */
#define PROGRESS_SECONDS 2.0

typedef struct progress_state {
    const char *shape;
    double start, last;
} progress_state;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void anneal_progress(void *arg, long done, long total)
{
    progress_state *ps = arg;
    double t = now_s();
    if (t - ps->last >= PROGRESS_SECONDS) {
        fprintf(stderr, "scimodel: optimizing %s: %ld of at most %ld moves (%.0f s)\n",
                ps->shape, done, total, t - ps->start);
        ps->last = t;
    }
}

static int project_candidate(const scimodel_options *o, const proj_config *pc,
                             const traffic_matrix *t, const candidate *cand, long nodes,
                             long *pos, result_row *rows, size_t *nrows)
{
    traffic_error err;
    int rc, optimize = strcmp(o->placement, "optimize") == 0;
    if (optimize || strcmp(o->placement, "row-major") == 0)
        proj_row_major(nodes, pos);
    else if ((rc = traffic_placement_read(o->placement, nodes, cand->shape.nodes, pos, &err)))
        return scimodel_file_error("--placement", o->placement, rc, err.line, err.msg);
    const char *name = optimize ? "row-major" : o->placement;
    if ((rc = project_one(pc, t, cand, pos, name, o->have_intra, &rows[(*nrows)++])))
        return rc;
    if (!optimize)
        return 0;
    if (cand->shape.nodes > PROJ_ANNEAL_MAX_NODES) {
        fprintf(stderr, "scimodel: --placement optimize: %s has over %ld nodes\n", cand->name,
                PROJ_ANNEAL_MAX_NODES);
        return EXIT_FAILURE;
    }
    progress_state ps = {cand->name, now_s(), now_s()};
    proj_config with_progress = *pc;
    with_progress.progress = anneal_progress;
    with_progress.progress_arg = &ps;
    if (proj_optimize(&with_progress, t, &cand->shape, o->anneal_steps, pos, NULL, NULL)) {
        fprintf(stderr, "scimodel: %s: out of memory for the annealing\n", cand->name);
        return EXIT_FAILURE;
    }
    return project_one(pc, t, cand, pos, "optimize", o->have_intra, &rows[(*nrows)++]);
}

static void print_rows_tsv(const result_row *rows, size_t n, long nodes)
{
    fputs("dims\tshape\tplacement\tmessages\ttotal_ns\tmean_ns\thop_bytes\tmax_link_bytes"
          "\tnodes\ttotal_ns_lo\ttotal_ns_hi\tgrid\n", stdout);
    for (size_t i = 0; i < n; i++) {
        const proj_result *r = &rows[i].r;
        double s = rows[i].sigma;
        printf("%d\t%s\t%s\t%.0f\t%.3f\t%.3f\t%.0f\t%.0f\t%ld", rows[i].cand->shape.dims,
               rows[i].cand->name, rows[i].placement, r->messages, r->total_ns, r->mean_ns,
               r->hop_bytes, r->max_link_bytes, rows[i].cand->shape.nodes);
        if (isnan(s))
            fputs("\t-\t-", stdout);
        else
            printf("\t%.3f\t%.3f", r->total_ns - UNC_Z95 * s, r->total_ns + UNC_Z95 * s);
        printf("\t%s\n", rows[i].cand->grid == 2 ? "cart" : rows[i].cand->grid ? "matrix" : "no");
    }
    (void)nodes;
}

static void print_rows_table(const scimodel_options *o, const traffic_matrix *t, long ranks,
                             long nodes, const result_row *rows, size_t n)
{
    double value[2 * MAX_CANDIDATES], sigma[2 * MAX_CANDIDATES];
    int tie[2 * MAX_CANDIDATES];
    char label[2 * MAX_CANDIDATES][TOPO_MAX_DIMS * 21 + 64];
    const char *names[2 * MAX_CANDIDATES];
    size_t best;
    double margin;
    for (size_t i = 0; i < n; i++) {
        value[i] = rows[i].r.total_ns;
        sigma[i] = rows[i].sigma;
        snprintf(label[i], sizeof label[i], "%s (%s)", rows[i].cand->name, rows[i].placement);
        names[i] = label[i];
    }
    int named = unc_verdict(value, sigma, n, &best, tie, &margin);
    int errs = unc_has_errors(&o->params);
    printf("scimodel: traffic matrix %s: %ld ranks, %zu rows, %.0f messages, %.0f bytes\n",
           o->traffic_path, ranks, t->rows, t->messages, t->bytes);
    if (o->hostfile)
        printf("  ranks placed as mpirun from %s (%ld nodes)", o->hostfile, nodes);
    else
        printf("  %ld rank%s per node (%ld nodes)", o->slots, o->slots > 1 ? "s" : "", nodes);
    printf(", %s links; parameters: %s; same-node messages: 2 o(m) of %s\n",
           topo_links_name(o->params.links), o->params.name,
           o->have_intra ? o->intra.name : o->params.name);
    char text[UNC_TEXT];
    printf("  %s\n", model_params_sources_text(text, sizeof text, &o->params, 0));
    printf("  %s\n", unc_describe_text(text, sizeof text, &o->params));
    printf("\n  D  shape            placement        messages     total (ms)      mean (ns)"
           "         hop-bytes  busiest link (bytes)  nodes%s\n",
           errs ? "         total 95% (ms)" : "");
    for (size_t i = 0; i < n; i++) {
        const proj_result *r = &rows[i].r;
        char nb[64], iv[64] = "", cells[160];
        if (errs)
            unc_format(iv, sizeof iv, r->total_ns, rows[i].sigma, 1e-6, 3);
        cand_nodes_text(rows[i].cand, nodes, nb, sizeof nb);
        if (errs)
            snprintf(cells, sizeof cells, "%-12s %22s", nb, iv);
        else
            snprintf(cells, sizeof cells, "%s", nb);
        const char *mark = named && i == best ? "  <- best" : !named && tie[i] ? "  <- tie" : "";
        if (*mark || rows[i].cand->grid)   /* the markers line up */
            snprintf(cells + strlen(cells), sizeof cells - strlen(cells), "%*s",
                     errs || strlen(nb) >= 12 ? 0 : 12 - (int)strlen(nb), "");
        printf("%3d  %-16s %-12.40s %12.0f %14.3f %14.3f %17.0f %21.0f  %s%s%s\n",
               rows[i].cand->shape.dims, rows[i].cand->name, rows[i].placement, r->messages,
               r->total_ns / 1e6, r->mean_ns, r->hop_bytes, r->max_link_bytes, cells, mark,
               rows[i].cand->grid == 2   ? "  (the application's grid, MPI_Cart_create)"
               : rows[i].cand->grid ? "  (the application's grid)" : "");
    }
    for (size_t i = 1; i < n; i++)
        if (strcmp(rows[i].placement, "optimize") == 0 && rows[i - 1].cand == rows[i].cand) {
            double a = rows[i - 1].r.total_ns, b = rows[i].r.total_ns;
            printf("\n  optimize %s: %.3f ms -> %.3f ms, %.2f%% below row-major",
                   rows[i].cand->name, a / 1e6, b / 1e6, a > 0 ? 100 * (a - b) / a : 0);
        }
    if (strcmp(o->placement, "optimize") == 0)
        putchar('\n');
    const result_row *w = &rows[best];
    if (named)
        printf("\nbest: %dD %s (%s), total %.3f ms, mean %.3f ns per message\n",
               w->cand->shape.dims, w->cand->name, w->placement, w->r.total_ns / 1e6, w->r.mean_ns);
    else {
        printf("\n%s\n", unc_tie_text(text, sizeof text, names, value, sigma, n, best, tie,
                                      margin, 1e-6, "ms"));
    }
}

/* Ranks onto nodes (blocks of --slots, or as mpirun places them from a
 * hostfile), then the matrix between nodes: a same-node message keeps its
 * 2 o_intra(m), as src == dst. */
static int place_ranks(const scimodel_options *o, traffic_matrix *t, long *nodes)
{
    long *rank_node = malloc((size_t)t->ranks * sizeof *rank_node);
    file_error err;
    const char *which = NULL;
    if (!rank_node) {
        fprintf(stderr, "scimodel: out of memory for %ld ranks\n", t->ranks);
        return EXIT_FAILURE;
    }
    int rc = launch_place(&o->launch, t->ranks, rank_node, nodes, &err, &which);
    if (rc == -3)
        fprintf(stderr, "scimodel: --map-by: %s\n", err.msg);
    else if (rc)
        scimodel_file_error(which, strcmp(which, "--hostfile") ? o->rankfile : o->hostfile, rc,
                            err.line, err.msg);
    else
        traffic_to_nodes(t, rank_node, *nodes);
    free(rank_node);
    return rc ? (rc == -3 ? SCIMODEL_EXIT_USAGE : EXIT_FAILURE) : 0;
}

static int run(const scimodel_options *o, traffic_matrix *t)
{
    candidate cand[MAX_CANDIDATES];
    result_row rows[2 * MAX_CANDIDATES];
    size_t ncand, nrows = 0;
    long ranks = t->ranks, nodes;
    proj_config pc = {&o->params, &o->intra, o->params.links, 1, NULL, NULL};
    int rc = place_ranks(o, t, &nodes);
    if (rc || (rc = make_candidates(o, t, nodes, cand, &ncand)))
        return rc;
    long *pos = malloc((size_t)nodes * sizeof *pos);
    if (!pos) {
        fprintf(stderr, "scimodel: out of memory for %ld nodes\n", nodes);
        return EXIT_FAILURE;
    }
    for (size_t i = 0; i < ncand && !rc; i++)
        rc = project_candidate(o, &pc, t, &cand[i], nodes, pos, rows, &nrows);
    free(pos);
    if (rc)
        return rc;
    if (o->tsv)
        print_rows_tsv(rows, nrows, nodes);
    else
        print_rows_table(o, t, ranks, nodes, rows, nrows);
    return 0;
}

int scimodel_traffic(const scimodel_options *o)
{
    traffic_matrix t;
    traffic_error err;
    int rc = traffic_read(o->traffic_path, &t, &err);
    if (rc)
        return scimodel_file_error("--traffic", o->traffic_path, rc, err.line, err.msg);
    rc = run(o, &t);
    traffic_free(&t);
    return rc;
}
