/* lib_p2p: PMPI wrappers of the point-to-point calls.  Sends are recorded
 * before the call (the message is committed by then); a blocking receive
 * after it, with the source and tag it actually matched; a nonblocking
 * receive at its post, with the source it names (-1 for MPI_ANY_SOURCE). */
#include "trace/lib.h"

/* One wrapper per plain send mode: same arguments, one kind. */
#define SEND_WRAPPER(NAME, KIND)                                                           \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,          \
                   MPI_Comm comm)                                                           \
    {                                                                                       \
        trace_p2p(TRACE_K_##KIND, comm, dest, tag, count, dt);                              \
        return PMPI_##NAME(buf, count, dt, dest, tag, comm);                                \
    }
SEND_WRAPPER(Send, SEND)
SEND_WRAPPER(Bsend, BSEND)
SEND_WRAPPER(Ssend, SSEND)
SEND_WRAPPER(Rsend, RSEND)

#define ISEND_WRAPPER(NAME, KIND)                                                          \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,          \
                   MPI_Comm comm, MPI_Request *req)                                         \
    {                                                                                       \
        trace_p2p(TRACE_K_##KIND, comm, dest, tag, count, dt);                              \
        return PMPI_##NAME(buf, count, dt, dest, tag, comm, req);                           \
    }
ISEND_WRAPPER(Isend, ISEND)
ISEND_WRAPPER(Ibsend, IBSEND)
ISEND_WRAPPER(Issend, ISSEND)
ISEND_WRAPPER(Irsend, IRSEND)

/* Persistent sends: remembered here, one message per MPI_Start. */
#define SEND_INIT_WRAPPER(NAME)                                                            \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,          \
                   MPI_Comm comm, MPI_Request *req)                                         \
    {                                                                                       \
        int rc = PMPI_##NAME(buf, count, dt, dest, tag, comm, req);                         \
        if (rc == MPI_SUCCESS)                                                              \
            trace_persistent_add(*req, TRACE_K_PSEND, comm, dest, tag, count, dt);          \
        return rc;                                                                          \
    }
SEND_INIT_WRAPPER(Send_init)
SEND_INIT_WRAPPER(Bsend_init)
SEND_INIT_WRAPPER(Ssend_init)
SEND_INIT_WRAPPER(Rsend_init)

int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    int rc = PMPI_Recv_init(buf, count, dt, source, tag, comm, req);
    if (rc == MPI_SUCCESS)
        trace_persistent_add(*req, TRACE_K_PRECV, comm, source, tag, count, dt);
    return rc;
}

int MPI_Start(MPI_Request *req)
{
    trace_persistent_start(*req);
    return PMPI_Start(req);
}

int MPI_Startall(int count, MPI_Request reqs[])
{
    for (int i = 0; i < count; i++)
        trace_persistent_start(reqs[i]);
    return PMPI_Startall(count, reqs);
}

int MPI_Request_free(MPI_Request *req)
{
    trace_persistent_free(*req);
    return PMPI_Request_free(req);
}

/* A completed receive: the source and tag it matched, the bytes it got. */
static inline void record_received(enum trace_kind kind, MPI_Comm comm, const MPI_Status *s)
{
    if (!trace_enabled || s->MPI_SOURCE == MPI_PROC_NULL)
        return;
#ifdef OPEN_MPI
    /* Open MPI keeps the bytes received in the status: no MPI_Get_count */
    uint64_t bytes = s->_ucount;
#else
    int n = 0;
    PMPI_Get_count(s, MPI_BYTE, &n);
    uint64_t bytes = n == MPI_UNDEFINED ? 0 : (uint64_t)n;
#endif
    int id, w = comm == MPI_COMM_WORLD ? (id = 0, s->MPI_SOURCE)
                                       : trace_world_rank(comm, s->MPI_SOURCE, &id);
    if (w != -2)
        trace_record(kind, w, id, s->MPI_TAG, bytes, 1);
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Recv(buf, count, dt, source, tag, comm, s);
    if (rc == MPI_SUCCESS)
        record_received(TRACE_K_RECV, comm, s);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    trace_p2p(TRACE_K_IRECV, comm, source, tag, count, dt);
    return PMPI_Irecv(buf, count, dt, source, tag, comm, req);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rdt, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    trace_p2p(TRACE_K_SENDRECV, comm, dest, stag, scount, sdt);
    int rc = PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm, s);
    if (rc == MPI_SUCCESS)
        record_received(TRACE_K_SENDRECV_RECV, comm, s);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    trace_p2p(TRACE_K_SENDRECV, comm, dest, stag, count, dt);
    int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, s);
    if (rc == MPI_SUCCESS)
        record_received(TRACE_K_SENDRECV_RECV, comm, s);
    return rc;
}
