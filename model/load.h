/* load: latency under load, open loop (model/load.c; docs/model.md, 'Load') */
#ifndef SCITORUS_MODEL_LOAD_H
#define SCITORUS_MODEL_LOAD_H

#include "model/model.h"

/* Every node injects m-byte Poisson messages to its pattern's destinations;
 * each channel's wait comes from the merge identity of FIFO servers with a
 * flows'-age closure (docs/model.md; test_load
 * checks it against a simulation of the queues). */
#define MODEL_LOAD_AGE_KAPPA 1.1
typedef struct model_load {
    topo_shape shape;
    topo_links links;
    topo_pattern pattern;
    double *c;                 /* per directed link, topo_link_index order */
    topo_streams streams;      /* every channel's input rates, and ejection loads */
    double senders;            /* sources that send */
    double c_max;              /* busiest channel, injection (1) included */
    long bottleneck;           /* topo_link_index of a busiest network link, or -1
                                * when the injection/ejection channels are busiest */
    long bottlenecks;          /* network links at c_max (to 1e-12) */
    model_avg_counts counts;   /* zero-load mean counts of the pattern */
} model_load;

/* model_load_init's outcomes: each failure has its own message. */
typedef enum model_load_status {
    MODEL_LOAD_OK = 0,
    MODEL_LOAD_SILENT = -1,      /* pattern undefined on the shape, or sends nothing */
    MODEL_LOAD_TOO_BIG = -2,     /* over TOPO_LOAD_MAX_LINKS directed links */
    MODEL_LOAD_NO_MEMORY = -3    /* the channel loads or input streams not allocated */
} model_load_status;
/* Computes the channel loads (topo_link_loads) and zero-load counts.
 * Returns a model_load_status; model_load_free releases it. */
int model_load_init(model_load *ld, const topo_shape *shape, topo_links links,
                    topo_pattern pattern);
void model_load_free(model_load *ld);
/* t(m) in ns. */
double model_load_link_ns(const model_params *p, double size_bytes);
/* lambda_sat in messages per ns per node. */
double model_load_saturation(const model_params *p, const model_load *ld, double size_bytes);
/* Mean latency at rate lambda (messages/ns/node), by the merge identity, its
 * queueing part (wait_ns), and the independent-queue latency (docs/model.md, 'Load')
 * (independent_ns); the last two may be NULL.  Returns 0, -1 if
 * lambda >= lambda_sat or lambda < 0, or -2 if out of memory (the flows'
 * ages take a double per stream row and two per node). */
int model_load_latency(const model_params *p, const model_load *ld, double size_bytes,
                       double rate_per_ns, double *latency_ns, double *wait_ns,
                       double *independent_ns);

#endif
