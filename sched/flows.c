/* flows: rows sorted and summed by key (sched/flows.h). */
#include "sched/flows.h"

#include <stdlib.h>

static int by_key(const void *pa, const void *pb)
{
    const sched_flow *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return (a->size_bytes > b->size_bytes) - (a->size_bytes < b->size_bytes);
}

void sched_flows_merge(sched_flow *rows, size_t *n)
{
    size_t out = 0;
    if (*n == 0)
        return;
    qsort(rows, *n, sizeof *rows, by_key);
    for (size_t i = 0; i < *n; i++) {
        if (out && by_key(&rows[out - 1], &rows[i]) == 0)
            rows[out - 1].messages += rows[i].messages;
        else
            rows[out++] = rows[i];
    }
    *n = out;
}
