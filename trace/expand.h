/* expand: a traced collective as the point-to-point messages the traced MPI
 * sent for it -- the schedule of sched/collgen.h that the library picks for
 * the operation, the communicator's size and the message size (Open MPI
 * 4.1's tuned component unless told otherwise), or the algorithm the user
 * names.  The v collectives are recorded as their sends and need none. */
#ifndef SCITORUS_EXPAND_H
#define SCITORUS_EXPAND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sched/collgen.h"

/* The operations a trace expands, collgen's first eight (barrier .. scatter): the
 * v-variants are recorded as their sends; reduce_scatter, scan and exscan are not. */
#define EXPAND_NOPS (COLL_SCATTER + 1)

typedef struct expand_choice {
    const char *lib;              /* "tuned" or "mpich" (NULL: tuned) */
    const char *alg[COLL_NOPS];   /* an algorithm the user named (NULL: lib's pick) */
} expand_choice;

/* --algorithm ARG: "tuned" or "mpich" (the library whose choices to
 * follow), OP=NAME (op's algorithm), or NAME (every operation that has an
 * algorithm of that name).  Returns 0, or -1 with why filled. */
int expand_choice_add(expand_choice *c, const char *arg, char *why, size_t len);

/* The collgen operation of a trace kind (trace/tracekinds.h), -1 for none. */
int expand_op(int kind);

/* "tuned:rabenseifner" or "binomial (--algorithm)": what c generates for
 * op on n ranks, m bytes, and where it comes from, into buf. */
const char *expand_describe(const expand_choice *c, int op, int n, uint64_t m, char *buf,
                            size_t len);

/* The last rank's schedule generated, kept for its next call of the same
 * shape: one rank's messages, so memory grows with P, not P^2 (alltoall). */
typedef struct expand_cache {
    coll_sched s;
    int valid, op, n, root, rank;
    uint64_t m;
} expand_cache;

/* Rank me's operations of a traced call of kind (class COLL) on n ranks,
 * root (a communicator index; ignored where there is none), m bytes, into
 * *out (owned by x; expand_rank_msgs finds them).  Returns 0, -1 out of
 * memory, -2 arguments out of range or an algorithm op does not have (why
 * says so). */
int expand_schedule(expand_cache *x, const expand_choice *c, int kind, int n, int root, int me,
                    uint64_t m, const coll_sched **out, char *why, size_t len);
void expand_cache_free(expand_cache *x);

/* --algorithm's help, the same for every mode that expands. */
#define EXPAND_ALGORITHM_HELP                                                       \
    "how to expand collectives: tuned (Open MPI 4.1's\n"                            \
    "choices) or mpich (MPICH's) -- default: the traced\n"                          \
    "library's --, OP=NAME for one operation or NAME for\n"                         \
    "every one that has it (scisim --collective-list);\n"                           \
    "repeatable"

/* The library choice for a trace whose user named none: "mpich" when its
 * ranks recorded an MPICH-derived library (MPICH, MVAPICH, Intel MPI), else
 * "tuned" (Open MPI, or nothing recorded). */
struct trace_dir;
const char *expand_library_of(const struct trace_dir *d);

/* One line a distinct collective in the trace (communicator size, bytes)
 * and the algorithm c expands it with, each line prefixed by prefix, to fp
 * (calls of phase; NULL: all).  Returns the number of lines. */
int expand_report(FILE *fp, const char *prefix, const struct trace_dir *d, const char *phase,
                  const expand_choice *c);

/* Rank r's messages in s: s->msgs[*lo .. *hi). */
void expand_rank_msgs(const coll_sched *s, int r, long *lo, long *hi);

#endif
