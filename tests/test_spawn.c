/* Tests for util/spawn through `scitrace run`: a stop request or the death
 * of scitrace (SIGINT, SIGTERM, SIGKILL) ends the whole traced job --
 * mpirun and every rank -- so nothing of it runs on and nothing is written
 * into the trace directory afterwards.  The job's ranks sleep, then write
 * a file; the oracle is the process table (/proc/PID/cmdline) and the
 * directory, looked at after the ranks would have written. */
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/runcmd.h"

TestSuite(spawn, .timeout = 120);

#define RANK_SLEEP_S 4   /* the ranks' sleep before they write */

/* Number of live processes whose command line holds marker; each gets
 * sig when sig != 0. */
static int processes_with(const char *marker, int sig)
{
    int n = 0;
    DIR *dp = opendir("/proc");
    cr_assert(dp);
    for (struct dirent *e; (e = readdir(dp)) != NULL;) {
        char path[300], buf[8192];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *fp = fopen(path, "r");
        if (!fp)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, fp);
        fclose(fp);
        for (size_t i = 0; i < len; i++)
            buf[i] = buf[i] ? buf[i] : ' ';
        buf[len] = '\0';
        char state[64] = "";
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        if ((fp = fopen(path, "r")) != NULL) {   /* a zombie has run its course */
            if (!fgets(state, sizeof state, fp))
                state[0] = '\0';
            fclose(fp);
        }
        char *paren = strrchr(state, ')');
        int live = strstr(buf, marker) != NULL && !(paren && paren[1] == ' ' && paren[2] == 'Z');
        if (live && sig)
            kill(atoi(e->d_name), sig);
        n += live;
    }
    closedir(dp);
    return n;
}

static int entries(const char *dir)
{
    int n = 0;
    DIR *dp = opendir(dir);
    for (struct dirent *e; dp && (e = readdir(dp)) != NULL;)
        n += e->d_name[0] != '.';
    if (dp)
        closedir(dp);
    return n;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void stop_scitrace_run(int sig, const char *name)
{
    char dir[] = "/tmp/scitorus-spawn-XXXXXX", marker[64], script[256];
    cr_assert(mkdtemp(dir));
    snprintf(marker, sizeof marker, "scitorus-spawn-%d-%s", (int)getpid(), name);
    snprintf(script, sizeof script,
             "sleep %d; touch \"$SCITRACE_DIR/late-$OMPI_COMM_WORLD_RANK\"", RANK_SLEEP_S);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        setpgid(0, 0);   /* a signal for scitrace alone, as kill(1) sends it */
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0), dup2(devnull, 1), dup2(devnull, 2);
        execl(run_prog("scitrace", 0), "scitrace", "run", "-d", dir, "--", "mpirun",
              "--allow-run-as-root", "--oversubscribe", "--timeout", "60", "-np", "2", "sh",
              "-c", script, marker, (char *)NULL);
        _exit(127);
    }
    /* wait until the ranks run (mpirun starts them), then stop scitrace */
    for (int i = 0; i < 200 && processes_with(marker, 0) < 3; i++)
        sleep_s(0.05);
    cr_assert_geq(processes_with(marker, 0), 3, "%s: mpirun and its 2 ranks never ran", name);
    cr_assert_eq(kill(pid, sig), 0);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    if (sig != SIGKILL)
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 130,
                  "%s: an interrupted scitrace run exits 130 (status %d)", name, st);
    sleep_s(RANK_SLEEP_S + 2.0);   /* past the moment the ranks would write */
    int left = processes_with(marker, SIGKILL), written = entries(dir);   /* (and clean up) */
    cr_expect_eq(left, 0, "%s to scitrace run: %d processes of the job still run", name, left);
    cr_expect_eq(written, 0, "%s to scitrace run: the job wrote %d files after it", name,
                 written);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) {}
}

Test(spawn, sigint_to_scitrace_run_ends_the_job) { stop_scitrace_run(SIGINT, "SIGINT"); }
Test(spawn, sigterm_to_scitrace_run_ends_the_job) { stop_scitrace_run(SIGTERM, "SIGTERM"); }
Test(spawn, sigkill_to_scitrace_run_ends_the_job) { stop_scitrace_run(SIGKILL, "SIGKILL"); }
