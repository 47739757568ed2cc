/* Tests for scibench's stops: a killed peer, Ctrl-C and resume, the
 * recorded command, and a stopped peer against --timeout. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "benchdata/benchdata.h"
#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-sbstop-XXXXXX";

static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }

TestSuite(scibench, .init = setup, .fini = teardown, .timeout = 120);

static const char *file(const char *name) { return run_path(dir, name); }

static bench_data read_ok(const char *path)
{
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(path, &d, &e), 0, "%s:%ld: %s", path, e.line, e.msg);
    return d;
}

/* Pids of the direct children of pid. */
static int children_of(pid_t pid, pid_t *out, int cap)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", pid, pid);
    FILE *fp = fopen(path, "r");
    int n = 0;
    if (!fp)
        return 0;
    if (fgets(buf, sizeof buf, fp))
        for (char *t = strtok(buf, " \n"); t && n < cap; t = strtok(NULL, " \n"))
            out[n++] = atoi(t);
    fclose(fp);
    return n;
}

/* Starts scibench on a long sweep in the background; waits until it has
 * finished its first point. */
static pid_t start_sweep(const char *out, const char *errfile, const char *extra)
{
    char *argv[] = {(char *)run_prog("scibench", 0), "--sizes", "1..65536", "--max-time", "2",
                    "--rel-error", "0.00001", "--timeout", "3", "-o", (char *)out,
                    (char *)extra, NULL};
    pid_t pid = run_spawn(argv, errfile);
    cr_assert(run_wait_text(errfile, "[1/", 30), "scibench did not finish a point in 30 s");
    return pid;
}

/* Every finished row complete; ends '# incomplete'. */
static long assert_incomplete(const char *out)
{
    bench_data d = read_ok(out);
    cr_assert(d.incomplete);
    cr_assert_geq(d.count, 1);
    long n = d.count;
    bench_data_free(&d);
    return n;
}

Test(scibench, killed_peer_makes_survivor_exit_1)
{
    const char *out = file("kill.tsv"), *err = file("kill.err");
    pid_t pid = start_sweep(out, err, "--procs=2");
    pid_t kids[8];
    cr_assert_eq(children_of(pid, kids, 8), 1);
    kill(kids[0], SIGKILL);
    cr_assert_eq(run_wait_exit(pid, 10), 1);
    assert_incomplete(out);
}

/* The output's name has blanks and both quotes: the recorded command
 * quotes it as a shell would, and --resume splits it back as one.  Options
 * beside --resume that would change the run are refused, naming them, and
 * leave the file as it was; -q and --timeout go. */
Test(scibench, sigint_keeps_finished_points_and_resume_completes)
{
    const char *out = file("int it's \"a\" run.tsv"), *err = file("int.err");
    pid_t pid = start_sweep(out, err, "--procs=2");
    pid_t kids[8];
    cr_assert_eq(children_of(pid, kids, 8), 1);
    kill(pid, SIGINT);
    cr_assert_eq(run_wait_exit(pid, 10), 130);
    cr_assert_eq(kill(kids[0], 0), -1, "child process left behind");
    long before = assert_incomplete(out);
    static const char *const conflicts[][2] = {{"--sizes", "8"}, {"-o", "other.tsv"},
                                               {"--max-time", "1"}};
    for (int i = 0; i < 3; i++) {
        run_result c = run_cmd(run_prog("scibench", 0), 20, "--resume", out, conflicts[i][0],
                               conflicts[i][1], NULL);
        char word[64];
        snprintf(word, sizeof word, "and %s:", conflicts[i][0]);
        run_assert_error(&c, 2, word, conflicts[i][0]);
        run_free(&c);
        cr_assert_eq(assert_incomplete(out), before, "%s changed the file", conflicts[i][0]);
    }
    run_result r = run_cmd(run_prog("scibench", 0), 120, "--resume", out, "-q", "--timeout", "5",
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.err, "", "-q: %s", r.err);
    bench_data d = read_ok(out);
    cr_assert_not(d.incomplete);
    cr_assert_eq(d.count, 17, "had %ld before resume", before);
    bench_data_free(&d);
    run_free(&r);
}

/* A resumed run stopped at any moment keeps the resumed file's points in a
 * file --resume can read: SIGTERM from the moment the floor probe's peer
 * exists (before the header) through the probe's warm-up (after it), at
 * delays doubling from 0.  Stopped, the file is incomplete with the point;
 * finished first, it is complete with both. */
Test(scibench, resume_stopped_at_once_keeps_the_points)
{
    const char *out = file("early.tsv"), *errfile = file("early.err");
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--sizes", "8,16", "--max-time", "0.05",
                           "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *text = run_read_text(out), *last = strrchr(text, '\n');
    cr_assert_not_null(last);
    *last = '\0';
    last = strrchr(text, '\n');   /* drop the 16 B row: one point left */
    cr_assert_not_null(last);
    for (long delay_us = 0; delay_us <= 64000; delay_us = delay_us ? 2 * delay_us : 250) {
        FILE *fp = fopen(out, "w");
        fprintf(fp, "%.*s\n# incomplete\n", (int)(last - text), text);
        fclose(fp);
        char *argv[] = {(char *)run_prog("scibench", 0), "--resume", (char *)out, NULL};
        pid_t pid = run_spawn(argv, errfile), kids[4];
        for (int i = 0; i < 5000 && children_of(pid, kids, 4) == 0; i++)
            usleep(200);   /* the floor probe's peer: the handlers are in */
        usleep((useconds_t)delay_us);
        kill(pid, SIGTERM);
        int status = run_wait_exit(pid, 30);
        cr_assert(status == 130 || status == 0, "stopped %ld us in: exit %d", delay_us, status);
        bench_data d = read_ok(out);
        cr_assert_eq(d.incomplete, status == 130, "stopped %ld us in", delay_us);
        cr_assert_geq(d.count, status ? 1 : 2, "stopped %ld us in: the resumed file's point was"
                      " lost", delay_us);
        cr_assert_eq(d.points[0].size_bytes, 8);
        bench_data_free(&d);
    }
    free(text);
}

/* The recorded command splits back into the words it was made of, as a
 * shell splits them (the shell is the oracle: printf '%s\n' over it). */
Test(scibench, recorded_command_splits_as_a_shell_splits_it)
{
    const char *out = file("dir it's \"q\" $x \\ `y`.tsv");
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--sizes", "8", "--max-time", "0.05",
                           "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    bench_data d = read_ok(out);
    const char *cmd = bench_data_header(&d, "command");
    cr_assert_not_null(cmd);
    char script[4400];
    snprintf(script, sizeof script, "printf '%%s\\n' %s", cmd);
    r = run_cmd("/bin/sh", 10, "-c", script, NULL);
    char want[1200];
    snprintf(want, sizeof want, "scibench\n--sizes\n8\n--max-time\n0.05\n-q\n-o\n%s\n", out);
    cr_assert_str_eq(r.out, want, "command: %s", cmd);
    run_free(&r);
    bench_data_free(&d);
}


/* The floor's bounce honours --timeout: its peer stopped (SIGSTOP) ends
 * the run with exit 1 and the reason, within the timeout and a second. */
Test(scibench, floor_times_out_on_a_stopped_peer)
{
    const char *errfile = file("floor.err");
    char *argv[] = {(char *)run_prog("scibench", 0), "--floor", "--sizes", "1..65536",
                    "--timeout", "1", NULL};
    pid_t pid = run_spawn(argv, errfile), kids[4];
    int n = 0;
    for (int i = 0; i < 2000 && (n = children_of(pid, kids, 4)) == 0; i++)
        usleep(1000);
    cr_assert_gt(n, 0, "the floor's peer never started");
    kill(kids[0], SIGSTOP);
    int status = run_wait_exit(pid, 30);
    kill(kids[0], SIGKILL);
    char *err = run_read_text(errfile);
    cr_assert_eq(status, 1, "exit %d (124: never timed out): %s", status, err);
    cr_assert_not_null(strstr(err, "--timeout"), "%s", err);
    free(err);
}
