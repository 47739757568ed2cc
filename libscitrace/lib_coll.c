/* lib_coll: PMPI wrappers of the collectives.  A collective with one block
 * size is recorded on entry as "comm root bytes" (root a world rank, -1 for
 * none; bytes per block); the analyzer expands it by the algorithm named in
 * trace/tracekinds.h.  The v variants and reduce-scatter are recorded as
 * "comm root K (peer bytes)...", this rank's sends to each peer (their
 * counts differ per peer).  Every collective has a return line. */
#include "libscitrace/lib.h"

/* Entry line of a collective with one block size. */
static void coll(enum trace_kind kind, const void *caller, MPI_Comm comm, int root,
                 uint64_t bytes)
{
    int id = trace_comm_id(comm);
    char *p = trace_enter(kind, caller, 72);
    if (p) {
        p = tl_i(p, id);
        p = tl_i(p, root >= 0 ? trace_world(id, root) : TRACE_ANY);
        p = tl_u(p, bytes);
    }
    trace_end(p);
}

/* Entry line of a v collective: bytes_of(j) to each peer j (self excluded,
 * zero-byte blocks are not messages; only_to >= 0: that peer only). */
static void direct(enum trace_kind kind, const void *caller, MPI_Comm comm, int root,
                   const int counts[], int same_count, MPI_Datatype dt, int only_to)
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
    char *p = trace_enter(kind, caller, 72 + 32 * (size_t)k);
    if (p) {
        p = tl_i(p, id);
        p = tl_i(p, root >= 0 ? trace_world(id, root) : TRACE_ANY);
        p = tl_u(p, (uint64_t)k);
        for (int j = 0; j < n; j++) {
            uint64_t b = trace_bytes(counts ? counts[j] : same_count, dt);
            if (j != me && (only_to < 0 || j == only_to) && b > 0) {
                p = tl_i(p, trace_world(id, j));
                p = tl_u(p, b);
            }
        }
    }
    trace_end(p);
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
    coll(TRACE_K_BARRIER, CALLER, comm, -1, 0);
    return returned(PMPI_Barrier(comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Bcast(buf, count, dt, root, comm);
    coll(TRACE_K_BCAST, CALLER, comm, root, trace_bytes(count, dt));
    return returned(PMPI_Bcast(buf, count, dt, root, comm));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    coll(TRACE_K_REDUCE, CALLER, comm, root, trace_bytes(count, dt));
    return returned(PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    coll(TRACE_K_ALLREDUCE, CALLER, comm, -1, trace_bytes(count, dt));
    return returned(PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm));
}

/* With MPI_IN_PLACE the block is described by the receive arguments. */
#define BLOCK(sbuf, scount, sdt, rcount, rdt)                                                \
    ((sbuf) == MPI_IN_PLACE ? trace_bytes(rcount, rdt) : trace_bytes(scount, sdt))

/* Alltoall, Allgather and Gather: one block each way, same arguments;
 * ROOT_PARAM and ROOT_ARG are empty for the unrooted ones. */
#define BLOCK_COLL(NAME, KIND, ROOT_PARAM, ROOT_ARG, ROOT)                                   \
    int MPI_##NAME(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,   \
                   MPI_Datatype rdt, ROOT_PARAM MPI_Comm comm)                               \
    {                                                                                        \
        if (!trace_enabled)                                                                  \
            return PMPI_##NAME(sbuf, scount, sdt, rbuf, rcount, rdt, ROOT_ARG comm);         \
        coll(KIND, CALLER, comm, ROOT, BLOCK(sbuf, scount, sdt, rcount, rdt));               \
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
    uint64_t b = is_root(comm, root) ? trace_bytes(scount, sdt) : trace_bytes(rcount, rdt);
    coll(TRACE_K_SCATTER, CALLER, comm, root, b);
    return returned(PMPI_Scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm));
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                  MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    if (sbuf == MPI_IN_PLACE)
        direct(TRACE_K_ALLTOALLV, CALLER, comm, -1, rcounts, 0, rdt, -1);
    else
        direct(TRACE_K_ALLTOALLV, CALLER, comm, -1, scounts, 0, sdt, -1);
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
        direct(TRACE_K_ALLGATHERV, CALLER, comm, -1, NULL, rcounts[me], rdt, -1);
    else
        direct(TRACE_K_ALLGATHERV, CALLER, comm, -1, NULL, scount, sdt, -1);
    return returned(PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm));
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm);
    direct(TRACE_K_GATHERV, CALLER, comm, root, NULL, is_root(comm, root) ? 0 : scount, sdt, root);
    return returned(PMPI_Gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm));
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                 void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm);
    int me_root = is_root(comm, root);
    direct(TRACE_K_SCATTERV, CALLER, comm, root, me_root ? scounts : NULL, 0, sdt, -1);
    return returned(PMPI_Scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm));
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm);
    direct(TRACE_K_REDUCE_SCATTER, CALLER, comm, -1, rcounts, 0, dt, -1);
    return returned(PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm)
{
    if (!trace_enabled)
        return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm);
    direct(TRACE_K_REDUCE_SCATTER_BLOCK, CALLER, comm, -1, NULL, rcount, dt, -1);
    return returned(PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm));
}
