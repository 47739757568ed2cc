/* router: a cycle-level torus network of input-buffered routers
 * (docs/router.md).  Packets of flits, V virtual channels of B flits at
 * every input port, credit-based flow control, dimension-order routing
 * with dateline VC classes on every ring, a router pipeline delay and a
 * link latency in cycles.  One cycle moves one flit over a link. */
#ifndef SCITORUS_ROUTER_H
#define SCITORUS_ROUTER_H

#include <stddef.h>
#include <stdint.h>

#include "topo/topo.h"

typedef struct sim_router_config {
    int vcs;             /* V per input port, 1..64 */
    long buf;            /* B flits per VC; 0: unbounded */
    int dateline;        /* 1: VCs split in two classes at each ring's dateline */
    int router_delay;    /* cycles from a flit's arrival to its switch allocation */
    int head_delay;      /* cycles from a head's reaching the front of its VC to
                          * its switch allocation (routing, VC allocation) */
    int link_latency;    /* cycles from leaving a router to reaching the next */
    long flit_bytes;     /* the replay's flit and packet sizes in bytes */
    long packet_bytes;
    uint64_t seed;       /* the choice of way at a tie of a bi ring */
} sim_router_config;

/* The defaults: 2 VCs of 8 flits, dateline on, a 5-cycle pipeline, 1-cycle
 * links, 64-byte flits, 4096-byte packets (BookSim 2's iq router). */
void sim_router_defaults(sim_router_config *c);

/* Parses "vc:V,buf:B,delay:R,head:H,link:L,flit:F,packet:P,dateline:on|off" (any
 * subset, buf:inf unbounded) over *c.  Returns 0, or -1 with why filled. */
int sim_router_parse(const char *text, sim_router_config *c, char *why, size_t len);

/* NULL, or why c cannot run without deadlock on its own terms (dateline
 * classes need V >= 2 on finite buffers). */
const char *sim_router_check(const sim_router_config *c);

typedef struct sim_router sim_router;

/* A delivered packet: its tag, the cycle it was offered and the cycle its
 * tail left the network, the links it crossed. */
typedef void (*sim_router_deliver)(void *arg, uint64_t tag, uint64_t created,
                                   uint64_t done, int hops);

/* NULL out of memory. */
sim_router *sim_router_new(const topo_shape *sh, topo_links links, const sim_router_config *c,
                           sim_router_deliver deliver, void *arg);
void sim_router_free(sim_router *r);

/* Offers a packet of flits (>= 1) at src for dst (!= src) at the current
 * cycle: it waits in src's unbounded source queue.  0, or -1 out of memory. */
int sim_router_inject(sim_router *r, long src, long dst, uint32_t flits, uint64_t tag);

/* Runs one cycle.  0, or -1 out of memory. */
int sim_router_step(sim_router *r);

uint64_t sim_router_now(const sim_router *r);
/* Packets offered and not yet delivered. */
uint64_t sim_router_pending(const sim_router *r);
/* Jumps an empty network's clock forward to cycle (no effect otherwise). */
void sim_router_skip(sim_router *r, uint64_t cycle);
/* Cycles since a flit last moved while packets were pending.  Past
 * sim_router_frozen's cycles nothing can move again: every wait on a timer
 * (pipeline, head, credit, link, an output VC's release) is over. */
uint64_t sim_router_idle(const sim_router *r);
uint64_t sim_router_frozen(const sim_router_config *c);

typedef struct sim_router_stats {
    uint64_t flit_hops, flits_ejected, packets_delivered;
} sim_router_stats;
void sim_router_get_stats(const sim_router *r, sim_router_stats *s);

/* The zero-load latency in cycles of a packet of flits over hops links:
 * the pipeline at every router on the way, the links and the injection
 * and ejection channels (link_latency each), the tail behind. */
uint64_t sim_router_zero_load(const sim_router_config *c, int hops, uint32_t flits);

#endif
