/* mpistop: mpibench's one stop path.  A stop signal (util/signals.h) may
 * reach any rank -- Ctrl-C, mpirun's SIGTERM, a kill to one rank; rank 0
 * alone decides when the run stops and ends it for every rank, so each
 * other rank passes its stop on to rank 0 and goes on serving. */
#ifndef SCITORUS_MPISTOP_H
#define SCITORUS_MPISTOP_H

#include <mpi.h>

#include "util/signals.h"

typedef struct mpistop {
    MPI_Comm comm;     /* MPI_COMM_WORLD's duplicate: no tag of the patterns' is taken */
    int rank;          /* in MPI_COMM_WORLD */
    int sent;          /* this rank's stop went to rank 0 */
} mpistop;

/* After MPI_Init: the stop signals' handlers and the communicator. */
void mpistop_open(mpistop *s);
/* Before MPI_Finalize (not after an abort). */
void mpistop_close(mpistop *s);
/* Rank 0: 1 once a stop reached any rank (its own flag, or another rank's
 * message).  Another rank: passes its own stop on, once; returns 0. */
int mpistop_check(mpistop *s);

/* The same, cheap enough for a timed path where no stop was asked: a
 * rank other than 0 reads one flag. */
static inline int mpistop_poll(mpistop *s)
{
    if (s->rank != 0 && !bench_interrupted())
        return 0;
    return mpistop_check(s);
}

/* Waits for a broadcast from rank 0 of comm (MPI_Ibcast) as a rank with
 * nothing to measure: asleep between tests, passing a stop on meanwhile.
 * Returns MPI_Wait's result. */
int mpistop_wait_bcast(mpistop *s, void *buf, int count, MPI_Datatype type, MPI_Comm comm);

#endif
