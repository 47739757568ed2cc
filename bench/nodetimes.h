/* nodetimes: --node-times on the engine's patterns (pp, ow).  Each process
 * times its own part of a batch: the time it spends handling messages, from
 * a receive's return to the end of the sends it makes (a relay's forward and
 * its injected delay, the destination's reply, the source's requests), on
 * its own clock.  After a batch the measuring process asks every other for
 * its part, one question and answer at a time (BENCH_MSG_TIMES), so no
 * pattern's window is exceeded; each answer resets the part. */
#ifndef SCITORUS_NODETIMES_H
#define SCITORUS_NODETIMES_H

#include "bench/backend.h"

/* Asks process p (every one but me, of procs) for its part since its last
 * answer into parts[p]; parts[me] is left alone.  0 or a BENCH_ERR_* code. */
int bench_nodes_collect(const bench_backend *be, bench_comm *comm, int me, int procs,
                        double *parts);

/* The answer to a question q (a BENCH_MSG_TIMES received): *busy_ns, then
 * reset.  0 or a BENCH_ERR_* code. */
int bench_nodes_answer(const bench_backend *be, bench_comm *comm, const bench_msg *q,
                       double *busy_ns);

#endif
