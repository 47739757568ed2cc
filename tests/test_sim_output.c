/* Tests for scisim's output file: -o never overwrites one of the inputs
 * (by name, symlink or hard link), and an interrupted replay leaves a file
 * that says so ('# incomplete', no best), or none when nothing finished. */
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/runcmd.h"

#define SCISIM run_prog("scisim", 0)

static char dir[] = "/tmp/scitorus-simout-XXXXXX";
static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

TestSuite(sim_output, .init = setup, .fini = teardown);

static const char *put(const char *name, const char *text)
{
    const char *p = run_path(dir, name);
    run_write_text(p, text);
    return p;
}

/* Each input of a replay named again as -o, directly, through a symlink
 * and through a hard link: refused, exit 2, the input untouched. */
Test(sim_output, output_never_overwrites_an_input)
{
    const char *goal = put("p.goal", "num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n");
    const char *params = run_root_path("tests/fixtures/plots/ring2.params");
    char *params_text = run_read_text(params);
    static const char *const opts[] = {"--params", "--intra-params", "--self-params",
                                       "--hostfile", "--rankfile", "--placement"};
    /* (run_path's buffers are reused: these are taken once) */
    const char *in = run_path(dir, "input"), *host = run_path(dir, "hosts");
    const char *names[3] = {in, run_path(dir, "sym"), run_path(dir, "hard")};
    run_write_text(host, "a slots=2\n");
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        for (int how = 0; how < 3; how++) {
            run_write_text(in, params_text);
            const char *out = names[how];
            if (how) {
                unlink(out);
                cr_assert_eq(how == 1 ? symlink(in, out) : link(in, out), 0);
            }
            run_result r = !strcmp(opts[i], "--rankfile")
                ? run_cmd(SCISIM, 30, goal, "--hostfile", host, opts[i], in, "-o", out, NULL)
                : run_cmd(SCISIM, 30, goal, opts[i], in, "-o", out, NULL);
            run_assert_error(&r, 2, "same file", opts[i]);
            cr_assert_not_null(strstr(r.err, opts[i]), "%s: %s", opts[i], r.err);
            char *after = run_read_text(in);
            cr_assert_str_eq(after, params_text, "%s (link %d) was overwritten", opts[i], how);
            free(after);
            run_free(&r);
            if (how)
                unlink(out);
        }
    free(params_text);
}

/* A replay of 1024 ranks' alltoall (a million messages) takes seconds on
 * each torus: scisim's progress line names the candidate being replayed,
 * so the signal lands inside the one the test wants. */
static int interrupt_during(const char *candidate, const char *out, const char *format,
                           char **err_text)
{
    const char *err = run_path(dir, "err.txt");
    unlink(err);
    char *argv[] = {(char *)run_prog("scisim", 1), "--collective", "alltoall", "--procs", "1024",
                    "--size", "8", "--shape", "1024", "--shape", "32x32", "--shape", "11x11x11",
                    "--shape", "6x6x6x6", "--format", (char *)format,
                    "-o", (char *)out, NULL};
    pid_t pid = run_spawn(argv, err);
    char want[64];
    snprintf(want, sizeof want, "scisim: %s:", candidate);
    cr_assert(run_wait_text(err, want, 120), "no progress on %s", candidate);
    kill(-pid, SIGINT);
    int status = run_wait_exit(pid, 60);
    *err_text = run_read_text(err);
    return status;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/* Ctrl-C in the second of four candidates: exit 130, the first one's row,
 * no "Best" (the others might beat it), the file ending '# incomplete',
 * and a message that names it. */
Test(sim_output, interrupted_replay_is_marked_and_names_no_best, .timeout = 300)
{
    const char *out = run_path(dir, "t.txt");
    char *err;
    cr_assert_eq(interrupt_during("32x32", out, "table", &err), 130, "%s", err);
    char *text = run_read_text(out);
    cr_assert(ends_with(text, "# incomplete\n"), "%s", text);
    cr_assert_null(strstr(text, "Best"), "%s", text);
    cr_assert_not_null(strstr(text, "1 of 4 replays finished"), "%s", text);
    cr_assert_not_null(strstr(text, "  1  1024 "), "%s", text);
    cr_assert_null(strstr(text, "32x32"), "%s", text);
    cr_assert_not_null(strstr(err, "1 finished result is in"), "%s", err);
    cr_assert_not_null(strstr(err, out), "%s", err);
    free(text);
    free(err);
}

/* Ctrl-C before any candidate finished: no file of headers passing for
 * results; a previous file is kept, and the message says nothing was
 * written. */
Test(sim_output, interrupted_before_any_result_writes_nothing, .timeout = 300)
{
    const char *out = run_path(dir, "t.tsv");
    run_write_text(out, "previous\n");
    char *err;
    cr_assert_eq(interrupt_during("1024", out, "tsv", &err), 130, "%s", err);
    char *text = run_read_text(out);
    cr_assert_str_eq(text, "previous\n");
    cr_assert_not_null(strstr(err, "nothing written"), "%s", err);
    cr_assert_null(strstr(err, "finished results are in"), "%s", err);
    struct stat st;
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.incomplete", out);
    cr_assert_neq(stat(partial, &st), 0, "%s written", partial);
    free(text);
    free(err);
}

/* -o in a directory that does not exist is refused before the replay (which
 * can take minutes), in one line; the directory is not created. */
Test(sim_output, output_in_a_missing_directory_is_refused_first)
{
    const char *goal = put("q.goal", "num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n");
    const char *none = run_path(dir, "none"), *out = run_path(dir, "none/r.txt");
    run_result r = run_cmd(SCISIM, 30, goal, "-o", out, NULL);
    run_assert_error(&r, 1, "no directory", "-o in a missing directory");
    cr_assert_null(strstr(r.err, "Replay"), "%s", r.err);
    struct stat st;
    cr_assert_neq(stat(none, &st), 0, "%s created", none);
    run_free(&r);
}
