/* match: the queues of MPI matching (see match.h). */
#include "sched/match.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

#define NONE SCHED_MATCH_NONE
#define ANY SCHED_MATCH_ANY

static size_t hash(uint64_t ctx, uint32_t rq, uint32_t src, uint32_t tag, size_t cap)
{
    uint64_t h = ((uint64_t)rq << 32 | src) ^ ((uint64_t)tag << 40 | (uint64_t)tag >> 24) ^
                 ctx * 0xff51afd7ed558ccdULL;
    h *= 0x9e3779b97f4a7c15ULL;
    return (size_t)(h ^ h >> 32) & (cap - 1);
}

static size_t find(const sched_matcher *m, uint64_t ctx, uint32_t rq, uint32_t src, uint32_t tag)
{
    size_t i = hash(ctx, rq, src, tag, m->bkcap);
    const sched_match_bucket *b;
    while ((b = &m->bk[i])->head != NONE &&
           (b->rq != rq || b->src != src || b->tag != tag || b->ctx != ctx))
        i = (i + 1) & (m->bkcap - 1);
    return i;
}

static int grow_buckets(sched_matcher *m)
{
    size_t cap = m->bkcap ? 2 * m->bkcap : 1024;
    sched_match_bucket *old = m->bk, *bk = malloc(cap * sizeof *bk);
    if (!bk)
        return -1;
    for (size_t i = 0; i < cap; i++)
        bk[i].head = NONE;
    m->bk = bk;
    size_t oldcap = m->bkcap;
    m->bkcap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].head != NONE)
            m->bk[find(m, old[i].ctx, old[i].rq, old[i].src, old[i].tag)] = old[i];
    free(old);
    return 0;
}

/* Linear probing's deletion: later entries of the run move back. */
static void drop_bucket(sched_matcher *m, size_t i)
{
    size_t mask = m->bkcap - 1;
    for (size_t j = (i + 1) & mask; m->bk[j].head != NONE; j = (j + 1) & mask) {
        const sched_match_bucket *b = &m->bk[j];
        size_t home = hash(b->ctx, b->rq, b->src, b->tag, m->bkcap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->bk[i] = m->bk[j];
            i = j;
        }
    }
    m->bk[i].head = NONE;
    m->nbk--;
}

/* Doubly linked lists through the pool: the queue's (by = 0) or the
 * bucket's or wildcard list's (by = 1). */
static uint32_t *link_next(sched_match_entry *e, int by) { return by ? &e->bnext : &e->next; }
static uint32_t *link_prev(sched_match_entry *e, int by) { return by ? &e->bprev : &e->prev; }

static void push_back(sched_match_entry *pool, uint32_t *head, uint32_t *tail, uint32_t e, int by)
{
    *link_prev(&pool[e], by) = *tail;
    *link_next(&pool[e], by) = NONE;
    if (*tail == NONE)
        *head = e;
    else
        *link_next(&pool[*tail], by) = e;
    *tail = e;
}

static void unlink_from(sched_match_entry *pool, uint32_t *head, uint32_t *tail, uint32_t e, int by)
{
    uint32_t p = *link_prev(&pool[e], by), n = *link_next(&pool[e], by);
    if (p == NONE)
        *head = n;
    else
        *link_next(&pool[p], by) = n;
    if (n == NONE)
        *tail = p;
    else
        *link_prev(&pool[n], by) = p;
}

int sched_match_init(sched_matcher *m, uint32_t nranks, int any_in_both)
{
    memset(m, 0, sizeof *m);
    m->nranks = nranks;
    m->any_in_both = any_in_both;
    m->free = NONE;
    size_t lists = (size_t)nranks * 2;
    if (!(m->head = malloc((lists ? lists : 1) * 4 * sizeof(uint32_t))))
        return -1;
    m->tail = m->head + lists;
    m->whead = m->tail + lists;
    m->wtail = m->whead + lists;
    memset(m->head, 0xff, lists * 4 * sizeof(uint32_t));
    return 0;
}

void sched_match_free(sched_matcher *m)
{
    free(m->head);
    free(m->pool);
    free(m->bk);
    memset(m, 0, sizeof *m);
}

int sched_match_add(sched_matcher *m, uint32_t rank, int queue, uint64_t ctx, uint32_t src,
                    uint32_t tag, uint32_t id)
{
    uint32_t e;
    if (m->free != NONE) {
        e = m->free;
        m->free = m->pool[e].next;
    } else {
        if (m->n >= NONE || UTIL_GROW(m->pool, m->n, m->cap, 1024))
            return -1;
        e = (uint32_t)m->n++;
    }
    m->pool[e] = (sched_match_entry){id, src, tag, NONE, NONE, NONE, NONE, ctx, m->seq++};
    uint32_t rq = rank * 2 + (uint32_t)queue;
    push_back(m->pool, &m->head[rq], &m->tail[rq], e, 0);
    if (src == ANY || tag == ANY) {
        push_back(m->pool, &m->whead[rq], &m->wtail[rq], e, 1);
        return 0;
    }
    if (2 * (m->nbk + 1) > m->bkcap && grow_buckets(m))
        return -1;
    size_t i = find(m, ctx, rq, src, tag);
    if (m->bk[i].head == NONE) {
        m->bk[i] = (sched_match_bucket){ctx, rq, src, tag, NONE, NONE};
        m->nbk++;
    }
    push_back(m->pool, &m->bk[i].head, &m->bk[i].tail, e, 1);
    return 0;
}

/* A search's value against an entry's: a receive's wildcard fits all. */
static int fit(const sched_matcher *m, int queue, uint32_t want, uint32_t have)
{
    if (want == have)
        return 1;
    if (queue == SCHED_MATCH_POSTED)
        return have == ANY || (m->any_in_both && want == ANY);
    return want == ANY || (m->any_in_both && have == ANY);
}

static int fits(const sched_matcher *m, int queue, const sched_match_entry *x, uint64_t ctx,
                uint32_t src, uint32_t tag)
{
    return x->ctx == ctx && fit(m, queue, src, x->src) && fit(m, queue, tag, x->tag);
}

uint32_t sched_match_find(sched_matcher *m, uint32_t rank, int queue, uint64_t ctx, uint32_t src,
                          uint32_t tag)
{
    sched_match_entry *pool = m->pool;
    uint32_t rq = rank * 2 + (uint32_t)queue, e = NONE;
    if (src == ANY || tag == ANY) {   /* the whole queue, in order */
        for (e = m->head[rq]; e != NONE; e = pool[e].next) {
            m->steps++;
            if (fits(m, queue, &pool[e], ctx, src, tag))
                break;
        }
    } else {   /* the bucket's oldest or an older entry holding a wildcard */
        if (m->nbk)
            e = m->bk[find(m, ctx, rq, src, tag)].head;
        for (uint32_t x = m->whead[rq]; x != NONE && (e == NONE || pool[x].seq < pool[e].seq);
             x = pool[x].bnext) {
            m->steps++;
            if (fits(m, queue, &pool[x], ctx, src, tag)) {
                e = x;
                break;
            }
        }
    }
    if (e != NONE)
        m->steps++;
    return e;
}

void sched_match_remove(sched_matcher *m, uint32_t rank, int queue, uint32_t e)
{
    sched_match_entry *pool = m->pool, *x = &pool[e];
    uint32_t rq = rank * 2 + (uint32_t)queue;
    unlink_from(pool, &m->head[rq], &m->tail[rq], e, 0);
    if (x->src == ANY || x->tag == ANY) {
        unlink_from(pool, &m->whead[rq], &m->wtail[rq], e, 1);
    } else {
        size_t b = find(m, x->ctx, rq, x->src, x->tag);
        unlink_from(pool, &m->bk[b].head, &m->bk[b].tail, e, 1);
        if (m->bk[b].head == NONE)
            drop_bucket(m, b);
    }
    x->next = m->free;
    m->free = e;
}

uint32_t sched_match_take(sched_matcher *m, uint32_t rank, int queue, uint64_t ctx, uint32_t src,
                          uint32_t tag)
{
    uint32_t e = sched_match_find(m, rank, queue, ctx, src, tag);
    if (e == NONE)
        return NONE;
    uint32_t id = m->pool[e].id;
    sched_match_remove(m, rank, queue, e);
    return id;
}
