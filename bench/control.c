/* control: between batches, node times and direct ping-pongs (bench/control.h). */
#include "bench/control.h"

#include <string.h>

int bench_nodes_collect(const bench_backend *be, bench_comm *comm, int me, int procs,
                        double *parts)
{
    for (int p = 0; p < procs; p++) {
        bench_msg q = {BENCH_MSG_CONTROL, 0, p, me, -1, 0, 0}, a;
        unsigned char buf[sizeof(double)];
        int rc;
        if (p == me)
            continue;
        if ((rc = be->send(comm, p, &q, buf)) || (rc = be->recv(comm, &a, buf, sizeof buf)))
            return rc;
        /* nothing else is in flight between batches */
        if (a.kind != BENCH_MSG_CONTROL || a.last || a.len != (int64_t)sizeof(double))
            return BENCH_ERR_SYSTEM;
        memcpy(&parts[p], buf, sizeof(double));
    }
    return 0;
}

int bench_direct_batch(const bench_backend *be, bench_comm *comm, int me, int peer,
                       const void *tx, void *rx, long size, long reps, double *ns)
{
    int32_t what[2] = {(int32_t)reps, (int32_t)size};
    bench_msg q = {BENCH_MSG_CONTROL, 1, peer, me, -1, 0, sizeof what};
    int rc = be->send(comm, peer, &q, what);
    if (rc)
        return rc;
    double t0 = be->now_ns();
    if ((rc = be->pingpong(comm, peer, tx, rx, size, reps, 0)))
        return rc;
    *ns = be->now_ns() - t0;
    return 0;
}

int bench_control_serve(const bench_backend *be, bench_comm *comm, const bench_msg *q,
                        const unsigned char *p, const void *tx, void *rx, double *busy_ns)
{
    if (q->last) {
        int32_t what[2];
        if (q->len != (int64_t)sizeof what || !be->pingpong)
            return BENCH_ERR_SYSTEM;
        memcpy(what, p, sizeof what);
        return be->pingpong(comm, q->target, tx, rx, what[1], what[0], 1);
    }
    bench_msg a = {BENCH_MSG_CONTROL, 0, q->target, q->target, -1, 0, sizeof(double)};
    unsigned char buf[sizeof(double)];
    memcpy(buf, busy_ns, sizeof buf);
    *busy_ns = 0;
    return be->send(comm, q->target, &a, buf);
}
