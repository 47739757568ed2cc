/* Tests that the documentation holds: every `$ bin/...` example in
 * README.md and docs/ runs as pasted (tests/docs/examples.sh), the README
 * stays short enough to read, and nothing the user is given cites a
 * document outside the repository (tests/docs/citations.sh). */
#include "tests/runcmd.h"

/* The documents whose examples must run.  docs/MEASUREMENTS.md is left out:
 * it is a lab notebook, its commands records of runs on the development
 * machine (some take minutes or write into data/). */
static const char *const documents[] = {
    "README.md", "docs/model.md", "docs/formats.md", "docs/testbed.md",
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

Test(docs, every_example_runs_as_pasted, .timeout = 1200)
{
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)run_root_path("tests/docs/examples.sh");
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
    cr_assert_eq(status, 0, "examples that do not run as pasted:\n%s", report);
    /* An extractor that found nothing would pass vacuously. */
    const char *count = strstr(report, "examples: ");
    cr_assert_not_null(count, "%s", report);
    cr_assert_gt(atoi(count + 10), 10, "%s", report);
}

Test(docs, readme_is_at_most_400_lines)
{
    char *text = run_read_text(run_root_path("README.md"));
    int lines = run_lines(text);
    cr_assert_leq(lines, 400, "README.md has %d lines; the reference belongs in docs/", lines);
    free(text);
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
