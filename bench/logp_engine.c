/* logp_engine: the LogP pattern's measurements between its two processes
 * and their statistics (bench/logp_engine.h). */
#include "bench/logp_engine.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* ---- statistics ------------------------------------------------------ */

int logp_series_init(series *s, long cap)
{
    s->n = 0;
    s->cap = cap;
    s->x = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *s->x);
    return s->x ? 0 : BENCH_ERR_SYSTEM;
}

void logp_series_add(series *s, double v)
{
    if (s->n < s->cap)
        s->x[s->n++] = v;
}

/* Mean and its Student-t interval at level conf over the samples up to
 * outlier x their median (lower: x their lower quartile); all of them when
 * that reference is <= 0. */
estimate logp_series_estimate(const series *s, double conf, double outlier, int lower,
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

int logp_narrow(const estimate *e, double eps)
{
    return e->ci <= eps * fabs(e->mean);
}

/* ---- the two processes' send and receive ----------------------------- */

/* The injected delays run on CLOCK_MONOTONIC, whatever the backend times with: a clock that
 * steps (MPI_Wtime may) would make a delay of milliseconds (test_logp injects them). */
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
int logp_mirror(engine *e)
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
int logp_round_trip(engine *e, long m, double *ns)
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
int logp_stream(engine *e, long m, long n, int ack, double *ns, int *lost)
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
    logp_series_add(os, t1 - t0 - e->overhead_ns);
    logp_series_add(rtt, t2 - t0 - e->overhead_ns);
    return 0;
}

/* os and rtt from a round trip without delta, or from one with it.  With
 * --os-fence (osf, rttf not NULL), also the fenced send's os and round trip
 * from a third, before or after the plain one in turn. */
int logp_overhead_pair(engine *e, long m, series *os, series *orr, series *rtt,
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
    /* or's round trip, as LogP/MPI's: an 8-byte (eager) request out, the m-byte reply back; an
     * m-byte request's completion polls the reply's header in before the timed receive, which
     * then times less than a receive's cost. */
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
    logp_series_add(orr, e->be->now_ns() - t3 - e->overhead_ns);
    return 0;
}


/* g(0): LogP/MPI's saturation test. */
int logp_saturation(engine *e, sweep_state *s)
{
    double rtt[SAT_REPEAT * 7], t[SAT_REPEAT], prev = -1, g = 0;
    int rc;
    for (int i = 0; i < WARMUP_RTT; i++)
        if ((rc = logp_round_trip(e, 0, NULL)))
            return rc;
    for (int i = 0; i < SAT_REPEAT * 7; i++)
        if ((rc = logp_round_trip(e, 0, &rtt[i])))
            return rc;
    gsl_sort(rtt, 1, SAT_REPEAT * 7);
    double rtt0 = gsl_stats_median_from_sorted_data(rtt, 1, SAT_REPEAT * 7);
    double start = e->be->now_ns();
    long n = SAT_START;
    for (;; n *= 2) {
        for (int k = 0; k < SAT_REPEAT; k++)
            if ((rc = logp_stream(e, 0, n, 0, &t[k], NULL)))
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
