/* scimodel_crossover: where D + 1 dimensions start to beat D (docs/model.md)
 * between consecutive requested dimensions (sorted, so --dims 4,1 compares
 * 1 and 4), per metric, for uniform traffic or a --pattern, on either kind
 * of links; and in words which D is best in which range of N. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/uncertainty.h"
#include "scimodel/scimodel.h"

typedef struct xo_row {
    model_metric metric;
    int from, to;
    double nodes, limit;   /* limit: the largest N searched */
    model_crossover_status status;
    double sigma;          /* of nodes, a crossover's only (NaN: none) */
} xo_row;

/* A crossover's N as a function of the parameters; a shift that makes it
 * no crossover (a bound, none) has no derivative: refused. */
typedef struct xo_arg {
    const model_curve *curve;
    int from, to;
    double m;
} xo_arg;

static int xo_fn(const model_params *p, void *arg, double *v)
{
    const xo_arg *a = arg;
    model_crossover_status st;
    if (model_crossover_curve(p, a->curve, a->from, a->to, a->m, v, &st))
        return -1;
    return st == MODEL_XO_CROSSOVER ? 0 : 1;
}

static const char *metric_name(model_metric m)
{
    static const char *const names[] = {"avg", "multicast", "binomial"};
    return names[m];
}

static int compute_crossovers(const scimodel_options *o, xo_row *rows, size_t *count)
{
    const model_metric metrics[3] = {MODEL_METRIC_AVG, MODEL_METRIC_MULTICAST,
                                     MODEL_METRIC_BINOMIAL};
    const int want[3] = {o->want_avg, o->want_multicast, o->want_binomial};
    *count = 0;
    for (int k = 0; k < 3; k++) {
        model_curve curve = {metrics[k], o->fill, o->pattern};
        for (size_t i = 0; want[k] && i + 1 < o->ndims; i++) {
            xo_row *r = &rows[(*count)++];
            r->metric = metrics[k];
            r->from = (int)o->dims[i];
            r->to = (int)o->dims[i + 1];
            r->limit = model_crossover_limit(&curve, r->from, r->to);
            if (model_crossover_curve(&o->params, &curve, r->from, r->to,
                                      (double)o->size_bytes, &r->nodes, &r->status)) {
                fprintf(stderr, "scimodel: root finder failed for %dD -> %dD\n", r->from, r->to);
                return EXIT_FAILURE;
            }
            xo_arg a = {&curve, r->from, r->to, (double)o->size_bytes};
            double v;
            r->sigma = NAN;
            if (r->status == MODEL_XO_CROSSOVER && unc_eval(&o->params, xo_fn, &a, &v, &r->sigma))
                r->sigma = NAN;
        }
    }
    return 0;
}

static void print_best_ranges(const scimodel_options *o, const xo_row *rows, size_t count,
                              model_metric metric)
{
    char lo[32] = "2";
    int D = -1;
    static const char *const what[] = {"lowest average latency", "lowest multicast total",
                                       "fastest binomial broadcast"};
    printf("  %s: ", what[metric]);
    for (size_t i = 0; i < count; i++) {
        const xo_row *r = &rows[i];
        if (r->metric != metric)
            continue;
        if (D < 0)
            D = r->from;
        if (r->status == MODEL_XO_NONE) {
            printf("%dD from N = %s up to %.4g (%dD never wins)\n", D, lo, r->limit, r->to);
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

/* Whether every multicast row is its average row: with uniform traffic on
 * the continuous n the multicast total is (N - 1) x avg at every N, so
 * the two cross where the averages do (printed once, saying why). */
static int multicast_is_avg(const xo_row *rows, size_t count)
{
    size_t navg = 0, nmc = 0;
    for (size_t i = 0; i < count; i++)
        navg += rows[i].metric == MODEL_METRIC_AVG, nmc += rows[i].metric == MODEL_METRIC_MULTICAST;
    if (navg == 0 || nmc != navg)
        return 0;
    for (size_t i = 0; i < nmc; i++) {
        const xo_row *a = &rows[i], *m = &rows[navg + i];
        if (a->from != m->from || a->to != m->to || a->status != m->status ||
            (a->status != MODEL_XO_NONE && fabs(a->nodes - m->nodes) > 1e-9 * a->nodes))
            return 0;
    }
    return 1;
}

static void print_tsv(const scimodel_options *o, const xo_row *rows, size_t count)
{
    int named = scimodel_named(o);
    int errs = unc_has_errors(&o->params);
    fputs(named ? "metric\tpattern\tlinks\tfrom_dims\tto_dims\tnodes\tstatus"
                : "metric\tfrom_dims\tto_dims\tnodes\tstatus", stdout);
    fputs(errs ? "\tnodes_lo\tnodes_hi\n" : "\n", stdout);
    for (size_t i = 0; i < count; i++) {
        printf("%s\t", metric_name(rows[i].metric));
        if (named)
            printf("%s\t%s\t", rows[i].metric == MODEL_METRIC_AVG
                                   ? topo_pattern_name(o->pattern) : "broadcast",
                   topo_links_name(o->params.links));
        printf("%d\t%d\t", rows[i].from, rows[i].to);
        if (rows[i].status == MODEL_XO_NONE)
            printf("-");
        else
            printf("%.4f", rows[i].nodes);
        printf("\t%s", model_crossover_status_name(rows[i].status));
        if (errs && !isnan(rows[i].sigma))
            printf("\t%.4f\t%.4f", rows[i].nodes - UNC_Z95 * rows[i].sigma,
                   rows[i].nodes + UNC_Z95 * rows[i].sigma);
        else if (errs)
            fputs("\t-\t-", stdout);
        putchar('\n');
    }
}

int scimodel_crossover(const scimodel_options *o)
{
    xo_row rows[3 * TOPO_MAX_DIMS];
    size_t count;
    int rc = compute_crossovers(o, rows, &count);
    if (rc)
        return rc;
    if (o->tsv) {
        print_tsv(o, rows, count);
        return 0;
    }
    if (o->want_binomial)
        printf("\ncrossovers (binomial broadcast, exact on the integer tori n^D and "
               "interpolated between them; %s links; searched from N = 2^D up to the largest "
               "torus of either D within 2^20 nodes):\n",
               topo_links_name(o->params.links));
    else
        printf("\ncrossovers (%s n = N^(1/D); %s traffic, %s links; searched from N = 2^D up "
               "to 1e9):\n", o->fill == MODEL_FILL_INTERPOLATE
                                ? "interpolated between integer tori," : "continuous",
               topo_pattern_name(o->pattern), topo_links_name(o->params.links));
    int same = o->want_avg && o->want_multicast && o->fill != MODEL_FILL_INTERPOLATE &&
               o->pattern == TOPO_PATTERN_UNIFORM && multicast_is_avg(rows, count);
    for (size_t i = 0; i < count; i++) {
        const xo_row *r = &rows[i];
        if (same && r->metric == MODEL_METRIC_MULTICAST)
            continue;
        printf("  %-9s  %dD -> %dD  ", metric_name(r->metric), r->from, r->to);
        char fixed[400];
        int uncovered = unc_uncovered(&o->params, fixed, sizeof fixed);
        if (r->status == MODEL_XO_CROSSOVER && !isnan(r->sigma) && uncovered &&
            r->sigma < 1e-6 * r->nodes)
            /* the measured parameters cancel here (o(m) is in every D's latency) */
            printf("%12.2f nodes (set by parameters without errors: %s)\n", r->nodes, fixed);
        else if (r->status == MODEL_XO_CROSSOVER && !isnan(r->sigma))
            printf("%12.2f nodes (95%%: %.2f .. %.2f%s%s)\n", r->nodes,
                   r->nodes - UNC_Z95 * r->sigma, r->nodes + UNC_Z95 * r->sigma,
                   uncovered ? "; not covering " : "", uncovered ? fixed : "");
        else if (r->status == MODEL_XO_CROSSOVER)
            printf("%12.2f nodes\n", r->nodes);
        else if (r->status == MODEL_XO_LOWER_BOUND)
            printf("%12.2f nodes (lower bound: %dD already wins where it starts)\n",
                   r->nodes, r->to);
        else if (r->limit < pow(2, r->to))
            printf("        not searched (%dD at N >= 2^%d needs a torus over 2^20 nodes)\n",
                   r->from, r->to);
        else
            printf("        none (%dD does not win below %.4g nodes)\n", r->to, r->limit);
    }
    if (same)
        printf("  (multicast, the total of N - 1 unicasts, is (N - 1) x avg at every N: its\n"
               "   crossovers and best number of dimensions are avg's)\n");
    if (o->ndims > 1 && (o->want_avg || o->want_multicast)) {
        printf("\nbest number of dimensions by system size N:\n");
        if (o->want_avg)
            print_best_ranges(o, rows, count, MODEL_METRIC_AVG);
        if (o->want_multicast && !same)
            print_best_ranges(o, rows, count, MODEL_METRIC_MULTICAST);
    }
    if (o->want_binomial)
        /* the tree's depth jumps at powers of two and the curves cross back
         * and forth: a first crossover does not say which D is best later */
        printf("  binomial broadcast: the curves of different D cross more than once (the "
               "tree deepens at every power of two);\n  the first crossover is shown, compare "
               "at a given N with the table above or --sweep --bcast binomial\n");
    return 0;
}
