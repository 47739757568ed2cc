/* Tests for bench/benchdata: write/read roundtrip and strict rejection. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchdata/benchdata.h"
#include "benchdata/logpdata.h"

static char path[] = "/tmp/scitorus-bd-XXXXXX";

static void put(const char *text)
{
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void drop(void) { unlink(path); }

TestSuite(benchdata, .fini = drop);

Test(benchdata, roundtrip)
{
    bench_data d, r;
    bench_read_error e;
    bench_point p = {"pp", 0, 4, 4, 3, 0, 4, 3, 0, 64, 128, 12, 318.2, 320.5, 321.0, 1.9, 1.2,
                     326.0, 1, 55.5, 54.25, 58.0, 0, {0}};
    memset(&d, 0, sizeof d);
    bench_data_set_header(&d, "backend", "shm");
    bench_data_set_header(&d, "topology", "ring %d", 8);
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    bench_data_write_header(fp, &d);
    bench_data_write_point(fp, &p);
    p.size_bytes = 128;
    p.noisy = 0;
    bench_data_write_point(fp, &p);
    bench_data_write_incomplete(fp);
    fclose(fp);
    cr_assert_eq(bench_data_read(path, &r, &e), 0, "%ld: %s", e.line, e.msg);
    cr_assert_str_eq(bench_data_header(&r, "topology"), "ring 8");
    cr_assert_eq(r.count, 2);
    cr_assert(r.incomplete);
    cr_assert_eq(r.points[0].fwd, 3);
    cr_assert_eq(r.points[0].median_ns, 320.5);
    cr_assert_eq(r.points[0].noisy, 1);
    cr_assert_float_eq(r.points[0].floor_ns, 55.5, 0.05);
    cr_assert_float_eq(r.points[0].floor_q1_ns, 54.25, 0.05);
    cr_assert_float_eq(r.points[0].floor_q3_ns, 58.0, 0.05);
    cr_assert_eq(r.points[1].size_bytes, 128);
    cr_assert_eq(r.points[1].noisy, 0);
    bench_data_free(&r);
}

#define HDR "# scitorus-bench 1\n# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag\n"
#define ROW "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100.0\t101.0\t101.0\t1.0\t0.8\t103.0\tok\n"
/* with the floors' columns */
#define HDR22 "# scitorus-bench 1\n# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag floor_ns floor_q1_ns floor_q3_ns\n"
#define ROW19 "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100.0\t101.0\t101.0\t1.0\t0.8\t103.0\tok"

/* A file written before the floors' columns reads, its floors 0 (not
 * measured); one with them reads them; the header says which rows follow. */
Test(benchdata, floors_columns_old_and_new)
{
    bench_data d;
    bench_read_error e;
    put(HDR ROW);
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%s", e.msg);
    cr_assert_eq(d.points[0].floor_ns, 0);
    cr_assert_eq(d.points[0].floor_q3_ns, 0);
    bench_data_free(&d);
    unlink(path);
    strcpy(path, "/tmp/scitorus-bd-XXXXXX");
    put(HDR22 ROW19 "\t61.5\t60.0\t63.0\n");
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%s", e.msg);
    cr_assert_float_eq(d.points[0].floor_ns, 61.5, 1e-9);
    cr_assert_float_eq(d.points[0].floor_q1_ns, 60.0, 1e-9);
    cr_assert_float_eq(d.points[0].floor_q3_ns, 63.0, 1e-9);
    bench_data_free(&d);
}

/* A file whose third line (its row) the reader refuses, with word in the message. */
static void rejected_at_line_3(size_t i, const char *text, const char *word)
{
    bench_data d;
    bench_read_error e;
    strcpy(path, "/tmp/scitorus-bd-XXXXXX");
    put(text);
    cr_assert_eq(bench_data_read(path, &d, &e), -2, "case %zu", i);
    cr_assert_eq(e.line, 3, "case %zu: line %ld: %s", i, e.line, e.msg);
    cr_assert_not_null(strstr(e.msg, word), "case %zu: %s", i, e.msg);
    unlink(path);
}

Test(benchdata, rejects_bad_floors)
{
    static const struct { const char *text; const char *word; } cases[] = {
        {HDR22 ROW, "expected 22 tab-separated fields (as '# columns:' says), found fewer"},
        {HDR ROW19 "\t61.5\t60.0\t63.0\n", "expected 19 tab-separated fields"},
        {HDR22 ROW19 "\t61.5\tx\t63.0\n", "floor_q1_ns 'x' is not a number"},
        {HDR22 ROW19 "\t70.0\t60.0\t63.0\n", "floor_ns is not between floor_q1_ns and floor_q3_ns"},
        {HDR22 ROW19 "\t-1\t60.0\t63.0\n", "floor_ns '-1'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        rejected_at_line_3(i, cases[i].text, cases[i].word);
}

Test(benchdata, rejects_bad_files)
{
    static const struct { const char *text; long line; const char *word; } cases[] = {
        {"", 0, "empty"},
        {"o0_ns = 2085\n", 1, "not a scitorus-bench file"},
        {HDR "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100.0\n", 3, "19 tab-separated"},
        {HDR ROW "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16", 4, "truncated"},
        {HDR "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t1e3x\t101.0\t101.0\t1.0\t0.8\t103.0\tok\n", 3,
         "min_ns '1e3x' is not a number"},
        {HDR "xx\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100\t101\t101\t1\t0.8\t103\tok\n", 3, "pattern"},
        {HDR "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100\t101\t101\t1\t0.8\t103\tmeh\n", 3, "flag"},
        {"# scitorus-bench 1\n" ROW, 0, "columns"},
        {HDR "# incomplete\n" ROW, 4, "after '# incomplete'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bench_data d;
        bench_read_error e;
        strcpy(path, "/tmp/scitorus-bd-XXXXXX");
        put(cases[i].text);
        cr_assert_eq(bench_data_read(path, &d, &e), -2, "case %zu", i);
        cr_assert_eq(e.line, cases[i].line, "case %zu: line %ld: %s", i, e.line, e.msg);
        cr_assert_not_null(strstr(e.msg, cases[i].word), "case %zu: %s", i, e.msg);
        unlink(path);
    }
}

/* A number outside its column's range is called out of range, with the
 * column and the range; only text that is no number is "not a number". */
Test(benchdata, out_of_range_values_named_with_their_range)
{
    static const struct { const char *row; const char *words[3]; } cases[] = {
        {"pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100\t101\t101\t1\t0.8\t1e307\tok\n",
         {"max_ns '1e307'", "out of range", "0..1e18"}},
        {"pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t-100\t101\t101\t1\t0.8\t103\tok\n",
         {"min_ns '-100'", "out of range", "0..1e18"}},
        {"pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t1e17\t8\t100\t101\t101\t1\t0.8\t103\tok\n",
         {"reps '1e17'", "out of range", "0..2^50"}},
        {"pp\t0\t1\t1\t0\t0\t1\t0\t0\tx8\t16\t8\t100\t101\t101\t1\t0.8\t103\tok\n",
         {"size 'x8'", "not an integer", ""}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bench_data d;
        bench_read_error e;
        char text[1024];
        snprintf(text, sizeof text, HDR "%s", cases[i].row);
        strcpy(path, "/tmp/scitorus-bd-XXXXXX");
        put(text);
        cr_assert_eq(bench_data_read(path, &d, &e), -2, "case %zu", i);
        cr_assert_eq(e.line, 3, "case %zu", i);
        for (int w = 0; w < 3; w++)
            cr_assert_not_null(strstr(e.msg, cases[i].words[w]), "case %zu: %s (want %s)", i,
                               e.msg, cases[i].words[w]);
        unlink(path);
    }
}

Test(benchdata, crlf_and_missing_file)
{
    bench_data d;
    bench_read_error e;
    put("# scitorus-bench 1\r\n# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag\r\n" "pp\t0\t1\t1\t0\t0\t1\t0\t0\t8\t16\t8\t100.0\t"
        "101.0\t101.0\t1.0\t0.8\t103.0\tok\r\n");
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%s", e.msg);
    cr_assert_eq(d.count, 1);
    bench_data_free(&d);
    cr_assert_eq(bench_data_read("/nonexistent/x.tsv", &d, &e), -1);
    cr_assert_eq(bench_data_read("/tmp", &d, &e), -1);
}

/* L from several small sizes: their RTT/2 - os - or by hand (the smallest
 * size's round trip preempted, 400 ns), the median of the seven sizes up
 * to 64 B is 51; the 128 B row is beyond them and not used. */
Test(benchdata, logp_L_is_the_median_of_the_small_sizes)
{
    static const long size[] = {1, 2, 4, 8, 16, 32, 64, 128};
    static const double resid[] = {400, 52, 50, 51, 49, 53, 50, 999};
    logp_row rows[8];
    for (int i = 0; i < 8; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        rows[i].size_bytes = size[i];
        rows[i].os_ns = 30;
        rows[i].or_ns = 70 + i;
        rows[i].rtt_ns = 2 * (resid[i] + rows[i].os_ns + rows[i].or_ns);
        rows[i].rtt_fence_ns = rows[i].rtt_ns + 20;   /* fenced os 10 ns more: L the same + 0 */
        rows[i].os_fence_ns = rows[i].os_ns + 10;
    }
    long used;
    double lo, hi;
    cr_assert_float_eq(logp_estimate_L(rows, 8, 0, &used, &lo, &hi), 51, 1e-9);
    cr_assert_eq(used, 7);
    cr_assert_float_eq(lo, 49, 1e-9);
    cr_assert_float_eq(hi, 400, 1e-9);
    cr_assert_float_eq(logp_estimate_L(rows, 8, 1, &used, &lo, &hi), 51, 1e-9);
    cr_assert_float_eq(logp_estimate_L(rows, 1, 0, &used, &lo, &hi), 400, 1e-9, "one size: it alone");
    cr_assert(isnan(logp_estimate_L(rows, 0, 0, &used, &lo, &hi)));
}

#define HDR23 "# scitorus-bench 1\n# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag floor_ns floor_q1_ns floor_q3_ns node_ns\n"

/* --node-times' column: each process's figure, rank 0 first, or "-"; the
 * writer puts back what the reader read, and the header says the rows have it. */
Test(benchdata, node_times_column)
{
    bench_data d, w;
    bench_read_error e;
    strcpy(path, "/tmp/scitorus-bd-XXXXXX");
    put(HDR23 ROW19 "\t61.5\t60.0\t63.0\t41.8,20326.4\n" ROW19 "\t61.5\t60.0\t63.0\t-\n");
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%ld: %s", e.line, e.msg);
    cr_assert(d.node_times);
    cr_assert_eq(d.points[0].nodes, 2);
    cr_assert_float_eq(d.points[0].node_ns[0], 41.8, 1e-9);
    cr_assert_float_eq(d.points[0].node_ns[1], 20326.4, 1e-9);
    cr_assert_eq(d.points[1].nodes, -1);
    unlink(path);
    strcpy(path, "/tmp/scitorus-bd-XXXXXX");
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    bench_data_write_header(fp, &d);
    for (long i = 0; i < d.count; i++)
        bench_data_write_point(fp, &d.points[i]);
    fclose(fp);
    cr_assert_eq(bench_data_read(path, &w, &e), 0, "%ld: %s", e.line, e.msg);
    cr_assert(w.node_times);
    cr_assert_eq(w.points[0].nodes, 2);
    cr_assert_float_eq(w.points[0].node_ns[1], 20326.4, 1e-9);
    cr_assert_eq(w.points[1].nodes, -1);
    /* without the column: nothing of it is written */
    bench_data_node_column(&w, 0);
    cr_assert_eq(w.points[0].nodes, 0);
    bench_data_free(&d);
    bench_data_free(&w);
}

Test(benchdata, rejects_bad_node_times)
{
    static const struct { const char *text; const char *word; } cases[] = {
        {HDR23 ROW19 "\t61.5\t60.0\t63.0\n", "expected 23 tab-separated fields"},
        {HDR22 ROW19 "\t61.5\t60.0\t63.0\t1.0,2.0\n", "expected 22 tab-separated fields"},
        {HDR23 ROW19 "\t61.5\t60.0\t63.0\t1.0,x\n", "node_ns '1.0,x'"},
        {HDR23 ROW19 "\t61.5\t60.0\t63.0\t1.0,,2.0\n", "node_ns"},
        {HDR23 ROW19 "\t61.5\t60.0\t63.0\t-5\n", "node_ns '-5'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        rejected_at_line_3(i, cases[i].text, cases[i].word);
}
