/* scisim_options: the command line (getopt_long), one table of options;
 * every value checked and named in the message, exit 2 on misuse. */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/projection.h"
#include "model/traffic.h"
#include "sim/scisim.h"
#include "util/atomicfile.h"
#include "util/parse.h"

static const char usage[] =
"Usage: scisim SCHEDULE.goal [options]\n"
"Replays a GOAL schedule (LogGOPSim's format: send, recv, calc, requires,\n"
"irequires) and reports when every rank finishes.\n"
"\n"
"Network (one of):\n"
"  --loggp L=..,o=..,g=..,G=..,O=..,S=..\n"
"                      LogGOPS, no topology; ns and ns per byte (G, O), whole\n"
"                      numbers; missing keys take LogGOPSim's defaults L=2500\n"
"                      o=1500 g=1000 G=6 O=0 S=65535; the finishing times are\n"
"                      LogGOPSim's for the same schedule\n"
"  --params FILE | --preset current|enhanced\n"
"                      candidate tori with these parameters (default preset\n"
"                      current): wire time H lp + F lf + S ls + (F+S) lb m of\n"
"                      the route, endpoints os(m)/or(m) where the file has LogP\n"
"                      terms, else o(m) at each end\n"
"Tori:\n"
"  --dims LIST         for each D the smallest n^D holding the nodes (1..4 by\n"
"                      default); --shape S (repeatable) adds a shape\n"
"  --nodes N           size the --dims candidates for N nodes (default: ranks\n"
"                      / slots)\n"
"  --links uni|bi      one ring per dimension (SCI) or a pair (default: the\n"
"                      params file's, else uni)\n"
"  --slots K           K ranks per node: ranks rK..rK+K-1 on node r\n"
"  --placement P       row-major (default), optimize (annealed for the\n"
"                      schedule's traffic matrix, beside row-major) or a file:\n"
"                      logical node j's torus node on line j (scimodel --traffic)\n"
"  --anneal-steps N    moves of the annealing (default 200000)\n"
"  --intra-params FILE endpoints of same-node messages (default: --params)\n"
"  --contention        directed links carry one message at a time at\n"
"                      link_bw_bytes_per_ns, FIFO; reports waiting and the\n"
"                      busiest links\n"
"  --eager S           eager up to S bytes, rendezvous above (default 65535)\n"
"Output:\n"
"  --ranks             per rank: rank finish_ns (one block per candidate)\n"
"  --format table|tsv  tsv: dims shape placement links makespan_ns\n"
"                      mean_finish_ns messages bytes wait_ns\n"
"  -o FILE             write there (atomically; - is standard output)\n"
"  -q                  no progress on stderr\n"
"  -h, --help          this text\n"
"Ctrl-C stops a replay; the finished candidates are kept (exit 130).\n"
"  e.g. scisim app.goal --params sci.params --dims 1..4 --contention\n";

int scisim_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("scisim: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (try --help)\n", stderr);
    va_end(ap);
    return 2;
}

int scisim_runtime_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("scisim: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* "L=2500,o=1500": keys of LogGOPSim's command line, whole ns. */
static int parse_loggp(const char *arg, scisim_opts *o)
{
    static const char keys[] = "LogGOS";
    int seen[6] = {0};
    char buf[256];
    if (strlen(arg) >= sizeof buf)
        return scisim_usage_error("--loggp: too long");
    strcpy(buf, arg);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        const char *k = eq && eq - tok == 1 ? strchr(keys, tok[0]) : NULL;
        if (!k)
            return scisim_usage_error("--loggp '%s': '%s' is not KEY=VALUE with KEY one of L o g G O S",
                                      arg, tok);
        int i = (int)(k - keys);
        if (seen[i]++)
            return scisim_usage_error("--loggp '%s': %c given twice", arg, *k);
        long v;
        parse_status st = parse_long(eq + 1, 0, INT_MAX, &v);
        if (st)
            return scisim_usage_error("--loggp '%s': %c=%s: %s, expected a whole number 0..%d", arg,
                                      *k, eq + 1, parse_status_text(st), INT_MAX);
        switch (*k) {
        case 'L': o->lg.L = (double)v; break;
        case 'o': o->lg.o = (double)v; break;
        case 'g': o->lg.g = (double)v; break;
        case 'G': o->lg.G = (double)v; break;
        case 'O': o->lg.O = (double)v; break;
        default: o->S = (uint64_t)v; break;
        }
    }
    return 0;
}

static int read_params(const char *opt, const char *path, model_params *p)
{
    model_params_error err;
    int rc = model_params_read(path, p, &err);
    if (rc == -1)
        return scisim_runtime_error("%s %s: %s", opt, path, file_strerror(err.sys_errno));
    if (rc)
        return scisim_runtime_error("%s %s:%ld: %s", opt, path, err.line, err.msg);
    return 0;
}

enum { OPT_LOGGP = 256, OPT_PARAMS, OPT_PRESET, OPT_DIMS, OPT_SHAPE, OPT_NODES, OPT_LINKS,
       OPT_SLOTS, OPT_PLACEMENT, OPT_INTRA, OPT_CONTENTION, OPT_EAGER, OPT_RANKS, OPT_STEPS, OPT_FORMAT };

static const struct option long_options[] = {
    {"loggp", required_argument, NULL, OPT_LOGGP},
    {"params", required_argument, NULL, OPT_PARAMS},
    {"preset", required_argument, NULL, OPT_PRESET},
    {"dims", required_argument, NULL, OPT_DIMS},
    {"shape", required_argument, NULL, OPT_SHAPE},
    {"nodes", required_argument, NULL, OPT_NODES},
    {"links", required_argument, NULL, OPT_LINKS},
    {"slots", required_argument, NULL, OPT_SLOTS},
    {"placement", required_argument, NULL, OPT_PLACEMENT},
    {"intra-params", required_argument, NULL, OPT_INTRA},
    {"contention", no_argument, NULL, OPT_CONTENTION},
    {"eager", required_argument, NULL, OPT_EAGER},
    {"ranks", no_argument, NULL, OPT_RANKS},
    {"anneal-steps", required_argument, NULL, OPT_STEPS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_one(scisim_opts *o, int c, const char *arg)
{
    parse_status st;
    size_t n, pos;
    switch (c) {
    case OPT_LOGGP:
        o->loggp_given = 1;
        return parse_loggp(arg, o);
    case OPT_PARAMS:
        o->params_given = 1;
        o->params_path = arg;
        return read_params("--params", arg, &o->inter);
    case OPT_PRESET:
        o->params_given = 1;
        if (model_params_preset(arg, &o->inter))
            return scisim_usage_error("--preset '%s': expected current or enhanced", arg);
        return 0;
    case OPT_INTRA:
        o->intra_path = arg;
        return read_params("--intra-params", arg, &o->intra);
    case OPT_DIMS:
        st = parse_list(arg, PARSE_RANGE_STEP1, 1, TOPO_MAX_DIMS, o->dims, TOPO_MAX_DIMS, &n, &pos);
        if (st)
            return scisim_usage_error("--dims '%s': %s, expected 3, 1..4 or 1,2,4 within 1..16", arg,
                                      parse_status_text(st));
        o->ndims = n;
        return 0;
    case OPT_SHAPE:
        if (o->nshapes == SCISIM_MAX_CANDIDATES)
            return scisim_usage_error("--shape: at most %d", SCISIM_MAX_CANDIDATES);
        o->shape_text[o->nshapes++] = arg;
        return 0;
    case OPT_NODES:
        if ((st = parse_long(arg, 1, TRAFFIC_MAX_RANKS, &o->nodes)))
            return scisim_usage_error("--nodes '%s': %s, expected 1..%ld", arg, parse_status_text(st),
                                      TRAFFIC_MAX_RANKS);
        return 0;
    case OPT_LINKS:
        o->links_given = 1;
        if (topo_links_parse(arg, &o->links))
            return scisim_usage_error("--links '%s': expected uni or bi", arg);
        return 0;
    case OPT_SLOTS:
        if ((st = parse_long(arg, 1, TRAFFIC_MAX_RANKS, &o->slots)))
            return scisim_usage_error("--slots '%s': %s, expected 1..%ld", arg, parse_status_text(st),
                                      TRAFFIC_MAX_RANKS);
        return 0;
    case OPT_PLACEMENT:
        if (!*arg)
            return scisim_usage_error("--placement '': expected row-major or a file");
        o->placement = arg;
        return 0;
    case OPT_STEPS:
        if ((st = parse_long(arg, 1, PROJ_ANNEAL_MAX_STEPS, &o->anneal_steps)))
            return scisim_usage_error("--anneal-steps '%s': %s, expected 1..%ld", arg,
                                      parse_status_text(st), PROJ_ANNEAL_MAX_STEPS);
        return 0;
    case OPT_CONTENTION: o->contention = 1; return 0;
    case OPT_RANKS: o->ranks = 1; return 0;
    case OPT_EAGER: {
        long v;
        if ((st = parse_long(arg, 0, LONG_MAX, &v)))
            return scisim_usage_error("--eager '%s': %s, expected bytes >= 0", arg, parse_status_text(st));
        o->S = (uint64_t)v;
        return 0;
    }
    case OPT_FORMAT:
        if (strcmp(arg, "tsv") && strcmp(arg, "table"))
            return scisim_usage_error("--format '%s': expected table or tsv", arg);
        o->tsv = strcmp(arg, "tsv") == 0;
        return 0;
    case 'o':
        o->out_path = arg;
        return 0;
    case 'q':
        o->quiet = 1;
        return 0;
    default:
        return scisim_usage_error("unknown option");
    }
}

int scisim_parse_options(int argc, char **argv, scisim_opts *o, int *done)
{
    int seen[OPT_FORMAT + 1] = {0}, c, rc;
    memset(o, 0, sizeof *o);
    *done = 0;
    o->lg = (sim_loggp){SIM_DEFAULT_L, SIM_DEFAULT_o, SIM_DEFAULT_g, SIM_DEFAULT_G, SIM_DEFAULT_O};
    o->S = SIM_DEFAULT_S;
    o->slots = 1;
    o->placement = "row-major";
    o->anneal_steps = PROJ_ANNEAL_DEFAULT_STEPS;
    model_params_preset("current", &o->inter);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "ho:q", long_options, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            *done = 1;
            return 0;
        }
        if (c == '?' || c == ':')
            return scisim_usage_error("'%s': unknown option or missing value", argv[optind - 1]);
        if (c != OPT_SHAPE && c < (int)(sizeof seen / sizeof *seen) && seen[c]++)
            return scisim_usage_error("'%s' given twice", argv[optind - 1]);
        if ((c == OPT_PARAMS || c == OPT_PRESET) && seen[OPT_PARAMS] + seen[OPT_PRESET] > 1)
            return scisim_usage_error("--params and --preset: one of them");
        if ((rc = parse_one(o, c, optarg)))
            return rc;
    }
    if (optind != argc - 1)
        return scisim_usage_error(optind >= argc ? "no schedule named" : "one schedule only, got '%s'",
                                  optind < argc ? argv[optind + 1] : "");
    o->goal_path = argv[optind];
    if (o->loggp_given && (o->params_given || o->ndims || o->nshapes || o->contention ||
                           o->links_given || o->slots > 1 || o->nodes || o->intra_path ||
                           seen[OPT_EAGER] || seen[OPT_PLACEMENT] || seen[OPT_STEPS]))
        return scisim_usage_error("--loggp has no topology: no --params, --preset, --dims, "
                                  "--shape, --nodes, --links, --slots, --placement, --anneal-steps, "
                                  "--contention, --intra-params or --eager (S= sets the eager limit)");
    if (!o->links_given)
        o->links = o->inter.links;
    if (!o->intra_path)
        o->intra = o->inter;
    if (!o->loggp_given && !o->ndims && !o->nshapes) {
        for (long d = 0; d < 4; d++)
            o->dims[d] = d + 1;
        o->ndims = 4;
    }
    return 0;
}

int scisim_read_goal(const scisim_opts *o, goal_schedule *s)
{
    goal_error err;
    int rc = goal_read(o->goal_path, s, &err);
    if (rc == -1)
        return scisim_runtime_error("%s: %s", o->goal_path, err.msg);
    if (rc && err.line)
        return scisim_runtime_error("%s:%ld: %s", o->goal_path, err.line, err.msg);
    if (rc)
        return scisim_runtime_error("%s: %s", o->goal_path, err.msg);
    return 0;
}
