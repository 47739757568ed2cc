/* scisim_traffic: --traffic-pattern, synthetic traffic on one torus through
 * the router model (docs/router.md): Bernoulli injection at R flits per node
 * per cycle, a warm-up, a measurement phase whose packets are followed to
 * delivery, a latency-load table and the saturation throughput by bisection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/router.h"
#include "scisim/scisim.h"

typedef struct ctx {
    const scisim_opts *o;
    topo_shape shape;
    sim_router_config rc;
    uint32_t flits;
    long *dst;          /* per node: its pattern's destinations (not uniform) */
    int *ndst;
    uint64_t flit_hops;
    double seconds;
} ctx;

typedef struct run {
    double offered, accepted, latency, hops;
    uint64_t packets;
    int stable, deadlock;
} run;

typedef struct meas {
    uint64_t n, open;
    double lat, hops;
} meas;

static void on_deliver(void *arg, uint64_t tag, uint64_t created, uint64_t done, int hops)
{
    meas *m = arg;
    if (!tag)
        return;
    m->n++, m->open--;
    m->lat += (double)(done - created);
    m->hops += hops;
}

static uint64_t next_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return *s = x;
}

static double u01(uint64_t *s) { return (double)(next_rand(s) >> 11) * 0x1.0p-53; }

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One offered rate: warm-up, measurement, then the measured packets drained
 * with injection going on.  -1 out of memory. */
static int one_rate(ctx *x, double rate, run *out)
{
    const scisim_opts *o = x->o;
    meas m = {0};
    sim_router *r = sim_router_new(&x->shape, o->links, &x->rc, on_deliver, &m);
    if (!r)
        return -1;
    uint64_t rng = (uint64_t)o->traffic_seed * 0x9E3779B97F4A7C15ull + 12345;
    double p = rate / x->flits;
    uint64_t W = (uint64_t)o->warmup, M = (uint64_t)o->measure;
    uint64_t drain_cap = W + M + (M > 10 * (uint64_t)o->sat_latency ? M : 10 * (uint64_t)o->sat_latency);
    uint64_t ej0 = 0, stall = sim_router_frozen(&x->rc);
    sim_router_stats st;
    long N = x->shape.nodes;
    int rc = 0;
    double t0 = now_s();
    *out = (run){.offered = rate};
    for (uint64_t c = 0;; c++) {
        if (c == W) {
            sim_router_get_stats(r, &st);
            ej0 = st.flits_ejected;
        }
        if (c == W + M) {
            sim_router_get_stats(r, &st);
            out->accepted = (double)(st.flits_ejected - ej0) / ((double)M * (double)N);
        }
        if (c >= W + M && (m.open == 0 || c >= drain_cap))
            break;
        int tag = c >= W && c < W + M;
        for (long n = 0; n < N; n++) {
            if (u01(&rng) >= p)
                continue;
            long d;
            if (o->pattern == TOPO_PATTERN_UNIFORM) {
                d = (long)(next_rand(&rng) % (uint64_t)(N - 1));
                d += d >= n;
            } else if (x->ndst[n]) {
                d = x->dst[n * TOPO_PATTERN_MAX_DESTS + (long)(next_rand(&rng) % (uint64_t)x->ndst[n])];
            } else {
                continue;
            }
            if (sim_router_inject(r, n, d, x->flits, (uint64_t)tag)) {
                rc = -1;
                goto done;
            }
            m.open += (uint64_t)tag;
        }
        if (sim_router_step(r)) {
            rc = -1;
            goto done;
        }
        if (sim_router_idle(r) > stall) {
            out->deadlock = 1;
            break;
        }
    }
    out->packets = m.n;
    out->latency = m.n ? m.lat / (double)m.n : 0;
    out->hops = m.n ? m.hops / (double)m.n : 0;
    out->stable = !out->deadlock && m.open == 0 && out->latency <= (double)o->sat_latency;
done:
    sim_router_get_stats(r, &st);
    x->flit_hops += st.flit_hops;
    x->seconds += now_s() - t0;
    sim_router_free(r);
    return rc;
}

/* The closed-form zero-load latency, averaged over the pattern's pairs. */
static double zero_load(const ctx *x, double *hops)
{
    const topo_shape *sh = &x->shape;
    double sum = 0, h = 0, pairs = 0;
    for (long s = 0; s < sh->nodes; s++) {
        long a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS], hv[TOPO_MAX_DIMS], dist[TOPO_MAX_DIMS];
        int nd = x->o->pattern == TOPO_PATTERN_UNIFORM ? (int)sh->nodes : x->ndst[s];
        for (int j = 0; j < nd; j++) {
            long d = x->o->pattern == TOPO_PATTERN_UNIFORM ? j : x->dst[s * TOPO_PATTERN_MAX_DESTS + j];
            if (d == s)
                continue;
            topo_rank_to_coords(sh, s, a);
            topo_rank_to_coords(sh, d, b);
            topo_hops(sh, a, b, hv);
            topo_route_dist(sh, x->o->links, hv, dist, NULL);
            long H = 0;
            for (int i = 0; i < sh->dims; i++)
                H += dist[i];
            sum += (double)sim_router_zero_load(&x->rc, (int)H, x->flits);
            h += (double)H;
            pairs++;
        }
    }
    *hops = pairs ? h / pairs : 0;
    return pairs ? sum / pairs : 0;
}

static void print_row(FILE *fp, const run *u, double cycle_ns)
{
    fprintf(fp, "%.4f\t%.4f\t%.2f\t%.1f\t%.3f\t%llu\t%s\n", u->offered, u->accepted, u->latency,
            u->latency * cycle_ns, u->hops, (unsigned long long)u->packets,
            u->deadlock ? "deadlock" : u->stable ? "yes" : "no");
}

int scisim_traffic(const scisim_opts *o)
{
    ctx x = {.o = o};
    topo_parse_error perr;
    char name[TOPO_MAX_DIMS * 21];
    if (topo_shape_parse(o->shape_text[0], &x.shape, &perr))
        return scisim_usage_error("--shape '%s': %s at character %zu", o->shape_text[0], perr.what,
                                  perr.pos + 1);
    topo_shape_format(&x.shape, name, sizeof name);
    if (x.shape.nodes > 1L << 20)
        return scisim_usage_error("--shape %s: over 2^20 nodes for cycle-level traffic", name);
    const char *bad = topo_pattern_check(&x.shape, o->pattern);
    if (bad)
        return scisim_usage_error("--traffic-pattern %s on %s: %s", topo_pattern_name(o->pattern),
                                  name, bad);
    x.rc = o->router;
    x.rc.seed = (uint64_t)o->traffic_seed;
    x.flits = (uint32_t)((x.rc.packet_bytes + x.rc.flit_bytes - 1) / x.rc.flit_bytes);
    double cycle_ns = (double)x.rc.flit_bytes / o->inter.link_bw_bytes_per_ns;
    if (!(x.dst = malloc((size_t)x.shape.nodes * TOPO_PATTERN_MAX_DESTS * sizeof *x.dst)) ||
        !(x.ndst = calloc((size_t)x.shape.nodes, sizeof *x.ndst))) {
        free(x.dst);
        return scisim_runtime_error("out of memory");
    }
    long senders = o->pattern == TOPO_PATTERN_UNIFORM ? x.shape.nodes : 0;
    if (o->pattern != TOPO_PATTERN_UNIFORM)
        for (long n = 0; n < x.shape.nodes; n++) {
            x.ndst[n] = topo_pattern_dests(&x.shape, o->pattern, n,
                                           &x.dst[n * TOPO_PATTERN_MAX_DESTS]);
            senders += x.ndst[n] > 0;
        }
    if (!senders) {
        free(x.dst), free(x.ndst);
        return scisim_usage_error("--traffic-pattern %s on %s: every node is its own destination",
                                  topo_pattern_name(o->pattern), name);
    }
    int rc = 0;
    run *rows = calloc(o->nrates ? o->nrates : 11, sizeof *rows);
    scisim_out *out = rows ? scisim_out_open(o) : NULL;
    if (!out) {
        free(x.dst), free(x.ndst), free(rows);
        return rows ? 1 : scisim_runtime_error("out of memory");
    }
    /* saturation: the largest offered rate whose measured packets drain
     * with a mean latency under the threshold */
    double lo = 0, hi = 1, step = o->sat_step;
    run sat = {0}, probe;
    while (hi - lo > step && !scisim_stop()) {
        double mid = (lo + hi) / 2;
        if ((rc = one_rate(&x, mid, &probe)))
            break;
        if (probe.stable)
            lo = mid, sat = probe;
        else
            hi = mid;
    }
    size_t nrows = 0;
    if (!rc && !scisim_stop()) {
        size_t want = o->nrates ? o->nrates : 11;
        for (size_t i = 0; i < want && !scisim_stop(); i++) {
            double rate = o->nrates ? o->rates[i] : i == 0 ? 0.01 * lo : 0.1 * (double)i * lo;
            if ((rc = one_rate(&x, rate, &rows[i])))
                break;
            nrows++;
        }
    }
    if (rc) {
        free(x.dst), free(x.ndst), free(rows);
        scisim_out_close(out, 0, 0);
        return scisim_runtime_error("out of memory");
    }
    FILE *fp = scisim_out_fp(out);
    double zhops, zl = zero_load(&x, &zhops);
    fprintf(fp, "# traffic %s on %s %s links; router vc:%d buf:%s%ld delay:%d link:%d dateline:%s;"
                " %u-flit packets of %ld B flits\n",
            topo_pattern_name(o->pattern), name, topo_links_name(o->links), x.rc.vcs,
            x.rc.buf ? "" : "inf", x.rc.buf ? x.rc.buf : 0, x.rc.router_delay, x.rc.link_latency,
            x.rc.dateline ? "on" : "off", x.flits, x.rc.flit_bytes);
    fprintf(fp, "# cycle %.6g ns (flit / link_bw_bytes_per_ns %.6g of %s); warm-up %ld cycles,"
                " measurement %ld, seed %ld\n",
            cycle_ns, o->inter.link_bw_bytes_per_ns, o->params_path ? o->params_path : "the preset",
            o->warmup, o->measure, o->traffic_seed);
    fprintf(fp, "# zero-load latency (closed form) %.2f cycles at %.3f hops\n", zl, zhops);
    fputs("rate\taccepted\tlatency_cycles\tlatency_ns\thops\tpackets\tstable\n", fp);
    for (size_t i = 0; i < nrows; i++)
        print_row(fp, &rows[i], cycle_ns);
    int partial = scisim_stop() != 0;
    if (!partial && o->sat_step >= 1)
        fputs("# saturation not searched (--saturation-step 1)\n", fp);
    else if (!partial)
        fprintf(fp, "# saturation %.4f flits/node/cycle (stable there, not at %.4f; latency over"
                    " %ld cycles or undrained), accepted %.4f\n",
                lo, hi, o->sat_latency, sat.accepted);
    fprintf(fp, "# speed %llu flit-hops in %.3f CPU s: %.4g flit-hops/s\n",
            (unsigned long long)x.flit_hops, x.seconds, x.seconds > 0 ? (double)x.flit_hops / x.seconds : 0);
    free(x.dst), free(x.ndst), free(rows);
    return scisim_out_close(out, partial, (long)nrows);
}
