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
