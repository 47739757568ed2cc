/* lib: the internals of libscitrace.so, the PMPI interposition library
 * (LD_PRELOAD).  The wrappers (lib_p2p.c, lib_coll.c, lib_init.c) call
 * into the recorder (lib_record.c), which keeps per-peer, per-size
 * aggregates in a table of fixed capacity and writes one rank file at
 * MPI_Finalize.
 *
 * A PMPI library cannot avoid process-wide state: the application calls
 * MPI_Send with no handle of ours.  All of it lives in one struct in
 * lib_record.c.  Threads: calls are recorded without locks, so the
 * application must make its MPI calls from one thread at a time
 * (MPI_THREAD_SINGLE, FUNNELED or SERIALIZED). */
#ifndef SCITORUS_TRACE_LIB_H
#define SCITORUS_TRACE_LIB_H

#include <mpi.h>
#include <stdint.h>

#include "trace/tracekinds.h"

/* Set by trace_start once the rank file could be created; the wrappers
 * record nothing while it is 0 (before MPI_Init, after MPI_Finalize, or when
 * the trace directory is unusable). */
extern int trace_enabled;

/* Called after PMPI_Init{,_thread} succeeded: reads SCITRACE_DIR and
 * SCITRACE_EVENTS, creates the directory and this rank's temporary file. */
void trace_start(void);

/* Writes the rank file and renames it into place.  status: "finalized",
 * "aborted" (MPI_Abort) or "no-finalize" (exit without MPI_Finalize). */
void trace_finish(const char *status);

/* Registers a communicator just created (collectively, so that every member
 * numbers it the same: see lib_record.c).  A no-op for MPI_COMM_NULL. */
void trace_comm_created(MPI_Comm comm);

/* World rank of rank r of comm (r < 0 passes through: MPI_ANY_SOURCE), and
 * comm's id in this rank file; -2 when comm cannot be translated. */
int trace_world_rank(MPI_Comm comm, int r, int *comm_id);

/* Number of ranks and this rank's index in comm (intra-communicators). */
int trace_comm_info(MPI_Comm comm, int *comm_id, int *n, int *me);

/* Records messages of size_bytes with a peer (world rank; -1 for a
 * wildcard source) on comm_id with tag; count messages at once. */
void trace_record(enum trace_kind kind, int peer, int comm_id, int tag, uint64_t size_bytes,
                  uint64_t count);

/* Datatype sizes: the last type asked about is remembered (a loop sends one
 * type); MPI_Type_free forgets it, since a new type may reuse the handle. */
typedef struct trace_type_cache {
    MPI_Datatype type;
    int size;
} trace_type_cache;
extern trace_type_cache trace_last_type;
uint64_t trace_bytes_slow(int count, MPI_Datatype dt);

/* Called by the MPI_Type_free wrapper: forget the remembered type size. */
void trace_type_freed(void);

/* Bytes of count elements of dt (0 for an invalid datatype). */
static inline uint64_t trace_bytes(int count, MPI_Datatype dt)
{
    if (dt == trace_last_type.type && dt && count > 0)
        return (uint64_t)count * (uint64_t)trace_last_type.size;
    return trace_bytes_slow(count, dt);
}

/* Records one point-to-point message with comm-relative peer r. */
static inline void trace_p2p(enum trace_kind kind, MPI_Comm comm, int r, int tag, int count,
                             MPI_Datatype dt)
{
    if (!trace_enabled || r == MPI_PROC_NULL)
        return;
    if (comm == MPI_COMM_WORLD && r >= 0) {   /* world ranks need no translation */
        trace_record(kind, r, 0, tag, trace_bytes(count, dt), 1);
        return;
    }
    int id, w = trace_world_rank(comm, r, &id);
    if (w != -2)
        trace_record(kind, w, id, tag, trace_bytes(count, dt), 1);
}

/* Persistent requests: remembered at MPI_*_init, recorded at MPI_Start. */
void trace_persistent_add(MPI_Request req, enum trace_kind kind, MPI_Comm comm, int r, int tag,
                          int count, MPI_Datatype dt);
void trace_persistent_start(MPI_Request req);
void trace_persistent_free(MPI_Request req);

#endif
