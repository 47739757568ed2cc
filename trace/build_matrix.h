/* build_matrix: a trace directory as rows (src, dst, size_bytes, messages)
 * of world ranks, the traffic matrix (docs/formats.md, 'Traffic matrix'): the recorded
 * point-to-point sends, the v collectives as recorded, and (unless left
 * out) every other collective expanded by trace/expand.h. */
#ifndef SCITORUS_BUILD_MATRIX_H
#define SCITORUS_BUILD_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "sched/flows.h"
#include "trace/expand.h"
#include "trace/tracefile.h"

typedef sched_flow trace_matrix_row;

typedef struct trace_matrix {
    int ranks;
    trace_matrix_row *rows;   /* sorted by src, dst, size; keys unique */
    size_t nrows;
    uint64_t folded_rows;     /* rows whose size is a mean (see tracefile.h) */
} trace_matrix;

/* Builds the matrix; with_collectives = 0 leaves the collectives out, else
 * they expand as the traced library chooses (expand_library_of); calls,
 * when not 0, keeps only the kinds whose bit (1 << kind) is set.
 * Returns 0, or -1 with err filled (a collective whose communicator does not
 * contain its rank or root: a damaged file). */
int trace_matrix_build(const trace_dir *d, int with_collectives, uint64_t calls,
                       trace_matrix *m, trace_error *err);
/* The same with the collectives expanded as choice says (NULL: left out). */
int trace_matrix_build_with(const trace_dir *d, const expand_choice *choice, uint64_t calls,
                            trace_matrix *m, trace_error *err);
void trace_matrix_free(trace_matrix *m);

/* Writes the traffic matrix format (docs/formats.md, 'Traffic matrix') to
 * path (atomically: temporary name, then rename; "-": standard output).
 * command and host describe the traced run, phase (NULL: all) the part of
 * it, choice how d's collectives were expanded (NULL: left out), each
 * distinct one a "# collective:" line.  Returns 0 or -1 with errno set. */
int trace_matrix_write(const trace_matrix *m, const char *path, const char *command,
                       const char *host, const char *date, const trace_dir *d,
                       const expand_choice *choice, const char *phase);

#endif
