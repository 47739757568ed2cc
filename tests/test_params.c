/* Tests for model/params: presets, o(m), and every params-file error class;
 * the writer's output must read back and load in gnuplot. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/params.h"
#include "tests/runcmd.h"

static char tmpdir[] = "/tmp/scitorus-params-XXXXXX";

static void setup(void) { run_tmpdir_make(tmpdir); }
static void teardown(void) { run_tmpdir_remove(tmpdir); }

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    run_write_text(path, text);
    return path;
}

#define GOOD "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\nlp_ns = 7\nlf_ns = 60\nls_ns = 670\n"

TestSuite(params, .init = setup, .fini = teardown);

/* thesis Table 1 and §6.2 */
Test(params, presets)
{
    model_params p;
    cr_assert_eq(model_params_preset("current", &p), 0);
    cr_assert_eq(p.o0_ns, 2085);
    cr_assert_eq(p.ls_ns, 670);
    cr_assert_eq(model_params_preset("enhanced", &p), 0);
    cr_assert_eq(p.ls_ns, 335);
    cr_assert_eq(model_params_preset("future", &p), -1);
}

Test(params, overhead_line_and_segments)
{
    model_params p;
    model_params_preset("current", &p);
    cr_assert_float_eq(model_overhead_ns(&p, 64), 2085, 1e-9);
    cr_assert_float_eq(model_overhead_ns(&p, 128), 2085 + 64 * 11.6, 1e-9);
    p.o_segments = 2;
    p.oseg[0] = (model_oseg){8, 1000, 1};
    p.oseg[1] = (model_oseg){4096, 9000, 0.5};
    cr_assert_float_eq(model_overhead_ns(&p, 8), 1000, 1e-9);
    cr_assert_float_eq(model_overhead_ns(&p, 4095), 1000 + 4087, 1e-9);
    cr_assert_float_eq(model_overhead_ns(&p, 8192), 9000 + 2048, 1e-9);
    cr_assert_float_eq(model_overhead_ns(&p, 1), 1000 - 7, 1e-9);
}

Test(params, read_good_with_comments_and_strings)
{
    model_params p;
    model_params_error e;
    const char *f = write_file("a.params", "# header\n\n" GOOD
                               "lp_ns_source = \"fixed\"   # from 1 m cable\n"
                               "lf_ns_err = 1.5\nfit_r2 = -0.25\n");
    cr_assert_eq(model_params_read(f, &p, &e), 0, "%s", e.msg);
    cr_assert_eq(p.lf_ns, 60);
    cr_assert_str_eq(p.source[MODEL_P_LP], "fixed");
    cr_assert_eq(p.err[MODEL_P_LF], 1.5);
    cr_assert(isnan(p.err[MODEL_P_LS]));
    cr_assert_eq(p.fit_r2, -0.25);
}

/* Each error class names the line. */
Test(params, error_classes)
{
    static const struct { const char *text; long line; const char *word; } cases[] = {
        {GOOD "lq_ns = 4\n", 7, "unknown key"},
        {"o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\nlp_ns = 7\nlf_ns = 60\n", 5,
         "missing required key 'ls_ns'"},
        {GOOD "lp_ns = 8\n", 7, "duplicate key"},
        {"o0_ns = fast\n", 1, "not a finite number"},
        {"o0_ns = -1\n", 1, "negative"},
        {"o0_ns = nan\n", 1, "not a finite number"},
        {"o0_ns = inf\n", 1, "not a finite number"},
        {"o0_ns = 1e999\n", 1, "not a finite number"},
        {"o0_ns 2085\n", 1, "expected 'key = value'"},
        {"o0_ns =\n", 1, "no value"},
        {GOOD "lp_ns_source = fixed\n", 7, "double-quoted"},
        {GOOD "o_segments = 2\no_seg1_from_bytes = 1\no_seg1_ns = 1\no_seg1_ns_per_byte = 1\n",
         10, "o_seg2_from_bytes"},
        /* MODEL_MAX_OSEG + 1, the limit written out as --help gives it */
        {GOOD "o_segments = 17\n", 7, "o_segments must be 1..16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        model_params p;
        model_params_error e;
        const char *f = write_file("bad.params", cases[i].text);
        cr_assert_eq(model_params_read(f, &p, &e), -2, "case %zu", i);
        cr_assert_eq(e.line, cases[i].line, "case %zu: line %ld (%s)", i, e.line, e.msg);
        cr_assert_not_null(strstr(e.msg, cases[i].word), "case %zu: '%s'", i, e.msg);
    }
}

Test(params, missing_file_and_directory)
{
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read("/nonexistent/x.params", &p, &e), -1);
    cr_assert_neq(e.sys_errno, 0);
    cr_assert_eq(model_params_read(tmpdir, &p, &e), -1);
}

/* The writer's file reads back to the same values and loads in gnuplot. */
Test(params, write_read_roundtrip_and_gnuplot)
{
    model_params p, q;
    model_params_error e;
    char path[256], cmd[512], out[64] = "";
    model_params_preset("current", &p);
    p.lf_ns = 61.25;
    p.err[MODEL_P_O0] = 3.5;
    snprintf(p.source[MODEL_P_LS], sizeof p.source[0], "preset current");
    p.o_segments = 2;
    p.oseg[0] = (model_oseg){1, 2000, 2};
    p.oseg[1] = (model_oseg){4096, 9000, 0.5};
    p.fit_r2 = 0.999;
    snprintf(path, sizeof path, "%s/w.params", tmpdir);
    cr_assert_eq(model_params_write(path, &p, "fitted by test\nsecond line"), 0);
    cr_assert_eq(model_params_read(path, &q, &e), 0, "line %ld: %s", e.line, e.msg);
    cr_assert_eq(q.lf_ns, 61.25);
    cr_assert_eq(q.err[MODEL_P_O0], 3.5);
    cr_assert_str_eq(q.source[MODEL_P_LS], "preset current");
    cr_assert_eq(q.o_segments, 2);
    cr_assert_eq(q.oseg[1].ns_per_byte, 0.5);
    cr_assert_eq(q.fit_r2, 0.999);
    snprintf(cmd, sizeof cmd,
             "gnuplot -e 'load \"%s\"; print lf_ns + o_seg2_ns; print ls_ns_source' 2>&1", path);
    FILE *fp = popen(cmd, "r");
    cr_assert_not_null(fp);
    cr_assert_not_null(fgets(out, sizeof out, fp));
    cr_assert_str_eq(out, "9061.25\n");
    cr_assert_not_null(fgets(out, sizeof out, fp));
    cr_assert_str_eq(out, "preset current\n");
    cr_assert_eq(pclose(fp), 0);
}

/* calibrate --full may choose six pieces of o(m) and of the relays' cost
 * (the limit was 6 once): every one is written and read back, in
 * order. */
Test(params, six_segments_roundtrip)
{
    model_params p, q;
    model_params_error e;
    char path[256];
    model_params_preset("current", &p);
    p.o_segments = p.lb_segments = 6;
    for (int i = 0; i < 6; i++) {
        p.oseg[i] = (model_oseg){1 << (3 * i), 100 + i, 0.25 * i};
        p.lbseg[i] = (model_oseg){1 << (3 * i), 10 + i, 0.5 * i};
    }
    snprintf(path, sizeof path, "%s/six.params", tmpdir);
    cr_assert_eq(model_params_write(path, &p, "six segments"), 0);
    cr_assert_eq(model_params_read(path, &q, &e), 0, "line %ld: %s", e.line, e.msg);
    cr_assert_eq(q.o_segments, 6);
    cr_assert_eq(q.lb_segments, 6);
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(q.oseg[i].from_bytes, 1 << (3 * i), "o segment %d", i + 1);
        cr_assert_eq(q.oseg[i].ns, 100 + i, "o segment %d", i + 1);
        cr_assert_eq(q.oseg[i].ns_per_byte, 0.25 * i, "o segment %d", i + 1);
        cr_assert_eq(q.lbseg[i].from_bytes, 1 << (3 * i), "lb segment %d", i + 1);
        cr_assert_eq(q.lbseg[i].ns, 10 + i, "lb segment %d", i + 1);
        cr_assert_eq(q.lbseg[i].ns_per_byte, 0.5 * i, "lb segment %d", i + 1);
    }
}

/* And MODEL_MAX_OSEG (16) pieces of each, as calibrate --full's joint fit
 * may choose (one a step of the cache-line staircase): written, read back
 * in order, and model_overhead_ns / model_relay_bytes_ns use the last
 * segment whose start is at most m (the oracle: each piece's own line). */
Test(params, most_segments_roundtrip)
{
    model_params p, q;
    model_params_error e;
    char path[256];
    model_params_preset("current", &p);
    p.o_segments = p.lb_segments = MODEL_MAX_OSEG;
    for (int i = 0; i < MODEL_MAX_OSEG; i++) {
        p.oseg[i] = (model_oseg){64.0 * i + 1, 100 + 10 * i, 0.01 * i};
        p.lbseg[i] = (model_oseg){64.0 * i + 1, 20 + 5 * i, 0.02 * i};
    }
    snprintf(path, sizeof path, "%s/most.params", tmpdir);
    cr_assert_eq(model_params_write(path, &p, "MODEL_MAX_OSEG segments"), 0);
    cr_assert_eq(model_params_read(path, &q, &e), 0, "line %ld: %s", e.line, e.msg);
    cr_assert_eq(q.o_segments, MODEL_MAX_OSEG);
    cr_assert_eq(q.lb_segments, MODEL_MAX_OSEG);
    for (int i = 0; i < MODEL_MAX_OSEG; i++) {
        double m = 64.0 * i + 33;   /* inside piece i */
        cr_assert_eq(q.oseg[i].from_bytes, p.oseg[i].from_bytes, "o segment %d", i + 1);
        cr_assert_eq(q.lbseg[i].from_bytes, p.lbseg[i].from_bytes, "lb segment %d", i + 1);
        cr_assert_float_eq(model_overhead_ns(&q, m), 100 + 10 * i + 0.01 * i * 32, 1e-9,
                           "o(%g)", m);
        cr_assert_float_eq(model_relay_bytes_ns(&q, m), 20 + 5 * i + 0.02 * i * 32, 1e-9,
                           "g(%g)", m);
    }
}

/* lb_ns_per_byte is optional (default 0, cut-through) and,
 * like every other value, rejected negative or NaN with its line. */
Test(params, lb_optional_and_checked)
{
    model_params p;
    model_params_error e;
    cr_assert_eq(model_params_read(write_file("a.params", GOOD), &p, &e), 0);
    cr_assert_eq(p.lb_ns_per_byte, 0);
    cr_assert_eq(model_params_read(write_file("b.params", GOOD "lb_ns_per_byte = 0.25\n"
                                                          "lb_ns_per_byte_err = 0.01\n"
                                                          "lb_ns_per_byte_source = \"measured\"\n"),
                                   &p, &e), 0, "%s", e.msg);
    cr_assert_eq(p.lb_ns_per_byte, 0.25);
    cr_assert_eq(p.err[MODEL_P_LB], 0.01);
    cr_assert_str_eq(p.source[MODEL_P_LB], "measured");
    static const struct { const char *text; const char *word; } bad[] = {
        {GOOD "lb_ns_per_byte = -0.1\n", "negative"},
        {GOOD "lb_ns_per_byte = nan\n", "not a finite number"},
        {GOOD "lb_ns_per_byte = 0.1\nlb_ns_per_byte = 0.2\n", "duplicate key"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(model_params_read(write_file("c.params", bad[i].text), &p, &e), -2);
        cr_assert_eq(e.line, i == 2 ? 8 : 7, "case %zu: line %ld", i, e.line);
        cr_assert_not_null(strstr(e.msg, bad[i].word), "case %zu: '%s'", i, e.msg);
        cr_assert_not_null(strstr(e.msg, i == 1 ? "nan" : "lb_ns_per_byte"), "'%s'", e.msg);
    }
}

/* A cut-through file is written as before (no lb line); a non-zero lb is
 * written, reads back, and loads in gnuplot. */
Test(params, lb_written_only_when_stated)
{
    model_params p, q;
    model_params_error e;
    char path[256], line[256];
    int seen = 0;
    model_params_preset("current", &p);
    snprintf(path, sizeof path, "%s/cut.params", tmpdir);
    cr_assert_eq(model_params_write(path, &p, NULL), 0);
    FILE *fp = fopen(path, "r");
    cr_assert_not_null(fp);
    while (fgets(line, sizeof line, fp))
        seen |= strstr(line, "lb_") != NULL;
    fclose(fp);
    cr_assert_eq(seen, 0, "a cut-through preset file mentions lb");
    p.lb_ns_per_byte = 0.125;
    snprintf(path, sizeof path, "%s/saf.params", tmpdir);
    cr_assert_eq(model_params_write(path, &p, NULL), 0);
    cr_assert_eq(model_params_read(path, &q, &e), 0, "%s", e.msg);
    cr_assert_eq(q.lb_ns_per_byte, 0.125);
}

/* The writer obeys the reader's rules: values the reader
 * refuses -- negative, NaN, beyond the range table, segments out of order
 * -- are named by model_params_check with the reader's own message, and
 * model_params_write writes nothing (EINVAL), leaving an existing file as
 * it was.  A valid set passes both. */
Test(params, writer_refuses_what_the_reader_refuses)
{
    model_params good, p;
    model_params_error e;
    char path[256];
    model_params_preset("current", &good);
    cr_assert_eq(model_params_check(&good, &e), 0, "%s", e.msg);
    snprintf(path, sizeof path, "%s/keep.params", tmpdir);
    cr_assert_eq(model_params_write(path, &good, NULL), 0);
    static const struct { int what; double v; const char *word; } bad[] = {
        {0, -0.5, "'lb_ns_per_byte' must not be negative"},
        {1, NAN, "not a finite number"},
        {2, 2e9, "lf_ns = 2e+09' is out of range"},
        {3, 2e6, "o_seg2_ns_per_byte = 2e+06' is out of range"},
        {4, 0, "from_bytes not increasing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = good;
        p.o_segments = 2;
        p.oseg[0] = (model_oseg){1, 2000, 2};
        p.oseg[1] = (model_oseg){4096, 9000, 0.5};
        switch (bad[i].what) {
        case 0: p.lb_ns_per_byte = bad[i].v; break;
        case 1: p.o0_ns = bad[i].v; break;
        case 2: p.lf_ns = bad[i].v; break;
        case 3: p.oseg[1].ns_per_byte = bad[i].v; break;
        default: p.oseg[1].from_bytes = 1; break;
        }
        cr_assert_eq(model_params_check(&p, &e), -2, "case %zu", i);
        cr_assert_not_null(strstr(e.msg, bad[i].word), "case %zu: '%s'", i, e.msg);
        errno = 0;
        cr_assert_eq(model_params_write(path, &p, NULL), -1, "case %zu", i);
        cr_assert_eq(errno, EINVAL, "case %zu", i);
        cr_assert_eq(model_params_read(path, &p, &e), 0, "case %zu: %s", i, e.msg);
        cr_assert_eq(p.lf_ns, good.lf_ns, "case %zu: the file at path was replaced", i);
    }
}

/* fit_statistic: which column calibrate fitted, for the plots;
 * written when stated, read back, and only "min", "median" or "mean". */
Test(params, fit_statistic_roundtrip_and_checked)
{
    model_params p, q;
    model_params_error e;
    char path[256];
    model_params_preset("current", &p);
    cr_assert_str_eq(p.fit_statistic, "");
    snprintf(p.fit_statistic, sizeof p.fit_statistic, "median");
    snprintf(path, sizeof path, "%s/stat.params", tmpdir);
    cr_assert_eq(model_params_write(path, &p, NULL), 0);
    cr_assert_eq(model_params_read(path, &q, &e), 0, "%s", e.msg);
    cr_assert_str_eq(q.fit_statistic, "median");
    static const char *const bad[] = {"fit_statistic = \"mode\"\n",
                                      "fit_statistic = \"a-much-longer-name\"\n",
                                      "fit_statistic = median\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, GOOD "%s", bad[i]);
        cr_assert_eq(model_params_read(write_file("s.params", text), &q, &e), -2, "case %zu", i);
        cr_assert_eq(e.line, 7, "case %zu: line %ld", i, e.line);
        cr_assert_not_null(strstr(e.msg, "'fit_statistic' must be"), "case %zu: '%s'", i, e.msg);
    }
}
