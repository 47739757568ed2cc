/* Tests for the traffic projection (docs/model.md, 'Projection'): latency, hop-bytes and
 * the busiest link against a brute force written here from 'Point-to-point
 * latency' and 'Links' (message by message, link by link), and the annealed placement
 * against row-major and against a scrambled 3D halo exchange. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/params.h"
#include "model/projection.h"
#include "model/traffic.h"

/* ---- brute force, independent of model/ and topo/ ------------------------ */

static double o_ns(const model_params *p, double m)
{
    return p->o0_ns + p->o1_ns_per_byte * (m - p->mref_bytes);   /* o(m) */
}

static void coords_of(const long *n, int D, long rank, long *c)
{
    for (int i = D - 1; i >= 0; i--) {   /* row-major: last dimension fastest */
        c[i] = rank % n[i];
        rank /= n[i];
    }
}

static long rank_of(const long *n, int D, const long *c)
{
    long r = 0;
    for (int i = 0; i < D; i++)
        r = r * n[i] + c[i];
    return r;
}

typedef struct brute {
    double total_ns, hop_bytes, max_link;
} brute;

/* Every message walks its route one link at a time into load[node][dim][way]. */
static brute brute_force(const traffic_matrix *t, const long *n, int D, long N, const long *pos,
                         long K, int bi, const model_params *p, const model_params *intra)
{
    brute b = {0, 0, 0};
    double *load = calloc((size_t)N * D * 2, sizeof *load);
    for (size_t k = 0; k < t->rows; k++) {
        const traffic_row *row = &t->row[k];
        long a = pos[row->src / K], d = pos[row->dst / K], cs[16], cd[16];
        double m = (double)row->size_bytes, msgs = (double)row->messages;
        if (a == d) {
            b.total_ns += msgs * 2 * o_ns(intra, m);
            continue;
        }
        coords_of(n, D, a, cs);
        coords_of(n, D, d, cd);
        long H = 0, used = 0;
        for (int i = 0; i < D; i++) {
            long h = ((cd[i] - cs[i]) % n[i] + n[i]) % n[i];
            int way = 0;
            if (bi && n[i] - h < h) {     /* bi: shorter way, ties positive */
                h = n[i] - h;
                way = 1;
            }
            H += h;
            used += h > 0;
            for (long s = 0; s < h; s++) {   /* one link at a time */
                long from = rank_of(n, D, cs);
                load[(from * D + i) * 2 + way] += msgs * m;
                cs[i] = (cs[i] + (way ? n[i] - 1 : 1)) % n[i];
            }
        }
        b.total_ns += msgs * (2 * o_ns(p, m) + H * p->lp_ns + (H - used) * p->lf_ns +
                              (used - 1) * p->ls_ns);
        b.hop_bytes += msgs * m * H;
    }
    for (long i = 0; i < N * D * 2; i++)
        if (load[i] > b.max_link)
            b.max_link = load[i];
    free(load);
    return b;
}

/* A random matrix: rows with sizes 0..8192 B, 1..50 messages; self-sends
 * included. */
static void random_matrix(traffic_matrix *t, long ranks, size_t rows, unsigned seed)
{
    srand(seed);
    t->ranks = ranks;
    t->rows = rows;
    t->row = calloc(rows, sizeof *t->row);
    for (size_t k = 0; k < rows; k++) {
        t->row[k].src = rand() % ranks;
        t->row[k].dst = rand() % ranks;
        t->row[k].size_bytes = rand() % 8193;
        t->row[k].messages = 1 + rand() % 50;
    }
}

static void random_placement(long count, long N, long *pos, unsigned seed)
{
    long *perm = malloc((size_t)N * sizeof *perm);
    srand(seed);
    for (long i = 0; i < N; i++)
        perm[i] = i;
    for (long i = N - 1; i > 0; i--) {
        long j = rand() % (i + 1), tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    memcpy(pos, perm, (size_t)count * sizeof *pos);
    free(perm);
}

static const char *const shapes[] = {"8", "4x2", "2x2x2", "3x3", "5x3", "3x2x2", "2x2x2x2", "7"};

Test(projection, matches_brute_force_on_shapes_placements_links_slots)
{
    model_params cur, shm;
    model_params_preset("current", &cur);
    model_params_preset("enhanced", &shm);   /* distinct intra values */
    shm.o0_ns = 300;
    shm.o1_ns_per_byte = 0.5;
    int cases = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (long K = 1; K <= 2; K++)
            for (int bi = 0; bi <= 1; bi++)
                for (int placed = 0; placed <= 1; placed++) {
                    topo_shape shape;
                    cr_assert_eq(topo_shape_parse(shapes[s], &shape, NULL), 0);
                    traffic_matrix t;
                    long ranks = shape.nodes * K - (K > 1);   /* last node half full */
                    random_matrix(&t, ranks, 200, (unsigned)(s * 7 + K * 3 + bi + 1));
                    proj_config c = {&cur, &shm, bi ? TOPO_LINKS_BI : TOPO_LINKS_UNI, K, NULL, NULL};
                    long nodes = proj_nodes_needed(&t, K), pos[64];
                    cr_assert_eq(nodes, shape.nodes);
                    if (placed)
                        random_placement(nodes, shape.nodes, pos, (unsigned)s + 99);
                    else
                        proj_row_major(nodes, pos);
                    proj_result r;
                    cr_assert_eq(proj_project(&c, &t, &shape, pos, &r), 0);
                    brute b = brute_force(&t, shape.n, shape.dims, shape.nodes, pos, K, bi,
                                          &cur, &shm);
                    cr_assert(fabs(r.total_ns - b.total_ns) <= 1e-9 * b.total_ns,
                              "%s K=%ld bi=%d placed=%d: total %.3f, brute force %.3f",
                              shapes[s], K, bi, placed, r.total_ns, b.total_ns);
                    cr_assert_eq(r.hop_bytes, b.hop_bytes, "%s: hop-bytes %.0f vs %.0f",
                                 shapes[s], r.hop_bytes, b.hop_bytes);
                    cr_assert_eq(r.max_link_bytes, b.max_link, "%s K=%ld bi=%d: max link %.0f vs %.0f",
                                 shapes[s], K, bi, r.max_link_bytes, b.max_link);
                    cr_assert(fabs(r.mean_ns * r.messages - r.total_ns) <= 1e-9 * r.total_ns);
                    cr_assert(fabs(proj_total_ns(&c, &t, &shape, pos) - r.total_ns) <=
                              1e-9 * r.total_ns);
                    traffic_free(&t);
                    cases++;
                }
    cr_assert_eq(cases, 64);
}

/* Hand-checked: 2 messages of 64 B from node 0 to node 5 of 3x3 (hops 1,2):
 * H = 3, k = 2, F = 1, S = 1: 2*2085 + 3*7 + 60 + 670 = 4921 ns each
 * (thesis eq. 24); 64 * 2 * 3 hop-bytes; every link of the route carries 128 B. */
Test(projection, hand_checked_route)
{
    model_params cur;
    model_params_preset("current", &cur);
    traffic_row row = {0, 5, 64, 2};
    traffic_matrix t = {.ranks = 9, .rows = 1, .row = &row};
    topo_shape shape;
    topo_shape_parse("3x3", &shape, NULL);
    proj_config c = {&cur, &cur, TOPO_LINKS_UNI, 1, NULL, NULL};
    long pos[9];
    proj_row_major(9, pos);
    proj_result r;
    cr_assert_eq(proj_project(&c, &t, &shape, pos, &r), 0);
    cr_assert_float_eq(r.total_ns, 2 * 4921.0, 1e-9);
    cr_assert_float_eq(r.hop_bytes, 384.0, 0);
    cr_assert_float_eq(r.max_link_bytes, 128.0, 0);
    /* bi: (1,2) -> (1,1) the other way round: H = 2, k = 2: 4170+14+670 */
    c.links = TOPO_LINKS_BI;
    cr_assert_eq(proj_project(&c, &t, &shape, pos, &r), 0);
    cr_assert_float_eq(r.total_ns, 2 * 4854.0, 1e-9);
}

Test(projection, smallest_torus_per_dimension)
{
    topo_shape s;
    cr_assert_eq(proj_smallest_torus(1, 9, &s), 0);
    cr_assert_eq(s.nodes, 9);
    cr_assert_eq(proj_smallest_torus(2, 9, &s), 0);
    cr_assert_eq(s.nodes, 9);
    cr_assert_eq(proj_smallest_torus(2, 10, &s), 0);
    cr_assert_eq(s.nodes, 16);
    cr_assert_eq(proj_smallest_torus(3, 64, &s), 0);
    cr_assert_eq(s.nodes, 64);
    cr_assert_eq(proj_smallest_torus(4, 3, &s), 0);
    cr_assert_eq(s.nodes, 16);   /* n >= 2 */
    cr_assert_eq(proj_smallest_torus(3, 1000001, &s), 0);
    cr_assert_eq(s.n[0], 101);
}

static int is_injection(const long *pos, long count, long N)
{
    char *seen = calloc((size_t)N, 1);
    int ok = 1;
    for (long j = 0; j < count && ok; j++) {
        ok = pos[j] >= 0 && pos[j] < N && !seen[pos[j]];
        if (ok)
            seen[pos[j]] = 1;
    }
    free(seen);
    return ok;
}

Test(projection, optimize_never_loses_to_row_major)
{
    model_params cur;
    model_params_preset("current", &cur);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int bi = 0; bi <= 1; bi++) {
            topo_shape shape;
            topo_shape_parse(shapes[s], &shape, NULL);
            traffic_matrix t;
            random_matrix(&t, shape.nodes - 1, 100, (unsigned)s + 5);  /* one free node */
            proj_config c = {&cur, &cur, bi ? TOPO_LINKS_BI : TOPO_LINKS_UNI, 1, NULL, NULL};
            long pos[64], nodes = proj_nodes_needed(&t, 1);
            proj_row_major(nodes, pos);
            double row_major = proj_total_ns(&c, &t, &shape, pos), e0, e1;
            cr_assert_eq(proj_optimize(&c, &t, &shape, 20000, pos, &e0, &e1), 0);
            cr_assert(is_injection(pos, nodes, shape.nodes), "%s: not a placement", shapes[s]);
            cr_assert_eq(e0, row_major);
            cr_assert_leq(e1, row_major, "%s bi=%d: optimized %.3f > row-major %.3f", shapes[s],
                          bi, e1, row_major);
            cr_assert_eq(proj_total_ns(&c, &t, &shape, pos), e1);
            traffic_free(&t);
        }
}

/* A 3D halo exchange (6 neighbours, 100 messages of 4 KiB each) on n^3
 * ranks, with rank r renamed perm[r]. */
static void halo3d(traffic_matrix *t, long n, const long *perm)
{
    long P = n * n * n;
    t->ranks = P;
    t->rows = (size_t)P * 6;
    t->row = calloc(t->rows, sizeof *t->row);
    size_t k = 0;
    for (long r = 0; r < P; r++) {
        long c[3] = {r / (n * n), r / n % n, r % n};
        for (int d = 0; d < 3; d++)
            for (int s = -1; s <= 1; s += 2) {
                long e[3] = {c[0], c[1], c[2]};
                e[d] = (e[d] + s + n) % n;
                traffic_row *row = &t->row[k++];
                row->src = (int32_t)perm[r];
                row->dst = (int32_t)perm[(e[0] * n + e[1]) * n + e[2]];
                row->size_bytes = 4096;
                row->messages = 100;
            }
    }
}

/* The halo exchange above on n^3 ranks in row-major order (*plain) and with
 * its ranks scrambled by random_placement(seed) (*scrambled), and the torus
 * n^3 they are projected onto. */
static void halo3d_pair(long n, unsigned seed, traffic_matrix *plain,
                        traffic_matrix *scrambled, topo_shape *shape)
{
    long P = n * n * n, ident[64], perm[64];
    cr_assert_leq(P, 64);
    proj_row_major(P, ident);
    random_placement(P, P, perm, seed);
    halo3d(plain, n, ident);
    halo3d(scrambled, n, perm);
    topo_shape_equal(3, n, shape);
}

Test(projection, optimize_unscrambles_a_3d_halo_exchange, .timeout = 120)
{
    model_params cur;
    model_params_preset("current", &cur);
    long P = 27, pos[27];
    traffic_matrix plain, scrambled;
    topo_shape shape;
    halo3d_pair(3, 4242, &plain, &scrambled, &shape);
    for (int bi = 0; bi <= 1; bi++) {
        proj_config c = {&cur, &cur, bi ? TOPO_LINKS_BI : TOPO_LINKS_UNI, 1, NULL, NULL};
        proj_row_major(P, pos);
        double target = proj_total_ns(&c, &plain, &shape, pos);
        double before = proj_total_ns(&c, &scrambled, &shape, pos), e0, e1;
        cr_assert_gt(before, target * 1.001, "the scramble should cost something");
        cr_assert_eq(proj_optimize(&c, &scrambled, &shape, 300000, pos, &e0, &e1), 0);
        /* the row-major latency of the unscrambled exchange, to 1e-9 */
        cr_assert_leq(e1, target * (1 + 1e-9), "bi=%d: optimized %.1f, unscrambled %.1f, "
                      "scrambled %.1f", bi, e1, target, before);
    }
    traffic_free(&plain);
    traffic_free(&scrambled);
}

/* The same on 4x4x4 with the default budget: a harder landscape (a ring of
 * 4 has 1-hop and 3-hop neighbours); at least 90% of the latency the
 * scramble added is won back (93.5% when this was written). */
Test(projection, optimize_wins_back_most_of_a_scrambled_4x4x4_halo, .timeout = 120)
{
    model_params cur;
    model_params_preset("current", &cur);
    long P = 64, pos[64];
    traffic_matrix plain, scrambled;
    topo_shape shape;
    halo3d_pair(4, 7, &plain, &scrambled, &shape);
    proj_config c = {&cur, &cur, TOPO_LINKS_UNI, 1, NULL, NULL};
    proj_row_major(P, pos);
    double target = proj_total_ns(&c, &plain, &shape, pos);
    double before = proj_total_ns(&c, &scrambled, &shape, pos), e0, e1;
    cr_assert_eq(proj_optimize(&c, &scrambled, &shape, PROJ_ANNEAL_DEFAULT_STEPS, pos, &e0, &e1), 0);
    cr_assert_geq((before - e1) / (before - target), 0.9, "won back %.1f%%: optimized %.1f, "
                  "unscrambled %.1f, scrambled %.1f", 100 * (before - e1) / (before - target), e1,
                  target, before);
    traffic_free(&plain);
    traffic_free(&scrambled);
}
