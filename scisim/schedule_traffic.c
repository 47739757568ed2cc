/* schedule_traffic: a schedule's traffic matrix (one row per sender,
 * receiver and size, with its count of sends), what --placement optimize
 * anneals the placement for (model/projection.h); its rows aggregated as
 * scitrace matrix aggregates a trace's (sched/flows.h). */
#include <stdlib.h>

#include "sched/flows.h"
#include "scisim/schedule_traffic.h"

int schedule_traffic(const goal_schedule *s, traffic_matrix *t)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nops; i++)
        n += s->op[i].kind == GOAL_SEND;
    t->ranks = s->ranks;
    t->rows = 0;
    t->messages = t->bytes = 0;
    sched_flow *f = malloc((n + 1) * sizeof *f);
    if (!f || !(t->row = malloc((n + 1) * sizeof *t->row))) {
        free(f);
        return -1;
    }
    n = 0;
    for (size_t i = 0; i < s->nops; i++)
        if (s->op[i].kind == GOAL_SEND) {
            f[n++] = (sched_flow){(int)s->op[i].rank, (int)s->op[i].peer, s->op[i].size, 1};
            t->messages += 1;
            t->bytes += (double)s->op[i].size;
        }
    sched_flows_merge(f, &n);
    for (size_t k = 0; k < n; k++)
        t->row[t->rows++] = (traffic_row){(int32_t)f[k].src, (int32_t)f[k].dst,
                                          (int64_t)f[k].size_bytes, (int64_t)f[k].messages};
    free(f);
    return 0;
}
