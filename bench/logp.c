/* logp: os, or, g and L between two processes over any backend (issue 13). */
#include "bench/logp.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "bench/pattern.h"
#include "bench/signals.h"

/* Round trips before the timed ones at every size: caches, page faults. */
#define WARMUP_RTT 20
/* Fewest samples before a confidence interval is trusted (LogP/MPI starts
 * with 3 round trips; the outlier rule below needs a median of a few). */
#define MIN_SAMPLES 5
/* A sample over this many times the median is a process descheduled on a
 * shared machine (a 20 us send measured at 4 ms), not the cost: left out
 * of the mean and its interval. */
#define OUTLIER_FACTOR 3.0
/* A stream sample is a mean over tens of messages, tight unless a process
 * lost the CPU during it (on this loaded 2-core VM over half of the 2.6 ms
 * streams of the tests were hit): streams over 1.5 x the lower quartile are
 * left out.  Not against the fastest: with the round trip subtracted, a
 * sample can come out below the truth (at 64 KiB a fifth of it). */
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
/* Streams at size m: the saturated length, halved (to at least 16) while a
 * stream would last over 2 ms; 5..30 streams per size.  Not 3: with two
 * jobs spinning beside the run (nice 0 against its -10), all three streams
 * of a size lost the CPU alike often enough to pass as a narrow interval
 * (g 2.5-3x the injected gap, flagged ok, 2 runs in 6); with 5, the lower
 * quartile is clean unless four of them are hit (0 in 6). */
#define STREAM_MAX_NS 2e6
#define STREAM_MIN_N 16
#define STREAM_MIN_SAMPLES 5
#define STREAM_MAX_SAMPLES 30
/* At most this many streams a size, those dropped for a lost CPU included
 * (then the rest are kept, lost or not: a stream per turn, so the sweep
 * ends however busy the machine; a value from kept lost streams gets an
 * interval of 100%, so its row says wide). */
#define STREAM_MAX_TRIES 60
/* A size's turn in a round starts with this many untimed round trips: the
 * turn before was another size's (its protocol, its buffers' cache lines).
 * One more in a random half of the turns (turn_warmups): Open MPI's fast
 * box (vader) puts a message of up to 8 bytes in a 32-byte slot, two to a
 * cache line, and in the VM's slow regime (scibench --floor ~130 ns)
 * consecutive round trips alternate between ~430 and ~650 ns (P(slow |
 * previous slow) = 0.01, P(slow | previous fast) = 0.91 at 1 B; none at
 * 16-24 B, 64-byte slots).  Which of a size's round trips fell on the slow
 * phase then depended on how many messages the turns before it in the
 * round had sent, the same from round to round: in twelve sweeps rtt/2 at
 * 1 and 4 B (even places in a round) came out 1.5-23 ns above 2 and 8 B
 * (1-8 B 2.6-8.3% apart), the fenced round trip next to the plain one in
 * the other phase (3.7-8.7% apart).  A coin per turn makes every timed
 * round trip's phase a coin too: 0.8-5.3% and 1.3-3.5% in twelve sweeps
 * taken alternately with them (docs/MEASUREMENTS.md). */
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

long logp_rtt_cap(long base, long size_bytes)
{
    return size_bytes <= CAP_SMALL_BYTES ? 4 * base : size_bytes <= CAP_MEDIUM_BYTES ? 2 * base
                                                                                      : base;
}

int logp_sweep_sizes(long min_size, long max_size, long *sizes, int cap)
{
    int n = 0;
    sizes[n++] = min_size;
    for (long p = 1; p <= max_size && n < cap; p *= 2)
        if (p > min_size)
            sizes[n++] = p;
    if (sizes[n - 1] != max_size && n < cap)
        sizes[n++] = max_size;
    return n;
}

/* The three quantities of a row, for the search. */
static double quantity(const logp_row *r, int q)
{
    return q == 0 ? r->os_ns : q == 1 ? r->or_ns : r->g_ns;
}

int logp_next_sizes(const logp_row *rows, long n, double max_diff, double eps, long *sizes,
                    int cap)
{
    int k = 0;
    for (long i = 2; i < n && k < cap; i++) {
        const logp_row *a = &rows[i - 2], *b = &rows[i - 1], *c = &rows[i];
        double ma = (double)a->size_bytes, mb = (double)b->size_bytes;
        double mc = (double)c->size_bytes;
        if (mc - mb <= fmax(LOGP_MIN_SPLIT_BYTES, eps * mb) || mb <= ma)
            continue;
        for (int q = 0; q < 3; q++) {
            /* ext = v(m2) + (v(m2) - v(m1)) (m - m2) / (m2 - m1) */
            double vb = quantity(b, q);
            double ext = vb + (vb - quantity(a, q)) * (mc - mb) / (mb - ma);
            double ref = fabs(ext) > 0 ? fabs(ext) : fabs(quantity(c, q));
            if (ref > 0 && fabs(quantity(c, q) - ext) > max_diff * ref) {
                sizes[k++] = (b->size_bytes + c->size_bytes) / 2;
                break;
            }
        }
    }
    return k;
}

/* ---- statistics ------------------------------------------------------ */

static int series_init(series *s, long cap)
{
    s->n = 0;
    s->cap = cap;
    s->x = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *s->x);
    return s->x ? 0 : BENCH_ERR_SYSTEM;
}

static void series_add(series *s, double v)
{
    if (s->n < s->cap)
        s->x[s->n++] = v;
}

/* Mean and its Student-t interval at level conf over the samples up to
 * outlier x their median (lower: x their lower quartile); all of them when
 * that reference is <= 0. */
static estimate series_estimate(const series *s, double conf, double outlier, int lower,
                                double *scratch)
{
    estimate e = {0, INFINITY};
    if (s->n == 0)
        return e;
    memcpy(scratch, s->x, (size_t)s->n * sizeof *scratch);
    gsl_sort(scratch, 1, (size_t)s->n);
    double ref = gsl_stats_quantile_from_sorted_data(scratch, 1, (size_t)s->n, lower ? 0.25 : 0.5);
    size_t k = (size_t)s->n;
    while (ref > 0 && k > 1 && scratch[k - 1] > outlier * ref)
        k--;
    e.mean = gsl_stats_mean(scratch, 1, k);
    if (k >= 2)
        e.ci = gsl_cdf_tdist_Pinv(0.5 + conf / 2, (double)(k - 1)) * gsl_stats_sd(scratch, 1, k) /
               sqrt((double)k);
    return e;
}

static int narrow(const estimate *e, double eps)
{
    return e->ci <= eps * fabs(e->mean);
}

/* ---- the two processes' send and receive ----------------------------- */

/* The injected delays run on CLOCK_MONOTONIC, whatever the backend times
 * with: a clock that steps when a process changes CPU would stretch a
 * busy-wait (a mirror waiting out its gap took 8.5 ms round trips, at one
 * size in three runs, with MPI_Wtime). */
static double mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void spin_until(double t_ns)
{
    while (mono_ns() < t_ns)
        ;
}

/* Waits out the injected gap since the last send started. */
static void pace(engine *e)
{
    if (e->cfg->inject_gap_ns > 0)
        spin_until(e->next_send_ns);
}

/* What a message marked last asks of the peer, in in_dim (which both
 * backends carry and nothing else here uses): a reply of as many bytes, none
 * (ack: a one-way stream's end), or as many as the int64 its payload holds
 * (the receive overhead's request, overhead_pair). */
#define REPLY_SAME (-1)
#define REPLY_NONE 0
#define REPLY_ASKED 1

/* Sends len bytes of payload to the peer; last asks it for the reply
 * `reply` says. */
static int lsend_from(engine *e, const void *payload, long len, int last, int reply)
{
    const logp_config *cfg = e->cfg;
    pace(e);
    double start = cfg->inject_gap_ns > 0 || cfg->inject_os_ns > 0 ? mono_ns() : 0;
    e->next_send_ns = start + cfg->inject_gap_ns;
    if (cfg->inject_os_ns > 0)
        spin_until(start + cfg->inject_os_ns);
    bench_msg m = {e->rank ? BENCH_MSG_RESPONSE : BENCH_MSG_REQUEST, last, e->peer, e->peer,
                   reply, 0, len};
    return e->be->send(e->comm, e->peer, &m, payload);
}

/* Sends len bytes to the peer; last asks it for a reply: of as many bytes,
 * or (ack) of none. */
static int lsend(engine *e, long len, int last, int ack)
{
    return lsend_from(e, e->tx, len, last, ack ? REPLY_NONE : REPLY_SAME);
}

static int lrecv(engine *e, bench_msg *m)
{
    int rc = e->be->recv(e->comm, m, e->rx, e->cap);
    if (!rc && e->cfg->inject_or_ns > 0)
        spin_until(mono_ns() + e->cfg->inject_or_ns);
    return rc;
}

/* Process 1: receive; answer a message marked last with as many bytes (an
 * ack: with none; a request: with the bytes it asks for, at most the
 * buffer). */
static int mirror(engine *e)
{
    bench_msg m;
    int rc;
    while ((rc = lrecv(e, &m)) == 0) {
        if (m.kind == BENCH_MSG_STOP)
            return 0;
        if (!m.last)
            continue;
        long len = m.len;
        if (m.in_dim == REPLY_NONE)
            len = 0;
        else if (m.in_dim == REPLY_ASKED) {
            int64_t asked = 0;
            if (m.len >= (long)sizeof asked)
                memcpy(&asked, e->rx, sizeof asked);
            len = asked < 0 ? 0 : asked > (int64_t)e->cap ? (long)e->cap : (long)asked;
        }
        if ((rc = lsend(e, len, 0, 0)))
            return rc;
    }
    return rc;
}

/* ---- process 0: the measurements --------------------------------------- */

/* One plain m-byte round trip; its time in *ns (NULL: not wanted). */
static int round_trip(engine *e, long m, double *ns)
{
    bench_msg r;
    pace(e);
    double t0 = e->be->now_ns();
    int rc = lsend(e, m, 1, 0);
    if (!rc)
        rc = lrecv(e, &r);
    if (ns)
        *ns = e->be->now_ns() - t0;
    return rc;
}

/* This thread's involuntary context switches so far (a sched_yield that
 * let another job run counts too); -1 where the kernel does not say. */
static long preemptions(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : -1;
}

/* A stream of n m-byte messages ended by a reply to the last (ack: a
 * 0-byte one, as --pattern ow's); its time, and whether this process lost
 * its CPU during it (*lost; NULL: not wanted). */
static int stream(engine *e, long m, long n, int ack, double *ns, int *lost)
{
    bench_msg r;
    int rc = 0;
    pace(e);
    long before = lost ? preemptions() : 0;
    double t0 = e->be->now_ns();
    for (long i = 0; i < n && !rc; i++)
        rc = lsend(e, m, i == n - 1, ack && i == n - 1);
    if (!rc)
        rc = lrecv(e, &r);
    *ns = e->be->now_ns() - t0;
    if (lost)
        *lost = before >= 0 && preemptions() != before;
    return rc;
}

/* Waits until this core's earlier stores are visible to the other cores:
 * x86 keeps stores in a store buffer and lets the core go on; a send call
 * that copied a message returns when its stores are buffered, and the
 * read-for-ownership of each line (the receiver holds it: it read the
 * last message there) drains after the call.  mfence, not sfence: sfence
 * orders stores but lets the clock's loads pass them. */
static inline void store_drain(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("mfence" ::: "memory");
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* One round trip with its send timed: os (the call, and with fence the
 * drain of its stores too) and the round trip into their series. */
static int timed_send_round_trip(engine *e, long m, int fence, series *os, series *rtt)
{
    bench_msg r;
    pace(e);
    double t0 = e->be->now_ns();
    int rc = lsend(e, m, 1, 0);
    if (fence)
        store_drain();
    double t1 = e->be->now_ns();
    if (rc || (rc = lrecv(e, &r)))
        return rc;
    double t2 = e->be->now_ns();
    series_add(os, t1 - t0 - e->overhead_ns);
    series_add(rtt, t2 - t0 - e->overhead_ns);
    return 0;
}

/* os and rtt from a round trip without delta, or from one with it.  With
 * --os-fence (osf, rttf not NULL), also the fenced send's os and round trip
 * from a third, before or after the plain one in turn. */
static int overhead_pair(engine *e, long m, series *os, series *orr, series *rtt,
                         series *osf, series *rttf, double delta_ns)
{
    bench_msg r;
    int rc, fenced_first = osf && osf->n % 2;
    if (fenced_first && (rc = timed_send_round_trip(e, m, 1, osf, rttf)))
        return rc;
    if ((rc = timed_send_round_trip(e, m, 0, os, rtt)))
        return rc;
    if (osf && !fenced_first && (rc = timed_send_round_trip(e, m, 1, osf, rttf)))
        return rc;
    /* or's round trip, as LogP/MPI's ("0 bytes forward, n bytes back with a
     * delta"): a small request out, the m-byte reply back.  Not m bytes out:
     * above Open MPI's eager limit (vader, 4 KiB) the m-byte send completes
     * only when the peer's FIN comes back, which it sends just before its
     * reply, so the MPI_Wait that completes the send (complete(), before
     * the delta) mostly polled the reply's rendezvous header in as well
     * -- the header's fifo read and queueing, 170-200 ns of the receive at
     * 4-16 KiB, done before the timed receive (measured with Open MPI's
     * process_vm_readv timed inside the receive: docs/MEASUREMENTS.md). A
     * request of 8 bytes is eager: its send completes locally and nothing
     * polls the reply before the timed receive. */
    int64_t ask = m;
    if ((rc = lsend_from(e, &ask, sizeof ask, 1, REPLY_ASKED)) ||
        (e->be->complete && (rc = e->be->complete(e->comm))))
        return rc;
    double wait_from = e->be->now_ns();
    while (e->be->now_ns() < wait_from + delta_ns)
        ;
    double t3 = e->be->now_ns();
    if ((rc = lrecv(e, &r)))
        return rc;
    series_add(orr, e->be->now_ns() - t3 - e->overhead_ns);
    return 0;
}

typedef struct sweep_state {
    long n_stream;           /* saturated stream length */
    double g0_ns, sat_change;
    int sat_converged;
    double *scratch;
} sweep_state;

/* g(0): LogP/MPI's saturation test. */
static int saturation(engine *e, sweep_state *s)
{
    double rtt[SAT_REPEAT * 7], t[SAT_REPEAT], prev = -1, g = 0;
    int rc;
    for (int i = 0; i < WARMUP_RTT; i++)
        if ((rc = round_trip(e, 0, NULL)))
            return rc;
    for (int i = 0; i < SAT_REPEAT * 7; i++)
        if ((rc = round_trip(e, 0, &rtt[i])))
            return rc;
    gsl_sort(rtt, 1, SAT_REPEAT * 7);
    double rtt0 = gsl_stats_median_from_sorted_data(rtt, 1, SAT_REPEAT * 7);
    double start = e->be->now_ns();
    long n = SAT_START;
    for (;; n *= 2) {
        for (int k = 0; k < SAT_REPEAT; k++)
            if ((rc = stream(e, 0, n, 0, &t[k], NULL)))
                return rc;
        gsl_sort(t, 1, SAT_REPEAT);
        g = (gsl_stats_median_from_sorted_data(t, 1, SAT_REPEAT) - rtt0) / (double)(n - 1);
        s->sat_change = prev > 0 ? fabs(g - prev) / prev : INFINITY;
        /* stop when the next length would overrun the time budget */
        double spent = e->be->now_ns() - start;
        if ((s->sat_converged = s->sat_change < SAT_CHANGE) || 2 * n > SAT_MAX_N ||
            spent + 2.0 * SAT_REPEAT * (double)n * fmax(g, 0) > SAT_MAX_NS)
            break;
        prev = g;
    }
    s->n_stream = n;
    s->g0_ns = g > 0 ? g : 0;
    return 0;
}

static void make_flag(const logp_config *cfg, const estimate est[3], logp_row *row)
{
    size_t len = 0;
    row->flag[0] = '\0';
    if (est[0].mean > est[2].mean)
        len += (size_t)snprintf(row->flag + len, sizeof row->flag - len, "os>g");
    if (est[1].mean > est[2].mean)
        len += (size_t)snprintf(row->flag + len, sizeof row->flag - len, "%sor>g",
                                len ? "," : "");
    if (!narrow(&est[0], cfg->eps) || !narrow(&est[1], cfg->eps) || !narrow(&est[2], cfg->eps))
        len += (size_t)snprintf(row->flag + len, sizeof row->flag - len, "%swide",
                                len ? "," : "");
    if (!len)
        snprintf(row->flag, sizeof row->flag, "ok");
}

/* ---- the sweep, interleaved -------------------------------------------- */

/* One size being measured.  The sizes of a pass take turns (measure_pass):
 * each turn is one overhead pair, one stream and (at the largest sizes)
 * one one-way stream, so that a change of the machine's speed during the
 * sweep (this VM's core-to-core latency jumps between regimes, 25, 55 and
 * 250 ns, within seconds) falls on every size alike, the smallest one that
 * fixes L included.  Measured one size after another, the identity
 * RTT/2 = os + L + or was 20-42% off wherever the regime had moved between
 * the smallest size and the one compared (README). */
typedef struct size_run {
    long m;
    int extra;               /* inserted by the nonlinearity search */
    series sr[5];            /* os, or and rtt of the overhead pairs; with
                                --os-fence the fenced send's os and rtt */
    series gt;               /* stream times, n messages each */
    series owt;              /* one-way streams: time per message */
    long n, next_check;
    double rtt_guess;        /* for the waiting time delta */
    long g_lost, ow_lost;     /* streams dropped: this process lost its CPU */
    long g_lost_kept, ow_lost_kept;   /* ... and kept, the drops used up */
    int ov_active, g_active, ow_active, done;
} size_run;

/* g(m) from streams of n messages: T = (n - 1) g + RTT, the size's round
 * trip subtracted: its lower quartile, as the streams' outliers are judged
 * (round trips slowed by a lost CPU would eat into g: with another job
 * spinning on the cores, a median round trip of 2.5 ms left g at 8 us of
 * an injected 160 us). */
static estimate gap_estimate(const logp_config *cfg, const size_run *r, double *scratch)
{
    double g[STREAM_MAX_SAMPLES];
    series gs = {g, 0, STREAM_MAX_SAMPLES};
    estimate none = {0, INFINITY};
    if (r->gt.n == 0 || r->sr[2].n == 0)
        return none;
    memcpy(scratch, r->sr[2].x, (size_t)r->sr[2].n * sizeof *scratch);
    gsl_sort(scratch, 1, (size_t)r->sr[2].n);
    double rtt = gsl_stats_quantile_from_sorted_data(scratch, 1, (size_t)r->sr[2].n, 0.25);
    for (long i = 0; i < r->gt.n; i++)
        series_add(&gs, (r->gt.x[i] - rtt) / (double)(r->n - 1));
    return series_estimate(&gs, cfg->conf, STREAM_OUTLIER_FACTOR, 1, scratch);
}

static void run_free(size_run *r)
{
    for (int i = 0; i < 5; i++)
        free(r->sr[i].x);
    free(r->gt.x);
    free(r->owt.x);
}

/* Warm-up at size m; the stream length: the saturated one, halved (to at
 * least STREAM_MIN_N) while a stream would last over STREAM_MAX_NS at a
 * message per max(RTT/2, g(0)). */
static int run_start(engine *e, sweep_state *s, size_run *r)
{
    double warm[WARMUP_RTT];
    long cap = logp_rtt_cap(e->cfg->max_rtt, r->m);
    int rc = 0;
    for (int i = 0; i < 5 && !rc; i++)
        rc = series_init(&r->sr[i], i < 3 || e->cfg->os_fence ? cap : 0);
    if (!rc)
        rc = series_init(&r->gt, STREAM_MAX_SAMPLES);
    if (!rc)
        rc = series_init(&r->owt, r->ow_active ? STREAM_MAX_SAMPLES : 0);
    for (int i = 0; i < WARMUP_RTT && !rc; i++)
        rc = round_trip(e, r->m, &warm[i]);
    if (rc)
        return rc;
    gsl_sort(warm, 1, WARMUP_RTT);
    r->rtt_guess = gsl_stats_median_from_sorted_data(warm, 1, WARMUP_RTT);
    double per = fmax(r->rtt_guess / 2, s->g0_ns);
    for (r->n = s->n_stream; r->n > STREAM_MIN_N && (double)r->n * per > STREAM_MAX_NS;)
        r->n /= 2;
    r->next_check = MIN_SAMPLES;
    r->ov_active = r->g_active = 1;
    return 0;
}

/* The untimed round trips that start a turn: TURN_WARMUP_RTT, and one more
 * when a coin says so (GSL's MT19937 at its default seed: a
 * run's sequence is the same every time). */
static int turn_warmups(engine *e)
{
    return TURN_WARMUP_RTT + (int)gsl_rng_uniform_int(e->coin, 2);
}

/* A stream's value into s, unless this process lost its CPU during it
 * (*dropped counts those); once STREAM_MAX_TRIES - STREAM_MAX_SAMPLES have
 * been dropped, lost streams are kept too (*kept counts those: the value
 * then gets a 100% interval). */
static void keep_stream(series *s, double v, int lost, long *dropped, long *kept)
{
    int give_up = lost && ++*dropped > STREAM_MAX_TRIES - STREAM_MAX_SAMPLES;
    if (!lost || give_up)
        series_add(s, v);
    *kept += give_up;
}

/* One turn of size r: re-warmed after the other sizes' turns, one overhead
 * pair, one stream, one one-way stream, each while its quantity is still
 * short of its interval (LogP/MPI's rule, per quantity and size) and its
 * cap. */
static int run_turn(engine *e, sweep_state *s, size_run *r)
{
    const logp_config *cfg = e->cfg;
    double t;
    int rc = 0, lost;
    int warmups = turn_warmups(e);
    for (int i = 0; i < warmups && !rc; i++)
        rc = round_trip(e, r->m, NULL);
    if (!rc && r->ov_active) {
        int fence = cfg->os_fence;
        rc = overhead_pair(e, r->m, &r->sr[0], &r->sr[1], &r->sr[2], fence ? &r->sr[3] : NULL,
                           fence ? &r->sr[4] : NULL,
                           DELTA_RTT_FACTOR * r->rtt_guess + DELTA_MIN_NS);
        if (!rc && r->sr[0].n >= r->next_check) {
            r->next_check += r->next_check / 2;
            estimate os = series_estimate(&r->sr[0], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
            estimate orr = series_estimate(&r->sr[1], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
            estimate osf = fence ? series_estimate(&r->sr[3], cfg->conf, OUTLIER_FACTOR, 0,
                                                   s->scratch) : os;
            r->rtt_guess = series_estimate(&r->sr[2], cfg->conf, OUTLIER_FACTOR, 0,
                                           s->scratch).mean;
            r->ov_active = !(narrow(&os, cfg->eps) && narrow(&orr, cfg->eps) &&
                             narrow(&osf, cfg->eps));
        }
        if (r->sr[0].n >= r->sr[0].cap)
            r->ov_active = 0;
    }
    /* A stream during which this process lost its CPU (the sends then
     * wait for it: the stream lasts a time slice longer) is taken again,
     * up to STREAM_MAX_TRIES streams; the peer's lost CPU is caught up
     * while the stream goes on, or left to the outlier rule. */
    if (!rc && r->g_active && (rc = stream(e, r->m, r->n, 0, &t, &lost)) == 0) {
        keep_stream(&r->gt, t, lost, &r->g_lost, &r->g_lost_kept);
        if (r->gt.n >= STREAM_MIN_SAMPLES) {
            estimate g = gap_estimate(cfg, r, s->scratch);
            r->g_active = !narrow(&g, cfg->eps) && r->gt.n < r->gt.cap;
        }
    }
    if (!rc && r->ow_active && (rc = stream(e, r->m, OW_REPS, 1, &t, &lost)) == 0) {
        keep_stream(&r->owt, t / OW_REPS, lost, &r->ow_lost, &r->ow_lost_kept);
        if (r->owt.n >= STREAM_MIN_SAMPLES) {
            estimate ow = series_estimate(&r->owt, cfg->conf, STREAM_OUTLIER_FACTOR, 1,
                                          s->scratch);
            r->ow_active = !narrow(&ow, cfg->eps) && r->owt.n < r->owt.cap;
        }
    }
    return rc;
}

/* The finished size's row. */
static void run_row(const engine *e, sweep_state *s, const size_run *r, logp_row *row)
{
    const logp_config *cfg = e->cfg;
    estimate est[3];
    est[0] = series_estimate(&r->sr[0], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
    est[1] = series_estimate(&r->sr[1], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
    est[2] = gap_estimate(cfg, r, s->scratch);
    estimate rt = series_estimate(&r->sr[2], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
    for (int i = 0; i < 3; i++)   /* under two samples kept: no interval, say 100% */
        if (!isfinite(est[i].ci) || (i == 2 && r->g_lost_kept))
            est[i].ci = fmax(isfinite(est[i].ci) ? est[i].ci : 0, fabs(est[i].mean));
    *row = (logp_row){.size_bytes = r->m, .os_ns = fmax(est[0].mean, 0), .os_ci_ns = est[0].ci,
                      .or_ns = fmax(est[1].mean, 0), .or_ci_ns = est[1].ci,
                      .g_ns = fmax(est[2].mean, 0), .g_ci_ns = est[2].ci,
                      .rtt_ns = rt.mean, .round_trips = (cfg->os_fence ? 3 : 2) * r->sr[0].n};
    if (cfg->os_fence) {
        estimate osf = series_estimate(&r->sr[3], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
        estimate rttf = series_estimate(&r->sr[4], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
        row->has_fence = 1;
        row->os_fence_ns = fmax(osf.mean, 0);
        row->os_fence_ci_ns = isfinite(osf.ci) ? osf.ci : fabs(osf.mean);
        row->rtt_fence_ns = rttf.mean;
        if (!narrow(&osf, cfg->eps))   /* the flag says wide for the fenced os too */
            est[0].ci = fmax(est[0].ci, osf.ci);
    }
    make_flag(cfg, est, row);
}

static void progress(const logp_config *cfg, const logp_row *r, int extra)
{
    if (cfg->quiet)
        return;
    fprintf(stderr, "%s: logp %c%7ld B: os %9.1f ns [%4ld]  or %9.1f ns  g %9.1f ns  rtt %9.1f"
                    " ns  %s", cfg->prog, extra ? '+' : ' ', r->size_bytes, r->os_ns,
            r->round_trips / (r->has_fence ? 3 : 2), r->or_ns, r->g_ns, r->rtt_ns, r->flag);
    if (r->has_fence)
        fprintf(stderr, "  fenced: os %.1f ns rtt %.1f ns", r->os_fence_ns, r->rtt_fence_ns);
    fputc('\n', stderr);
}

/* The one-way streams' time per message at the sizes that took them, for
 * the header: "SIZE:MEAN:CI ..." (ns). */
typedef struct ow_record {
    char text[512];
    size_t len;
} ow_record;

static void ow_note(const engine *e, sweep_state *s, const size_run *r, ow_record *rec)
{
    if (r->owt.n == 0 || rec->len + 64 > sizeof rec->text)
        return;
    estimate ow = series_estimate(&r->owt, e->cfg->conf, STREAM_OUTLIER_FACTOR, 1, s->scratch);
    rec->len += (size_t)snprintf(rec->text + rec->len, sizeof rec->text - rec->len,
                                 "%s%ld:%.1f:%.1f", rec->len ? " " : "", r->m, ow.mean,
                                 isfinite(ow.ci) && !r->ow_lost_kept ? ow.ci : fabs(ow.mean));
}

/* The sizes of one pass (sorted), interleaved: warm-ups in order, then
 * rounds in which every size still short of an interval takes a turn,
 * until none is.  A size's row goes into all (and its progress line out) as soon as
 * it is finished; an error or interruption leaves the unfinished ones out.
 * ow_from: sizes from here up take one-way streams (0: none). */
static int measure_pass(engine *e, sweep_state *s, logp_data *all, ow_record *rec,
                        const long *sizes, int count, int extra, long ow_from)
{
    size_run *runs = calloc((size_t)(count ? count : 1), sizeof *runs);
    int rc = 0, active = count;
    if (!runs)
        return BENCH_ERR_SYSTEM;
    for (int i = 0; i < count && !rc; i++) {
        runs[i] = (size_run){.m = sizes[i], .extra = extra,
                             .ow_active = ow_from > 0 && sizes[i] >= ow_from};
        rc = run_start(e, s, &runs[i]);
    }
    /* Rounds go up and down the sizes in turn: a size always follows a
     * neighbour (or itself), never the largest (at 1 B right after 64 KiB,
     * or came out 15-30 ns high, and L with it low). */
    for (int round = 0; active && !rc; round++)
        for (int j = 0; j < count && !rc; j++) {
            size_run *r = &runs[round % 2 ? count - 1 - j : j];
            if (!r->done && bench_interrupted())   /* between turns, not inside */
                rc = BENCH_ERR_INTERRUPT;
            if (r->done || rc || (rc = run_turn(e, s, r)) || r->ov_active || r->g_active ||
                r->ow_active)
                continue;
            logp_row row;
            run_row(e, s, r, &row);
            if (logp_data_add(all, &row))
                rc = BENCH_ERR_SYSTEM;
            progress(e->cfg, &row, r->extra);
            ow_note(e, s, r, rec);
            r->done = 1;
            active--;
        }
    for (int i = 0; i < count; i++)
        run_free(&runs[i]);
    free(runs);
    return rc;
}

static int by_size(const void *a, const void *b)
{
    long x = ((const logp_row *)a)->size_bytes, y = ((const logp_row *)b)->size_bytes;
    return (x > y) - (x < y);
}

/* The header (L once the smallest size is in, the one-way streams) and the
 * rows, sorted. */
static void write_all(const logp_config *cfg, bench_data *h, logp_data *all,
                      const ow_record *rec, FILE *out)
{
    if (all->count)   /* (an interrupted run may have none: qsort wants rows) */
        qsort(all->rows, (size_t)all->count, sizeof *all->rows, by_size);
    if (all->count && all->rows[0].size_bytes == cfg->min_size &&
        !bench_data_header(h, "L_ns")) {
        const logp_row *r = &all->rows[0];
        double L = r->rtt_ns / 2 - r->os_ns - r->or_ns;
        double Lf = r->has_fence ? r->rtt_fence_ns / 2 - r->os_fence_ns - r->or_ns : 0;
        bench_data_set_header(h, "L_ns", "%.1f", L);
        if (r->has_fence)
            bench_data_set_header(h, "L_fence_ns", "%.1f", Lf);
        /* A negative L is a measured fact, not a latency: flagged with why */
        if (L < 0 || Lf < 0)
            bench_data_set_header(h, "L_flag", "negative, not a latency: os + or (%.1f ns) exceed"
                                  " RTT/2 (%.1f ns) at %ld B, the overheads overlap the wire"
                                  " (calibrate --logp holds L at 0)", r->os_ns + r->or_ns,
                                  r->rtt_ns / 2, r->size_bytes);
    }
    if (rec->len) {
        bench_data_set_header(h, "ow_reps", "%d", OW_REPS);
        bench_data_set_header(h, "ow_ns", "%s", rec->text);
    }
    logp_data_write_header(out, h);
    for (long i = 0; i < all->count; i++)
        logp_data_write_row(out, &all->rows[i]);
    fflush(out);
}

/* Of sizes, those the resumed file has go straight into all; the others
 * are compacted to the front.  Returns how many are left to measure. */
static int take_done(const logp_config *cfg, logp_data *all, long *sizes, int count, int *rc)
{
    int left = 0;
    for (int i = 0; i < count; i++) {
        const logp_row *done = cfg->done ? logp_data_find(cfg->done, sizes[i]) : NULL;
        if (logp_data_find(all, sizes[i]))
            continue;
        if (!done)
            sizes[left++] = sizes[i];
        else if (logp_data_add(all, done))
            *rc = BENCH_ERR_SYSTEM;
    }
    return left;
}

/* Resumed: the saturation test's results (and L, the one-way streams) from
 * the file's header. */
static int resumed_saturation(const logp_config *cfg, sweep_state *s, bench_data *h,
                              ow_record *rec)
{
    const bench_data *dh = cfg->done ? &cfg->done->hdr : NULL;
    const char *n = dh ? bench_data_header(dh, "stream_messages") : NULL;
    const char *g = dh ? bench_data_header(dh, "g0_ns") : NULL;
    if (!n || !g || sscanf(n, "%ld", &s->n_stream) != 1 || sscanf(g, "%lf", &s->g0_ns) != 1 ||
        s->n_stream < 2)
        return 0;
    bench_data_set_header(h, "g0_ns", "%s", g);
    bench_data_set_header(h, "stream_messages", "%s", n);
    if (bench_data_header(dh, "L_ns"))
        bench_data_set_header(h, "L_ns", "%s", bench_data_header(dh, "L_ns"));
    if (bench_data_header(dh, "L_fence_ns"))
        bench_data_set_header(h, "L_fence_ns", "%s", bench_data_header(dh, "L_fence_ns"));
    if (bench_data_header(dh, "L_flag"))
        bench_data_set_header(h, "L_flag", "%s", bench_data_header(dh, "L_flag"));
    const char *ow = bench_data_header(dh, "ow_ns");
    if (ow)
        rec->len = (size_t)snprintf(rec->text, sizeof rec->text, "%s", ow);
    return 1;
}

static int measure_all(engine *e, bench_data *h, FILE *out)
{
    const logp_config *cfg = e->cfg;
    sweep_state s = {0};
    logp_data all = {0};
    ow_record rec = {"", 0};
    long sizes[LOGP_MAX_SIZES], next[LOGP_MAX_EXTRA_SIZES], ow_from = 0;
    double res;
    int rc = 0, n = logp_sweep_sizes(cfg->min_size, cfg->max_size, sizes, LOGP_MAX_SIZES);
    long scratch_n = logp_rtt_cap(cfg->max_rtt, 0);

    bench_timer_measure(e->be, &res, &e->overhead_ns);
    bench_data_set_header(h, "timer", "%s resolution_ns=%.0f overhead_ns=%.0f",
                          e->be->timer_name, res, e->overhead_ns);
    if (!(s.scratch = malloc((size_t)(scratch_n > STREAM_MAX_SAMPLES ? scratch_n
                                                                     : STREAM_MAX_SAMPLES) *
                             sizeof *s.scratch)))
        return BENCH_ERR_SYSTEM;
    if (!resumed_saturation(cfg, &s, h, &rec) && (rc = saturation(e, &s)) == 0) {
        bench_data_set_header(h, "g0_ns", "%.1f", s.g0_ns);
        bench_data_set_header(h, "stream_messages", "%ld", s.n_stream);
        if (!cfg->quiet)
            fprintf(stderr, "%s: logp g(0) %.1f ns from streams of %ld messages (saturation:"
                            " throughput change %.1f%%%s)\n", cfg->prog, s.g0_ns, s.n_stream,
                    100 * s.sat_change, s.sat_converged ? "" : ", not under 1%: capped");
    }
    /* one-way streams at the sweep's largest sizes (from max / OW_SIZE_SPAN) */
    for (int i = 0; i < n; i++)
        if (sizes[i] >= OW_MIN_BYTES && sizes[i] * OW_SIZE_SPAN >= cfg->max_size) {
            ow_from = sizes[i];
            break;
        }
    if (!rc)
        n = take_done(cfg, &all, sizes, n, &rc);
    if (!rc)
        rc = measure_pass(e, &s, &all, &rec, sizes, n, 0, ow_from);
    /* the nonlinearity search: every size it asks for in one interleaved
     * pass, then again over the rows with them, until it asks for none */
    for (int extra = 0; !rc && extra < LOGP_MAX_EXTRA_SIZES;) {
        qsort(all.rows, (size_t)all.count, sizeof *all.rows, by_size);
        int k = logp_next_sizes(all.rows, all.count, cfg->max_diff, cfg->eps, next,
                                LOGP_MAX_EXTRA_SIZES - extra);
        if (!k)
            break;
        extra += k;
        k = take_done(cfg, &all, next, k, &rc);
        if (!rc)
            rc = measure_pass(e, &s, &all, &rec, next, k, 1, 0);
    }
    write_all(cfg, h, &all, &rec, out);
    logp_data_free(&all);
    free(s.scratch);
    return rc;
}

int bench_logp_run(const bench_backend *be, bench_comm *comm, const logp_config *cfg,
                   bench_data *h, FILE *out)
{
    engine e = {.be = be, .comm = comm, .cfg = cfg, .rank = be->rank(comm),
                .cap = (size_t)(cfg->max_size > 0 ? cfg->max_size : 1)};
    int rc;
    if (be->size(comm) != 2 || e.rank > 1)
        return BENCH_ERR_SYSTEM;
    e.peer = 1 - e.rank;
    e.tx = bench_page_alloc(e.cap);
    e.rx = bench_page_alloc(e.cap);
    e.coin = gsl_rng_alloc(gsl_rng_mt19937);
    if (!e.tx || !e.rx || !e.coin)
        rc = BENCH_ERR_SYSTEM;
    else if ((rc = be->barrier(comm)) == 0 && e.rank == 0) {
        rc = measure_all(&e, h, out);
        bench_msg stop = {BENCH_MSG_STOP, 0, 1, 1, -1, 0, 0};
        if (rc != BENCH_ERR_PEER && be->send(comm, 1, &stop, e.tx) && !rc)
            rc = BENCH_ERR_PEER;
    } else if (!rc) {
        rc = mirror(&e);
    }
    free(e.tx);
    free(e.rx);
    gsl_rng_free(e.coin);
    return rc;
}
