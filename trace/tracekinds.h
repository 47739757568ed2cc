/* tracekinds: the MPI calls scitrace records, one table shared by the PMPI
 * library (which writes their names into rank files) and the analyzer (which
 * reads them back and decides how each one enters the traffic matrix). */
#ifndef SCITORUS_TRACEKINDS_H
#define SCITORUS_TRACEKINDS_H

/* How a recorded call enters the traffic matrix:
 *   SEND         a point-to-point send: this rank -> peer, as recorded
 *   RECV         a receive: only used to match sends (summary)
 *   COLL         a collective recorded once per call (communicator, root,
 *                bytes); the analyzer expands it into the sends this rank
 *                makes under the named algorithm of trace_kind_algorithm
 *   COLL_DIRECT  a collective whose per-peer counts differ (the v variants,
 *                reduce-scatter): recorded at the call as this rank's sends
 *                to each peer (a linear/pairwise algorithm, by construction) */
enum trace_class { TRACE_SEND, TRACE_RECV, TRACE_COLL, TRACE_COLL_DIRECT };

/* X(enum suffix, name in files, class, algorithm of a COLL/COLL_DIRECT) */
#define TRACE_KINDS(X)                                                      \
    X(SEND, "send", TRACE_SEND, "")                                         \
    X(BSEND, "bsend", TRACE_SEND, "")                                       \
    X(SSEND, "ssend", TRACE_SEND, "")                                       \
    X(RSEND, "rsend", TRACE_SEND, "")                                       \
    X(ISEND, "isend", TRACE_SEND, "")                                       \
    X(IBSEND, "ibsend", TRACE_SEND, "")                                     \
    X(ISSEND, "issend", TRACE_SEND, "")                                     \
    X(IRSEND, "irsend", TRACE_SEND, "")                                     \
    X(SENDRECV, "sendrecv", TRACE_SEND, "")                                 \
    X(PSEND, "persistent_send", TRACE_SEND, "")                             \
    X(RECV, "recv", TRACE_RECV, "")                                         \
    X(IRECV, "irecv", TRACE_RECV, "")                                       \
    X(SENDRECV_RECV, "sendrecv_recv", TRACE_RECV, "")                       \
    X(PRECV, "persistent_recv", TRACE_RECV, "")                             \
    X(BCAST, "bcast", TRACE_COLL, "binomial")                               \
    X(REDUCE, "reduce", TRACE_COLL, "binomial")                             \
    X(ALLREDUCE, "allreduce", TRACE_COLL, "recursive-doubling")             \
    X(ALLTOALL, "alltoall", TRACE_COLL, "pairwise")                         \
    X(ALLGATHER, "allgather", TRACE_COLL, "ring")                           \
    X(GATHER, "gather", TRACE_COLL, "linear")                               \
    X(SCATTER, "scatter", TRACE_COLL, "linear")                             \
    X(BARRIER, "barrier", TRACE_COLL, "dissemination")                      \
    X(ALLTOALLV, "alltoallv", TRACE_COLL_DIRECT, "pairwise")                \
    X(ALLGATHERV, "allgatherv", TRACE_COLL_DIRECT, "linear")                \
    X(GATHERV, "gatherv", TRACE_COLL_DIRECT, "linear")                      \
    X(SCATTERV, "scatterv", TRACE_COLL_DIRECT, "linear")                    \
    X(REDUCE_SCATTER, "reduce_scatter", TRACE_COLL_DIRECT, "pairwise")      \
    X(REDUCE_SCATTER_BLOCK, "reduce_scatter_block", TRACE_COLL_DIRECT, "pairwise")

#define TRACE_KIND_ENUM(e, name, cls, alg) TRACE_K_##e,
enum trace_kind { TRACE_KINDS(TRACE_KIND_ENUM) TRACE_NKINDS };
#undef TRACE_KIND_ENUM

#include <string.h>

/* Name of a kind as written in rank files ("isend"). */
static inline const char *trace_kind_name(int kind)
{
#define TRACE_KIND_NAME(e, name, cls, alg) name,
    static const char *const names[] = {TRACE_KINDS(TRACE_KIND_NAME)};
#undef TRACE_KIND_NAME
    return kind >= 0 && kind < TRACE_NKINDS ? names[kind] : "?";
}

/* Class and algorithm of a kind. */
static inline enum trace_class trace_kind_class(int kind)
{
#define TRACE_KIND_CLASS(e, name, cls, alg) cls,
    static const enum trace_class classes[] = {TRACE_KINDS(TRACE_KIND_CLASS)};
#undef TRACE_KIND_CLASS
    return classes[kind];
}

static inline const char *trace_kind_algorithm(int kind)
{
#define TRACE_KIND_ALG(e, name, cls, alg) alg,
    static const char *const algs[] = {TRACE_KINDS(TRACE_KIND_ALG)};
#undef TRACE_KIND_ALG
    return algs[kind];
}

/* Kind named `name`, or -1. */
static inline int trace_kind_from_name(const char *name)
{
    for (int k = 0; k < TRACE_NKINDS; k++)
        if (strcmp(trace_kind_name(k), name) == 0)
            return k;
    return -1;
}

/* Rank files: "<dir>/rank-NNNNN.trace" (format: trace/tracefile.h). */
#define TRACE_FILE_MAGIC "# scitrace-rank 1"
#define TRACE_FILE_PATTERN "%s/rank-%05d.trace"
#define TRACE_EVENTS_PATTERN "%s/rank-%05d.events"

/* Tag value the library writes for an aggregate whose tag was folded away
 * because the bounded table was full (see trace/record.c). */
#define TRACE_TAG_FOLDED (-9)

#endif
