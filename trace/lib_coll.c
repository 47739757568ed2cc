/* lib_coll: PMPI wrappers of the collectives.  A collective with one block
 * size is recorded once per call (kind, communicator, root, bytes per
 * block); the analyzer expands it by the algorithm named in
 * trace/tracekinds.h.  The v variants and reduce-scatter are recorded as
 * this rank's sends to each peer (their counts differ per peer).
 * Collectives on inter-communicators pass through unrecorded. */
#include "trace/lib.h"

/* Records one call of a collective with one block size. */
static void coll(enum trace_kind kind, MPI_Comm comm, int root, uint64_t bytes)
{
    int id, n, me;
    if (!trace_enabled || trace_comm_info(comm, &id, &n, &me) != 0)
        return;
    int wroot = root >= 0 && root < n ? trace_world_rank(comm, root, &id) : -1;
    trace_record(kind, wroot, id, -1, bytes, 1);
}

/* Records this rank's sends of a v collective: bytes_of(j) to each peer j
 * (self excluded, zero-byte blocks are not messages). */
static void direct(enum trace_kind kind, MPI_Comm comm, const int counts[], int same_count,
                   MPI_Datatype dt, int only_to)
{
    int id, n, me;
    if (!trace_enabled || trace_comm_info(comm, &id, &n, &me) != 0)
        return;
    for (int j = 0; j < n; j++) {
        if (j == me || (only_to >= 0 && j != only_to))
            continue;
        uint64_t b = trace_bytes(counts ? counts[j] : same_count, dt);
        if (b > 0)
            trace_record(kind, trace_world_rank(comm, j, &id), id, -1, b, 1);
    }
}

static int is_root(MPI_Comm comm, int root)
{
    int me = -1;
    PMPI_Comm_rank(comm, &me);
    return me == root;
}

int MPI_Barrier(MPI_Comm comm)
{
    coll(TRACE_K_BARRIER, comm, -1, 0);
    return PMPI_Barrier(comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    coll(TRACE_K_BCAST, comm, root, trace_bytes(count, dt));
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    coll(TRACE_K_REDUCE, comm, root, trace_bytes(count, dt));
    return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    coll(TRACE_K_ALLREDUCE, comm, -1, trace_bytes(count, dt));
    return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
}

/* With MPI_IN_PLACE the block is described by the receive arguments. */
#define BLOCK(sbuf, scount, sdt, rcount, rdt)                                                \
    ((sbuf) == MPI_IN_PLACE ? trace_bytes(rcount, rdt) : trace_bytes(scount, sdt))

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, MPI_Comm comm)
{
    coll(TRACE_K_ALLTOALL, comm, -1, BLOCK(sbuf, scount, sdt, rcount, rdt));
    return PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    coll(TRACE_K_ALLGATHER, comm, -1, BLOCK(sbuf, scount, sdt, rcount, rdt));
    return PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
               MPI_Datatype rdt, int root, MPI_Comm comm)
{
    coll(TRACE_K_GATHER, comm, root, BLOCK(sbuf, scount, sdt, rcount, rdt));
    return PMPI_Gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    /* the root's send block, or (elsewhere) the receive block: equal sizes */
    uint64_t b = trace_enabled && is_root(comm, root) ? trace_bytes(scount, sdt)
                                                      : trace_bytes(rcount, rdt);
    coll(TRACE_K_SCATTER, comm, root, b);
    return PMPI_Scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                  MPI_Comm comm)
{
    if (sbuf == MPI_IN_PLACE)
        direct(TRACE_K_ALLTOALLV, comm, rcounts, 0, rdt, -1);
    else
        direct(TRACE_K_ALLTOALLV, comm, scounts, 0, sdt, -1);
    return PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    if (trace_enabled) {
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        if (sbuf == MPI_IN_PLACE)
            direct(TRACE_K_ALLGATHERV, comm, NULL, rcounts[me], rdt, -1);
        else
            direct(TRACE_K_ALLGATHERV, comm, NULL, scount, sdt, -1);
    }
    return PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (trace_enabled && !is_root(comm, root))
        direct(TRACE_K_GATHERV, comm, NULL, scount, sdt, root);
    return PMPI_Gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm);
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                 void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (trace_enabled && is_root(comm, root))
        direct(TRACE_K_SCATTERV, comm, scounts, 0, sdt, -1);
    return PMPI_Scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm);
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm)
{
    direct(TRACE_K_REDUCE_SCATTER, comm, rcounts, 0, dt, -1);
    return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm);
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm)
{
    direct(TRACE_K_REDUCE_SCATTER_BLOCK, comm, NULL, rcount, dt, -1);
    return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm);
}
