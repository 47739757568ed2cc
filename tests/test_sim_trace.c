/* End to end: real MPI programs traced (scitrace run), turned into
 * schedules (scitrace goal) and replayed on the candidate tori with link
 * contention (scisim, the equal-sided torus of each D of 1..4 holding the
 * ranks, --contention).  The oracle for what was
 * replayed is scitrace matrix of the same trace: the replay carries exactly
 * its messages and bytes. */
#include <stdlib.h>

#include "tests/runcmd.h"

#define MPIRUN "mpirun", "--allow-run-as-root", "--oversubscribe"

static char dir[] = "/tmp/scitorus-simtrace-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

TestSuite(sim_trace, .init = setup, .fini = teardown, .timeout = 300);

/* Traced in tdir: schedule -> scisim rows; checks them against the matrix. */
static void replay_trace(const char *tdir, const char *what, int expect_waits)
{
    const char *goal = run_path(dir, "app.goal"), *mtx = run_path(dir, "app.tsv");
    run_result g = run_cmd(run_prog("scitrace", 0), 120, "goal", "-o", goal, tdir, NULL);
    cr_assert_eq(g.status, 0, "%s: scitrace goal: %s", what, g.err);
    run_result m = run_cmd(run_prog("scitrace", 0), 120, "matrix", "-o", mtx, tdir, NULL);
    cr_assert_eq(m.status, 0, "%s: scitrace matrix: %s", what, m.err);
    double messages = 0, bytes = 0;
    FILE *fp = fopen(mtx, "r");
    char line[256];
    while (fgets(line, sizeof line, fp)) {
        double src, dst, size, n;
        if (line[0] != '#' && sscanf(line, "%lf %lf %lf %lf", &src, &dst, &size, &n) == 4)
            messages += n, bytes += n * size;
    }
    fclose(fp);
    /* one candidate per D, n^D holding the ranks (every shape of --dims
     * would replay dozens) */
    char shape[4][64];
    long ranks = atol(what) > 0 ? atol(what) : 2;
    for (int d = 1; d <= 4; d++) {
        long n = 2, pw = 1;
        for (;; n++) {
            pw = 1;
            for (int k = 0; k < d; k++)
                pw *= n;
            if (pw >= ranks || d == 1)
                break;
        }
        if (d == 1)
            n = ranks;
        size_t at = 0;
        for (int k = 0; k < d; k++)
            at += (size_t)snprintf(shape[d - 1] + at, sizeof shape[0] - at, "%s%ld", k ? "x" : "", n);
    }
    run_result r = run_cmd(run_prog("scisim", 0), 120, goal, "--shape", shape[0], "--shape",
                           shape[1], "--shape", shape[2], "--shape", shape[3], "--contention",
                           "--format", "tsv", "-q", NULL);
    cr_assert_eq(r.status, 0, "%s: scisim: %s", what, r.err);
    cr_assert_eq(run_lines(r.out), 5, "%s: %s", what, r.out);
    const char *row = strchr(r.out, '\n') + 1;
    double max_wait = 0;
    for (int d = 1; d <= 4; d++, row = strchr(row, '\n') + 1) {
        int dims;
        char shape[64], placement[32], links[8];
        double makespan, mean, msgs, b, wait;
        cr_assert_eq(sscanf(row, "%d %63s %31s %7s %lf %lf %lf %lf %lf", &dims, shape, placement, links,
                            &makespan, &mean, &msgs, &b, &wait), 9, "%s: %s", what, row);
        cr_assert_eq(dims, d);
        cr_assert_eq(msgs, messages, "%s, %dD: %.0f messages replayed, the matrix has %.0f", what, d,
                     msgs, messages);
        cr_assert_eq(b, bytes, "%s, %dD: %.0f bytes, the matrix has %.0f", what, d, b, bytes);
        cr_assert(makespan > 0 && mean > 0 && mean <= makespan && wait >= 0, "%s: %s", what, row);
        if (wait > max_wait)
            max_wait = wait;
    }
    cr_assert(!expect_waits || max_wait > 0, "%s: no message ever waited: %s", what, r.out);
    run_free(&g);
    run_free(&m);
    run_free(&r);
}

static void halo3d(const char *np)
{
    const char *tdir = run_path(dir, "trace");
    run_result r = run_cmd(run_prog("scitrace", 0), 200, "run", "-d", tdir, "--", "/usr/bin/timeout",
                           "180", MPIRUN, "-np", np, run_prog("halo3d", 1), "--steps", "3", NULL);
    cr_assert_eq(r.status, 0, "halo3d -np %s: %s", np, r.err);
    run_free(&r);
    /* Six neighbours per rank share ring links on the 1D candidate. */
    replay_trace(tdir, np, 1);
}

Test(sim_trace, halo3d_8_ranks_traced_and_replayed) { halo3d("8"); }
Test(sim_trace, halo3d_64_ranks_traced_and_replayed) { halo3d("64"); }

/* NetPIPE's ping-pong: one message in flight at a time, so nobody waits. */
Test(sim_trace, netpipe_traced_and_replayed)
{
    const char *tdir = run_path(dir, "trace"), *out = run_path(dir, "np.out");
    run_result r = run_cmd(run_prog("scitrace", 0), 120, "run", "-d", tdir, "--", "/usr/bin/timeout",
                           "100", MPIRUN, "-np", "2", "NPopenmpi", "-n", "20", "-u", "1024", "-o", out,
                           NULL);
    cr_assert_eq(r.status, 0, "NPopenmpi: %s", r.err);
    run_free(&r);
    replay_trace(tdir, "NPopenmpi", 0);
}
