/* benchmerge: SKaMPI's merge of result files (manual section 3.4) on
 * scitorus-bench data. */
#include "benchdata/benchmerge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

static int same_config(const bench_point *a, const bench_point *b)
{
    return strcmp(a->pattern, b->pattern) == 0 && a->src == b->src && a->dst == b->dst &&
           a->hops == b->hops && a->fwd == b->fwd && a->sw == b->sw && a->rhops == b->rhops &&
           a->rfwd == b->rfwd && a->rsw == b->rsw;
}

static double lerp(double a, double b, double t)
{
    return a + (b - a) * t;
}

bench_point bench_point_interpolate(const bench_point *a, const bench_point *b, long m)
{
    double t = (double)(m - a->size_bytes) / (double)(b->size_bytes - a->size_bytes);
    bench_point p = *a;
    p.size_bytes = m;
    p.reps = lround(lerp((double)a->reps, (double)b->reps, t));
    p.samples = lround(lerp((double)a->samples, (double)b->samples, t));
    if (p.reps < 1)
        p.reps = 1;
    if (p.samples < 1)
        p.samples = 1;
    p.min_ns = lerp(a->min_ns, b->min_ns, t);
    p.median_ns = lerp(a->median_ns, b->median_ns, t);
    p.mean_ns = lerp(a->mean_ns, b->mean_ns, t);
    p.sd_ns = lerp(a->sd_ns, b->sd_ns, t);
    p.ci95_ns = lerp(a->ci95_ns, b->ci95_ns, t);
    p.max_ns = lerp(a->max_ns, b->max_ns, t);
    p.noisy = a->noisy || b->noisy;
    /* node times only where both list the same processes */
    p.nodes = a->nodes == b->nodes ? a->nodes : a->nodes && b->nodes ? -1 : 0;
    for (int i = 0; i < p.nodes; i++)
        p.node_ns[i] = lerp(a->node_ns[i], b->node_ns[i], t);
    return p;
}

/* Run f's candidate for configuration c at size m: its own point, or one
 * interpolated between its nearest sizes below and above; 0 when it has
 * neither.  *interp says which. */
static int candidate(const bench_data *f, const bench_point *c, long m, bench_point *out,
                     int *interp)
{
    const bench_point *lo = NULL, *hi = NULL;
    for (long i = 0; i < f->count; i++) {
        const bench_point *p = &f->points[i];
        if (!same_config(p, c))
            continue;
        if (p->size_bytes == m) {   /* the first row of a repeated size */
            *out = *p;
            *interp = 0;
            return 1;
        }
        if (p->size_bytes < m && (!lo || p->size_bytes > lo->size_bytes))
            lo = p;
        if (p->size_bytes > m && (!hi || p->size_bytes < hi->size_bytes))
            hi = p;
    }
    if (!lo || !hi)
        return 0;   /* never extrapolated */
    *out = bench_point_interpolate(lo, hi, m);
    *interp = 1;
    return 1;
}

typedef struct cand {
    bench_point p;
    int file, interp;
} cand;

static int by_median(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->p.median_ns != b->p.median_ns)
        return a->p.median_ns < b->p.median_ns ? -1 : 1;
    return (a->file > b->file) - (a->file < b->file);
}

size_t bench_weighted_median(size_t n, const bench_point *(*at)(size_t i, const void *ctx),
                             const void *ctx)
{
    double total = 0, acc = 0;
    for (size_t i = 0; i < n; i++)
        total += (double)at(i, ctx)->samples;
    for (size_t i = 0; i < n; i++) {
        acc += (double)at(i, ctx)->samples;
        if (2 * acc >= total)
            return i;
    }
    return 0;
}

static const bench_point *cand_at(size_t i, const void *ctx)
{
    return &((const cand *)ctx)[i].p;
}

static const cand *weighted_median(cand *c, int n)
{
    qsort(c, (size_t)n, sizeof *c, by_median);
    return &c[bench_weighted_median((size_t)n, cand_at, c)];
}

static int by_size(const void *pa, const void *pb)
{
    long a = *(const long *)pa, b = *(const long *)pb;
    return (a > b) - (a < b);
}

int bench_merge(const bench_data *in, int nin, bench_data *out, bench_merge_stats *st)
{
    memset(out, 0, sizeof *out);
    memset(st, 0, sizeof *st);
    if (nin > 0) {
        out->header_count = in[0].header_count;
        memcpy(out->header_key, in[0].header_key, sizeof out->header_key);
        memcpy(out->header_value, in[0].header_value, sizeof out->header_value);
    }
    cand *c = malloc((size_t)(nin > 0 ? nin : 1) * sizeof *c);
    long *sizes = NULL;
    size_t nsizes = 0, capsizes = 0;
    if (!c)
        return -1;
    /* each configuration once, at its first appearance across the files */
    for (int f = 0; f < nin; f++)
        for (long i = 0; i < in[f].count; i++) {
            const bench_point *conf = &in[f].points[i];
            int seen = 0;
            for (int g = 0; g <= f && !seen; g++)
                for (long j = 0; j < (g < f ? in[g].count : i) && !seen; j++)
                    seen = same_config(&in[g].points[j], conf);
            if (seen)
                continue;
            nsizes = 0;
            for (int g = f; g < nin; g++)
                for (long j = 0; j < in[g].count; j++) {
                    const bench_point *p = &in[g].points[j];
                    if (!same_config(p, conf))
                        continue;
                    int dup = 0;
                    for (size_t k = 0; k < nsizes && !dup; k++)
                        dup = sizes[k] == p->size_bytes;
                    if (!dup && UTIL_GROW(sizes, nsizes, capsizes, 32))
                        goto oom;
                    if (!dup)
                        sizes[nsizes++] = p->size_bytes;
                }
            qsort(sizes, nsizes, sizeof *sizes, by_size);
            for (size_t k = 0; k < nsizes; k++) {
                int n = 0;
                for (int g = f; g < nin; g++) {
                    if (candidate(&in[g], conf, sizes[k], &c[n].p, &c[n].interp)) {
                        c[n].file = g;
                        st->interpolated += c[n].interp;
                        n++;
                    }
                }
                st->candidates += n;
                const cand *w = weighted_median(c, n);
                st->chosen_interp += w->interp;
                if (UTIL_GROW(out->points, (size_t)out->count, out->cap, 64))
                    goto oom;
                out->points[out->count++] = w->p;
            }
        }
    st->points = out->count;
    /* the node_ns column when every run has it */
    int nodes = nin > 0;
    for (int f = 0; f < nin; f++)
        nodes &= in[f].node_times;
    bench_data_node_column(out, nodes);
    free(c);
    free(sizes);
    return 0;
oom:
    free(c);
    free(sizes);
    bench_data_free(out);
    return -1;
}
