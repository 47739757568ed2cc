/* mpibench --op under mpirun (timed: MPI collectives, injected send
 * delays) and scisim --collective's prediction on a LogP file. */
#include <math.h>

#include "coll/colldata.h"
#include "tests/runcmd.h"

TestSuite(coll_mpi, .timeout = 240);

#define MPIRUN(np) "/usr/bin/timeout", 150, "120", "mpirun", "--allow-run-as-root", \
                   "--oversubscribe", "-np", np, run_prog("mpibench", 1)

static void tmpname(char *buf)
{
    close(mkstemp(buf));
}

static void read_ok(const char *path, coll_data *d)
{
    file_error e;
    cr_assert_eq(coll_data_read(path, d, &e), 0, "%s:%ld: %s", path, e.line, e.msg);
}

Test(coll_mpi, procs_2_to_4_gives_rows_for_each_count)
{
    char out[] = "/tmp/scitorus-coll-XXXXXX";
    tmpname(out);
    run_result r = run_cmd(MPIRUN("4"), "--op", "allreduce", "--procs", "2..4", "--sizes", "8,1024",
                           "--min-samples", "8", "--max-samples", "200", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    coll_data d;
    read_ok(out, &d);
    cr_assert_eq(d.count, 6);
    for (long p = 2; p <= 4; p++)
        for (long s = 8; s <= 1024; s *= 128) {
            const coll_row *row = coll_data_find(&d, p, s);
            cr_assert_not_null(row, "no row for P=%ld, %ld bytes", p, s);
            cr_assert_gt(row->median_ns, 0);
            cr_assert_str_eq(row->op, "allreduce");
        }
    coll_data_free(&d);
    run_free(&r);
    unlink(out);
}

/* Each repetition's time is its slowest rank's, so its median is at least
 * every rank's own median (--node-times). */
Test(coll_mpi, window_sync_records_node_times_below_the_maximum)
{
    char out[] = "/tmp/scitorus-coll-XXXXXX";
    tmpname(out);
    run_result r = run_cmd(MPIRUN("2"), "--op", "bcast", "--sync", "window", "--node-times",
                           "--sizes", "8,4096", "--cut-quantile", "0.1", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    coll_data d;
    read_ok(out, &d);
    cr_assert_str_eq(d.sync, "window");
    cr_assert_eq(d.count, 2);
    for (long i = 0; i < d.count; i++) {
        double a, b;
        cr_assert_eq(sscanf(d.rows[i].node_ns, "%lf,%lf", &a, &b), 2, "node_ns '%s'",
                     d.rows[i].node_ns);
        cr_assert_geq(d.rows[i].median_ns, fmax(a, b) - 1e-6);
    }
    coll_data_free(&d);
    run_free(&r);
    unlink(out);
}

static double fastest(const char *op, const char *alg, const char *inject)
{
    char out[] = "/tmp/scitorus-coll-XXXXXX";
    tmpname(out);
    run_result r = run_cmd(MPIRUN("2"), "--op", op, "--algorithm", alg, "--sizes", "8",
                           "--sync", "barrier", "--inject-os", inject, "--min-samples", "32", "--max-samples", "200",
                           "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    coll_data d;
    read_ok(out, &d);
    const coll_row *row = coll_data_find(&d, 2, 8);
    cr_assert_not_null(row);
    double m = row->min_ns;   /* noise from other processes only adds */
    coll_data_free(&d);
    run_free(&r);
    unlink(out);
    return m;
}

/* A 300 us busy-wait before every send: the longest chain of sends is one
 * in a binomial broadcast and a linear scan on two ranks, two in
 * reduce-then-broadcast and reduce-then-scatter (rank 1 sends its part,
 * rank 0 reduces and sends the result back), so the fastest repetition
 * (--sync barrier: its slowest rank's; a mean over ranks is less by a
 * rank's late start) grows by D and 2 D.  Two ranks on this 2-core machine: with
 * three or four (oversubscribed) a loaded make check added a whole D of
 * scheduler slices now and then. */
Test(coll_mpi, injected_send_delay_grows_as_the_schedule_predicts)
{
    run_timing_lock();
    const double D = 300e3;
    struct { const char *op, *alg; double chain; } c[] = {
        {"bcast", "binomial", 1}, {"allreduce", "reduce_bcast", 2},
        {"reduce_scatter", "reduce_scatterv", 2}, {"scan", "linear", 1}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        double base = fastest(c[i].op, c[i].alg, "0");
        double slow = fastest(c[i].op, c[i].alg, "300000");
        double grew = slow - base, want = c[i].chain * D;
        cr_assert(fabs(grew - want) < 0.1 * want, "%s %s: grew %.0f ns, the schedule says %.0f",
                  c[i].op, c[i].alg, grew, want);
    }
}

Test(coll_mpi, bad_input_is_one_clear_line)
{
    struct { const char *np, *a, *b, *want; } c[] = {
        {"2", "--op", "scatterw", "--op 'scatterw': unknown value"},
        {"2", "--root", "2", "--root 2: outside the communicator of 2 processes"},
        {"2", "--procs", "2..3", "--procs 3: more processes than mpirun started (2)"},
        {"2", "--algorithm", "ring", "--algorithm 'ring': no algorithm 'ring' for bcast"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        run_result r = !strcmp(c[i].a, "--op")
                           ? run_cmd(MPIRUN(c[i].np), c[i].a, c[i].b, NULL)
                           : run_cmd(MPIRUN(c[i].np), "--op", "bcast", c[i].a, c[i].b, NULL);
        cr_assert_neq(r.status, 0);
        const char *at = strstr(r.err, c[i].want);
        cr_assert_not_null(at, "want '%s' in: %s", c[i].want, r.err);
        cr_assert_null(strstr(at + 1, c[i].want), "said twice: %s", r.err);
        cr_assert_not_null(strstr(at, "(try --help)\n"), "%s", r.err);
        run_free(&r);
    }
}

/* An --algorithm whose schedule needs another P is refused up front, before
 * any P is measured, as scisim refuses it (the oracle: scisim's answer to
 * the same request), with exit 2. */
Test(coll_mpi, algorithm_that_does_not_fit_a_count_is_a_usage_error)
{
    char out[] = "/tmp/scitorus-coll-XXXXXX";
    tmpname(out);
    unlink(out);
    run_result sim = run_cmd(run_prog("scisim", 0), 30, "--collective", "allgather",
                             "--algorithm", "recursive_doubling", "--procs", "3", "--emit-goal",
                             "-o", "/dev/null", NULL);
    cr_assert_eq(sim.status, 2, "scisim's answer changed: %d %s", sim.status, sim.err);
    run_free(&sim);
    for (int given = 0; given < 2; given++) {
        run_result r = given ? run_cmd(MPIRUN("3"), "--op", "allgather", "--algorithm",
                                       "recursive_doubling", "--procs", "2..3", "-q", "-o", out,
                                       NULL)
                             : run_cmd(MPIRUN("3"), "--op", "allgather", "--algorithm",
                                       "recursive_doubling", "-q", "-o", out, NULL);
        cr_assert_eq(r.status, 2, "%s: %d %s", given ? "--procs 2..3" : "-np 3", r.status, r.err);
        cr_assert_not_null(strstr(r.err, "--algorithm 'recursive_doubling' on 3 processes"),
                           "%s", r.err);
        cr_assert_not_null(strstr(r.err, "power-of-two"), "%s", r.err);
        cr_assert_neq(access(out, F_OK), 0, "a file was written for a refused run");
        run_free(&r);
    }
}

/* A barrier moves no data: one row per process count (size 0), and
 * --sizes with it is refused rather than measuring the same thing twice. */
Test(coll_mpi, barrier_has_one_row_per_count)
{
    char out[] = "/tmp/scitorus-coll-XXXXXX";
    tmpname(out);
    run_result r = run_cmd(MPIRUN("2"), "--op", "barrier", "--sizes", "8,16", "-q", "-o", out,
                           NULL);
    cr_assert_eq(r.status, 2, "%d %s", r.status, r.err);
    cr_assert_not_null(strstr(r.err, "--sizes '8,16': --op barrier moves no data"), "%s", r.err);
    run_free(&r);
    r = run_cmd(MPIRUN("3"), "--op", "barrier", "--procs", "2..3", "--max-samples", "200", "-q",
                "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    coll_data d;
    read_ok(out, &d);
    cr_assert_eq(d.count, 2, "one row per process count, not per size");
    cr_assert_not_null(coll_data_find(&d, 2, 0));
    cr_assert_not_null(coll_data_find(&d, 3, 0));
    coll_data_free(&d);
    run_free(&r);
    unlink(out);
}

/* --resume keeps the file's rows and measures only what is missing. */
Test(coll_mpi, resume_keeps_rows_and_measures_the_rest)
{
    char a[] = "/tmp/scitorus-coll-XXXXXX", b[] = "/tmp/scitorus-coll-XXXXXX";
    tmpname(a), tmpname(b);
    run_result r = run_cmd(MPIRUN("2"), "--op", "gather", "--sizes", "8", "-q", "-o", a, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_cmd(MPIRUN("2"), "--op", "gather", "--sizes", "8,64", "--resume", a, "-q", "-o", b, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    coll_data d1, d2;
    read_ok(a, &d1), read_ok(b, &d2);
    cr_assert_eq(d2.count, 2);
    cr_assert_float_eq(coll_data_find(&d2, 2, 8)->median_ns, d1.rows[0].median_ns, 1e-9);
    cr_assert_not_null(coll_data_find(&d2, 2, 64));
    run_free(&r);
    r = run_cmd(MPIRUN("2"), "--op", "bcast", "--resume", a, "-q", "-o", b, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "the file holds gather timed by osu, not --op bcast"),
                       "%s", r.err);
    coll_data_free(&d1), coll_data_free(&d2);
    run_free(&r);
    unlink(a), unlink(b);
}

/* --refine --resume: the sizes the earlier run's refinement added are kept
 * with their medians (they were dropped and measured anew), as the listed
 * ones are. */
Test(coll_mpi, resumed_refinement_keeps_the_added_sizes)
{
    char a[] = "/tmp/scitorus-coll-XXXXXX", b[] = "/tmp/scitorus-coll-XXXXXX";
    tmpname(a), tmpname(b);
    run_result r = run_cmd(MPIRUN("2"), "--op", "bcast", "--sizes", "8,4096,65536", "--refine",
                           "--refine-threshold", "0.01", "--refine-min-distance", "8192",
                           "--max-samples", "200", "-q", "-o", a, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_cmd(MPIRUN("2"), "--op", "bcast", "--sizes", "8,4096,65536", "--refine",
                "--refine-threshold", "0.01", "--refine-min-distance", "8192", "--max-samples",
                "200", "--resume", a, "-q", "-o", b, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    coll_data d1, d2;
    read_ok(a, &d1), read_ok(b, &d2);
    cr_assert_gt(d1.count, 3, "no size inserted at a 1%% departure");
    for (long i = 0; i < d1.count; i++) {
        const coll_row *kept = coll_data_find(&d2, 2, d1.rows[i].size);
        cr_assert_not_null(kept, "%ld B lost on resume", d1.rows[i].size);
        cr_assert_eq(kept->median_ns, d1.rows[i].median_ns, "%ld B measured again",
                     d1.rows[i].size);
    }
    coll_data_free(&d1), coll_data_free(&d2);
    unlink(a), unlink(b);
}

/* scisim --collective --logp: the prediction needs LogP rows covering every
 * message size. */
Test(coll_mpi, prediction_refuses_a_logp_file_without_the_sizes)
{
    char lp[] = "/tmp/scitorus-logp-XXXXXX";
    tmpname(lp);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "grep -v '^[0-9]\\{4,\\}' data/sample/logp-mpi-send-recv.tsv > %s", lp);
    cr_assert_eq(system(cmd), 0);   /* sizes up to 992 bytes only */
    run_result r = run_cmd(run_prog("scisim", 0), 20, "--collective", "alltoall", "--procs", "2",
                           "--size", "65536", "--logp", lp, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "no LogP row covers 65536-byte messages"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, lp), "%s", r.err);
    run_free(&r);
    r = run_cmd(run_prog("scisim", 0), 20, "--collective", "alltoall", "--procs", "2", "--size",
                "512", "--logp", lp, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    unlink(lp);
}

/* The v-variants, reduce_scatter, scan and exscan are predicted from a LogP
 * file as the eight are: on two ranks each is one message or one exchange
 * of m bytes, a broadcast's time (reduce_scatter's exchange carries half the
 * vector: a broadcast of m / 2), and calibrate --collectives predicts a
 * measured file of each. */
Test(coll_mpi, new_collectives_are_predicted)
{
    static const char *const ops[] = {"gatherv", "scatterv", "allgatherv", "alltoallv",
                                      "reduce_scatter", "scan", "exscan"};
    const char *lp = "data/sample/logp-mpi-send-recv.tsv";
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        int half = !strcmp(ops[i], "reduce_scatter");
        run_result a = run_cmd(run_prog("scisim", 0), 20, "--collective", ops[i], "--procs", "2",
                               "--size", half ? "1024" : "512", "--logp", lp, NULL);
        run_result b = run_cmd(run_prog("scisim", 0), 20, "--collective", "bcast", "--procs",
                               "2", "--size", "512", "--logp", lp, NULL);
        cr_assert(a.status == 0 && b.status == 0, "%s: %s%s", ops[i], a.err, b.err);
        const char *ta = strrchr(a.out, '\t'), *tb = strrchr(b.out, '\t');
        cr_assert(ta && tb && atof(ta + 1) > 0, "%s: %s", ops[i], a.out);
        cr_assert_float_eq(atof(ta + 1), atof(tb + 1), 1e-9, "%s: %s, bcast %s", ops[i], ta + 1,
                           tb + 1);
        run_free(&a), run_free(&b);
        char out[] = "/tmp/scitorus-coll-XXXXXX";
        tmpname(out);
        run_result m = run_cmd(MPIRUN("2"), "--op", ops[i], "--sizes", "512", "--max-samples",
                               "100", "-q", "-o", out, NULL);
        cr_assert_eq(m.status, 0, "%s: %s", ops[i], m.err);
        run_free(&m);
        run_result c = run_cmd(run_prog("calibrate", 0), 20, "--collectives", out, "--logp", lp,
                               NULL);
        cr_assert_eq(c.status, 0, "%s: %s%s", ops[i], c.out, c.err);
        cr_assert_not_null(strstr(c.out, ops[i]), "%s: %s", ops[i], c.out);
        run_free(&c);
        unlink(out);
    }
}

/* calibrate --collectives: a file measured at scisim's prediction plus 10%
 * at 512 B passes --max-error 15 and fails --max-error 5 (exit 3) on that
 * row alone; without --logp, and on a broken row, one clear line. */
Test(coll_mpi, calibrate_collectives_checks_the_prediction)
{
    const char *lp = "data/sample/logp-mpi-send-recv.tsv";
    run_result p = run_cmd(run_prog("scisim", 0), 20, "--collective", "bcast", "--procs", "2",
                           "--size", "8,512", "--logp", lp, NULL);
    cr_assert_eq(p.status, 0, "%s", p.err);
    double t8, t512;
    const char *row8 = strstr(p.out, "\t2\t8\t"), *row512 = strstr(p.out, "\t2\t512\t");
    cr_assert(row8 && row512 && sscanf(row8, "\t2\t8\t%lf", &t8) == 1 &&
              sscanf(row512, "\t2\t512\t%lf", &t512) == 1, "%s", p.out);
    run_free(&p);
    char f[] = "/tmp/scitorus-collf-XXXXXX";
    tmpname(f);
    FILE *fp = fopen(f, "w");
    fprintf(fp, "# scitorus-bench 1\n# pattern: coll\n# op: bcast\n# algorithm: library\n"
                "# sync: window\n# columns: pattern op procs root size sync reps dropped min_ns"
                " median_ns mean_ns sd_ns ci95_ns max_ns flag\n");
    fprintf(fp, "coll\tbcast\t2\t0\t8\twindow\t100\t0\t%.1f\t%.1f\t%.1f\t1.0\t1.0\t%.1f\tok\n", t8,
            t8, t8, t8);
    fprintf(fp, "coll\tbcast\t2\t0\t512\twindow\t100\t0\t%.1f\t%.1f\t%.1f\t1.0\t1.0\t%.1f\tok\n",
            1.1 * t512, 1.1 * t512, 1.1 * t512, 1.1 * t512);
    fclose(fp);
    run_result r = run_cmd(run_prog("calibrate", 0), 20, "--collectives", f, "--logp", lp,
                           "--max-error", "15", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 20, "--collectives", f, "--logp", lp, "--max-error",
                "5", NULL);
    cr_assert_eq(r.status, 3, "%s%s", r.out, r.err);
    const char *beyond = strstr(r.out, "beyond --max-error");
    cr_assert_not_null(beyond, "%s", r.out);
    cr_assert_null(strstr(beyond + 1, "beyond --max-error"), "8 B is on the prediction: %s", r.out);
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 20, "--collectives", f, NULL);
    run_assert_error(&r, 2, "give --logp FILE", "--collectives without --logp");
    run_free(&r);
    fp = fopen(f, "a");
    fprintf(fp, "coll\tbcast\t2\t0\tx\twindow\n");
    fclose(fp);
    r = run_cmd(run_prog("calibrate", 0), 20, "--collectives", f, "--logp", lp, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert_eq(run_lines(r.err), 1, "%s", r.err);
    char at[64];
    snprintf(at, sizeof at, "%s:9:", f);
    cr_assert_not_null(strstr(r.err, at), "want '%s' in: %s", at, r.err);
    run_free(&r);
    unlink(f);
}
