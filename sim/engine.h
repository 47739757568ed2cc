/* engine: discrete-event replay of a GOAL schedule with LogGOPSim's rules
 * (docs/replay.md, 'Replay'): a CPU and a NIC per host and number,
 * eager and rendezvous messages, matching by source and tag in order.
 * The network is LogGP (every message L in flight), LogGP on a LogP
 * file's per-size parameters, or a torus, whose messages take the route's
 * wire time and, with contention, queue FIFO for every directed link of
 * the route. */
#ifndef SCITORUS_ENGINE_H
#define SCITORUS_ENGINE_H

#include <signal.h>
#include <stdint.h>

#include "model/params.h"
#include "sched/goal.h"
#include "topo/topo.h"

/* LogGOPSim's defaults (its loggopsim_cmdline.ggo). */
#define SIM_DEFAULT_L 2500
#define SIM_DEFAULT_o 1500
#define SIM_DEFAULT_g 1000
#define SIM_DEFAULT_G 6
#define SIM_DEFAULT_O 0
#define SIM_DEFAULT_S 65535

typedef struct sim_loggp {
    double L, o, g, G, O;   /* ns, ns per byte (G, O); whole numbers */
} sim_loggp;

typedef struct sim_torus {
    const model_params *p;       /* network and endpoints */
    const model_params *intra;   /* endpoints of same-node messages (may be p) */
    const topo_shape *shape;
    topo_links links;
    const long *node_of_rank;    /* torus node of every rank */
    int contention;
    /* endpoints of a rank's messages to itself (NULL: intra): Open MPI's
     * self transport copies them in memory, no network stack */
    const model_params *self;
    /* A message that reaches a node while one of the node's own messages to
     * another node is in flight costs the receiver duplex_ns + duplex_ns_per_byte
     * m more CPU (docs/replay.md, 'Replay'); 0: the overlap is free. */
    double duplex_ns, duplex_ns_per_byte;
    /* The router model's passes (router_replay.c), both NULL otherwise: a
     * network send's time in flight beyond the route's wire time, and
     * where the replay writes the time it leaves the sender (both by op). */
    const double *extra_ns;
    double *depart_ns;
} sim_torus;

/* LogGP on per-size parameters (a LogP file's, docs/replay.md,
 * 'Collectives'): a send holds the CPU os(m) and the NIC g(m), a received
 * message the CPU or(m) and the NIC g(m), and it flies L(m), which may be
 * negative where a blocking send's call spans the delivery. */
typedef struct sim_sized {
    double (*os)(void *ctx, long m), (*orr)(void *ctx, long m), (*g)(void *ctx, long m);
    double (*L)(void *ctx, long m);
    void *ctx;
} sim_sized;

typedef struct sim_config {
    int torus;                   /* 0: LogGP network (or sized), 1: torus */
    sim_loggp lg;
    const sim_sized *sized;      /* non-NULL (torus 0): per-size LogGP instead of lg */
    const double *start;         /* per rank: its CPUs busy until then (NULL: 0) */
    uint64_t S;                  /* eager up to S bytes, rendezvous above */
    sim_torus t;
    /* Optional: progress is called every 2^20 events; stop() != 0 ends the run early. */
    void (*progress)(void *arg, uint64_t events, uint64_t ops_done, uint64_t ops);
    void *progress_arg;
    int (*stop)(void);
} sim_config;

/* One directed link's totals (contention only). */
typedef struct sim_link_stat {
    long node;      /* leaves this torus node */
    int dim;        /* -1: the node's injection channel, -2: ejection */
    int way;        /* 0 positive, 1 negative */
    double busy_ns, wait_ns;
    uint64_t messages;
} sim_link_stat;

#define SIM_TOP_LINKS 3

typedef struct sim_result {
    uint32_t ranks;
    double *finish;          /* per rank: latest time its CPUs are busy to */
    double makespan, mean_finish;
    uint64_t messages, bytes, events;
    double wait_ns;          /* time messages waited for links */
    double latency_ns;       /* sum over messages: arrival - send start, plus
                                the receiver's CPU cost (zero-load: L_request) */
    sim_link_stat top[SIM_TOP_LINKS];
    int ntop;
    int interrupted;         /* stopped by *stop: times are partial */
    uint64_t ops_done, ops;  /* started operations / all */
    /* The replay's work, which tests hold to the schedule's size: entries
     * taken from the event queue, entries a matching queue search looked at */
    uint64_t pops, match_steps;
    char stuck[200];         /* "" or why operations never ran */
} sim_result;

/* Replays s.  Returns 0 (see r->stuck, r->interrupted), -1 out of memory. */
int sim_run(const goal_schedule *s, const sim_config *c, sim_result *r);

void sim_result_free(sim_result *r);

#endif
