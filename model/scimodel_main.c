/* scimodel: projects latency parameters through the closed-form torus
 * model (SPEC.md §2, §5): per-dimension report, crossovers, sweeps over N,
 * exact shapes and point-to-point latencies. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/params.h"
#include "topo/parse.h"
#include "topo/topo.h"

#define EXIT_USAGE 2
#define DEFAULT_NODES 1000
#define DEFAULT_SIZE_BYTES 64         /* thesis Table 1: o measured at 64 B */
#define MAX_SIZE_BYTES (1L << 40)
#define MAX_SWEEP_NODES 100000000L    /* one output line per N */

typedef enum { MODE_REPORT, MODE_CROSSOVER, MODE_SWEEP, MODE_SHAPE, MODE_P2P } mode_t_;

typedef struct options {
    model_params params;
    long dims[TOPO_MAX_DIMS];
    size_t ndims;
    long nodes;
    long size_bytes;
    int want_avg, want_multicast;
    model_fill fill;
    mode_t_ mode;
    int tsv;
    topo_shape shape;
    long hops[TOPO_MAX_DIMS];
    const char *hops_text;
    const char *shape_text;
    long sweep_points;     /* 0: every integer N; else about this many, log-spaced */
} options;

static const char usage_text[] =
"Usage: scimodel [OPTIONS]\n"
"Project SCI ring/torus latency through the closed-form D-dimensional torus\n"
"model (Gonzalez 2000; SPEC.md §2) and find where more dimensions win.\n"
"\n"
"Parameters (one of; default --preset current):\n"
"  --preset NAME       current | enhanced (thesis Table 1 and §6.2)\n"
"  --params FILE       a params file, e.g. one written by calibrate\n"
"\n"
"What to compute (default: the report):\n"
"  (none)              per dimension at --nodes N: continuous shape n^D and the\n"
"                      nearest integer torus, average hops, forwards, switches,\n"
"                      average latency, multi-unicast total; then crossovers\n"
"  --crossover         only the crossover table D -> next requested D\n"
"  --sweep             one line per integer N from 2^min(D) to --nodes (TSV,\n"
"                      '-' where a D does not exist yet); for plots\n"
"  --sweep-points K    with --sweep: about K log-spaced integer N instead of\n"
"                      every one (for log-scale plots up to 1e6+ nodes)\n"
"  --shape S           the report row of one exact torus, e.g. 4x4x4 or 1000\n"
"  --shape S --hops H  request, response and transaction latency for the hop\n"
"                      vector H (h1,h2,... one per dimension, 0 <= h_i < n_i)\n"
"\n"
"Settings:\n"
"  --dims LIST         dimensions: 3, 1..4 or 1,2,4 (1..16; default 1..4)\n"
"  --nodes N           system size (default 1000; >= 2)\n"
"  --size BYTES        message size m for o(m) (default 64)\n"
"  --metric M          avg | multicast | both (default both): which curves\n"
"                      --crossover, --sweep and the report show\n"
"  --fill F            continuous (n = N^(1/D) real, the thesis's method) |\n"
"                      interpolate (exact totals on integer tori n^D, linear\n"
"                      between them; applies to the multicast metric)\n"
"  --format F          table (default) | tsv (header line of column names)\n"
"  -h, --help          this text\n"
"\n"
"Exit status: 0 success, 1 a file could not be read or is malformed,\n"
"2 usage error (the message names the argument).\n"
"\n"
"Examples:\n"
"  scimodel --dims 1..4 --nodes 1000\n"
"  scimodel --preset enhanced --crossover --format tsv\n"
"  scimodel --params data/params/node17-shm.params --sweep --nodes 1000 --dims 1..4\n"
"  scimodel --shape 4x4x4 --hops 1,0,3\n";

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("scimodel: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (try --help)\n", stderr);
    return EXIT_USAGE;
}

static int bad_value(const char *opt, const char *arg, parse_status st, const char *range)
{
    return usage_error("%s '%s': %s%s%s", opt, arg, parse_status_text(st),
                       range ? ", expected " : "", range ? range : "");
}

static int parse_choice(const char *opt, const char *arg, const char *const *names,
                        int count, int *out)
{
    for (int i = 0; i < count; i++)
        if (strcmp(arg, names[i]) == 0)
            return *out = i, 0;
    return usage_error("%s '%s': unknown value", opt, arg);
}

static int load_params(const char *path, model_params *p)
{
    model_params_error err;
    int rc = model_params_read(path, p, &err);
    if (rc == -1)
        fprintf(stderr, "scimodel: --params '%s': %s\n", path, err.msg);
    else if (rc && err.line > 0)
        fprintf(stderr, "scimodel: %s:%ld: %s\n", path, err.line, err.msg);
    else if (rc)
        fprintf(stderr, "scimodel: %s: %s\n", path, err.msg);
    return rc ? EXIT_FAILURE : 0;
}

enum { OPT_PRESET = 256, OPT_PARAMS, OPT_DIMS, OPT_NODES, OPT_SIZE, OPT_METRIC,
       OPT_FILL, OPT_SWEEP, OPT_CROSSOVER, OPT_SHAPE, OPT_HOPS, OPT_FORMAT, OPT_SWEEP_POINTS };

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
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_one(options *o, int c, const char *arg, int *params_set)
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
        if (*params_set)
            return usage_error("--preset '%s': give only one of --preset and --params", arg);
        *params_set = 1;
        if (model_params_preset(arg, &o->params))
            return usage_error("--preset '%s': unknown preset (current, enhanced)", arg);
        return 0;
    case OPT_PARAMS:
        if (*params_set)
            return usage_error("--params '%s': give only one of --preset and --params", arg);
        *params_set = 1;
        return load_params(arg, &o->params);
    case OPT_DIMS:
        st = parse_list(arg, PARSE_RANGE_STEP1, 1, TOPO_MAX_DIMS, o->dims, TOPO_MAX_DIMS, &n, &pos);
        if (st)
            return bad_value("--dims", arg, st, "3, 1..4 or 1,2,4 within 1..16");
        o->ndims = n;
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
            return EXIT_USAGE;
        o->want_avg = choice != 1;
        o->want_multicast = choice != 0;
        return 0;
    case OPT_FILL:
        if (parse_choice("--fill", arg, fills, 2, &choice))
            return EXIT_USAGE;
        o->fill = choice ? MODEL_FILL_INTERPOLATE : MODEL_FILL_CONTINUOUS;
        return 0;
    case OPT_FORMAT:
        if (parse_choice("--format", arg, formats, 2, &o->tsv))
            return EXIT_USAGE;
        return 0;
    case OPT_SWEEP:
    case OPT_CROSSOVER:
        if (o->mode != MODE_REPORT)
            return usage_error("%s: give only one of --sweep, --crossover, --shape",
                               c == OPT_SWEEP ? "--sweep" : "--crossover");
        o->mode = c == OPT_SWEEP ? MODE_SWEEP : MODE_CROSSOVER;
        return 0;
    case OPT_SHAPE:
        if (o->mode != MODE_REPORT)
            return usage_error("--shape '%s': give only one of --sweep, --crossover, --shape", arg);
        if (topo_shape_parse(arg, &o->shape, &perr))
            return usage_error("--shape '%s': %s at character %zu", arg, perr.what, perr.pos + 1);
        o->mode = MODE_SHAPE;
        o->shape_text = arg;
        return 0;
    case OPT_HOPS:
        o->hops_text = arg;
        return 0;
    case OPT_SWEEP_POINTS:
        if ((st = parse_long(arg, 2, 10000000, &o->sweep_points)))
            return bad_value("--sweep-points", arg, st, "2..1e7");
        return 0;
    case 'h':
        fputs(usage_text, stdout);
        exit(EXIT_SUCCESS);
    default:
        return EXIT_USAGE;  /* getopt already printed the message */
    }
}

static int check_hops(options *o)
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
        return usage_error("--hops '%s': %zu values for the %d dimensions of '%s'",
                           o->hops_text, n, o->shape.dims, o->shape_text);
    if (topo_hops_check(&o->shape, o->hops, &bad)) {
        if (bad < 0)
            return usage_error("--hops '%s': all zero (source = destination)", o->hops_text);
        return usage_error("--hops '%s': h%d = %ld is not below n%d = %ld of '%s'",
                           o->hops_text, bad + 1, o->hops[bad], bad + 1,
                           o->shape.n[bad], o->shape_text);
    }
    o->mode = MODE_P2P;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    int c, rc, params_set = 0;
    memset(o, 0, sizeof *o);
    model_params_preset("current", &o->params);
    for (int d = 0; d < 4; d++)
        o->dims[d] = d + 1;
    o->ndims = 4;
    o->nodes = DEFAULT_NODES;
    o->size_bytes = DEFAULT_SIZE_BYTES;
    o->want_avg = o->want_multicast = 1;
    opterr = 1;
    while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1)
        if ((rc = parse_one(o, c, optarg, &params_set)))
            return rc;
    if (optind < argc)
        return usage_error("'%s': unexpected argument", argv[optind]);
    if (o->hops_text && o->mode != MODE_SHAPE)
        return usage_error("--hops '%s': needs --shape", o->hops_text);
    if (o->hops_text)
        return check_hops(o);
    if (o->sweep_points && o->mode != MODE_SWEEP)
        return usage_error("--sweep-points '%ld': needs --sweep", o->sweep_points);
    if (o->mode == MODE_SWEEP && !o->sweep_points && o->nodes > MAX_SWEEP_NODES)
        return usage_error("--nodes '%ld': --sweep prints a line per N, at most 1e8", o->nodes);
    return 0;
}

/* ---- output --------------------------------------------------------------- */

static void print_params(const model_params *p, double size_bytes)
{
    printf("parameters: %s\n", p->name);
    printf("  o(%g B) = %.1f ns   o0 %g ns at %g B, o1 %g ns/B%s\n", size_bytes,
           model_overhead_ns(p, size_bytes), p->o0_ns, p->mref_bytes, p->o1_ns_per_byte,
           p->o_segments ? " (piecewise o(m) from the file used)" : "");
    printf("  lp %g ns (per link)   lf %g ns (forward)   ls %g ns (switch)\n",
           p->lp_ns, p->lf_ns, p->ls_ns);
    if (p->lb_ns_per_byte != 0)   /* SPEC.md §6; cut-through files print as before */
        printf("  lb %g ns/B (store and forward: m lb at each of the H - 1 relays)\n",
               p->lb_ns_per_byte);
}

static void print_shape_row_tsv(int dims, double nodes, const char *shape,
                                const model_avg_counts *c, double avg, double mc)
{
    printf("%d\t%.10g\t%s\t%.6f\t%.6f\t%.6f\t%.3f\t%.3f\n", dims, nodes, shape, c->hops,
           c->forwards, c->switches, avg, mc);
}

static const char report_header[] =
    "dims\tnodes\tshape\tavg_hops\tavg_forwards\tavg_switches\tavg_ns\tmulticast_ns\n";

static int report_rows(const options *o)
{
    const model_params *p = &o->params;
    double N = (double)o->nodes, m = (double)o->size_bytes;
    if (o->tsv)
        fputs(report_header, stdout);
    else
        printf("\n  D  shape (n^D)    avg hops  forwards  switches   avg (us)  multicast (us)"
               "   nearest torus         avg (us)\n");
    for (size_t i = 0; i < o->ndims; i++) {
        int D = (int)o->dims[i];
        model_avg_counts c;
        topo_shape near;
        char cont[64], ns[96];
        model_avg_counts_continuous(D, N, &c);
        double avg = model_avg_ns_continuous(p, D, N, m);
        double mc = model_metric_ns(p, MODEL_METRIC_MULTICAST, o->fill, D, N, m);
        int have_near = model_nearest_torus(D, N, &near) == 0;
        snprintf(cont, sizeof cont, "%.2f^%d", pow(N, 1.0 / D), D);
        if (have_near)
            topo_shape_format(&near, ns, sizeof ns);
        if (o->tsv) {
            snprintf(cont, sizeof cont, "%.4f^%d", pow(N, 1.0 / D), D);
            print_shape_row_tsv(D, N, cont, &c, avg, mc);
            if (have_near) {
                model_avg_counts cn;
                model_avg_counts_shape(&near, &cn);
                print_shape_row_tsv(D, (double)near.nodes, ns, &cn,
                                    model_avg_ns_shape(p, &near, m),
                                    model_multicast_ns_shape(p, &near, m));
            }
            continue;
        }
        char nbuf[128] = "-";
        if (have_near)
            snprintf(nbuf, sizeof nbuf, "%s = %ld", ns, near.nodes);
        printf("%3d  %-12s %10.3f %9.3f %9.3f %10.3f %15.3f   %-20s %9.3f\n", D, cont,
               c.hops, c.forwards, c.switches, avg / 1e3, isnan(mc) ? NAN : mc / 1e3,
               nbuf, have_near ? model_avg_ns_shape(p, &near, m) / 1e3 : NAN);
    }
    return 0;
}

typedef struct xo_row {
    model_metric metric;
    int from, to;
    double nodes;
    model_crossover_status status;
} xo_row;

static const char *metric_name(model_metric m)
{
    return m == MODEL_METRIC_AVG ? "avg" : "multicast";
}

/* Computes the crossovers between consecutive requested dimensions. */
static int compute_crossovers(const options *o, xo_row *rows, size_t *count)
{
    const model_metric metrics[2] = {MODEL_METRIC_AVG, MODEL_METRIC_MULTICAST};
    const int want[2] = {o->want_avg, o->want_multicast};
    *count = 0;
    for (int k = 0; k < 2; k++) {
        if (!want[k])
            continue;
        for (size_t i = 0; i + 1 < o->ndims; i++) {
            xo_row *r = &rows[(*count)++];
            r->metric = metrics[k];
            r->from = (int)o->dims[i];
            r->to = (int)o->dims[i + 1];
            if (r->to <= r->from) {
                (*count)--;
                continue;
            }
            if (model_crossover(&o->params, r->metric, o->fill, r->from, r->to,
                                (double)o->size_bytes, &r->nodes, &r->status)) {
                fprintf(stderr, "scimodel: root finder failed for %dD -> %dD\n", r->from, r->to);
                return EXIT_FAILURE;
            }
        }
    }
    return 0;
}

static void print_best_ranges(const options *o, const xo_row *rows, size_t count,
                              model_metric metric)
{
    char lo[32] = "2";
    int D = -1;
    printf("  %s: ", metric == MODEL_METRIC_AVG ? "lowest average latency"
                                                : "lowest multi-unicast total");
    for (size_t i = 0; i < count; i++) {
        const xo_row *r = &rows[i];
        if (r->metric != metric)
            continue;
        if (D < 0)
            D = r->from;
        if (r->status == MODEL_XO_NONE) {
            printf("%dD from N = %s up to 1e9 (%dD never wins)\n", D, lo, r->to);
            return;
        }
        printf("%dD for %s <= N < %.2f; ", D, lo, r->nodes);
        snprintf(lo, sizeof lo, "%.2f", r->nodes);
        D = r->to;
    }
    if (D < 0)
        D = (int)o->dims[0];
    printf("%dD from N = %s up (among the requested dimensions)\n", D, lo);
}

static int crossover_table(const options *o)
{
    xo_row rows[2 * TOPO_MAX_DIMS];
    size_t count;
    int rc = compute_crossovers(o, rows, &count);
    if (rc)
        return rc;
    if (o->tsv) {
        fputs("metric\tfrom_dims\tto_dims\tnodes\tstatus\n", stdout);
        for (size_t i = 0; i < count; i++) {
            printf("%s\t%d\t%d\t", metric_name(rows[i].metric), rows[i].from, rows[i].to);
            if (rows[i].status == MODEL_XO_NONE)
                printf("-");
            else
                printf("%.4f", rows[i].nodes);
            printf("\t%s\n", model_crossover_status_name(rows[i].status));
        }
        return 0;
    }
    printf("\ncrossovers (%s n = N^(1/D); searched from N = 2^D up to 1e9):\n",
           o->fill == MODEL_FILL_INTERPOLATE ? "multicast interpolated between integer tori,"
                                             : "continuous");
    for (size_t i = 0; i < count; i++) {
        const xo_row *r = &rows[i];
        printf("  %-9s  %dD -> %dD  ", metric_name(r->metric), r->from, r->to);
        if (r->status == MODEL_XO_CROSSOVER)
            printf("%12.2f nodes\n", r->nodes);
        else if (r->status == MODEL_XO_LOWER_BOUND)
            printf("%12.2f nodes (lower bound: %dD already wins at its smallest torus 2^%d)\n",
                   r->nodes, r->to, r->to);
        else
            printf("        none (%dD does not win below 1e9 nodes)\n", r->to);
    }
    if (o->ndims > 1) {
        printf("\nbest number of dimensions by system size N:\n");
        if (o->want_avg)
            print_best_ranges(o, rows, count, MODEL_METRIC_AVG);
        if (o->want_multicast)
            print_best_ranges(o, rows, count, MODEL_METRIC_MULTICAST);
    }
    return 0;
}

/* Appends v with 3 decimals to buf.  A million-line sweep prints eight
 * million numbers; printf("%.3f") alone took ~2 s of the 3 s that run took,
 * so values below 2^53/1000 are formatted from a rounded integer (exact to
 * the printed digit); larger ones fall back to snprintf. */
static char *format_3f(char *buf, double v)
{
    if (isnan(v)) {
        *buf++ = '-';
        return buf;
    }
    if (!(v >= 0 && v < 9.0e12))
        return buf + sprintf(buf, "%.3f", v);
    unsigned long long milli = (unsigned long long)llround(v * 1000);
    char tmp[24];
    int n = 0;
    for (int i = 0; i < 3; i++, milli /= 10)
        tmp[n++] = (char)('0' + milli % 10);
    tmp[n++] = '.';
    do {
        tmp[n++] = (char)('0' + milli % 10);
        milli /= 10;
    } while (milli);
    while (n)
        *buf++ = tmp[--n];
    return buf;
}

/* Next N of a sweep: N + 1, or the next log-spaced integer (always > N,
 * ending exactly at the last). */
static long next_n(long n, double ratio, long last)
{
    if (ratio <= 1 || n >= last)
        return n + 1;
    long next = (long)ceil((double)n * ratio);
    if (next <= n)
        next = n + 1;
    return next > last ? (n < last ? last : last + 1) : next;
}

static int sweep(const options *o)
{
    const model_params *p = &o->params;
    long min_dims = TOPO_MAX_DIMS;
    double m = (double)o->size_bytes;
    char line[64 + 2 * TOPO_MAX_DIMS * 32];
    for (size_t i = 0; i < o->ndims; i++)
        if (o->dims[i] < min_dims)
            min_dims = o->dims[i];
    fputs("nodes", stdout);
    for (size_t i = 0; o->want_avg && i < o->ndims; i++)
        printf("\tavg_%ldd_ns", o->dims[i]);
    for (size_t i = 0; o->want_multicast && i < o->ndims; i++)
        printf("\tmulticast_%ldd_ns", o->dims[i]);
    putchar('\n');
    double ratio = o->sweep_points
                       ? pow((double)o->nodes / (double)(1L << min_dims), 1.0 / (double)(o->sweep_points - 1))
                       : 1;
    for (long N = 1L << min_dims; N <= o->nodes; N = next_n(N, ratio, o->nodes)) {
        double avg[TOPO_MAX_DIMS];
        char *q = line + sprintf(line, "%ld", N);
        for (size_t i = 0; i < o->ndims; i++)
            avg[i] = model_metric_ns(p, MODEL_METRIC_AVG, o->fill, (int)o->dims[i],
                                     (double)N, m);
        for (size_t i = 0; o->want_avg && i < o->ndims; i++) {
            *q++ = '\t';
            q = format_3f(q, avg[i]);
        }
        for (size_t i = 0; o->want_multicast && i < o->ndims; i++) {
            /* continuous fill: T_mu = (N - 1) L_avg, no need to recompute */
            double mc = o->fill == MODEL_FILL_CONTINUOUS
                            ? (double)(N - 1) * avg[i]
                            : model_metric_ns(p, MODEL_METRIC_MULTICAST, o->fill,
                                              (int)o->dims[i], (double)N, m);
            *q++ = '\t';
            q = format_3f(q, mc);
        }
        *q++ = '\n';
        fwrite(line, 1, (size_t)(q - line), stdout);
    }
    return 0;
}

static int shape_row(const options *o)
{
    model_avg_counts c;
    char name[TOPO_MAX_DIMS * 21];
    double m = (double)o->size_bytes;
    topo_shape_format(&o->shape, name, sizeof name);
    model_avg_counts_shape(&o->shape, &c);
    double avg = model_avg_ns_shape(&o->params, &o->shape, m);
    double mc = model_multicast_ns_shape(&o->params, &o->shape, m);
    if (o->tsv) {
        fputs(report_header, stdout);
        print_shape_row_tsv(o->shape.dims, (double)o->shape.nodes, name, &c, avg, mc);
        return 0;
    }
    print_params(&o->params, m);
    printf("\nshape %s (%ld nodes), %ld-byte messages, uniform traffic:\n", name,
           o->shape.nodes, o->size_bytes);
    printf("  average hops %.6f, forwards %.6f, switches %.6f\n", c.hops, c.forwards, c.switches);
    printf("  average latency %.3f ns, multi-unicast total %.3f ns\n", avg, mc);
    return 0;
}

static int p2p(const options *o)
{
    model_p2p r;
    const char *names[3] = {"request", "response", "transaction"};
    model_point_to_point(&o->params, &o->shape, o->hops, (double)o->size_bytes, &r);
    const topo_counts *c[3] = {&r.request, &r.response, NULL};
    topo_counts total = {r.request.links + r.response.links, 0,
                         r.request.forwards + r.response.forwards,
                         r.request.switches + r.response.switches};
    const double ns[3] = {r.request_ns, r.response_ns, r.transaction_ns};
    c[2] = &total;
    if (o->tsv)
        fputs("direction\thops\tforwards\tswitches\tlatency_ns\n", stdout);
    else {
        print_params(&o->params, (double)o->size_bytes);
        printf("\n%s, hops %s, %ld-byte messages:\n  direction    hops  forwards  "
               "switches   latency (ns)\n", o->shape_text, o->hops_text, o->size_bytes);
    }
    for (int i = 0; i < 3; i++)
        printf(o->tsv ? "%s\t%ld\t%ld\t%ld\t%.3f\n" : "  %-11s %5ld %9ld %9ld %14.3f\n",
               names[i], c[i]->links, c[i]->forwards, c[i]->switches, ns[i]);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    switch (o.mode) {
    case MODE_CROSSOVER:
        rc = crossover_table(&o);
        break;
    case MODE_SWEEP:
        rc = sweep(&o);
        break;
    case MODE_SHAPE:
        rc = shape_row(&o);
        break;
    case MODE_P2P:
        rc = p2p(&o);
        break;
    case MODE_REPORT:
        if (!o.tsv) {
            printf("scimodel: %ld nodes, %ld-byte messages, uniform traffic\n", o.nodes,
                   o.size_bytes);
            print_params(&o.params, (double)o.size_bytes);
        }
        rc = report_rows(&o);
        if (!rc && !o.tsv)
            rc = crossover_table(&o);
        break;
    }
    if (!rc && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "scimodel: writing output: %s\n", strerror(errno));
        rc = EXIT_FAILURE;
    }
    return rc;
}
