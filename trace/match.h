/* match: sends matched with receives stream by stream, as the logfile
 * analyzer of Zhang (1999) does: MPI does not let messages of one
 * (source, destination, communicator, tag) stream overtake each other, so
 * in order the first k sends of a stream meet its first k receives, and
 * what is left over on either side is unmatched.  Receives posted with
 * MPI_ANY_SOURCE or MPI_ANY_TAG (or whose tag the bounded table folded)
 * then take leftover sends that fit them. */
#ifndef SCITORUS_MATCH_H
#define SCITORUS_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "trace/tracefile.h"

typedef struct match_stream {
    int src, dst, tag;
    uint64_t comm_hash;
    int comm_seq;
    uint64_t sends, recvs;   /* after matching: recvs includes wildcards taken */
} match_stream;

typedef struct match_result {
    match_stream *streams;   /* sorted by src, dst, communicator, tag */
    size_t nstreams;
    uint64_t matched, unmatched_sends, unmatched_recvs;
    uint64_t skipped;        /* messages to or from ranks without a file */
} match_result;

/* Matches the point-to-point sends and receives of every loaded rank
 * (collectives are matched by MPI itself and not counted).  Returns 0, or
 * -1 when out of memory. */
int match_trace(const trace_dir *d, match_result *m);
void match_free(match_result *m);

#endif
