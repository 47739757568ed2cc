/* mode_goal: `scitrace goal -o FILE DIR`, the trace as a schedule in the
 * GOAL text format of LogGOPSim (docs/formats.md, 'GOAL schedule'), which
 * scisim and LogGOPSim replay; the schedule is trace/tracegoal.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sched/goal.h"
#include "util/atomicfile.h"
#include "util/opt.h"
#include "scitrace/modes.h"
#include "trace/tracegoal.h"

typedef struct goal_opts {
    const char *out, *phase;
    expand_choice choice;
    int partial;
} goal_opts;

static int parse_algorithm(void *dest, const char *arg, char *why, size_t len)
{
    return expand_choice_add(&((goal_opts *)dest)->choice, arg, why, len);
}

static const opt_spec goal_specs[] = {
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = offsetof(goal_opts, out),
     .arg = "FILE", .help = "where to write (temporary name, then renamed; - is\nstandard output)"},
    {.name = "phase", .kind = OPT_STRING, .field = offsetof(goal_opts, phase), .arg = "NAME",
     .help = "only the calls of phase NAME (all: every phase)"},
    {.name = "algorithm", .kind = OPT_CUSTOM, .parse = parse_algorithm, .arg = "ALG",
     .repeat = 1, .bad = "allreduce=foo", .help = EXPAND_ALGORITHM_HELP},
    {.name = "partial", .kind = OPT_FLAG, .field = offsetof(goal_opts, partial),
     .help = "write the schedule of an incomplete trace (calls that\nnever returned are left out)"},
};

static const opt_program goal_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace goal [--phase NAME|all] [--algorithm ALG] [--partial] -o FILE DIR\n"
"Write the trace in DIR as a GOAL schedule (the text format of LogGOPSim;\n"
"docs/formats.md, 'GOAL schedule') for scisim: every rank's calls in program\n"
"order, the time between calls as calc, blocking calls depending on the\n"
"call before, nonblocking ones starting at their call and completing at\n"
"their Wait or Test, collectives as the messages of the algorithm the MPI\n"
"library runs for them (the traced library's choices: MPICH's when the\n"
"trace names MPICH, MVAPICH or Intel MPI, else Open MPI 4.1's; or as\n"
"--algorithm says; the same schedules as scisim --collective), phases as\n"
"comments.  Each collective's algorithm is said on standard error and in\n"
"the file's header comments.\n"
"\n",
    .epilog =
"\n"
"Exit status: 0 written, 1 a rank file is malformed or missing or FILE\n"
"cannot be written, 2 usage error, 3 an incomplete trace (a rank killed,\n"
"crashed or cut short, a call that never returned, a missing rank file)\n"
"without --partial.\n",
    .specs = goal_specs,
    .nspecs = sizeof goal_specs / sizeof goal_specs[0],
    .args_min = 1,
    .args_max = 1,
};

int scitrace_goal(int argc, char **argv)
{
    goal_opts o;
    opt_state st;
    memset(&o, 0, sizeof o);
    int prc = opt_parse(&goal_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    if (!o.out)
        return opt_usage_error(&goal_program, "goal: -o FILE is required");
    const char *out = o.out, *phase = o.phase;
    int first = st.first_arg;
    trace_dir d;
    trace_error err;
    if (trace_dir_load(argv[first], phase, &d, &err) != 0) {
        fprintf(stderr, "scitrace: %s\n", err.msg);
        return 1;
    }
    int whole = scitrace_require_whole(&d, "goal", o.partial);
    if (whole || trace_dir_within(&d, GOAL_MAX_SIZE, &err) != 0) {
        if (!whole)
            fprintf(stderr, "scitrace: goal: %s\n", err.msg);
        trace_dir_free(&d);
        return whole ? whole : 1;
    }
    if (!o.choice.lib)   /* as the traced library chooses */
        o.choice.lib = expand_library_of(&d);
    if (phase && strcmp(phase, "all") == 0)
        phase = NULL;
    int rc = 1;
    struct stat so, sr;
    for (int r = 0; r < d.nranks; r++) {
        if (!d.loaded[r]) {
            fprintf(stderr, "scitrace: goal: %s: rank %d left no rank file: no schedule without "
                    "it\n", d.path, r);
            goto done;
        }
        if (strcmp(out, "-") && stat(out, &so) == 0 && stat(d.ranks[r].path, &sr) == 0 &&
            so.st_dev == sr.st_dev && so.st_ino == sr.st_ino) {
            fprintf(stderr, "scitrace: goal: -o '%s' is the same file as %s, an input\n", out,
                    d.ranks[r].path);
            goto done;
        }
    }
    atomic_file af;
    FILE *fp = stdout;
    if (strcmp(out, "-") != 0) {
        if (atomic_file_open(&af, out) != 0) {
            fprintf(stderr, "scitrace: goal: cannot write '%s': %s\n", out, strerror(errno));
            goto done;
        }
        fp = af.fp;
    }
    char why[600] = "";
    int bad = trace_goal_write(fp, &d, phase, &o.choice, why, sizeof why);
    if (fp == stdout) {
        rc = bad || fflush(stdout) != 0 || ferror(stdout);
    } else if (bad || ferror(fp)) {
        atomic_file_abort(&af);
    } else {
        rc = atomic_file_commit(&af) != 0;
    }
    if (rc && bad == -2)
        fprintf(stderr, "scitrace: goal: %s\n", why);
    else if (rc)
        fprintf(stderr, "scitrace: goal: cannot write '%s': %s\n", out,
                bad ? "out of memory" : strerror(errno ? errno : EIO));
    else
        expand_report(stderr, "scitrace: goal: ", &d, phase, &o.choice);
done:
    trace_dir_free(&d);
    return rc;
}
