/* scimodel_options: scimodel's --help text and option parsing (getopt_long):
 * every value checked, an option given twice or two options that conflict
 * refused with exit 2 and a message naming both (issue 14 #20). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/scimodel.h"
#include "model/scimodel_traffic.h"
#include "util/parse.h"

#define DEFAULT_NODES 1000
#define DEFAULT_SIZE_BYTES 64         /* thesis Table 1: o measured at 64 B */
#define MAX_SIZE_BYTES (1L << 40)
#define MAX_SWEEP_NODES 100000000L    /* one output line per N */
#define MAX_SWEEP_POINTS 10000000L
#define DEFAULT_PROGRESS_S 2.0        /* a 1e6-line sweep takes about 1 s */

static const char usage_text[] =
"Usage: scimodel [OPTIONS]\n"
"Project SCI ring/torus latency through the closed-form D-dimensional torus\n"
"model (Gonzalez 2000; SPEC.md §2) and find where more dimensions win.\n"
"\n"
"Parameters (one of; default --preset current):\n"
"  --preset NAME       current | enhanced (thesis Table 1 and §6.2)\n"
"  --params FILE       a params file, e.g. one written by calibrate\n"
"  --links K           uni (default: SCI rings, one way round) | bi (a pair of\n"
"                      opposite rings per dimension, shortest way; SPEC.md §7);\n"
"                      overrides a params file's `links = \"...\"`\n"
"\n"
"What to compute (default: the report):\n"
"  (none)              per dimension at --nodes N: continuous shape n^D and the\n"
"                      nearest integer torus, average hops, forwards, switches,\n"
"                      average latency, multi-unicast total; then crossovers\n"
"  --crossover         only the crossover table (consecutive requested D)\n"
"  --sweep             one line per integer N from 2^min(D) to --nodes (TSV,\n"
"                      '-' where a D does not exist yet); for plots.  Cost:\n"
"                      one line per N (--nodes 1e8: 1e8 lines, about 10 GB\n"
"                      and over a minute); --fill interpolate costs more per\n"
"                      line.  Progress goes to stderr every 2 s\n"
"                      (--progress S: every S seconds, 0 never)\n"
"  --sweep-points K    with --sweep: about K log-spaced integer N instead of\n"
"                      every one (for log-scale plots up to 1e15 nodes);\n"
"                      cost proportional to K times the number of D\n"
"  --shape S           the report row of one exact torus, e.g. 4x4x4 or 1000\n"
"  --shape S --hops H  request, response and transaction latency for the hop\n"
"                      vector H (h1,h2,... one per dimension, 0 <= h_i < n_i)\n"
"  --pattern P         uniform (default) | neighbor | tornado | complement |\n"
"                      transpose (SPEC.md §8): the mean request latency over\n"
"                      the pattern's messages, in the report, --shape,\n"
"                      --crossover and --sweep\n"
"  --bcast A           multicast (N - 1 unicasts, the thesis's) | binomial (MPI's\n"
"                      binomial tree from rank 0, ranks row-major; SPEC.md §8):\n"
"                      broadcast time per D at the nearest integer torus (or\n"
"                      for --shape), crossovers and --sweep of that curve.\n"
"                      binomial is exact on integer tori, O(N D) per torus\n"
"                      (2^20 nodes: about 0.05 s; at most 2^26), interpolated\n"
"                      between them; its crossovers are searched up to\n"
"                      2^20 nodes\n"
"  --load              latency under load (SPEC.md §9): every node injects\n"
"                      m-byte messages (Poisson) to the pattern's destinations;\n"
"                      per D at the nearest integer torus to --nodes (or for\n"
"                      --shape): saturation rate, bottleneck links, latency\n"
"                      against offered load (FIFO channels: the merge\n"
"                      identity of deterministic servers, README \"Latency\n"
"                      under load\"; the independent-queue value beside\n"
"                      it).  Link speed from\n"
"                      the params key link_bw_bytes_per_ns (presets 1.0)\n"
"  --rates LIST        with --load: messages/ns/node, e.g. 0.0005,0.001\n"
"                      (each below every shape's saturation rate)\n"
"  --utilisation LIST  with --load: fractions of the saturation rate,\n"
"                      0.1..0.9 (default; a..b steps 0.1, a..b:s by s) or 0.5\n"
"\n"
"Settings:\n"
"  --dims LIST         dimensions: 3, 1..4 or 1,2,4 (1..16; default 1..4);\n"
"                      sorted, repeats dropped\n"
"  --nodes N           system size (default 1000; >= 2)\n"
"  --size BYTES        message size m for o(m) (default 64)\n"
"  --metric M          avg | multicast | both (default both): which curves\n"
"                      --crossover, --sweep and the report show\n"
"  --fill F            continuous (n = N^(1/D) real, the thesis's method) |\n"
"                      interpolate (exact values on integer tori n^D, linear\n"
"                      between them; the multicast metric, and every metric\n"
"                      of a pattern without a continuous form)\n"
"  --format F          table (default) | tsv (header line of column names)\n"
"  -h, --help          this text\n"
"\n"
"Every option may be given once; --shape excludes --nodes and --dims,\n"
"--crossover excludes --nodes (it searches every N up to 1e9).\n"
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
"  scimodel --params data/params/node17-shm.params --sweep --nodes 1000 --dims 1..4\n"
"  scimodel --shape 4x4x4 --hops 1,0,3\n";

enum { OPT_PRESET = 256, OPT_PARAMS, OPT_DIMS, OPT_NODES, OPT_SIZE, OPT_METRIC,
       OPT_FILL, OPT_SWEEP, OPT_CROSSOVER, OPT_SHAPE, OPT_HOPS, OPT_FORMAT,
       OPT_SWEEP_POINTS, OPT_LINKS, OPT_PATTERN, OPT_BCAST, OPT_LOAD, OPT_RATES,
       OPT_UTIL, OPT_PROGRESS, OPT_END };

static const struct option long_options[] = {
    {"preset", required_argument, NULL, OPT_PRESET},
    {"params", required_argument, NULL, OPT_PARAMS},
    {"dims", required_argument, NULL, OPT_DIMS},
    {"nodes", required_argument, NULL, OPT_NODES},
    {"size", required_argument, NULL, OPT_SIZE},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"fill", required_argument, NULL, OPT_FILL},
    {"sweep", no_argument, NULL, OPT_SWEEP},
    {"crossover", no_argument, NULL, OPT_CROSSOVER},
    {"shape", required_argument, NULL, OPT_SHAPE},
    {"hops", required_argument, NULL, OPT_HOPS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"sweep-points", required_argument, NULL, OPT_SWEEP_POINTS},
    {"links", required_argument, NULL, OPT_LINKS},
    {"pattern", required_argument, NULL, OPT_PATTERN},
    {"bcast", required_argument, NULL, OPT_BCAST},
    {"load", no_argument, NULL, OPT_LOAD},
    {"rates", required_argument, NULL, OPT_RATES},
    {"utilisation", required_argument, NULL, OPT_UTIL},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* What the user wrote for each option ("--nodes '5'"), for messages that
 * name two options; NULL until given. */
typedef struct seen_opts {
    const char *arg[OPT_END - OPT_PRESET];
    char text[OPT_END - OPT_PRESET][160];
} seen_opts;

static const char *opt_name(int c)
{
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == c)
            return o->name;
    return "?";
}

#define SEEN(s, c) ((s)->arg[(c) - OPT_PRESET])
#define TEXT(s, c) ((s)->text[(c) - OPT_PRESET])

/* Pairs of options that cannot go together, and why. */
static const struct conflict {
    int a, b;
    const char *why;
} conflicts[] = {
    {OPT_PRESET, OPT_PARAMS, "give only one of --preset and --params"},
    {OPT_SWEEP, OPT_CROSSOVER, "give only one of --sweep, --crossover, --shape"},
    {OPT_SHAPE, OPT_SWEEP, "give only one of --sweep, --crossover, --shape"},
    {OPT_SHAPE, OPT_CROSSOVER, "give only one of --sweep, --crossover, --shape"},
    {OPT_SHAPE, OPT_NODES, "--shape already fixes the node count"},
    {OPT_SHAPE, OPT_DIMS, "--shape already fixes the dimensions"},
    {OPT_CROSSOVER, OPT_NODES, "--crossover searches every N up to 1e9"},
    {OPT_BCAST, OPT_METRIC, "--bcast chooses the broadcast curve"},
    {OPT_BCAST, OPT_PATTERN, "a broadcast is one-to-all, not a traffic pattern"},
    {OPT_BCAST, OPT_HOPS, "a broadcast has no single hop vector"},
    {OPT_RATES, OPT_UTIL, "give the load one way"},
    {OPT_LOAD, OPT_SWEEP, "give only one of --load, --sweep, --crossover, --bcast"},
    {OPT_LOAD, OPT_CROSSOVER, "give only one of --load, --sweep, --crossover, --bcast"},
    {OPT_LOAD, OPT_BCAST, "give only one of --load, --sweep, --crossover, --bcast"},
    {OPT_LOAD, OPT_HOPS, "--load averages over the pattern's messages"},
};

static int bad_value(const char *opt, const char *arg, parse_status st, const char *range)
{
    return scimodel_usage_error("%s '%s': %s%s%s", opt, arg, parse_status_text(st),
                                range ? ", expected " : "", range ? range : "");
}

static int parse_choice(const char *opt, const char *arg, const char *const *names,
                        int count, int *out)
{
    for (int i = 0; i < count; i++)
        if (strcmp(arg, names[i]) == 0)
            return *out = i, 0;
    return scimodel_usage_error("%s '%s': unknown value", opt, arg);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* --dims 4,1 means dimensions 1 and 4; --dims 3,3 means 3 (issue 14 #11). */
static void sort_dims(scimodel_options *o)
{
    size_t k = 0;
    qsort(o->dims, o->ndims, sizeof o->dims[0], cmp_long);
    for (size_t i = 0; i < o->ndims; i++)
        if (k == 0 || o->dims[i] != o->dims[k - 1])
            o->dims[k++] = o->dims[i];
    o->ndims = k;
}

/* "0.001,0.002" or (utilisation) "0.1..0.9" / "0.1..0.9:0.2": rates in
 * (0, max); a range steps by 0.1 unless given. */
static int parse_rates(scimodel_options *o, const char *opt, const char *arg, double max)
{
    char buf[512], *save = NULL;
    double step = 0.1;
    if (strlen(arg) >= sizeof buf)
        return scimodel_usage_error("%s '%.40s...': too long", opt, arg);
    snprintf(buf, sizeof buf, "%s", arg);
    o->nrates = 0;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *dots = strstr(item, ".."), *colon = dots ? strchr(dots, ':') : NULL;
        double a, b = 0;
        if (colon) {
            *colon = '\0';
            if (parse_double(colon + 1, 1e-6, 1, &step))
                return scimodel_usage_error("%s '%s': bad step '%s'", opt, arg, colon + 1);
        }
        if (dots)
            *dots = '\0';
        if (parse_double(item, 0, max, &a) || a <= 0 || a >= max ||
            (dots && (parse_double(dots + 2, 0, max, &b) || b >= max || b < a)))
            return scimodel_usage_error("%s '%s': expected %s", opt, arg,
                                        max == 1 ? "fractions of the saturation rate in (0, 1), "
                                                   "e.g. 0.1..0.9 or 0.2,0.5"
                                                 : "rates > 0 in messages/ns/node, e.g. 0.001,0.002");
        for (double v = a; o->nrates < 64; v += step) {
            o->rates[o->nrates++] = v;
            if (!dots || v + step > b + 1e-9)
                break;
        }
    }
    if (o->nrates == 0)
        return scimodel_usage_error("%s '%s': no values", opt, arg);
    o->rates_text = arg;
    return 0;
}

static int parse_one(scimodel_options *o, int c, const char *arg)
{
    static const char *const metrics[] = {"avg", "multicast", "both"};
    static const char *const fills[] = {"continuous", "interpolate"};
    static const char *const formats[] = {"table", "tsv"};
    parse_status st;
    size_t pos, n;
    int choice = 0;
    topo_parse_error perr;

    switch (c) {
    case OPT_PRESET:
        if (model_params_preset(arg, &o->params))
            return scimodel_usage_error("--preset '%s': unknown preset (current, enhanced)", arg);
        return 0;
    case OPT_PARAMS:
        return 0;   /* read once every option is known to be consistent */
    case OPT_DIMS:
        st = parse_list(arg, PARSE_RANGE_STEP1, 1, TOPO_MAX_DIMS, o->dims, TOPO_MAX_DIMS, &n, &pos);
        if (st)
            return bad_value("--dims", arg, st, "3, 1..4 or 1,2,4 within 1..16");
        o->ndims = n;
        sort_dims(o);
        return 0;
    case OPT_NODES:
        if ((st = parse_long(arg, 2, TOPO_MAX_NODES, &o->nodes)))
            return bad_value("--nodes", arg, st, "2..1e15");
        return 0;
    case OPT_SIZE:
        if ((st = parse_long(arg, 0, MAX_SIZE_BYTES, &o->size_bytes)))
            return bad_value("--size", arg, st, "0..2^40 bytes");
        return 0;
    case OPT_METRIC:
        if (parse_choice("--metric", arg, metrics, 3, &choice))
            return SCIMODEL_EXIT_USAGE;
        o->want_avg = choice != 1;
        o->want_multicast = choice != 0;
        return 0;
    case OPT_FILL:
        if (parse_choice("--fill", arg, fills, 2, &choice))
            return SCIMODEL_EXIT_USAGE;
        o->fill = choice ? MODEL_FILL_INTERPOLATE : MODEL_FILL_CONTINUOUS;
        return 0;
    case OPT_FORMAT:
        return parse_choice("--format", arg, formats, 2, &o->tsv) ? SCIMODEL_EXIT_USAGE : 0;
    case OPT_SWEEP:
        o->mode = MODE_SWEEP;
        return 0;
    case OPT_CROSSOVER:
        o->mode = MODE_CROSSOVER;
        return 0;
    case OPT_SHAPE:
        if (topo_shape_parse(arg, &o->shape, &perr))
            return scimodel_usage_error("--shape '%s': %s at character %zu", arg, perr.what,
                                        perr.pos + 1);
        if (o->mode != MODE_LOAD)
            o->mode = MODE_SHAPE;
        o->shape_given = 1;
        o->shape_text = arg;
        return 0;
    case OPT_HOPS:
        o->hops_text = arg;
        return 0;
    case OPT_SWEEP_POINTS:
        if ((st = parse_long(arg, 2, MAX_SWEEP_POINTS, &o->sweep_points)))
            return bad_value("--sweep-points", arg, st, "2..1e7");
        return 0;
    case OPT_LINKS:
        if (topo_links_parse(arg, &o->params.links))
            return scimodel_usage_error("--links '%s': unknown kind of links, expected uni or bi",
                                        arg);
        o->links_given = 1;
        return 0;
    case OPT_BCAST:
        if (parse_choice("--bcast", arg, (const char *const[]){"multicast", "binomial"}, 2,
                         &choice))
            return SCIMODEL_EXIT_USAGE;
        o->want_avg = 0;
        o->want_multicast = choice == 0;
        o->want_binomial = choice == 1;
        o->bcast_given = 1;
        return 0;
    case OPT_LOAD:
        o->mode = MODE_LOAD;   /* --shape given before keeps shape_given */
        return 0;
    case OPT_RATES:
        o->rates_are_util = 0;
        return parse_rates(o, "--rates", arg, HUGE_VAL);
    case OPT_PROGRESS:
        if (parse_double(arg, 0, 86400, &o->progress_s))
            return scimodel_usage_error("--progress '%s': expected seconds, 0..86400 (0: none)",
                                        arg);
        return 0;
    case OPT_UTIL:
        o->rates_are_util = 1;
        return parse_rates(o, "--utilisation", arg, 1);
    case OPT_PATTERN:
        if (topo_pattern_parse(arg, &o->pattern))
            return scimodel_usage_error("--pattern '%s': unknown pattern, expected uniform, "
                                        "neighbor, tornado, complement or transpose", arg);
        o->pattern_given = 1;
        return 0;
    default:
        return SCIMODEL_EXIT_USAGE;  /* getopt already printed the message */
    }
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
        return bad_value("--hops", o->hops_text, st, "h1,h2,... one per dimension");
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
static int check_combinations(scimodel_options *o, const seen_opts *s)
{
    for (size_t i = 0; i < sizeof conflicts / sizeof conflicts[0]; i++) {
        const struct conflict *k = &conflicts[i];
        if (SEEN(s, k->a) && SEEN(s, k->b))
            return scimodel_usage_error("%s conflicts with %s: %s", TEXT(s, k->b),
                                        TEXT(s, k->a), k->why);
    }
    if ((SEEN(s, OPT_RATES) || SEEN(s, OPT_UTIL)) && o->mode != MODE_LOAD)
        return scimodel_usage_error("%s: needs --load", SEEN(s, OPT_RATES) ? TEXT(s, OPT_RATES)
                                                                          : TEXT(s, OPT_UTIL));
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
    if (o->hops_text && o->mode != MODE_SHAPE)
        return scimodel_usage_error("--hops '%s': needs --shape", o->hops_text);
    if (o->hops_text && o->pattern_given)
        return scimodel_usage_error("%s conflicts with --hops '%s': a hop vector is one "
                                    "message, not a pattern", TEXT(s, OPT_PATTERN), o->hops_text);
    if (o->sweep_points && o->mode != MODE_SWEEP)
        return scimodel_usage_error("--sweep-points '%ld': needs --sweep", o->sweep_points);
    if (o->mode == MODE_SWEEP && !o->sweep_points && o->nodes > MAX_SWEEP_NODES)
        return scimodel_usage_error("--nodes '%ld': --sweep prints a line per N, at most 1e8 "
                                    "(or use --sweep-points)", o->nodes);
    if (o->pattern != TOPO_PATTERN_UNIFORM) {
        /* multi-unicast is the uniform one-to-all; a pattern has its mean */
        if (SEEN(s, OPT_METRIC) && o->want_multicast)
            return scimodel_usage_error("%s conflicts with %s: the multicast metric is the "
                                        "uniform one-to-all, use --metric avg",
                                        TEXT(s, OPT_METRIC), TEXT(s, OPT_PATTERN));
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

int scimodel_parse_options(int argc, char **argv, scimodel_options *o)
{
    int c, rc;
    seen_opts seen;
    memset(&seen, 0, sizeof seen);
    memset(o, 0, sizeof *o);
    model_params_preset("current", &o->params);
    for (int d = 0; d < 4; d++)
        o->dims[d] = d + 1;
    o->ndims = 4;
    o->nodes = DEFAULT_NODES;
    o->size_bytes = DEFAULT_SIZE_BYTES;
    o->want_avg = o->want_multicast = 1;
    o->progress_s = DEFAULT_PROGRESS_S;
    opterr = 1;
    while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage_text, stdout);
            fputs(scimodel_traffic_usage, stdout);
            exit(EXIT_SUCCESS);
        }
        if (c >= OPT_PRESET && c < OPT_END) {
            const char *a = optarg ? optarg : "";
            if (SEEN(&seen, c))
                return scimodel_usage_error("--%s%s%s%s given twice (%s and --%s%s%s%s): give "
                                            "it once", opt_name(c), optarg ? " '" : "", a,
                                            optarg ? "'" : "", TEXT(&seen, c), opt_name(c),
                                            optarg ? " '" : "", a, optarg ? "'" : "");
            SEEN(&seen, c) = a;
            snprintf(TEXT(&seen, c), sizeof TEXT(&seen, c), "--%s%s%.100s%s", opt_name(c),
                     optarg ? " '" : "", a, optarg ? "'" : "");
        }
        if ((rc = parse_one(o, c, optarg)))
            return rc;
    }
    if (optind < argc)
        return scimodel_usage_error("'%s': unexpected argument", argv[optind]);
    if ((rc = check_combinations(o, &seen)))
        return rc;
    if (SEEN(&seen, OPT_PARAMS)) {
        topo_links links = o->params.links;
        if ((rc = scimodel_load_params("--params", SEEN(&seen, OPT_PARAMS), &o->params)))
            return rc;
        if (o->links_given)
            o->params.links = links;   /* --links overrides the file */
    }
    if (o->hops_text)
        return check_hops(o);
    return 0;
}
