/* expand: collectives as point-to-point messages (algorithms: expand.h). */
#include "trace/expand.h"

#include "trace/tracekinds.h"

static void bcast(int n, int me, int rt, uint64_t m, expand_fn emit, void *ctx)
{
    int vr = (me - rt + n) % n, mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n)
            emit(ctx, (vr + mask + rt) % n, m);
}

static void reduce(int n, int me, int rt, uint64_t m, expand_fn emit, void *ctx)
{
    int vr = (me - rt + n) % n;
    if (vr != 0)
        emit(ctx, (vr - (vr & -vr) + rt) % n, m);
}

static void allreduce(int n, int me, uint64_t m, expand_fn emit, void *ctx)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p, newrank;
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            emit(ctx, me + 1, m);   /* hand my data to the odd neighbour */
            return;
        }
        newrank = me / 2;
    } else {
        newrank = me - rem;
    }
    for (int mask = 1; mask < p; mask <<= 1) {
        int nd = newrank ^ mask;
        emit(ctx, nd < rem ? nd * 2 + 1 : nd + rem, m);
    }
    if (me < 2 * rem)
        emit(ctx, me - 1, m);       /* the result back to the even neighbour */
}

int expand_collective(int kind, int n, int me, int root, uint64_t m, expand_fn emit, void *ctx)
{
    if (n < 1 || me < 0 || me >= n || trace_kind_class(kind) != TRACE_COLL)
        return -1;
    int rooted = kind == TRACE_K_BCAST || kind == TRACE_K_REDUCE || kind == TRACE_K_GATHER ||
                 kind == TRACE_K_SCATTER;
    if (rooted && (root < 0 || root >= n))
        return -1;
    switch (kind) {
    case TRACE_K_BCAST: bcast(n, me, root, m, emit, ctx); break;
    case TRACE_K_REDUCE: reduce(n, me, root, m, emit, ctx); break;
    case TRACE_K_ALLREDUCE: allreduce(n, me, m, emit, ctx); break;
    case TRACE_K_ALLTOALL:
        for (int j = 0; j < n; j++)
            if (j != me)
                emit(ctx, j, m);
        break;
    case TRACE_K_ALLGATHER:
        for (int k = 1; k < n; k++)
            emit(ctx, (me + 1) % n, m);
        break;
    case TRACE_K_GATHER:
        if (me != root)
            emit(ctx, root, m);
        break;
    case TRACE_K_SCATTER:
        for (int j = 0; j < n && me == root; j++)
            if (j != root)
                emit(ctx, j, m);
        break;
    case TRACE_K_BARRIER:
        for (int k = 1; k < n; k <<= 1)
            emit(ctx, (me + k) % n, 0);
        break;
    default: return -1;
    }
    return 0;
}
