/* collgen: the point-to-point schedule of a named collective algorithm,
 * as GOAL text or as the schedule the GOAL reader makes of it
 * (docs/replay.md, 'Collectives').  A schedule is, per rank, a list of
 * sends and receives in steps: the operations of one step run together and
 * start once every operation of the rank's previous step has completed. */
#ifndef SCITORUS_COLLGEN_H
#define SCITORUS_COLLGEN_H

#include <stddef.h>
#include <stdio.h>

#include "sched/goal.h"

/* The v-variants with every rank's count equal (m bytes each, as osu_*v);
 * reduce_scatter's m is the whole vector, m / 4 floats split over the ranks
 * as mpibench and osu_reduce_scatter split them (the remainder to the first
 * ranks); scan and exscan reduce m bytes. */
typedef enum coll_opkind {
    COLL_BARRIER, COLL_BCAST, COLL_REDUCE, COLL_ALLREDUCE, COLL_ALLGATHER,
    COLL_ALLTOALL, COLL_GATHER, COLL_SCATTER, COLL_GATHERV, COLL_SCATTERV, COLL_ALLGATHERV,
    COLL_ALLTOALLV, COLL_REDUCE_SCATTER, COLL_SCAN, COLL_EXSCAN, COLL_NOPS
} coll_opkind;

/* "barrier", ..., "exscan"; NULL-terminated, indexed by coll_opkind. */
extern const char *const coll_op_names[];

/* 24 bytes: a 4096-process alltoall holds 33 million of them. */
typedef struct coll_msg {
    int rank, step, peer;
    int send;                 /* 1 send to peer, 0 receive from peer */
    long bytes;
} coll_msg;

typedef struct coll_sched {
    int ranks, op, root;
    char alg[32];             /* coll_algorithm's name of it ("tuned:ring") */
    long size;                /* the collective's message size (per rank) */
    long count;
    size_t cap;
    coll_msg *msgs;           /* grouped by rank, steps ascending, then as generated */
    /* Polled now and then by the generator and coll_goal (NULL: never):
     * nonzero gives up, returning -3 (Ctrl-C inside one point). */
    int (*stop)(void);
    int only;                 /* 0: every rank's operations; r + 1: rank r's only */
} coll_sched;

/* The algorithms of op, comma-separated, the first the default (what
 * Open MPI's tuned component picks for small P and small messages).  Two
 * are a library's choice: "tuned" (Open MPI 4.1's coll/tuned fixed
 * decision) and "mpich" (MPICH's default selection), by ranks and size. */
const char *coll_algorithms(int op);

/* alg, or op's default (the first of its list) copied into buf. */
const char *coll_default_algorithm(int op, const char *alg, char *buf, size_t len);

/* The name of alg (NULL: op's default; a valid one) into buf, a library's
 * choice with the family it picks for ranks and size bytes ("tuned:ring");
 * returns buf. */
const char *coll_algorithm(int op, const char *alg, int ranks, long size, char *buf, size_t len);

/* Library lib's ("tuned" or "mpich") own name for what it runs for op on
 * ranks processes and size bytes into native, *family the algorithm of
 * this file generated for it.  Returns 0 when the family is the library's
 * algorithm, 1 when it is only the nearest (it sends other messages than
 * the library does), 2 when the library's algorithm falls back to it for
 * this shape (as Open MPI's allgather recursive doubling off powers of two). */
int coll_library_pick(int op, const char *lib, int ranks, long size, char *native, size_t nlen,
                      const char **family);

/* Index of name in coll_op_names, or -1. */
int coll_op_parse(const char *name);

/* Builds the schedule of algorithm alg (NULL: the default) of op on ranks
 * processes, root root, size bytes.  Returns 0; -1 out of memory; -2 an
 * unknown algorithm for op (why says so). */
int coll_generate(coll_sched *s, int op, const char *alg, int ranks, int root, long size,
                  char *why, size_t len);
/* coll_generate's refusals alone (-2, why says so), without the schedule. */
int coll_validate(int op, const char *alg, int ranks, char *why, size_t len);
/* The same as coll_generate, polling stop (kept in s->stop): -3 when it said stop. */
int coll_generate_until(coll_sched *s, int op, const char *alg, int ranks, int root,
                        long size, int (*stop)(void), char *why, size_t len);
/* As coll_generate, rank's operations only (0..ranks-1; -2 outside): what one rank of a
 * traced call needs, in the memory of its own messages, not of every rank's. */
int coll_generate_rank(coll_sched *s, int op, const char *alg, int ranks, int root, long size,
                       int rank, char *why, size_t len);
void coll_sched_free(coll_sched *s);

/* Rank r's messages, from s->msgs[*i] on (a schedule holds them rank by
 * rank, step by step), each given to fn with the messages [plo, phi) of r's
 * step before, which it requires (none in r's first step): the one rule of
 * a schedule's dependencies.  Leaves *i past them; returns fn's first
 * nonzero return, else 0. */
typedef int coll_msg_fn(void *ctx, long k, const coll_msg *m, long plo, long phi);
int coll_walk_rank(const coll_sched *s, int r, long *i, coll_msg_fn *fn, void *ctx);

/* GOAL text: "num_ranks P", then per rank its sends/recvs labelled, each
 * step's operations requiring every operation of the step before.
 * Returns 0, -1 out of memory or -3 when s->stop said stop (the text is
 * then cut short). */
int coll_write_goal(FILE *fp, const coll_sched *s);

/* The same schedule built in memory, as goal_parse reads that text (the
 * engine's replay of a collective needs no text).  Returns 0, -1 out of
 * memory, -3 when s->stop said stop; g is empty unless 0. */
int coll_goal(const coll_sched *s, goal_schedule *g);

#endif
