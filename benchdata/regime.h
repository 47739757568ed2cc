/* regime: the one definition of a regime of the machine.  The floor is an
 * idle 0-byte round trip between the source's process and the next, through
 * the same transport (shm: one cache line bouncing; MPI: the network's idle
 * round trip), taken beside the batches.  Two figures belong to one regime
 * when their floors are within BENCH_REGIME_RATIO of each other; a point or
 * run whose floors are further apart spans regimes (docs/formats.md). */
#ifndef SCITORUS_REGIME_H
#define SCITORUS_REGIME_H

/* A steady floor moves by up to 30%; the machine's regimes lie at least
 * twice apart (core-to-core latency jumping between cache topologies). */
#define BENCH_REGIME_RATIO 1.6

/* 1 when floors lo..hi (ns, > 0) span more than one regime; 0 when either
 * is not measured (<= 0). */
static inline int bench_regime_spans(double lo, double hi)
{
    if (!(lo > 0) || !(hi > 0))
        return 0;
    return (hi > lo ? hi / lo : lo / hi) > BENCH_REGIME_RATIO;
}

/* 1 when two measured floors belong to the same regime. */
static inline int bench_regime_same(double a, double b)
{
    return a > 0 && b > 0 && !bench_regime_spans(a, b);
}

#endif
