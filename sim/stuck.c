/* stuck: why a replay ended with operations that never ran: a receive
 * nobody sent to, a message nobody received, or a dependency that never
 * came (a cycle or a wait on one of those). */
#include <stdio.h>

#include "sim/engine_priv.h"

static const char *kind_name(int k)
{
    return k == GOAL_SEND ? "send" : k == GOAL_RECV ? "recv" : "calc";
}

void sim_explain_stuck(const sim_state *st, sim_result *r)
{
    const goal_schedule *s = st->s;
    for (uint32_t h = 0; h < s->ranks; h++) {
        uint32_t e = sched_match_first(&st->mq, h, SCHED_MATCH_POSTED);
        if (e != SIM_NONE) {
            const goal_op *o = &s->op[st->mq.pool[e].id];
            snprintf(r->stuck, sizeof r->stuck,
                     "rank %u: 'recv %llub from %lld tag %lld' never matched a message", h,
                     (unsigned long long)o->size, o->peer == GOAL_ANY ? -1LL : (long long)o->peer,
                     o->tag == GOAL_ANY ? -1LL : (long long)o->tag);
            return;
        }
        e = sched_match_first(&st->mq, h, SCHED_MATCH_UNEXPECTED);
        if (e != SIM_NONE) {
            const goal_op *o = &s->op[st->mq.pool[e].id];
            snprintf(r->stuck, sizeof r->stuck,
                     "rank %u: a %llu-byte message from rank %u tag %lld was never received", h,
                     (unsigned long long)o->size, o->rank,
                     o->tag == GOAL_ANY ? -1LL : (long long)o->tag);
            return;
        }
    }
    if (st->ops_done < s->nops)
        for (size_t i = 0; i < s->nops; i++)
            if (st->deps[i] > 0) {
                const goal_op *o = &s->op[i];
                snprintf(r->stuck, sizeof r->stuck,
                         "rank %u: its %s operation no. %zu never ran (%u dependencies never "
                         "met)", o->rank, kind_name(o->kind), i - s->first[o->rank] + 1, st->deps[i]);
                return;
            }
    if (st->ops_done < s->nops)
        snprintf(r->stuck, sizeof r->stuck, "%llu operations never ran",
                 (unsigned long long)(s->nops - st->ops_done));
}
