/* Tests for the load model (docs/model.md, 'Load'): channel loads and every channel's
 * input streams against counting every route link by link (written here),
 * the saturation-rate identity of uniform traffic on unidirectional rings,
 * the merge identity of deterministic servers on a sample path, and the
 * loaded latency against a discrete-event simulation written here, in which
 * messages cross the shape's links as FIFO queues hop by hop (Poisson
 * injection, fixed seed). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static model_params preset_links(topo_links links)
{
    model_params p;
    cr_assert_eq(model_params_preset("current", &p), 0);
    p.links = links;
    return p;
}

/* ---- brute force: every route, link by link -------------------------------- */

static void coords(const topo_shape *s, long r, long *c)
{
    for (int i = s->dims - 1; i >= 0; i--) {
        c[i] = r % s->n[i];
        r /= s->n[i];
    }
}

static long rank_of(const topo_shape *s, const long *c)
{
    long r = 0;
    for (int i = 0; i < s->dims; i++)
        r = r * s->n[i] + c[i];
    return r;
}

/* Appends the links of the route a -> b to path (link ids as
 * topo_link_index numbers them); tie: way 0 if tie_up, else way 1.
 * Returns the number of links. */
static int route_links(const topo_shape *s, topo_links links, const long *a, const long *b,
                       int tie_up, long *path)
{
    long cur[TOPO_MAX_DIMS];
    int k = 0;
    memcpy(cur, a, sizeof cur[0] * (size_t)s->dims);
    for (int i = 0; i < s->dims; i++) {
        long n = s->n[i], up = ((b[i] - a[i]) % n + n) % n;
        int way = links == TOPO_LINKS_BI && (n - up < up || (n - up == up && !tie_up));
        while (cur[i] != b[i]) {
            path[k++] = topo_link_index(s, rank_of(s, cur), i, way);
            cur[i] = (cur[i] + (way ? n - 1 : 1)) % n;
        }
    }
    return k;
}

/* Destinations of docs/model.md, 'Patterns' (written again here, not topo's). */
static int pattern_dests(const topo_shape *s, topo_pattern pat, const long *a, long d[][8])
{
    int k = 0, same = 1;
    if (pat == TOPO_PATTERN_UNIFORM) {
        for (long r = 0; r < s->nodes; r++) {
            coords(s, r, d[k]);
            if (r != rank_of(s, a))
                k++;
        }
        return k;
    }
    if (pat == TOPO_PATTERN_NEIGHBOR) {
        for (int i = 0; i < s->dims; i++)
            for (int sg = 1; sg >= -1; sg -= 2) {
                memcpy(d[k], a, sizeof a[0] * (size_t)s->dims);
                d[k][i] = (a[i] + sg + s->n[i]) % s->n[i];
                if (!(sg == -1 && s->n[i] == 2))
                    k++;
            }
        return k;
    }
    for (int i = 0; i < s->dims; i++) {
        d[0][i] = pat == TOPO_PATTERN_COMPLEMENT ? s->n[i] - 1 - a[i]
                  : pat == TOPO_PATTERN_TORNADO ? (a[i] + (s->n[i] + 1) / 2 - 1) % s->n[i]
                                                : a[s->dims - 1 - i];
        same &= d[0][i] == a[i];
    }
    return !same;
}

static long (*dests_buf)[8];

/* c_l by routing every message of every source (ties: half each way). */
static void brute_loads(const topo_shape *s, topo_links links, topo_pattern pat, double *c)
{
    long a[8], path[256];
    memset(c, 0, sizeof *c * (size_t)(2 * s->dims * s->nodes));
    for (long src = 0; src < s->nodes; src++) {
        coords(s, src, a);
        int k = pattern_dests(s, pat, a, dests_buf);
        for (int j = 0; j < k; j++)
            for (int tie = 0; tie < 2; tie++) {
                int len = route_links(s, links, a, dests_buf[j], tie, path);
                for (int h = 0; h < len; h++)
                    c[path[h]] += 0.5 / k;   /* both tie choices, half weight each */
            }
    }
}

static const char *const load_shapes[] = {"2", "5", "8", "3x3", "4x4", "2x6", "5x4",
                                          "3x3x3", "4x2x3", "2x2x2x2", "4x4x4"};

Test(load, channel_loads_equal_counting_every_route)
{
    dests_buf = malloc(sizeof *dests_buf * 128);
    for (int l = 0; l < 2; l++)
        for (int pat = 0; pat < TOPO_PATTERN_COUNT; pat++)
            for (size_t i = 0; i < sizeof load_shapes / sizeof load_shapes[0]; i++) {
                topo_shape s;
                cr_assert_eq(topo_shape_parse(load_shapes[i], &s, NULL), 0);
                long e = 2 * s.dims * s.nodes;
                double *want = malloc(sizeof *want * (size_t)e);
                double *got = malloc(sizeof *got * (size_t)e);
                int rc = topo_link_loads(&s, l, pat, got, NULL);
                double total = 0;
                memset(want, 0, sizeof *want * (size_t)e);
                if (!topo_pattern_check(&s, pat))   /* transpose: square 2D only */
                    brute_loads(&s, l, pat, want);
                for (long x = 0; x < e; x++)
                    total += want[x];
                if (topo_pattern_check(&s, pat) || total == 0)
                    cr_assert_eq(rc, -1, "%s %s", topo_pattern_name(pat), load_shapes[i]);
                else {
                    cr_assert_eq(rc, 0);
                    for (long x = 0; x < e; x++)
                        cr_assert(fabs(got[x] - want[x]) <= 1e-12 * (1 + want[x]),
                                  "%s %s links %s: link %ld: %g vs %g", topo_pattern_name(pat),
                                  topo_links_name(l), load_shapes[i], x, got[x], want[x]);
                }
                free(want);
                free(got);
            }
    free(dests_buf);
}

/* ---- input streams: every route, hop by hop ---------------------------------- */

typedef struct input_pair {
    double rate, up, sq;
    long from;
} input_pair;

static int pair_cmp(const void *a, const void *b)
{
    const input_pair *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->rate != y->rate)
        return x->rate < y->rate ? -1 : 1;
    return (x->up > y->up) - (x->up < y->up);
}

/* Channel numbers here: links, then injection (e + x), then ejection
 * (e + N + x).  in[cur * channels + prev] += weight for every hop, and
 * in2[...] += weight^2: a flow is one source, one destination and one
 * route (a tie's two routes are two flows of half the weight; a route
 * without a tie, one flow). */
static void brute_inputs(const topo_shape *s, topo_links links, topo_pattern pat, double *in,
                         double *in2, double *load)
{
    long e = 2 * s->dims * s->nodes, channels = e + 2 * s->nodes, a[8], path[2][256];
    memset(in, 0, sizeof *in * (size_t)(channels * channels));
    memset(in2, 0, sizeof *in2 * (size_t)(channels * channels));
    memset(load, 0, sizeof *load * (size_t)channels);
    for (long src = 0; src < s->nodes; src++) {
        coords(s, src, a);
        int k = pattern_dests(s, pat, a, dests_buf), len[2];
        for (int j = 0; j < k; j++) {
            for (int tie = 0; tie < 2; tie++) {
                path[tie][0] = e + src;
                len[tie] = 1 + route_links(s, links, a, dests_buf[j], tie, path[tie] + 1);
                path[tie][len[tie]++] = e + s->nodes + rank_of(s, dests_buf[j]);
            }
            int same = len[0] == len[1] &&
                       !memcmp(path[0], path[1], sizeof path[0][0] * (size_t)len[0]);
            for (int tie = 0; tie < 2 - same; tie++) {
                double w = (same ? 1.0 : 0.5) / k;
                long *p = path[tie];
                load[p[0]] += w;
                for (int h = 1; h < len[tie]; h++) {
                    load[p[h]] += w;
                    in[p[h] * channels + p[h - 1]] += w;
                    in2[p[h] * channels + p[h - 1]] += w * w;
                }
            }
        }
    }
}

/* topo_link_input_streams: every channel's inputs (rate, the channel each
 * leaves and its load, the sum of the input's flows' squared rates)
 * against following every route hop by hop. */
Test(load, input_streams_equal_following_every_route)
{
    dests_buf = malloc(sizeof *dests_buf * 128);
    for (int l = 0; l < 2; l++)
        for (int pat = 0; pat < TOPO_PATTERN_COUNT; pat++)
            for (size_t i = 0; i < sizeof load_shapes / sizeof load_shapes[0]; i++) {
                topo_shape s;
                cr_assert_eq(topo_shape_parse(load_shapes[i], &s, NULL), 0);
                if (topo_pattern_check(&s, pat))
                    continue;
                long e = 2 * s.dims * s.nodes, channels = e + 2 * s.nodes;
                double *in = malloc(sizeof *in * (size_t)(channels * channels));
                double *in2 = malloc(sizeof *in2 * (size_t)(channels * channels));
                double *load = malloc(sizeof *load * (size_t)channels);
                double *c = malloc(sizeof *c * (size_t)e);
                input_pair want[64], got[64];
                topo_streams st;
                if (topo_link_loads(&s, l, pat, c, NULL)) {   /* sends nothing */
                    free(in), free(in2), free(load), free(c);
                    continue;
                }
                cr_assert_eq(topo_link_input_streams(&s, l, pat, c, &st), 0);
                brute_inputs(&s, l, pat, in, in2, load);
                for (long ch = 0; ch < channels; ch++) {
                    if (ch >= e && ch < e + s.nodes)
                        continue;   /* injection: one Poisson input, not listed */
                    long at = ch < e ? ch : ch - s.nodes, row = topo_streams_row(&st, at);
                    int nw = 0, ng = 0;
                    for (long prev = 0; prev < channels; prev++)
                        if (in[ch * channels + prev] > 0)
                            want[nw++] = (input_pair){in[ch * channels + prev], load[prev],
                                                      in2[ch * channels + prev],
                                                      prev < e ? prev : -1};
                    for (long x = st.first[row]; x < st.first[row + 1]; x++)
                        got[ng++] = (input_pair){st.rate[x], st.up[x], st.sq[x], st.from[x]};
                    if (st.symmetric) {   /* a row stands for its type: compare link types */
                        for (int x = 0; x < nw; x++)
                            want[x].from = want[x].from < 0 ? -1 : want[x].from % (2 * s.dims);
                        for (int x = 0; x < ng; x++)
                            got[x].from = got[x].from < 0 ? -1 : got[x].from % (2 * s.dims);
                    }
                    cr_assert_eq(ng, nw, "%s %s %s: channel %ld: %d inputs, want %d",
                                 topo_pattern_name(pat), topo_links_name(l), load_shapes[i], ch,
                                 ng, nw);
                    qsort(want, (size_t)nw, sizeof want[0], pair_cmp);
                    qsort(got, (size_t)ng, sizeof got[0], pair_cmp);
                    for (int x = 0; x < nw; x++)
                        cr_assert(fabs(got[x].rate - want[x].rate) <= 1e-12 * (1 + want[x].rate) &&
                                      fabs(got[x].up - want[x].up) <= 1e-12 * (1 + want[x].up) &&
                                      fabs(got[x].sq - want[x].sq) <= 1e-12 * (1 + want[x].sq) &&
                                      got[x].from == want[x].from,
                                  "%s %s %s: channel %ld input %d: (%g, %g, %g, from %ld) vs "
                                  "(%g, %g, %g, from %ld)",
                                  topo_pattern_name(pat), topo_links_name(l), load_shapes[i], ch,
                                  x, got[x].rate, got[x].up, got[x].sq, got[x].from, want[x].rate,
                                  want[x].up, want[x].sq, want[x].from);
                    if (ch >= e)
                        cr_assert(fabs(st.ej[ch - e - s.nodes] - load[ch]) <= 1e-12 * (1 + load[ch]));
                }
                topo_streams_free(&st);
                free(in);
                free(in2);
                free(load);
                free(c);
            }
    free(dests_buf);
}

/* Uniform traffic, uni rings:
 * lambda_sat = min(1, 2 / (N/(N-1) (n_max - 1))) / t(m), exactly. */
Test(load, saturation_rate_identity)
{
    static const char *const sh[] = {"2", "3", "7", "16", "2x2", "3x5", "9x4x2", "10x10x10",
                                     "2x2x2x2", "6x3"};
    const double sizes[] = {8, 64, 1000};
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++)
        for (int m = 0; m < 3; m++) {
            model_params p = preset_links(TOPO_LINKS_UNI);
            p.link_bw_bytes_per_ns = 0.5 + i;
            topo_shape s;
            model_load ld;
            cr_assert_eq(topo_shape_parse(sh[i], &s, NULL), 0);
            cr_assert_eq(model_load_init(&ld, &s, TOPO_LINKS_UNI, TOPO_PATTERN_UNIFORM), 0);
            long nmax = 0;
            for (int d = 0; d < s.dims; d++)
                nmax = s.n[d] > nmax ? s.n[d] : nmax;
            double N = (double)s.nodes, t = sizes[m] / p.link_bw_bytes_per_ns;
            double want = fmin(1, 2 / (N / (N - 1) * (double)(nmax - 1))) / t;
            double got = model_load_saturation(&p, &ld, sizes[m]);
            cr_assert(fabs(got - want) <= 1e-15 * want, "%s: %.17g vs %.17g", sh[i], got, want);
            double lat;
            cr_assert_eq(model_load_latency(&p, &ld, sizes[m], got, &lat, NULL, NULL), -1,
                         "at saturation: refused");
            model_load_free(&ld);
        }
}

/* ---- discrete-event simulation --------------------------------------------- */

typedef struct ev {
    double t;
    long msg;
    int hop;
} ev;

typedef struct heap {
    ev *a;
    long n, cap;
} heap;

static void hpush(heap *h, ev e)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 1024;
        h->a = realloc(h->a, sizeof *h->a * (size_t)h->cap);
    }
    long i = h->n++;
    while (i > 0 && h->a[(i - 1) / 2].t > e.t) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = e;
}

static ev hpop(heap *h)
{
    ev top = h->a[0], last = h->a[--h->n];
    long i = 0;
    for (;;) {
        long c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->a[c + 1].t < h->a[c].t)
            c++;
        if (h->a[c].t >= last.t)
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    h->a[i] = last;
    return top;
}

static double uniform01(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;   /* Knuth's LCG */
    return ((double)(*state >> 11) + 0.5) / 9007199254740992.0;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define PATH_MAX_LINKS 40

/* Mean queueing delay per message (injection channel, every link, ejection
 * channel, each a FIFO server of service time t) at rate lambda per node. */
static double simulate_wait(const topo_shape *s, topo_links links, topo_pattern pat,
                            double lambda, double t, long messages)
{
    unsigned long long rng = 12345;
    long net = 2 * s->dims * s->nodes;
    long (*path)[PATH_MAX_LINKS] = malloc(sizeof *path * (size_t)messages);
    int *len = malloc(sizeof *len * (size_t)messages);
    double *inject_t = malloc(sizeof *inject_t * (size_t)messages);
    double *wait = calloc((size_t)messages, sizeof *wait);
    double *free_at = calloc((size_t)(net + 2 * s->nodes), sizeof *free_at);
    /* every node's coordinates and destinations, listed once */
    long (*at)[8] = malloc(sizeof *at * (size_t)s->nodes);
    long (*d)[128][8] = malloc(sizeof *d * (size_t)s->nodes);
    int *nd = malloc(sizeof *nd * (size_t)s->nodes);
    heap h = {0};
    /* superposed Poisson processes of all senders: exponential gaps at the
     * total rate, the sender uniform among those that send */
    long senders[4096], ns = 0;
    for (long r = 0; r < s->nodes; r++) {
        coords(s, r, at[r]);
        nd[r] = pattern_dests(s, pat, at[r], d[r]);
        if (nd[r] > 0)
            senders[ns++] = r;
    }
    double now = 0;
    for (long m = 0; m < messages; m++) {
        now += -log(uniform01(&rng)) / (lambda * (double)ns);
        long src = senders[(long)(uniform01(&rng) * (double)ns)];
        long *dst = d[src][(long)(uniform01(&rng) * nd[src])];
        path[m][0] = net + src;                                       /* injection */
        len[m] = 1 + route_links(s, links, at[src], dst, uniform01(&rng) < 0.5, path[m] + 1);
        path[m][len[m]++] = net + s->nodes + rank_of(s, dst);          /* ejection */
        inject_t[m] = now;
        hpush(&h, (ev){now, m, 0});
    }
    while (h.n) {
        ev e = hpop(&h);
        long ch = path[e.msg][e.hop];
        double start = fmax(e.t, free_at[ch]);
        free_at[ch] = start + t;
        wait[e.msg] += start - e.t;
        if (e.hop + 1 < len[e.msg])
            hpush(&h, (ev){start + t, e.msg, e.hop + 1});
    }
    /* steady state: drop the first and last 10 % of messages */
    double sum = 0;
    long cnt = 0;
    for (long m = messages / 10; m < messages - messages / 10; m++, cnt++)
        sum += wait[m];
    free(path);
    free(len);
    free(inject_t);
    free(wait);
    free(free_at);
    free(at);
    free(d);
    free(nd);
    free(h.a);
    return sum / (double)cnt;
}

/* The merge identity the model rests on (model/model.h), on one sample
 * path: K Poisson streams, each through its own FIFO server of service
 * time t, then merged into one FIFO server, leave it exactly as they would
 * leave one server fed by all K streams directly, t later (n-th departure
 * against n-th departure). */
Test(load, merge_identity_of_deterministic_servers)
{
    enum { K = 3, PER_STREAM = 40000 };
    const double rate[K] = {0.2, 0.3, 0.25}, t = 1;   /* loads 0.2 + 0.3 + 0.25 */
    double *arr = malloc(sizeof *arr * K * PER_STREAM), *dep = malloc(sizeof *dep * K * PER_STREAM);
    unsigned long long rng = 777;
    long n = 0;
    for (int k = 0; k < K; k++) {
        double now = 0, free_at = 0;
        for (int i = 0; i < PER_STREAM; i++, n++) {
            now += -log(uniform01(&rng)) / rate[k];
            arr[n] = now;
            free_at = fmax(now, free_at) + t;   /* the stream's own server */
            dep[n] = free_at;
        }
    }
    qsort(arr, (size_t)n, sizeof *arr, dbl_cmp);
    qsort(dep, (size_t)n, sizeof *dep, dbl_cmp);
    double one = 0, merged = 0, worst = 0;
    for (long i = 0; i < n; i++) {
        one = fmax(arr[i], one) + t;       /* one server, all streams */
        merged = fmax(dep[i], merged) + t; /* the merge of the own servers' departures */
        worst = fmax(worst, fabs(merged - (one + t)));
    }
    cr_assert(worst <= 1e-9 * one, "largest difference %g (t = %g)", worst, t);
    free(arr);
    free(dep);
}

/* ---- chain simulation: the flows' age (model/model.h) ----------------------- */

typedef struct chain_msg {
    double t;
    int flow;
    long i;
} chain_msg;

static int chain_cmp(const void *a, const void *b)
{
    double x = ((const chain_msg *)a)->t, y = ((const chain_msg *)b)->t;
    return (x > y) - (x < y);
}

static double md1(double rho)   /* M/D/1 wait, t = 1 */
{
    return rho / (2 * (1 - rho));
}

/* F flows, each Poisson of load rho/K through a server of its own, then
 * `levels` levels of FIFO servers (t = 1), K flows to a server, regrouped
 * at random at every level: wait[j] is the mean wait at level j (1-based;
 * the first and last 10 % of each flow's messages left out). */
static void simulate_chain(int F, int K, int levels, double rho, long n, double *wait)
{
    unsigned long long rng = 4242;
    double **dep = malloc(sizeof *dep * (size_t)F);
    int *perm = malloc(sizeof *perm * (size_t)F);
    chain_msg *buf = malloc(sizeof *buf * (size_t)(n * K));
    for (int f = 0; f < F; f++) {
        double now = 0, free_at = 0;
        dep[f] = malloc(sizeof *dep[f] * (size_t)n);
        for (long i = 0; i < n; i++) {
            now += -log(uniform01(&rng)) * K / rho;
            free_at = fmax(now, free_at) + 1;
            dep[f][i] = free_at;
        }
        perm[f] = f;
    }
    for (int lev = 1; lev <= levels; lev++) {
        for (int f = F - 1; f > 0; f--) {
            int j = (int)(uniform01(&rng) * (f + 1)), x = perm[f];
            perm[f] = perm[j];
            perm[j] = x;
        }
        double sum = 0;
        long cnt = 0;
        for (int g = 0; g < F; g += K) {
            long m = 0;
            for (int q = 0; q < K; q++)
                for (long i = 0; i < n; i++)
                    buf[m++] = (chain_msg){dep[perm[g + q]][i], perm[g + q], i};
            qsort(buf, (size_t)m, sizeof *buf, chain_cmp);
            double free_at = 0;
            for (long j = 0; j < m; j++) {
                double start = fmax(buf[j].t, free_at);
                free_at = start + 1;
                if (buf[j].i >= n / 10 && buf[j].i < n - n / 10) {
                    sum += start - buf[j].t;
                    cnt++;
                }
                dep[buf[j].flow][buf[j].i] = free_at;
            }
        }
        wait[lev] = sum / (double)cnt;
    }
    for (int f = 0; f < F; f++)
        free(dep[f]);
    free(dep);
    free(perm);
    free(buf);
}

/* The law model/model.h states for the self term of a flow that has
 * crossed j - 1 shared links, against the chain simulation: level 1 is the
 * merge identity, level j >= 2 W_MD1(rho) - A with A = S/K + (1 - 1/K)
 * W_MD1(rho)/K, S = W_MD1(rho/K) + (W_MD1(rho) - W_MD1(rho/K)) a/(1 + a),
 * a = (j - 2) MODEL_LOAD_AGE_KAPPA rho^(5/2) (written again here from the
 * comment).  Measured within 2.8 % for K = 2 and 4 at loads 0.3 and 0.5
 * over 8 levels (asserted: 5 %); the share closure alone (a = 0) is 42 %
 * above the simulation at level 8, K = 2, load 0.5 (logged).  Load 0.7 is
 * logged only: the chain decays faster there than the law. */
Test(load, flow_age_law_against_chain_simulation, .timeout = 120)
{
    static const struct {
        int K;
        double rho;
        int asserted;   /* load 0.7: logged for README, beyond the fitted range */
    } cases[] = {{2, 0.3, 1}, {2, 0.5, 1}, {4, 0.3, 1}, {4, 0.5, 1}, {2, 0.7, 0}};
    enum { LEVELS = 8 };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int K = cases[c].K;
        double rho = cases[c].rho, wait[LEVELS + 1], wu = md1(rho), wk = md1(rho / K);
        simulate_chain(256, K, LEVELS, rho, 10000, wait);
        for (int j = 1; j <= LEVELS; j++) {
            double a = (j - 2) * MODEL_LOAD_AGE_KAPPA * pow(rho, 2.5), model = wu - wk;
            if (j >= 2) {
                double self = wk + (wu - wk) * a / (1 + a);
                model = wu - (self / K + (1 - 1.0 / K) * wu / K);
            }
            cr_log_info("chain K=%d load %.1f level %d: simulated %.4f t, law %.4f t (%+.1f%%)", K,
                        rho, j, wait[j], model, 100 * (model - wait[j]) / wait[j]);
            cr_expect(!cases[c].asserted || fabs(model - wait[j]) <= 0.05 * wait[j],
                      "K=%d load %.1f level %d", K, rho, j);
        }
        double closure = wu - (wk / K + (1 - 1.0 / K) * wu / K);
        cr_log_info("chain K=%d load %.1f level %d: the share closure alone %.4f t (%+.1f%%)", K,
                    rho, LEVELS, closure, 100 * (closure - wait[LEVELS]) / wait[LEVELS]);
    }
}

/* The model's queueing delay (model/model.h: the merge identity of
 * deterministic servers, with its share term for inputs split off busier
 * links and the flows' age) against the simulation: within 10 % up to 50 %
 * of saturation on every case below.  Independent M/D/1 queues ('Load')
 * overestimate every case (by 13-363 % at 10-70 %): asserted too. */
Test(load, latency_against_event_simulation, .timeout = 240)
{
    static const struct {
        const char *shape;
        topo_pattern pat;
        topo_links links;
    } cases[] = {
        {"8", TOPO_PATTERN_UNIFORM, TOPO_LINKS_UNI},
        {"4x4", TOPO_PATTERN_UNIFORM, TOPO_LINKS_UNI},
        {"4x4", TOPO_PATTERN_UNIFORM, TOPO_LINKS_BI},
        {"3x3x3", TOPO_PATTERN_UNIFORM, TOPO_LINKS_BI},
        {"4x4", TOPO_PATTERN_NEIGHBOR, TOPO_LINKS_BI},
        {"4x4", TOPO_PATTERN_NEIGHBOR, TOPO_LINKS_UNI},
        {"6x6", TOPO_PATTERN_COMPLEMENT, TOPO_LINKS_UNI},
        {"4x4", TOPO_PATTERN_TRANSPOSE, TOPO_LINKS_BI},
        {"5", TOPO_PATTERN_UNIFORM, TOPO_LINKS_UNI},
        {"16", TOPO_PATTERN_UNIFORM, TOPO_LINKS_UNI},
        {"16", TOPO_PATTERN_UNIFORM, TOPO_LINKS_BI},
        {"4x4x4", TOPO_PATTERN_UNIFORM, TOPO_LINKS_UNI},
        {"4x4x4", TOPO_PATTERN_UNIFORM, TOPO_LINKS_BI},
        {"8x8", TOPO_PATTERN_TORNADO, TOPO_LINKS_UNI},
        {"6x6", TOPO_PATTERN_TRANSPOSE, TOPO_LINKS_UNI},
        {"4x4x4", TOPO_PATTERN_COMPLEMENT, TOPO_LINKS_UNI},
        /* added after the flows' age was settled on the cases above */
        {"5x5x5", TOPO_PATTERN_TORNADO, TOPO_LINKS_UNI},
        {"6x6x6", TOPO_PATTERN_COMPLEMENT, TOPO_LINKS_UNI},
        {"4x4x4x4", TOPO_PATTERN_COMPLEMENT, TOPO_LINKS_UNI},
    };
    /* 70 % is logged for README's table (beyond the range the issue asks
     * for, the model's error is not asserted there) */
    const double util[] = {0.1, 0.3, 0.5, 0.7};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        model_params p = preset_links(cases[i].links);
        topo_shape s;
        model_load ld;
        cr_assert_eq(topo_shape_parse(cases[i].shape, &s, NULL), 0);
        cr_assert_eq(model_load_init(&ld, &s, cases[i].links, cases[i].pat), 0);
        double t = model_load_link_ns(&p, 64), sat = model_load_saturation(&p, &ld, 64);
        for (int u = 0; u < 4; u++) {
            double lat, w, indep;
            cr_assert_eq(model_load_latency(&p, &ld, 64, util[u] * sat, &lat, &w, &indep), 0);
            double sim = simulate_wait(&s, cases[i].links, cases[i].pat, util[u] * sat, t,
                                       150000);
            double iw = indep - (lat - w);
            cr_log_info("%s %s %s u=%.1f: model wait %.3f ns, simulated %.3f ns (%+.1f%%); "
                        "independent queues %.3f ns (%+.1f%%)",
                        cases[i].shape, topo_pattern_name(cases[i].pat),
                        topo_links_name(cases[i].links), util[u], w, sim,
                        100 * (w - sim) / sim, iw, 100 * (iw - sim) / sim);
            cr_expect(iw > sim, "independent queues overestimate");
            cr_expect(u == 3 || fabs(w - sim) <= 0.10 * sim, "%s %s %s u=%.1f: model %.3f sim %.3f",
                      cases[i].shape, topo_pattern_name(cases[i].pat),
                      topo_links_name(cases[i].links), util[u], w, sim);
        }
        model_load_free(&ld);
    }
}
