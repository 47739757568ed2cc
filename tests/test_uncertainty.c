/* Tests for the intervals and the candidates (model/uncertainty.h,
 * model/candidates.h): the params file's covariance read back and
 * refused when it cannot be one; a first-order interval against the
 * closed-form variance of a linear projection; best against tie; the
 * candidate shapes against a brute-force enumeration; a stencil's grid
 * found in its matrix. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/candidates.h"
#include "model/model.h"
#include "model/params.h"
#include "model/uncertainty.h"
#include "tests/runcmd.h"

static char tmpdir[] = "/tmp/scitorus-unc-XXXXXX";

static void setup(void) { run_tmpdir_make(tmpdir); }
static void teardown(void) { run_tmpdir_remove(tmpdir); }

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    run_write_text(path, text);
    return path;
}

#define GOOD "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\nlp_ns = 7\nlf_ns = 60\nls_ns = 670\n"
#define ERRS "o0_ns_err = 10\nlf_ns_err = 3\nls_ns_err = 20\n"

TestSuite(uncertainty, .init = setup, .fini = teardown);

Test(uncertainty, covariance_roundtrip_and_refusals)
{
    model_params p, q;
    model_params_error e;
    const char *f = write_file("c.params", GOOD ERRS "cov_o0_ns_lf_ns = -12.5\ncov_lf_ns_ls_ns = 30\n"
                                                     "fitted_at = \"2026-01-02T03:04:05Z\"\n");
    cr_assert_eq(model_params_read(f, &p, &e), 0, "%s", e.msg);
    cr_assert_eq(p.cov[MODEL_P_O0][MODEL_P_LF], -12.5);
    cr_assert_eq(p.cov[MODEL_P_LF][MODEL_P_O0], -12.5, "mirrored");
    cr_assert(isnan(p.cov[MODEL_P_O0][MODEL_P_LS]), "not stated: NaN");
    cr_assert_str_eq(p.fitted_at, "2026-01-02T03:04:05Z");
    cr_assert_not(unc_has_cov(&p), "one pair with errors lacks its covariance");
    const char *g = write_file("back.params", "");
    cr_assert_eq(model_params_write(g, &p, NULL), 0);
    cr_assert_eq(model_params_read(g, &q, &e), 0, "%s", e.msg);
    cr_assert_eq(q.cov[MODEL_P_LF][MODEL_P_LS], 30);
    cr_assert_str_eq(q.fitted_at, p.fitted_at);
    /* the segments' errors read back, and one beyond the segments refused */
    const char *seg = write_file("seg.params", GOOD ERRS "o_segments = 2\no_seg1_from_bytes = 1\n"
                                 "o_seg1_ns = 2000\no_seg1_ns_per_byte = 1\no_seg2_from_bytes = 64\n"
                                 "o_seg2_ns = 2085\no_seg2_ns_per_byte = 11.6\no_seg1_ns_err = 4\n"
                                 "o_seg2_ns_per_byte_err = 0.5\n");
    cr_assert_eq(model_params_read(seg, &p, &e), 0, "%s", e.msg);
    cr_assert_eq(p.oseg_err[0][0], 4);
    cr_assert_eq(p.oseg_err[1][1], 0.5);
    cr_assert(isnan(p.oseg_err[0][1]));
    cr_assert_eq(model_params_write(g, &p, NULL), 0);
    cr_assert_eq(model_params_read(g, &q, &e), 0, "%s", e.msg);
    cr_assert_eq(q.oseg_err[1][1], 0.5);
    cr_assert_eq(model_params_read(write_file("seg3.params", GOOD ERRS "o_seg3_ns_err = 1\n"), &p, &e),
                 -2);
    /* an old file: errors, no covariance, still read */
    cr_assert_eq(model_params_read(write_file("old.params", GOOD ERRS), &p, &e), 0, "%s", e.msg);
    cr_assert(unc_has_errors(&p));
    cr_assert_not(unc_has_cov(&p));
    static const struct { const char *text; long line; const char *word; } bad[] = {
        /* |cov| <= 10 * 3 = 30 (Cauchy-Schwarz) */
        {GOOD ERRS "cov_o0_ns_lf_ns = 31\n", 10, "larger than the product"},
        {GOOD ERRS "cov_o0_ns_lf_ns = -31\n", 10, "larger than the product"},
        {GOOD ERRS "cov_o0_ns_lp_ns = 1\n", 10, "needs both"},
        {GOOD ERRS "cov_lf_ns_o0_ns = 1\n", 10, "unknown key"},
        {GOOD ERRS "cov_o0_ns_lf_ns = nan\n", 10, "not a finite number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(model_params_read(write_file("bad.params", bad[i].text), &p, &e), -2, "case %zu", i);
        cr_assert_eq(e.line, bad[i].line, "case %zu: line %ld (%s)", i, e.line, e.msg);
        cr_assert_not_null(strstr(e.msg, bad[i].word), "case %zu: '%s'", i, e.msg);
    }
}

typedef struct route_arg {
    double m, h, f, s;
} route_arg;

static int route_fn(const model_params *p, void *arg, double *v)
{
    const route_arg *a = arg;
    *v = model_route_ns(p, a->m, a->h, a->f, a->s);
    return 0;
}

/* L = 2 o(m) + H lp + F lf + S ls is linear: var = g' C g with
 * g = (2, 2 (m - mref), H, F, S) exactly, whatever the step. */
Test(uncertainty, first_order_is_exact_for_a_linear_projection)
{
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(write_file("c.params", GOOD "o0_ns_err = 10\n"
                                              "o1_ns_per_byte_err = 0.5\nlf_ns_err = 3\n"
                                              "ls_ns_err = 20\ncov_o0_ns_o1_ns_per_byte = -2\n"
                                              "cov_o0_ns_lf_ns = -12\ncov_o0_ns_ls_ns = 50\n"
                                              "cov_o1_ns_per_byte_lf_ns = 0.3\n"
                                              "cov_o1_ns_per_byte_ls_ns = 0\n"
                                              "cov_lf_ns_ls_ns = 30\n"),
                                   &p, &e), 0, "%s", e.msg);
    cr_assert(unc_has_cov(&p));
    route_arg a = {1024, 7, 4, 2};
    double v, sigma;
    cr_assert_eq(unc_eval(&p, route_fn, &a, &v, &sigma), 0);
    double g[4] = {2, 2 * (1024 - 64), 4, 2};   /* o0, o1, lf, ls */
    double C[4][4] = {{100, -2, -12, 50}, {-2, 0.25, 0.3, 0}, {-12, 0.3, 9, 30}, {50, 0, 30, 400}};
    double var = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            var += g[i] * C[i][j] * g[j];
    cr_assert_float_eq(v, model_route_ns(&p, 1024, 7, 4, 2), 1e-9);
    cr_assert_float_eq(sigma, sqrt(var), 1e-6 * sqrt(var), "%g vs %g", sigma, sqrt(var));
    /* a preset carries no errors: no interval */
    model_params_preset("current", &p);
    cr_assert_eq(unc_eval(&p, route_fn, &a, &v, &sigma), 0);
    cr_assert(isnan(sigma));
}

Test(uncertainty, best_only_when_the_intervals_clear)
{
    size_t best;
    int tie[3];
    double margin;
    /* 100 +- 1.96 vs 103 +- 1.96: the intervals meet (101.96 > 101.04) */
    double v1[3] = {103, 100, 110}, s1[3] = {1, 1, 1};
    cr_assert_eq(unc_verdict(v1, s1, 3, &best, tie, &margin), 0);
    cr_assert_eq(best, 1);
    cr_assert(tie[0] && tie[1] && !tie[2]);
    cr_assert_float_eq(margin, 3, 1e-12);
    /* 5x apart: 100 +- 1.96 and 120 +- 1.96 */
    double v2[2] = {120, 100}, s2[2] = {1, 1};
    cr_assert_eq(unc_verdict(v2, s2, 2, &best, tie, &margin), 1);
    cr_assert_eq(best, 1);
    cr_assert(!tie[0] && !tie[1]);
    /* equal values tie without any error (a shape and its transpose) */
    double v3[2] = {50, 50}, s3[2] = {NAN, NAN};
    cr_assert_eq(unc_verdict(v3, s3, 2, &best, tie, &margin), 0);
    /* without errors a lower value is a best */
    double v4[2] = {50, 50.001};
    cr_assert_eq(unc_verdict(v4, s3, 2, &best, tie, &margin), 1);
    cr_assert_eq(best, 0);
}

/* Ordered D-tuples of sides >= 2 with product N, by brute force. */
static size_t brute_count(long N, int D, long prod, int at)
{
    if (at == D)
        return prod == N;
    size_t c = 0;
    for (long s = 2; s <= N / prod; s++)
        if ((N / prod) % s == 0)
            c += brute_count(N, D, prod * s, at + 1);
    return c;
}

Test(uncertainty, candidates_are_every_shape_and_the_smallest_holding)
{
    static const long dims[] = {1, 2, 3, 4};
    cand c[CAND_MAX];
    for (long N = 2; N <= 64; N++) {
        size_t n = 0, dropped, exact[5] = {0};
        cr_assert_eq(cand_for_dims(dims, 4, N, c, CAND_MAX, &n, &dropped), 0);
        cr_assert_eq(dropped, 0, "N = %ld", N);
        for (size_t i = 0; i < n; i++) {
            cr_assert_geq(c[i].shape.nodes, N);
            if (c[i].shape.nodes == N)
                exact[c[i].shape.dims]++;
            for (size_t j = 0; j < i; j++)
                cr_assert_str_neq(c[i].name, c[j].name, "N = %ld: %s twice", N, c[i].name);
        }
        for (int D = 1; D <= 4; D++) {
            cr_assert_eq(exact[D], brute_count(N, D, 1, 0), "N = %ld, D = %d", N, D);
            int holding = 0;
            for (size_t i = 0; i < n; i++)
                holding |= c[i].shape.dims == D;
            cr_assert(holding, "N = %ld: no %dD candidate", N, D);
        }
    }
    /* 6: 6, 3x2, 2x3, 3x3 (the old cube, 3 idle), 2x2x2, 2x2x2x2 */
    size_t n = 0, dropped;
    cr_assert_eq(cand_for_dims(dims, 4, 6, c, CAND_MAX, &n, &dropped), 0);
    const char *want[] = {"6", "3x2", "2x3", "3x3", "2x2x2", "2x2x2x2"};
    cr_assert_eq(n, 6);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(c[i].name, want[i]);
    char buf[64];
    cr_assert_str_eq(cand_nodes_text(&c[4], 6, buf, sizeof buf), "8 (2 idle)");
    cr_assert_str_eq(cand_nodes_text(&c[1], 6, buf, sizeof buf), "6");
    /* 7 in 2D: no exact shape; the smallest holding one is 4x2 (8), then 3x3 */
    n = 0;
    cr_assert_eq(cand_for_dims((const long[]){2}, 1, 7, c, CAND_MAX, &n, &dropped), 0);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(c[0].name, "4x2");
    cr_assert_str_eq(c[1].name, "3x3");
}

/* A periodic stencil on R x C ranks (row-major), each rank sending `bytes`
 * to its four neighbours, plus a few 8-byte messages elsewhere (a
 * collective's). */
static void stencil(long R, long C, int noise, traffic_matrix *t, traffic_row *rows)
{
    size_t k = 0;
    for (long r = 0; r < R * C; r++) {
        long i = r / C, j = r % C;
        long nb[4] = {((i + 1) % R) * C + j, ((i + R - 1) % R) * C + j, i * C + (j + 1) % C,
                      i * C + (j + C - 1) % C};
        for (int d = 0; d < 4; d++)
            rows[k++] = (traffic_row){(int32_t)r, (int32_t)nb[d], 1024, 10};
    }
    for (int x = 0; x < noise; x++)
        rows[k++] = (traffic_row){0, (int32_t)(R * C - 1 - x), 8, 1};
    *t = (traffic_matrix){.ranks = R * C, .rows = k, .row = rows};
}

Test(uncertainty, a_stencil_grid_is_found_in_its_matrix)
{
    traffic_row rows[4 * 64 + 8];
    traffic_matrix t;
    topo_shape g;
    char name[64];
    stencil(3, 2, 0, &t, rows);
    cr_assert_eq(cand_grid_of(&t, 6, &g), 1);
    topo_shape_format(&g, name, sizeof name);
    cr_assert_str_eq(name, "3x2");
    stencil(2, 3, 2, &t, rows);   /* with a collective's messages beside it */
    cr_assert_eq(cand_grid_of(&t, 6, &g), 1);
    topo_shape_format(&g, name, sizeof name);
    cr_assert_str_eq(name, "2x3");
    stencil(4, 4, 0, &t, rows);
    cr_assert_eq(cand_grid_of(&t, 16, &g), 1);
    topo_shape_format(&g, name, sizeof name);
    cr_assert_str_eq(name, "4x4");
    /* all to all: no grid */
    size_t k = 0;
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            if (a != b)
                rows[k++] = (traffic_row){a, b, 64, 1};
    t = (traffic_matrix){.ranks = 6, .rows = k, .row = rows};
    cr_assert_eq(cand_grid_of(&t, 6, &g), 0);
}
