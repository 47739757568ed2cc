/* scisim_options: the command line as one table (util/opt.h): every value
 * checked and named in the message, an option given twice refused, exit 2
 * on misuse. */
#include <stddef.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/launch.h"
#include "scimodel/launch_opts.h"
#include "model/projection.h"
#include "model/traffic.h"
#include "sched/collgen.h"
#include "scisim/scisim.h"
#include "util/atomicfile.h"
#include "util/cli.h"
#include "util/fs.h"
#include "util/opt.h"
#include "util/parse.h"

int scisim_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = cli_vmessage(2, "scisim", " (try --help)", fmt, ap);
    va_end(ap);
    return rc;
}

int scisim_runtime_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = cli_vmessage(1, "scisim", "", fmt, ap);
    va_end(ap);
    return rc;
}

/* "L=2500,o=1500": keys of LogGOPSim's command line, whole ns. */
static int parse_loggp(void *dest, const char *arg, char *why, size_t len)
{
    scisim_opts *o = dest;
    static const char keys[] = "LogGOS";
    int seen[6] = {0};
    char buf[256];
    if (strlen(arg) >= sizeof buf)
        return snprintf(why, len, "too long"), 1;
    strcpy(buf, arg);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        const char *k = eq && eq - tok == 1 ? strchr(keys, tok[0]) : NULL;
        if (!k)
            return snprintf(why, len, "'%s' is not KEY=VALUE with KEY one of L o g G O S", tok), 1;
        int i = (int)(k - keys);
        if (seen[i]++)
            return snprintf(why, len, "%c given twice", *k), 1;
        long v;
        parse_status st = parse_long(eq + 1, 0, INT_MAX, &v);
        if (st)
            return snprintf(why, len, "%c=%s: %s, expected a whole number 0..%d", *k, eq + 1,
                            parse_status_text(st), INT_MAX), 1;
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

#define F(field) offsetof(scisim_opts, field)

/* "NS[,NS_PER_BYTE]": the receive's extra cost while the node's own message flies. */
static int parse_duplex(void *dest, const char *arg, char *why, size_t len)
{
    scisim_opts *o = dest;
    char buf[128];
    if (strlen(arg) >= sizeof buf)
        return snprintf(why, len, "too long"), 1;
    strcpy(buf, arg);
    char *comma = strchr(buf, ',');
    if (comma)
        *comma = 0;
    double v[2] = {0, 0};
    const char *part[2] = {buf, comma ? comma + 1 : NULL};
    for (int i = 0; i < 2 && part[i]; i++) {
        parse_status st = parse_double(part[i], 0, 1e12, &v[i]);
        if (st)
            return snprintf(why, len, "'%s': %s, expected NS[,NS_PER_BYTE], each 0 to 1e12", part[i],
                            parse_status_text(st)), 1;
    }
    o->duplex_ns = v[0], o->duplex_ns_per_byte = v[1];
    return 0;
}

static int parse_eager(void *dest, const char *arg, char *why, size_t len)
{
    long v;
    parse_status st = parse_long(arg, 0, LONG_MAX, &v);
    if (st)
        return snprintf(why, len, "%s, expected bytes >= 0", parse_status_text(st)), 1;
    ((scisim_opts *)dest)->S = (uint64_t)v;
    return 0;
}

static int parse_pattern(void *dest, const char *arg, char *why, size_t len)
{
    scisim_opts *o = dest;
    if (topo_pattern_parse(arg, &o->pattern))
        return snprintf(why, len, "unknown pattern, expected uniform, neighbor, tornado,"
                        " complement (bitcomp) or transpose"), 1;
    return 0;
}

/* "R[,R...]": offered loads in flits per node per cycle. */
static int parse_rates(void *dest, const char *arg, char *why, size_t len)
{
    scisim_opts *o = dest;
    char buf[1024];
    if (strlen(arg) >= sizeof buf)
        return snprintf(why, len, "too long"), 1;
    strcpy(buf, arg);
    o->nrates = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        parse_status st = parse_double(tok, 1e-9, 1, &v);
        if (st || o->nrates == SCISIM_MAX_COLL)
            return snprintf(why, len, "'%s': %s, expected rates in (0, 1], at most %d", tok,
                            st ? parse_status_text(st) : "too many", SCISIM_MAX_COLL), 1;
        o->rates[o->nrates++] = v;
    }
    if (!o->nrates)
        return snprintf(why, len, "empty, expected rates in (0, 1]"), 1;
    return 0;
}

static const opt_spec specs[] = {
    {.kind = OPT_HEADING, .help = "Network (one of):"},
    {.name = "loggp", .kind = OPT_CUSTOM, .parse = parse_loggp, .arg = "L=..,o=..,g=..,G=..,O=..,S=..",
     .bad = "L=x",
     .help = "LogGOPS, no topology; ns and ns per byte (G, O), whole numbers;\n"
             "missing keys take LogGOPSim's defaults L=2500 o=1500 g=1000 G=6\n"
             "O=0 S=65535; the finishing times are LogGOPSim's"},
    {.name = "params", .kind = OPT_PATH, .field = F(params_path), .arg = "FILE",
     .help = "candidate tori with these parameters: wire time H lp + F lf +\n"
             "S ls + (F+S) lb m of the route, endpoints os(m)/or(m) where the\n"
             "file has LogP terms, else o(m) at each end"},
    {.name = "preset", .kind = OPT_ENUM, .field = F(preset),
     .choices = (const char *const[]){"current", "enhanced", NULL}, .arg = "P",
     .help = "candidate tori with a thesis preset (default current)"},
    {.kind = OPT_HEADING, .help = "Tori:"},
    {.name = "dims", .kind = OPT_LIST, .field = F(dims), .count_field = F(ndims),
     .cap = TOPO_MAX_DIMS, .min = 1, .max = TOPO_MAX_DIMS, .range = "1..16", .arg = "LIST",
     .help = "for each D every torus of exactly the nodes (3x2 and 2x3\n"
             "both), the smallest n^D holding them, and the schedule's own\n"
             "grid if its traffic shows one (1..4 by default)"},
    {.name = "shape", .kind = OPT_STRINGS, .field = F(shape_text), .count_field = F(nshapes),
     .cap = SCISIM_MAX_CANDIDATES, .arg = "S",
     .help = "a candidate of that exact shape (repeatable)"},
    {.name = "nodes", .kind = OPT_LONG, .field = F(nodes), .min = 1, .max = TRAFFIC_MAX_RANKS,
     .range = "1..2^24", .arg = "N",
     .help = "size the --dims candidates for N nodes (default: the ranks' nodes)"},
    {.name = "links", .kind = OPT_ENUM, .field = F(links_choice),
     .choices = (const char *const[]){"params", "uni", "bi", NULL}, .arg = "L",
     .help = "uni (one ring a dimension, SCI) | bi (a pair); default: the\n"
             "params file's, else uni"},
    LAUNCH_OPT_ROWS,
    {.name = "self-params", .kind = OPT_PATH, .field = F(self_path), .arg = "FILE",
     .help = "endpoints of a rank's messages to itself, which MPI copies\n"
             "in memory (e.g. a shared-memory calibration; default:\n"
             "--intra-params)"},
    {.name = "contention", .kind = OPT_FLAG, .field = F(contention),
     .help = "directed links carry one message at a time at\n"
             "link_bw_bytes_per_ns, FIFO; reports waiting and the busiest links"},
    {.name = "router-passes", .kind = OPT_LONG, .field = F(router_passes), .min = 2, .max = 16,
     .def = "4", .range = "2..16", .arg = "K",
     .help = "with --router: replays, the first at zero load, each\n"
             "after with the queueing the router model gave the one before"},
    {.name = "duplex", .kind = OPT_CUSTOM, .parse = parse_duplex, .arg = "NS[,NS/B]", .bad = "-1",
     .help = "a message reaching a node while one of the node's own\n"
             "messages is in flight costs the receiver NS + NS/B m more\n"
             "(a two-rank exchange measured minus one message replayed)"},
    {.name = "eager", .kind = OPT_CUSTOM, .parse = parse_eager, .arg = "S", .bad = "-1",
     .help = "eager up to S bytes, rendezvous above (default 65535)"},
    {.kind = OPT_HEADING, .help = "A collective instead of SCHEDULE.goal (docs/model.md,"
                                  " 'Collectives'):"},
    {.name = "collective", .kind = OPT_ENUM, .field = F(collective), .choices = coll_op_names,
     .arg = "OP", .help = "barrier, bcast, reduce, allreduce, allgather, alltoall,\n"
                          "gather or scatter: replay its schedule on the network above"},
    {.name = "algorithm", .kind = OPT_STRING, .field = F(algorithm), .arg = "ALG", .bad = "",
     .help = "the algorithm (--collective-list; default: Open MPI\n"
             "tuned's pick for small P); tuned or mpich: the one\n"
             "Open MPI 4.1 or MPICH picks for P and M"},
    {.name = "procs", .kind = OPT_LIST, .field = F(procs), .count_field = F(nprocs),
     .cap = SCISIM_MAX_COLL, .min = 1, .max = 4096, .def = "2", .range = "1..4096",
     .arg = "LIST", .help = "processes of the collective (a list with --logp or\n--emit-goal)"},
    {.name = "size", .kind = OPT_LIST, .field = F(sizes), .count_field = F(nsizes),
     .cap = SCISIM_MAX_COLL, .min = 0, .max = 1L << 30, .def = "8", .range = "0..1 GiB",
     .arg = "LIST", .alias = "sizes",
     .help = "message size in bytes (a list with --logp or --emit-goal)"},
    {.name = "root", .kind = OPT_LONG, .field = F(root), .min = 0, .max = 4095, .def = "0",
     .range = "0..procs-1", .arg = "R", .help = "root of a rooted collective"},
    {.name = "logp", .kind = OPT_PATH, .field = F(logp_path), .arg = "FILE",
     .help = "no topology: the per-size os, or, g and L(m) of a LogP\n"
             "file (mpibench --pattern logp; the file calibrate --logp\n"
             "fits); a table: collective algorithm procs size predicted_ns"},
    {.name = "emit-goal", .kind = OPT_FLAG, .field = F(emit_goal),
     .help = "write the schedule as GOAL text instead of replaying it"},
    {.name = "collective-list", .kind = OPT_FLAG, .field = F(collective_list),
     .help = "the algorithms of each collective, the default first"},
    {.kind = OPT_HEADING, .help = "Synthetic traffic instead of SCHEDULE.goal (docs/router.md):"},
    {.name = "traffic-pattern", .kind = OPT_CUSTOM, .parse = parse_pattern, .arg = "P", .bad = "x",
     .help = "uniform, transpose, tornado, neighbor or bitcomp (complement):\n"
             "scimodel --pattern's destinations, on one --shape through\n"
             "the router model; a latency-load table and the saturation"},
    {.name = "rate", .kind = OPT_CUSTOM, .parse = parse_rates, .arg = "R[,R..]", .bad = "0",
     .help = "offered loads in flits per node per cycle, Bernoulli\n"
             "(default: 1% and 10% .. 100% of the saturation found)"},
    {.name = "router", .kind = OPT_STRING, .field = F(router_text), .arg = "SPEC", .bad = "vc:0",
     .help = "the router model, here and for a schedule's tori:\n"
             "vc:V,buf:B|inf,delay:R,head:H,link:L,flit:F,packet:P,\n"
             "dateline:on|off (default vc:2,buf:8,delay:5,head:2,link:1,\n"
             "flit:64,packet:4096,dateline:on; cycles, bytes)"},
    {.name = "warmup", .kind = OPT_LONG, .field = F(warmup), .min = 0, .max = 100000000,
     .def = "3000", .range = "0..1e8", .arg = "C", .help = "cycles of warm-up"},
    {.name = "measure", .kind = OPT_LONG, .field = F(measure), .min = 100, .max = 100000000,
     .def = "10000", .range = "100..1e8", .arg = "C",
     .help = "cycles whose packets are measured (then drained)"},
    {.name = "saturation-latency", .kind = OPT_LONG, .field = F(sat_latency), .min = 1,
     .max = 1000000, .def = "500", .range = "1..1e6", .arg = "C",
     .help = "a rate is past saturation when its mean latency exceeds C\n"
             "cycles or its packets do not drain (BookSim's latency_thres)"},
    {.name = "saturation-step", .kind = OPT_DOUBLE, .field = F(sat_step), .min = 1e-4,
     .max = 1, .def = "0.005", .range = "1e-4..1", .arg = "S",
     .help = "the bisection's resolution in flits per node per cycle\n"
             "(1: no search, the --rate rows only)"},
    {.name = "seed", .kind = OPT_LONG, .field = F(traffic_seed), .min = 1, .max = 1e15,
     .def = "1", .range = "1..1e15", .arg = "N", .help = "the traffic's random seed"},
    {.kind = OPT_HEADING, .help = "Output:"},
    {.name = "ranks", .kind = OPT_FLAG, .field = F(ranks),
     .help = "per rank: rank finish_ns (one block per candidate)"},
    {.name = "format", .kind = OPT_ENUM, .field = F(format),
     .choices = (const char *const[]){"table", "tsv", NULL}, .def = "table", .arg = "F",
     .help = "table | tsv: dims shape placement links makespan_ns\n"
             "mean_finish_ns messages bytes wait_ns nodes makespan_ns_lo\n"
             "makespan_ns_hi grid"},
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = F(out_path), .arg = "FILE",
     .help = "write there (atomically; - is standard output)"},
    {.name = "quiet", .short_name = 'q', .kind = OPT_FLAG, .field = F(quiet),
     .help = "no progress on stderr"},
};

#define NO_TOPOLOGY "--loggp has no topology"
#define NO_LOGP_TOPOLOGY "--logp has no topology"
static const opt_conflict conflicts[] = {
    {"params", "preset", "give only one of them"},
    LAUNCH_OPT_CONFLICTS,
    {"loggp", "params", NO_TOPOLOGY}, {"loggp", "preset", NO_TOPOLOGY},
    {"loggp", "dims", NO_TOPOLOGY}, {"loggp", "shape", NO_TOPOLOGY},
    {"loggp", "nodes", NO_TOPOLOGY}, {"loggp", "links", NO_TOPOLOGY},
    {"loggp", "slots", NO_TOPOLOGY}, {"loggp", "hostfile", NO_TOPOLOGY},
    {"loggp", "placement", NO_TOPOLOGY}, {"loggp", "anneal-steps", NO_TOPOLOGY},
    {"loggp", "intra-params", NO_TOPOLOGY}, {"loggp", "contention", NO_TOPOLOGY},
    {"loggp", "self-params", NO_TOPOLOGY " (its self-messages are LogGOPSim's: L, o, g)"},
    {"loggp", "eager", NO_TOPOLOGY " (its S= sets the eager limit)"},
    {"loggp", "duplex", NO_TOPOLOGY " (its rules are LogGOPSim's)"},
    {"logp", "duplex", NO_LOGP_TOPOLOGY},
    {"emit-goal", "logp", "the schedule is written, not replayed"},
    {"logp", "loggp", "the LogP file is the network"}, {"logp", "params", "the LogP file is the network"},
    {"logp", "preset", "the LogP file is the network"}, {"logp", "dims", NO_LOGP_TOPOLOGY},
    {"logp", "shape", NO_LOGP_TOPOLOGY}, {"logp", "self-params", NO_LOGP_TOPOLOGY},
    {"logp", "contention", NO_LOGP_TOPOLOGY},
    {"router", "contention", "--contention is the FIFO link model; --router replaces it"},
    {"router", "loggp", NO_TOPOLOGY}, {"router", "logp", NO_LOGP_TOPOLOGY},
    {"router-passes", "loggp", NO_TOPOLOGY}, {"router-passes", "logp", NO_LOGP_TOPOLOGY},
};

static const opt_program program = {
    .name = "scisim",
    .synopsis = "Usage: scisim SCHEDULE.goal [options]\n"
                "       scisim --collective OP [--algorithm ALG] --procs P --size M [options]\n"
                "Replays a GOAL schedule (LogGOPSim's format: send, recv, calc, requires,\n"
                "irequires), or a named collective algorithm's, and reports when every\n"
                "rank finishes.\n",
    .epilog = "Ctrl-C stops a replay or a --logp table: what finished is kept, ending\n"
              "'# incomplete', and no best is named (exit 130).\n"
              "  e.g. scisim app.goal --params sci.params --dims 1..4 --contention\n"
              "       scisim --collective bcast --procs 8 --size 1024 --loggp L=2500,o=1500\n"
              "       scisim --collective allreduce --procs 2..8 --size 8,4096 --logp logp.tsv\n"
              "       scisim --collective alltoall --procs 4 --size 64 --emit-goal -o a2a.goal\n"
              "       scisim --traffic-pattern uniform --shape 8x8 --links bi --router vc:8,packet:64\n",
    .specs = specs,
    .nspecs = sizeof specs / sizeof specs[0],
    .conflicts = conflicts,
    .nconflicts = sizeof conflicts / sizeof conflicts[0],
    .args_min = 0,   /* SCHEDULE.goal, unless --collective */
    .args_max = 1,
};

/* --traffic-pattern: one --shape, no schedule; its options only with it. */
static int traffic_settle(scisim_opts *o, const opt_state *st, char **argv)
{
    static const char *const only[] = {"rate", "warmup", "measure", "saturation-latency",
                                       "saturation-step", "seed"};
    static const char *const not[] = {"loggp", "logp", "collective", "collective-list", "dims",
                                      "contention", "ranks", "placement", "hostfile",
                                      "rankfile", "nodes"};
    o->traffic_given = opt_given(st, "traffic-pattern");
    if (!o->traffic_given) {
        for (size_t i = 0; i < sizeof only / sizeof *only; i++)
            if (opt_given(st, only[i]))
                return opt_usage_error(&program, "--%s: a synthetic traffic option; give"
                                       " --traffic-pattern P", only[i]);
        return 0;
    }
    if (o->sat_step >= 1 && !o->nrates)
        return opt_usage_error(&program, "--saturation-step 1 searches nothing: give --rate");
    for (size_t i = 0; i < sizeof not / sizeof *not; i++)
        if (opt_given(st, not[i]))
            return opt_usage_error(&program, "--%s: not with --traffic-pattern", not[i]);
    if (st->nargs)
        return opt_usage_error(&program, "'%s': --traffic-pattern makes its own traffic; give no"
                               " SCHEDULE.goal", argv[st->first_arg]);
    if (o->nshapes != 1)
        return opt_usage_error(&program, "--traffic-pattern: give one --shape");
    o->goal_path = "";
    return 0;
}

/* SCHEDULE.goal or --collective OP (--collective-list alone), and the
 * options that only a collective takes. */
static int collective_settle(scisim_opts *o, const opt_state *st, char **argv)
{
    static const char *const only[] = {"algorithm", "procs", "size", "root", "logp", "emit-goal"};
    o->collective_given = opt_given(st, "collective");
    if (o->collective_given || o->collective_list) {
        if (st->nargs)
            return opt_usage_error(&program, "'%s': --collective replays its own schedule; give"
                                   " no SCHEDULE.goal", argv[st->first_arg]);
        o->goal_path = o->logp_path ? o->logp_path : "";
        return 0;
    }
    for (size_t i = 0; i < sizeof only / sizeof *only; i++)
        if (opt_given(st, only[i]))
            return opt_usage_error(&program, "--%s: a collective's option; give --collective OP",
                                   only[i]);
    if (!st->nargs)
        return opt_usage_error(&program, "missing argument: SCHEDULE.goal (or --collective OP)");
    o->goal_path = argv[st->first_arg];
    return 0;
}

int scisim_parse_options(int argc, char **argv, scisim_opts *o, int *done)
{
    opt_state st;
    memset(o, 0, sizeof *o);
    *done = 0;
    o->lg = (sim_loggp){SIM_DEFAULT_L, SIM_DEFAULT_o, SIM_DEFAULT_g, SIM_DEFAULT_G, SIM_DEFAULT_O};
    o->S = SIM_DEFAULT_S;
    int rc = opt_parse(&program, argc, argv, o, &st);
    if (rc == OPT_DONE) {
        *done = 1;
        return 0;
    }
    if (rc)
        return rc;
    o->loggp_given = opt_given(&st, "loggp");
    if ((rc = traffic_settle(o, &st, argv)) || (!o->traffic_given && (rc = collective_settle(o, &st, argv))))
        return rc;
    char why[200];
    o->launch = (launch_request){o->hostfile, o->rankfile, {0}, o->slots};
    if (launch_request_finish(&o->launch, o->map_by, o->rank_by, why, sizeof why))
        return opt_usage_error(&program, "%s", why);
    int placement_file = strcmp(o->placement, "row-major") && strcmp(o->placement, "optimize");
    const fs_file in[] = {
        {"SCHEDULE.goal", o->collective_given ? NULL : o->goal_path}, {"--logp", o->logp_path},
        {"--params", o->params_path}, {"--intra-params", o->intra_path},
        {"--self-params", o->self_path}, {"--hostfile", o->hostfile},
        {"--rankfile", o->rankfile}, {"--placement", placement_file ? o->placement : NULL}};
    const fs_file out = {"-o", o->out_path};
    if ((rc = fs_refuse_same("scisim", in, sizeof in / sizeof in[0], &out, 1)) ||
        (rc = fs_refuse_missing_dir("scisim", &out, 1)))   /* before minutes of replay */
        return rc;
    if (o->params_path && (rc = read_params("--params", o->params_path, &o->inter)))
        return rc;
    if (!o->params_path)
        model_params_preset(o->preset ? "enhanced" : "current", &o->inter);
    if (o->intra_path && (rc = read_params("--intra-params", o->intra_path, &o->intra)))
        return rc;
    /* an explicit --links wins over the params file's `links` key */
    o->links = o->links_choice ? (o->links_choice == 2 ? TOPO_LINKS_BI : TOPO_LINKS_UNI)
                               : o->inter.links;
    if (!o->intra_path)
        o->intra = o->inter;
    if (o->self_path && (rc = read_params("--self-params", o->self_path, &o->self)))
        return rc;
    if (!o->self_path)
        o->self = o->intra;
    o->tsv = o->format == 1;
    sim_router_defaults(&o->router);
    if (o->router_text && sim_router_parse(o->router_text, &o->router, why, sizeof why))
        return opt_usage_error(&program, "--router '%s': %s", o->router_text, why);
    if (opt_given(&st, "router-passes") && !o->router_text)
        return opt_usage_error(&program, "--router-passes: give --router SPEC");
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
