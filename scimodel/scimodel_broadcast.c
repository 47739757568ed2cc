/* scimodel_broadcast: --bcast multicast|binomial: the time to send m bytes
 * from rank 0 to every node, per D at the nearest integer torus to --nodes
 * (exact) and at N itself (interpolated), or for one --shape; then the
 * crossovers of that curve between dimensions. */
#include <math.h>
#include <stdio.h>

#include "scimodel/scimodel.h"

static double bcast_ns(const scimodel_options *o, const topo_shape *s, long *last)
{
    double m = (double)o->size_bytes;
    *last = s->nodes - 1;
    if (o->want_binomial)
        return model_bcast_binomial_ns(&o->params, s, m, last);
    return model_multicast_ns_shape(&o->params, s, m);
}

static void row(const scimodel_options *o, const topo_shape *s, double at_n_ns)
{
    char name[TOPO_MAX_DIMS * 21], v[40], a[40], lr[24] = "-";
    long last;
    double t = bcast_ns(o, s, &last);
    if (!isnan(t))
        snprintf(lr, sizeof lr, "%ld", last);
    const char *alg = o->want_binomial ? "binomial" : "multicast";
    topo_shape_format(s, name, sizeof name);
    *scimodel_format_3f(v, t) = '\0';
    *scimodel_format_3f(a, at_n_ns) = '\0';
    if (o->tsv)
        printf("%d\t%ld\t%s\t%s\t%s\t%s\t%s\t%s\n", s->dims, s->nodes, name,
               topo_links_name(o->params.links), alg, v, lr, a);
    else
        printf("%3d  %-22s %12ld %16s %10s %16s\n", s->dims, name, s->nodes, v, lr, a);
}

int scimodel_broadcast(const scimodel_options *o)
{
    double m = (double)o->size_bytes;
    const char *alg = o->want_binomial ? "binomial tree" : "multicast";
    model_curve curve = {o->want_binomial ? MODEL_METRIC_BINOMIAL : MODEL_METRIC_MULTICAST,
                         o->want_binomial ? MODEL_FILL_INTERPOLATE : o->fill,
                         TOPO_PATTERN_UNIFORM};
    if (o->tsv)
        fputs("dims\tnodes\tshape\tlinks\talgorithm\tbcast_ns\tlast_rank\tat_nodes_ns\n", stdout);
    else {
        printf("scimodel: broadcast of %ld bytes from rank 0 (%s), %s links\n", o->size_bytes,
               alg, topo_links_name(o->params.links));
        scimodel_print_params(&o->params, m, 0);
        printf("\n  D  torus                         nodes   broadcast (ns)  last rank"
               "   at N=%ld (ns)\n", o->mode == MODE_SHAPE ? o->shape.nodes : o->nodes);
    }
    if (o->mode == MODE_SHAPE) {
        row(o, &o->shape, NAN);
        return 0;
    }
    for (size_t i = 0; i < o->ndims; i++) {
        topo_shape near;
        int D = (int)o->dims[i];
        if (model_nearest_torus(D, (double)o->nodes, &near))
            continue;
        row(o, &near, model_curve_ns(&o->params, &curve, D, (double)o->nodes, m));
    }
    if (!o->tsv) {
        printf("  ('at N' interpolates between the tori n^D; '-' where no D-dimensional torus"
               " is that small, or the binomial tree has over 2^26 nodes)\n");
        return scimodel_crossover(o);
    }
    return 0;
}
