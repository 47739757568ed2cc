/* options: calibrate's command line as one table (util/opt.h): the
 * parsing, --help, --version, an option given twice refused, and the bad
 * values a test tries.  The combinations it refuses: options_check.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate/calibrate.h"
#include "util/opt.h"
#include "util/parse.h"

#define F(field) offsetof(options, field)

static const char *const backends[] = {"shm", "mpi", NULL};
static const char *const stats[] = {"min", "median", "mean", NULL};
static const char *const weights[] = {"relative", "sem", NULL};
static const char *const units[] = {"ns", "ps", NULL};

/* A number checked against its range, kept as the text the benchmark gets. */
static int number_text(const char *arg, double min, double max, const char **out, char *why,
                       size_t len)
{
    double v;
    parse_status st = parse_double(arg, min, max, &v);
    if (st)
        return snprintf(why, len, "%s, expected %g..%g", parse_status_text(st), min, max), 1;
    *out = arg;
    return 0;
}
#define NUMBER(fn, field, min, max)                                                           \
    static int fn(void *d, const char *arg, char *why, size_t len)                            \
    {                                                                                          \
        return number_text(arg, min, max, &((options *)d)->field, why, len);                  \
    }
NUMBER(parse_rel, rel_error, 1e-6, 1)
NUMBER(parse_maxt, max_time, 0.001, 86400)
NUMBER(parse_injf, inject_forward, 0, 1e9)
NUMBER(parse_injs, inject_switch, 0, 1e9)

static int parse_np(void *d, const char *arg, char *why, size_t len)
{
    long l;
    parse_status st = parse_long(arg, 2, 1000000, &l);
    if (st)
        return snprintf(why, len, "%s, expected 2..1e6", parse_status_text(st)), 1;
    ((options *)d)->np = arg;
    return 0;
}

static int add_file(const char **list, int *n, const char *arg, char *why, size_t len)
{
    if (*n == MAX_FILES)
        return snprintf(why, len, "more than %d files", MAX_FILES), 1;
    list[(*n)++] = arg;
    return 0;
}
static int parse_data(void *d, const char *arg, char *why, size_t len)
{
    return add_file(((options *)d)->data, &((options *)d)->ndata, arg, why, len);
}
static int parse_validate(void *d, const char *arg, char *why, size_t len)
{
    return add_file(((options *)d)->validate, &((options *)d)->nvalidate, arg, why, len);
}

/* Records that opt fixes lp; a second option that does is a conflict. */
static int fix_lp(options *o, const char *opt, char *why, size_t len)
{
    if (o->lp_opt && strcmp(o->lp_opt, opt) != 0)
        return snprintf(why, len, "%s and %s: both fix lp; give one", o->lp_opt, opt), 1;
    o->lp_opt = opt;
    return 0;
}

static int parse_lp(void *d, const char *arg, char *why, size_t len)
{
    options *o = d;
    parse_status st = parse_double(arg, 0, 1e9, &o->fit.fixed_value[MODEL_P_LP]);
    if (st)
        return snprintf(why, len, "%s, expected ns >= 0", parse_status_text(st)), 1;
    o->lp_given = 1;
    return fix_lp(o, "--lp", why, len);
}

static int parse_cable(void *d, const char *arg, char *why, size_t len)
{
    options *o = d;
    parse_status st = parse_double(arg, 0, 1e6, &o->cable_m);
    if (st)
        return snprintf(why, len, "%s, expected metres >= 0", parse_status_text(st)), 1;
    o->fit.fixed_value[MODEL_P_LP] = fit_lp_from_cable(o->cable_m);
    return fix_lp(o, "--cable-length", why, len);
}

/* --fix lf=60,ls=670: every item K=V, each key once over every --fix. */
static int parse_fix(void *d, const char *arg, char *why, size_t len)
{
    static const struct { const char *key; model_param_id id; } keys[] = {
        {"lp", MODEL_P_LP}, {"lf", MODEL_P_LF}, {"ls", MODEL_P_LS}, {"lb", MODEL_P_LB}};
    options *o = d;
    char copy[256];
    if (strlen(arg) >= sizeof copy)
        return snprintf(why, len, "too long"), 1;
    snprintf(copy, sizeof copy, "%s", arg);
    for (char *t = copy, *next; t; t = next) {
        next = strchr(t, ',');
        if (next)
            *next++ = '\0';
        char *eq = strchr(t, '=');
        size_t k = 0;
        if (!*t)
            return snprintf(why, len, "an empty item; expected K=V pairs like lf=60,ls=670"), 1;
        if (!eq)
            return snprintf(why, len, "expected K=V pairs like lf=60"), 1;
        *eq = '\0';
        while (k < 4 && strcmp(t, keys[k].key) != 0)
            k++;
        if (k == 4)
            return snprintf(why, len, "'%s' is not lp, lf or ls, nor lb", t), 1;
        if (o->fix_seen[k]++)
            return snprintf(why, len, "%s given twice", t), 1;
        double v;
        parse_status st = parse_double(eq + 1, 0, 1e9, &v);
        if (st)
            return snprintf(why, len, "'%s': %s", eq + 1, parse_status_text(st)), 1;
        if (keys[k].id == MODEL_P_LP) {
            o->lp_given = 1;
            if (fix_lp(o, "--fix lp", why, len))
                return 1;
        }
        o->fit.fixed[keys[k].id] = 1;
        o->fit.fixed_value[keys[k].id] = v;
    }
    return 0;
}

static int parse_preset(void *d, const char *arg, char *why, size_t len)
{
    options *o = d;
    if (model_params_preset(arg, &o->fit.preset))
        return snprintf(why, len, "unknown preset (current, enhanced)"), 1;
    snprintf(o->fit.preset_name, sizeof o->fit.preset_name, "%s", arg);
    return 0;
}

static const opt_spec specs[] = {
    {.kind = OPT_HEADING, .help = "Measuring:"},
    {.name = "backend", .kind = OPT_ENUM, .field = F(backend_i), .choices = backends, .arg = "B",
     .help = "shm (scibench, default) | mpi (mpibench via mpirun)"},
    {.name = "ring", .kind = OPT_STRING, .field = F(ring), .arg = "N",
     .help = "a ring of N nodes to measure (default 2)"},
    {.name = "torus", .kind = OPT_STRING, .field = F(torus), .arg = "AxB",
     .help = "a torus to measure instead"},
    {.name = "all-dst", .kind = OPT_FLAG, .field = F(all_dst),
     .help = "measure every destination (so lf and ls become\n"
             "measurable on rings > 2 nodes and tori)"},
    {.name = "sizes", .kind = OPT_STRING, .field = F(sizes), .arg = "LIST",
     .help = "message sizes (default 1..16,32..128:4,256..65536)"},
    {.name = "rel-error", .kind = OPT_CUSTOM, .parse = parse_rel, .arg = "E", .bad = "0",
     .help = "target relative standard error per point (0.001)"},
    {.name = "max-time", .kind = OPT_CUSTOM, .parse = parse_maxt, .arg = "S", .bad = "0",
     .help = "seconds per point at most (default 2); the sizes are\n"
             "measured interleaved and share it"},
    {.name = "quick", .kind = OPT_FLAG, .field = F(quick),
     .help = "sizes 1..4096, --rel-error 0.01, --max-time 0.5"},
    {.name = "full", .kind = OPT_FLAG, .field = F(full),
     .help = "measure, interleaved in one run, the 2-node ring, an\n"
             "8-node ring (--ring 4 for 4), a 4x4 torus and the\n"
             "6-node ring; fit o(m), lf, ls and lb on all but the\n"
             "6-node ring and check the fit on it (held out); lp\n"
             "from the cable.  --max-time is the whole run's\n"
             "(default 20 s).  Sizes: powers of two 1..65536 and\n"
             "their midpoints from 16 B to 4 KiB.  A run that was\n"
             "unstable (the floor before, at the start and after it\n"
             "apart by more than 1.6x, the floors beside the points'\n"
             "batches spanning regimes by their quartiles, over 10%\n"
             "of the points bimodal or spanning regimes themselves,\n"
             "or the benchmark with under 97% of its two cores, an\n"
             "MPI job of over 5 s under 90% of its ranks' here)\n"
             "is measured again, up to 10 runs while the whole stays\n"
             "under 55 s;\n"
             "a steady run that misses the held-out check, once\n"
             "until a launch qualified (after that a miss costs\n"
             "only time: the verdict is a passed check's).\n"
             "--full takes --launches K (default 1) whole launches,\n"
             "each measured, fitted and checked alone: it stops at K\n"
             "qualified ones (steady, check passed) and keeps the one\n"
             "whose o(64) is their median (of two, the lower), its\n"
             "fit and check one launch's; else the best run: one that\n"
             "passed the check, then a steady one, then the fewest\n"
             "unsteady points.  It prints every run's o(64), lf and\n"
             "ls, their range over the launches, warns where two\n"
             "differ beyond their errors, and widens the errors\n"
             "written to cover their spread.\n"
             "With --backend mpi: 2 ranks (on one host, or one per\n"
             "host with --hostfile) host every network's nodes"},
    {.name = "inject-forward", .kind = OPT_CUSTOM, .parse = parse_injf, .arg = "NS", .bad = "-1",
     .help = "passed to the benchmark (a known delay per relay)"},
    {.name = "inject-switch", .kind = OPT_CUSTOM, .parse = parse_injs, .arg = "NS", .bad = "-1",
     .help = "passed to the benchmark (a known delay per turn)"},
    {.name = "np", .kind = OPT_CUSTOM, .parse = parse_np, .arg = "N", .bad = "1",
     .help = "mpi: ranks (default: the topology's nodes)"},
    {.name = "hostfile", .kind = OPT_PATH, .field = F(hostfile), .arg = "F",
     .help = "mpi: mpirun --hostfile F"},
    {.name = "mpirun", .kind = OPT_STRING, .field = F(mpirun), .arg = "\"CMD\"",
     .help = "mpi: the launcher, split into words as a shell does\n"
             "(quotes and $VAR; no command substitution), used\n"
             "instead of mpirun: \"srun\", \"mpirun --map-by node\" or\n"
             "a prefix such as \"scitestbed run --np 2 --\"; -np,\n"
             "--hostfile and --allow-run-as-root are added only when\n"
             "a word of it is mpirun"},
    {.name = "bench", .kind = OPT_PATH, .field = F(bench_prog), .arg = "PATH",
     .help = "the benchmark binary (default: next to calibrate)"},
    {.name = "bench-out", .kind = OPT_PATH, .field = F(out_bench), .arg = "FILE",
     .help = "where to keep the raw data (default: see Files)"},
    {.name = "launches", .kind = OPT_LONG, .field = F(launches), .min = 1, .max = 64,
     .range = "1..64", .def = "1", .arg = "K",
     .help = "launch the benchmark K times (with --data: the K\n"
             "files are K launches of one network; --full: at most\n"
             "10, and see --full); fit them together, fit each\n"
             "launch alone, and report each\n"
             "launch's medians and the interval of the median across\n"
             "launches (results differ more between launches than\n"
             "within one): the parameters' uncertainty, written as\n"
             "<q>_launch_* keys, and a table STEM-launches.tsv"},
    {.kind = OPT_HEADING, .help = "Fitting existing data instead:"},
    {.name = "data", .kind = OPT_CUSTOM, .parse = parse_data, .repeat = 1, .arg = "FILE",
     .help = "a bench TSV (repeat, or list files after the options);\n"
             "points of the same configuration from several files\n"
             "are merged by their weighted median (SKaMPI)"},
    {.name = "validate", .kind = OPT_CUSTOM, .parse = parse_validate, .repeat = 1, .arg = "FILE",
     .help = "held-out data: predict every point of FILE with the\n"
             "fitted parameters, table predicted vs measured, and\n"
             "check the largest error (repeatable)"},
    {.name = "validation-out", .kind = OPT_PATH, .field = F(validation_out), .arg = "F",
     .help = "the held-out table as TSV for plots/validation.gp\n"
             "(needs --validate or --full)"},
    {.name = "max-error", .kind = OPT_DOUBLE, .field = F(max_error), .min = 0.01, .max = 1000,
     .range = "0.01..1000", .def = DEFAULT_MAX_ERROR_PCT, .arg = "PCT",
     .help = "the held-out check's bound on the largest error, in %\n"
             "(default 5; with --quick, a run of about a second that\n"
             "a change of the machine's speed does not average out,\n"
             "10): a fit that misses it writes no params file (exit 3)"},
    {.kind = OPT_HEADING, .help = "Model:"},
    {.name = "stat", .kind = OPT_ENUM, .field = F(stat), .choices = stats, .def = "median",
     .arg = "S", .help = "median (the steadiest here) | min (the thesis's) | mean"},
    {.name = "robust", .kind = OPT_FLAG, .field = F(fit.robust),
     .help = "gsl_multifit_robust (bisquare) instead of weighted LS"},
    {.name = "weights", .kind = OPT_ENUM, .field = F(weights), .choices = weights,
     .def = "relative", .arg = "W",
     .help = "relative (every point's error the same fraction of\n"
             "its value, estimated from the residuals) | sem (each\n"
             "point's standard error from its batches)"},
    {.name = "lp", .kind = OPT_CUSTOM, .parse = parse_lp, .arg = "NS", .bad = "-1",
     .help = "fix lp (propagation per link)"},
    {.name = "cable-length", .kind = OPT_CUSTOM, .parse = parse_cable, .arg = "M", .bad = "nan",
     .help = "fix lp from the cable: M metres at c/2 (default 1 m =\n6.67 ns)"},
    {.name = "fix", .kind = OPT_CUSTOM, .parse = parse_fix, .repeat = 1, .arg = "K=V[,K=V]",
     .bad = "lq=3", .help = "fix lp, lf, ls or lb, e.g. --fix lf=60,ls=670,lb=0"},
    {.name = "preset", .kind = OPT_CUSTOM, .parse = parse_preset, .arg = "P", .bad = "future",
     .help = "where undetermined parameters come from (current)"},
    {.name = "segments", .kind = OPT_LONG, .field = F(segments), .min = 1, .max = MODEL_MAX_OSEG,
     .range = "1..16", .def = "16", .arg = "N",
     .help = "at most N linear pieces of o(m) (how many, BIC decides)"},
    {.kind = OPT_HEADING, .help = "LogP (docs/model.md, 'LogP parameters'; a file of scibench or\n"
                                  "mpibench --pattern logp):"},
    {.name = "logp", .kind = OPT_PATH, .field = F(logp), .arg = "FILE",
     .help = "fit piecewise-linear os(m), or(m), g(m) and take L into\n"
             "the params file; check RTT(m)/2 = os(m) + L + or(m)\n"
             "size by size (with --data, also PP(m)/2; without it\n"
             "nothing is measured: o, lp, lf, ls from --preset).  A\n"
             "negative L or piece is held at 0 and named with why"},
    {.name = "loggopsim", .kind = OPT_PATH, .field = F(loggopsim), .arg = "FILE",
     .help = "also write L, o, g, G, O as LogGOPSim's options"},
    {.name = "loggopsim-unit", .kind = OPT_ENUM, .field = F(loggopsim_unit_i), .choices = units,
     .arg = "U", .help = "ns (default) | ps: the unit of those integers; ps keeps\n"
                         "a per-byte G or O under 0.5 ns/B"},
    {.kind = OPT_HEADING, .help = "Collectives (docs/replay.md, 'Collectives'):"},
    {.name = "collectives", .kind = OPT_PATH, .field = F(collectives), .arg = "FILE",
     .help = "a measured collectives file (mpibench --op) against the\n"
             "LogGP replay of its schedule on --logp FILE's parameters,\n"
             "size by size and per P; with --max-error PCT, exit 3\n"
             "when a size differs by more (else print only)"},
    {.name = "algorithm", .kind = OPT_STRING, .field = F(algorithm), .arg = "ALG",
     .help = "with --collectives: the algorithm predicted (default:\n"
             "the file's, else scisim --collective-list's first)"},
    {.kind = OPT_HEADING, .help = "Output:"},
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = F(out_params), .arg = "FILE",
     .help = "the params file ('-': standard output, and the report\n"
             "goes to standard error; default: see Files)"},
    {.name = "quiet", .short_name = 'q', .kind = OPT_FLAG, .field = F(quiet),
     .help = "a summary of a few lines: no benchmark progress, no\n"
             "residual or held-out table"},
};

static const opt_program program = {
    .name = "calibrate",
    .synopsis =
        "Usage: calibrate [OPTIONS] [--data FILE...]\n"
        "Measure a small system, fit the latency parameters o(m), lp, lf, ls, lb of the\n"
        "SCI torus model by weighted least squares (GSL), and write a params file\n"
        "that scimodel reads (docs/formats.md, 'Params file').  With no options: runs\n"
        "scibench ping-pong on a 2-node shared-memory ring over sizes 1..65536 (and\n"
        "every 4 B from 32 to 128 B), keeps the data, writes the params file and\n"
        "prints the scimodel command to use it (see Files).\n",
    .epilog =
        "\nFiles: calibrate writes only where its options say, and creates no\n"
        "directory: an output in a directory that does not exist is refused\n"
        "before anything is measured.  The params file is -o; without -o it is\n"
        "FILE.params beside the first --data (or --logp) FILE.tsv, or, when\n"
        "measuring, <host>-<backend>.params (--full: <host>-<backend>-full.params)\n"
        "in the current directory.  The benchmark's data goes to --bench-out, or\n"
        "beside the params file, named after it: P.params keeps P-ring2.tsv\n"
        "(--full: P-ring2.tsv, P-ring8.tsv, P-torus4x4.tsv, P-ring6.tsv and the\n"
        "held-out table P-validation.tsv).  No file is both read and written: an\n"
        "output that names an input (or another output) is refused.\n"
        "\n"
        "Stopping calibrate (Ctrl-C, SIGTERM, even SIGKILL) stops the benchmark it\n"
        "runs; the benchmark keeps its finished points as scibench --help says.\n"
        "\n"
        "Exit status: 0 success, 1 a measurement or file failed or the data cannot be\n"
        "fitted, 2 usage error, 3 the held-out check failed (--full, --validate): the\n"
        "last lines name the check, the worst sizes and their errors; no params file\n"
        "is written (a previous one is left as it was), the data and the held-out\n"
        "table are kept.  4 (--full): the check missed and every run was unstable, or\n"
        "the steady runs that missed disagreed with each other beyond their errors,\n"
        "so the miss may be the machine's: measure again when it is quieter; no params\n"
        "file either.  Without held-out data (the default 2-node ring) nothing is\n"
        "checked, and calibrate says so.  130: stopped (Ctrl-C, SIGTERM, SIGHUP);\n"
        "the data measured so far is kept, nothing fitted.\n"
        "\n"
        "Examples:\n"
        "  calibrate\n"
        "  calibrate --ring 8 --all-dst --sizes 64,1024 -o ring8.params\n"
        "  calibrate --backend mpi --np 2 --hostfile hosts\n"
        "  calibrate --full -o full.params\n"
        "  calibrate --full --backend mpi --hostfile hosts \\\n"
        "            --mpirun \"mpirun --timeout 600 --map-by node\"\n"
        "  calibrate --data ring2.tsv ring8.tsv torus4x4.tsv --validate ring6.tsv\n"
        "  calibrate --data ring2.tsv --logp logp.tsv --loggopsim logp.loggopsim\n"
        "  calibrate --collectives bcast.tsv --logp logp.tsv --max-error 15\n",
    .specs = specs,
    .nspecs = sizeof specs / sizeof specs[0],
    .args_max = MAX_FILES,
};

/* Options that only a measurement uses: with --data they would do nothing
 * (--backend too: the data files say which backend measured them). */
static const char *const measuring[] = {
    "backend", "ring", "torus", "all-dst", "sizes", "rel-error", "max-time", "quick",
    "inject-forward", "inject-switch", "np", "hostfile", "mpirun", "bench", "bench-out", "full",
};

static void record_command(options *o, int argc, char **argv)
{
    size_t len = 0;
    for (int i = 0; i < argc && len + 2 < sizeof o->command; i++)
        len += (size_t)snprintf(o->command + len, sizeof o->command - len, "%s%s",
                                i ? " " : "", i ? argv[i] : "calibrate");
}

int options_parse(int argc, char **argv, options *o)
{
    opt_state st;
    char why[256];
    memset(o, 0, sizeof *o);
    o->cable_m = FIT_DEFAULT_CABLE_M;
    o->report = stdout;
    fit_options_default(&o->fit);
    o->fit.fixed[MODEL_P_LB] = 0;   /* measured where the data allows */
    record_command(o, argc, argv);
    gethostname(o->host, sizeof o->host - 1);
    if (!o->host[0])
        snprintf(o->host, sizeof o->host, "localhost");
    int rc = opt_parse(&program, argc, argv, o, &st);
    if (rc)
        return rc;   /* (OPT_DONE: --help or --version printed) */
    for (int i = 0; i < st.nargs; i++)   /* files after the options: --data */
        if (parse_data(o, argv[st.first_arg + i], why, sizeof why))
            return opt_usage_error(&program, "'%s': %s", argv[st.first_arg + i], why);
    o->backend = backends[o->backend_i];
    o->max_error_given = opt_given(&st, "max-error");
    if (o->full && !opt_given(&st, "launches"))
        o->launches = FULL_DEFAULT_LAUNCHES;
    if (o->quick && !opt_given(&st, "max-error"))
        o->max_error = QUICK_MAX_ERROR_PCT;
    o->max_error /= 100;
    o->fit.max_segments = (int)o->segments;
    o->loggopsim_unit = opt_given(&st, "loggopsim-unit") ? units[o->loggopsim_unit_i] : NULL;
    for (size_t i = 0; !o->measure_opt[0] && i < sizeof measuring / sizeof *measuring; i++)
        if (opt_given(&st, measuring[i]))
            snprintf(o->measure_opt, sizeof o->measure_opt, "--%s", measuring[i]);
    if (o->out_params && opt_is_stdio(o->out_params))
        o->report = stderr;   /* standard output holds the params file */
    return options_check(o);
}
