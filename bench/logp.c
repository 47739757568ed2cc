/* logp: os, or, g and L between two processes over any backend: the sweep over sizes
 * (bench/logp_engine.c measures; docs/model.md, 'LogP'). */
#include "bench/logp_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "bench/pattern.h"
#include "util/signals.h"

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

static void make_flag(const logp_config *cfg, const estimate est[3], logp_row *row)
{
    size_t len = 0;
    row->flag[0] = '\0';
    if (est[0].mean > est[2].mean)
        len += (size_t)snprintf(row->flag + len, sizeof row->flag - len, "os>g");
    if (est[1].mean > est[2].mean)
        len += (size_t)snprintf(row->flag + len, sizeof row->flag - len, "%sor>g",
                                len ? "," : "");
    if (!logp_narrow(&est[0], cfg->eps) || !logp_narrow(&est[1], cfg->eps) || !logp_narrow(&est[2], cfg->eps))
        len += (size_t)snprintf(row->flag + len, sizeof row->flag - len, "%swide",
                                len ? "," : "");
    if (!len)
        snprintf(row->flag, sizeof row->flag, "ok");
}

/* ---- the sweep, interleaved -------------------------------------------- */

/* One size being measured.  A pass's sizes take turns (measure_pass: an overhead pair, a stream,
 * a one-way stream at the largest), so a change of the machine's speed falls on all alike; one
 * after another, the round-trip identity (docs/model.md, 'LogP') does not hold. */
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

/* g(m) from streams of n messages: T = (n - 1) g + RTT, less the round trip's lower quartile, not
 * its median: a descheduled round trip inflates the median and takes g down with it (test_logp
 * recovers injected gaps). */
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
        logp_series_add(&gs, (r->gt.x[i] - rtt) / (double)(r->n - 1));
    return logp_series_estimate(&gs, cfg->conf, STREAM_OUTLIER_FACTOR, 1, scratch);
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
        rc = logp_series_init(&r->sr[i], i < 3 || e->cfg->os_fence ? cap : 0);
    if (!rc)
        rc = logp_series_init(&r->gt, STREAM_MAX_SAMPLES);
    if (!rc)
        rc = logp_series_init(&r->owt, r->ow_active ? STREAM_MAX_SAMPLES : 0);
    for (int i = 0; i < WARMUP_RTT && !rc; i++)
        rc = logp_round_trip(e, r->m, &warm[i]);
    if (rc)
        return rc;
    gsl_sort(warm, 1, WARMUP_RTT);
    r->rtt_guess = gsl_stats_median_from_sorted_data(warm, 1, WARMUP_RTT);
    double per = fmax(r->rtt_guess / 2, s->g0_ns);
    for (r->n = s->n_stream; r->n > STREAM_MIN_N && (double)r->n * per > STREAM_MAX_NS;)
        r->n /= 2;
    if (e->cfg->flood) {   /* this size's own saturated length, within the same time cap */
        sweep_state own = *s;
        if ((rc = logp_saturate(e, r->m, &own)))
            return rc;
        per = fmax(r->rtt_guess / 2, own.g0_ns);
        for (r->n = own.n_stream; r->n > STREAM_MIN_N && (double)r->n * per > STREAM_MAX_NS;)
            r->n /= 2;
        size_t len = strlen(s->flood);
        if (len + 32 < sizeof s->flood)
            snprintf(s->flood + len, sizeof s->flood - len, "%s%ld:%ld", len ? " " : "", r->m,
                     r->n);
    }
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
        logp_series_add(s, v);
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
        rc = logp_round_trip(e, r->m, NULL);
    if (!rc && r->ov_active) {
        int fence = cfg->os_fence;
        rc = logp_overhead_pair(e, r->m, &r->sr[0], &r->sr[1], &r->sr[2], fence ? &r->sr[3] : NULL,
                           fence ? &r->sr[4] : NULL,
                           DELTA_RTT_FACTOR * r->rtt_guess + DELTA_MIN_NS);
        if (!rc && r->sr[0].n >= r->next_check) {
            r->next_check += r->next_check / 2;
            estimate os = logp_series_estimate(&r->sr[0], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
            estimate orr = logp_series_estimate(&r->sr[1], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
            estimate osf = fence ? logp_series_estimate(&r->sr[3], cfg->conf, OUTLIER_FACTOR, 0,
                                                   s->scratch) : os;
            r->rtt_guess = logp_series_estimate(&r->sr[2], cfg->conf, OUTLIER_FACTOR, 0,
                                           s->scratch).mean;
            r->ov_active = !(logp_narrow(&os, cfg->eps) && logp_narrow(&orr, cfg->eps) &&
                             logp_narrow(&osf, cfg->eps));
        }
        if (r->sr[0].n >= r->sr[0].cap)
            r->ov_active = 0;
    }
    /* A stream during which this process lost its CPU (the sends then
     * wait for it: the stream lasts a time slice longer) is taken again,
     * up to STREAM_MAX_TRIES streams; the peer's lost CPU is caught up
     * while the stream goes on, or left to the outlier rule. */
    if (!rc && r->g_active && (rc = logp_stream(e, r->m, r->n, 0, &t, &lost)) == 0) {
        keep_stream(&r->gt, t, lost, &r->g_lost, &r->g_lost_kept);
        if (r->gt.n >= STREAM_MIN_SAMPLES) {
            estimate g = gap_estimate(cfg, r, s->scratch);
            r->g_active = !logp_narrow(&g, cfg->eps) && r->gt.n < r->gt.cap;
        }
    }
    if (!rc && r->ow_active && (rc = logp_stream(e, r->m, OW_REPS, 1, &t, &lost)) == 0) {
        keep_stream(&r->owt, t / OW_REPS, lost, &r->ow_lost, &r->ow_lost_kept);
        if (r->owt.n >= STREAM_MIN_SAMPLES) {
            estimate ow = logp_series_estimate(&r->owt, cfg->conf, STREAM_OUTLIER_FACTOR, 1,
                                          s->scratch);
            r->ow_active = !logp_narrow(&ow, cfg->eps) && r->owt.n < r->owt.cap;
        }
    }
    return rc;
}

/* The finished size's row. */
static void run_row(const engine *e, sweep_state *s, const size_run *r, logp_row *row)
{
    const logp_config *cfg = e->cfg;
    estimate est[3];
    est[0] = logp_series_estimate(&r->sr[0], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
    est[1] = logp_series_estimate(&r->sr[1], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
    est[2] = gap_estimate(cfg, r, s->scratch);
    estimate rt = logp_series_estimate(&r->sr[2], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
    for (int i = 0; i < 3; i++)   /* under two samples kept: no interval, say 100% */
        if (!isfinite(est[i].ci) || (i == 2 && r->g_lost_kept))
            est[i].ci = fmax(isfinite(est[i].ci) ? est[i].ci : 0, fabs(est[i].mean));
    *row = (logp_row){.size_bytes = r->m, .os_ns = fmax(est[0].mean, 0), .os_ci_ns = est[0].ci,
                      .or_ns = fmax(est[1].mean, 0), .or_ci_ns = est[1].ci,
                      .g_ns = fmax(est[2].mean, 0), .g_ci_ns = est[2].ci,
                      .rtt_ns = fmax(rt.mean, 0), .round_trips = (cfg->os_fence ? 3 : 2) * r->sr[0].n};
    if (cfg->os_fence) {
        estimate osf = logp_series_estimate(&r->sr[3], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
        estimate rttf = logp_series_estimate(&r->sr[4], cfg->conf, OUTLIER_FACTOR, 0, s->scratch);
        row->has_fence = 1;
        row->os_fence_ns = fmax(osf.mean, 0);
        row->os_fence_ci_ns = isfinite(osf.ci) ? osf.ci : fabs(osf.mean);
        row->rtt_fence_ns = fmax(rttf.mean, 0);
        if (!logp_narrow(&osf, cfg->eps))   /* the flag says wide for the fenced os too */
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
    estimate ow = logp_series_estimate(&r->owt, e->cfg->conf, STREAM_OUTLIER_FACTOR, 1, s->scratch);
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
            /* a stop asked here or in another process, between two turns */
            if (!r->done && (bench_interrupted() ||
                             (e->be->stop_asked && e->be->stop_asked(e->comm))))
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

/* LogP/MPI's k_max extension: g(m)/m has not settled while g at the largest
 * size m3 departs more than max_diff from the line through the two largest
 * below it; then 2 m3 is measured, up to --extend-to. */
static int extend_sizes(engine *e, sweep_state *s, logp_data *all, ow_record *rec)
{
    const logp_config *cfg = e->cfg;
    int rc = 0;
    while (!rc && all->count >= 3) {
        qsort(all->rows, (size_t)all->count, sizeof *all->rows, by_size);
        const logp_row *a = &all->rows[all->count - 3], *b = a + 1, *c = a + 2;
        double line = b->g_ns + (b->g_ns - a->g_ns) * (double)(c->size_bytes - b->size_bytes) /
                                    (double)(b->size_bytes - a->size_bytes);
        long next = 2 * c->size_bytes;
        if (fabs(c->g_ns - line) <= cfg->max_diff * c->g_ns || next > cfg->extend_to)
            break;
        rc = measure_pass(e, s, all, rec, &next, 1, 1, 0);
    }
    return rc;
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
        long used, usedf;
        double lo, hi, lof, hif;
        double L = logp_estimate_L(all->rows, all->count, 0, &used, &lo, &hi);
        double Lf = r->has_fence ? logp_estimate_L(all->rows, all->count, 1, &usedf, &lof, &hif) : 0;
        bench_data_set_header(h, "L_ns", "%.1f", L);
        bench_data_set_header(h, "L_from", "the median of RTT/2 - os - or over %ld sizes %ld..%ld B"
                              " (%.1f..%.1f ns)", used, r->size_bytes,
                              all->rows[used - 1].size_bytes, lo, hi);
        if (r->has_fence)
            bench_data_set_header(h, "L_fence_ns", "%.1f", Lf);
        /* A negative L is a measured fact, not a latency: flagged with why */
        if (L < 0)
            bench_data_set_header(h, "L_flag", "negative, not a latency: os + or exceed RTT/2 at"
                                  " the sizes up to %ld B (by %.1f ns, the median), the overheads"
                                  " overlap the wire (calibrate --logp holds L at 0)",
                                  all->rows[used - 1].size_bytes, -L);
        else if (Lf < 0)   /* L itself stands: say which of the two is negative */
            bench_data_set_header(h, "L_flag", "L_fence_ns negative, not a latency: the fenced os"
                                  " + or exceed RTT/2 at the sizes up to %ld B (by %.1f ns, the"
                                  " median), the fence's wait overlaps the wire; L_ns stands",
                                  all->rows[used - 1].size_bytes, -Lf);
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

/* This process's CPU time (user + system), ns. */
static double cpu_ns(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return 1e9 * (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e3 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
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

    double wall0 = e->be->now_ns(), cpu0 = cpu_ns();
    bench_timer_measure(e->be, &res, &e->overhead_ns);
    bench_data_set_header(h, "timer", "%s resolution_ns=%.0f overhead_ns=%.0f",
                          e->be->timer_name, res, e->overhead_ns);
    if (!(s.scratch = malloc((size_t)(scratch_n > STREAM_MAX_SAMPLES ? scratch_n
                                                                     : STREAM_MAX_SAMPLES) *
                             sizeof *s.scratch)))
        return BENCH_ERR_SYSTEM;
    if (!resumed_saturation(cfg, &s, h, &rec) && (rc = logp_saturation(e, &s)) == 0) {
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
    if (!rc && cfg->extend_to > cfg->max_size && (rc = extend_sizes(e, &s, &all, &rec)) == 0) {
        long top = 0;
        for (long i = 0; i < all.count; i++)
            top = all.rows[i].size_bytes > top ? all.rows[i].size_bytes : top;
        bench_data_set_header(h, "extended_to", "%ld", top);
    }
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
    /* injected delays and polls spin: a run that kept its core reads about 1 */
    double wall = e->be->now_ns() - wall0;
    if (wall > 0)
        bench_data_set_header(h, "cpu_share", "%.3f", (cpu_ns() - cpu0) / wall);
    if (cfg->flood)
        bench_data_set_header(h, "flood_messages", "%s", s.flood);
    write_all(cfg, h, &all, &rec, out);
    logp_data_free(&all);
    free(s.scratch);
    return rc;
}

int bench_logp_run(const bench_backend *be, bench_comm *comm, const logp_config *cfg,
                   bench_data *h, FILE *out)
{
    /* at least the int64 of the receive overhead's request (overhead_pair), whatever the sizes */
    long most = cfg->extend_to > cfg->max_size ? cfg->extend_to : cfg->max_size;
    engine e = {.be = be, .comm = comm, .cfg = cfg, .rank = be->rank(comm),
                .cap = (size_t)(most > (long)sizeof(int64_t) ? most : (long)sizeof(int64_t))};
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
        rc = logp_mirror(&e);
    }
    free(e.tx);
    free(e.rx);
    gsl_rng_free(e.coin);
    return rc;
}
