/* Tests for the scimodel command line: outputs against the thesis's values and
 * the closed forms, TSV headers, and every error class (sanitized build). */
#include <math.h>

#include "tests/runcmd.h"

#define SCIMODEL run_prog("scimodel", 0)

Test(scimodel, headline_report_values)
{
    run_result r = run_cmd(SCIMODEL, 30, "--dims", "1..4", "--nodes", "1000", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_empty(r.err);
    /* docs/model.md's reference averages (µs) and crossovers */
    cr_assert_not_null(strstr(r.out, "37.610"));
    cr_assert_not_null(strstr(r.out, "6.736"));
    cr_assert_not_null(strstr(r.out, "6.054"));
    cr_assert_not_null(strstr(r.out, "6.128"));
    cr_assert_not_null(strstr(r.out, "18.21 nodes"));
    cr_assert_not_null(strstr(r.out, "190.84 nodes"));
    cr_assert_not_null(strstr(r.out, "1832.58 nodes"));
    cr_assert_not_null(strstr(r.out, "10x10x10"));
    run_free(&r);
}

Test(scimodel, tsv_report_header_and_rows)
{
    run_result r = run_cmd(SCIMODEL, 30, "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    static const char header[] = "dims\tnodes\tshape\tavg_hops\tavg_forwards\tavg_switches\t"
                                 "avg_ns\tmulticast_ns\n";
    cr_assert_eq(strncmp(r.out, header, strlen(header)), 0, "%s", r.out);
    /* 3D continuous row: avg 6054.054 and multicast = 999 * avg */
    char *row = strstr(r.out, "\n3\t1000\t");
    cr_assert_not_null(row);
    double hops, fwd, sw, avg, mc;
    char shape[64];
    cr_assert_eq(sscanf(row, "\n3\t1000\t%63s\t%lf\t%lf\t%lf\t%lf\t%lf", shape, &hops, &fwd,
                        &sw, &avg, &mc), 6);
    cr_assert(fabs(avg - 6054.054) < 0.001);
    cr_assert(fabs(mc - 999 * avg) < 0.01 * 999);
    run_free(&r);
}

Test(scimodel, crossover_tsv)
{
    run_result r = run_cmd(SCIMODEL, 30, "--preset", "enhanced", "--crossover", "--format",
                           "tsv", "--metric", "avg", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "metric\tfrom_dims\tto_dims\tnodes\tstatus\n"
                            "avg\t1\t2\t8.2090\tcrossover\n"
                            "avg\t2\t3\t44.7161\tcrossover\n"
                            "avg\t3\t4\t228.9332\tcrossover\n");
    run_free(&r);
}

Test(scimodel, crossover_none_is_dash)
{
    char path[] = "/tmp/scitorus-none-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    dprintf(fd, "o0_ns = 2085\no1_ns_per_byte = 0\nmref_bytes = 64\nlp_ns = 0\nlf_ns = 0\n"
                "ls_ns = 670\n");
    close(fd);
    run_result r = run_cmd(SCIMODEL, 30, "--params", path, "--crossover", "--format", "tsv",
                           "--dims", "1,2", "--metric", "avg", NULL);
    unlink(path);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "avg\t1\t2\t-\tnone\n"), "%s", r.out);
    run_free(&r);
}

Test(scimodel, sweep_columns_and_values)
{
    run_result r = run_cmd(SCIMODEL, 30, "--sweep", "--nodes", "20", "--dims", "1..3", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    static const char header[] = "nodes\tavg_1d_ns\tavg_2d_ns\tavg_3d_ns\tmulticast_1d_ns\t"
                                 "multicast_2d_ns\tmulticast_3d_ns\n";
    cr_assert_eq(strncmp(r.out, header, strlen(header)), 0, "%s", r.out);
    cr_assert_eq(run_lines(r.out), 1 + 19);         /* N = 2..20 */
    cr_assert_not_null(strstr(r.out, "\n2\t4177.000\t-\t-\t4177.000\t-\t-\n"), "%s", r.out);
    run_free(&r);
}

Test(scimodel, shape_row_equals_enumeration_value)
{
    run_result r = run_cmd(SCIMODEL, 30, "--shape", "10x10x10", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\n3\t1000\t10x10x10\t"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "\t6054.054\t"), "%s", r.out);
    run_free(&r);
}

Test(scimodel, hops_rows)
{
    run_result r = run_cmd(SCIMODEL, 30, "--shape", "8", "--hops", "3", "--format", "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* thesis eq. 24: 3 hops = 4311 ns; response 5 hops = 4177 + 4*67 */
    cr_assert_str_eq(r.out, "direction\thops\tforwards\tswitches\tlatency_ns\n"
                            "request\t3\t2\t0\t4311.000\n"
                            "response\t5\t4\t0\t4445.000\n"
                            "transaction\t8\t6\t0\t8756.000\n");
    run_free(&r);
}

Test(scimodel, help)
{
    run_result r = run_cmd(SCIMODEL, 30, "--help", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert_not_null(strstr(r.out, "Usage: scimodel"));
    cr_assert_not_null(strstr(r.out, "Examples:"));
    run_free(&r);
}

/* Every command-line error class: one line naming the argument, exit 2. */
Test(scimodel, usage_errors)
{
    static const struct { const char *a, *b, *c, *d, *word; } cases[] = {
        {"--dims", "0", NULL, NULL, "--dims '0'"},
        {"--dims", "4..1", NULL, NULL, "--dims '4..1'"},
        {"--dims", "1..x", NULL, NULL, "--dims '1..x'"},
        {"--dims", "17", NULL, NULL, "--dims '17'"},
        {"--nodes", "1", NULL, NULL, "--nodes '1'"},
        {"--nodes", "-5", NULL, NULL, "--nodes '-5'"},
        {"--nodes", "1e999", NULL, NULL, "--nodes '1e999'"},
        {"--nodes", "99999999999999999999999", NULL, NULL, "--nodes '9999"},
        {"--nodes", "", NULL, NULL, "--nodes ''"},
        {"--nodes", "12abc", NULL, NULL, "--nodes '12abc'"},
        {"--shape", "4x0", NULL, NULL, "--shape '4x0'"},
        {"--shape", "4x4", "--hops", "5,0", "--hops '5,0'"},
        {"--shape", "4x4", "--hops", "1", "--hops '1'"},
        {"--shape", "4x4", "--hops", "0,0", "--hops '0,0'"},
        {"--hops", "1", NULL, NULL, "needs --shape"},
        {"--size", "-1", NULL, NULL, "--size '-1'"},
        {"--size", "nan", NULL, NULL, "--size 'nan'"},
        {"--metric", "median", NULL, NULL, "--metric 'median'"},
        {"--fill", "cubic", NULL, NULL, "--fill 'cubic'"},
        {"--format", "csv", NULL, NULL, "--format 'csv'"},
        {"--preset", "future", NULL, NULL, "--preset 'future'"},
        {"--preset", "current", "--params", "x", "--params 'x'"},
        {"--sweep", "--crossover", NULL, NULL, "--crossover"},
        {"--sweep", "--nodes", "1000000000", NULL, "--nodes '1000000000'"},
        {"--frobnicate", NULL, NULL, NULL, "frobnicate"},
        {"extra", NULL, NULL, NULL, "'extra'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_cmd(SCIMODEL, 30, cases[i].a, cases[i].b, cases[i].c, cases[i].d,
                               NULL);
        run_assert_error(&r, 2, cases[i].word, cases[i].word);
        run_free(&r);
    }
}

/* File errors: exit 1, one line naming the file (and line). */
Test(scimodel, params_file_errors)
{
    const char *root = run_fixture("params/nan.params");
    run_result r = run_cmd(SCIMODEL, 30, "--params", "/nonexistent/p.params", NULL);
    run_assert_error(&r, 1, "/nonexistent/p.params", "missing file");
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--params", root, NULL);
    run_assert_error(&r, 1, "nan.params:4:", "lp_ns = nan");
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--params", "/tmp", NULL);
    run_assert_error(&r, 1, "'/tmp'", "directory");
    run_free(&r);
}

Test(scimodel, params_file_is_used)
{
    const char *root = run_fixture("params/current.params");
    run_result r = run_cmd(SCIMODEL, 30, "--params", root, "--crossover", "--format", "tsv",
                           "--metric", "avg", "--dims", "1,2", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "avg\t1\t2\t18.2090\tcrossover"), "%s", r.out);
    run_free(&r);
}

/* -o FILE holds exactly what standard output would; -o - is standard
 * output; an output over an input is refused and the input kept; a failed
 * run leaves a previous file as it was. */
Test(scimodel, output_file_rules)
{
    char dir[] = "/tmp/scitorus-scimodel-o-XXXXXX";
    run_tmpdir_make(dir);
    const char *out = run_path(dir, "out.tsv");
    const char *traffic = run_fixture("traffic/halo3d-64.tsv");
    run_result a = run_cmd(SCIMODEL, 30, "--dims", "1..3", "--nodes", "500", "--format", "tsv", NULL);
    run_result b = run_cmd(SCIMODEL, 30, "--dims", "1..3", "--nodes", "500", "--format", "tsv",
                           "-o", out, NULL);
    run_result c = run_cmd(SCIMODEL, 30, "-o", "-", "--dims", "1..3", "--nodes", "500", "--format",
                           "tsv", NULL);
    cr_assert_eq(b.status, 0, "%s", b.err);
    cr_assert_str_empty(b.out);
    char *written = run_read_text(out);
    cr_assert_str_eq(written, a.out);
    cr_assert_str_eq(c.out, a.out);
    free(written);
    run_result t1 = run_cmd(SCIMODEL, 30, "--traffic", traffic, "--dims", "2", "--format", "tsv", NULL);
    run_result t2 = run_cmd(SCIMODEL, 30, "--traffic", traffic, "--dims", "2", "--format", "tsv",
                            "-o", out, NULL);
    cr_assert_eq(t2.status, 0, "%s", t2.err);
    written = run_read_text(out);
    cr_assert_str_eq(written, t1.out);
    free(written);
    run_result bad = run_cmd(SCIMODEL, 30, "--traffic", out, "--dims", "2", "-o", out, NULL);
    run_assert_error(&bad, 2, "same file", "-o over --traffic");
    run_result fail = run_cmd(SCIMODEL, 30, "--traffic", "/nonexistent.tsv", "-o", out, NULL);
    cr_assert_eq(fail.status, 1);
    written = run_read_text(out);
    cr_assert_str_eq(written, t1.out, "a failed run replaced the previous file");
    free(written);
    run_result *all[] = {&a, &b, &c, &t1, &t2, &bad, &fail};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        run_free(all[i]);
    run_tmpdir_remove(dir);
}

/* The report's columns stay under their headings whatever N: a right-aligned
 * column's cells end where its heading ends, a left-aligned one's (shape,
 * nearest torus) start where it starts. */
static void assert_columns_align(const char *out, const char *what)
{
    const char *head = strstr(out, "\n  D  ");
    cr_assert_not_null(head, "%s: no table: %s", what, out);
    head++;
    size_t hl = strcspn(head, "\n");
    static const char *const left[] = {"shape (n^D)", "nearest torus"};
    static const char *const right[] = {"D", "avg hops", "forwards", "switches", "multicast (us)"};
    int rows = 0;
    for (const char *row = head + hl + 1; *row && *row != '\n' && strncmp(row, "  (", 3) != 0;
         row += strcspn(row, "\n") + (row[strcspn(row, "\n")] == '\n')) {
        size_t rl = strcspn(row, "\n");
        rows++;
        for (size_t k = 0; k < sizeof left / sizeof left[0]; k++) {
            size_t at = (size_t)(strstr(head, left[k]) - head);
            cr_assert(at < rl && row[at] != ' ' && row[at - 1] == ' ', "%s: '%s' column drifts:\n%.*s\n%.*s",
                      what, left[k], (int)hl, head, (int)rl, row);
        }
        for (size_t k = 0; k < sizeof right / sizeof right[0]; k++) {
            const char *h = strstr(head, right[k]);
            size_t end = (size_t)(h - head) + strlen(right[k]) - 1;
            cr_assert(end < rl && row[end] != ' ' && (end + 1 == rl || row[end + 1] == ' '),
                      "%s: '%s' column drifts:\n%.*s\n%.*s", what, right[k], (int)hl, head, (int)rl, row);
        }
        /* the last column, "avg (us)" of the nearest torus, ends the line */
        cr_assert_eq(rl, hl, "%s: rows and heading differ in length:\n%.*s\n%.*s", what, (int)hl, head,
                     (int)rl, row);
    }
    cr_assert_geq(rows, 3, "%s", out);
}

Test(scimodel, report_columns_align_at_any_n)
{
    const char *nodes[] = {"10", "1000", "1000000", "1e15"};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        run_result r = run_cmd(SCIMODEL, 30, "--dims", "1..6", "--nodes", nodes[i], NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        char what[40];
        snprintf(what, sizeof what, "--nodes %s", nodes[i]);
        assert_columns_align(r.out, what);
        run_free(&r);
    }
}

/* The multicast crossovers of the continuous model are the average's
 * (the TSV lists both: the oracle); the report prints them once and says
 * why, and both where they differ (--fill interpolate). */
Test(scimodel, report_prints_coinciding_crossovers_once)
{
    run_result t = run_cmd(SCIMODEL, 30, "--dims", "1..4", "--crossover", "--format", "tsv", NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    for (const char *row = strstr(t.out, "\navg\t"); row; row = strstr(row + 1, "\navg\t")) {
        char want[80];
        snprintf(want, sizeof want, "\nmulticast\t%.*s", (int)strcspn(row + 5, "\n"), row + 5);
        cr_assert_not_null(strstr(t.out, want), "multicast differs from avg:\n%s", t.out);
    }
    run_free(&t);
    run_result r = run_cmd(SCIMODEL, 30, "--dims", "1..4", "--nodes", "1000", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "  avg        1D -> 2D         18.21 nodes"), "%s", r.out);
    cr_assert_null(strstr(r.out, "  multicast  1D -> 2D"), "printed twice:\n%s", r.out);
    cr_assert_not_null(strstr(r.out, "(N - 1) x avg"), "%s", r.out);
    cr_assert_null(strstr(r.out, "lowest multicast total:"), "printed twice:\n%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--dims", "1..4", "--nodes", "1000", "--fill", "interpolate", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "  multicast  1D -> 2D         18.52 nodes"), "%s", r.out);
    cr_assert_null(strstr(r.out, "(N - 1) x avg"), "%s", r.out);
    run_free(&r);
}
