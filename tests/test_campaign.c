/* Tests for scicampaign's campaign files (cli tier: nothing is measured):
 * what --list would run, and bad campaign files refused with their line. */
#include <stdlib.h>
#include <sys/stat.h>

#include "tests/runcmd.h"

#define SCICAMPAIGN run_prog("scicampaign", 0)

static char dir[] = "/tmp/scitorus-campaign-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(campaign, .init = setup, .fini = teardown, .timeout = 60);

/* Each measurement's options become the benchmark's, in order; mpibench
 * runs under mpirun with its np; the output is DIR/NAME.tsv. */
Test(campaign, list_shows_the_commands)
{
    const char *c = run_path(dir, "c.txt");
    run_write_text(c, "# scitorus-campaign 1\n[a]\nring = 6\nall-dst\nsizes = 1..64\n"
                      "  # a comment\n\n[b.mpi]\nprogram = mpibench\nnp = 4\npattern = ow\n");
    const char *out = run_path(dir, "res");
    run_result r = run_cmd(SCICAMPAIGN, 30, "--list", "--bin", "/x", "-o", out, c, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char want[600];
    snprintf(want, sizeof want, "/x/scibench --ring 6 --all-dst --sizes 1..64 -o %s/a.tsv -q", out);
    cr_assert_not_null(strstr(r.out, want), "%s", r.out);
    snprintf(want, sizeof want, "-np 4 /x/mpibench --pattern ow -o %s/b.mpi.tsv -q", out);
    cr_assert_not_null(strstr(r.out, want), "%s", r.out);
    cr_assert_eq(access(out, F_OK), -1, "--list made the result set");
    run_free(&r);
}

/* A bad campaign file: one line on stderr naming the file and the line,
 * exit 1, nothing measured. */
Test(campaign, bad_files_name_their_line)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[a]\nring = 2\n", "c.txt:1: not a campaign file"},
        {"# scitorus-campaign 1\nring = 2\n", "c.txt:2: 'ring = 2' before the first [NAME]"},
        {"# scitorus-campaign 1\n[a]\noutput = x.tsv\n", "c.txt:3: 'output': the campaign sets it"},
        {"# scitorus-campaign 1\n[a]\nresume = x\n", "c.txt:3: 'resume'"},
        {"# scitorus-campaign 1\n[a]\n[a]\n", "c.txt:3: [a] again (first at line 2)"},
        {"# scitorus-campaign 1\n[../x]\n", "c.txt:2: [../x]: a name"},
        {"# scitorus-campaign 1\n[a]\nprogram = osu\n", "c.txt:3: program 'osu'"},
        {"# scitorus-campaign 1\n[a]\nnp = 0\n", "c.txt:3: np '0'"},
        {"# scitorus-campaign 1\n[a]\nsizes =\n", "c.txt:3: 'sizes =' without a value"},
        {"# scitorus-campaign 1\n[a]\n--sizes = 1\n", "c.txt:3: '--sizes': not an option name"},
        {"# scitorus-campaign 1\n[a\n", "c.txt:2: '[a': a measurement is [NAME]"},
        {"# scitorus-campaign 1\n# nothing\n", "c.txt: no measurement"},
        {"", "c.txt: empty"},
    };
    const char *c = run_path(dir, "c.txt");
    const char *out = run_path(dir, "res");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_write_text(c, cases[i].text);
        run_result r = run_cmd(SCICAMPAIGN, 30, "-o", out, c, NULL);
        run_assert_error(&r, 1, cases[i].want, cases[i].text);
        run_free(&r);
    }
    run_write_data(c, "# scitorus-campaign 1\n[a]\nsizes\0 = 1\n", 37);
    run_result r = run_cmd(SCICAMPAIGN, 30, "-o", out, c, NULL);
    run_assert_error(&r, 1, "c.txt:3: a NUL byte", "NUL");
    run_free(&r);
    r = run_cmd(SCICAMPAIGN, 30, c, NULL);
    run_assert_error(&r, 2, "-o DIR is required", "no -o");
    run_free(&r);
    cr_assert_eq(access(out, F_OK), -1, "a result set was made");
}

/* A result set remembers its campaign: another one is refused there. */
Test(campaign, another_campaign_refused)
{
    const char *c = run_path(dir, "c.txt");
    char out[600];
    snprintf(out, sizeof out, "%s/res", dir);
    run_write_text(c, "# scitorus-campaign 1\n[a]\nsizes = 1\n");
    cr_assert_eq(mkdir(out, 0777), 0);
    run_write_text(run_path(out, "campaign.txt"), "# scitorus-campaign 1\n[b]\nsizes = 1\n");
    run_write_text(run_path(out, "a.tsv"), "not touched\n");
    run_result r = run_cmd(SCICAMPAIGN, 30, "-o", out, c, NULL);
    run_assert_error(&r, 1, "holds the results of another campaign", "other campaign");
    run_free(&r);
    char *kept = run_read_text(run_path(out, "a.tsv"));
    cr_assert_str_eq(kept, "not touched\n");
    free(kept);
}
