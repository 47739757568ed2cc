/* scimodel_report: the default mode, one row per requested number of
 * dimensions at --nodes N (continuous shape n^D and the nearest integer
 * torus), for uniform traffic or a --pattern, then the crossover table. */
#include <math.h>
#include <stdio.h>

#include "model/scimodel.h"

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
        fputs(scimodel_named(o) ? "\t-\t-\t-\t-\n" : "\t-\t-\t-\t-\t-\n", stdout);
        return;
    }
    printf("\t%.6f\t%.6f\t%.6f\t%.3f", c->hops, c->forwards, c->switches, avg);
    if (!scimodel_named(o))
        printf("\t%.3f", mc);
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
    fputs(scimodel_named(o) ? pattern_header : report_header, stdout);
}

static int report_rows(const scimodel_options *o)
{
    const model_params *p = &o->params;
    double N = (double)o->nodes, m = (double)o->size_bytes;
    int missing = 0, uniform = o->pattern == TOPO_PATTERN_UNIFORM;
    if (o->tsv)
        scimodel_report_header(o);
    else
        printf("\n  D  shape (n^D)    avg hops  forwards  switches   avg (us)  multicast (us)"
               "   nearest torus         avg (us)\n");
    for (size_t i = 0; i < o->ndims; i++) {
        int D = (int)o->dims[i];
        model_avg_counts c;
        topo_shape near;
        char cont[64], ns[TOPO_MAX_DIMS * 21], nbuf[TOPO_MAX_DIMS * 21 + 24] = "-", nv[40];
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
        snprintf(cont, sizeof cont, "%.2f^%d", pow(N, 1.0 / D), D);
        if (have_near)
            snprintf(nbuf, sizeof nbuf, "%s = %ld", ns, near.nodes);
        *scimodel_format_3f(nv, near_avg / 1e3) = '\0';   /* '-' for NaN */
        if (exists) {
            char mv[40];
            *scimodel_format_3f(mv, mc / 1e3) = '\0';
            printf("%3d  %-12s %10.3f %9.3f %9.3f %10.3f %15s   %-20s %9s\n", D, cont,
                   c.hops, c.forwards, c.switches, avg / 1e3, mv, nbuf, nv);
        } else
            printf("%3d  %-12s %10s %9s %9s %10s %15s   %-20s %9s\n", D, cont, "-", "-", "-",
                   "-", "-", nbuf, nv);
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
        scimodel_print_params(&o->params, (double)o->size_bytes);
    }
    int rc = report_rows(o);
    if (!rc && !o->tsv)
        rc = scimodel_crossover(o);
    return rc;
}
