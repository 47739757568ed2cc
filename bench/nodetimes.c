/* nodetimes: each process's own part of a batch (bench/nodetimes.h). */
#include "bench/nodetimes.h"

#include <string.h>

int bench_nodes_collect(const bench_backend *be, bench_comm *comm, int me, int procs,
                        double *parts)
{
    for (int p = 0; p < procs; p++) {
        bench_msg q = {BENCH_MSG_TIMES, 0, p, me, -1, 0, 0}, a;
        unsigned char buf[sizeof(double)];
        int rc;
        if (p == me)
            continue;
        if ((rc = be->send(comm, p, &q, buf)) || (rc = be->recv(comm, &a, buf, sizeof buf)))
            return rc;
        /* nothing else is in flight between batches */
        if (a.kind != BENCH_MSG_TIMES || a.len != (int64_t)sizeof(double))
            return BENCH_ERR_SYSTEM;
        memcpy(&parts[p], buf, sizeof(double));
    }
    return 0;
}

int bench_nodes_answer(const bench_backend *be, bench_comm *comm, const bench_msg *q,
                       double *busy_ns)
{
    bench_msg a = {BENCH_MSG_TIMES, 0, q->target, q->target, -1, 0, sizeof(double)};
    unsigned char buf[sizeof(double)];
    memcpy(buf, busy_ns, sizeof buf);
    *busy_ns = 0;
    return be->send(comm, q->target, &a, buf);
}
