/* mode_run: `scitrace run -- mpirun -np P ./app`, runs a command with
 * libscitrace.so preloaded in the MPI ranks and says where the trace is. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scitrace/modes.h"
#include "util/opt.h"
#include "util/spawn.h"

#define MAX_ARGS 4096

typedef struct run_opts {
    const char *dir, *lib;
} run_opts;

static const opt_spec run_specs[] = {
    {.name = "dir", .short_name = 'd', .kind = OPT_STRING, .field = offsetof(run_opts, dir),
     .arg = "DIR", .help = "trace directory, created if needed; an existing one\nmust be empty: "
     "it is refused, not emptied, since its\nfiles may be another run's that nobody meant to "
     "lose\n(default: scitrace-<program>-<UTC date and time>,\ne.g. "
     "scitrace-halo3d-20261123-104501)"},
    {.name = "lib", .kind = OPT_STRING, .field = offsetof(run_opts, lib), .arg = "FILE",
     .help = "the library (default: libscitrace.so beside this\nprogram, or in ../lib/ of it; "
     "or $SCITRACE_LIB)"},
};

static const opt_program run_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace run [-d DIR] [--lib FILE] -- COMMAND [ARGS...]\n"
"Run COMMAND with libscitrace.so preloaded into the MPI processes it starts,\n"
"so that each rank writes DIR/rank-NNNNN.trace as it runs.\n"
"\n"
"When COMMAND is mpirun, mpiexec or orterun (Open MPI), the library and the\n"
"settings are passed to the ranks with -x (mpirun -x LD_PRELOAD=LIB -x\n"
"SCITRACE_DIR=DIR ...), so mpirun itself is not traced; any other COMMAND\n"
"(a singleton ./app, a script that calls mpirun with -x) gets them in its\n"
"environment.  The options end at COMMAND.\n"
"\n",
    .epilog =
"\n"
"Every rank file carries the run's identity (SCITRACE_RUN), and the\n"
"analyzers refuse a directory that mixes runs.\n"
"\n"
"Exit status: COMMAND's (128 + signal if it was killed); 1 when the\n"
"directory cannot be made or is not empty, the library is not found, or\n"
"no rank file was written; 2 usage error; 130 when scitrace itself was\n"
"stopped (SIGINT, SIGTERM, SIGHUP) and stopped the job.\n"
"Then: scitrace summary DIR; scitrace check DIR; scitrace matrix -o FILE DIR.\n",
    .specs = run_specs,
    .nspecs = sizeof run_specs / sizeof run_specs[0],
    .args_min = 1,
    .args_max = MAX_ARGS,
    .stop_at_args = 1,
};

/* The library beside /proc/self/exe, or in ../lib/ relative to it. */
static int find_lib(char *out, size_t cap)
{
    char exe[PATH_MAX];
    const char *env = getenv("SCITRACE_LIB");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return access(out, R_OK);
    }
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *dir = dirname(exe);
    const char *const where[] = {"%s/libscitrace.so", "%s/../lib/libscitrace.so",
                                 "%s/../libscitrace.so"};   /* bin/san/scitrace */
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        snprintf(out, cap, where[i], dir);
        if (access(out, R_OK) == 0)
            return 0;
    }
    return -1;
}

static int is_launcher(const char *cmd)
{
    const char *base = strrchr(cmd, '/');
    base = base ? base + 1 : cmd;
    return strcmp(base, "mpirun") == 0 || strcmp(base, "mpiexec") == 0 ||
           strcmp(base, "orterun") == 0;
}

/* Default directory name: the program is the first argument after the
 * launcher's options that does not start with '-' and is not an option
 * value; good enough for a name, which is all it is used for. */
static void default_dir(char *out, size_t cap, int argc, char **argv)
{
    const char *prog = argv[0];
    for (int i = is_launcher(argv[0]) ? 1 : argc; i < argc; i++) {
        if (argv[i][0] == '-') {
            if (strcmp(argv[i], "-np") == 0 || strcmp(argv[i], "-n") == 0 ||
                strcmp(argv[i], "-x") == 0 || strcmp(argv[i], "--host") == 0)
                i++;
            continue;
        }
        prog = argv[i];
        break;
    }
    const char *base = strrchr(prog, '/');
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", gmtime(&now));
    snprintf(out, cap, "scitrace-%s-%s", base ? base + 1 : prog, stamp);
}

static int dir_empty(const char *dir)
{
    int n = 0;
    DIR *dp = opendir(dir);
    for (struct dirent *e; dp && (e = readdir(dp)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (dp)
        closedir(dp);
    return dp && n == 0;
}

static int count_rank_files(const char *dir)
{
    int n = 0;
    DIR *dp = opendir(dir);
    for (struct dirent *e; dp && (e = readdir(dp)) != NULL;) {
        size_t len = strlen(e->d_name);
        n += strncmp(e->d_name, "rank-", 5) == 0 && len > 6 &&
             strcmp(e->d_name + len - 6, ".trace") == 0;
    }
    if (dp)
        closedir(dp);
    return n;
}

/* The child's environment (set between fork and exec by util/spawn). */
typedef struct run_env {
    const char *lib, *dir;
    char *run;   /* "SCITRACE_RUN=..." */
    int preload;
} run_env;

static void set_env(void *arg)
{
    const run_env *e = arg;
    if (e->preload)
        setenv("LD_PRELOAD", e->lib, 1);
    setenv("SCITRACE_DIR", e->dir, 1);
    putenv(e->run);
}

int scitrace_run(int argc, char **argv)
{
    char dir[PATH_MAX] = "", absdir[PATH_MAX], lib[PATH_MAX] = "", libabs[PATH_MAX];
    char env_preload[PATH_MAX + 16], env_dir[PATH_MAX + 16], env_run[96];
    run_opts o = {0};
    opt_state st;
    int prc = opt_parse(&run_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    int have_lib = o.lib != NULL, ncmd = st.nargs;
    if (o.dir)
        snprintf(dir, sizeof dir, "%s", o.dir);
    if (o.lib)
        snprintf(lib, sizeof lib, "%s", o.lib);
    char **cmd = argv + st.first_arg;
    if (have_lib ? access(lib, R_OK) != 0 : find_lib(lib, sizeof lib) != 0) {
        fprintf(stderr, "scitrace: run: library '%s' not found: %s\n",
                have_lib || getenv("SCITRACE_LIB") ? lib : "libscitrace.so", strerror(errno));
        return 1;
    }
    if (!*dir)
        default_dir(dir, sizeof dir, ncmd, cmd);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "scitrace: run: cannot create trace directory '%s': %s\n", dir,
                strerror(errno));
        return 1;
    }
    if (!dir_empty(dir)) {
        fprintf(stderr, "scitrace: run: trace directory '%s' is not empty (a previous trace?); "
                "name a new one, or remove it first\n", dir);
        return 1;
    }
    if (!realpath(dir, absdir) || !realpath(lib, libabs)) {
        fprintf(stderr, "scitrace: run: '%s': %s\n", realpath(dir, absdir) ? lib : dir,
                strerror(errno));
        return 1;
    }
    snprintf(env_preload, sizeof env_preload, "LD_PRELOAD=%s", libabs);
    snprintf(env_dir, sizeof env_dir, "SCITRACE_DIR=%s", absdir);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(env_run, sizeof env_run, "SCITRACE_RUN=%lld.%09ld-%ld", (long long)now.tv_sec,
             now.tv_nsec, (long)getpid());

    static char *args[MAX_ARGS + 8];
    int n = 0;
    args[n++] = cmd[0];
    if (is_launcher(cmd[0])) {
        args[n++] = "-x", args[n++] = env_preload;
        args[n++] = "-x", args[n++] = env_dir;
        args[n++] = "-x", args[n++] = env_run;
    }
    for (int i = 1; i < ncmd; i++)
        args[n++] = cmd[i];
    args[n] = NULL;

    fprintf(stderr, "scitrace: tracing into %s\n", dir);
    run_env env = {libabs, absdir, env_run, !is_launcher(cmd[0])};
    spawn_opts so = {.prog = "scitrace: run", .stop_signal = SIGTERM, .own_group = 1,
                     .grace_s = 5, .setup = set_env, .setup_arg = &env};
    int rc = spawn_run(args, &so);
    if (rc == -1) {
        fprintf(stderr, "scitrace: run: %s: %s\n", args[0], strerror(errno));
        return 1;
    }
    if (rc == -2) {
        fprintf(stderr, "scitrace: run: interrupted; the job was stopped, its rank files are "
                        "incomplete\n");
        return EXIT_INTERRUPTED;
    }
    int files = count_rank_files(absdir);
    if (files == 0) {   /* a run of ranks that left nothing is no trace */
        fprintf(stderr, "scitrace: run: no rank file was written into %s (command exit status "
                "%d): the library was not preloaded, the directory is not writable, or the "
                "command started no MPI rank\n", dir, rc);
        return 1;
    }
    fprintf(stderr, "scitrace: %d rank files in %s (command exit status %d); next: scitrace summary %s\n",
            files, dir, rc, dir);
    return rc;
}
