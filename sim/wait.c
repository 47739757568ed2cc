/* wait: events that found their CPU or NIC busy wait in one group per pair,
 * in stamp order, one queue entry for all; put back one by one, n waiters took
 * n^2/2 pops (a 256-rank linear alltoall: 25 million for 65280 messages). */
#include <stdlib.h>

#include "sim/engine_priv.h"
#include "util/grow.h"

/* One entry is enough: a put-back changes nothing, and a pair's free time, once
 * past the clock, never falls (only what is free is taken): no waiter can go
 * before the group's first at the group's time (test_sim: LogGOPSim's order). */
typedef struct sim_wait_group {
    uint64_t key;
    double *cpu, *nic;      /* the pair (nic NULL: a calc waits for the CPU only) */
    double time;            /* when the first waiter tries next */
    sim_fifo in_order;      /* the waiters that came in stamp order */
    sim_event *m;           /* the others: a heap on the stamp */
    size_t n, cap;
    int queued;             /* an entry (time, stamp of m[0]) is in the queue */
} sim_wait_group;

static double free_at(const sim_wait_group *g)
{
    return g->nic && *g->nic > *g->cpu ? *g->nic : *g->cpu;
}

static void heap_up(sim_event *m, size_t i)
{
    sim_event e = m[i];
    for (; i > 0 && m[(i - 1) / 2].ts > e.ts; i = (i - 1) / 2)
        m[i] = m[(i - 1) / 2];
    m[i] = e;
}

static int waiting(const sim_wait_group *g) { return g->n || !sim_fifo_empty(&g->in_order); }

/* 1: the first waiter is the FIFO's head, 0: the heap's top (one waits). */
static int fifo_first(const sim_wait_group *g)
{
    const sim_fifo *f = &g->in_order;
    return !sim_fifo_empty(f) && (!g->n || f->a[f->head].ts < g->m[0].ts);
}

static uint64_t first_ts(const sim_wait_group *g)
{
    return fifo_first(g) ? g->in_order.a[g->in_order.head].ts : g->m[0].ts;
}

static sim_event heap_pop(sim_event *m, size_t *n)
{
    sim_event top = m[0], last = m[--*n];
    size_t i = 0;
    for (size_t c; (c = 2 * i + 1) < *n; i = c) {
        if (c + 1 < *n && m[c + 1].ts < m[c].ts)
            c++;
        if (m[c].ts >= last.ts)
            break;
        m[i] = m[c];
    }
    if (*n)
        m[i] = last;
    return top;
}

static size_t hash(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ULL;
    return (size_t)(h ^ h >> 32) & (cap - 1);
}

/* The group of key (a new one, empty, when there is none); NULL out of memory. */
static sim_wait_group *group(sim_state *st, uint64_t key, double *cpu, double *nic)
{
    if (2 * (st->nwg + 1) > st->wcap) {   /* open addressing, at most half full */
        size_t cap = st->wcap ? 2 * st->wcap : 1024;
        uint32_t *slot = malloc(cap * sizeof *slot);
        if (!slot)
            return NULL;
        for (size_t i = 0; i < cap; i++)
            slot[i] = SIM_NONE;
        for (size_t g = 0; g < st->nwg; g++) {
            size_t i = hash(st->wg[g].key, cap);
            while (slot[i] != SIM_NONE)
                i = (i + 1) & (cap - 1);
            slot[i] = (uint32_t)g;
        }
        free(st->wslot);
        st->wslot = slot, st->wcap = cap;
    }
    size_t i = hash(key, st->wcap);
    for (; st->wslot[i] != SIM_NONE; i = (i + 1) & (st->wcap - 1))
        if (st->wg[st->wslot[i]].key == key)
            return &st->wg[st->wslot[i]];
    if (UTIL_GROW(st->wg, st->nwg, st->wgcap, 256) || st->nwg >= SIM_NONE)
        return NULL;
    st->wslot[i] = (uint32_t)st->nwg;
    sim_wait_group *g = &st->wg[st->nwg++];
    *g = (sim_wait_group){key, cpu, nic, 0, {NULL, 0, 0, 0}, NULL, 0, 0, 0};
    return g;
}

static int enqueue(sim_state *st, sim_wait_group *g)
{
    g->queued = 1;
    return sim_push(st, (sim_event){g->time, first_ts(g), (uint32_t)(g - st->wg), SIM_EV_WAKE});
}

int sim_wait(sim_state *st, sim_event e, uint64_t key, double *cpu, double *nic)
{
    sim_wait_group *g = group(st, key, cpu, nic);
    if (!g)
        return -1;
    /* the pair is busy till free_at now, and stays so: no waiter goes sooner */
    double t = free_at(g);
    uint64_t first = waiting(g) ? first_ts(g) : UINT64_MAX;
    sim_fifo *f = &g->in_order;
    if (sim_fifo_empty(f) || f->a[f->n - 1].ts < e.ts) {
        if (sim_fifo_put(f, e))
            return -1;
    } else {
        if (UTIL_GROW(g->m, g->n, g->cap, 16))
            return -1;
        g->m[g->n++] = e;
        heap_up(g->m, g->n - 1);
    }
    if (g->queued && t <= g->time && e.ts > first)
        return 0;   /* the entry in the queue stands */
    g->time = t > g->time || !g->queued ? t : g->time;
    return enqueue(st, g);   /* an entry already queued goes stale (sim_wake) */
}

int sim_wake(sim_state *st, sim_event e, sim_event *run)
{
    sim_wait_group *g = &st->wg[e.id];
    if (!g->queued || e.time != g->time || !waiting(g) || e.ts != first_ts(g))
        return 0;   /* stale: the group moved on */
    g->queued = 0;
    double t = free_at(g);
    if (t > g->time) {   /* the first waiter finds the pair busy: all wait on */
        g->time = t;
        return enqueue(st, g) ? -1 : 0;
    }
    sim_fifo *f = &g->in_order;
    *run = fifo_first(g) ? f->a[f->head++] : heap_pop(g->m, &g->n);
    run->time = g->time;
    return waiting(g) && enqueue(st, g) ? -1 : 1;
}

void sim_wait_free(sim_state *st)
{
    for (size_t g = 0; g < st->nwg; g++) {
        free(st->wg[g].m);
        free(st->wg[g].in_order.a);
    }
    free(st->wg);
    free(st->wslot);
}
