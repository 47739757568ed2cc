/* Tests for scibench: real shared-memory runs (parsed with the bench
 * reader), injected delays seen exactly, options, outputs (stops: test_scibench_stop.c). */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "benchdata/benchdata.h"
#include "benchdata/logpdata.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-sb-XXXXXX";

static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

TestSuite(scibench, .init = setup, .fini = teardown, .timeout = 120);

static const char *file(const char *name) { return run_path(dir, name); }

static bench_data read_ok(const char *path)
{
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%s:%ld: %s", path, e.line, e.msg);
    return d;
}

/* -q leaves nothing on stderr.  The one line allowed is the documented
 * warning of a machine that refuses CPU pinning (some CI containers); the
 * run is still valid there, only unpinned. */
static void assert_quiet(const char *err)
{
    static const char pin_warning[] = "scibench: warning: cannot pin to CPU ";
    for (const char *line = err; *line;) {
        const char *end = strchr(line, '\n');
        cr_assert(strncmp(line, pin_warning, sizeof pin_warning - 1) == 0,
                  "unexpected stderr under -q: %s", line);
        line = end ? end + 1 : line + strlen(line);
    }
}

Test(scibench, short_run_parses_and_grows_with_size)
{
    const char *out = file("ring2.tsv");
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--sizes", "8,4096,65536", "--max-time",
                           "0.5", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_quiet(r.err);
    bench_data d = read_ok(out);
    cr_assert_eq(d.count, 3);
    cr_assert_not(d.incomplete);
    cr_assert_str_eq(bench_data_header(&d, "backend"), "shm");
    cr_assert_str_eq(bench_data_header(&d, "topology"), "ring 2");
    cr_assert_not_null(bench_data_header(&d, "floor_ns"));
    for (int i = 0; i < 3; i++) {
        cr_assert_gt(d.points[i].min_ns, 0);
        cr_assert_leq(d.points[i].min_ns, d.points[i].median_ns);
        cr_assert_leq(d.points[i].median_ns, d.points[i].max_ns);
        cr_assert_geq(d.points[i].samples, 8);
        cr_assert_eq(d.points[i].hops, 1);
    }
    cr_assert_lt(d.points[0].median_ns, d.points[1].median_ns);
    cr_assert_lt(d.points[1].median_ns, d.points[2].median_ns);
    bench_data_free(&d);
    run_free(&r);
}

/* Rows by destination, then size, whatever order the points finished in
 * (several destinations are measured in turn by default). */
Test(scibench, rows_come_by_destination_then_size)
{
    const char *out = file("ring4.tsv");
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--ring", "4", "--all-dst", "--sizes", "8,64,1024",
                           "--max-time", "0.02", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    bench_data d = read_ok(out);
    cr_assert_eq(d.count, 9);
    for (long i = 1; i < (long)d.count; i++) {
        const bench_point *a = &d.points[i - 1], *b = &d.points[i];
        cr_assert(a->dst < b->dst || (a->dst == b->dst && a->size_bytes < b->size_bytes),
                  "row %ld: %ld B to %ld after %ld B to %ld", i + 1, b->size_bytes, b->dst, a->size_bytes,
                  a->dst);
    }
    bench_data_free(&d);
    run_free(&r);
}

/* --floor alone prints the flag floor; with --sizes, one row per size of
 * the flag and the same bounce carrying that many bytes, copied in and out:
 * copying 64 KiB each way costs more than copying 8 B. */
Test(scibench, floor_and_copy_rows)
{
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--floor", NULL);
    double f;
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(sscanf(r.out, "floor_ns\t%lf", &f), 1, "%s", r.out);
    cr_assert_gt(f, 0);
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 60, "--floor", "--sizes", "8,65536", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    long size[2];
    double floor_ns[2], copy_ns[2];
    int rows = 0;
    char *save = NULL;
    for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (*line == '#')
            continue;
        cr_assert_lt(rows, 2, "%s", r.out);
        cr_assert_eq(sscanf(line, "%ld\t%lf\t%lf", &size[rows], &floor_ns[rows], &copy_ns[rows]),
                     3, "%s", line);
        rows++;
    }
    cr_assert_eq(rows, 2, "%s", r.out);
    cr_assert_eq(size[0], 8);
    cr_assert_eq(size[1], 65536);
    for (int i = 0; i < 2; i++)
        cr_assert(floor_ns[i] > 0 && copy_ns[i] > 0);
    cr_assert_gt(copy_ns[1], copy_ns[0], "%s", r.out);
    run_free(&r);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* --floor --lines: one row per place, numbered 0..63, and a spread line
 * whose median, fastest, slowest and count of slow places are the rows'
 * (recomputed here by sorting them). */
Test(scibench, floor_lines_rows_and_their_spread)
{
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--floor", "--lines", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    double ns[64], med = 0, lo = 0, hi = 0, ratio = 0, q1, q3, slow_at;
    int rows = 0, slow = -1, of = 0;
    char *save = NULL;
    for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "# spread:", 9)) {
            cr_assert_eq(sscanf(line, "# spread: median %lf ns, quartiles %lf..%lf, fastest %lf, "
                                      "slowest %lf (%lfx the median); %d of %d places above %lfx",
                                &med, &q1, &q3, &lo, &hi, &ratio, &slow, &of, &slow_at),
                         9, "%s", line);
            continue;
        }
        if (*line == '#')
            continue;
        int place;
        cr_assert_lt(rows, 64, "%s", r.out);
        cr_assert_eq(sscanf(line, "%d\t%lf", &place, &ns[rows]), 2, "%s", line);
        cr_assert_eq(place, rows);
        cr_assert_gt(ns[rows], 0);
        rows++;
    }
    cr_assert_eq(rows, 64, "%s", r.out);
    cr_assert_eq(of, 64);
    qsort(ns, 64, sizeof ns[0], by_value);
    cr_assert_float_eq(med, (ns[31] + ns[32]) / 2, 0.051 + 1e-9, "%s", r.out);
    cr_assert_float_eq(lo, ns[0], 0.051);
    cr_assert_float_eq(hi, ns[63], 0.051);
    cr_assert(q1 <= med && med <= q3, "%s", r.out);
    int above = 0;
    for (int k = 0; k < 64; k++)
        above += ns[k] > slow_at * med + 0.1;
    cr_assert_leq(abs(above - slow), 1, "%d counted here, %d printed", above, slow);   /* rounding */
    run_free(&r);
}

Test(scibench, torus_rows_record_request_and_response_paths)
{
    const char *out = file("torus.tsv");
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--torus", "3x3", "--all-dst", "--sizes",
                           "8", "--max-time", "0.2", "--rel-error", "0.05", "-q", "-o", out,
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    bench_data d = read_ok(out);
    cr_assert_eq(d.count, 8);
    /* dst 4 = (1,1): 1 hop each way in both dimensions -> 1 switch; the
     * response goes 2 + 2 hops: 2 forwards, 1 switch (rows come as the
     * destinations, measured in turn, finish) */
    const bench_point *p = NULL;
    for (long i = 0; i < d.count; i++)
        p = d.points[i].dst == 4 ? &d.points[i] : p;
    cr_assert_not_null(p, "no row for dst 4");
    cr_assert_eq(p->hops, 2);
    cr_assert_eq(p->sw, 1);
    cr_assert_eq(p->rhops, 4);
    cr_assert_eq(p->rfwd, 2);
    cr_assert_eq(p->rsw, 1);
    bench_data_free(&d);
    run_free(&r);
}

/* PP ring 8 - PP ring 2 and PP ring 4 - PP ring 2 (medians) at each of `sizes` (at most 2)
 * into g8[] and g4[], the three rings interleaved in one run. */
static void growths_of_run(const char *inject, const char *sizes, double *g8, double *g4)
{
    char r2[256], r8[256], r4[256], i8[300], i4[300];
    snprintf(r2, sizeof r2, "%s", file("inj2.tsv"));
    snprintf(r8, sizeof r8, "%s", file("inj8.tsv"));
    snprintf(r4, sizeof r4, "%s", file("inj4.tsv"));
    snprintf(i8, sizeof i8, "8=%s", r8);
    snprintf(i4, sizeof i4, "4=%s", r4);
    run_result r = run_cmd(run_prog("scibench", 1), 60, "--ring", "2", "-o", r2, "--interleave",
                           i8, "--interleave", i4, "--sizes", sizes, "--inject-forward", inject,
                           "--max-time", "1", "--rel-error", "0.002", "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    bench_data d2 = read_ok(r2), d8 = read_ok(r8), d4 = read_ok(r4);
    cr_assert_eq(d2.count, d8.count);
    cr_assert_eq(d2.count, d4.count);
    for (long i = 0; i < d2.count && i < 2; i++) {
        const bench_point *p8 = &d8.points[0], *p4 = &d4.points[0];
        for (long j = 0; j < d8.count; j++)   /* (rows in the order points finished) */
            if (d8.points[j].size_bytes == d2.points[i].size_bytes)
                p8 = &d8.points[j];
        for (long j = 0; j < d4.count; j++)
            if (d4.points[j].size_bytes == d2.points[i].size_bytes)
                p4 = &d4.points[j];
        int k = d2.points[i].size_bytes == atol(sizes) ? 0 : 1;
        g8[k] = p8->median_ns - d2.points[i].median_ns;
        g4[k] = p4->median_ns - d2.points[i].median_ns;
    }
    bench_data_free(&d2);
    bench_data_free(&d8);
    bench_data_free(&d4);
}

/* Symmetric destinations: on an 8-ring 3 forwards each way, on a 4-ring 1, so each
 * forward's wait adds 3 and 1 waits to PP less ring 2's.  What one wait adds moves with
 * the machine (the relay resuming after it: tests/injected.h), so the 4-ring's growth is
 * the measure of one forward: the 8-ring's is 3 of them within 10%, and one is the wait
 * or up to half more (a wait never gives less; twice is a bug).  Medians of ROUNDS
 * rounds of the rings interleaved, with and without the wait. */
#define ROUNDS 5
#define WAIT_NS 2000.0
static void assert_three_forwards(const char *what, double *g8, double *g4)
{
    gsl_sort(g8, 1, ROUNDS);
    gsl_sort(g4, 1, ROUNDS);
    double m8 = gsl_stats_median_from_sorted_data(g8, 1, ROUNDS);
    double m4 = gsl_stats_median_from_sorted_data(g4, 1, ROUNDS);
    fprintf(stderr, "injected forward%s: ring 8 grew %.1f .. %.1f ns, median %.1f; ring 4 %.1f"
            " .. %.1f, median %.1f\n", what, g8[0], g8[ROUNDS - 1], m8, g4[0], g4[ROUNDS - 1], m4);
    cr_assert(m4 >= 0.9 * WAIT_NS && m4 <= 1.5 * WAIT_NS, "%s: one forward grew %.1f ns for a"
              " %.0f ns wait (rounds %.1f .. %.1f)", what, m4, WAIT_NS, g4[0], g4[ROUNDS - 1]);
    cr_assert(fabs(m8 - 3 * m4) <= 0.1 * 3 * m4, "%s: ring 8 grew %.1f ns, three forwards of"
              " ring 4's %.1f are %.1f (rounds %.1f .. %.1f)", what, m8, m4, 3 * m4, g8[0],
              g8[ROUNDS - 1]);
}

Test(scibench, injected_forward_delay_is_seen)
{
    double g8[ROUNDS], g4[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        double w8, w4, n8, n4;
        growths_of_run("2000", "8", &w8, &w4);
        growths_of_run("0", "8", &n8, &n4);
        g8[k] = w8 - n8, g4[k] = w4 - n4;
    }
    assert_three_forwards("", g8, g4);
}

/* The same through the receive's two paths: 24 B travels in the header's
 * line (no fence), 64 B in two lines (the second read while waiting, then
 * the fence).  Relays must see each injected forward either way. */
Test(scibench, injected_forward_delay_is_seen_in_one_and_two_lines)
{
    double g8[2][ROUNDS], g4[2][ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        double w8[2], w4[2], n8[2], n4[2];
        growths_of_run("2000", "24,64", w8, w4);
        growths_of_run("0", "24,64", n8, n4);
        for (int i = 0; i < 2; i++)
            g8[i][k] = w8[i] - n8[i], g4[i][k] = w4[i] - n4[i];
    }
    assert_three_forwards(" at 24 B", g8[0], g4[0]);
    assert_three_forwards(" at 64 B", g8[1], g4[1]);
}

/* The engine's route is the path topo counts: on a 4x4 torus over 2 processes,
 * 20 us per forward and 50 us per switch grow each destination's half round
 * trip by ((F + F') x 20000 + (S + S') x 50000) / 2 ns, counts from topo.
 * A destination off by more than 10% decides only when it is off by more
 * than its points' own noise besides: how far each median sits above its
 * fastest batch, and each point's floor above its run's lowest (a
 * descheduled ping-pong takes a time slice a round trip, and so does its
 * floor).  Else the pair is measured again, then the test skipped with the
 * figures. */
static double point_noise(const bench_point *p, double floor_base)
{
    return (p->median_ns - p->min_ns) + fmax(0, p->floor_q3_ns - floor_base);
}

static double lowest_floor(const bench_data *d)
{
    double lo = 0;
    for (long i = 0; i < d->count; i++)
        if (d->points[i].floor_q1_ns > 0 && (lo == 0 || d->points[i].floor_q1_ns < lo))
            lo = d->points[i].floor_q1_ns;
    return lo;
}

#define TORUS_TRIES 3
/* One plain and one injected run; 1 when every destination grew as
 * counted, 0 when a miss was within its points' noise (why says which); a
 * miss beyond it fails the test. */
static int torus_try(char *why, size_t len)
{
    bench_data d[2];
    for (int k = 0; k < 2; k++) {
        const char *out = file(k ? "torus-inj.tsv" : "torus-0.tsv");
        run_result r = run_cmd(run_prog("scibench", 1), 90, "--torus", "4x4", "--all-dst",
                               "--sizes", "8", "--max-time", "0.1", "--inject-forward",
                               k ? "20000" : "0", "--inject-switch", k ? "50000" : "0", "-q", "-o",
                               out, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        d[k] = read_ok(out);
    }
    cr_assert_eq(d[0].count, 15);
    cr_assert_eq(d[1].count, 15);
    double worst = 0, base0 = lowest_floor(&d[0]), base1 = lowest_floor(&d[1]);
    int decided = 1;
    for (long i = 0; i < 15; i++) {
        const bench_point *a = NULL, *b = &d[1].points[i];
        for (long j = 0; j < 15; j++)   /* rows come as the destinations finish */
            a = d[0].points[j].dst == b->dst ? &d[0].points[j] : a;
        cr_assert_not_null(a, "no dst %ld without the injection", b->dst);
        double want = ((b->fwd + b->rfwd) * 20000.0 + (b->sw + b->rsw) * 50000.0) / 2;
        double got = b->median_ns - a->median_ns;
        cr_assert_gt(want, 0, "dst %ld: no forward and no switch counted", b->dst);
        if (fabs(got - want) > 0.1 * want) {
            double noise = point_noise(a, base0) + point_noise(b, base1);
            cr_assert(fabs(got - want) - 0.1 * want <= noise,
                      "dst %ld (F %ld+%ld, S %ld+%ld): grew %.1f ns, want %.1f, beyond 10%% by more "
                      "than the points' noise (%.1f ns)", b->dst, b->fwd, b->rfwd, b->sw, b->rsw,
                      got, want, noise);
            if (decided)
                snprintf(why, len, "dst %ld grew %.1f ns, want %.1f, the points' noise %.1f ns",
                         b->dst, got, want, noise);
            decided = 0;
        }
        worst = fmax(worst, fabs(got - want) / want);
    }
    fprintf(stderr, "torus injected: worst destination %.2f%% off its counted growth\n",
            100 * worst);
    bench_data_free(&d[0]);
    bench_data_free(&d[1]);
    return decided;
}

Test(scibench, injected_delays_follow_the_counted_torus_path)
{
    char why[TORUS_TRIES][300], seen[1000] = "";
    for (int k = 0; k < TORUS_TRIES; k++) {
        if (torus_try(why[k], sizeof why[k]))
            return;
        size_t used = strlen(seen);
        snprintf(seen + used, sizeof seen - used, "%stry %d: %s", k ? "; " : "", k + 1, why[k]);
    }
    cr_skip_test("every try missed within its points' noise (a busy machine): %s", seen);
}

/* A 2-node ring has no forward and no switch: injected delays must not
 * show (they once did at the source and at the reply's first hop, 5000 ns
 * here).  Two runs; the VM's regimes move PP by ~200 ns at most. */
Test(scibench, no_delay_injected_where_messages_start)
{
    double pp[2];
    for (int k = 0; k < 2; k++) {
        const char *out = file("start.tsv");
        run_result r = run_cmd(run_prog("scibench", 1), 60, "--sizes", "8", "--max-time", "0.2",
                               "--inject-forward", k ? "5000" : "0", "--inject-switch",
                               k ? "5000" : "0", "-q", "-o", out, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        bench_data d = read_ok(out);
        pp[k] = d.points[0].median_ns;
        bench_data_free(&d);
    }
    cr_assert_lt(pp[1], pp[0] + 1000, "PP %.1f ns with injection, %.1f without", pp[1], pp[0]);
}

/* One rule for options, in scibench and in mpibench (which parses before
 * MPI_Init, so one process shows it): a repeated option is refused, an
 * unknown one ends with "try --help", -o - is standard output, --version. */
Test(scibench, one_rule_for_options)
{
    static const char *const twice[][7] = {
        {"scibench", "--sizes", "8", "--sizes", "16", NULL, "--sizes '16' given twice (--sizes '8' and --sizes '16')"},
        {"scibench", "-o", "a", "-o", "b", NULL, "--output 'b' given twice (--output 'a' and --output 'b')"},
        {"scibench", "--max-time", "1", "--max-time", "2", NULL, "--max-time '2' given twice"},
        {"scibench", "-q", "--quiet", NULL, NULL, NULL, "--quiet given twice"},
        {"scibench", "--pattern", "logp", "--sizes", "0..8", "--max-size", "the same sizes twice"},
        {"mpibench", "--sizes", "8", "--sizes", "16", NULL, "--sizes '16' given twice"},
        {"mpibench", "--mpi-send", "send", "--mpi-send", "isend", NULL, "--mpi-send 'isend' given twice"},
        {"scibench", "--bogus", NULL, NULL, NULL, NULL, "unrecognized option '--bogus'"},
        {"mpibench", "--procs", "4", NULL, NULL, NULL, "--procs: not an option of --pattern pp"},
    };
    for (size_t i = 0; i < sizeof twice / sizeof twice[0]; i++) {
        char *argv[8] = {(char *)run_prog(twice[i][0], 0)};
        int n = 1;
        for (int k = 1; k < 6 && twice[i][k]; k++)
            argv[n++] = (char *)twice[i][k];
        if (i == 4)
            argv[n++] = "8";
        argv[n] = NULL;
        run_result r = run_argv(argv, 20);
        run_assert_error(&r, 2, twice[i][6], twice[i][6]);
        cr_assert_not_null(strstr(r.err, "(try --help)\n"), "%s", r.err);
        run_free(&r);
    }
    run_result r = run_cmd(run_prog("scibench", 0), 20, "--version", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(strncmp(r.out, "scibench (scitorus) ", 20), 0, "%s", r.out);
    run_free(&r);
    r = run_cmd(run_prog("mpibench", 0), 20, "--version", NULL);
    cr_assert_eq(strncmp(r.out, "mpibench (scitorus) ", 20), 0, "%s", r.out);
    run_free(&r);
    struct stat sb;
    cr_assert_neq(stat("-", &sb), 0, "a file named '-' exists before the run");
    r = run_cmd(run_prog("scibench", 0), 60, "--sizes", "8", "--max-time", "0.05", "-q", "-o",
                "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(strncmp(r.out, "# scitorus-bench 1\n", 19), 0, "-o -: %s", r.out);
    cr_assert_neq(stat("-", &sb), 0, "-o - wrote a file named '-'");
    run_free(&r);
}

/* logp takes its sizes as every pattern does, --sizes A..B: A, the powers
 * of two above it, B (the old --min-size/--max-size: the same field). */
Test(scibench, logp_takes_sizes_as_every_pattern)
{
    const char *a = file("sizes.tsv"), *b = file("minmax.tsv");
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--pattern", "logp", "--sizes", "3..40",
                           "--max-rtt", "2", "--eps", "0.5", "--max-diff", "0.99", "-q", "-o", a,
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 60, "--pattern", "logp", "--max-size", "40",
                "--min-size", "3", "--max-rtt", "2", "--eps", "0.5", "--max-diff", "0.99", "-q",
                "-o", b, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    static const long want[] = {3, 4, 8, 16, 32, 40};
    for (int k = 0; k < 2; k++) {
        logp_data d;
        bench_read_error e;
        cr_assert_eq(logp_data_read(k ? b : a, &d, &e), 0, "%s", e.msg);
        for (int i = 0; i < 6; i++)
            cr_assert_not_null(logp_data_find(&d, want[i]), "%s: no %ld B row", k ? b : a,
                               want[i]);
        logp_data_free(&d);
    }
}

/* Standard output that cannot be written (a full device) is an error for
 * every pattern and for --help. */
Test(scibench, full_standard_output_is_an_error)
{
    char *runs[][8] = {
        {"scibench", "--pattern", "logp", "--sizes", "0..8", "-q", NULL},
        {"scibench", "--help", NULL},
        {"scibench", "--pattern", "logp", "--help", NULL},
        {"mpibench", "--help", NULL},
        {"mpibench", "--version", NULL},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        runs[i][0] = (char *)run_prog(runs[i][0], 0);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            int full = open("/dev/full", O_WRONLY), nul = open("/dev/null", O_WRONLY);
            dup2(full, 1);
            dup2(nul, 2);
            execv(runs[i][0], runs[i]);
            _exit(127);
        }
        int st = run_wait_exit(pid, 30);
        cr_assert_eq(st, 1, "%s %s: exit %d onto /dev/full", runs[i][0], runs[i][1], st);
    }
}


/* Every process needs a CPU of its own that it may run on: two spinning on
 * one pass a message per scheduler tick (8 B at 1.4 ms, not 88 ns), and the
 * rows looked like any other.  A CPU outside the allowed set, fewer allowed
 * CPUs than processes (taskset), and the same for logp's two: refused with
 * the CPUs named, before anything is measured. */
Test(scibench, pinning_failures_are_refused)
{
    static const struct { const char *cpus, *args[6], *word; } cases[] = {
        {"0,1", {"--cpus", "0,99", "--sizes", "8"}, "CPU 99"},
        {"0", {"--sizes", "8"}, "2 processes but this process may run on 1 CPU (0)"},
        {"0,1", {"--ring", "3", "--procs", "3", "--sizes", "8"}, "--procs 3: 3 processes but this process may run on 2 CPUs (0-1)"},
        {"0", {"--pattern", "logp", "--sizes", "0..8"}, "1 CPU"},
        {"0,1", {"--pattern", "logp", "--cpus", "1,99"}, "CPU 99"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[12] = {"/usr/bin/taskset", "-c", (char *)cases[i].cpus,
                          (char *)run_prog("scibench", 0), "-q"};
        int n = 5;
        for (int k = 0; k < 6 && cases[i].args[k]; k++)
            argv[n++] = (char *)cases[i].args[k];
        argv[n] = NULL;
        run_result r = run_argv(argv, 20);
        run_assert_error(&r, 2, cases[i].word, cases[i].word);
        run_free(&r);
    }
}

Test(scibench, usage_errors)
{
    static const char *const cases[][3] = {
        {"--sizes", "0..x", "--sizes '0..x'"},
        {"--rel-error", "0", "--rel-error '0'"},
        {"--rel-error", "nan", "--rel-error 'nan'"},
        {"--max-time", "-1", "--max-time '-1'"},
        {"--ring", "1", "--ring '1'"},
        {"--torus", "3x", "--torus '3x'"},
        {"--pattern", "xy", "--pattern 'xy'"},
        {"--inject-forward", "inf", "--inject-forward 'inf'"},
        {"--procs", "1", "--procs '1'"},
        {"--mpi-send", "ssend", "unrecognized option '--mpi-send'"},
        {"--dst", "9", "--dst '9'"},
        {"--interleave", "8", "--interleave '8'"},
        {"--interleave", "=x.tsv", "--interleave '=x.tsv'"},
        {"--interleave", "8=", "--interleave '8='"},
        {"--interleave", "1=x.tsv", "--interleave '1=x.tsv'"},
        {"--interleave", "3y=x.tsv", "--interleave '3y=x.tsv'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_cmd(run_prog("scibench", 0), 30, cases[i][0], cases[i][1], NULL);
        run_assert_error(&r, 2, cases[i][2], cases[i][2]);
        run_free(&r);
    }
}

/* --interleave: every network gets its own complete file, with its own
 * topology header and the counts of its symmetric destination (ring 8:
 * 4 hops, 3 forwards; torus 2x3: 1+1 hops with one switch), or every
 * destination with --all-dst. */
Test(scibench, interleaved_networks_each_get_their_file)
{
    char a[256], b[256], c[256], ib[300], ic[300];
    snprintf(a, sizeof a, "%s", file("i-r2.tsv"));
    snprintf(b, sizeof b, "%s", file("i-r8.tsv"));
    snprintf(c, sizeof c, "%s", file("i-t23.tsv"));
    snprintf(ib, sizeof ib, "8=%s", b);
    snprintf(ic, sizeof ic, "2x3=%s", c);
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--ring", "2", "-o", a, "--interleave",
                           ib, "--interleave", ic, "--sizes", "8,64", "--max-time", "0.1", "-q",
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_quiet(r.err);
    run_free(&r);
    static const struct {
        const char *topology;
        long hops, fwd, sw;
    } want[3] = {{"ring 2", 1, 0, 0}, {"ring 8", 4, 3, 0}, {"torus 2x3", 2, 0, 1}};
    const char *paths[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        bench_data d = read_ok(paths[k]);
        cr_assert_not(d.incomplete);
        cr_assert_str_eq(bench_data_header(&d, "topology"), want[k].topology);
        cr_assert_not_null(strstr(bench_data_header(&d, "command"), "--interleave"));
        cr_assert_eq(d.count, 2, "%s: %ld rows", paths[k], d.count);
        long sizes = 0;
        for (long i = 0; i < d.count; i++) {
            const bench_point *p = &d.points[i];
            cr_assert_eq(p->hops, want[k].hops, "%s", want[k].topology);
            cr_assert_eq(p->fwd, want[k].fwd, "%s", want[k].topology);
            cr_assert_eq(p->sw, want[k].sw, "%s", want[k].topology);
            cr_assert_gt(p->min_ns, 0);
            sizes += p->size_bytes;
        }
        cr_assert_eq(sizes, 8 + 64, "%s: both sizes, once each", want[k].topology);
        bench_data_free(&d);
    }
    r = run_cmd(run_prog("scibench", 0), 60, "--ring", "2", "-o", a, "--interleave", ib,
                "--all-dst", "--sizes", "8", "--max-time", "0.05", "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    bench_data d = read_ok(b);
    cr_assert_eq(d.count, 7, "ring 8 --all-dst: %ld rows", d.count);
    bench_data_free(&d);
    /* its files cannot be resumed one at a time: refused, file untouched */
    FILE *fp = fopen(a, "a");
    cr_assert_not_null(fp);
    fputs("# incomplete\n", fp);
    fclose(fp);
    r = run_cmd(run_prog("scibench", 0), 30, "--resume", a, NULL);
    run_assert_error(&r, 2, "cannot be resumed", "--resume of an interleaved run");
    run_free(&r);
    d = read_ok(a);
    cr_assert(d.incomplete);
    cr_assert_eq(d.count, 1);
    bench_data_free(&d);
}

/* What --interleave cannot do is refused before anything runs. */
Test(scibench, interleave_usage_errors)
{
    char x[300];
    snprintf(x, sizeof x, "8=%s", file("x.tsv"));
    static const char *const cases[][3] = {
        {"--dst", "1", "--dst and --hops name one network"},
        {"--pattern", "ow", "measures ping-pong only"},
        {"--procs", "3", "more processes (3) than its"},
    };
    for (size_t i = 0; i < 3; i++) {
        run_result r = run_cmd(run_prog("scibench", 0), 30, "--ring", i == 1 ? "2" : "4",
                               "--interleave", i == 2 ? "2=y.tsv" : x, cases[i][0], cases[i][1],
                               NULL);
        run_assert_error(&r, 2, cases[i][2], cases[i][2]);
        run_free(&r);
    }
    run_result r = run_cmd(run_prog("scibench", 0), 30, "-o", file("x.tsv"), "--interleave", x,
                           NULL);
    run_assert_error(&r, 2, "already an output of this run", "same file twice");
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 30, "--interleave", "2=a", "--interleave", "2=b",
                "--interleave", "2=c", "--interleave", "2=d", "--interleave", "2=e",
                "--interleave", "2=f", "--interleave", "2=g", "--interleave", "2=h", NULL);
    run_assert_error(&r, 2, "at most 7 extra networks", "eight --interleave");
    run_free(&r);
    /* mpibench interleaves too, with the same refusals, before
     * MPI starts */
    r = run_cmd(run_prog("mpibench", 0), 30, "--interleave", x, "--pattern", "ow", NULL);
    run_assert_error(&r, 2, "measures ping-pong only", "mpibench --interleave --pattern ow");
    run_free(&r);
    cr_assert_neq(access(file("x.tsv"), F_OK), 0, "x.tsv written by a refused run");
}

/* One-way (thesis Fig. 6): a burst of reps messages and one acknowledgement;
 * the batch is long enough to amortize the acknowledgement, and a
 * destination more than one hop away is refused. */
Test(scibench, one_way_pattern)
{
    const char *out = file("ow.tsv");
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--pattern", "ow", "--sizes", "8,1024",
                           "--max-time", "0.2", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    bench_data d = read_ok(out);
    cr_assert_eq(d.count, 2);
    cr_assert_str_eq(bench_data_header(&d, "pattern"), "ow");
    for (int i = 0; i < 2; i++) {
        cr_assert_str_eq(d.points[i].pattern, "ow");
        cr_assert_geq(d.points[i].reps, 100);
        cr_assert_gt(d.points[i].min_ns, 0);
    }
    bench_data_free(&d);
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 30, "--pattern", "ow", "--ring", "4", NULL);
    run_assert_error(&r, 2, "--pattern ow", "ow over 2 hops");
    run_free(&r);
}
