/* scimodel_sweep: one TSV line per N (every integer N, or --sweep-points
 * log-spaced ones) with every requested D's curve, for plots; progress on
 * stderr every --progress seconds (default 2) for long sweeps. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "scimodel/scimodel.h"

/* Look at the clock every this many lines (a line takes about 1 us). */
#define PROGRESS_CHECK_LINES 1024

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

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void print_header(const scimodel_options *o)
{
    char prefix[64];
    if (scimodel_named(o))
        snprintf(prefix, sizeof prefix, "%s_%s_", topo_pattern_name(o->pattern),
                 topo_links_name(o->params.links));
    else
        snprintf(prefix, sizeof prefix, "avg_");
    fputs("nodes", stdout);
    for (size_t i = 0; o->want_avg && i < o->ndims; i++)
        printf("\t%s%ldd_ns", prefix, o->dims[i]);
    for (size_t i = 0; o->want_multicast && i < o->ndims; i++) {
        if (scimodel_named(o))
            printf("\tmulticast_%s_%ldd_ns", topo_links_name(o->params.links), o->dims[i]);
        else
            printf("\tmulticast_%ldd_ns", o->dims[i]);
    }
    for (size_t i = 0; o->want_binomial && i < o->ndims; i++)
        printf("\tbinomial_%s_%ldd_ns", topo_links_name(o->params.links), o->dims[i]);
    putchar('\n');
}

int scimodel_sweep(const scimodel_options *o)
{
    const model_params *p = &o->params;
    long min_dims = o->dims[0], lines = 0;   /* dims are sorted */
    double m = (double)o->size_bytes, start = now_s(), last_report = start;
    char line[64 + 2 * TOPO_MAX_DIMS * 32];
    model_curve avg_curve = {MODEL_METRIC_AVG, o->fill, o->pattern};
    model_curve mc_curve = {MODEL_METRIC_MULTICAST, o->fill, TOPO_PATTERN_UNIFORM};
    model_curve bin_curve = {MODEL_METRIC_BINOMIAL, o->fill, TOPO_PATTERN_UNIFORM};
    print_header(o);
    long first = 1L << min_dims;
    double ratio = o->sweep_points
                       ? pow((double)o->nodes / (double)first, 1.0 / (double)(o->sweep_points - 1))
                       : 1;
    for (long N = first; N <= o->nodes; N = next_n(N, ratio, o->nodes)) {
        double avg[TOPO_MAX_DIMS];
        char *q = line + sprintf(line, "%ld", N);
        for (size_t i = 0; o->want_avg && i < o->ndims; i++)
            avg[i] = model_curve_ns(p, &avg_curve, (int)o->dims[i], (double)N, m);
        for (size_t i = 0; o->want_avg && i < o->ndims; i++) {
            *q++ = '\t';
            q = scimodel_format_3f(q, avg[i]);
        }
        for (size_t i = 0; o->want_multicast && i < o->ndims; i++) {
            /* continuous fill, uniform: T_mu = (N - 1) L_avg, no need to recompute */
            double mc = o->want_avg && o->fill == MODEL_FILL_CONTINUOUS &&
                                o->pattern == TOPO_PATTERN_UNIFORM
                            ? (double)(N - 1) * avg[i]
                            : model_curve_ns(p, &mc_curve, (int)o->dims[i], (double)N, m);
            *q++ = '\t';
            q = scimodel_format_3f(q, mc);
        }
        for (size_t i = 0; o->want_binomial && i < o->ndims; i++) {
            *q++ = '\t';
            q = scimodel_format_3f(q, model_curve_ns(p, &bin_curve, (int)o->dims[i],
                                                     (double)N, m));
        }
        *q++ = '\n';
        fwrite(line, 1, (size_t)(q - line), stdout);
        /* a binomial column walks trees of up to 2^26 nodes (seconds a
         * line at large N): look at the clock every line then */
        if (o->progress_s > 0 &&
            (o->want_binomial || ++lines % PROGRESS_CHECK_LINES == 0)) {
            double t = now_s();
            if (t - last_report >= o->progress_s) {
                fprintf(stderr, "scimodel: sweep at N = %ld of %ld (%.0f s)%s\n", N, o->nodes,
                        t - start, o->want_binomial ? "; binomial trees are walked node by "
                                                      "node, up to 2^26 nodes" : "");
                last_report = t;
            }
        }
    }
    return 0;
}
