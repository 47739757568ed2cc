/* Tests for the calibrate command: real measurements end to end (the
 * injected delays are the ground truth), the thesis's Fig. 13 hold-out
 * check, merging of repeated runs, and bad input. */
#include <math.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "benchdata/benchdata.h"
#include "model/params.h"
#include "tests/injected.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-cal-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(calibrate, .init = setup, .fini = teardown, .timeout = 300);

static const char *path(const char *name) { return run_path(dir, name); }

#define CALIBRATE run_prog("calibrate", 0)

static model_params read_params(const char *file)
{
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(file, &p, &e), 0, "%s:%ld: %s", file, e.line, e.msg);
    return p;
}

/* Measures a 2-node ring at 64 B and 1 KiB with the optimised scibench. */
static const char *ring2(const char *name)
{
    const char *out = path(name);
    run_result r = run_cmd(run_prog("scibench", 1), 120, "--ring", "2", "--sizes", "64,1024",
                           "--max-time", "0.3", "--rel-error", "0.005", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    return out;
}

/* Fits four configurations (2-, 4- and 8-node rings, a 3x3 torus, every
 * destination) measured interleaved in one scibench run. */
static model_params fit_set(const char *tag, const char *fwd, const char *sw)
{
    char name[4][64], inter[3][300], files[4][256];
    static const char *const shape[4] = {"2", "4", "8", "3x3"};
    for (int k = 0; k < 4; k++) {
        snprintf(name[k], sizeof name[k], "%s-%s.tsv", tag, shape[k]);
        snprintf(files[k], sizeof files[k], "%s", path(name[k]));
        if (k)
            snprintf(inter[k - 1], sizeof inter[k - 1], "%s=%s", shape[k], files[k]);
    }
    run_result b = run_cmd(run_prog("scibench", 1), 120, "--ring", "2", "-o", files[0],
                           "--interleave", inter[0], "--interleave", inter[1], "--interleave",
                           inter[2], "--all-dst", "--sizes", "64,1024", "--max-time", "0.3",
                           "--rel-error", "0.005", "--inject-forward", fwd, "--inject-switch", sw,
                           "-q", NULL);
    cr_assert_eq(b.status, 0, "%s", b.err);
    run_free(&b);
    snprintf(name[0], sizeof name[0], "%s.params", tag);
    const char *params = path(name[0]);
    run_result r = run_cmd(CALIBRATE, 60, "--data", files[0], files[1], files[2], files[3],
                           "--segments", "1", "-o", params, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    return read_params(params);
}

/* Rounds of the injected-delay test judged (see its comment), rounds tried at most, and
 * no round starts later than this into the test (it ends within the suite's timeout). */
#define INJECT_ROUNDS 3
#define INJECT_TRIES 6
#define INJECT_START_BY_S 180

static double median_of(double *v, size_t n)
{
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* What the injection added to the raw 64 B points of one network, set tag against plain:
 * a forward's share from the point with most forwards and no switch (ring 8), or, given
 * a forward's (tf), a switch's from the point with most switches (the torus). */
static double raw_growth(const char *plain, const char *inj, const char *shape, double tf)
{
    char f[2][64];
    bench_data d[2];
    snprintf(f[0], sizeof f[0], "%s-%s.tsv", plain, shape);
    snprintf(f[1], sizeof f[1], "%s-%s.tsv", inj, shape);
    for (int k = 0; k < 2; k++) {
        bench_read_error e;
        cr_assert_eq(bench_data_read(path(f[k]), &d[k], &e), 0, "%s:%ld: %s", f[k], e.line, e.msg);
    }
    double best = 0, growth = NAN;
    for (long i = 0; i < d[0].count; i++)
        for (long j = 0; j < d[1].count; j++) {
            const bench_point *a = &d[0].points[i], *b = &d[1].points[j];
            if (a->size_bytes != 64 || b->size_bytes != 64 || a->dst != b->dst)
                continue;
            double fw = (a->fwd + a->rfwd) / 2.0, sw = (a->sw + a->rsw) / 2.0;
            double grew = b->median_ns - a->median_ns, key = tf < 0 ? (sw > 0 ? 0 : fw) : sw;
            if (key > best)
                best = key, growth = tf < 0 ? grew / fw : (grew - fw * tf) / sw;
        }
    bench_data_free(&d[0]);
    bench_data_free(&d[1]);
    cr_assert(best > 0, "%s: no 64 B point with a %s", shape, tf < 0 ? "forward" : "switch");
    return growth;
}

/* Plain vs --inject-forward 3000 --inject-switch 5000 on rings and a 3x3 torus.  Three
 * rounds, each a plain and an injected set measured back to back.  What a busy-wait adds
 * to a relay is the wait and the relay's resumption after it, less the relay's own work the
 * wait hides, which vary with the machine's state; so the fit is judged against what its
 * round's raw 64 B points grew a forward (ring 8) and a switch (the torus, its forwards at
 * the fitted lf's growth), medians over rounds within a tenth of the injection.  The fitted
 * injected lf and ls are the wait or up to half more (tests/injected.h).  On this VM the
 * core-to-core latency jumps between regimes from minute to minute, so a growth compares
 * runs of one round only.  Once two rounds of each figure are within its bound, the median
 * of three is too, whatever the third: the test stops.  Only rounds that had the machine to
 * themselves are judged (tests/injected.h); when their tries run out first the test is
 * skipped with every round's figures. */
Test(calibrate, injected_delays_are_recovered)
{
    injected_rounds r = {0};
    double do0[INJECT_ROUNDS];
    int o0_in = 0;
    time_t t0 = time(NULL);
    while (r.judged < INJECT_ROUNDS && r.tried < INJECT_TRIES &&
           (r.tried == 0 || time(NULL) - t0 < INJECT_START_BY_S) &&
           (r.lf_in <= INJECT_ROUNDS / 2 || r.ls_in <= INJECT_ROUNDS / 2 || o0_in <= INJECT_ROUNDS / 2)) {
        char a[32], b[32];
        snprintf(a, sizeof a, "plain%d", r.tried);
        snprintf(b, sizeof b, "inj%d", r.tried);
        injected_mark m0 = injected_mark_now();
        model_params plain = fit_set(a, "0", "0");
        model_params inj = fit_set(b, "3000", "5000");
        double other = injected_other_share(m0, injected_mark_now());
        cr_assert_str_eq(inj.source[MODEL_P_LF], "measured");
        cr_assert_str_eq(inj.source[MODEL_P_LS], "measured");
        double dlf = inj.lf_ns - plain.lf_ns, dls = inj.ls_ns - plain.ls_ns;
        double gf = raw_growth(a, b, "8", -1), gs = raw_growth(a, b, "3x3", dlf);
        char line[300];
        snprintf(line, sizeof line, "lf %.1f -> %.1f, ls %.1f -> %.1f, o0 grew %.1f; the raw points"
                                    " grew %.1f a forward, %.1f a switch", plain.lf_ns, inj.lf_ns,
                 plain.ls_ns, inj.ls_ns, inj.o0_ns - plain.o0_ns, gf, gs);
        if (injected_add(&r, line, other, dlf, dls, gf, gs, inj.lf_ns, inj.ls_ns)) {
            do0[r.judged - 1] = inj.o0_ns - plain.o0_ns;
            o0_in += fabs(do0[r.judged - 1]) < 1000;
        }
    }
    fprintf(stderr, "injected: %s\n", r.seen);
    int settled = r.lf_in > INJECT_ROUNDS / 2 && r.ls_in > INJECT_ROUNDS / 2 && o0_in > INJECT_ROUNDS / 2;
    if (r.judged < INJECT_ROUNDS && !settled)
        cr_skip_test("%d of %d rounds had the machine to themselves (other work at most %.0f%%),"
                     " %d needed: %s", r.judged, r.tried, 100 * INJECTED_OTHER_MAX, INJECT_ROUNDS,
                     r.seen);
    double go0 = median_of(do0, r.judged);
    /* delays are injected at forwards and switches only: not where a
     * message starts (the source, the reply at the destination), which
     * once put 2 x 5000 / 2 ns into o0 */
    cr_assert(fabs(go0) < 1000, "o0 moved by %.1f ns with the injection", go0);
    assert_injection_recovered(r.dlf, r.dls, r.tf, r.ts, r.lf, r.ls, r.judged);
}

/* thesis Fig. 13: fitted on the 1-hop (2-node) and 4-hop (8-node) rings,
 * the 3-hop (6-node) ring is predicted within 5%.  Messages that fit the
 * slot's first cache line (<= 24 B): scibench's relays store and forward,
 * so from 32 B on every hop also pays the payload's extra cache lines,
 * while the model's lf -- SCI's cut-through forwarding -- is independent
 * of m, so the 3-hop prediction is not held to 5% at larger sizes.
 *
 * The three rings are measured in one scibench run with --interleave, all
 * their points batch by batch in turn: a shared machine's core-to-core
 * latency jumps between regimes, and rings measured one after the other
 * would be fitted across regimes.  Each
 * of FIG13_RUNS runs is fitted and validated on its own; the median run's
 * worst point must be within 5%.  The point statistic is the median of the
 * batches, not calibrate's default minimum: a batch here lasts a few us,
 * and the minimum of 1000 of them is an extreme value that scattered the
 * per-hop increments of six interleaved rings over 62-97 ns where their
 * medians stayed within 88-96 ns. */
#define FIG13_RUNS 3
static double fig13_run(int run)
{
    char r2[64], r6[64], r8[64], p[64], i6[96], i8[96];
    snprintf(r2, sizeof r2, "%s", path("fig13-r2.tsv"));
    snprintf(r6, sizeof r6, "%s", path("fig13-r6.tsv"));
    snprintf(r8, sizeof r8, "%s", path("fig13-r8.tsv"));
    snprintf(p, sizeof p, "%s", path("fig13.params"));
    snprintf(i8, sizeof i8, "8=%s", r8);
    snprintf(i6, sizeof i6, "6=%s", r6);
    run_result b = run_cmd(run_prog("scibench", 1), 120, "--ring", "2", "-o", r2, "--interleave",
                           i8, "--interleave", i6, "--sizes", "1..16", "--max-time", "0.2",
                           "--rel-error", "0.0002", "-q", NULL);
    cr_assert_eq(b.status, 0, "scibench --interleave: %s", b.err);
    run_free(&b);
    /* the bound is this test's own (the median of the runs' worst), so
     * calibrate's held-out verdict on a single run is loosened */
    run_result r = run_cmd(CALIBRATE, 60, "--stat", "median", "--data", r2, r8, "--validate", r6,
                           "--segments", "1", "--max-error", "100", "-o", p, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "lp and lf are collinear"), "%s", r.out);
    const char *max = strstr(r.out, "max error ");
    cr_assert_not_null(max, "%s", r.out);
    double worst = atof(max + strlen("max error "));
    /* in CI's log even when the median run passes (not cr_log_warn: a
     * logged warning makes Criterion exit 1) */
    fprintf(stderr, "Fig. 13 run %d: worst 3-hop error %.2f%%\n%s", run, worst,
            worst > 5 ? r.out : "");
    run_free(&r);
    return worst;
}

Test(calibrate, predicts_three_hop_ring_within_5_percent)
{
    double worst[FIG13_RUNS];
    for (int run = 0; run < FIG13_RUNS; run++)
        worst[run] = fig13_run(run);
    gsl_sort(worst, 1, FIG13_RUNS);
    double median = gsl_stats_median_from_sorted_data(worst, 1, FIG13_RUNS);
    cr_assert_leq(median, 5.0, "worst 3-hop errors of %d runs: %.2f%% .. %.2f%%, median %.2f%%",
                  FIG13_RUNS, worst[0], worst[FIG13_RUNS - 1], median);
}

/* The user's first command, scaled down: measure a 2-node ring and fit. */
Test(calibrate, measures_a_two_node_ring)
{
    const char *params = path("two.params"), *data = path("two.tsv");
    run_result r = run_cmd(CALIBRATE, 120, "--sizes", "8,64,512,4096", "--max-time",
                           "0.3", "--bench-out", data, "-o", params, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "lf, ls: not measured by a 2-node ring"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "scimodel --params"), "%s", r.out);
    model_params p = read_params(params);
    cr_assert_str_eq(p.source[MODEL_P_LF], "preset current");
    cr_assert_str_eq(p.source[MODEL_P_O0], "measured");
    cr_assert_gt(p.o0_ns, 0);
    run_free(&r);
}

Test(calibrate, repeated_runs_are_merged)
{
    const char *a = ring2("m.tsv");
    run_result once = run_cmd(CALIBRATE, 60, "--data", a, "-o", path("m1.params"), NULL);
    run_result twice = run_cmd(CALIBRATE, 60, "--data", a, a, "-o", path("m2.params"), NULL);
    cr_assert_eq(once.status, 0, "%s", once.err);
    cr_assert_eq(twice.status, 0, "%s", twice.err);
    cr_assert_not_null(strstr(once.out, "calibrate: 2 points"), "%s", once.out);
    cr_assert_not_null(strstr(twice.out, "calibrate: 2 points"), "%s", twice.out);
    run_free(&once);
    run_free(&twice);
}

static const char *write_file(const char *name, const char *text)
{
    const char *p = path(name);
    FILE *fp = fopen(p, "w");
    cr_assert_not_null(fp);
    fputs(text, fp);
    fclose(fp);
    return p;
}

#define HDR "# scitorus-bench 1\n# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag\n"
#define ROW(size) "pp\t0\t1\t1\t0\t0\t1\t0\t0\t" size "\t16\t8\t100.0\t101.0\t101.0\t1.0\t0.8\t103.0\tok\n"

Test(calibrate, bad_input_files)
{
    static const struct { const char *name, *text, *word; } cases[] = {
        {"empty.tsv", "", "empty file"},
        {"other.tsv", "o0_ns = 2085\n", "not a scitorus-bench file"},
        {"trunc.tsv", HDR ROW("8") "pp\t0\t1\t1\t0", "truncated"},
        {"same.tsv", HDR ROW("64") ROW("64") ROW("64"), "same message size"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *f = write_file(cases[i].name, cases[i].text);
        run_result r = run_cmd(CALIBRATE, 30, "--data", f, "-o", path("x.params"), NULL);
        run_assert_error(&r, 1, cases[i].word, cases[i].name);
        run_free(&r);
    }
    run_result r = run_cmd(CALIBRATE, 30, "--data", "/nonexistent.tsv", NULL);
    run_assert_error(&r, 1, "/nonexistent.tsv", "missing file");
    run_free(&r);
}

Test(calibrate, usage_errors)
{
    static const char *const cases[][3] = {
        {"--backend", "tcp", "--backend 'tcp'"},
        {"--stat", "mode", "--stat 'mode'"},
        {"--lp", "-1", "--lp '-1'"},
        {"--cable-length", "nan", "--cable-length 'nan'"},
        {"--fix", "lq=3", "'lq' is not lp, lf or ls"},
        {"--fix", "lf=abc", "--fix 'lf=abc'"},
        {"--segments", "17", "--segments '17'"},   /* MODEL_MAX_OSEG + 1 */
        {"--preset", "future", "--preset 'future'"},
        {"--rel-error", "0", "--rel-error '0'"},
        {"--np", "1", "--np '1'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_cmd(CALIBRATE, 30, cases[i][0], cases[i][1], NULL);
        run_assert_error(&r, 2, cases[i][2], cases[i][2]);
        run_free(&r);
    }
}

/* --backend mpi: calibrate starts mpibench through mpirun and fits it. */
Test(calibrate, mpi_backend_through_mpirun)
{
    const char *params = path("mpi.params"), *data = path("mpi.tsv");
    run_result r = run_cmd("/usr/bin/timeout", 200, "120", CALIBRATE, "--backend", "mpi",
                           "--mpirun", "mpirun --oversubscribe", "--bench",
                           run_prog("mpibench", 1), "--sizes", "8,64,512,4096", "--max-time",
                           "0.2", "--rel-error", "0.01", "-q", "--bench-out", data, "-o",
                           params, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    model_params p = read_params(params);
    cr_assert_str_eq(p.source[MODEL_P_O0], "measured");
    cr_assert_gt(p.o0_ns, 0);
    run_free(&r);
}

/* The params file records the regime of the rows fitted: the median and
 * quartiles of their floors (here 54, 52 and 56 ns by hand: five rows,
 * GSL's quantiles at ranks 1 and 3), and scimodel says it projects it. */
#define HDR_FLOORS "# scitorus-bench 1\n# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag floor_ns floor_q1_ns floor_q3_ns\n"
#define ROWF(size, fl) "pp\t0\t1\t1\t0\t0\t1\t0\t0\t" size "\t16\t8\t100.0\t101.0\t101.0\t1.0\t0.8\t103.0\tok\t" fl "\t" fl "\t" fl "\n"
Test(calibrate, params_record_the_regime_of_their_rows)
{
    const char *f = write_file("floors.tsv", HDR_FLOORS ROWF("8", "56") ROWF("16", "50")
                               ROWF("32", "200") ROWF("64", "52") ROWF("128", "54"));
    const char *params = path("floors.params");
    run_result r = run_cmd(CALIBRATE, 30, "--data", f, "-q", "-o", params, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    model_params p = read_params(params);
    cr_assert_float_eq(p.regime_floor_ns[0], 54, 1e-9);
    cr_assert_float_eq(p.regime_floor_ns[1], 52, 1e-9);
    cr_assert_float_eq(p.regime_floor_ns[2], 56, 1e-9);
    r = run_cmd(run_prog("scimodel", 0), 30, "--params", params, "--nodes", "64", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "regime: measured at a floor of 54.0 ns (quartiles"
                                     " 52.0..56.0 ns"), "%s", r.out);
    run_free(&r);
    /* rows without floors: no regime is claimed */
    f = write_file("nofloors.tsv", HDR ROW("8") ROW("16") ROW("32"));
    r = run_cmd(CALIBRATE, 30, "--data", f, "-q", "-o", params, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    p = read_params(params);
    cr_assert(isnan(p.regime_floor_ns[0]));
}

/* --launches with --data: three launches' files (each point's medians
 * 100, 130 and 110 ns above the same slope).  Each point's row gives the
 * median of its launches (110) and the min..max interval, whose coverage
 * with three launches is 1 - 2/8; the params keys hold the median and
 * interval of o(64 B) over the three fits calibrate makes of each file
 * alone (the oracle: three separate runs). */
static void launch_file(const char *name, double base)
{
    char text[4096];
    size_t len = (size_t)snprintf(text, sizeof text, "%s", HDR);
    for (int s = 8; s <= 256; s *= 2) {
        double v = base + 0.5 * s;
        len += (size_t)snprintf(text + len, sizeof text - len, "pp\t0\t1\t1\t0\t0\t1\t0\t0\t%d\t16"
                                "\t8\t%.1f\t%.1f\t%.1f\t1.0\t0.8\t%.1f\tok\n", s, v - 1, v, v, v + 2);
    }
    write_file(name, text);
}

Test(calibrate, launches_report_the_interval_across_launches)
{
    static const char *const names[3] = {"l1.tsv", "l2.tsv", "l3.tsv"};
    static const double base[3] = {100, 130, 110};
    double o64[3];
    for (int k = 0; k < 3; k++) {
        launch_file(names[k], base[k]);
        run_result r = run_cmd(CALIBRATE, 30, "--data", path(names[k]), "-q", "-o",
                               path("one.params"), NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        model_params p = read_params(path("one.params"));
        o64[k] = model_overhead_ns(&p, 64);
    }
    char f[3][PATH_MAX];
    for (int k = 0; k < 3; k++)
        snprintf(f[k], sizeof f[k], "%s", path(names[k]));
    run_result r = run_cmd(CALIBRATE, 30, "--launches", "3", "--data", f[0], f[1], f[2], "-q",
                           "-o", path("l.params"), NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "coverage 75.0%"), "%s", r.out);
    run_free(&r);
    model_params p = read_params(path("l.params"));
    double lo = fmin(o64[0], fmin(o64[1], o64[2])), hi = fmax(o64[0], fmax(o64[1], o64[2]));
    double med = o64[0] + o64[1] + o64[2] - lo - hi;
    cr_assert_eq(p.launches, 3);
    cr_assert_float_eq(p.launch_coverage, 0.75, 1e-9);
    cr_assert_float_eq(p.launch[MODEL_LAUNCH_O64][0], med, 1e-4 * med);
    cr_assert_float_eq(p.launch[MODEL_LAUNCH_O64][1], lo, 1e-4 * lo);
    cr_assert_float_eq(p.launch[MODEL_LAUNCH_O64][2], hi, 1e-4 * hi);
    cr_assert(isnan(p.launch[MODEL_LAUNCH_LF][0]), "lf was not measured: no launch keys");
    /* the error written covers the launches' spread: at least their standard deviation */
    double mean = (o64[0] + o64[1] + o64[2]) / 3, var = 0;
    for (int k = 0; k < 3; k++)
        var += (o64[k] - mean) * (o64[k] - mean) / 2;
    cr_assert_geq(p.err[MODEL_P_O0], sqrt(var) * (1 - 1e-6), "o0_ns_err %g, launches' sd %g",
                  p.err[MODEL_P_O0], sqrt(var));
    FILE *fp = fopen(path("l-launches.tsv"), "r");
    cr_assert_not_null(fp);
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, fp))
        if (!strncmp(line, "0\t1\t1\t0\t0\t64\t", 12)) {
            rows++;
            cr_assert_str_eq(line, "0\t1\t1\t0\t0\t64\t3\t142.0\t132.0\t162.0\t0.7500\t"
                                   "132.0,162.0,142.0\n");
        }
    fclose(fp);
    cr_assert_eq(rows, 1);
    r = run_cmd(CALIBRATE, 30, "--launches", "2", "--data", f[0], NULL);
    run_assert_error(&r, 2, "--launches 2: with --data, each file is one launch", "count");
    run_free(&r);
}
