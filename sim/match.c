/* match: a rank's posted receives and unexpected messages; a search takes the
 * oldest entry whose source and tag fit (-1 fits all), from its (source, tag)
 * bucket and the entries holding a -1, not by a scan of all (P^3 in an alltoall). */
#include <stdlib.h>

#include "sim/engine_priv.h"
#include "util/grow.h"

/* One (rank, queue, source, tag) with entries: its oldest and newest. */
typedef struct sim_bucket {
    uint64_t key;            /* (rank * 2 + queue) * ranks + source */
    uint32_t tag, head, tail;   /* head SIM_NONE: a free slot */
} sim_bucket;

/* An entry's source and tag: a message's sender, a receive's peer. */
static void fits(const sim_state *st, int queue, uint32_t op, uint32_t *src, uint32_t *tag)
{
    const goal_op *o = &st->s->op[op];
    *src = queue ? o->rank : o->peer;
    *tag = o->tag;
}

static size_t hash(uint64_t key, uint32_t tag, size_t cap)
{
    uint64_t h = (key ^ (uint64_t)tag << 40 ^ (uint64_t)tag >> 24) * 0x9e3779b97f4a7c15ULL;
    return (size_t)(h ^ h >> 32) & (cap - 1);
}

static size_t find(const sim_state *st, uint64_t key, uint32_t tag)
{
    size_t i = hash(key, tag, st->bkcap);
    while (st->bk[i].head != SIM_NONE && (st->bk[i].key != key || st->bk[i].tag != tag))
        i = (i + 1) & (st->bkcap - 1);
    return i;
}

static int grow_buckets(sim_state *st)
{
    size_t cap = st->bkcap ? 2 * st->bkcap : 1024;
    sim_bucket *old = st->bk, *bk = malloc(cap * sizeof *bk);
    if (!bk)
        return -1;
    for (size_t i = 0; i < cap; i++)
        bk[i].head = SIM_NONE;
    st->bk = bk;
    size_t oldcap = st->bkcap;
    st->bkcap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].head != SIM_NONE)
            st->bk[find(st, old[i].key, old[i].tag)] = old[i];
    free(old);
    return 0;
}

/* Linear probing's deletion: later entries of the run move back. */
static void drop_bucket(sim_state *st, size_t i)
{
    size_t mask = st->bkcap - 1;
    for (size_t j = (i + 1) & mask; st->bk[j].head != SIM_NONE; j = (j + 1) & mask) {
        size_t home = hash(st->bk[j].key, st->bk[j].tag, st->bkcap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            st->bk[i] = st->bk[j];
            i = j;
        }
    }
    st->bk[i].head = SIM_NONE;
    st->nbk--;
}

/* Doubly linked lists through the pool: the queue's (by = 0) or the
 * bucket's or -1 list's (by = 1). */
static uint32_t *link_next(sim_qent *e, int by) { return by ? &e->bnext : &e->next; }
static uint32_t *link_prev(sim_qent *e, int by) { return by ? &e->bprev : &e->prev; }

static void push_back(sim_qent *pool, uint32_t *head, uint32_t *tail, uint32_t e, int by)
{
    *link_prev(&pool[e], by) = *tail;
    *link_next(&pool[e], by) = SIM_NONE;
    if (*tail == SIM_NONE)
        *head = e;
    else
        *link_next(&pool[*tail], by) = e;
    *tail = e;
}

static void unlink_from(sim_qent *pool, uint32_t *head, uint32_t *tail, uint32_t e, int by)
{
    uint32_t p = *link_prev(&pool[e], by), n = *link_next(&pool[e], by);
    if (p == SIM_NONE)
        *head = n;
    else
        *link_next(&pool[p], by) = n;
    if (n == SIM_NONE)
        *tail = p;
    else
        *link_prev(&pool[n], by) = p;
}

static uint32_t *qhead(sim_state *st, uint32_t h, int queue)
{
    return queue ? &st->uq_head[h] : &st->rq_head[h];
}

static uint32_t *qtail(sim_state *st, uint32_t h, int queue)
{
    return queue ? &st->uq_tail[h] : &st->rq_tail[h];
}

int sim_q_append(sim_state *st, uint32_t h, int queue, uint32_t op)
{
    uint32_t e, src, tag;
    if (st->qfree != SIM_NONE) {
        e = st->qfree;
        st->qfree = st->qpool[e].next;
    } else {
        if (UTIL_GROW(st->qpool, st->nq, st->qcap, 1024) || st->nq >= SIM_NONE)
            return -1;
        e = (uint32_t)st->nq++;
    }
    st->qpool[e] = (sim_qent){op, SIM_NONE, SIM_NONE, SIM_NONE, SIM_NONE, st->qseq++};
    push_back(st->qpool, qhead(st, h, queue), qtail(st, h, queue), e, 0);
    fits(st, queue, op, &src, &tag);
    size_t w = (size_t)h * 2 + (size_t)queue;
    if (src == GOAL_ANY || tag == GOAL_ANY) {
        push_back(st->qpool, &st->wq_head[w], &st->wq_tail[w], e, 1);
        return 0;
    }
    if (2 * (st->nbk + 1) > st->bkcap && grow_buckets(st))
        return -1;
    uint64_t key = (uint64_t)w * st->s->ranks + src;
    size_t i = find(st, key, tag);
    if (st->bk[i].head == SIM_NONE) {
        st->bk[i] = (sim_bucket){key, tag, SIM_NONE, SIM_NONE};
        st->nbk++;
    }
    push_back(st->qpool, &st->bk[i].head, &st->bk[i].tail, e, 1);
    return 0;
}

static int fit(uint32_t want, uint32_t have)
{
    return want == GOAL_ANY || have == GOAL_ANY || want == have;
}

uint32_t sim_q_match(sim_state *st, uint32_t h, int queue, uint32_t src, uint32_t tag)
{
    sim_qent *pool = st->qpool;
    size_t w = (size_t)h * 2 + (size_t)queue, b = 0;
    uint32_t e = SIM_NONE, esrc, etag;
    if (src == GOAL_ANY || tag == GOAL_ANY) {   /* the whole queue, in order */
        for (e = *qhead(st, h, queue); e != SIM_NONE; e = pool[e].next) {
            st->match_steps++;
            fits(st, queue, pool[e].op, &esrc, &etag);
            if (fit(src, esrc) && fit(tag, etag))
                break;
        }
    } else {   /* the bucket's oldest or an older entry holding a -1 */
        if (st->nbk) {
            b = find(st, (uint64_t)w * st->s->ranks + src, tag);
            e = st->bk[b].head;
        }
        for (uint32_t x = st->wq_head[w];
             x != SIM_NONE && (e == SIM_NONE || pool[x].seq < pool[e].seq); x = pool[x].bnext) {
            st->match_steps++;
            fits(st, queue, pool[x].op, &esrc, &etag);
            if (fit(src, esrc) && fit(tag, etag)) {
                e = x;
                break;
            }
        }
    }
    if (e == SIM_NONE)
        return SIM_NONE;
    st->match_steps++;
    fits(st, queue, pool[e].op, &esrc, &etag);
    unlink_from(pool, qhead(st, h, queue), qtail(st, h, queue), e, 0);
    if (esrc == GOAL_ANY || etag == GOAL_ANY) {
        unlink_from(pool, &st->wq_head[w], &st->wq_tail[w], e, 1);
    } else {
        b = find(st, (uint64_t)w * st->s->ranks + esrc, etag);
        unlink_from(pool, &st->bk[b].head, &st->bk[b].tail, e, 1);
        if (st->bk[b].head == SIM_NONE)
            drop_bucket(st, b);
    }
    uint32_t op = pool[e].op;
    pool[e].next = st->qfree;
    st->qfree = e;
    return op;
}

void sim_q_free(sim_state *st)
{
    free(st->qpool);
    free(st->bk);
}
