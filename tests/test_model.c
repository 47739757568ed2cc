/* Tests for model/: closed forms against exact enumeration, docs/model.md's
 * reference values, interpolation and crossovers. */
#include <criterion/criterion.h>
#include <math.h>

#include "model/model.h"

static model_params preset(const char *name)
{
    model_params p;
    cr_assert_eq(model_params_preset(name, &p), 0);
    return p;
}

static void assert_rel(double got, double want, double rel, const char *what)
{
    cr_assert(fabs(got - want) <= rel * fabs(want), "%s: got %.15g want %.15g", what, got, want);
}

/* Oracle: enumerate every source and destination, counting H, F, S by
 * walking the dimension-order route link by link (no closed form used). */
static void walk_average(const model_params *p, const topo_shape *s, double *avg,
                         double *resp_avg)
{
    double sum = 0, rsum = 0;
    long pairs = 0;
    for (long src = 0; src < s->nodes; src++) {
        for (long dst = 0; dst < s->nodes; dst++) {
            long a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS], cur[TOPO_MAX_DIMS];
            if (dst == src)
                continue;
            topo_rank_to_coords(s, src, a);
            topo_rank_to_coords(s, dst, b);
            for (int pass = 0; pass < 2; pass++) {
                long links = 0, fwd = 0, sw = 0;
                int prev = -1, d;
                const long *from = pass ? b : a, *to = pass ? a : b;
                for (int i = 0; i < s->dims; i++)
                    cur[i] = from[i];
                while ((d = topo_route_step(s, cur, to)) >= 0) {
                    if (prev >= 0)
                        *(d == prev ? &fwd : &sw) += 1;
                    prev = d;
                    links++;
                }
                double ns = model_route_ns(p, 64, links, fwd, sw);
                *(pass ? &rsum : &sum) += ns;
            }
            pairs++;
        }
    }
    *avg = sum / pairs;
    *resp_avg = rsum / pairs;
}

static const char *const shapes[] = {
    "2", "3", "7", "64", "2x2", "3x5", "5x3", "4x4", "2x9", "10x10", "2x7x4", "3x3x3",
    "4x2x5", "6x6x6", "10x10x10", "2x2x2x2", "3x2x4x2", "2x2x2x2x2", "3x3x3x3", "5x4x3x2",
    "2x3x2x3x2", "16x3",
};

/* Closed-form average equals the exact enumeration (1e-12). */
Test(model, closed_form_average_equals_enumeration)
{
    model_params p = preset("current");
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        topo_shape s;
        double avg, ravg, sum, eavg;
        cr_assert_eq(topo_shape_parse(shapes[i], &s, NULL), 0);
        /* the all-pairs walk is O(N^2 D); keep it for the smaller shapes */
        if (s.nodes <= 256) {
            walk_average(&p, &s, &avg, &ravg);
            assert_rel(model_avg_ns_shape(&p, &s, 64), avg, 1e-12, shapes[i]);
            assert_rel(ravg, avg, 1e-12, "response average = request average");
        }
        model_enumerate(&p, &s, s.nodes / 2, 64, &sum, &eavg);
        assert_rel(model_avg_ns_shape(&p, &s, 64), eavg, 1e-12, shapes[i]);
        assert_rel(model_multicast_ns_shape(&p, &s, 64), sum, 1e-12, shapes[i]);
    }
}

/* Average response over all destinations from the walk above equals the
 * request average also for unequal shapes; checked separately on 2x7x4. */
Test(model, response_average_equals_request_average)
{
    model_params p = preset("enhanced");
    topo_shape s;
    double avg, ravg;
    cr_assert_eq(topo_shape_parse("2x7x4", &s, NULL), 0);
    walk_average(&p, &s, &avg, &ravg);
    assert_rel(ravg, avg, 1e-12, "2x7x4");
}

/* thesis eqs. 22-25: ring PP on 1..4 hops, m = 64. */
Test(model, point_to_point_reference_values)
{
    model_params p = preset("current");
    const double want[4] = {4177, 4244, 4311, 4378};
    topo_shape s;
    cr_assert_eq(topo_shape_parse("8", &s, NULL), 0);
    for (long h = 1; h <= 4; h++) {
        model_p2p r;
        model_point_to_point(&p, &s, &h, 64, &r);
        cr_assert_float_eq(r.request_ns, want[h - 1], 1e-9, "%ld hops", h);
        cr_assert_float_eq(r.transaction_ns, r.request_ns + r.response_ns, 1e-9);
    }
}

Test(model, transaction_on_torus_counts_both_directions)
{
    model_params p = preset("current");
    topo_shape s;
    long h[3] = {1, 0, 3};
    model_p2p r;
    cr_assert_eq(topo_shape_parse("4x4x4", &s, NULL), 0);
    model_point_to_point(&p, &s, h, 64, &r);
    /* request: H 4, F 2, S 1; response: 3 + 1 links, F 2, S 1 */
    cr_assert_float_eq(r.request_ns, 2 * 2085 + 4 * 7 + 2 * 60 + 670, 1e-9);
    cr_assert_float_eq(r.response_ns, 2 * 2085 + 4 * 7 + 2 * 60 + 670, 1e-9);
}

/* docs/model.md's reference values: N = 1000, current, m = 64 (given to 3 decimals). */
Test(model, average_latency_at_1000_nodes)
{
    model_params p = preset("current");
    const double want[4] = {37610.0, 6736.383, 6054.054, 6128.265};
    for (int d = 1; d <= 4; d++)
        cr_assert(fabs(model_avg_ns_continuous(&p, d, 1000, 64) - want[d - 1]) <= 0.0005,
                  "%dD: %.6f", d, model_avg_ns_continuous(&p, d, 1000, 64));
}

/* On an integer torus the continuous form is the exact value. */
Test(model, continuous_equals_shape_on_integer_tori)
{
    model_params p = preset("current");
    topo_shape s;
    cr_assert_eq(topo_shape_equal(3, 10, &s), 0);
    assert_rel(model_avg_ns_continuous(&p, 3, 1000, 64), model_avg_ns_shape(&p, &s, 64),
               1e-12, "10^3");
    assert_rel(model_multicast_ns_interpolated(&p, 3, 1000, 64),
               model_multicast_ns_shape(&p, &s, 64), 1e-12, "interpolated at a knot");
}

/* Independent oracle for crossovers: plain bisection on the raw formulas
 * after a unit-step scan (no GSL), compared with the 2-decimal table of 'Crossovers'
 * and with model_crossover to 1e-6 relative. */
static double raw_avg(const model_params *p, int D, double N)
{
    double n = pow(N, 1.0 / D), f = N / (N - 1);
    double h = f * D * (n - 1) / 2, k = f * D * (n - 1) / n;
    return 2 * p->o0_ns + h * p->lp_ns + (h - k) * p->lf_ns + (k - 1) * p->ls_ns;
}

static double bisect_crossover(const model_params *p, int D)
{
    double a = pow(2, D + 1), b = a;
    while (raw_avg(p, D + 1, b) >= raw_avg(p, D, b))
        a = b, b += 0.5;
    for (int i = 0; i < 200; i++) {
        double m = (a + b) / 2;
        if (raw_avg(p, D + 1, m) < raw_avg(p, D, m))
            b = m;
        else
            a = m;
    }
    return (a + b) / 2;
}

Test(model, crossovers_match_spec)
{
    static const struct { const char *preset; double want[3]; } table[] = {
        {"current", {18.21, 190.84, 1832.58}},
        {"enhanced", {8.21, 44.72, 228.93}},
    };
    for (int t = 0; t < 2; t++) {
        model_params p = preset(table[t].preset);
        for (int D = 1; D <= 3; D++) {
            for (int m = 0; m < 2; m++) {
                double x;
                model_crossover_status st;
                cr_assert_eq(model_crossover(&p, m ? MODEL_METRIC_MULTICAST : MODEL_METRIC_AVG,
                                             MODEL_FILL_CONTINUOUS, D, D + 1, 64, &x, &st), 0);
                cr_assert_eq(st, MODEL_XO_CROSSOVER);
                assert_rel(x, bisect_crossover(&p, D), 1e-6, table[t].preset);
                cr_assert(fabs(x - table[t].want[D - 1]) <= 0.005, "%s %dD: %.6f",
                          table[t].preset, D, x);
            }
        }
    }
}

/* 'Crossovers', --fill interpolate: about 18.5/196.6/1954.9 and 8.4/51.8/236.8. */
Test(model, interpolated_multicast_crossovers)
{
    static const struct { const char *preset; double want[3]; } table[] = {
        {"current", {18.5, 196.6, 1954.9}},
        {"enhanced", {8.4, 51.8, 236.8}},
    };
    for (int t = 0; t < 2; t++) {
        model_params p = preset(table[t].preset);
        for (int D = 1; D <= 3; D++) {
            double x;
            model_crossover_status st;
            cr_assert_eq(model_crossover(&p, MODEL_METRIC_MULTICAST, MODEL_FILL_INTERPOLATE, D,
                                         D + 1, 64, &x, &st), 0);
            cr_assert_eq(st, MODEL_XO_CROSSOVER);
            cr_assert(fabs(x - table[t].want[D - 1]) <= 0.05, "%s %dD: %.4f",
                      table[t].preset, D, x);
        }
    }
}

/* Linear interpolation between exact sums: the midpoint of 3^2 = 9 and
 * 4^2 = 16 is the mean of the two enumerated totals. */
Test(model, interpolation_is_linear_between_tori)
{
    model_params p = preset("current");
    topo_shape a, b;
    double sa, sb, avg;
    topo_shape_equal(2, 3, &a);
    topo_shape_equal(2, 4, &b);
    model_enumerate(&p, &a, 0, 64, &sa, &avg);
    model_enumerate(&p, &b, 0, 64, &sb, &avg);
    assert_rel(model_multicast_ns_interpolated(&p, 2, 12.5, 64), (sa + sb) / 2, 1e-12, "mid");
    cr_assert(isnan(model_multicast_ns_interpolated(&p, 2, 3, 64)));
}

Test(model, crossover_lower_bound_and_none)
{
    model_params p = preset("current");
    double x;
    model_crossover_status st;
    /* no switching cost and huge forwarding: 2D wins already at 4 nodes */
    p.ls_ns = 0;
    p.lf_ns = 1e6;
    cr_assert_eq(model_crossover(&p, MODEL_METRIC_AVG, MODEL_FILL_CONTINUOUS, 1, 2, 64, &x, &st), 0);
    cr_assert_eq(st, MODEL_XO_LOWER_BOUND);
    cr_assert_eq(x, 4);
    /* forwarding free, switching expensive: more dimensions never pay */
    p.lf_ns = 0;
    p.lp_ns = 0;
    p.ls_ns = 670;
    cr_assert_eq(model_crossover(&p, MODEL_METRIC_AVG, MODEL_FILL_CONTINUOUS, 1, 2, 64, &x, &st), 0);
    cr_assert_eq(st, MODEL_XO_NONE);
    cr_assert(isnan(x));
}

Test(model, nearest_torus)
{
    topo_shape s;
    cr_assert_eq(model_nearest_torus(2, 1000, &s), 0);
    cr_assert_eq(s.n[0], 32);       /* 1024 is closer than 961 */
    cr_assert_eq(model_nearest_torus(4, 1000, &s), 0);
    cr_assert_eq(s.n[0], 6);        /* 1296 - 1000 < 1000 - 625 */
    cr_assert_eq(model_nearest_torus(3, 1000, &s), 0);
    cr_assert_eq(s.n[0], 10);
    cr_assert_eq(model_nearest_torus(4, 5, &s), 0);
    cr_assert_eq(s.n[0], 2);
}

/* Store-and-forward relays ('Point-to-point latency').  Every route of F forwards and S
 * switches pays (F + S) m lb on top of the cut-through latency; the closed
 * forms (averages, multicast, continuous, interpolated) agree with the
 * link-by-link walk, and lb = 0 leaves every value bit for bit as it was. */
Test(model, store_and_forward_per_byte_cost)
{
    model_params p = preset("current"), q = p;
    q.lb_ns_per_byte = 0.5;
    topo_shape s;
    long h[3] = {1, 0, 3};
    model_p2p a, b;
    cr_assert_eq(topo_shape_parse("4x4x4", &s, NULL), 0);
    model_point_to_point(&p, &s, h, 1024, &a);
    model_point_to_point(&q, &s, h, 1024, &b);
    /* request H 4, F 2, S 1: three relays, 1024 B each at 0.5 ns/B */
    cr_assert_float_eq(b.request_ns - a.request_ns, 3 * 1024 * 0.5, 1e-9);
    cr_assert_float_eq(b.response_ns - a.response_ns, 3 * 1024 * 0.5, 1e-9);
    /* one hop: no relay, nothing to pay */
    cr_assert_eq(model_route_ns(&q, 4096, 1, 0, 0), model_route_ns(&p, 4096, 1, 0, 0));
    for (int bi = 0; bi < 2; bi++)   /* unidirectional and bidirectional rings */
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            double sum, eavg;
            p.links = q.links = bi ? TOPO_LINKS_BI : TOPO_LINKS_UNI;
            cr_assert_eq(topo_shape_parse(shapes[i], &s, NULL), 0);
            model_enumerate(&q, &s, s.nodes / 2, 64, &sum, &eavg);
            assert_rel(model_avg_ns_shape(&q, &s, 64), eavg, 1e-12, shapes[i]);
            assert_rel(model_multicast_ns_shape(&q, &s, 64), sum, 1e-12, shapes[i]);
            /* average relays per request = avg_hops - 1 */
            model_avg_counts c;
            model_avg_counts_shape(&s, q.links, &c);
            assert_rel(model_avg_ns_shape(&q, &s, 64) - model_avg_ns_shape(&p, &s, 64),
                       (c.hops - 1) * 64 * 0.5, 1e-9, shapes[i]);
        }
    p.links = q.links = TOPO_LINKS_UNI;
    /* continuous form on an integer torus is still exact */
    cr_assert_eq(topo_shape_parse("10x10x10", &s, NULL), 0);
    assert_rel(model_avg_ns_continuous(&q, 3, 1000, 64), model_avg_ns_shape(&q, &s, 64), 1e-12,
               "continuous 10^3");
    /* lb = 0: byte-identical to the cut-through model */
    model_params z = p;
    z.lb_ns_per_byte = 0;
    for (int d = 1; d <= 4; d++)
        cr_assert_eq(model_avg_ns_continuous(&z, d, 1000, 64),
                     model_avg_ns_continuous(&p, d, 1000, 64));
}

/* A per-byte relay cost favours fewer hops: with it the crossovers move
 * to smaller systems, the more the larger the message (the m lb term
 * scales with avg_hops - 1, which more dimensions cut). */
Test(model, store_and_forward_moves_crossovers)
{
    model_params p = preset("current"), q = p;
    q.lb_ns_per_byte = 0.05;   /* at 0.5 ns/B and 1 KiB 3D wins from N = 8 */
    double n0, n1, n2;
    model_crossover_status st;
    cr_assert_eq(model_crossover(&p, MODEL_METRIC_AVG, MODEL_FILL_CONTINUOUS, 2, 3, 1024, &n0,
                                 &st), 0);
    cr_assert_eq(model_crossover(&q, MODEL_METRIC_AVG, MODEL_FILL_CONTINUOUS, 2, 3, 1024, &n1,
                                 &st), 0);
    cr_assert_eq(st, MODEL_XO_CROSSOVER);
    cr_assert_eq(model_crossover(&q, MODEL_METRIC_AVG, MODEL_FILL_CONTINUOUS, 2, 3, 64, &n2,
                                 &st), 0);
    /* at the crossover the two curves meet */
    cr_assert(fabs(model_avg_ns_continuous(&q, 2, n1, 1024) -
                   model_avg_ns_continuous(&q, 3, n1, 1024)) < 1e-6 *
                  model_avg_ns_continuous(&q, 2, n1, 1024));
    cr_assert_lt(n1, n0, "relays' bytes make hops dearer: 3D should win earlier");
    cr_assert_lt(n1, n2, "the bigger the message, the earlier 3D wins");
}
