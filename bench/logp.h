/* logp: the LogP pattern (docs/model.md, 'LogP parameters'; Kielmann, Bal, Verstoep
 * 2000, "Fast Measurement of LogP Parameters for Message Passing
 * Platforms").  Between two processes of any backend (bench/backend.h), it
 * measures per message size m the send overhead os(m) (the time a send call
 * takes, in round trips), the receive overhead or(m) (the time a receive
 * takes when the message has already arrived: round trips with a waiting
 * time delta before the receive), the gap g(m) (streams of m-byte messages
 * ended by an acknowledgement; the stream length from g(0)'s saturation
 * test) and the latency L from the smallest round trip,
 * RTT = 2 (L + os + or).  Each value to a confidence interval, with a cap
 * on round trips; sizes 2^k, then sizes inserted where os, or or g bend. */
#ifndef SCITORUS_LOGP_H
#define SCITORUS_LOGP_H

#include <stdio.h>

#include "bench/backend.h"
#include "benchdata/benchdata.h"
#include "benchdata/logpdata.h"

/* LogP/MPI's defaults: 90% confidence intervals narrower than 2 eps with
 * eps = 3%, sizes investigated when a value departs 3% from the
 * extrapolation of the two sizes below. */
#define LOGP_DEFAULT_CONF 0.90
#define LOGP_DEFAULT_EPS 0.03
#define LOGP_DEFAULT_MAX_DIFF 0.03
/* Round trips per quantity and size, before LogP/MPI's size factors (x4 up
 * to 1 KiB, x2 up to 64 KiB).  LogP/MPI's base is 18 for networks of the
 * year 2000 (tens of us a round trip); on shared memory a send is tens of
 * ns, timed against a clock of ~20 ns overhead, and needs more samples for
 * the same interval, which cost microseconds. */
#define LOGP_DEFAULT_MAX_RTT 250
/* LogP/MPI does not split an interval narrower than max(32 B, eps m). */
#define LOGP_MIN_SPLIT_BYTES 32
/* At most this many sizes inserted by the nonlinearity search. */
#define LOGP_MAX_EXTRA_SIZES 64
#define LOGP_MAX_SIZES 128

typedef struct logp_config {
    long min_size, max_size;        /* bytes: min, the 2^k above it, max */
    double conf;                    /* confidence level, 0 < conf < 1 */
    double eps;                     /* CI half-width under eps x value */
    double max_diff;                /* nonlinearity threshold (fraction) */
    long max_rtt;                   /* base cap on round trips per size */
    /* Ground truth for tests: busy-waits in every send (os) and after every
     * receive (or), and the least time between the starts of two sends
     * (the gap), in both processes. */
    double inject_os_ns, inject_or_ns, inject_gap_ns;
    /* --os-fence: beside os (the send call), the send call followed by a
     * full store fence (mfence on x86): the call plus the drain of its
     * stores to the other core, timed in round trips of their own in the
     * same turns (the row's os_fence_ns, rtt_fence_ns).  os is unchanged. */
    int os_fence;
    int quiet;
    const char *prog;               /* for progress lines */
    const logp_data *done;          /* resume: sizes already measured */
} logp_config;

/* Cap on os (and or) round trips at size_bytes: base x4 up to 1 KiB, x2
 * up to 64 KiB, x1 above (LogP/MPI's max-its rule). */
long logp_rtt_cap(long base, long size_bytes);

/* The sizes of the 2^k sweep: min, every power of two above it, max.
 * Returns how many (at most cap). */
int logp_sweep_sizes(long min_size, long max_size, long *sizes, int cap);

/* Nonlinearity search (LogP/MPI): rows sorted by size; for every three
 * consecutive sizes m1 < m2 < m, if os, or or g at m departs by more than
 * max_diff (relative) from the line through its values at m1 and m2, and
 * m - m2 > max(LOGP_MIN_SPLIT_BYTES, eps m2), the size (m2 + m) / 2 should be
 * measured.  Every such triple at once (the benchmark measures them in one
 * interleaved pass, then asks again): up to cap sizes into sizes, in
 * increasing order, none of them in rows.  Returns how many. */
int logp_next_sizes(const logp_row *rows, long n, double max_diff, double eps, long *sizes,
                    int cap);

/* Runs the pattern in both processes (the backend must have exactly 2).
 * The sizes of the 2^k sweep are measured interleaved, each taking its
 * turn in every round until its values reach their intervals (or caps),
 * then the sizes the nonlinearity search asks for, again interleaved.
 * Process 0 measures and, at the end or on failure, writes the header h
 * (completed with timer, g0_ns, stream_messages, L_ns once the smallest
 * size is finished, and ow_reps / ow_ns: the one-way streams' time per
 * message at the largest sizes, "SIZE:MEAN:CI ..."; with os_fence also
 * L_fence_ns, L from the fenced sends' round trips) and every finished
 * size, sorted, to out; process 1 mirrors.  Returns 0 or a
 * BENCH_ERR_* code (then out holds the finished sizes; the caller marks it
 * incomplete). */
int bench_logp_run(const bench_backend *be, bench_comm *comm, const logp_config *cfg,
                   bench_data *h, FILE *out);

#endif
