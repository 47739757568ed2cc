/* sched/match against its oracle: a scan of each queue in arrival order,
 * taking the first entry that fits (MPI's non-overtaking rule), on random
 * sequences of adds and takes with wildcards, contexts and both rules for
 * a message's wildcard. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sched/match.h"

#define RANKS 5
#define OPS 20000

typedef struct ent {
    uint64_t ctx;
    uint32_t src, tag, id;
} ent;

typedef struct oracle {
    ent q[RANKS][2][OPS];
    int n[RANKS][2];
} oracle;

static int fit(int both, int queue, uint32_t want, uint32_t have)
{
    if (want == have)
        return 1;
    if (queue == SCHED_MATCH_POSTED)
        return have == SCHED_MATCH_ANY || (both && want == SCHED_MATCH_ANY);
    return want == SCHED_MATCH_ANY || (both && have == SCHED_MATCH_ANY);
}

static uint32_t oracle_take(oracle *o, int both, int r, int queue, uint64_t ctx, uint32_t src,
                            uint32_t tag)
{
    ent *q = o->q[r][queue];
    for (int i = 0; i < o->n[r][queue]; i++)
        if (q[i].ctx == ctx && fit(both, queue, src, q[i].src) && fit(both, queue, tag, q[i].tag)) {
            uint32_t id = q[i].id;
            for (int j = i; j + 1 < o->n[r][queue]; j++)
                q[j] = q[j + 1];
            o->n[r][queue]--;
            return id;
        }
    return SCHED_MATCH_NONE;
}

/* Few sources, tags and contexts, so that entries collide and wildcards fit. */
static uint32_t pick(unsigned *seed, int n, int any_percent)
{
    return (int)(rand_r(seed) % 100) < any_percent ? SCHED_MATCH_ANY : (uint32_t)(rand_r(seed) % n);
}

static void run(unsigned seed, int both)
{
    static oracle o;
    memset(&o, 0, sizeof o);
    sched_matcher m;
    cr_assert_eq(sched_match_init(&m, RANKS, both), 0);
    uint32_t next = 0;
    for (int k = 0; k < OPS; k++) {
        int r = rand_r(&seed) % RANKS, queue = rand_r(&seed) % 2;
        uint64_t ctx = (uint64_t)(rand_r(&seed) % 2);
        /* a posted receive or a search into the unexpected queue may hold a
         * wildcard; messages only under GOAL's rule */
        int any = queue == SCHED_MATCH_POSTED || both ? 20 : 0;
        uint32_t src = pick(&seed, 3, any), tag = pick(&seed, 3, any);
        if (rand_r(&seed) % 2 && o.n[r][queue] < OPS) {
            cr_assert_eq(sched_match_add(&m, (uint32_t)r, queue, ctx, src, tag, next), 0);
            o.q[r][queue][o.n[r][queue]++] = (ent){ctx, src, tag, next++};
        } else {
            int want_any = queue == SCHED_MATCH_UNEXPECTED || both ? 20 : 0;
            src = pick(&seed, 3, want_any), tag = pick(&seed, 3, want_any);
            uint32_t a = sched_match_take(&m, (uint32_t)r, queue, ctx, src, tag);
            uint32_t b = oracle_take(&o, both, r, queue, ctx, src, tag);
            cr_assert_eq(a, b, "step %d: rank %d queue %d ctx %llu src %u tag %u: took %u, oracle %u", k,
                         r, queue, (unsigned long long)ctx, src, tag, a, b);
        }
    }
    for (int r = 0; r < RANKS; r++)
        for (int queue = 0; queue < 2; queue++) {
            int i = 0;
            for (uint32_t e = sched_match_first(&m, (uint32_t)r, queue); e != SCHED_MATCH_NONE;
                 e = sched_match_next(&m, e))
                cr_assert_eq(m.pool[e].id, o.q[r][queue][i++].id, "rank %d queue %d: order", r, queue);
            cr_assert_eq(i, o.n[r][queue]);
        }
    sched_match_free(&m);
}

Test(sched_match, takes_what_a_scan_in_arrival_order_takes_under_mpis_rule)
{
    for (unsigned seed = 1; seed <= 20; seed++)
        run(seed, 0);
}

Test(sched_match, takes_what_a_scan_in_arrival_order_takes_under_goals_rule)
{
    for (unsigned seed = 1; seed <= 20; seed++)
        run(seed, 1);
}
