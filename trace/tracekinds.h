/* tracekinds: the MPI calls scitrace records, one table shared by the PMPI
 * library (which writes their names into rank files) and the analyzer (which
 * reads them back and decides how each one enters the traffic matrix). */
#ifndef SCITORUS_TRACEKINDS_H
#define SCITORUS_TRACEKINDS_H

/* How a recorded call enters the traffic matrix and the checker:
 *   SEND         a point-to-point send: this rank -> peer
 *   RECV         a receive (matched against sends; not a matrix row)
 *   COLL         a collective with one block size (communicator, root,
 *                bytes); the analyzer expands it into the messages of the
 *                algorithm the MPI library runs for it (trace/expand.h)
 *   COLL_DIRECT  a collective whose per-peer counts differ (the v variants,
 *                reduce-scatter): recorded as this rank's sends to each peer
 *   ICOLL        a nonblocking collective: as COLL, and it makes a request
 *                (checked, not expanded: no matrix row nor schedule)
 *   WAIT         completes requests (Wait and Test families)
 *   PROBE        Probe, Iprobe
 *   REQ          persistent requests: made, started, freed
 *   COMM         makes or frees a communicator (collective over the parent)
 *   LIFE         Finalize, Abort */
enum trace_class {
    TRACE_SEND, TRACE_RECV, TRACE_COLL, TRACE_COLL_DIRECT, TRACE_WAIT, TRACE_PROBE, TRACE_REQ,
    TRACE_COMM, TRACE_LIFE, TRACE_ICOLL
};

/* X(enum suffix, name in files, class).
 * PSEND/PRECV/SENDRECV_RECV are not calls: the reader makes them (a started
 * persistent request, a Sendrecv's receive) for the matrix and matching. */
#define TRACE_KINDS(X)                                                      \
    X(SEND, "send", TRACE_SEND)                                             \
    X(BSEND, "bsend", TRACE_SEND)                                           \
    X(SSEND, "ssend", TRACE_SEND)                                           \
    X(RSEND, "rsend", TRACE_SEND)                                           \
    X(ISEND, "isend", TRACE_SEND)                                           \
    X(IBSEND, "ibsend", TRACE_SEND)                                         \
    X(ISSEND, "issend", TRACE_SEND)                                         \
    X(IRSEND, "irsend", TRACE_SEND)                                         \
    X(SENDRECV, "sendrecv", TRACE_SEND)                                     \
    X(PSEND, "persistent_send", TRACE_SEND)                                 \
    X(RECV, "recv", TRACE_RECV)                                             \
    X(IRECV, "irecv", TRACE_RECV)                                           \
    X(SENDRECV_RECV, "sendrecv_recv", TRACE_RECV)                           \
    X(PRECV, "persistent_recv", TRACE_RECV)                                 \
    X(BCAST, "bcast", TRACE_COLL)                                           \
    X(REDUCE, "reduce", TRACE_COLL)                                         \
    X(ALLREDUCE, "allreduce", TRACE_COLL)                                   \
    X(ALLTOALL, "alltoall", TRACE_COLL)                                     \
    X(ALLGATHER, "allgather", TRACE_COLL)                                   \
    X(GATHER, "gather", TRACE_COLL)                                         \
    X(SCATTER, "scatter", TRACE_COLL)                                       \
    X(BARRIER, "barrier", TRACE_COLL)                                       \
    X(IBARRIER, "ibarrier", TRACE_ICOLL)                                    \
    X(IBCAST, "ibcast", TRACE_ICOLL)                                        \
    X(IREDUCE, "ireduce", TRACE_ICOLL)                                      \
    X(IALLREDUCE, "iallreduce", TRACE_ICOLL)                                \
    X(IALLTOALL, "ialltoall", TRACE_ICOLL)                                  \
    X(IALLGATHER, "iallgather", TRACE_ICOLL)                                \
    X(ALLTOALLV, "alltoallv", TRACE_COLL_DIRECT)                            \
    X(ALLGATHERV, "allgatherv", TRACE_COLL_DIRECT)                          \
    X(GATHERV, "gatherv", TRACE_COLL_DIRECT)                                \
    X(SCATTERV, "scatterv", TRACE_COLL_DIRECT)                              \
    X(REDUCE_SCATTER, "reduce_scatter", TRACE_COLL_DIRECT)                  \
    X(REDUCE_SCATTER_BLOCK, "reduce_scatter_block", TRACE_COLL_DIRECT)      \
    X(WAIT, "wait", TRACE_WAIT)                                             \
    X(WAITALL, "waitall", TRACE_WAIT)                                       \
    X(WAITANY, "waitany", TRACE_WAIT)                                       \
    X(WAITSOME, "waitsome", TRACE_WAIT)                                     \
    X(TEST, "test", TRACE_WAIT)                                             \
    X(TESTALL, "testall", TRACE_WAIT)                                       \
    X(TESTANY, "testany", TRACE_WAIT)                                       \
    X(TESTSOME, "testsome", TRACE_WAIT)                                     \
    X(PROBE, "probe", TRACE_PROBE)                                          \
    X(IPROBE, "iprobe", TRACE_PROBE)                                        \
    X(SEND_INIT, "send_init", TRACE_REQ)                                    \
    X(BSEND_INIT, "bsend_init", TRACE_REQ)                                  \
    X(SSEND_INIT, "ssend_init", TRACE_REQ)                                  \
    X(RSEND_INIT, "rsend_init", TRACE_REQ)                                  \
    X(RECV_INIT, "recv_init", TRACE_REQ)                                    \
    X(START, "start", TRACE_REQ)                                            \
    X(REQUEST_FREE, "request_free", TRACE_REQ)                              \
    X(COMM_DUP, "comm_dup", TRACE_COMM)                                     \
    X(COMM_SPLIT, "comm_split", TRACE_COMM)                                 \
    X(COMM_CREATE, "comm_create", TRACE_COMM)                               \
    X(CART_CREATE, "cart_create", TRACE_COMM)                               \
    X(CART_SUB, "cart_sub", TRACE_COMM)                                     \
    X(INTERCOMM_CREATE, "intercomm_create", TRACE_COMM)                     \
    X(INTERCOMM_MERGE, "intercomm_merge", TRACE_COMM)                       \
    X(COMM_FREE, "comm_free", TRACE_COMM)                                   \
    X(FINALIZE, "finalize", TRACE_LIFE)                                     \
    X(ABORT, "abort", TRACE_LIFE)

#define TRACE_KIND_ENUM(e, name, cls) TRACE_K_##e,
enum trace_kind { TRACE_KINDS(TRACE_KIND_ENUM) TRACE_NKINDS };
#undef TRACE_KIND_ENUM

#include <stdint.h>
#include <string.h>

/* Name of a kind as written in rank files ("isend"). */
static inline const char *trace_kind_name(int kind)
{
#define TRACE_KIND_NAME(e, name, cls) name,
    static const char *const names[] = {TRACE_KINDS(TRACE_KIND_NAME)};
#undef TRACE_KIND_NAME
    return kind >= 0 && kind < TRACE_NKINDS ? names[kind] : "?";
}

/* Class of a kind. */
static inline enum trace_class trace_kind_class(int kind)
{
#define TRACE_KIND_CLASS(e, name, cls) cls,
    static const enum trace_class classes[] = {TRACE_KINDS(TRACE_KIND_CLASS)};
#undef TRACE_KIND_CLASS
    return classes[kind];
}

/* 0 for the kinds the expansion derives from calls (a persistent request's
 * send or receive, a Sendrecv's receive): never a call of a rank file. */
static inline int trace_kind_is_call(int kind)
{
    return kind != TRACE_K_PSEND && kind != TRACE_K_PRECV && kind != TRACE_K_SENDRECV_RECV;
}

/* Kind named `name`, or -1. */
static inline int trace_kind_from_name(const char *name)
{
    for (int k = 0; k < TRACE_NKINDS; k++)
        if (strcmp(trace_kind_name(k), name) == 0)
            return k;
    return -1;
}

/* Whether a call's entry lists request ids (the words after its count N):
 * the Wait and Test families, Start(all), Request_free. */
static inline int trace_kind_id_list(int kind)
{
    return kind >= 0 && kind < TRACE_NKINDS &&
           (trace_kind_class(kind) == TRACE_WAIT || kind == TRACE_K_START ||
            kind == TRACE_K_REQUEST_FREE);
}

/* Whether a call's result is the id of the request it made. */
static inline int trace_kind_makes_request(int kind)
{
    if (kind < 0 || kind >= TRACE_NKINDS)
        return 0;
    int cls = trace_kind_class(kind);
    return (cls == TRACE_REQ && kind != TRACE_K_START && kind != TRACE_K_REQUEST_FREE) ||
           cls == TRACE_ICOLL ||
           kind == TRACE_K_ISEND || kind == TRACE_K_IBSEND || kind == TRACE_K_ISSEND ||
           kind == TRACE_K_IRSEND || kind == TRACE_K_IRECV;
}

/* A request id in a binary rank file: relative to the number of requests
 * made so far (the same in every round of a loop); -1 for id 0 (none). */
static inline int64_t trace_id_encode(uint64_t id, uint64_t made)
{
    return id ? (int64_t)(made - id) : -1;
}

static inline int64_t trace_id_decode(int64_t enc, uint64_t made)
{
    return enc == -1 ? 0 : (int64_t)(made - (uint64_t)enc);
}

/* Rank files: "<dir>/rank-NNNNN.trace" (format: trace/tracefile.h). */
#define TRACE_FILE_MAGIC "# scitrace-rank 2"
#define TRACE_FILE_PATTERN "%s/rank-%05d.trace"

/* Peers in rank files: world ranks, or these. */
#define TRACE_ANY (-1)        /* MPI_ANY_SOURCE (as a tag: MPI_ANY_TAG) */
#define TRACE_PROC_NULL (-2)  /* MPI_PROC_NULL: the call moves nothing */
#define TRACE_NO_RANK (-3)    /* a rank the library could not translate */
#define TRACE_CANCELLED (-4)  /* a completion's source: the request was cancelled */

/* Datatype signature codes (docs/formats.md, 'Datatype signature codes'):
 * a type whose elements are all of one basic type has that type's code,
 * integers and floats by class and size (so MPI_INT and MPI_INT32_T are
 * alike); any other has TRACE_DT_MIXED and a hash of the shortest sequence
 * of basic types its signature repeats.  BYTE and PACKED match any type. */
#define TRACE_DT_UNKNOWN 0u       /* not recorded, or not understood: not checked */
#define TRACE_DT_BYTE 1u
#define TRACE_DT_PACKED 2u
#define TRACE_DT_CHAR 3u
#define TRACE_DT_WCHAR 4u
#define TRACE_DT_BOOL 5u
#define TRACE_DT_SIGNED 0x100u    /* | size in bytes */
#define TRACE_DT_UNSIGNED 0x200u
#define TRACE_DT_FLOAT 0x300u
#define TRACE_DT_COMPLEX 0x400u
#define TRACE_DT_PAIR 0x500u      /* | 1..6: MPI_FLOAT_INT .. MPI_LONG_DOUBLE_INT */
#define TRACE_DT_MIXED 0x80000000u

/* Reduction operations: 1..14 the predefined ones (MPI_MAX, MIN, SUM, PROD,
 * LAND, BAND, LOR, BOR, LXOR, BXOR, MAXLOC, MINLOC, REPLACE, NO_OP), this
 * for any user-defined one, 0 none. */
#define TRACE_OP_USER 64

/* Tag of a folded aggregate (no longer written; the matcher still
 * understands it as "any tag"). */
#define TRACE_TAG_FOLDED (-9)

#endif
