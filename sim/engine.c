/* engine: the replay loop.  Every rule, including the ones that look
 * accidental (a message charges the sender's CPU number on the receiver,
 * a receive found in the unexpected queue costs no o), is LogGOPSim's
 * (LogGOPSim.cpp, LIST_MATCH and STRICT_ORDER builds): equality with it
 * is the test.  Rules in words: docs/replay.md, 'Replay'. */
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine_priv.h"
#include "sim/stlsort.h"
#include "util/grow.h"

/* --- the event queue: a binary heap on (time, insertion stamp) ---------- */
/* GSL has no priority queue; the stamp makes the order total, so any
 * correct heap pops what std::priority_queue pops. */
static inline int ev_before(const sim_event *a, const sim_event *b)
{
    return a->time < b->time || (a->time == b->time && a->ts < b->ts);
}

/* CPUs and NICs of all hosts together: 2^29 clocks take 4 GiB. */
#define SIM_MAX_CORES (1UL << 29)

static int heap_push(sim_state *st, sim_event e)
{
    if (UTIL_GROW(st->ev, st->nev, st->evcap, 1024))
        return -1;
    size_t i = st->nev++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ev_before(&e, &st->ev[parent]))
            break;
        st->ev[i] = st->ev[parent];
        i = parent;
    }
    st->ev[i] = e;
    return 0;
}

int sim_fifo_put(sim_fifo *f, sim_event e)
{
    if (f->n == f->head)
        f->head = f->n = 0;
    else if (f->n == f->cap && f->head >= f->cap / 2) {
        memmove(f->a, f->a + f->head, (f->n - f->head) * sizeof *f->a);
        f->n -= f->head;
        f->head = 0;
    }
    if (UTIL_GROW(f->a, f->n, f->cap, 64))
        return -1;
    f->a[f->n++] = e;
    return 0;
}

/* Most events come in order (a rank's freed operations, a stream of
 * wakes): appended to the FIFO they cost no sifting through a deep heap. */
int sim_push(sim_state *st, sim_event e)
{
    sim_fifo *f = &st->fifo;
    if (!sim_fifo_empty(f) && ev_before(&e, &f->a[f->n - 1]))
        return heap_push(st, e);
    return sim_fifo_put(f, e);
}

static sim_event heap_pop(sim_state *st)
{
    sim_event top = st->ev[0], last = st->ev[--st->nev];
    size_t i = 0, n = st->nev;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_before(&st->ev[c + 1], &st->ev[c]))
            c++;
        if (!ev_before(&st->ev[c], &last))
            break;
        st->ev[i] = st->ev[c];
        i = c;
    }
    if (n)
        st->ev[i] = last;
    return top;
}

/* The roots of the hosts from st->root_host on, in the order release() gives
 * them, as events (at 0: no start times). */
static int next_root(sim_state *st, sim_event *e)
{
    const goal_schedule *s = st->s;
    while (st->iroot == st->nroots && st->root_host < s->ranks) {
        uint32_t h = st->root_host++;
        st->iroot = st->nroots = 0;
        for (size_t i = s->first[h]; i < s->first[h] + s->count[h]; i++)
            if (s->op[i].deps == 0)
                st->roots[st->nroots++] = (uint32_t)i;
        stl_sort_by_key(st->roots, st->nroots, &s->op[0].kind, sizeof *s->op);
    }
    if (st->iroot == st->nroots)
        return 0;
    *e = (sim_event){0, st->root_ts, st->roots[st->iroot], SIM_EV_OP};
    return 1;
}

static sim_event pop(sim_state *st)
{
    sim_fifo *f = &st->fifo;
    sim_event r;
    if (st->roots_left && next_root(st, &r) && (sim_fifo_empty(f) || ev_before(&r, &f->a[f->head])) &&
        (!st->nev || ev_before(&r, &st->ev[0]))) {
        st->iroot++, st->root_ts++, st->roots_left--;
        return r;
    }
    if (!sim_fifo_empty(f) && (!st->nev || ev_before(&f->a[f->head], &st->ev[0])))
        return f->a[f->head++];
    return heap_pop(st);
}

/* --- dependencies -------------------------------------------------------- */
static int make_free(sim_state *st, uint32_t op)
{
    if (UTIL_GROW(st->pend, st->npend, st->pendcap, 256))
        return -1;
    st->pend[st->npend++] = op;
    return 0;
}

static int mark(sim_state *st, uint32_t op, const size_t *at, const uint32_t *to)
{
    for (size_t i = at[op]; i < at[op + 1]; i++)
        if (--st->deps[to[i]] == 0 && make_free(st, to[i]))
            return -1;
    return 0;
}

int sim_started(sim_state *st, uint32_t op)
{
    st->ops_done++;
    return mark(st, op, st->s->start_at, st->s->start_to);
}

int sim_done(sim_state *st, uint32_t op)
{
    return mark(st, op, st->s->done_at, st->s->done_to);
}

/* The operations freed by one event, host by host in ascending order, each
 * host's sorted by kind as std::sort sorts them, enter the queue. */
static int release(sim_state *st)
{
    const goal_op *op = st->s->op;
    while (st->npend) {
        uint32_t host = op[st->pend[0]].rank;
        for (size_t i = 1; i < st->npend; i++)
            if (op[st->pend[i]].rank < host)
                host = op[st->pend[i]].rank;
        size_t n = 0, keep = 0;
        for (size_t i = 0; i < st->npend; i++) {
            uint32_t id = st->pend[i];
            if (op[id].rank == host)
                st->tmp[n++] = id;
            else
                st->pend[keep++] = id;
        }
        st->npend = keep;
        stl_sort_by_key(st->tmp, n, &op[0].kind, sizeof *op);
        for (size_t i = 0; i < n; i++) {
            const goal_op *o = &op[st->tmp[i]];
            double t = st->nexto[(size_t)host * st->ncpu + o->cpu];
            if (o->kind == GOAL_SEND) {
                double g = st->nextgs[(size_t)host * st->nnic + o->nic];
                if (g > t)
                    t = g;
            }
            if (sim_push(st, (sim_event){t, st->ts++, st->tmp[i], SIM_EV_OP}))
                return -1;
        }
    }
    return 0;
}

static inline double dmax(double a, double b) { return a > b ? a : b; }

/* The waiting group's name of CPU cpu of rank with NIC nic of the sending
 * (0), receiving (1) side, or none (nic < 0). */
static uint64_t pair_key(const sim_state *st, uint32_t rank, int cpu, int side, int nic)
{
    uint64_t slot = (uint64_t)rank * st->ncpu + (uint64_t)cpu;
    uint64_t which = nic < 0 ? 0 : 1 + (uint64_t)side * st->nnic + (uint64_t)nic;
    return slot * (1 + 2 * st->nnic) + which;
}

/* --- the operations ------------------------------------------------------ */
static int do_calc(sim_state *st, sim_event e)
{
    const goal_op *o = &st->s->op[e.id];
    double *cpu = &st->nexto[(size_t)o->rank * st->ncpu + o->cpu];
    if (*cpu <= e.time) {
        *cpu = e.time + (double)o->size;
        return sim_started(st, e.id) || sim_done(st, e.id);
    }
    return sim_wait(st, e, pair_key(st, o->rank, o->cpu, 0, -1), cpu, NULL);
}

static int do_send(sim_state *st, sim_event e)
{
    const goal_op *o = &st->s->op[e.id];
    double *cpu = &st->nexto[(size_t)o->rank * st->ncpu + o->cpu];
    double *nic = &st->nextgs[(size_t)o->rank * st->nnic + o->nic];
    if (dmax(*cpu, *nic) > e.time)
        return sim_wait(st, e, pair_key(st, o->rank, o->cpu, 0, o->nic), cpu, nic);
    if (sim_started(st, e.id))
        return -1;
    sim_costs k;
    sim_message_costs(st, o, &k);
    *cpu = e.time + k.send_cpu;
    *nic = e.time + k.send_nic;
    st->messages++;
    st->bytes += o->size;
    if (st->sent_at && k.src_node != k.dst_node) {
        st->sent_at[e.id] = e.time;
        st->own_arrival[o->rank] = dmax(st->own_arrival[o->rank], e.time + k.depart + k.wire);
    }
    if (sim_depart(st, e.id, e.time, &k))
        return -1;
    if (o->size > st->c->S)
        return 0;
    if (k.call > 0)
        return sim_push(st, (sim_event){e.time + k.call, st->ts++, e.id, SIM_EV_RETURN});
    return sim_done(st, e.id);
}

/* A send call that outlasts its CPU time (sized, L(m) < 0) returns: the
 * rank is busy at least until now, and what waits on the send may go. */
static int call_return(sim_state *st, sim_event e)
{
    const goal_op *o = &st->s->op[e.id];
    double *cpu = &st->nexto[(size_t)o->rank * st->ncpu + o->cpu];
    if (*cpu < e.time)
        *cpu = e.time;
    return sim_done(st, e.id);
}

/* Rendezvous: the receive that matched frees the send; the sender's CPU
 * and NIC numbers cpu, nic (LogGOPSim takes the other side's) wait till now. */
static int rendezvous(sim_state *st, uint32_t send, uint32_t sender, int cpu, int nic, double now)
{
    double *c = &st->nexto[(size_t)sender * st->ncpu + cpu];
    double *g = &st->nextgs[(size_t)sender * st->nnic + nic];
    if (*c < now)
        *c = now;
    if (*g < now)
        *g = now;
    return sim_done(st, send);
}

static int do_recv(sim_state *st, sim_event e)
{
    const goal_op *o = &st->s->op[e.id];
    uint32_t h = o->rank;
    if (sim_started(st, e.id))
        return -1;
    uint32_t m = sched_match_take(&st->mq, h, SCHED_MATCH_UNEXPECTED, 0, o->peer, o->tag);
    if (m == SIM_NONE)
        return sched_match_add(&st->mq, h, SCHED_MATCH_POSTED, 0, o->peer, o->tag, e.id);
    if (o->size > st->c->S &&
        rendezvous(st, m, st->s->op[m].rank, o->cpu, o->nic, e.time))
        return -1;
    return sim_done(st, e.id);
}

/* A message (event id: its send) reaches its destination's NIC. */
int sim_arrive(sim_state *st, sim_event e)
{
    const goal_op *o = &st->s->op[e.id];
    uint32_t h = o->peer, src = o->rank;
    double *cpu = &st->nexto[(size_t)h * st->ncpu + o->cpu];
    double *nic = &st->nextgr[(size_t)h * st->nnic + o->nic];
    if (dmax(*cpu, *nic) > e.time)
        return sim_wait(st, e, pair_key(st, h, o->cpu, 1, o->nic), cpu, nic);
    sim_costs k;
    sim_message_costs(st, o, &k);
    if (st->sent_at && k.src_node != k.dst_node && st->own_arrival[h] > st->sent_at[e.id])
        k.recv_cpu += st->c->t.duplex_ns + st->c->t.duplex_ns_per_byte * (double)o->size;
    *cpu = e.time + k.recv_cpu;
    *nic = e.time + k.recv_nic;
    uint32_t r = sched_match_take(&st->mq, h, SCHED_MATCH_POSTED, 0, src, o->tag);
    if (r == SIM_NONE)
        return sched_match_add(&st->mq, h, SCHED_MATCH_UNEXPECTED, 0, src, o->tag, e.id);
    if (o->size > st->c->S && rendezvous(st, e.id, src, o->cpu, o->nic, e.time))
        return -1;
    return sim_done(st, r);
}

static int step(sim_state *st, sim_event e)
{
    switch (e.kind) {
    case SIM_EV_OP:
        switch (st->s->op[e.id].kind) {
        case GOAL_CALC: return do_calc(st, e);
        case GOAL_SEND: return do_send(st, e);
        default: return do_recv(st, e);
        }
    case SIM_EV_MSG:
        return sim_arrive(st, e);
    case SIM_EV_RETURN:
        return call_return(st, e);
    case SIM_EV_WAKE: {
        sim_event run;
        int rc = sim_wake(st, e, &run);
        return rc < 0 ? -1 : rc ? step(st, run) : 0;
    }
    default:
        return sim_hop(st, e);
    }
}

int sim_run(const goal_schedule *s, const sim_config *c, sim_result *r)
{
    sim_state st = {0};
    int rc = -1;
    memset(r, 0, sizeof *r);
    st.s = s;
    st.c = c;
    st.ncpu = (size_t)s->max_cpu + 1;
    st.nnic = (size_t)s->max_nic + 1;
    size_t maxops = 0;
    for (uint32_t h = 0; h < s->ranks; h++)
        if (s->count[h] > maxops)
            maxops = s->count[h];
    r->ranks = s->ranks;
    r->ops = s->nops;
    if ((size_t)s->ranks * (st.ncpu + 2 * st.nnic) > SIM_MAX_CORES)
        goto out;
    if (!(st.deps = malloc((s->nops + 1) * sizeof *st.deps)) ||
        !(st.nexto = calloc((size_t)s->ranks * st.ncpu, sizeof *st.nexto)) ||
        !(st.nextgs = calloc((size_t)s->ranks * st.nnic, sizeof *st.nextgs)) ||
        !(st.nextgr = calloc((size_t)s->ranks * st.nnic, sizeof *st.nextgr)) ||
        sched_match_init(&st.mq, s->ranks, 1) ||
        !(st.tmp = malloc((maxops + 1) * sizeof *st.tmp)) ||
        !(r->finish = calloc(s->ranks + 1, sizeof *r->finish)) || sim_net_init(&st))
        goto out;
    if (c->torus && (c->t.duplex_ns > 0 || c->t.duplex_ns_per_byte > 0)) {
        if (!(st.sent_at = calloc(s->nops + 1, sizeof *st.sent_at)) ||
            !(st.own_arrival = malloc(s->ranks * sizeof *st.own_arrival)))
            goto out;
        for (uint32_t h = 0; h < s->ranks; h++)
            st.own_arrival[h] = -INFINITY;
    }
    for (size_t i = 0; i < s->nops; i++)
        st.deps[i] = s->op[i].deps;
    for (uint32_t h = 0; c->start && h < s->ranks; h++)
        for (size_t k = 0; k < st.ncpu; k++)
            st.nexto[h * st.ncpu + k] = c->start[h];
    /* Roots: host by host, each host's in file order, sorted by kind; made
     * when taken where all are at 0, the first stamps kept for them. */
    if (!c->start) {
        if (!(st.roots = malloc((maxops + 1) * sizeof *st.roots)))
            goto out;
        for (uint32_t h = 0; h < s->ranks; h++)   /* the ops next_root() walks */
            for (size_t i = s->first[h]; i < s->first[h] + s->count[h]; i++)
                st.roots_left += s->op[i].deps == 0;
        st.ts = st.roots_left;
    }
    for (uint32_t h = 0; c->start && h < s->ranks; h++) {
        for (size_t i = s->first[h]; i < s->first[h] + s->count[h]; i++)
            if (s->op[i].deps == 0 && make_free(&st, (uint32_t)i))
                goto out;
        if (release(&st))
            goto out;
    }
    while (st.nev || !sim_fifo_empty(&st.fifo) || st.roots_left) {
        sim_event e = pop(&st);
        if (step(&st, e) || release(&st))
            goto out;
        if ((++st.events & 0xfffff) == 0) {
            if (c->stop && c->stop()) {
                r->interrupted = 1;
                break;
            }
            if (c->progress)
                c->progress(c->progress_arg, st.events, st.ops_done, s->nops);
        }
    }
    double sum = 0;
    for (uint32_t h = 0; h < s->ranks; h++) {
        double f = 0;
        for (size_t k = 0; k < st.ncpu; k++)
            f = dmax(f, st.nexto[h * st.ncpu + k]);
        r->finish[h] = f;
        sum += f;
        r->makespan = dmax(r->makespan, f);
    }
    r->mean_finish = s->ranks ? sum / s->ranks : 0;
    r->messages = st.messages;
    r->bytes = st.bytes;
    r->events = st.ts;   /* LogGOPSim's count: every new queue entry */
    r->ops_done = st.ops_done;
    r->pops = st.events;
    r->match_steps = st.mq.steps;
    r->wait_ns = st.wait_ns;
    r->latency_ns = st.latency_ns;
    if (!r->interrupted)
        sim_explain_stuck(&st, r);
    sim_net_stats(&st, r);
    rc = 0;
out:
    sim_net_free(&st);
    sim_wait_free(&st);
    free(st.deps);
    free(st.nexto);
    free(st.sent_at);
    free(st.own_arrival);
    free(st.nextgs);
    free(st.nextgr);
    free(st.tmp);
    free(st.roots);
    free(st.ev);
    free(st.fifo.a);
    sched_match_free(&st.mq);
    free(st.pend);
    if (rc)
        sim_result_free(r);
    return rc;
}

void sim_result_free(sim_result *r)
{
    free(r->finish);
    r->finish = NULL;
}
