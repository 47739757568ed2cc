/* lib_p2p: PMPI wrappers of the point-to-point calls and probes.  Each
 * records on entry the communicator, the peer as a world rank, the tag, the
 * bytes, the count, the datatype's signature code and its contiguity, and
 * on return the request made, or the source, tag and bytes a receive got. */
#include "libscitrace/lib.h"

#define SEND_WRAPPER(NAME, KIND)                                                           \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,          \
                   MPI_Comm comm)                                                           \
    {                                                                                       \
        if (!trace_enabled)                                                                 \
            return PMPI_##NAME(buf, count, dt, dest, tag, comm);                            \
        p2p_enter(TRACE_K_##KIND, CALLER, comm, dest, tag, count, dt);                      \
        int rc = PMPI_##NAME(buf, count, dt, dest, tag, comm);                              \
        trace_returned();                                                                   \
        return rc;                                                                          \
    }
SEND_WRAPPER(Send, SEND)
SEND_WRAPPER(Bsend, BSEND)
SEND_WRAPPER(Ssend, SSEND)
SEND_WRAPPER(Rsend, RSEND)

/* A call that makes a request: its id on return. */
#define REQ_WRAPPER(NAME, KIND, CONST)                                                     \
    int MPI_##NAME(CONST void *buf, int count, MPI_Datatype dt, int peer, int tag,          \
                   MPI_Comm comm, MPI_Request *req)                                         \
    {                                                                                       \
        if (!trace_enabled)                                                                 \
            return PMPI_##NAME(buf, count, dt, peer, tag, comm, req);                       \
        int id = p2p_enter(TRACE_K_##KIND, CALLER, comm, peer, tag, count, dt);             \
        int rc = PMPI_##NAME(buf, count, dt, peer, tag, comm, req);                         \
        trace_words r = trace_exit(1);                                                      \
        tw_req(&r, rc == MPI_SUCCESS ? trace_req_new(*req, id, req) : 0);                   \
        trace_exit_done(&r);                                                                \
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
static void tw_reqs(trace_words *a, int n, const MPI_Request reqs[])
{
    int c, slot;
    tw(a, n);
    for (int i = 0; a->w && i < n; i++)
        tw_req(a, trace_req_id(reqs[i], &reqs[i], 0, &c, &slot));
}

int MPI_Start(MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Start(req);
    trace_words a = trace_enter(TRACE_K_START, CALLER, 2);
    tw_reqs(&a, 1, req);
    trace_enter_done(&a);
    int rc = PMPI_Start(req);
    trace_returned();
    return rc;
}

int MPI_Startall(int count, MPI_Request reqs[])
{
    if (!trace_enabled || count < 0)
        return PMPI_Startall(count, reqs);
    trace_words a = trace_enter(TRACE_K_START, CALLER, 1 + (size_t)count);
    tw_reqs(&a, count, reqs);
    trace_enter_done(&a);
    int rc = PMPI_Startall(count, reqs);
    trace_returned();
    return rc;
}

int MPI_Request_free(MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Request_free(req);
    trace_words a = trace_enter(TRACE_K_REQUEST_FREE, CALLER, 2);
    int c, slot;
    MPI_Request h = *req;
    int64_t id = trace_req_id(h, req, 0, &c, &slot);
    tw(&a, 1);
    tw_req(&a, id);
    trace_enter_done(&a);
    trace_req_done(h, id, slot);
    int rc = PMPI_Request_free(req);
    trace_returned();
    return rc;
}

/* The return of a receive: its status when it succeeded. */
static void returned_status(int rc, int comm_id, const MPI_Status *s)
{
    trace_words r = trace_exit(3);
    if (rc == MPI_SUCCESS)
        tw_status(&r, comm_id, s);
    trace_exit_done(&r);
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Recv(buf, count, dt, source, tag, comm, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = p2p_enter(TRACE_K_RECV, CALLER, comm, source, tag, count, dt);
    int rc = PMPI_Recv(buf, count, dt, source, tag, comm, s);
    returned_status(rc, id, s);
    return rc;
}

/* "comm dest stag sbytes src rtag rbytes scount scode scontig rcount
 * rcode" */
static void tw_sendrecv(trace_words *a, int id, int dest, int stag, int scount, MPI_Datatype sdt,
                        int source, int rtag, int rcount, MPI_Datatype rdt)
{
    tw_p2p(a, id, dest, stag, scount, sdt);
    tw_peer(a, id, source, rtag, rcount, rdt);
    tw_dtype(a, scount, sdt, 1);
    tw_dtype(a, rcount, rdt, 0);
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
    trace_words a = trace_enter(TRACE_K_SENDRECV, CALLER, 14);
    tw_sendrecv(&a, id, dest, stag, scount, sdt, source, rtag, rcount, rdt);
    trace_enter_done(&a);
    int rc = PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm, s);
    returned_status(rc, id, s);
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
    trace_words a = trace_enter(TRACE_K_SENDRECV, CALLER, 14);
    tw_sendrecv(&a, id, dest, stag, count, dt, source, rtag, count, dt);
    trace_enter_done(&a);
    int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, s);
    returned_status(rc, id, s);
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Probe(source, tag, comm, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = trace_comm_id(comm);
    trace_words a = trace_enter(TRACE_K_PROBE, CALLER, 4);
    tw_p2p(&a, id, source, tag, 0, MPI_BYTE);
    trace_enter_done(&a);
    int rc = PMPI_Probe(source, tag, comm, s);
    returned_status(rc, id, s);
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    if (!trace_enabled)
        return PMPI_Iprobe(source, tag, comm, flag, status);
    MPI_Status own;
    MPI_Status *s = status == MPI_STATUS_IGNORE ? &own : status;
    int id = trace_comm_id(comm);
    trace_words a = trace_enter(TRACE_K_IPROBE, CALLER, 4);
    tw_p2p(&a, id, source, tag, 0, MPI_BYTE);
    trace_enter_done(&a);
    int rc = PMPI_Iprobe(source, tag, comm, flag, s);
    trace_words r = trace_exit(4);
    if (rc == MPI_SUCCESS) {
        tw(&r, *flag != 0);
        if (*flag)
            tw_status(&r, id, s);
    }
    trace_exit_done(&r);
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
    trace_words a = trace_enter(TRACE_K_PROBE, CALLER, 4);
    tw_p2p(&a, id, source, tag, 0, MPI_BYTE);
    trace_enter_done(&a);
    int rc = PMPI_Mprobe(source, tag, comm, msg, s);
    if (rc == MPI_SUCCESS)
        message_taken(*msg, id, s);
    returned_status(rc, id, s);
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
    trace_words a = trace_enter(TRACE_K_IPROBE, CALLER, 4);
    tw_p2p(&a, id, source, tag, 0, MPI_BYTE);
    trace_enter_done(&a);
    int rc = PMPI_Improbe(source, tag, comm, flag, msg, s);
    if (rc == MPI_SUCCESS && *flag)
        message_taken(*msg, id, s);
    trace_words r = trace_exit(4);
    if (rc == MPI_SUCCESS) {
        tw(&r, *flag != 0);
        if (*flag)
            tw_status(&r, id, s);
    }
    trace_exit_done(&r);
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
    trace_words a = trace_enter(TRACE_K_RECV, CALLER, 8);
    tw_p2p_typed(&a, id, src, tag, count, dt);
    trace_enter_done(&a);
    int rc = PMPI_Mrecv(buf, count, dt, msg, s);
    returned_status(rc, id, s);
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
    if (!trace_enabled)
        return PMPI_Imrecv(buf, count, dt, msg, req);
    int id, src, tag;
    message_of(*msg, &id, &src, &tag);
    trace_words a = trace_enter(TRACE_K_IRECV, CALLER, 8);
    tw_p2p_typed(&a, id, src, tag, count, dt);
    trace_enter_done(&a);
    int rc = PMPI_Imrecv(buf, count, dt, msg, req);
    trace_words r = trace_exit(1);
    tw_req(&r, rc == MPI_SUCCESS ? trace_req_new(*req, id, req) : 0);
    trace_exit_done(&r);
    return rc;
}
