/* Tests that the documentation holds: every `$ bin/...` example in
 * README.md and docs/ runs as pasted (tests/docs/examples.sh; scitestbed's
 * where network namespaces may be made, else reported skipped with the
 * reason), the README stays short enough to read, and nothing the user is
 * given cites a document outside the repository (tests/docs/citations.sh). */
#include "tests/runcmd.h"
#include "tests/testbed_util.h"

/* The documents whose examples must run.  docs/VALIDATION.md is left out:
 * its commands measure for minutes on a quiet machine (make validate). */
static const char *const documents[] = {
    "README.md", "docs/model.md", "docs/replay.md", "docs/router.md", "docs/formats.md",
    "docs/traces.md", "docs/building.md", "docs/testbed.md",
};

static const char *root_dir(void)
{
    const char *root = getenv("SCITORUS_ROOT");
    cr_assert_not_null(root, "SCITORUS_ROOT (set by make check)");
    return root;
}

/* The optimised programs: the examples quote their speed, not ASan's. */
static const char *bin_dir(void)
{
    const char *bin = getenv("SCITORUS_BIN_REL");
    return bin ? bin : run_root_path("bin");
}

/* The lines of examples.sh's report that say which example could not decide
 * and why, joined into one line: a skip's reason is one line in the TAP
 * report make check prints. */
static void undecided_line(const char *report, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *line = report; *line && n + 1 < size;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *mark = strstr(line, ": undecided");
        if ((mark && mark < line + len) || (len > 4 && !strncmp(line, "    ", 4))) {
            while (len && (*line == ' ')) line++, len--;
            n += (size_t)snprintf(out + n, size - n, "%s%.*s", n ? " | " : "", (int)len, line);
        }
        line += len + (end != NULL);
        if (!end)
            break;
    }
}

/* examples.sh [--testbed] --part PART over the documents; returns how many
 * examples ran. */
static int run_examples(int testbed, const char *part)
{
    char *argv[18];
    int n = 0;
    argv[n++] = (char *)run_root_path("tests/docs/examples.sh");
    if (testbed)
        argv[n++] = "--testbed";
    argv[n++] = "--part";
    argv[n++] = (char *)part;
    argv[n++] = (char *)root_dir();
    argv[n++] = (char *)bin_dir();
    for (size_t i = 0; i < sizeof documents / sizeof *documents; i++)
        if (access(run_root_path(documents[i]), R_OK) == 0)
            argv[n++] = (char *)run_root_path(documents[i]);
    argv[n] = NULL;
    run_result r = run_argv(argv, 1150);
    static char report[65536];
    snprintf(report, sizeof report, "%s%s", r.out, r.err);
    int status = r.status;
    run_free(&r);
    const char *count = strstr(report, "examples: ");
    /* 4: every other example ran as pasted, and one that measures could not
     * decide: a busy machine, or a held-out check this machine's figures missed
     * (examples.sh says which, and why, with the figures) */
    if (status == 4 && count) {
        static char why[8192];
        undecided_line(report, why, sizeof why);
        cr_skip_test("every example ran as pasted but some that measure could not decide (a busy"
                     " machine, or a held-out check this machine missed): %s", why);
    }
    cr_assert_eq(status, 0, "examples that do not run as pasted:\n%s", report);
    cr_assert_not_null(count, "%s", report);
    return atoi(count + 10);
}

/* The examples that measure, and those that read or write their files (the
 * timing tier); an extractor that found nothing would pass vacuously. */
Test(docs, every_example_that_measures_runs_as_pasted, .timeout = 1200)
{
    int ran = run_examples(0, "measuring");
    cr_assert_gt(ran, 10, "%d examples ran", ran);
}

/* The others: nothing in them is timed (tests/module.mk runs this in the cli tier). */
Test(docs, every_other_example_runs_as_pasted, .timeout = 1200)
{
    int ran = run_examples(0, "other");
    cr_assert_gt(ran, 5, "%d examples ran", ran);
}

/* README's scitestbed section: up, an MPI run across the ring, down. */
Test(docs, testbed_examples_run_as_pasted, .timeout = 1200)
{
    tb_require();
    int ran = run_examples(1, "all");
    cr_assert_geq(ran, 3, "%d testbed examples ran", ran);
}

Test(docs, readme_is_at_most_400_lines)
{
    char *text = run_read_text(run_root_path("README.md"));
    int lines = run_lines(text);
    cr_assert_leq(lines, 400, "README.md has %d lines; the reference belongs in docs/", lines);
    free(text);
}

/* The house rule: no source, script, make file or document over 700 lines
 * (test fixtures and measured data are not read by people line by line). */
Test(docs, no_file_is_over_700_lines, .timeout = 60)
{
    char sh[1200];
    snprintf(sh, sizeof sh,
             "cd '%s' && find . \\( -path ./build -o -path ./bin -o -path ./.git -o -path ./data"
             " -o -path ./tests/fixtures -o -path ./plots/out \\) -prune -o -type f \\( -name '*.c'"
             " -o -name '*.h' -o -name '*.md' -o -name '*.sh' -o -name '*.mk' -o -name '*.gp'"
             " -o -name '*.awk' -o -name '*.h2m' -o -name Makefile \\) -print |"
             " while read -r f; do n=$(wc -l < \"$f\"); [ \"$n\" -le 700 ] || echo \"$f: $n lines\"; done",
             root_dir());
    run_result r = run_cmd("/bin/sh", 50, "-c", sh, NULL);
    static char over[8192];
    snprintf(over, sizeof over, "%s", r.out);
    int status = r.status;
    run_free(&r);
    cr_assert_eq(status, 0, "the file scan failed");
    cr_assert_str_empty(over, "over 700 lines:\n%s", over);
}

/* make demo's crossovers side by side are scimodel's own, read by column
 * name: scimodel may add columns at the end of its TSV. */
Test(docs, demo_crossovers_are_scimodels, .timeout = 120)
{
    char dir[] = "/tmp/scitorus-demo-XXXXXX", params[64], sh[2048], want[3][48];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(params, sizeof params, "%s/full.params", dir);
    snprintf(sh, sizeof sh,
             "cd '%s' && '%s/calibrate' -q --data data/sample/shm-full-ring2.tsv --data "
             "data/sample/shm-full-ring8.tsv --data data/sample/shm-full-torus4x4.tsv -o '%s' >/dev/null && "
             "'%s/scimodel' --params '%s' --crossover --metric avg --format tsv",
             root_dir(), bin_dir(), params, bin_dir(), params);
    run_result r = run_cmd("/bin/sh", 100, "-c", sh, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    int rows = 0;
    for (const char *l = strchr(r.out, '\n'); l && l[1] && rows < 3; l = strchr(l + 1, '\n')) {
        double nodes;
        cr_assert_eq(sscanf(l + 1, "%*s %*s %*s %lf", &nodes), 1, "%s", r.out);
        snprintf(want[rows++], sizeof want[0], "%.2f", nodes);
    }
    run_free(&r);
    cr_assert_eq(rows, 3);
    snprintf(sh, sizeof sh, "cd '%s' && make -s demo-full FULL_PARAMS='%s' DEMO_PARAMS='%s'",
             root_dir(), params, params);
    r = run_cmd("/bin/sh", 100, "-c", sh, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *table = strstr(r.out, "side by side");
    cr_assert_not_null(table, "%s", r.out);
    for (int d = 0; d < 3; d++) {
        char label[32], a[32], b[32];
        snprintf(label, sizeof label, "%dD -> %dD", d + 1, d + 2);
        const char *l = strstr(table, label);
        cr_assert_not_null(l, "%s", r.out);
        cr_assert_eq(sscanf(l + strlen(label), " %31s nodes %*s %31s", a, b) >= 1, 1, "%s", l);
        if (!strcmp(b, "nodes"))   /* the first column had no star */
            sscanf(l + strlen(label), " %31s nodes %31s", a, b);
        cr_assert_str_eq(a, want[d], "%s", r.out);
        cr_assert_str_eq(b, want[d], "%s", r.out);
    }
    run_free(&r);
    snprintf(sh, sizeof sh, "rm -rf '%s'", dir);
    cr_assert_eq(system(sh), 0);
}

/* Fails until every file, help text and man page cites docs/ instead:
 * the message lists each place and a count per directory. */
Test(docs, nothing_cites_documents_the_user_does_not_have, .timeout = 120)
{
    run_result r = run_cmd(run_root_path("tests/docs/citations.sh"), 110, root_dir(),
                           bin_dir(), NULL);
    /* Freed before asserting: a failed assertion ends the test, and the
     * leak report would bury the list. */
    static char report[65536];
    snprintf(report, sizeof report, "%s%s", r.out, r.err);
    int status = r.status;
    run_free(&r);
    cr_assert_eq(status, 0, "%s", report);
}

/* The README shows what scimodel prints: every `$ bin/scimodel` example on
 * a preset (no --params, --traffic: those read files the reader makes)
 * whose output the block shows is run, and the output compared line by
 * line. */
Test(docs, readme_shows_what_scimodel_prints, .timeout = 120)
{
    char *text = run_read_text(run_root_path("README.md"));
    int inblock = 0, compared = 0;
    for (char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        char *next = line + len + (line[len] == '\n');
        if (strncmp(line, "```", 3) == 0)
            inblock = !inblock;
        else if (inblock && strncmp(line, "$ bin/scimodel ", 15) == 0) {
            char cmd[600];
            snprintf(cmd, sizeof cmd, "%.*s", (int)len - 2, line + 2);
            char *shown = next;
            while (*next && strncmp(next, "```", 3) != 0 && strncmp(next, "$ ", 2) != 0)
                next += strcspn(next, "\n") + (next[strcspn(next, "\n")] == '\n');
            size_t shown_len = (size_t)(next - shown);
            if (shown_len > 0 && !strstr(cmd, "--params") && !strstr(cmd, "--traffic")) {
                char sh[900];
                snprintf(sh, sizeof sh, "cd '%s' && '%s/scimodel'%s", root_dir(), bin_dir(), cmd + 12);
                run_result r = run_cmd("/bin/sh", 60, "-c", sh, NULL);
                cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
                cr_assert(strlen(r.out) == shown_len && strncmp(r.out, shown, shown_len) == 0,
                          "README.md shows for '%s':\n%.*s\nscimodel prints:\n%s", cmd, (int)shown_len,
                          shown, r.out);
                run_free(&r);
                compared++;
            }
            line = next;
            continue;
        }
        line = next;
    }
    cr_assert_geq(compared, 1, "no scimodel example with its output found in README.md");
    free(text);
}
