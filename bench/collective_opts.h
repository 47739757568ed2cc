/* collective_opts: what mpibench --op's options set (bench/options.c's
 * table, scope BENCH_IN_COLL); no MPI here, so scibench's command line
 * compiles without it.  The pattern itself: mpibench/collective.c. */
#ifndef SCITORUS_COLLECTIVE_OPTS_H
#define SCITORUS_COLLECTIVE_OPTS_H

#include "sched/collgen.h"

#define COLL_MAX_SIZES 256
#define COLL_MAX_PROCS 64
/* the largest size: an alltoall's buffers are P times it on every rank */
#define COLL_MAX_SIZE_BYTES (1L << 26)

typedef struct coll_opts {
    int op, sync, node_times, refine, quiet;
    long root;
    long sizes[COLL_MAX_SIZES];
    size_t nsizes;
    long procs[COLL_MAX_PROCS];
    size_t nprocs;
    long min_samples, max_samples, batch, warmup;   /* < 0: osu_*'s count for the size */
    double rel_error, cut_quantile, timeout_s;
    double refine_threshold, refine_budget_s;
    long refine_min_distance;
    const char *algorithm;     /* run this schedule point-to-point instead of MPI's op */
    double inject_os_ns;       /* busy-wait before every send of --algorithm's schedule */
    const char *out, *resume;
} coll_opts;

/* --sync: osu (the default; osu_*'s loop and figure), barrier, window */
enum { COLL_SYNC_OSU, COLL_SYNC_BARRIER, COLL_SYNC_WINDOW };
/* --sync's names in the enum's order, NULL-terminated */
extern const char *const bench_coll_syncs[];

/* --op's collectives beyond the schedule layer's (sched/collgen.h, ops
 * 0..COLL_NOPS-1): measured only, numbered from COLL_NOPS in this order. */
enum { COLL_COMM_DUP = COLL_NOPS, COLL_COMM_SPLIT, COLL_MASTER_WORKER, COLL_ALL_OPS };
/* An op's name, any of them ("bcast", "gatherv"); NULL out of range. */
const char *bench_coll_op_name(int op);
/* An op by name, -1 if none. */
int bench_coll_op_parse(const char *name);
/* Ops that move no data: one point per process count, size 0. */
int bench_coll_op_sizeless(int op);

#endif
