/* traffic: an application's traffic matrix (docs/formats.md, 'Traffic matrix'; written by
 * `scitrace matrix`) and node placement files, read and validated for the
 * projection onto candidate tori (model/projection.h). */
#ifndef SCITORUS_TRAFFIC_H
#define SCITORUS_TRAFFIC_H

#include <stddef.h>
#include <stdint.h>

#include "topo/topo.h"
#include "util/file_error.h"

/* Limits, so that a hostile or mistaken file cannot make us allocate
 * without bound: 2^24 ranks is beyond any MPI job traced today; 10^7 rows
 * (24 bytes each, 240 MB) is a hundred times the `make bench` matrix; a
 * row of four numbers fits easily in 256 characters. */
#define TRAFFIC_MAX_RANKS (1L << 24)
#define TRAFFIC_MAX_ROWS 10000000L
#define TRAFFIC_MAX_LINE 256
#define TRAFFIC_MAX_SIZE_BYTES (1L << 40)          /* as scimodel --size */
#define TRAFFIC_MAX_MESSAGES 1000000000000000L     /* 1e15 per row */

/* One row: `messages` messages of `size_bytes` from src to dst (ranks of
 * MPI_COMM_WORLD). */
typedef struct traffic_row {
    int32_t src, dst;
    int64_t size_bytes;
    int64_t messages;
} traffic_row;

typedef struct traffic_matrix {
    long ranks;              /* P, from the "# ranks:" header */
    size_t rows;             /* number of rows */
    traffic_row *row;        /* rows in file order (owned) */
    double messages;         /* sum of messages over rows */
    double bytes;            /* sum of messages * size_bytes */
    /* "# grid: AxB (...)": the application's process grid as it made it
     * (scitrace matrix writes MPI_Cart_create's), its product the ranks;
     * grid.dims 0: none */
    topo_shape grid;
} traffic_matrix;

/* Why a file was rejected (the command line quotes path:line: msg). */
typedef file_error traffic_error;

/* Reads a traffic matrix (docs/formats.md, 'Traffic matrix'):
 *   line 1      "# scitorus-traffic 1"
 *   "# ranks: P" before the first row (1 <= P <= TRAFFIC_MAX_RANKS)
 *   "# columns: src dst size_bytes messages" if present, exactly that
 *   "# grid: SHAPE (...)" if present: a shape of 1..4 dimensions whose
 *               nodes are the ranks
 *   other "# ..." lines are comments; blank lines are skipped
 *   rows        src<TAB>dst<TAB>size_bytes<TAB>messages, integers with
 *               0 <= src, dst < P, 0 <= size_bytes <= 2^40,
 *               1 <= messages <= 1e15.
 * Rows with the same (src, dst, size) simply add up.  Refuses a path that
 * is not a regular file (a directory, a FIFO, a device: never blocks on
 * one), lines over TRAFFIC_MAX_LINE characters, more than TRAFFIC_MAX_ROWS
 * rows, and a file with no row.  CRLF line ends are accepted.
 * path - file name; t - (output) the matrix, free with traffic_free.
 * Returns 0, -1 when the file cannot be opened or read (err->sys_errno,
 * err->msg), -2 when it is malformed (err->line, err->msg).  On failure *t
 * holds nothing to free. */
int traffic_read(const char *path, traffic_matrix *t, traffic_error *err);

void traffic_free(traffic_matrix *t);

/* Renumbers the matrix from ranks to nodes: row (r, s) becomes
 * (rank_node[r], rank_node[s]) and ranks becomes nodes. */
void traffic_to_nodes(traffic_matrix *t, const long *rank_node, long nodes);

/* Reads a placement file: one torus node per logical node, in order (line
 * j, not counting `#` comments and blank lines, is the row-major rank of
 * the torus node that hosts logical node j, i.e. ranks j*K .. j*K+K-1).
 * count - number of logical nodes expected; max_node - torus nodes N (each
 * value must be below it); pos - (output) count entries.  Values must be
 * distinct.  Same file checks and return values as traffic_read. */
int traffic_placement_read(const char *path, long count, long max_node, long *pos,
                           traffic_error *err);

#endif
