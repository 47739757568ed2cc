/* load: latency under load with an M/D/1 queue at every channel (SPEC.md
 * §9), from the channel loads topo_link_loads counts. */
#include <math.h>
#include <stdlib.h>

#include "model/model.h"

/* Two loads this close are the same bottleneck (sums of 1/k terms). */
#define LOAD_TIE_REL 1e-12

int model_load_init(model_load *ld, const topo_shape *shape, topo_links links,
                    topo_pattern pattern)
{
    long entries = 2L * shape->dims * shape->nodes;
    ld->shape = *shape;
    ld->links = links;
    ld->pattern = pattern;
    ld->c = ld->s2 = ld->ej = ld->ej_s2 = NULL;
    if (entries > TOPO_LOAD_MAX_LINKS ||
        model_pattern_counts_shape(shape, links, pattern, &ld->counts, NULL))
        return -1;
    ld->c = malloc(sizeof *ld->c * (size_t)entries);
    ld->s2 = malloc(sizeof *ld->s2 * (size_t)entries);
    ld->ej = malloc(sizeof *ld->ej * (size_t)shape->nodes);
    ld->ej_s2 = malloc(sizeof *ld->ej_s2 * (size_t)shape->nodes);
    if (!ld->c || !ld->s2 || !ld->ej || !ld->ej_s2 ||
        topo_link_loads(shape, links, pattern, ld->c, &ld->senders) ||
        topo_link_input_streams(shape, links, pattern, ld->c, ld->s2, ld->ej, ld->ej_s2)) {
        model_load_free(ld);
        return -1;
    }
    double max = 0;
    long at = -1, ties = 0;
    for (long l = 0; l < entries; l++)
        if (ld->c[l] > max * (1 + LOAD_TIE_REL)) {
            max = ld->c[l];
            at = l;
            ties = 1;
        } else if (ld->c[l] >= max * (1 - LOAD_TIE_REL) && max > 0)
            ties++;
    ld->bottleneck = max > 1 ? at : -1;   /* the injection channel carries c = 1 */
    ld->bottlenecks = ties;
    ld->c_max = max > 1 ? max : 1;
    return 0;
}

void model_load_free(model_load *ld)
{
    free(ld->c);
    free(ld->s2);
    free(ld->ej);
    free(ld->ej_s2);
    ld->c = ld->s2 = ld->ej = ld->ej_s2 = NULL;
}

double model_load_link_ns(const model_params *p, double size_bytes)
{
    return size_bytes / p->link_bw_bytes_per_ns;
}

double model_load_saturation(const model_params *p, const model_load *ld, double size_bytes)
{
    return 1 / (model_load_link_ns(p, size_bytes) * ld->c_max);
}

/* M/D/1 mean wait in queue: rho t / (2 (1 - rho)). */
static double md1_wait(double rho, double t)
{
    return rho * t / (2 * (1 - rho));
}

int model_load_latency(const model_params *p, const model_load *ld, double size_bytes,
                       double rate_per_ns, double *latency_ns, double *wait_ns,
                       double *independent_ns)
{
    double t = model_load_link_ns(p, size_bytes), lambda = rate_per_ns;
    if (!(lambda >= 0) || lambda >= model_load_saturation(p, ld, size_bytes))
        return -1;
    long entries = 2L * ld->shape.dims * ld->shape.nodes;
    double indep = 0, refined = 0, ej_refined = 0;
    /* mean over injected messages of the waits on their route:
     * sum_l (crossing rate of l) W_l / (message rate) = sum_l c_l W_l / senders */
    for (long l = 0; l < entries; l++) {
        double c = ld->c[l];
        if (c <= 0)
            continue;
        double w = md1_wait(lambda * c * t, t);
        indep += c * w;
        refined += c * w * (1 - ld->s2[l] / (c * c));
    }
    for (long x = 0; x < ld->shape.nodes; x++) {
        double e = ld->ej[x];
        if (e <= 0)
            continue;
        double w = md1_wait(lambda * e * t, t);
        ej_refined += e * w * (1 - ld->ej_s2[x] / (e * e));
    }
    double inject = md1_wait(lambda * t, t);   /* Poisson source: M/D/1 exactly */
    double zero = model_route_ns(p, size_bytes, ld->counts.hops, ld->counts.forwards,
                                 ld->counts.switches);
    double wait = inject + (refined + ej_refined) / ld->senders;
    if (wait_ns)
        *wait_ns = wait;
    if (independent_ns)   /* SPEC.md §9: injection and ejection c = 1 */
        *independent_ns = zero + indep / ld->senders + 2 * inject;
    *latency_ns = zero + wait;
    return 0;
}
