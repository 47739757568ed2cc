/* Tests for scimerge (benchdata/benchmerge.c): SKaMPI's merge of result files
 * (manual section 3.4) -- its worked examples are the oracles -- and a
 * real run split in two merging back to itself. */
#include <math.h>
#include <stdlib.h>

#include "benchdata/benchdata.h"
#include "model/params.h"
#include "tests/runcmd.h"

#define SCIMERGE run_prog("scimerge", 0)

static char dir[] = "/tmp/scitorus-merge-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(merge, .init = setup, .fini = teardown, .timeout = 60);

static const char *head =
    "# scitorus-bench 1\n# backend: shm\n# topology: ring 2\n# pattern: pp\n"
    "# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns "
    "mean_ns sd_ns ci95_ns max_ns flag\n";

/* A bench file in dir of the given rows (after the header). */
static const char *bench_file(const char *name, const char *rows)
{
    char *text = malloc(strlen(head) + strlen(rows) + 1);
    strcpy(text, head);
    strcat(text, rows);
    const char *path = run_path(dir, name);
    run_write_text(path, text);
    free(text);
    return path;
}

static void read_bench(const char *path, bench_data *d)
{
    bench_read_error e;
    cr_assert_eq(bench_data_read(path, d, &e), 0, "%s:%ld: %s", path, e.line, e.msg);
}

/* The manual's example: 899 from 10 measurements, 901 from 4, 910 from 4:
 * the result is 899, with that run's standard error. */
Test(merge, skampi_weighted_median)
{
    const char *a = bench_file("a.tsv", "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t4\t890.0\t901.0\t902.0\t3.00\t2.00\t950.0\tok\n");
    const char *b = bench_file("b.tsv", "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t10\t880.0\t899.0\t900.0\t5.00\t1.50\t990.0\tok\n");
    const char *c = bench_file("c.tsv", "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t4\t905.0\t910.0\t911.0\t4.00\t3.00\t960.0\tnoisy\n");
    const char *out = run_path(dir, "m.tsv");
    run_result r = run_cmd(SCIMERGE, 30, "-o", out, a, b, c, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    bench_data d;
    read_bench(out, &d);
    cr_assert_eq(d.count, 1);
    cr_assert_float_eq(d.points[0].median_ns, 899.0, 1e-9);
    cr_assert_float_eq(d.points[0].ci95_ns, 1.5, 1e-9, "the chosen run's interval");
    cr_assert_eq(d.points[0].samples, 10);
    cr_assert_not_null(bench_data_header(&d, "merged"));
    bench_data_free(&d);
}

/* The manual's interpolation: a run without 1020 B takes part with the
 * point linear between its 1008 B and 1024 B; weighted by its batches it
 * is the median here, so the merged 1020 B row is that interpolation. */
Test(merge, missing_size_interpolated)
{
    const char *a = bench_file("a.tsv",
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t1008\t4\t100\t990.0\t1000.0\t1001.0\t2.00\t1.00\t1100.0\tok\n"
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t1024\t4\t100\t1150.0\t1160.0\t1161.0\t2.00\t1.00\t1300.0\tok\n");
    const char *b = bench_file("b.tsv",
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t1008\t4\t10\t995.0\t1004.0\t1005.0\t2.00\t1.00\t1100.0\tok\n"
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t1020\t4\t10\t1190.0\t1200.0\t1201.0\t2.00\t1.00\t1300.0\tok\n"
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t1024\t4\t10\t1155.0\t1165.0\t1166.0\t2.00\t1.00\t1300.0\tok\n");
    const char *out = run_path(dir, "m.tsv");
    run_result r = run_cmd(SCIMERGE, 30, "-o", out, a, b, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "1 of 6 candidates interpolated"), "%s", r.err);
    run_free(&r);
    bench_data d;
    read_bench(out, &d);
    cr_assert_eq(d.count, 3);
    long want_size[3] = {1008, 1020, 1024};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(d.points[i].size_bytes, want_size[i]);
    cr_assert_float_eq(d.points[0].median_ns, 1000.0, 1e-9);
    cr_assert_float_eq(d.points[1].median_ns, 1000.0 + 160.0 * 12 / 16, 0.05,
                       "1020 B: %g", d.points[1].median_ns);
    cr_assert_float_eq(d.points[1].min_ns, 990.0 + 160.0 * 12 / 16, 0.05);
    bench_data_free(&d);
}

/* A real run (the sample 2-node ring) split in two, the small sizes and the
 * large ones overlapping in the middle: merged, every point is the run's
 * median, inside its interval, and no size is extrapolated. */
Test(merge, two_halves_of_one_run)
{
    bench_data run;
    read_bench(run_root_path("data/sample/shm-full-ring2.tsv"), &run);
    cr_assert_gt(run.count, 10);
    FILE *fa = fopen(run_path(dir, "lo.tsv"), "w"), *fb = fopen(run_path(dir, "hi.tsv"), "w");
    cr_assert(fa && fb);
    bench_data_write_header(fa, &run);
    bench_data_write_header(fb, &run);
    for (long i = 0; i < run.count; i++) {
        if (run.points[i].size_bytes <= 1024)
            bench_data_write_point(fa, &run.points[i]);
        if (run.points[i].size_bytes >= 512)
            bench_data_write_point(fb, &run.points[i]);
    }
    fclose(fa);
    fclose(fb);
    const char *out = run_path(dir, "m.tsv");
    run_result r = run_cmd(SCIMERGE, 30, "-o", out, run_path(dir, "hi.tsv"),
                           run_path(dir, "lo.tsv"), NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.err, " 0 of "), "nothing to interpolate: %s", r.err);
    run_free(&r);
    bench_data m;
    read_bench(out, &m);
    cr_assert_eq(m.count, run.count);
    for (long i = 0; i < run.count; i++) {
        const bench_point *want = &run.points[i];
        int found = 0;
        for (long j = 0; j < m.count; j++)
            if (m.points[j].size_bytes == want->size_bytes) {
                found++;
                cr_assert_leq(fabs(m.points[j].median_ns - want->median_ns), want->ci95_ns,
                              "%ld B: merged %g, run %g +- %g", want->size_bytes,
                              m.points[j].median_ns, want->median_ns, want->ci95_ns);
            }
        cr_assert_eq(found, 1, "%ld B", want->size_bytes);
    }
    for (long j = 1; j < m.count; j++)
        cr_assert_gt(m.points[j].size_bytes, m.points[j - 1].size_bytes, "rows by size");
    bench_data_free(&m);
    bench_data_free(&run);
}

/* --node-times' column is kept: the merged row's node times are its run's,
 * an interpolated row's lie between its neighbours'; a run without the
 * column leaves it out of the merge. */
Test(merge, node_times_kept)
{
    static const char *const nhead =
        "# scitorus-bench 1\n# backend: mpi\n# topology: ring 2\n# pattern: pp\n"
        "# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns "
        "mean_ns sd_ns ci95_ns max_ns flag floor_ns floor_q1_ns floor_q3_ns node_ns\n";
    const char *a = run_path(dir, "na.tsv"), *b = run_path(dir, "nb.tsv");
    char text[2048];
    snprintf(text, sizeof text, "%s%s", nhead,
             "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t10\t890.0\t900.0\t902.0\t3.00\t2.00\t950.0\tok\t50.0\t49.0\t51.0\t40.0,30.0\n"
             "pp\t0\t1\t1\t0\t0\t1\t0\t0\t128\t8\t10\t990.0\t1000.0\t1002.0\t3.00\t2.00\t1050.0\tok\t50.0\t49.0\t51.0\t60.0,50.0\n");
    run_write_text(a, text);
    snprintf(text, sizeof text, "%s%s", nhead,
             "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t4\t905.0\t910.0\t911.0\t4.00\t3.00\t960.0\tok\t50.0\t49.0\t51.0\t45.0,35.0\n"
             "pp\t0\t1\t1\t0\t0\t1\t0\t0\t96\t8\t40\t930.0\t940.0\t941.0\t4.00\t3.00\t990.0\tok\t50.0\t49.0\t51.0\t47.0,37.0\n"
             "pp\t0\t1\t1\t0\t0\t1\t0\t0\t128\t8\t4\t1005.0\t1010.0\t1011.0\t4.00\t3.00\t1060.0\tok\t50.0\t49.0\t51.0\t65.0,55.0\n");
    run_write_text(b, text);
    const char *out = run_path(dir, "nm.tsv");
    run_result r = run_cmd(SCIMERGE, 30, "-o", out, a, b, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    bench_data d;
    read_bench(out, &d);
    cr_assert(d.node_times, "the merge lost the node_ns column");
    cr_assert_eq(d.count, 3);
    /* 64 B: a's row (10 batches against 4); 96 B: b's own or a's interpolated, 50,40 */
    cr_assert_eq(d.points[0].nodes, 2);
    cr_assert_float_eq(d.points[0].node_ns[0], 40.0, 1e-9);
    cr_assert_float_eq(d.points[0].node_ns[1], 30.0, 1e-9);
    cr_assert_eq(d.points[1].nodes, 2);
    double n0 = d.points[1].node_ns[0];
    cr_assert(fabs(n0 - 47.0) < 1e-9 || fabs(n0 - 50.0) < 1e-9, "96 B: %g", n0);
    bench_data_free(&d);
    /* a file without the column: the merge has none */
    const char *c = run_path(dir, "nc.tsv");
    run_write_text(c, "# scitorus-bench 1\n# backend: mpi\n# topology: ring 2\n# pattern: pp\n"
                      "# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples"
                      " min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag\n"
                      "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t4\t905.0\t910.0\t911.0\t4.00\t3.00"
                      "\t960.0\tok\n");
    r = run_cmd(SCIMERGE, 30, "-o", out, a, c, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    read_bench(out, &d);
    cr_assert(!d.node_times);
    cr_assert_eq(d.points[0].nodes, 0);
    bench_data_free(&d);
}

/* Runs of different measurements are refused, naming the file and line;
 * a malformed file too; neither leaves an output. */
Test(merge, refuses_other_measurements)
{
    const char *a = bench_file("a.tsv", "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t4\t890.0\t901.0\t902.0\t3.00\t2.00\t950.0\tok\n");
    const char *b = run_path(dir, "b.tsv");
    run_write_text(b, "# scitorus-bench 1\n# backend: shm\n# topology: ring 6\n# pattern: pp\n"
                      "# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples"
                      " min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag\n");
    const char *out = run_path(dir, "m.tsv");
    run_result r = run_cmd(SCIMERGE, 30, "-o", out, a, b, NULL);
    run_assert_error(&r, 1, "b.tsv:3: topology 'ring 6'", "other topology");
    run_free(&r);
    run_write_text(b, "# scitorus-bench 1\npp\t0\t1\tx\n");
    r = run_cmd(SCIMERGE, 30, "-o", out, a, b, NULL);
    run_assert_error(&r, 1, "b.tsv:2", "malformed");
    run_free(&r);
    cr_assert_eq(access(out, F_OK), -1, "an output was left");
    r = run_cmd(SCIMERGE, 30, "-o", a, a, NULL);
    run_assert_error(&r, 2, "same file", "output = input");
    run_free(&r);
}

/* calibrate's o(m) fitted from the given bench files (each file once). */
static model_params calibrated(const char *name, const char *f1, const char *f2, const char *f3)
{
    const char *params = run_path(dir, name);
    run_result r = run_cmd(run_prog("calibrate", 0), 60, "-q", "-o", params, "--data", f1, f2, f3,
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(params, &p, &e), 0, "%s:%ld: %s", params, e.line, e.msg);
    return p;
}

/* calibrate merges repeated runs by scimerge's rule: three runs where the
 * batches (10, 4, 4) choose the spread-out run and 1/sigma^2 would choose a
 * steady one fit to the parameters of scimerge's file and of the chosen run. */
Test(merge, calibrate_merges_repeats_as_scimerge_does)
{
    const char *x = bench_file("x.tsv",
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t8\t10\t95.0\t100.0\t110.0\t50.0\t31.0\t300.0\tok\n"
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t10\t190.0\t200.0\t210.0\t50.0\t31.0\t400.0\tok\n");
    const char *y = bench_file("y.tsv",
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t8\t4\t149.0\t150.0\t150.0\t1.0\t1.0\t152.0\tok\n"
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t4\t259.0\t260.0\t260.0\t1.0\t1.0\t262.0\tok\n");
    const char *z = bench_file("z.tsv",
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t8\t4\t159.0\t160.0\t160.0\t1.0\t1.0\t162.0\tok\n"
        "pp\t0\t1\t1\t0\t0\t1\t0\t0\t64\t8\t4\t269.0\t270.0\t270.0\t1.0\t1.0\t272.0\tok\n");
    const char *merged = run_path(dir, "xyz.tsv");
    run_result r = run_cmd(SCIMERGE, 30, "-o", merged, x, y, z, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    model_params all = calibrated("all.params", x, y, z);
    model_params one = calibrated("merged.params", merged, NULL, NULL);
    model_params chosen = calibrated("x.params", x, NULL, NULL);
    cr_assert_float_eq(all.o0_ns, one.o0_ns, 1e-9, "o0: %g from the runs, %g from scimerge's",
                       all.o0_ns, one.o0_ns);
    cr_assert_float_eq(all.o1_ns_per_byte, one.o1_ns_per_byte, 1e-12);
    cr_assert_float_eq(all.o0_ns, chosen.o0_ns, 1e-9, "o0: %g, the 10-batch run's %g", all.o0_ns,
                       chosen.o0_ns);
    cr_assert_float_eq(all.o1_ns_per_byte, chosen.o1_ns_per_byte, 1e-12);
}
