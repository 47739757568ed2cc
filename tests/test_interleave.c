/* Tests for interleaved measurement: a batch that follows another point's starts cold, and
 * that must not be timed.  Oracle: an injected delay, COLD_NS busy-waited by the wrapped shm
 * backend whenever a process sends another size than its last. */
#include <criterion/criterion.h>
#include <sys/wait.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>

#include "bench/backend.h"
#include "benchdata/benchdata.h"
#include "bench/cli.h"
#include "tests/runcmd.h"

#define COLD_NS 200e3

static char dir[] = "/tmp/scitorus-il-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(interleave, .init = setup, .fini = teardown, .timeout = 120);

static long last_len = -1;   /* per process: each forked process has its own */

static int cold_send(bench_comm *c, int to, const bench_msg *msg, const void *payload)
{
    if (msg->len != last_len) {
        double end = bench_backend_shm.now_ns() + COLD_NS;
        while (bench_backend_shm.now_ns() < end)
            ;
        last_len = msg->len;
    }
    return bench_backend_shm.send(c, to, msg, payload);
}

/* Runs scibench's main on the wrapped backend; returns the 8 B point. */
static bench_point measure(const char *name, int interleaved)
{
    bench_backend cold = bench_backend_shm;
    cold.send = cold_send;
    char *argv[] = {"scibench", "--ring", "2", "--sizes", "8,64", "--max-time", "0.3",
                    "--rel-error", "0.01", "-q", "-o", (char *)run_path(dir, name),
                    interleaved ? "--interleave-sizes" : NULL, NULL};
    int argc = interleaved ? 13 : 12, status;
    /* in a process of its own: a run pins its process and keeps its children's deaths */
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(bench_main(argc, argv, &cold));
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "scibench %s: status %d",
              interleaved ? "--interleave-sizes" : "", status);
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(run_path(dir, name), &d, &e), 0, "%s:%ld: %s", name, e.line,
                 e.msg);
    cr_assert_eq(d.count, 2);
    bench_point p = d.points[d.points[0].size_bytes == 8 ? 0 : 1];
    bench_data_free(&d);
    return p;
}

/* Interleaved, each batch would time one size change (COLD_NS in each process: COLD_NS / reps
 * on a half round trip); the median stays within a quarter of that of the point measured
 * alone, whose size changes only in the warm-up. */
Test(interleave, a_batch_does_not_time_the_change_from_the_last_point)
{
    bench_point alone = measure("alone.tsv", 0), mixed = measure("mixed.tsv", 1);
    double bias = COLD_NS / (double)mixed.reps;
    cr_assert(mixed.median_ns < alone.median_ns + bias / 4,
              "8 B interleaved %.1f ns against %.1f alone: a batch timed the size change "
              "(%.0f ns a half round trip with %ld reps)", mixed.median_ns, alone.median_ns,
              bias, mixed.reps);
}

/* ---- the default order with several destinations ---- */

/* A machine that slows down as it works: every send busy-waits DRIFT_NS
 * more than the one before it in its process (a thermal throttle, another
 * job growing).  The drift depends on how much was sent, not on when. */
#define DRIFT_NS 0.05
static long sent;

static int drift_send(bench_comm *c, int to, const bench_msg *msg, const void *payload)
{
    double end = bench_backend_shm.now_ns() + DRIFT_NS * (double)sent++;
    while (bench_backend_shm.now_ns() < end)
        ;
    return bench_backend_shm.send(c, to, msg, payload);
}

/* The medians of ring 4's three destinations under the drift (order: NULL,
 * the default, or "--point-by-point"), by destination. */
static void drift_medians(const char *name, const char *order, double m[3])
{
    bench_backend drift = bench_backend_shm;
    drift.send = drift_send;
    char *argv[] = {"scibench", "--ring", "4", "--all-dst", "--sizes", "8", "--rel-error",
                    "1e-6", "--max-samples", "200", "--max-time", "60", "-q", "-o",
                    (char *)run_path(dir, name), (char *)order, NULL};
    int status;
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(bench_main(order ? 16 : 15, argv, &drift));
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %d", name, status);
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(run_path(dir, name), &d, &e), 0, "%s: %s", name, e.msg);
    cr_assert_eq(d.count, 3);
    for (long i = 0; i < 3; i++)
        m[d.points[i].dst - 1] = d.points[i].median_ns;
    bench_data_free(&d);
}

/* On a one-way ring every destination's round trip crosses all 4 links
 * (request h hops, reply 4 - h), so the three medians are one latency.
 * Measured one after another under the drift, the last destination comes
 * out the slowest and the curve across hops is bent; in turn (the default
 * with several destinations) they stay within a few percent.  A decided
 * round that misses is measured again; a second decided miss fails. */
Test(interleave, several_destinations_are_measured_in_turn_by_default)
{
    /* The oracle's sensitivity (the point-by-point bend) rests on how many
     * repetitions each batch takes, which the machine's speed sets: a round
     * without the bend cannot decide and is measured again. */
    enum { ROUNDS = 3 };
    char figures[ROUNDS * 160] = "";
    int misses = 0;   /* one decided miss is measured again (a slice lost in one point) */
    for (int round = 0; round < ROUNDS; round++) {
        double in_turn[3], one_by_one[3];
        drift_medians("default.tsv", NULL, in_turn);
        drift_medians("pbp.tsv", "--point-by-point", one_by_one);
        size_t used = strlen(figures);
        snprintf(figures + used, sizeof figures - used,
                 "%sround %d: in turn %.1f %.1f %.1f ns, point by point %.1f %.1f %.1f ns",
                 round ? "; " : "", round + 1, in_turn[0], in_turn[1], in_turn[2], one_by_one[0],
                 one_by_one[1], one_by_one[2]);
        fprintf(stderr, "drift: %s\n", figures + used + (round ? 2 : 0));
        if (one_by_one[2] / one_by_one[0] <= 1.5)
            continue;   /* the drift did not bend the point-by-point order: undecided */
        double lo = fmin(in_turn[0], fmin(in_turn[1], in_turn[2]));
        double hi = fmax(in_turn[0], fmax(in_turn[1], in_turn[2]));
        if (hi / lo < 1.1)
            return;
        cr_assert_lt(++misses, 2, "in turn, two decided rounds apart by 10%% or more: %s", figures);
    }
    cr_skip_test("no round decided%s: %s", misses ? " but the one that missed" : "", figures);
}

/* Points in turn share --max-time from when their turns begin, not from
 * each one's warm-up.  65 sizes warm up for longer than the 0.1 s; a point
 * may stop before --max-time only converged, which takes 8 batches
 * (DEFAULT_MIN_SAMPLES), so each has at least 8 -- unless the turns
 * themselves used the time up: descheduled batches take a time slice each.
 * The points' timed batches (2 x mean x reps a batch) then sum to over half
 * of --max-time, and the run cannot decide: measured again, then skipped
 * with the figures.  Counted from the warm-up, the turns would start with
 * the time gone and sum to a few batches of microseconds each. */
#define TURNS_MAX_TIME_S 0.1
Test(interleave, points_in_turn_share_their_time_from_the_first_turn)
{
    char seen[400] = "";
    for (int round = 1; round <= 2; round++) {
        run_result r = run_cmd(run_prog("scibench", 1), 60, "--sizes", "64..4160:64",
                               "--interleave-sizes", "--max-time", "0.1", "-q", "-o",
                               run_path(dir, "turns.tsv"), NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        bench_data d;
        bench_read_error e;
        cr_assert_eq(bench_data_read(run_path(dir, "turns.tsv"), &d, &e), 0, "%s", e.msg);
        long count = (long)d.count, few = -1, batches = 0;
        double timed_s = 0;
        for (long i = 0; i < count; i++) {
            const bench_point *pt = &d.points[i];
            timed_s += 2e-9 * pt->mean_ns * (double)pt->reps * (double)pt->samples;
            if (pt->samples < 8 && few < 0)
                few = pt->size_bytes, batches = pt->samples;
        }
        bench_data_free(&d);
        cr_assert_eq(count, 65);
        if (few < 0)
            return;
        size_t used = strlen(seen);
        snprintf(seen + used, sizeof seen - used, "%sround %d: %ld B took %ld batches, the turns' timed "
                 "batches %.3f s", round > 1 ? "; " : "", round, few, batches, timed_s);
        cr_assert_gt(timed_s, TURNS_MAX_TIME_S / 2, "%ld B: %ld batches, and the turns' timed batches took "
                     "%.3f s of --max-time %.1f s: the time went before the turns (%s)", few, batches,
                     timed_s, TURNS_MAX_TIME_S, seen);
    }
    cr_skip_test("points stopped short of 8 batches with the turns' own batches using up --max-time "
                 "(a busy machine's descheduled batches): %s", seen);
}
