/* turns: the order in which interleaved points take their batches. */
#ifndef SCITORUS_TURNS_H
#define SCITORUS_TURNS_H

#include <gsl/gsl_rng.h>

/* Each round takes the points' batches in a new random order (a fixed seed, so a run
 * repeats): what a batch leaves in the caches then falls on every point alike, not always
 * on the same successor (make validate: calibrate --full's held-out ring).  A batch never
 * follows its own point's, which would find the caches warm (test_mpibench, --echo). */
typedef struct bench_turns {
    long *order, n;
    gsl_rng *rng;
} bench_turns;

/* Turns of n points (n >= 1).  Returns 0, or -1 when out of memory. */
int bench_turns_init(bench_turns *t, long n);
/* The next round's order: a permutation of 0..n-1, valid until the next call. */
const long *bench_turns_next(bench_turns *t);
void bench_turns_free(bench_turns *t);

#endif
