/* logp_engine: the LogP pattern's measurements between its two processes
 * (round trips, streams, the receive overhead's delayed receive, g(0)'s
 * saturation test) and their statistics; bench/logp.c runs the sweep over
 * sizes on top.  Private to bench/logp*.c. */
#ifndef SCITORUS_LOGP_ENGINE_H
#define SCITORUS_LOGP_ENGINE_H

#include <gsl/gsl_rng.h>

#include "bench/logp.h"

/* Round trips before the timed ones at every size: caches, page faults. */
#define WARMUP_RTT 20
/* Fewest samples before a confidence interval is trusted (LogP/MPI starts
 * with 3 round trips; the outlier rule below needs a median of a few). */
#define MIN_SAMPLES 5
/* A sample over this many times the median is a process descheduled on a
 * shared machine (a 20 us send measured at 4 ms), not the cost: left out
 * of the mean and its interval. */
#define OUTLIER_FACTOR 3.0
/* Streams over 1.5 x the lower quartile (a process lost the CPU) are left out; the lower
 * quartile, not the fastest, which can fall below the truth (test_logp: injected gaps). */
#define STREAM_OUTLIER_FACTOR 1.5
/* The waiting time delta before a timed receive: twice the round trip seen
 * so far plus 1 us, so the reply has arrived (LogP/MPI: delta > RTT). */
#define DELTA_RTT_FACTOR 2.0
#define DELTA_MIN_NS 1000.0
/* g(0) saturation test: streams from 64 messages, doubled until the
 * throughput changes by under 1% (LogP/MPI), at most 2^16 messages or 2 s;
 * each length timed 3 times, the median kept. */
#define SAT_START 64
#define SAT_CHANGE 0.01
#define SAT_MAX_N 65536
#define SAT_MAX_NS 2e9
#define SAT_REPEAT 3
/* Streams at size m: the saturated length, halved (to at least 16) while a stream would last over
 * 2 ms, so a scheduler tick hits few; 5..30 streams per size, not 3, which one busy stretch of
 * the machine can hit all alike. */
#define STREAM_MAX_NS 2e6
#define STREAM_MIN_N 16
#define STREAM_MIN_SAMPLES 5
#define STREAM_MAX_SAMPLES 30
/* At most this many streams a size, those dropped for a lost CPU included
 * (then the rest are kept, lost or not: a stream per turn, so the sweep
 * ends however busy the machine; a value from kept lost streams gets an
 * interval of 100%, so its row says wide). */
#define STREAM_MAX_TRIES 60
/* Untimed round trips at the start of a size's turn, one more in a random half of the turns
 * (turn_warmups): no size keeps one phase of Open MPI's alternating fast box, which would set
 * neighbouring small sizes apart. */
#define TURN_WARMUP_RTT 2
/* One-way streams as --pattern ow times them (bench/pattern.c): OW_REPS
 * m-byte messages, the last answered by a 0-byte acknowledgement, the time
 * divided by OW_REPS (pattern.c: at least 100 messages a batch, in powers
 * of two).  Taken beside g's streams at the sweep's 2^k sizes from
 * max / OW_SIZE_SPAN up, at least OW_MIN_BYTES: g(m) at large m against
 * the one-way bandwidth, in the same rounds. */
#define OW_REPS 128
#define OW_SIZE_SPAN 4
#define OW_MIN_BYTES 1024
/* LogP/MPI's cap factors: x4 up to 1 KiB, x2 up to 64 KiB. */
#define CAP_SMALL_BYTES 1024
#define CAP_MEDIUM_BYTES 65536

typedef struct engine {
    const bench_backend *be;
    bench_comm *comm;
    const logp_config *cfg;
    int rank, peer;
    unsigned char *tx, *rx;
    size_t cap;
    double next_send_ns;     /* the injected gap: no send starts before this */
    double overhead_ns;      /* one clock reading, taken off each timed call */
    gsl_rng *coin;           /* turn_warmups' coin */
} engine;

/* A quantity's samples at one size. */
typedef struct series {
    double *x;
    long n, cap;
} series;

/* An estimate: mean of the samples (outliers left out), CI half-width. */
typedef struct estimate {
    double mean, ci;
} estimate;

typedef struct sweep_state {
    long n_stream;           /* saturated stream length */
    double g0_ns, sat_change;
    int sat_converged;
    double *scratch;
} sweep_state;

/* A series of at most cap samples; 0 or BENCH_ERR_SYSTEM. */
int logp_series_init(series *s, long cap);
void logp_series_add(series *s, double v);
/* Mean and its Student-t interval at level conf over the samples up to
 * outlier x their median (lower: x their lower quartile). */
estimate logp_series_estimate(const series *s, double conf, double outlier, int lower,
                              double *scratch);
/* 1 when the interval is within eps of the mean. */
int logp_narrow(const estimate *e, double eps);
/* Process 1: answers process 0's messages until told to stop. */
int logp_mirror(engine *e);
/* One plain m-byte round trip; its time in *ns (NULL: not wanted). */
int logp_round_trip(engine *e, long m, double *ns);
/* A stream of n m-byte messages ended by a reply (ack: 0 bytes); its time,
 * and whether this process lost its CPU during it (*lost; NULL: not wanted). */
int logp_stream(engine *e, long m, long n, int ack, double *ns, int *lost);
/* os and rtt from a round trip, or from one with a delay delta_ns before
 * its receive; with --os-fence (osf, rttf) also the fenced send's. */
int logp_overhead_pair(engine *e, long m, series *os, series *orr, series *rtt, series *osf,
                       series *rttf, double delta_ns);
/* g(0): LogP/MPI's saturation test, into s. */
int logp_saturation(engine *e, sweep_state *s);

#endif
