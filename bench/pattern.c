/* pattern: ping-pong and one-way on rings and tori over a backend. */
#include "bench/pattern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/stats.h"



/* A batch lasts at least this many times (timer resolution + overhead)
 * (issue 3), so reading the clock costs under 1% of a sample. */
#define BATCH_TIMER_FACTOR 100
/* Warm-up per point: caches, page faults, CPU frequency. */
#define WARMUP_ITERATIONS 200
/* One-way: the batch's single acknowledgement costs about one round trip,
 * so at least 100 messages per batch keep it near 1% of OW = time / reps. */
#define OW_MIN_REPS 100
#define WARMUP_MIN_NS 5e6

typedef struct engine {
    const bench_backend *be;
    bench_comm *comm;
    const bench_config *cfg;
    int rank, procs;
    /* Receives alternate between rx[0] and rx[1], and the source sends from
     * tx: a message never lands in the buffer just sent from.  osu_latency
     * changed to receive into its send buffer runs 2.4x slower at 64 KiB
     * (Open MPI, 2 ranks, this machine); so did mpibench before. */
    unsigned char *rx[2];
    int rx_next;
    unsigned char *tx;            /* the source's payload */
    unsigned char *relay;         /* copy buffer for hops inside one process */
    long *coords;                 /* coordinates of every node, nodes x dims */
    long stride[TOPO_MAX_DIMS];   /* rank distance of one step in dimension i */
    size_t cap;
    long completed;               /* PP round trips / OW acks seen at the source */
} engine;

/* Busy-wait: the injected forwarding or switching cost. */
static void spin_ns(const bench_backend *be, double ns)
{
    if (ns <= 0)
        return;
    double end = be->now_ns() + ns;
    while (be->now_ns() < end)
        ;
}

/* Sends msg (already addressed to msg->node) to the process hosting it. */
static int deliver(engine *e, bench_msg *msg, const void *payload);

/* The message arrived at msg->node.  Either it is at the end of its route
 * (reply, or count a completed round trip), or the node relays it: a
 * forward when it continues in the same dimension, a switch when it
 * changes dimension (thesis: an agent node). */
static int handle(engine *e, bench_msg *msg, unsigned char *payload)
{
    const bench_config *cfg = e->cfg;
    if (msg->node == msg->target) {
        if (msg->kind == BENCH_MSG_RESPONSE) {
            e->completed++;
            return 0;
        }
        if (cfg->pattern == BENCH_OW && !msg->last)
            return 0;
        /* B has received (copied out) the m bytes and sends them back.
         * Measured with mpibench on 2 ranks, 64 KiB: echoing the received
         * buffer ~9.3 us, replying from a separate buffer ~30 us. */
        bench_msg reply = {BENCH_MSG_RESPONSE, 0, msg->node, (int32_t)cfg->src, -1, 0,
                           cfg->pattern == BENCH_OW ? 0 : msg->len};
        return deliver(e, &reply, payload);
    }
    /* Dimension-order routing as topo_route_step, from a precomputed table:
     * rank <-> coordinates costs divisions, and this is the measured path. */
    const topo_shape *sh = &cfg->shape;
    const long *cur = e->coords + (long)msg->node * sh->dims;
    const long *dst = e->coords + (long)msg->target * sh->dims;
    int dim = 0;
    while (cur[dim] == dst[dim])
        dim++;
    spin_ns(e->be, dim == msg->in_dim ? cfg->inject_forward_ns : cfg->inject_switch_ns);
    msg->node += (int32_t)(cur[dim] == sh->n[dim] - 1 ? -(sh->n[dim] - 1) * e->stride[dim]
                                                      : e->stride[dim]);
    msg->in_dim = dim;
    return deliver(e, msg, payload);
}

static int deliver(engine *e, bench_msg *msg, const void *payload)
{
    if (e->cfg->route == BENCH_ROUTE_NETWORK)
        msg->node = msg->target;   /* the network forwards; no relay ranks */
    int to = bench_host(msg->node, e->procs);
    if (to != e->rank)
        return e->be->send(e->comm, to, msg, payload);
    /* Both nodes live in this process (P does not divide the hop): the
     * message is still copied, as a store-and-forward node would. */
    memcpy(e->relay, payload, (size_t)msg->len);
    return handle(e, msg, e->relay);
}

/* Receives and handles one message.  Returns 1 on STOP. */
static int serve_one(engine *e)
{
    bench_msg msg;
    unsigned char *buf = e->rx[e->rx_next];
    int rc = e->be->recv(e->comm, &msg, buf, e->cap);
    if (rc)
        return rc;
    e->rx_next ^= 1;
    if (msg.kind == BENCH_MSG_STOP)
        return 1;
    return handle(e, &msg, buf);
}

/* The first hop of a request from the source. */
static int start_request(engine *e, long dst, long size, int last, const unsigned char *payload)
{
    bench_msg msg = {BENCH_MSG_REQUEST, last, (int32_t)e->cfg->src, (int32_t)dst, -1, 0, size};
    return handle(e, &msg, (unsigned char *)payload);
}

/* Runs `reps` iterations of the pattern; returns elapsed ns in *ns. */
static int iterate(engine *e, long dst, long size, long reps, const unsigned char *payload,
                   double *ns)
{
    double t0 = e->be->now_ns();
    int rc;
    long want = e->completed + (e->cfg->pattern == BENCH_PP ? reps : 1);
    for (long r = 0; r < reps; r++) {
        if ((rc = start_request(e, dst, size, r == reps - 1, payload)))
            return rc;
        while (e->cfg->pattern == BENCH_PP && e->completed < want - (reps - 1 - r))
            if ((rc = serve_one(e)) != 0)
                return rc < 0 ? rc : BENCH_ERR_SYSTEM;
    }
    while (e->completed < want)
        if ((rc = serve_one(e)) != 0)
            return rc < 0 ? rc : BENCH_ERR_SYSTEM;
    *ns = e->be->now_ns() - t0;
    return 0;
}

void bench_timer_measure(const bench_backend *be, double *resolution_ns, double *overhead_ns)
{
    enum { STEPS = 1000, CALLS = 100000 };
    double res = INFINITY;
    for (int i = 0; i < STEPS; i++) {
        double a = be->now_ns(), b;
        while ((b = be->now_ns()) == a)
            ;
        if (b - a < res)
            res = b - a;
    }
    double tick = be->tick_ns();
    *resolution_ns = res > tick ? res : tick;
    double t0 = be->now_ns();
    for (int i = 0; i < CALLS; i++)
        (void)be->now_ns();
    *overhead_ns = (be->now_ns() - t0) / CALLS;
}

static void fill_counts(const bench_config *cfg, long dst, bench_point *pt)
{
    long s[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS], h[TOPO_MAX_DIMS];
    topo_counts q, r;
    topo_rank_to_coords(&cfg->shape, cfg->src, s);
    topo_rank_to_coords(&cfg->shape, dst, d);
    topo_hops(&cfg->shape, s, d, h);
    topo_request_counts(&cfg->shape, h, &q);
    topo_response_counts(&cfg->shape, h, &r);
    pt->hops = q.links;
    pt->fwd = q.forwards;
    pt->sw = q.switches;
    pt->rhops = r.links;
    pt->rfwd = r.forwards;
    pt->rsw = r.switches;
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

/* Measures one (destination, size) point on process 0. */
static int measure_point(engine *e, long dst, long size, double batch_min_ns,
                         bench_stats *st, bench_point *pt)
{
    const bench_config *cfg = e->cfg;
    const bench_backend *be = e->be;
    double per_iter_div = cfg->pattern == BENCH_PP ? 2.0 : 1.0, ns;
    long reps = 1;
    int rc;

    memset(e->tx, (int)(size & 0xff), (size_t)size);
    /* warm-up, and the time of one iteration to size the batches */
    double t0 = be->now_ns();
    long warm = 0;
    do {
        if ((rc = iterate(e, dst, size, 1, e->tx, &ns)))
            return rc;
        warm++;
    } while (warm < WARMUP_ITERATIONS || be->now_ns() - t0 < WARMUP_MIN_NS);
    double iter_ns = (be->now_ns() - t0) / (double)warm;
    while ((double)reps * iter_ns < batch_min_ns ||
           (cfg->pattern == BENCH_OW && reps < OW_MIN_REPS))
        reps *= 2;

    bench_stats_reset(st);
    double start = be->now_ns();
    do {
        if ((rc = iterate(e, dst, size, reps, e->tx, &ns)))
            return rc;
        bench_stats_add(st, ns / (double)reps / per_iter_div);
    } while (!bench_stats_converged(st, cfg->rel_error, cfg->min_samples) &&
             st->n < cfg->max_samples && be->now_ns() - start < cfg->max_time_s * 1e9);

    snprintf(pt->pattern, sizeof pt->pattern, "%s", cfg->pattern == BENCH_PP ? "pp" : "ow");
    pt->src = cfg->src;
    pt->dst = dst;
    fill_counts(cfg, dst, pt);
    pt->size_bytes = size;
    pt->reps = reps;
    pt->samples = st->n;
    pt->min_ns = st->min;
    pt->median_ns = bench_stats_median(st);
    pt->mean_ns = st->mean;
    pt->sd_ns = bench_stats_sd(st);
    pt->ci95_ns = bench_stats_ci95(st);
    pt->max_ns = st->max;
    pt->noisy = bench_stats_noisy(st);
    return 0;
}

static void progress(const bench_config *cfg, const bench_point *pt, long index, long total)
{
    if (cfg->quiet)
        return;
    fprintf(stderr, "%s: [%ld/%ld] %s %ld->%ld (%ld hops) %7ld B: %10.1f ns +- %.1f (95%% CI),"
                    " %ld x %ld reps%s\n", cfg->prog, index, total, pt->pattern, pt->src,
            pt->dst, pt->hops, pt->size_bytes, pt->mean_ns, pt->ci95_ns, pt->samples, pt->reps,
            pt->noisy ? ", noisy" : "");
}

static int measure_all(engine *e, bench_data *header, FILE *out)
{
    const bench_config *cfg = e->cfg;
    double res, ovh;
    bench_stats st;
    long index = 0, total = cfg->ndst * (long)cfg->nsizes;
    int rc = 0;

    bench_timer_measure(e->be, &res, &ovh);
    bench_data_set_header(header, "timer", "%s resolution_ns=%.0f overhead_ns=%.0f",
                          e->be->timer_name, res, ovh);
    bench_data_write_header(out, header);
    fflush(out);
    if (bench_stats_init(&st, cfg->max_samples))
        return BENCH_ERR_SYSTEM;
    for (long d = 0; d < cfg->ndst && !rc; d++) {
        for (size_t s = 0; s < cfg->nsizes && !rc; s++) {
            bench_point pt;
            const bench_point *done = find_done(cfg, cfg->dsts[d], cfg->sizes[s]);
            index++;
            if (done)
                pt = *done;
            else if ((rc = measure_point(e, cfg->dsts[d], cfg->sizes[s],
                                         BATCH_TIMER_FACTOR * (res + ovh), &st, &pt)))
                break;
            bench_data_write_point(out, &pt);
            fflush(out);
            if (!done)
                progress(cfg, &pt, index, total);
        }
    }
    bench_stats_free(&st);
    return rc;
}

/* Page-aligned, touched buffers, as osu_latency's (a transport copies
 * whole pages; a buffer straddling one more page costs one more). */
static unsigned char *page_alloc(size_t bytes)
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
    free(e->rx[0]);
    free(e->rx[1]);
    free(e->tx);
    free(e->relay);
    free(e->coords);
}

int bench_run(const bench_backend *be, bench_comm *comm, const bench_config *cfg,
              bench_data *header, FILE *out)
{
    engine e = {be, comm, cfg, be->rank(comm), be->size(comm), {NULL, NULL}, 0, NULL, NULL,
                NULL, {0}, 0, 0};
    const topo_shape *sh = &cfg->shape;
    int rc;
    e.coords = malloc((size_t)(sh->nodes * sh->dims) * sizeof *e.coords);
    if (!e.coords)
        return BENCH_ERR_SYSTEM;
    for (long r = 0; r < sh->nodes; r++)
        topo_rank_to_coords(sh, r, e.coords + r * sh->dims);
    e.stride[sh->dims - 1] = 1;
    for (int i = sh->dims - 2; i >= 0; i--)
        e.stride[i] = e.stride[i + 1] * sh->n[i + 1];
    e.cap = 1;
    for (size_t i = 0; i < cfg->nsizes; i++)
        if ((size_t)cfg->sizes[i] > e.cap)
            e.cap = (size_t)cfg->sizes[i];
    e.rx[0] = page_alloc(e.cap);
    e.rx[1] = page_alloc(e.cap);
    e.tx = page_alloc(e.cap);
    e.relay = page_alloc(e.cap);
    if (!e.rx[0] || !e.rx[1] || !e.tx || !e.relay) {
        free_buffers(&e);
        return BENCH_ERR_SYSTEM;
    }
    if ((rc = be->barrier(comm)) == 0) {
        if (e.rank == bench_host(cfg->src, e.procs)) {
            rc = measure_all(&e, header, out);
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
