/* mpi_hang: how mpibench's MPI runs end when rank 1 is hit once the first
 * of 7 points is written (tests only): SIGSTOP, a hung node, must end the
 * run within --timeout; SIGTERM, a batch system's, must stop it.  Either
 * way the run says why and keeps the finished points in its file marked
 * '# incomplete'. */
#ifndef SCITORUS_TESTS_MPI_HANG_H
#define SCITORUS_TESTS_MPI_HANG_H

#include "benchdata/benchdata.h"
#include "tests/runcmd.h"

/* The pid of the mpibench rank `rank` writing to out (its command line
 * names out; Open MPI puts its rank in the environment). */
static inline pid_t run_find_mpi_rank(const char *out, int rank)
{
    char want[64];
    snprintf(want, sizeof want, "OMPI_COMM_WORLD_RANK=%d", rank);
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && !found && (e = readdir(d))) {
        pid_t pid = atoi(e->d_name);
        char path[300], buf[65536];
        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
        FILE *fp = fopen(path, "r");
        size_t len = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
        if (fp)
            fclose(fp);
        int is_rank = 0;
        buf[len] = '\0';
        for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
            is_rank |= strcmp(buf + i, out) == 0;
        is_rank &= len > 0 && strstr(buf, "mpibench") != NULL && strstr(buf, "mpirun") == NULL;
        if (!is_rank)
            continue;
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        fp = fopen(path, "r");
        len = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
        if (fp)
            fclose(fp);
        buf[len] = '\0';
        for (size_t i = 0; i < len && !found; i += strlen(buf + i) + 1)
            if (strcmp(buf + i, want) == 0)
                found = pid;
    }
    if (d)
        closedir(d);
    return found;
}

/* Runs mpibench's arguments args (7 sizes, not -q) on 2 ranks, sends rank 1
 * sig after the first point; the run must exit status (-1: any failure) and
 * say text. */
static inline void mpi_hang_check(const char *const args[], int sig, int status,
                                  const char *text)
{
    char out[] = "/tmp/scitorus-hang-XXXXXX", err[] = "/tmp/scitorus-hang-err-XXXXXX";
    char *argv[32] = {"/usr/bin/timeout", "100", "mpirun", "--allow-run-as-root",
                      "--oversubscribe", "-np", "2", (char *)run_prog("mpibench", 1)};
    int n = 8;
    close(mkstemp(out));
    unlink(out);   /* nothing there before: the run's file is the target */
    while (*args && n < 28)
        argv[n++] = (char *)*args++;
    argv[n++] = "-o", argv[n++] = out, argv[n] = NULL;
    close(mkstemp(err));
    pid_t pid = run_spawn(argv, err);
    /* a point finished (rank 0's progress line), then rank 1 hangs */
    if (!run_wait_text(err, "[1/7]", 60)) {
        char *msg = run_read_text(err);
        cr_assert_fail("no point finished: %s", msg);
    }
    pid_t rank1 = run_find_mpi_rank(out, 1);
    cr_assert_gt(rank1, 0, "rank 1 of %s not found", out);
    kill(rank1, sig);
    int st = run_wait_exit(pid, 30);
    if (sig == SIGSTOP)
        kill(rank1, SIGKILL);   /* (gone already when mpirun ended it) */
    char *msg = run_read_text(err);
    cr_assert(status < 0 ? st != 0 && st != -1 && st != 124 : st == status, "mpirun exit %d: %s",
              st, msg);
    cr_assert_not_null(strstr(msg, text), "%s", msg);
    bench_data d;
    bench_read_error e;
    cr_assert_eq(bench_data_read(out, &d, &e), 0, "%s: %s; stderr: %s", out, e.msg, msg);
    cr_assert_eq(d.incomplete, 1, "%s does not end '# incomplete'", out);
    cr_assert_geq(d.count, 1, "the finished point was lost");
    cr_assert_lt(d.count, 7);
    bench_data_free(&d);
    free(msg);
    unlink(out);
    unlink(err);
}

#endif
