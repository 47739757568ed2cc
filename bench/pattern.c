/* pattern: ping-pong and one-way on rings and tori over a backend. */
#include "bench/pattern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/signals.h"
#include "bench/control.h"
#include "bench/turns.h"
#include "benchdata/regime.h"
#include "benchdata/stats.h"
#include "coll/refine.h"

/* The floor (benchdata/regime.h) is measured again before a batch once this long has passed since
 * its last batch, and no sooner than ten of the shortest batches' time; and only while its
 * batches have taken at most FLOOR_SHARE of the run (a busy machine stretches every batch). */
#define FLOOR_EVERY_NS 1e6
#define FLOOR_EVERY_BATCHES 10
#define FLOOR_SHARE 0.1

/* Where a message goes first from where it starts: the next node, the dimension of that link
 * (the message's in_dim there) and the process hosting the node. */
typedef struct first_hop {
    int32_t node, dim, host;
} first_hop;

/* One network (ring or torus) being measured.  Several are measured
 * interleaved, batch by batch, by scibench --interleave. */
typedef struct network {
    const bench_config *cfg;
    /* cfg->src and whether cfg->pattern is one-way, here for the measured path: one load fewer */
    int32_t src;
    int ow;
    long *coords;                 /* coordinates of every node, nodes x dims */
    long stride[TOPO_MAX_DIMS];   /* rank distance of one step in dimension i */
    int *host;                    /* process of every node (bench_host) */
    first_hop *reply;             /* per node: the first hop of its reply */
} network;

typedef struct point_run point_run;

typedef struct engine {
    const bench_backend *be;
    bench_comm *comm;
    network *nets;                /* msg->net indexes this */
    int nnets;
    int rank, procs;
    /* Every received message lands in rx, and a relay sends it on from there; the source and
     * a reply send from tx.  One buffer, not two in turn, so every relay of every ring finds
     * the same buffer in the same cache state (calibrate --full's held-out check, test_full). */
    unsigned char *rx;
    unsigned char *tx;            /* what the source sends, and the reply */
    /* --echo: the source sends its last reply's bytes, the destination those it received, so
     * every hop sends what it has just received, as a relay does, and all hops cost alike. */
    int echo;
    unsigned char *relay[2];      /* copy buffers for hops inside one process */
    size_t cap;
    long completed;               /* PP round trips / OW acks seen at the source */
    long measured, noisy;         /* points measured in this run, and of them flagged noisy */
    long spanning;                /* of them, those whose batches spanned regimes */
    point_run *floor;             /* the floor's 0-byte ping-pong; NULL: not measured */
    int direct;                   /* one-hop ping-pongs run the backend's own loop */
    int node_times;               /* --node-times: busy_ns is this process's part so far, */
    double busy_ns, *parts;       /* parts every process's (on the measuring one) */
    double floor_ns, floor_at_ns, floor_every_ns;   /* its last figure, when, how often */
    double floor_since_ns, floor_spent_ns;          /* the run's start, and its floors' time */
} engine;

/* Points take their batches in turn (--interleave, --interleave-sizes). */
static int interleaved(const engine *e)
{
    return e->nnets > 1 || e->nets[0].cfg->interleave_sizes;
}

/* Busy-wait: the injected forwarding or switching cost. */
static void spin_ns(const bench_backend *be, double ns)
{
    if (ns <= 0)
        return;
    double end = be->now_ns() + ns;
    while (be->now_ns() < end)
        ;
}

/* msg is at msg->node, not its target: one hop on, by dimension-order
 * routing as topo_route_step, from precomputed tables (rank <-> coordinates
 * costs divisions, and this is the measured path).  The node forwards when
 * the message continues in the dimension it came in on, and switches when
 * it changes dimension (thesis: an agent node); where the message starts
 * (in_dim -1: the source, or the destination sending the reply) it does
 * neither, and no delay is injected. */
static inline void step(const engine *e, const network *nw, bench_msg *msg)
{
    const bench_config *cfg = nw->cfg;
    const topo_shape *sh = &cfg->shape;
    const long *cur = nw->coords + (long)msg->node * sh->dims;
    const long *dst = nw->coords + (long)msg->target * sh->dims;
    int dim = 0;
    while (cur[dim] == dst[dim])
        dim++;
    if (msg->in_dim >= 0)   /* (never where e is NULL: network_init) */
        spin_ns(e->be, dim == msg->in_dim ? cfg->inject_forward_ns : cfg->inject_switch_ns);
    msg->node += (int32_t)(cur[dim] == sh->n[dim] - 1 ? -(sh->n[dim] - 1) * nw->stride[dim]
                                                      : nw->stride[dim]);
    msg->in_dim = dim;
    if (cfg->route == BENCH_ROUTE_NETWORK)
        msg->node = msg->target;   /* the network forwards; no relay ranks */
}

/* Carries msg on until it leaves this process or ends here: a loop, hops within a process
 * alternating two relay buffers (memcpy may not copy onto itself).  Forced inline: a call is
 * a visible share of a half round trip (make bench-shm). */
static inline __attribute__((always_inline)) int route(engine *e, bench_msg *msg,
                                                       const unsigned char *payload)
{
    for (int r = 0;; r ^= 1) {
        const network *nw = &e->nets[msg->net];
        int to;
        if (msg->node == msg->target) {
            if (msg->kind == BENCH_MSG_RESPONSE) {
                e->completed++;
                return 0;
            }
            if (nw->ow && !msg->last)
                return 0;
            /* B replies from its own send buffer, as osu_latency does (make bench-mpi compares
             * with it; replying the received bytes costs more at large sizes), unless --echo. */
            const first_hop *h = &nw->reply[msg->node];
            *msg = (bench_msg){BENCH_MSG_RESPONSE, 0, h->node, nw->src, h->dim, msg->net,
                               nw->ow ? 0 : msg->len};
            payload = e->echo ? payload : e->tx;
            to = h->host;
        } else {
            step(e, nw, msg);
            to = nw->host[msg->node];
        }
        if (to != e->rank)
            return e->be->send(e->comm, to, msg, payload);
        /* Both nodes live in this process (P does not divide the hop): the
         * message is still copied, as a store-and-forward node would, into
         * the relay buffer it did not just come from. */
        memcpy(e->relay[r], payload, (size_t)msg->len);
        payload = e->relay[r];
    }
}

/* Receives and handles one message.  Returns 1 on STOP. */
static int serve_one(engine *e)
{
    bench_msg msg;   /* recv fills it whole */
    unsigned char *buf = e->rx;
    int rc = e->be->recv(e->comm, &msg, buf, e->cap);
    if (rc)
        return rc;
    if (msg.kind == BENCH_MSG_STOP)
        return 1;
    if (msg.kind == BENCH_MSG_CONTROL)
        return bench_control_serve(e->be, e->comm, &msg, buf, e->tx, e->rx, &e->busy_ns);
    if (!e->node_times)
        return route(e, &msg, buf);
    double t0 = e->be->now_ns();
    rc = route(e, &msg, buf);
    e->busy_ns += e->be->now_ns() - t0;
    return rc;
}

/* The first hop of a request from the source of network k to dst. */
static first_hop request_hop(const engine *e, int k, long dst)
{
    bench_msg m = {BENCH_MSG_REQUEST, 0, e->nets[k].src, (int32_t)dst, -1, k, 0};
    step(e, &e->nets[k], &m);   /* in_dim -1: nothing injected where it starts */
    return (first_hop){m.node, m.in_dim, e->nets[k].host[m.node]};
}

/* One (network, destination, size) point being measured on process 0. */
struct point_run {
    int net;
    long index;               /* 1-based, in its network's point order */
    long dst, size, reps;
    first_hop first;          /* its requests' first hop, worked out once */
    double start_ns;          /* when its timed batches began */
    bench_stats st;
    bench_stats fl;           /* the floor beside each batch */
    bench_stats *nodes;       /* --node-times: each process's part of each batch */
    int active;               /* still taking batches */
    double median_ns;         /* once finished: its row's median (--refine) */
};

/* Sends one of p's requests (its bytes: e->tx) from the source.  The first
 * hop comes from p: nothing in the request waits for the reply just in.
 * A one-way network's destination replies to a request marked last. */
static int start_request(engine *e, const point_run *p, int last)
{
    if (p->first.host != e->rank) {
        bench_msg msg = {BENCH_MSG_REQUEST, last, p->first.node, (int32_t)p->dst, p->first.dim,
                         p->net, p->size};
        return e->be->send(e->comm, p->first.host, &msg, e->echo ? e->rx : e->tx);
    }
    /* the first hop stays in this process: relay it as any other */
    bench_msg msg = {BENCH_MSG_REQUEST, last, e->nets[p->net].src, (int32_t)p->dst, -1, p->net,
                     p->size};
    return route(e, &msg, e->echo ? e->rx : e->tx);
}

/* The process a ping-pong point's (or the floor's: pp) request and reply go straight to and
 * from, one hop each (no relay, nothing injected), when the backend's loop may time it. */
static int direct_peer(const engine *e, const point_run *p, int pp)
{
    const network *nw = &e->nets[p->net];
    return e->direct && (pp || nw->cfg->pattern == BENCH_PP) && p->first.node == p->dst &&
           p->first.host != e->rank && nw->reply[p->dst].node == nw->src ? p->first.host : -1;
}

/* Runs `reps` iterations of point p's pattern (ping-pong on any network
 * when pp_always: the floor); elapsed ns in *ns. */
static int iterate_as(engine *e, const point_run *p, long reps, int pp_always, double *ns)
{
    int peer = direct_peer(e, p, pp_always);
    if (peer >= 0)
        return bench_direct_batch(e->be, e->comm, e->rank, peer, e->tx, e->rx, p->size, reps, ns);
    double t0 = e->be->now_ns();
    int rc, pp = pp_always || e->nets[p->net].cfg->pattern == BENCH_PP;
    long want = e->completed + (pp ? reps : 1);
    for (long r = 0; r < reps; r++) {
        double s0 = e->node_times ? e->be->now_ns() : 0;
        if ((rc = start_request(e, p, pp_always || r == reps - 1)))
            return rc;
        if (e->node_times)
            e->busy_ns += e->be->now_ns() - s0;
        while (pp && e->completed < want - (reps - 1 - r))
            if ((rc = serve_one(e)) != 0)
                return rc < 0 ? rc : BENCH_ERR_SYSTEM;
    }
    while (e->completed < want)
        if ((rc = serve_one(e)) != 0)
            return rc < 0 ? rc : BENCH_ERR_SYSTEM;
    *ns = e->be->now_ns() - t0;
    return 0;
}

static int iterate(engine *e, const point_run *p, long reps, double *ns)
{
    return iterate_as(e, p, reps, 0, ns);
}

static const bench_point *find_done(const bench_config *cfg, long dst, long size)
{
    const bench_data *d = cfg->done;
    for (long i = 0; d && i < d->count; i++) {
        const bench_point *p = &d->points[i];
        if (p->src == cfg->src && p->dst == dst && p->size_bytes == size &&
            strcmp(p->pattern, cfg->pattern == BENCH_PP ? "pp" : "ow") == 0)
            return p;
    }
    return NULL;
}

/* Warm-up, and the time of one iteration to size the batches. */
static int point_start(engine *e, point_run *p, double batch_min_ns)
{
    const bench_config *cfg = e->nets[p->net].cfg;
    const bench_backend *be = e->be;
    double ns;
    int rc;
    memset(e->tx, (int)(p->size & 0xff), (size_t)p->size);
    p->first = request_hop(e, p->net, p->dst);
    double t0 = be->now_ns(), iter_ns = INFINITY;
    long warm = 0;
    /* The batch size comes from the fastest chunk of the warm-up, not its
     * mean: one descheduling of the peer (another job on a 2-core machine)
     * inflated the mean of a whole warm-up and left an 8 B point with
     * 1-iteration batches, each a few timer ticks long. */
    do {
        if ((rc = iterate(e, p, WARMUP_CHUNK, &ns)))
            return rc;
        iter_ns = fmin(iter_ns, ns / WARMUP_CHUNK);
        warm += WARMUP_CHUNK;
    } while (warm < WARMUP_ITERATIONS || be->now_ns() - t0 < WARMUP_MIN_NS);
    p->reps = 1;
    while ((double)p->reps * iter_ns < batch_min_ns ||
           (cfg->pattern == BENCH_OW && p->reps < OW_MIN_REPS))
        p->reps *= 2;
    bench_stats_reset(&p->st);
    p->start_ns = be->now_ns();
    p->active = 1;
    return 0;
}

/* SKaMPI's stop rule, the standard error within rel_error of the mean over min_samples batches
 * or more after --cut-quantile's cut, and the median known too: only a capped point is noisy. */
static int converged(const bench_config *cfg, const bench_stats *st)
{
    bench_summary sum;
    if (cfg->cut_quantile <= 0)
        return bench_stats_converged(st, cfg->rel_error, cfg->min_samples) &&
               !bench_stats_noisy(st, cfg->rel_error);
    return st->n >= cfg->min_samples && st->n >= 2 &&
           !bench_stats_summary(st, cfg->cut_quantile, cfg->rel_error, &sum) &&
           sum.mean > 0 && sum.ci95 / 1.96 <= cfg->rel_error * sum.mean && !sum.noisy;
}

/* The floor's point: a 0-byte ping-pong from the source of network 0 to a
 * neighbour hosted by another process, warmed up, its batches as short as
 * the run's shortest.  Leaves e->floor NULL when no neighbour is on another
 * process. */
static int floor_start(engine *e, point_run *fp, double batch_min_ns)
{
    const network *nw = &e->nets[0];
    const topo_shape *sh = &nw->cfg->shape;
    double ns, iter_ns = INFINITY;
    int rc;
    for (long d = 0; d < sh->nodes && !e->floor; d++) {
        bench_point pt;
        if (d == nw->src)
            continue;
        bench_fill_counts(nw->cfg, d, &pt);
        *fp = (point_run){.net = 0, .dst = d, .size = 0, .reps = 1};
        fp->first = request_hop(e, 0, d);
        if (pt.hops == 1 && fp->first.host != e->rank)
            e->floor = fp;
    }
    for (int w = 0; e->floor && w < WARMUP_ITERATIONS / WARMUP_CHUNK; w++) {
        if ((rc = iterate_as(e, fp, WARMUP_CHUNK, 1, &ns)))
            return rc;
        iter_ns = fmin(iter_ns, ns / WARMUP_CHUNK);
    }
    while (e->floor && (double)fp->reps * iter_ns < batch_min_ns)
        fp->reps *= 2;
    e->floor_every_ns = fmax(FLOOR_EVERY_NS, FLOOR_EVERY_BATCHES * batch_min_ns);
    e->floor_at_ns = -INFINITY;
    e->floor_since_ns = e->be->now_ns();
    e->floor_spent_ns = 0;
    return 0;
}

/* One batch of the floor, when its last is older than e->floor_every_ns. */
static int floor_batch(engine *e)
{
    double ns, now = e->be->now_ns();
    int rc;
    if (!e->floor || now - e->floor_at_ns < e->floor_every_ns ||
        (e->floor_at_ns > -INFINITY && e->floor_spent_ns > FLOOR_SHARE * (now - e->floor_since_ns)))
        return 0;
    if ((rc = iterate_as(e, e->floor, e->floor->reps, 1, &ns)))
        return rc;
    e->floor_ns = ns / (double)e->floor->reps / 2;
    e->floor_at_ns = e->be->now_ns();
    e->floor_spent_ns += e->floor_at_ns - now;
    return 0;
}

/* One timed batch; clears p->active when the point has converged or
 * reached its sample or time cap. */
static int point_batch(engine *e, point_run *p)
{
    const bench_config *cfg = e->nets[p->net].cfg;
    double ns;
    int rc;
    if ((rc = floor_batch(e)))
        return rc;
    /* Interleaved, a batch follows another point's (after a large one the caches are cold):
     * one untimed iteration first, else the change from the last point is timed
     * (test_interleave injects a cost of that change and checks it is not). */
    if (interleaved(e) && (rc = iterate(e, p, 1, &ns)))
        return rc;
    double *parts = p->nodes ? e->parts : NULL, unit = cfg->pattern == BENCH_PP ? 2.0 : 1.0;
    /* the parts so far (warm-up, floor) are not the batch's */
    if (parts && (rc = bench_nodes_collect(e->be, e->comm, e->rank, e->procs, parts)))
        return rc;
    e->busy_ns = 0;
    if ((rc = iterate(e, p, p->reps, &ns)))
        return rc;
    bench_stats_add(&p->st, ns / (double)p->reps / unit);
    if (parts && (rc = bench_nodes_collect(e->be, e->comm, e->rank, e->procs, parts)))
        return rc;
    for (int r = 0; parts && r < e->procs && r < BENCH_NODES_MAX; r++)
        bench_stats_add(&p->nodes[r], (r == e->rank ? e->busy_ns : parts[r]) / (double)p->reps / unit);
    if (e->floor)
        bench_stats_add(&p->fl, e->floor_ns);
    double spent_ns = e->be->now_ns() - p->start_ns;
    int spanned = spent_ns >= fmin(POINT_MIN_SPAN_NS, cfg->max_time_s * 1e9);
    if ((spanned && converged(cfg, &p->st)) ||
        p->st.n >= cfg->max_samples || spent_ns >= cfg->max_time_s * 1e9)
        p->active = 0;
    return 0;
}

static void point_result(const engine *e, const point_run *p, bench_point *pt)
{
    const bench_config *cfg = e->nets[p->net].cfg;
    const bench_stats *st = &p->st;
    snprintf(pt->pattern, sizeof pt->pattern, "%s", cfg->pattern == BENCH_PP ? "pp" : "ow");
    pt->src = cfg->src;
    pt->dst = p->dst;
    bench_fill_counts(cfg, p->dst, pt);
    pt->size_bytes = p->size;
    pt->reps = p->reps;
    pt->samples = st->n;
    pt->min_ns = st->min;
    pt->median_ns = bench_stats_median(st);
    pt->mean_ns = st->mean;
    pt->sd_ns = bench_stats_sd(st);
    pt->ci95_ns = bench_stats_ci95(st);
    pt->max_ns = st->max;
    pt->noisy = bench_stats_noisy(st, cfg->rel_error);
    bench_summary sum;
    if (cfg->cut_quantile > 0 && !bench_stats_summary(st, cfg->cut_quantile, cfg->rel_error, &sum)) {
        pt->samples = sum.kept;
        pt->min_ns = sum.min, pt->median_ns = sum.median, pt->mean_ns = sum.mean;
        pt->sd_ns = sum.sd, pt->ci95_ns = sum.ci95, pt->max_ns = sum.max, pt->noisy = sum.noisy;
    }
    pt->nodes = 0;
    for (int r = 0; p->nodes && r < e->procs && r < BENCH_NODES_MAX; r++)
        pt->node_ns[pt->nodes++] = bench_stats_median(&p->nodes[r]);
    pt->floor_ns = pt->floor_q1_ns = pt->floor_q3_ns = 0;
    if (e->floor && p->fl.n > 0) {
        pt->floor_ns = bench_stats_median(&p->fl);
        pt->floor_q1_ns = bench_stats_quantile(&p->fl, 0.25);
        pt->floor_q3_ns = bench_stats_quantile(&p->fl, 0.75);
    }
}

/* Measures runs[0..n) together: each warms up, then they take one batch each in turn (in a
 * new order each round, turns.h) until all are done; each point is written (and reported)
 * as it finishes. */
static int measure_group(engine *e, point_run *runs, long n, double batch_min_ns,
                         FILE **outs, const long *totals)
{
    long active = 0, ready = 0;
    int rc = 0, np = e->node_times ? (e->procs < BENCH_NODES_MAX ? e->procs : BENCH_NODES_MAX) : 0;
    for (; ready < n && !rc; ready++) {
        long cap = e->nets[runs[ready].net].cfg->max_samples;
        if (bench_stats_init(&runs[ready].st, cap) || bench_stats_init(&runs[ready].fl, cap) ||
            (np && !(runs[ready].nodes = calloc((size_t)np, sizeof *runs[ready].nodes))))
            rc = BENCH_ERR_SYSTEM;
        for (int r = 0; r < np && !rc; r++)
            rc = bench_stats_init(&runs[ready].nodes[r], cap) ? BENCH_ERR_SYSTEM : 0;
    }
    for (long i = 0; i < n && !rc; i++)
        if ((rc = point_start(e, &runs[i], batch_min_ns)) == 0)
            active++;
    /* the points' time starts with their turns: counted from each one's own warm-up, the
     * first points' --max-time would go to the others' warm-ups */
    for (long i = 0, now = (long)e->be->now_ns(); n > 1 && i < n; i++)
        runs[i].start_ns = (double)now;
    bench_turns turns = {0};
    if (!rc && bench_turns_init(&turns, n))
        rc = BENCH_ERR_SYSTEM;
    for (const long *order; active && !rc && (order = bench_turns_next(&turns));)
        for (long j = 0; j < n && !rc; j++) {
            point_run *p = &runs[order[j]];
            /* a stop asked here or in another process, between two batches */
            if (p->active && (bench_interrupted() ||
                              (e->be->stop_asked && e->be->stop_asked(e->comm))))
                rc = BENCH_ERR_INTERRUPT;
            if (!p->active || rc || (rc = point_batch(e, p)) != 0 || p->active)
                continue;
            bench_point pt;
            point_result(e, p, &pt);
            p->median_ns = pt.median_ns;
            e->measured++, e->noisy += pt.noisy;
            e->spanning += bench_regime_spans(pt.floor_q1_ns, pt.floor_q3_ns);
            bench_data_write_point(outs[p->net], &pt);
            if (fflush(outs[p->net]) != 0)   /* a full disk: stop now, not hours later */
                rc = BENCH_ERR_OUTPUT;
            bench_progress(e->nets[p->net].cfg, &pt, &p->st, p->index, totals[p->net]);
            active--;
        }
    bench_turns_free(&turns);
    for (long i = 0; i < ready; i++) {
        bench_stats_free(&runs[i].st);
        bench_stats_free(&runs[i].fl);
        for (int r = 0; runs[i].nodes && r < np; r++)
            bench_stats_free(&runs[i].nodes[r]);
        free(runs[i].nodes);
        runs[i].nodes = NULL;
    }
    return rc;
}

/* --refine: for each network and destination, the sizes where its curve of medians bends
 * (coll/refine.h, SKaMPI's adaptive message lengths), one point at a time, until it is
 * straight enough or --refine-budget has passed; runs[0..n) are the listed points. */
static int refine_points(engine *e, const point_run *runs, long n, double batch_min_ns,
                         FILE **outs, long *totals)
{
    const bench_config *c0 = e->nets[0].cfg;
    refine_cfg rule = {c0->refine_threshold, c0->refine_min_distance, 1};
    double end_ns = e->be->now_ns() + c0->refine_budget_s * 1e9;
    long *x = malloc(2 * BENCH_MAX_SIZES * sizeof *x);
    double *y = malloc(2 * BENCH_MAX_SIZES * sizeof *y);
    int rc = x && y ? 0 : BENCH_ERR_SYSTEM;
    for (int k = 0; k < e->nnets && !rc; k++) {
        const bench_config *cfg = e->nets[k].cfg;
        for (long d = 0; d < cfg->ndst && !rc; d++) {
            int m = 0, room = 2 * BENCH_MAX_SIZES - 1;
            for (long i = 0; i < n && m < room; i++)
                if (runs[i].net == k && runs[i].dst == cfg->dsts[d])
                    refine_insert(x, y, &m, runs[i].size, runs[i].median_ns);
            /* a resumed file's points: the listed ones were copied to the output already,
             * the ones an earlier --refine added are copied here */
            for (long i = 0; cfg->done && i < cfg->done->count && m < room; i++) {
                const bench_point *q = &cfg->done->points[i];
                if (q->dst != cfg->dsts[d] ||
                    strcmp(q->pattern, cfg->pattern == BENCH_PP ? "pp" : "ow"))
                    continue;
                int listed = 0;
                for (size_t j = 0; j < cfg->nsizes; j++)
                    listed |= cfg->sizes[j] == q->size_bytes;
                if (!listed)
                    bench_data_write_point(outs[k], q);
                refine_insert(x, y, &m, q->size_bytes, q->median_ns);
            }
            long size;
            while (!rc && m < 2 * BENCH_MAX_SIZES - 1 && e->be->now_ns() < end_ns &&
                   (size = refine_next(&rule, x, y, m)) >= 0) {
                point_run p = {.net = k, .index = ++totals[k], .dst = cfg->dsts[d], .size = size};
                if ((rc = measure_group(e, &p, 1, batch_min_ns, outs, totals)) == 0)
                    refine_insert(x, y, &m, size, p.median_ns);
            }
        }
    }
    free(x);
    free(y);
    return rc;
}

/* Every point of every network.  Interleaved (--interleave, --interleave-sizes), batch by
 * batch in turn, so a change of the machine's speed falls on all alike, rows coming as points
 * finish; otherwise point by point, after those a resumed run already has. */
static int measure_all(engine *e, bench_data *headers, FILE **outs)
{
    double res, ovh;
    long totals[BENCH_MAX_NETS], n = 0, todo = 0;
    int rc = 0;

    bench_timer_measure(e->be, &res, &ovh);
    /* Batches of at least --batch-time span Open MPI's fast-box laps and pay them at their rate,
     * so two runs of one ring agree; at the timer's minimum a batch may hold a lap or none. */
    double batch_min_ns = fmax(BATCH_TIMER_FACTOR * (res + ovh), e->nets[0].cfg->min_batch_ns);
    for (int k = 0; k < e->nnets; k++) {
        const bench_config *cfg = e->nets[k].cfg;
        bench_data_set_header(&headers[k], "timer",
                              "%s resolution_ns=%.0f overhead_ns=%.0f batch_min_ns=%.0f",
                              e->be->timer_name, res, ovh, batch_min_ns);
        bench_data_write_header(outs[k], &headers[k]);
        totals[k] = cfg->ndst * (long)cfg->nsizes;
        n += totals[k];
    }
    point_run *runs = calloc((size_t)(n ? n : 1), sizeof *runs), floor_pt;
    if (!runs)
        return BENCH_ERR_SYSTEM;
    for (int k = 0; k < e->nnets; k++) {
        const bench_config *cfg = e->nets[k].cfg;
        for (long i = 0; i < totals[k]; i++) {
            point_run *p = &runs[todo];
            *p = (point_run){.net = k, .index = i + 1, .dst = cfg->dsts[i / (long)cfg->nsizes],
                             .size = cfg->sizes[i % (long)cfg->nsizes]};
            const bench_point *done = find_done(cfg, p->dst, p->size);
            if (done)
                bench_data_write_point(outs[k], done);
            else
                todo++;
        }
        fflush(outs[k]);
    }
    /* after the resumed points are out: a stop during its warm-up keeps them */
    if ((rc = floor_start(e, &floor_pt, batch_min_ns))) {
        free(runs);
        return rc;
    }
    int grouped = interleaved(e);
    if (grouped)
        rc = measure_group(e, runs, todo, batch_min_ns, outs, totals);
    for (long i = 0; !grouped && i < todo && !rc; i++)
        rc = measure_group(e, &runs[i], 1, batch_min_ns, outs, totals);
    if (!rc && e->nets[0].cfg->refine)
        rc = refine_points(e, runs, todo, batch_min_ns, outs, totals);
    free(runs);
    bench_noisy_report(e->nets[0].cfg, e->measured, e->noisy, e->floor ? e->spanning : -1);
    e->floor = NULL;   /* (on this stack frame) */
    return rc;
}

/* Page-aligned, touched buffers, as osu_latency's (a transport copies
 * whole pages; a buffer straddling one more page costs one more). */
unsigned char *bench_page_alloc(size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t size = (bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
    void *p = NULL;
    if (posix_memalign(&p, (size_t)page, size) != 0)
        return NULL;
    memset(p, 0, size);
    return p;
}

static void free_buffers(engine *e)
{
    free(e->rx);
    free(e->tx);
    free(e->relay[0]);
    free(e->relay[1]);
    free(e->parts);
    for (int k = 0; e->nets && k < e->nnets; k++) {
        free(e->nets[k].coords);
        free(e->nets[k].host);
        free(e->nets[k].reply);
    }
    free(e->nets);
}

static int network_init(network *nw, const bench_config *cfg, int procs)
{
    const topo_shape *sh = &cfg->shape;
    nw->cfg = cfg;
    nw->coords = malloc((size_t)(sh->nodes * sh->dims) * sizeof *nw->coords);
    nw->host = malloc((size_t)sh->nodes * sizeof *nw->host);
    if (!nw->coords || !nw->host)
        return BENCH_ERR_SYSTEM;
    for (long r = 0; r < sh->nodes; r++) {
        const long *x = nw->coords + r * sh->dims;
        long sum = 0;
        topo_rank_to_coords(sh, r, nw->coords + r * sh->dims);
        for (int i = 0; i < sh->dims; i++)
            sum += x[i];
        /* A node per process, or by the coordinates' sum mod P, so each hop on a torus whose sides
         * are multiples of P crosses processes; by rank, some hops would be local copies, far
         * cheaper than the network's. */
        nw->host[r] = sh->nodes <= procs ? bench_host(r, procs) : (int)(sum % procs);
    }
    nw->stride[sh->dims - 1] = 1;
    for (int i = sh->dims - 2; i >= 0; i--)
        nw->stride[i] = nw->stride[i + 1] * sh->n[i + 1];
    nw->src = (int32_t)cfg->src;
    nw->ow = cfg->pattern == BENCH_OW;
    /* every node's reply starts toward the source, whatever the request */
    if (!(nw->reply = malloc((size_t)sh->nodes * sizeof *nw->reply)))
        return BENCH_ERR_SYSTEM;
    for (long r = 0; r < sh->nodes; r++) {
        bench_msg m = {BENCH_MSG_RESPONSE, 0, (int32_t)r, nw->src, -1, 0, 0};
        if (r != cfg->src)
            step(NULL, nw, &m);   /* in_dim -1: nothing injected */
        nw->reply[r] = (first_hop){m.node, m.in_dim, nw->host[m.node]};
    }
    return 0;
}

int bench_run(const bench_backend *be, bench_comm *comm, const bench_config *cfgs, int nnets,
              bench_data *headers, FILE **outs)
{
    engine e = {.be = be, .comm = comm, .nnets = nnets, .rank = be->rank(comm),
                .procs = be->size(comm), .cap = 16};   /* (16: a control message's room) */
    int rc = 0;
    if (nnets < 1 || nnets > BENCH_MAX_NETS)
        return BENCH_ERR_SYSTEM;
    e.nets = calloc((size_t)nnets, sizeof *e.nets);
    for (int k = 0; e.nets && k < nnets && !rc; k++) {
        rc = network_init(&e.nets[k], &cfgs[k], e.procs);
        for (size_t i = 0; i < cfgs[k].nsizes; i++)
            if ((size_t)cfgs[k].sizes[i] > e.cap)
                e.cap = (size_t)cfgs[k].sizes[i];
    }
    if (rc || !e.nets) {
        free_buffers(&e);
        return BENCH_ERR_SYSTEM;
    }
    e.echo = cfgs[0].echo;
    e.node_times = cfgs[0].node_times;
    /* the engine's own handling is what --echo and --node-times time */
    e.direct = be->pingpong && !e.echo && !e.node_times &&
               be->pingpong(comm, 0, NULL, NULL, 0, 0, 0) == 0;
    e.parts = calloc((size_t)e.procs, sizeof *e.parts);
    e.rx = bench_page_alloc(e.cap);
    e.tx = bench_page_alloc(e.cap);
    e.relay[0] = bench_page_alloc(e.cap);
    e.relay[1] = bench_page_alloc(e.cap);
    if (!e.rx || !e.tx || !e.relay[0] || !e.relay[1] || !e.parts) {
        free_buffers(&e);
        return BENCH_ERR_SYSTEM;
    }
    if ((rc = be->barrier(comm)) == 0) {
        if (e.rank == bench_host(cfgs[0].src, e.procs)) {
            rc = measure_all(&e, headers, outs);
            /* tell every other process to stop, even after a failure */
            bench_msg stop = {BENCH_MSG_STOP, 0, 0, 0, -1, 0, 0};
            for (int p = 0; p < e.procs && rc != BENCH_ERR_PEER; p++)
                if (p != e.rank && be->send(comm, p, &stop, e.tx) && !rc)
                    rc = BENCH_ERR_PEER;
        } else {
            while ((rc = serve_one(&e)) == 0)
                ;
            rc = rc == 1 ? 0 : rc;
        }
    }
    free_buffers(&e);
    return rc;
}
