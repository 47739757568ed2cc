/* Tests for plots/report.sh: the HTML comparing two calibrations (two
 * regimes of this machine's sample data: the full fit with its held-out
 * check, and the 2-node ring's) and a result set opens with no network --
 * every figure an inlined SVG -- and every number is the source files' or
 * scimodel's. */
#include <stdlib.h>
#include <sys/stat.h>

#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-report-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(report, .init = setup, .fini = teardown, .timeout = 300);

static void calibrate(const char *const *args)
{
    char *argv[24];
    int n = 0;
    argv[n++] = (char *)run_prog("calibrate", 1);
    argv[n++] = "-q";
    for (; *args; args++)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    run_result r = run_argv(argv, 120);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
}

/* The value of key in a params file, as written ("" when absent). */
static void param(const char *path, const char *key, char *out, size_t len)
{
    FILE *fp = fopen(path, "r");
    cr_assert_not_null(fp);
    char line[512];
    size_t kl = strlen(key);
    out[0] = '\0';
    while (fgets(line, sizeof line, fp))
        if (!strncmp(line, key, kl) && !strncmp(line + kl, " = ", 3)) {
            snprintf(out, len, "%.*s", (int)strcspn(line + kl + 3, "\n"), line + kl + 3);
            break;
        }
    fclose(fp);
}

/* The text of the cell of key and machine m (up to the next '<'). */
static const char *cell(const char *html, const char *key, int m, char *out, size_t len)
{
    char tag[128];
    snprintf(tag, sizeof tag, "data-key=\"%s\" data-machine=\"%d\">", key, m);
    const char *at = strstr(html, tag);
    cr_assert_not_null(at, "no cell %s of machine %d", key, m);
    at += strlen(tag);
    snprintf(out, len, "%.*s", (int)strcspn(at, "<"), at);
    return out;
}

static double abs_d(double x) { return x < 0 ? -x : x; }

static size_t b64_decode(const char *in, size_t n, unsigned char *out)
{
    static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n && in[i] != '='; i++) {
        const char *p = strchr(abc, in[i]);
        cr_assert(p && in[i], "not base64 at %zu", i);
        acc = acc << 6 | (unsigned)(p - abc);
        if ((bits += 6) >= 8)
            out[o++] = (unsigned char)(acc >> (bits -= 8));
    }
    return o;
}

Test(report, two_calibrations_side_by_side)
{
    const char *root = getenv("SCITORUS_ROOT") ? getenv("SCITORUS_ROOT") : ".";
    char full[600], ring[600], valid[600], set[600], out[600], script[600], s[5][700];
    snprintf(full, sizeof full, "%s/full.params", dir);
    snprintf(valid, sizeof valid, "%s/full-validation.tsv", dir);
    snprintf(ring, sizeof ring, "%s/ring.params", dir);
    snprintf(set, sizeof set, "%s/set", dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    snprintf(script, sizeof script, "%s/plots/report.sh", root);
    static const char *const nets[] = {"ring2", "ring8", "torus4x4", "ring6"};
    for (int k = 0; k < 4; k++)
        snprintf(s[k], sizeof s[k], "%s/data/sample/shm-full-%s.tsv", root, nets[k]);
    snprintf(s[4], sizeof s[4], "%s/tests/fixtures/plots/ring2.tsv", root);
    calibrate((const char *const[]){"--data", s[0], "--data", s[1], "--data", s[2], "--validate",
                                    s[3], "--validation-out", valid, "-o", full, NULL});
    calibrate((const char *const[]){"--stat", "min", "--data", s[4], "-o", ring, NULL});
    cr_assert_eq(mkdir(set, 0777), 0);
    char *t = run_read_text(s[0]);
    run_write_text(run_path(set, "a.tsv"), t);
    free(t);

    char a1[700], a2[700];
    snprintf(a1, sizeof a1, "full fit=%s", full);
    snprintf(a2, sizeof a2, "2-node ring=%s", ring);
    setenv("SCIMODEL", run_prog("scimodel", 1), 1);
    run_result r = run_cmd(script, 200, "-o", out, a1, a2, set, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_empty(r.err, "%s", r.err);
    run_free(&r);
    char *html = run_read_text(out);

    /* nothing to fetch: no script, stylesheet or remote reference; every
     * image an SVG inside the file */
    cr_assert_null(strstr(html, "<script"));
    cr_assert_null(strstr(html, "<link"));
    cr_assert_null(strstr(html, "url("));
    cr_assert_null(strstr(html, "src=\"http"));
    cr_assert_null(strstr(html, "href=\"http"));
    int images = 0;
    for (const char *p = html; (p = strstr(p, "<img ")) != NULL; p++, images++) {
        const char *src = strstr(p, "src=\"");
        cr_assert_not_null(src);
        src += 5;
        cr_assert_eq(strncmp(src, "data:image/svg+xml;base64,", 26), 0, "%.60s", src);
        src += 26;
        size_t n = strcspn(src, "\"");
        unsigned char *svg = malloc(n + 1);
        size_t len = b64_decode(src, n, svg);
        svg[len] = '\0';
        cr_assert_not_null(strstr((char *)svg, "<svg"), "image %d is not an SVG", images);
        cr_assert_gt(len, 20000, "image %d: %zu bytes, looks empty", images, len);
        free(svg);
    }
    /* the full fit: calibration, held-out, crossovers; the ring: calibration, crossovers;
     * the result set's figure */
    cr_assert_eq(images, 6, "%d figures", images);

    /* the two side by side, every parameter as its params file has it */
    cr_assert_not_null(strstr(html, "<th>full fit</th><th>2-node ring</th>"));
    const char *paths[2] = {full, ring};
    static const char *const keys[] = {"o0_ns", "o1_ns_per_byte", "lp_ns", "lf_ns", "ls_ns",
                                       "lb_ns_per_byte", "o_segments", "fit_r2"};
    for (int m = 0; m < 2; m++)
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            char v[128], e[128], key_err[64], got[400], want[300];
            snprintf(key_err, sizeof key_err, "%s_err", keys[k]);
            param(paths[m], keys[k], v, sizeof v);
            param(paths[m], key_err, e, sizeof e);
            if (!*v)
                snprintf(want, sizeof want, "-");
            else if (*e)
                snprintf(want, sizeof want, "%s &plusmn; %s", v, e);
            else
                snprintf(want, sizeof want, "%s", v);
            cell(html, keys[k], m, got, sizeof got);
            cr_assert_eq(strncmp(got, want, strlen(want)), 0, "%s of %d: '%s', the file '%s'",
                         keys[k], m, got, want);
        }

    /* the held-out check's worst error, from the validation table */
    FILE *fp = fopen(valid, "r");
    cr_assert_not_null(fp);
    char line[512], worst[64] = "";
    double w = -1;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#')
            continue;
        const char *last = strrchr(line, '\t');
        double x = atof(last + 1);
        if (abs_d(x) > w)
            w = abs_d(x), snprintf(worst, sizeof worst, "%.*s", (int)strcspn(last + 1, "\n"),
                                   last + 1);
    }
    fclose(fp);
    char got[400];
    cr_assert_str_eq(cell(html, "worst", 0, got, sizeof got), worst);

    /* the crossovers, scimodel's */
    for (int m = 0; m < 2; m++) {
        r = run_cmd(run_prog("scimodel", 1), 30, "--params", paths[m], "--crossover", "--metric",
                    "avg", "--format", "tsv", NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        int from, to;
        char nodes[32];
        const char *p = strchr(r.out, '\n');
        while (p && sscanf(p + 1, "avg\t%d\t%d\t%31s", &from, &to, nodes) == 3) {
            char key[16];
            snprintf(key, sizeof key, "xo%d%d", from, to);
            cell(html, key, m, got, sizeof got);
            cr_assert_eq(strncmp(got, nodes, strlen(nodes)), 0, "%s of %d: %s, scimodel %s", key,
                         m, got, nodes);
            p = strchr(p + 1, '\n');
        }
        run_free(&r);
    }
    cr_assert_not_null(strstr(html, "<td>a.tsv</td>"), "the result set's file is not listed");
    free(html);
}

/* Bad input: one line naming the file, exit 1 (2 for usage); a device is
 * written in place and its error reported, never replaced. */
Test(report, bad_input_one_line)
{
    const char *root = getenv("SCITORUS_ROOT") ? getenv("SCITORUS_ROOT") : ".";
    char script[600], params[600], bad[600];
    snprintf(script, sizeof script, "%s/plots/report.sh", root);
    snprintf(params, sizeof params, "%s/tests/fixtures/plots/ring2.params", root);
    snprintf(bad, sizeof bad, "%s/bad.params", dir);
    setenv("SCIMODEL", run_prog("scimodel", 1), 1);
    run_write_text(bad, "# scitorus params\no0_ns = nan\n");
    run_result r = run_cmd(script, 100, "-o", run_path(dir, "x.html"), bad, NULL);
    run_assert_error(&r, 1, "bad.params:2", "bad params");
    run_free(&r);
    r = run_cmd(script, 100, "-o", run_path(dir, "x.html"), run_path(dir, "none.params"), NULL);
    run_assert_error(&r, 1, "none.params", "missing params");
    run_free(&r);
    r = run_cmd(script, 100, params, NULL);
    run_assert_error(&r, 2, "-o OUT.html is required", "no -o");
    run_free(&r);
    r = run_cmd(script, 100, "-o", "/dev/full", params, NULL);
    run_assert_error(&r, 1, "-o '/dev/full'", "a full device");
    run_free(&r);
    cr_assert_eq(access(run_path(dir, "x.html"), F_OK), -1, "an output was left");
    struct stat st;
    cr_assert_eq(stat("/dev/full", &st), 0);
    cr_assert(S_ISCHR(st.st_mode), "/dev/full was replaced");
}
