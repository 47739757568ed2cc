/* projection: an application's traffic matrix (model/traffic.h) projected
 * onto a candidate torus (docs/model.md, 'Projection'): total and mean request latency of
 * its messages, hop-bytes and the busiest link's bytes, for a placement of
 * its nodes; and a placement optimised by GSL's simulated annealing. */
#ifndef SCITORUS_PROJECTION_H
#define SCITORUS_PROJECTION_H

#include "model/params.h"
#include "model/traffic.h"
#include "topo/topo.h"

/* How the ranks meet the machine. */
typedef struct proj_config {
    const model_params *inter;   /* the network's parameters */
    const model_params *intra;   /* same-node messages cost 2 o_intra(m) */
    topo_links links;            /* uni (SCI) or bi rings (docs/model.md, 'Links') */
    long slots;                  /* K ranks per node: ranks rK..rK+K-1 on node r */
    /* Optional (NULL: none): proj_optimize calls it every
     * PROJ_PROGRESS_MOVES moves with the moves made and the budget, so a
     * command line can report progress on long runs. */
    void (*progress)(void *arg, long moves_done, long moves_total);
    void *progress_arg;
} proj_config;

#define PROJ_PROGRESS_MOVES 4096L

typedef struct proj_result {
    double messages;          /* all messages of the matrix */
    double intra_messages;    /* of them, between ranks on one node */
    double total_ns;          /* sum of messages * L_request */
    double mean_ns;           /* total_ns / messages */
    double hop_bytes;         /* sum of messages * size * H */
    double max_link_bytes;    /* bytes over the busiest directed link */
    long max_link_node;       /* that link leaves this torus node (row-major), -1: none */
    int max_link_dim;         /* ... in this dimension (0-based) */
    int max_link_dir;         /* ... this way: +1 or -1 */
} proj_result;

/* Logical nodes the matrix needs: ceil(ranks / slots). */
long proj_nodes_needed(const traffic_matrix *t, long slots);

/* The smallest equal-dimension torus n^D with n >= 2 and n^D >= nodes.
 * Returns 0, or -1 when it would exceed TOPO_MAX_NODES. */
int proj_smallest_torus(int dims, long nodes, topo_shape *shape);

/* pos[j] = j for j < count: logical node j on torus node j (row-major). */
void proj_row_major(long count, long *pos);

/* Projects t onto shape with logical node j on torus node pos[j] (pos has
 * proj_nodes_needed entries, distinct, each < shape->nodes).  A request
 * from node a to node b != a costs model_route_ns(inter, m, H, H - k, k - 1)
 * with H, k of the route for c->links; a same-node message
 * model_route_ns(intra, m, 0, 0, 0) = 2 o_intra(m).  Link loads follow the
 * dimension-order route (bi: the shorter way, ties positive).
 * Returns 0, or -1 when memory for the link loads cannot be had. */
int proj_project(const proj_config *c, const traffic_matrix *t, const topo_shape *shape,
                 const long *pos, proj_result *out);

/* Only the total latency (no link loads): the annealer's energy. */
double proj_total_ns(const proj_config *c, const traffic_matrix *t, const topo_shape *shape,
                     const long *pos);

/* Annealing schedule (gsl_siman): `steps` moves in all, from temperature
 * t_initial (the mean |change| of total latency over sample moves from
 * the start) down to t_initial * 1e-3; fixed seed. */
#define PROJ_ANNEAL_DEFAULT_STEPS 200000L
#define PROJ_ANNEAL_MAX_STEPS 100000000L
#define PROJ_ANNEAL_SEED 12345UL
/* Every move copies the placement (gsl_siman copies states): 2^16 torus
 * nodes keep a step under ~50 us. */
#define PROJ_ANNEAL_MAX_NODES 65536L

/* Simulated annealing over placements, minimising proj_total_ns.  A move
 * puts a random logical node on a random torus node, swapping with the
 * node there if any.  pos - in: the start (e.g. row-major), out: the best
 * placement found, never worse than the start (kept if nothing beats it).
 * *start_ns, *best_ns (may be NULL) get both totals.
 * Returns 0, or -1 when memory cannot be had or the torus has more than
 * PROJ_ANNEAL_MAX_NODES nodes (pos untouched). */
int proj_optimize(const proj_config *c, const traffic_matrix *t, const topo_shape *shape,
                  long steps, long *pos, double *start_ns, double *best_ns);

#endif
