/* load: latency under load (SPEC.md §9) from the channel loads
 * topo_link_loads counts and the input streams topo_link_input_streams
 * splits them into: SPEC.md's independent M/D/1 queues, and the merge
 * identity of deterministic servers (model/model.h) that scimodel reports. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    ld->c = NULL;
    memset(&ld->streams, 0, sizeof ld->streams);
    if (entries > TOPO_LOAD_MAX_LINKS ||
        model_pattern_counts_shape(shape, links, pattern, &ld->counts, NULL))
        return -1;
    ld->c = malloc(sizeof *ld->c * (size_t)entries);
    if (!ld->c || topo_link_loads(shape, links, pattern, ld->c, &ld->senders) ||
        topo_link_input_streams(shape, links, pattern, ld->c, &ld->streams)) {
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
    ld->c = NULL;
    topo_streams_free(&ld->streams);
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

/* Mean wait at a channel of load c (crossings per message per node) whose
 * inputs are row `row` of the streams (model/model.h):
 *   W = W_MD1(rho) - sum_k f_k A_k,
 *   A_k = f_k W_MD1(rho_k) + (1 - f_k) (rho_k / rho_u) W_MD1(rho_u),
 * rho = lambda c t, rho_k = lambda c_k t, f_k = c_k / c, rho_u the load of
 * the channel input k leaves, at most rho.  Between W_MD1(rho) (1 - sum
 * f_k^2) (the first-order correction applied to the whole M/D/1 wait:
 * W(x)/x grows with x, so A_k <= f_k W_MD1(rho)) and the merge identity's
 * W_MD1(rho) - sum f_k W_MD1(rho_k); equal to the identity where no input
 * is split off a busier channel (rho_u = rho_k). */
static double merge_wait(const topo_streams *st, long row, double c, double lambda, double t)
{
    double rho = lambda * c * t, w = md1_wait(rho, t);
    for (long i = st->first[row]; i < st->first[row + 1]; i++) {
        double f = st->rate[i] / c, rho_k = lambda * st->rate[i] * t;
        double rho_u = fmax(fmin(lambda * st->up[i] * t, rho), rho_k);
        w -= f * (f * md1_wait(rho_k, t) + (1 - f) * rho_k / rho_u * md1_wait(rho_u, t));
    }
    return w > 0 ? w : 0;   /* >= W_MD1(rho) (1 - sum f_k^2) >= 0 up to rounding */
}

int model_load_latency(const model_params *p, const model_load *ld, double size_bytes,
                       double rate_per_ns, double *latency_ns, double *wait_ns,
                       double *independent_ns)
{
    double t = model_load_link_ns(p, size_bytes), lambda = rate_per_ns;
    if (!(lambda >= 0) || lambda >= model_load_saturation(p, ld, size_bytes))
        return -1;
    const topo_streams *st = &ld->streams;
    long entries = 2L * ld->shape.dims * ld->shape.nodes;
    double indep = 0, merged = 0;
    /* mean over injected messages of the waits on their route:
     * sum_l (crossing rate of l) W_l / (message rate) = sum_l c_l W_l / senders */
    for (long l = 0; l < entries; l++) {
        double c = ld->c[l];
        if (c <= 0)
            continue;
        indep += c * md1_wait(lambda * c * t, t);
        merged += c * merge_wait(st, topo_streams_row(st, l), c, lambda, t);
    }
    for (long x = 0; x < ld->shape.nodes; x++)
        if (st->ej[x] > 0)
            merged += st->ej[x] * merge_wait(st, topo_streams_row(st, entries + x), st->ej[x],
                                             lambda, t);
    double inject = md1_wait(lambda * t, t);   /* Poisson source: M/D/1 exactly */
    double zero = model_route_ns(p, size_bytes, ld->counts.hops, ld->counts.forwards,
                                 ld->counts.switches);
    double wait = inject + merged / ld->senders;
    if (wait_ns)
        *wait_ns = wait;
    if (independent_ns)   /* SPEC.md §9: injection and ejection c = 1 */
        *independent_ns = zero + indep / ld->senders + 2 * inject;
    *latency_ns = zero + wait;
    return 0;
}
