/* projection: latency, hop-bytes and link loads of a traffic matrix on a
 * torus (docs/model.md, 'Projection'), and placement by simulated annealing (gsl_siman). */
#include "model/projection.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_siman.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

long proj_nodes_needed(const traffic_matrix *t, long slots)
{
    return (t->ranks + slots - 1) / slots;
}

int proj_smallest_torus(int dims, long nodes, topo_shape *shape)
{
    /* start below the real root (pow may round either way), step up */
    long n = (long)floor(pow((double)nodes, 1.0 / dims)) - 1;
    if (n < 2)
        n = 2;
    for (;; n++) {
        double N = pow((double)n, dims);
        if (N > (double)TOPO_MAX_NODES)
            return -1;
        if (N >= (double)nodes)
            return topo_shape_equal(dims, n, shape);
    }
}

void proj_row_major(long count, long *pos)
{
    for (long j = 0; j < count; j++)
        pos[j] = j;
}

/* The request route a -> b: links crossed per dimension, the way taken,
 * and H, k. */
typedef struct route {
    long dist[TOPO_MAX_DIMS];
    int dir[TOPO_MAX_DIMS];
    long links, dims_used;
} route;

static void route_of(const topo_shape *s, topo_links links, const long *ca, const long *cb,
                     route *r)
{
    long hops[TOPO_MAX_DIMS];
    topo_hops(s, ca, cb, hops);
    topo_route_dist(s, links, hops, r->dist, r->dir);
    r->links = r->dims_used = 0;
    for (int i = 0; i < s->dims; i++) {
        r->links += r->dist[i];
        r->dims_used += r->dist[i] > 0;
    }
}

/* L_request of one m-byte message on route r ('Point-to-point latency' with F = H - k,
 * S = k - 1); no links crossed: both ranks on one node, 2 o_intra(m). */
static double message_ns(const proj_config *c, double m, const route *r)
{
    if (!r->dims_used)
        return model_route_ns(c->intra, m, 0, 0, 0);
    return model_route_ns(c->inter, m, (double)r->links, (double)(r->links - r->dims_used),
                          (double)(r->dims_used - 1));
}

/* ---- link loads ---------------------------------------------------------
 * A route crosses, in each dimension it uses, a contiguous arc of one ring.
 * Loads are kept as difference arrays along the rings (two per dimension
 * on bi links, one per way), so a row costs O(D) whatever its hop count,
 * and one prefix-sum pass per ring gives every link's bytes: O(rows D + N D)
 * instead of O(rows H), which on a 10^5-node ring would be 10^9 steps. */
typedef struct loads {
    const topo_shape *s;
    int ways;                    /* 1 (uni) or 2 (bi) */
    long stride[TOPO_MAX_DIMS];  /* row-major: last dimension fastest */
    double *diff;                /* [(dim * ways + way) * N + node] */
} loads;

static int loads_init(loads *L, const topo_shape *s, topo_links links)
{
    L->s = s;
    L->ways = links == TOPO_LINKS_BI ? 2 : 1;
    L->stride[s->dims - 1] = 1;
    for (int i = s->dims - 2; i >= 0; i--)
        L->stride[i] = L->stride[i + 1] * s->n[i + 1];
    L->diff = calloc((size_t)s->nodes * (size_t)(s->dims * L->ways), sizeof *L->diff);
    return L->diff ? 0 : -1;
}

/* Adds w to the links leaving ring positions start .. start+len-1 (mod n)
 * of the ring through `base` (its position 0) in dimension i, way `way`. */
static void arc_add(loads *L, int i, int way, long base, long start, long len, double w)
{
    long n = L->s->n[i], st = L->stride[i], end = start + len;
    double *d = L->diff + (size_t)(i * L->ways + way) * (size_t)L->s->nodes;
    d[base + start * st] += w;
    if (end < n)
        d[base + end * st] -= w;
    else if (end > n) {        /* wraps past position n - 1 */
        d[base] += w;
        d[base + (end - n) * st] -= w;
    }
}

/* The dimension-order route from a (coordinates ca, rank ra) to cb. */
static void loads_add_route(loads *L, const long *ca, long ra, const long *cb, const route *r,
                            double w)
{
    long cur = ra;
    for (int i = 0; i < L->s->dims; i++) {
        if (!r->dist[i])
            continue;
        long base = cur - ca[i] * L->stride[i], n = L->s->n[i];
        if (r->dir[i] > 0)
            arc_add(L, i, 0, base, ca[i], r->dist[i], w);
        else   /* links ca, ca - 1, ..., ca - dist + 1 of the negative ring */
            arc_add(L, i, L->ways - 1, base, (ca[i] - r->dist[i] + 1 + n) % n, r->dist[i], w);
        cur += (cb[i] - ca[i]) * L->stride[i];
    }
}

/* Prefix sums along every ring; the busiest link into out. */
static void loads_finish(loads *L, proj_result *out)
{
    const topo_shape *s = L->s;
    for (int i = 0; i < s->dims; i++)
        for (int way = 0; way < L->ways; way++) {
            const double *d = L->diff + (size_t)(i * L->ways + way) * (size_t)s->nodes;
            for (long u = 0; u < s->nodes; u++) {
                if ((u / L->stride[i]) % s->n[i] != 0)
                    continue;   /* not position 0 of its ring */
                double acc = 0;
                for (long c = 0; c < s->n[i]; c++) {
                    acc += d[u + c * L->stride[i]];
                    if (acc > out->max_link_bytes) {
                        out->max_link_bytes = acc;
                        out->max_link_node = u + c * L->stride[i];
                        out->max_link_dim = i;
                        out->max_link_dir = way ? -1 : 1;
                    }
                }
            }
        }
    free(L->diff);
}

int proj_project(const proj_config *c, const traffic_matrix *t, const topo_shape *shape,
                 const long *pos, proj_result *out)
{
    loads L;
    memset(out, 0, sizeof *out);
    out->max_link_node = -1;
    if (loads_init(&L, shape, c->links))
        return -1;
    for (size_t k = 0; k < t->rows; k++) {
        const traffic_row *row = &t->row[k];
        long a = pos[row->src / c->slots], b = pos[row->dst / c->slots];
        long ca[TOPO_MAX_DIMS], cb[TOPO_MAX_DIMS];
        route r;
        double msgs = (double)row->messages, m = (double)row->size_bytes;
        topo_rank_to_coords(shape, a, ca);
        topo_rank_to_coords(shape, b, cb);
        route_of(shape, c->links, ca, cb, &r);
        out->messages += msgs;
        out->total_ns += msgs * message_ns(c, m, &r);
        if (!r.dims_used) {
            out->intra_messages += msgs;
            continue;
        }
        out->hop_bytes += msgs * m * (double)r.links;
        loads_add_route(&L, ca, a, cb, &r, msgs * m);
    }
    out->mean_ns = out->messages > 0 ? out->total_ns / out->messages : 0;
    loads_finish(&L, out);
    return 0;
}

double proj_total_ns(const proj_config *c, const traffic_matrix *t, const topo_shape *shape,
                     const long *pos)
{
    double total = 0;
    for (size_t k = 0; k < t->rows; k++) {
        const traffic_row *row = &t->row[k];
        long ca[TOPO_MAX_DIMS], cb[TOPO_MAX_DIMS];
        route r;
        topo_rank_to_coords(shape, pos[row->src / c->slots], ca);
        topo_rank_to_coords(shape, pos[row->dst / c->slots], cb);
        route_of(shape, c->links, ca, cb, &r);
        total += (double)row->messages * message_ns(c, (double)row->size_bytes, &r);
    }
    return total;
}

/* ---- annealing ------------------------------------------------------------ */

/* Fixed data of one annealing run; states point to it. */
typedef struct anneal_ctx {
    const proj_config *c;
    const traffic_matrix *t;
    const topo_shape *s;
    long nodes;          /* logical nodes */
    long *coords;        /* coordinates of every torus node, N x D */
    size_t *adj_start;   /* rows touching logical node j: adj[adj_start[j] .. [j+1]) */
    size_t *adj;         /* (rows whose two ranks share a node are left out:
                          * no move changes their cost) */
    long moves, budget;  /* for c->progress: moves made (annealing, then polish) */
    struct anneal_state *pool[4];   /* gsl_siman makes 3 copies; made up front so
                                     * its copy constructor cannot fail */
    int pool_used;
} anneal_ctx;

typedef struct anneal_state {
    anneal_ctx *ctx;
    double energy;     /* total latency of this placement, kept up to date */
    int32_t *pos;      /* logical node -> torus node */
    int32_t *at;       /* torus node -> logical node, -1 when free */
} anneal_state;

static double row_ns(const anneal_ctx *x, const anneal_state *st, size_t k)
{
    const traffic_row *row = &x->t->row[k];
    int D = x->s->dims;
    route r;
    route_of(x->s, x->c->links, x->coords + (size_t)st->pos[row->src / x->c->slots] * D,
             x->coords + (size_t)st->pos[row->dst / x->c->slots] * D, &r);
    return (double)row->messages * message_ns(x->c, (double)row->size_bytes, &r);
}

/* Cost of the rows touching logical node j, leaving out those whose other
 * end is `skip` (counted with skip's own rows). */
static double node_ns(const anneal_ctx *x, const anneal_state *st, long j, long skip)
{
    double sum = 0;
    for (size_t a = x->adj_start[j]; a < x->adj_start[j + 1]; a++) {
        const traffic_row *row = &x->t->row[x->adj[a]];
        long other = row->src / x->c->slots == j ? row->dst / x->c->slots
                                                  : row->src / x->c->slots;
        if (other != skip)
            sum += row_ns(x, st, x->adj[a]);
    }
    return sum;
}

static double moved_ns(const anneal_ctx *x, const anneal_state *st, long j, long j2)
{
    return node_ns(x, st, j, -1) + (j2 >= 0 ? node_ns(x, st, j2, j) : 0);
}

/* Moves logical node j to torus node q (swapping with its occupant) and
 * updates the energy by the change of the rows touched. */
static void move(anneal_state *st, long j, long q)
{
    const anneal_ctx *x = st->ctx;
    long p = st->pos[j], j2 = st->at[q];
    double before = moved_ns(x, st, j, j2);
    st->pos[j] = (int32_t)q;
    st->at[q] = (int32_t)j;
    st->at[p] = (int32_t)j2;
    if (j2 >= 0)
        st->pos[j2] = (int32_t)p;
    st->energy += moved_ns(x, st, j, j2) - before;
}

/* A torus node next to torus node u: one step either way in a random
 * dimension. */
static long neighbour(const anneal_ctx *x, const gsl_rng *r, long u)
{
    const topo_shape *s = x->s;
    int i = (int)gsl_rng_uniform_int(r, (unsigned long)s->dims);
    long stride = 1;
    for (int k = s->dims - 1; k > i; k--)
        stride *= s->n[k];
    long c = (u / stride) % s->n[i];
    long to = gsl_rng_uniform_int(r, 2) ? (c + 1) % s->n[i] : (c + s->n[i] - 1) % s->n[i];
    return u + (to - c) * stride;
}

/* Half the moves put a random node on a random torus node; the other half
 * put it next to one of the nodes it talks to (a random row of its own),
 * which is where a better place usually is, and is found in fewer moves
 * than by random moves only (test_projection: a scrambled halo exchange). */
static void count_move(anneal_ctx *x)
{
    if (x->c->progress && ++x->moves % PROJ_PROGRESS_MOVES == 0)
        x->c->progress(x->c->progress_arg, x->moves, x->budget);
}

static void siman_step(const gsl_rng *r, void *xp, double step_size)
{
    anneal_state *st = xp;
    anneal_ctx *x = st->ctx;
    count_move(x);
    long N = x->s->nodes;
    long j = (long)gsl_rng_uniform_int(r, (unsigned long)x->nodes);
    size_t deg = x->adj_start[j + 1] - x->adj_start[j];
    long q;
    (void)step_size;
    if (deg && gsl_rng_uniform_int(r, 2)) {
        const traffic_row *row =
            &x->t->row[x->adj[x->adj_start[j] + gsl_rng_uniform_int(r, (unsigned long)deg)]];
        long other = row->src / x->c->slots == j ? row->dst / x->c->slots
                                                  : row->src / x->c->slots;
        q = neighbour(x, r, st->pos[other]);
        if (q == st->pos[j])
            return;   /* already there: an empty move */
    } else
        q = (st->pos[j] + 1 + (long)gsl_rng_uniform_int(r, (unsigned long)(N - 1))) % N;
    move(st, j, q);
}

static double siman_energy(void *xp)
{
    return ((anneal_state *)xp)->energy;
}

static void siman_copy(void *src, void *dst)
{
    const anneal_state *a = src;
    anneal_state *b = dst;
    b->energy = a->energy;
    memcpy(b->pos, a->pos, (size_t)a->ctx->nodes * sizeof *b->pos);
    memcpy(b->at, a->at, (size_t)a->ctx->s->nodes * sizeof *b->at);
}

static void *siman_construct(void *xp)
{
    anneal_ctx *x = ((anneal_state *)xp)->ctx;
    anneal_state *st = x->pool[x->pool_used++ % 4];   /* at most 3 are asked for */
    siman_copy(xp, st);
    return st;
}

static void siman_destroy(void *xp)
{
    (void)xp;   /* the pool is freed with the context */
}

static void state_free(anneal_state *st)
{
    if (st) {
        free(st->pos);
        free(st->at);
        free(st);
    }
}

static anneal_state *state_alloc(anneal_ctx *x)
{
    anneal_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->ctx = x;
    st->pos = malloc((size_t)x->nodes * sizeof *st->pos);
    st->at = malloc((size_t)x->s->nodes * sizeof *st->at);
    if (!st->pos || !st->at) {
        state_free(st);
        return NULL;
    }
    return st;
}

static void ctx_free(anneal_ctx *x)
{
    free(x->coords);
    free(x->adj_start);
    free(x->adj);
    for (int i = 0; i < 4; i++)
        state_free(x->pool[i]);
}

/* Coordinates of every torus node and the rows touching each logical node
 * (counting sort by node). */
static int ctx_init(anneal_ctx *x)
{
    long N = x->s->nodes, K = x->c->slots;
    int D = x->s->dims;
    size_t total = 0;
    x->coords = malloc((size_t)N * (size_t)D * sizeof *x->coords);
    x->adj_start = calloc((size_t)x->nodes + 1, sizeof *x->adj_start);
    for (int i = 0; i < 4; i++)
        if (!(x->pool[i] = state_alloc(x)))
            return -1;
    if (!x->coords || !x->adj_start)
        return -1;
    for (long u = 0; u < N; u++)
        topo_rank_to_coords(x->s, u, x->coords + (size_t)u * D);
    for (size_t k = 0; k < x->t->rows; k++) {
        long a = x->t->row[k].src / K, b = x->t->row[k].dst / K;
        if (a != b) {
            x->adj_start[a + 1]++;
            x->adj_start[b + 1]++;
            total += 2;
        }
    }
    for (long j = 0; j < x->nodes; j++)
        x->adj_start[j + 1] += x->adj_start[j];
    if (!(x->adj = malloc((total ? total : 1) * sizeof *x->adj)))
        return -1;
    size_t *fill = calloc((size_t)x->nodes, sizeof *fill);
    if (!fill)
        return -1;
    for (size_t k = 0; k < x->t->rows; k++) {
        long a = x->t->row[k].src / K, b = x->t->row[k].dst / K;
        if (a != b) {
            x->adj[x->adj_start[a] + fill[a]++] = k;
            x->adj[x->adj_start[b] + fill[b]++] = k;
        }
    }
    free(fill);
    return 0;
}

/* Sample moves at the start give the temperature scale. */
#define ANNEAL_SAMPLE_MOVES 200
/* Temperatures from t0 down to t0 / ANNEAL_COOLING, geometric, in this
 * many steps; the move budget is shared equally among them. */
#define ANNEAL_TEMPERATURES 100
#define ANNEAL_COOLING 1000.0

static double initial_temperature(anneal_ctx *x, const anneal_state *start, gsl_rng *r)
{
    anneal_state *probe = x->pool[3];
    double sum = 0;
    for (int i = 0; i < ANNEAL_SAMPLE_MOVES; i++) {
        siman_copy((void *)start, probe);
        siman_step(r, probe, 1);
        sum += fabs(probe->energy - start->energy);
    }
    return sum / ANNEAL_SAMPLE_MOVES;
}

static void anneal(anneal_ctx *x, anneal_state *start, long steps)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        return;
    gsl_rng_set(r, PROJ_ANNEAL_SEED);
    double t0 = initial_temperature(x, start, r);
    if (t0 > 0) {
        gsl_siman_params_t sp = {
            .n_tries = 1,   /* unused by gsl_siman_solve */
            .iters_fixed_T = (int)(steps / ANNEAL_TEMPERATURES > 0 ? steps / ANNEAL_TEMPERATURES : 1),
            .step_size = 1,
            .k = 1,
            .t_initial = t0,
            .mu_t = pow(ANNEAL_COOLING, 1.0 / ANNEAL_TEMPERATURES),
            .t_min = t0 / ANNEAL_COOLING,
        };
        x->pool_used = 0;
        gsl_siman_solve(r, start, siman_energy, siman_step, NULL, NULL, siman_copy,
                        siman_construct, siman_destroy, 0, sp);
    }
    gsl_rng_free(r);
}

/* A move must gain more than this fraction of the total to count in the
 * polish: the running energy carries rounding of many additions. */
#define POLISH_EPS 1e-12

/* Annealing on these rugged landscapes (a switch costs ~11 forwards) ends
 * near, not at, a local optimum; a greedy pass over every (node, place)
 * move, keeping those that lower the total, finishes the descent.  Stops
 * when a whole pass gains nothing or after `budget` tried moves. */
static void polish(anneal_state *st, long budget)
{
    long N = st->ctx->s->nodes;
    int improved = 1;
    while (improved && budget > 0) {
        improved = 0;
        for (long j = 0; j < st->ctx->nodes && budget > 0; j++)
            for (long q = 0; q < N && budget > 0; q++, budget--) {
                long p = st->pos[j];
                double e = st->energy;
                count_move(st->ctx);
                if (q == p)
                    continue;
                move(st, j, q);
                if (st->energy < e - POLISH_EPS * fabs(e))
                    improved = 1;
                else {
                    move(st, j, p);   /* swaps back */
                    st->energy = e;
                }
            }
    }
}

int proj_optimize(const proj_config *c, const traffic_matrix *t, const topo_shape *shape,
                  long steps, long *pos, double *start_ns, double *best_ns)
{
    anneal_ctx x = {.c = c, .t = t, .s = shape, .nodes = proj_nodes_needed(t, c->slots)};
    anneal_state *start = NULL;
    int rc = -1;
    if (shape->nodes > PROJ_ANNEAL_MAX_NODES || ctx_init(&x) || !(start = state_alloc(&x)))
        goto out;
    double e0 = proj_total_ns(c, t, shape, pos);
    for (long u = 0; u < shape->nodes; u++)
        start->at[u] = -1;
    for (long j = 0; j < x.nodes; j++) {
        start->pos[j] = (int32_t)pos[j];
        start->at[pos[j]] = (int32_t)j;
    }
    start->energy = e0;
    x.budget = 2 * steps;   /* annealing, then at most as many polish moves */
    x.moves = -ANNEAL_SAMPLE_MOVES;   /* the temperature probe's are not counted */
    anneal(&x, start, steps);
    polish(start, steps);
    /* The running energy adds many differences; judge the result afresh. */
    long *best = malloc((size_t)x.nodes * sizeof *best);
    if (!best)
        goto out;
    for (long j = 0; j < x.nodes; j++)
        best[j] = start->pos[j];
    double e1 = proj_total_ns(c, t, shape, best);
    if (e1 < e0)
        memcpy(pos, best, (size_t)x.nodes * sizeof *pos);
    else
        e1 = e0;
    free(best);
    if (start_ns)
        *start_ns = e0;
    if (best_ns)
        *best_ns = e1;
    rc = 0;
out:
    state_free(start);
    ctx_free(&x);
    return rc;
}
