/* Table-driven bad input for every command: each numeric option x
 * {empty, zero, negative, huge, NaN, inf, trailing garbage, overflow}, and
 * each file format x {empty, binary garbage, truncated, a 1 MB line,
 * duplicate keys, CRLF line endings, missing header}.  Every case asserts
 * the exit status and, for errors, one stderr line naming the problem with
 * no sanitizer report.  Sanitized binaries throughout. */
#include <fcntl.h>

#include "tests/runcmd.h"

enum { EMPTY, ZERO, NEG, HUGE_, NAN_, INF_, GARBAGE, OVERFLOW, NCLASS };
static const char *const value[NCLASS] = {"", "0", "-1", "1e300", "nan", "inf", "12abc",
                                          "99999999999999999999999"};
static const char *const class_name[NCLASS] = {"empty", "zero", "negative", "huge", "NaN",
                                               "inf", "garbage", "overflow"};

/* Options and whether zero is a valid value for them (every other class is
 * an error for every option).  extra: arguments that keep a valid run short. */
typedef struct opt_case {
    const char *prog, *opt;
    int zero_ok;
} opt_case;

static const opt_case options_table[] = {
    {"scimodel", "--nodes", 0},     {"scimodel", "--size", 1},
    {"scimodel", "--dims", 0},      {"scimodel", "--sweep-points", 0},
    {"scibench", "--ring", 0},      {"scibench", "--sizes", 1},
    {"scibench", "--rel-error", 0}, {"scibench", "--max-time", 0},
    {"scibench", "--max-samples", 0}, {"scibench", "--timeout", 0},
    {"scibench", "--inject-forward", 1}, {"scibench", "--inject-switch", 1},
    {"scibench", "--procs", 0},     {"scibench", "--dst", 0},
    {"scibench", "--hops", 0},      {"mpibench", "--rel-error", 0},
    {"mpibench", "--max-time", 0},  {"mpibench", "--sizes", 1},
    {"scibench", "--batch-time", 1}, {"mpibench", "--batch-time", 1},
    {"calibrate", "--lp", 1},       {"calibrate", "--cable-length", 1},
    {"calibrate", "--np", 0},       {"calibrate", "--segments", 0},
    {"calibrate", "--rel-error", 0}, {"calibrate", "--max-time", 0},
};

static run_result run_with(const opt_case *c, const char *v)
{
    const char *prog = run_prog(c->prog, 0);
    if (!strcmp(c->prog, "scibench")) {
        /* a short run, without the option under test: a repeated option is refused */
        static const char *const base[][2] = {{"--sizes", "8"}, {"--max-time", "0.05"},
                                              {"--rel-error", "0.2"}};
        char *argv[12] = {(char *)prog, "-q"};
        int n = 2;
        for (int i = 0; i < 3; i++)
            if (strcmp(base[i][0], c->opt)) {
                argv[n++] = (char *)base[i][0];
                argv[n++] = (char *)base[i][1];
            }
        argv[n++] = (char *)c->opt;
        argv[n++] = (char *)v;
        argv[n] = NULL;
        return run_argv(argv, 60);
    }
    if (!strcmp(c->prog, "calibrate"))
        return run_cmd(prog, 60, "--data", run_fixture("plots/ring2.tsv"), "-o", "/dev/null",
                       c->opt, v, NULL);
    if (!strcmp(c->opt, "--sweep-points"))
        return run_cmd(prog, 60, "--sweep", "--nodes", "100", c->opt, v, NULL);
    return run_cmd(prog, 60, c->opt, v, NULL);
}

Test(badinput, every_option_every_class, .timeout = 600)
{
    for (size_t i = 0; i < sizeof options_table / sizeof options_table[0]; i++) {
        const opt_case *c = &options_table[i];
        for (int k = 0; k < NCLASS; k++) {
            char what[128], quoted[160];
            snprintf(what, sizeof what, "%s %s '%s' (%s)", c->prog, c->opt, value[k],
                     class_name[k]);
            run_result r = run_with(c, value[k]);
            if (k == ZERO && c->zero_ok && !strcmp(c->prog, "mpibench")) {
                /* a valid value, but a single process is no MPI job */
                run_assert_error(&r, 2, "needs at least 2 MPI ranks", what);
            } else if (k == ZERO && c->zero_ok) {
                /* documented valid values: a normal run (calibrate writes its
                 * params to /dev/null, which must stay a device) */
                cr_assert_eq(r.status, 0, "%s: status %d: %s", what, r.status, r.err);
                cr_assert_null(strstr(r.err, "Sanitizer"), "%s", what);
            } else {
                snprintf(quoted, sizeof quoted, "%s '%s'", c->opt, value[k]);
                run_assert_error(&r, 2, quoted, what);
            }
            run_free(&r);
        }
    }
}

/* ---- files ----------------------------------------------------------- */

static char dir[] = "/tmp/scitorus-bad-XXXXXX";

static const char *put(const char *name, const char *data, size_t len)
{
    const char *path = run_path(dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

static char *big_line(const char *prefix)
{
    size_t n = 1 << 20, p = strlen(prefix);
    char *s = malloc(n + 2);
    memcpy(s, prefix, p);
    memset(s + p, '7', n - p);
    s[n] = '\n';
    s[n + 1] = '\0';
    return s;
}

#define PARAMS "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_bytes = 64\nlp_ns = 7\nlf_ns = 60\nls_ns = 670\n"
#define PARAMS_CRLF "o0_ns = 2085\r\no1_ns_per_byte = 11.6\r\nmref_bytes = 64\r\nlp_ns = 7\r\nlf_ns = 60\r\nls_ns = 670\r\n"
static const char garbage[] = "\x89\x01\xff\xfe\x00\x13" "binary" "\x00\x7f\x80";

Test(badinput, params_file_formats)
{
    run_tmpdir_make(dir);
    char *big = big_line("o0_ns = ");
    static const struct { const char *name, *data; size_t len; int status; const char *word; } c[] = {
        {"empty.params", "", 0, 1, "missing required key 'o0_ns'"},
        {"garbage.params", garbage, sizeof garbage - 1, 1, "garbage.params:1:"},
        {"trunc.params", "o0_ns = 2085\no1_ns_per_byte = 11.6\nmref_b", 0, 1, "trunc.params:3:"},
        {"big.params", NULL, 0, 1, "big.params:1:"},
        {"dup.params", PARAMS "lf_ns = 61\n", 0, 1, "duplicate key 'lf_ns'"},
        {"crlf.params", PARAMS_CRLF, 0, 0, ""},
        {"nohdr.params", "lp_ns = 7\nlf_ns = 60\nls_ns = 670\n", 0, 1, "missing required key"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        /* len 0: a text, measured with strlen; binary garbage has its length */
        const char *f = c[i].data ? put(c[i].name, c[i].data, c[i].len ? c[i].len : strlen(c[i].data))
                                  : put(c[i].name, big, strlen(big));
        run_result r = run_cmd(run_prog("scimodel", 0), 30, "--params", f, "--crossover", NULL);
        if (c[i].status == 0)
            cr_assert_eq(r.status, 0, "%s: %s", c[i].name, r.err);
        else
            run_assert_error(&r, c[i].status, c[i].word, c[i].name);
        run_free(&r);
    }
    free(big);
    run_tmpdir_remove(dir);
}

#define HDR "# scitorus-bench 1\n# topology: ring 2\n# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag\n"
#define ROW(s) "pp\t0\t1\t1\t0\t0\t1\t0\t0\t" s "\t16\t8\t100.0\t101.0\t101.0\t1.0\t0.8\t103.0\tok\n"
#define ROWCR(s) "pp\t0\t1\t1\t0\t0\t1\t0\t0\t" s "\t16\t8\t100.0\t101.0\t101.0\t1.0\t0.8\t103.0\tok\r\n"

Test(badinput, bench_file_formats)
{
    run_tmpdir_make(dir);
    char *big = big_line("pp\t");
    char *bigf = malloc(strlen(big) + sizeof HDR);
    strcpy(bigf, HDR);
    strcat(bigf, big);
    static const char crlf[] = "# scitorus-bench 1\r\n# columns: pattern src dst hops fwd sw rhops rfwd rsw size reps samples min_ns median_ns mean_ns sd_ns ci95_ns max_ns flag\r\n" ROWCR("8") ROWCR("64");
    static const struct { const char *name, *data; int status; const char *word; } c[] = {
        {"empty.tsv", "", 1, "empty file"},
        {"garbage.tsv", garbage, 1, "NUL byte"},
        {"trunc.tsv", HDR ROW("8") "pp\t0\t1\t1", 1, "truncated"},
        {"big.tsv", NULL, 1, "longer than 4096 bytes"},
        {"dup.tsv", HDR "# topology: ring 4\n" ROW("8") ROW("64"), 1, "duplicate header key"},
        {"crlf.tsv", crlf, 0, ""},
        {"nohdr.tsv", ROW("8") ROW("64"), 1, "not a scitorus-bench file"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *f = c[i].data ? put(c[i].name, c[i].data,
                                        c[i].data == garbage ? sizeof garbage - 1 : strlen(c[i].data))
                                  : put(c[i].name, bigf, strlen(bigf));
        char out[320];
        snprintf(out, sizeof out, "%s/out.params", dir);
        run_result r = run_cmd(run_prog("calibrate", 0), 30, "--data", f, "-o", out, NULL);
        if (c[i].status == 0)
            cr_assert_eq(r.status, 0, "%s: %s", c[i].name, r.err);
        else
            run_assert_error(&r, c[i].status, c[i].word, c[i].name);
        run_free(&r);
    }
    free(big);
    free(bigf);
    run_tmpdir_remove(dir);
}
