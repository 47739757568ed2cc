/* load: latency under load (docs/model.md, 'Load') from the channel loads
 * topo_link_loads counts and the input streams topo_link_input_streams
 * splits them into: the independent M/D/1 queues, and the merge
 * identity of deterministic servers (model/model.h) that scimodel reports,
 * with its share term and the flows' age. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/load.h"

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
    if (entries > TOPO_LOAD_MAX_LINKS)
        return MODEL_LOAD_TOO_BIG;
    if (model_pattern_counts_shape(shape, links, pattern, &ld->counts, NULL))
        return MODEL_LOAD_SILENT;
    /* the pattern sends, so what fails below is an allocation */
    ld->c = malloc(sizeof *ld->c * (size_t)entries);
    if (!ld->c || topo_link_loads(shape, links, pattern, ld->c, &ld->senders) ||
        topo_link_input_streams(shape, links, pattern, ld->c, &ld->streams)) {
        model_load_free(ld);
        return MODEL_LOAD_NO_MEMORY;
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

/* The age a flow gains on a shared link of load rho after its first
 * (model/model.h): MODEL_LOAD_AGE_KAPPA rho^(5/2). */
static double age_step(double rho)
{
    return MODEL_LOAD_AGE_KAPPA * rho * rho * sqrt(rho);
}

/* Age of the flows leaving the channel of row `row`, given the age of the
 * channels its inputs leave: the linear map age = a + b age(through),
 * b the weight of the input over the previous link of the ring (same
 * dimension and way: a route never turns into its own dimension).
 * Weights: each input's share of the channel's same-flow pairs, sq_k /
 * sum sq; inputs from the injection channel bring age 0 and gain none (a
 * flow's first shared link), the others gain age_step(rho). */
static void age_map(const topo_streams *st, long row, int dims, int dim, int way,
                    const double *age, double step, double *a, double *b)
{
    double sq = 0;
    *a = *b = 0;
    for (long i = st->first[row]; i < st->first[row + 1]; i++)
        sq += st->sq[i];
    if (!(sq > 0))
        return;
    for (long i = st->first[row]; i < st->first[row + 1]; i++) {
        long from = st->from[i];
        if (from < 0)
            continue;
        double q = st->sq[i] / sq;
        *a += q * step;
        if ((unsigned long)from % (2UL * (unsigned)dims) == 2UL * (unsigned)dim + (unsigned)way)
            *b += q;
        else
            *a += q * age[topo_streams_row(st, from)];
    }
}

/* Every link row's age at rate lambda (age[], one per row of the streams;
 * bb: scratch, 2 per node).  Dimension-order routes turn only from
 * lower dimensions, so dimension by dimension every link's age is a map
 * a + b age(previous link of its ring), lower dimensions already known: a
 * cyclic first-order recurrence per ring, solved exactly.  Composed from
 * the ring's start, age_k = A_k + B_k x, x the age of the ring's last link
 * (its first link's through input): x = A_last / (1 - B_last), B_last < 1
 * wherever a flow enters the ring (B = 0 on a ring without traffic).  All
 * rings of a dimension advance together, as in topo/load.c's running sums. */
static void flow_ages(const model_load *ld, double lambda, double t, double *age, double *bb)
{
    const topo_streams *st = &ld->streams;
    const topo_shape *s = &ld->shape;
    for (long r = 0; r < st->rows; r++)
        age[r] = 0;
    if (st->symmetric) {   /* rows are link types 2 dim + way, dims ascending */
        for (long r = 0; r + 1 < st->rows; r++) {
            double a, b;
            age_map(st, r, s->dims, (int)(r / 2), (int)(r % 2), age,
                    age_step(lambda * ld->c[r] * t), &a, &b);
            age[r] = b < 1 ? a / (1 - b) : 0;
        }
        return;
    }
    for (int i = 0; i < s->dims; i++) {
        long n = s->n[i], stride = 1;
        for (int j = i + 1; j < s->dims; j++)
            stride *= s->n[j];
        for (long x = 0; x < s->nodes; x++)
            for (int way = 0; way < 2; way++) {
                long l = topo_link_index(s, x, i, way);
                age_map(st, l, s->dims, i, way, age, age_step(lambda * ld->c[l] * t), &age[l],
                        &bb[2 * x + way]);
            }
        for (long base = 0; base < s->nodes; base += n * stride)
            for (int way = 0; way < 2; way++) {
                /* ring order: way 0 from position 0 up (the previous link
                 * of position k is k - 1's), way 1 from n - 1 down */
                long first = way == 0 ? 0 : n - 1, last = way == 0 ? n - 1 : 0;
                long step = way == 0 ? 1 : -1;
                for (long k = first + step; k != last + step; k += step)
                    for (long q = 0; q < stride; q++) {
                        long x = base + k * stride + q, y = x - step * stride;
                        age[topo_link_index(s, x, i, way)] +=
                            bb[2 * x + way] * age[topo_link_index(s, y, i, way)];
                        bb[2 * x + way] *= bb[2 * y + way];
                    }
                for (long q = 0; q < stride; q++) {
                    long x = base + last * stride + q, l = topo_link_index(s, x, i, way);
                    age[l] = bb[2 * x + way] < 1 ? age[l] / (1 - bb[2 * x + way]) : 0;
                }
                for (long k = first; k != last; k += step)
                    for (long q = 0; q < stride; q++) {
                        long x = base + k * stride + q;
                        age[topo_link_index(s, x, i, way)] +=
                            bb[2 * x + way] *
                            age[topo_link_index(s, base + last * stride + q, i, way)];
                    }
            }
    }
}

/* Mean wait at a channel of load c (crossings per message per node) whose
 * inputs are row `row` of the streams (model/model.h):
 *   W = W_MD1(rho) - sum_k f_k A_k,
 *   A_k = f_k S_k + (1 - f_k) (rho_k / rho_u) W_MD1(rho_u),
 *   S_k = W_MD1(rho_k) + h_k (W_MD1(rho_u) - W_MD1(rho_k)) (1 - 1 / (1 + age_k)),
 * rho = lambda c t, rho_k = lambda c_k t, f_k = c_k / c, rho_u the load of
 * the channel input k leaves, at most rho, h_k = sq_k / c_k^2 the chance
 * that two of its messages belong to one flow, age_k the age of the
 * channel it leaves (0 for the injection channel).  Equal to the merge
 * identity's W_MD1(rho) - sum f_k W_MD1(rho_k) where no input is split off
 * a busier channel (rho_u = rho_k); never below the first-order term
 * (rho t/2)(1 - sum f_k^2). */
static double merge_wait(const topo_streams *st, long row, double c, double lambda, double t,
                         const double *age)
{
    double rho = lambda * c * t, w = md1_wait(rho, t), sum_f2 = 0;
    for (long i = st->first[row]; i < st->first[row + 1]; i++) {
        double f = st->rate[i] / c, rho_k = lambda * st->rate[i] * t;
        double rho_u = fmax(fmin(lambda * st->up[i] * t, rho), rho_k);
        double wk = md1_wait(rho_k, t), wu = md1_wait(rho_u, t), self = wk;
        if (st->from[i] >= 0) {
            double h = st->sq[i] / (st->rate[i] * st->rate[i]);
            double a = age[topo_streams_row(st, st->from[i])];
            self += h * (wu - wk) * (a / (1 + a));
        }
        w -= f * (f * self + (1 - f) * rho_k / rho_u * wu);
        sum_f2 += f * f;
    }
    double first = rho * t / 2 * (1 - sum_f2);
    return w > first ? w : first;
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
    double *age = malloc(sizeof *age * (size_t)(st->rows + 2 * ld->shape.nodes));   /* and bb */
    if (!age)
        return -2;
    flow_ages(ld, lambda, t, age, age + st->rows);
    /* mean over injected messages of the waits on their route:
     * sum_l (crossing rate of l) W_l / (message rate) = sum_l c_l W_l / senders */
    for (long l = 0; l < entries; l++) {
        double c = ld->c[l];
        if (c <= 0)
            continue;
        indep += c * md1_wait(lambda * c * t, t);
        merged += c * merge_wait(st, topo_streams_row(st, l), c, lambda, t, age);
    }
    for (long x = 0; x < ld->shape.nodes; x++)
        if (st->ej[x] > 0)
            merged += st->ej[x] * merge_wait(st, topo_streams_row(st, entries + x), st->ej[x],
                                             lambda, t, age);
    free(age);
    double inject = md1_wait(lambda * t, t);   /* Poisson source: M/D/1 exactly */
    double zero = model_route_ns(p, size_bytes, ld->counts.hops, ld->counts.forwards,
                                 ld->counts.switches);
    double wait = inject + merged / ld->senders;
    if (wait_ns)
        *wait_ns = wait;
    if (independent_ns)   /* injection and ejection carry c = 1 */
        *independent_ns = zero + indep / ld->senders + 2 * inject;
    *latency_ns = zero + wait;
    return 0;
}
