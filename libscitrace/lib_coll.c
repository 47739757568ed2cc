/* lib_coll: PMPI wrappers of the collectives.  A collective with one block
 * size is recorded on entry as comm root bytes count code contig op (root a
 * world rank, -1 for none; bytes per block; the block's count, datatype
 * signature code and contiguity; a reduction's operation, else 0); the
 * analyzer expands it by the algorithm named in trace/tracekinds.h.  The v
 * variants and reduce-scatter are recorded as comm root K (peer bytes)...
 * 0 code contig op, this rank's sends to each peer (their counts differ per
 * peer).  Every collective's return is recorded. */
#include "libscitrace/lib.h"

/* Entry of a collective with one block size (op: a reduction's, else
 * MPI_OP_NULL). */
static void coll(enum trace_kind kind, const void *caller, MPI_Comm comm, int root, int count,
                 MPI_Datatype dt, MPI_Op op)
{
    /* through the call site when it repeats (lib.h, trace_enter_site) */
    int64_t key[TRACE_KEY_N] = {(int64_t)(intptr_t)comm, root, count, (int64_t)(intptr_t)dt,
                                (int64_t)(intptr_t)op};
    int id;
    int64_t t = trace_now();
    if (trace_enter_site(kind, caller, key, &id, t))
        return;
    id = trace_comm_id(comm);
    trace_words a = trace_enter(kind, caller, 8);
    tw(&a, id);
    tw(&a, root >= 0 ? trace_world(id, root) : TRACE_ANY);
    tw(&a, (int64_t)trace_bytes(count, dt));
    tw_dtype(&a, count, dt, 1);
    tw(&a, trace_op_code(op));
    trace_enter_site_done(&a, key, id, t);
}

/* Entry of a v collective: bytes_of(j) to each peer j (self excluded,
 * zero-byte blocks are not messages; only_to >= 0: that peer only). */
static void direct(enum trace_kind kind, const void *caller, MPI_Comm comm, int root,
                   const int counts[], int same_count, MPI_Datatype dt, int only_to, MPI_Op op)
{
    int id = trace_comm_id(comm), n = 0, me = 0, k = 0, inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter) {
        PMPI_Comm_size(comm, &n);
        PMPI_Comm_rank(comm, &me);
    }
    for (int j = 0; j < n; j++)
        k += j != me && (only_to < 0 || j == only_to) &&
             trace_bytes(counts ? counts[j] : same_count, dt) > 0;
    trace_words a = trace_enter(kind, caller, 8 + 2 * (size_t)k);
    tw(&a, id);
    tw(&a, root >= 0 ? trace_world(id, root) : TRACE_ANY);
    tw(&a, k);
    for (int j = 0; a.w && j < n; j++) {
        uint64_t b = trace_bytes(counts ? counts[j] : same_count, dt);
        if (j != me && (only_to < 0 || j == only_to) && b > 0) {
            tw(&a, trace_world(id, j));
            tw(&a, (int64_t)b);
        }
    }
    tw_dtype(&a, 0, dt, 1);   /* counts differ per peer: 0 */
    tw(&a, trace_op_code(op));
    trace_enter_done(&a);
}

static int returned(int rc)
{
    trace_returned();
    return rc;
}

static int is_root(MPI_Comm comm, int root)
{
    int me = -1;
    PMPI_Comm_rank(comm, &me);
    return me == root;
}

int MPI_Barrier(MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Barrier(comm);
    coll(TRACE_K_BARRIER, CALLER, comm, -1, 0, MPI_DATATYPE_NULL, MPI_OP_NULL);
    return returned(PMPI_Barrier(comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Bcast(buf, count, dt, root, comm);
    coll(TRACE_K_BCAST, CALLER, comm, root, count, dt, MPI_OP_NULL);
    return returned(PMPI_Bcast(buf, count, dt, root, comm));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    coll(TRACE_K_REDUCE, CALLER, comm, root, count, dt, op);
    return returned(PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    coll(TRACE_K_ALLREDUCE, CALLER, comm, -1, count, dt, op);
    return returned(PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm));
}

/* With MPI_IN_PLACE the block is described by the receive arguments. */
#define BLOCK(sbuf, scount, sdt, rcount, rdt)                                                \
    (sbuf) == MPI_IN_PLACE ? (rcount) : (scount), (sbuf) == MPI_IN_PLACE ? (rdt) : (sdt)

/* Alltoall, Allgather and Gather: one block each way, same arguments;
 * ROOT_PARAM and ROOT_ARG are empty for the unrooted ones. */
#define BLOCK_COLL(NAME, KIND, ROOT_PARAM, ROOT_ARG, ROOT)                                   \
    int MPI_##NAME(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,   \
                   MPI_Datatype rdt, ROOT_PARAM MPI_Comm comm)                               \
    {                                                                                        \
        if (!trace_enabled)                                                                  \
            return PMPI_##NAME(sbuf, scount, sdt, rbuf, rcount, rdt, ROOT_ARG comm);         \
        coll(KIND, CALLER, comm, ROOT, BLOCK(sbuf, scount, sdt, rcount, rdt), MPI_OP_NULL);  \
        return returned(PMPI_##NAME(sbuf, scount, sdt, rbuf, rcount, rdt, ROOT_ARG comm));   \
    }

BLOCK_COLL(Alltoall, TRACE_K_ALLTOALL, , , -1)
BLOCK_COLL(Allgather, TRACE_K_ALLGATHER, , , -1)
#define ROOT_PARAM_ int root,
#define ROOT_ARG_ root,
BLOCK_COLL(Gather, TRACE_K_GATHER, ROOT_PARAM_, ROOT_ARG_, root)

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    /* the root's send block, or (elsewhere) the receive block: equal sizes */
    int r = is_root(comm, root);
    coll(TRACE_K_SCATTER, CALLER, comm, root, r ? scount : rcount, r ? sdt : rdt, MPI_OP_NULL);
    return returned(PMPI_Scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm));
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                  MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    if (sbuf == MPI_IN_PLACE)
        direct(TRACE_K_ALLTOALLV, CALLER, comm, -1, rcounts, 0, rdt, -1, MPI_OP_NULL);
    else
        direct(TRACE_K_ALLTOALLV, CALLER, comm, -1, scounts, 0, sdt, -1, MPI_OP_NULL);
    return returned(PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm));
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    if (sbuf == MPI_IN_PLACE)
        direct(TRACE_K_ALLGATHERV, CALLER, comm, -1, NULL, rcounts[me], rdt, -1, MPI_OP_NULL);
    else
        direct(TRACE_K_ALLGATHERV, CALLER, comm, -1, NULL, scount, sdt, -1, MPI_OP_NULL);
    return returned(PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm));
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm);
    direct(TRACE_K_GATHERV, CALLER, comm, root, NULL, is_root(comm, root) ? 0 : scount, sdt, root,
           MPI_OP_NULL);
    return returned(PMPI_Gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm));
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                 void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm);
    int me_root = is_root(comm, root);
    direct(TRACE_K_SCATTERV, CALLER, comm, root, me_root ? scounts : NULL, 0, me_root ? sdt : rdt,
           -1, MPI_OP_NULL);
    return returned(PMPI_Scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm));
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm);
    direct(TRACE_K_REDUCE_SCATTER, CALLER, comm, -1, rcounts, 0, dt, -1, op);
    return returned(PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm);
    direct(TRACE_K_REDUCE_SCATTER_BLOCK, CALLER, comm, -1, NULL, rcount, dt, -1, op);
    return returned(PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm));
}

/* Nonblocking collectives: the entry of their blocking form, and a return
 * naming the request they make. */
static int icoll_made(int rc, MPI_Comm comm, MPI_Request *req)
{
    int id = trace_comm_id(comm);
    trace_words r = trace_exit(1);
    tw_req(&r, rc == MPI_SUCCESS ? trace_req_new(*req, id, req) : 0);
    trace_exit_done(&r);
    return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Ibarrier(comm, req);
    coll(TRACE_K_IBARRIER, CALLER, comm, -1, 0, MPI_DATATYPE_NULL, MPI_OP_NULL);
    return icoll_made(PMPI_Ibarrier(comm, req), comm, req);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Ibcast(buf, count, dt, root, comm, req);
    coll(TRACE_K_IBCAST, CALLER, comm, root, count, dt, MPI_OP_NULL);
    return icoll_made(PMPI_Ibcast(buf, count, dt, root, comm, req), comm, req);
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Ireduce(sbuf, rbuf, count, dt, op, root, comm, req);
    coll(TRACE_K_IREDUCE, CALLER, comm, root, count, dt, op);
    return icoll_made(PMPI_Ireduce(sbuf, rbuf, count, dt, op, root, comm, req), comm, req);
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Iallreduce(sbuf, rbuf, count, dt, op, comm, req);
    coll(TRACE_K_IALLREDUCE, CALLER, comm, -1, count, dt, op);
    return icoll_made(PMPI_Iallreduce(sbuf, rbuf, count, dt, op, comm, req), comm, req);
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req);
    coll(TRACE_K_IALLTOALL, CALLER, comm, -1, BLOCK(sbuf, scount, sdt, rcount, rdt), MPI_OP_NULL);
    return icoll_made(PMPI_Ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req), comm, req);
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req);
    coll(TRACE_K_IALLGATHER, CALLER, comm, -1, BLOCK(sbuf, scount, sdt, rcount, rdt), MPI_OP_NULL);
    return icoll_made(PMPI_Iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req), comm, req);
}
