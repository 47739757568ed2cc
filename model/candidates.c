/* candidates: every torus shape of a node count, the smallest ones that
 * hold it, and an application's own grid (docs/model.md, 'Candidates'). */
#include "model/candidates.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/projection.h"

static int same_shape(const topo_shape *a, const topo_shape *b)
{
    if (a->dims != b->dims)
        return 0;
    for (int i = 0; i < a->dims; i++)
        if (a->n[i] != b->n[i])
            return 0;
    return 1;
}

int cand_add(cand *out, size_t cap, size_t *n, const topo_shape *s, cand_kind kind, int grid)
{
    for (size_t i = 0; i < *n; i++)
        if (same_shape(&out[i].shape, s)) {
            if (kind == CAND_GIVEN)
                out[i].kind = CAND_GIVEN;
            out[i].grid = grid > out[i].grid ? grid : out[i].grid;
            return 0;
        }
    if (*n >= cap)
        return -1;
    cand *c = &out[(*n)++];
    c->shape = *s;
    c->kind = kind;
    c->grid = grid;
    topo_shape_format(s, c->name, sizeof c->name);
    return 0;
}

/* Every ordered D-tuple of sides >= 2 with product `left`, sides from
 * position `at` on, each reported through `found`. */
typedef struct walk {
    int dims;
    long side[TOPO_MAX_DIMS];
    topo_shape *shapes;
    size_t count, cap;
} walk;

static void factor(walk *w, int at, long left)
{
    if (at == w->dims - 1) {
        if (left < 2)
            return;
        w->side[at] = left;
        if (w->count < w->cap)
            topo_shape_make(w->dims, w->side, &w->shapes[w->count]);
        w->count++;
        return;
    }
    /* the divisors from sqrt(left) up and down: larger sides first (3x2
     * before 2x3), O(sqrt(left)) a level */
    long small[512], nsmall = 0, r = (long)sqrt((double)left);
    while (r * r > left)
        r--;
    while ((r + 1) * (r + 1) <= left)
        r++;
    for (long d = 2; d <= r && nsmall < 512; d++)
        if (left % d == 0)
            small[nsmall++] = d;
    for (long i = 0; i <= nsmall; i++) {   /* the large ones: left / small[i], left itself */
        long s = i == 0 ? left : left / small[i - 1];
        if (i > 0 && s == small[i - 1])
            continue;   /* a square's root comes below */
        w->side[at] = s;
        factor(w, at + 1, left / s);
    }
    for (long i = nsmall - 1; i >= 0; i--) {
        w->side[at] = small[i];
        factor(w, at + 1, left / small[i]);
    }
}

/* max side / min side: 1 for a cube */
static double unevenness(const topo_shape *s)
{
    long lo = s->n[0], hi = s->n[0];
    for (int i = 1; i < s->dims; i++) {
        lo = s->n[i] < lo ? s->n[i] : lo;
        hi = s->n[i] > hi ? s->n[i] : hi;
    }
    return (double)hi / (double)lo;
}

/* The smallest N' >= nodes with a D-sided shape, sides as even as can be. */
static int smallest_holding(int dims, long nodes, topo_shape *out)
{
    topo_shape cube, buf[512];
    if (proj_smallest_torus(dims, nodes, &cube))
        return -1;
    for (long N = nodes; N < cube.nodes; N++) {
        walk w = {dims, {0}, buf, 0, sizeof buf / sizeof buf[0]};
        factor(&w, 0, N);
        size_t best = 0, k = w.count < w.cap ? w.count : w.cap;
        if (!k)
            continue;
        for (size_t i = 1; i < k; i++)
            if (unevenness(&buf[i]) < unevenness(&buf[best]))
                best = i;
        *out = buf[best];
        return 0;
    }
    *out = cube;
    return 0;
}

typedef struct ranked {
    topo_shape s;
    double uneven;
    size_t order;
} ranked;

static int by_evenness(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->uneven != y->uneven)
        return x->uneven < y->uneven ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

int cand_for_dims(const long *dims, size_t ndims, long nodes, cand *out, size_t cap,
                  size_t *n, size_t *dropped)
{
    size_t all = 0;
    ranked *exact = NULL;
    *dropped = 0;
    /* every exact shape of every D, kept in order, the least even dropped
     * first when they do not all fit beside the holding ones */
    for (size_t i = 0; i < ndims; i++) {
        walk w = {(int)dims[i], {0}, NULL, 0, 0};
        factor(&w, 0, nodes);
        ranked *grown = realloc(exact, (all + w.count + 1) * sizeof *exact);
        if (!grown) {
            free(exact);
            return -1;
        }
        exact = grown;
        topo_shape *buf = malloc((w.count + 1) * sizeof *buf);
        if (!buf) {
            free(exact);
            return -1;
        }
        w.shapes = buf;
        w.cap = w.count;
        w.count = 0;
        factor(&w, 0, nodes);
        for (size_t k = 0; k < w.count; k++)
            exact[all + k] = (ranked){buf[k], unevenness(&buf[k]), all + k};
        all += w.count;
        free(buf);
    }
    size_t room = cap > *n + ndims * 2 ? cap - *n - ndims * 2 : 0;
    if (all > room) {
        qsort(exact, all, sizeof *exact, by_evenness);
        *dropped = all - room;
        all = room;
    }
    int rc = 0;
    for (size_t i = 0; i < ndims && !rc; i++) {
        int D = (int)dims[i], any = 0;
        for (size_t k = 0; k < all; k++)
            if (exact[k].s.dims == D) {
                any = 1;
                break;
            }
        /* in enumeration order, whatever the ranking kept */
        for (size_t pass = 0; pass < all; pass++) {
            size_t best = all;
            for (size_t k = 0; k < all; k++)
                if (exact[k].s.dims == D && exact[k].order != (size_t)-1 &&
                    (best == all || exact[k].order < exact[best].order))
                    best = k;
            if (best == all)
                break;
            cand_add(out, cap, n, &exact[best].s, CAND_EXACT, 0);
            exact[best].order = (size_t)-1;
        }
        topo_shape cube, holds;
        if (proj_smallest_torus(D, nodes, &cube) || smallest_holding(D, nodes, &holds)) {
            rc = -1;
            break;
        }
        if (!any && holds.nodes != nodes)
            cand_add(out, cap, n, &holds, CAND_HOLDS, 0);
        if (cube.nodes != nodes)
            cand_add(out, cap, n, &cube, CAND_HOLDS, 0);
    }
    free(exact);
    return rc;
}

/* 1 when a -> b is one hop in one dimension of s (ring neighbours);
 * *dim gets the dimension. */
static int neighbours(const topo_shape *s, long a, long b, int *dim)
{
    long ca[TOPO_MAX_DIMS], cb[TOPO_MAX_DIMS];
    int moved = -1;
    topo_rank_to_coords(s, a, ca);
    topo_rank_to_coords(s, b, cb);
    for (int i = 0; i < s->dims; i++) {
        if (ca[i] == cb[i])
            continue;
        long d = (cb[i] - ca[i] + s->n[i]) % s->n[i];
        if (moved >= 0 || (d != 1 && d != s->n[i] - 1))
            return 0;
        moved = i;
    }
    *dim = moved;
    return moved >= 0;
}

int cand_grid_of(const traffic_matrix *t, long nodes, topo_shape *grid)
{
    static const long dims[] = {1, 2, 3, 4};
    cand c[CAND_MAX];
    size_t n = 0, dropped;
    double best_share = 0;
    int found = 0;
    char *seen;
    if (nodes < 2 || cand_for_dims(dims, 4, nodes, c, CAND_MAX, &n, &dropped))
        return 0;
    for (size_t k = 0; k < n; k++) {
        const topo_shape *s = &c[k].shape;
        int used[TOPO_MAX_DIMS] = {0}, all = 1;
        double near = 0, total = 0;
        if (s->nodes != nodes || !(seen = calloc((size_t)nodes, 1)))
            continue;
        for (size_t r = 0; r < t->rows; r++) {
            int dim;
            double bytes = (double)t->row[r].messages * (double)(t->row[r].size_bytes + 1);
            if (t->row[r].src == t->row[r].dst)
                continue;
            total += bytes;
            if (neighbours(s, t->row[r].src, t->row[r].dst, &dim)) {
                near += bytes;
                used[dim] = 1;
                seen[t->row[r].src] = seen[t->row[r].dst] = 1;
            }
        }
        for (int i = 0; i < s->dims; i++)
            all &= used[i];
        for (long v = 0; v < nodes; v++)   /* every node takes part */
            all &= seen[v];
        free(seen);
        double share = total > 0 ? near / total : 0;
        if (!all || share < CAND_GRID_SHARE)
            continue;
        if (!found || s->dims > grid->dims || (s->dims == grid->dims && share > best_share)) {
            *grid = *s;
            best_share = share;
            found = 1;
        }
    }
    return found;
}

const char *cand_nodes_text(const cand *c, long nodes, char *buf, size_t len)
{
    if (c->shape.nodes > nodes)
        snprintf(buf, len, "%ld (%ld idle)", c->shape.nodes, c->shape.nodes - nodes);
    else
        snprintf(buf, len, "%ld", c->shape.nodes);
    return buf;
}
