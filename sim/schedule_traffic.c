/* schedule_traffic: a schedule's traffic matrix (one row per sender,
 * receiver and size, with its count of sends), what --placement optimize
 * anneals the placement for (model/projection.h). */
#include <stdlib.h>

#include "sim/schedule_traffic.h"

static int cmp_row(const void *a, const void *b)
{
    const traffic_row *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return (x->size_bytes > y->size_bytes) - (x->size_bytes < y->size_bytes);
}

int schedule_traffic(const goal_schedule *s, traffic_matrix *t)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nops; i++)
        n += s->op[i].kind == GOAL_SEND;
    t->ranks = s->ranks;
    t->rows = 0;
    t->messages = t->bytes = 0;
    if (!(t->row = malloc((n + 1) * sizeof *t->row)))
        return -1;
    for (size_t i = 0; i < s->nops; i++)
        if (s->op[i].kind == GOAL_SEND)
            t->row[t->rows++] = (traffic_row){(int32_t)s->op[i].rank, (int32_t)s->op[i].peer,
                                              (int64_t)s->op[i].size, 1};
    qsort(t->row, t->rows, sizeof *t->row, cmp_row);
    size_t k = 0;
    for (size_t i = 0; i < t->rows; i++) {
        if (k && cmp_row(&t->row[k - 1], &t->row[i]) == 0)
            t->row[k - 1].messages++;
        else
            t->row[k++] = t->row[i];
        t->messages += 1;
        t->bytes += (double)t->row[i].size_bytes;
    }
    t->rows = k;
    return 0;
}
