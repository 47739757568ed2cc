/* Tests for bidirectional links and traffic patterns (docs/model.md,
 * 'Links', 'Patterns'): closed forms against an independent brute force
 * written here from those definitions (own coordinates, own destinations, own link-by-link
 * route walk), on even, odd and mixed shapes, 1D to 5D. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"

static model_params preset_links(topo_links links)
{
    model_params p;
    cr_assert_eq(model_params_preset("current", &p), 0);
    p.links = links;
    return p;
}

static void assert_rel(double got, double want, double rel, const char *what)
{
    cr_assert(fabs(got - want) <= rel * fabs(want), "%s: got %.15g want %.15g", what, got, want);
}

/* Brute force, independent of topo/ and model/: coordinates of rank r
 * (row-major, last dimension fastest). */
static void coords(const long *n, int D, long r, long *c)
{
    for (int i = D - 1; i >= 0; i--) {
        c[i] = r % n[i];
        r /= n[i];
    }
}

/* Walks the dimension-order route from a to b one link at a time: in each
 * dimension, bi links go whichever way is shorter (the tie n/2 the
 * positive way), uni links always the positive way.  Returns the latency
 * 2 o + H lp + F lf + S ls counted from the walk. */
static double walk(const model_params *p, const long *n, int D, const long *a, const long *b)
{
    long cur[8], links = 0, fwd = 0, sw = 0;
    int prev = -1;
    for (int i = 0; i < D; i++)
        cur[i] = a[i];
    for (int i = 0; i < D; i++) {
        long up = 0;   /* links the positive way from cur[i] to b[i] */
        for (long x = cur[i]; x != b[i]; x = (x + 1) % n[i])
            up++;
        int step = (p->links == TOPO_LINKS_BI && n[i] - up < up) ? -1 : 1;
        while (cur[i] != b[i]) {
            cur[i] = (cur[i] + step + n[i]) % n[i];
            if (prev >= 0) {
                if (prev == i)
                    fwd++;
                else
                    sw++;
            }
            prev = i;
            links++;
        }
    }
    return 2 * model_overhead_ns(p, 64) + links * p->lp_ns + fwd * p->lf_ns + sw * p->ls_ns;
}

/* Destinations of source a under pattern pat, from docs/model.md, 'Patterns'. */
static int dests(topo_pattern pat, const long *n, int D, const long *a, long d[][8])
{
    int k = 0, same = 1;
    switch (pat) {
    case TOPO_PATTERN_NEIGHBOR:
        for (int i = 0; i < D; i++) {
            for (int sgn = 1; sgn >= -1; sgn -= 2) {
                for (int j = 0; j < D; j++)
                    d[k][j] = a[j];
                d[k][i] = ((a[i] + sgn) % n[i] + n[i]) % n[i];
                /* once if s + e_i and s - e_i coincide */
                if (sgn == -1 && d[k][i] == d[k - 1][i])
                    continue;
                k++;
            }
        }
        return k;
    case TOPO_PATTERN_TORNADO:
    case TOPO_PATTERN_COMPLEMENT:
    case TOPO_PATTERN_TRANSPOSE:
        for (int i = 0; i < D; i++) {
            if (pat == TOPO_PATTERN_TORNADO)
                d[0][i] = (a[i] + (long)ceil(n[i] / 2.0) - 1) % n[i];
            else if (pat == TOPO_PATTERN_COMPLEMENT)
                d[0][i] = n[i] - 1 - a[i];
            else
                d[0][i] = a[D - 1 - i];
            same &= d[0][i] == a[i];
        }
        return !same;
    default:
        return 0;
    }
}

/* Mean request latency over every message of the pattern (uniform: all
 * ordered pairs), by brute force. */
static double brute_mean(const model_params *p, topo_pattern pat, const long *n, int D,
                         double *messages)
{
    long N = 1, a[8], b[8], d[16][8];
    double sum = 0, m = 0;
    for (int i = 0; i < D; i++)
        N *= n[i];
    for (long s = 0; s < N; s++) {
        coords(n, D, s, a);
        if (pat == TOPO_PATTERN_UNIFORM) {
            for (long t = 0; t < N; t++) {
                if (t == s)
                    continue;
                coords(n, D, t, b);
                sum += walk(p, n, D, a, b);
                m++;
            }
            continue;
        }
        int k = dests(pat, n, D, a, d);
        for (int j = 0; j < k; j++) {
            sum += walk(p, n, D, a, d[j]);
            m++;
        }
    }
    *messages = m;
    return sum / m;
}

static const char *const shapes[] = {
    "2", "3", "7", "8", "9", "2x2", "3x3", "4x4", "5x5", "2x9", "3x4", "6x7", "9x9", "8x8",
    "2x2x2", "3x3x3", "2x3x4", "4x5x6", "5x5x5", "2x2x2x2", "3x2x4x2", "3x3x3x3",
    "2x2x2x2x2", "3x2x3x2x3", "4x3x2x2x2",
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* docs/model.md, 'Links': closed-form bidirectional average = all-pairs walk, 1e-12. */
Test(links, bidirectional_average_equals_brute_force)
{
    model_params p = preset_links(TOPO_LINKS_BI);
    for (size_t i = 0; i < NSHAPES; i++) {
        topo_shape s;
        double m;
        cr_assert_eq(topo_shape_parse(shapes[i], &s, NULL), 0);
        double want = brute_mean(&p, TOPO_PATTERN_UNIFORM, s.n, s.dims, &m);
        assert_rel(model_avg_ns_shape(&p, &s, 64), want, 1e-12, shapes[i]);
        assert_rel(model_multicast_ns_shape(&p, &s, 64), want * (double)(s.nodes - 1), 1e-12,
                   shapes[i]);
    }
}

/* Bidirectional: response = request (shortest way back), request hops are
 * min(h, n - h) with the tie the positive way. */
Test(links, bidirectional_point_to_point)
{
    model_params p = preset_links(TOPO_LINKS_BI);
    topo_shape s;
    model_p2p r;
    cr_assert_eq(topo_shape_parse("8x5", &s, NULL), 0);
    long h[2] = {6, 3};   /* 2 hops back in dim 1, 2 back in dim 2 */
    model_point_to_point(&p, &s, h, 64, &r);
    cr_assert_eq(r.request.links, 4);
    cr_assert_eq(r.request.switches, 1);
    cr_assert_eq(r.request.forwards, 2);
    assert_rel(r.response_ns, r.request_ns, 0, "response = request");
    long tie[2] = {4, 0};
    int dir[2];
    long dist[2];
    topo_route_dist(&s, TOPO_LINKS_BI, tie, dist, dir);
    cr_assert_eq(dist[0], 4);
    cr_assert_eq(dir[0], 1, "a tie goes the positive way");
    cr_assert_eq(dir[1], 0);
}

/* Every pattern, both kinds of links, 25 shapes 1D..5D with n 2..9: the
 * closed form and the one-pass enumeration equal the brute force. */
Test(patterns, closed_forms_equal_brute_force)
{
    for (int l = 0; l < 2; l++) {
        model_params p = preset_links(l ? TOPO_LINKS_BI : TOPO_LINKS_UNI);
        for (int pat = TOPO_PATTERN_NEIGHBOR; pat < TOPO_PATTERN_COUNT; pat++) {
            for (size_t i = 0; i < NSHAPES; i++) {
                topo_shape s;
                model_avg_counts c, e;
                double bm, cm, em;
                char what[96];
                cr_assert_eq(topo_shape_parse(shapes[i], &s, NULL), 0);
                snprintf(what, sizeof what, "%s %s links %s", topo_pattern_name(pat),
                         topo_links_name(p.links), shapes[i]);
                int defined = pat != TOPO_PATTERN_TRANSPOSE ||
                              (s.dims == 2 && s.n[0] == s.n[1]);
                int rc = model_pattern_counts_shape(&s, p.links, pat, &c, &cm);
                if (!defined) {
                    cr_assert_eq(rc, -1, "%s: undefined", what);
                    continue;
                }
                double want = brute_mean(&p, pat, s.n, s.dims, &bm);
                if (bm == 0) {   /* tornado on 2^D: nobody sends */
                    cr_assert_eq(rc, -1, "%s: no messages", what);
                    cr_assert(isnan(model_pattern_ns_shape(&p, &s, pat, 64)), "%s", what);
                    continue;
                }
                cr_assert_eq(rc, 0, "%s", what);
                cr_assert_eq(cm, bm, "%s: messages %g vs %g", what, cm, bm);
                assert_rel(model_pattern_ns_shape(&p, &s, pat, 64), want, 1e-12, what);
                cr_assert_eq(model_pattern_enumerate(&s, p.links, pat, &e, &em), 0);
                cr_assert_eq(em, bm, "%s: enumerated messages", what);
                assert_rel(model_route_ns(&p, 64, e.hops, e.forwards, e.switches), want, 1e-12,
                           what);
            }
        }
    }
}

/* The continuous forms are the closed forms' even-n expressions: equal to
 * the exact value on equal tori with n divisible by 4. */
Test(patterns, continuous_equals_exact_on_tori_of_n_divisible_by_4)
{
    const int ns[] = {4, 8, 12};
    for (int l = 0; l < 2; l++) {
        model_params p = preset_links(l ? TOPO_LINKS_BI : TOPO_LINKS_UNI);
        for (int pat = 0; pat < TOPO_PATTERN_TRANSPOSE; pat++)
            for (int D = 1; D <= 4; D++)
                for (int k = 0; k < 3; k++) {
                    topo_shape s;
                    cr_assert_eq(topo_shape_equal(D, ns[k], &s), 0);
                    assert_rel(model_pattern_ns_continuous(&p, pat, D, (double)s.nodes, 64),
                               model_pattern_ns_shape(&p, &s, pat, 64), 1e-12,
                               topo_pattern_name(pat));
                }
    }
}

/* Uniform traffic, unidirectional links: the pattern path gives exactly the
 * thesis model's numbers (nothing changed for the default). */
Test(patterns, uniform_uni_is_the_thesis_model)
{
    model_params p = preset_links(TOPO_LINKS_UNI);
    topo_shape s;
    cr_assert_eq(topo_shape_parse("10x10x10", &s, NULL), 0);
    cr_assert_eq(model_pattern_ns_shape(&p, &s, TOPO_PATTERN_UNIFORM, 64),
                 model_avg_ns_shape(&p, &s, 64));
    cr_assert(fabs(model_pattern_ns_shape(&p, &s, TOPO_PATTERN_UNIFORM, 64) - 6054.054) < 5e-4);
}

/* A 10^6-node shape in closed form, and N = 1e15 uniform: finite, exact
 * forms (speed is measured in make bench). */
Test(patterns, large_shapes)
{
    model_params p = preset_links(TOPO_LINKS_BI);
    topo_shape s;
    cr_assert_eq(topo_shape_parse("100x100x100", &s, NULL), 0);
    for (int pat = 0; pat < TOPO_PATTERN_TRANSPOSE; pat++)
        cr_assert(isfinite(model_pattern_ns_shape(&p, &s, pat, 64)));
    cr_assert_eq(topo_shape_equal(5, 1000, &s), 0);   /* 1e15 nodes */
    cr_assert(isfinite(model_avg_ns_shape(&p, &s, 64)));
}

/* Brute-force event simulation of the binomial broadcast (docs/model.md,
 * 'Broadcast'): rounds
 * r = 0, 1, ...; in each, every rank i < 2^r that holds the data sends to
 * i + 2^r; a sender is busy o(m) per send (free_at), the message arrives
 * L_request - o(m) after the send ends. */
static double simulate_binomial(const model_params *p, const long *n, int D)
{
    long N = 1;
    for (int i = 0; i < D; i++)
        N *= n[i];
    double *t = calloc((size_t)N, sizeof *t), *free_at = calloc((size_t)N, sizeof *free_at);
    char *has = calloc((size_t)N, 1);
    double o = model_overhead_ns(p, 64), max = 0;
    has[0] = 1;
    for (long r = 1; r / 2 < N; r *= 2) {   /* r = 2^round */
        for (long i = 0; i < r && i < N; i++) {
            if (!has[i] || i + r >= N)
                continue;
            long a[8], b[8];
            coords(n, D, i, a);
            coords(n, D, i + r, b);
            if (free_at[i] < t[i])
                free_at[i] = t[i];
            free_at[i] += o;                       /* the send occupies the sender */
            t[i + r] = free_at[i] + walk(p, n, D, a, b) - o;
            has[i + r] = 2;                        /* holds it from the next round on */
        }
        for (long i = 0; i < N; i++)
            if (has[i] == 2)
                has[i] = 1;
    }
    for (long i = 0; i < N; i++) {
        cr_assert(has[i], "rank %ld never received", i);
        if (t[i] > max)
            max = t[i];
    }
    free(t);
    free(free_at);
    free(has);
    return max;
}

Test(broadcast, binomial_equals_event_simulation)
{
    static const char *const bshapes[] = {"2", "3", "5", "8", "13", "64", "100", "2x2", "3x5",
                                          "4x4", "7x6", "8x8", "2x2x2", "3x4x5", "4x4x4",
                                          "2x3x2x3", "3x3x3x3", "2x2x2x2x2", "9x9x2"};
    for (int l = 0; l < 2; l++) {
        model_params p = preset_links(l ? TOPO_LINKS_BI : TOPO_LINKS_UNI);
        for (size_t i = 0; i < sizeof bshapes / sizeof bshapes[0]; i++) {
            topo_shape s;
            cr_assert_eq(topo_shape_parse(bshapes[i], &s, NULL), 0);
            assert_rel(model_bcast_binomial_ns(&p, &s, 64, NULL),
                       simulate_binomial(&p, s.n, s.dims), 1e-12, bshapes[i]);
        }
    }
}

/* Two ranks: one request.  Four on a ring: 0 -> 1 (round 0), then 0 -> 2
 * (second send of rank 0) and 1 -> 3 (2 hops): docs/model.md, 'Broadcast', by hand. */
Test(broadcast, binomial_small_rings_by_hand)
{
    model_params p = preset_links(TOPO_LINKS_UNI);
    topo_shape s;
    double o = 2085, L1 = 4177, L2 = 4244;   /* 1 and 2 hops */
    cr_assert_eq(topo_shape_parse("2", &s, NULL), 0);
    cr_assert_eq(model_bcast_binomial_ns(&p, &s, 64, NULL), L1);
    cr_assert_eq(topo_shape_parse("4", &s, NULL), 0);
    /* t1 = L1; t2 = 2o + L2 - o; t3 = t1 + o + L2 - o */
    cr_assert_eq(model_bcast_binomial_ns(&p, &s, 64, NULL), fmax(o + L2, L1 + L2));
}

/* params files carry the kind of links and the link bandwidth (docs/model.md,
 * 'Links', 'Load'): written when not the default, read back, defaults otherwise. */
Test(links, params_file_roundtrip)
{
    model_params p, q;
    model_params_error err;
    char path[] = "/tmp/scitorus-links-rt-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(model_params_preset("enhanced", &p), 0);
    cr_assert_eq(p.links, TOPO_LINKS_UNI);
    cr_assert_eq(p.link_bw_bytes_per_ns, 1.0);
    p.links = TOPO_LINKS_BI;
    p.link_bw_bytes_per_ns = 2.5;
    cr_assert_eq(model_params_write(path, &p, NULL), 0);
    cr_assert_eq(model_params_read(path, &q, &err), 0, "%s", err.msg);
    cr_assert_eq(q.links, TOPO_LINKS_BI);
    cr_assert_eq(q.link_bw_bytes_per_ns, 2.5);
    cr_assert_eq(model_params_preset("current", &p), 0);
    cr_assert_eq(model_params_write(path, &p, NULL), 0);
    FILE *fp = fopen(path, "r");
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    cr_assert_null(strstr(buf, "links"), "defaults are not written: %s", buf);
    cr_assert_eq(model_params_read(path, &q, &err), 0);
    cr_assert_eq(q.links, TOPO_LINKS_UNI);
    cr_assert_eq(q.link_bw_bytes_per_ns, 1.0);
    unlink(path);
}

/* Tornado and complement in O(1) per dimension: equal to routing every
 * message (model_pattern_enumerate) on every equal torus n^D, n = 2..40,
 * D = 1..3, both links: H, k and the message count. */
Test(patterns, tornado_complement_closed_form_equals_enumeration)
{
    for (int l = 0; l < 2; l++)
        for (int pat = TOPO_PATTERN_TORNADO; pat <= TOPO_PATTERN_COMPLEMENT; pat++)
            for (int D = 1; D <= 3; D++)
                for (long n = 2; n <= 40; n++) {
                    topo_links links = l ? TOPO_LINKS_BI : TOPO_LINKS_UNI;
                    topo_shape s;
                    model_avg_counts c, e;
                    double cm = -1, em = -1;
                    char what[96];
                    snprintf(what, sizeof what, "%s %s links %ld^%d", topo_pattern_name(pat),
                             topo_links_name(links), n, D);
                    cr_assert_eq(topo_shape_equal(D, n, &s), 0);
                    int rc = model_pattern_counts_shape(&s, links, pat, &c, &cm);
                    cr_assert_eq(rc, model_pattern_enumerate(&s, links, pat, &e, &em), "%s", what);
                    if (rc)
                        continue;   /* tornado on 2^D sends nothing: both say so */
                    cr_assert_eq(cm, em, "%s: messages", what);
                    assert_rel(c.hops, e.hops, 1e-9, what);
                    assert_rel(c.dims, e.dims, 1e-9, what);
                }
}
