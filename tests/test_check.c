/* Tests for `scitrace check` (small MPI programs with known faults in
 * tests/check_app.c, traced with `scitrace run`, the hanging ones killed by
 * timeout's SIGTERM), for phases and communicators, for the rank files'
 * run identity and bounds, and for scitrace's options.  Every MPI run is
 * bounded by timeouts. */
#include <limits.h>
#include <sys/stat.h>

#include "tests/runcmd.h"
#include "tests/trace_rank_file.h"

TestSuite(check, .timeout = 300);

#define MPIRUN "mpirun", "--allow-run-as-root", "--oversubscribe"
#define CHECK_APP "bin/test/check_app"

/* Traces check_app MODE on np ranks under `timeout -s TERM secs`;
 * returns the run's status. */
static int traced(const char *dir, const char *np, const char *mode, const char *secs)
{
    run_result r = run_cmd(run_prog("scitrace", 0), 120, "run", "-d", dir, "--",
                           "/usr/bin/timeout", "-s", "TERM", secs, MPIRUN, "-np", np, CHECK_APP,
                           mode, NULL);
    int st = r.status;
    run_free(&r);
    return st;
}

static run_result check(const char *dir, const char *extra)
{
    return extra ? run_cmd(run_prog("scitrace", 0), 120, "check", extra, dir, NULL)
                 : run_cmd(run_prog("scitrace", 0), 120, "check", dir, NULL);
}

/* The summary comes first: its lines before the first blank line. */
static void assert_summary_first(const char *out)
{
    const char *blank = strstr(out, "\n\n");
    cr_assert(strncmp(out, "scitrace check ", 15) == 0, "%s", out);
    cr_assert(!blank || strstr(out, "  pending: ") < blank, "%s", out);
}

Test(check, head_to_head_sends_above_the_eager_limit_deadlock_both_ranks_named)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "2", "headtohead", "5"), 124, "the program should hang");
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 6, "%s%s", r.out, r.err);
    assert_summary_first(r.out);
    cr_assert_not_null(strstr(r.out, "deadlock: ranks 0 1\n"), "%s", r.out);
    cr_assert(strstr(r.out, "cycle of waits: rank 0 -> rank 1 -> rank 0") ||
                  strstr(r.out, "cycle of waits: rank 1 -> rank 0 -> rank 1"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "rank 0: MPI_Send(dest 1, tag 0, 1048576 B, MPI_COMM_WORLD) "
                                     "at check_app.c:"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "rank 1: MPI_Send(dest 0, tag 0, 1048576 B"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(check, a_ring_receiving_first_deadlocks_with_the_cycle)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "4", "ring", "5"), 124, "the program should hang");
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 6, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "deadlock: ranks 0 1 2 3\n"), "%s", r.out);
    /* each rank waits for its left neighbour: the cycle runs downwards */
    const char *c = strstr(r.out, "cycle of waits: rank ");
    cr_assert_not_null(c, "%s", r.out);
    int a = atoi(c + 21);
    char want[128];
    snprintf(want, sizeof want, "cycle of waits: rank %d -> rank %d -> rank %d -> rank %d -> rank %d",
             a, (a + 3) % 4, (a + 2) % 4, (a + 1) % 4, a);
    cr_assert_not_null(strstr(r.out, want), "want %s: %s", want, r.out);
    cr_assert_not_null(strstr(r.out, "rank 2: MPI_Recv(source 1, tag 0, 4 B, MPI_COMM_WORLD)"),
                       "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(check, a_rank_that_skips_a_collective_is_named)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    traced(dir, "4", "skipcoll", "8");   /* Open MPI may hang or finish */
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 6, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "inconsistent collectives: 1\n"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "rank 3: MPI_Barrier("), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "but rank 0, at the same position: MPI_Bcast(root 0"), "%s",
                       r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(check, an_isend_never_received_nor_waited_is_pending)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "2", "isend", "30"), 0);
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 7, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "pending: 1 messages never received, 0 receives never "
                                     "matched, 1 requests never completed"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "rank 0: MPI_Isend(dest 1, tag 9, 4 B"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(check, a_correct_program_with_wildcards_waitall_probe_and_split_is_clean)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "4", "correct", "30"), 0);
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, ": clean (exit 0)"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* 8-byte head-to-head sends complete (MPI buffers them): by default (no
 * buffering assumed) a potential deadlock, exit 8 of its own; under
 * --eager-limit 4096, an MPI that buffers them, nothing, and the verdict
 * says what it assumed. */
Test(check, sends_that_needed_buffering_are_a_potential_deadlock)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "2", "headtohead_small", "30"), 0);
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 8, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, ": POTENTIAL DEADLOCK (exit 8), no send buffered"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "potential deadlocks (sends that needed buffering): 2"), "%s",
                       r.out);
    run_free(&r);
    r = check(dir, "--eager-limit=4");
    cr_assert_eq(r.status, 8, "%s%s", r.out, r.err);
    run_free(&r);
    r = check(dir, "--eager-limit=4096");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, ": clean (exit 0), modelling an MPI that buffers standard "
                                     "sends up to 4096 B (--eager-limit)"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* Real programs: no finding.  args ends at NULL; "OUT" is replaced by a
 * scratch file. */
static void clean_run(const char *np, const char *prog, const char *const args[])
{
    char dir[] = "/tmp/scitorus-check-XXXXXX", out[600];
    run_tmpdir_make(dir);
    snprintf(out, sizeof out, "%s.np.out", dir);
    char *argv[24] = {(char *)run_prog("scitrace", 0), "run", "-d", dir, "--", "/usr/bin/timeout",
                      "250", MPIRUN, "-np", (char *)np, (char *)prog};
    int n = 0;
    while (argv[n])
        n++;
    for (int i = 0; args[i] && n < 23; i++)
        argv[n++] = strcmp(args[i], "OUT") ? (char *)args[i] : out;
    argv[n] = NULL;
    run_result r = run_argv(argv, 280);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 120, "check", dir, NULL);
    cr_assert_eq(r.status, 0, "status %d: %s%s", r.status, r.out, r.err);
    run_free(&r);
    unlink(out);
    run_tmpdir_remove(dir);
}

Test(check, halo3d_on_8_ranks_is_clean)
{
    clean_run("8", run_prog("halo3d", 1), (const char *const[]){NULL});
}

Test(check, halo3d_on_64_ranks_oversubscribed_is_clean)
{
    clean_run("64", run_prog("halo3d", 1), (const char *const[]){NULL});
}

/* 100 repeats a size (-n): NetPIPE's own timing loop made 4.7 million
 * calls a rank, 90 s of the sanitized check, and no call pattern more. */
Test(check, netpipe_is_clean)
{
    clean_run("2", "NPopenmpi", (const char *const[]){"-u", "1024", "-n", "100", "-o", "OUT", NULL});
}

/* LAMMPS's Lennard-Jones melt example (Debian's lammps, lammps-examples):
 * a real application's halo exchanges, reductions and communicators. */
Test(check, lammps_melt_on_4_ranks_is_clean)
{
    clean_run("4", "lmp", (const char *const[]){"-in", "/usr/share/lammps/examples/melt/in.melt",
                                               "-log", "none", "-screen", "none", NULL});
}

/* --- intercommunicators, phases, communicators ---------------------------- */

Test(check, intercommunicator_traffic_is_matched)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "4", "inter", "30"), 0);
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "4 messages matched, 0 sends unmatched, 0 receives unmatched"),
                       "%s", r.out);
    cr_assert_not_null(strstr(r.out, " inter, remote group 2: "), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "/0 2: 0 2\n"), "%s", r.out);   /* the evens' split */
    run_free(&r);
    r = check(dir, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    run_tmpdir_remove(dir);
}

typedef struct cell {
    long src, dst, size, messages;
} cell;

/* Adds the rows of the matrix `scitrace matrix --phase phase` writes to
 * standard output into cells (sign: +1 or -1). */
static int add_phase(const char *dir, const char *phase, cell *cells, int n, int sign)
{
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "--phase", phase, "-o", "-",
                           dir, NULL);
    cr_assert_eq(r.status, 0, "%s: %s", phase, r.err);
    int rows = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        cell c;
        if (line[0] == '#')
            continue;
        cr_assert_eq(sscanf(line, "%ld %ld %ld %ld", &c.src, &c.dst, &c.size, &c.messages), 4);
        rows++;
        int i = 0;
        while (i < n && !(cells[i].src == c.src && cells[i].dst == c.dst && cells[i].size == c.size))
            i++;
        cr_assert_lt(i, 256);
        if (i == n)
            cells[n++] = (cell){c.src, c.dst, c.size, 0};
        cells[i].messages += sign * c.messages;
    }
    cr_assert_gt(rows, 0, "phase %s has no message", phase);
    run_free(&r);
    return n;
}

Test(check, three_phases_give_three_matrices_that_sum_to_the_whole)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    cell cells[256];
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "4", "phases", "30"), 0);
    int n = add_phase(dir, "all", cells, 0, -1);
    n = add_phase(dir, "setup", cells, n, 1);
    n = add_phase(dir, "exchange", cells, n, 1);
    n = add_phase(dir, "pcontrol-3", cells, n, 1);
    for (int i = 0; i < n; i++)
        cr_assert_eq(cells[i].messages, 0, "%ld -> %ld, %ld B: phases - whole = %ld", cells[i].src,
                     cells[i].dst, cells[i].size, cells[i].messages);
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
    cr_assert_not_null(strstr(r.out, "  setup "), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "  pcontrol-3 "), "%s", r.out);
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "--phase", "nosuch", "-o", "-", dir, NULL);
    run_assert_error(&r, 1, "'nosuch'", "an unknown phase");
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* --- run identity, bounds, refusals -------------------------------------- */


Test(check, rank_files_of_two_runs_are_refused)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    write_rank(dir, 0, "A", 1, "8");
    write_rank(dir, 1, "B", 1, "8");
    const char *const modes[] = {"summary", "check"};
    for (int i = 0; i < 2; i++) {
        run_result r = run_cmd(run_prog("scitrace", 0), 30, modes[i], dir, NULL);
        run_assert_error(&r, 1, "rank-00001.trace:2", "a mix of runs");
        cr_assert_not_null(strstr(r.err, "two runs"), "%s", r.err);
        run_free(&r);
    }
    run_tmpdir_remove(dir);
}

/* 2^62 bytes a call is the most an int count of a type can carry; five
 * such calls to one peer overflow 64 bits: refused, not wrapped. */
Test(check, byte_counts_that_overflow_are_refused)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    write_rank(dir, 0, "A", 5, "4611686018427387904");
    write_rank(dir, 1, "A", 0, "8");
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
    run_assert_error(&r, 1, "rank-00000.trace", "bytes over 2^64");
    cr_assert_not_null(strstr(r.err, "exceed 2^64"), "%s", r.err);
    run_free(&r);
    write_rank(dir, 0, "A", 1, "9223372036854775808");
    r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
    run_assert_error(&r, 1, "rank-00000.trace:10", "a call of 2^63 bytes");
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(check, matrix_refuses_to_write_over_a_rank_file)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX", path[600];
    run_tmpdir_make(dir);
    write_rank(dir, 0, "A", 1, "8");
    write_rank(dir, 1, "A", 0, "8");
    snprintf(path, sizeof path, "%s/rank-00000.trace", dir);
    char *before = run_read_text(path);
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "-o", path, dir, NULL);
    run_assert_error(&r, 1, "same file", "-o naming a rank file");
    char *after = run_read_text(path);
    cr_assert_str_eq(after, before);
    free(before), free(after);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(check, run_refuses_a_non_empty_directory_and_fails_without_rank_files)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX", other[600];
    run_tmpdir_make(dir);
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "run", "-d", dir, "--", "true", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);   /* "tracing into", then the failure */
    cr_assert_not_null(strstr(r.err, "no rank file was written"), "%s", r.err);
    run_free(&r);
    write_rank(dir, 0, "A", 1, "8");
    r = run_cmd(run_prog("scitrace", 0), 30, "run", "-d", dir, "--", "true", NULL);
    run_assert_error(&r, 1, "not empty", "a directory holding a trace");
    run_free(&r);
    snprintf(other, sizeof other, "%s/rank-00000.trace", dir);
    char *kept = run_read_text(other);
    cr_assert_not_null(strstr(kept, "run A\n"));
    free(kept);
    run_tmpdir_remove(dir);
}

/* --- options --------------------------------------------------------------- */

Test(check, options_after_the_directory_repeated_options_version_and_one_hint)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    write_rank(dir, 0, "A", 3, "8");
    write_rank(dir, 1, "A", 0, "8");
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, "--top", "2", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "summary", "--top", "2", "--top", "3", dir, NULL);
    run_assert_error(&r, 2, "given twice", "a repeated option");
    cr_assert_not_null(strstr(r.err, "--top"), "%s", r.err);
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "-o", "a", "-o", "b", dir, NULL);
    run_assert_error(&r, 2, "given twice", "-o twice");
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "--calls", "foo", "-o", "-", dir, NULL);
    run_assert_error(&r, 2, "'foo'", "an unknown call");
    cr_assert_null(strstr(strstr(r.err, "--help") + 1, "--help"), "two hints: %s", r.err);
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", dir, "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "# scitorus-traffic 1\n"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "0\t1\t8\t3\n"), "%s", r.out);
    run_free(&r);
    const char *const modes[] = {"--version", "summary", "matrix", "check", "goal", "run"};
    for (int i = 0; i < 6; i++) {
        r = i ? run_cmd(run_prog("scitrace", 0), 30, modes[i], "--version", NULL)
              : run_cmd(run_prog("scitrace", 0), 30, modes[i], NULL);
        cr_assert_eq(r.status, 0, "%s: %s", modes[i], r.err);
        cr_assert(strncmp(r.out, "scitrace (scitorus) ", 20) == 0, "%s: %s", modes[i], r.out);
        run_free(&r);
    }
    run_tmpdir_remove(dir);
}

/* --- what a record means, and records that never completed --------------- */

static run_result scitrace(const char *a, const char *b, const char *c, const char *d,
                           const char *e)
{
    return run_cmd(run_prog("scitrace", 0), 120, a, b, c, d, e, NULL);
}

/* scisim replays FILE (exit status), its stderr kept in err. */
static int scisim(const char *goal, char **err)
{
    run_result r = run_cmd(run_prog("scisim", 0), 120, goal, "--dims", "2", "--format", "tsv",
                           "-q", NULL);
    int st = r.status;
    *err = strdup(r.err);
    run_free(&r);
    return st;
}

/* A request freed right after MPI_Isend, the other rank's Isend before it:
 * the replay once took the freed call for a collective. */
Test(check, a_request_freed_after_isend_is_clean)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "2", "reqfree", "30"), 0);
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, ": clean (exit 0)"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* The head-to-head deadlock: its sends never returned.  goal and matrix
 * refuse the trace (exit 3, one line naming the file and the call) unless
 * --partial; summary describes it with one warning. */
Test(check, calls_that_never_returned_are_refused_unless_partial)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX", out[600];
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "2", "headtohead", "5"), 124, "the program should hang");
    snprintf(out, sizeof out, "%s.goal", dir);
    run_result r = scitrace("goal", "-o", out, dir, NULL);
    run_assert_error(&r, 3, "never returned", "goal of a deadlocked run");
    cr_assert_not_null(strstr(r.err, "rank-0000"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "MPI_Send never returned"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "--partial"), "%s", r.err);
    cr_assert_neq(access(out, F_OK), 0, "no schedule written");
    run_free(&r);
    r = scitrace("matrix", "-o", "-", dir, NULL);
    run_assert_error(&r, 3, "never returned", "matrix of a deadlocked run");
    cr_assert_eq(r.out[0], '\0', "%s", r.out);
    run_free(&r);
    r = scitrace("goal", "--partial", "-o", out, dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "going on"), "%s", r.err);
    run_free(&r);
    r = scitrace("summary", dir, NULL, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "incomplete: 2 of 2 ranks"), "%s", r.out);
    cr_assert_eq(run_lines(r.err), 1, "%s", r.err);
    run_free(&r);
    unlink(out);
    run_tmpdir_remove(dir);
}

/* A rank file cut in the middle (a stopped machine): the matrix it would
 * give is not the run's, so it is refused, the file named. */
Test(check, a_truncated_rank_file_is_refused_by_matrix)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX", path[600];
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "4", "phases", "30"), 0);
    snprintf(path, sizeof path, "%s/rank-00001.trace", dir);
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    cr_assert_eq(truncate(path, sb.st_size / 2), 0);   /* halfway through the calls */
    run_result r = scitrace("matrix", "-o", "-", dir, NULL);
    run_assert_error(&r, 3, "rank-00001.trace", "a truncated rank file");
    run_free(&r);
    r = scitrace("matrix", "--partial", "-o", "-", dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* A rank file deleted from a correct 64 B Sendrecv ring: no verdict about
 * the ranks that exchanged with it (it was "POTENTIAL DEADLOCK"). */
Test(check, a_missing_rank_file_is_refused_by_check)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX", path[600];
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "4", "phases", "30"), 0);
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/rank-00002.trace", dir);
    cr_assert_eq(unlink(path), 0);
    r = check(dir, NULL);
    run_assert_error(&r, 3, "rank 2 left no rank file", "a missing rank file");
    cr_assert_eq(r.out[0], '\0', "no verdict: %s", r.out);
    run_free(&r);
    r = check(dir, "--partial");
    cr_assert_neq(r.status, 3, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "rank 2: no rank file at all"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* MPI_Cancel on an MPI_Irecv that nothing matches, completed by MPI_Wait:
 * nothing pending, and the schedule replays. */
Test(check, a_cancelled_receive_is_not_pending)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX", out[600], *err;
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "2", "cancel", "30"), 0);
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    snprintf(out, sizeof out, "%s.goal", dir);
    r = scitrace("goal", "-o", out, dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    cr_assert_eq(scisim(out, &err), 0, "%s", err);
    free(err);
    unlink(out);
    run_tmpdir_remove(dir);
}

/* Sendrecv with MPI_PROC_NULL on either side, and a 100 kB MPI_Bsend
 * exchange (buffered: it completes before the receive): scisim replays
 * both schedules. */
Test(check, proc_null_and_buffered_sends_give_schedules_scisim_replays)
{
    const char *const modes[] = {"procnull", "bsend"};
    for (int i = 0; i < 2; i++) {
        char dir[] = "/tmp/scitorus-check-XXXXXX", out[600], *err;
        run_tmpdir_make(dir);
        cr_assert_eq(traced(dir, "2", modes[i], "30"), 0, "%s", modes[i]);
        /* procnull's ring of sends (a Sendrecv from MPI_PROC_NULL) before
         * its receives needs buffering: modelled, so the reading is tested */
        run_result r = check(dir, "--eager-limit=4096");
        cr_assert_eq(r.status, 0, "%s: %s%s", modes[i], r.out, r.err);
        run_free(&r);
        snprintf(out, sizeof out, "%s.goal", dir);
        r = scitrace("goal", "-o", out, dir, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", modes[i], r.err);
        run_free(&r);
        char *text = run_read_text(out);
        cr_assert_null(strstr(text, " to -"), "%s: %s", modes[i], text);
        cr_assert_null(strstr(text, " from -2"), "%s: %s", modes[i], text);
        free(text);
        cr_assert_eq(scisim(out, &err), 0, "%s: %s", modes[i], err);
        free(err);
        unlink(out);
        run_tmpdir_remove(dir);
    }
}

/* Rank 0 receives from ANY_SOURCE, then from rank 1; rank 1 sends late:
 * the run is clean, the other arrival order deadlocks. */
Test(check, a_wildcard_race_is_a_potential_deadlock)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "3", "race", "30"), 0);
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 8, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, ": POTENTIAL DEADLOCK (exit 8)"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "wildcard receives whose other match deadlocks): 1\n"), "%s",
                       r.out);
    cr_assert_not_null(strstr(r.out, "rank 0: MPI_Recv(source ANY, tag 0, 4 B"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "matched rank 2's message in the run, but rank 1's"), "%s",
                       r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* Answers sent to whichever rank asked (the status's source): another
 * match would change the later calls, not deadlock them. */
Test(check, a_server_answering_any_source_is_clean)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_eq(traced(dir, "4", "workers", "30"), 0);
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* A rank dies of SIGSEGV while the other waits for it: the headline says
 * so, with the signal. */
Test(check, a_rank_that_crashed_is_the_headline)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    cr_assert_neq(traced(dir, "2", "segv", "30"), 0);
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 5, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, ": RANK DIED (rank 1 crashed SIGSEGV) (exit 5)"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(check, a_rank_without_mpi_finalize_is_reported)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    traced(dir, "2", "nofinalize", "30");   /* mpirun fails the job */
    run_result r = check(dir, NULL);
    cr_assert_eq(r.status, 7, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "ranks that exited without MPI_Finalize: ranks 1\n"), "%s",
                       r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* MPI_THREAD_MULTIPLE granted: the library cannot order concurrent calls,
 * so the rank files say so and every analyzer refuses them in one line. */
Test(check, a_thread_multiple_run_is_refused_by_every_analyzer)
{
    char dir[] = "/tmp/scitorus-check-XXXXXX";
    run_tmpdir_make(dir);
    run_result r = run_cmd(run_prog("scitrace", 0), 120, "run", "-d", dir, "--",
                           "/usr/bin/timeout", "30", MPIRUN, "-np", "2", CHECK_APP, "threads", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "provided multiple"), "Open MPI grants it: %s", r.out);
    run_free(&r);
    const char *const modes[] = {"summary", "check", "matrix", "goal"};
    for (int i = 0; i < 4; i++) {
        r = i < 2 ? scitrace(modes[i], dir, NULL, NULL, NULL) : scitrace(modes[i], "-o", "-", dir, NULL);
        run_assert_error(&r, 1, "MPI_THREAD_MULTIPLE", modes[i]);
        cr_assert_not_null(strstr(r.err, "rank-0000"), "%s", r.err);
        run_free(&r);
    }
    run_tmpdir_remove(dir);
}
