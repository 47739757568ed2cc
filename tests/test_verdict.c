/* Tests for calibrate's verdict and its reliability rules: an unstable
 * --full run is measured again (a fake benchmark, tests/fake_bench.sh,
 * injects the regime change), a held-out check that fails exits 3 and
 * writes no params file, no output overwrites an input, combinations that
 * mean nothing are refused, the params and LogP readers refuse what would
 * give negative times or unused keys, and the command line rules (-o -,
 * -q, --version, repeated options, option order). */
#include <math.h>
#include <sys/stat.h>

#include "model/params.h"
#include "tests/fake_bench.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-verdict-XXXXXX";
static void setup(void)
{
    run_tmpdir_make(dir);
    cr_assert_eq(chdir(dir), 0);   /* measuring without -o writes into the cwd */
}
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(verdict, .init = setup, .fini = teardown, .timeout = 120);

#define CALIBRATE run_prog("calibrate", 0)

static void fake_env(const char *floors, const char *modes) { fake_bench_env(dir, floors, modes); }
static const char *fake(void) { return fake_bench(); }
static int fake_runs(void) { return fake_bench_runs(dir); }

/* The fake's runs less those calibrate measured again only because the fake, slowed past
 * the time from which calibrate judges a run's CPU (a busy machine), idled as a benchmark
 * sharing its cores would: runs the rule under test did not ask for.  A run unstable for
 * a reason of its own as well (bimodal points, a moved floor) is one the rule asked for. */
static int judged_runs(const char *out)
{
    static const char *const own[] = {"the floor changed", "span regimes", "two regimes",
                                      "the fit failed"};
    int shared = 0;
    for (const char *p = out; (p = strstr(p, "calibrate: run ")) != NULL; p++) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        int alone = strstr(line, "(other work shared them)") != NULL;
        for (size_t i = 0; alone && i < sizeof own / sizeof *own; i++)
            alone = strstr(line, own[i]) == NULL;
        shared += alone;
    }
    return fake_runs() - shared;
}

/* calibrate --full on the fake benchmark, into f.params: one launch, whose
 * re-measurements these tests count (several: test_full_launches). */
static run_result run_full(void)
{
    return run_cmd(CALIBRATE, 60, "--full", "--launches", "1", "--bench", fake(), "-q", "-o",
                   "f.params", NULL);
}

static void copy_file(const char *from, const char *to)
{
    char *t = run_read_text(from);
    run_write_text(to, t);
    free(t);
}

static const char *last_line(const char *s)
{
    static char buf[1024];
    const char *end = s + strlen(s), *p = end;
    while (p > s && p[-1] == '\n')
        p--, end--;
    while (p > s && p[-1] != '\n')
        p--;
    snprintf(buf, sizeof buf, "%.*s", (int)(end - p), p);
    return buf;
}

Test(verdict, regime_change_between_floors_is_measured_again)
{
    /* floor 260 ns before the first run, 1000 ns after it (the injected
     * change of regime), then steady */
    fake_env("260 1000 260", "clean");
    run_result r = run_full();
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "run 1"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "the floor changed 3.8x during the run"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "measuring again"), "%s", r.out);
    cr_assert_eq(judged_runs(r.out), 2, "measured %d times:\n%s", fake_runs(), r.out);
    cr_assert_not_null(strstr(r.out, "held-out check passed"), "%s", r.out);
    cr_assert_eq(access("f.params", F_OK), 0);
    run_free(&r);
}

Test(verdict, regime_change_within_the_run_is_measured_again)
{
    /* steady floors, but every point's median at twice its minimum */
    fake_env("260", "bimodal clean");
    run_result r = run_full();
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "100 of 100 points took their batches in two regimes"),
                       "%s", r.out);
    cr_assert_eq(judged_runs(r.out), 2, "measured %d times:\n%s", fake_runs(), r.out);
    run_free(&r);
}

/* Unstable five times in a row (the regime moving, as at ~250 ns it did
 * within four runs), then clean: measured again past the fourth run, and
 * the clean sixth gives the params. */
Test(verdict, unstable_runs_are_measured_again_while_time_allows)
{
    fake_env("260", "bimodal bimodal bimodal bimodal bimodal clean");
    run_result r = run_full();
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_eq(judged_runs(r.out), 6, "measured %d times:\n%s", fake_runs(), r.out);
    cr_assert_null(strstr(r.out, "warning: the last run was unstable"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "held-out check passed"), "%s", r.out);
    run_free(&r);
}

/* A run so slow that another would overrun --full's budget: the message
 * says what the budget is, what is left and what another run needs, and
 * its numbers are the reason (left < needed). */
Test(verdict, budget_stop_says_why_the_time_left_is_not_enough)
{
    fake_env("260", "bimodal");
    setenv("FAKE_SECONDS", "25", 1);
    run_result r = run_full();
    unsetenv("FAKE_SECONDS");
    cr_assert(r.status == 0 || r.status == 3, "%d %s\n%s", r.status, r.out, r.err);
    cr_assert_eq(fake_runs(), 1, "%s", r.out);
    const char *m = strstr(r.out, "not measuring again: --full's budget is");
    cr_assert_not_null(m, "%s", r.out);
    double budget, left, need, took;
    cr_assert_eq(sscanf(m, "not measuring again: --full's budget is %lf s and %lf s of it are"
                           " left, but another run needs about %lf s (the last one took %lf s)",
                        &budget, &left, &need, &took), 4, "%s", m);
    cr_assert_lt(left, need, "%s", m);
    cr_assert_geq(took, 25, "%s", m);
    cr_assert_leq(left + took, budget + 1, "%s", m);
    cr_assert_null(strstr(r.out, "no time left"), "%s", r.out);
    run_free(&r);
}

/* chi^2/dof is said in words on its own line: sqrt(chi^2/dof) is how many
 * of the points' errors (the ones the fit weighted them by) they lie from
 * the fit. */
Test(verdict, chi2_is_explained_where_it_is_printed)
{
    static const char *const w[][2] = {{"relative", "nominal errors"},
                                       {"sem", "own standard errors"}};
    for (int i = 0; i < 2; i++) {
        run_result r = run_cmd(CALIBRATE, 60, "--data", run_fixture("plots/ring2.tsv"),
                               "--weights", w[i][0], "-o", "c.params", NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        const char *m = strstr(r.out, "chi^2/dof = ");
        cr_assert_not_null(m, "%s", r.out);
        double chi2, times;
        cr_assert_eq(sscanf(m, "chi^2/dof = %lf: the points lie about %lf times", &chi2, &times), 2,
                     "%.200s", m);
        cr_assert_lt(fabs(times - sqrt(chi2)), 0.01 * sqrt(chi2) + 0.5, "%.200s", m);
        const char *eol = strchr(m, '\n');
        cr_assert(strstr(m, w[i][1]) && strstr(m, w[i][1]) < eol, "%.200s", m);
        run_free(&r);
    }
}

/* Rows "size Hm Fm Sm ..." from text (after start, to the first line
 * without them) in order by path (Hm, Fm, Sm), then size; returns the rows
 * seen, or -1 at the first row out of order. */
static int rows_in_table_order(const char *text)
{
    double last[4] = {-1, -1, -1, -1};
    int n = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        double v[4];
        if (*l == '#' || sscanf(l, "%lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]) != 4)
            continue;
        const double key[4] = {v[1], v[2], v[3], v[0]}, prev[4] = {last[1], last[2], last[3], last[0]};
        for (int k = 0; k < 4 && key[k] <= prev[k]; k++)
            if (key[k] < prev[k])
                return -1;
        memcpy(last, v, sizeof last);
        n++;
    }
    return n;
}

/* The held-out table, printed and written, goes by path and size whatever
 * order the points were measured in (here the held-out ring's rows
 * reversed). */
Test(verdict, validation_table_is_by_size)
{
    char *ring6 = run_read_text(run_fixture("full/ring6.tsv"));
    FILE *fp = fopen("rev6.tsv", "w");
    cr_assert_not_null(fp);
    char *lines[512];
    int n = 0;
    for (char *l = strtok(ring6, "\n"); l && n < 512; l = strtok(NULL, "\n"))
        if (*l == '#')
            fprintf(fp, "%s\n", l);
        else
            lines[n++] = l;
    while (n > 0)
        fprintf(fp, "%s\n", lines[--n]);
    fclose(fp);
    run_result r = run_cmd(CALIBRATE, 60, "--data", run_fixture("full/ring2.tsv"),
                           run_fixture("full/ring8.tsv"), run_fixture("full/torus4x4.tsv"),
                           "--validate", "rev6.tsv", "--validation-out", "v.tsv", "-o", "v.params",
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *table = strstr(r.out, "validation (held-out data):");
    cr_assert_not_null(table, "%s", r.out);
    char *end = strstr(table, "median error");
    cr_assert_not_null(end);
    *end = '\0';
    cr_assert_gt(rows_in_table_order(table), 10, "printed out of order:\n%s", table);
    char *file = run_read_text("v.tsv");
    cr_assert_gt(rows_in_table_order(file), 10, "written out of order:\n%s", file);
    free(file);
    free(ring6);
    run_free(&r);
}

Test(verdict, steady_run_is_measured_once)
{
    fake_env("260", "clean");
    run_result r = run_full();
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_eq(judged_runs(r.out), 1, "%s", r.out);
    if (fake_runs() == 1)
        cr_assert_null(strstr(r.out, "measuring again"), "%s", r.out);
    run_free(&r);
}

/* The held-out ring 30% slow from 1 KiB on in every run: exit 3, the last
 * lines name the check and the worst sizes, no params file (a previous one
 * is left as it was). */
Test(verdict, held_out_failure_exits_3_and_writes_no_params)
{
    fake_env("260", "badheld");
    run_write_text("f.params", "previous\n");
    run_result r = run_full();
    cr_assert_eq(r.status, 3, "%s\n%s", r.out, r.err);
    /* steady both times: once more, not until it passes */
    cr_assert_eq(judged_runs(r.out), 2, "measured %d times:\n%s", fake_runs(), r.out);
    cr_assert_not_null(strstr(r.out, "a steady run missed the check twice"), "%s", r.out);
    cr_assert_not_null(strstr(r.err, "held-out check FAILED: max error"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "worst sizes:"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "B -2"), "a worst size and its error: %s", r.err);
    cr_assert_not_null(strstr(last_line(r.err), "no params file written"), "%s", r.err);
    char *t = run_read_text("f.params");
    cr_assert_str_eq(t, "previous\n");
    free(t);
    cr_assert_eq(access("f.params.failed", F_OK), -1);
    run_free(&r);
}

/* Run 1 passes the check but the floor moved (unstable); runs 2 and 3 are
 * steady and miss it.  The run kept is the best-qualified one, the first,
 * not the last: its parameters, its data files, and the spread over runs. */
Test(verdict, the_best_run_is_kept_not_the_last)
{
    fake_env("260 1000 260", "clean badheld");
    run_result r = run_full();
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_eq(judged_runs(r.out), 3, "measured %d times:\n%s", fake_runs(), r.out);
    char kept_line[64];
    snprintf(kept_line, sizeof kept_line, "kept run 1 of %d fitted", fake_runs());
    cr_assert_not_null(strstr(r.out, kept_line), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "the run kept (1) was unstable"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "held-out check passed"), "%s", r.out);
    char *kept = run_read_text("f-ring6.tsv"), *clean = run_read_text(run_fixture("full/ring6.tsv"));
    cr_assert_str_eq(kept, clean, "the held-out data on disk is the kept run's");
    free(kept);
    free(clean);
    cr_assert_eq(access("f-ring6.tsv.kept", F_OK), -1, "no file is left beside the data");
    run_free(&r);
}

/* Every run unstable (the floor moving in each) and every run missing the
 * check: the runs cannot tell a wrong fit from a busy machine, so the
 * verdict is undecided (exit 4), not failed, and no params file is written. */
Test(verdict, unstable_runs_that_miss_are_undecided_not_failed)
{
    char floors[256] = "";
    for (int i = 0; i < 12; i++)
        strcat(floors, "260 1000 ");
    fake_env(floors, "badheld");
    run_result r = run_full();
    cr_assert_eq(r.status, 4, "%s\n%s", r.out, r.err);
    cr_assert_not_null(strstr(r.err, "calibrate: undecided: every run was unstable"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "held-out check FAILED"), "%s", r.err);
    cr_assert_eq(access("f.params", F_OK), -1);
    run_free(&r);
    /* the same misses in steady runs: the fit's fault, exit 3 (the fake
     * benchmark's counters start again) */
    unlink("floors"), unlink("runs"), unlink("args");
    fake_env("260", "badheld");
    r = run_full();
    cr_assert_eq(r.status, 3, "%s\n%s", r.out, r.err);
    cr_assert_null(strstr(r.err, "undecided"), "%s", r.err);
    run_free(&r);
}

/* A benchmark that idles instead of spinning (the fake sleeps 0.6 s) had
 * almost none of its two cores, as one sharing them with other work would:
 * the run is unstable and measured again, whatever its floors said. */
Test(verdict, a_benchmark_without_its_cores_is_measured_again)
{
    fake_env("260", "clean");
    setenv("FAKE_SECONDS", "0.6", 1);
    run_result r = run_full();
    unsetenv("FAKE_SECONDS");
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "of its cores (other work shared them)"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "measuring again"), "%s", r.out);
    cr_assert_gt(fake_runs(), 1, "%s", r.out);
    run_free(&r);
}

/* The same for an MPI job (the launcher here a plain `env`, whose two
 * "ranks" idle) long enough to judge: its CPU over its ranks' cores. */
Test(verdict, an_mpi_job_without_its_cores_is_measured_again)
{
    fake_env("260", "clean");
    setenv("FAKE_SECONDS", "5.2 0", 1);   /* the second run too short to judge */
    run_result r = run_cmd(CALIBRATE, 60, "--full", "--launches", "1", "--backend", "mpi", "--mpirun",
                           "env", "--bench", fake(), "-q", "-o", "f.params", NULL);
    unsetenv("FAKE_SECONDS");
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "of its cores (other work shared them)"), "%s", r.out);
    cr_assert_eq(fake_runs(), 2, "%s", r.out);
    run_free(&r);
}

/* --validate is a held-out check too. */
Test(verdict, validate_failure_exits_3)
{
    const char *ring6 = run_fixture("full/ring6.tsv");
    char *text = run_read_text(ring6), *line, *save = NULL, out[65536] = "";
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char buf[512];
        double v[19];
        if (line[0] == '#' || sscanf(line, "pp %*s %*s %*s %*s %*s %*s %*s %*s %lf %lf %lf %lf "
                                           "%lf %lf %lf %lf %lf", &v[9], &v[10], &v[11],
                                     &v[12], &v[13], &v[14], &v[15], &v[16], &v[17]) != 9) {
            snprintf(buf, sizeof buf, "%s\n", line);
        } else {   /* 20% slower everywhere */
            snprintf(buf, sizeof buf, "pp\t0\t3\t3\t2\t0\t3\t2\t0\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t"
                     "%.1f\t%.2f\t%.2f\t%.1f\tok\n", v[9], v[10], v[11], 1.2 * v[12],
                     1.2 * v[13], 1.2 * v[14], v[15], v[16], 1.2 * v[17]);
        }
        strncat(out, buf, sizeof out - strlen(out) - 1);
    }
    free(text);
    run_write_text("slow6.tsv", out);
    run_result r = run_cmd(CALIBRATE, 60, "--data", run_fixture("full/ring2.tsv"),
                           run_fixture("full/ring8.tsv"), run_fixture("full/torus4x4.tsv"),
                           "--validate", "slow6.tsv", "-o", "v.params", NULL);
    cr_assert_eq(r.status, 3, "%s\n%s", r.out, r.err);
    cr_assert_not_null(strstr(r.err, "held-out check FAILED"), "%s", r.err);
    cr_assert_eq(access("v.params", F_OK), -1);
    run_free(&r);
    r = run_cmd(CALIBRATE, 60, "--data", run_fixture("full/ring2.tsv"),
                run_fixture("full/ring8.tsv"), run_fixture("full/torus4x4.tsv"), "--validate",
                ring6, "-o", "v.params", NULL);
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "held-out check passed"), "%s", r.out);
    cr_assert_eq(access("v.params", F_OK), 0);
    run_free(&r);
}

static int count(const char *s, const char *w)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, w)); p++)
        n++;
    return n;
}

Test(verdict, no_held_out_data_is_said_once)
{
    run_result r = run_cmd(CALIBRATE, 60, "--data", run_fixture("full/ring2.tsv"), "-o",
                           "r.params", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(count(r.out, "no held-out data"), 1, "%s", r.out);
    run_free(&r);
}

/* Every pair of a file calibrate reads and one it writes (or two it
 * writes): refused by device and inode, the input left as it was. */
Test(verdict, an_output_never_overwrites_an_input)
{
    copy_file(run_fixture("full/ring2.tsv"), "a.tsv");
    copy_file(run_fixture("full/ring6.tsv"), "b.tsv");
    copy_file(run_root_path("data/sample/logp-shm.tsv"), "l.tsv");
    cr_assert_eq(symlink("a.tsv", "link.tsv"), 0);
    static const char *const cases[][9] = {
        {"--data", "a.tsv", "-o", "a.tsv", NULL},
        {"--data", "a.tsv", "-o", "./link.tsv", NULL},
        {"--data", "a.tsv", "--validate", "b.tsv", "-o", "b.tsv", NULL},
        {"--data", "a.tsv", "--validate", "b.tsv", "--validation-out", "a.tsv", "-o", "x.params"},
        {"--bench-out", "z.tsv", "-o", "z.tsv", NULL},
        {"--logp", "l.tsv", "-o", "l.tsv", NULL},
        {"--logp", "l.tsv", "--loggopsim", "x.lgs", "-o", "x.lgs", NULL},
        {"--data", "a.tsv", "--logp", "l.tsv", "--loggopsim", "a.tsv", "-o", "x.params"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[12] = {(char *)CALIBRATE};
        int n = 1;
        for (int k = 0; k < 9 && cases[i][k]; k++)
            argv[n++] = (char *)cases[i][k];
        argv[n] = NULL;
        run_result r = run_argv(argv, 30);
        run_assert_error(&r, 2, "is the same file as", cases[i][1]);
        run_free(&r);
    }
    char *a = run_read_text("a.tsv"), *orig = run_read_text(run_fixture("full/ring2.tsv"));
    cr_assert_str_eq(a, orig, "a.tsv was overwritten");
    free(a);
    free(orig);
}

Test(verdict, meaningless_combinations_refused)
{
    static const char *const cases[][5] = {
        {"--data", "x.tsv", "--validation-out", "v.tsv", "no held-out data"},
        {"--data", "x.tsv", "--backend", "mpi", "--backend"},
        {"--logp", "x.tsv", "--ring", "4", "--ring"},
        {"--hostfile", "h", "--ring", "4", "--backend mpi"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_cmd(CALIBRATE, 30, cases[i][0], cases[i][1], cases[i][2],
                               cases[i][3], NULL);
        run_assert_error(&r, 2, cases[i][4], cases[i][2]);
        run_free(&r);
    }
}

static void params_refused(const char *text, const char *word)
{
    run_write_text("p.params", text);
    run_result r = run_cmd(run_prog("scimodel", 0), 30, "--params", "p.params", "--size", "0",
                           NULL);
    run_assert_error(&r, 1, word, text);
    run_free(&r);
}

#define BASE "mref_bytes = 64\nlp_ns = 7\nlf_ns = 60\nls_ns = 670\n"
Test(verdict, params_reader_refuses_negative_times_and_stray_segments)
{
    params_refused("o0_ns = 0\no1_ns_per_byte = 11.6\n" BASE, "o(m) is negative at 0 B");
    params_refused("o0_ns = 100\no1_ns_per_byte = 1\n" BASE "o_seg1_ns = 5\n",
                   "p.params:7: unknown key 'o_seg1_ns'");
    params_refused("o0_ns = 100\no1_ns_per_byte = 1\n" BASE "o_segments = 2\n"
                   "o_seg1_from_bytes = 1\no_seg1_ns = 100\no_seg1_ns_per_byte = 1\n"
                   "o_seg2_from_bytes = 64\no_seg2_ns = 200\no_seg2_ns_per_byte = 1\n"
                   "o_seg3_ns = 5\n", "p.params:14: unknown key 'o_seg3_ns'");
    params_refused("o0_ns = 100\no1_ns_per_byte = 1\n" BASE "lb_segments = 1\n"
                   "lb_seg1_from_bytes = 64\nlb_seg1_ns = 1\nlb_seg1_ns_per_byte = 1\n",
                   "the relays' cost lb(m) is negative at 0 B");
}

static void logp_file(const char *name, const char *header)
{
    char *t = run_read_text(run_root_path("data/sample/logp-shm.tsv")), out[65536] = "";
    char *save = NULL;
    for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "# L_ns:", 7) || !strncmp(l, "# ow_ns:", 8))
            continue;
        strncat(out, l, sizeof out - strlen(out) - 2);
        strcat(out, "\n");
        if (!strncmp(l, "# scitorus-", 11) && header)
            strncat(out, header, sizeof out - strlen(out) - 1);
    }
    free(t);
    run_write_text(name, out);
}

Test(verdict, logp_headers_checked)
{
    logp_file("nol.tsv", NULL);
    run_result r = run_cmd(CALIBRATE, 30, "--logp", "nol.tsv", "-o", "x.params", NULL);
    run_assert_error(&r, 1, "no L_ns header line", "no L_ns");
    run_free(&r);
    static const char *const bad[] = {"# L_ns: 50\n# ow_ns: 8:abc:1\n",
                                      "# L_ns: 50\n# ow_ns: 8:-40:1\n",
                                      "# L_ns: 50\n# ow_ns: 8:40\n"};
    for (int i = 0; i < 3; i++) {
        logp_file("ow.tsv", bad[i]);
        r = run_cmd(CALIBRATE, 30, "--logp", "ow.tsv", "-o", "x.params", NULL);
        /* the LogP reader refuses it at its line (benchdata/logpdata.c) */
        run_assert_error(&r, 1, "ow_ns '8:", bad[i]);
        run_free(&r);
    }
}

Test(verdict, constant_data_prints_no_nan)
{
    run_write_text("c.tsv", "# scitorus-bench 1\n# backend: shm\n# columns: pattern src dst hops"
                   " fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns"
                   " ci95_ns max_ns flag\n"
                   "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100\t100\t100\t0\t0\t100\tok\n"
                   "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t16\t8\t100\t100\t100\t0\t0\t100\tok\n"
                   "pp\t0\t1\t1\t0\t0\t1\t0\t0\t512\t16\t8\t100\t100\t100\t0\t0\t100\tok\n");
    for (int q = 0; q < 2; q++) {
        run_result r = run_cmd(CALIBRATE, 30, "--data", "c.tsv", "-o", "c.params",
                               q ? "-q" : "--segments", q ? NULL : "1", NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        cr_assert_null(strstr(r.out, "nan"), "%s", r.out);
        cr_assert_not_null(strstr(r.out, "R^2 undefined"), "%s", r.out);
        run_free(&r);
    }
}

Test(verdict, command_line_rules)
{
    const char *data = run_fixture("full/ring2.tsv");
    /* -o -: the params on stdout, readable; the report on stderr */
    run_result r = run_cmd(CALIBRATE, 30, "--data", data, "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_write_text("stdout.params", r.out);
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read("stdout.params", &p, &e), 0, "%s: %s", e.msg, r.out);
    cr_assert_not_null(strstr(r.err, "residuals"), "%s", r.err);
    cr_assert_eq(access("-", F_OK), -1);
    run_free(&r);
    /* -q: a summary of a few lines */
    r = run_cmd(CALIBRATE, 30, "--data", data, "-o", "q.params", "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_leq(run_lines(r.out), 10, "%s", r.out);
    run_free(&r);
    r = run_cmd(CALIBRATE, 30, "--version", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert_not_null(strstr(r.out, "calibrate (scitorus) "), "%s", r.out);
    run_free(&r);
    static const char *const twice[][4] = {{"-o", "a", "-o", "b"},
                                           {"--stat", "min", "--stat", "mean"},
                                           {"--segments", "2", "--segments", "3"}};
    for (int i = 0; i < 3; i++) {
        r = run_cmd(CALIBRATE, 30, "--data", data, twice[i][0], twice[i][1], twice[i][2],
                    twice[i][3], NULL);
        run_assert_error(&r, 2, "given twice", twice[i][0]);
        cr_assert_not_null(strstr(r.err, "try --help"), "%s", r.err);
        run_free(&r);
    }
    r = run_cmd(CALIBRATE, 30, "--no-such-option", NULL);
    run_assert_error(&r, 2, "--no-such-option", "unknown option");
    cr_assert_not_null(strstr(r.err, "try --help"), "%s", r.err);
    run_free(&r);
}

/* The fit's params with the given options in both orders are the same. */
Test(verdict, option_order_does_not_matter)
{
    const char *data = run_fixture("full/ring2.tsv");
    static const char *const pairs[][4] = {
        {"--preset", "enhanced", "--lp", "3"},
        {"--preset", "enhanced", "--fix", "lf=61,ls=400"},
        {"--cable-length", "2", "--preset", "enhanced"},
        {"--segments", "2", "--preset", "enhanced"},
    };
    for (int i = 0; i < 4; i++) {
        char *t[2];
        for (int o = 0; o < 2; o++) {
            const char *const *a = pairs[i];
            run_result r = run_cmd(CALIBRATE, 30, "--data", data, "-o", "-",
                                   a[o ? 2 : 0], a[o ? 3 : 1], a[o ? 0 : 2], a[o ? 1 : 3], NULL);
            cr_assert_eq(r.status, 0, "%s", r.err);
            char *cmd = strstr(r.out, "# command:"), *nl = cmd ? strchr(cmd, '\n') : NULL;
            cr_assert_not_null(nl);
            t[o] = strdup(nl);   /* (the recorded command differs, rightly) */
            char *at = strstr(t[o], "fitted_at = ");   /* and so may the second it ran */
            if (at)
                memset(at, ' ', strcspn(at, "\n"));
            run_free(&r);
        }
        cr_assert_str_eq(t[0], t[1], "%s %s / %s %s", pairs[i][0], pairs[i][1], pairs[i][2],
                         pairs[i][3]);
        free(t[0]);
        free(t[1]);
    }
    /* --quick's sizes against explicit --sizes: the benchmark gets --sizes */
    fake_env("260", "clean");
    for (int o = 0; o < 2; o++) {
        run_result r = run_cmd(CALIBRATE, 30, "--bench", fake(), "-q", "-o", "k.params",
                               o ? "--sizes" : "--quick", o ? "8,64,512" : "--sizes",
                               o ? "--quick" : "8,64,512", NULL);
        run_free(&r);
    }
    char *args = run_read_text(run_path(dir, "args"));
    cr_assert_eq(count(args, "--sizes 8,64,512 "), 2, "%s", args);
    free(args);
}

/* Outputs only where -o says: --data x.tsv writes x.params beside it;
 * measuring without -o writes into the cwd; neither creates data/. */
Test(verdict, default_outputs_stay_where_named)
{
    mkdir("in", 0777);
    copy_file(run_fixture("full/ring2.tsv"), "in/x.tsv");
    run_result r = run_cmd(CALIBRATE, 30, "--data", "in/x.tsv", "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(access("in/x.params", F_OK), 0, "%s", r.out);
    run_free(&r);
    fake_env("260", "clean");
    r = run_cmd(CALIBRATE, 30, "--bench", fake(), "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    cr_assert_eq(access(run_path(dir, "data"), F_OK), -1, "a data/ directory was created");
    char want[600];
    snprintf(want, sizeof want, "%s-shm.params", host);
    cr_assert_eq(access(want, F_OK), 0, "%s not written: %s", want, r.out);
    run_free(&r);
}

/* --mpirun is a launcher prefix, split like a shell word list: a quoted
 * word stays one argument, and no -np is added to a launcher that is not
 * mpirun. */
Test(verdict, mpirun_is_a_launcher_prefix)
{
    run_write_text("launch.sh", "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done"
                                " >launcher-args\nshift 2\nshift\nexec \"$@\"\n");
    chmod("launch.sh", 0755);
    fake_env("260", "clean");
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "%s/launch.sh --label 'a b' --", dir);
    run_result r = run_cmd(CALIBRATE, 60, "--backend", "mpi", "--mpirun", cmd, "--bench", fake(),
                           "--sizes", "8,64,512", "-q", "-o", "m.params", NULL);
    cr_assert_eq(r.status, 0, "%s\n%s", r.out, r.err);
    char *args = run_read_text("launcher-args");
    cr_assert_not_null(strstr(args, "[--label]\n[a b]\n[--]\n"), "%s", args);
    cr_assert_null(strstr(args, "[-np]"), "%s", args);
    free(args);
    run_free(&r);
}
