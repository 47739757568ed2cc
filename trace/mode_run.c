/* mode_run: `scitrace run -- mpirun -np P ./app`, runs a command with
 * libscitrace.so preloaded in the MPI ranks and says where the trace is. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace/modes.h"
#include "util/spawn.h"

#define MAX_ARGS 4096

static const char help[] =
"Usage: scitrace run [-d DIR] [--events] [--lib FILE] -- COMMAND [ARGS...]\n"
"Run COMMAND with libscitrace.so preloaded into the MPI processes it starts,\n"
"so that each rank writes DIR/rank-NNNNN.trace at MPI_Finalize.\n"
"\n"
"When COMMAND is mpirun, mpiexec or orterun (Open MPI), the library and the\n"
"settings are passed to the ranks with -x (mpirun -x LD_PRELOAD=LIB -x\n"
"SCITRACE_DIR=DIR ...), so mpirun itself is not traced; any other COMMAND\n"
"(a singleton ./app, a script that calls mpirun with -x) gets them in its\n"
"environment.\n"
"\n"
"  -d, --dir DIR     trace directory, created if needed (default:\n"
"                    scitrace-<program>-<UTC date and time>, e.g.\n"
"                    scitrace-halo3d-20261123-104501)\n"
"  --events          also write the timestamped event log (SCITRACE_EVENTS=1)\n"
"  --lib FILE        the library (default: libscitrace.so beside this\n"
"                    program, or in ../lib/ of it; or $SCITRACE_LIB)\n"
"  -h, --help        this text\n"
"\n"
"Exit status: COMMAND's (128 + signal if it was killed); 1 when the\n"
"directory cannot be made or the library is not found; 2 usage error.\n"
"Then: scitrace summary DIR; scitrace matrix -o traffic.tsv DIR.\n";

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
    int events, preload;
} run_env;

static void set_env(void *arg)
{
    const run_env *e = arg;
    if (e->preload) {
        setenv("LD_PRELOAD", e->lib, 1);
        if (e->events)
            setenv("SCITRACE_EVENTS", "1", 1);
    }
    setenv("SCITRACE_DIR", e->dir, 1);
}

int scitrace_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"dir", required_argument, NULL, 'd'},
        {"events", no_argument, NULL, 'e'},
        {"lib", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char dir[PATH_MAX] = "", absdir[PATH_MAX], lib[PATH_MAX], libabs[PATH_MAX];
    char env_preload[PATH_MAX + 16], env_dir[PATH_MAX + 16];
    int events = 0, c, have_lib = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+d:h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': snprintf(dir, sizeof dir, "%s", optarg); break;
        case 'e': events = 1; break;
        case 'l': snprintf(lib, sizeof lib, "%s", optarg); have_lib = 1; break;
        case 'h': fputs(help, stdout); return 0;
        default:
            return scitrace_usage_error("run: unknown option or missing argument '%s'",
                                        argv[optind - 1]);
        }
    }
    int ncmd = argc - optind;
    if (ncmd < 1)
        return scitrace_usage_error("run: no command after the options (scitrace run -- mpirun ...)");
    if (ncmd > MAX_ARGS)
        return scitrace_usage_error("run: more than %d command arguments", MAX_ARGS);
    char **cmd = argv + optind;
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
    if (!realpath(dir, absdir) || !realpath(lib, libabs)) {
        fprintf(stderr, "scitrace: run: '%s': %s\n", realpath(dir, absdir) ? lib : dir,
                strerror(errno));
        return 1;
    }
    snprintf(env_preload, sizeof env_preload, "LD_PRELOAD=%s", libabs);
    snprintf(env_dir, sizeof env_dir, "SCITRACE_DIR=%s", absdir);

    static char *args[MAX_ARGS + 8];
    int n = 0;
    args[n++] = cmd[0];
    if (is_launcher(cmd[0])) {
        args[n++] = "-x", args[n++] = env_preload;
        args[n++] = "-x", args[n++] = env_dir;
        if (events)
            args[n++] = "-x", args[n++] = "SCITRACE_EVENTS=1";
    }
    for (int i = 1; i < ncmd; i++)
        args[n++] = cmd[i];
    args[n] = NULL;

    fprintf(stderr, "scitrace: tracing into %s\n", dir);
    run_env env = {libabs, absdir, events, !is_launcher(cmd[0])};
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
        return 1;
    }
    fprintf(stderr, "scitrace: %d rank files in %s (command exit status %d); next: scitrace summary %s\n",
            count_rank_files(absdir), dir, rc, dir);
    return rc;
}
