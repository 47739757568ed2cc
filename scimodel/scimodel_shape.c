/* scimodel_shape: one exact torus (--shape S): its report row for uniform
 * traffic or a --pattern, and (--hops H) the request, response and
 * transaction latency of one hop vector. */
#include <math.h>
#include <stdio.h>

#include "model/uncertainty.h"
#include "scimodel/scimodel.h"

int scimodel_shape(const scimodel_options *o)
{
    model_avg_counts c;
    char name[TOPO_MAX_DIMS * 21];
    const model_params *p = &o->params;
    double m = (double)o->size_bytes, messages;
    if (o->tsv) {
        scimodel_report_header(o);
        scimodel_shape_tsv(o, &o->shape, m);
        return 0;
    }
    topo_shape_format(&o->shape, name, sizeof name);
    scimodel_print_params(p, m, 0);
    printf("\nshape %s (%ld nodes), %ld-byte messages, %s traffic, %s links:\n", name,
           o->shape.nodes, o->size_bytes, topo_pattern_name(o->pattern),
           topo_links_name(p->links));
    if (model_pattern_counts_shape(&o->shape, p->links, o->pattern, &c, &messages)) {
        printf("  no messages: every node of this shape is its own %s destination\n",
               topo_pattern_name(o->pattern));
        return 0;
    }
    printf("  %.0f messages; average hops %.6f, forwards %.6f, switches %.6f\n", messages,
           c.hops, c.forwards, c.switches);
    printf("  average latency %.3f ns", model_route_ns(p, m, c.hops, c.forwards, c.switches));
    if (o->pattern == TOPO_PATTERN_UNIFORM)
        printf(", multicast total %.3f ns", model_multicast_ns_shape(p, &o->shape, m));
    putchar('\n');
    return 0;
}

/* One of the request, response and transaction latencies as a function
 * of the parameters (its interval). */
typedef struct p2p_arg {
    const scimodel_options *o;
    int which;
} p2p_arg;

static int p2p_fn(const model_params *p, void *arg, double *v)
{
    const p2p_arg *a = arg;
    model_p2p r;
    model_point_to_point(p, &a->o->shape, a->o->hops, (double)a->o->size_bytes, &r);
    *v = a->which == 0 ? r.request_ns : a->which == 1 ? r.response_ns : r.transaction_ns;
    return 0;
}

int scimodel_p2p(const scimodel_options *o)
{
    int errs = unc_has_errors(&o->params);
    int point = errs && !isnan(o->params.fit_residual_rms);
    model_p2p r;
    const char *names[3] = {"request", "response", "transaction"};
    model_point_to_point(&o->params, &o->shape, o->hops, (double)o->size_bytes, &r);
    const topo_counts *c[3] = {&r.request, &r.response, NULL};
    topo_counts total = {r.request.links + r.response.links, 0,
                         r.request.forwards + r.response.forwards,
                         r.request.switches + r.response.switches};
    const double ns[3] = {r.request_ns, r.response_ns, r.transaction_ns};
    int named = scimodel_named(o);
    c[2] = &total;
    if (o->tsv) {
        fputs(named ? "links\tdirection\thops\tforwards\tswitches\tlatency_ns"
                    : "direction\thops\tforwards\tswitches\tlatency_ns", stdout);
        fputs(errs ? "\tlatency_ns_lo\tlatency_ns_hi" : "", stdout);
        fputs(point ? "\tmeasured_ns_lo\tmeasured_ns_hi\n" : "\n", stdout);
    } else {
        scimodel_print_params(&o->params, (double)o->size_bytes, 0);
        printf("\n%s, hops %s, %ld-byte messages, %s links:\n  direction    hops  forwards  "
               "switches   latency (ns)%s%s\n", o->shape_text, o->hops_text, o->size_bytes,
               topo_links_name(o->params.links), errs ? "      latency 95% (ns)" : "",
               point ? "   a measurement 95% (ns)" : "");
    }
    for (int i = 0; i < 3; i++) {
        double v, sigma = NAN;
        p2p_arg a = {o, i};
        if (errs)
            unc_eval(&o->params, p2p_fn, &a, &v, &sigma);
        if (o->tsv && named)
            printf("%s\t", topo_links_name(o->params.links));
        printf(o->tsv ? "%s\t%ld\t%ld\t%ld\t%.3f" : "  %-11s %5ld %9ld %9ld %14.3f",
               names[i], c[i]->links, c[i]->forwards, c[i]->switches, ns[i]);
        /* a single measurement scatters about the model as the fitted points did */
        double ps = point ? hypot(sigma, o->params.fit_residual_rms * ns[i]) : NAN;
        if (errs && o->tsv)
            printf("\t%.3f\t%.3f", ns[i] - UNC_Z95 * sigma, ns[i] + UNC_Z95 * sigma);
        else if (errs) {
            char iv[64];
            printf("  %20s", unc_format(iv, sizeof iv, ns[i], sigma, 1, 3));
        }
        if (point && o->tsv)
            printf("\t%.3f\t%.3f", ns[i] - UNC_Z95 * ps, ns[i] + UNC_Z95 * ps);
        else if (point) {
            char iv[64];
            printf("  %24s", unc_format(iv, sizeof iv, ns[i], ps, 1, 3));
        }
        putchar('\n');
    }
    return 0;
}
