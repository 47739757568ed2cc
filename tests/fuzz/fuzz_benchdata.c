/* libFuzzer target: the bench TSV reader (bench_data_read).  Whatever it
 * accepts must hold what the reader promises: every row's
 * counts are those of its route on the `# topology:` shape, walked here hop
 * by hop with topo_route_step (an oracle independent of
 * topo_request_counts), src and dst are nodes, and 0 < min <= median,
 * mean <= max.  A violation traps. */
#include <stdint.h>
#include <string.h>

#include "benchdata/benchdata.h"
#include "tests/fuzz/fuzz_input.h"
#include "topo/topo.h"

/* Links, switches (a change of dimension between steps) of the route. */
static void walk(const topo_shape *sh, long from, long to, long *links, long *dims)
{
    long cur[TOPO_MAX_DIMS], dst[TOPO_MAX_DIMS];
    int last = -1, step;
    topo_rank_to_coords(sh, from, cur);
    topo_rank_to_coords(sh, to, dst);
    *links = *dims = 0;
    while ((step = topo_route_step(sh, cur, dst)) >= 0) {
        ++*links;
        *dims += step != last;
        last = step;
    }
}

static void check_point(const topo_shape *sh, const bench_point *p)
{
    if (!(p->min_ns > 0 && p->min_ns <= p->median_ns && p->median_ns <= p->max_ns &&
          p->min_ns <= p->mean_ns && p->mean_ns <= p->max_ns) || p->src == p->dst)
        __builtin_trap();
    if (!sh) {
        if (p->fwd + p->sw != p->hops - 1 || p->rfwd + p->rsw != p->rhops - 1 || p->sw != p->rsw)
            __builtin_trap();
        return;
    }
    if (p->src < 0 || p->dst < 0 || p->src >= sh->nodes || p->dst >= sh->nodes)
        __builtin_trap();
    long h, k, rh, rk;
    walk(sh, p->src, p->dst, &h, &k);
    walk(sh, p->dst, p->src, &rh, &rk);
    if (p->hops != h || p->sw != k - 1 || p->fwd != h - k || p->rhops != rh ||
        p->rsw != rk - 1 || p->rfwd != rh - rk)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    bench_data d;
    bench_read_error err;
    int fd = fuzz_memfd(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    if (bench_data_read(path, &d, &err) == 0) {
        const char *t = bench_data_header(&d, "topology");
        topo_shape sh;
        int have = t && strchr(t, ' ') && topo_shape_parse(strchr(t, ' ') + 1, &sh, NULL) == 0;
        if (t && !have)
            __builtin_trap();   /* an unparsable topology was accepted */
        for (long i = 0; i < d.count; i++)
            check_point(have ? &sh : NULL, &d.points[i]);
        bench_data_free(&d);
    }
    close(fd);
    return 0;
}
