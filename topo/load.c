/* load: expected crossings of every directed link per injected message
 * (docs/model.md, 'Load'), for the load model's queues.  Route counting only; the
 * queueing is model/load.c. */
#include "topo/topo.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

static long stride_of(const topo_shape *s, int dim)
{
    long st = 1;
    for (int j = dim + 1; j < s->dims; j++)
        st *= s->n[j];
    return st;
}

/* Uniform traffic: per dimension, the positive way carries, over the N - 1
 * destinations of a source, (N / n) sum_h up(h) crossings spread over the
 * N links of that way (and likewise the negative way): c = N/(N-1) up/n. */
static void uniform_loads(const topo_shape *s, topo_links links, double *c)
{
    double N = (double)s->nodes;
    for (int i = 0; i < s->dims; i++) {
        long n = s->n[i];
        double up = 0, down = 0;
        for (long h = 1; h < n; h++) {
            long back = n - h;
            if (links == TOPO_LINKS_UNI || h < back)
                up += (double)h;
            else if (back < h)
                down += (double)back;
            else {          /* tie: half each way */
                up += (double)h / 2;
                down += (double)h / 2;
            }
        }
        double cu = N / (N - 1) * up / (double)n, cd = N / (N - 1) * down / (double)n;
        for (long x = 0; x < s->nodes; x++) {
            c[topo_link_index(s, x, i, 0)] = cu;
            c[topo_link_index(s, x, i, 1)] = cd;
        }
    }
}

/* Adds weight w to the links of the arc of `len` links starting at node x
 * (coordinate a in dimension i) going way `way`, as a circular difference
 * on that ring: +w at the first link, -w after the last. */
static void add_arc(const topo_shape *s, double *diff, long x, long a, int i, int way,
                    long len, double w)
{
    long n = s->n[i], st = stride_of(s, i), base = x - a * st;
    /* positive way: links at positions a .. a+len-1; negative: a .. a-len+1 */
    long first = way == 0 ? a : ((a - len + 1) % n + n) % n;
    long end = (first + len) % n;   /* one past the last, circularly */
    diff[topo_link_index(s, base + first * st, i, way)] += w;
    if (end != 0)
        diff[topo_link_index(s, base + end * st, i, way)] -= w;
    if (first + len > n)           /* wraps: positions 0 .. end-1 too */
        diff[topo_link_index(s, base, i, way)] += w;
}

/* Adds one message s -> d with weight w (dimension order; on bi links the
 * shorter way, a tie half each way). */
static void add_route(const topo_shape *s, topo_links links, double *diff, long src,
                      const long *a, const long *b, double w)
{
    long cur[TOPO_MAX_DIMS];
    memcpy(cur, a, sizeof cur[0] * (size_t)s->dims);
    long x = src;
    for (int i = 0; i < s->dims; i++) {
        long n = s->n[i], h = ((b[i] - a[i]) % n + n) % n, st = stride_of(s, i);
        if (h == 0)
            continue;
        if (links == TOPO_LINKS_UNI || h < n - h)
            add_arc(s, diff, x, cur[i], i, 0, h, w);
        else if (n - h < h)
            add_arc(s, diff, x, cur[i], i, 1, n - h, w);
        else {
            add_arc(s, diff, x, cur[i], i, 0, h, w / 2);
            add_arc(s, diff, x, cur[i], i, 1, h, w / 2);
        }
        x += (b[i] - cur[i]) * st;
        cur[i] = b[i];
    }
}

/* Turns the difference arrays into loads: a running sum along every ring,
 * all rings of a dimension at once (position k adds position k - 1's sum;
 * neighbouring nodes' links are neighbours in memory, rings are not). */
static void integrate(const topo_shape *s, double *c)
{
    for (int i = 0; i < s->dims; i++) {
        long n = s->n[i], st = stride_of(s, i);
        for (long base = 0; base < s->nodes; base += n * st)
            for (long k = 1; k < n; k++)
                for (long q = 0; q < st; q++) {
                    long x = base + k * st + q;
                    for (int way = 0; way < 2; way++)
                        c[topo_link_index(s, x, i, way)] += c[topo_link_index(s, x - st, i, way)];
                }
    }
}

int topo_link_loads(const topo_shape *shape, topo_links links, topo_pattern pattern,
                    double *c, double *senders)
{
    long entries = 2 * shape->dims * shape->nodes;
    long dst[TOPO_PATTERN_MAX_DESTS], a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS];
    double active = 0;
    if (entries > TOPO_LOAD_MAX_LINKS || topo_pattern_check(shape, pattern))
        return -1;
    memset(c, 0, sizeof *c * (size_t)entries);
    if (pattern == TOPO_PATTERN_UNIFORM) {
        uniform_loads(shape, links, c);
        if (senders)
            *senders = (double)shape->nodes;
        return 0;
    }
    for (long src = 0; src < shape->nodes; src++) {
        int k = topo_pattern_dests(shape, pattern, src, dst);
        if (k <= 0)
            continue;
        active += 1;
        topo_rank_to_coords(shape, src, a);
        for (int j = 0; j < k; j++) {
            topo_rank_to_coords(shape, dst[j], b);
            add_route(shape, links, c, src, a, b, 1.0 / k);
        }
    }
    if (active == 0)
        return -1;
    integrate(shape, c);
    if (senders)
        *senders = active;
    return 0;
}

/* ---- input streams ---------------------------------------------------------- */

/* One segment of a route: dimension, way, its first link's node, links. */
typedef struct segment {
    int dim, way;
    long node, len;
} segment;

/* Segments of the route a -> b (rank src) with the tie choice tie_up;
 * returns how many.  *tie (may be NULL) gets whether a bi-link tie occurs. */
static int segments(const topo_shape *s, topo_links links, long src, const long *a,
                    const long *b, int tie_up, segment *seg, int *tie)
{
    long x = src;
    int k = 0;
    if (tie)
        *tie = 0;
    for (int i = 0; i < s->dims; i++) {
        long n = s->n[i], h = ((b[i] - a[i]) % n + n) % n;
        if (h == 0)
            continue;
        if (tie && links == TOPO_LINKS_BI && 2 * h == n)
            *tie = 1;
        int way = links == TOPO_LINKS_BI && (n - h < h || (n - h == h && !tie_up));
        seg[k++] = (segment){i, way, x, way ? n - h : h};
        x += (b[i] - a[i]) * stride_of(s, i);
    }
    return k;
}

/* Input class of a segment: 0 injection, 1 + 2 dim + way of the segment
 * before it. */
static int seg_class(const segment *seg, int k)
{
    return k == 0 ? 0 : 1 + 2 * seg[k - 1].dim + seg[k - 1].way;
}

/* Calls back for every message (both tie choices at half weight on bi
 * links where a tie occurs) with its segments; uniform: only source 0's
 * messages (the caller spreads them by symmetry). */
typedef void (*seg_fn)(void *ctx, const segment *seg, int k, long dst, double w);

static void each_message(const topo_shape *s, topo_links links, topo_pattern pattern,
                         seg_fn fn, void *ctx)
{
    long dst[TOPO_PATTERN_MAX_DESTS], a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS];
    segment seg[TOPO_MAX_DIMS], alt[TOPO_MAX_DIMS];
    long last = pattern == TOPO_PATTERN_UNIFORM ? 1 : s->nodes;
    for (long src = 0; src < last; src++) {
        int k = 1;
        topo_rank_to_coords(s, src, a);
        if (pattern != TOPO_PATTERN_UNIFORM && (k = topo_pattern_dests(s, pattern, src, dst)) <= 0)
            continue;
        long count = pattern == TOPO_PATTERN_UNIFORM ? s->nodes - 1 : k;
        for (long j = 0; j < count; j++) {
            long d = pattern == TOPO_PATTERN_UNIFORM ? j + 1 : dst[j];
            topo_rank_to_coords(s, d, b);
            int tie, m = segments(s, links, src, a, b, 1, seg, &tie);
            fn(ctx, seg, m, d, tie ? 0.5 / (double)count : 1.0 / (double)count);
            if (tie)
                fn(ctx, alt, segments(s, links, src, a, b, 0, alt, NULL), d,
                   0.5 / (double)count);
        }
    }
}

/* Non-uniform patterns: every segment start (link, input class, weight) and
 * every arrival (node, class, weight) of one pass over the messages,
 * bucketed by link / node (a counting sort), then summed per class. */
typedef struct start_event {
    long where;     /* link index, or node for arrivals */
    int cls;
    double w;       /* the message's rate (a flow: one source, one
                     * destination, one tie choice) */
} start_event;

typedef struct event_list {
    start_event *ev;
    long n;
    size_t cap;
    int failed;
} event_list;

typedef struct stream_ctx {
    const topo_shape *s;
    event_list starts, arrivals;
    double w0;      /* the rate of most flows: 1 / (a sender's destinations) */
    double *sq;     /* difference arrays of sum w (w - w0) over the flows
                     * crossing a link (ties, and any flow of another rate),
                     * then per link sum w^2 = w0 c + that */
    int corrected;  /* some flow's rate was not w0 */
} stream_ctx;

static void push_event(event_list *l, long where, int cls, double w)
{
    if (UTIL_GROW(l->ev, l->n, l->cap, 1 << 16)) {
        l->failed = 1;
        return;
    }
    l->ev[l->n++] = (start_event){where, cls, w};
}

static void record(void *arg, const segment *seg, int k, long dst, double w)
{
    stream_ctx *c = arg;
    for (int m = 0; m < k; m++) {
        push_event(&c->starts, topo_link_index(c->s, seg[m].node, seg[m].dim, seg[m].way),
                   seg_class(seg, m), w);
        if (w != c->w0) {
            long st = stride_of(c->s, seg[m].dim), a = (seg[m].node / st) % c->s->n[seg[m].dim];
            add_arc(c->s, c->sq, seg[m].node, a, seg[m].dim, seg[m].way, seg[m].len,
                    w * (w - c->w0));
            c->corrected = 1;
        }
    }
    if (k > 0)
        push_event(&c->arrivals, dst, 1 + 2 * seg[k - 1].dim + seg[k - 1].way, w);
}

/* A growing list of inputs (the rows of topo_streams): rate, the load of
 * the channel the input leaves, that channel (a link, or -1), and the
 * input's sum of squared flow rates. */
typedef struct rate_list {
    double *v, *up, *sq;
    long *from;
    long n, cap;
} rate_list;

/* Makes room for cap inputs (at least): one allocation per array where
 * the caller knows a bound, not a doubling series of copies. */
static int reserve_rates(rate_list *r, long cap)
{
    if (cap <= r->cap)
        return 0;
    /* each array grown in place of the old one; on failure the ones
     * already grown are kept (and freed with the list), cap stays */
#define GROW(a)                                                         \
    do {                                                                \
        void *grown = realloc((a), sizeof *(a) * (size_t)cap);          \
        if (!grown)                                                     \
            return -1;                                                  \
        (a) = grown;                                                    \
    } while (0)
    GROW(r->v);
    GROW(r->up);
    GROW(r->from);
    GROW(r->sq);
#undef GROW
    r->cap = cap;
    return 0;
}

static int push_rate(rate_list *r, double v, double up, long from, double sq)
{
    if (r->n == r->cap && reserve_rates(r, r->cap ? 2 * r->cap : 1 << 12))
        return -1;
    r->v[r->n] = v;
    r->up[r->n] = up;
    r->from[r->n] = from;
    r->sq[r->n++] = sq < 0 ? 0 : sq > v * v ? v * v : sq;   /* rounding of a difference */
    return 0;
}

/* The link that arrives at node in dimension dim, way way (from node -
 * e_dim on the positive way, node + e_dim on the negative). */
static long arriving_link(const topo_shape *s, long node, int dim, int way)
{
    long n = s->n[dim], st = stride_of(s, dim), a = (node / st) % n;
    long from = (a + (way ? 1 : n - 1)) % n;
    return topo_link_index(s, node + (from - a) * st, dim, way);
}

/* Appends one row: the per-class totals of input rates at node (class 0:
 * the injection channel, load 1; class 1 + 2 j + w: the link arriving by
 * dimension j, way w) and of their flows' squared rates (per2), and for a
 * link (link >= 0) the traffic continuing from the previous link of its
 * ring: c minus the segment starts, and sq_link (the link's sum of squared
 * flow rates) minus theirs.  Returns -1 without memory. */
static int push_row(rate_list *r, const topo_shape *s, const double *c, const double *per,
                    const double *per2, int classes, long node, long link, double sq_link)
{
    double starts = 0, starts2 = 0;
    for (int k = 0; k < classes; k++)
        if (per[k] > 0) {
            starts += per[k];
            starts2 += per2[k];
            long from = k == 0 ? -1 : arriving_link(s, node, (k - 1) / 2, (k - 1) % 2);
            if (push_rate(r, per[k], from < 0 ? 1 : c[from], from, per2[k]))
                return -1;
        }
    if (link >= 0) {
        int dim = (int)((link / 2) % s->dims), way = (int)(link % 2);
        double through = c[link] - starts;
        long from = arriving_link(s, node, dim, way);
        if (through > 1e-12 * c[link] &&
            push_rate(r, through, c[from], from, sq_link - starts2))
            return -1;
    }
    return 0;
}

/* Sorts the events by place (a counting sort) and appends one row per
 * place, first[x] its start: places are links (links = 1; sq: their sums
 * of squared flow rates) or nodes' ejection channels; total[x] (may be
 * NULL) gets the place's events' weight.  Returns -1 without memory. */
static int bucket_rows(const event_list *l, const topo_shape *s, int links, const double *c,
                       const double *sq, rate_list *r, long *first, double *total)
{
    long places = links ? 2L * s->dims * s->nodes : s->nodes;
    long *at = calloc((size_t)places + 1, sizeof *at);
    start_event *sorted = malloc(sizeof *sorted * (size_t)(l->n ? l->n : 1));
    double per[2 * TOPO_MAX_DIMS + 1], per2[2 * TOPO_MAX_DIMS + 1];
    int classes = 2 * s->dims + 1, rc = -1;
    if (!at || !sorted)
        goto out;
    for (long i = 0; i < l->n; i++)
        at[l->ev[i].where + 1]++;
    for (long x = 0; x < places; x++)
        at[x + 1] += at[x];
    for (long i = 0; i < l->n; i++)
        sorted[at[l->ev[i].where]++] = l->ev[i];
    for (long x = places; x > 0; x--)   /* at[x] was advanced to the end */
        at[x] = at[x - 1];
    at[0] = 0;
    for (long x = 0; x < places; x++) {
        memset(per, 0, sizeof per[0] * (size_t)classes);
        memset(per2, 0, sizeof per2[0] * (size_t)classes);
        for (long i = at[x]; i < at[x + 1]; i++) {
            per[sorted[i].cls] += sorted[i].w;
            per2[sorted[i].cls] += sorted[i].w * sorted[i].w;
        }
        first[x] = r->n;
        if (total) {
            total[x] = 0;
            for (int k = 0; k < classes; k++)
                total[x] += per[k];
        }
        if (push_row(r, s, c, per, per2, classes, links ? x / 2 / s->dims : x, links ? x : -1,
                     links ? sq[x] : 0))
            goto out;
    }
    rc = 0;
out:
    free(at);
    free(sorted);
    return rc;
}

/* Uniform traffic: every link of a (dimension, way) type and every
 * ejection channel sees the same input streams; one pass over source 0's
 * destinations fills a table by type and input class. */
typedef struct uniform_table {
    int dims;
    double start[2 * TOPO_MAX_DIMS][2 * TOPO_MAX_DIMS + 1], start2[2 * TOPO_MAX_DIMS][2 * TOPO_MAX_DIMS + 1];
    double eject[2 * TOPO_MAX_DIMS + 1], eject2[2 * TOPO_MAX_DIMS + 1];
    double sq[2 * TOPO_MAX_DIMS];   /* per link of a type: its flows' squared rates */
} uniform_table;

/* Source 0's flows stand for every source's: the N flows of a type's links
 * that source 0's flow (shifted) has crossed len times spread over N links. */
static void count_uniform(void *arg, const segment *seg, int k, long dst, double w)
{
    uniform_table *u = arg;
    (void)dst;
    for (int m = 0; m < k; m++) {
        int t = 2 * seg[m].dim + seg[m].way;
        u->start[t][seg_class(seg, m)] += w;
        u->start2[t][seg_class(seg, m)] += w * w;
        u->sq[t] += w * w * (double)seg[m].len;
    }
    if (k > 0) {
        u->eject[1 + 2 * seg[k - 1].dim + seg[k - 1].way] += w;
        u->eject2[1 + 2 * seg[k - 1].dim + seg[k - 1].way] += w * w;
    }
}

static int uniform_streams(const topo_shape *s, topo_links links, const double *c,
                           topo_streams *st, rate_list *r)
{
    uniform_table u;
    int types = 2 * s->dims;
    double e = 0;
    memset(&u, 0, sizeof u);
    each_message(s, links, TOPO_PATTERN_UNIFORM, count_uniform, &u);
    st->symmetric = 1;
    st->rows = types + 1;
    if (!(st->first = malloc(sizeof *st->first * (size_t)(st->rows + 1))))
        return -1;
    for (int t = 0; t < types; t++) {   /* link t of node 0 stands for its type */
        st->first[t] = r->n;
        if (push_row(r, s, c, u.start[t], u.start2[t], types + 1, 0, t, u.sq[t]))
            return -1;
    }
    st->first[types] = r->n;
    if (push_row(r, s, c, u.eject, u.eject2, types + 1, 0, -1, 0))
        return -1;
    st->first[types + 1] = r->n;
    for (int k = 0; k <= types; k++)
        e += u.eject[k];
    for (long x = 0; x < s->nodes; x++)
        st->ej[x] = e;
    return 0;
}

int topo_link_input_streams(const topo_shape *shape, topo_links links, topo_pattern pattern,
                            const double *c, topo_streams *st)
{
    long entries = 2 * shape->dims * shape->nodes;
    int rc = -1;
    stream_ctx ctx = {shape, {0}, {0}, 0, NULL, 0};
    rate_list r = {0};
    memset(st, 0, sizeof *st);
    st->links = entries;
    if (entries > TOPO_LOAD_MAX_LINKS || topo_pattern_check(shape, pattern))
        return -1;
    if (!(st->ej = malloc(sizeof *st->ej * (size_t)shape->nodes)))
        goto out;
    if (pattern == TOPO_PATTERN_UNIFORM) {
        rc = uniform_streams(shape, links, c, st, &r);
        goto out;
    }
    st->rows = entries + shape->nodes;
    if (!(st->first = malloc(sizeof *st->first * (size_t)(st->rows + 1))))
        goto out;
    if (!(ctx.sq = calloc((size_t)entries, sizeof *ctx.sq)))
        goto out;
    long dst[TOPO_PATTERN_MAX_DESTS];
    for (long src = 0; src < shape->nodes && ctx.w0 == 0; src++) {
        int k = topo_pattern_dests(shape, pattern, src, dst);
        ctx.w0 = k > 0 ? 1.0 / k : 0;
    }
    each_message(shape, links, pattern, record, &ctx);
    if (ctx.corrected)
        integrate(shape, ctx.sq);
    for (long l = 0; l < entries; l++)
        ctx.sq[l] += ctx.w0 * c[l];
    /* a row has at most its events' inputs and a through input */
    if (ctx.starts.failed || ctx.arrivals.failed ||
        reserve_rates(&r, ctx.starts.n + ctx.arrivals.n + entries) ||
        bucket_rows(&ctx.starts, shape, 1, c, ctx.sq, &r, st->first, NULL) ||
        bucket_rows(&ctx.arrivals, shape, 0, c, NULL, &r, st->first + entries, st->ej))
        goto out;
    st->first[st->rows] = r.n;
    rc = 0;
out:
    free(ctx.starts.ev);
    free(ctx.arrivals.ev);
    free(ctx.sq);
    st->rate = r.v;
    st->up = r.up;
    st->from = r.from;
    st->sq = r.sq;
    if (rc)
        topo_streams_free(st);
    return rc;
}

void topo_streams_free(topo_streams *st)
{
    free(st->first);
    free(st->rate);
    free(st->up);
    free(st->from);
    free(st->sq);
    free(st->ej);
    st->first = NULL;
    st->from = NULL;
    st->rate = st->up = st->sq = st->ej = NULL;
}
