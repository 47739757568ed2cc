/* broadcast: MPI's binomial-tree broadcast on a torus (docs/model.md, 'Broadcast'), exact
 * for integer shapes, and its interpolation between the tori n^D.  The
 * multi-unicast broadcast is (N - 1) L_avg in model.c. */
#include <math.h>
#include <string.h>

#include "model/broadcast.h"

typedef struct bcast_walk {
    const model_params *p;
    const topo_shape *shape;
    double size_bytes, o_ns;
    double max_ns;
    long argmax;
} bcast_walk;

/* Request latency from rank a to rank b (through model_route_ns, so every
 * term of the point-to-point model applies). */
static double request_ns(const bcast_walk *w, long a, long b)
{
    long ca[TOPO_MAX_DIMS], cb[TOPO_MAX_DIMS], h[TOPO_MAX_DIMS];
    topo_counts c;
    topo_rank_to_coords(w->shape, a, ca);
    topo_rank_to_coords(w->shape, b, cb);
    topo_hops(w->shape, ca, cb, h);
    topo_request_counts_links(w->shape, w->p->links, h, &c);
    return model_route_ns(w->p, w->size_bytes, (double)c.links, (double)c.forwards,
                          (double)c.switches);
}

/* Rank `rank` received in round `round` (-1 for the root) at t_ns; it
 * sends in rounds round + 1, round + 2, ... to rank + 2^r, the j-th of
 * them leaving after j o(m).  Depth first: the depth is log2 N. */
static void visit(bcast_walk *w, long rank, int round, double t_ns)
{
    if (t_ns > w->max_ns) {
        w->max_ns = t_ns;
        w->argmax = rank;
    }
    int j = 1;
    for (int r = round + 1; r < 63 && rank + (1L << r) < w->shape->nodes; r++, j++) {
        long child = rank + (1L << r);
        visit(w, child, r, t_ns + j * w->o_ns + request_ns(w, rank, child) - w->o_ns);
    }
}

double model_bcast_binomial_ns(const model_params *p, const topo_shape *shape,
                               double size_bytes, long *argmax)
{
    bcast_walk w = {p, shape, size_bytes, model_overhead_ns(p, size_bytes), 0, 0};
    if (shape->nodes > MODEL_BCAST_MAX_NODES)
        return NAN;
    visit(&w, 0, -1, 0);
    if (argmax)
        *argmax = w.argmax;
    return w.max_ns;
}

/* A crossover scan moves N 1 % a step while the tori n^D around it stay
 * the same: the last walks are remembered, so each torus is walked once
 * (a 10D..12D search walked 2^20 nodes at each of 500 steps).  scimodel
 * is single-threaded. */
#define BCAST_MEMO 64   /* two tori for each of 16 D, twice over */
static struct {
    int valid, dims;
    double n, size_bytes, ns;
    model_params p;
} memo[BCAST_MEMO];
static int memo_next;

static double on_torus(const model_params *p, int dims, double n, double size_bytes,
                       const void *unused)
{
    (void)unused;
    topo_shape s;
    if (pow(n, dims) > (double)MODEL_BCAST_MAX_NODES || topo_shape_equal(dims, (long)n, &s))
        return NAN;
    for (int i = 0; i < BCAST_MEMO; i++)
        if (memo[i].valid && memo[i].dims == dims && memo[i].n == n &&
            memo[i].size_bytes == size_bytes && !memcmp(&memo[i].p, p, sizeof *p))
            return memo[i].ns;
    double ns = model_bcast_binomial_ns(p, &s, size_bytes, NULL);
    memo[memo_next].valid = 1;
    memo[memo_next].dims = dims;
    memo[memo_next].n = n;
    memo[memo_next].size_bytes = size_bytes;
    memo[memo_next].ns = ns;
    memo[memo_next].p = *p;
    memo_next = (memo_next + 1) % BCAST_MEMO;
    return ns;
}

double model_bcast_binomial_interpolated(const model_params *p, int dims, double nodes,
                                         double size_bytes)
{
    return model_interpolate_tori(p, dims, nodes, size_bytes, on_torus, NULL);
}
