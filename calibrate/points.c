/* points: bench rows -> fit points -- the statistic and its error, the
 * merging of repeated configurations, the weights. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "benchdata/benchmerge.h"
#include "benchdata/regime.h"
#include "calibrate/calibrate.h"
#include "util/file_error.h"
#include "util/grow.h"

/* sem of a median is about sqrt(pi/2) = 1.2533 times that of a mean
 * (normal samples) */
#define MEDIAN_SEM_FACTOR 1.2533
/* --weights relative: each point's nominal error, a fraction of its value
 * small enough that chi^2/dof > 1 and the fit's own scatter sets the
 * standard errors (the fit scales the covariance by chi^2/dof when > 1) */
#define RELATIVE_SIGMA 1e-4
/* A point whose batches' median is this far above their minimum took them
 * in two regimes of the machine (a shared machine's core-to-core latency
 * jumps between regimes); a steady run's median stays well below it. */
#define UNSTEADY_RATIO 1.5

/* The --stat names, also the params file's fit_statistic values. */
const char *stat_name(stat_kind s)
{
    return s == STAT_MIN ? "min" : s == STAT_MEDIAN ? "median" : "mean";
}

static double stat_of(const bench_point *p, stat_kind s, weight_kind w, double *sigma)
{
    double sem = p->samples > 0 ? p->sd_ns / sqrt((double)p->samples) : p->sd_ns;
    double y = s == STAT_MIN ? p->min_ns : s == STAT_MEDIAN ? p->median_ns : p->mean_ns;
    if (s == STAT_MEDIAN)
        sem *= MEDIAN_SEM_FACTOR;
    (void)w;   /* the fit's weights are set after merging: relative_weights */
    /* never a zero weight: at least 0.1% of the value or 0.01 ns */
    double floor_ns = fmax(1e-3 * y, 0.01);
    *sigma = sem > floor_ns ? sem : floor_ns;
    return y;
}

/* One point of the pointset for sorting: its row (the configuration), its
 * value, and its position (first occurrences keep their order). */
typedef struct merge_item {
    const bench_point *row;
    const fit_point *pt;
    size_t pos;
} merge_item;

static int cmp_long(long a, long b)
{
    return (a > b) - (a < b);
}

/* Orders rows by configuration: src, dst, the six counts, size. */
static int config_cmp(const bench_point *a, const bench_point *b)
{
    const long ka[9] = {a->src, a->dst, a->hops, a->fwd, a->sw, a->rhops, a->rfwd, a->rsw,
                        a->size_bytes};
    const long kb[9] = {b->src, b->dst, b->hops, b->fwd, b->sw, b->rhops, b->rfwd, b->rsw,
                        b->size_bytes};
    for (int i = 0; i < 9; i++)
        if (ka[i] != kb[i])
            return cmp_long(ka[i], kb[i]);
    return 0;
}

/* By configuration, then value, then position: a configuration's runs
 * become consecutive, sorted by value (ties in file order). */
static int merge_item_cmp(const void *pa, const void *pb)
{
    const merge_item *a = pa, *b = pb;
    int c = config_cmp(a->row, b->row);
    if (c)
        return c;
    if (a->pt->y_ns != b->pt->y_ns)
        return a->pt->y_ns < b->pt->y_ns ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static const bench_point *item_at(size_t i, const void *ctx)
{
    return ((const merge_item *)ctx)[i].row;
}

/* A group sorted by value: its weighted median's position (scimerge's rule). */
static size_t weighted_median(const merge_item *g, size_t k)
{
    return g[bench_weighted_median(k, item_at, g)].pos;
}

/* --weights relative, once repeated runs are merged: a change of the machine's speed scales every
 * latency, so each point's error is a fixed fraction, from the residuals; the batches' standard
 * error says how steady one run was, not how far runs lie apart. */
void relative_weights(pointset *ps)
{
    for (size_t i = 0; ps->weights == WEIGHT_RELATIVE && i < ps->n; i++)
        ps->pts[i].sigma_ns = fmax(RELATIVE_SIGMA * ps->pts[i].y_ns, 0.01);
}

/* Merges repeated configurations by the weighted median of their values, as scimerge does
 * (benchdata/benchmerge.h: weights the batches), sorted in O(n log n); a merged point stands where its first run stood.
 * Returns 0, -1 out of memory (ps unchanged). */
int merge_repeats(pointset *ps)
{
    size_t n = ps->n, out = 0;
    merge_item *it = malloc((n ? n : 1) * sizeof *it);
    size_t *pick = malloc((n ? n : 1) * sizeof *pick);   /* by first position */
    fit_point *pts = malloc((n ? n : 1) * sizeof *pts);
    bench_point *src = malloc((n ? n : 1) * sizeof *src);
    if (!it || !pick || !pts || !src) {
        free(it), free(pick), free(pts), free(src);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        it[i] = (merge_item){&ps->src[i], &ps->pts[i], i};
        pick[i] = SIZE_MAX;
    }
    qsort(it, n, sizeof *it, merge_item_cmp);
    for (size_t a = 0, b; a < n; a = b) {
        size_t first = it[a].pos;
        for (b = a + 1; b < n && config_cmp(it[a].row, it[b].row) == 0; b++)
            if (it[b].pos < first)
                first = it[b].pos;
        pick[first] = weighted_median(&it[a], b - a);
    }
    for (size_t i = 0; i < n; i++)
        if (pick[i] != SIZE_MAX) {
            pts[out] = ps->pts[pick[i]];
            src[out++] = ps->src[pick[i]];
        }
    memcpy(ps->pts, pts, out * sizeof *pts);
    memcpy(ps->src, src, out * sizeof *src);
    ps->n = out;
    free(it), free(pick), free(pts), free(src);
    return 0;
}

static int add_point(pointset *ps, const bench_point *p, stat_kind s)
{
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 64;
        fit_point *a = realloc(ps->pts, cap * sizeof *a);
        if (a)
            ps->pts = a;
        bench_point *b = realloc(ps->src, cap * sizeof *b);
        if (b)
            ps->src = b;
        if (!a || !b)
            return -1;
        ps->cap = cap;
    }
    fit_point *f = &ps->pts[ps->n];
    f->size_bytes = (double)p->size_bytes;
    f->hm = (p->hops + p->rhops) / 2.0;
    f->fm = (p->fwd + p->rfwd) / 2.0;
    f->sm = (p->sw + p->rsw) / 2.0;
    f->y_ns = stat_of(p, s, ps->weights, &f->sigma_ns);
    ps->src[ps->n++] = *p;
    return 0;
}

/* The regime of the rows read: the median and quartiles of their floors. */
static void rows_regime(pointset *ps, double *floors, size_t n)
{
    static const double q[3] = {0.5, 0.25, 0.75};
    if (!n)
        return;
    gsl_sort(floors, 1, n);
    for (int i = 0; i < 3; i++)
        ps->regime[i] = gsl_stats_quantile_from_sorted_data(floors, 1, n, q[i]);
}

int load_files(const char *const *files, int nfiles, stat_kind s, pointset *ps)
{
    double *floors = NULL;
    size_t nfloors = 0, floors_cap = 0;
    for (int f = 0; f < nfiles; f++) {
        bench_data d;
        bench_read_error err;
        int rc = bench_data_read(files[f], &d, &err);
        char text[4352];
        if (rc)
            free(floors);
        if (rc == -1)
            return fail("'%s': %s", files[f], err.msg);
        if (rc)
            return fail("%s", file_error_text(&err, files[f], text, sizeof text));
        if (d.incomplete)
            fprintf(stderr, "calibrate: note: %s is marked incomplete; using its %ld finished"
                            " points\n", files[f], d.count);
        const char *be = bench_data_header(&d, "backend");
        const char *fl = bench_data_header(&d, "floor_ns");
        if (!ps->floor_ns && fl)
            ps->floor_ns = atof(fl);
        if (!ps->backend[0])
            snprintf(ps->backend, sizeof ps->backend, "%s", be ? be : "?");
        else if (strcmp(ps->backend, be ? be : "?") != 0)
            snprintf(ps->backend, sizeof ps->backend, "mixed");
        for (long i = 0; i < d.count; i++) {
            if (strcmp(d.points[i].pattern, "pp") != 0) {
                ps->skipped_ow++;
                continue;
            }
            const bench_point *p = &d.points[i];
            ps->rows++;
            ps->unsteady += p->median_ns > UNSTEADY_RATIO * p->min_ns ||
                            bench_regime_spans(p->floor_q1_ns, p->floor_q3_ns);
            if ((p->floor_ns > 0 && UTIL_GROW(floors, nfloors, floors_cap, 64)) ||
                add_point(ps, p, s)) {
                bench_data_free(&d);
                free(floors);
                return fail("out of memory");
            }
            if (p->floor_ns > 0)
                floors[nfloors++] = p->floor_ns;
        }
        bench_data_free(&d);
    }
    rows_regime(ps, floors, nfloors);
    free(floors);
    if (ps->skipped_ow)
        fprintf(stderr, "calibrate: note: %ld one-way points skipped (the model fits ping-pong)\n",
                ps->skipped_ow);
    return 0;
}


void pointset_free(pointset *ps)
{
    free(ps->pts);
    free(ps->src);
    memset(ps, 0, sizeof *ps);
}

/* Table rows by path (hops, forwards, switches), then size: a data file's
 * order is the interleaved run's, in which points finish. */
static int by_path_then_size(const void *a, const void *b, void *arg)
{
    const fit_point *pts = arg, *x = &pts[*(const size_t *)a], *y = &pts[*(const size_t *)b];
    const double kx[4] = {x->hm, x->fm, x->sm, x->size_bytes},
                 ky[4] = {y->hm, y->fm, y->sm, y->size_bytes};
    for (int k = 0; k < 4; k++)
        if (kx[k] != ky[k])
            return kx[k] < ky[k] ? -1 : 1;
    return 0;
}

size_t *points_by_path_then_size(const fit_point *pts, size_t n)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return NULL;
    for (size_t k = 0; k < n; k++)
        order[k] = k;
    qsort_r(order, n, sizeof *order, by_path_then_size, (void *)pts);
    return order;
}
