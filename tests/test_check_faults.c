/* `scitrace check` on the faulty programs of tests/fault_app.c, one per
 * class of error, each run for real under `scitrace run` (hanging ones
 * killed by timeout's SIGTERM): each found with its exit status and the
 * ranks, calls and lines named; and correct programs around what MPI
 * defines (requests, derived datatypes, MPI_BOTTOM, zero counts) clean. */
#include <sys/stat.h>

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

/* MPICH's many_isend: any arrival order is correct.  Another match for
 * one wildcard receive whose sender's only message an earlier wildcard
 * receive takes in that replay is no run at all, not a race. */
Test(faults, wildcard_receives_of_every_rank_s_messages_are_no_race)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    cr_assert_eq(traced(dir, "2", "allany", "60"), 0);
    run_result r = check(dir, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* Messages taken by matched probes are received by MPI_Mrecv/MPI_Imrecv:
 * neither pending nor unmatched. */
Test(faults, messages_taken_by_matched_probes_are_received)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    cr_assert_eq(traced(dir, "2", "mprobe", "60"), 0);
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

/* Runs MODE on np ranks (status want_run), checks it (extra options a, b)
 * and asserts the exit status; the caller frees the result. */
static run_result fault(char *dir, const char *np, const char *mode, const char *secs,
                        int want_run, const char *a, const char *b, int want)
{
    cr_assert_eq(traced(dir, np, mode, secs), want_run, "%s: the run's status", mode);
    run_result r = check(dir, a, b);
    cr_assert_eq(r.status, want, "%s: %s%s", mode, r.out, r.err);
    return r;
}

Test(faults, an_actual_deadlock_is_exit_6_with_the_cycle_calls_and_lines)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    run_result r = fault(dir, "2", "deadlock", "5", 124, NULL, NULL, 6);
    HAS(r, ": DEADLOCK (exit 6)");
    cr_assert(strstr(r.out, "cycle of waits: rank 0 -> rank 1 -> rank 0") ||
              strstr(r.out, "cycle of waits: rank 1 -> rank 0 -> rank 1"), "%s", r.out);
    HAS(r, "rank 0: MPI_Ssend(dest 1, tag 0, 4 B, MPI_COMM_WORLD) at fault_app.c:");
    HAS(r, "rank 1: MPI_Ssend(dest 0, tag 0, 4 B, MPI_COMM_WORLD) at fault_app.c:");
    HAS(r, "; never returned in the run");
    run_free(&r);
    /* --events on standard output: each rank's last state, blocked */
    r = check(dir, "--events", "-");
    HAS(r, "\nstate\t0\tblocked\t1\tssend\t");
    HAS(r, "\nstate\t1\tblocked\t1\tssend\t");
    run_free(&r);
    /* --timeline: both Ssends blocked (state 1), the cycle 0 -> 1 -> 0 */
    r = check(dir, "--timeline", "-");
    HAS(r, "\n0\t");
    const char *cyc = strstr(r.out, "# cycle of waits");
    cr_assert_not_null(cyc, "%s", r.out);
    cr_assert(strstr(cyc, "\n0\t") && strstr(cyc, "\t1\n") && strstr(cyc, "\n1\t") &&
              strstr(cyc, "\t0\n"), "%s", cyc);
    cr_assert(strstr(r.out, "\tssend\t1\n"), "%s", r.out);
    run_free(&r);
    /* the figure: scitrace/timeline.sh draws it with gnuplot */
    char png[600], env[700];
    snprintf(png, sizeof png, "%s.png", dir);
    snprintf(env, sizeof env, "SCITRACE=%s", run_prog("scitrace", 0));
    r = run_cmd("/usr/bin/env", 120, env, "scitrace/timeline.sh", dir, png, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    struct stat sb;
    cr_assert(stat(png, &sb) == 0 && sb.st_size > 1000, "%s: %s", png, r.err);
    run_free(&r);
    unlink(png);
    run_tmpdir_remove(dir);
}

/* An unsafe ring: it ends on Open MPI (2 KiB is below its eager limit), so
 * every send returned; by default it is a potential deadlock, exit 8; an
 * MPI modelled as buffering 4 KiB finds it clean and says so. */
Test(faults, an_unsafe_program_is_a_potential_deadlock_exit_8_unless_buffering_is_modelled)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    run_result r = fault(dir, "4", "unsafe", "60", 0, NULL, NULL, 8);
    HAS(r, ": POTENTIAL DEADLOCK (exit 8), no send buffered");
    HAS(r, "potential deadlocks (sends that needed buffering): 4\n");
    HAS(r, "rank 2: MPI_Send(dest 3, tag 0, 2048 B, MPI_COMM_WORLD) at fault_app.c:");
    HAS(r, "; completed only because MPI buffered it");
    run_free(&r);
    r = check(dir, "--eager-limit", "4096");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    HAS(r, ": clean (exit 0), modelling an MPI that buffers standard sends up to 4096 B");
    run_free(&r);
    r = check(dir, "--eager-limit", "2047");
    cr_assert_eq(r.status, 8, "%s%s", r.out, r.err);
    run_free(&r);
    /* --events: the 4 messages of the ring matched, every rank finished */
    char ev[600];
    snprintf(ev, sizeof ev, "%s.events", dir);
    r = check(dir, "--events", ev);
    cr_assert_eq(r.status, 8, "%s%s", r.out, r.err);
    run_free(&r);
    char *text = run_read_text(ev);
    int pairs = 0;
    for (const char *p = text; (p = strstr(p, "\npair\t")) != NULL; p++)
        pairs++;
    cr_assert_eq(pairs, 4, "%s", text);
    for (int k = 0; k < 4; k++) {
        char want[64];
        snprintf(want, sizeof want, "\npair\t%d\t1\tsend\t", k);
        cr_assert_not_null(strstr(text, want), "%s in %s", want, text);
        snprintf(want, sizeof want, "\nstate\t%d\tfinished\t3\tfinalize\t", k);
        cr_assert_not_null(strstr(text, want), "%s in %s", want, text);
    }
    cr_assert_not_null(strstr(text, "\t1\t2\trecv\t"), "%s", text);
    free(text);
    unlink(ev);
    run_tmpdir_remove(dir);
}

Test(faults, a_collective_the_root_skipped_is_exit_6_with_both_calls)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    run_result r = fault(dir, "4", "rootskip", "60", 0, NULL, NULL, 6);
    HAS(r, ": COLLECTIVE NOT ENTERED BY EVERY MEMBER (exit 6)");
    HAS(r, "collectives a member skipped: 1\n");
    HAS(r, "  rank 0: MPI_Finalize() at fault_app.c:");
    HAS(r, "ended (finalized) without entering the collective that rank 1 (and the other members "
           "at that position) entered: MPI_Reduce(root 0, 4 B, MPI_COMM_WORLD) at fault_app.c:");
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(faults, a_collective_whose_operation_differs_is_exit_6_with_both_operations)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    run_result r = fault(dir, "3", "opmismatch", "60", 0, NULL, NULL, 6);
    HAS(r, ": INCONSISTENT COLLECTIVES (exit 6)");
    HAS(r, "inconsistent collectives: 1\n");
    HAS(r, "  rank 1: MPI_Allreduce(root -, 4 B, MPI_COMM_WORLD) at fault_app.c:");
    HAS(r, "(rank 1: no root, MPI_MAX, 1 x int32; rank 0: no root, MPI_SUM, 1 x int32)");
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* The first Isend's handle is overwritten by the second: the first is the
 * leaked one (Open MPI may give both requests one handle value). */
Test(faults, a_request_whose_handle_was_overwritten_is_leaked_exit_7)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    run_result r = fault(dir, "2", "leak", "60", 0, NULL, NULL, 7);
    HAS(r, ": PENDING (exit 7)");
    HAS(r, "0 messages never received, 0 receives never matched, 1 requests never completed");
    HAS(r, "  rank 0: MPI_Isend(dest 1, tag 1, 4 B, MPI_COMM_WORLD) at fault_app.c:");
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* Two MPI_Ibcasts into one handle, the second waited: the first leaked on
 * every rank; and nonblocking collectives each waited are clean. */
Test(faults, an_overwritten_nonblocking_collective_request_is_leaked_exit_7)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    run_result r = fault(dir, "3", "ileak", "60", 0, NULL, NULL, 7);
    HAS(r, ", 3 requests never completed");
    for (int k = 0; k < 3; k++) {
        char want[96];
        snprintf(want, sizeof want, "  rank %d: MPI_Ibcast(root 0, 4 B, MPI_COMM_WORLD) at fault_app.c:", k);
        const char *line = strstr(r.out, want);
        cr_assert_not_null(line, "want '%s' in:\n%s", want, r.out);
        const char *end = strchr(line, '\n'), *first = strstr(line, "), call 1 (line");
        cr_assert(first && end && first < end, "rank %d: the first Ibcast: %s", k, r.out);
    }
    run_free(&r);
    run_tmpdir_remove(dir);
    char dir2[] = "/tmp/scitorus-faults-XXXXXX";
    r = fault(dir2, "3", "icoll", "60", 0, NULL, NULL, 0);
    run_free(&r);
    run_tmpdir_remove(dir2);
}

Test(faults, a_type_mismatch_is_exit_6_with_both_signatures)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    run_result r = fault(dir, "2", "typemismatch", "60", 0, NULL, NULL, 6);
    HAS(r, ": TYPE MISMATCH (exit 6)");
    HAS(r, "  rank 0: MPI_Send(dest 1, tag 3, 16 B, MPI_COMM_WORLD) at fault_app.c:");
    HAS(r, "sends 4 x int32, but rank 1 receives it as 2 x double: MPI_Recv(source 0, tag 3, 16 B, "
           "MPI_COMM_WORLD) at fault_app.c:");
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(faults, a_message_never_received_is_pending_exit_7)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    run_result r = fault(dir, "2", "pending", "60", 0, NULL, NULL, 7);
    HAS(r, ": PENDING (exit 7)");
    HAS(r, "pending: 1 messages never received, 0 receives never matched, 0 requests");
    HAS(r, "  rank 0: MPI_Bsend(dest 1, tag 5, 4 B, MPI_COMM_WORLD) at fault_app.c:");
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(faults, a_deadlock_on_a_tag_mismatch_names_the_message_it_does_not_match)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX";
    run_result r = fault(dir, "2", "tagmismatch", "5", 124, NULL, NULL, 6);
    HAS(r, "  rank 1: MPI_Recv(source 0, tag 2, 4 B, MPI_COMM_WORLD) at fault_app.c:");
    HAS(r, "rank 0's message to it differs by its tag (1, the receive wants 2): MPI_Ssend(dest 1, "
           "tag 1, 4 B, MPI_COMM_WORLD) at fault_app.c:");
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* Nested phases: each call carries the phase it was made in, an end
 * returns to the enclosing phase, and an end too many changes nothing. */
Test(faults, begun_phases_nest_and_end)
{
    char dir[] = "/tmp/scitorus-faults-XXXXXX", path[600];
    cr_assert_eq(traced(dir, "2", "phases", "60"), 0);
    snprintf(path, sizeof path, "%s/rank-00000.trace", dir);
    run_result d = run_cmd(run_prog("scitrace", 0), 60, "dump", path, NULL);   /* its text */
    cr_assert_eq(d.status, 0, "%s", d.err);
    char *text = strdup(d.out);
    run_free(&d);
    cr_assert_not_null(strstr(text, "\nphase 1 solve\n"), "%s", text);
    cr_assert_not_null(strstr(text, "\nphase 2 solve/halo\n"), "%s", text);
    static const char *const calls[][2] = {{"1", "barrier"}, {"2", "sendrecv"}, {"1", "allreduce"},
                                           {"0", "bcast"}, {"0", "barrier"}};
    const char *at = strstr(text, "\nphase 1 solve\n");
    for (size_t i = 0; i < 5; i++) {
        char want[64];
        snprintf(want, sizeof want, " %s %s ", calls[i][0], calls[i][1]);
        const char *got = strstr(at, want);
        cr_assert_not_null(got, "call %zu: want '%s' after:\n%s", i, want, at);
        at = got + 1;
    }
    free(text);
    run_result r = run_cmd(run_prog("scitrace", 0), 60, "summary", "--phase", "solve/halo", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    run_tmpdir_remove(dir);
}
