/* router_replay: a schedule replayed through the router model
 * (docs/router.md, 'Replay').  A pass of the replay gives every network
 * message the time it leaves its sender; the router model runs those
 * messages as packets from those times and gives each the delay beyond its
 * own unloaded latency; the next pass adds that delay to the message's
 * wire time.  A network without load adds nothing: the replay is then the
 * zero-load replay exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/router_replay.h"
#include "util/grow.h"

typedef struct msg {
    double t;
    uint32_t op;
    long src, dst;
    uint64_t c0, done;
    uint32_t left;
} msg;

typedef struct zl_entry {
    long hops;
    uint64_t size, cycles;
} zl_entry;

typedef struct ctx {
    msg *m;
    size_t n, mcap;
    zl_entry *zl; size_t nzl, zlcap;
    uint64_t solo_done;
} ctx;

static void on_deliver(void *arg, uint64_t tag, uint64_t created, uint64_t done, int hops)
{
    (void)created, (void)hops;
    ctx *x = arg;
    if (tag == UINT64_MAX) {   /* a message alone, for its unloaded latency */
        x->solo_done = done > x->solo_done ? done : x->solo_done;
        return;
    }
    msg *m = &x->m[tag];
    m->done = done > m->done ? done : m->done;
    m->left--;
}

static int by_time(const void *a, const void *b)
{
    const msg *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : x->op < y->op ? -1 : x->op > y->op;
}

/* Offers message m's packets at the router's current cycle. */
static int offer(sim_router *r, const sim_router_config *rc, long src, long dst, uint64_t size,
                 uint64_t tag, uint32_t *packets)
{
    uint64_t left = size ? size : 1, pb = (uint64_t)rc->packet_bytes, fb = (uint64_t)rc->flit_bytes;
    *packets = 0;
    while (left) {
        uint64_t b = left < pb ? left : pb;
        if (sim_router_inject(r, src, dst, (uint32_t)((b + fb - 1) / fb), tag))
            return -1;
        left -= b;
        ++*packets;
    }
    return 0;
}

/* Runs r up to cycle until, or (UINT64_MAX) until nothing is pending:
 * 0, -1 out of memory, 1 deadlock. */
static int drain(sim_router *r, uint64_t until, uint64_t stall)
{
    for (;;) {
        if (!sim_router_pending(r)) {
            if (until != UINT64_MAX)
                sim_router_skip(r, until);
            return 0;
        }
        if (sim_router_now(r) >= until)
            return 0;
        if (sim_router_step(r))
            return -1;
        if (sim_router_idle(r) > stall)
            return 1;
    }
}

/* The unloaded latency in cycles of a message of size bytes from src to dst. */
static int unloaded(ctx *x, const topo_shape *sh, topo_links links, const sim_router_config *rc,
                    long src, long dst, uint64_t size, uint64_t stall, uint64_t *cycles)
{
    long a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS], h[TOPO_MAX_DIMS], dist[TOPO_MAX_DIMS], hops = 0;
    topo_rank_to_coords(sh, src, a);
    topo_rank_to_coords(sh, dst, b);
    topo_hops(sh, a, b, h);
    topo_route_dist(sh, links, h, dist, NULL);
    for (int i = 0; i < sh->dims; i++)
        hops += dist[i];
    for (size_t i = 0; i < x->nzl; i++)
        if (x->zl[i].hops == hops && x->zl[i].size == size)
            return *cycles = x->zl[i].cycles, 0;
    sim_router *r = sim_router_new(sh, links, rc, on_deliver, x);
    uint32_t np;
    x->solo_done = 0;
    int rc2 = !r ? -1 : offer(r, rc, src, dst, size, UINT64_MAX, &np);
    if (!rc2)
        rc2 = drain(r, UINT64_MAX, stall);
    sim_router_free(r);
    if (rc2)
        return rc2;
    if (UTIL_GROW(x->zl, x->nzl, x->zlcap, 16))
        return -1;
    x->zl[x->nzl++] = (zl_entry){hops, size, x->solo_done};
    *cycles = x->solo_done;
    return 0;
}

/* One router pass over the messages of the last replay: extra gets each
 * one's delay in ns.  0, -1 out of memory, 1 deadlock. */
static int router_pass(ctx *x, const goal_schedule *s, const sim_torus *t,
                       const sim_router_config *rc, double cycle_ns, double *extra, int damp,
                       sim_router_report *rep)
{
    uint64_t stall = sim_router_frozen(rc);
    qsort(x->m, x->n, sizeof *x->m, by_time);
    sim_router *r = sim_router_new(t->shape, t->links, rc, on_deliver, x);
    if (!r)
        return -1;
    int rv = 0;
    for (size_t i = 0; i < x->n && !rv; i++) {
        msg *m = &x->m[i];
        m->c0 = (uint64_t)ceil(m->t / cycle_ns);
        m->done = 0;
        if (m->c0 > sim_router_now(r))
            rv = drain(r, m->c0, stall);
        if (!rv && m->c0 < sim_router_now(r))
            m->c0 = sim_router_now(r);   /* a stalled clock runs on: the cycle it is offered */
        if (!rv)
            rv = offer(r, rc, m->src, m->dst, s->op[m->op].size, i, &m->left);
    }
    if (!rv)
        rv = drain(r, UINT64_MAX, stall);
    sim_router_stats st;
    sim_router_get_stats(r, &st);
    rep->flit_hops += st.flit_hops;
    sim_router_free(r);
    rep->queue_ns = 0;
    for (size_t i = 0; i < x->n && !rv; i++) {
        msg *m = &x->m[i];
        uint64_t zl;
        if ((rv = unloaded(x, t->shape, t->links, rc, m->src, m->dst, s->op[m->op].size, stall, &zl)))
            break;
        double q = m->done - m->c0 > zl ? (double)(m->done - m->c0 - zl) * cycle_ns : 0;
        /* after the first, half the old delay and half the new: a message
         * delayed meets fewer others next pass, and undamped passes swing */
        extra[m->op] = damp ? 0.5 * (extra[m->op] + q) : q;
        rep->queue_ns += extra[m->op];
    }
    return rv;
}

int sim_run_router(const goal_schedule *s, const sim_config *c, const sim_router_config *rc,
                   int passes, sim_result *r, sim_router_report *rep)
{
    sim_config cf = *c;
    const sim_torus *t = &c->t;
    double cycle_ns = (double)rc->flit_bytes / t->p->link_bw_bytes_per_ns;
    double *extra = calloc(s->nops + 1, sizeof *extra);
    double *dep = malloc((s->nops + 1) * sizeof *dep);
    ctx x = {0};
    int rv = -1;
    memset(rep, 0, sizeof *rep);
    memset(r, 0, sizeof *r);
    if (!extra || !dep)
        goto out;
    cf.t.extra_ns = extra;
    cf.t.depart_ns = dep;
    for (int p = 0;; p++) {
        for (size_t i = 0; i < s->nops; i++)
            dep[i] = -1;
        if (sim_run(s, &cf, r))
            goto out;
        rep->makespan[rep->passes++] = r->makespan;
        r->wait_ns = 0;   /* the queueing this pass added: the time messages waited */
        for (size_t i = 0; i < s->nops; i++)
            r->wait_ns += extra[i];
        if (p + 1 >= passes || r->interrupted || r->stuck[0] || (c->stop && c->stop()))
            break;
        x.n = 0;
        for (size_t i = 0; i < s->nops; i++) {
            const goal_op *o = &s->op[i];
            if (o->kind != GOAL_SEND || dep[i] < 0 ||
                t->node_of_rank[o->rank] == t->node_of_rank[o->peer])
                continue;
            if (UTIL_GROW(x.m, x.n, x.mcap, 1024))
                goto out;
            x.m[x.n++] = (msg){dep[i], (uint32_t)i, t->node_of_rank[o->rank],
                               t->node_of_rank[o->peer], 0, 0, 0};
        }
        rep->messages = x.n;
        sim_result_free(r);
        int q = router_pass(&x, s, t, rc, cycle_ns, extra, p > 0, rep);
        if (q) {
            rep->deadlock = q == 1;
            rv = q == 1 ? 1 : -1;
            goto out;
        }
    }
    rv = 0;
out:
    if (rv)
        sim_result_free(r);
    free(extra);
    free(dep);
    free(x.m);
    free(x.zl);
    return rv;
}
