/* Tests for util/: the file-error formatter, same-file refusal by device
 * and inode (a hard link, a symbolic link and ./name are the file itself),
 * and the checked close of standard output in every program (a write to
 * /dev/full is a failure, --help included). */
#include <errno.h>
#include <sys/stat.h>

#include "tests/runcmd.h"
#include "util/file_error.h"
#include "util/fs.h"

TestSuite(util, .timeout = 60);

Test(util, file_error_text_names_path_and_line)
{
    file_error e;
    char buf[300];
    cr_assert_eq(file_error_set(&e, 7, "unknown key '%s'", "lq_ns"), -2);
    cr_assert_str_eq(file_error_text(&e, "a.params", buf, sizeof buf),
                     "a.params:7: unknown key 'lq_ns'");
    cr_assert_eq(file_error_sys(&e, ENOENT), -1);
    cr_assert_eq(e.line, 0);
    cr_assert_eq(e.sys_errno, ENOENT);
    cr_assert_str_eq(file_error_text(&e, "b.tsv", buf, sizeof buf), "b.tsv: No such file or directory");
}

Test(util, an_output_that_is_an_input_under_another_name_is_refused)
{
    char dir[] = "/tmp/scitorus-util-XXXXXX";
    cr_assert(mkdtemp(dir));
    const char *a = run_path(dir, "a.tsv"), *hard = run_path(dir, "hard.tsv"),
               *sym = run_path(dir, "sym.tsv"), *b = run_path(dir, "b.tsv"),
               *fresh = run_path(dir, "new.tsv");
    run_write_text(a, "x\n");
    run_write_text(b, "y\n");
    cr_assert_eq(link(a, hard), 0);
    cr_assert_eq(symlink(a, sym), 0);
    char dotted[1300];
    snprintf(dotted, sizeof dotted, "%s/./a.tsv", dir);
    const char *same[] = {a, hard, sym, dotted};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        fs_file in[] = {{"--data", a}, {"--validate", b}};
        fs_file out[] = {{"-o", same[i]}};
        cr_expect_eq(fs_refuse_same("t", in, 2, out, 1), 2, "-o %s over --data %s", same[i], a);
        cr_expect_eq(fs_same_file(a, same[i]), 1);
    }
    fs_file in[] = {{"--data", a}, {"--validate", b}, {"--logp", "-"}};
    fs_file outs[] = {{"-o", fresh}, {"--bench-out", "-"}, {"--validation-out", NULL}};
    cr_expect_eq(fs_refuse_same("t", in, 3, outs, 3), 0, "distinct files, stdout and none");
    fs_file twice[] = {{"-o", fresh}, {"--bench-out", fresh}};
    cr_expect_eq(fs_refuse_same("t", in, 2, twice, 2), 2, "two outputs, one (new) file");
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Runs prog args... with stdout on /dev/full. */
static void full_stdout(const char *what, const char *prog, const char *a1, const char *a2)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open("/dev/full", O_WRONLY), nul = open("/dev/null", O_WRONLY);
        dup2(fd, 1), dup2(nul, 2);
        execl(run_prog(prog, 0), prog, a1, a2, (char *)NULL);
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "%s %s > /dev/full: exit status %d, not 1",
              prog, what, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

Test(util, standard_output_to_a_full_device_fails_in_every_program)
{
    static const char *const progs[] = {"scimodel", "scibench", "mpibench", "calibrate",
                                        "scitrace"};
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
        full_stdout("--help", progs[i], "--help", NULL);
    full_stdout("--nodes 100", "scimodel", "--nodes", "100");
    full_stdout("run --help", "scitrace", "run", "--help");
    full_stdout("summary --help", "scitrace", "summary", "--help");
}

/* An output file on a full device: the message names that file (-o), not
 * standard output, which the user did not write to. */
Test(util, a_full_output_file_is_named_in_the_message)
{
    const char *matrix = run_root_path("tests/fixtures/traffic/halo3d-64.tsv");
    run_result runs[] = {
        run_cmd(run_prog("scimodel", 0), 30, "--nodes", "64", "-o", "/dev/full", NULL),
        run_cmd(run_prog("scimodel", 0), 30, "--traffic", matrix, "-o", "/dev/full", NULL),
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        run_assert_error(&runs[i], 1, "-o '/dev/full': No space left", "scimodel -o /dev/full");
        cr_assert_null(strstr(runs[i].err, "standard output"), "%s", runs[i].err);
        run_free(&runs[i]);
    }
}

/* An output in a directory that does not exist is refused before any work,
 * in one line naming the option and the directory; the directory is not
 * created (nothing goes where the user did not name). */
Test(util, calibrate_creates_no_directory_for_an_output)
{
    char dir[] = "/tmp/scitorus-util-XXXXXX";
    cr_assert(mkdtemp(dir));
    const char *data = run_root_path("tests/fixtures/plots/ring2.tsv");
    const char *none = run_path(dir, "none"), *params = run_path(dir, "none/y.params");
    static const char *const opts[] = {"-o", "--validation-out"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        run_result r = i ? run_cmd(run_prog("calibrate", 0), 60, "--data", data, "--validate", data,
                                   opts[i], params, "-o", run_path(dir, "ok.params"), NULL)
                         : run_cmd(run_prog("calibrate", 0), 60, "--data", data, opts[i], params,
                                   NULL);
        run_assert_error(&r, 1, "no directory", opts[i]);
        cr_assert_not_null(strstr(r.err, none), "%s", r.err);
        struct stat st;
        cr_assert_neq(stat(none, &st), 0, "%s: %s was created", opts[i], none);
        run_free(&r);
    }
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
