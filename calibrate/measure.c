/* measure: runs the benchmark (scibench, or mpibench under a launcher) with
 * the defaults of calibrate's mode, and the bare floor before and after. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wordexp.h>

#include "calibrate/calibrate.h"
#include "topo/topo.h"
#include "util/atomicfile.h"
#include "util/signals.h"
#include "util/spawn.h"

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
     * time-bound */
    {"default", "1..16,32..128:4,256..65536", "1..16,32..128:4,256..65536", "0.001", "2",
     "10000"},
    /* points to 1%, not 5%: the held-out check of --full --quick needs them, and they
     * cost little time */
    {"quick", "1..4096", "1..4096", "0.01", "0.5", NULL},
    /* one interleaved run of four networks, --max-time the whole run's: 20 s
     * keeps --full under a minute.  The powers of two and their midpoints
     * from 16 B to 4 KiB, where the curves step; with mpi the midpoints
     * above 4 KiB too, where Open MPI's curve bends (its eager limit) and
     * a segment needs three sizes */
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

/* How long an MPI job may take to end after its stop signal (rank 0
 * writes its files and aborts the job) before calibrate terminates the
 * launcher's process group. */
#define MPI_STOP_GRACE_S 20
/* The shared-memory benchmark's processes: two, each spinning on a core;
 * an MPI job's ranks spin likewise, one each. */
#define SHM_SPINNERS 2.0
#define SHARE_MIN_RUN_S 0.5
/* mpirun's start-up takes about a second with the ranks not yet spinning:
 * a quiet --quick MPI run would read as shared (test_verdict's MPI case). */
#define MPI_SHARE_MIN_RUN_S 5.0

static void stdout_to(void *fd)
{
    if (dup2(*(int *)fd, STDOUT_FILENO) < 0)
        _exit(127);
}

/* Runs the benchmark and waits for it (util/spawn.h: it never outlives
 * calibrate, a stop request is passed on).  An MPI launcher leads a
 * process group of its own that gets SIGUSR1: mpirun passes it to every
 * rank and lets rank 0 write its files, where SIGINT or SIGTERM would kill
 * the ranks 1 s later.  out_fd >= 0: the child's standard output. */
static int run_child(char *const argv[], int mpi, int out_fd, double *wall_s, double *cpu_s)
{
    spawn_opts so = {.prog = "calibrate", .stop_signal = mpi ? SIGUSR1 : SIGTERM,
                     .own_group = mpi, .stdin_null = mpi, .grace_s = MPI_STOP_GRACE_S,
                     .setup = out_fd >= 0 ? stdout_to : NULL, .setup_arg = &out_fd,
                     .wall_s = wall_s, .cpu_s = cpu_s};
    return spawn_run(argv, &so);
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
    if (run_child(argv, 0, fileno(tmp), NULL, NULL) == 0) {
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

int measure(const options *o, const char *max_time, char *bench_path, size_t len, double *cpu_share)
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
    char launch[48] = "";
    if (o->launch) {   /* launch k of --launches: its own file */
        snprintf(launch, sizeof launch, "-launch%ld", o->launch);
        if (o->out_bench)
            options_stem(o->out_bench, "", stem, sizeof stem);
    }
    if (o->full)
        snprintf(bench_path, len, "%s", o->plan.path[0]);
    else if (o->launch)
        snprintf(bench_path, len, "%s%s%s%s.tsv", stem, o->out_bench ? "" : "-",
                 o->out_bench ? "" : topo, launch);
    else if (o->out_bench)
        snprintf(bench_path, len, "%s", o->out_bench);
    else
        snprintf(bench_path, len, "%s-%s.tsv", stem, topo);
    fs_file mine = {"the benchmark's data", bench_path};
    int frc = !o->full && !o->out_bench ? options_check_files(o, &mine, 1) : 0;
    if (frc)
        return frc;
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
     * so that with a single-copy transport every hop costs alike */
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
    double wall = 0, cpu = 0;
    int rc = run_child(argv, mpi, -1, &wall, &cpu);
    if (mpi)
        wordfree(&we);
    /* The benchmark's processes spin the whole run: about 1 when they kept
     * their cores.  Not judged for a run so short that start-up weighs in,
     * nor for ranks on other hosts, whose CPU is not ours. */
    if (cpu_share) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN), ranks = o->np ? atol(o->np) : shape.nodes;
        double spinners = !mpi ? SHM_SPINNERS : (double)(ranks < cores ? ranks : cores);
        *cpu_share = wall < (mpi ? MPI_SHARE_MIN_RUN_S : SHARE_MIN_RUN_S) || (mpi && o->hostfile) ||
                             !(spinners > 0)
                         ? NAN : cpu / (spinners * wall);
    }
    if (rc == -2)
        return stopped("interrupted; the benchmark stopped and kept its finished points (in '%s',"
                    " or '%s%s' beside an existing file); nothing fitted", bench_path, bench_path,
                    ATOMIC_FILE_PARTIAL_SUFFIX);
    if (rc != 0)
        return fail("the benchmark failed (exit status %d); nothing fitted", rc);
    return 0;
}

int measure_stream(const options *o, const char *path)
{
    char prog[PATH_MAX + 16];
    char *argv[MAX_ARGS];
    int n = 0, mpi = strcmp(o->backend, "mpi") == 0;
    wordexp_t we;
    bench_program(o, prog, sizeof prog);
    if (mpi && (n = launcher_words(o, 2, &we, argv)) < 0)
        return EXIT_USAGE;
    argv[n++] = prog;
    argv[n++] = "--ring";
    argv[n++] = "2";
    argv[n++] = "--pattern";
    argv[n++] = "ow";
    argv[n++] = "--sizes";
    argv[n++] = LINK_RATE_SIZES;
    argv[n++] = "--max-time";
    argv[n++] = o->quick ? "0.1" : "0.3";
    argv[n++] = "-q";
    argv[n++] = "-o";
    argv[n++] = (char *)path;
    argv[n] = NULL;
    if (!o->quiet) {
        fprintf(stderr, "calibrate: measuring the link rate:");
        for (int i = 0; i < n; i++)
            fprintf(stderr, " %s", argv[i]);
        fputc('\n', stderr);
    }
    int rc = run_child(argv, mpi, -1, NULL, NULL);
    if (mpi)
        wordfree(&we);
    if (rc == -2)
        return stopped("interrupted while measuring the link rate; nothing written");
    return rc ? fail("the link rate's benchmark failed (exit status %d)", rc) : 0;
}
