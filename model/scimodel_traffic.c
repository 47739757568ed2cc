/* scimodel_traffic: `scimodel --traffic FILE`: reads a traffic matrix,
 * projects it onto each candidate torus (model/projection.h) with the
 * chosen placement, prints one row per candidate and placement, and names
 * the winner. */
#include "model/scimodel_traffic.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"
#include "model/params.h"
#include "model/projection.h"
#include "model/scimodel.h"
#include "model/traffic.h"
#include "util/atomicfile.h"
#include "util/parse.h"
#include "topo/topo.h"

#define MAX_CANDIDATES (2 * TOPO_MAX_DIMS)

const char scimodel_traffic_usage[] =
"\n"
"Traffic projection (SPEC.md §10):\n"
"  --traffic FILE      an application's traffic matrix (`scitrace matrix`):\n"
"                      project its messages onto each candidate torus; one\n"
"                      row per candidate and placement: messages, total and\n"
"                      mean request latency, hop-bytes (sum of bytes x links\n"
"                      crossed), the busiest directed link's bytes; then the\n"
"                      winner (lowest total latency)\n"
"  --dims LIST         candidates: for each D the smallest torus n^D holding\n"
"                      the nodes (default 1..4 without --shape)\n"
"  --shape S           a candidate of that exact shape (repeatable)\n"
"  --links L           uni (SCI rings) | bi (pairs of opposite rings, shorter\n"
"                      way, SPEC.md §7); default: the params' links, uni\n"
"  --slots K           K ranks per node: ranks rK..rK+K-1 on node r (default 1);\n"
"                      messages inside a node cost 2 o_intra(m)\n"
"  --intra-params FILE o_intra(m) from this params file (e.g. a shared-memory\n"
"                      calibration; default: the network's o(m))\n"
"  --placement P       row-major (default: node j on torus node j) | optimize\n"
"                      (GSL simulated annealing from row-major, fixed seed,\n"
"                      minimising total latency; prints both rows and the\n"
"                      gain) | FILE (line j: the torus node, row-major rank,\n"
"                      of node j)\n"
"  --anneal-steps N    moves for optimize (default 200000; 1..1e8)\n"
"  --preset, --params, --format as above.  TSV header:\n"
"                      dims shape placement messages total_ns mean_ns\n"
"                      hop_bytes max_link_bytes\n"
"  e.g. scimodel --traffic traffic.tsv --dims 1..4 --placement optimize\n";

typedef struct candidate {
    topo_shape shape;
    char name[TOPO_MAX_DIMS * 21];
} candidate;

typedef struct traffic_opts {
    const char *traffic_path, *placement;
    model_params inter, intra;
    int have_intra;
    topo_links links;
    int links_given;
    long slots, anneal_steps;
    long dims[TOPO_MAX_DIMS];
    size_t ndims;
    const char *shape_text[MAX_CANDIDATES];
    size_t nshapes;
    int tsv;
} traffic_opts;

/* One output row. */
typedef struct result_row {
    const candidate *cand;
    const char *placement;
    proj_result r;
} result_row;

enum { OPT_TRAFFIC = 256, OPT_DIMS, OPT_SHAPE, OPT_LINKS, OPT_SLOTS, OPT_PLACEMENT,
       OPT_INTRA, OPT_STEPS, OPT_PRESET, OPT_PARAMS, OPT_FORMAT };

static const struct option long_options[] = {
    {"traffic", required_argument, NULL, OPT_TRAFFIC},
    {"dims", required_argument, NULL, OPT_DIMS},
    {"shape", required_argument, NULL, OPT_SHAPE},
    {"links", required_argument, NULL, OPT_LINKS},
    {"slots", required_argument, NULL, OPT_SLOTS},
    {"placement", required_argument, NULL, OPT_PLACEMENT},
    {"intra-params", required_argument, NULL, OPT_INTRA},
    {"anneal-steps", required_argument, NULL, OPT_STEPS},
    {"preset", required_argument, NULL, OPT_PRESET},
    {"params", required_argument, NULL, OPT_PARAMS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_one(traffic_opts *o, int c, const char *arg, int *params_set)
{
    parse_status st;
    size_t n, pos;
    switch (c) {
    case OPT_TRAFFIC:
        if (o->traffic_path)
            return scimodel_usage_error("--traffic '%s': give one traffic matrix", arg);
        o->traffic_path = arg;
        return 0;
    case OPT_DIMS:
        st = parse_list(arg, PARSE_RANGE_STEP1, 1, TOPO_MAX_DIMS, o->dims, TOPO_MAX_DIMS, &n, &pos);
        if (st)
            return scimodel_usage_error("--dims '%s': %s, expected 3, 1..4 or 1,2,4 within 1..16", arg,
                               parse_status_text(st));
        o->ndims = n;
        return 0;
    case OPT_SHAPE:
        if (o->nshapes == TOPO_MAX_DIMS)
            return scimodel_usage_error("--shape '%s': at most %d shapes", arg, TOPO_MAX_DIMS);
        o->shape_text[o->nshapes++] = arg;
        return 0;
    case OPT_LINKS:
        if (topo_links_parse(arg, &o->links))
            return scimodel_usage_error("--links '%s': unknown value (uni, bi)", arg);
        o->links_given = 1;
        return 0;
    case OPT_SLOTS:
        if ((st = parse_long(arg, 1, TRAFFIC_MAX_RANKS, &o->slots)))
            return scimodel_usage_error("--slots '%s': %s, expected 1..%ld", arg, parse_status_text(st),
                               TRAFFIC_MAX_RANKS);
        return 0;
    case OPT_PLACEMENT:
        if (!*arg)
            return scimodel_usage_error("--placement '': expected row-major, optimize or a file");
        o->placement = arg;
        return 0;
    case OPT_INTRA:
        if (scimodel_load_params("--intra-params", arg, &o->intra))
            return EXIT_FAILURE;
        o->have_intra = 1;
        return 0;
    case OPT_STEPS:
        if ((st = parse_long(arg, 1, PROJ_ANNEAL_MAX_STEPS, &o->anneal_steps)))
            return scimodel_usage_error("--anneal-steps '%s': %s, expected 1..1e8", arg,
                               parse_status_text(st));
        return 0;
    case OPT_PRESET:
    case OPT_PARAMS:
        if ((*params_set)++)
            return scimodel_usage_error("--preset conflicts with --params: give only one of them");
        if (c == OPT_PARAMS)
            return scimodel_load_params("--params", arg, &o->inter);
        if (model_params_preset(arg, &o->inter))
            return scimodel_usage_error("--preset '%s': unknown preset (current, enhanced)", arg);
        return 0;
    case OPT_FORMAT:
        if (strcmp(arg, "table") && strcmp(arg, "tsv"))
            return scimodel_usage_error("--format '%s': unknown value", arg);
        o->tsv = strcmp(arg, "tsv") == 0;
        return 0;
    case 'h':
        return -1;
    default:
        return SCIMODEL_EXIT_USAGE;  /* getopt already printed the message */
    }
}

static int parse_options(int argc, char **argv, traffic_opts *o)
{
    int c, rc, params_set = 0;
    memset(o, 0, sizeof *o);
    model_params_preset("current", &o->inter);
    o->slots = 1;
    o->anneal_steps = PROJ_ANNEAL_DEFAULT_STEPS;
    o->placement = "row-major";
    optind = 1;
    opterr = 1;
    while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1)
        if ((rc = parse_one(o, c, optarg, &params_set)))
            return rc;
    if (optind < argc)
        return scimodel_usage_error("'%s': unexpected argument", argv[optind]);
    /* --links wins over a params file's `links` key, as in the other modes */
    if (o->links_given)
        o->inter.links = o->links;
    o->links = o->inter.links;
    if (!o->have_intra)
        o->intra = o->inter;
    if (!o->ndims && !o->nshapes) {
        for (int d = 0; d < 4; d++)
            o->dims[d] = d + 1;
        o->ndims = 4;
    }
    if (strcmp(o->placement, "optimize") && strcmp(o->placement, "row-major") &&
        strpbrk(o->placement, "\t\n"))
        return scimodel_usage_error("--placement: a file name with a tab or newline");
    return 0;
}

/* The candidate tori: one per --dims entry (smallest n^D holding `nodes`),
 * then the --shape ones (which must hold them). */
static int make_candidates(const traffic_opts *o, long nodes, candidate *cand, size_t *count)
{
    topo_parse_error perr;
    *count = 0;
    for (size_t i = 0; i < o->ndims; i++) {
        candidate *c = &cand[(*count)++];
        if (proj_smallest_torus((int)o->dims[i], nodes, &c->shape))
            return scimodel_usage_error("--dims: no %ldD torus of at most 1e15 nodes", o->dims[i]);
    }
    for (size_t i = 0; i < o->nshapes; i++) {
        candidate *c = &cand[(*count)++];
        if (topo_shape_parse(o->shape_text[i], &c->shape, &perr))
            return scimodel_usage_error("--shape '%s': %s at character %zu", o->shape_text[i], perr.what,
                               perr.pos + 1);
        if (c->shape.nodes < nodes)
            return scimodel_usage_error("--shape '%s': %ld nodes, the matrix needs %ld", o->shape_text[i],
                               c->shape.nodes, nodes);
    }
    for (size_t i = 0; i < *count; i++) {
        topo_shape_format(&cand[i].shape, cand[i].name, sizeof cand[i].name);
        if (cand[i].shape.nodes > TRAFFIC_MAX_RANKS)
            return scimodel_usage_error("candidate %s: over %ld nodes", cand[i].name, TRAFFIC_MAX_RANKS);
    }
    return 0;
}

static int project_one(const proj_config *pc, const traffic_matrix *t, const candidate *cand,
                       const long *pos, const char *name, result_row *row)
{
    row->cand = cand;
    row->placement = name;
    if (proj_project(pc, t, &cand->shape, pos, &row->r)) {
        fprintf(stderr, "scimodel: %s: out of memory for the link loads\n", cand->name);
        return EXIT_FAILURE;
    }
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

static int project_candidate(const traffic_opts *o, const proj_config *pc,
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
    if ((rc = project_one(pc, t, cand, pos, name, &rows[(*nrows)++])))
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
    return project_one(pc, t, cand, pos, "optimize", &rows[(*nrows)++]);
}

static void print_rows_tsv(const result_row *rows, size_t n)
{
    fputs("dims\tshape\tplacement\tmessages\ttotal_ns\tmean_ns\thop_bytes\tmax_link_bytes\n",
          stdout);
    for (size_t i = 0; i < n; i++) {
        const proj_result *r = &rows[i].r;
        printf("%d\t%s\t%s\t%.0f\t%.3f\t%.3f\t%.0f\t%.0f\n", rows[i].cand->shape.dims,
               rows[i].cand->name, rows[i].placement, r->messages, r->total_ns, r->mean_ns,
               r->hop_bytes, r->max_link_bytes);
    }
}

static void print_rows_table(const traffic_opts *o, const traffic_matrix *t, long nodes,
                             const result_row *rows, size_t n, size_t best)
{
    printf("scimodel: traffic matrix %s: %ld ranks, %zu rows, %.0f messages, %.0f bytes\n",
           o->traffic_path, t->ranks, t->rows, t->messages, t->bytes);
    printf("  %ld rank%s per node (%ld nodes), %s links; parameters: %s; same-node messages: "
           "2 o(m) of %s\n", o->slots, o->slots > 1 ? "s" : "", nodes,
           topo_links_name(o->links), o->inter.name, o->have_intra ? o->intra.name : o->inter.name);
    printf("\n  D  shape            placement        messages     total (ms)      mean (ns)"
           "         hop-bytes  busiest link (bytes)\n");
    for (size_t i = 0; i < n; i++) {
        const proj_result *r = &rows[i].r;
        printf("%3d  %-16s %-12.40s %12.0f %14.3f %14.3f %17.0f %21.0f%s\n",
               rows[i].cand->shape.dims, rows[i].cand->name, rows[i].placement, r->messages,
               r->total_ns / 1e6, r->mean_ns, r->hop_bytes, r->max_link_bytes,
               i == best ? "  <- best" : "");
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
    printf("\nbest: %dD %s (%s), total %.3f ms, mean %.3f ns per message\n",
           w->cand->shape.dims, w->cand->name, w->placement, w->r.total_ns / 1e6, w->r.mean_ns);
}

static int run(const traffic_opts *o, const traffic_matrix *t)
{
    candidate cand[MAX_CANDIDATES];
    result_row rows[2 * MAX_CANDIDATES];
    size_t ncand, nrows = 0, best = 0;
    long nodes = proj_nodes_needed(t, o->slots);
    proj_config pc = {&o->inter, &o->intra, o->links, o->slots, NULL, NULL};
    int rc = make_candidates(o, nodes, cand, &ncand);
    if (rc)
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
    for (size_t i = 1; i < nrows; i++)
        if (rows[i].r.total_ns < rows[best].r.total_ns)
            best = i;
    if (o->tsv)
        print_rows_tsv(rows, nrows);
    else
        print_rows_table(o, t, nodes, rows, nrows, best);
    return 0;
}

int scimodel_traffic_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--traffic") == 0 || strncmp(argv[i], "--traffic=", 10) == 0)
            return 1;
    }
    return 0;
}

int scimodel_traffic_main(int argc, char **argv)
{
    traffic_opts o;
    traffic_matrix t;
    traffic_error err;
    int rc = parse_options(argc, argv, &o);
    if (rc == -1) {
        fputs(scimodel_traffic_usage + 1, stdout);
        return 0;
    }
    if (rc)
        return rc;
    if ((rc = traffic_read(o.traffic_path, &t, &err)))
        return scimodel_file_error("--traffic", o.traffic_path, rc, err.line, err.msg);
    rc = run(&o, &t);
    traffic_free(&t);
    int wrc = file_close_stdout("scimodel");   /* a full disk is a failure too */
    return rc ? rc : wrc;
}
