/* router: the cycle-level network (router.h, docs/router.md).  Every cycle:
 * flits and credits due now arrive; each node moves one flit of its
 * source queue's first packet into a free injection VC; heads at the front
 * of a VC are routed and take a free output VC of their class (iSLIP over
 * the VCs); one flit crosses each output port and leaves each input port
 * (iSLIP over the ports), if the output VC downstream has a credit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/router.h"
#include "util/grow.h"

enum { F_HEAD = 1, F_TAIL = 2 };
enum { EV_FLIT = 0, EV_CREDIT = 1 };

typedef struct flit {
    uint32_t pkt, flags;
    uint64_t ready;          /* the cycle it may leave its router */
} flit;

typedef struct ivc {         /* an input VC: its FIFO and the route of its packet */
    flit *buf;
    uint32_t cap, head, count;
    int32_t out_port, out_vc;   /* -1: not routed / no output VC yet */
    uint64_t front;          /* the cycle its first flit came to the front */
} ivc;

typedef struct ovc {         /* an output VC: credits and whether a packet holds it */
    int64_t credits;
    int busy;
    uint64_t free_at;        /* the first cycle it may be allocated again */
} ovc;

typedef struct packet {
    uint64_t tag, created;
    long src, dst;
    uint32_t flits, sent, hops, ways;   /* ways: bit d set: the negative way in d */
    uint32_t next_free;
} packet;

typedef struct wev {
    uint32_t kind, index;
    flit f;
} wev;

typedef struct slot {
    wev *ev;
    size_t n, cap;
} slot;

typedef struct srcq {        /* a node's source queue of packet ids */
    uint32_t *id;
    size_t head, count, cap;
    int32_t vc;              /* the injection VC of its first packet, -1 none */
    uint32_t last;           /* the VC the last packet took */
} srcq;

struct sim_router {
    const topo_shape *sh;
    topo_links links;
    sim_router_config c;
    int D, P, V;             /* P = 2 D + 1 ports; the last injects / ejects */
    long N;
    long *nb;                /* N * 2D: the node one link away */
    ivc *in;                 /* N * P * V */
    ovc *out;                /* N * P * V: the links' and the ejection port's */
    uint32_t *nbuf;          /* flits buffered per node */
    uint64_t *mask;          /* N * P: bit v set when VC v of the input port holds flits */
    uint32_t *rr_in, *rr_out, *rr_acc;   /* N * P each */
    uint32_t *gptr, *aptr;   /* N * P * V: iSLIP's pointers of the output and input VCs */
    srcq *q;
    packet *pk; size_t npk, pkcap; uint32_t pkfree;
    slot *wheel; uint32_t wmask;
    uint64_t now, last_move, pending, rng;
    sim_router_stats st;
    sim_router_deliver deliver;
    void *arg;
    int32_t *req_vc;         /* per input port of one node: the VC it asks for */
    struct va_req { uint32_t iv; int port, lo, hi; } *va;   /* one node's VC requests */
    int32_t *grant;          /* per output VC (or port) of one node: the request it grants, -1 */
    int32_t *sreq;           /* P * P: the VC an input port asks an output port for, -1 */
};

void sim_router_defaults(sim_router_config *c)
{
    *c = (sim_router_config){.vcs = 2, .buf = 8, .dateline = 1, .router_delay = 5, .head_delay = 2,
                             .link_latency = 1, .flit_bytes = 64, .packet_bytes = 4096,
                             .seed = 1};
}

const char *sim_router_check(const sim_router_config *c)
{
    if (c->dateline && c->vcs < 2)
        return "dateline classes need vc:2 or more (or dateline:off)";
    if (c->packet_bytes < c->flit_bytes)
        return "packet must be at least one flit";
    return NULL;
}

static int parse_num(const char *v, long lo, long hi, long *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

int sim_router_parse(const char *text, sim_router_config *c, char *why, size_t len)
{
    static const struct { const char *key; long lo, hi; } keys[] = {
        {"vc", 1, 64}, {"buf", 1, 1L << 20}, {"delay", 0, 1000}, {"link", 1, 1000},
        {"flit", 1, 1L << 20}, {"packet", 1, 1L << 30}, {"dateline", 0, 1}, {"head", 0, 1000},
    };
    char buf[256];
    if (strlen(text) >= sizeof buf)
        return snprintf(why, len, "too long"), -1;
    strcpy(buf, text);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        size_t k = 0;
        if (colon)
            for (*colon = 0; k < sizeof keys / sizeof *keys && strcmp(tok, keys[k].key); k++)
                ;
        if (!colon || k == sizeof keys / sizeof *keys)
            return snprintf(why, len, "'%s' is not KEY:VALUE with KEY one of vc buf delay head"
                            " link flit packet dateline", tok), -1;
        const char *v = colon + 1;
        long x;
        if (k == 1 && strcmp(v, "inf") == 0)
            x = 0;
        else if (k == 6 && (!strcmp(v, "on") || !strcmp(v, "off")))
            x = !strcmp(v, "on");
        else if (k == 6 || parse_num(v, keys[k].lo, keys[k].hi, &x))
            return snprintf(why, len, "%s:%s: expected %s", tok, v,
                            k == 6 ? "on or off" : k == 1 ? "flits 1..2^20 or inf"
                                                          : "a whole number in range"), -1;
        switch (k) {
        case 0: c->vcs = (int)x; break;
        case 1: c->buf = x; break;
        case 2: c->router_delay = (int)x; break;
        case 3: c->link_latency = (int)x; break;
        case 4: c->flit_bytes = x; break;
        case 5: c->packet_bytes = x; break;
        case 7: c->head_delay = (int)x; break;
        default: c->dateline = (int)x; break;
        }
    }
    const char *bad = sim_router_check(c);
    if (bad)
        return snprintf(why, len, "%s", bad), -1;
    return 0;
}

uint64_t sim_router_zero_load(const sim_router_config *c, int hops, uint32_t flits)
{
    return (uint64_t)(hops + 1) * (uint64_t)c->router_delay +
           (uint64_t)(hops + 2) * (uint64_t)c->link_latency + flits - 1;
}

static uint64_t rnd(sim_router *r)
{
    uint64_t x = r->rng;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return r->rng = x;
}

void sim_router_free(sim_router *r)
{
    if (!r)
        return;
    if (r->in)
        for (long i = 0; i < r->N * r->P * r->V; i++)
            free(r->in[i].buf);
    if (r->q)
        for (long i = 0; i < r->N; i++)
            free(r->q[i].id);
    if (r->wheel)
        for (uint32_t i = 0; i <= r->wmask; i++)
            free(r->wheel[i].ev);
    free(r->nb), free(r->in), free(r->out), free(r->nbuf), free(r->mask), free(r->rr_in);
    free(r->rr_out), free(r->gptr), free(r->aptr), free(r->q), free(r->pk), free(r->wheel), free(r->req_vc), free(r->va), free(r->grant), free(r->sreq), free(r->rr_acc);
    free(r);
}

sim_router *sim_router_new(const topo_shape *sh, topo_links links, const sim_router_config *c,
                           sim_router_deliver deliver, void *arg)
{
    sim_router *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->sh = sh, r->links = links, r->c = *c, r->deliver = deliver, r->arg = arg;
    r->D = sh->dims, r->P = 2 * sh->dims + 1, r->V = c->vcs, r->N = sh->nodes;
    r->rng = c->seed * 0x9E3779B97F4A7C15ull | 1;
    r->pkfree = UINT32_MAX;
    size_t N = (size_t)r->N, L = 2 * (size_t)r->D, P = (size_t)r->P, V = (size_t)r->V;
    uint32_t w = 1;
    while (w <= (uint32_t)c->link_latency)
        w <<= 1;
    r->wmask = w - 1;
    if (!(r->nb = malloc(N * L * sizeof *r->nb)) || !(r->in = calloc(N * P * V, sizeof *r->in)) ||
        !(r->out = calloc(N * P * V, sizeof *r->out)) || !(r->nbuf = calloc(N, sizeof *r->nbuf)) ||
        !(r->mask = calloc(N * P, sizeof *r->mask)) ||
        !(r->rr_in = calloc(N * P, sizeof *r->rr_in)) ||
        !(r->rr_out = calloc(N * P, sizeof *r->rr_out)) ||
        !(r->gptr = calloc(N * P * V, sizeof *r->gptr)) || !(r->aptr = calloc(N * P * V, sizeof *r->aptr)) ||
        !(r->va = malloc(P * V * sizeof *r->va)) || !(r->sreq = malloc(P * P * sizeof *r->sreq)) ||
        !(r->rr_acc = calloc(N * P, sizeof *r->rr_acc)) || !(r->grant = malloc(P * V * sizeof *r->grant)) || !(r->q = calloc(N, sizeof *r->q)) ||
        !(r->wheel = calloc(w, sizeof *r->wheel)) || !(r->req_vc = malloc(P * sizeof *r->req_vc)))
        return sim_router_free(r), NULL;
    uint32_t cap = c->buf ? (uint32_t)c->buf : 8;
    for (size_t i = 0; i < N * P * V; i++) {
        r->in[i].out_port = r->in[i].out_vc = -1;
        r->in[i].cap = cap;
        if (!(r->in[i].buf = malloc(cap * sizeof *r->in[i].buf)))
            return sim_router_free(r), NULL;
    }
    for (size_t i = 0; i < N * P * V; i++)
        r->out[i].credits = c->buf ? c->buf : INT64_MAX / 2;
    for (size_t n = 0; n < N; n++) {
        long a[TOPO_MAX_DIMS];
        r->q[n].vc = -1;
        for (int d = 0; d < r->D; d++)
            for (int way = 0; way < 2; way++) {
                topo_rank_to_coords(sh, (long)n, a);
                a[d] = (a[d] + (way ? sh->n[d] - 1 : 1)) % sh->n[d];
                r->nb[n * L + (size_t)d * 2 + (size_t)way] = topo_coords_to_rank(sh, a);
            }
    }
    return r;
}

int sim_router_inject(sim_router *r, long src, long dst, uint32_t flits, uint64_t tag)
{
    uint32_t id;
    if (r->pkfree != UINT32_MAX) {
        id = r->pkfree;
        r->pkfree = r->pk[id].next_free;
    } else {
        if (UTIL_GROW(r->pk, r->npk, r->pkcap, 1024) || r->npk >= UINT32_MAX)
            return -1;
        id = (uint32_t)r->npk++;
    }
    long a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS];
    topo_rank_to_coords(r->sh, src, a);
    topo_rank_to_coords(r->sh, dst, b);
    uint32_t ways = 0;
    for (int d = 0; d < r->D && r->links == TOPO_LINKS_BI; d++) {
        long n = r->sh->n[d], h = ((b[d] - a[d]) % n + n) % n;
        /* a tie goes either way, half the packets each (as the load model splits it) */
        if (h > n - h || (h == n - h && h && (rnd(r) >> 33 & 1)))
            ways |= 1u << d;
    }
    r->pk[id] = (packet){tag, r->now, src, dst, flits, 0, 0, ways, UINT32_MAX};
    srcq *q = &r->q[src];
    if (q->count == q->cap) {
        size_t ncap = q->cap ? 2 * q->cap : 16;
        uint32_t *x = malloc(ncap * sizeof *x);
        if (!x)
            return -1;
        for (size_t i = 0; i < q->count; i++)
            x[i] = q->id[(q->head + i) % q->cap];
        free(q->id);
        q->id = x, q->cap = ncap, q->head = 0;
    }
    q->id[(q->head + q->count++) % q->cap] = id;
    r->pending++;
    return 0;
}

static int push_flit(ivc *v, flit f, int router_delay)
{
    if (v->count == v->cap) {   /* only unbounded buffers fill up here */
        uint32_t ncap = v->cap * 2;
        flit *x = malloc((size_t)ncap * sizeof *x);
        if (!x || ncap < v->cap)
            return free(x), -1;
        for (uint32_t i = 0; i < v->count; i++)
            x[i] = v->buf[(v->head + i) % v->cap];
        free(v->buf);
        v->buf = x, v->cap = ncap, v->head = 0;
    }
    if (!v->count)
        v->front = f.ready - (uint64_t)router_delay;   /* its arrival */
    v->buf[(v->head + v->count++) % v->cap] = f;
    return 0;
}

static int schedule(sim_router *r, uint64_t at, wev e)
{
    slot *s = &r->wheel[at & r->wmask];
    if (UTIL_GROW(s->ev, s->n, s->cap, 16))
        return -1;
    s->ev[s->n++] = e;
    return 0;
}

/* The output port of packet p at node n (2 D: eject) and its VC class's
 * range [*lo, *hi). */
static int route(const sim_router *r, const packet *p, long n, int *lo, int *hi)
{
    long a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS], s[TOPO_MAX_DIMS];
    topo_rank_to_coords(r->sh, n, a);
    topo_rank_to_coords(r->sh, p->dst, b);
    *lo = 0, *hi = r->V;
    for (int d = 0; d < r->D; d++) {
        if (a[d] == b[d])
            continue;
        int way = p->ways >> d & 1;
        if (r->c.dateline) {
            /* The wrap link is the dateline.  Bi rings: class 1 for the whole
             * ring when the route crosses it (routes of at most n/2 links
             * leave a link of class 1 unused); uni rings: class 1 from the
             * crossing on.  Either way no cycle of waiting closes in a class. */
            topo_rank_to_coords(r->sh, p->src, s);
            long k = r->sh->n[d];
            int crossed = r->links == TOPO_LINKS_BI ? (way ? b[d] > s[d] : b[d] < s[d])
                          : way ? (a[d] == 0 || a[d] > s[d]) : (a[d] == k - 1 || a[d] < s[d]);
            int half = r->V / 2;
            if (crossed)
                *lo = half;
            else
                *hi = half;
        }
        return 2 * d + way;
    }
    return 2 * r->D;
}

static int inject_flits(sim_router *r)
{
    size_t P = (size_t)r->P, V = (size_t)r->V;
    for (long n = 0; n < r->N; n++) {
        srcq *q = &r->q[n];
        if (!q->count)
            continue;
        uint32_t id = q->id[q->head];
        packet *p = &r->pk[id];
        ivc *base = &r->in[((size_t)n * P + P - 1) * V];
        if (q->vc < 0) {   /* the next VC round the port with room, behind any packet in it */
            for (uint32_t v = 1; v <= V && q->vc < 0; v++) {
                uint32_t v2 = (q->last + v) % (uint32_t)V;
                if (!r->c.buf || base[v2].count < (uint32_t)r->c.buf)
                    q->vc = (int32_t)v2;
            }
            if (q->vc < 0)
                continue;
            q->last = (uint32_t)q->vc;
        }
        ivc *vc = &base[q->vc];
        if (r->c.buf && vc->count >= (uint32_t)r->c.buf)
            continue;
        uint32_t fl = (p->sent == 0 ? F_HEAD : 0) | (p->sent + 1 == p->flits ? F_TAIL : 0);
        /* the injection channel's latency, then the pipeline */
        if (push_flit(vc, (flit){id, fl, r->now + (uint64_t)(r->c.link_latency + r->c.router_delay)}, r->c.router_delay))
            return -1;
        r->mask[(size_t)n * P + P - 1] |= 1ull << q->vc;
        r->nbuf[n]++;
        r->last_move = r->now;
        if (++p->sent == p->flits) {
            q->vc = -1;
            q->head = (q->head + 1) % q->cap;
            q->count--;
        }
    }
    return 0;
}

/* Runs body with v bound to each set bit of m, from bit s up, then round. */
#define EACH_BIT(m, s, v, body)                                                  \
    for (int pass_ = 0; pass_ < 2; pass_++) {                                    \
        uint64_t b_ = (m) & (pass_ ? ~(~0ull << (s)) : ~0ull << (s));            \
        while (b_) {                                                             \
            int v = __builtin_ctzll(b_);                                         \
            b_ &= b_ - 1;                                                        \
            body                                                                 \
        }                                                                        \
    }

/* VC allocation, BookSim's one iteration of iSLIP: every head routed, at
 * the front of its VC for head_delay cycles, asks for every free output VC
 * of its class; each output VC grants the asker next after its pointer,
 * each asker accepts the grant next after its own; pointers move on a match. */
static void allocate_vcs(sim_router *r, long n)
{
    size_t P = (size_t)r->P, V = (size_t)r->V, PV = P * V;
    ivc *in = &r->in[(size_t)n * PV];
    ovc *out = &r->out[(size_t)n * PV];
    uint32_t *gptr = &r->gptr[(size_t)n * PV], *aptr = &r->aptr[(size_t)n * PV];
    size_t nreq = 0;
    for (size_t p = 0; p < P; p++)
        EACH_BIT(r->mask[(size_t)n * P + p], 0, v, {
            ivc *x = &in[p * V + (size_t)v];
            flit *f = &x->buf[x->head];
            if (x->out_vc >= 0 || !(f->flags & F_HEAD) || f->ready > r->now ||
                x->front + (uint64_t)r->c.head_delay > r->now)
                continue;
            struct va_req *q = &r->va[nreq++];
            q->iv = (uint32_t)(p * V + (size_t)v);
            q->port = route(r, &r->pk[f->pkt], n, &q->lo, &q->hi);
        })
    if (!nreq)
        return;
    for (size_t k = 0; k < PV; k++)
        r->grant[k] = -1;
    for (size_t i = 0; i < nreq; i++) {
        struct va_req *q = &r->va[i];
        for (int k = q->lo; k < q->hi; k++) {
            size_t o = (size_t)q->port * V + (size_t)k;
            if (out[o].busy || out[o].free_at > r->now)
                continue;
            int32_t *g = &r->grant[o];
            if (*g < 0 || (q->iv + PV - gptr[o]) % PV < (r->va[*g].iv + PV - gptr[o]) % PV)
                *g = (int32_t)i;
        }
    }
    for (size_t i = 0; i < nreq; i++) {
        struct va_req *q = &r->va[i];
        int best = -1;
        for (int k = q->lo; k < q->hi; k++)
            if (r->grant[(size_t)q->port * V + (size_t)k] == (int32_t)i &&
                (best < 0 || ((uint32_t)k + V - aptr[q->iv]) % V < ((uint32_t)best + V - aptr[q->iv]) % V))
                best = k;
        if (best < 0)
            continue;
        size_t o = (size_t)q->port * V + (size_t)best;
        out[o].busy = 1;
        in[q->iv].out_port = q->port;
        in[q->iv].out_vc = best;
        gptr[o] = (q->iv + 1) % (uint32_t)PV;
        aptr[q->iv] = ((uint32_t)best + 1) % (uint32_t)V;
    }
}

static int switch_flits(sim_router *r, long n)
{
    size_t P = (size_t)r->P, V = (size_t)r->V, L = P - 1;
    ivc *in = &r->in[(size_t)n * P * V];
    /* BookSim's one iteration of iSLIP over the ports: an input asks for
     * every output one of its VCs could cross to (the VC next after its
     * pointer speaks for the pair), each output grants the input next after
     * its pointer, each input accepts the output next after its own */
    int32_t *sreq = r->sreq, *grant = r->grant;
    for (size_t k = 0; k < P * P; k++)
        sreq[k] = -1;
    for (size_t p = 0; p < P; p++) {
        int start = (int)(r->rr_in[(size_t)n * P + p] % V);
        EACH_BIT(r->mask[(size_t)n * P + p], start, v, {
            ivc *x = &in[p * V + (size_t)v];
            if (x->out_vc < 0 || x->buf[x->head].ready > r->now)
                continue;
            if ((size_t)x->out_port < L &&
                r->out[((size_t)n * P + (size_t)x->out_port) * V + (size_t)x->out_vc].credits <= 0)
                continue;
            if (sreq[p * P + (size_t)x->out_port] < 0)
                sreq[p * P + (size_t)x->out_port] = (int32_t)v;
        })
    }
    for (size_t o = 0; o < P; o++) {
        grant[o] = -1;
        for (size_t j = 0, start = r->rr_out[(size_t)n * P + o]; j < P && grant[o] < 0; j++)
            if (sreq[(start + j) % P * P + o] >= 0)
                grant[o] = (int32_t)((start + j) % P);
    }
    for (size_t p = 0; p < P; p++) {
        r->req_vc[p] = -1;
        for (size_t j = 0, start = r->rr_acc[(size_t)n * P + p]; j < P; j++)
            if (grant[(start + j) % P] == (int32_t)p) {
                r->req_vc[p] = (int32_t)((start + j) % P);   /* the output accepted */
                break;
            }
    }
    for (size_t p = 0; p < P; p++) {
        if (r->req_vc[p] < 0)
            continue;
        size_t o = (size_t)r->req_vc[p];
        r->req_vc[p] = sreq[p * P + o];
        r->rr_acc[(size_t)n * P + p] = (uint32_t)((o + 1) % P);
        {
            ivc *x = &in[p * V + (size_t)r->req_vc[p]];
            flit f = x->buf[x->head];
            x->head = (x->head + 1) % x->cap;
            if (!--x->count)
                r->mask[(size_t)n * P + p] &= ~(1ull << r->req_vc[p]);
            x->front = r->now + 1;
            r->nbuf[n]--;
            r->last_move = r->now;
            r->rr_in[(size_t)n * P + p] = (uint32_t)r->req_vc[p] + 1;
            r->rr_out[(size_t)n * P + o] = (uint32_t)((p + 1) % P);
            int out_vc = x->out_vc;
            if (f.flags & F_TAIL)
                x->out_port = x->out_vc = -1;
            r->req_vc[p] = -1;
            if (p < L) {   /* the freed slot's credit goes back upstream */
                long up = r->nb[(size_t)n * L + (p ^ 1)];
                uint32_t idx = (uint32_t)(((size_t)up * P + p) * V + (size_t)(x - &in[p * V]));
                if (r->c.buf && schedule(r, r->now + (uint64_t)r->c.link_latency,
                                         (wev){EV_CREDIT, idx, {0, 0, 0}}))
                    return -1;
            }
            packet *pk = &r->pk[f.pkt];
            ovc *ov = &r->out[((size_t)n * P + o) * V + (size_t)out_vc];
            /* VC allocation is a pipeline stage before switch allocation, so an
             * output VC is held a cycle beyond its tail: a packet each two cycles */
            if (f.flags & F_TAIL)
                ov->busy = 0, ov->free_at = r->now + 2;
            if (o == L) {
                r->st.flits_ejected++;
                if (f.flags & F_TAIL) {
                    r->st.packets_delivered++;
                    r->pending--;
                    /* done when the tail has crossed the ejection channel */
                    if (r->deliver)
                        r->deliver(r->arg, pk->tag, pk->created,
                                   r->now + (uint64_t)r->c.link_latency, (int)pk->hops);
                    pk->next_free = r->pkfree;
                    r->pkfree = f.pkt;
                }
                continue;
            }
            ov->credits--;
            if (f.flags & F_HEAD)
                pk->hops++;
            r->st.flit_hops++;
            long down = r->nb[(size_t)n * L + o];
            uint32_t idx = (uint32_t)(((size_t)down * P + o) * V + (size_t)out_vc);
            if (schedule(r, r->now + (uint64_t)r->c.link_latency, (wev){EV_FLIT, idx, f}))
                return -1;
        }
    }
    return 0;
}

int sim_router_step(sim_router *r)
{
    slot *s = &r->wheel[r->now & r->wmask];
    size_t PV = (size_t)r->P * (size_t)r->V;
    for (size_t i = 0; i < s->n; i++) {
        wev *e = &s->ev[i];
        if (e->kind == EV_CREDIT) {
            r->out[e->index].credits++;
            continue;
        }
        e->f.ready = r->now + (uint64_t)r->c.router_delay;
        if (push_flit(&r->in[e->index], e->f, r->c.router_delay))
            return -1;
        r->mask[e->index / (size_t)r->V] |= 1ull << (e->index % (size_t)r->V);
        r->nbuf[e->index / PV]++;
    }
    s->n = 0;
    if (inject_flits(r))
        return -1;
    for (long n = 0; n < r->N; n++) {
        if (!r->nbuf[n])
            continue;
        allocate_vcs(r, n);
        if (switch_flits(r, n))
            return -1;
    }
    if (!r->pending)
        r->last_move = r->now;
    r->now++;
    return 0;
}

uint64_t sim_router_now(const sim_router *r) { return r->now; }
uint64_t sim_router_pending(const sim_router *r) { return r->pending; }
uint64_t sim_router_frozen(const sim_router_config *c)
{
    return (uint64_t)(c->router_delay + c->head_delay + 2 * c->link_latency) + 8;
}

uint64_t sim_router_idle(const sim_router *r)
{
    return r->pending && r->now > r->last_move ? r->now - r->last_move - 1 : 0;
}

void sim_router_skip(sim_router *r, uint64_t cycle)
{
    if (r->pending || cycle <= r->now)
        return;
    for (uint32_t i = 0; i <= r->wmask; i++) {   /* only credits are left in flight */
        for (size_t j = 0; j < r->wheel[i].n; j++)
            r->out[r->wheel[i].ev[j].index].credits++;
        r->wheel[i].n = 0;
    }
    r->now = cycle;
    r->last_move = cycle - 1;
}

void sim_router_get_stats(const sim_router *r, sim_router_stats *s) { *s = r->st; }
