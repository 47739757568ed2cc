/* collective: mpibench --op, MPI collectives timed as osu_* time them
 * (barrier between repetitions; a repetition's time the mean over ranks, or
 * with --sync barrier its slowest rank's) or as SKaMPI/ReproMPI do (clock
 * offsets to rank 0 first, then every rank starts at a common time on its
 * own clock; the slowest rank's).  Columns and header: docs/formats.md,
 * 'Collective TSV'. */
#ifndef SCITORUS_COLLECTIVE_H
#define SCITORUS_COLLECTIVE_H

#include <mpi.h>

#include "bench/collective_opts.h"
#include "mpibench/mpistop.h"

/* One measured point: statistics of the repetitions' times (--sync osu:
 * the mean over ranks, else the largest) after --cut-quantile, and each
 * rank's median and mean (node_ns[rank], node_mean_ns[rank]) over the
 * repetitions kept before the cut. */
typedef struct coll_point {
    long size, reps, dropped;
    double min_ns, median_ns, mean_ns, sd_ns, ci95_ns, max_ns;
    int noisy;
    double node_ns[COLL_MAX_PROCS], node_mean_ns[COLL_MAX_PROCS];
} coll_point;

/* Times op at size bytes on comm (every rank of comm calls it); the point
 * is complete on comm's rank 0.  Returns 0, or a BENCH_ERR_* code on every
 * rank alike: BENCH_ERR_INTERRUPT when a stop reached any rank of the job
 * (stop) before the point met its stop rule, and then there is no point. */
int coll_measure(const coll_opts *o, mpistop *stop, MPI_Comm comm, long size, coll_point *pt);

#endif
