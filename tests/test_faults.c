/* Fault injection: the benchmark's parent killed, an MPI rank
 * killed, output into an unwritable directory and onto a full file system.
 * No hang (every run bounded), no orphan process, no shared memory left,
 * and a previous file at the target path is never damaged.  (The peer
 * killed and Ctrl-C cases live in test_scibench.c.) */
#include <dirent.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "tests/runcmd.h"

static char dir[] = "/tmp/scitorus-fault-XXXXXX";
static int mounted;

static void setup(void) { run_tmpdir_make(dir); }
static void teardown(void)
{
    if (mounted)
        umount2(dir, MNT_DETACH);
    run_tmpdir_remove(dir);
}
TestSuite(faults, .init = setup, .fini = teardown, .timeout = 120);

Test(faults, killed_parent_leaves_no_orphan_and_no_file)
{
    char out[300];
    snprintf(out, sizeof out, "%s/parent.tsv", dir);
    char *argv[] = {(char *)run_prog("scibench", 0), "--sizes", "1..65536", "--max-time", "2",
                    "--rel-error", "0.00001", "-q", "-o", out, NULL};
    pid_t pid = run_spawn(argv, NULL);
    pid_t procs[8];
    int n = 0;
    for (int i = 0; i < 500 && n < 2; i++, usleep(10000))
        n = run_pids_with(out, "mpirun", procs, 8);
    cr_assert_eq(n, 2, "expected parent and child, found %d", n);
    kill(pid, SIGKILL);
    cr_assert_eq(run_wait_exit(pid, 10), 128 + SIGKILL);
    for (int i = 0; i < 300 && run_pids_with(out, "mpirun", procs, 8) > 0; i++)
        usleep(10000);
    cr_assert_eq(run_pids_with(out, "mpirun", procs, 8), 0, "orphaned benchmark process");
    struct stat st;
    cr_assert_neq(stat(out, &st), 0, "a half-written file at the target path");
}

Test(faults, killed_mpi_rank_ends_the_job)
{
    char out[300];
    snprintf(out, sizeof out, "%s/mpi.tsv", dir);
    char *argv[] = {"/usr/bin/timeout", "60", "mpirun", "--allow-run-as-root", "--oversubscribe",
                    "-np", "2", (char *)run_prog("mpibench", 1), "--sizes", "1..65536",
                    "--max-time", "2", "--rel-error", "0.00001", "-q", "-o", out, NULL};
    pid_t pid = run_spawn(argv, NULL);
    pid_t ranks[8];
    int n = 0;
    for (int i = 0; i < 1500 && n < 2; i++, usleep(10000))
        n = run_pids_with(out, "mpirun", ranks, 8);
    cr_assert_eq(n, 2, "expected 2 ranks, found %d", n);
    /* a rank killed inside MPI_Init can leave Open MPI 4.1's mpirun waiting
     * for ever (its child unreaped, deaf to SIGTERM): the kill lands once
     * rank 0 holds its output open, past MPI_Init, measuring */
    for (int i = 0; i < 3000 && run_files_open_under("mpibench", dir) < 1; i++)
        usleep(10000);
    cr_assert_geq(run_files_open_under("mpibench", dir), 1, "rank 0 never opened its output");
    usleep(300000);
    kill(ranks[1], SIGKILL);
    int status = run_wait_exit(pid, 30);
    cr_assert(status != 0 && status != -1 && status != 124, "mpirun exit %d", status);
    for (int i = 0; i < 300 && run_pids_with(out, "mpirun", ranks, 8) > 0; i++)
        usleep(10000);
    cr_assert_eq(run_pids_with(out, "mpirun", ranks, 8), 0, "a rank survived");
}

/* A small tmpfs at dir (root only): the only way to make writes fail for
 * root, who ignores permissions. */
static int mount_tmpfs(const char *opts)
{
    if (geteuid() != 0 || mount("tmpfs", dir, "tmpfs", 0, opts) != 0)
        return -1;
    mounted = 1;
    return 0;
}

static int count_entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static const char previous[] = "# a previous file\no0_ns = 1\no1_ns_per_byte = 0\nmref_bytes = 64\n"
                               "lp_ns = 7\nlf_ns = 60\nls_ns = 670\n";

Test(faults, unwritable_directory_keeps_previous_files)
{
    char params[300], data[300];
    if (mount_tmpfs("size=1m") != 0)
        cr_skip_test("needs root and mount(2) to make a directory unwritable for root");
    snprintf(params, sizeof params, "%s/old.params", dir);
    snprintf(data, sizeof data, "%s/old.tsv", dir);
    run_write_text(params, previous);
    run_write_text(data, previous);
    cr_assert_eq(mount("tmpfs", dir, "tmpfs", MS_REMOUNT | MS_RDONLY, "size=1m"), 0);
    const char *fixture = run_fixture("plots/ring2.tsv");
    run_result r = run_cmd(run_prog("calibrate", 0), 60, "--data", fixture, "-o", params, NULL);
    run_assert_error(&r, 1, params, "calibrate into a read-only directory");
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 60, "--sizes", "8", "-q", "-o", data, NULL);
    run_assert_error(&r, 1, data, "scibench into a read-only directory");
    run_free(&r);
    char *a = run_read_text(params), *b = run_read_text(data);
    cr_assert_str_eq(a, previous);
    cr_assert_str_eq(b, previous);
    free(a);
    free(b);
}

Test(faults, full_file_system_keeps_previous_files)
{
    char params[300], data[300], filler[300];
    if (mount_tmpfs("size=64k") != 0)
        cr_skip_test("needs root and mount(2) for a small tmpfs");
    snprintf(params, sizeof params, "%s/old.params", dir);
    snprintf(data, sizeof data, "%s/old.tsv", dir);
    snprintf(filler, sizeof filler, "%s/filler", dir);
    run_write_text(params, previous);
    run_write_text(data, previous);
    FILE *fp = fopen(filler, "w");   /* fill the file system to the last byte */
    static char block[4096];
    while (fp && fwrite(block, 1, sizeof block, fp) == sizeof block && fflush(fp) == 0)
        ;
    if (fp)
        fclose(fp);
    int before = count_entries();
    const char *fixture = run_fixture("plots/ring2.tsv");
    run_result r = run_cmd(run_prog("calibrate", 0), 60, "--data", fixture, "-o", params, NULL);
    run_assert_error(&r, 1, params, "calibrate onto a full file system");
    run_free(&r);
    r = run_cmd(run_prog("scibench", 0), 60, "--sizes", "8,64", "--max-time", "0.1", "-q", "-o",
                data, NULL);
    cr_assert_eq(r.status, 1, "scibench onto a full file system: %d %s", r.status, r.err);
    cr_assert_not_null(strstr(r.err, data), "%s", r.err);
    cr_assert_null(strstr(r.err, "Sanitizer"));
    run_free(&r);
    char *a = run_read_text(params), *b = run_read_text(data);
    cr_assert_str_eq(a, previous);
    cr_assert_str_eq(b, previous);
    free(a);
    free(b);
    cr_assert_eq(count_entries(), before, "a temporary file was left behind");
}

/* ---- mpibench's stop path: a stop on any rank, a peer killed ---- */

#define MPIRUN_ARGS "mpirun", "--allow-run-as-root", "--oversubscribe", "-np"
#define MPIRUN "/usr/bin/timeout", "90", MPIRUN_ARGS
/* --op points of exactly REPS repetitions (no cut): a row with fewer is a
 * point cut short, not a finished one */
#define REPS 5000
#define COLL_RUN "--op", "allreduce", "--sizes", "1,2,4,8", "--cut-quantile", "0", \
                 "--min-samples", "5000", "--max-samples", "5000"

/* The pid of MPI rank `rank` among the processes whose command line has
 * needle (Open MPI puts the rank in each process's environment). */
static pid_t rank_pid(const char *needle, int rank)
{
    pid_t pids[16];
    char want[64];
    int wlen = snprintf(want, sizeof want, "OMPI_COMM_WORLD_RANK=%d", rank);
    for (int t = 0; t < 2000; t++, usleep(10000)) {
        int n = run_pids_with(needle, "mpirun", pids, 16);
        for (int i = 0; i < n; i++) {
            char path[64], env[65536];
            snprintf(path, sizeof path, "/proc/%d/environ", (int)pids[i]);
            FILE *fp = fopen(path, "r");
            size_t len = fp ? fread(env, 1, sizeof env - 1, fp) : 0;
            if (fp)
                fclose(fp);
            for (size_t k = 0; k + (size_t)wlen <= len; k += strlen(env + k) + 1)
                if (strncmp(env + k, want, (size_t)wlen) == 0 && env[k + (size_t)wlen] == '\0')
                    return pids[i];
        }
    }
    cr_assert_fail("no rank %d of %s", rank, needle);
    return -1;
}

/* Rows of a bench file (an --op row of fewer than min repetitions
 * fails); -1 when the file is missing. */
static int coll_rows(const char *path, long min, int *incomplete)
{
    FILE *fp = fopen(path, "r");
    char line[4096];
    int rows = 0;
    *incomplete = 0;
    if (!fp)
        return -1;
    while (fgets(line, sizeof line, fp)) {
        *incomplete = strcmp(line, "# incomplete\n") == 0;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        long reps = -1;
        if (strncmp(line, "coll\t", 5) == 0)
            sscanf(line, "%*s %*s %*s %*s %*s %*s %ld", &reps);
        cr_assert(strncmp(line, "coll\t", 5) != 0 || reps >= min,
                  "%s: a point cut short (%ld repetitions, each point takes %ld): %s", path,
                  reps, min, line);
        rows++;
    }
    fclose(fp);
    return rows;
}

/* SIGINT or SIGTERM to rank 1 alone stops every pattern's run (ping-pong,
 * LogP and --op) as Ctrl-C does: exit 130, the finished points kept,
 * marked incomplete, no point cut short among them. */
Test(faults, stop_on_any_rank_stops_every_pattern)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    static const char *const names[] = {"pp", "logp", "--op"}, *const first[] = {
        "[1/17]", " B: os", "P=2 1 B"};
    for (int k = 0; k < 6; k++) {
        char out[300], err[300];
        int mode = k / 2, inc;
        snprintf(out, sizeof out, "%s/stop%d.tsv", dir, k);
        snprintf(err, sizeof err, "%s/stop%d.err", dir, k);
        char *pp[] = {MPIRUN, "2", (char *)run_prog("mpibench", 1), "--sizes", "1..65536",
                      "--max-time", "0.3", "-o", out, NULL};
        char *logp[] = {MPIRUN, "2", (char *)run_prog("mpibench", 1), "--pattern", "logp",
                        "--sizes", "0..65536", "-o", out, NULL};
        char *op[] = {MPIRUN, "2", (char *)run_prog("mpibench", 1), COLL_RUN, "-o", out, NULL};
        char **argv[] = {pp, logp, op};
        pid_t pid = run_spawn(argv[mode], err);
        cr_assert(run_wait_text(err, first[mode], 60), "%s: no first point", names[mode]);
        kill(rank_pid(out, 1), sigs[k % 2]);
        int st = run_wait_exit(pid, 60);
        char *msg = run_read_text(err);
        cr_assert_eq(st, 130, "%s, signal %d to rank 1: exit %d: %s", names[mode], sigs[k % 2],
                     st, msg);
        free(msg);
        cr_assert_geq(coll_rows(out, REPS, &inc), 1, "%s", out);
        cr_assert(inc, "%s does not end '# incomplete'", out);
    }
}

/* SIGINT to rank 0 (mpirun, which would SIGKILL the job 1 s after a
 * Ctrl-C, out of the way) keeps only the points that finished; --resume
 * measures the rest, --op's own and the plain one alike. */
Test(faults, interrupted_op_keeps_finished_points_and_resumes)
{
    char out[300], err[300], again[300];
    int inc;
    snprintf(out, sizeof out, "%s/i1.tsv", dir);
    snprintf(err, sizeof err, "%s/i1.err", dir);
    snprintf(again, sizeof again, "%s/out.tsv", dir);
    char *argv[] = {MPIRUN, "2", (char *)run_prog("mpibench", 1), COLL_RUN, "-o", out, NULL};
    pid_t pid = run_spawn(argv, err);
    cr_assert(run_wait_text(err, "P=2 1 B", 60), "no first point");
    kill(rank_pid(out, 0), SIGINT);
    int st = run_wait_exit(pid, 60);
    cr_assert_eq(st, 130, "exit %d", st);
    const char *kept = out;
    int rows = coll_rows(kept, REPS, &inc);
    cr_assert(rows >= 1 && rows < 4 && inc, "%s: %d rows, incomplete %d", kept, rows, inc);
    run_result r = run_cmd("/usr/bin/timeout", 120, "90", MPIRUN_ARGS, "2", run_prog("mpibench", 1), COLL_RUN, "-q", "--resume",
                           kept, "-o", again, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    cr_assert_eq(coll_rows(again, REPS, &inc), 4, "--op --resume: not every size in %s", again);
    cr_assert_not(inc);
    r = run_cmd("/usr/bin/timeout", 120, "90", MPIRUN_ARGS, "2", run_prog("mpibench", 1), "--resume", kept, NULL);
    cr_assert_eq(r.status, 0, "plain --resume of an --op file: %s", r.err);
    run_free(&r);
    cr_assert_eq(coll_rows(kept, REPS, &inc), 4, "plain --resume: not every size in %s", kept);
    cr_assert_not(inc);
}

/* A peer killed (SIGKILL: mpirun then ends the job, rank 0 too) leaves the
 * points finished before it in FILE.incomplete (or FILE, when rank 0 had
 * the time to end the run itself), marked incomplete. */
Test(faults, killed_peer_keeps_finished_points)
{
    for (int coll = 0; coll < 2; coll++) {
        char out[300], err[300], partial[320];
        int inc;
        snprintf(out, sizeof out, "%s/peer%d.tsv", dir, coll);
        snprintf(partial, sizeof partial, "%s.incomplete", out);
        snprintf(err, sizeof err, "%s/peer%d.err", dir, coll);
        char *pp[] = {MPIRUN, "2", (char *)run_prog("mpibench", 1), "--sizes", "1..65536",
                      "--max-time", "0.3", "-o", out, NULL};
        char *op[] = {MPIRUN, "3", (char *)run_prog("mpibench", 1), COLL_RUN, "-o", out, NULL};
        pid_t pid = run_spawn(coll ? op : pp, err);
        cr_assert(run_wait_text(err, coll ? "P=3 1 B" : "[3/17]", 60), "no finished point");
        kill(rank_pid(out, coll ? 2 : 1), SIGKILL);
        int st = run_wait_exit(pid, 60);
        cr_assert(st != 0 && st != -1, "exit %d", st);
        struct stat sb;
        const char *kept = stat(out, &sb) == 0 ? out : partial;
        int rows = coll_rows(kept, REPS, &inc);
        cr_assert_geq(rows, coll ? 1 : 3, "%s: %d rows", kept, rows);
        cr_assert(inc, "%s does not end '# incomplete'", kept);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '[.]tmp[.]'", dir);
    cr_assert_neq(system(cmd), 0, "a temporary file was left");
}
