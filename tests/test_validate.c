/* Tests for make validate's table (validate/validate.sh): a run of some
 * claims rewrites their rows and keeps every other claim's, with the date
 * each was measured; a claim whose reference was not given keeps its last
 * figures; an unknown claim leaves the document as it was; a comparison
 * whose reference disagrees with itself cannot decide, nor a LogP run
 * spanning regimes.  The claims run (floor, osu and logp, one round)
 * measure, but no figure of theirs is asserted. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-validate-XXXXXX";

static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

TestSuite(validate, .init = setup, .fini = teardown, .timeout = 120);

/* A document as validate.sh wrote it before the measured column: its
 * rows' date is the run's, on the Measured line. */
static const char doc_text[] =
    "# A document\n\nText before.\n\n<!-- validate: begin -->\n"
    "Measured 2026-01-02T03:04Z on x, load average 0.1 at the start and 0.2 at the end;\n"
    "ROUNDS=5, FULL_RUNS=10, claims: floor osu coll.\n\n"
    "| claim | target | last figure | regime | verdict | reproduce |\n"
    "|---|---|---|---|---|---|\n"
    "| coll row | t | OLD-COLL | floor 1 ns | met | `OSU_COLL=dir CLAIMS=coll make validate` |\n"
    "| floor row | t | OLD-FLOOR | floor 1 ns | met | `CLAIMS=floor make validate` |\n"
    "| osu row | t | OLD-OSU | floor 1 ns | missed | `OSU_LATENCY=path CLAIMS=osu make validate` |\n"
    "<!-- validate: end -->\n\nText after.\n";

/* tmpdir/doc.md, holding doc_text. */
static const char *fresh_doc(void)
{
    const char *doc = run_path(dir, "doc.md");
    FILE *f = fopen(doc, "w");
    cr_assert_not_null(f);
    fputs(doc_text, f), fclose(f);
    return doc;
}

static run_result validate(const char *claims, const char *doc)
{
    char bin[600], e_claims[200], e_lock[700];
    snprintf(bin, sizeof bin, "%s", run_prog("", 1));
    bin[strlen(bin) - 1] = '\0';   /* the directory, without the trailing slash */
    snprintf(e_claims, sizeof e_claims, "CLAIMS=%s", claims);
    snprintf(e_lock, sizeof e_lock, "MEASURE_LOCK=%s/lock", dir);
    return run_cmd("/usr/bin/env", 100, "-u", "OSU_LATENCY", "-u", "OSU_COLL", e_claims,
                   "ROUNDS=1", e_lock, "bash", run_root_path("validate/validate.sh"), bin, doc,
                   NULL);
}

/* The line of text that contains what, copied to line (at most n bytes);
 * where it starts in text. */
static const char *line_of(const char *text, const char *what, char *line, size_t n)
{
    const char *p = strstr(text, what);
    cr_assert_not_null(p, "no '%s' in:\n%s", what, text);
    while (p > text && p[-1] != '\n')
        p--;
    size_t len = strcspn(p, "\n");
    snprintf(line, n, "%.*s", (int)len, p);
    return p;
}

Test(validate, a_run_of_some_claims_keeps_the_others_rows)
{
    const char *doc = fresh_doc();
    run_result r = validate("floor osu", doc);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *text = run_read_text(doc);
    cr_assert(strncmp(text, "# A document\n\nText before.\n\n<!-- validate: begin -->\n", 51) == 0,
              "%s", text);
    cr_assert(strstr(text, "<!-- validate: end -->\n\nText after.\n"), "%s", text);
    cr_assert(strstr(text, "| claim | target | last figure | regime | verdict | measured | reproduce |"),
              "%s", text);
    /* floor measured now; osu, whose reference was not given, and coll, not
     * run, keep their figures and their run's date */
    cr_assert_null(strstr(text, "OLD-FLOOR"), "%s", text);
    char fl_line[4096], os_line[4096], co_line[4096];
    const char *fl = line_of(text, "`CLAIMS=floor make validate`", fl_line, sizeof fl_line);
    const char *os = line_of(text, "OLD-OSU", os_line, sizeof os_line);
    const char *co = line_of(text, "OLD-COLL", co_line, sizeof co_line);
    cr_assert_null(strstr(fl_line, "2026-01-02T03:04Z"), "%s", text);
    cr_assert(strstr(os_line, "| missed | 2026-01-02T03:04Z | `OSU_LATENCY=path CLAIMS=osu make"),
              "%s", text);
    cr_assert(strstr(co_line, "| met | 2026-01-02T03:04Z | `OSU_COLL=dir CLAIMS=coll make"),
              "%s", text);
    cr_assert_null(strstr(text, "undecided (set OSU_LATENCY)"), "%s", text);
    /* the claims' order: floor, osu, coll */
    cr_assert(fl < os && os < co, "%s", text);
    free(text);
}

Test(validate, an_unknown_claim_leaves_the_document)
{
    const char *doc = fresh_doc();
    run_result r = validate("flor", doc);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "unknown claim 'flor'"), "%s", r.err);
    run_free(&r);
    char *text = run_read_text(doc);
    cr_assert_str_eq(text, doc_text);
    free(text);
}

/* The osu claim against stand-ins whose figures are known
 * (tests/fake_p2p_ref.sh: osu_latency 2 us at every size, mpibench
 * FAKE_MB_NS) and a stand-in floor (one regime, so no round is measured
 * again), five rounds: a size is decided on the range of its ratio over the
 * rounds.  1 us against 2 us is missed; the same with OSU's second launch
 * reading 1.25 times its first cannot decide; 2 us is met; 1.9 us with
 * every second mpibench launch 1.25 times that (0.95 and 1.19) reaches
 * across the bound and cannot decide.  On a loaded machine the row says so
 * and keeps that verdict after "was:". */
Test(validate, osu_claim_decides_on_the_rounds_range_and_the_reference_against_itself)
{
    char bin[600], link[700], osu[700], calls[700], mbcalls[700], e_osu[760], e_lock[700];
    char e_calls[760], e_mbcalls[760];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    cr_assert_eq(mkdir(bin, 0700), 0);
    snprintf(link, sizeof link, "%s/mpibench", bin);
    cr_assert_eq(symlink(run_root_path("tests/fake_p2p_ref.sh"), link), 0);
    snprintf(link, sizeof link, "%s/scibench", bin);
    FILE *f = fopen(link, "w");
    cr_assert_not_null(f);
    fputs("#!/bin/sh\nprintf 'floor_ns\\t300.0\\n'\n", f), fclose(f);
    cr_assert_eq(chmod(link, 0700), 0);
    snprintf(osu, sizeof osu, "%s/osu_latency", dir);
    cr_assert_eq(symlink(run_root_path("tests/fake_p2p_ref.sh"), osu), 0);
    snprintf(e_osu, sizeof e_osu, "OSU_LATENCY=%s", osu);
    snprintf(e_lock, sizeof e_lock, "MEASURE_LOCK=%s/lock", dir);
    static const struct {
        int self, mbself;
        const char *mb_ns, *verdict, *figure;
    } cases[] = {
        {0, 0, "FAKE_MB_NS=1000", "missed", "0.500 at 65536 B (rounds 0.500..0.500; osu_latency over itself 1.000)"},
        {1, 0, "FAKE_MB_NS=1000", "undecided (the reference disagreed with itself beyond the bound at 14 sizes out)",
         "(rounds 0.444..0.444; osu_latency over itself 1.250)"},
        {0, 0, "FAKE_MB_NS=2000", "met", "1.000 at 65536 B (rounds 1.000..1.000;"},
        {0, 1, "FAKE_MB_NS=1900", "undecided (the rounds' range reached across the bound at 14 sizes)",
         "(rounds 0.950..1.188;"},
    };
    for (int i = 0; i < 4; i++) {
        snprintf(calls, sizeof calls, "%s/calls%d", dir, i);
        snprintf(mbcalls, sizeof mbcalls, "%s/mbcalls%d", dir, i);
        cr_assert_eq(mkdir(calls, 0700), 0);
        cr_assert_eq(mkdir(mbcalls, 0700), 0);
        snprintf(e_calls, sizeof e_calls, "FAKE_CALLS=%s", cases[i].self ? calls : "");
        snprintf(e_mbcalls, sizeof e_mbcalls, "FAKE_MB_CALLS=%s", cases[i].mbself ? mbcalls : "");
        const char *doc = fresh_doc();
        run_result r = run_cmd("/usr/bin/env", 100, e_osu, "CLAIMS=osu", "ROUNDS=5", e_lock, e_calls,
                               e_mbcalls, cases[i].mb_ns, "bash",
                               run_root_path("validate/validate.sh"), bin, doc, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        char *text = run_read_text(doc), line[2048], now[200], was[200];
        line_of(text, "| mpibench / osu_latency", line, sizeof line);
        snprintf(now, sizeof now, "| %s", cases[i].verdict);
        snprintf(was, sizeof was, "was: %s", cases[i].verdict);
        cr_assert((strstr(line, now) || strstr(line, was)) && strstr(line, cases[i].figure),
                  "case %d: %s", i, line);
        cr_assert(strstr(line, "| floor 300..300 ns |"), "case %d: %s", i, line);
        free(text);
    }
}

/* The logp claim measures again a run whose floors before and after lie in
 * two regimes: with a stand-in floor that alternates 300 and 600 ns, every
 * run spans, each is dropped (twice the rounds are tried), and with no run
 * in one regime the claim cannot decide.  A dropped run's file is never
 * read, so mpibench is a stand-in that records how it was started. */
Test(validate, logp_claim_measures_again_a_run_spanning_regimes)
{
    char bin[600], link[700], count[700], calls[700], e_lock[700];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    cr_assert_eq(mkdir(bin, 0700), 0);
    snprintf(link, sizeof link, "%s/calibrate", bin);
    cr_assert_eq(symlink(run_prog("calibrate", 1), link), 0);
    snprintf(count, sizeof count, "%s/floors", dir);
    snprintf(calls, sizeof calls, "%s/mpibench.calls", dir);
    snprintf(link, sizeof link, "%s/scibench", bin);
    FILE *f = fopen(link, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\necho x >> '%s'\n"
               "[ $(($(wc -l < '%s') %% 2)) = 1 ] && v=300.0 || v=600.0\n"
               "printf 'floor_ns\\t%%s\\n' $v\n", count, count);
    fclose(f);
    cr_assert_eq(chmod(link, 0700), 0);
    snprintf(link, sizeof link, "%s/mpibench", bin);
    f = fopen(link, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\necho \"$*\" >> '%s'\n", calls);
    fclose(f);
    cr_assert_eq(chmod(link, 0700), 0);
    snprintf(e_lock, sizeof e_lock, "MEASURE_LOCK=%s/lock", dir);
    const char *doc = fresh_doc();
    run_result r = run_cmd("/usr/bin/env", 100, "CLAIMS=logp", "ROUNDS=1", e_lock, "bash",
                           run_root_path("validate/validate.sh"), bin, doc, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    int spanned = 0;
    for (const char *p = r.err; (p = strstr(p, "validate: logp: a run spanned regimes")); p++)
        spanned++;
    cr_assert_eq(spanned, 2, "%s", r.err);
    run_free(&r);
    /* two runs, each on two ranks, each started as the claim documents */
    char *started = run_read_text(calls), *at = started;
    int lines = 0;
    for (char *nl; (nl = strchr(at, '\n')); at = nl + 1, lines++)
        cr_assert(strstr(at, "--pattern logp --mpi-send isend --os-fence") &&
                      strstr(at, "--pattern logp") < nl,
                  "%s", started);
    cr_assert_eq(lines, 4, "%s", started);
    free(started);
    char *text = run_read_text(doc), line[2048];
    line_of(text, "| LogP (isend, os-fence)", line, sizeof line);
    cr_assert(strstr(line, "0 of 0 runs") && strstr(line, "2 more spanning regimes dropped") &&
                  strstr(line, "undecided (0 of 1 runs in one regime)"),
              "%s", line);
    free(text);
}
