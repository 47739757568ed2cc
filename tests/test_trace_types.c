/* The datatype fields of a rank file's calls (count, signature code,
 * contiguity, a collective's operation), read in process from rank files
 * written here: recorded, absent (an older trace: unknown), malformed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace/tracefile.h"
#include "trace/tracekinds.h"

TestSuite(trace_types, .timeout = 30);

static const char head[] = "# scitrace-rank 2\nrun A\nrank 0\nranks 2\nhost h\ncommand ./a\n"
                           "start_ns 1\ncomm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n";

/* Reads a rank file of head + body; returns trace_rank_read's result. */
static int read_body(const char *body, trace_rank *t, trace_error *err)
{
    char path[] = "/tmp/scitorus-types-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fprintf(fp, "%s%s", head, body);
    fclose(fp);
    int rc = trace_rank_read(path, t, err);
    unlink(path);
    return rc;
}

Test(trace_types, recorded_fields_are_read)
{
    trace_rank t;
    trace_error err;
    cr_assert_eq(read_body("> 1 0 send 1 0 1 5 16 4 104 1\n< 2\n"
                           "> 3 0 sendrecv 1 0 1 5 16 1 6 24 4 104 1 3 308\n< 4 1 6 24\n"
                           "> 5 0 allreduce 2 0 -1 8 1 308 1 3\n< 6\n"
                           "> 7 0 recv 3 0 1 5 16 2 8abcdef0 0\n< 8 1 5 16\n"
                           "status finalized\nend 18\n", &t, &err), 0, "%s", err.msg);
    cr_assert_eq(t.ncalls, 4);
    trace_call *c = t.calls;
    cr_assert(c[0].count == 4 && c[0].dtype == (TRACE_DT_SIGNED | 4) && c[0].contig == 1);
    cr_assert(c[1].count == 4 && c[1].count2 == 3 && c[1].dtype2 == (TRACE_DT_FLOAT | 8));
    cr_assert(c[2].count == 1 && c[2].dtype == 0x308 && c[2].tag2 == 3, "op %d", c[2].tag2);
    cr_assert(c[3].dtype == 0x8abcdef0u && c[3].contig == 0);
    trace_rank_free(&t);
}

Test(trace_types, an_older_trace_without_them_reads_with_the_type_unknown)
{
    trace_rank t;
    trace_error err;
    cr_assert_eq(read_body("> 1 0 send 1 0 1 5 16\n< 2\n> 3 0 bcast 2 0 0 8\n< 4\n"
                           "> 5 0 sendrecv 1 0 1 5 16 1 6 24\n< 6 1 6 24\n"
                           "status finalized\nend 16\n", &t, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < t.ncalls; i++)
        cr_assert(t.calls[i].count == -1 && t.calls[i].dtype == TRACE_DT_UNKNOWN &&
                  t.calls[i].contig == -1 && t.calls[i].count2 == -1, "call %zu", i);
    trace_rank_free(&t);
}

Test(trace_types, malformed_fields_are_refused_with_the_line)
{
    static const char *const bad[] = {
        "> 1 0 send 1 0 1 5 16 4 104 2\n< 2\n",          /* contiguity not 0 or 1 */
        "> 1 0 send 1 0 1 5 16 4 1ffffffff 1\n< 2\n",    /* a code above 32 bits */
        "> 1 0 send 1 0 1 5 16 -4 104 1\n< 2\n",         /* a negative count */
        "> 1 0 send 1 0 1 5 16 4 104\n< 2\n",            /* cut short */
        "> 1 0 bcast 0 0 8 1 308 1 65\n< 2\n",           /* no such operation */
        "> 1 0 sendrecv 1 0 1 5 16 1 6 24 4 104 1\n< 2 1 6 24\n",   /* no receive part */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        trace_rank t;
        trace_error err;
        char body[256];
        snprintf(body, sizeof body, "%sstatus finalized\nend 12\n", bad[i]);
        cr_assert_eq(read_body(body, &t, &err), -1, "%s", bad[i]);
        cr_assert(strstr(err.msg, ":10: malformed line"), "%s: %s", bad[i], err.msg);
    }
}
