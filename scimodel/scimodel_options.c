/* scimodel_options: scimodel's options as one table (util/opt.h), --traffic
 * included (its options carry .scope), and the checks that need several of
 * them.  Presets and params files are applied after the whole command line
 * is read, so an explicit --links wins over them whatever the order. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scimodel/scimodel.h"
#include "util/opt.h"
#include "util/parse.h"

#define MAX_SIZE_BYTES (1L << 40)
#define MAX_SWEEP_NODES 100000000L    /* one output line per N */
#define MAX_SWEEP_POINTS 10000000L
#define MAX_RATES (sizeof ((scimodel_options *)0)->rates / sizeof(double))

#define F(field) offsetof(scimodel_options, field)

/* Where an option applies (opt_spec .scope; 0: every mode). */
enum { SCOPE_MODEL = 1, SCOPE_TRAFFIC = 2 };
#define LAUNCH_OPT_SCOPE SCOPE_TRAFFIC
#include "scimodel/launch_opts.h"

static const char *const presets[] = {"current", "enhanced", NULL};
enum { METRIC_AVG, METRIC_MULTICAST, METRIC_BOTH };

/* "0.001,0.002" or (utilisation) "0.1..0.9" / "0.1..0.9:0.2": rates in
 * (0, max); a range steps by 0.1 unless given. */
static int parse_rates(scimodel_options *o, const char *arg, double max, char *why, size_t len)
{
    char buf[512], *save = NULL;
    double step = 0.1;
    if (strlen(arg) >= sizeof buf)
        return snprintf(why, len, "too long"), 1;
    snprintf(buf, sizeof buf, "%s", arg);
    o->nrates = 0;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *dots = strstr(item, ".."), *colon = dots ? strchr(dots, ':') : NULL;
        double a, b = 0;
        if (colon) {
            *colon = '\0';
            if (parse_double(colon + 1, 1e-6, 1, &step))
                return snprintf(why, len, "bad step '%s'", colon + 1), 1;
        }
        if (dots)
            *dots = '\0';
        if (parse_double(item, 0, max, &a) || a <= 0 || a >= max ||
            (dots && (parse_double(dots + 2, 0, max, &b) || b >= max || b < a)))
            return snprintf(why, len, "expected %s",
                            max == 1 ? "fractions of the saturation rate in (0, 1), e.g. "
                                       "0.1..0.9 or 0.2,0.5"
                                     : "rates > 0 in messages/ns/node, e.g. 0.001,0.002"), 1;
        for (double v = a; o->nrates < MAX_RATES; v += step) {
            o->rates[o->nrates++] = v;
            if (!dots || v + step > b + 1e-9)
                break;
        }
    }
    if (o->nrates == 0)
        return snprintf(why, len, "no values"), 1;
    o->rates_text = arg;
    return 0;
}

static int parse_rates_abs(void *dest, const char *arg, char *why, size_t len)
{
    ((scimodel_options *)dest)->rates_are_util = 0;
    return parse_rates(dest, arg, HUGE_VAL, why, len);
}

static int parse_utilisation(void *dest, const char *arg, char *why, size_t len)
{
    ((scimodel_options *)dest)->rates_are_util = 1;
    return parse_rates(dest, arg, 1, why, len);
}

static int parse_shape(void *dest, const char *arg, char *why, size_t len)
{
    scimodel_options *o = dest;
    topo_parse_error perr;
    if (topo_shape_parse(arg, &o->shape, &perr))
        return snprintf(why, len, "%s at character %zu", perr.what, perr.pos + 1), 1;
    if (o->nshapes == SCIMODEL_MAX_SHAPES)
        return snprintf(why, len, "at most %d shapes", SCIMODEL_MAX_SHAPES), 1;
    o->shape_texts[o->nshapes++] = arg;
    o->shape_given = 1;
    o->shape_text = arg;
    return 0;
}

static int parse_links(void *dest, const char *arg, char *why, size_t len)
{
    scimodel_options *o = dest;
    if (strcmp(arg, "params") == 0) {   /* the default: the params file's, else uni */
        o->links_given = 0;
        return 0;
    }
    if (topo_links_parse(arg, &o->params.links))
        return snprintf(why, len, "unknown kind of links, expected uni, bi or params"), 1;
    o->links_choice = o->params.links == TOPO_LINKS_BI;
    o->links_given = 1;
    return 0;
}

static int parse_pattern(void *dest, const char *arg, char *why, size_t len)
{
    scimodel_options *o = dest;
    if (topo_pattern_parse(arg, &o->pattern))
        return snprintf(why, len, "unknown pattern, expected uniform, neighbor, tornado, "
                                  "complement or transpose"), 1;
    o->pattern_given = 1;
    return 0;
}

static const opt_spec specs[] = {
    {.kind = OPT_HEADING, .help = "Parameters (one of; default --preset current):"},
    {.name = "preset", .kind = OPT_ENUM, .field = F(preset), .choices = presets, .arg = "NAME",
     .help = "current | enhanced (thesis Table 1 and section 6.2)"},
    {.name = "params", .kind = OPT_PATH, .field = F(params_path), .arg = "FILE",
     .help = "a params file, e.g. one written by calibrate"},
    {.name = "links", .kind = OPT_CUSTOM, .field = F(links_choice), .parse = parse_links,
     .arg = "K", .bad = "both",
     .help = "uni (SCI rings, one way round) | bi (a pair of opposite\n"
             "rings per dimension, shortest way) | params (default:\n"
             "the params file's links, else uni); wins over a\n"
             "preset's or a params file's links, in any order"},
    {.kind = OPT_HEADING, .help = "What to compute (default: the report):"},
    {.name = "crossover", .scope = SCOPE_MODEL, .kind = OPT_FLAG, .field = F(crossover),
     .help = "only the crossover table (consecutive requested D)"},
    {.name = "routes", .scope = SCOPE_MODEL, .kind = OPT_FLAG, .field = F(routes),
     .help = "with --shape: each node's next hop towards every\n"
             "other, by dimension-order routing on --links (TSV:\n"
             "docs/formats.md, 'Routes')"},
    {.name = "sweep", .scope = SCOPE_MODEL, .kind = OPT_FLAG, .field = F(sweep),
     .help = "one line per integer N from 2^min(D) to --nodes (TSV,\n"
             "'-' where a D does not exist yet); for plots.  Cost:\n"
             "one line per N (--nodes 1e8: 1e8 lines, about 10 GB\n"
             "and over a minute); --fill interpolate costs more per\n"
             "line.  Progress goes to stderr every 2 s\n"
             "(--progress S: every S seconds, 0 never)"},
    {.name = "sweep-points", .scope = SCOPE_MODEL, .kind = OPT_LONG, .field = F(sweep_points), .min = 2,
     .max = MAX_SWEEP_POINTS, .range = "2..1e7", .arg = "K",
     .help = "with --sweep: about K log-spaced integer N instead of\n"
             "every one (for log-scale plots up to 1e15 nodes);\n"
             "cost proportional to K times the number of D"},
    {.name = "shape", .kind = OPT_CUSTOM, .field = F(shape), .parse = parse_shape, .arg = "S",
     .bad = "4x", .repeat = 1,
     .help = "the report row of one exact torus, e.g. 4x4x4 or 1000;\n"
             "with --traffic a candidate of that shape (repeatable)"},
    {.name = "hops", .scope = SCOPE_MODEL, .kind = OPT_STRING, .field = F(hops_text), .arg = "H",
     .help = "with --shape: request, response and transaction latency\n"
             "for the hop vector H (h1,h2,... one per dimension,\n"
             "0 <= h_i < n_i)"},
    {.name = "pattern", .scope = SCOPE_MODEL, .kind = OPT_CUSTOM, .field = F(pattern), .parse = parse_pattern,
     .arg = "P", .bad = "random",
     .help = "uniform (default) | neighbor | tornado | complement |\n"
             "transpose: the mean request latency over the pattern's\n"
             "messages, in the report, --shape, --crossover and --sweep"},
    {.name = "bcast", .scope = SCOPE_MODEL, .kind = OPT_ENUM, .field = F(bcast), .arg = "A",
     .choices = (const char *const[]){"multicast", "binomial", NULL},
     .help = "multicast (N - 1 unicasts, the thesis's) | binomial (MPI's\n"
             "binomial tree from rank 0, ranks row-major): broadcast\n"
             "time per D at the nearest integer torus (or for\n"
             "--shape), crossovers and --sweep of that curve.\n"
             "binomial is exact on integer tori, O(N D) per torus\n"
             "(2^20 nodes: about 0.05 s; at most 2^26), interpolated\n"
             "between them; its crossovers are searched up to\n"
             "2^20 nodes"},
    {.name = "logp", .scope = SCOPE_MODEL, .kind = OPT_FLAG, .field = F(logp),
     .help = "the LogP parameters of --params (calibrate --logp's\n"
             "keys) at --size: os(m), or(m), g(m), L, beside o(m)"},
    {.name = "load", .scope = SCOPE_MODEL, .kind = OPT_FLAG, .field = F(load),
     .help = "latency under load: every node injects m-byte messages\n"
             "(Poisson) to the pattern's destinations; per D at the\n"
             "nearest integer torus to --nodes (or for --shape):\n"
             "saturation rate, bottleneck links, latency against\n"
             "offered load (FIFO channels: the merge identity of\n"
             "deterministic servers; the independent-queue value\n"
             "beside it).  Link speed from the params key\n"
             "link_bw_bytes_per_ns (presets 1.0)"},
    {.name = "rates", .scope = SCOPE_MODEL, .kind = OPT_CUSTOM, .field = F(rates), .parse = parse_rates_abs,
     .arg = "LIST", .bad = "0",
     .help = "with --load: messages/ns/node, e.g. 0.0005,0.001\n"
             "(each below every shape's saturation rate)"},
    {.name = "utilisation", .scope = SCOPE_MODEL, .alias = "utilization", .kind = OPT_CUSTOM, .field = F(rates),
     .parse = parse_utilisation, .arg = "LIST", .bad = "1.5",
     .help = "with --load: fractions of the saturation rate,\n"
             "0.1..0.9 (default; a..b steps 0.1, a..b:s by s) or 0.5\n"
             "(also spelt --utilization)"},
    {.kind = OPT_HEADING, .help = "Settings:"},
    {.name = "dims", .kind = OPT_LIST, .field = F(dims), .count_field = F(ndims),
     .cap = TOPO_MAX_DIMS, .min = 1, .max = TOPO_MAX_DIMS, .def = "1..4",
     .range = "3, 1..4 or 1,2,4 within 1..16", .arg = "LIST",
     .help = "dimensions: 3, 1..4 or 1,2,4 (1..16; default 1..4);\n"
             "sorted, repeats dropped.  With --traffic, for each D\n"
             "every torus of exactly the nodes needed (3x2 and 2x3\n"
             "both), the smallest n^D holding them, and the\n"
             "application's own grid if its matrix shows one\n"
             "(default 1..4 without --shape)"},
    {.name = "nodes", .scope = SCOPE_MODEL, .kind = OPT_LONG, .field = F(nodes), .min = 2, .max = TOPO_MAX_NODES,
     .range = "2..1e15", .def = "1000", .arg = "N", .help = "system size (default 1000; >= 2)"},
    {.name = "size", .scope = SCOPE_MODEL, .kind = OPT_SIZE, .field = F(size_bytes), .min = 0, .max = MAX_SIZE_BYTES,
     .range = "0..2^40 bytes", .def = "64", .arg = "BYTES",
     .help = "message size m for o(m) (default 64)"},
    {.name = "metric", .scope = SCOPE_MODEL, .kind = OPT_ENUM, .field = F(metric), .def = "both", .arg = "M",
     .choices = (const char *const[]){"avg", "multicast", "both", NULL},
     .help = "avg | multicast | both (default both): which curves\n"
             "--crossover, --sweep and the report show"},
    {.name = "fill", .scope = SCOPE_MODEL, .kind = OPT_ENUM, .field = F(fill_choice), .arg = "F",
     .choices = (const char *const[]){"continuous", "interpolate", NULL},
     .help = "continuous (n = N^(1/D) real, the thesis's method) |\n"
             "interpolate (exact values on integer tori n^D, linear\n"
             "between them; the multicast metric, and every metric\n"
             "of a pattern without a continuous form)"},
    {.name = "format", .kind = OPT_ENUM, .field = F(format), .arg = "F",
     .choices = (const char *const[]){"table", "tsv", NULL},
     .help = "table (default) | tsv (header line of column names;\n"
             "--traffic's: dims shape placement messages total_ns\n"
             "mean_ns hop_bytes max_link_bytes nodes total_ns_lo\n"
             "total_ns_hi grid)"},
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = F(out_path), .arg = "FILE",
     .help = "write there, atomically (default and -: standard output)"},
    {.name = "progress", .scope = SCOPE_MODEL, .kind = OPT_DOUBLE, .field = F(progress_s), .min = 0, .max = 86400,
     .range = "seconds, 0..86400 (0: none)", .def = "2", .arg = "S",
     .help = "--sweep's progress line on stderr every S seconds\n(default 2; 0: never)"},
    {.kind = OPT_HEADING,
     .help = "Traffic projection (docs/model.md, 'Projecting an application'):"},
    {.name = "traffic", .kind = OPT_PATH, .field = F(traffic_path), .arg = "FILE",
     .scope = SCOPE_TRAFFIC,
     .help = "an application's traffic matrix (`scitrace matrix`): project its\n"
             "messages onto each candidate torus (--dims, --shape); one row per\n"
             "candidate and placement: messages, total and mean request latency,\n"
             "hop-bytes, the busiest directed link's bytes; then the winner.\n"
             "Takes --dims, --shape, --links, --preset, --params, --format,\n"
             "-o and the options below"},
    LAUNCH_OPT_ROWS,
};

#define GIVE_ONE_MODE "give only one of --sweep, --crossover, --shape"
#define MAX_ROUTES_NODES 4096   /* 16.8 million lines */
#define ROUTES_ALONE "--routes is a mode of its own, with --shape and --links"
#define GIVE_ONE_LOAD "give only one of --load, --sweep, --crossover, --bcast"
static const opt_conflict conflicts[] = {
    {"preset", "params", "give only one of --preset and --params"},
    {"sweep", "crossover", GIVE_ONE_MODE},
    {"shape", "sweep", GIVE_ONE_MODE},
    {"shape", "crossover", GIVE_ONE_MODE},
    {"crossover", "nodes", "--crossover searches every N up to 1e9"},
    {"bcast", "metric", "--bcast chooses the broadcast curve"},
    {"bcast", "pattern", "a broadcast is one-to-all, not a traffic pattern"},
    {"bcast", "hops", "a broadcast has no single hop vector"},
    {"rates", "utilisation", "give the load one way"},
    {"logp", "sweep", GIVE_ONE_MODE},
    {"logp", "crossover", GIVE_ONE_MODE},
    {"logp", "shape", GIVE_ONE_MODE},
    {"logp", "load", GIVE_ONE_MODE},
    {"logp", "preset", "the presets have no LogP parameters: give --params"},
    {"load", "sweep", GIVE_ONE_LOAD},
    {"load", "crossover", GIVE_ONE_LOAD},
    {"load", "bcast", GIVE_ONE_LOAD},
    {"load", "hops", "--load averages over the pattern's messages"},
    {"hops", "pattern", "a hop vector is one message, not a pattern"},
    {"routes", "hops", ROUTES_ALONE},
    {"routes", "pattern", ROUTES_ALONE},
    {"routes", "bcast", ROUTES_ALONE},
    {"routes", "load", ROUTES_ALONE},
    {"routes", "logp", ROUTES_ALONE},
    {"routes", "sweep", ROUTES_ALONE},
    {"routes", "crossover", ROUTES_ALONE},
    LAUNCH_OPT_CONFLICTS,
};

const opt_program scimodel_opt_program = {
    .name = "scimodel",
    .synopsis = "Usage: scimodel [OPTIONS]\n"
                "       scimodel --traffic FILE [--dims LIST | --shape S]... [OPTIONS]\n"
                "Project SCI ring/torus latency through the closed-form D-dimensional torus\n"
                "model (Gonzalez 2000) and find where more dimensions win.\n",
    .epilog = "\n"
              "Every option may be given once (--shape, with --traffic, more often);\n"
              "--shape excludes --nodes and --dims (not with --traffic),\n"
              "--crossover excludes --nodes (it searches every N up to 1e9).  Options\n"
              "may come in any order: --links wins over --preset and --params.\n"
              "\n"
              "Exit status: 0 success, 1 a file could not be read or is malformed,\n"
              "2 usage error (the message names the argument).\n"
              "\n"
              "Examples:\n"
              "  scimodel --dims 1..4 --nodes 1000\n"
              "  scimodel --preset enhanced --crossover --format tsv\n"
              "  scimodel --links bi --crossover --metric avg\n"
              "  scimodel --pattern neighbor --shape 8x8x8\n"
              "  scimodel --load --links bi --nodes 4096 --utilisation 0.5\n"
              "  scimodel --params my.params --sweep --nodes 1000 --dims 1..4\n"
              "  scimodel --shape 4x4x4 --hops 1,0,3\n"
              "  scimodel --traffic traffic.tsv --dims 1..4 --placement optimize\n",
    .specs = specs,
    .nspecs = sizeof specs / sizeof specs[0],
    .conflicts = conflicts,
    .nconflicts = sizeof conflicts / sizeof conflicts[0],
};

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* --dims 4,1 means dimensions 1 and 4; --dims 3,3 means 3. */
static void sort_dims(scimodel_options *o)
{
    size_t k = 0;
    qsort(o->dims, o->ndims, sizeof o->dims[0], cmp_long);
    for (size_t i = 0; i < o->ndims; i++)
        if (k == 0 || o->dims[i] != o->dims[k - 1])
            o->dims[k++] = o->dims[i];
    o->ndims = k;
}

static int check_hops(scimodel_options *o)
{
    size_t n, pos;
    int bad;
    parse_status st = parse_list(o->hops_text, PARSE_RANGE_STEP1, 0, TOPO_MAX_NODES,
                                 o->hops, TOPO_MAX_DIMS, &n, &pos);
    if (st == PARSE_OK && strstr(o->hops_text, ".."))
        st = PARSE_SYNTAX;  /* a hop vector is a plain list */
    if (st)
        return scimodel_usage_error("--hops '%s': %s, expected h1,h2,... one per dimension",
                                    o->hops_text, parse_status_text(st));
    if ((int)n != o->shape.dims)
        return scimodel_usage_error("--hops '%s': %zu values for the %d dimensions of '%s'",
                                    o->hops_text, n, o->shape.dims, o->shape_text);
    if (topo_hops_check(&o->shape, o->hops, &bad)) {
        if (bad < 0)
            return scimodel_usage_error("--hops '%s': all zero (source = destination)",
                                        o->hops_text);
        return scimodel_usage_error("--hops '%s': h%d = %ld is not below n%d = %ld of '%s'",
                                    o->hops_text, bad + 1, o->hops[bad], bad + 1,
                                    o->shape.n[bad], o->shape_text);
    }
    o->mode = MODE_P2P;
    return 0;
}

/* Options that only make sense together, checked once all are read. */
static int check_combinations(scimodel_options *o, const opt_state *s)
{
    if ((opt_given(s, "rates") || opt_given(s, "utilisation")) && o->mode != MODE_LOAD)
        return scimodel_usage_error("%s: needs --load", opt_given(s, "rates")
                                                            ? opt_text(s, "rates")
                                                            : opt_text(s, "utilisation"));
    if (o->mode == MODE_LOAD && o->nrates == 0) {   /* default: 10 % .. 90 % */
        o->rates_are_util = 1;
        for (int i = 1; i <= 9; i++)
            o->rates[o->nrates++] = i / 10.0;
    }
    if (o->mode == MODE_LOAD && o->shape_given && o->pattern_given) {
        const char *why = topo_pattern_check(&o->shape, o->pattern);
        if (why)
            return scimodel_usage_error("--pattern '%s' on --shape '%s': %s",
                                        topo_pattern_name(o->pattern), o->shape_text, why);
    }
    if (o->mode == MODE_ROUTES && !o->shape_given)
        return scimodel_usage_error("--routes: needs --shape");
    if (o->mode == MODE_ROUTES && o->shape.nodes > MAX_ROUTES_NODES)
        return scimodel_usage_error("--shape '%s': --routes prints a line per pair of nodes, at"
                                    " most %d nodes", o->shape_text, MAX_ROUTES_NODES);
    if (o->hops_text && o->mode != MODE_SHAPE)
        return scimodel_usage_error("--hops '%s': needs --shape", o->hops_text);
    if (o->sweep_points && o->mode != MODE_SWEEP)
        return scimodel_usage_error("--sweep-points '%ld': needs --sweep", o->sweep_points);
    if (o->mode == MODE_SWEEP && !o->sweep_points && o->nodes > MAX_SWEEP_NODES)
        return scimodel_usage_error("--nodes '%ld': --sweep prints a line per N, at most 1e8 "
                                    "(or use --sweep-points)", o->nodes);
    if (o->pattern != TOPO_PATTERN_UNIFORM) {
        /* multi-unicast is the uniform one-to-all; a pattern has its mean */
        if (opt_given(s, "metric") && o->want_multicast)
            return scimodel_usage_error("%s conflicts with %s: the multicast metric is the "
                                        "uniform one-to-all, use --metric avg",
                                        opt_text(s, "metric"), opt_text(s, "pattern"));
        o->want_multicast = 0;
        o->want_avg = 1;
    }
    if (o->mode == MODE_SHAPE && o->pattern_given) {
        const char *why = topo_pattern_check(&o->shape, o->pattern);
        if (why)
            return scimodel_usage_error("--pattern '%s' on --shape '%s': %s",
                                        topo_pattern_name(o->pattern), o->shape_text, why);
    }
    if (o->pattern == TOPO_PATTERN_TRANSPOSE && !o->shape_given &&
        (o->ndims != 1 || o->dims[0] != 2))
        return scimodel_usage_error("--pattern 'transpose': needs --dims 2 (a square 2D "
                                    "torus) or a --shape n x n");
    return 0;
}


/* The mode and curves the flags and choices ask for. */
static void settle(scimodel_options *o, const opt_state *s)
{
    o->mode = o->routes ? MODE_ROUTES : o->logp ? MODE_LOGP : o->load ? MODE_LOAD
            : o->sweep ? MODE_SWEEP
            : o->crossover ? MODE_CROSSOVER
            : o->shape_given ? MODE_SHAPE : MODE_REPORT;
    o->want_avg = o->metric != METRIC_MULTICAST;
    o->want_multicast = o->metric != METRIC_AVG;
    if (opt_given(s, "bcast")) {
        o->want_avg = 0;
        o->want_multicast = o->bcast == 0;
        o->want_binomial = o->bcast == 1;
        o->bcast_given = 1;
    }
    o->fill = o->fill_choice ? MODEL_FILL_INTERPOLATE : MODEL_FILL_CONTINUOUS;
    o->tsv = o->format == 1;
    sort_dims(o);
}

/* The parameters: the preset or the params file, then what the command
 * line gave explicitly (--links uni or bi), whatever the order it came in. */
static int load_parameters(scimodel_options *o)
{
    topo_links links = o->params.links;
    int explicit_links = o->links_given;
    if (o->params_path) {
        int rc = scimodel_load_params("--params", o->params_path, &o->params);
        if (rc)
            return rc;
    } else {
        model_params_preset(presets[o->preset], &o->params);
    }
    if (explicit_links)
        o->params.links = links;
    return 0;
}

/* Why --traffic refuses the other modes' options (those of SCOPE_MODEL). */
static const char *traffic_refusal(const char *name)
{
    static const struct { const char *name, *why; } why[] = {
        {"size", "the traffic matrix gives each message's size"},
        {"nodes", "the traffic matrix gives the number of ranks"},
        {"metric", "--traffic reports its own columns"},
        {"fill", "--traffic projects onto integer tori"},
        {"pattern", "the traffic matrix is the pattern"},
        {"bcast", "the traffic matrix is the pattern"},
        {"hops", "the traffic matrix gives every message's destination"},
        {"crossover", "--traffic names the winner instead"},
        {"logp", "--traffic projects a traffic matrix"},
    };
    for (size_t k = 0; k < sizeof why / sizeof why[0]; k++)
        if (strcmp(why[k].name, name) == 0)
            return why[k].why;
    return strncmp(name, "sweep", 5) == 0 || strcmp(name, "progress") == 0
               ? "--traffic has no sweep" : "--traffic has no load mode";
}

/* Each given option belongs to the mode asked for: --traffic refuses the
 * other modes' settings, and the traffic options need --traffic. */
static int check_scope(const scimodel_options *o, const opt_state *s)
{
    unsigned want = o->traffic_path ? SCOPE_TRAFFIC : SCOPE_MODEL;
    for (int i = 0; i < scimodel_opt_program.nspecs; i++) {
        const opt_spec *spec = &scimodel_opt_program.specs[i];
        if (!s->value[i] || !spec->scope || (spec->scope & want))
            continue;
        if (o->traffic_path)
            return scimodel_usage_error("--%s: not an option of scimodel --traffic: %s",
                                        spec->name, traffic_refusal(spec->name));
        return scimodel_usage_error("%s: needs --traffic", s->text[i]);
    }
    if (o->traffic_path)
        return 0;
    /* only --traffic takes several shapes, or shapes beside --dims */
    if (o->nshapes > 1)
        return scimodel_usage_error("--shape '%s' given twice (--shape '%s' and --shape '%s'): "
                                    "give it once", o->shape_texts[1], o->shape_texts[0],
                                    o->shape_texts[1]);
    if (o->shape_given && (opt_given(s, "nodes") || opt_given(s, "dims")))
        return scimodel_usage_error("%s conflicts with %s: --shape already fixes the %s",
                                    opt_given(s, "nodes") ? opt_text(s, "nodes")
                                                          : opt_text(s, "dims"),
                                    opt_text(s, "shape"),
                                    opt_given(s, "nodes") ? "node count" : "dimensions");
    return 0;
}

/* --traffic: ranks onto nodes, the same-node messages' parameters, and a
 * placement file name that its TSV output can hold. */
static int finish_traffic(scimodel_options *o, const opt_state *s)
{
    char why[200];
    int rc;
    o->launch = (launch_request){o->hostfile, o->rankfile, {0}, o->slots};
    if (launch_request_finish(&o->launch, o->map_by, o->rank_by, why, sizeof why))
        return scimodel_usage_error("%s", why);
    if ((rc = load_parameters(o)))
        return rc;
    if (o->intra_path && scimodel_load_params("--intra-params", o->intra_path, &o->intra))
        return EXIT_FAILURE;
    o->have_intra = o->intra_path != NULL;
    if (!o->have_intra)
        o->intra = o->params;
    o->tsv = o->format == 1;
    if (o->nshapes && !opt_given(s, "dims"))
        o->ndims = 0;   /* the shapes are the candidates */
    if (strcmp(o->placement, "optimize") && strcmp(o->placement, "row-major") &&
        strpbrk(o->placement, "\t\n"))
        return scimodel_usage_error("--placement: a file name with a tab or newline");
    o->mode = MODE_TRAFFIC;
    return 0;
}

int scimodel_parse_options(int argc, char **argv, scimodel_options *o)
{
    opt_state s;
    memset(o, 0, sizeof *o);
    int rc = opt_parse(&scimodel_opt_program, argc, argv, o, &s);
    if (rc)
        return rc;
    if ((rc = check_scope(o, &s)))
        return rc;
    if (o->traffic_path)
        return finish_traffic(o, &s);
    settle(o, &s);
    if ((rc = check_combinations(o, &s)) || (rc = load_parameters(o)))
        return rc;
    if (o->hops_text)
        return check_hops(o);
    return 0;
}
