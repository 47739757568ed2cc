/* The rules of `scitrace check` beyond the replay, in process on made-up
 * two-rank traces: collectives compared across members (call, root,
 * operation, type signature, a member that skipped one) and type matching
 * of matched messages by their signature codes (docs/formats.md). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/check.h"
#include "trace/tracefile.h"

TestSuite(check_rules, .timeout = 30);

static const char head[] = "# scitrace-rank 2\nrun A\nrank %d\nranks 2\nhost h\ncommand ./a\n"
                           "start_ns 1\ncomm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n";

/* A 2-rank trace of the two bodies (calls, each ending at its return line),
 * checked; returns how many findings of kind k it has. */
static size_t findings(const char *body0, const char *body1, enum check_finding_kind k,
                       check_finding *first)
{
    char dir[] = "/tmp/scitorus-rules-XXXXXX", path[600];
    cr_assert_not_null(mkdtemp(dir));
    const char *bodies[2] = {body0, body1};
    for (int r = 0; r < 2; r++) {
        snprintf(path, sizeof path, "%s/rank-%05d.trace", dir, r);
        FILE *fp = fopen(path, "w");
        fprintf(fp, head, r);
        fprintf(fp, "%sstatus finalized\n", bodies[r]);
        long lines = 10;
        for (const char *p = bodies[r]; *p; p++)
            lines += *p == '\n';
        fprintf(fp, "end %ld\n", lines);
        fclose(fp);
    }
    trace_dir d;
    trace_error err;
    check_result res;
    cr_assert_eq(trace_dir_load(dir, NULL, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(check_replay(&d, 0, &res), 0);
    size_t n = 0;
    for (size_t i = 0; i < res.n; i++)
        if (res.f[i].kind == k && n++ == 0 && first)
            *first = res.f[i];
    check_free(&res);
    trace_dir_free(&d);
    for (int r = 0; r < 2; r++) {
        snprintf(path, sizeof path, "%s/rank-%05d.trace", dir, r);
        unlink(path);
    }
    rmdir(dir);
    return n;
}

#define FIN "> 90 0 finalize 1\n< 91\n"

Test(check_rules, a_root_that_differs_is_an_inconsistent_collective)
{
    check_finding f;
    cr_assert_eq(findings("> 1 0 bcast 1 0 0 8 2 104 1 0\n< 2\n" FIN,
                          "> 1 0 bcast 1 0 1 8 2 104 1 0\n< 2\n" FIN, CHECK_INCONSISTENT, &f), 1);
    cr_assert(f.rank == 1 && f.call == 0 && f.other_rank == 0 && f.other_call == 0);
}

Test(check_rules, an_operation_or_a_signature_that_differs_is_inconsistent)
{
    cr_assert_eq(findings("> 1 0 allreduce 1 0 -1 8 1 308 1 3\n< 2\n" FIN,
                          "> 1 0 allreduce 1 0 -1 8 1 308 1 1\n< 2\n" FIN, CHECK_INCONSISTENT, NULL), 1);
    cr_assert_eq(findings("> 1 0 allreduce 1 0 -1 8 1 308 1 3\n< 2\n" FIN,
                          "> 1 0 allreduce 1 0 -1 8 2 104 1 3\n< 2\n" FIN, CHECK_INCONSISTENT, NULL), 1);
    /* the same signature, by a derived type of one basic type, or as bytes */
    cr_assert_eq(findings("> 1 0 allreduce 1 0 -1 8 2 104 1 3\n< 2\n" FIN,
                          "> 1 0 allreduce 1 0 -1 8 1 104 0 3\n< 2\n" FIN, CHECK_INCONSISTENT, NULL), 0);
    cr_assert_eq(findings("> 1 0 bcast 1 0 0 8 8 1 1 0\n< 2\n" FIN,
                          "> 1 0 bcast 1 0 0 8 2 104 1 0\n< 2\n" FIN, CHECK_INCONSISTENT, NULL), 0);
    /* an older trace: nothing known, nothing found */
    cr_assert_eq(findings("> 1 0 allreduce 1 0 -1 8\n< 2\n" FIN,
                          "> 1 0 allreduce 1 0 -1 8 2 104 1 1\n< 2\n" FIN, CHECK_INCONSISTENT, NULL), 0);
}

Test(check_rules, a_member_that_finalized_without_a_collective_skipped_it)
{
    check_finding f;
    cr_assert_eq(findings("> 1 0 barrier 1 0 -1 0 0 0 0 0\n< 2\n" FIN,
                          "> 1 0 barrier 1 0 -1 0 0 0 0 0\n< 2\n> 3 0 reduce 1 0 0 4 1 104 1 3\n< 4\n"
                          FIN, CHECK_COLL_MISSING, &f), 1);
    cr_assert(f.rank == 0 && f.call == 1 && f.other_rank == 1 && f.other_call == 1,
              "rank %d call %zu other %d %zu", f.rank, f.call, f.other_rank, f.other_call);
    /* both entered: nothing */
    cr_assert_eq(findings("> 3 0 reduce 1 0 0 4 1 104 1 3\n< 4\n" FIN,
                          "> 3 0 reduce 1 0 0 4 1 104 1 3\n< 4\n" FIN, CHECK_COLL_MISSING, NULL), 0);
}

/* rank 0 sends with (count, code), rank 1 receives 16 B with its own. */
static size_t type_findings(const char *send_type, const char *recv_type, const char *bytes)
{
    char b0[256], b1[256];
    snprintf(b0, sizeof b0, "> 1 0 send 1 0 1 5 %s %s\n< 2\n" FIN, bytes, send_type);
    snprintf(b1, sizeof b1, "> 1 0 recv 1 0 0 5 %s %s\n< 2 0 5 %s\n" FIN, bytes, recv_type, bytes);
    return findings(b0, b1, CHECK_TYPE_MISMATCH, NULL);
}

Test(check_rules, type_signatures_of_matched_messages)
{
    cr_assert_eq(type_findings("4 104 1", "2 308 1", "16"), 1);      /* int32 vs double */
    cr_assert_eq(type_findings("4 104 1", "4 204 1", "16"), 1);      /* signed vs unsigned */
    cr_assert_eq(type_findings("4 104 1", "1 104 1", "16"), 0);      /* a contiguous type of ints */
    cr_assert_eq(type_findings("4 104 1", "16 1 1", "16"), 0);       /* MPI_BYTE matches any */
    cr_assert_eq(type_findings("4 104 1", "16 2 1", "16"), 0);       /* MPI_PACKED */
    cr_assert_eq(type_findings("0 104 1", "0 308 1", "0"), 0);       /* nothing sent */
    cr_assert_eq(type_findings("4 104 1", "4 0 1", "16"), 0);        /* unknown: not checked */
    cr_assert_eq(type_findings("1 80000001 0", "1 80000002 0", "16"), 1);   /* mixed, same size */
}

/* A mixed signature may be a prefix of a longer receive: not decidable
 * from the codes, so not a finding. */
Test(check_rules, a_shorter_mixed_send_into_a_larger_receive_is_not_a_finding)
{
    cr_assert_eq(findings("> 1 0 send 1 0 1 5 16 1 80000001 0\n< 2\n" FIN,
                          "> 1 0 recv 1 0 0 5 32 1 80000002 0\n< 2 0 5 16\n" FIN,
                          CHECK_TYPE_MISMATCH, NULL), 0);
}

Test(check_rules, a_sendrecv_receive_part_is_checked_with_its_own_type)
{
    cr_assert_eq(findings("> 1 0 sendrecv 1 0 1 5 8 1 6 8 2 104 1 1 308\n< 2 1 6 8\n" FIN,
                          "> 1 0 sendrecv 1 0 0 6 8 0 5 8 1 308 1 2 104\n< 2 0 5 8\n" FIN,
                          CHECK_TYPE_MISMATCH, NULL), 0);
    cr_assert_eq(findings("> 1 0 sendrecv 1 0 1 5 8 1 6 8 2 104 1 1 308\n< 2 1 6 8\n" FIN,
                          "> 1 0 sendrecv 1 0 0 6 8 0 5 8 1 308 1 1 308\n< 2 0 5 8\n" FIN,
                          CHECK_TYPE_MISMATCH, NULL), 1);
}
