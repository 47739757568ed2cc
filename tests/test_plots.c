/* Tests for plots/: the gnuplot scripts run on fixture data (a committed
 * bench TSV and params file) and produce every expected figure, each a
 * valid PNG or SVG with more in it than a blank plot, with no gnuplot
 * warning (plots.sh fails on any gnuplot stderr output). */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/params.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-plots-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(plots, .init = setup, .fini = teardown, .timeout = 120);

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int is_png(const char *path, unsigned *w, unsigned *h)
{
    unsigned char b[24];
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    size_t n = fread(b, 1, sizeof b, fp);
    fclose(fp);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n < 24 || memcmp(b, sig, 8) || memcmp(b + 12, "IHDR", 4))
        return 0;
    *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
    *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
    return 1;
}

/* The size of a blank pngcairo image of w x h (the oracle for "not
 * empty"): a plot with border, tics and labels compresses far worse. */
static long blank_png_size(unsigned w, unsigned h)
{
    char path[300], cmd[600];
    snprintf(path, sizeof path, "%s/blank-%ux%u.png", dir, w, h);
    snprintf(cmd, sizeof cmd, "gnuplot -e \"set terminal pngcairo size %u,%u; set output '%s';"
                              " unset border; unset tics; unset key; set yrange [0:1];\""
                              " -e \"plot [0:1] 2 notitle\" 2>/dev/null",
             w, h, path);
    cr_assert_eq(system(cmd), 0);
    return file_size(path);
}

/* name.png and name.svg were drawn into figs, listed in plots.sh's output,
 * and hold more than a blank plot. */
static void assert_figure_in(const char *figs, const char *listed, const char *name)
{
    char png[600], svg[600];
    unsigned w, h;
    snprintf(png, sizeof png, "%s/%s.png", figs, name);
    snprintf(svg, sizeof svg, "%s/%s.svg", figs, name);
    cr_assert(strstr(listed, png), "%s not listed in: %s", png, listed);
    cr_assert(is_png(png, &w, &h), "%s is not a PNG", png);
    long blank = blank_png_size(w, h);
    cr_assert_gt(file_size(png), 3 * blank, "%s: %ld bytes, blank %ld", png, file_size(png),
                 blank);
    FILE *fp = fopen(svg, "r");
    cr_assert_not_null(fp, "%s missing", svg);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    cr_assert_not_null(strstr(buf, "<svg"), "%s is not SVG", svg);
    cr_assert_gt(file_size(svg), 20000, "%s looks empty", svg);
}

static void assert_figure(const char *listed, const char *name)
{
    assert_figure_in(dir, listed, name);
}

/* plots.sh on the fixture's params and bench file (every standard figure,
 * and the fixture's crossovers and calibration), drawn once per run of this
 * binary for the tests that only read its figures: the first of them draws
 * it, under a lock, into a directory named after the runner (each test runs
 * in a child of it), which the runner removes when the tests have ended. */
static const char *shared_dir(pid_t runner)
{
    static char d[64];
    snprintf(d, sizeof d, "/tmp/scitorus-plots-shared-%ld", (long)runner);
    return d;
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.lock'", shared_dir(getpid()), shared_dir(getpid()));
    if (system(cmd) != 0)
        fprintf(stderr, "test_plots: could not remove %s\n", shared_dir(getpid()));
}

/* The shared run's exit status, standard output and error (free with
 * run_free); its figures are in shared_dir(getppid()). */
static run_result standard_figures(void)
{
    const char *d = shared_dir(getppid());
    const char *r = getenv("SCITORUS_ROOT") ? getenv("SCITORUS_ROOT") : ".";
    char lock[80], script[600], params[600], bench[600];
    snprintf(lock, sizeof lock, "%s.lock", d);
    int fd = open(lock, O_CREAT | O_RDWR, 0600);
    cr_assert_geq(fd, 0, "%s", lock);
    cr_assert_eq(flock(fd, LOCK_EX), 0);
    if (access(run_path(d, "status"), F_OK) != 0) {   /* the first: draw them */
        char cmd[200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir '%s'", d, d);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        snprintf(script, sizeof script, "%s/plots/plots.sh", r);
        snprintf(params, sizeof params, "%s/tests/fixtures/plots/ring2.params", r);
        snprintf(bench, sizeof bench, "%s/tests/fixtures/plots/ring2.tsv", r);
        run_result res = run_cmd(script, 100, d, run_prog("scimodel", 1), params, bench, NULL);
        char st[16];
        snprintf(st, sizeof st, "%d", res.status);
        run_write_text(run_path(d, "out"), res.out);
        run_write_text(run_path(d, "err"), res.err);
        run_write_text(run_path(d, "status"), st);   /* last: the run is whole */
        run_free(&res);
    }
    run_result res = {0};
    char *st = run_read_text(run_path(d, "status"));
    res.status = atoi(st);
    free(st);
    res.out = run_read_text(run_path(d, "out"));
    res.err = run_read_text(run_path(d, "err"));
    close(fd);
    return res;
}

Test(plots, every_figure_is_drawn)
{
    run_result res = standard_figures();
    cr_assert_eq(res.status, 0, "%s", res.err);
    cr_assert_str_empty(res.err, "gnuplot printed: %s", res.err);
    static const char *const names[] = {
        "crossover-current", "crossover-current-log", "crossover-enhanced",
        "crossover-enhanced-log", "crossover-ring2", "crossover-ring2-log", "calibration-ring2",
        "patterns-current-uni", "patterns-current-bi", "patterns-enhanced-uni",
        "patterns-enhanced-bi", "load-current-uni", "load-current-bi",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_figure_in(shared_dir(getppid()), res.out, names[i]);
    run_free(&res);
}

/* The crossover labels come from scimodel, not from the script. */
Test(plots, crossover_labels_come_from_the_model)
{
    run_result res = standard_figures();
    cr_assert_eq(res.status, 0, "%s", res.err);
    const char *figs = shared_dir(getppid());
    char svg[600];
    snprintf(svg, sizeof svg, "%s/crossover-enhanced.svg", figs);
    FILE *fp = fopen(svg, "r");
    cr_assert_not_null(fp);
    char *buf = run_slurp(fp);
    fclose(fp);
    /* docs/model.md, 'Crossovers': enhanced 1D -> 2D at 8.21, 2D -> 3D at 44.72 */
    cr_assert_not_null(strstr(buf, "crossover: 8.2 nodes"), "no 8.2 label");
    cr_assert_not_null(strstr(buf, "crossover: 44.7 nodes"), "no 44.7 label");
    free(buf);

    /* Neighbor traffic on one-way rings: every higher D already wins at its
     * smallest torus (4, 8, 16 nodes; scimodel says lower_bound), which the
     * figure must say, never labelling those bounds as crossovers. */
    snprintf(svg, sizeof svg, "%s/patterns-current-uni.svg", figs);
    fp = fopen(svg, "r");
    cr_assert_not_null(fp);
    buf = run_slurp(fp);
    fclose(fp);
    cr_assert_not_null(strstr(buf, "1D->2D: 2D from 4 on"), "no lower-bound label");
    cr_assert_not_null(strstr(buf, "3D->4D: 4D from 16 on"), "no lower-bound label");
    cr_assert_null(strstr(buf, "1D->2D: 4<"), "a lower bound labelled as a crossover");
    cr_assert_null(strstr(buf, "3D->4D: 16<"), "a lower bound labelled as a crossover");
    cr_assert_not_null(strstr(buf, "1D->2D: 18<"), "the uniform crossover is missing");
    free(buf);
    run_free(&res);
}

/* plots/calibration.gp and the fixture's bench file, under SCITORUS_ROOT. */
static void calibration_paths(char *script, char *bench, size_t len)
{
    const char *root = getenv("SCITORUS_ROOT") ? getenv("SCITORUS_ROOT") : ".";
    snprintf(script, len, "%s/plots/calibration.gp", root);
    snprintf(bench, len, "%s/tests/fixtures/plots/ring2.tsv", root);
}

/* calibrate's fit of bench (--stat stat unless NULL) into params; the
 * residual RMS it printed, as text, into rms (32 bytes). */
static void calibrate_rms(const char *bench, const char *stat, const char *params, char *rms)
{
    run_result c = stat ? run_cmd(run_prog("calibrate", 1), 60, "--stat", stat, "--data", bench,
                                  "-o", params, NULL)
                        : run_cmd(run_prog("calibrate", 1), 60, "--data", bench, "-o", params,
                                  NULL);
    cr_assert_eq(c.status, 0, "%s", c.err);
    const char *at = strstr(c.out, "  RMS ");
    cr_assert_not_null(at, "%s", c.out);
    cr_assert_eq(sscanf(at, "  RMS %31[0-9.]", rms), 1, "%s", at);
    run_free(&c);
}

/* Draws script's figure of bench and params as out.svg; its text (free it). */
static char *draw_calibration(const char *script, const char *bench, const char *params,
                              const char *out)
{
    char expr[2048], svg[700];
    snprintf(expr, sizeof expr, "data='%s'; params='%s'; out='%s'; term='svg'", bench, params,
             out);
    run_result g = run_cmd("/usr/bin/gnuplot", 60, "-e", expr, script, NULL);
    cr_assert_eq(g.status, 0, "%s", g.err);
    cr_assert_str_empty(g.err, "gnuplot printed: %s", g.err);
    run_free(&g);
    snprintf(svg, sizeof svg, "%s.svg", out);
    FILE *fp = fopen(svg, "r");
    cr_assert_not_null(fp, "%s missing", svg);
    char *text = run_slurp(fp);
    fclose(fp);
    return text;
}

/* The calibration figure's points and residual panel are of the statistic
 * the fit used (params key fit_statistic): calibrate fits the fixture bench
 * file once with the median and once with the minimum, and the figure's
 * residual RMS must be the one calibrate printed for that fit (the oracle:
 * calibrate's own residuals; the minimum's and the median's differ by
 * several points here). */
Test(plots, calibration_residuals_are_of_the_fitted_statistic)
{
    char script[600], bench[600];
    calibration_paths(script, bench, sizeof script);
    static const char *const stats[] = {"median", "min"};
    char rms[2][32];
    for (int k = 0; k < 2; k++) {
        char params[600], out[600], want[64];
        snprintf(params, sizeof params, "%s/%s.params", dir, stats[k]);
        snprintf(out, sizeof out, "%s/calibration-%s", dir, stats[k]);
        calibrate_rms(bench, stats[k], params, rms[k]);
        char *text = draw_calibration(script, bench, params, out);
        snprintf(want, sizeof want, "RMS %s%%", rms[k]);
        cr_assert_not_null(strstr(text, want), "%s.svg: no '%s' (calibrate --stat %s)", out, want,
                           stats[k]);
        snprintf(want, sizeof want, "residual of the %s", stats[k]);
        cr_assert_not_null(strstr(text, want), "%s.svg: no '%s'", out, want);
        free(text);
    }
    cr_assert_str_neq(rms[0], rms[1], "the fixture must tell the statistics apart");
}

static int by_from(const void *a, const void *b)
{
    const model_oseg *x = a, *y = b;
    return (x->from_bytes > y->from_bytes) - (x->from_bytes < y->from_bytes);
}

/* calibrate --full writes up to MODEL_MAX_OSEG (16) segments of o(m) and
 * the figure must use every one: calibrate's fit of the fixture (its own
 * segments) rewritten as MODEL_MAX_OSEG pieces, each on its original
 * segment's line (starts added at 6, 12, ... 49152 B), is the same model,
 * so the figure's residual RMS must still be the one calibrate printed. */
Test(plots, calibration_uses_every_segment)
{
    char script[600], bench[600], params[600], out[600];
    char rms[32], want[64];
    calibration_paths(script, bench, sizeof script);
    snprintf(params, sizeof params, "%s/many.params", dir);
    snprintf(out, sizeof out, "%s/calibration-many", dir);
    calibrate_rms(bench, NULL, params, rms);
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(params, &p, &e), 0, "%s", e.msg);
    model_oseg orig[MODEL_MAX_OSEG];
    int k = p.o_segments;
    if (k == 0)   /* the single line, as one segment from 1 B */
        orig[k++] = (model_oseg){1, p.o0_ns + p.o1_ns_per_byte * (1 - p.mref_bytes),
                                 p.o1_ns_per_byte};
    else
        memcpy(orig, p.oseg, (size_t)k * sizeof *orig);
    cr_assert_lt(k, MODEL_MAX_OSEG, "the fixture's fit has %d segments already", k);
    memcpy(p.oseg, orig, (size_t)k * sizeof *orig);
    int n = k;
    for (int j = 14; j >= 1 && n < MODEL_MAX_OSEG; j--) {
        double from = 3.0 * (1 << j);
        int s = 0;
        while (s + 1 < k && from >= orig[s + 1].from_bytes)
            s++;
        int dup = 0;
        for (int i = 0; i < k; i++)
            dup |= orig[i].from_bytes == from;
        if (!dup)
            p.oseg[n++] = (model_oseg){from,
                                       orig[s].ns + orig[s].ns_per_byte * (from - orig[s].from_bytes),
                                       orig[s].ns_per_byte};
    }
    cr_assert_eq(n, MODEL_MAX_OSEG);
    qsort(p.oseg, (size_t)n, sizeof *p.oseg, by_from);
    p.o_segments = n;
    cr_assert_eq(model_params_write(params, &p, "the fit, in MODEL_MAX_OSEG pieces"), 0);
    char *text = draw_calibration(script, bench, params, out);
    snprintf(want, sizeof want, "RMS %s%%", rms);
    cr_assert_not_null(strstr(text, want), "%s.svg: no '%s'", out, want);
    snprintf(want, sizeof want, "model (%d o(m) segments)", MODEL_MAX_OSEG);
    cr_assert_not_null(strstr(text, want), "%s.svg: no '%s'", out, want);
    free(text);
}

/* The figures say what they show and keep their text readable: the load
 * figure states N and each D's torus; the calibration figure's panels stand
 * a text line apart (their y labels met at the join); the crossover labels
 * sit above every curve (gnuplot itself evaluates the script's label height
 * against the curves' maximum) and inside the plot. */
Test(plots, figure_text_is_stated_and_clear_of_the_data)
{
    const char *root = getenv("SCITORUS_ROOT") ? getenv("SCITORUS_ROOT") : ".";
    const char *figs = shared_dir(getppid());
    run_result res = standard_figures();
    cr_assert_eq(res.status, 0, "%s", res.err);
    run_free(&res);
    char *svg = run_read_text(run_path(figs, "load-current-uni.svg"));
    cr_assert_not_null(strstr(svg, "at N = 4096"), "the load figure does not state N");
    cr_assert_not_null(strstr(svg, "2D: 64x64"), "the load figure does not name the 2D torus");
    cr_assert_not_null(strstr(svg, "4D: 8x8x8x8"), "the load figure does not name the 4D torus");
    free(svg);

    /* calibration.gp: "set origin 0,Y" / "set size 1,H" of the upper panel,
     * then of the lower; the gap between them at the 800-pixel canvas */
    char gp[600];
    snprintf(gp, sizeof gp, "%s/plots/calibration.gp", root);
    char *text = run_read_text(gp);
    double y[2] = {0}, hgt[2] = {0};
    int n = 0;
    for (const char *p = text; n < 2 && (p = strstr(p, "\nset origin 0,")) != NULL; p++) {
        y[n] = atof(p + 14);
        const char *s = strstr(p, "\nset size 1,");
        cr_assert_not_null(s);
        hgt[n++] = atof(s + 12);
    }
    cr_assert_eq(n, 2, "calibration.gp: two panels expected");
    cr_assert_not_null(strstr(text, "size 1000,800"));
    double gap_px = (y[0] - (y[1] + hgt[1])) * 800;
    cr_assert_geq(gap_px, 16, "calibration panels %.0f px apart: their y labels overlap at the join",
                  gap_px);
    free(text);

    /* crossover.gp on the current preset's data, then gnuplot prints
     * whether every label row lies above the curves' maximum and below the
     * plot's top (the last panel's ytop, ybot and yrange) */
    char expr[2048], check[600], gpx[600];
    snprintf(gpx, sizeof gpx, "%s/plots/crossover.gp", root);
    snprintf(expr, sizeof expr,
             "sweep='%s/data/current-sweep.tsv'; xo='%s/data/current-crossover.tsv'; out='%s/xo-check';"
             " title='t'; logx=0; term='png'", figs, figs, dir);
    snprintf(check, sizeof check,
             "ok = 1; do for [k=0:nxo-1] { ok = ok && labely(k) > ytop*1.05 && labely(k) < GPVAL_Y_MAX };"
             " print ok ? \"above\" : \"on the curves\"");
    run_result g = run_cmd("/usr/bin/gnuplot", 60, "-e", expr, gpx, "-e", check, NULL);
    cr_assert_eq(g.status, 0, "%s", g.err);
    cr_assert_not_null(strstr(g.err, "above"), "crossover labels: %s", g.err);
    run_free(&g);
}

/* All-destination data (scibench --ring 6 --all-dst: five destinations, no
 * point both ways one hop) still gives the calibration figure: it draws
 * the nearest destination's curve and the residuals of every point, whose
 * RMS is the one calibrate printed for the same fit (its residual table
 * covers every point). */
Test(plots, calibration_of_all_destinations)
{
    char script[600], bench[600], params[600], out[600], rms[32], want[64];
    calibration_paths(script, bench, sizeof script);
    snprintf(bench, sizeof bench, "%s", run_fixture("plots/ring6-alldst.tsv"));
    snprintf(params, sizeof params, "%s/alldst.params", dir);
    snprintf(out, sizeof out, "%s/calibration-alldst", dir);
    calibrate_rms(bench, NULL, params, rms);
    char *text = draw_calibration(script, bench, params, out);
    snprintf(want, sizeof want, "RMS %s%%", rms);
    cr_assert_not_null(strstr(text, want), "%s.svg: no '%s'", out, want);
    cr_assert_not_null(strstr(text, "nearest destination 1"), "%s.svg: no destination named", out);
    free(text);
    char png[700];
    snprintf(png, sizeof png, "%s/calibration-alldst.png", dir);
    unsigned w, h;
    char expr[2048];
    snprintf(expr, sizeof expr, "data='%s'; params='%s'; out='%s'; term='png'", bench, params, out);
    run_result g = run_cmd("/usr/bin/gnuplot", 60, "-e", expr, script, NULL);
    cr_assert_eq(g.status, 0, "%s", g.err);
    run_free(&g);
    cr_assert(is_png(png, &w, &h), "%s is not a PNG", png);
    cr_assert_gt(file_size(png), 3 * blank_png_size(w, h), "%s looks empty", png);
}

/* plots.sh never leaves an empty or partial image: a figure whose gnuplot
 * fails (a bench file with no ping-pong point) is absent afterwards, and
 * the figures drawn before it stay whole. */
Test(plots, a_failed_figure_leaves_no_file)
{
    char script[600], bench[700], listing[4096] = "";
    const char *r = getenv("SCITORUS_ROOT") ? getenv("SCITORUS_ROOT") : ".";
    snprintf(script, sizeof script, "%s/plots/plots.sh", r);
    snprintf(bench, sizeof bench, "%s/empty.tsv", dir);
    run_write_text(bench, "# scitorus-bench 1\n# columns: pattern src dst hops fwd sw rhops rfwd rsw"
                          " size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag\n");
    run_result res = run_cmd(script, 100, dir, run_prog("scimodel", 1),
                             run_fixture("plots/ring2.params"), bench, NULL);
    cr_assert_eq(res.status, 1, "plots.sh on a file without points: %d %s", res.status, res.err);
    cr_assert_not_null(strstr(res.err, "calibration.gp"), "%s", res.err);
    run_free(&res);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(listing);
        snprintf(listing + n, sizeof listing - n, "%s ", e->d_name);
        cr_assert_null(strstr(e->d_name, "calibration-empty"), "%s left behind", e->d_name);
        cr_assert_null(strstr(e->d_name, ".gp-"), "staging %s left behind", e->d_name);
        if (strstr(e->d_name, ".png") || strstr(e->d_name, ".svg"))
            cr_assert_gt(file_size(run_path(dir, e->d_name)), 0, "%s is empty", e->d_name);
    }
    closedir(d);
    cr_assert_not_null(strstr(listing, "crossover-current.png"), "earlier figures missing: %s",
                       listing);
}

/* The thesis's Figs. 5, 12 and 13b from the demo's kind of data: the
 * 2-node ring's one-way runs (scibench, mpibench) and calibrate --full's
 * networks (the committed sample), fitted here by calibrate.  None is
 * empty; Fig. 13b has the three measured rings beside the model's value
 * for each, which must be scimodel's own. */
Test(plots, thesis_figures_are_drawn)
{
    char script[600], params[600], fig5[1300], full[600];
    const char *r = getenv("SCITORUS_ROOT") ? getenv("SCITORUS_ROOT") : ".";
    snprintf(script, sizeof script, "%s/plots/plots.sh", r);
    snprintf(full, sizeof full, "%s/data/sample/shm-full", r);
    snprintf(params, sizeof params, "%s/full.params", dir);
    char ring2[700], ring8[700], torus[700];
    snprintf(ring2, sizeof ring2, "%s-ring2.tsv", full);
    snprintf(ring8, sizeof ring8, "%s-ring8.tsv", full);
    snprintf(torus, sizeof torus, "%s-torus4x4.tsv", full);
    run_result c = run_cmd(run_prog("calibrate", 1), 60, "-q", "--data", ring2, "--data", ring8,
                           "--data", torus, "-o", params, NULL);
    cr_assert_eq(c.status, 0, "%s", c.err);
    run_free(&c);
    snprintf(fig5, sizeof fig5, "%s/tests/fixtures/plots/ring2-ow-shm.tsv %s/tests/fixtures/plots/ring2-ow-mpi.tsv",
             r, r);
    setenv("FIG5", fig5, 1);
    setenv("FULLDATA", full, 1);
    run_result res = run_cmd(script, 100, dir, run_prog("scimodel", 1), params, NULL);
    cr_assert_eq(res.status, 0, "%s", res.err);
    cr_assert_str_empty(res.err, "%s", res.err);
    assert_figure(res.out, "thesis-fig5");
    assert_figure(res.out, "thesis-fig12");
    assert_figure(res.out, "thesis-fig13b");
    run_free(&res);

    FILE *fp = fopen(run_path(dir, "data/thesis-fig13b-measured.tsv"), "r");
    cr_assert_not_null(fp);
    char line[256];
    int rings = 0;
    cr_assert_not_null(fgets(line, sizeof line, fp));
    while (fgets(line, sizeof line, fp)) {
        int n;
        double measured, model;
        cr_assert_eq(sscanf(line, "%d %lf %lf", &n, &measured, &model), 3, "%s", line);
        cr_assert(n == 2 || n == 6 || n == 8, "ring %d", n);
        char shape[16], hops[16], want[64];
        snprintf(shape, sizeof shape, "%d", n);
        snprintf(hops, sizeof hops, "%d", n / 2);
        run_result m = run_cmd(run_prog("scimodel", 1), 30, "--params", params, "--shape", shape,
                               "--hops", hops, "--size", "64", "--format", "tsv", NULL);
        cr_assert_eq(m.status, 0, "%s", m.err);
        /* latency_ns, the fifth column: intervals follow it when the file has errors */
        const char *t = strstr(m.out, "transaction\t");
        cr_assert_not_null(t, "%s", m.out);
        double total = 0;
        cr_assert_eq(sscanf(t, "transaction\t%*s\t%*s\t%*s\t%lf", &total), 1, "%s", m.out);
        snprintf(want, sizeof want, "%.6g", total / 2);
        cr_assert_float_eq(model, atof(want), 1e-9, "ring %d: %g, scimodel %s", n, model, want);
        cr_assert(measured > 0.5 * model && measured < 2 * model, "ring %d: %g vs %g", n,
                  measured, model);
        run_free(&m);
        rings++;
    }
    fclose(fp);
    cr_assert_eq(rings, 3, "the sample holds rings of 2, 6 and 8 nodes");
    char *svg = run_read_text(run_path(dir, "thesis-fig13b.svg"));
    cr_assert_not_null(strstr(svg, "extrapolated linearly from 3 rings"), "no extrapolation");
    free(svg);
}

/* scitrace/plot.sh on the smallest matrices a trace gives: one message size
 * (the histogram's range is one value) and one rank (the heatmap's grid is
 * one cell).  Each draws all four figures, none empty, with no warning. */
Test(plots, trace_plots_of_one_size_and_one_rank)
{
    static const char *const matrices[][2] = {
        {"one-size", "# scitorus-traffic 1\n# ranks: 2\n0\t1\t64\t10\n1\t0\t64\t10\n"},
        {"one-rank", "# scitorus-traffic 1\n# ranks: 1\n0\t0\t64\t10\n"},
    };
    char script[600];
    const char *r = getenv("SCITORUS_ROOT") ? getenv("SCITORUS_ROOT") : ".";
    snprintf(script, sizeof script, "%s/scitrace/plot.sh", r);
    for (size_t i = 0; i < sizeof matrices / sizeof matrices[0]; i++) {
        char matrix[700], name[64];
        snprintf(matrix, sizeof matrix, "%s/%s.tsv", dir, matrices[i][0]);
        run_write_text(matrix, matrices[i][1]);
        run_result res = run_cmd(script, 60, matrix, dir, NULL);
        cr_assert_eq(res.status, 0, "%s: %s", matrices[i][0], res.err);
        cr_assert_str_empty(res.err, "%s: %s", matrices[i][0], res.err);
        snprintf(name, sizeof name, "trace-%s-heatmap", matrices[i][0]);
        assert_figure(res.out, name);
        snprintf(name, sizeof name, "trace-%s-sizes", matrices[i][0]);
        assert_figure(res.out, name);
        run_free(&res);
    }
}
