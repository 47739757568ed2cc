/* Tests for calibrate --full's launches: of K whole launches, each measured,
 * fitted and checked alone, the one whose o(64) is the qualified launches'
 * median is kept whole (its parameters, its data files, its check), the
 * errors written and the params file's launch keys cover their spread, and
 * an unstable launch is measured again without counting.  The fake benchmark (tests/fake_bench.sh) gives
 * each launch its own state: every point N ns slower (plusN). */
#include <dirent.h>
#include <math.h>

#include "model/params.h"
#include "tests/fake_bench.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-launches-XXXXXX";
static void setup(void)
{
    run_tmpdir_make(dir);
    cr_assert_eq(chdir(dir), 0);
}
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(full_launches, .init = setup, .fini = teardown, .timeout = 120);

/* calibrate --full on the fake benchmark into f.params, with K launches
 * (NULL: the default). */
static run_result run_full(const char *k)
{
    return run_cmd(run_prog("calibrate", 0), 60, "--full", "--bench", fake_bench(), "-q", "-o",
                   "f.params", k ? "--launches" : NULL, k, NULL);
}

/* Each run's o(64) as its report line prints it (NAN: not fitted); returns
 * the runs seen. */
static int runs_o64(const char *out, double *o64, int cap)
{
    int n = 0;
    for (const char *l = strstr(out, "calibrate: run "); l && n < cap;
         l = strstr(l + 1, "calibrate: run ")) {
        int k;
        cr_assert_eq(sscanf(l, "calibrate: run %d", &k), 1);
        cr_assert_eq(k, n + 1, "%s", out);
        const char *o = strstr(l, "o(64 B) "), *eol = strchr(l, '\n');
        o64[n++] = o && o < eol ? atof(o + 8) : NAN;
    }
    return n;
}

/* --full with K launches (NULL: the default) on runs of the given modes:
 * exit 0 after nruns runs, each one's o(64) into o64. */
static run_result full_ok(const char *modes, const char *k, int nruns, double *o64)
{
    fake_bench_env(dir, "260", modes);
    run_result r = run_full(k);
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_eq(fake_bench_runs(dir), nruns, "%s", r.out);
    cr_assert_eq(runs_o64(r.out, o64, 16), nruns, "%s", r.out);
    return r;
}

/* The run (1-based) whose o(64) is the median of those listed (1-based
 * runs, the lower middle of an even count). */
static int median_run(const double *o64, const int *runs, int n)
{
    int r[16];
    memcpy(r, runs, (size_t)n * sizeof *r);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && o64[r[j] - 1] < o64[r[j - 1] - 1]; j--) {
            int t = r[j];
            r[j] = r[j - 1], r[j - 1] = t;
        }
    return r[(n - 1) / 2];
}

/* A data file's medians less the fixture's, row by row: all the same
 * (returned), or the test fails. */
static double shift_from_fixture(const char *path, const char *fixture)
{
    char *a = run_read_text(path), *b = run_read_text(run_fixture(fixture));
    char *sa = NULL, *sb = NULL, *la = strtok_r(a, "\n", &sa), *lb = strtok_r(b, "\n", &sb);
    double shift = NAN;
    int rows = 0;
    for (; la && lb; la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb)) {
        double ma, mb;
        if (*la == '#' || *lb == '#')
            continue;
        cr_assert_eq(sscanf(la, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %lf", &ma), 1);
        cr_assert_eq(sscanf(lb, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %lf", &mb), 1);
        if (!rows++)
            shift = ma - mb;
        cr_assert_float_eq(ma - mb, shift, 1e-6, "%s: %s", path, la);
    }
    cr_assert(!la && !lb && rows > 0, "%s: not the fixture's rows", path);
    free(a);
    free(b);
    return shift;
}

static void assert_nothing_kept_aside(void)
{
    DIR *dp = opendir(".");
    struct dirent *e;
    cr_assert_not_null(dp);
    while ((e = readdir(dp)))
        cr_assert_null(strstr(e->d_name, ".kept"), "left beside the data: %s", e->d_name);
    closedir(dp);
}

/* Three qualified launches, each in its own state: the one kept is the
 * median's, whole -- the params file's o(64) is its, the data on disk its
 * files -- and the errors written cover the three launches' spread. */
Test(full_launches, the_median_launch_is_kept_whole)
{
    double o64[16];
    run_result r = full_ok("plus40 clean plus20", "3", 3, o64);
    static const int all[] = {1, 2, 3};
    int med = median_run(o64, all, 3);
    /* every point 20 ns slower (a round trip) is about 10 ns more o */
    cr_assert_eq(med, 3, "o(64) %g %g %g", o64[0], o64[1], o64[2]);
    char want[96];
    snprintf(want, sizeof want, "kept run %d, the median o(64 B) of 3 qualified launches", med);
    cr_assert_not_null(strstr(r.out, want), "%s", r.out);
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read("f.params", &p, &e), 0, "%s: %s", e.msg, r.out);
    cr_assert_float_eq(model_overhead_ns(&p, 64), o64[med - 1], 0.1, "%s", r.out);
    /* the launch keys: the median over the launches and its interval (of
     * three launches, their minimum and maximum) */
    cr_assert_eq(p.launches, 3);
    cr_assert_float_eq(p.launch[MODEL_LAUNCH_O64][0], o64[med - 1], 0.1);
    cr_assert_float_eq(p.launch[MODEL_LAUNCH_O64][1], fmin(o64[0], fmin(o64[1], o64[2])), 0.1);
    cr_assert_float_eq(p.launch[MODEL_LAUNCH_O64][2], fmax(o64[0], fmax(o64[1], o64[2])), 0.1);
    cr_assert_float_eq(shift_from_fixture("f-ring2.tsv", "full/ring2.tsv"), 20, 1e-6);
    cr_assert_float_eq(shift_from_fixture("f-ring6.tsv", "full/ring6.tsv"), 20, 1e-6);
    double mean = (o64[0] + o64[1] + o64[2]) / 3, var = 0;
    for (int i = 0; i < 3; i++)
        var += (o64[i] - mean) * (o64[i] - mean) / 2;
    cr_assert_geq(p.err[MODEL_P_O0], sqrt(var) * (1 - 1e-3), "o0_ns_err %g, launches' sd %g",
                  p.err[MODEL_P_O0], sqrt(var));
    assert_nothing_kept_aside();
    run_free(&r);
}

/* An unstable run (its points in two regimes) is measured again and is no
 * launch: neither kept nor in the spread. */
Test(full_launches, an_unstable_run_is_no_launch)
{
    double o64[16];
    run_result r = full_ok("plus40 bimodal clean plus20", "3", 4, o64);
    static const int qualified[] = {1, 3, 4};
    char want[96];
    snprintf(want, sizeof want, "kept run %d, the median o(64 B) of 3 qualified launches",
             median_run(o64, qualified, 3));
    cr_assert_not_null(strstr(r.out, want), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "measuring again"), "%s", r.out);
    cr_assert_float_eq(shift_from_fixture("f-torus4x4.tsv", "full/torus4x4.tsv"), 20, 1e-6);
    assert_nothing_kept_aside();
    run_free(&r);
}

/* Of two launches, the lower o(64). */
Test(full_launches, of_two_launches_the_lower)
{
    double o64[16];
    run_result r = full_ok("plus40 clean", "2", 2, o64);
    cr_assert_lt(o64[1], o64[0]);
    cr_assert_not_null(strstr(r.out, "kept run 2, the median o(64 B) of 2"), "%s", r.out);
    cr_assert_float_eq(shift_from_fixture("f-ring8.tsv", "full/ring8.tsv"), 0, 1e-6);
    run_free(&r);
}

/* Before a launch qualified, a steady run that misses the check twice stops
 * --full (the fit's fault, not the measurement's: exit 3).  After one has,
 * misses no longer stop it -- the verdict is already a passed check's --
 * only the runs it takes: the launch that qualified is kept and --full says
 * how many of those asked for qualified. */
Test(full_launches, steady_misses_stop_only_before_a_launch_qualified)
{
    fake_bench_env(dir, "260", "badheld badheld plus20");
    run_result r = run_full("3");
    cr_assert_eq(r.status, 3, "%s\n%s", r.out, r.err);
    cr_assert_eq(fake_bench_runs(dir), 2, "%s", r.out);
    cr_assert_not_null(strstr(r.out, "a steady run missed the check twice"), "%s", r.out);
    run_free(&r);
    unlink("floors"), unlink("runs"), unlink("args");   /* the fake's counters start again */
    double o64[16];
    r = full_ok("plus20 badheld", "3", 10, o64);
    cr_assert_null(strstr(r.out, "a steady run missed the check twice"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "that was the last run --full takes"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "1 of the 3 launches asked for qualified"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "held-out check passed"), "%s", r.out);
    cr_assert_float_eq(shift_from_fixture("f-ring6.tsv", "full/ring6.tsv"), 20, 1e-6);
    assert_nothing_kept_aside();
    run_free(&r);
}

/* Without --launches, --full keeps its first qualified launch and takes no more. */
Test(full_launches, one_launch_unless_asked)
{
    double o64[16];
    run_result r = full_ok("plus40 clean plus20", NULL, 1, o64);
    cr_assert_null(strstr(r.out, "launching again"), "%s", r.out);
    cr_assert_float_eq(shift_from_fixture("f-ring6.tsv", "full/ring6.tsv"), 40, 1e-6);
    assert_nothing_kept_aside();
    run_free(&r);
}

/* Two steady misses stop --full as the fit's fault only when they agree:
 * misses whose parameters differ beyond their errors are the machine
 * changing between them, and the later one counts alone. */
Test(full_launches, misses_that_disagree_are_not_the_fits)
{
    fake_bench_env(dir, "260", "badheld badheld40 badheld40");
    run_result r = run_full(NULL);
    cr_assert_eq(r.status, 3, "%s\n%s", r.out, r.err);
    cr_assert_eq(fake_bench_runs(dir), 3, "%s", r.out);
    cr_assert_not_null(strstr(r.out, "runs 1 and 2 both missed, but their o(64 B) differ"),
                       "%s", r.out);
    cr_assert_not_null(strstr(r.out, "a steady run missed the check twice"), "%s", r.out);
    run_free(&r);
    unlink("floors"), unlink("runs"), unlink("args");
    fake_bench_env(dir, "260", "badheld badheld40 clean");
    r = run_full(NULL);
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_eq(fake_bench_runs(dir), 3, "%s", r.out);
    assert_nothing_kept_aside();
    run_free(&r);
}

/* Misses that never agree, to the last run --full takes: undecided (4),
 * not the fit's (3), and no params file. */
Test(full_launches, misses_that_never_agree_are_undecided)
{
    fake_bench_env(dir, "260", "badheld badheld40 badheld badheld40 badheld badheld40 badheld"
                               " badheld40 badheld badheld40");
    run_result r = run_full(NULL);
    cr_assert_eq(r.status, 4, "%s\n%s", r.out, r.err);
    cr_assert_eq(fake_bench_runs(dir), 10, "%s", r.out);
    cr_assert_not_null(strstr(r.err, "calibrate: undecided: the steady runs that missed disagreed"),
                       "%s", r.err);
    cr_assert_neq(access("f.params", F_OK), 0, "a params file was written");
    run_free(&r);
}

Test(full_launches, usage_errors)
{
    run_result r = run_cmd(run_prog("calibrate", 0), 30, "--full", "--launches", "11", NULL);
    run_assert_error(&r, 2, "--launches 11", "at most 10 runs");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 30, "--full", "--launches", "0", NULL);
    run_assert_error(&r, 2, "--launches", "0");
    run_free(&r);
}
