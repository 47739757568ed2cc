/* match: the queues of MPI matching (see match.h). */
#include "sched/match.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

#define NONE SCHED_MATCH_NONE
#define ANY SCHED_MATCH_ANY

/* A bucket's slot in a queue's table.  The multiply keeps distinct sources
 * (or tags) below the table's size in distinct slots. */
static size_t hash(uint64_t ctx, uint32_t src, uint32_t tag, uint32_t cap)
{
    uint64_t h = ((uint64_t)src << 32 | tag) ^ ctx * 0xff51afd7ed558ccdULL;
    h *= 0x9e3779b97f4a7c15ULL;
    return (size_t)(h ^ h >> 32) & (cap - 1);
}

/* The slot of (ctx, src, tag): its bucket's, or the free one it would take. */
static size_t find(const sched_matcher *m, const sched_match_table *t, uint64_t ctx, uint32_t src,
                   uint32_t tag)
{
    size_t i = hash(ctx, src, tag, t->cap);
    for (uint32_t e; (e = t->slot[i]) != NONE; i = (i + 1) & (t->cap - 1)) {
        const sched_match_entry *x = &m->pool[e];
        if (x->src == src && x->tag == tag && x->ctx == ctx)
            break;
    }
    return i;
}

static int grow_table(sched_matcher *m, sched_match_table *t)
{
    uint32_t oldcap = t->cap, cap = oldcap ? 2 * oldcap : 8, *old = t->slot;
    if (cap < oldcap || !(t->slot = malloc((size_t)cap * sizeof *t->slot))) {
        t->slot = old;
        return -1;
    }
    memset(t->slot, 0xff, (size_t)cap * sizeof *t->slot);
    t->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i] != NONE) {
            const sched_match_entry *x = &m->pool[old[i]];
            t->slot[find(m, t, x->ctx, x->src, x->tag)] = old[i];
        }
    free(old);
    return 0;
}

/* Linear probing's deletion: later slots of the run move back.  An empty
 * large table gives its memory back (a rank's alltoall is over). */
static void drop_bucket(sched_matcher *m, sched_match_table *t, size_t i)
{
    size_t mask = t->cap - 1;
    for (size_t j = (i + 1) & mask; t->slot[j] != NONE; j = (j + 1) & mask) {
        const sched_match_entry *x = &m->pool[t->slot[j]];
        size_t home = hash(x->ctx, x->src, x->tag, t->cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->slot[i] = t->slot[j];
            i = j;
        }
    }
    t->slot[i] = NONE;
    if (--t->n == 0 && t->cap > 64) {
        free(t->slot);
        t->slot = NULL;
        t->cap = 0;
    }
}

/* Doubly linked lists through the pool, the queue's (by = 0) or the
 * bucket's or wildcard list's (by = 1); only the head is kept, whose prev
 * is the tail. */
static uint32_t *link_next(sched_match_entry *e, int by) { return by ? &e->bnext : &e->next; }
static uint32_t *link_prev(sched_match_entry *e, int by) { return by ? &e->bprev : &e->prev; }

static void push_back(sched_match_entry *pool, uint32_t *head, uint32_t e, int by)
{
    *link_next(&pool[e], by) = NONE;
    if (*head == NONE) {
        *head = e;
        *link_prev(&pool[e], by) = e;
        return;
    }
    uint32_t *tail = link_prev(&pool[*head], by);
    *link_next(&pool[*tail], by) = e;
    *link_prev(&pool[e], by) = *tail;
    *tail = e;
}

static void unlink_from(sched_match_entry *pool, uint32_t *head, uint32_t e, int by)
{
    uint32_t p = *link_prev(&pool[e], by), n = *link_next(&pool[e], by);
    if (e == *head)
        *head = n;
    else
        *link_next(&pool[p], by) = n;
    if (n != NONE)
        *link_prev(&pool[n], by) = p;
    else if (*head != NONE)
        *link_prev(&pool[*head], by) = p;
}

int sched_match_init(sched_matcher *m, uint32_t nranks, int any_in_both)
{
    memset(m, 0, sizeof *m);
    m->nranks = nranks;
    m->any_in_both = any_in_both;
    m->free = NONE;
    size_t lists = (size_t)nranks * 2;
    if (!(m->q = malloc((lists ? lists : 1) * sizeof *m->q)))
        return -1;
    memset(m->q, 0xff, lists * sizeof *m->q);
    return 0;
}

void sched_match_free(sched_matcher *m)
{
    for (size_t i = 0; i < m->ntab; i++)
        free(m->tab[i].slot);
    free(m->tab);
    free(m->q);
    free(m->pool);
    memset(m, 0, sizeof *m);
}

/* q's table, made for its first entry without a wildcard; NULL out of memory. */
static sched_match_table *table(sched_matcher *m, sched_match_queue *q)
{
    if (q->tab == NONE) {
        if (m->ntab >= NONE || UTIL_GROW(m->tab, m->ntab, m->tabcap, 64))
            return NULL;
        m->tab[m->ntab] = (sched_match_table){NULL, 0, 0};
        q->tab = (uint32_t)m->ntab++;
    }
    return &m->tab[q->tab];
}

int sched_match_add(sched_matcher *m, uint32_t rank, int queue, uint64_t ctx, uint32_t src,
                    uint32_t tag, uint32_t id)
{
    sched_match_queue *q = &m->q[(size_t)rank * 2 + (size_t)queue];
    sched_match_table *t = NULL;
    if (src != ANY && tag != ANY &&
        (!(t = table(m, q)) || (2 * ((size_t)t->n + 1) > t->cap && grow_table(m, t))))
        return -1;
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
    push_back(m->pool, &q->head, e, 0);
    if (!t) {
        push_back(m->pool, &q->whead, e, 1);
        return 0;
    }
    size_t i = find(m, t, ctx, src, tag);
    t->n += t->slot[i] == NONE;
    push_back(m->pool, &t->slot[i], e, 1);
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
    const sched_match_queue *q = &m->q[(size_t)rank * 2 + (size_t)queue];
    uint32_t e = NONE;
    if (src == ANY || tag == ANY) {   /* the whole queue, in order */
        for (e = q->head; e != NONE; e = pool[e].next) {
            m->steps++;
            if (fits(m, queue, &pool[e], ctx, src, tag))
                break;
        }
    } else {   /* the bucket's oldest or an older entry holding a wildcard */
        const sched_match_table *t = q->tab == NONE ? NULL : &m->tab[q->tab];
        if (t && t->n)
            e = t->slot[find(m, t, ctx, src, tag)];
        for (uint32_t x = q->whead; x != NONE && (e == NONE || pool[x].seq < pool[e].seq);
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
    sched_match_queue *q = &m->q[(size_t)rank * 2 + (size_t)queue];
    unlink_from(pool, &q->head, e, 0);
    if (x->src == ANY || x->tag == ANY) {
        unlink_from(pool, &q->whead, e, 1);
    } else {
        sched_match_table *t = &m->tab[q->tab];
        size_t b = find(m, t, x->ctx, x->src, x->tag);
        unlink_from(pool, &t->slot[b], e, 1);
        if (t->slot[b] == NONE)
            drop_bucket(m, t, b);
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
