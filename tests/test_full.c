/* Tests for calibrate --full: the four networks measured in one
 * interleaved run, lb fitted, the held-out 6-node ring validated and its
 * table written for the plot; an interrupted run keeps its finished data
 * and writes nothing half; and the params files' lb_ns_per_byte through
 * scimodel. */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <signal.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "benchdata/benchdata.h"
#include "model/params.h"
#include "tests/injected.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-full-XXXXXX";
static void setup(void)
{
    run_tmpdir_make(dir);
    cr_assert_eq(chdir(dir), 0);   /* --full without -o writes into the cwd */
}
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(full, .init = setup, .fini = teardown, .timeout = 300);

static char host[256];
static const char *file(const char *fmt)
{
    static char p[8][512];
    static int k;
    char *s = p[k++ % 8];
    gethostname(host, sizeof host - 1);
    snprintf(s, sizeof p[0], fmt, host);
    return s;
}

/* No temporary file of an atomic write is left in d. */
static void assert_no_temporaries(const char *d)
{
    DIR *dp = opendir(d);
    struct dirent *e;
    if (!dp)
        return;
    while ((e = readdir(dp)))
        cr_assert_null(strstr(e->d_name, ".tmp."), "left behind: %s/%s", d, e->d_name);
    closedir(dp);
}

/* The held-out table's rows: the 6-node ring's path at every size of `sizes` (in order), each
 * prediction the params file's model.  Returns the rows. */
static int assert_validation_table(const char *table, const model_params *p, const long *sizes,
                                   int nsizes)
{
    FILE *fp = fopen(table, "r");
    cr_assert_not_null(fp, "%s", table);
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, fp)) {
        double m, hm, fm, sm, meas, pred, err;
        if (line[0] == '#')
            continue;
        cr_assert_eq(sscanf(line, "%lf %lf %lf %lf %lf %lf %lf", &m, &hm, &fm, &sm, &meas, &pred,
                            &err), 7, "%s", line);
        cr_assert_lt(rows, nsizes, "%s: more rows than sizes", table);
        cr_assert_eq(m, sizes[rows], "%s: row %d is %g B", table, rows, m);
        cr_assert_eq(hm, 3);
        cr_assert_eq(fm, 2);
        cr_assert_eq(sm, 0);
        cr_assert_float_eq(err, 100 * (pred - meas) / meas, 1e-2);
        double model = 2 * model_overhead_ns(p, m) + hm * p->lp_ns + fm * p->lf_ns +
                       sm * p->ls_ns + (fm + sm) * model_relay_bytes_ns(p, m);
        cr_assert_float_eq(pred, model, 0.01 + 1e-6 * model, "%g B: %g vs %g", m, pred, model);
        rows++;
    }
    fclose(fp);
    return rows;
}

Test(full, measures_fits_and_validates)
{
    run_result r = run_cmd(run_prog("calibrate", 0), 240, "--full", "--sizes", "8,256,4096",
                           "--max-time", "2", "--max-error", "100", NULL);
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    /* lb is measured: multi-hop data at three sizes */
    cr_assert_not_null(strstr(r.out, "lb_ns_per_byte"), "%s", r.out);
    /* --full's point statistic is the batches' median (--help) */
    cr_assert_not_null(strstr(r.out, "statistic median"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "validation (held-out data)"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "median error"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "measured and fitted in"), "%s", r.out);
    model_params p;
    model_params_error e;
    const char *params = file("%s-shm-full.params");
    cr_assert_eq(model_params_read(params, &p, &e), 0, "%s:%ld: %s", params, e.line, e.msg);
    cr_assert_str_eq(p.source[MODEL_P_LF], "measured");
    cr_assert_str_eq(p.source[MODEL_P_LS], "measured");
    cr_assert_str_eq(p.source[MODEL_P_LB], "measured");
    cr_assert_str_eq(p.source[MODEL_P_LP], "fixed");
    /* the held-out table: one row per size, in size order, and the
     * predictions in it are the params file's (scimodel's model) */
    static const long sizes[] = {8, 256, 4096};
    cr_assert_eq(assert_validation_table(file("%s-shm-full-validation.tsv"), &p,
                                         sizes, 3), 3);
    assert_no_temporaries(".");
    run_free(&r);
}

/* Ctrl-C halfway: the benchmark keeps every finished point (files marked
 * '# incomplete'), calibrate stops with an error and writes no params. */
Test(full, interrupted_run_keeps_finished_data)
{
    /* An error target no point reaches (each stops at scibench's 1000
     * batches) and 20 us injected at every relay: the 2-node ring's points
     * finish within a second, the others' take about 5 s (1000 x 60-120
     * us each, interleaved), so the signal at 2 s lands in the middle
     * whatever the machine's regime. */
    char *argv[] = {(char *)run_prog("calibrate", 0), "--full", "--sizes", "1..65536",
                    "--rel-error", "0.000001", "--max-time", "60", "--inject-forward", "20000",
                    "--inject-switch", "20000", "-q", NULL};
    pid_t pid = run_spawn(argv, NULL);
    sleep(2);
    kill(-pid, SIGINT);   /* a terminal's Ctrl-C reaches the whole group */
    int st = run_wait_exit(pid, 60);
    cr_assert_neq(st, 0, "calibrate --full exited 0 after Ctrl-C");
    cr_assert_neq(st, -1, "calibrate --full hung after Ctrl-C");
    cr_assert_neq(access(file("%s-shm-full.params"), F_OK), 0,
                  "a params file was written from an interrupted run");
    static const char *const net[] = {"ring2", "ring8", "torus4x4", "ring6"};
    for (int k = 0; k < 4; k++) {
        char fmt[128];
        snprintf(fmt, sizeof fmt, "%%s-shm-full-%s.tsv", net[k]);
        const char *f = file(fmt);
        FILE *fp = fopen(f, "r");
        if (!fp)
            continue;   /* not opened yet: nothing half-written either */
        char line[512], last[512] = "";
        while (fgets(line, sizeof line, fp))
            snprintf(last, sizeof last, "%s", line);
        fclose(fp);
        cr_assert_str_eq(last, "# incomplete\n", "%s does not end '# incomplete'", f);
    }
    assert_no_temporaries(".");
}

Test(full, usage_errors)
{
    static const char *const cases[][3] = {
        {"--ring", "6", "--ring"},
        {"--torus", "3x3", "--full"},
        {"--data", "x.tsv", "--full"},
        {"--np", "4", "--np '4'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_cmd(run_prog("calibrate", 0), 30, "--full", cases[i][0], cases[i][1],
                               NULL);
        run_assert_error(&r, 2, cases[i][2], cases[i][0]);
        run_free(&r);
    }
}

/* A params file with a negative or NaN lb_ns_per_byte: scimodel and
 * calibrate's readers stop with the file and line (exit 1). */
Test(full, bad_lb_in_params_file)
{
    static const char *const bad[] = {"-0.5", "nan"};
    for (int i = 0; i < 2; i++) {
        FILE *fp = fopen("bad.params", "w");
        cr_assert_not_null(fp);
        fprintf(fp, "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\nlp_ns = 7\n"
                    "lf_ns = 60\nls_ns = 670\nlb_ns_per_byte = %s\n", bad[i]);
        fclose(fp);
        run_result r = run_cmd(run_prog("scimodel", 0), 30, "--params", "bad.params", NULL);
        run_assert_error(&r, 1, "bad.params:7", bad[i]);
        run_free(&r);
    }
}

/* lb through scimodel: printed when non-zero, and the point-to-point
 * latency pays it at every relay; a cut-through file prints as before. */
Test(full, scimodel_prints_and_uses_lb)
{
    FILE *fp = fopen("saf.params", "w");
    cr_assert_not_null(fp);
    fprintf(fp, "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\nlp_ns = 7\n"
                "lf_ns = 60\nls_ns = 670\nlb_ns_per_byte = 0.5\n");
    fclose(fp);
    run_result r = run_cmd(run_prog("scimodel", 0), 30, "--params", "saf.params", "--shape",
                           "8", "--hops", "4", "--size", "1024", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "lb 0.5 ns/B"), "%s", r.out);
    /* 2 o(1024) + 4 lp + 3 lf + 3 x 1024 x 0.5 */
    char want[64];
    snprintf(want, sizeof want, "%.3f", 2 * (2085 + 11.6 * 960) + 4 * 7 + 3 * 60 + 3 * 512.0);
    cr_assert_not_null(strstr(r.out, want), "%s not in %s", want, r.out);
    run_free(&r);
    r = run_cmd(run_prog("scimodel", 0), 30, "--preset", "current", "--shape", "8", "--hops", "4",
                NULL);
    cr_assert_null(strstr(r.out, "lb "), "%s", r.out);
    run_free(&r);
}

/* calibrate --full --backend mpi: mpibench on 2 ranks measures
 * the four networks interleaved (their nodes hosted on the two ranks),
 * calibrate fits on three and validates on the 6-node ring: the table
 * printed and written has every size.  Every mpirun is bounded: calibrate
 * runs `mpirun --timeout 120 ...` (--mpirun), the test kills the whole group
 * after 240 s. */
Test(full, mpi_measures_fits_and_validates)
{
    static const long sizes[] = {1, 64, 1024, 65536};
    run_result r = run_cmd(run_prog("calibrate", 0), 240, "--full", "--backend", "mpi",
                           "--mpirun", "mpirun --timeout 120 --oversubscribe", "--sizes",
                           "1,64,1024,65536", "--max-time", "2", "--max-error", "100", NULL);
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "statistic median"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "validation (held-out data)"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "over 4 points"), "%s", r.out);
    for (int i = 0; i < 4; i++) {   /* the printed table: every size, 3 hops, 2 relays */
        char row[64];
        snprintf(row, sizeof row, "%10ld   3.0   2.0   0.0", sizes[i]);
        cr_assert_not_null(strstr(r.out, row), "no held-out row for %ld B:\n%s", sizes[i], r.out);
    }
    model_params p;
    model_params_error e;
    const char *params = file("%s-mpi-full.params");
    cr_assert_eq(model_params_read(params, &p, &e), 0, "%s:%ld: %s", params, e.line, e.msg);
    cr_assert_str_eq(p.source[MODEL_P_LF], "measured");
    cr_assert_str_eq(p.source[MODEL_P_LS], "measured");
    cr_assert_str_eq(p.source[MODEL_P_LB], "measured");
    static const char *const net[] = {"ring2", "ring8", "torus4x4", "ring6"};
    for (int k = 0; k < 4; k++) {
        char fmt[128];
        snprintf(fmt, sizeof fmt, "%%s-mpi-full-%s.tsv", net[k]);
        char *text = run_read_text(file(fmt));
        cr_assert_not_null(strstr(text, "# backend: mpi\n"), "%s", net[k]);
        cr_assert_not_null(strstr(text, "# procs: 2\n"), "%s", net[k]);
        cr_assert_null(strstr(text, "# incomplete"), "%s", net[k]);
        free(text);
    }
    cr_assert_eq(assert_validation_table(file("%s-mpi-full-validation.tsv"), &p, sizes,
                                         4), 4);
    assert_no_temporaries(".");
    run_free(&r);
}

/* Rounds of the MPI injected-delay test judged, rounds tried at most, and no round
 * starts later than this into the test (it ends within the suite's timeout). */
#define MPI_INJECT_ROUNDS 5
#define MPI_INJECT_TRIES 8
#define MPI_INJECT_START_BY_S 180

/* One `calibrate --full --backend mpi` (the optimised build: it times) at
 * 8 B, 256 B and 4 KiB with the given injection; its params. */
static model_params mpi_full(const char *params, const char *fwd, const char *sw)
{
    run_result r = run_cmd(run_prog("calibrate", 1), 120, "--full", "--backend", "mpi",
                           "--mpirun", "mpirun --timeout 100 --oversubscribe", "--sizes",
                           "8,256,4096", "--max-time", "2", "--inject-forward", fwd,
                           "--inject-switch", sw, "--max-error", "100", "-q", "-o", params, NULL);
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    run_free(&r);
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(params, &p, &e), 0, "%s:%ld: %s", params, e.line, e.msg);
    return p;
}

/* The 8 B point's median of a network's file from mpi_full, and its forwards and switches a
 * message (request and reply averaged, as the model counts them). */
static double point_8b(const char *path, double *fwd, double *sw)
{
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%s:%ld: %s", path, e.line, e.msg);
    double ns = -1;
    for (long i = 0; i < d.count; i++) {
        const bench_point *q = &d.points[i];
        if (!strcmp(q->pattern, "pp") && q->size_bytes == 8 && ns < 0) {
            ns = q->median_ns;
            *fwd = (q->fwd + q->rfwd) / 2.0;
            *sw = (q->sw + q->rsw) / 2.0;
        }
    }
    bench_data_free(&d);
    cr_assert_gt(ns, 0, "%s: no 8 B ping-pong", path);
    return ns;
}

/* Injected ground truth through MPI: `calibrate --full
 * --backend mpi` plain and with --inject-forward 3000 --inject-switch 5000
 * (busy-waits at every relay of mpibench's virtual nodes), back to back in
 * each of five rounds.  What a busy-wait adds to a relay is the wait and the
 * relay's resumption after it, less the relay's own work the wait hides, which
 * vary with the machine's regime and the relay's place; so the fit is judged
 * against what its round's raw 8 B points grew a forward (ring 8) and a switch
 * (torus 4x4, its forwards at the fitted lf's growth), medians within a tenth
 * of the injection.  The fitted injected lf and ls are the wait or up to half
 * more (tests/injected.h).  Once three rounds of each
 * are within it, the median of five is too, whatever the other two: the test stops.
 * Only rounds that had the machine to themselves are judged (tests/injected.h); with
 * fewer than three such rounds the test is skipped with every round's figures. */
Test(full, mpi_injected_delays_are_recovered)
{
    injected_rounds r = {0};
    time_t t0 = time(NULL);
    while (r.judged < MPI_INJECT_ROUNDS && r.tried < MPI_INJECT_TRIES &&
           (r.tried == 0 || time(NULL) - t0 < MPI_INJECT_START_BY_S) &&
           (r.lf_in <= MPI_INJECT_ROUNDS / 2 || r.ls_in <= MPI_INJECT_ROUNDS / 2)) {
        injected_mark m0 = injected_mark_now();
        model_params plain = mpi_full("plain.params", "0", "0");
        model_params inj = mpi_full("inj.params", "3000", "5000");
        double other = injected_other_share(m0, injected_mark_now());
        cr_assert_str_eq(inj.source[MODEL_P_LF], "measured");
        cr_assert_str_eq(inj.source[MODEL_P_LS], "measured");
        double f8, s8, ft, st;
        double ring = point_8b("inj-ring8.tsv", &f8, &s8) - point_8b("plain-ring8.tsv", &f8, &s8);
        double torus = point_8b("inj-torus4x4.tsv", &ft, &st) -
                       point_8b("plain-torus4x4.tsv", &ft, &st);
        cr_assert(f8 > 0 && st > 0, "ring 8 forwards %.1f, torus switches %.1f", f8, st);
        double dlf = inj.lf_ns - plain.lf_ns, dls = inj.ls_ns - plain.ls_ns;
        double gf = ring / f8, gs = (torus - ft * dlf) / st;
        char line[300];
        snprintf(line, sizeof line, "lf %.1f -> %.1f, ls %.1f -> %.1f, lb %.4f -> %.4f ns/B;"
                                    " the raw 8 B points grew %.1f ns a forward, %.1f a switch",
                 plain.lf_ns, inj.lf_ns, plain.ls_ns, inj.ls_ns, plain.lb_ns_per_byte,
                 inj.lb_ns_per_byte, gf, gs);
        fprintf(stderr, "mpi injected, round %d: %s; other work %.0f%%\n", r.tried, line, 100 * other);
        injected_add(&r, line, other, dlf, dls, gf, gs, inj.lf_ns, inj.ls_ns);
    }
    if (r.judged < 3)
        cr_skip_test("%d of %d rounds had the machine to themselves (other work at most %.0f%%),"
                     " three needed: %s", r.judged, r.tried, 100 * INJECTED_OTHER_MAX, r.seen);
    assert_injection_recovered(r.dlf, r.dls, r.tf, r.ts, r.lf, r.ls, r.judged);
}

/* Ctrl-C (SIGINT to calibrate's process group) to calibrate --full
 * --backend mpi halfway: calibrate stops mpirun's job with SIGUSR1 (mpirun
 * passes it on and, unlike SIGINT, does not kill the ranks a second
 * later), rank 0 marks every network's file '# incomplete', calibrate
 * fits nothing and writes no params; nothing half-written.  The job is
 * bounded by mpirun --timeout, the test by killing the groups. */
Test(full, mpi_interrupted_run_keeps_finished_data)
{
    char *argv[] = {(char *)run_prog("calibrate", 0), "--full", "--backend", "mpi", "--mpirun",
                    "mpirun --timeout 100 --oversubscribe", "--sizes", "1..65536", "--rel-error",
                    "0.000001", "--max-time", "60", "--inject-forward", "20000",
                    "--inject-switch", "20000", "-q", NULL};
    pid_t pid = run_spawn(argv, NULL);
    /* rank 0 has its four files open (past MPI_Init), then 1 s of batches */
    char bench_dir[PATH_MAX + 16];
    cr_assert_not_null(getcwd(bench_dir, PATH_MAX));
    for (int i = 0; i < 3000 && run_files_open_under("mpibench", bench_dir) < 4; i++)
        usleep(10000);
    cr_assert_geq(run_files_open_under("mpibench", bench_dir), 4, "mpibench never opened its four files");
    sleep(1);
    kill(-pid, SIGINT);   /* a terminal's Ctrl-C reaches the whole group */
    int st = run_wait_exit(pid, 60);
    cr_assert_neq(st, 0, "calibrate --full --backend mpi exited 0 after Ctrl-C");
    cr_assert_neq(st, -1, "calibrate --full --backend mpi hung after Ctrl-C");
    cr_assert_eq(run_files_open_under("mpibench", bench_dir), 0, "a rank outlived calibrate");
    cr_assert_neq(access(file("%s-mpi-full.params"), F_OK), 0,
                  "a params file was written from an interrupted run");
    static const char *const net[] = {"ring2", "ring8", "torus4x4", "ring6"};
    int seen = 0;
    for (int k = 0; k < 4; k++) {
        char fmt[128];
        snprintf(fmt, sizeof fmt, "%%s-mpi-full-%s.tsv", net[k]);
        const char *f = file(fmt);
        FILE *fp = fopen(f, "r");
        if (!fp)
            continue;   /* not opened yet: nothing half-written either */
        seen++;
        char line[512], last[512] = "";
        while (fgets(line, sizeof line, fp))
            snprintf(last, sizeof last, "%s", line);
        fclose(fp);
        cr_assert_str_eq(last, "# incomplete\n", "%s does not end '# incomplete'", f);
    }
    cr_assert_eq(seen, 4, "rank 0 had its four files open: all four kept");
    assert_no_temporaries(".");
}
