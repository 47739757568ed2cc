/* measure: runs the benchmark (scibench, or mpibench under a launcher) with
 * the defaults of calibrate's mode, and the bare floor before and after. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include "calibrate/calibrate.h"
#include "topo/topo.h"
#include "util/atomicfile.h"
#include "util/signals.h"

#define MAX_ARGS 128

/* The defaults of each mode, one row each; an option given wins. */
typedef struct mode_defaults {
    const char *name;
    const char *sizes, *sizes_mpi, *rel_error, *max_time;
    const char *max_samples;   /* NULL: the benchmark's own */
} mode_defaults;

static const mode_defaults modes[] = {
    /* the powers of two up to 64 KiB and every 4 B from 32 to 128 B, where a
     * message spills from one cache line into three and o(64 B) rests on
     * the 15 sizes of its own step; 10^4 batches at most, the run stays
     * time-bound (docs/MEASUREMENTS.md, "Calibrating") */
    {"default", "1..16,32..128:4,256..65536", "1..16,32..128:4,256..65536", "0.001", "2",
     "10000"},
    {"quick", "1..4096", "1..4096", "0.05", "0.5", NULL},
    /* one interleaved run of four networks, --max-time the whole run's: 20 s
     * keeps --full under a minute.  The powers of two and their midpoints
     * from 16 B to 4 KiB, where the curves step; with mpi the midpoints
     * above 4 KiB too, where Open MPI's curve bends at 32 KiB and a
     * segment needs three sizes (docs/MEASUREMENTS.md) */
    {"full",
     "1,2,4,8,16,24,32,48,64,96,128,192,256,384,512,768,1024,1536,2048,3072,4096,8192,16384,"
     "32768,65536",
     "1,2,4,8,16,24,32,48,64,96,128,192,256,384,512,768,1024,1536,2048,3072,4096,6144,8192,"
     "12288,16384,24576,32768,49152,65536",
     "0.001", "20", NULL},
};

static const mode_defaults *mode_of(const options *o)
{
    return &modes[o->quick ? 1 : o->full ? 2 : 0];
}

static void self_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(buf, len, ".");
}

static void bench_program(const options *o, char *prog, size_t len)
{
    char dir[PATH_MAX];
    if (o->bench_prog) {
        snprintf(prog, len, "%s", o->bench_prog);
        return;
    }
    self_dir(dir, sizeof dir);
    snprintf(prog, len, "%s/%s", dir, strcmp(o->backend, "mpi") ? "scibench" : "mpibench");
}

int mkdirs(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

/* How long an MPI job may take to end after its stop signal (rank 0
 * writes its files and aborts the job) before calibrate terminates the
 * launcher's process group. */
#define MPI_STOP_GRACE_S 20

/* Waits up to limit_s for every process of group pgid to be gone (the
 * launcher reaped already).  Returns 1 when they are. */
static int group_gone(pid_t pgid, int limit_s)
{
    for (int i = 0; i < limit_s * 100; i++) {
        if (kill(-pgid, 0) != 0 && errno == ESRCH)
            return 1;
        usleep(10000);
    }
    return 0;
}

/* Runs the benchmark and waits for it.  The child never outlives
 * calibrate (PR_SET_PDEATHSIG), a SIGINT or SIGTERM to calibrate is passed
 * on, and an MPI launcher runs in a process group of its own that gets
 * SIGUSR1 (mpirun passes it to every rank and lets rank 0 write its files,
 * where SIGINT or SIGTERM would kill the ranks 1 s later); its stdin is
 * /dev/null.  A job not ended MPI_STOP_GRACE_S later gets SIGTERM, then
 * SIGKILL.  Returns the exit status (128 + signal), -1 on a system error,
 * -2 when calibrate was interrupted.  out_fd >= 0: the child's stdout. */
static int run_child(char *const argv[], int mpi, int out_fd)
{
    pid_t parent = getpid();
    int stop = mpi ? SIGUSR1 : SIGTERM;
    sigset_t block, old;
    bench_signals_install_stop();   /* no SA_RESTART: waitpid returns EINTR */
    fflush(NULL);
    /* Blocked across the fork: a stop sent before the child has reset its
     * handlers would reach calibrate's inherited one and be lost with the
     * exec (the benchmark then ran its whole course). */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return -1;
    }
    if (pid == 0) {
        if (mpi) {
            setpgid(0, 0);
            if (!freopen("/dev/null", "r", stdin))
                _exit(127);
        }
        if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
            _exit(127);
        prctl(PR_SET_PDEATHSIG, stop);
        if (getppid() != parent)
            _exit(1);   /* calibrate died before prctl took effect */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGUSR1, SIG_DFL);
        signal(SIGCHLD, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        execvp(argv[0], argv);
        fprintf(stderr, "calibrate: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (mpi)
        setpgid(pid, pid);   /* (the child's own call may come later) */
    sigprocmask(SIG_SETMASK, &old, NULL);
    int st, forwarded = 0;
    if (bench_interrupted())   /* a signal that came before the fork */
        kill(mpi ? -pid : pid, stop), forwarded = 1;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR)
            return -1;
        if (bench_interrupted() && !forwarded)
            kill(mpi ? -pid : pid, stop), forwarded = 1;
    }
    if (mpi && forwarded && !group_gone(pid, MPI_STOP_GRACE_S)) {
        kill(-pid, SIGTERM);
        if (!group_gone(pid, 2))
            kill(-pid, SIGKILL);
    }
    signal(SIGINT, SIG_DFL);   /* fitting: a signal ends calibrate as usual */
    signal(SIGTERM, SIG_DFL);
    if (bench_interrupted())
        return -2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

double measure_floor(const options *o)
{
    char prog[PATH_MAX + 16], out[256] = "";
    FILE *tmp = tmpfile();
    double v = NAN;
    if (strcmp(o->backend, "shm") != 0 || !tmp)
        return tmp ? fclose(tmp), NAN : NAN;
    bench_program(o, prog, sizeof prog);
    char *argv[] = {prog, "--floor", NULL};
    if (run_child(argv, 0, fileno(tmp)) == 0) {
        rewind(tmp);
        while (fgets(out, sizeof out, tmp))
            if (sscanf(out, "floor_ns %lf", &v) == 1 && v > 0)
                break;
    }
    fclose(tmp);
    return v > 0 ? v : NAN;
}

/* The launcher's words (wordexp: quotes, no command substitution) and,
 * for mpirun, its -np, --hostfile and root flags.  Returns the count, or
 * -1 (message printed). */
static int launcher_words(const options *o, long nodes, wordexp_t *we, char **argv)
{
    static char np[32];
    int n = 0, is_mpirun = 0;
    const char *cmd = o->mpirun ? o->mpirun : "mpirun";
    int wr = wordexp(cmd, we, WRDE_NOCMD | WRDE_UNDEF);
    if (wr != 0 || we->we_wordc == 0 || we->we_wordc > 32) {
        if (wr == 0)
            wordfree(we);
        return fail("--mpirun '%s': %s", cmd, wr == WRDE_CMDSUB ? "command substitution is not"
                    " allowed" : wr == WRDE_BADVAL ? "an undefined variable" : wr == 0 ?
                    "expected 1 to 32 words" : "not a word list (unbalanced quotes?)"), -1;
    }
    for (size_t i = 0; i < we->we_wordc; i++) {
        const char *base = strrchr(we->we_wordv[i], '/');
        is_mpirun |= !strcmp(base ? base + 1 : we->we_wordv[i], "mpirun");
        argv[n++] = we->we_wordv[i];
    }
    if (is_mpirun) {
        snprintf(np, sizeof np, "%ld", nodes);
        argv[n++] = "-np";
        argv[n++] = (char *)(o->np ? o->np : np);
        if (o->hostfile)
            argv[n++] = "--hostfile", argv[n++] = (char *)o->hostfile;
        if (geteuid() == 0)
            argv[n++] = "--allow-run-as-root";
    }
    return n;
}

int measure(const options *o, const char *max_time, char *bench_path, size_t len)
{
    char prog[PATH_MAX + 16], topo[64], stem[PATH_MAX], params[PATH_MAX];
    char *argv[MAX_ARGS];
    int n = 0, mpi = strcmp(o->backend, "mpi") == 0;
    wordexp_t we;
    topo_shape shape;
    topo_parse_error perr;
    const mode_defaults *m = mode_of(o);
    const char *t = o->full ? "2" : o->torus ? o->torus : o->ring ? o->ring : "2";
    if (topo_shape_parse(t, &shape, &perr))
        return usage_error("%s '%s': %s", o->torus ? "--torus" : "--ring", t, perr.what);
    bench_program(o, prog, sizeof prog);
    char def[sizeof o->host + 16];   /* the stem of "-o -" */
    snprintf(def, sizeof def, "%s-%s", o->host, o->backend);
    options_stem(options_params_path(o, params, sizeof params), def, stem, sizeof stem);
    snprintf(topo, sizeof topo, "%s%s", o->torus ? "torus" : "ring", t);
    if (o->full)
        snprintf(bench_path, len, "%s", o->plan.path[0]);
    else if (o->out_bench)
        snprintf(bench_path, len, "%s", o->out_bench);
    else
        snprintf(bench_path, len, "%s-%s.tsv", stem, topo);
    if (!o->full && !o->out_bench && options_check_output(o, "the benchmark's data", bench_path))
        return EXIT_USAGE;
    if (mpi && (n = launcher_words(o, shape.nodes, &we, argv)) < 0)
        return EXIT_USAGE;
    argv[n++] = prog;
    argv[n++] = o->torus && !o->full ? "--torus" : "--ring";
    argv[n++] = (char *)t;
    /* Size-interleaved: every point takes its batches in turn, so a change
     * of the machine's speed during the run hits every size (and with --full
     * every network) alike instead of bending the curve. */
    for (int k = 1; o->full && k < FULL_NETS; k++)
        argv[n++] = "--interleave", argv[n++] = (char *)o->plan.interleave[k];
    if (!o->full)
        argv[n++] = "--interleave-sizes";
    /* MPI: every hop sends the bytes it has just received, as a relay does,
     * so that with a single-copy transport every hop costs alike
     * (docs/MEASUREMENTS.md, "The same with MPI") */
    if (mpi)
        argv[n++] = "--echo";
    argv[n++] = "--sizes";
    argv[n++] = (char *)(o->sizes ? o->sizes : mpi ? m->sizes_mpi : m->sizes);
    argv[n++] = "--rel-error";
    argv[n++] = (char *)(o->rel_error ? o->rel_error : m->rel_error);
    if (m->max_samples)
        argv[n++] = "--max-samples", argv[n++] = (char *)m->max_samples;
    argv[n++] = "--max-time";
    argv[n++] = (char *)(max_time ? max_time : o->max_time ? o->max_time : m->max_time);
    if (o->all_dst)
        argv[n++] = "--all-dst";
    if (o->inject_forward)
        argv[n++] = "--inject-forward", argv[n++] = (char *)o->inject_forward;
    if (o->inject_switch)
        argv[n++] = "--inject-switch", argv[n++] = (char *)o->inject_switch;
    if (o->quiet)
        argv[n++] = "-q";
    argv[n++] = "-o";
    argv[n++] = bench_path;
    argv[n] = NULL;
    if (!o->quiet) {
        fprintf(stderr, "calibrate: measuring:");
        for (int i = 0; i < n; i++)
            fprintf(stderr, " %s", argv[i]);
        fputc('\n', stderr);
    }
    int rc = run_child(argv, mpi, -1);
    if (mpi)
        wordfree(&we);
    if (rc == -2)
        return fail("interrupted; the benchmark stopped and kept its finished points (in '%s',"
                    " or '%s%s' beside an existing file); nothing fitted", bench_path, bench_path,
                    ATOMIC_FILE_PARTIAL_SUFFIX);
    if (rc != 0)
        return fail("the benchmark failed (exit status %d); nothing fitted", rc);
    return 0;
}
