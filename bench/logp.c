/* logp: os, or, g and L between two processes over any backend (issue 13). */
#include "bench/logp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "bench/pattern.h"

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
 * stream would last over 2 ms; 3..30 streams per size. */
#define STREAM_MAX_NS 2e6
#define STREAM_MIN_N 16
#define STREAM_MIN_SAMPLES 3
#define STREAM_MAX_SAMPLES 30
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

int logp_next_size(const logp_row *rows, long n, double max_diff, double eps, long *size)
{
    for (long i = 2; i < n; i++) {
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
                *size = (b->size_bytes + c->size_bytes) / 2;
                return 1;
            }
        }
    }
    return 0;
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

/* Sends len bytes to the peer; last asks it for an equal-sized reply. */
static int lsend(engine *e, long len, int last)
{
    const logp_config *cfg = e->cfg;
    pace(e);
    double start = cfg->inject_gap_ns > 0 || cfg->inject_os_ns > 0 ? mono_ns() : 0;
    e->next_send_ns = start + cfg->inject_gap_ns;
    if (cfg->inject_os_ns > 0)
        spin_until(start + cfg->inject_os_ns);
    bench_msg m = {e->rank ? BENCH_MSG_RESPONSE : BENCH_MSG_REQUEST, last, e->peer, e->peer, -1,
                   0, len};
    return e->be->send(e->comm, e->peer, &m, e->tx);
}

static int lrecv(engine *e, bench_msg *m)
{
    int rc = e->be->recv(e->comm, m, e->rx, e->cap);
    if (!rc && e->cfg->inject_or_ns > 0)
        spin_until(mono_ns() + e->cfg->inject_or_ns);
    return rc;
}

/* Process 1: receive; answer a message marked last with as many bytes. */
static int mirror(engine *e)
{
    bench_msg m;
    int rc;
    while ((rc = lrecv(e, &m)) == 0) {
        if (m.kind == BENCH_MSG_STOP)
            return 0;
        if (m.last && (rc = lsend(e, m.len, 0)))
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
    int rc = lsend(e, m, 1);
    if (!rc)
        rc = lrecv(e, &r);
    if (ns)
        *ns = e->be->now_ns() - t0;
    return rc;
}

/* A stream of n m-byte messages ended by a reply to the last; its time. */
static int stream(engine *e, long m, long n, double *ns)
{
    bench_msg r;
    int rc = 0;
    pace(e);
    double t0 = e->be->now_ns();
    for (long i = 0; i < n && !rc; i++)
        rc = lsend(e, m, i == n - 1);
    if (!rc)
        rc = lrecv(e, &r);
    *ns = e->be->now_ns() - t0;
    return rc;
}

/* os and rtt from a round trip without delta, or from one with it. */
static int overhead_pair(engine *e, long m, series *os, series *orr, series *rtt,
                         double delta_ns)
{
    bench_msg r;
    pace(e);
    double t0 = e->be->now_ns();
    int rc = lsend(e, m, 1);
    double t1 = e->be->now_ns();
    if (rc || (rc = lrecv(e, &r)))
        return rc;
    double t2 = e->be->now_ns();
    series_add(os, t1 - t0 - e->overhead_ns);
    series_add(rtt, t2 - t0 - e->overhead_ns);
    pace(e);
    if ((rc = lsend(e, m, 1)) || (e->be->complete && (rc = e->be->complete(e->comm))))
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
    double g_last_ns;        /* g at the largest size measured so far */
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
            if ((rc = stream(e, 0, n, &t[k])))
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
    s->g_last_ns = s->g0_ns;
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

/* os(m), or(m) and the round trip to the interval (or the cap). */
static int measure_overheads(engine *e, sweep_state *s, long m, estimate est[3], series sr[3])
{
    const logp_config *cfg = e->cfg;
    double warm[WARMUP_RTT];
    long next_check = MIN_SAMPLES;
    int rc;
    for (int i = 0; i < WARMUP_RTT; i++)
        if ((rc = round_trip(e, m, &warm[i])))
            return rc;
    gsl_sort(warm, 1, WARMUP_RTT);
    estimate rt = {gsl_stats_median_from_sorted_data(warm, 1, WARMUP_RTT), 0};
    while (sr[0].n < sr[0].cap) {
        double delta = DELTA_RTT_FACTOR * rt.mean + DELTA_MIN_NS;
        if ((rc = overhead_pair(e, m, &sr[0], &sr[1], &sr[2], delta)))
            return rc;
        if (sr[0].n < next_check)
            continue;
        next_check += next_check / 2;
        est[0] = series_estimate(&sr[0], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
        est[1] = series_estimate(&sr[1], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
        rt = series_estimate(&sr[2], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
        if (narrow(&est[0], cfg->eps) && narrow(&est[1], cfg->eps))
            break;
    }
    est[0] = series_estimate(&sr[0], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
    est[1] = series_estimate(&sr[1], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
    return 0;
}

/* g(m) from streams of n messages: T = (n - 1) g + RTT, the median round
 * trip (one slowed by a lost CPU would eat into g) subtracted. */
static int measure_gap(engine *e, sweep_state *s, long m, double rtt_ns, estimate *g)
{
    series gs;
    long n = s->n_stream;
    double per = fmax(rtt_ns / 2, s->g_last_ns), t;
    int rc = series_init(&gs, STREAM_MAX_SAMPLES);
    while (n > STREAM_MIN_N && (double)n * per > STREAM_MAX_NS)
        n /= 2;
    while (!rc && gs.n < STREAM_MAX_SAMPLES) {
        if ((rc = stream(e, m, n, &t)))
            break;
        series_add(&gs, (t - rtt_ns) / (double)(n - 1));
        if (gs.n >= STREAM_MIN_SAMPLES) {
            *g = series_estimate(&gs, e->cfg->conf, STREAM_OUTLIER_FACTOR, 1, s->scratch);
            if (narrow(g, e->cfg->eps))
                break;
        }
    }
    free(gs.x);
    return rc;
}

static int measure_size(engine *e, sweep_state *s, long m, logp_row *row)
{
    series sr[3] = {{0}};
    estimate est[3] = {{0, INFINITY}, {0, INFINITY}, {0, INFINITY}}, rt;
    long cap = logp_rtt_cap(e->cfg->max_rtt, m);
    int rc = 0;
    for (int i = 0; i < 3 && !rc; i++)
        rc = series_init(&sr[i], cap);
    if (!rc)
        rc = measure_overheads(e, s, m, est, sr);
    if (!rc) {
        rt = series_estimate(&sr[2], e->cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
        memcpy(s->scratch, sr[2].x, (size_t)sr[2].n * sizeof *s->scratch);
        gsl_sort(s->scratch, 1, (size_t)sr[2].n);
        rc = measure_gap(e, s, m, gsl_stats_median_from_sorted_data(s->scratch, 1,
                                                                    (size_t)sr[2].n), &est[2]);
    }
    for (int i = 0; i < 3; i++)   /* under two samples kept: no interval, say 100% */
        if (!isfinite(est[i].ci))
            est[i].ci = fabs(est[i].mean);
    if (!rc) {
        *row = (logp_row){.size_bytes = m, .os_ns = fmax(est[0].mean, 0), .os_ci_ns = est[0].ci,
                          .or_ns = fmax(est[1].mean, 0), .or_ci_ns = est[1].ci,
                          .g_ns = fmax(est[2].mean, 0), .g_ci_ns = est[2].ci,
                          .rtt_ns = rt.mean, .round_trips = 2 * sr[0].n};
        make_flag(e->cfg, est, row);
        s->g_last_ns = row->g_ns;
    }
    for (int i = 0; i < 3; i++)
        free(sr[i].x);
    return rc;
}

static void progress(const logp_config *cfg, const logp_row *r, int extra)
{
    if (cfg->quiet)
        return;
    fprintf(stderr, "%s: logp %c%7ld B: os %9.1f ns [%4ld]  or %9.1f ns  g %9.1f ns  rtt %9.1f"
                    " ns  %s\n", cfg->prog, extra ? '+' : ' ', r->size_bytes, r->os_ns,
            r->round_trips / 2, r->or_ns, r->g_ns, r->rtt_ns, r->flag);
}

static int by_size(const void *a, const void *b)
{
    long x = ((const logp_row *)a)->size_bytes, y = ((const logp_row *)b)->size_bytes;
    return (x > y) - (x < y);
}

/* The header (L once the smallest size is in) and the rows, sorted. */
static void write_all(bench_data *h, logp_data *all, FILE *out)
{
    qsort(all->rows, (size_t)all->count, sizeof *all->rows, by_size);
    if (all->count && !bench_data_header(h, "L_ns")) {
        const logp_row *r = &all->rows[0];
        bench_data_set_header(h, "L_ns", "%.1f", r->rtt_ns / 2 - r->os_ns - r->or_ns);
    }
    logp_data_write_header(out, h);
    for (long i = 0; i < all->count; i++)
        logp_data_write_row(out, &all->rows[i]);
    fflush(out);
}

/* A size: from the resumed file, or measured now. */
static int take_size(engine *e, sweep_state *s, logp_data *all, long m, int extra)
{
    const logp_row *done = e->cfg->done ? logp_data_find(e->cfg->done, m) : NULL;
    logp_row row;
    int rc = 0;
    if (logp_data_find(all, m))
        return 0;
    if (done)
        row = *done;
    else if ((rc = measure_size(e, s, m, &row)))
        return rc;
    else
        progress(e->cfg, &row, extra);
    return logp_data_add(all, &row) ? BENCH_ERR_SYSTEM : 0;
}

/* Resumed: the saturation test's results from the file's header. */
static int resumed_saturation(const logp_config *cfg, sweep_state *s, bench_data *h)
{
    const bench_data *dh = cfg->done ? &cfg->done->hdr : NULL;
    const char *n = dh ? bench_data_header(dh, "stream_messages") : NULL;
    const char *g = dh ? bench_data_header(dh, "g0_ns") : NULL;
    if (!n || !g || sscanf(n, "%ld", &s->n_stream) != 1 || sscanf(g, "%lf", &s->g0_ns) != 1 ||
        s->n_stream < 2)
        return 0;
    s->g_last_ns = s->g0_ns;
    bench_data_set_header(h, "g0_ns", "%s", g);
    bench_data_set_header(h, "stream_messages", "%s", n);
    if (bench_data_header(dh, "L_ns"))
        bench_data_set_header(h, "L_ns", "%s", bench_data_header(dh, "L_ns"));
    return 1;
}

static int measure_all(engine *e, bench_data *h, FILE *out)
{
    const logp_config *cfg = e->cfg;
    sweep_state s = {0};
    logp_data all = {0};
    long sizes[LOGP_MAX_SIZES], next;
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
    if (!resumed_saturation(cfg, &s, h) && (rc = saturation(e, &s)) == 0) {
        bench_data_set_header(h, "g0_ns", "%.1f", s.g0_ns);
        bench_data_set_header(h, "stream_messages", "%ld", s.n_stream);
        if (!cfg->quiet)
            fprintf(stderr, "%s: logp g(0) %.1f ns from streams of %ld messages (saturation:"
                            " throughput change %.1f%%%s)\n", cfg->prog, s.g0_ns, s.n_stream,
                    100 * s.sat_change, s.sat_converged ? "" : ", not under 1%: capped");
    }
    for (int i = 0; i < n && !rc; i++)
        rc = take_size(e, &s, &all, sizes[i], 0);
    for (int extra = 0; !rc && extra < LOGP_MAX_EXTRA_SIZES; extra++) {
        qsort(all.rows, (size_t)all.count, sizeof *all.rows, by_size);
        if (!logp_next_size(all.rows, all.count, cfg->max_diff, cfg->eps, &next))
            break;
        rc = take_size(e, &s, &all, next, 1);
    }
    write_all(h, &all, out);
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
    if (!e.tx || !e.rx)
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
    return rc;
}
