/* tracefile: reading the rank files libscitrace.so writes, one per rank,
 * and a whole trace directory.  A rank file is text:
 *
 *   # scitrace-rank 1
 *   rank R                      this process's MPI_COMM_WORLD rank
 *   ranks P                     MPI_COMM_WORLD's size
 *   status finalized|aborted|no-finalize
 *   host NAME
 *   command ARGV...             the traced program's command line
 *   table USED CAPACITY         aggregate table use (bounded memory)
 *   dropped MESSAGES BYTES      calls counted only (table 7/8 full)
 *   untraced_starts N           persistent starts not recorded
 *   comm ID HASH SEQ N W0..WN-1 communicator ID: members as world ranks;
 *                               (HASH, SEQ) name it across rank files
 *   rec KIND PEER COMM TAG SIZE MESSAGES BYTES FOLDED
 *   end LINES                   lines before this one: a truncated file
 *                               has none or a wrong count
 *
 * PEER is a world rank (-1: MPI_ANY_SOURCE at a receive's post); for a
 * collective (class COLL, trace/tracekinds.h) it is the root (-1: none),
 * SIZE the block per message and MESSAGES the number of calls.  FOLDED=1:
 * SIZE is a power-of-two class and TAG is TRACE_TAG_FOLDED. */
#ifndef SCITORUS_TRACEFILE_H
#define SCITORUS_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct trace_comm {
    int n, seq;
    uint64_t hash;
    int *world;
} trace_comm;

typedef struct trace_rec {
    int kind, peer, comm, tag, folded;
    uint64_t size_bytes, messages, bytes;
} trace_rec;

typedef struct trace_rank {
    int rank, ranks;
    char status[32], host[256], command[2048];
    unsigned table_used, table_cap;
    uint64_t dropped_messages, dropped_bytes, untraced_starts;
    trace_comm *comms;
    int ncomms;
    trace_rec *recs;
    size_t nrecs;
} trace_rank;

/* A failure: "FILE:LINE: what" (LINE omitted when the file as a whole is
 * at fault). */
typedef struct trace_error {
    char msg[4352];
} trace_error;

/* Reads one rank file.  Returns 0, or -1 with err filled (nothing to free). */
int trace_rank_read(const char *path, trace_rank *r, trace_error *err);
void trace_rank_free(trace_rank *r);

/* A trace directory: ranks[i] is rank i's file (loaded[i] != 0), or
 * missing, when that rank left none.  partial[i] != 0: rank i left only a
 * temporary file (it ended before writing its rank file). */
typedef struct trace_dir {
    char *path;
    int nranks;              /* from the files' "ranks" lines */
    trace_rank *ranks;
    unsigned char *loaded, *partial;
    int nloaded;
    char date[32];           /* newest rank file's mtime, UTC */
} trace_dir;

/* Loads every rank-NNNNN.trace in dir.  Fails (-1, err names the file) on an
 * unreadable directory, a directory with no rank file, a malformed file, or
 * files that disagree on the number of ranks. */
int trace_dir_load(const char *dir, trace_dir *d, trace_error *err);
void trace_dir_free(trace_dir *d);

/* Index of world rank w in communicator c, or -1. */
int trace_comm_index(const trace_comm *c, int w);

#endif
