/* Tests for the installed library scilogp: installed with DESTDIR, a
 * program built with `pkg-config --cflags --libs scilogp` gets scimodel's
 * values from a params file (the same model code) and a LogP file's own
 * rows from it. */
#include <math.h>
#include <stdlib.h>

#include "benchdata/logpdata.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-scilogp-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(scilogp, .init = setup, .fini = teardown, .timeout = 300);

static const char *root(void)
{
    return getenv("SCITORUS_ROOT") ? getenv("SCITORUS_ROOT") : ".";
}

/* make install-scilogp DESTDIR=dir/dest PREFIX=/usr, then the app built
 * against it with pkg-config (its sysroot: the DESTDIR). */
static void build_app(char *app, size_t len)
{
    char destdir[700], script[4096];
    snprintf(destdir, sizeof destdir, "DESTDIR=%s/dest", dir);
    run_result r = run_cmd("/usr/bin/make", 280, "-s", "--no-print-directory", "-C", root(),
                           "install-scilogp", destdir, "PREFIX=/usr", NULL);
    cr_assert_eq(r.status, 0, "make install-scilogp: %s %s", r.out, r.err);
    run_free(&r);
    snprintf(app, len, "%s/app", dir);
    snprintf(script, sizeof script,
             "export PKG_CONFIG_SYSROOT_DIR=%s/dest PKG_CONFIG_PATH=%s/dest/usr/lib/pkgconfig"
             " PKG_CONFIG_LIBDIR=; flags=$(pkg-config --cflags --libs scilogp) || exit 3;"
             " echo \"$flags\"; cc -std=c11 -Wall -Werror -o %s %s/tests/scilogp_app.c $flags",
             dir, dir, app, root());
    r = run_cmd("/bin/sh", 120, "-c", script, NULL);
    cr_assert_eq(r.status, 0, "building with pkg-config: %s %s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "/dest/usr/include"), "pkg-config's flags: %s", r.out);
    run_free(&r);
}

static double field(const char *line, int k)
{
    const char *p = line;
    for (int i = 0; i < k; i++)
        p = strchr(p, ' ') + 1;
    return strtod(p, NULL);
}

Test(scilogp, a_pkg_config_build_gets_scimodels_values)
{
    char app[700], params[700], logp[700];
    build_app(app, sizeof app);
    snprintf(logp, sizeof logp, "%s/data/sample/logp-shm.tsv", root());
    snprintf(params, sizeof params, "%s/logp.params", dir);
    run_result r = run_cmd(run_prog("calibrate", 1), 120, "-q", "--logp", logp, "-o", params,
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);

    static const char *const sizes[] = {"0", "1", "64", "100", "3000", "65536", "1000000"};
    char *argv[16] = {app, params, "4x4", "1,2"};
    int n = 4;
    for (size_t i = 0; i < 7; i++)
        argv[n++] = (char *)sizes[i];
    argv[n] = NULL;
    r = run_argv(argv, 30);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *line = r.out;
    for (size_t i = 0; i < 7; i++, line = strchr(line, '\n') + 1) {
        /* scimodel --logp: size o os or g L (%.9g); --shape --hops: the request (%.3f) */
        run_result m = run_cmd(run_prog("scimodel", 1), 30, "--params", params, "--logp",
                               "--size", sizes[i], "--format", "tsv", NULL);
        cr_assert_eq(m.status, 0, "%s", m.err);
        const char *row = strchr(m.out, '\n') + 1;
        char want[200], got[200];
        snprintf(want, sizeof want, "%.*s", (int)strcspn(row, "\n"), row);
        for (char *c = want; *c; c++)
            if (*c == '\t')
                *c = ' ';
        snprintf(got, sizeof got, "%.*s", (int)strlen(want), line);
        cr_assert_str_eq(got, want, "size %s: library '%s', scimodel '%s'", sizes[i], got, want);
        run_free(&m);
        m = run_cmd(run_prog("scimodel", 1), 30, "--params", params, "--shape", "4x4", "--hops",
                    "1,2", "--size", sizes[i], "--format", "tsv", NULL);
        cr_assert_eq(m.status, 0, "%s", m.err);
        const char *req = strstr(m.out, "\nrequest\t");
        cr_assert_not_null(req, "%s", m.out);
        char *reqline = strndup(req + 1, strcspn(req + 1, "\n"));
        double model = strtod(strrchr(reqline, '\t') + 1, NULL);
        free(reqline);
        double lib = field(line, 6);
        cr_assert_leq(fabs(lib - model), 0.0005 + 1e-12 * model,
                      "size %s: route %.6f, scimodel %.3f", sizes[i], lib, model);
        run_free(&m);
    }
    run_free(&r);

    /* a LogP file: its rows at its sizes, its L; no o(m), no route */
    logp_data d;
    bench_read_error e;
    cr_assert_eq(logp_data_read(logp, &d, &e), 0, "%s", e.msg);
    char sz[3][32];
    long picks[3] = {0, d.count / 2, d.count - 1};
    char *argv2[8] = {app, logp, "4x4", "1,2"};
    for (int k = 0; k < 3; k++) {
        snprintf(sz[k], sizeof sz[k], "%ld", d.rows[picks[k]].size_bytes);
        argv2[4 + k] = sz[k];
    }
    argv2[7] = NULL;
    r = run_argv(argv2, 30);
    cr_assert_eq(r.status, 0, "%s", r.err);
    line = r.out;
    for (int k = 0; k < 3; k++, line = strchr(line, '\n') + 1) {
        const logp_row *row = &d.rows[picks[k]];
        cr_assert(isnan(field(line, 1)), "o(m) of a LogP file: %s", line);
        cr_assert_float_eq(field(line, 2), row->os_ns, 1e-6 * row->os_ns + 1e-9, "%s", line);
        cr_assert_float_eq(field(line, 3), row->or_ns, 1e-6 * row->or_ns + 1e-9, "%s", line);
        cr_assert_float_eq(field(line, 4), row->g_ns, 1e-6 * row->g_ns + 1e-9, "%s", line);
        cr_assert_float_eq(field(line, 5), d.L_ns, 1e-9, "%s", line);
        cr_assert(isnan(field(line, 6)), "a route of a LogP file: %s", line);
    }
    run_free(&r);
    logp_data_free(&d);

    /* a bad file: one message naming it */
    char bad[700];
    snprintf(bad, sizeof bad, "%s/bad.params", dir);
    run_write_text(bad, "# scitorus params\no0_ns = -1\n");
    char *argv3[] = {app, bad, "4", "1", "64", NULL};
    r = run_argv(argv3, 30);
    cr_assert_eq(r.status, 1);
    cr_assert_not_null(strstr(r.err, "bad.params:2"), "%s", r.err);
    run_free(&r);
}
