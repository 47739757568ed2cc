/* control: what the engine's processes say to each other between batches
 * (BENCH_MSG_CONTROL), outside the timed part, one message in flight at a
 * time so no pattern's window is exceeded.
 *
 * Node times (--node-times, pp and ow): each process times its own part of
 * a batch -- the time it spends handling messages, from a receive's return
 * to the end of the sends it makes (a relay's forward and its injected
 * delay, the destination's reply, the source's requests) -- and after a
 * batch the measuring process asks every other for its part, which each
 * answer resets.
 *
 * Direct ping-pongs: where a ping-pong's request and reply each take one
 * hop between two processes, the measuring process announces a batch and
 * both run the transport's own loop (bench_backend.pingpong, osu_latency's),
 * so nothing of the engine's routing is timed. */
#ifndef SCITORUS_CONTROL_H
#define SCITORUS_CONTROL_H

#include "bench/backend.h"

/* Asks process p (every one but me, of procs) for its part since its last
 * answer into parts[p]; parts[me] is left alone.  0 or a BENCH_ERR_* code. */
int bench_nodes_collect(const bench_backend *be, bench_comm *comm, int me, int procs,
                        double *parts);

/* A batch of reps direct ping-pongs of size bytes from me to process peer:
 * announced, then timed around the transport's loop alone, *ns elapsed. */
int bench_direct_batch(const bench_backend *be, bench_comm *comm, int me, int peer,
                       const void *tx, void *rx, long size, long reps, double *ns);

/* A control message q received (its payload p): the answer to a node-time
 * question (*busy_ns, then reset), or the other side of an announced direct
 * batch, replying from tx.  0 or a BENCH_ERR_* code. */
int bench_control_serve(const bench_backend *be, bench_comm *comm, const bench_msg *q,
                        const unsigned char *p, const void *tx, void *rx, double *busy_ns);

#endif
