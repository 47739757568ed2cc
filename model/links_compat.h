/* links_compat: TEMPORARY stand-in for i11's links API in topo/topo.h
 * (SPEC.md §7), the same names and meaning, so projection builds before
 * that branch is merged.  Deleted when it is. */
#ifndef SCITORUS_LINKS_COMPAT_H
#define SCITORUS_LINKS_COMPAT_H

#include <string.h>

#include "topo/topo.h"

typedef enum topo_links { TOPO_LINKS_UNI = 0, TOPO_LINKS_BI = 1 } topo_links;

static inline const char *topo_links_name(topo_links links)
{
    return links == TOPO_LINKS_BI ? "bi" : "uni";
}

static inline int topo_links_parse(const char *text, topo_links *links)
{
    if (strcmp(text, "uni") == 0)
        return *links = TOPO_LINKS_UNI, 0;
    if (strcmp(text, "bi") == 0)
        return *links = TOPO_LINKS_BI, 0;
    return -1;
}

static inline void topo_route_dist(const topo_shape *shape, topo_links links, const long *hops,
                                   long *dist, int *dir)
{
    for (int i = 0; i < shape->dims; i++) {
        long h = hops[i], back = shape->n[i] - h;
        int neg = links == TOPO_LINKS_BI && h > 0 && back < h;
        dist[i] = neg ? back : h;
        if (dir)
            dir[i] = h == 0 ? 0 : neg ? -1 : 1;
    }
}

#endif
