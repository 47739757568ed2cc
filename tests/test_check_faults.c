/* `scitrace check` on the faulty programs of tests/fault_app.c, one per
 * class of error, each run for real under `scitrace run` (hanging ones
 * killed by timeout's SIGTERM): each found with its exit status and the
 * ranks, calls and lines named; and correct programs around what MPI
 * defines (requests, derived datatypes, MPI_BOTTOM, zero counts) clean. */
#include "tests/runcmd.h"

TestSuite(faults, .timeout = 300);

#define MPIRUN "mpirun", "--allow-run-as-root", "--oversubscribe"
#define FAULT_APP "bin/test/fault_app"

/* Traces fault_app MODE on np ranks under `timeout -s TERM secs` into a
 * fresh dir; returns the run's status. */
static int traced(char *dir, const char *np, const char *mode, const char *secs)
{
    run_tmpdir_make(dir);
    run_result r = run_cmd(run_prog("scitrace", 0), 120, "run", "-d", dir, "--",
                           "/usr/bin/timeout", "-s", "TERM", secs, MPIRUN, "-np", np, FAULT_APP,
                           mode, NULL);
    int st = r.status;
    run_free(&r);
    return st;
}

static run_result check(const char *dir, const char *a, const char *b)
{
    return run_cmd(run_prog("scitrace", 0), 120, "check", a ? a : dir, a ? b : NULL,
                   a ? dir : NULL, NULL);
}

#define HAS(r, text) cr_assert_not_null(strstr((r).out, text), "want '%s' in:\n%s%s", text, \
                                        (r).out, (r).err)

Test(faults, many_requests_sharing_handles_complete_clean)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    cr_assert_eq(traced(dir, "3", "manyreqs", "60"), 0);
    run_result r = check(dir, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(faults, derived_types_bottom_zero_counts_and_requests_as_mpi_defines_them_are_clean)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    cr_assert_eq(traced(dir, "3", "types", "60"), 0);
    run_result r = check(dir, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    /* every analyzer reads it */
    const char *const modes[] = {"summary", "matrix", "goal"};
    for (int i = 0; i < 3; i++) {
        r = i ? run_cmd(run_prog("scitrace", 0), 60, modes[i], "-o", "/dev/null", dir, NULL)
              : run_cmd(run_prog("scitrace", 0), 60, modes[i], dir, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", modes[i], r.err);
        run_free(&r);
    }
    run_tmpdir_remove(dir);
}
