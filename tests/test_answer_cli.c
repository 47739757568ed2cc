/* Tests for the answer scimodel --traffic and scisim give: the candidates
 * a user would consider (every shape of the node count, the smallest ones
 * holding it with idle nodes, the application's grid) on a traced 3x2
 * stencil, and a best named only when its interval clears the runner-up's
 * (constructed cases whose intervals follow from the errors by hand). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/runcmd.h"

#define SCIMODEL run_prog("scimodel", 0)
#define SCISIM run_prog("scisim", 0)

static char dir[] = "/tmp/scitorus-answer-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

static const char *put(const char *name, const char *text)
{
    const char *p = run_path(dir, name);
    run_write_text(p, text);
    return p;
}

TestSuite(answer, .init = setup, .fini = teardown);

/* The TSV row whose second column is shape, or NULL. */
static const char *row_of(const char *out, const char *shape)
{
    char key[64];
    const char *p = out;
    snprintf(key, sizeof key, "\t%s\t", shape);
    while ((p = strstr(p, key))) {
        const char *start = p;
        while (start > out && start[-1] != '\n')
            start--;
        if (strchr(start, '\t') == p)
            return start;
        p++;
    }
    return NULL;
}

/* Field k (0-based) of a TSV row, as a number. */
static double field(const char *row, int k)
{
    for (int i = 0; i < k; i++)
        row = strchr(row, '\t') + 1;
    return strtod(row, NULL);
}

/* The last column: "matrix" (the grid read from the traffic), "cart"
 * (from MPI_Cart_create) or "no". */
static int grid_is(const char *row, const char *how)
{
    const char *end = strchr(row, '\n');
    size_t n = strlen(how);
    return end - row > (long)n && end[-(long)n - 1] == '\t' && strncmp(end - n, how, n) == 0;
}

/* halo3d on 6 ranks: MPI_Dims_create gives 3x2x1, a periodic 3x2 stencil
 * (tests/fixtures/traffic/stencil-3x2.tsv, scitrace matrix of
 * `mpirun -np 6 halo3d --steps 2 --block 4x4x4`, and its goal), traced
 * before the tracer recorded MPI_Cart_create: a matrix that says nothing
 * of its grid, as a program that does not call it. */
Test(answer, stencil_candidates_nodes_and_grid_from_the_matrix)
{
    const char *m = run_fixture("traffic/stencil-3x2.tsv");
    run_result r = run_cmd(SCIMODEL, 60, "--traffic", m, "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *shapes[] = {"6", "3x2", "2x3", "3x3", "2x2x2", "2x2x2x2"};
    const double nodes[] = {6, 6, 6, 9, 8, 16};
    for (size_t i = 0; i < 6; i++) {
        const char *row = row_of(r.out, shapes[i]);
        cr_assert_not_null(row, "%s missing:\n%s", shapes[i], r.out);
        cr_assert_eq(field(row, 8), nodes[i], "%s", shapes[i]);
        cr_assert_eq(grid_is(row, "matrix"), i == 1, "%s: grid column", shapes[i]);
    }
    run_free(&r);
    r = run_cmd(SCIMODEL, 60, "--traffic", m, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "8 (2 idle)"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "16 (10 idle)"), "%s", r.out);
    const char *g = strstr(r.out, "(the application's grid)");
    cr_assert_not_null(g, "%s", r.out);
    const char *line = g;
    while (line > r.out && line[-1] != '\n')
        line--;
    cr_assert_not_null(strstr(line, " 3x2 "), "%.*s", (int)(g - line), line);
    run_free(&r);
    /* the schedule replayed: the same candidates, the same grid */
    r = run_cmd(SCISIM, 120, run_fixture("sim/stencil-3x2.goal"), "-q", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    for (size_t i = 0; i < 6; i++) {
        const char *row = row_of(r.out, shapes[i]);
        cr_assert_not_null(row, "%s missing:\n%s", shapes[i], r.out);
        cr_assert_eq(field(row, 9), nodes[i], "%s", shapes[i]);
        cr_assert_eq(grid_is(row, "matrix"), i == 1, "%s: grid column", shapes[i]);
    }
    run_free(&r);
}

/* 10 messages 0 -> 3 of 64 B (thesis preset, 4 ranks): total 43110 ns on
 * the ring of 4, 48540 on 2x2 (test_traffic_cli).  o0 enters every
 * message twice: sigma(total) = 20 o0_err, the 95% half-width 39.2 o0_err;
 * the totals differ by 5430 ns. */
#define TRAFFIC "# scitorus-traffic 1\n# ranks: 4\n0\t3\t64\t10\n"
#define PARAMS(err) "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\nlp_ns = 7\n" \
                    "lf_ns = 60\nls_ns = 670\no0_ns_err = " err "\n"

Test(answer, traffic_tie_inside_the_noise_best_outside)
{
    const char *m = put("m.tsv", TRAFFIC);
    /* o0_err 100: half-widths 3920 ns, the intervals overlap */
    const char *wide = put("wide.params", PARAMS("100"));
    run_result r = run_cmd(SCIMODEL, 30, "--traffic", m, "--dims", "1,2", "--params", wide, NULL);
    cr_assert_eq(r.status, 0, "a tie is an answer: %s", r.err);
    cr_assert_not_null(strstr(r.out, "tie: 4 (row-major), 2x2 (row-major)"), "%s", r.out);
    cr_assert_null(strstr(r.out, "best:"), "%s", r.out);
    run_free(&r);
    /* o0_err 13.85: the interval is 1086 ns wide, the gap 5x that */
    const char *narrow = put("narrow.params", PARAMS("13.85"));
    r = run_cmd(SCIMODEL, 30, "--traffic", m, "--dims", "1,2", "--params", narrow, "--format",
                "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *a = row_of(r.out, "4"), *b = row_of(r.out, "2x2");
    cr_assert(a && b, "%s", r.out);
    double width = field(a, 10) - field(a, 9), gap = field(b, 4) - field(a, 4);
    cr_assert_float_eq(width, 2 * 1.959963984540054 * 20 * 13.85, 0.01, "%s", r.out);
    cr_assert_geq(gap / width, 4.99, "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--traffic", m, "--dims", "1,2", "--params", narrow, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "best: 1D 4 (row-major)"), "%s", r.out);
    cr_assert_null(strstr(r.out, "tie:"), "%s", r.out);
    run_free(&r);
}

/* One send 0 -> 3 replayed: the ring of 4 (3 links, 2 forwards) and 2x2
 * (2 links, a switch) differ by ls - lp - 2 lf = 543 ns. */
Test(answer, replay_tie_inside_the_noise_best_outside)
{
    const char *goal = put("g.goal", "num_ranks 4\nrank 0 {\nl1: send 64b to 3 tag 1\n}\n"
                                     "rank 1 {\n}\nrank 2 {\n}\n"
                                     "rank 3 {\nl1: recv 64b from 0 tag 1\n}\n");
    const char *wide = put("wide.params", PARAMS("1000"));
    run_result r = run_cmd(SCISIM, 30, goal, "--shape", "4", "--shape", "2x2", "--params", wide,
                           "-q", NULL);
    cr_assert_eq(r.status, 0, "a tie is an answer: %s", r.err);
    cr_assert_not_null(strstr(r.out, "tie: 4 (row-major), 2x2 (row-major)"), "%s", r.out);
    cr_assert_null(strstr(r.out, "Best:"), "%s", r.out);
    run_free(&r);
    const char *narrow = put("narrow.params", PARAMS("5"));
    r = run_cmd(SCISIM, 30, goal, "--shape", "4", "--shape", "2x2", "--params", narrow, "-q",
                "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *a = row_of(r.out, "4"), *b = row_of(r.out, "2x2");
    cr_assert(a && b, "%s", r.out);
    double width = field(a, 11) - field(a, 10), gap = field(b, 4) - field(a, 4);
    cr_assert_gt(width, 0, "%s", r.out);
    cr_assert_geq(gap / width, 5, "%s", r.out);
    run_free(&r);
    r = run_cmd(SCISIM, 30, goal, "--shape", "4", "--shape", "2x2", "--params", narrow, "-q",
                NULL);
    cr_assert_not_null(strstr(r.out, "Best: 4 (1D"), "%s", r.out);
    run_free(&r);
}

/* Every parameter with its source; --contention names the link rate's. */
Test(answer, headers_name_every_parameter_and_its_source)
{
    const char *goal = put("g.goal", "num_ranks 2\nrank 0 {\nl1: send 64b to 1 tag 1\n}\n"
                                     "rank 1 {\nl1: recv 64b from 0 tag 1\n}\n");
    run_result r = run_cmd(SCISIM, 30, goal, "--shape", "2", "--contention", "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "assumed: preset current"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "link_bw_bytes_per_ns 1 default"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "not measured"), "%s", r.out);
    run_free(&r);
    const char *p = put("m.params", PARAMS("5") "o0_ns_source = \"measured\"\n"
                                    "link_bw_bytes_per_ns = 0.125\n"
                                    "link_bw_bytes_per_ns_err = 0.002\n"
                                    "link_bw_bytes_per_ns_source = \"measured\"\n"
                                    "fitted_at = \"2026-01-02T03:04:05Z\"\n");
    r = run_cmd(SCISIM, 30, goal, "--shape", "2", "--contention", "--params", p, "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "o0_ns measured in"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "fitted 2026-01-02T03:04:05Z"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "link_bw_bytes_per_ns 0.125 measured in"), "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--params", p, "--nodes", "64", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "sources: o0_ns measured in"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "interval: 95%"), "%s", r.out);
    run_free(&r);
}

/* The same stencil traced with the tracer that records MPI_Cart_create
 * (tests/fixtures/traffic/stencil-3x2-cart.tsv, its '# grid: 3x2' line):
 * the grid is the one it made. */
Test(answer, stencil_grid_from_mpi_cart_create)
{
    run_result r = run_cmd(SCIMODEL, 60, "--traffic", run_fixture("traffic/stencil-3x2-cart.tsv"),
                           "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(grid_is(row_of(r.out, "3x2"), "cart"), "%s", r.out);
    cr_assert(grid_is(row_of(r.out, "2x3"), "no"), "%s", r.out);
    cr_assert_eq(field(row_of(r.out, "2x2x2"), 8), 8, "%s", r.out);
    run_free(&r);
}

/* A matrix whose traffic shows no grid (all to all), with the grid
 * scitrace matrix writes from MPI_Cart_create: that grid is a candidate
 * and marked as the application's. */
Test(answer, grid_from_mpi_cart_create)
{
    char text[2048];
    size_t at = (size_t)snprintf(text, sizeof text, "# scitorus-traffic 1\n# ranks: 6\n"
                                 "# grid: 2x3 (MPI_Cart_create)\n");
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            if (a != b)
                at += (size_t)snprintf(text + at, sizeof text - at, "%d\t%d\t64\t1\n", a, b);
    const char *m = put("cart.tsv", text);
    run_result r = run_cmd(SCIMODEL, 60, "--traffic", m, "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *row = row_of(r.out, "2x3");
    cr_assert_not_null(row, "%s", r.out);
    cr_assert(grid_is(row, "cart"), "%s", r.out);
    cr_assert(grid_is(row_of(r.out, "3x2"), "no"), "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 60, "--traffic", m, NULL);
    cr_assert_not_null(strstr(r.out, "(the application's grid, MPI_Cart_create)"), "%s", r.out);
    run_free(&r);
    /* a grid that is not the ranks' is refused at the file */
    const char *bad = put("bad.tsv", "# scitorus-traffic 1\n# ranks: 6\n# grid: 2x2\n0\t1\t8\t1\n");
    r = run_cmd(SCIMODEL, 60, "--traffic", bad, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "bad.tsv"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "grid"), "%s", r.err);
    run_free(&r);
}

/* A point's interval: the parameters' (2 o0_err for a request, o(m) twice)
 * and the fitted points' relative scatter, in quadrature. */
Test(answer, a_measurement_interval_adds_the_fits_scatter)
{
    const char *p = put("r.params", PARAMS("5") "fit_residual_rms = 0.02\n");
    run_result r = run_cmd(SCIMODEL, 30, "--params", p, "--shape", "4", "--hops", "1", "--format",
                           "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "latency_ns_lo\tlatency_ns_hi\tmeasured_ns_lo\tmeasured_ns_hi\n"),
                       "%s", r.out);
    const char *row = strstr(r.out, "request\t");
    cr_assert_not_null(row, "%s", r.out);
    double L = field(row, 4), hi = field(row, 6), mhi = field(row, 8);
    cr_assert_float_eq(hi - L, 1.959963984540054 * 10, 1e-3, "%s", r.out);
    cr_assert_float_eq(mhi - L, 1.959963984540054 * hypot(10, 0.02 * L), 1e-3, "%s", r.out);
    run_free(&r);
}
