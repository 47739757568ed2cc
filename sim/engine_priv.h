/* engine_priv: the replay's state, shared by the loop (engine.c), the
 * networks (net.c) and the post-mortem (stuck.c); not for callers. */
#ifndef SCITORUS_ENGINE_PRIV_H
#define SCITORUS_ENGINE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "sched/match.h"
#include "sim/engine.h"

#define SIM_NONE UINT32_MAX

enum { SIM_EV_OP = 0, SIM_EV_MSG = 1, SIM_EV_HOP = 2, SIM_EV_WAKE = 3, SIM_EV_RETURN = 4 };

typedef struct sim_event {
    double time;
    uint64_t ts;        /* insertion stamp: ties at equal times go in this order */
    uint32_t id;        /* op (OP, MSG: the send) or flight (HOP) */
    uint32_t kind;
} sim_event;

/* A message crossing the torus link by link (contention). */
typedef struct sim_flight {
    uint32_t op;
    int stage;          /* 0: injection next, 1: a ring link, 2: ejection */
    int last_dim;
    long node, dst;
    double relay_ns;    /* per relay beyond lf/ls (store and forward) */
    uint32_t next_free;
} sim_flight;

/* Endpoint and wire costs of one message. */
typedef struct sim_costs {
    double send_cpu, send_nic, recv_cpu, recv_nic;
    double depart;      /* from the send's start to leaving the sender */
    double wire;        /* zero-load time in flight */
    double call;        /* > 0: an eager send ends this long after its start, not at it */
    long src_node, dst_node;
} sim_costs;

typedef struct sim_wait_group sim_wait_group;

/* Events that came in order, a[head .. n-1] (not copied while it empties). */
typedef struct sim_fifo {
    sim_event *a;
    size_t head, n, cap;
} sim_fifo;

int sim_fifo_put(sim_fifo *f, sim_event e);   /* 0, or -1 out of memory */
static inline int sim_fifo_empty(const sim_fifo *f) { return f->n == f->head; }

typedef struct sim_state {
    const goal_schedule *s;
    const sim_config *c;
    size_t ncpu, nnic;
    uint32_t *deps;
    double *nexto, *nextgs, *nextgr;
    /* --duplex: each network send's start, and per rank the latest arrival
     * of its own network sends so far */
    double *sent_at, *own_arrival;
    sched_matcher mq;        /* posted receives, unexpected messages (ids: ops) */
    sim_event *ev; size_t nev, evcap;
    sim_fifo fifo;           /* events pushed in order: the queue is the earlier
                                of its head and the heap's top */
    /* Without start times every root enters at 0 with the first stamps, in
     * order: they are made when taken, host by host (roots[iroot..nroots)) */
    uint32_t *roots; size_t nroots, iroot, roots_left; uint32_t root_host; uint64_t root_ts;
    uint32_t *pend; size_t npend, pendcap;
    uint32_t *tmp;
    uint64_t ts, events, ops_done, messages, bytes;
    double wait_ns, latency_ns;
    /* contention */
    sim_flight *fl; size_t nfl, flcap; uint32_t flfree;
    double *link_free;       /* ring links 2 D N, then N injection, N ejection */
    sim_link_stat *lstat;    /* same indexing; NULL without contention */
    size_t nlinks;
    /* events waiting for a busy CPU or NIC (wait.c) */
    sim_wait_group *wg; size_t nwg, wgcap;
    uint32_t *wslot; size_t wcap;
} sim_state;

int sim_push(sim_state *st, sim_event e);
int sim_started(sim_state *st, uint32_t op);
int sim_done(sim_state *st, uint32_t op);
int sim_arrive(sim_state *st, sim_event e);

/* net.c */
int sim_net_init(sim_state *st);
void sim_net_free(sim_state *st);
void sim_message_costs(const sim_state *st, const goal_op *o, sim_costs *k);
int sim_depart(sim_state *st, uint32_t send, double now, const sim_costs *k);
int sim_hop(sim_state *st, sim_event e);
void sim_net_stats(const sim_state *st, sim_result *r);

/* wait.c: e (an OP or MSG event) found the pair cpu, nic (NULL: a calc)
 * busy; key names the pair.  sim_wake takes a WAKE event: 1 with *run the
 * waiter to run now, 0 nothing to do, -1 out of memory. */
int sim_wait(sim_state *st, sim_event e, uint64_t key, double *cpu, double *nic);
int sim_wake(sim_state *st, sim_event e, sim_event *run);
void sim_wait_free(sim_state *st);

/* stuck.c */
void sim_explain_stuck(const sim_state *st, sim_result *r);

#endif
