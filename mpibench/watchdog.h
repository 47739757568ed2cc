/* watchdog: --timeout for mpibench's ranks that block inside MPI (the MPI
 * backend's receives, --p2p's iterations).  A SIGALRM every second checks
 * that some message moved within the timeout.  If none did, rank 0 (which
 * measures and writes) leaves the blocked call it armed by a jump
 * (watchdog_jump) with BENCH_ERR_TIMEOUT and ends like an interrupted run:
 * its finished points kept, the file marked '# incomplete', the job aborted
 * (the abandoned call is never waited for again).  A rank stuck elsewhere
 * inside MPI (a blocking send), and every other rank, exits 1
 * WATCHDOG_GRACE_S seconds later and mpirun ends the job: the other ranks
 * wait longer, so that rank 0 writes first.  (A dead rank is noticed by
 * mpirun itself.)  Another rank that armed its wait is not idle but waiting
 * for rank 0, which may be measuring without it (--route network): rank
 * 0's watchdog ends that. */
#ifndef SCITORUS_WATCHDOG_H
#define SCITORUS_WATCHDOG_H

#include <setjmp.h>
#include <signal.h>

#define WATCHDOG_GRACE_S 3

/* Counted up by a rank whenever a message moved (cheap: one store). */
extern volatile sig_atomic_t watchdog_progress;
/* 1 while this rank waits in a call the watchdog may leave (rank 0) or
 * that only waits for rank 0 (the others); the rank sets it. */
extern volatile sig_atomic_t watchdog_armed;
/* Rank 0's way out of an armed call: sigsetjmp(watchdog_jump, 0) in a
 * frame of its own that returns BENCH_ERR_TIMEOUT when it comes back 1. */
extern sigjmp_buf watchdog_jump;

/* soft: this rank jumps out (rank 0); the others exit. */
void watchdog_start(double timeout_s, int soft);
void watchdog_stop(void);

#endif
