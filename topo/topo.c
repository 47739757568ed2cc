/* topo: torus shapes, coordinates, hop vectors and route counts on
 * unidirectional rings and bidirectional ring pairs (docs/model.md,
 * 'Topology and notation' and 'Links'). */
#include "topo/topo.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int set_error(topo_parse_error *err, size_t pos, const char *what)
{
    if (err) {
        err->pos = pos;
        err->what = what;
    }
    return -1;
}

int topo_shape_make(int dims, const long *n, topo_shape *shape)
{
    if (dims < 1 || dims > TOPO_MAX_DIMS)
        return -1;
    long nodes = 1;
    for (int i = 0; i < dims; i++) {
        if (n[i] < 2 || n[i] > TOPO_MAX_NODES / nodes)
            return -1;
        nodes *= n[i];
        shape->n[i] = n[i];
    }
    shape->dims = dims;
    shape->nodes = nodes;
    return 0;
}

int topo_shape_equal(int dims, long n, topo_shape *shape)
{
    long v[TOPO_MAX_DIMS];
    if (dims < 1 || dims > TOPO_MAX_DIMS)
        return -1;
    for (int i = 0; i < dims; i++)
        v[i] = n;
    return topo_shape_make(dims, v, shape);
}

int topo_shape_parse(const char *text, topo_shape *shape, topo_parse_error *err)
{
    long n[TOPO_MAX_DIMS];
    int dims = 0;
    long nodes = 1;
    size_t i = 0;

    if (!text || !*text)
        return set_error(err, 0, "empty shape");
    for (;;) {
        size_t start = i;
        long v = 0;
        if (text[i] < '0' || text[i] > '9')
            return set_error(err, i, "expected a number of nodes");
        while (text[i] >= '0' && text[i] <= '9') {
            int digit = text[i] - '0';
            if (v > (TOPO_MAX_NODES - digit) / 10)
                return set_error(err, start, "dimension too large");
            v = v * 10 + digit;
            i++;
        }
        if (v < 2)
            return set_error(err, start, "a dimension needs at least 2 nodes");
        if (dims == TOPO_MAX_DIMS)
            return set_error(err, start, "more than 16 dimensions");
        if (v > TOPO_MAX_NODES / nodes)
            return set_error(err, start, "total node count exceeds 1e15");
        nodes *= v;
        n[dims++] = v;
        if (text[i] == '\0')
            break;
        if (text[i] != 'x' && text[i] != 'X')
            return set_error(err, i, "expected 'x' between dimensions");
        i++;
    }
    return topo_shape_make(dims, n, shape);
}

int topo_shape_format(const topo_shape *shape, char *buf, size_t len)
{
    int total = 0;
    for (int i = 0; i < shape->dims; i++) {
        size_t off = (size_t)total < len ? (size_t)total : len;
        int w = snprintf(buf + off, len - off, i ? "x%ld" : "%ld", shape->n[i]);
        if (w < 0)
            return w;
        total += w;
    }
    if (shape->dims == 0 && len)
        buf[0] = '\0';
    return total;
}

void topo_rank_to_coords(const topo_shape *shape, long rank, long *coords)
{
    for (int i = shape->dims - 1; i >= 0; i--) {
        coords[i] = rank % shape->n[i];
        rank /= shape->n[i];
    }
}

long topo_coords_to_rank(const topo_shape *shape, const long *coords)
{
    long rank = 0;
    for (int i = 0; i < shape->dims; i++) {
        if (coords[i] < 0 || coords[i] >= shape->n[i])
            return -1;
        rank = rank * shape->n[i] + coords[i];
    }
    return rank;
}

void topo_hops(const topo_shape *shape, const long *src, const long *dst, long *hops)
{
    for (int i = 0; i < shape->dims; i++)
        hops[i] = ((dst[i] - src[i]) % shape->n[i] + shape->n[i]) % shape->n[i];
}

int topo_hops_check(const topo_shape *shape, const long *hops, int *bad_dim)
{
    int any = 0;
    for (int i = 0; i < shape->dims; i++) {
        if (hops[i] < 0 || hops[i] >= shape->n[i]) {
            if (bad_dim)
                *bad_dim = i;
            return -1;
        }
        any |= hops[i] > 0;
    }
    if (!any) {
        if (bad_dim)
            *bad_dim = -1;
        return -1;
    }
    return 0;
}

/* H, k, F = H - k, S = k - 1 from per-dimension hop counts (k >= 1). */
static void counts_from(const long *h, int dims, topo_counts *out)
{
    out->links = 0;
    out->dims_used = 0;
    for (int i = 0; i < dims; i++) {
        out->links += h[i];
        out->dims_used += h[i] > 0;
    }
    out->forwards = out->dims_used ? out->links - out->dims_used : 0;
    out->switches = out->dims_used ? out->dims_used - 1 : 0;
}

void topo_request_counts(const topo_shape *shape, const long *hops, topo_counts *out)
{
    counts_from(hops, shape->dims, out);
}

void topo_response_counts(const topo_shape *shape, const long *hops, topo_counts *out)
{
    long back[TOPO_MAX_DIMS];
    for (int i = 0; i < shape->dims; i++)
        back[i] = hops[i] > 0 ? shape->n[i] - hops[i] : 0;
    counts_from(back, shape->dims, out);
}

const char *topo_links_name(topo_links links)
{
    return links == TOPO_LINKS_BI ? "bi" : "uni";
}

int topo_links_parse(const char *text, topo_links *links)
{
    if (strcmp(text, "uni") == 0)
        *links = TOPO_LINKS_UNI;
    else if (strcmp(text, "bi") == 0)
        *links = TOPO_LINKS_BI;
    else
        return -1;
    return 0;
}

void topo_route_dist(const topo_shape *shape, topo_links links, const long *hops,
                     long *dist, int *dir)
{
    for (int i = 0; i < shape->dims; i++) {
        long h = hops[i], back = shape->n[i] - h;
        /* the tie h = n/2 goes the positive way (docs/model.md, 'Links') */
        int neg = links == TOPO_LINKS_BI && h > 0 && back < h;
        dist[i] = neg ? back : h;
        if (dir)
            dir[i] = h == 0 ? 0 : neg ? -1 : 1;
    }
}

void topo_request_counts_links(const topo_shape *shape, topo_links links,
                               const long *hops, topo_counts *out)
{
    long dist[TOPO_MAX_DIMS];
    topo_route_dist(shape, links, hops, dist, NULL);
    counts_from(dist, shape->dims, out);
}

void topo_response_counts_links(const topo_shape *shape, topo_links links,
                                const long *hops, topo_counts *out)
{
    if (links == TOPO_LINKS_BI)
        topo_request_counts_links(shape, links, hops, out);
    else
        topo_response_counts(shape, hops, out);
}

int topo_route_step(const topo_shape *shape, long *cur, const long *dst)
{
    for (int i = 0; i < shape->dims; i++) {
        if (cur[i] != dst[i]) {
            cur[i] = (cur[i] + 1) % shape->n[i];
            return i;
        }
    }
    return -1;
}

void topo_iter_init(topo_iter *it, const topo_shape *shape, long src_rank)
{
    memset(it, 0, sizeof *it);
    it->shape = shape;
    it->src_rank = src_rank;
    it->dst_rank = -1;
    topo_rank_to_coords(shape, src_rank, it->src);
}

int topo_iter_next(topo_iter *it)
{
    do {
        it->dst_rank++;
    } while (it->dst_rank == it->src_rank);
    if (it->dst_rank >= it->shape->nodes)
        return 0;
    topo_rank_to_coords(it->shape, it->dst_rank, it->dst);
    topo_hops(it->shape, it->src, it->dst, it->hops);
    return 1;
}
