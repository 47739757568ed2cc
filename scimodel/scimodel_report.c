/* scimodel_report: the default mode, one row per requested number of
 * dimensions at --nodes N (continuous shape n^D and the nearest integer
 * torus), for uniform traffic or a --pattern, then the crossover table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/uncertainty.h"
#include "scimodel/scimodel.h"

static const char report_header[] =
    "dims\tnodes\tshape\tavg_hops\tavg_forwards\tavg_switches\tavg_ns\tmulticast_ns\n";
static const char pattern_header[] =
    "dims\tnodes\tshape\tpattern\tlinks\tavg_hops\tavg_forwards\tavg_switches\tavg_ns\n";

/* Default output (uniform traffic, uni links, neither option given) keeps
 * the original columns; naming either adds the pattern and links columns. */
int scimodel_named(const scimodel_options *o)
{
    return o->pattern_given || o->links_given || o->params.links != TOPO_LINKS_UNI;
}

/* A route's latency as a function of the parameters (for its interval). */
typedef struct route_arg {
    double m;
    const model_avg_counts *c;
} route_arg;

static int route_fn(const model_params *p, void *arg, double *v)
{
    const route_arg *a = arg;
    *v = model_route_ns(p, a->m, a->c->hops, a->c->forwards, a->c->switches);
    return 0;
}

/* The average's sigma for counts c (NaN without errors or counts). */
static double avg_sigma(const model_params *p, double m, const model_avg_counts *c)
{
    double v, sigma = NAN;
    route_arg a = {m, c};
    if (c)
        unc_eval(p, route_fn, &a, &v, &sigma);
    return sigma;
}

/* The interval columns (a params file with errors only): avg_ns_lo,
 * avg_ns_hi at the end of a TSV row. */
static void tsv_interval(const scimodel_options *o, const model_avg_counts *c, double avg)
{
    if (!unc_has_errors(&o->params))
        return;
    double s = avg_sigma(&o->params, (double)o->size_bytes, c);
    if (isnan(s))
        fputs("\t-\t-", stdout);
    else
        printf("\t%.3f\t%.3f", avg - UNC_Z95 * s, avg + UNC_Z95 * s);
}

/* One TSV row; c == NULL prints '-' for every value (no such torus). */
static void tsv_row(const scimodel_options *o, int dims, long nodes, const char *shape,
                    const model_avg_counts *c, double avg, double mc)
{
    if (scimodel_named(o))
        printf("%d\t%ld\t%s\t%s\t%s", dims, nodes, shape, topo_pattern_name(o->pattern),
               topo_links_name(o->params.links));
    else
        printf("%d\t%ld\t%s", dims, nodes, shape);
    if (!c) {
        fputs(scimodel_named(o) ? "\t-\t-\t-\t-" : "\t-\t-\t-\t-\t-", stdout);
        tsv_interval(o, c, avg);
        putchar('\n');
        return;
    }
    printf("\t%.6f\t%.6f\t%.6f\t%.3f", c->hops, c->forwards, c->switches, avg);
    if (!scimodel_named(o))
        printf("\t%.3f", mc);
    tsv_interval(o, c, avg);
    putchar('\n');
}

void scimodel_shape_tsv(const scimodel_options *o, const topo_shape *s, double size_bytes)
{
    model_avg_counts c;
    char name[TOPO_MAX_DIMS * 21];
    const model_params *p = &o->params;
    topo_shape_format(s, name, sizeof name);
    if (model_pattern_counts_shape(s, p->links, o->pattern, &c, NULL)) {
        tsv_row(o, s->dims, s->nodes, name, NULL, NAN, NAN);
        return;
    }
    tsv_row(o, s->dims, s->nodes, name, &c, model_route_ns(p, size_bytes, c.hops, c.forwards,
                                                           c.switches),
            model_multicast_ns_shape(p, s, size_bytes));
}

void scimodel_report_header(const scimodel_options *o)
{
    const char *h = scimodel_named(o) ? pattern_header : report_header;
    if (!unc_has_errors(&o->params)) {
        fputs(h, stdout);
        return;
    }
    printf("%.*s\tavg_ns_lo\tavg_ns_hi\n", (int)strlen(h) - 1, h);
}

/* The text table: each column as wide as its widest cell, and at least as
 * wide as the layout at a thousand nodes, so that any N (a million nodes
 * makes 12-digit multicast totals) keeps the columns under their headings. */
enum { REPORT_COLS = 10, REPORT_CELL = TOPO_MAX_DIMS * 21 + 24 };
typedef char report_line[REPORT_COLS][REPORT_CELL];
/* the last column, the continuous avg's 95% interval, only with errors */
static const char *const report_heads[REPORT_COLS] = {
    "D", "shape (n^D)", "avg hops", "forwards", "switches", "avg (us)", "multicast (us)",
    "nearest torus", "avg (us)", "avg 95% (us)"};
static const int report_min_width[REPORT_COLS] = {3, 12, 10, 9, 9, 10, 15, 20, 9, 18};
static const char *const report_gap[REPORT_COLS] = {"", "  ", " ", " ", " ", " ", " ", "   ", " ",
                                                    "   "};
static const int report_left[REPORT_COLS] = {0, 1, 0, 0, 0, 0, 0, 1, 0, 0};

static void print_table(const report_line *lines, size_t n, int cols)
{
    int width[REPORT_COLS];
    for (int k = 0; k < cols; k++) {
        width[k] = report_min_width[k];
        for (size_t i = 0; i < n; i++)
            if ((int)strlen(lines[i][k]) > width[k])
                width[k] = (int)strlen(lines[i][k]);
    }
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < cols; k++)
            printf("%s%*s", report_gap[k], report_left[k] ? -width[k] : width[k], lines[i][k]);
        putchar('\n');
    }
}

static int report_rows(const scimodel_options *o)
{
    const model_params *p = &o->params;
    double N = (double)o->nodes, m = (double)o->size_bytes;
    int missing = 0, uniform = o->pattern == TOPO_PATTERN_UNIFORM;
    report_line *lines = o->tsv ? NULL : calloc(o->ndims + 1, sizeof *lines);
    if (o->tsv)
        scimodel_report_header(o);
    else if (!lines) {
        fprintf(stderr, "scimodel: out of memory\n");
        return EXIT_FAILURE;
    } else
        for (int k = 0; k < REPORT_COLS; k++)
            snprintf(lines[0][k], REPORT_CELL, "%s", report_heads[k]);
    for (size_t i = 0; i < o->ndims; i++) {
        int D = (int)o->dims[i];
        model_avg_counts c;
        topo_shape near;
        char cont[64], ns[TOPO_MAX_DIMS * 21];
        /* no D-dimensional torus below 2^D nodes: such pairs are not compared */
        int exists = N >= pow(2, D) &&
                     model_pattern_counts_continuous(p->links, o->pattern, D, N, &c) == 0;
        double avg = exists ? model_route_ns(p, m, c.hops, c.forwards, c.switches) : NAN;
        double mc = exists && uniform ? model_metric_ns(p, MODEL_METRIC_MULTICAST, o->fill, D, N, m)
                                      : NAN;
        int have_near = model_nearest_torus(D, N, &near) == 0 &&
                        !topo_pattern_check(&near, o->pattern);
        double near_avg = have_near ? model_pattern_ns_shape(p, &near, o->pattern, m) : NAN;
        missing |= !exists;
        if (have_near)
            topo_shape_format(&near, ns, sizeof ns);
        if (o->tsv) {
            snprintf(cont, sizeof cont, "%.4f^%d", pow(N, 1.0 / D), D);
            tsv_row(o, D, o->nodes, cont, exists ? &c : NULL, avg, mc);
            if (have_near)
                scimodel_shape_tsv(o, &near, m);
            continue;
        }
        char(*cell)[REPORT_CELL] = lines[i + 1];
        snprintf(cell[0], REPORT_CELL, "%d", D);
        snprintf(cell[1], REPORT_CELL, "%.2f^%d", pow(N, 1.0 / D), D);
        for (int k = 2; k <= 6; k++)
            strcpy(cell[k], "-");
        if (exists) {
            snprintf(cell[2], REPORT_CELL, "%.3f", c.hops);
            snprintf(cell[3], REPORT_CELL, "%.3f", c.forwards);
            snprintf(cell[4], REPORT_CELL, "%.3f", c.switches);
            snprintf(cell[5], REPORT_CELL, "%.3f", avg / 1e3);
            *scimodel_format_3f(cell[6], mc / 1e3) = '\0';
        }
        strcpy(cell[7], "-");
        if (have_near)
            snprintf(cell[7], REPORT_CELL, "%s = %ld", ns, near.nodes);
        *scimodel_format_3f(cell[8], near_avg / 1e3) = '\0';   /* '-' for NaN */
        unc_format(cell[9], REPORT_CELL, avg, exists ? avg_sigma(p, m, &c) : NAN, 1e-3, 3);
    }
    if (!o->tsv) {
        print_table((const report_line *)lines, o->ndims + 1,
                    unc_has_errors(p) ? REPORT_COLS : REPORT_COLS - 1);
        free(lines);
    }
    if (missing && !o->tsv)
        printf("  ('-': no D-dimensional torus with n >= 2 per dimension has only %ld nodes%s)\n",
               o->nodes, uniform ? "" : ", or the pattern has no continuous form there");
    return 0;
}

int scimodel_report(const scimodel_options *o)
{
    if (!o->tsv) {
        printf("scimodel: %ld nodes, %ld-byte messages, %s traffic, %s links\n", o->nodes,
               o->size_bytes, topo_pattern_name(o->pattern), topo_links_name(o->params.links));
        scimodel_print_params(&o->params, (double)o->size_bytes, 0);
    }
    int rc = report_rows(o);
    if (!rc && !o->tsv)
        rc = scimodel_crossover(o);
    return rc;
}
