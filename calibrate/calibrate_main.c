/* calibrate: measure (scibench or mpibench), fit o, lp, lf, ls with GSL and
 * write a params file scimodel reads (SPEC.md §4, issue 4). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "bench/benchdata.h"
#include "util/signals.h"
#include "calibrate/fit.h"
#include "calibrate/collectives.h"
#include "calibrate/logp_fit.h"
#include "calibrate/full.h"
#include "model/params.h"
#include "util/atomicfile.h"
#include "util/cli.h"
#include "util/parse.h"
#include "util/spawn.h"
#include "util/fs.h"
#include "topo/topo.h"

#include "util/exit.h"
#define MAX_FILES 64
#define MAX_ARGS 96
/* default measurement: the powers of two up to 64 KiB and every 4 B from
 * 32 to 128 B, where a message spills from one cache line into three:
 * shared-memory transports step there (a header's line, the copy routines'
 * strategy), and o(64 B), the model's reference (thesis Table 1), then
 * rests on the 15 sizes of its own step instead of sharing a line with the
 * steps on either side (every 8 B: 8 sizes, a standard error of 0.35-0.64%
 * against 0.24-0.38%, five runs of each alternating; README, "Calibrating") */
#define DEFAULT_SIZES "1..16,32..128:4,256..65536"
/* batches per point at most: with 10^4 the medians of two interleaved
 * copies of the 2-node ring in one run differed by 0.2-0.5% RMS over the
 * sizes; the run stays time-bound (DEFAULT_MAX_TIME) */
#define DEFAULT_MAX_SAMPLES "10000"
#define QUICK_SIZES "1..4096"
#define QUICK_REL_ERROR "0.05"
#define QUICK_MAX_TIME "0.5"
#define DEFAULT_MAX_TIME "2"
/* --full: one interleaved run of four networks; --max-time is the whole
 * run's (every point shares it), so 20 s keeps --full under a minute */
#define FULL_MAX_TIME "20"
/* --full's sizes: the powers of two and their midpoints from 16 B to 4 KiB,
 * where the curves step (a second cache line at 32 B, the inbox's copies
 * from a few hundred bytes on) and o(m)'s and the relays' segments need
 * sizes on both sides of every step (README, "Every parameter measured") */
#define FULL_SIZES "1,2,4,8,16,24,32,48,64,96,128,192,256,384,512,768,1024,1536,2048,3072," \
                   "4096,8192,16384,32768,65536"
/* --full --backend mpi: the midpoints above 4 KiB too.  Open MPI's curve
 * bends at 32 KiB and a segment needs three sizes, so with powers of two
 * only there the last segment spanned 4-64 KiB and 64 KiB held out was
 * 12-13% off.  Not for shm: its held-out worst was under 5% in 5 of 10
 * runs with them against 7 of 9 without (alternating), 2.2 s against
 * 1.7 s (README, "The same with MPI") */
#define FULL_SIZES_MPI "1,2,4,8,16,24,32,48,64,96,128,192,256,384,512,768,1024,1536,2048," \
                       "3072,4096,6144,8192,12288,16384,24576,32768,49152,65536"
/* tighter than the benchmarks' 1%: the fit's o(64) error follows the points' */
#define DEFAULT_REL_ERROR "0.001"
/* sem of a median is about sqrt(pi/2) = 1.2533 times that of a mean
 * (normal samples) */
#define MEDIAN_SEM_FACTOR 1.2533

typedef enum { STAT_MIN, STAT_MEDIAN, STAT_MEAN } stat_kind;
typedef enum { WEIGHT_RELATIVE, WEIGHT_SEM } weight_kind;
/* --weights relative: each point's nominal error, a fraction of its value
 * small enough that chi^2/dof > 1 and the fit's own scatter sets the
 * standard errors (fit.c scales the covariance by chi^2/dof when > 1) */
#define RELATIVE_SIGMA 1e-4

typedef struct options {
    const char *backend;           /* shm | mpi */
    const char *ring, *torus, *sizes, *rel_error, *max_time;
    const char *inject_forward, *inject_switch;
    int all_dst, quick, quiet;
    const char *np, *hostfile, *mpirun, *bench_prog;
    const char *data[MAX_FILES];
    int ndata;
    const char *validate[MAX_FILES];
    int nvalidate;
    const char *out_params, *out_bench;
    stat_kind stat;
    weight_kind weights;
    int full;                      /* --full: measure, fit, validate (full.h) */
    full_plan plan;
    const char *validation_out;    /* held-out table as TSV (for the plot) */
    fit_options fit;
    double cable_m;
    int lp_given;
    const char *lp_opt;            /* the option that fixed lp, for conflicts */
    const char *measure_opt;       /* the first option that only measuring uses */
    char command[2048];
    const char *logp, *loggopsim;   /* --logp FILE, --loggopsim FILE (issue 13) */
    const char *loggopsim_unit;     /* --loggopsim-unit: NULL (ns), "ns" or "ps" */
} options;

static const char usage_text[] =
"Usage: calibrate [OPTIONS] [--data FILE...]\n"
"Measure a small system, fit the latency parameters o(m), lp, lf, ls of the\n"
"SCI torus model by weighted least squares (GSL), and write a params file\n"
"that scimodel reads (SPEC.md §4).\n"
"\n"
"With no options: runs scibench ping-pong on a 2-node shared-memory ring over\n"
"sizes 1..65536 (and every 4 B from 32 to 128 B), keeps the data in data/bench/<host>-shm-ring2.tsv, writes\n"
"data/params/<host>-shm.params and prints the scimodel command to use it.\n"
"\n"
"Measuring:\n"
"  --backend B         shm (scibench, default) | mpi (mpibench via mpirun)\n"
"  --ring N | --torus AxB   topology to measure (default ring 2)\n"
"  --all-dst           measure every destination (so lf and ls become\n"
"                      measurable on rings > 2 nodes and tori)\n"
"  --sizes LIST        message sizes (default 1..16,32..128:4,256..65536)\n"
"  --rel-error E       target relative standard error per point (0.001)\n"
"  --max-time S        seconds per point at most (default 2); the sizes are\n"
"                      measured interleaved and share it\n"
"  --quick             sizes 1..4096, --rel-error 0.05, --max-time 0.5\n"
"  --full              measure, interleaved in one run, the 2-node ring, an\n"
"                      8-node ring (--ring 4 for 4), a 4x4 torus and the\n"
"                      6-node ring; fit o(m), lf, ls and lb on all but the\n"
"                      6-node ring and validate on it (table of predicted vs\n"
"                      measured, median and max error); lp fixed from the\n"
"                      cable.  --max-time is the whole run's (default 20 s).\n"
"                      Sizes: powers of two 1..65536 and their midpoints\n"
"                      from 16 B to 4 KiB (the curves' steps).\n"
"                      Files: data/bench/<host>-<backend>-full-*.tsv and\n"
"                      data/params/<host>-<backend>-full.params.  With\n"
"                      --backend mpi: 2 ranks (on one host, or one per host\n"
"                      with --hostfile) host every network's nodes\n"
"  --validation-out F  write the held-out table as TSV (--full: data/bench/\n"
"                      <host>-<backend>-full-validation.tsv) for the plot\n"
"  --inject-forward NS, --inject-switch NS   passed to the benchmark\n"
"  --np N              mpi: ranks (default: the topology's nodes)\n"
"  --hostfile F        mpi: mpirun --hostfile F\n"
"  --mpirun \"CMD\"      mpi: launcher, e.g. \"srun\" or \"mpirun --map-by node\"\n"
"  --bench PATH        the benchmark binary (default: next to calibrate)\n"
"  --bench-out FILE    where to keep the raw data\n"
"\n"
"Fitting existing data instead:\n"
"  --data FILE         a bench TSV (repeat, or list files after the options);\n"
"                      points of the same configuration from several files\n"
"                      are merged by their weighted median (SKaMPI)\n"
"  --validate FILE     predict every point of FILE with the fitted parameters\n"
"                      and print predicted vs measured (repeatable; repeated\n"
"                      configurations are merged as for --data)\n"
"\n"
"Model:\n"
"  --stat S            median (default: the steadiest here, README) | min (the\n"
"                      thesis's) | mean\n"
"  --robust            gsl_multifit_robust (bisquare) instead of weighted LS\n"
"  --weights W         relative (default: every point's error the same\n"
"                      fraction of its value, estimated from the residuals)\n"
"                      | sem (each point's standard error from its batches)\n"
"  --lp NS             fix lp (propagation per link)\n"
"  --cable-length M    fix lp from the cable: M metres at c/2 (default 1 m =\n"
"                      6.67 ns)\n"
"  --fix K=V[,K=V]     fix lp, lf, ls or lb, e.g. --fix lf=60,ls=670,lb=0\n"
"  --preset P          where undetermined parameters come from (current)\n"
"  --segments N        at most N linear pieces of o(m) (1..16, default 16;\n"
"                      how many, BIC decides)\n"
"\n"
"LogP (SPEC.md §11; a file of scibench/mpibench --pattern logp):\n"
"  --logp FILE         fit piecewise-linear os(m), or(m), g(m) and take L into\n"
"                      the params file (os_*, or_*, g_*, L_ns keys); check the\n"
"                      run's own RTT(m)/2 = os(m) + L + or(m) size by size (and\n"
"                      with the stores' drain D(m) where the file has\n"
"                      --os-fence's columns); with --data, also PP(m)/2 against\n"
"                      the ping-pong files (without --data nothing is measured:\n"
"                      o, lp, lf, ls come from --preset, marked so)\n"
"  --loggopsim FILE    also write L, o, g, G, O as LogGOPSim's options\n"
"  --loggopsim-unit U  ns (default) | ps: the unit of those integers (and of\n"
"                      LogGOPSim's results); ps keeps a per-byte G or O under\n"
"                      0.5 ns/B, which in ns rounds to 0\n"
"\n"
"  -o FILE             params file (default data/params/<host>-<backend>.params)\n"
"  -q, --quiet         no benchmark progress\n"
"  -h, --help          this text\n"
"\n"
"Stopping calibrate (Ctrl-C, SIGTERM, even SIGKILL) stops the benchmark it\n"
"runs; the benchmark keeps its finished points as scibench --help says.\n"
"\n"
"Exit status: 0 success, 1 a measurement or file failed or the data cannot be\n"
"fitted, 2 usage error.\n"
"\n"
"Examples:\n"
"  calibrate\n"
"  calibrate --ring 8 --all-dst --sizes 64,1024 -o ring8.params\n"
"  calibrate --backend mpi --np 2 --hostfile hosts\n"
"  calibrate --full\n"
"  calibrate --full --backend mpi --hostfile hosts \\\n"
"            --mpirun \"mpirun --timeout 600 --map-by node\"\n"
"  calibrate --data ring2.tsv ring8.tsv torus3x3.tsv --validate ring6.tsv\n"
"  calibrate --data ring2.tsv --logp logp.tsv --loggopsim logp.loggopsim\n";

/* One line "calibrate: ..." on stderr; returns the exit status. */
#define usage_error(...) cli_message(EXIT_USAGE, "calibrate", " (try --help)", __VA_ARGS__)
#define fail(...) cli_message(EXIT_FAILURE, "calibrate", "", __VA_ARGS__)

/* ---- options ---------------------------------------------------------- */

enum { O_BACKEND = 256, O_RING, O_TORUS, O_ALLDST, O_SIZES, O_REL, O_MAXT, O_QUICK, O_INJF,
       O_INJS, O_NP, O_HOSTFILE, O_MPIRUN, O_BENCH, O_BENCHOUT, O_DATA, O_VALIDATE, O_STAT,
       O_ROBUST, O_LP, O_CABLE, O_FIX, O_PRESET, O_SEGMENTS, O_LOGP, O_LOGGOPSIM, O_FULL,
       O_VALOUT, O_WEIGHTS, O_LGSUNIT };

static const struct option long_options[] = {
    {"backend", 1, NULL, O_BACKEND}, {"ring", 1, NULL, O_RING}, {"torus", 1, NULL, O_TORUS},
    {"all-dst", 0, NULL, O_ALLDST}, {"sizes", 1, NULL, O_SIZES}, {"rel-error", 1, NULL, O_REL},
    {"max-time", 1, NULL, O_MAXT}, {"quick", 0, NULL, O_QUICK},
    {"inject-forward", 1, NULL, O_INJF}, {"inject-switch", 1, NULL, O_INJS},
    {"np", 1, NULL, O_NP}, {"hostfile", 1, NULL, O_HOSTFILE}, {"mpirun", 1, NULL, O_MPIRUN},
    {"bench", 1, NULL, O_BENCH}, {"bench-out", 1, NULL, O_BENCHOUT},
    {"data", 1, NULL, O_DATA}, {"validate", 1, NULL, O_VALIDATE}, {"stat", 1, NULL, O_STAT},
    {"robust", 0, NULL, O_ROBUST}, {"lp", 1, NULL, O_LP}, {"cable-length", 1, NULL, O_CABLE},
    {"fix", 1, NULL, O_FIX}, {"preset", 1, NULL, O_PRESET}, {"segments", 1, NULL, O_SEGMENTS},
    {"logp", 1, NULL, O_LOGP}, {"loggopsim", 1, NULL, O_LOGGOPSIM},
    {"loggopsim-unit", 1, NULL, O_LGSUNIT},
    {"full", 0, NULL, O_FULL}, {"validation-out", 1, NULL, O_VALOUT},
    {"weights", 1, NULL, O_WEIGHTS},
    {"quiet", 0, NULL, 'q'}, {"help", 0, NULL, 'h'}, {NULL, 0, NULL, 0},
};

/* Records that opt fixes lp; a second option that does is a conflict. */
static int fix_lp(options *o, const char *opt)
{
    if (o->lp_opt && strcmp(o->lp_opt, opt) != 0)
        return usage_error("%s and %s: both fix lp; give one", o->lp_opt, opt);
    o->lp_opt = opt;
    o->lp_given = 1;
    return 0;
}

/* --fix lf=60,ls=670: every item K=V, each key once. */
static int parse_fix(options *o, const char *arg)
{
    static const struct { const char *key; model_param_id id; } keys[] = {
        {"lp", MODEL_P_LP}, {"lf", MODEL_P_LF}, {"ls", MODEL_P_LS}, {"lb", MODEL_P_LB}};
    const size_t nkeys = sizeof keys / sizeof keys[0];
    char copy[256];
    int seen[4] = {0, 0, 0, 0};
    if (strlen(arg) >= sizeof copy)
        return usage_error("--fix '%.40s...': too long", arg);
    snprintf(copy, sizeof copy, "%s", arg);
    for (char *t = copy, *next; t; t = next) {
        next = strchr(t, ',');
        if (next)
            *next++ = '\0';
        char *eq = strchr(t, '=');
        size_t k = 0;
        if (!*t)
            return usage_error("--fix '%s': an empty item; expected K=V pairs like lf=60,ls=670",
                               arg);
        if (!eq)
            return usage_error("--fix '%s': expected K=V pairs like lf=60", arg);
        *eq = '\0';
        while (k < nkeys && strcmp(t, keys[k].key) != 0)
            k++;
        if (k == nkeys)
            return usage_error("--fix '%s': '%s' is not lp, lf or ls, nor lb", arg, t);
        if (seen[k]++)
            return usage_error("--fix '%s': %s given twice", arg, t);
        double v;
        parse_status st = parse_double(eq + 1, 0, 1e9, &v);
        if (st)
            return usage_error("--fix '%s': '%s': %s", arg, eq + 1, parse_status_text(st));
        if (keys[k].id == MODEL_P_LP && fix_lp(o, "--fix lp"))
            return EXIT_USAGE;
        o->fit.fixed[keys[k].id] = 1;
        o->fit.fixed_value[keys[k].id] = v;
    }
    return 0;
}

static int check_number(const char *opt, const char *arg, double min, double max)
{
    double v;
    parse_status st = parse_double(arg, min, max, &v);
    return st ? usage_error("%s '%s': %s", opt, arg, parse_status_text(st)) : 0;
}

/* Options that only a measurement uses: with --data they would do nothing. */
static const struct { int code; const char *name; } measuring_options[] = {
    {O_RING, "--ring"}, {O_TORUS, "--torus"}, {O_ALLDST, "--all-dst"}, {O_SIZES, "--sizes"},
    {O_REL, "--rel-error"}, {O_MAXT, "--max-time"}, {O_QUICK, "--quick"},
    {O_INJF, "--inject-forward"}, {O_INJS, "--inject-switch"}, {O_NP, "--np"},
    {O_HOSTFILE, "--hostfile"}, {O_MPIRUN, "--mpirun"}, {O_BENCH, "--bench"},
    {O_BENCHOUT, "--bench-out"}, {O_FULL, "--full"},
};

static int parse_one(options *o, int c, const char *arg)
{
    double v;
    long l;
    parse_status st;
    for (size_t i = 0; !o->measure_opt && i < sizeof measuring_options / sizeof *measuring_options;
         i++)
        if (measuring_options[i].code == c)
            o->measure_opt = measuring_options[i].name;
    switch (c) {
    case O_BACKEND:
        if (strcmp(arg, "shm") && strcmp(arg, "mpi"))
            return usage_error("--backend '%s': expected shm or mpi", arg);
        o->backend = arg;
        return 0;
    case O_RING: o->ring = arg; return 0;
    case O_TORUS: o->torus = arg; return 0;
    case O_ALLDST: o->all_dst = 1; return 0;
    case O_SIZES: o->sizes = arg; return 0;
    case O_REL: o->rel_error = arg; return check_number("--rel-error", arg, 1e-6, 1);
    case O_MAXT: o->max_time = arg; return check_number("--max-time", arg, 0.001, 86400);
    case O_QUICK: o->quick = 1; return 0;
    case O_INJF: o->inject_forward = arg; return check_number("--inject-forward", arg, 0, 1e9);
    case O_INJS: o->inject_switch = arg; return check_number("--inject-switch", arg, 0, 1e9);
    case O_NP:
        if ((st = parse_long(arg, 2, 1000000, &l)))
            return usage_error("--np '%s': %s, expected 2..1e6", arg, parse_status_text(st));
        o->np = arg;
        return 0;
    case O_HOSTFILE: o->hostfile = arg; return 0;
    case O_MPIRUN: o->mpirun = arg; return 0;
    case O_BENCH: o->bench_prog = arg; return 0;
    case O_BENCHOUT: o->out_bench = arg; return 0;
    case O_DATA:
    case O_VALIDATE: {
        const char **list = c == O_DATA ? o->data : o->validate;
        int *n = c == O_DATA ? &o->ndata : &o->nvalidate;
        if (*n == MAX_FILES)
            return usage_error("%s '%s': more than %d files", c == O_DATA ? "--data" : "--validate",
                               arg, MAX_FILES);
        list[(*n)++] = arg;
        return 0;
    }
    case O_STAT:
        if (!strcmp(arg, "min")) o->stat = STAT_MIN;
        else if (!strcmp(arg, "median")) o->stat = STAT_MEDIAN;
        else if (!strcmp(arg, "mean")) o->stat = STAT_MEAN;
        else return usage_error("--stat '%s': expected min, median or mean", arg);
        return 0;
    case O_ROBUST: o->fit.robust = 1; return 0;
    case O_LP:
        if ((st = parse_double(arg, 0, 1e9, &v)))
            return usage_error("--lp '%s': %s, expected ns >= 0", arg, parse_status_text(st));
        o->fit.fixed_value[MODEL_P_LP] = v;
        return fix_lp(o, "--lp");
    case O_CABLE:
        if ((st = parse_double(arg, 0, 1e6, &o->cable_m)))
            return usage_error("--cable-length '%s': %s, expected metres >= 0", arg,
                               parse_status_text(st));
        o->fit.fixed_value[MODEL_P_LP] = fit_lp_from_cable(o->cable_m);
        if (o->lp_opt && strcmp(o->lp_opt, "--cable-length") != 0)
            return usage_error("%s and --cable-length: both fix lp; give one", o->lp_opt);
        o->lp_opt = "--cable-length";
        return 0;
    case O_FIX: return parse_fix(o, arg);
    case O_PRESET:
        if (model_params_preset(arg, &o->fit.preset))
            return usage_error("--preset '%s': unknown preset (current, enhanced)", arg);
        snprintf(o->fit.preset_name, sizeof o->fit.preset_name, "%s", arg);
        return 0;
    case O_FULL: o->full = 1; return 0;
    case O_VALOUT: o->validation_out = arg; return 0;
    case O_WEIGHTS:
        if (!strcmp(arg, "relative")) o->weights = WEIGHT_RELATIVE;
        else if (!strcmp(arg, "sem")) o->weights = WEIGHT_SEM;
        else return usage_error("--weights '%s': expected relative or sem", arg);
        return 0;
    case O_SEGMENTS:
        if ((st = parse_long(arg, 1, MODEL_MAX_OSEG, &l)))
            return usage_error("--segments '%s': %s, expected 1..%d", arg, parse_status_text(st),
                               MODEL_MAX_OSEG);
        o->fit.max_segments = (int)l;
        return 0;
    case O_LOGP: o->logp = arg; return 0;
    case O_LOGGOPSIM: o->loggopsim = arg; return 0;
    case O_LGSUNIT:
        if (strcmp(arg, "ns") && strcmp(arg, "ps"))
            return usage_error("--loggopsim-unit '%s': expected ns or ps", arg);
        o->loggopsim_unit = arg;
        return 0;
    case 'q': o->quiet = 1; return 0;
    case 'o': o->out_params = arg; return 0;
    case 'h': fputs(usage_text, stdout); exit(EXIT_SUCCESS);
    default: return EXIT_USAGE;
    }
}

static void record_command(options *o, int argc, char **argv)
{
    size_t len = 0;
    for (int i = 0; i < argc && len + 2 < sizeof o->command; i++)
        len += (size_t)snprintf(o->command + len, sizeof o->command - len, "%s%s",
                                i ? " " : "", i ? argv[i] : "calibrate");
}

static int parse_options(int argc, char **argv, options *o)
{
    int c, rc;
    memset(o, 0, sizeof *o);
    o->backend = "shm";
    o->cable_m = FIT_DEFAULT_CABLE_M;
    /* the batches' median: the minimum is one batch's extreme; on this VM
     * the held-out ring's minima alone scattered 3-7% from any model, and
     * the 2-node ring's minima 2-8% between sizes on one step, where the
     * medians stayed within 1-2% (README, "Calibrating") */
    o->stat = STAT_MEDIAN;
    fit_options_default(&o->fit);
    o->fit.fixed[MODEL_P_LB] = 0;   /* SPEC.md §6: measured where the data allows */
    record_command(o, argc, argv);
    while ((c = getopt_long(argc, argv, "o:qh", long_options, NULL)) != -1)
        if ((rc = parse_one(o, c, optarg)))
            return rc;
    for (int i = optind; i < argc; i++)   /* files after --data */
        if ((rc = parse_one(o, O_DATA, argv[i])))
            return rc;
    if (o->ring && o->torus)
        return usage_error("--ring '%s': give only one of --ring and --torus", o->ring);
    if (o->ndata && o->measure_opt)
        return usage_error("--data and %s: --data fits existing files; %s is for measuring",
                           o->measure_opt, o->measure_opt);
    if (o->loggopsim && !o->logp)
        return usage_error("--loggopsim '%s': exports the fit of --logp FILE; give --logp",
                           o->loggopsim);
    if (o->loggopsim_unit && !o->loggopsim)
        return usage_error("--loggopsim-unit '%s': the unit of --loggopsim FILE; give"
                           " --loggopsim", o->loggopsim_unit);
    if (o->full && (o->nvalidate || o->torus || o->out_bench))
        return usage_error("--full: measures its own networks and validates on the 6-node ring;"
                           " not with --validate, --torus or --bench-out");
    /* the 2-node ring has 2 nodes: its ranks; the other networks host
     * their virtual nodes on those two (mpibench --interleave) */
    if (o->full && o->np && strcmp(o->np, "2") != 0)
        return usage_error("--np '%s': --full measures on 2 ranks (the 2-node ring's; the other"
                           " networks' nodes are hosted on them)", o->np);
    if (o->full && o->ring && strcmp(o->ring, "4") && strcmp(o->ring, "8"))
        return usage_error("--ring '%s': --full fits on the 2-node ring, a 4- or 8-node ring"
                           " and the 4x4 torus; expected 4 or 8", o->ring);
    return 0;
}

/* ---- measuring ---------------------------------------------------------- */

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

static int mkdirs(const char *path)
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

/* Runs the benchmark (scibench, or mpirun + mpibench) and waits for it.
 * The child never outlives calibrate: it gets a stop signal when calibrate
 * dies, even by SIGKILL (PR_SET_PDEATHSIG), and a SIGINT or SIGTERM to
 * calibrate is passed on.  Either way the benchmark stops at once and,
 * being interrupted, keeps its finished points without replacing an
 * existing file (scibench --help).
 *
 * scibench gets SIGTERM.  An MPI launcher runs in a process group of its
 * own and gets SIGUSR1, to the whole group: mpirun passes SIGUSR1 on to
 * every rank and leaves the ending to them (rank 0 writes its files, then
 * aborts the job), whereas on SIGINT or SIGTERM it kills the ranks 1 s
 * later (SIGKILL), which cut rank 0 off while it wrote --full's four files
 * (2 runs in 6 under load).  So a terminal's Ctrl-C reaches calibrate
 * alone, and the launcher reads no terminal (stdin /dev/null: a
 * background group that reads it is stopped).  A job that has not ended
 * MPI_STOP_GRACE_S seconds later gets SIGTERM, then SIGKILL.
 * Returns the child's exit status (128 + signal), -1 on a system error,
 * or -2 when calibrate itself was interrupted. */
static int run_child(char *const argv[], int mpi)
{
    spawn_opts so = {.prog = "calibrate", .stop_signal = mpi ? SIGUSR1 : SIGTERM,
                     .own_group = mpi, .stdin_null = mpi, .grace_s = MPI_STOP_GRACE_S};
    return spawn_run(argv, &so);
}

static int measure(options *o, const char *host, char *bench_path, size_t len)
{
    char dir[PATH_MAX], prog[PATH_MAX + 16], topo[64];
    char *argv[MAX_ARGS], mpirun_copy[512], *save = NULL;
    int n = 0, mpi = strcmp(o->backend, "mpi") == 0;
    topo_shape shape;
    topo_parse_error perr;
    const char *t = o->full ? "2" : o->torus ? o->torus : o->ring ? o->ring : "2";
    if (topo_shape_parse(t, &shape, &perr))
        return usage_error("%s '%s': %s", o->torus ? "--torus" : "--ring", t, perr.what);
    snprintf(topo, sizeof topo, "%s%s", o->torus ? "torus" : "ring", t);
    self_dir(dir, sizeof dir);
    snprintf(prog, sizeof prog, "%s/%s", dir, mpi ? "mpibench" : "scibench");
    if (o->bench_prog)
        snprintf(prog, sizeof prog, "%s", o->bench_prog);
    if (o->full)
        snprintf(bench_path, len, "%s", o->plan.path[0]);
    else if (o->out_bench)
        snprintf(bench_path, len, "%s", o->out_bench);
    else
        snprintf(bench_path, len, "data/bench/%s-%s-%s.tsv", host, o->backend, topo);
    if (mkdirs(bench_path))
        return fail("cannot create the directory of '%s': %s", bench_path, strerror(errno));
    if (mpi) {
        snprintf(mpirun_copy, sizeof mpirun_copy, "%s", o->mpirun ? o->mpirun : "mpirun");
        for (char *w = strtok_r(mpirun_copy, " ", &save); w && n < 16; w = strtok_r(NULL, " ", &save))
            argv[n++] = w;
        if (!o->mpirun || strstr(o->mpirun, "mpirun")) {
            static char np[32];
            snprintf(np, sizeof np, "%ld", shape.nodes);
            argv[n++] = "-np";
            argv[n++] = (char *)(o->np ? o->np : np);
            if (o->hostfile)
                argv[n++] = "--hostfile", argv[n++] = (char *)o->hostfile;
            if (geteuid() == 0)
                argv[n++] = "--allow-run-as-root";
        }
    }
    argv[n++] = prog;
    argv[n++] = o->torus && !o->full ? "--torus" : "--ring";
    argv[n++] = (char *)t;
    /* Size-interleaved (issue 10): every point takes its batches in turn,
     * so a change of the machine's speed during the run hits every size
     * (and with --full every network) alike instead of bending the curve. */
    for (int k = 1; o->full && k < FULL_NETS; k++)
        argv[n++] = "--interleave", argv[n++] = o->plan.interleave[k];
    if (!o->full)
        argv[n++] = "--interleave-sizes";
    /* MPI: every hop sends the bytes it has just received, as a relay does,
     * so that with a single-copy transport every hop costs alike (a relay
     * at 64 KiB cost 3x a 2-node-ring hop from a send buffer, and 18-19%
     * more or less from one ring to another; mpibench --echo, README "The
     * same with MPI") */
    if (mpi)
        argv[n++] = "--echo";
    argv[n++] = "--sizes";
    argv[n++] = (char *)(o->sizes ? o->sizes : o->quick ? QUICK_SIZES
                                            : o->full ? (mpi ? FULL_SIZES_MPI : FULL_SIZES)
                                                      : DEFAULT_SIZES);
    argv[n++] = "--rel-error";
    argv[n++] = (char *)(o->rel_error ? o->rel_error : o->quick ? QUICK_REL_ERROR : DEFAULT_REL_ERROR);
    if (!o->full && !o->quick)
        argv[n++] = "--max-samples", argv[n++] = DEFAULT_MAX_SAMPLES;
    argv[n++] = "--max-time";
    argv[n++] = (char *)(o->max_time ? o->max_time : o->quick ? QUICK_MAX_TIME
                                                   : o->full ? FULL_MAX_TIME : DEFAULT_MAX_TIME);
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
    int rc = run_child(argv, mpi);
    if (rc == -2)
        return fail("interrupted; the benchmark stopped and kept its finished points (in '%s',"
                    " or '%s%s' beside an existing file); nothing fitted", bench_path, bench_path,
                    ATOMIC_FILE_PARTIAL_SUFFIX);
    if (rc != 0)
        return fail("the benchmark failed (exit status %d); nothing fitted", rc);
    return 0;
}

/* ---- data -> fit points ------------------------------------------------ */

typedef struct pointset {
    fit_point *pts;
    bench_point *src;         /* the row each point came from */
    size_t n, cap;
    long skipped_ow;
    weight_kind weights;      /* how each point's sigma is set (stat_of) */
} pointset;

/* The --stat names, also the params file's fit_statistic values. */
static const char *stat_name(stat_kind s)
{
    return s == STAT_MIN ? "min" : s == STAT_MEDIAN ? "median" : "mean";
}

static double stat_of(const bench_point *p, stat_kind s, weight_kind w, double *sigma)
{
    double sem = p->samples > 0 ? p->sd_ns / sqrt((double)p->samples) : p->sd_ns;
    double y = s == STAT_MIN ? p->min_ns : s == STAT_MEDIAN ? p->median_ns : p->mean_ns;
    if (s == STAT_MEDIAN)
        sem *= MEDIAN_SEM_FACTOR;
    (void)w;   /* the fit's weights are set after merging: relative_weights */
    /* never a zero weight: at least 0.1% of the value or 0.01 ns */
    double floor_ns = fmax(1e-3 * y, 0.01);
    *sigma = sem > floor_ns ? sem : floor_ns;
    return y;
}

/* One point of the pointset for sorting: its row (the configuration), its
 * value, and its position (first occurrences keep their order). */
typedef struct merge_item {
    const bench_point *row;
    const fit_point *pt;
    size_t pos;
} merge_item;

static int cmp_long(long a, long b)
{
    return (a > b) - (a < b);
}

/* Orders rows by configuration: src, dst, the six counts, size. */
static int config_cmp(const bench_point *a, const bench_point *b)
{
    const long ka[9] = {a->src, a->dst, a->hops, a->fwd, a->sw, a->rhops, a->rfwd, a->rsw,
                        a->size_bytes};
    const long kb[9] = {b->src, b->dst, b->hops, b->fwd, b->sw, b->rhops, b->rfwd, b->rsw,
                        b->size_bytes};
    for (int i = 0; i < 9; i++)
        if (ka[i] != kb[i])
            return cmp_long(ka[i], kb[i]);
    return 0;
}

/* By configuration, then value, then position: a configuration's runs
 * become consecutive, sorted by value (ties in file order). */
static int merge_item_cmp(const void *pa, const void *pb)
{
    const merge_item *a = pa, *b = pb;
    int c = config_cmp(a->row, b->row);
    if (c)
        return c;
    if (a->pt->y_ns != b->pt->y_ns)
        return a->pt->y_ns < b->pt->y_ns ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Weighted median of a group sorted by value: the first run at which the
 * accumulated weight 1/sigma^2 reaches half the group's. */
static size_t weighted_median(const merge_item *g, size_t k)
{
    double total = 0, acc = 0;
    for (size_t a = 0; a < k; a++)
        total += 1 / (g[a].pt->sigma_ns * g[a].pt->sigma_ns);
    for (size_t a = 0; a < k; a++) {
        acc += 1 / (g[a].pt->sigma_ns * g[a].pt->sigma_ns);
        if (acc >= total / 2)
            return g[a].pos;
    }
    return g[0].pos;
}

/* --weights relative, once repeated runs are merged (by their own spread,
 * SKaMPI's weighted median): multiplicative noise -- a change of the
 * machine's speed scales every latency, so each point's error is a fixed
 * fraction of its value, estimated from the residuals (the fit scales its
 * covariance by chi^2/dof).  The batches' own standard error misleads the
 * fit here: one descheduled batch (a 228 us outlier among 100 ns batches)
 * gives a point a hundredth of the weight of its neighbours while its
 * minimum or median did not move. */
static void relative_weights(pointset *ps)
{
    for (size_t i = 0; ps->weights == WEIGHT_RELATIVE && i < ps->n; i++)
        ps->pts[i].sigma_ns = fmax(RELATIVE_SIGMA * ps->pts[i].y_ns, 0.01);
}

/* Merges repeated configurations by the weighted median of their values,
 * weights 1/sigma^2 (SKaMPI's merging of several runs, manual §3.4).  Sort
 * and one pass, O(n log n) (issue 14 #7: pairwise comparison was O(n^2),
 * 10^6 rows over 200 s); a configuration's merged point stands where its
 * first run stood.  Returns 0, -1 out of memory (ps unchanged). */
static int merge_repeats(pointset *ps)
{
    size_t n = ps->n, out = 0;
    merge_item *it = malloc((n ? n : 1) * sizeof *it);
    size_t *pick = malloc((n ? n : 1) * sizeof *pick);   /* by first position */
    fit_point *pts = malloc((n ? n : 1) * sizeof *pts);
    bench_point *src = malloc((n ? n : 1) * sizeof *src);
    if (!it || !pick || !pts || !src) {
        free(it), free(pick), free(pts), free(src);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        it[i] = (merge_item){&ps->src[i], &ps->pts[i], i};
        pick[i] = SIZE_MAX;
    }
    qsort(it, n, sizeof *it, merge_item_cmp);
    for (size_t a = 0, b; a < n; a = b) {
        size_t first = it[a].pos;
        for (b = a + 1; b < n && config_cmp(it[a].row, it[b].row) == 0; b++)
            if (it[b].pos < first)
                first = it[b].pos;
        pick[first] = weighted_median(&it[a], b - a);
    }
    for (size_t i = 0; i < n; i++)
        if (pick[i] != SIZE_MAX) {
            pts[out] = ps->pts[pick[i]];
            src[out++] = ps->src[pick[i]];
        }
    memcpy(ps->pts, pts, out * sizeof *pts);
    memcpy(ps->src, src, out * sizeof *src);
    ps->n = out;
    free(it), free(pick), free(pts), free(src);
    return 0;
}

static int add_point(pointset *ps, const bench_point *p, stat_kind s)
{
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 64;
        fit_point *a = realloc(ps->pts, cap * sizeof *a);
        if (a)
            ps->pts = a;
        bench_point *b = realloc(ps->src, cap * sizeof *b);
        if (b)
            ps->src = b;
        if (!a || !b)
            return -1;
        ps->cap = cap;
    }
    fit_point *f = &ps->pts[ps->n];
    f->size_bytes = (double)p->size_bytes;
    f->hm = (p->hops + p->rhops) / 2.0;
    f->fm = (p->fwd + p->rfwd) / 2.0;
    f->sm = (p->sw + p->rsw) / 2.0;
    f->y_ns = stat_of(p, s, ps->weights, &f->sigma_ns);
    ps->src[ps->n++] = *p;
    return 0;
}

static int load_files(const char *const *files, int nfiles, stat_kind s, pointset *ps)
{
    for (int f = 0; f < nfiles; f++) {
        bench_data d;
        bench_read_error err;
        int rc = bench_data_read(files[f], &d, &err);
        if (rc == -1)
            return fail("'%s': %s", files[f], err.msg);
        char text[4352];
        if (rc)
            return fail("%s", file_error_text(&err, files[f], text, sizeof text));
        if (d.incomplete)
            fprintf(stderr, "calibrate: note: %s is marked incomplete; using its %ld finished"
                            " points\n", files[f], d.count);
        for (long i = 0; i < d.count; i++) {
            if (strcmp(d.points[i].pattern, "pp") != 0) {
                ps->skipped_ow++;
                continue;
            }
            if (add_point(ps, &d.points[i], s)) {
                bench_data_free(&d);
                return fail("out of memory");
            }
        }
        bench_data_free(&d);
    }
    if (ps->skipped_ow)
        fprintf(stderr, "calibrate: note: %ld one-way points skipped (the model fits ping-pong)\n",
                ps->skipped_ow);
    return 0;
}

/* ---- report ------------------------------------------------------------ */

static int all_zero(const pointset *ps, int which)
{
    for (size_t i = 0; i < ps->n; i++)
        if ((which ? ps->pts[i].sm : ps->pts[i].fm) != 0)
            return 0;
    return 1;
}

static void explain(const options *o, const pointset *ps, const fit_result *r)
{
    const char *preset = o->fit.preset_name;
    int lf_missing = !r->measured[MODEL_P_LF] && !o->fit.fixed[MODEL_P_LF];
    int ls_missing = !r->measured[MODEL_P_LS] && !o->fit.fixed[MODEL_P_LS];
    printf("\nwhat the data determines:\n");
    if (lf_missing && ls_missing && all_zero(ps, 0) && all_zero(ps, 1))
        printf("  lf, ls: not measured by a 2-node ring (no node forwards or switches on its"
               " paths); taken from preset %s\n", preset);
    else {
        if (lf_missing)
            printf("  lf: not measured (%s); taken from preset %s\n",
                   all_zero(ps, 0) ? "no forwarding node on any path" : "not separable here",
                   preset);
        if (ls_missing)
            printf("  ls: not measured (%s); taken from preset %s\n",
                   all_zero(ps, 1) ? "no path switches dimension: measure a torus"
                                   : "not separable here", preset);
    }
    if (!r->measured[MODEL_P_LB] && !o->fit.fixed[MODEL_P_LB])
        printf("  lb: needs multi-hop data at two or more sizes; taken as %g (cut-through, as"
               " preset %s)\n", r->params.lb_ns_per_byte, preset);
    else if (r->lb_dropped)
        printf("  lb: 0 within %.2g ns/B: a free lb (%.3g ns/B) does not improve the fit enough"
               " (BIC); cut-through\n", r->lb_free_err, r->lb_free_value);
    else if (r->measured[MODEL_P_LB])
        printf("  lb: measured (the relays' cost per byte, store and forward)\n");
    else
        printf("  lb: fixed at %g ns/B (--fix)\n", r->params.lb_ns_per_byte);
    if (r->lp_lf_collinear && r->measured[MODEL_P_LF])
        printf("  lp and lf are collinear in this data (on a ring F = H - 1): lp is fixed at"
               " %.3g ns, so lf absorbs any error in lp\n", r->params.lp_ns);
    if (!r->measured[MODEL_P_LP] && !o->lp_given && !o->fit.fixed[MODEL_P_LP])
        printf("  lp: taken from preset %s\n", preset);
    else if (!o->lp_given)
        printf("  lp: fixed from %.3g m of cable at c/2 (too small to measure against o)\n",
               o->cable_m);
    printf("  o(m): measured (%d segment%s)\n", r->segments, r->segments > 1 ? "s" : "");
}

/* Residual rows by path (hops, forwards, switches), then size: the data
 * file's order is the interleaved run's, in which points finish. */
static int by_path_then_size(const void *a, const void *b, void *arg)
{
    const fit_point *pts = arg, *x = &pts[*(const size_t *)a], *y = &pts[*(const size_t *)b];
    const double kx[4] = {x->hm, x->fm, x->sm, x->size_bytes},
                 ky[4] = {y->hm, y->fm, y->sm, y->size_bytes};
    for (int k = 0; k < 4; k++)
        if (kx[k] != ky[k])
            return kx[k] < ky[k] ? -1 : 1;
    return 0;
}

/* One line of the residual table, "(x N)" after it when N points print
 * alike; nothing for N = 0. */
static void print_residual_line(const char *line, size_t n)
{
    if (n == 1)
        printf("%s\n", line);
    else if (n > 1)
        printf("%s  (x %zu)\n", line, n);
}

static void print_params(const options *o, const pointset *ps, const fit_result *r)
{
    const model_params *p = &r->params;
    const double v[MODEL_P_ALL] = {p->o0_ns, p->o1_ns_per_byte, p->lp_ns, p->lf_ns, p->ls_ns,
                                   p->lb_ns_per_byte};
    printf("calibrate: %zu points, statistic %s, %s fit\n\n", ps->n, stat_name(o->stat),
           o->fit.robust ? "robust (bisquare)" : "weighted least-squares");
    printf("  %-16s %12s  %-12s %s\n", "parameter", "value", "std. error", "source");
    for (int k = 0; k < MODEL_P_ALL; k++) {
        char err[32] = "";
        if (!isnan(p->err[k]))
            snprintf(err, sizeof err, "+- %.3g", p->err[k]);
        printf("  %-16s %12.4g  %-12s %s%s\n", model_param_key[k], v[k], err, p->source[k],
               r->measured[k] ? "" : "  (assumed, not measured)");
    }
    printf("  o(%g B) relative standard error: %.2f%%\n", p->mref_bytes,
           100 * p->err[MODEL_P_O0] / p->o0_ns);
    for (int i = 0; i < p->o_segments; i++)
        printf("  o(m) segment %d from %g B: %.1f ns + %.4g ns/B (m - %g)\n", i + 1,
               p->oseg[i].from_bytes, p->oseg[i].ns, p->oseg[i].ns_per_byte, p->oseg[i].from_bytes);
    printf("  fit: R^2 = %.6f, chi^2/dof = %.3g\n", r->r2, r->chi2_dof);
    explain(o, ps, r);
    printf("\nresiduals (measured - model):\n  %8s %5s %5s %5s %12s %12s %8s\n", "size", "Hm",
           "Fm", "Sm", "measured", "model", "resid");
    double ss = 0, worst = 0;
    size_t at = 0, *order = malloc((ps->n ? ps->n : 1) * sizeof *order);
    if (order) {   /* (out of memory: the file's order) */
        for (size_t k = 0; k < ps->n; k++)
            order[k] = k;
        qsort_r(order, ps->n, sizeof *order, by_path_then_size, (void *)ps->pts);
    }
    /* Neighbouring rows that print alike are one line with their count: a
     * torus's destinations share (size, Hm, Fm, Sm), and a 100x100 torus
     * measured to every destination printed 5 x 10^5 lines, most of them
     * copies (now 100 distinct ones). */
    char line[128], last[128] = "";
    size_t same = 0;
    for (size_t k = 0; k < ps->n; k++) {
        size_t i = order ? order[k] : k;
        double rel = r->residual_ns[i] / ps->pts[i].y_ns;
        snprintf(line, sizeof line, "  %8.0f %5.1f %5.1f %5.1f %12.1f %12.1f %7.2f%%",
                 ps->pts[i].size_bytes, ps->pts[i].hm, ps->pts[i].fm, ps->pts[i].sm,
                 ps->pts[i].y_ns, r->predicted_ns[i], 100 * rel);
        if (same && strcmp(line, last) == 0)
            same++;
        else {
            print_residual_line(last, same);
            memcpy(last, line, sizeof line);
            same = 1;
        }
        ss += rel * rel;
        if (fabs(rel) > worst)
            worst = fabs(rel), at = i;
    }
    print_residual_line(last, same);
    free(order);
    if (ps->n)
        printf("  RMS %.2f%%, largest %.2f%% (%g B)\n", 100 * sqrt(ss / (double)ps->n),
               100 * worst, ps->pts[at].size_bytes);
}

/* Reads the --validate files, before any measuring (a bad file must not
 * cost minutes of measurement first); each must hold ping-pong points. */
static int load_validate(const options *o, pointset *vs)
{
    for (int f = 0; f < o->nvalidate; f++) {
        size_t before = vs->n;
        int rc = load_files(&o->validate[f], 1, o->stat, vs);
        if (rc)
            return rc;
        if (vs->n == before)
            return fail("--validate '%s': no ping-pong points to validate against",
                        o->validate[f]);
    }
    return 0;
}

static int validate(const options *o, pointset *vs0, const model_params *p)
{
    pointset vs = *vs0;
    int rc = 0;
    if (merge_repeats(&vs))   /* held-out runs repeated like --data's */
        return fail("out of memory");
    double *err = malloc((vs.n ? vs.n : 1) * sizeof *err), worst = 0;
    full_row *rows = malloc((vs.n ? vs.n : 1) * sizeof *rows);
    printf("\nvalidation (held-out data):\n  %8s %5s %5s %5s %12s %12s %8s\n", "size", "Hm", "Fm",
           "Sm", "measured", "predicted", "error");
    for (size_t i = 0; err && i < vs.n; i++) {
        double pred = fit_predict_ns(p, &vs.pts[i]);
        err[i] = fabs(pred - vs.pts[i].y_ns) / vs.pts[i].y_ns;
        worst = fmax(worst, err[i]);
        printf("  %8.0f %5.1f %5.1f %5.1f %12.1f %12.1f %7.2f%%\n", vs.pts[i].size_bytes,
               vs.pts[i].hm, vs.pts[i].fm, vs.pts[i].sm, vs.pts[i].y_ns, pred, 100 * err[i]);
        if (rows)
            rows[i] = (full_row){vs.pts[i].size_bytes, vs.pts[i].hm, vs.pts[i].fm, vs.pts[i].sm,
                                 vs.pts[i].y_ns, pred};
    }
    if (err && vs.n) {
        gsl_sort(err, 1, vs.n);
        double med = gsl_stats_median_from_sorted_data(err, 1, vs.n);
        printf("  median error %.2f%%, max error %.2f%% over %zu points\n", 100 * med,
               100 * worst, vs.n);
    }
    if (o->validation_out && rows && vs.n) {
        char fitted[1024] = "";
        size_t len = 0;
        for (int i = 0; i < o->ndata && len < sizeof fitted; i++)
            len += (size_t)snprintf(fitted + len, sizeof fitted - len, "%s%s", i ? " " : "",
                                    o->data[i]);
        if (mkdirs(o->validation_out) ||
            full_write_validation(o->validation_out, o->validate[0], fitted, rows, vs.n))
            rc = fail("--validation-out '%s': %s", o->validation_out, strerror(errno));
    }
    free(rows);
    free(err);
    *vs0 = vs;
    return rc;
}

/* The reader's own range table and rules, before anything is written: a
 * params file that scimodel would refuse is no result (issue 10), and
 * neither is what calibrate derives from it (the held-out table; the
 * LogGOPSim export checks the same in calibrate_logp). */
static int params_refused(const options *o, const model_params *p, const char *path)
{
    model_params_error perr;
    int crc = model_params_check(p, &perr);
    if (crc == -2)
        return fail("'%s' not written: the fit gave a value the params reader refuses: %s%s%s",
                    path, perr.msg, o->ndata ? "; the data is kept in " : "",
                    o->ndata ? o->data[0] : "");
    if (crc)
        return fail("-o '%s': %s", path, strerror(perr.sys_errno));
    return 0;
}

/* Writes the params file (params_refused first). */
static int write_params(const options *o, const fit_result *r, const char *host,
                        const char *path)
{
    char comments[4096], when[64];
    time_t now = time(NULL);
    struct tm tm;
    size_t len = 0;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    len += (size_t)snprintf(comments + len, sizeof comments - len,
                            "fitted by calibrate on %s, backend %s, %s\ncommand: %s\ndata:", host,
                            o->backend, when, o->command);
    for (int i = 0; i < o->ndata && len < sizeof comments; i++)
        len += (size_t)snprintf(comments + len, sizeof comments - len, " %s", o->data[i]);
    if (mkdirs(path))
        return fail("cannot create the directory of '%s': %s", path, strerror(errno));
    if (model_params_write(path, &r->params, comments))
        return fail("-o '%s': %s", path, file_strerror(errno));
    return 0;
}

/* --loggopsim-unit ps given */
static int loggopsim_ps(const options *o)
{
    return o->loggopsim_unit && !strcmp(o->loggopsim_unit, "ps");
}

/* --logp: the LogP fit into p (calibrate/logp_fit.c), checked against
 * the --data files. */
static int with_logp(const options *o, model_params *p)
{
    calibrate_logp_options lo = {o->logp, o->data, o->ndata, o->loggopsim,
                                 loggopsim_ps(o), o->fit.max_segments};
    printf("\n");
    return calibrate_logp(&lo, p);
}

/* --logp without --data: o, lp, lf, ls from the preset, marked so. */
static int logp_only(options *o, const char *host)
{
    char path[PATH_MAX];
    fit_result r;
    memset(&r, 0, sizeof r);
    r.params = o->fit.preset;
    for (int k = 0; k < MODEL_P_COUNT; k++)
        snprintf(r.params.source[k], sizeof r.params.source[k], "preset %s",
                 o->fit.preset_name);
    int rc = calibrate_logp(&(calibrate_logp_options){o->logp, NULL, 0, o->loggopsim,
                                                      loggopsim_ps(o), o->fit.max_segments},
                            &r.params);
    snprintf(path, sizeof path, "data/params/%s-logp.params", host);
    const char *out = o->out_params ? o->out_params : path;
    if (!rc && (rc = params_refused(o, &r.params, out)) == 0 &&
        (rc = write_params(o, &r, host, out)) == 0)
        printf("\nwrote %s (o, lp, lf, ls: preset %s, not measured; give --data PP.tsv to fit"
               " them)\n", o->out_params ? o->out_params : path, o->fit.preset_name);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    char host[256] = "localhost", bench_path[PATH_MAX], params_path[PATH_MAX];
    pointset ps = {0}, vs = {0};
    fit_result res;
    fs_check_stdout_at_exit("calibrate");
    if (calibrate_collectives_wanted(argc, argv))
        return calibrate_collectives(argc, argv);
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    gethostname(host, sizeof host - 1);
    if (o.logp && !o.ndata)   /* LogP alone: nothing measured, nothing else fitted */
        return logp_only(&o, host);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ps.weights = vs.weights = o.weights;
    if (o.full && full_plan_make(&o.plan, "data/bench", host, o.backend,
                                 o.ring ? o.ring : FULL_DEFAULT_RING)) {
        rc = fail("--full: file names for host '%s' too long", host);
        goto out;
    }
    if ((rc = load_validate(&o, &vs)))
        goto out;
    int measured = !o.ndata;
    if (!o.ndata) {
        if ((rc = measure(&o, host, bench_path, sizeof bench_path)))
            goto out;
        o.data[o.ndata++] = bench_path;
    }
    if (o.full) {   /* fit on all but the 6-node ring, validate on it */
        for (int k = 1; k < FULL_NETS; k++)
            if (k != FULL_HELD_OUT)
                o.data[o.ndata++] = o.plan.path[k];
        o.validate[o.nvalidate++] = o.plan.path[FULL_HELD_OUT];
        if (!o.validation_out)
            o.validation_out = o.plan.validation;
        if ((rc = load_validate(&o, &vs)))
            goto out;
    }
    if ((rc = load_files(o.data, o.ndata, o.stat, &ps)))
        goto out;
    if (merge_repeats(&ps)) {
        rc = fail("out of memory");
        goto out;
    }
    relative_weights(&ps);
    o.fit.fixed[MODEL_P_LP] = 1;   /* lp: --lp, --cable-length or 1 m (SPEC.md §4) */
    rc = fit_run(ps.pts, ps.n, &o.fit, &res);
    if (rc == -1) {
        rc = fail("%s: %s", o.data[0], ps.n ? "every point has the same message size: nothing to"
                                              " fit (o(m) needs at least two sizes)"
                                            : "no ping-pong points to fit");
        fit_result_free(&res);
        goto out;
    }
    if (rc) {
        rc = fail("the least-squares fit failed (GSL)");
        fit_result_free(&res);
        goto out;
    }
    print_params(&o, &ps, &res);
    if (res.clamped[0])
        printf("\nnote: negative within 2 standard errors of zero, held at 0 and the rest"
               " refitted (a time or a slope cannot be negative): %s\n", res.clamped);
    if (res.falling[0])
        printf("\nwarning: o(m) (or lb, the relays' cost) falls with the message size in this data, more than 2 standard"
               " errors below 0: %s; held at 0 and the rest refitted (see the residuals; small"
               " messages often take another code path)\n", res.falling);
    if (res.infeasible) {
        rc = fail("%s is significantly negative: the model does not describe this data "
                  "(see the residuals); no params file written, the data is kept in %s",
                  res.infeasible_what, o.data[0]);
        fit_result_free(&res);
        goto out;
    }
    /* which column of the bench files was fitted, for plots/calibration.gp */
    snprintf(res.params.fit_statistic, sizeof res.params.fit_statistic, "%s",
             stat_name(o.stat));
    snprintf(params_path, sizeof params_path, "data/params/%s-%s%s.params", host, o.backend,
             o.full ? "-full" : "");
    if (o.logp)
        rc = with_logp(&o, &res.params);
    if (!rc)
        rc = params_refused(&o, &res.params, o.out_params ? o.out_params : params_path);
    if (!rc && o.nvalidate)
        rc = validate(&o, &vs, &res.params);
    if (!rc && (rc = write_params(&o, &res, host, o.out_params ? o.out_params : params_path)) == 0)
        printf("\nwrote %s (data: %s%s)\nuse it:  scimodel --params %s --dims 1..4 --nodes 1000\n",
               o.out_params ? o.out_params : params_path, o.data[0], o.ndata > 1 ? ", ..." : "",
               o.out_params ? o.out_params : params_path);
    if (!rc && o.full)
        printf("held-out table: %s (plots/validation.gp draws it)\n", o.validation_out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!rc && measured)
        printf("calibrate: measured and fitted in %.1f s\n",
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    fit_result_free(&res);
out:
    free(ps.pts);
    free(ps.src);
    free(vs.pts);
    free(vs.src);
    /* a full disk or a closed pipe on standard output is a failure too */
    int wrc = file_close_stdout("calibrate");
    return rc ? rc : wrc;
}
