/* Tests for `scimodel --traffic`: the TSV contract, candidates, placement
 * files, and every kind of bad traffic matrix or placement file (one
 * stderr line naming file and line, exit 1; usage errors exit 2). */
#include <fcntl.h>
#include <sys/stat.h>

#include "tests/runcmd.h"

#define SCIMODEL run_prog("scimodel", 0)

static char dir[] = "/tmp/scitorus-traffic-XXXXXX";

static void setup(void)
{
    run_tmpdir_make(dir);
}

static void teardown(void)
{
    run_tmpdir_remove(dir);
}

/* Writes text to dir/name; returns the path (run_path's). */
static const char *put(const char *name, const char *text)
{
    const char *p = run_path(dir, name);
    run_write_text(p, text);
    return p;
}

#define HEAD "# scitorus-traffic 1\n# ranks: 4\n# columns: src dst size_bytes messages\n"

TestSuite(traffic_cli, .init = setup, .fini = teardown);

Test(traffic_cli, tsv_header_candidates_and_values)
{
    /* 0 -> 3, 10 messages of 64 B.  Ring of 4: 3 hops, 2 forwards:
     * 4170 + 21 + 120 = 4311 ns (thesis eq. 24); 2x2: hops (1,1),
     * 4170 + 14 + 670 = 4854 ns. */
    const char *m = put("m.tsv", HEAD "0\t3\t64\t10\n");
    run_result r = run_cmd(SCIMODEL, 30, "--traffic", m, "--dims", "1,2", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_empty(r.err);
    cr_assert_str_eq(r.out,
                     "dims\tshape\tplacement\tmessages\ttotal_ns\tmean_ns\thop_bytes\tmax_link_bytes"
                     "\tnodes\ttotal_ns_lo\ttotal_ns_hi\tgrid\n"
                     "1\t4\trow-major\t10\t43110.000\t4311.000\t1920\t640\t4\t-\t-\tno\n"
                     "2\t2x2\trow-major\t10\t48540.000\t4854.000\t1280\t640\t4\t-\t-\tno\n");
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--traffic", m, "--dims", "1,2", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "best: 1D 4 (row-major)"), "%s", r.out);
    run_free(&r);
}

Test(traffic_cli, placement_file_and_slots)
{
    const char *m = put("m.tsv", HEAD "0\t3\t64\t10\n");
    /* node 0 on torus node 2, node 3 on 3: one hop on the ring of 4 */
    const char *p = put("p.txt", "# placement\n2\n0\n1\n3\n");
    run_result r = run_cmd(SCIMODEL, 30, "--traffic", m, "--shape", "4", "--placement", p,
                           "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\t10\t41770.000\t4177.000\t640\t640\t4\t-\t-\tno\n"), "%s", r.out);
    run_free(&r);
    /* 2 slots: ranks 0,1 on node 0, 2,3 on node 1; --shape 2 holds them */
    r = run_cmd(SCIMODEL, 30, "--traffic", m, "--shape", "2", "--slots", "2", "--format", "tsv",
                NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "1\t2\trow-major\t10\t41770.000"), "%s", r.out);
    run_free(&r);
    /* 4 slots: all on one node, 2 o_intra(64) from the intra params */
    const char *ip = put("shm.params", "o0_ns = 50\no1_ns_per_byte = 0.1\nmref_bytes = 64\n"
                                       "lp_ns = 7\nlf_ns = 60\nls_ns = 670\n");
    r = run_cmd(SCIMODEL, 30, "--traffic", m, "--shape", "2", "--slots", "4", "--intra-params", ip,
                "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\t10\t1000.000\t100.000\t0\t0\t2\t-\t-\tno\n"), "%s", r.out);
    run_free(&r);
}

Test(traffic_cli, optimize_prints_both_rows_and_the_gain)
{
    /* 0 <-> 2 only: row-major puts them 2 hops apart on the ring of 4 */
    const char *m = put("m.tsv", HEAD "0\t2\t64\t5\n2\t0\t64\t5\n");
    run_result r = run_cmd(SCIMODEL, 60, "--traffic", m, "--shape", "4", "--placement", "optimize",
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "row-major"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "optimize 4:"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "below row-major"), "%s", r.out);
    run_free(&r);
}

/* The bad-file table: contents, the line the message must name, a word. */
typedef struct bad_case {
    const char *text;
    const char *where;   /* "m.tsv:5" or "m.tsv" */
    const char *word;
} bad_case;

static const bad_case bad[] = {
    {"", "m.tsv", "empty"},
    {"src dst\n0\t1\t8\t1\n", "m.tsv:1", "not a traffic matrix"},
    {"# scitorus-traffic 1\n0\t1\t8\t1\n", "m.tsv:2", "ranks"},
    {"# scitorus-traffic 1\n# ranks: 0\n", "m.tsv:2", "ranks"},
    {"# scitorus-traffic 1\n# ranks: 99999999999\n", "m.tsv:2", "ranks"},
    {"# scitorus-traffic 1\n# ranks: 4\n", "m.tsv", "no rows"},
    {"# scitorus-traffic 1\n# ranks: 4\n# ranks: 4\n", "m.tsv:3", "duplicate"},
    {"# scitorus-traffic 1\n# ranks: 4\n# columns: a b c d\n", "m.tsv:3", "columns"},
    {HEAD "0\t4\t8\t1\n", "m.tsv:4", "out of range"},
    {HEAD "-1\t2\t8\t1\n", "m.tsv:4", "out of range"},
    {HEAD "0\t1\t8\t0\n", "m.tsv:4", "messages"},
    {HEAD "0\t1\t8\t-5\n", "m.tsv:4", "messages"},
    {HEAD "0\t1\t8\t1.5\n", "m.tsv:4", "messages"},
    {HEAD "0\t1\t8\tnan\n", "m.tsv:4", "messages"},
    {HEAD "0\t1\t8\t99999999999999999999\n", "m.tsv:4", "messages"},
    {HEAD "0\t1\t-8\t1\n", "m.tsv:4", "size_bytes"},
    {HEAD "0\t1\t8\n", "m.tsv:4", "4 tab-separated fields"},
    {HEAD "0\t1\t8\t1\t9\n", "m.tsv:4", "4 tab-separated fields"},
    {HEAD "0 1 8 1\n", "m.tsv:4", "fields"},
    {HEAD "0\t1\t8\t1\n# ranks: 4\n", "m.tsv:5", "ranks"},
};

Test(traffic_cli, bad_matrices_name_file_and_line)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *m = put("m.tsv", bad[i].text);
        run_result r = run_cmd(SCIMODEL, 30, "--traffic", m, NULL);
        char what[64];
        snprintf(what, sizeof what, "case %zu", i);
        run_assert_error(&r, 1, bad[i].word, what);
        cr_assert_not_null(strstr(r.err, bad[i].where), "%s: '%s' not in %s", what,
                           bad[i].where, r.err);
        cr_assert_str_empty(r.out, "%s", what);
        run_free(&r);
    }
}

Test(traffic_cli, binary_long_lines_crlf)
{
    char buf[600];
    const char *m = put("m.tsv", HEAD "0\t1\t8\t1\n");
    FILE *fp = fopen(m, "a");
    fputs("0\t1", fp);
    fputc(0, fp);
    fputs("\t8\t1\n", fp);
    fclose(fp);
    run_result r = run_cmd(SCIMODEL, 30, "--traffic", m, NULL);
    run_assert_error(&r, 1, "m.tsv:5: binary", "NUL byte");
    run_free(&r);

    memset(buf, '7', sizeof buf - 2);
    buf[sizeof buf - 2] = '\n';
    buf[sizeof buf - 1] = '\0';
    m = put("m.tsv", HEAD);
    fp = fopen(m, "a");
    fputs(buf, fp);
    fclose(fp);
    r = run_cmd(SCIMODEL, 30, "--traffic", m, NULL);
    run_assert_error(&r, 1, "m.tsv:4: line longer", "long line");
    run_free(&r);

    m = put("m.tsv", "# scitorus-traffic 1\r\n# ranks: 4\r\n0\t3\t64\t10\r\n");
    r = run_cmd(SCIMODEL, 30, "--traffic", m, "--dims", "1", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "CRLF: %s", r.err);
    cr_assert_not_null(strstr(r.out, "43110.000"));
    run_free(&r);
}

Test(traffic_cli, not_regular_files_are_refused_without_blocking)
{
    char fifo[700];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    const char *paths[] = {dir, fifo, "/dev/zero", "/nonexistent/m.tsv"};
    const char *words[] = {"directory", "not a regular file", "not a regular file",
                           "No such file"};
    for (int i = 0; i < 4; i++) {
        run_result r = run_cmd(SCIMODEL, 10, "--traffic", paths[i], NULL);
        run_assert_error(&r, 1, words[i], paths[i]);
        cr_assert_not_null(strstr(r.err, "--traffic"), "%s", r.err);
        run_free(&r);
    }
}

Test(traffic_cli, bad_placement_files)
{
    const char *m = put("m.tsv", HEAD "0\t3\t64\t10\n");
    static const bad_case cases[] = {
        {"0\n1\n2\n", "p.txt:3", "3 nodes placed, 4 needed"},
        {"0\n1\n2\n3\n0\n", "p.txt:5", "more lines"},
        {"0\n1\n1\n3\n", "p.txt:3", "placed twice"},
        {"0\n1\n2\n4\n", "p.txt:4", "0..3"},
        {"0\n1\nx\n3\n", "p.txt:3", "not a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = put("p.txt", cases[i].text);
        run_result r = run_cmd(SCIMODEL, 30, "--traffic", m, "--shape", "4", "--placement", p, NULL);
        char what[64];
        snprintf(what, sizeof what, "placement case %zu", i);
        run_assert_error(&r, 1, cases[i].word, what);
        cr_assert_not_null(strstr(r.err, cases[i].where), "%s: %s", what, r.err);
        run_free(&r);
    }
}

Test(traffic_cli, usage_errors)
{
    const char *m = put("m.tsv", HEAD "0\t3\t64\t10\n");
    static const char *const args[][3] = {
        {"--links", "both", "--links 'both'"},
        {"--slots", "0", "--slots '0'"},
        {"--dims", "0..2", "--dims '0..2'"},
        {"--shape", "3", "--shape '3': 3 nodes, the matrix needs 4"},
        {"--shape", "4x", "--shape '4x'"},
        {"--anneal-steps", "-1", "--anneal-steps '-1'"},
        {"--format", "csv", "--format 'csv'"},
        {"--nodes", "5", "--nodes: not an option of scimodel --traffic"},
    };
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        run_result r = run_cmd(SCIMODEL, 30, "--traffic", m, args[i][0], args[i][1], NULL);
        cr_assert_eq(r.status, 2, "%s %s: status %d: %s", args[i][0], args[i][1], r.status, r.err);
        cr_assert_not_null(strstr(r.err, args[i][2]), "%s", r.err);
        run_free(&r);
    }
    run_result r = run_cmd(SCIMODEL, 30, "--help", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert_not_null(strstr(r.out, "--traffic FILE"));
    cr_assert_not_null(strstr(r.out, "--placement P"));
    run_free(&r);
}
