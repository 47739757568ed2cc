/* Traced equals generated on a live run: tests/coll_app.c traced under
 * mpirun (scitrace run, Open MPI), then for every collective `scitrace
 * goal` of its call against `scisim --collective OP --algorithm tuned
 * --emit-goal`, message for message, and the algorithm scitrace says on
 * stderr is the one scisim's file names.  MPI runs, nothing timed: cli tier. */
#include <stdlib.h>

#include "tests/runcmd.h"
#include "tests/sched_compare.h"

TestSuite(sched_mpi, .timeout = 600);

#define MPIRUN "mpirun", "--allow-run-as-root", "--oversubscribe"

static const char *const ops[] = {"barrier", "bcast", "reduce", "allreduce", "allgather",
                                  "alltoall", "gather", "scatter"};

static void traced_equals_generated(const char *np)
{
    char dir[] = "/tmp/scitorus-sched-XXXXXX", tdir[700], tgoal[700], ggoal[700];
    run_tmpdir_make(dir);
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    run_result r = run_cmd(run_prog("scitrace", 0), 200, "run", "-d", tdir, "--",
                           "/usr/bin/timeout", "180", MPIRUN, "-np", np,
                           run_root_path("bin/test/coll_app"), "1", "8", "65536", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    static const char *const sizes[] = {"8", "65536"};
    int p = atoi(np);
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (int k = 0; k < 2; k++) {
            char phase[64], what[96], root[16], alg_t[64], alg_g[64], said[256];
            const char *size = o == 0 ? "0" : sizes[k];
            snprintf(phase, sizeof phase, "%s-%s", ops[o], sizes[k]);
            snprintf(what, sizeof what, "%s on %s ranks, %s B", ops[o], np, size);
            snprintf(root, sizeof root, "%d", 1 % p);
            snprintf(tgoal, sizeof tgoal, "%s/%s.trace.goal", dir, phase);
            snprintf(ggoal, sizeof ggoal, "%s/%s.scisim.goal", dir, phase);
            r = run_cmd(run_prog("scitrace", 0), 60, "goal", "--phase", phase, "-o", tgoal, tdir,
                        NULL);
            cr_assert_eq(r.status, 0, "%s: %s", what, r.err);
            run_result g = run_cmd(run_prog("scisim", 0), 60, "--collective", ops[o],
                                   "--algorithm", "tuned", "--procs", np, "--size", size,
                                   "--root", root, "--emit-goal", "-o", ggoal, NULL);
            cr_assert_eq(g.status, 0, "%s: %s", what, g.err);
            size_t tl, gl;
            char *t = sched_read_all(tgoal, &tl), *gt = sched_read_all(ggoal, &gl);
            sched_header_alg(t, alg_t, sizeof alg_t);
            sched_header_alg(gt, alg_g, sizeof alg_g);
            cr_assert_str_eq(alg_t, alg_g, "%s: scitrace %s, scisim %s", what, alg_t, alg_g);
            snprintf(said, sizeof said, "scitrace: goal: %s: %s (", what, alg_g);
            cr_assert_not_null(strstr(r.err, said), "%s: want '%s' on stderr: %s", what, said,
                               r.err);
            cr_assert_gt(sched_compare(t, tl, gt, gl, what), 0, "%s", what);
            free(t), free(gt);
            run_free(&r);
            run_free(&g);
        }
    run_tmpdir_remove(dir);
}

Test(sched_mpi, traced_collectives_equal_scisim_on_3_ranks) { traced_equals_generated("3"); }
Test(sched_mpi, traced_collectives_equal_scisim_on_8_ranks) { traced_equals_generated("8"); }
