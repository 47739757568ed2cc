/* goal: schedules in GOAL, the text format of the LogGOPSim toolchain
 * (Hoefler, Schneider, Lumsdaine 2010), read with the grammar of its
 * txt2bin scanner (docs/formats.md, 'GOAL schedule').  Every rank's
 * operations are kept in file order, with the dependency edges in the
 * order the file states them: replay order depends on both. */
#ifndef SCITORUS_GOAL_H
#define SCITORUS_GOAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The kinds, numbered as LogGOPSim numbers them: free operations are
 * started sends first, then receives, then computations. */
enum { GOAL_SEND = 1, GOAL_RECV = 2, GOAL_CALC = 3 };
/* `recv ... from -1` and `tag -1`: any source, any tag. */
#define GOAL_ANY UINT32_MAX
/* Sizes and times above this would not be exact in a double. */
#define GOAL_MAX_SIZE (1ULL << 53)
/* Ranks: every one costs about 60 bytes of state however idle. */
#define GOAL_MAX_RANKS (1UL << 26)
/* Operation ids are 32-bit: the largest schedule has this many. */
#define GOAL_MAX_OPS 0xfffffff0UL

typedef struct goal_op {
    uint64_t size;      /* bytes (send, recv) or ns (calc) */
    uint32_t peer;      /* destination (send), source (recv, GOAL_ANY) */
    uint32_t tag;       /* GOAL_ANY: any tag */
    uint32_t rank;      /* the rank that runs it */
    uint32_t deps;      /* requires + irequires edges into it */
    uint8_t kind, cpu, nic;
} goal_op;

typedef struct goal_schedule {
    uint32_t ranks;
    uint8_t max_cpu, max_nic;   /* over all ranks, as LogGOPSim counts them */
    size_t nops;
    goal_op *op;
    size_t *first;              /* ops of rank r: first[r] .. first[r]+count[r]-1 */
    uint32_t *count;
    /* Edges out of op b (b ends / b starts -> the op waits no more):
     * done_to[done_at[b] .. done_at[b+1]-1], start_to likewise. */
    size_t *done_at, *start_at;
    uint32_t *done_to, *start_to;
    size_t edges;
} goal_schedule;

typedef struct goal_error {
    long line;          /* 1-based, 0 when not about a line */
    int sys_errno;
    char msg[200];
} goal_error;

/* Parses text[0..len) (need not end with a newline).  Returns 0, -2 for
 * malformed text (err->line, err->msg), -1 out of memory. */
int goal_parse(const char *text, size_t len, goal_schedule *s, goal_error *err);

/* Reads and parses a file (regular files only).  Returns 0, -1 (cannot
 * read: err->sys_errno) or -2 (malformed). */
int goal_read(const char *path, goal_schedule *s, goal_error *err);

void goal_free(goal_schedule *s);

/* Writing GOAL text: every line of it is spelled here, for every writer
 * (sched/goal_write.c's collectives, scitrace goal).  Labels are the
 * caller's: "l<label>". */
void goal_put_num_ranks(FILE *fp, long ranks);
void goal_put_rank_open(FILE *fp, long rank);
void goal_put_rank_close(FILE *fp);
void goal_put_send(FILE *fp, long label, uint64_t bytes, long long to, long long tag);
void goal_put_recv(FILE *fp, long label, uint64_t bytes, long long from, long long tag);
void goal_put_calc(FILE *fp, long label, uint64_t ns);
void goal_put_requires(FILE *fp, long label, long on);

#endif
