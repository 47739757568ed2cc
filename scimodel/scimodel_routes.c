/* scimodel_routes: --shape S --routes, every node's next hop towards every
 * other node by the model's own routing (topo_route_dist), and the route's
 * counts, so that a real network built as the torus (scitestbed) routes
 * and is labelled as the model counts. */
#include <stdio.h>

#include "scimodel/scimodel.h"

int scimodel_routes(const scimodel_options *o)
{
    const topo_shape *s = &o->shape;
    char name[TOPO_MAX_DIMS * 21];
    long src[TOPO_MAX_DIMS], dst[TOPO_MAX_DIMS], hops[TOPO_MAX_DIMS], dist[TOPO_MAX_DIMS];
    int dir[TOPO_MAX_DIMS];
    topo_shape_format(s, name, sizeof name);
    printf("# routes of %s, %s links: dimension-order, the lowest dimension that differs"
           " first%s\nsrc\tdst\tdim\tway\tnext\thops\tforwards\tswitches\n",
           name, topo_links_name(o->params.links),
           o->params.links == TOPO_LINKS_BI ? "; the shorter way round, ties the positive way"
                                            : "; the positive way");
    for (long i = 0; i < s->nodes; i++) {
        topo_rank_to_coords(s, i, src);
        for (long j = 0; j < s->nodes; j++) {
            if (j == i)
                continue;
            topo_rank_to_coords(s, j, dst);
            topo_hops(s, src, dst, hops);
            topo_route_dist(s, o->params.links, hops, dist, dir);
            int k = 0;
            while (dist[k] == 0)
                k++;
            long next[TOPO_MAX_DIMS];
            for (int d = 0; d < s->dims; d++)
                next[d] = src[d];
            next[k] = (src[k] + dir[k] + s->n[k]) % s->n[k];
            topo_counts c;
            topo_request_counts_links(s, o->params.links, hops, &c);
            printf("%ld\t%ld\t%d\t%+d\t%ld\t%ld\t%ld\t%ld\n", i, j, k, dir[k],
                   topo_coords_to_rank(s, next), c.links, c.forwards, c.switches);
        }
    }
    return 0;
}
