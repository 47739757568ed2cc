/* Option order never changes a result: scimodel run with every pair of
 * the preset / params / links / size options in both orders, in every mode
 * (report, --shape --hops, --load, --crossover, --traffic), prints the same
 * bytes and exits the same way.  The oracle for the explicit-wins rule:
 * --links bi after --preset or a params file saying links = "uni" gives
 * the bi-links output, not the preset's.  And the bad values scimodel's own
 * options table lists (asked of the program: OPT_BAD_CASES_ENV) are each
 * refused, naming the option. */
#include <stddef.h>
#include <stdlib.h>

#include "tests/runcmd.h"
#include "util/opt.h"

TestSuite(option_order, .timeout = 300);

#define SCIMODEL run_prog("scimodel", 0)
#define MAX_WORDS 24

static char params_uni[300];

/* A params file (the ring2 fixture) that says links = "uni" itself. */
static void setup(void)
{
    char *text = run_read_text(run_fixture("plots/ring2.params"));
    char *full = malloc(strlen(text) + 32);
    sprintf(full, "%slinks = \"uni\"\n", text);
    snprintf(params_uni, sizeof params_uni, "/tmp/scitorus-order-%d.params", (int)getpid());
    run_write_text(params_uni, full);
    free(full);
    free(text);
}

static void teardown(void)
{
    unlink(params_uni);
}

/* Runs scimodel with mode's words, then the option pairs a, b. */
static run_result run_words(const char *const *mode, const char *const *a, const char *const *b)
{
    char *argv[MAX_WORDS];
    int n = 0;
    argv[n++] = (char *)SCIMODEL;
    for (const char *const *w = mode; *w; w++)
        argv[n++] = (char *)*w;
    argv[n++] = (char *)a[0], argv[n++] = (char *)a[1];
    if (b)
        argv[n++] = (char *)b[0], argv[n++] = (char *)b[1];
    argv[n] = NULL;
    return run_argv(argv, 60);
}

Test(option_order, every_pair_in_both_orders_in_every_mode, .init = setup, .fini = teardown)
{
    const char *traffic = run_fixture("traffic/halo3d-8.tsv");
    const char *const modes[][8] = {
        {"--nodes", "100", NULL},
        {"--shape", "4x4x4", "--hops", "1,0,3", NULL},
        {"--load", "--nodes", "100", "--utilisation", "0.5", NULL},
        {"--crossover", "--metric", "avg", NULL},
        {"--traffic", traffic, "--dims", "1..3", NULL},
    };
    const char *const opts[][2] = {
        {"--preset", "enhanced"}, {"--params", params_uni}, {"--links", "bi"}, {"--size", "256"},
    };
    int nopts = sizeof opts / sizeof opts[0], compared = 0;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (int i = 0; i < nopts; i++)
            for (int j = i + 1; j < nopts; j++) {
                run_result ab = run_words(modes[m], opts[i], opts[j]);
                run_result ba = run_words(modes[m], opts[j], opts[i]);
                const char *what = modes[m][0];
                cr_expect_eq(ab.status, ba.status, "%s %s/%s: status %d against %d (%s | %s)",
                             what, opts[i][0], opts[j][0], ab.status, ba.status, ab.err, ba.err);
                cr_expect_str_eq(ab.out, ba.out, "%s: %s %s %s %s: the order changed the output",
                                 what, opts[i][0], opts[i][1], opts[j][0], opts[j][1]);
                cr_expect_str_eq(ab.err, ba.err, "%s %s/%s: the order changed the message", what,
                                 opts[i][0], opts[j][0]);
                cr_expect_null(strstr(ab.err, "Sanitizer"), "%s", ab.err);
                compared += ab.status == 0;
                run_free(&ab);
                run_free(&ba);
            }
    /* not vacuous: most pairs ran (preset+params conflict; --traffic
     * refuses --size) */
    cr_assert_geq(compared, 5 * 6 - 5 - 3, "only %d pairs ran", compared);
}

/* The explicit --links wins over the preset's and the file's "uni" in
 * every mode: the output equals --links bi given after, and differs from
 * no --links at all. */
Test(option_order, links_wins_over_preset_and_params, .init = setup, .fini = teardown)
{
    const char *traffic = run_fixture("traffic/halo3d-8.tsv");
    const char *const modes[][8] = {
        {"--nodes", "100", NULL},
        {"--shape", "4x4x4", "--hops", "3,0,0", NULL},
        {"--load", "--nodes", "100", "--utilisation", "0.5", NULL},
        {"--crossover", "--metric", "avg", NULL},
        {"--traffic", traffic, "--dims", "1..3", NULL},
    };
    const char *const bi[2] = {"--links", "bi"};
    const char *const sources[][2] = {{"--preset", "current"}, {"--params", params_uni}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (size_t k = 0; k < 2; k++) {
            run_result first = run_words(modes[m], bi, sources[k]);
            run_result last = run_words(modes[m], sources[k], bi);
            run_result none = run_words(modes[m], sources[k], NULL);
            cr_expect_eq(first.status, 0, "%s: %s", modes[m][0], first.err);
            cr_expect_str_eq(first.out, last.out, "%s: --links bi before %s lost", modes[m][0],
                             sources[k][0]);
            cr_expect_str_neq(first.out, none.out, "%s: --links bi changed nothing (vacuous)",
                              modes[m][0]);
            run_free(&first);
            run_free(&last);
            run_free(&none);
        }
}

Test(option_order, utilization_is_accepted_as_utilisation)
{
    run_result a = run_cmd(SCIMODEL, 60, "--load", "--nodes", "100", "--utilization", "0.5", NULL);
    run_result b = run_cmd(SCIMODEL, 60, "--load", "--nodes", "100", "--utilisation", "0.5", NULL);
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_assert_str_eq(a.out, b.out);
    run_free(&a);
    run_free(&b);
}

Test(option_order, traffic_refuses_the_other_modes_settings_by_name)
{
    const char *traffic = run_fixture("traffic/halo3d-8.tsv");
    run_result r = run_cmd(SCIMODEL, 60, "--traffic", traffic, "--size", "64", NULL);
    run_assert_error(&r, 2, "--size: not an option of scimodel --traffic", "--traffic --size");
    cr_assert_null(strstr(r.err, "unrecognized"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "(try --help)"), "%s", r.err);
    run_free(&r);
}

Test(option_order, every_bad_value_of_the_table_is_refused_by_name)
{
    cr_assert_eq(setenv(OPT_BAD_CASES_ENV, "1", 1), 0);
    run_result list = run_cmd(SCIMODEL, 60, NULL);
    unsetenv(OPT_BAD_CASES_ENV);
    cr_assert_eq(list.status, 0, "%s", list.err);
    int n = 0;
    for (char *save = NULL, *line = strtok_r(list.out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), n++) {
        char *name = line, *value = strchr(line, '\t'), *why = value ? strchr(value + 1, '\t') : NULL;
        cr_assert(value && why, "not name, value, why: %s", line);
        *value++ = 0, *why++ = 0;
        char opt[80], want[200];
        snprintf(opt, sizeof opt, "--%s", name);
        snprintf(want, sizeof want, "--%s '%s'", name, value);
        run_result r = run_cmd(SCIMODEL, 60, opt, value, NULL);
        cr_expect_eq(r.status, 2, "%s (%s): status %d: %s", want, why, r.status, r.err);
        cr_expect_not_null(strstr(r.err, want), "%s (%s): %s", want, why, r.err);
        cr_expect_not_null(strstr(r.err, "(try --help)\n"), "%s: %s", want, r.err);
        cr_expect_null(strstr(r.err, "Sanitizer"), "%s", r.err);
        run_free(&r);
    }
    cr_assert_geq(n, 20, "%d cases", n);
    run_free(&list);
}

Test(option_order, version_and_help_exit_0)
{
    run_result r = run_cmd(SCIMODEL, 30, "--version", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert_eq(strncmp(r.out, "scimodel (scitorus) ", 20), 0, "%s", r.out);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--help", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert_not_null(strstr(r.out, "--utilisation LIST"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "--traffic FILE"), "%s", r.out);
    run_free(&r);
}

/* --traffic is a mode of the one options table: where --traffic and its
 * settings stand on the line changes nothing (two --shape options are the
 * exception: the candidates are listed in the order given). */
Test(option_order, traffic_settings_in_any_order)
{
    const char *traffic = run_fixture("traffic/halo3d-8.tsv");
    const char *const mode[] = {"--traffic", traffic, NULL};
    const char *const opts[][2] = {
        {"--shape", "2x4"}, {"--shape", "8"}, {"--dims", "2"},
        {"--slots", "2"}, {"--links", "bi"}, {"--format", "tsv"},
    };
    int n = sizeof opts / sizeof opts[0], ran = 0, pairs = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (strcmp(opts[i][0], opts[j][0]) == 0)
                continue;
            pairs++;
            run_result ab = run_words(mode, opts[i], opts[j]);
            /* the mode's option last: opts[j], opts[i], then --traffic FILE */
            const char *const rev[] = {opts[j][0], opts[j][1], opts[i][0], opts[i][1], NULL};
            run_result ba = run_words(rev, mode, NULL);
            cr_expect_eq(ab.status, ba.status, "%s/%s: status %d against %d (%s | %s)",
                         opts[i][0], opts[j][0], ab.status, ba.status, ab.err, ba.err);
            cr_expect_str_eq(ab.out, ba.out, "%s %s / %s %s: the order changed the output",
                             opts[i][0], opts[i][1], opts[j][0], opts[j][1]);
            cr_expect_str_eq(ab.err, ba.err, "%s/%s: the order changed the message", opts[i][0],
                             opts[j][0]);
            cr_expect_null(strstr(ab.err, "Sanitizer"), "%s", ab.err);
            ran += ab.status == 0;
            run_free(&ab);
            run_free(&ba);
        }
    /* not vacuous: every pair runs (the shapes hold the matrix's 8 ranks) */
    cr_assert_eq(ran, pairs, "only %d of %d pairs ran", ran, pairs);
    cr_assert_geq(pairs, 13);
}

/* The traffic mode's own options need --traffic, and only --traffic takes
 * several shapes, before or after the other options. */
Test(option_order, traffic_options_need_traffic)
{
    run_result r = run_cmd(SCIMODEL, 30, "--placement", "optimize", "--nodes", "100", NULL);
    run_assert_error(&r, 2, "--placement 'optimize': needs --traffic", "--placement alone");
    cr_assert_not_null(strstr(r.err, "(try --help)"), "%s", r.err);
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--nodes", "100", "--slots", "2", NULL);
    run_assert_error(&r, 2, "--slots '2': needs --traffic", "--slots alone");
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--shape", "4x4", "--shape", "2x2", NULL);
    run_assert_error(&r, 2, "--shape '2x2' given twice (--shape '4x4' and --shape '2x2')",
                     "--shape twice");
    run_free(&r);
    r = run_cmd(SCIMODEL, 30, "--shape", "4x4", "--dims", "2", NULL);
    run_assert_error(&r, 2, "--dims '2' conflicts with --shape '4x4'", "--shape --dims");
    run_free(&r);
}

/* --links params (the traffic mode's default, named) means the params
 * file's links in every mode: the same bytes as no --links at all. */
Test(option_order, links_params_is_the_default_in_every_mode, .init = setup, .fini = teardown)
{
    const char *const with[] = {"--nodes", "100", "--links", "params", "--params", params_uni,
                                NULL};
    const char *const without[] = {"--nodes", "100", "--params", params_uni, NULL};
    const char *const bi[2] = {"--links", "bi"};
    run_result a = run_words(with, (const char *const[]){"--size", "64"}, NULL);
    run_result b = run_words(without, (const char *const[]){"--size", "64"}, NULL);
    run_result c = run_words(without, bi, NULL);
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_assert_str_eq(a.out, b.out, "--links params differs from no --links");
    cr_assert_str_neq(a.out, c.out, "--links bi changed nothing (vacuous)");
    run_free(&a);
    run_free(&b);
    run_free(&c);
}
