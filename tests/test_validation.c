/* Tests for input validation and bounded-time defects: params values outside their physical ranges and NUL bytes
 * refused at file:line; bench rows checked against their header and their
 * topology; the o(m) breakpoint search against an exhaustive search; merging
 * repeated runs of a large file. */
#include <criterion/criterion.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchdata/benchdata.h"
#include "fit/fit.h"
#include "model/params.h"
#include "tests/runcmd.h"
#include "topo/topo.h"

static char tmpdir[] = "/tmp/scitorus-valid-XXXXXX";

static void setup(void) { run_tmpdir_make(tmpdir); }
static void teardown(void) { run_tmpdir_remove(tmpdir); }

TestSuite(validation, .init = setup, .fini = teardown);

/* Writes len bytes of data (NUL bytes included) to tmpdir/name. */
static const char *put(const char *name, const char *data, size_t len)
{
    const char *p = run_path(tmpdir, name);
    run_write_data(p, data, len);
    return p;
}

#define GOOD "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\nlp_ns = 7\nlf_ns = 60\nls_ns = 670\n"

/* ---- a NUL byte in a params line ---------------------------------- */

Test(validation, params_nul_byte_refused_at_its_line)
{
    static const char after_value[] = "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\n"
                                      "lp_ns = 7\0junk\nlf_ns = 60\nls_ns = 670\n";
    static const char line_start[] = "\0o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\n"
                                      "lp_ns = 7\nlf_ns = 60\nls_ns = 670\n";
    static const struct { const char *data; size_t len; long line; } c[] = {
        {after_value, sizeof after_value - 1, 4},
        {line_start, sizeof line_start - 1, 1},   /* was "missing required key 'o0_ns'" */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        model_params p;
        model_params_error e;
        const char *f = put("nul.params", c[i].data, c[i].len);
        cr_assert_eq(model_params_read(f, &p, &e), -2, "case %zu accepted", i);
        cr_assert_eq(e.line, c[i].line, "case %zu: line %ld: %s", i, e.line, e.msg);
        cr_assert_not_null(strstr(e.msg, "NUL byte"), "case %zu: %s", i, e.msg);
    }
}

/* ---- values outside physically meaningful bounds ----------------- */

Test(validation, params_out_of_range_refused_at_file_line)
{
    static const struct { const char *line, *key; } c[] = {
        {"o0_ns = 1e308\n", "o0_ns"},
        {"lp_ns = 1e300\n", "lp_ns"},
        {"mref_bytes = 1e308\n", "mref_bytes"},
        {"ls_ns = 1.5e9\n", "ls_ns"},
        {"o1_ns_per_byte = 2e6\n", "o1_ns_per_byte"},
        {"fit_r2 = 1.5\n", "fit_r2"},
        {"o_segments = 1\no_seg1_from_bytes = 2e12\no_seg1_ns = 1\no_seg1_ns_per_byte = 1\n",
         "o_seg1_from_bytes"},
        {"o_segments = 1\no_seg1_from_bytes = 1\no_seg1_ns = 1e10\no_seg1_ns_per_byte = 1\n",
         "o_seg1_ns"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char text[1024];
        int n = snprintf(text, sizeof text, "# comment\n%s", GOOD);
        /* replace the key's line if it is a required one, else append */
        char *at = strstr(text, c[i].key);
        if (at && at[strlen(c[i].key)] == ' ') {
            char *end = strchr(at, '\n');
            memmove(at, end + 1, strlen(end + 1) + 1);
            n = (int)strlen(text);
        }
        snprintf(text + n, sizeof text - (size_t)n, "%s", c[i].line);
        long want = 1;   /* the line of the key in the file */
        for (const char *p = text; p < strstr(text, c[i].key); p++)
            want += *p == '\n';
        model_params p;
        model_params_error e;
        const char *f = put("range.params", text, strlen(text));
        cr_assert_eq(model_params_read(f, &p, &e), -2, "%s accepted", c[i].line);
        cr_assert_eq(e.line, want, "%s: line %ld: %s", c[i].key, e.line, e.msg);
        cr_assert_not_null(strstr(e.msg, "out of range"), "%s: %s", c[i].key, e.msg);
        cr_assert_not_null(strstr(e.msg, c[i].key), "%s: %s", c[i].key, e.msg);
    }
    /* and through scimodel: exit 1, file:line */
    static const char huge[] = "o0_ns = 1e308\no1_ns_per_byte = 11.6\nmref_bytes = 64\n"
                               "lp_ns = 7\nlf_ns = 60\nls_ns = 670\n";
    const char *f = put("huge.params", huge, sizeof huge - 1);
    char where[300];
    snprintf(where, sizeof where, "%s:1:", f);
    run_result r = run_cmd(run_prog("scimodel", 0), 30, "--params", f, "--crossover", NULL);
    run_assert_error(&r, 1, where, "scimodel --params huge.params");
    run_free(&r);
}

/* Every bound reached, in two files: the largest slope with the largest
 * reference size would put o(0 B) at -1e18 ns, which the reader refuses
 * (o(m) must not be negative at any size). */
Test(validation, params_at_the_bounds_accepted)
{
    static const char text[] = "o0_ns = 1e9\no1_ns_per_byte = 1e6\nmref_bytes = 0\n"
                               "lp_ns = 0\nlf_ns = 1e9\nls_ns = 1e9\nfit_r2 = -48.6\n"
                               "o0_ns_err = 1e20\n";
    static const char text2[] = "o0_ns = 1e9\no1_ns_per_byte = 0\nmref_bytes = 1099511627776\n"
                                "lp_ns = 0\nlf_ns = 0\nls_ns = 0\n";
    model_params p;
    model_params_error e;
    const char *f = put("edge.params", text, sizeof text - 1);
    cr_assert_eq(model_params_read(f, &p, &e), 0, "line %ld: %s", e.line, e.msg);
    cr_assert_eq(p.o0_ns, 1e9);
    cr_assert_eq(p.o1_ns_per_byte, 1e6);
    cr_assert_eq(p.fit_r2, -48.6);
    f = put("edge2.params", text2, sizeof text2 - 1);
    cr_assert_eq(model_params_read(f, &p, &e), 0, "line %ld: %s", e.line, e.msg);
    cr_assert_eq(p.mref_bytes, 1099511627776.0);
}

/* ---- bench rows against their header and each other --------------- */

#define MAGIC "# scitorus-bench 1\n"
#define COLS "# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag\n"
#define STATS "\t16\t8\t100.0\t101.0\t101.0\t1.0\t0.8\t103.0\tok\n"

Test(validation, bench_rows_checked_against_header_and_topology)
{
    static const struct { const char *text; long line; const char *word; } c[] = {
        {MAGIC "# columns: a b c\n", 2, "columns"},
        {MAGIC "# topology: blob 3\n" COLS, 2, "topology"},
        {MAGIC "# topology: ring 3x3\n" COLS, 2, "topology"},
        {MAGIC "# topology: torus 9\n" COLS, 2, "topology"},
        /* hops=1 with fwd=7, sw=9 */
        {MAGIC "# topology: ring 2\n" COLS "pp\t0\t1\t1\t7\t9\t1\t0\t0\t8" STATS, 4, "do not match"},
        {MAGIC COLS "pp\t0\t1\t1\t7\t9\t1\t0\t0\t8" STATS, 3, "contradict"},
        /* a 3x3 torus row with dst 99 */
        {MAGIC "# topology: torus 3x3\n" COLS "pp\t0\t99\t2\t0\t1\t4\t2\t1\t8" STATS, 4,
         "dst 99 is not a node"},
        /* the right counts for another destination: 0 -> 4 is (1,1), not (0,1) */
        {MAGIC "# topology: torus 3x3\n" COLS "pp\t0\t1\t1\t0\t0\t2\t1\t0\t8" STATS
               "pp\t0\t4\t1\t0\t0\t2\t1\t0\t8" STATS, 5, "do not match"},
        {MAGIC COLS "pp\t1\t1\t1\t0\t0\t1\t0\t0\t8" STATS, 3, "same node"},
        /* mean > max, median > max, min_ns = 0 */
        {MAGIC COLS "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100.0\t101.0\t109.0\t1.0\t0.8\t103.0\tok\n",
         3, "mean_ns"},
        {MAGIC COLS "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100.0\t104.0\t101.0\t1.0\t0.8\t103.0\tok\n",
         3, "median_ns"},
        {MAGIC COLS "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t0.0\t0.0\t0.0\t0.0\t0.0\t0.0\tok\n", 3,
         "min_ns must be > 0"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        bench_data d;
        bench_read_error e;
        const char *f = put("bad.tsv", c[i].text, strlen(c[i].text));
        cr_assert_eq(bench_data_read(f, &d, &e), -2, "case %zu accepted", i);
        cr_assert_eq(e.line, c[i].line, "case %zu: line %ld: %s", i, e.line, e.msg);
        cr_assert_not_null(strstr(e.msg, c[i].word), "case %zu: %s", i, e.msg);
    }
}

/* Every route of a 3x3 torus and of a 5-ring, with the counts topo/ gives
 * (the oracle), is accepted; and so is the committed fixture. */
Test(validation, bench_rows_with_true_counts_accepted)
{
    static const char *const shapes[] = {"torus 3x3", "ring 5", "torus 2x3x2"};
    for (size_t k = 0; k < 3; k++) {
        topo_shape sh;
        cr_assert_eq(topo_shape_parse(strchr(shapes[k], ' ') + 1, &sh, NULL), 0);
        size_t cap = 1 << 14, len = 0;
        char *text = malloc(cap);
        len += (size_t)snprintf(text, cap, MAGIC "# topology: %s\n" COLS, shapes[k]);
        topo_iter it;
        topo_iter_init(&it, &sh, 0);
        while (topo_iter_next(&it)) {
            topo_counts q, r;
            topo_request_counts(&sh, it.hops, &q);
            topo_response_counts(&sh, it.hops, &r);
            len += (size_t)snprintf(text + len, cap - len, "pp\t0\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t8" STATS,
                                    it.dst_rank, q.links, q.forwards, q.switches, r.links,
                                    r.forwards, r.switches);
        }
        bench_data d;
        bench_read_error e;
        const char *f = put("good.tsv", text, len);
        cr_assert_eq(bench_data_read(f, &d, &e), 0, "%s: line %ld: %s", shapes[k], e.line, e.msg);
        cr_assert_eq(d.count, sh.nodes - 1);
        bench_data_free(&d);
        free(text);
    }
    const char *fixture = run_fixture("plots/ring2.tsv");
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(fixture, &d, &e), 0, "line %ld: %s", e.line, e.msg);
    bench_data_free(&d);
}

/* calibrate refuses such a file before fitting: exit 1, file:line, no
 * params file written. */
Test(validation, calibrate_refuses_contradictory_rows)
{
    static const char text[] = MAGIC "# topology: ring 2\n" COLS
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8" STATS
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t16\t8\t100.0\t101.0\t101.0\t1.0\t0.8\t103.0\tok\n"
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t512\t16\t8\t200.0\t201.0\t250.0\t1.0\t0.8\t203.0\tok\n";
    const char *f = put("mean.tsv", text, sizeof text - 1);
    const char *out = run_path(tmpdir, "out.params");
    char where[300];
    snprintf(where, sizeof where, "%s:6:", f);
    run_result r = run_cmd(run_prog("calibrate", 0), 30, "--data", f, "-o", out, NULL);
    run_assert_error(&r, 1, where, "calibrate --data mean.tsv");
    run_free(&r);
    cr_assert_neq(access(out, F_OK), 0, "a params file was written");
}

/* A fit can give a value the params reader refuses (here o(m)'s slope: 1 B
 * at 101 ns, 2 B at 3 ms, 1.5e6 ns/B against the reader's 1e6): calibrate
 * checks its values against the reader's range table before writing and
 * stops, exit 1, naming the key and the bound, with no file written (an
 * existing one untouched) -- not a params file scimodel cannot read. */
Test(validation, calibrate_writes_no_params_file_the_reader_refuses)
{
    static const char text[] = MAGIC "# topology: ring 2\n" COLS
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t1\t16\t8\t100.0\t101.0\t101.0\t1.0\t0.8\t103.0\tok\n"
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t2\t16\t8\t3000000.0\t3000001.0\t3000001.0\t1.0\t0.8"
        "\t3000003.0\tok\n";
    const char *f = put("steep.tsv", text, sizeof text - 1);
    const char *out = run_path(tmpdir, "steep.params"), *old = run_path(tmpdir, "old.params");
    run_result r = run_cmd(run_prog("calibrate", 0), 30, "--data", f, "-o", out, NULL);
    run_assert_error(&r, 1, "o1_ns_per_byte = 1.49", "calibrate --data steep.tsv");
    cr_assert_not_null(strstr(r.err, "at most 1e+06"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "not written"), "%s", r.err);
    run_free(&r);
    cr_assert_neq(access(out, F_OK), 0, "a params file was written");
    /* nor what calibrate derives from the refused fit: the held-out table
     * and the LogGOPSim export */
    const char *table = run_path(tmpdir, "held-out.tsv"), *lgs = run_path(tmpdir, "steep.lgs");
    r = run_cmd(run_prog("calibrate", 0), 30, "--data", f, "--validate", f, "--validation-out",
                table, "--logp", run_root_path("data/sample/logp-shm.tsv"), "--loggopsim", lgs,
                "-o", out, NULL);
    run_assert_error(&r, 1, "o1_ns_per_byte = 1.49", "calibrate --validate --logp steep.tsv");
    run_free(&r);
    cr_assert_neq(access(table, F_OK), 0, "a held-out table was written");
    cr_assert_neq(access(lgs, F_OK), 0, "a LogGOPSim export was written");
    cr_assert_neq(access(out, F_OK), 0, "a params file was written");
    /* an existing file at -o stays as it was */
    const char keep[] = "kept\n";
    FILE *fp = fopen(old, "w");
    cr_assert_not_null(fp);
    fputs(keep, fp);
    fclose(fp);
    r = run_cmd(run_prog("calibrate", 0), 30, "--data", f, "-o", old, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    run_free(&r);
    char buf[16] = "";
    fp = fopen(old, "r");
    cr_assert_not_null(fp);
    cr_assert_not_null(fgets(buf, sizeof buf, fp));
    fclose(fp);
    cr_assert_str_eq(buf, keep);
}

/* ---- the breakpoint search against an exhaustive one --------------- */

/* A 2-node ring's points (Hm = 1, Fm = Sm = 0) at S distinct sizes, o(m)
 * piecewise linear with knees at random sizes (sometimes falling at the
 * small sizes, as real stacks do), relative noise `noise`. */
static size_t ring2_points(gsl_rng *rng, size_t S, double noise, fit_point *pts)
{
    double m = 1, slope = gsl_rng_uniform(rng) < 0.3 ? -0.5 : 0.05, o = 60;
    for (size_t i = 0; i < S; i++) {
        if (i > 0 && gsl_rng_uniform(rng) < 0.2)   /* a knee: jump and new slope */
            o += 40 * gsl_rng_uniform(rng), slope = 0.2 * gsl_rng_uniform(rng);
        double step = 1 + floor(20 * gsl_rng_uniform(rng));
        o += slope * step;
        m += step;
        double y = 2 * o + 6.671281904;
        double sigma = noise * y * (0.5 + gsl_rng_uniform(rng));
        pts[i] = (fit_point){m, 1, 0, 0, y + gsl_ran_gaussian(rng, sigma), sigma};
    }
    return S;
}

/* Oracle for one segment: GSL's weighted line through pts[a..b) of (m, z),
 * z = y - lp (= 2 o(m)).  chi2, and the segment's coefficients and
 * standard errors (intercept at its first size, slope).  Under
 * FIT_SEG_CLAMP a falling line is replaced by the flat one (slope held at
 * 0): the weighted mean (gsl_stats_wmean), its chi2 and variance 1 / sum w;
 * flat says so. */
typedef struct oracle_seg { double chi2, a, b, va, vb; size_t n; int flat; } oracle_seg;

static double oracle_scale(double chi2, double dof)
{
    return dof > 0 && chi2 / dof > 1 ? chi2 / dof : 1;
}

/* The admissibility rules (fit.h): FIT_SEG_REJECT, neither coefficient
 * more than 2 standard errors below 0; FIT_SEG_CLAMP, the intercept (or the
 * flat line's mean) alone; the covariance scaled by the segment's own
 * chi2/dof (when over 1). */
static int oracle_ok(const oracle_seg *s, int mode)
{
    double scale = oracle_scale(s->chi2, (double)s->n - (s->flat ? 1 : 2));
    return s->a + 2 * sqrt(scale * s->va) >= 0 &&
           (mode == FIT_SEG_CLAMP || s->b + 2 * sqrt(scale * s->vb) >= 0);
}

static oracle_seg oracle_line(const fit_point *pts, size_t a, size_t b, double lp, int mode)
{
    size_t n = b - a;
    gsl_matrix *X = gsl_matrix_alloc(n, 2), *cov = gsl_matrix_alloc(2, 2);
    gsl_vector *y = gsl_vector_alloc(n), *w = gsl_vector_alloc(n), *c = gsl_vector_alloc(2);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, 2);
    for (size_t i = 0; i < n; i++) {
        gsl_matrix_set(X, i, 0, 1);
        gsl_matrix_set(X, i, 1, pts[a + i].size_bytes - pts[a].size_bytes);
        gsl_vector_set(y, i, pts[a + i].y_ns - lp);
        gsl_vector_set(w, i, 1 / (pts[a + i].sigma_ns * pts[a + i].sigma_ns));
    }
    oracle_seg s;
    cr_assert_eq(gsl_multifit_wlinear(X, w, y, c, cov, &s.chi2, ws), 0);
    s.n = n;
    s.a = gsl_vector_get(c, 0);
    s.b = gsl_vector_get(c, 1);
    s.va = gsl_matrix_get(cov, 0, 0);
    s.vb = gsl_matrix_get(cov, 1, 1);
    s.flat = mode == FIT_SEG_CLAMP && s.b < 0;
    if (s.flat) {
        double sw = 0;
        for (size_t i = 0; i < n; i++)
            sw += gsl_vector_get(w, i);
        s.a = gsl_stats_wmean(w->data, 1, y->data, 1, n);
        s.b = 0;
        s.va = 1 / sw;
        s.chi2 = 0;
        for (size_t i = 0; i < n; i++)
            s.chi2 += gsl_vector_get(w, i) * pow(gsl_vector_get(y, i) - s.a, 2);
    }
    gsl_multifit_linear_free(ws);
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(y);
    gsl_vector_free(w);
    gsl_vector_free(c);
    return s;
}

typedef struct oracle_best {
    double chi2;
    size_t first[MODEL_MAX_OSEG];
    int flat;                       /* segments held flat (FIT_SEG_CLAMP) */
} oracle_best;

/* Every segmentation of pts[0..S) (sorted, one point per size) into K
 * segments of >= 3 sizes, each segment admissible under mode (above): the
 * smallest chi2 per K. */
static void oracle_search(const fit_point *pts, size_t S, double lp, int mode, int K, int k,
                          size_t start, double chi2, int flat, size_t *first, oracle_best *best)
{
    first[k] = start;
    if (k == K - 1) {
        if (S - start < FIT_MIN_SIZES_PER_SEGMENT)
            return;
        oracle_seg s = oracle_line(pts, start, S, lp, mode);
        if (!oracle_ok(&s, mode) || chi2 + s.chi2 >= best->chi2)
            return;
        best->chi2 = chi2 + s.chi2;
        best->flat = flat + s.flat;
        memcpy(best->first, first, sizeof best->first);
        return;
    }
    for (size_t end = start + FIT_MIN_SIZES_PER_SEGMENT; end + FIT_MIN_SIZES_PER_SEGMENT <= S; end++) {
        oracle_seg s = oracle_line(pts, start, end, lp, mode);
        if (!oracle_ok(&s, mode))
            continue;
        oracle_search(pts, S, lp, mode, K, k + 1, end, chi2 + s.chi2, flat + s.flat, first, best);
    }
}

Test(validation, breakpoints_match_an_exhaustive_search, .timeout = 300)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 14);
    int chosen_multi = 0, chosen_flat = 0;
    for (int trial = 0; trial < 40; trial++) {
        fit_point pts[16];
        size_t S = ring2_points(rng, 9 + (size_t)trial % 8, trial % 3 ? 0.003 : 0.02, pts);
        double lp = fit_lp_from_cable(FIT_DEFAULT_CABLE_M);
        /* the public search, K = 1..4, on o(m) = (y - lp) / 2 */
        fit_seg_point q[16];
        fit_segmentation seg[MODEL_MAX_OSEG];
        for (size_t i = 0; i < S; i++)
            q[i] = (fit_seg_point){pts[i].size_bytes, (pts[i].y_ns - lp) / 2,
                                   4 / (pts[i].sigma_ns * pts[i].sigma_ns)};
        double bic_best = INFINITY;
        int k_best = 0;
        oracle_best ob[MODEL_MAX_OSEG + 1];
        /* both rules; the last, FIT_SEG_CLAMP, is fit_run's for o(m) alone */
        for (int mode = FIT_SEG_REJECT; mode <= FIT_SEG_CLAMP; mode++) {
            cr_assert_eq(fit_segments(q, S, MODEL_MAX_OSEG, mode, seg), 0);
            bic_best = INFINITY, k_best = 0;
            for (int K = 1; K <= MODEL_MAX_OSEG; K++) {
                size_t first[MODEL_MAX_OSEG] = {0};
                ob[K].chi2 = INFINITY;
                ob[K].flat = 0;
                if (K == 1) {   /* fit_segments' single line is never bounded */
                    oracle_seg one = oracle_line(pts, 0, S, lp, FIT_SEG_FREE);
                    ob[K].chi2 = one.chi2, ob[K].first[0] = 0;
                } else {
                    oracle_search(pts, S, lp, mode, K, 0, 0, 0, 0, first, &ob[K]);
                }
                cr_assert_eq(isinf(seg[K - 1].chi2), isinf(ob[K].chi2), "trial %d K %d mode %d",
                             trial, K, mode);
                if (isinf(ob[K].chi2))
                    continue;
                /* chi2 of o(m) with weights 4/sigma^2 equals that of 2 o(m) */
                cr_assert_float_eq(seg[K - 1].chi2, ob[K].chi2, 1e-6 * (1 + ob[K].chi2),
                                   "trial %d K %d mode %d: %g vs %g", trial, K, mode,
                                   seg[K - 1].chi2, ob[K].chi2);
                for (int i = 0; i < K; i++)
                    cr_assert_eq(seg[K - 1].from[i], pts[ob[K].first[i]].size_bytes,
                                 "trial %d K %d mode %d segment %d", trial, K, mode, i);
                if (K == 1 && mode == FIT_SEG_CLAMP) {   /* fit_run bounds it, as the others */
                    oracle_seg one = oracle_line(pts, 0, S, lp, mode);
                    ob[K].chi2 = one.chi2, ob[K].flat = one.flat;
                }
                /* the model-selection rule: BIC, a breakpoint counting as a
                 * parameter, a slope held at 0 not */
                double b = (double)S * log(ob[K].chi2 / (double)S + 1e-300) +
                           (2 * K - ob[K].flat + K - 1) * log((double)S);
                if (b < bic_best)
                    bic_best = b, k_best = K;
            }
        }
        /* and fit_run picks the same number of segments and breakpoints */
        fit_options opt;
        fit_result res;
        fit_options_default(&opt);
        cr_assert_eq(fit_run(pts, S, &opt, &res), 0);
        cr_assert_eq(res.segments, k_best, "trial %d: %d segments, exhaustive %d", trial,
                     res.segments, k_best);
        for (int i = 1; k_best > 1 && i < k_best; i++)
            cr_assert_eq(res.params.oseg[i].from_bytes, pts[ob[k_best].first[i]].size_bytes,
                         "trial %d segment %d", trial, i);
        chosen_multi += k_best > 1;
        chosen_flat += k_best > 1 && ob[k_best].flat > 0;
        fit_result_free(&res);
    }
    cr_assert_gt(chosen_multi, 5, "the trials must exercise breakpoints (%d did)", chosen_multi);
    cr_assert_gt(chosen_flat, 0, "the trials must exercise a slope held at 0 (none did)");
    gsl_rng_free(rng);
}

/* 10^4 distinct sizes, one knee: the search completes (it was O(S^4): 400
 * sizes took minutes) and finds the knee. */
Test(validation, ten_thousand_sizes_fit, .timeout = 120)
{
    size_t S = 10000;
    fit_point *pts = malloc(S * sizeof *pts);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 10000);
    for (size_t i = 0; i < S; i++) {
        double m = (double)i + 1, o = m < 5000 ? 50 + 0.05 * m : 400 + 0.01 * m;
        double y = 2 * o + 6.671281904, sigma = 0.002 * y;
        pts[i] = (fit_point){m, 1, 0, 0, y + gsl_ran_gaussian(rng, sigma), sigma};
    }
    fit_options opt;
    fit_result res;
    fit_options_default(&opt);
    cr_assert_eq(fit_run(pts, S, &opt, &res), 0);
    cr_assert_geq(res.segments, 2);
    int found = 0;
    for (int i = 1; i < res.params.o_segments; i++)
        found |= fabs(res.params.oseg[i].from_bytes - 5000) <= 2;
    cr_assert(found, "no breakpoint at 5000 B");
    fit_result_free(&res);
    gsl_rng_free(rng);
    free(pts);
}

/* ---- merging repeated runs ------------------------------------------ */

/* A ring-2 file of `runs` runs of `sizes` sizes (8, 16, ...), in run order.
 * Size s's runs: run 0 at v + 5, run 1 at v - 3 from the most batches (the
 * heavy weight), the others at v (v = 100 + s / 8) with the smallest spread
 * (which weights of 1/sigma^2 would choose): the weighted median is v - 3,
 * the plain median v. */
static const char *repeated_file(const char *name, long runs, long sizes)
{
    size_t cap = (size_t)(runs * sizes) * 96 + 512, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, MAGIC "# topology: ring 2\n" COLS);
    for (long r = 0; r < runs; r++)
        for (long i = 1; i <= sizes; i++) {
            double v = 100 + i + (r == 0 ? 5 : r == 1 ? -3 : 0);
            len += (size_t)snprintf(text + len, cap - len,
                                    "pp\t0\t1\t1\t0\t0\t1\t0\t0\t%ld\t16\t%d\t%.1f\t%.1f\t%.1f"
                                    "\t%.2f\t%.2f\t%.1f\tok\n", 8 * i, r == 1 ? 20 : 8, v, v + 1,
                                    v + 1, r >= 2 ? 0.6 : 3.0, 1.0, v + 5);
        }
    const char *f = put(name, text, len);
    free(text);
    return f;
}

/* The merged value of every size is its weighted median, in file order. */
Test(validation, repeated_runs_merge_to_the_weighted_median)
{
    const char *f = repeated_file("rep.tsv", 3, 12);
    const char *out = run_path(tmpdir, "rep.params");
    /* the rows' minima carry the runs' values (calibrate's default is the
     * median column, v + 1 here) */
    run_result r = run_cmd(run_prog("calibrate", 0), 60, "--stat", "min", "--data", f, "-o", out,
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "calibrate: 12 points"), "%s", r.out);
    const char *p = strstr(r.out, "residuals");
    cr_assert_not_null(p);
    p = strchr(strchr(p, '\n') + 1, '\n') + 1;   /* past the column names */
    for (long i = 1; i <= 12; i++) {
        double size, hm, fm, sm, measured;
        cr_assert_eq(sscanf(p, "%lf %lf %lf %lf %lf", &size, &hm, &fm, &sm, &measured), 5, "%s", p);
        cr_assert_eq(size, 8 * i, "row %ld", i);
        cr_assert_float_eq(measured, 100 + i - 3, 1e-9, "size %g: %g", size, measured);
        p = strchr(p, '\n') + 1;
    }
    run_free(&r);
}

/* 2 x 10^5 rows: two runs of every destination of a 100x100 torus at 10
 * sizes, 10^5 configurations (the pairwise merge compared every row with
 * every configuration: 10^5 rows took 17 s).  The counts from topo/, the
 * values from the model with the current preset.  A hang guard, not a
 * timing: `make bench` has the figures. */
Test(validation, two_hundred_thousand_rows_merge, .timeout = 200)
{
    topo_shape sh;
    cr_assert_eq(topo_shape_parse("100x100", &sh, NULL), 0);
    model_params t;
    model_params_preset("current", &t);
    size_t cap = 2 * 10 * (size_t)sh.nodes * 110 + 512, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, MAGIC "# topology: torus 100x100\n" COLS);
    for (int run = 0; run < 2; run++) {
        topo_iter it;
        topo_iter_init(&it, &sh, 0);
        while (topo_iter_next(&it)) {
            topo_counts q, r;
            topo_request_counts(&sh, it.hops, &q);
            topo_response_counts(&sh, it.hops, &r);
            for (long m = 8; m <= 4096; m *= 2) {
                double y = 2 * model_overhead_ns(&t, (double)m) +
                           (q.links + r.links) / 2.0 * t.lp_ns +
                           (q.forwards + r.forwards) / 2.0 * t.lf_ns +
                           (q.switches + r.switches) / 2.0 * t.ls_ns + run;
                len += (size_t)snprintf(text + len, cap - len,
                                        "pp\t0\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t16\t8\t%.1f"
                                        "\t%.1f\t%.1f\t2.00\t1.00\t%.1f\tok\n", it.dst_rank, q.links,
                                        q.forwards, q.switches, r.links, r.forwards, r.switches, m,
                                        y, y + 1, y + 1, y + 9);
            }
        }
    }
    const char *f = put("big.tsv", text, len);
    free(text);
    const char *out = run_path(tmpdir, "big.params");
    run_result r = run_cmd(run_prog("calibrate", 0), 90, "--data", f, "-o", out, NULL);
    cr_assert_eq(r.status, 0, "exit %d: %.300s", r.status, r.err);
    cr_assert_not_null(strstr(r.out, "calibrate: 99990 points"), "%.200s", r.out);
    run_free(&r);
}
