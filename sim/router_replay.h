/* router_replay: a GOAL schedule replayed on a torus whose messages cross
 * the router model (router.h): replay passes alternate with router passes
 * that give every network message its delay beyond its unloaded latency
 * (docs/router.md, 'Replay'). */
#ifndef SCITORUS_ROUTER_REPLAY_H
#define SCITORUS_ROUTER_REPLAY_H

#include "sim/engine.h"
#include "sim/router.h"

#define SIM_ROUTER_MAX_PASSES 16

typedef struct sim_router_report {
    int passes;                                 /* replays run */
    double makespan[SIM_ROUTER_MAX_PASSES];     /* each replay's */
    uint64_t flit_hops, messages;               /* router passes: all; network messages */
    double queue_ns;                            /* the last router pass's delays, summed */
    int deadlock;
} sim_router_report;

/* Replays s on c's torus (no contention) with the router model rc: passes
 * replays (1..SIM_ROUTER_MAX_PASSES), the first at zero load.  Returns 0
 * with r filled (as sim_run), 1 when the router model deadlocked, -1 out
 * of memory.  r->wait_ns is the queueing the last replay added. */
int sim_run_router(const goal_schedule *s, const sim_config *c, const sim_router_config *rc,
                   int passes, sim_result *r, sim_router_report *rep);

#endif
