/* SKaMPI's statistical controls on scibench's ping-pong, a pattern that is
 * not a collective, each against an injected truth: a 4-ring's symmetric
 * destination has one forwarding node each way, so --inject-forward 20000
 * puts 20 us of busy-waiting in every half round trip, a floor no batch
 * can go under. */
#include <math.h>
#include <time.h>

#include "benchdata/benchdata.h"
#include "coll/refine.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-ctl-XXXXXX";

static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

TestSuite(controls, .init = setup, .fini = teardown, .timeout = 300);

#define INJECTED_NS 20000.0

static bench_data read_ok(const char *path)
{
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%s:%ld: %s", path, e.line, e.msg);
    return d;
}

/* One point on the injected 4-ring, batches of at least 100 us, the
 * standard-error rule met at once (--rel-error 1); a, b: more options. */
static bench_point injected_point_rel(const char *name, const char *rel, const char *a1,
                                      const char *a2, const char *b1, const char *b2,
                                      const char *c1, const char *c2)
{
    const char *out = run_path(dir, name);
    run_result r = run_cmd(run_prog("scibench", 1), 120, "--ring", "4",
                           "--inject-forward", "20000", "--sizes", "8", "--batch-time", "100",
                           "--rel-error", rel, "-q", "-o", out, a1, a2, b1, b2, c1, c2, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    bench_data d = read_ok(out);
    cr_assert_eq(d.count, 1);
    bench_point p = d.points[0];
    bench_data_free(&d);
    cr_assert_geq(p.min_ns, INJECTED_NS, "a batch under the injected 20 us: %g ns", p.min_ns);
    return p;
}

static bench_point injected_point(const char *name, const char *a1, const char *a2,
                                  const char *b1, const char *b2, const char *c1, const char *c2)
{
    return injected_point_rel(name, "1", a1, a2, b1, b2, c1, c2);
}

/* --min-samples N: the point takes N batches where the rule alone stops it
 * near 10 ms (about 10 ms / 100 us batches). */
Test(controls, min_samples_sets_the_fewest_batches)
{
    run_timing_lock();
    bench_point plain = injected_point("plain.tsv", NULL, NULL, NULL, NULL, NULL, NULL);
    bench_point more = injected_point("min.tsv", "--min-samples", "300", NULL, NULL, NULL, NULL);
    cr_assert_lt(plain.samples, 300, "without --min-samples: %ld batches", plain.samples);
    cr_assert_eq(more.samples, 300, "--min-samples 300: %ld batches", more.samples);
    fprintf(stderr, "min-samples: %ld batches without, %ld with; medians %.0f, %.0f ns\n",
            plain.samples, more.samples, plain.median_ns, more.median_ns);
}

/* --cut-quantile Q on exactly N batches: N - 2 floor(Q N) kept, and what
 * is kept still sits on the injected floor, its median inside its range. */
Test(controls, cut_quantile_drops_both_tails)
{
    run_timing_lock();
    bench_point p = injected_point("cut.tsv", "--min-samples", "200", "--max-samples", "200",
                                   "--cut-quantile", "0.1");
    cr_assert_eq(p.samples, 160, "kept %ld of 200 batches", p.samples);
    cr_assert(p.min_ns <= p.median_ns && p.median_ns <= p.max_ns && p.mean_ns <= p.max_ns);
    char *text = run_read_text(run_path(dir, "cut.tsv"));
    cr_assert(strstr(text, "# cut_quantile: 0.1\n"), "%s", text);
    free(text);
}

/* A --refine run over 1 B, 4 KiB and 64 KiB (extra: its threshold), whose
 * curve bends at 4 KiB on a quiet machine, so that sizes are inserted.  A run
 * whose own three medians lie straight (a regime moving under one of them)
 * gives the rule nothing to do: measured again, then skipped with the figures. */
static bench_data refined_run(const char *out, const char *threshold)
{
    char seen[1024] = "";
    for (int k = 1; k <= 3; k++) {
        run_result r = run_cmd(run_prog("scibench", 1), 120, "--sizes", "1,4096,65536", "--refine",
                               "--refine-threshold", threshold, "--refine-min-distance", "8192",
                               "--refine-budget", "60", "--max-time", "0.05", "--rel-error",
                               "0.05", "-q", "-o", out, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        bench_data d = read_ok(out);
        if (d.count > 3)
            return d;
        size_t used = strlen(seen);
        snprintf(seen + used, sizeof seen - used, "%srun %d: %ld rows,", k > 1 ? "; " : "", k,
                 d.count);
        for (long i = 0; i < d.count; i++) {
            used = strlen(seen);
            snprintf(seen + used, sizeof seen - used, " %ld B %.0f ns", d.points[i].size_bytes,
                     d.points[i].median_ns);
        }
        bench_data_free(&d);
    }
    cr_skip_test("the curve never bent past the threshold %s: %s", threshold, seen);
    return (bench_data){0};
}

/* --refine: sizes inserted between the listed ones until, on the file's own
 * medians, the refinement rule (coll/refine.h) asks for no more. */
Test(controls, refine_inserts_sizes_until_the_curve_is_straight)
{
    run_timing_lock();
    const char *out = run_path(dir, "refine.tsv");
    bench_data d = refined_run(out, "0.1");
    long x[512];
    double y[512];
    int n = 0;
    for (long i = 0; i < d.count && n < 511; i++) {
        cr_assert(d.points[i].size_bytes >= 1 && d.points[i].size_bytes <= 65536);
        cr_assert(i == 0 || d.points[i].size_bytes > d.points[i - 1].size_bytes,
                  "rows not by size");
        refine_insert(x, y, &n, d.points[i].size_bytes, d.points[i].median_ns);
    }
    refine_cfg rule = {0.1, 8192, 1};
    cr_assert_eq(refine_next(&rule, x, y, n), -1, "the rule still asks for a size");
    bench_data_free(&d);
}

/* A refined run cut short (its largest size's row gone, '# incomplete') and
 * resumed keeps every row it had, the sizes --refine added among them. */
Test(controls, resumed_refinement_keeps_the_added_sizes)
{
    run_timing_lock();
    const char *out = run_path(dir, "refres.tsv");
    bench_data before = refined_run(out, "0.1");
    char *text = run_read_text(out), *last = strrchr(text, '\n');
    *last = '\0';
    last = strrchr(text, '\n');   /* the 65536 B row, the last by size */
    cr_assert(strstr(last, "\t65536\t"), "%s", last);
    strcpy(last + 1, "# incomplete\n");
    run_write_text(out, text);
    free(text);
    run_result r = run_cmd(run_prog("scibench", 1), 120, "--resume", out, "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    bench_data after = read_ok(out);
    for (long i = 0; i < before.count; i++) {
        const bench_point *p = &before.points[i];
        int kept = p->size_bytes == 65536;
        for (long j = 0; j < after.count && !kept; j++)
            kept = after.points[j].size_bytes == p->size_bytes &&
                   after.points[j].median_ns == p->median_ns;
        cr_assert(kept, "%ld B lost on resume", p->size_bytes);
    }
    bench_data_free(&before);
    bench_data_free(&after);
}

/* --rel-error E: a point ends only once its standard error is within E of
 * its mean and its median's 95% interval within 1.96 E of the median (its
 * flag then ok), or at --max-time; on a loaded machine the rule may not be met
 * within the time, so a run that reached the time is measured again, and
 * twice that is a skip with its figures, never a failure. */
Test(controls, rel_error_stops_the_point_when_met)
{
    run_timing_lock();
    double sem = 0, wall = 0;
    bench_point p = {0};
    for (int attempt = 0; attempt < 2; attempt++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        p = injected_point_rel("rel.tsv", "0.05", "--max-samples", "100000", "--max-time", "10",
                               NULL, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        sem = p.sd_ns / sqrt((double)p.samples);
        int met = sem <= 0.05 * p.mean_ns;
        cr_assert(met || wall >= 10, "ended after %.1f s, %ld batches, the rule unmet (standard"
                  " error %g ns, mean %g ns)", wall, p.samples, sem, p.mean_ns);
        if (met) {
            cr_assert_lt(p.samples, 100000, "the cap, not the rule, ended the point");
            cr_assert(!p.noisy || wall >= 10, "the rule ended the point with its median unknown");
            cr_assert_geq(p.mean_ns, INJECTED_NS);
            return;
        }
    }
    cr_skip_test("twice the rule was not met within --max-time 10 (last: standard error %g ns,"
                 " mean %g ns, %ld batches): the machine is too loaded to judge it", sem,
                 p.mean_ns, p.samples);
}

/* --max-samples N where the rule cannot be met (--rel-error 1e-6): exactly
 * N batches; --max-time S with no cap in reach: the point ends after S, its
 * batches (each at least 100 us) no more than S allows. */
Test(controls, max_samples_and_max_time_end_an_unmet_rule)
{
    run_timing_lock();
    bench_point capped = injected_point_rel("cap.tsv", "0.000001", "--max-samples", "50",
                                            "--max-time", "30", NULL, NULL);
    cr_assert_eq(capped.samples, 50, "--max-samples 50: %ld batches", capped.samples);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bench_point timed = injected_point_rel("time.tsv", "0.000001", "--max-samples", "1000000",
                                           "--max-time", "0.5", NULL, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_assert_geq(wall, 0.5, "the run took %.3f s, under --max-time 0.5", wall);
    cr_assert(timed.samples >= 2 && timed.samples <= 5000, "%ld batches of >= 100 us in 0.5 s",
              timed.samples);
}

/* --node-times on the injected 4-ring: two processes, the source and the
 * destination on process 0, both forwarding nodes on process 1, which so
 * busy-waits 2 x 20 us every round trip: its part of a half round trip is
 * at least 20 us, whatever the load (a floor, as the batches' own).  That
 * process 0's part stays under half of it (it forwards nothing) is decided
 * against the load: measured again once, then skipped with its figures. */
Test(controls, node_times_show_the_injected_relay)
{
    run_timing_lock();
    bench_point p = {0};
    for (int attempt = 0; attempt < 2; attempt++) {
        p = injected_point("nodes.tsv", "--node-times", "--procs", "2", NULL, NULL, NULL);
        cr_assert_eq(p.nodes, 2, "node_ns lists %d processes", p.nodes);
        cr_assert_geq(p.node_ns[1], INJECTED_NS, "the forwarding process's part %g ns, under"
                      " its injected 20 us", p.node_ns[1]);
        cr_assert_leq(p.node_ns[1], p.median_ns, "a part (%g ns) above the whole half round"
                      " trip (%g ns)", p.node_ns[1], p.median_ns);
        if (p.node_ns[0] < 0.5 * p.node_ns[1])
            return;
    }
    cr_skip_test("twice the source's and destination's process took %g ns a half round trip"
                 " against the relays' %g ns: the machine is too loaded to judge it",
                 p.node_ns[0], p.node_ns[1]);
}

/* the controls' bad values are refused by name */
Test(controls, usage_errors)
{
    run_result r = run_cmd(run_prog("scibench", 0), 30, "--min-samples", "50", "--max-samples",
                           "20", NULL);
    run_assert_error(&r, 2, "--min-samples", "more than --max-samples");
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 30, "--cut-quantile", "0.5", NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "--cut-quantile"), "%s", r.err);
    run_free(&r);
}
