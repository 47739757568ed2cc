/* scimodel_crossover: where D + 1 dimensions start to beat D (SPEC.md §2)
 * between consecutive requested dimensions (sorted, so --dims 4,1 compares
 * 1 and 4), per metric, for uniform traffic or a --pattern, on either kind
 * of links; and in words which D is best in which range of N. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/scimodel.h"

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

static int compute_crossovers(const scimodel_options *o, xo_row *rows, size_t *count)
{
    const model_metric metrics[2] = {MODEL_METRIC_AVG, MODEL_METRIC_MULTICAST};
    const int want[2] = {o->want_avg, o->want_multicast};
    *count = 0;
    for (int k = 0; k < 2; k++) {
        model_curve curve = {metrics[k], o->fill, o->pattern};
        for (size_t i = 0; want[k] && i + 1 < o->ndims; i++) {
            xo_row *r = &rows[(*count)++];
            r->metric = metrics[k];
            r->from = (int)o->dims[i];
            r->to = (int)o->dims[i + 1];
            if (model_crossover_curve(&o->params, &curve, r->from, r->to,
                                      (double)o->size_bytes, &r->nodes, &r->status)) {
                fprintf(stderr, "scimodel: root finder failed for %dD -> %dD\n", r->from, r->to);
                return EXIT_FAILURE;
            }
        }
    }
    return 0;
}

static void print_best_ranges(const scimodel_options *o, const xo_row *rows, size_t count,
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

static void print_tsv(const scimodel_options *o, const xo_row *rows, size_t count)
{
    int named = scimodel_named(o);
    fputs(named ? "metric\tpattern\tlinks\tfrom_dims\tto_dims\tnodes\tstatus\n"
                : "metric\tfrom_dims\tto_dims\tnodes\tstatus\n", stdout);
    for (size_t i = 0; i < count; i++) {
        printf("%s\t", metric_name(rows[i].metric));
        if (named)
            printf("%s\t%s\t", rows[i].metric == MODEL_METRIC_AVG
                                   ? topo_pattern_name(o->pattern) : "uniform",
                   topo_links_name(o->params.links));
        printf("%d\t%d\t", rows[i].from, rows[i].to);
        if (rows[i].status == MODEL_XO_NONE)
            printf("-");
        else
            printf("%.4f", rows[i].nodes);
        printf("\t%s\n", model_crossover_status_name(rows[i].status));
    }
}

int scimodel_crossover(const scimodel_options *o)
{
    xo_row rows[2 * TOPO_MAX_DIMS];
    size_t count;
    int rc = compute_crossovers(o, rows, &count);
    if (rc)
        return rc;
    if (o->tsv) {
        print_tsv(o, rows, count);
        return 0;
    }
    printf("\ncrossovers (%s n = N^(1/D); %s traffic, %s links; searched from N = 2^D up to "
           "1e9):\n", o->fill == MODEL_FILL_INTERPOLATE ? "interpolated between integer tori,"
                                                       : "continuous",
           topo_pattern_name(o->pattern), topo_links_name(o->params.links));
    for (size_t i = 0; i < count; i++) {
        const xo_row *r = &rows[i];
        printf("  %-9s  %dD -> %dD  ", metric_name(r->metric), r->from, r->to);
        if (r->status == MODEL_XO_CROSSOVER)
            printf("%12.2f nodes\n", r->nodes);
        else if (r->status == MODEL_XO_LOWER_BOUND)
            printf("%12.2f nodes (lower bound: %dD already wins where it starts)\n",
                   r->nodes, r->to);
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
