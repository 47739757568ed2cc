/* Tests for calibrate --logp and the LogP file reader, on committed and
 * made-up files: the keys it writes and params reads back, the LoGPSim
 * export, the identity's report, the drain's identity and the headers a
 * file must carry (the measuring side: test_logp.c). */
#include <math.h>

#include "benchdata/logpdata.h"
#include "model/params.h"
#include "tests/runcmd.h"

TestSuite(logp_fit, .timeout = 120);

static char dir[] = "/tmp/scitorus-logpfit-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
static const char *file(const char *name) { return run_path(dir, name); }

/* calibrate --logp on a made-up LogP file, base.tsv holding text, its
 * params written to base.params. */
static run_result calibrate_logp_text(const char *base, const char *text)
{
    char in[64], params[64];
    snprintf(in, sizeof in, "%s.tsv", base);
    snprintf(params, sizeof params, "%s.params", base);
    run_write_text(file(in), text);
    return run_cmd(run_prog("calibrate", 0), 60, "--logp", file(in), "-o", file(params), NULL);
}

/* The file at path, read; a file the reader refuses fails the test with its line. */
static logp_data read_ok(const char *path)
{
    bench_read_error e;
    logp_data d;
    cr_assert_eq(logp_data_read(path, &d, &e), 0, "%s:%ld: %s", path, e.line, e.msg);
    return d;
}

/* ---- calibrate --logp --------------------------------------------------- */


Test(logp_fit, calibrate_writes_logp_keys_that_params_reads_back, .init = setup, .fini = teardown)
{
    const char *params = file("logp.params"), *lgs = file("logp.lgs");
    const char *in = run_root_path("data/sample/logp-mpi-send-recv.tsv");
    run_result r = run_cmd(run_prog("calibrate", 0), 60, "--logp", in, "--loggopsim", lgs, "-o",
                           params, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "identity RTT(m)/2 = os(m) + L + or(m)"), "%s", r.out);
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(params, &p, &e), 0, "%s:%ld: %s", params, e.line, e.msg);
    cr_assert(p.logp.present);
    logp_data d = read_ok(in);
    cr_assert_float_eq(p.logp.L_ns, fmax(d.L_ns, 0), 1e-6);
    for (int q = 0; q < MODEL_LOGP_COUNT; q++)
        cr_assert(p.logp.segments[q] >= 1 && p.logp.segments[q] <= MODEL_MAX_OSEG);
    /* the fitted g(m) follows the measured one at the 2^k sizes above 4 KiB
     * (the rendezvous regime: a line through them) within 20% */
    for (long i = 0; i < d.count; i++) {
        const logp_row *row = &d.rows[i];
        if (row->size_bytes < 8192 || (row->size_bytes & (row->size_bytes - 1)))
            continue;
        double fit = model_logp_ns(&p, MODEL_LOGP_G, (double)row->size_bytes);
        cr_assert_lt(fabs(fit - row->g_ns), 0.2 * row->g_ns, "g(%ld): fit %.0f, measured %.0f",
                     row->size_bytes, fit, row->g_ns);
    }
    logp_data_free(&d);
    FILE *fp = fopen(lgs, "r");
    char text[1024] = "";
    cr_assert_not_null(fp);
    size_t n = fread(text, 1, sizeof text - 1, fp);
    text[n] = '\0';
    fclose(fp);
    cr_assert_not_null(strstr(text, "\n-L "), "%s", text);
    cr_assert_not_null(strstr(text, " -o "), "%s", text);
    cr_assert_not_null(strstr(text, " -G "), "%s", text);
    run_free(&r);
}

/* --loggopsim-unit ps: the same fit's L, g(0) and G (g's slope on its
 * last segment, from the params file calibrate wrote beside it) times
 * 1000, rounded; in ns the shared-memory sample's G (0.06 ns/B) rounds to
 * 0, in ps it does not. */
Test(logp_fit, loggopsim_export_in_ps_keeps_the_per_byte_terms, .init = setup, .fini = teardown)
{
    const char *in = run_root_path("data/sample/logp-shm.tsv");
    static const char *const unit[2] = {"ns", "ps"};
    double L[2], o[2], g[2], G[2], O[2];
    model_params p;
    for (int k = 0; k < 2; k++) {
        char lgs[32], params[32];
        snprintf(lgs, sizeof lgs, "export-%s.lgs", unit[k]);
        snprintf(params, sizeof params, "export-%s.params", unit[k]);
        run_result r = run_cmd(run_prog("calibrate", 0), 60, "--logp", in, "--loggopsim",
                               file(lgs), "--loggopsim-unit", unit[k], "-o", file(params), NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        char *text = run_read_text(file(lgs));
        const char *line = strstr(text, "\n-L ");
        cr_assert_not_null(line, "%s", text);
        cr_assert_eq(sscanf(line, "\n-L %lf -o %lf -g %lf -G %lf -O %lf", &L[k], &o[k], &g[k],
                            &G[k], &O[k]), 5, "%s", line);
        free(text);
        model_params_error e;
        cr_assert_eq(model_params_read(file(params), &p, &e), 0, "%s", e.msg);
    }
    const model_logp *l = &p.logp;
    double slope = l->seg[MODEL_LOGP_G][l->segments[MODEL_LOGP_G] - 1].ns_per_byte;
    cr_assert_eq(L[1], round(1000 * l->L_ns), "L %.0f ps, params %.6f ns", L[1], l->L_ns);
    cr_assert_eq(g[1], round(1000 * model_logp_ns(&p, MODEL_LOGP_G, 0)));
    cr_assert_eq(G[1], round(1000 * slope), "G %.0f ps/B, params %.6f ns/B", G[1], slope);
    cr_assert_eq(G[0], round(slope));
    cr_assert(slope > 0 && slope < 0.5 && G[0] == 0 && G[1] > 0,
              "the sample's G (%.5f ns/B) is 0 in ns and kept in ps (%.0f)", slope, G[1]);
    /* the ns export is the ps one to the nearest ns */
    cr_assert(fabs(L[0] - L[1] / 1000) <= 0.5 && fabs(o[0] - o[1] / 1000) <= 0.5 &&
                  fabs(g[0] - g[1] / 1000) <= 0.5 && fabs(O[0] - O[1] / 1000) <= 0.5,
              "ns: -L %.0f -o %.0f -g %.0f -O %.0f; ps: -L %.0f -o %.0f -g %.0f -O %.0f", L[0],
              o[0], g[0], O[0], L[1], o[1], g[1], O[1]);
}

Test(logp_fit, calibrate_rejects_the_wrong_kind_of_file)
{
    const char *logp = run_root_path("data/sample/logp-shm.tsv");
    run_result r = run_cmd(run_prog("calibrate", 0), 60, "--data", logp, "-o", "/dev/null",
                           NULL);
    run_assert_error(&r, 1, "fit it with calibrate --logp", "a LogP file to --data");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 60, "--logp", run_root_path("tests/fixtures/plots/ring2.tsv"),
                "-o", "/dev/null", NULL);
    run_assert_error(&r, 1, "not a LogP file", "a ping-pong file to --logp");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 60, "--loggopsim", "x.lgs", NULL);
    run_assert_error(&r, 2, "--loggopsim 'x.lgs'", "--loggopsim without --logp");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 60, "--logp", logp, "--loggopsim", "x.lgs",
                "--loggopsim-unit", "us", NULL);
    run_assert_error(&r, 2, "--loggopsim-unit 'us'", "a unit LogGOPSim export has no");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 60, "--logp", logp, "--loggopsim-unit", "ps", NULL);
    run_assert_error(&r, 2, "--loggopsim-unit 'ps'", "--loggopsim-unit without --loggopsim");
    run_free(&r);
}

Test(logp_fit, params_reader_wants_every_logp_key_or_none, .init = setup, .fini = teardown)
{
    const char *path = file("half.params");
    FILE *fp = fopen(path, "w");
    cr_assert_not_null(fp);
    fputs("o0_ns = 1\no1_ns_per_byte = 0\nmref_bytes = 64\nlp_ns = 7\nlf_ns = 60\nls_ns = 670\n"
          "L_ns = 80\nos_segments = 1\nos_seg1_from_bytes = 0\nos_seg1_ns = 10\n"
          "os_seg1_ns_per_byte = 0\n", fp);
    fclose(fp);
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(path, &p, &e), -2);
    cr_assert_not_null(strstr(e.msg, "or_segments"), "%s", e.msg);
}

/* A send call that lasts the one-way time (os + L >= 90% of RTT/2, as a
 * blocking MPI_Send's by rendezvous) holds L and the receiver's copy: the
 * identity check names those sizes and no others.  Rows made up: L = 10;
 * at 4096 B os + L = 1010 of a 1050 ns half round trip, at 1024 B 410 of
 * 500 ns, at 1 B 210 of 300 ns.  (os, or and g are lines that stay
 * positive down to 1 B: with os 40, 100, 1000 ns the fitted os(m) was
 * below 0 at 1 B, a params file the reader refuses, which calibrate now
 * declines to write.) */
Test(logp_fit, identity_names_sizes_whose_send_spans_the_delivery, .init = setup, .fini = teardown)
{
    run_result r = calibrate_logp_text(
        "spans", "# scitorus-bench 1\n# backend: mpi\n# variant: send/recv\n# pattern: logp\n"
                 "# L_ns: 10\n# columns: " LOGP_COLUMNS "\n"
                 "1\t200\t1\t120\t1\t100\t1\t600\t100\tok\n"
                 "1024\t400\t1\t350\t1\t300\t1\t1000\t100\tok\n"
                 "4096\t1000\t1\t1100\t1\t900\t1\t2100\t100\tok\n");
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *row4096 = strstr(r.out, "    4096 ");
    const char *row1024 = strstr(r.out, "    1024 ");
    cr_assert(row4096 && row1024, "%s", r.out);
    cr_assert(strncmp(strchr(row4096, '%'), "%  os spans the delivery", 24) == 0, "%s", r.out);
    cr_assert(strncmp(strchr(row1024, '%'), "%\n", 2) == 0, "%s", r.out);
    cr_assert_not_null(strstr(r.out, "(1 sizes: the send call lasted the one-way time"), "%s",
                       r.out);
    run_free(&r);
}

/* The identity with the drain, RTT/2 = os + L + or + D(m), D(m) = drain(m)
 * - drain(1 B), drain = os_fence - os, on rows made up to satisfy it
 * exactly (os, or and g lines that stay positive, so that calibrate fits
 * and writes them): L 20 ns; 1 B: os 10, or 100, drain 80, RTT/2 130;
 * 1025 B: os 42, or 228, drain 140 (D 60), RTT/2 350 (without D 17.1%
 * short); 4097 B: os 138, or 612, drain 180 (D 100), RTT/2 870 (11.5%
 * short).  The fenced round trip at 1025 B is 1% longer. */
Test(logp_fit, drain_identity_is_exact_on_rows_that_satisfy_it, .init = setup, .fini = teardown)
{
    run_result r = calibrate_logp_text(
        "drain", "# scitorus-bench 1\n# backend: shm\n# variant: store/poll\n# pattern: logp\n"
                 "# os_fence: made up\n# L_ns: 20\n# columns: " LOGP_COLUMNS " "
                 LOGP_FENCE_COLUMNS "\n"
                 "1\t10\t1\t100\t1\t300\t1\t260\t100\tok\t90\t1\t260\n"
                 "1025\t42\t1\t228\t1\t556\t1\t700\t100\tok\t182\t1\t707\n"
                 "4097\t138\t1\t612\t1\t1324\t1\t1740\t100\tok\t318\t1\t1740\n");
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *table = strstr(r.out, "D(m) = drain(m) - drain(1 B)");
    cr_assert_not_null(table, "%s", r.out);
    const char *row1024 = strstr(table, "    1025 "), *row4096 = strstr(table, "    4097 ");
    cr_assert(row1024 && row4096, "%s", r.out);
    double half, os, drain, D, sum, diff, rttf;
    cr_assert_eq(sscanf(row1024, "%*s %lf %lf %lf %lf %lf %lf%% %lf%%", &half, &os, &drain, &D,
                        &sum, &diff, &rttf), 7, "%s", row1024);
    cr_assert(half == 350 && drain == 140 && D == 60 && sum == 350 && diff == 0, "%s", row1024);
    cr_assert_float_eq(rttf, 1.0, 1e-9, "%s", row1024);
    cr_assert_eq(sscanf(row4096, "%*s %lf %lf %lf %lf %lf %lf%%", &half, &os, &drain, &D, &sum,
                        &diff), 6, "%s", row4096);
    cr_assert(half == 870 && D == 100 && sum == 870 && diff == 0, "%s", row4096);
    cr_assert_not_null(strstr(table, "within 10%: 3 of 3 sizes with D, 1 without"), "%s", r.out);
    run_free(&r);
}

/* The three fenced columns come with the os_fence header and only with it. */
Test(logp_fit, fenced_columns_need_their_header, .init = setup, .fini = teardown)
{
#define HEAD "# scitorus-bench 1\n# backend: shm\n# pattern: logp\n"
    static const char *const bodies[2] = {
        HEAD "# L_ns: 20\n# columns: " LOGP_COLUMNS "\n"
             "1\t10\t1\t100\t1\t300\t1\t260\t100\tok\t90\t1\t260\n",
        HEAD "# os_fence: made up\n# L_ns: 20\n# columns: " LOGP_COLUMNS " " LOGP_FENCE_COLUMNS
             "\n1\t10\t1\t100\t1\t300\t1\t260\t100\tok\n"};
#undef HEAD
    static const char *const want[2] = {"expected 10 tab-separated fields",
                                        "expected 13 tab-separated fields"};
    for (int k = 0; k < 2; k++) {
        run_result r = calibrate_logp_text(k ? "short" : "long", bodies[k]);
        cr_assert_eq(r.status, 1, "%s", r.err);
        cr_assert_not_null(strstr(r.err, want[k]), "%s", r.err);
        cr_assert_not_null(strstr(r.err, k ? ".tsv:7: " : ".tsv:6: "), "the row's line: %s",
                           r.err);
        run_free(&r);
    }
}

/* The one-way streams' header, ow_ns "SIZE:NS:CI_NS ...", is read as
 * numbers: a garbled or negative entry is refused at its line (it was
 * taken silently), a well-formed one passes. */
Test(logp_fit, ow_header_is_checked, .init = setup, .fini = teardown)
{
#define HEAD "# scitorus-bench 1\n# backend: shm\n# pattern: logp\n# L_ns: 20\n# ow_reps: 128\n"
#define ROWS "# columns: " LOGP_COLUMNS "\n1\t10\t1\t100\t1\t300\t1\t260\t100\tok\n"
    static const struct { const char *ow; int ok; } cases[] = {
        {"1024:300.5:2.1 4096:900:3", 1}, {"garbage", 0}, {"1024:-300:2", 0},
        {"1024:300", 0}, {"-8:300:2", 0}, {"1024:300:2 x:1:1", 0}, {"1024:nan:1", 0},
    };
#undef HEAD
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "# scitorus-bench 1\n# backend: shm\n# pattern: logp\n"
                                    "# L_ns: 20\n# ow_reps: 128\n# ow_ns: %s\n" ROWS, cases[i].ow);
        logp_data d;
        bench_read_error e;
        const char *path = file("ow.tsv");
        FILE *fp = fopen(path, "w");
        cr_assert_not_null(fp);
        fputs(text, fp);
        fclose(fp);
        int rc = logp_data_read(path, &d, &e);
        if (cases[i].ok) {
            cr_assert_eq(rc, 0, "'%s': %s", cases[i].ow, e.msg);
            logp_data_free(&d);
        } else {
            cr_assert_eq(rc, -2, "'%s' accepted", cases[i].ow);
            cr_assert_eq(e.line, 6, "'%s': line %ld", cases[i].ow, e.line);
            cr_assert_not_null(strstr(e.msg, "ow_ns"), "%s", e.msg);
        }
    }
#undef ROWS
}
