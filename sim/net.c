/* net: what a message costs.  LogGP: LogGOPSim's charges (o and O per byte
 * on the CPUs, g and G per byte on the NICs, L in flight); per size, the
 * LogP file's os(m), or(m), g(m) and L(m) in their places.  Torus: the
 * endpoints pay os(m) / or(m) (the params file's LogP terms) or o(m) each,
 * and the wire H lp + F lf + S ls + (F + S) lb m of the route
 * (docs/model.md); messages inside a node fly in no time and pay the
 * intra endpoints (a rank's to itself: the self ones); with contention
 * every directed link of the route,
 * injection and ejection channels included, carries one message at a time
 * for m / link_bw_bytes_per_ns and serves waiting messages first come,
 * first served, a hop at a time. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "sim/engine_priv.h"
#include "util/grow.h"

static inline double dmax(double a, double b) { return a > b ? a : b; }

/* LogGOPSim's std::max((m - 1) O, (m - 1) G) of unsigned products: for an
 * empty message each is its term's negative modulo 2^64, so a zero term is
 * the smallest and of two others the one nearer zero is the largest. */
static double max_m1(double m1, double O, double G)
{
    double a = m1 * O, b = m1 * G;
    if (m1 >= 0)
        return dmax(a, b);
    return a == 0 ? b : b == 0 ? a : dmax(a, b);
}

/* A LogP file's per-size terms in LogGOPSim's places.  Where L(m) < 0 the
 * send call spans the delivery and MPI progresses the rank's receives
 * inside it: the CPU is held only until the message is there, os + L. */
static void sized_costs(const sim_sized *z, long m, sim_costs *k)
{
    double os = z->os(z->ctx, m), L = z->L(z->ctx, m);
    k->depart = dmax(0, L < 0 ? os + L : os);
    k->wire = dmax(0, L);
    k->send_cpu = k->depart;
    k->call = L < 0 ? dmax(0, os) : 0;   /* the call still returns at os: its step ends no earlier */
    k->recv_cpu = dmax(0, z->orr(z->ctx, m));
    k->send_nic = k->recv_nic = dmax(0, z->g(z->ctx, m));
    k->src_node = k->dst_node = -1;
}

void sim_message_costs(const sim_state *st, const goal_op *o, sim_costs *k)
{
    const sim_config *c = st->c;
    double m = (double)o->size;
    if (!c->torus && c->sized) {
        sized_costs(c->sized, (long)o->size, k);
        return;
    }
    if (!c->torus) {
        /* (m - 1) is -1 for an empty message: LogGOPSim's unsigned
         * arithmetic wraps to the same sums. */
        double m1 = m - 1;
        k->send_cpu = c->lg.o + m1 * c->lg.O;
        k->send_nic = c->lg.g + m1 * c->lg.G;
        k->recv_cpu = c->lg.o + max_m1(m1, c->lg.O, c->lg.G);
        k->recv_nic = k->send_nic;
        k->depart = c->lg.o;
        k->wire = c->lg.L;
        k->call = 0;
        k->src_node = k->dst_node = -1;
        return;
    }
    const sim_torus *t = &c->t;
    k->src_node = t->node_of_rank[o->rank];
    k->dst_node = t->node_of_rank[o->peer];
    int same = k->src_node == k->dst_node;
    const model_params *p = !same ? t->p : o->rank == o->peer && t->self ? t->self : t->intra;
    if (p->logp.present) {
        k->send_cpu = model_logp_ns(p, MODEL_LOGP_OS, m);
        k->recv_cpu = model_logp_ns(p, MODEL_LOGP_OR, m);
        k->send_nic = k->recv_nic = model_logp_ns(p, MODEL_LOGP_G, m);
    } else {
        k->send_cpu = k->recv_cpu = model_overhead_ns(p, m);
        k->send_nic = k->recv_nic = 0;
    }
    k->depart = k->send_cpu;
    k->wire = 0;
    k->call = 0;
    if (!same) {
        long a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS], h[TOPO_MAX_DIMS];
        topo_counts n;
        topo_rank_to_coords(t->shape, k->src_node, a);
        topo_rank_to_coords(t->shape, k->dst_node, b);
        topo_hops(t->shape, a, b, h);
        topo_request_counts_links(t->shape, t->links, h, &n);
        k->wire = (double)n.links * p->lp_ns + (double)n.forwards * p->lf_ns +
                  (double)n.switches * p->ls_ns +
                  (double)(n.forwards + n.switches) * model_relay_bytes_ns(p, m);
    }
}

int sim_net_init(sim_state *st)
{
    st->flfree = SIM_NONE;
    if (!st->c->torus || !st->c->t.contention)
        return 0;
    const topo_shape *sh = st->c->t.shape;
    st->nlinks = (size_t)sh->nodes * (2 * (size_t)sh->dims + 2);
    if (!(st->link_free = calloc(st->nlinks, sizeof *st->link_free)) ||
        !(st->lstat = calloc(st->nlinks, sizeof *st->lstat)))
        return -1;
    return 0;
}

void sim_net_free(sim_state *st)
{
    free(st->link_free);
    free(st->lstat);
    free(st->fl);
}

int sim_depart(sim_state *st, uint32_t send, double now, const sim_costs *k)
{
    double extra = 0;
    if (st->c->torus && st->c->t.depart_ns) {
        st->c->t.depart_ns[send] = now + k->depart;
        extra = st->c->t.extra_ns[send];
    }
    st->latency_ns += k->depart + k->wire + extra + k->recv_cpu;
    if (!st->c->torus || !st->c->t.contention || k->src_node == k->dst_node)
        return sim_push(st, (sim_event){now + k->depart + k->wire + extra, st->ts++, send, SIM_EV_MSG});
    uint32_t f;
    if (st->flfree != SIM_NONE) {
        f = st->flfree;
        st->flfree = st->fl[f].next_free;
    } else {
        if (UTIL_GROW(st->fl, st->nfl, st->flcap, 256) || st->nfl >= SIM_NONE)
            return -1;
        f = (uint32_t)st->nfl++;
    }
    const model_params *p = st->c->t.p;
    st->fl[f] = (sim_flight){send, 0, -1, k->src_node, k->dst_node,
                             model_relay_bytes_ns(p, (double)st->s->op[send].size), SIM_NONE};
    return sim_push(st, (sim_event){now + k->depart, st->ts++, f, SIM_EV_HOP});
}

/* The dimension of the next link from node towards dst (dimension order;
 * bi: the shorter way, ties positive), its way in *way; -1 at dst. */
static int next_dim(const sim_torus *t, long node, long dst, int *way)
{
    long a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS];
    topo_rank_to_coords(t->shape, node, a);
    topo_rank_to_coords(t->shape, dst, b);
    for (int i = 0; i < t->shape->dims; i++) {
        long n = t->shape->n[i], h = ((b[i] - a[i]) % n + n) % n;
        if (h == 0)
            continue;
        *way = t->links == TOPO_LINKS_BI && h > n - h;
        return i;
    }
    return -1;
}

static long step_node(const topo_shape *sh, long node, int dim, int way)
{
    long a[TOPO_MAX_DIMS];
    topo_rank_to_coords(sh, node, a);
    a[dim] = (a[dim] + (way ? sh->n[dim] - 1 : 1)) % sh->n[dim];
    return topo_coords_to_rank(sh, a);
}

/* Link l serves a message ready at time ready: when it starts. */
static double serve(sim_state *st, size_t l, double ready, double busy)
{
    double start = dmax(ready, st->link_free[l]);
    st->link_free[l] = start + busy;
    st->lstat[l].busy_ns += busy;
    st->lstat[l].wait_ns += start - ready;
    st->lstat[l].messages++;
    st->wait_ns += start - ready;
    st->latency_ns += start - ready;
    return start;
}

int sim_hop(sim_state *st, sim_event e)
{
    const sim_torus *t = &st->c->t;
    const model_params *p = t->p;
    const topo_shape *sh = t->shape;
    sim_flight *f = &st->fl[e.id];
    double busy = (double)st->s->op[f->op].size / p->link_bw_bytes_per_ns;
    size_t ring = (size_t)sh->nodes * 2 * (size_t)sh->dims;
    if (f->stage == 2) {
        double start = serve(st, ring + (size_t)sh->nodes + (size_t)f->dst, e.time, busy);
        uint32_t op = f->op;
        f->next_free = st->flfree;
        st->flfree = e.id;
        return sim_push(st, (sim_event){start, st->ts++, op, SIM_EV_MSG});
    }
    if (f->stage == 0) {
        double start = serve(st, ring + (size_t)f->node, e.time, busy);
        f->stage = 1;
        return sim_push(st, (sim_event){start, st->ts++, e.id, SIM_EV_HOP});
    }
    int way = 0, dim = next_dim(t, f->node, f->dst, &way);
    double start = serve(st, ((size_t)f->node * sh->dims + dim) * 2 + way, e.time, busy);
    f->node = step_node(sh, f->node, dim, way);
    double next = start + p->lp_ns;
    int way2 = 0, dim2 = next_dim(t, f->node, f->dst, &way2);
    if (dim2 < 0)
        f->stage = 2;
    else
        next += (dim2 == dim ? p->lf_ns : p->ls_ns) + f->relay_ns;
    return sim_push(st, (sim_event){next, st->ts++, e.id, SIM_EV_HOP});
}

void sim_net_stats(const sim_state *st, sim_result *r)
{
    if (!st->lstat)
        return;
    const topo_shape *sh = st->c->t.shape;
    size_t ring = (size_t)sh->nodes * 2 * (size_t)sh->dims;
    for (size_t l = 0; l < st->nlinks; l++) {
        sim_link_stat x = st->lstat[l];
        if (x.messages == 0)
            continue;
        if (l < ring) {
            x.node = (long)(l / 2 / (size_t)sh->dims);
            x.dim = (int)(l / 2 % (size_t)sh->dims);
            x.way = (int)(l % 2);
        } else {
            x.node = (long)((l - ring) % (size_t)sh->nodes);
            x.dim = l - ring < (size_t)sh->nodes ? -1 : -2;
            x.way = 0;
        }
        int i = r->ntop < SIM_TOP_LINKS ? r->ntop++ : SIM_TOP_LINKS;
        if (i == SIM_TOP_LINKS) {
            if (x.busy_ns <= r->top[SIM_TOP_LINKS - 1].busy_ns)
                continue;
            i = SIM_TOP_LINKS - 1;
        }
        while (i > 0 && r->top[i - 1].busy_ns < x.busy_ns) {
            r->top[i] = r->top[i - 1];
            i--;
        }
        r->top[i] = x;
    }
}
