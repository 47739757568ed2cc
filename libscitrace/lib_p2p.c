/* lib_p2p: PMPI wrappers of the point-to-point calls and probes.  Each
 * writes its line on entry (communicator, peer as a world rank, tag, bytes,
 * count, datatype signature code, contiguity) and one on return (the request made; the source, tag and bytes a receive
 * got). */
#include "libscitrace/lib.h"

#define SEND_WRAPPER(NAME, KIND)                                                           \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,          \
                   MPI_Comm comm)                                                           \
    {                                                                                       \
        if (!trace_enabled)                                                                 \
            return PMPI_##NAME(buf, count, dt, dest, tag, comm);                            \
        int id = trace_comm_id(comm);   /* first: it may write a line */                    \
        char *p = trace_enter(TRACE_K_##KIND, CALLER, 120);                                 \
        trace_end(p ? tl_dtype(tl_p2p(p, id, dest, tag, count, dt), count, dt, 1) : NULL);     \
        int rc = PMPI_##NAME(buf, count, dt, dest, tag, comm);                              \
        trace_returned();                                                                   \
        return rc;                                                                          \
    }
SEND_WRAPPER(Send, SEND)
SEND_WRAPPER(Bsend, BSEND)
SEND_WRAPPER(Ssend, SSEND)
SEND_WRAPPER(Rsend, RSEND)

/* A call that makes a request: "< T REQ" on return. */
#define REQ_WRAPPER(NAME, KIND, CONST)                                                     \
    int MPI_##NAME(CONST void *buf, int count, MPI_Datatype dt, int peer, int tag,          \
                   MPI_Comm comm, MPI_Request *req)                                         \
    {                                                                                       \
        if (!trace_enabled)                                                                 \
            return PMPI_##NAME(buf, count, dt, peer, tag, comm, req);                       \
        int id = trace_comm_id(comm);                                                       \
        char *p = trace_enter(TRACE_K_##KIND, CALLER, 120);                                 \
        trace_end(p ? tl_dtype(tl_p2p(p, id, peer, tag, count, dt), count, dt, 1) : NULL);     \
        int rc = PMPI_##NAME(buf, count, dt, peer, tag, comm, req);                         \
        p = trace_exit(24);                                                                 \
        trace_end(p ? tl_u(p, rc == MPI_SUCCESS ? (uint64_t)trace_req_new(*req, id, req) : 0) \
                    : NULL);                                                                \
        return rc;                                                                          \
    }
REQ_WRAPPER(Isend, ISEND, const)
REQ_WRAPPER(Ibsend, IBSEND, const)
REQ_WRAPPER(Issend, ISSEND, const)
REQ_WRAPPER(Irsend, IRSEND, const)
REQ_WRAPPER(Irecv, IRECV, )
REQ_WRAPPER(Send_init, SEND_INIT, const)
REQ_WRAPPER(Bsend_init, BSEND_INIT, const)
REQ_WRAPPER(Ssend_init, SSEND_INIT, const)
REQ_WRAPPER(Rsend_init, RSEND_INIT, const)
REQ_WRAPPER(Recv_init, RECV_INIT, )

/* "N ID1 .. IDN" of a request array (0: a request not made by a wrapped
 * call, or MPI_REQUEST_NULL). */
static char *tl_reqs(char *p, int n, const MPI_Request reqs[])
{
    int c;
    p = tl_u(p, (uint64_t)n);
    for (int i = 0; i < n; i++)
        p = tl_u(p, (uint64_t)trace_req_id(reqs[i], &reqs[i], 0, &c));
    return p;
}

int MPI_Start(MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Start(req);
    char *p = trace_enter(TRACE_K_START, CALLER, 40);
    trace_end(p ? tl_reqs(p, 1, req) : NULL);
    int rc = PMPI_Start(req);
    trace_returned();
    return rc;
}

int MPI_Startall(int count, MPI_Request reqs[])
{
    if (!trace_enabled || count < 0)
        return PMPI_Startall(count, reqs);
    char *p = trace_enter(TRACE_K_START, CALLER, 24 + 21 * (size_t)count);
    trace_end(p ? tl_reqs(p, count, reqs) : NULL);
    int rc = PMPI_Startall(count, reqs);
    trace_returned();
    return rc;
}

int MPI_Request_free(MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Request_free(req);
    char *p = trace_enter(TRACE_K_REQUEST_FREE, CALLER, 40);
    int c;
    MPI_Request h = *req;
    int64_t id = trace_req_id(h, req, 0, &c);
    trace_end(p ? tl_u(tl_u(p, 1), (uint64_t)id) : NULL);
    trace_req_done(h, id);
    int rc = PMPI_Request_free(req);
    trace_returned();
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Recv(buf, count, dt, source, tag, comm, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = trace_comm_id(comm);
    char *p = trace_enter(TRACE_K_RECV, CALLER, 120);
    trace_end(p ? tl_dtype(tl_p2p(p, id, source, tag, count, dt), count, dt, 1) : NULL);
    int rc = PMPI_Recv(buf, count, dt, source, tag, comm, s);
    p = trace_exit(64);
    trace_end(p && rc == MPI_SUCCESS ? tl_status(p, id, s) : p);
    return rc;
}

/* " comm dest stag sbytes src rtag rbytes scount scode scontig rcount
 * rcode" */
static char *tl_sendrecv(char *p, int id, int dest, int stag, int scount, MPI_Datatype sdt,
                         int source, int rtag, int rcount, MPI_Datatype rdt)
{
    p = tl_p2p(p, id, dest, stag, scount, sdt);
    p = tl_peer(p, id, source, rtag, rcount, rdt);
    p = tl_dtype(p, scount, sdt, 1);
    return tl_dtype(p, rcount, rdt, 0);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rdt, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag,
                             comm, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = trace_comm_id(comm);
    char *p = trace_enter(TRACE_K_SENDRECV, CALLER, 240);
    trace_end(p ? tl_sendrecv(p, id, dest, stag, scount, sdt, source, rtag, rcount, rdt) : NULL);
    int rc = PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm, s);
    p = trace_exit(64);
    trace_end(p && rc == MPI_SUCCESS ? tl_status(p, id, s) : p);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = trace_comm_id(comm);
    char *p = trace_enter(TRACE_K_SENDRECV, CALLER, 240);
    trace_end(p ? tl_sendrecv(p, id, dest, stag, count, dt, source, rtag, count, dt) : NULL);
    int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, s);
    p = trace_exit(64);
    trace_end(p && rc == MPI_SUCCESS ? tl_status(p, id, s) : p);
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Probe(source, tag, comm, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = trace_comm_id(comm);
    char *p = trace_enter(TRACE_K_PROBE, CALLER, 80);
    trace_end(p ? tl_p2p(p, id, source, tag, 0, MPI_BYTE) : NULL);
    int rc = PMPI_Probe(source, tag, comm, s);
    p = trace_exit(64);
    trace_end(p && rc == MPI_SUCCESS ? tl_status(p, id, s) : p);
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Iprobe(source, tag, comm, flag, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = trace_comm_id(comm);
    char *p = trace_enter(TRACE_K_IPROBE, CALLER, 80);
    trace_end(p ? tl_p2p(p, id, source, tag, 0, MPI_BYTE) : NULL);
    int rc = PMPI_Iprobe(source, tag, comm, flag, s);
    p = trace_exit(64);
    if (p && rc == MPI_SUCCESS) {
        p = tl_u(p, *flag != 0);
        if (*flag)
            p = tl_status(p, id, s);
    }
    trace_end(p);
    return rc;
}

/* Matched probes: MPI_Mprobe and MPI_Improbe are recorded as Probe and
 * Iprobe, and the message they take is remembered, so that MPI_Mrecv and
 * MPI_Imrecv are recorded as a Recv and an Irecv of exactly that message
 * (its source and tag; a message is taken in order, as a receive is). */
#define MESSAGES 1024

static struct {
    MPI_Message msg;
    int comm, src, tag;
} taken[MESSAGES];

static void message_taken(MPI_Message m, int comm, const MPI_Status *s)
{
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
        return;
    for (int i = 0; i < MESSAGES; i++)
        if (!taken[i].msg) {   /* a free slot */
            taken[i].msg = m, taken[i].comm = comm, taken[i].src = s->MPI_SOURCE;
            taken[i].tag = s->MPI_TAG;
            return;
        }
}

/* The communicator, source (comm-relative) and tag of message m, which is
 * forgotten; source MPI_ANY_SOURCE when it was not remembered. */
static void message_of(MPI_Message m, int *comm, int *src, int *tag)
{
    *comm = 0, *src = MPI_ANY_SOURCE, *tag = MPI_ANY_TAG;
    if (m == MPI_MESSAGE_NO_PROC) {
        *src = MPI_PROC_NULL;
        return;
    }
    for (int i = 0; i < MESSAGES; i++)
        if (taken[i].msg == m && m != MPI_MESSAGE_NULL) {
            *comm = taken[i].comm, *src = taken[i].src, *tag = taken[i].tag;
            taken[i].msg = 0;
            return;
        }
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Mprobe(source, tag, comm, msg, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = trace_comm_id(comm);
    char *p = trace_enter(TRACE_K_PROBE, CALLER, 80);
    trace_end(p ? tl_p2p(p, id, source, tag, 0, MPI_BYTE) : NULL);
    int rc = PMPI_Mprobe(source, tag, comm, msg, s);
    if (rc == MPI_SUCCESS)
        message_taken(*msg, id, s);
    p = trace_exit(64);
    trace_end(p && rc == MPI_SUCCESS ? tl_status(p, id, s) : p);
    return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Improbe(source, tag, comm, flag, msg, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = trace_comm_id(comm);
    char *p = trace_enter(TRACE_K_IPROBE, CALLER, 80);
    trace_end(p ? tl_p2p(p, id, source, tag, 0, MPI_BYTE) : NULL);
    int rc = PMPI_Improbe(source, tag, comm, flag, msg, s);
    if (rc == MPI_SUCCESS && *flag)
        message_taken(*msg, id, s);
    p = trace_exit(64);
    if (p && rc == MPI_SUCCESS) {
        p = tl_u(p, *flag != 0);
        if (*flag)
            p = tl_status(p, id, s);
    }
    trace_end(p);
    return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Mrecv(buf, count, dt, msg, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id, src, tag;
    message_of(*msg, &id, &src, &tag);
    char *p = trace_enter(TRACE_K_RECV, CALLER, 120);
    trace_end(p ? tl_dtype(tl_p2p(p, id, src, tag, count, dt), count, dt, 1) : NULL);
    int rc = PMPI_Mrecv(buf, count, dt, msg, s);
    p = trace_exit(64);
    trace_end(p && rc == MPI_SUCCESS ? tl_status(p, id, s) : p);
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Imrecv(buf, count, dt, msg, req);
    int id, src, tag;
    message_of(*msg, &id, &src, &tag);
    char *p = trace_enter(TRACE_K_IRECV, CALLER, 120);
    trace_end(p ? tl_dtype(tl_p2p(p, id, src, tag, count, dt), count, dt, 1) : NULL);
    int rc = PMPI_Imrecv(buf, count, dt, msg, req);
    p = trace_exit(24);
    trace_end(p ? tl_u(p, rc == MPI_SUCCESS ? (uint64_t)trace_req_new(*req, id, req) : 0) : NULL);
    return rc;
}
