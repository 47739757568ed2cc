/* Tests of what the trace reader makes of a rank file, on rank files
 * written here (no MPI run): rules every analyzer (summary, check, matrix,
 * goal) applies alike, and what goal refuses to write. */
#include "tests/runcmd.h"
#include "tests/trace_rank_file.h"

TestSuite(records, .timeout = 60);


/* Rank 1's file with the given text. */
static void write_text(const char *dir, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/rank-00001.trace", dir);
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
}

static run_result scitrace(const char *a, const char *b, const char *c, const char *d)
{
    return run_cmd(run_prog("scitrace", 0), 30, a, b, c, d, NULL);
}

/* Every analyzer refuses dir with one line naming `where`. */
static void refused_by_all(const char *dir, const char *where)
{
    const char *const modes[] = {"summary", "check", "matrix", "goal"};
    for (int i = 0; i < 4; i++) {
        run_result r = i < 2 ? scitrace(modes[i], dir, NULL, NULL)
                             : scitrace(modes[i], "-o", "-", dir);
        run_assert_error(&r, 1, where, modes[i]);
        run_free(&r);
    }
}

/* A communicator line that leaves out the rank whose file it is: one rule,
 * every analyzer refuses it at that line. */
Test(records, a_comm_line_without_its_own_rank_is_refused_by_every_analyzer)
{
    char dir[] = "/tmp/scitorus-records-XXXXXX";
    run_tmpdir_make(dir);
    write_rank(dir, 0, "A", 1, "8");
    write_rank(dir, 1, "A", 0, "8");
    write_text(dir, "# scitrace-rank 2\nrun A\nrank 1\nranks 2\nhost h\ncommand ./a\nstart_ns 1\n"
                    "comm 0 0123456789abcdef 0 1 0\nphase 0 main\n> 1 0 recv 1 0 0 5 8\n< 2 0 5 8\n"
                    "status finalized\nend 12\n");
    refused_by_all(dir, "rank-00001.trace:8");
    run_tmpdir_remove(dir);
}

/* Found by fuzz_tracegoal: a Sendrecv to MPI_ANY_SOURCE (which MPI
 * refuses) became `send 8b to -1`, a schedule scisim refuses. */
Test(records, a_send_to_any_source_is_refused_by_every_analyzer)
{
    char dir[] = "/tmp/scitorus-records-XXXXXX";
    run_tmpdir_make(dir);
    write_rank(dir, 0, "A", 0, "8");
    write_text(dir, "# scitrace-rank 2\nrun A\nrank 1\nranks 2\nhost h\ncommand ./a\nstart_ns 1\n"
                    "comm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n"
                    "> 1 0 sendrecv 0 0 -1 1 8 0 1 8\n< 2 0 1 8\nstatus finalized\nend 12\n");
    refused_by_all(dir, "rank-00001.trace:10");
    run_tmpdir_remove(dir);
}

/* Found by fuzz_tracebin: a call named by a kind the expansion derives
 * (persistent_recv, persistent_send, sendrecv_recv) posted nothing, and
 * check read a receive that was never posted.  No wrapper writes one. */
Test(records, a_derived_kind_as_a_call_is_refused_by_every_analyzer)
{
    static const char *const kinds[] = {"persistent_recv", "persistent_send", "sendrecv_recv"};
    for (int i = 0; i < 3; i++) {
        char dir[] = "/tmp/scitorus-records-XXXXXX", text[512];
        run_tmpdir_make(dir);
        write_rank(dir, 0, "A", 1, "8");
        snprintf(text, sizeof text, "# scitrace-rank 2\nrun A\nrank 1\nranks 2\nhost h\n"
                 "command ./a\nstart_ns 1\ncomm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n"
                 "> 1 0 %s 1 0 0 5 8\n< 2 0 5 8\nstatus finalized\nend 12\n", kinds[i]);
        write_text(dir, text);
        refused_by_all(dir, "rank-00001.trace:10");
        run_tmpdir_remove(dir);
    }
}

/* GOAL sizes stop at 2^53 (exact in a double): a larger message is
 * refused with its line, not written for scisim to refuse. */
Test(records, goal_refuses_a_message_larger_than_a_schedule_holds)
{
    char dir[] = "/tmp/scitorus-records-XXXXXX";
    run_tmpdir_make(dir);
    write_rank(dir, 0, "A", 1, "9007199254740993");
    write_rank(dir, 1, "A", 0, "8");
    run_result r = scitrace("goal", "-o", "-", dir);
    run_assert_error(&r, 1, "rank-00000.trace:10", "a 2^53 + 1 byte message");
    cr_assert_eq(r.out[0], '\0', "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* Found by fuzz_tracegoal: "ranks 4033271 0 gatherv..." was read as 4033271
 * ranks (text after the number ignored), and the directory then allotted
 * room for every one of them. */
Test(records, header_numbers_with_text_after_them_are_refused)
{
    char dir[] = "/tmp/scitorus-records-XXXXXX";
    run_tmpdir_make(dir);
    write_rank(dir, 0, "A", 0, "8");
    write_text(dir, "# scitrace-rank 2\nrun A\nrank 1\nranks 2 0 gatherv\nhost h\ncommand ./a\n"
                    "start_ns 1\ncomm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n"
                    "status finalized\nend 10\n");
    refused_by_all(dir, "rank-00001.trace:4");
    run_tmpdir_remove(dir);
}

/* Found by fuzz_tracegoal: an Irecv from a rank the library could not
 * translate (-3) became `recv 4b from -3`, a schedule scisim refuses; it
 * is read as from any source. */
Test(records, a_receive_from_an_untranslated_rank_gives_a_schedule_scisim_reads)
{
    char dir[] = "/tmp/scitorus-records-XXXXXX", goal[600];
    run_tmpdir_make(dir);
    write_rank(dir, 0, "A", 1, "8");
    write_text(dir, "# scitrace-rank 2\nrun A\nrank 1\nranks 2\nhost h\ncommand ./a\nstart_ns 1\n"
                    "comm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n"
                    "> 1 0 irecv 1 0 -3 5 8\n< 2 1\n> 3 0 wait 1 1 1\n< 4 1 0 -3 5 8\n"
                    "status finalized\nend 14\n");
    snprintf(goal, sizeof goal, "%s/app.goal", dir);
    run_result r = scitrace("goal", "-o", goal, dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_cmd(run_prog("scisim", 0), 30, goal, "--dims", "2", "-q", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    unlink(goal);
    run_tmpdir_remove(dir);
}

/* Found by MPICH's icallgather and the like on 4 ranks: a collective on
 * an intercommunicator made summary and matrix refuse the trace.  It is
 * not expanded (as goal does not), and the trace is read. */
Test(records, a_collective_on_an_intercommunicator_is_read_by_every_analyzer)
{
    char dir[] = "/tmp/scitorus-records-XXXXXX";
    run_tmpdir_make(dir);
    for (int r = 0; r < 2; r++) {
        char path[600];
        snprintf(path, sizeof path, "%s/rank-%05d.trace", dir, r);
        FILE *fp = fopen(path, "w");
        fprintf(fp, rank_head, "A", r);
        fprintf(fp, "icomm 1 0123456789abcdee 0 1 %d\n> 1 0 allgather 1 1 -1 8 2 104 1 0\n< 2\n"
                    "status finalized\nend 13\n", 1 - r);
        fclose(fp);
    }
    const char *const modes[] = {"summary", "check", "matrix", "goal"};
    for (int i = 0; i < 4; i++) {
        run_result r = i < 2 ? scitrace(modes[i], dir, NULL, NULL)
                             : scitrace(modes[i], "-o", "/dev/null", dir);
        cr_assert_eq(r.status, 0, "%s: %s%s", modes[i], r.out, r.err);
        run_free(&r);
    }
    run_tmpdir_remove(dir);
}
