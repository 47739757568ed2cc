/* Reliability: no lost data, no hangs, bounded time, and every conflicting
 * option refused.  One test (or table row) per defect, each run of a
 * program bounded by a time limit.  Oracles: the bytes of a file written
 * before the run (it must survive), the directory listing (no temporary
 * may remain), /proc (no process may survive), exit statuses and one-line
 * messages naming the argument. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-rel-XXXXXX";

static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void) { run_tmpdir_remove(dir); }
TestSuite(reliability, .init = setup, .fini = teardown, .timeout = 150);

/* A long benchmark run: an error target it never meets, 1 s per point. */
#define LONG_RUN "--sizes", "1..65536", "--rel-error", "0.000001", "--max-time", "1", \
                 "--max-samples", "100000000", "-q"

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

/* Runs argv with stdout to out_path (e.g. /dev/full); status and stderr. */
static run_result run_stdout_to(char *const argv[], const char *out_path, int limit_s)
{
    char err_path[300];
    path_in(err_path, sizeof err_path, "stderr.txt");
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        int out = open(out_path, O_WRONLY);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(nul, 0);
        dup2(out, 1);
        dup2(err, 2);
        setpgid(0, 0);
        execv(argv[0], argv);
        _exit(127);
    }
    run_result r = {run_wait_exit(pid, limit_s), NULL, NULL};
    r.out = strdup("");
    r.err = run_read_text(err_path);
    return r;
}

/* Names in dir containing part. */
static int entries_with(const char *part)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, part) != NULL;
    if (d)
        closedir(d);
    return n;
}

/* Waits (up to 20 s) until want processes with needle in their command
 * line exist: the run has started measuring.  The count that ended the
 * wait is the one judged, not a second look: scibench's floor probe is a
 * child that lives a few ms, and a recount just after it had exited once
 * failed a fresh clone's make check ("no process", 0.11 s in). */
static void wait_started(const char *needle, int want)
{
    int n = 0;
    for (int i = 0; i < 2000 && (n = run_pids_with(needle, NULL, NULL, 0)) < want; i++)
        usleep(10000);
    cr_assert_geq(n, want, "no process for %s", needle);
}

/* Whether pid has a file in dir open: its output, named or not (an
 * O_TMPFILE reads "dir/#123 (deleted)"); its /proc/PID/fd/N path in link. */
static int output_open(pid_t pid, char link[600])
{
    char fds[64];
    snprintf(fds, sizeof fds, "/proc/%d/fd", pid);
    DIR *d = opendir(fds);
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)) && !found) {
        char target[600];
        snprintf(link, 600, "%s/%s", fds, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        found = strncmp(target, dir, strlen(dir)) == 0;
    }
    if (d)
        closedir(d);
    return found;
}

/* Waits (up to 20 s) until pid has its output open. */
static void wait_output_open(pid_t pid)
{
    char link[600];
    for (int i = 0; i < 2000; i++, usleep(10000))
        if (output_open(pid, link))
            return;
    cr_assert_fail("process %d never opened its output", pid);
}

/* Waits (up to 60 s) until a process with needle in its command line, not
 * mpirun, has a measured point in its open output (a row of data: the
 * journal takes each point as it ends). */
static void wait_first_row(const char *needle)
{
    for (int i = 0; i < 6000; i++, usleep(10000)) {
        pid_t pids[8];
        int n = run_pids_with(needle, "mpirun", pids, 8);
        char link[600];
        for (int k = 0; k < n; k++) {
            if (!output_open(pids[k], link))
                continue;
            FILE *fp = fopen(link, "r");
            char line[4096];
            int rows = 0;
            while (fp && fgets(line, sizeof line, fp))
                rows += line[0] != '#' && line[0] != '\n';
            if (fp)
                fclose(fp);
            if (rows > 0)
                return;
        }
    }
    cr_assert_fail("no point measured in 60 s: %s", needle);
}

static int ends_incomplete(const char *path)
{
    char *s = run_read_text(path);
    size_t n = strlen(s);
    int ok = n >= 13 && strcmp(s + n - 13, "# incomplete\n") == 0;
    free(s);
    return ok;
}

/* Starts argv (stderr to err, NULL: /dev/null), lets it measure 1.5 s
 * after its first rows are in out (the floor, then the first point or
 * two), sends it sig, and checks it ends with status 130 (util/exit.h). */
static void interrupt_started(char *const argv[], const char *out, const char *err, int sig)
{
    pid_t pid = run_spawn(argv, err);
    wait_started(out, 2);
    usleep(1500000);
    kill(pid, sig);
    cr_assert_eq(run_wait_exit(pid, 20), 130, "signal %d", sig);
}

/* An interrupted run never destroys a previous file; its points go
 * beside it, to FILE.incomplete, and the message says where. */
Test(reliability, interrupted_run_keeps_the_previous_file)
{
    char out[300], partial[320], err[300];
    path_in(out, sizeof out, "out.tsv");
    path_in(err, sizeof err, "err.txt");
    snprintf(partial, sizeof partial, "%s.incomplete", out);
    run_result r = run_cmd(run_prog("scibench", 1), 60, "--sizes", "1..8", "--max-time", "0.05",
                           "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *before = run_read_text(out);
    for (int sig = SIGINT; sig <= SIGTERM; sig += SIGTERM - SIGINT) {
        unlink(partial);
        char *argv[] = {(char *)run_prog("scibench", 1), LONG_RUN, "-o", out, NULL};
        interrupt_started(argv, out, err, sig);
        char *after = run_read_text(out), *msg = run_read_text(err);
        cr_assert_str_eq(after, before, "signal %d replaced the previous file", sig);
        cr_assert(ends_incomplete(partial), "signal %d: no %s", sig, partial);
        cr_assert_not_null(strstr(msg, partial), "message does not say where: %s", msg);
        free(after);
        free(msg);
    }
    free(before);
    cr_assert_eq(entries_with(".tmp."), 0, "a temporary file was left");
}

/* With nothing at the target, the interrupted run's file is the target
 * (so --resume FILE goes on), and a resumed run interrupted again replaces
 * its own incomplete file (it holds all its points and more). */
Test(reliability, interrupted_run_without_previous_file_writes_the_target)
{
    char out[300];
    path_in(out, sizeof out, "new.tsv");
    char *argv[] = {(char *)run_prog("scibench", 1), LONG_RUN, "-o", out, NULL};
    interrupt_started(argv, out, NULL, SIGTERM);
    cr_assert(ends_incomplete(out));
    cr_assert_eq(entries_with(".incomplete"), 0);
    char *resume[] = {(char *)run_prog("scibench", 1), "--resume", out, NULL};
    interrupt_started(resume, out, NULL, SIGTERM);
    cr_assert(ends_incomplete(out));
    cr_assert_eq(entries_with(".incomplete"), 0, "a resumed run wrote beside its own file");
}

/* A closed terminal (SIGHUP) stops a run as Ctrl-C does: the finished
 * points kept, exit 130 (not a run killed with its points). */
Test(reliability, hangup_stops_a_run_like_ctrl_c)
{
    char out[300];
    path_in(out, sizeof out, "hup.tsv");
    char *argv[] = {(char *)run_prog("scibench", 1), LONG_RUN, "-o", out, NULL};
    interrupt_started(argv, out, NULL, SIGHUP);
    cr_assert(ends_incomplete(out), "no '# incomplete' %s", out);
}

/* SIGKILL of the parent leaves no temporary file and nothing at the
 * target; what it had written is in FILE.incomplete, marked incomplete. */
Test(reliability, sigkill_leaves_no_temporary)
{
    char out[300];
    path_in(out, sizeof out, "killed.tsv");
    char *argv[] = {(char *)run_prog("scibench", 1), LONG_RUN, "-o", out, NULL};
    pid_t pid = run_spawn(argv, NULL);
    wait_output_open(pid);
    usleep(200000);
    kill(pid, SIGKILL);
    cr_assert_eq(run_wait_exit(pid, 10), 128 + SIGKILL);
    for (int i = 0; i < 300 && run_pids_with(out, NULL, NULL, 0) > 0; i++)
        usleep(10000);
    cr_assert_eq(entries_with(".tmp."), 0, "SIGKILL left a temporary file behind");
    struct stat sb;
    cr_assert_neq(stat(out, &sb), 0, "SIGKILL left a file at the target");
    char partial[320];
    snprintf(partial, sizeof partial, "%s.incomplete", out);
    cr_assert(stat(partial, &sb) != 0 || ends_incomplete(partial), "%s", partial);
}

/* pid's exit status (or 128 + signal) if it ends within limit_s, else -1, still running. */
static int exited_within(pid_t pid, int limit_s)
{
    for (int i = 0; i < limit_s * 100; i++) {
        int ws;
        if (waitpid(pid, &ws, WNOHANG) == pid)
            return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        usleep(10000);
    }
    return -1;
}

/* mpibench under mpirun: SIGTERM to mpirun (it passes SIGTERM on,
 * SIGKILL 1 s later) or SIGINT to the whole group ends with the '# incomplete' file the
 * README promises, and no temporary. */
Test(reliability, mpirun_interrupted_writes_incomplete_file)
{
    static const int sigs[] = {SIGTERM, SIGINT};
    for (int k = 0; k < 2; k++) {
        char out[300];
        snprintf(out, sizeof out, "%s/mpi%d.tsv", dir, k);
        char *argv[] = {"/usr/bin/mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
                        (char *)run_prog("mpibench", 1), LONG_RUN, "-o", out, NULL};
        char err[300];
        snprintf(err, sizeof err, "%s/mpi%d.err", dir, k);
        pid_t pid = run_spawn(argv, err);
        wait_started(out, 3);   /* mpirun's and the ranks' command lines */
        wait_first_row(out);    /* MPI_Init, then a point */
        /* SIGTERM to mpirun alone; SIGINT to the group, as Ctrl-C does */
        pid_t target = sigs[k] == SIGINT ? -pid : pid;
        kill(target, sigs[k]);
        /* Open MPI's mpirun (4.1) can deadlock in its own signal handling
         * when the ranks exit while it forwards a group SIGINT: seen under
         * load, both ranks already reaped to zombies, mpirun asleep on a
         * futex.  Its documented remedy is a second Ctrl-C ("hit ctrl-c
         * again to forcibly terminate"), so after 10 s the test does what a
         * user does, and after 10 s more kill -9.  Our promises, ranks that
         * end and the '# incomplete' file below, are asserted either way. */
        int st = exited_within(pid, 10);
        if (st == -1) {
            fprintf(stderr, "mpirun still running 10 s after signal %d: signalled again\n", sigs[k]);
            kill(target, sigs[k]);
            st = exited_within(pid, 10);
        }
        /* Still there: the ranks must be gone (ours to end), and only mpirun hung in its own
         * handling, which a user ends with kill -9 as the test does. */
        if (st == -1) {
            int ranks = run_pids_with(out, "mpirun", NULL, 0);
            fprintf(stderr, "mpirun still running 10 s after a second signal %d, %d rank(s) "
                    "left: killed\n", sigs[k], ranks);
            cr_assert_eq(ranks, 0, "signal %d: mpibench ranks still running 20 s after it", sigs[k]);
            st = run_wait_exit(pid, 0);
        } else
            cr_assert_neq(st, 0, "mpirun exit 0 after signal %d", sigs[k]);
        char *msg = run_read_text(err);
        struct stat sb;
        cr_assert_eq(stat(out, &sb), 0, "signal %d: no %s; stderr: %s", sigs[k], out, msg);
        cr_assert(ends_incomplete(out), "signal %d: no '# incomplete' file", sigs[k]);
        free(msg);
    }
    cr_assert_eq(entries_with(".tmp."), 0, "a temporary file was left");
}

/* calibrate killed while it measures takes its benchmark with it; the
 * benchmark never replaces the existing data file afterwards. */
Test(reliability, killed_calibrate_takes_its_children)
{
    static const int sigs[] = {SIGKILL, SIGTERM};
    for (int k = 0; k < 2; k++) {
        char bench[300], params[300];
        snprintf(bench, sizeof bench, "%s/b%d.tsv", dir, k);
        snprintf(params, sizeof params, "%s/c%d.params", dir, k);
        run_write_text(bench, "previous\n");
        char *argv[] = {(char *)run_prog("calibrate", 1), "--ring", "4", "--all-dst",
                        "--inject-forward", "2000000", "--sizes", "8,64", "-q", "--bench-out",
                        bench, "-o", params, NULL};
        pid_t pid = run_spawn(argv, NULL);
        wait_started(bench, 3);   /* calibrate, scibench and its child */
        usleep(500000);
        kill(pid, sigs[k]);
        int st = run_wait_exit(pid, 20);
        cr_assert_eq(st, sigs[k] == SIGKILL ? 128 + SIGKILL : 130, "signal %d: exit %d", sigs[k],
                     st);
        for (int i = 0; i < 500 && run_pids_with(bench, NULL, NULL, 0) > 0; i++)
            usleep(10000);
        cr_assert_eq(run_pids_with(bench, NULL, NULL, 0), 0, "signal %d: a benchmark process survived",
                     sigs[k]);
        usleep(500000);
        char *s = run_read_text(bench);
        cr_assert_str_eq(s, "previous\n", "signal %d: the data file was replaced", sigs[k]);
        free(s);
    }
}

/* Output to a full device fails with exit 1 and a message. */
Test(reliability, full_standard_output_is_an_error)
{
    char *runs[][12] = {
        {(char *)run_prog("scimodel", 0), "--dims", "1..4", "--nodes", "1000", NULL},
        {(char *)run_prog("calibrate", 0), "--data", (char *)run_fixture("plots/ring2.tsv"), "-o",
         "PARAMS", NULL},
        {(char *)run_prog("scibench", 0), "--floor", NULL},
        {(char *)run_prog("scibench", 0), "--sizes", "8", "--max-time", "0.05", "-q", NULL},
    };
    char params[300];
    path_in(params, sizeof params, "q.params");
    runs[1][4] = params;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        run_result r = run_stdout_to(runs[i], "/dev/full", 60);
        cr_assert_eq(r.status, 1, "%s: exit %d, %s", runs[i][0], r.status, r.err);
        cr_assert_not_null(strstr(r.err, "No space left on device"), "%s: %s", runs[i][0], r.err);
        cr_assert_null(strstr(r.err, "Sanitizer"), "%s", r.err);
        run_free(&r);
    }
    /* and -o onto the device itself */
    run_result r = run_cmd(run_prog("scibench", 0), 60, "--sizes", "8", "--max-time", "0.05",
                           "-q", "-o", "/dev/full", NULL);
    cr_assert_eq(r.status, 1, "-o /dev/full: %d %s", r.status, r.err);
    run_free(&r);
}

/* Two names for one file are one file. */
Test(reliability, same_output_file_under_two_names_is_refused)
{
    char a[300], b[320], ln[300];
    path_in(a, sizeof a, "a.tsv");
    snprintf(b, sizeof b, "4=%s/./a.tsv", dir);
    run_result r = run_cmd(run_prog("scibench", 0), 30, "-o", a, "--interleave", b, NULL);
    run_assert_error(&r, 2, "same file", "-o a.tsv --interleave 4=./a.tsv");
    run_free(&r);
    run_write_text(a, "x\n");
    path_in(ln, sizeof ln, "link.tsv");
    cr_assert_eq(symlink(a, ln), 0);
    snprintf(b, sizeof b, "4=%s", ln);
    r = run_cmd(run_prog("scibench", 0), 30, "-o", a, "--interleave", b, NULL);
    run_assert_error(&r, 2, "same file", "-o a.tsv --interleave 4=link-to-a.tsv");
    run_free(&r);
}

/* FIFOs never block: as input they are refused at once, as output
 * without a reader too; directories are refused as input. */
Test(reliability, fifos_and_directories_never_block)
{
    char fifo[300];
    path_in(fifo, sizeof fifo, "fifo");
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    const struct { const char *prog, *opt, *word; int is_dir; } in[] = {
        {"scimodel", "--params", "not a regular file", 0},
        {"calibrate", "--data", "not a regular file", 0},
        {"calibrate", "--validate", "not a regular file", 0},
        {"calibrate", "--logp", "not a regular file", 0},
        {"scibench", "--resume", "not a regular file", 0},
        {"mpibench", "--resume", "not a regular file", 0},
        {"scimodel", "--params", "directory", 1},
        {"calibrate", "--data", "directory", 1},
        {"calibrate", "--logp", "directory", 1},
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        const char *arg = in[i].is_dir ? dir : fifo;
        run_result r = !strcmp(in[i].opt, "--validate")
                           ? run_cmd(run_prog(in[i].prog, 0), 10, "--data",
                                     run_fixture("plots/ring2.tsv"), in[i].opt, arg, NULL)
                           : run_cmd(run_prog(in[i].prog, 0), 10, in[i].opt, arg, NULL);
        cr_assert_neq(r.status, 124, "%s %s: blocked", in[i].prog, in[i].opt);
        run_assert_error(&r, 1, in[i].word, in[i].opt);
        run_free(&r);
    }
    run_result r = run_cmd(run_prog("scibench", 0), 20, "--sizes", "8", "-q", "-o", fifo, NULL);
    cr_assert_neq(r.status, 124, "scibench -o FIFO blocked");
    run_assert_error(&r, 1, "reading this FIFO", "scibench -o FIFO");
    run_free(&r);
    r = run_cmd(run_prog("calibrate", 0), 10, "--data", run_fixture("plots/ring2.tsv"), "-o", fifo,
                NULL);
    cr_assert_neq(r.status, 124, "calibrate -o FIFO blocked");
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "reading this FIFO"), "%s", r.err);
    run_free(&r);
}

/* Duplicate CPUs are a usage error; so is a floor whose two processes
 * would share one CPU (taskset): it is refused at once instead of timing
 * scheduler ticks (scibench's floor_times_out_on_a_stopped_peer checks its
 * --timeout). */
Test(reliability, duplicate_cpus_and_floor_on_one_cpu)
{
    run_result r = run_cmd(run_prog("scibench", 0), 10, "--cpus", "0,0", NULL);
    run_assert_error(&r, 2, "twice", "--cpus 0,0");
    run_free(&r);
    r = run_cmd("/usr/bin/taskset", 40, "-c", "0", run_prog("scibench", 1), "--floor",
                "--timeout", "1", NULL);
    run_assert_error(&r, 2, "1 CPU", "floor on one CPU");
    run_free(&r);
}

/* --validate files are checked before anything is measured. */
Test(reliability, validate_files_checked_before_measuring)
{
    char nopp[300];
    run_result r = run_cmd(run_prog("calibrate", 0), 10, "--quick", "--validate",
                           "/nonexistent/v.tsv", NULL);
    cr_assert_neq(r.status, 124, "measured before reading --validate");
    run_assert_error(&r, 1, "/nonexistent/v.tsv", "--validate missing file");
    run_free(&r);
    /* the fixture's header with no rows: no ping-pong point to validate */
    char *s = run_read_text(run_fixture("plots/ring2.tsv"));
    char *row = strstr(s, "\npp\t");
    cr_assert_not_null(row);
    row[1] = '\0';
    path_in(nopp, sizeof nopp, "nopp.tsv");
    run_write_text(nopp, s);
    free(s);
    r = run_cmd(run_prog("calibrate", 0), 10, "--quick", "--validate", nopp, NULL);
    run_assert_error(&r, 1, "no ping-pong points", "--validate without points");
    run_free(&r);
}

/* An incomplete copy of the ring-2 fixture with its header's command
 * replaced (NULL: kept) and the backend given. */
static void incomplete_copy(const char *path, const char *backend, const char *command)
{
    char *s = run_read_text(run_fixture("plots/ring2.tsv"));
    FILE *fp = fopen(path, "w");
    cr_assert_not_null(fp);
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "# backend:", 10) == 0)
            fprintf(fp, "# backend: %s\n", backend);
        else if (strncmp(line, "# command:", 10) == 0 && command)
            fprintf(fp, "%s", *command ? command : "");
        else
            fprintf(fp, "%s\n", line);
    }
    fputs("# incomplete\n", fp);
    fclose(fp);
    free(s);
}

/* A file is resumed only by the backend that wrote it. */
Test(reliability, resume_refuses_the_other_backend)
{
    char shm[300], mpi[300];
    path_in(shm, sizeof shm, "shm.tsv");
    path_in(mpi, sizeof mpi, "mpi.tsv");
    incomplete_copy(shm, "shm", NULL);
    incomplete_copy(mpi, "mpi", NULL);
    run_result r = run_cmd(run_prog("mpibench", 0), 20, "--resume", shm, NULL);
    run_assert_error(&r, 1, "shm backend", "mpibench --resume of a scibench file");
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 20, "--resume", mpi, NULL);
    run_assert_error(&r, 1, "mpi backend", "scibench --resume of an mpibench file");
    run_free(&r);
}

/* A recorded command edited to another network or pattern than the
 * file's header records is refused, naming the file and the header's
 * line: resumed, it would write one network's points into the other's file. */
Test(reliability, resume_refuses_a_command_edited_to_another_network)
{
    char path[300], where[320];
    path_in(path, sizeof path, "edited.tsv");
    const char *edits[][2] = {{"# command: scibench --ring 4 --all-dst -q\n", ":9:"},
                              {"# command: scibench --torus 2x2 -q\n", ":9:"},
                              {"# command: scibench --pattern ow -q\n", ":10:"}};
    for (int i = 0; i < 3; i++) {
        incomplete_copy(path, "shm", edits[i][0]);
        char *before = run_read_text(path);
        run_result r = run_cmd(run_prog("scibench", 0), 30, "--resume", path, NULL);
        snprintf(where, sizeof where, "%s%s", path, edits[i][1]);
        run_assert_error(&r, 1, where, edits[i][0]);
        run_free(&r);
        char *after = run_read_text(path);
        cr_assert_str_eq(after, before, "%s: the file changed", edits[i][0]);
        free(before);
        free(after);
    }
}

/* No leak on the error paths (the sanitized build's LeakSanitizer is
 * the oracle), and a bad recorded command names file and line. */
Test(reliability, resume_errors_leak_nothing_and_name_the_line)
{
    char bad[300], none[300], where[320];
    path_in(bad, sizeof bad, "bad.tsv");
    path_in(none, sizeof none, "none.tsv");
    incomplete_copy(bad, "shm", "# command: scibench --ring x\n");
    incomplete_copy(none, "shm", "");
    run_result r = run_cmd(run_prog("scibench", 0), 20, "--resume", bad, NULL);
    snprintf(where, sizeof where, "%s:5:", bad);
    run_assert_error(&r, 2, where, "bad recorded command");
    run_free(&r);
    incomplete_copy(bad, "shm", "# command: scibench --bogus 3\n");
    r = run_cmd(run_prog("scibench", 0), 20, "--resume", bad, NULL);
    run_assert_error(&r, 2, where, "unknown option in the recorded command");
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 20, "--resume", none, NULL);
    run_assert_error(&r, 1, "command", "no recorded command");
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 20, "--interleave", "4=a.tsv", "--interleave",
                "4=a.tsv", NULL);
    run_assert_error(&r, 2, "same file", "repeated --interleave");
    run_free(&r);
}

/* A sanitized mpibench run reports no leak (Open MPI's own are
 * suppressed in tests/lsan.supp; ours would show). */
Test(reliability, sanitized_mpibench_reports_no_leak)
{
    char out[300];
    path_in(out, sizeof out, "san.tsv");
    /* leak checking on whatever the program's defaults say: switching it
     * off was the old way of hiding Open MPI's leaks (and ours with them) */
    setenv("ASAN_OPTIONS", "abort_on_error=0:detect_leaks=1", 1);
    run_result r = run_cmd("/usr/bin/timeout", 90, "60", "mpirun", "--allow-run-as-root",
                           "--oversubscribe", "-np", "2", run_prog("mpibench", 0), "--sizes", "8",
                           "--max-time", "0.05", "-q", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_null(strstr(r.err, "LeakSanitizer"), "%s", r.err);
    run_free(&r);
}

/* Options that conflict or would do nothing: exit 2, both named. */
Test(reliability, conflicting_options_name_both)
{
    const char *ring2 = run_fixture("plots/ring2.tsv");
    const struct { const char *prog; const char *args[8]; const char *a, *b; } cases[] = {
        {"calibrate", {"--data", ring2, "--quick"}, "--data", "--quick"},
        {"calibrate", {"--data", ring2, "--rel-error", "0.1"}, "--data", "--rel-error"},
        {"calibrate", {"--data", ring2, "--max-time", "1"}, "--data", "--max-time"},
        {"calibrate", {"--data", ring2, "--inject-forward", "5"}, "--data", "--inject-forward"},
        {"calibrate", {"--data", ring2, "--inject-switch", "5"}, "--data", "--inject-switch"},
        {"calibrate", {"--data", ring2, "--np", "2"}, "--data", "--np"},
        {"calibrate", {"--data", ring2, "--hostfile", "h"}, "--data", "--hostfile"},
        {"calibrate", {"--data", ring2, "--mpirun", "srun"}, "--data", "--mpirun"},
        {"calibrate", {"--data", ring2, "--bench-out", "b.tsv"}, "--data", "--bench-out"},
        {"calibrate", {"--data", ring2, "--fix", ""}, "--fix", "empty"},
        {"calibrate", {"--data", ring2, "--fix", "lf=1,,ls=2"}, "--fix", "empty"},
        {"calibrate", {"--data", ring2, "--fix", "lf=1,lf=2"}, "--fix", "twice"},
        {"calibrate", {"--data", ring2, "--lp", "5", "--cable-length", "3"}, "--lp",
         "--cable-length"},
        {"calibrate", {"--data", ring2, "--cable-length", "3", "--lp", "5"}, "--lp",
         "--cable-length"},
        {"calibrate", {"--data", ring2, "--fix", "lp=2", "--lp", "5"}, "--fix lp", "--lp"},
        {"scibench", {"--floor", "--ring", "4"}, "--floor", "--ring"},
        {"scibench", {"--floor", "--pattern", "ow"}, "--floor", "--pattern"},
        {"scibench", {"--floor", "--all-dst"}, "--floor", "--all-dst"},
        {"scibench", {"--floor", "--interleave", "4=x.tsv"}, "--floor", "--interleave"},
        {"scibench", {"--cpus", "0,1,2"}, "--cpus", "--procs"},
        {"scibench", {"--procs", "3", "--ring", "3", "--cpus", "0,1"}, "--cpus", "--procs"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[12] = {(char *)run_prog(cases[i].prog, 0)};
        int n = 1;
        for (int k = 0; k < 8 && cases[i].args[k]; k++)
            argv[n++] = (char *)cases[i].args[k];
        argv[n] = NULL;
        run_result r = run_argv(argv, 20);
        run_assert_error(&r, 2, cases[i].a, cases[i].args[2] ? cases[i].args[2] : "");
        cr_assert_not_null(strstr(r.err, cases[i].b), "case %zu: '%s' not in: %s", i,
                           cases[i].b, r.err);
        run_free(&r);
    }
}
