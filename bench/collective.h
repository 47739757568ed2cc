/* collective: mpibench --op, MPI collectives timed as OSU/IMB time them
 * (barrier before every repetition) or as SKaMPI/ReproMPI do (clock
 * offsets to rank 0 first, then every rank starts at a common time on its
 * own clock); the time of a repetition is its slowest rank's.  Columns and
 * header: docs/coll-notes.md. */
#ifndef SCITORUS_COLLECTIVE_H
#define SCITORUS_COLLECTIVE_H

#include <mpi.h>

#define COLL_MAX_SIZES 256
#define COLL_MAX_PROCS 64

typedef struct coll_opts {
    int op, sync, node_times, refine, quiet;
    long root;
    long sizes[COLL_MAX_SIZES];
    size_t nsizes;
    long procs[COLL_MAX_PROCS];
    size_t nprocs;
    long min_samples, max_samples, batch;
    double rel_error, cut_quantile, timeout_s;
    double refine_threshold, refine_budget_s;
    long refine_min_distance;
    const char *algorithm;     /* run this schedule point-to-point instead of MPI's op */
    double inject_os_ns;       /* busy-wait before every send of --algorithm's schedule */
    const char *out, *resume;
} coll_opts;

enum { COLL_SYNC_BARRIER, COLL_SYNC_WINDOW };

/* One measured point: statistics of the per-repetition maxima over ranks
 * after --cut-quantile, and each rank's median (node_ns[rank]). */
typedef struct coll_point {
    long size, reps, dropped;
    double min_ns, median_ns, mean_ns, sd_ns, ci95_ns, max_ns;
    int noisy;
    double node_ns[COLL_MAX_PROCS];
} coll_point;

/* mpibench with --op: the whole run (MPI_Init .. MPI_Finalize). */
int coll_main(int argc, char **argv);

/* Times op at size bytes on comm (every rank of comm calls it); the point
 * is complete on comm's rank 0.  Returns 0 or a BENCH_ERR_* code. */
int coll_measure(const coll_opts *o, MPI_Comm comm, long size, coll_point *pt);

#endif
