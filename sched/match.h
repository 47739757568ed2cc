/* match: MPI's matching of messages with receives, for every replay that
 * needs it (the sim engine, scitrace check's replay).  Each rank has two
 * queues in arrival order: posted receives and unexpected messages.  A
 * search takes the oldest entry of a queue that fits a (context, source,
 * tag), where SCHED_MATCH_ANY fits every source or tag: MPI's
 * non-overtaking rule.  Entries with a concrete source and tag sit in a
 * hash bucket per (rank, queue, context, source, tag), so a concrete
 * search looks at its bucket and the entries holding a wildcard, not at
 * the whole queue (which is quadratic in P for an alltoall).  Each queue
 * has its own table of buckets, so a rank's searches stay in its memory. */
#ifndef SCITORUS_SCHED_MATCH_H
#define SCITORUS_SCHED_MATCH_H

#include <stddef.h>
#include <stdint.h>

#define SCHED_MATCH_ANY UINT32_MAX    /* a source or tag: any */
#define SCHED_MATCH_NONE UINT32_MAX   /* no entry */

enum { SCHED_MATCH_POSTED = 0, SCHED_MATCH_UNEXPECTED = 1 };

typedef struct sched_match_entry {
    uint32_t id, src, tag;            /* the caller's id; a message's sender, a receive's peer */
    uint32_t next, prev, bnext, bprev;   /* a list's head holds its tail as prev */
    uint64_t ctx, seq;
} sched_match_entry;

/* One rank's queue: its lists' heads, and its table of buckets. */
typedef struct sched_match_queue {
    uint32_t head, whead, tab;        /* whead: entries holding a wildcard; tab: index or NONE */
} sched_match_queue;

/* A queue's buckets by (context, source, tag), open addressing: a slot
 * holds the oldest entry of its bucket (NONE: free).  One table a queue
 * keeps a rank's searches in a rank's memory. */
typedef struct sched_match_table {
    uint32_t *slot;
    uint32_t cap, n;
} sched_match_table;

typedef struct sched_matcher {
    uint32_t nranks;
    int any_in_both;          /* 1: an unexpected message's wildcard fits too (GOAL's rule) */
    sched_match_queue *q;     /* per rank * 2 + queue */
    sched_match_table *tab;
    size_t ntab, tabcap;
    sched_match_entry *pool;
    size_t n, cap;
    uint32_t free;
    uint64_t seq, steps;      /* steps: entries looked at (the work, for tests) */
} sched_matcher;

/* An empty matcher of nranks ranks.  any_in_both 0 is MPI's rule, where
 * only a receive holds a wildcard; 1 lets a message's wildcard fit every
 * receive, as GOAL schedules allow.  Returns 0, or -1 when out of memory. */
int sched_match_init(sched_matcher *m, uint32_t nranks, int any_in_both);
void sched_match_free(sched_matcher *m);

/* Appends id to rank's queue.  Returns 0, or -1 when out of memory. */
int sched_match_add(sched_matcher *m, uint32_t rank, int queue, uint64_t ctx, uint32_t src,
                    uint32_t tag, uint32_t id);

/* Removes and returns the id of the oldest entry of rank's queue that fits
 * (ctx, src, tag), or SCHED_MATCH_NONE. */
uint32_t sched_match_take(sched_matcher *m, uint32_t rank, int queue, uint64_t ctx, uint32_t src,
                          uint32_t tag);

/* The oldest entry of rank's queue that fits (an index into m->pool, whose
 * id the caller may read and change), left in place, or SCHED_MATCH_NONE;
 * sched_match_remove takes such an entry out.  take is find, then remove. */
uint32_t sched_match_find(sched_matcher *m, uint32_t rank, int queue, uint64_t ctx, uint32_t src,
                          uint32_t tag);
void sched_match_remove(sched_matcher *m, uint32_t rank, int queue, uint32_t e);

/* The queue in order: its first entry (an index into m->pool) and the next
 * one, SCHED_MATCH_NONE at the end. */
static inline uint32_t sched_match_first(const sched_matcher *m, uint32_t rank, int queue)
{
    return m->q[(size_t)rank * 2 + (size_t)queue].head;
}

static inline uint32_t sched_match_next(const sched_matcher *m, uint32_t e)
{
    return m->pool[e].next;
}

#endif
