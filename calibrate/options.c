/* options: calibrate's command line -- one entry per option, the
 * combinations that make no sense (a table), and the files that must not
 * be one another. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate/calibrate.h"
#include "calibrate/usage.h"
#include "util/atomicfile.h"
#include "util/opt.h"
#include "util/parse.h"

enum { O_BACKEND = 256, O_RING, O_TORUS, O_ALLDST, O_SIZES, O_REL, O_MAXT, O_QUICK, O_INJF,
       O_INJS, O_NP, O_HOSTFILE, O_MPIRUN, O_BENCH, O_BENCHOUT, O_DATA, O_VALIDATE, O_STAT,
       O_ROBUST, O_LP, O_CABLE, O_FIX, O_PRESET, O_SEGMENTS, O_LOGP, O_LOGGOPSIM, O_FULL,
       O_VALOUT, O_WEIGHTS, O_LGSUNIT, O_MAXERR, O_VERSION, O_END };

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
    {"weights", 1, NULL, O_WEIGHTS}, {"max-error", 1, NULL, O_MAXERR},
    {"version", 0, NULL, O_VERSION},
    {"quiet", 0, NULL, 'q'}, {"help", 0, NULL, 'h'}, {NULL, 0, NULL, 0},
};

/* The option's name as the user spells it, for messages. */
static const char *option_name(int c)
{
    if (c == 'o')
        return "-o";
    if (c == 'q')
        return "--quiet";
    for (const struct option *l = long_options; l->name; l++)
        if (l->val == c) {
            static char buf[40];
            snprintf(buf, sizeof buf, "--%s", l->name);
            return buf;
        }
    return "?";
}

/* Records that opt fixes lp; a second option that does is a conflict. */
static int fix_lp(options *o, const char *opt)
{
    if (o->lp_opt && strcmp(o->lp_opt, opt) != 0)
        return usage_error("%s and %s: both fix lp; give one", o->lp_opt, opt);
    o->lp_opt = opt;
    o->lp_given = 1;
    return 0;
}

/* --fix lf=60,ls=670: every item K=V, each key once (over every --fix). */
static int parse_fix(options *o, const char *arg, int *seen)
{
    static const struct { const char *key; model_param_id id; } keys[] = {
        {"lp", MODEL_P_LP}, {"lf", MODEL_P_LF}, {"ls", MODEL_P_LS}, {"lb", MODEL_P_LB}};
    const size_t nkeys = sizeof keys / sizeof keys[0];
    char copy[256];
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

static int check_number(const char *opt, const char *arg, double min, double max, double *out)
{
    double v;
    parse_status st = parse_double(arg, min, max, &v);
    if (st)
        return usage_error("%s '%s': %s", opt, arg, parse_status_text(st));
    if (out)
        *out = v;
    return 0;
}

/* Options that only a measurement uses: with --data they would do nothing
 * (--backend too: the data files say which backend measured them). */
static const int measuring_options[] = {
    O_BACKEND, O_RING, O_TORUS, O_ALLDST, O_SIZES, O_REL, O_MAXT, O_QUICK, O_INJF, O_INJS,
    O_NP, O_HOSTFILE, O_MPIRUN, O_BENCH, O_BENCHOUT, O_FULL,
};
/* Options that may be given more than once (each adds to a list). */
static const int repeatable_options[] = {O_DATA, O_VALIDATE, O_FIX};

static int in_list(const int *list, size_t n, int c)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == c)
            return 1;
    return 0;
}

static int parse_choice(const char *opt, const char *arg, const char *const *names, int *out)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(arg, names[i]))
            return *out = i, 0;
    return usage_error("%s '%s': expected %s%s%s%s%s", opt, arg, names[0], names[2] ? ", " : " or ",
                       names[1], names[2] ? " or " : "", names[2] ? names[2] : "");
}

static int parse_one(options *o, int c, const char *arg, int *fix_seen)
{
    long l;
    int i;
    parse_status st;
    static const char *const stats[] = {"min", "median", "mean", NULL};
    static const char *const weights[] = {"relative", "sem", NULL};
    static const char *const backends[] = {"shm", "mpi", NULL};
    static const char *const units[] = {"ns", "ps", NULL};
    if (!o->measure_opt[0] && in_list(measuring_options, sizeof measuring_options /
                                      sizeof *measuring_options, c))
        snprintf(o->measure_opt, sizeof o->measure_opt, "%s", option_name(c));
    switch (c) {
    case O_BACKEND:
        if (parse_choice("--backend", arg, backends, &i))
            return EXIT_USAGE;
        o->backend = backends[i];
        return 0;
    case O_RING: o->ring = arg; return 0;
    case O_TORUS: o->torus = arg; return 0;
    case O_ALLDST: o->all_dst = 1; return 0;
    case O_SIZES: o->sizes = arg; return 0;
    case O_REL: o->rel_error = arg; return check_number("--rel-error", arg, 1e-6, 1, NULL);
    case O_MAXT: o->max_time = arg; return check_number("--max-time", arg, 0.001, 86400, NULL);
    case O_QUICK: o->quick = 1; return 0;
    case O_INJF: o->inject_forward = arg; return check_number("--inject-forward", arg, 0, 1e9, NULL);
    case O_INJS: o->inject_switch = arg; return check_number("--inject-switch", arg, 0, 1e9, NULL);
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
            return usage_error("%s '%s': more than %d files", option_name(c), arg, MAX_FILES);
        list[(*n)++] = arg;
        return 0;
    }
    case O_STAT:
        if (parse_choice("--stat", arg, stats, &i))
            return EXIT_USAGE;
        o->stat = (stat_kind)i;
        return 0;
    case O_ROBUST: o->fit.robust = 1; return 0;
    case O_LP:
        if (check_number("--lp", arg, 0, 1e9, &o->fit.fixed_value[MODEL_P_LP]))
            return EXIT_USAGE;
        return fix_lp(o, "--lp");
    case O_CABLE:
        if (check_number("--cable-length", arg, 0, 1e6, &o->cable_m))
            return EXIT_USAGE;
        o->fit.fixed_value[MODEL_P_LP] = fit_lp_from_cable(o->cable_m);
        if (o->lp_opt && strcmp(o->lp_opt, "--cable-length") != 0)
            return usage_error("%s and --cable-length: both fix lp; give one", o->lp_opt);
        o->lp_opt = "--cable-length";
        return 0;
    case O_FIX: return parse_fix(o, arg, fix_seen);
    case O_PRESET:
        if (model_params_preset(arg, &o->fit.preset))
            return usage_error("--preset '%s': unknown preset (current, enhanced)", arg);
        snprintf(o->fit.preset_name, sizeof o->fit.preset_name, "%s", arg);
        return 0;
    case O_FULL: o->full = 1; return 0;
    case O_VALOUT: o->validation_out = arg; return 0;
    case O_MAXERR:
        if (check_number("--max-error", arg, 0.01, 1000, &o->max_error))
            return EXIT_USAGE;
        o->max_error /= 100;
        return 0;
    case O_WEIGHTS:
        if (parse_choice("--weights", arg, weights, &i))
            return EXIT_USAGE;
        o->weights = (weight_kind)i;
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
        if (parse_choice("--loggopsim-unit", arg, units, &i))
            return EXIT_USAGE;
        o->loggopsim_unit = units[i];
        return 0;
    case 'q': o->quiet = 1; return 0;
    case 'o': o->out_params = arg; return 0;
    case 'h': fputs(calibrate_usage_text, stdout); exit(fs_close_stdout("calibrate"));
    case O_VERSION:
        printf("calibrate (scitorus) %s\n", opt_version());
        exit(fs_close_stdout("calibrate"));
    default: return usage_error("unknown option or missing argument");
    }
}

static void record_command(options *o, int argc, char **argv)
{
    size_t len = 0;
    for (int i = 0; i < argc && len + 2 < sizeof o->command; i++)
        len += (size_t)snprintf(o->command + len, sizeof o->command - len, "%s%s",
                                i ? " " : "", i ? argv[i] : "calibrate");
}

int options_parse(int argc, char **argv, options *o)
{
    int c, rc, fix_seen[4] = {0, 0, 0, 0};
    unsigned char given[O_END] = {0};
    memset(o, 0, sizeof *o);
    o->backend = "shm";
    o->cable_m = FIT_DEFAULT_CABLE_M;
    o->max_error = atof(DEFAULT_MAX_ERROR_PCT) / 100;
    /* the batches' median: the minimum is one batch's extreme; the held-out
     * ring's minima alone scattered 3-7% from any model, the medians 1-2%
     * (docs/MEASUREMENTS.md) */
    o->stat = STAT_MEDIAN;
    o->report = stdout;
    fit_options_default(&o->fit);
    o->fit.fixed[MODEL_P_LB] = 0;   /* measured where the data allows (docs/model.md, 'Parameters') */
    record_command(o, argc, argv);
    gethostname(o->host, sizeof o->host - 1);
    if (!o->host[0])
        snprintf(o->host, sizeof o->host, "localhost");
    opterr = 0;   /* the message below names the option and ends with "try --help" */
    while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        if (c == '?' || c == ':') {
            const char *bad = argv[optind - 1];
            return c == ':' ? usage_error("%s: needs a value", bad)
                            : usage_error("%s: unknown option", bad);
        }
        if (c > 0 && c < O_END && given[c]++ &&
            !in_list(repeatable_options, sizeof repeatable_options / sizeof *repeatable_options, c))
            return usage_error("%s given twice; give it once", option_name(c));
        if ((rc = parse_one(o, c, optarg, fix_seen)))
            return rc;
    }
    for (int i = optind; i < argc; i++)   /* files after --data */
        if ((rc = parse_one(o, O_DATA, argv[i], fix_seen)))
            return rc;
    if (o->out_params && !strcmp(o->out_params, "-"))
        o->report = stderr;   /* standard output holds the params file */
    return options_check(o);
}
