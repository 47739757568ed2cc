/* p2p: mpibench --p2p MODE, MPI's other point-to-point calls between ranks 0
 * and 1 (SKaMPI's point-to-point suite, OSU's osu_bw and osu_bibw), each size a point
 * measured by pp's rules (bench/pattern.h: warm-up, batches, stop rule,
 * --cut-quantile) and written as a bench TSV row whose pattern column is the
 * mode (bench_p2p_modes; what a row's times mean: docs/formats.md). */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"
#include "mpibench/mpistop.h"
#include "mpibench/watchdog.h"
#include "benchdata/stats.h"
#include "util/signals.h"

enum { BSEND, RSEND, ISSEND, IPROBE, SENDRECV, REPLACE, BIBW, BW };
/* How a row's time comes from a batch: a ping-pong's half round trip, an
 * exchange's call (both ranks call at once), a bibw window's message. */
enum { KIND_PP, KIND_EXCHANGE, KIND_WINDOW };
static const int kinds[] = {KIND_PP, KIND_PP, KIND_PP, KIND_PP, KIND_EXCHANGE, KIND_EXCHANGE,
                            KIND_WINDOW, KIND_WINDOW};
static const char *const meanings[] = {
    "half a round trip: MPI_Bsend + MPI_Recv each way",
    "half a round trip: MPI_Rsend + MPI_Recv each way, every receive posted before its send",
    "half a round trip: MPI_Issend + MPI_Wait, MPI_Recv each way",
    "half a round trip: MPI_Send, MPI_Iprobe until the message is there + MPI_Recv each way",
    "one MPI_Sendrecv, both ranks exchanging size bytes at once",
    "one MPI_Sendrecv_replace, both ranks exchanging size bytes at once",
    "a window of MPI_Irecv + MPI_Isend each way, MPI_Waitall (osu_bibw): time / (2 window) a"
    " message, size / time the bidirectional bandwidth",
    "a window of MPI_Isend from rank 0, MPI_Irecv on rank 1, MPI_Waitall, a 4-byte ack back"
    " (osu_bw): time / window a message, size / time the bandwidth",
};
#define TAG 7

typedef struct p2p {
    int mode, me, peer;
    int node_times;            /* --node-times: rank 1 sends its time of each batch */
    long window;
    MPI_Comm comm;
    unsigned char *s, *r;      /* send and receive buffers */
    MPI_Request *req;          /* bibw, bw: 2 window; rsend: 1 */
} p2p;

static void send_one(const p2p *x, int m)
{
    MPI_Request q;
    if (x->mode == BSEND)
        MPI_Bsend(x->s, m, MPI_BYTE, x->peer, TAG, x->comm);
    else if (x->mode == ISSEND) {
        MPI_Issend(x->s, m, MPI_BYTE, x->peer, TAG, x->comm, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else
        MPI_Send(x->s, m, MPI_BYTE, x->peer, TAG, x->comm);
}

static void recv_one(const p2p *x, int m)
{
    int flag = 0;
    while (x->mode == IPROBE && !flag)
        MPI_Iprobe(x->peer, TAG, x->comm, &flag, MPI_STATUS_IGNORE);
    MPI_Recv(x->r, m, MPI_BYTE, x->peer, TAG, x->comm, MPI_STATUS_IGNORE);
}

/* Rsend: rank 1 posts its first receive before the batch's barrier, and
 * each next one before it replies; rank 0 posts the reply's before it sends. */
static void rsend_loop(p2p *x, int m, long reps)
{
    for (long i = 0; i < reps; i++)
        if (x->me == 0) {
            MPI_Irecv(x->r, m, MPI_BYTE, x->peer, TAG, x->comm, x->req);
            MPI_Rsend(x->s, m, MPI_BYTE, x->peer, TAG, x->comm);
            MPI_Wait(x->req, MPI_STATUS_IGNORE);
        } else {
            MPI_Wait(x->req, MPI_STATUS_IGNORE);
            if (i + 1 < reps)
                MPI_Irecv(x->r, m, MPI_BYTE, x->peer, TAG, x->comm, x->req);
            MPI_Rsend(x->s, m, MPI_BYTE, x->peer, TAG, x->comm);
        }
}

/* One receive buffer for a window, as osu_bibw and osu_bw: its bytes are never read. */
static void bibw_window(p2p *x, int m)
{
    for (long w = 0; w < x->window; w++)
        MPI_Irecv(x->r, m, MPI_BYTE, x->peer, TAG, x->comm, &x->req[w]);
    for (long w = 0; w < x->window; w++)
        MPI_Isend(x->s, m, MPI_BYTE, x->peer, TAG, x->comm, &x->req[x->window + w]);
    MPI_Waitall((int)(2 * x->window), x->req, MPI_STATUSES_IGNORE);
}

/* osu_bw: rank 0 sends a window, rank 1 receives it and acknowledges it
 * with 4 bytes, so the window's time ends when all of it has arrived. */
static void bw_window(p2p *x, int m)
{
    for (long w = 0; w < x->window; w++)
        if (x->me == 0)
            MPI_Isend(x->s, m, MPI_BYTE, x->peer, TAG, x->comm, &x->req[w]);
        else
            MPI_Irecv(x->r, m, MPI_BYTE, x->peer, TAG, x->comm, &x->req[w]);
    MPI_Waitall((int)x->window, x->req, MPI_STATUSES_IGNORE);
    if (x->me == 0)
        MPI_Recv(x->r, 4, MPI_BYTE, x->peer, TAG + 1, x->comm, MPI_STATUS_IGNORE);
    else
        MPI_Send(x->s, 4, MPI_BYTE, x->peer, TAG + 1, x->comm);
}

/* reps iterations on both ranks; rank 0's elapsed ns in *ns. */
static __attribute__((noinline)) void iterate(p2p *x, int m, long reps, double *ns)
{
    if (x->mode == RSEND) {
        if (x->me == 1)
            MPI_Irecv(x->r, m, MPI_BYTE, x->peer, TAG, x->comm, x->req);
        MPI_Barrier(x->comm);
    }
    double t0 = MPI_Wtime();
    if (x->mode == RSEND)
        rsend_loop(x, m, reps);
    for (long i = 0; x->mode != RSEND && i < reps; i++)
        switch (kinds[x->mode]) {
        case KIND_PP:
            if (x->me == 0)
                send_one(x, m), recv_one(x, m);
            else
                recv_one(x, m), send_one(x, m);
            break;
        case KIND_EXCHANGE:
            if (x->mode == SENDRECV)
                MPI_Sendrecv(x->s, m, MPI_BYTE, x->peer, TAG, x->r, m, MPI_BYTE, x->peer, TAG,
                             x->comm, MPI_STATUS_IGNORE);
            else
                MPI_Sendrecv_replace(x->r, m, MPI_BYTE, x->peer, TAG, x->peer, TAG, x->comm,
                                     MPI_STATUS_IGNORE);
            break;
        default:
            if (x->mode == BW)
                bw_window(x, m);
            else
                bibw_window(x, m);
        }
    *ns = (MPI_Wtime() - t0) * 1e9;
}

/* Rank 0's batch, which the watchdog may leave by a jump (--timeout): sigsetjmp in a frame of
 * its own, so the timed loop is not compiled as one that returns twice. */
static __attribute__((noinline)) int iterate_guarded(p2p *x, int m, long reps, double *ns)
{
    if (sigsetjmp(watchdog_jump, 0))
        return BENCH_ERR_TIMEOUT;
    watchdog_armed = 1;
    iterate(x, m, reps, ns);
    watchdog_armed = 0;
    watchdog_progress++;
    return 0;
}

/* One iteration's share that a row reports. */
static double per_iteration(const p2p *x)
{
    if (kinds[x->mode] == KIND_WINDOW)
        return (x->mode == BIBW ? 2.0 : 1.0) * (double)x->window;
    return kinds[x->mode] == KIND_PP ? 2.0 : 1.0;
}

typedef struct ctrl {
    double size, reps, go;
} ctrl;

/* Rank 0 says what both ranks do next (outside the timed part). */
static void tell(ctrl *c, MPI_Comm comm) { MPI_Bcast(c, 3, MPI_DOUBLE, 0, comm); }

/* Rank 1: follows rank 0 until it ends the run. */
static void follow(p2p *x, mpistop *stop)
{
    ctrl c;
    double ns;
    for (;;) {
        watchdog_armed = 1;   /* waiting for rank 0, not stuck */
        tell(&c, x->comm);
        watchdog_armed = 0;
        if (!c.go)
            return;
        iterate(x, (int)c.size, (long)c.reps, &ns);
        if (x->node_times)   /* its own time of the batch, outside the timed loops */
            MPI_Send(&ns, 1, MPI_DOUBLE, 0, TAG + 2, x->comm);
        watchdog_progress++;
        mpistop_poll(stop);
    }
}

static const bench_point *find_done(const bench_cli *c, const char *mode, long size)
{
    const bench_data *d = c->cfg.done;
    for (long i = 0; d && i < d->count; i++)
        if (d->points[i].size_bytes == size && strcmp(d->points[i].pattern, mode) == 0)
            return &d->points[i];
    return NULL;
}

/* Rank 0: one batch of both ranks; with --node-times, rank 1's time of it in *ns1. */
static int batch(p2p *x, ctrl *c, int m, long reps, double *ns, double *ns1)
{
    c->reps = (double)reps;
    tell(c, x->comm);
    int rc = iterate_guarded(x, m, reps, ns);
    if (!rc && x->node_times)
        MPI_Recv(ns1, 1, MPI_DOUBLE, 1, TAG + 2, x->comm, MPI_STATUS_IGNORE);
    return rc;
}

/* Rank 0: one point, by pp's rules (bench/pattern.h); with --node-times each rank's
 * median time of its batches (the collectives' node times: mpibench/collective_time.c). */
static int measure_point(p2p *x, const bench_config *cfg, double batch_min_ns, long m,
                         mpistop *stop, bench_point *pt)
{
    ctrl c = {(double)m, WARMUP_CHUNK, 1};
    double ns, ns1 = 0, iter_ns = INFINITY, t0 = MPI_Wtime() * 1e9;
    bench_stats st, nd[2];
    long warm = 0;
    if (bench_stats_init(&st, cfg->max_samples))
        return BENCH_ERR_SYSTEM;
    if (bench_stats_init(&nd[0], cfg->max_samples) || bench_stats_init(&nd[1], cfg->max_samples)) {
        bench_stats_free(&st), bench_stats_free(&nd[0]);
        return BENCH_ERR_SYSTEM;
    }
    do {
        if (batch(x, &c, (int)m, WARMUP_CHUNK, &ns, &ns1)) {
            bench_stats_free(&st), bench_stats_free(&nd[0]), bench_stats_free(&nd[1]);
            return BENCH_ERR_TIMEOUT;
        }
        iter_ns = fmin(iter_ns, ns / WARMUP_CHUNK);
        warm += WARMUP_CHUNK;
    } while (warm < WARMUP_ITERATIONS || MPI_Wtime() * 1e9 - t0 < WARMUP_MIN_NS);
    long reps = 1;
    while ((double)reps * iter_ns < batch_min_ns)
        reps *= 2;
    double start = MPI_Wtime() * 1e9;
    int rc = 0;
    bench_summary sum = {0};
    for (;;) {
        if (bench_interrupted() || mpistop_check(stop)) {
            rc = BENCH_ERR_INTERRUPT;
            break;
        }
        if ((rc = batch(x, &c, (int)m, reps, &ns, &ns1)))
            break;
        bench_stats_add(&st, ns / (double)reps / per_iteration(x));
        bench_stats_add(&nd[0], ns / (double)reps / per_iteration(x));
        bench_stats_add(&nd[1], ns1 / (double)reps / per_iteration(x));
        double spent = MPI_Wtime() * 1e9 - start;
        int spanned = spent >= fmin(POINT_MIN_SPAN_NS, cfg->max_time_s * 1e9);
        int done = st.n >= cfg->max_samples || spent >= cfg->max_time_s * 1e9;
        if (spanned && !done && st.n >= cfg->min_samples && st.n >= 2) {
            bench_stats_summary(&st, cfg->cut_quantile, cfg->rel_error, &sum);
            done = sum.mean > 0 && sum.ci95 / 1.96 <= cfg->rel_error * sum.mean && !sum.noisy;
        }
        if (done)
            break;
    }
    if (!rc && bench_stats_summary(&st, cfg->cut_quantile, cfg->rel_error, &sum))
        rc = BENCH_ERR_SYSTEM;
    if (!rc) {
        memset(pt, 0, sizeof *pt);
        snprintf(pt->pattern, sizeof pt->pattern, "%s", bench_p2p_modes[x->mode]);
        pt->src = 0, pt->dst = 1, pt->hops = pt->rhops = 1;
        pt->size_bytes = m, pt->reps = reps, pt->samples = sum.kept;
        pt->min_ns = sum.min, pt->median_ns = sum.median, pt->mean_ns = sum.mean;
        pt->sd_ns = sum.sd, pt->ci95_ns = sum.ci95, pt->max_ns = sum.max, pt->noisy = sum.noisy;
        for (int r = 0; x->node_times && r < 2; r++)
            pt->node_ns[pt->nodes++] = bench_stats_median(&nd[r]);
    }
    bench_stats_free(&st), bench_stats_free(&nd[0]), bench_stats_free(&nd[1]);
    return rc;
}

static void write_header(const bench_cli *c, const p2p *x, double batch_min_ns, FILE *out)
{
    bench_data h;
    topo_shape ring;
    double res = MPI_Wtick() * 1e9;
    topo_shape_equal(1, 2, &ring);
    bench_cli_header_start(c, &h);
    bench_data_set_header(&h, "procs", "2");
    bench_cli_header_shape(&ring, &h);
    bench_data_set_header(&h, "pattern", "%s", bench_p2p_modes[x->mode]);
    bench_data_set_header(&h, "time", "%s", meanings[x->mode]);
    if (kinds[x->mode] == KIND_WINDOW)
        bench_data_set_header(&h, "window", "%ld", x->window);
    bench_data_set_header(&h, "timer", "MPI_Wtime resolution_ns=%.0f batch_min_ns=%.0f", res,
                          batch_min_ns);
    bench_data_set_header(&h, "cut_quantile", "%g", c->cfg.cut_quantile);
    h.node_times = x->node_times;
    bench_data_write_header(out, &h);
}

/* Rank 0: every size, after those a resumed run has. */
static int lead(const bench_cli *c, p2p *x, mpistop *stop, FILE *out)
{
    const bench_config *cfg = &c->cfg;
    double batch_min_ns = fmax(BATCH_TIMER_FACTOR * MPI_Wtick() * 1e9, cfg->min_batch_ns);
    int rc = 0;
    long measured = 0, noisy = 0;
    write_header(c, x, batch_min_ns, out);
    for (size_t i = 0; i < cfg->nsizes && !rc; i++) {
        bench_point pt;
        const bench_point *done = find_done(c, bench_p2p_modes[x->mode], cfg->sizes[i]);
        if (done) {
            bench_data_write_point(out, done);
            continue;
        }
        if ((rc = measure_point(x, cfg, batch_min_ns, cfg->sizes[i], stop, &pt)))
            break;
        bench_data_write_point(out, &pt);
        if (fflush(out) != 0)
            rc = BENCH_ERR_OUTPUT;
        measured++, noisy += pt.noisy;
        if (!cfg->quiet)
            fprintf(stderr, "%s: [%zu/%zu] %s %7ld B: median %.1f ns, %ld x %ld reps%s\n",
                    c->prog, i + 1, cfg->nsizes, pt.pattern, pt.size_bytes, pt.median_ns,
                    pt.samples, pt.reps, pt.noisy ? ", noisy" : "");
    }
    bench_noisy_report(cfg, measured, noisy, -1);
    ctrl end = {0, 0, 0};
    if (rc != BENCH_ERR_TIMEOUT)   /* else a call was abandoned: the job is aborted */
        tell(&end, x->comm);
    return rc;
}

static int p2p_check(bench_cli *c)
{
    if (!c->have_p2p)
        return bench_cli_usage(c, "--pattern p2p: --p2p, which mode (%s)", BENCH_P2P_MODE_LIST);
    if (kinds[c->p2p_mode] != KIND_WINDOW && opt_given(&c->opts, "window"))
        return bench_cli_usage(c, "--window: only --p2p bw and bibw send windows");
    for (size_t i = 0; i < c->cfg.nsizes; i++)
        if (c->cfg.sizes[i] > INT32_MAX / 2)
            return bench_cli_usage(c, "--sizes: %ld bytes, above --p2p's largest, 1 GiB",
                                   c->cfg.sizes[i]);
    if (c->cfg.min_samples > c->cfg.max_samples)
        return bench_cli_usage(c, "--min-samples %ld: more than --max-samples %ld",
                               c->cfg.min_samples, c->cfg.max_samples);
    return 0;
}

static int p2p_run(bench_cli *c, int *argc, char ***argv)
{
    p2p x = {.mode = c->p2p_mode, .window = c->p2p_window, .comm = MPI_COMM_WORLD,
             .node_times = c->coll.node_times};
    int world, rc = 0;
    long max = 1;
    mpistop stop;
    atomic_file af = {0};
    FILE *out = stdout;
    if (c->resume_path && !c->resume_data.incomplete) {
        fprintf(stderr, "%s: %s is already complete; nothing to resume\n", c->prog,
                c->resume_path);
        return 0;
    }
    bench_signals_install_stop();
    MPI_Init(argc, argv);
    mpistop_open(&stop);
    MPI_Comm_rank(MPI_COMM_WORLD, &x.me);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    x.peer = 1 - x.me;
    for (size_t i = 0; i < c->cfg.nsizes; i++)
        max = c->cfg.sizes[i] > max ? c->cfg.sizes[i] : max;
    x.s = bench_page_alloc((size_t)max);
    x.r = bench_page_alloc((size_t)max);
    x.req = calloc((size_t)(2 * x.window + 1), sizeof *x.req);
    int bsize = (int)max + MPI_BSEND_OVERHEAD;
    char *bbuf = x.mode == BSEND ? malloc((size_t)bsize) : NULL;
    if (world != 2)
        rc = bench_cli_usage(c, "--p2p: between 2 MPI ranks, not %d (mpirun -np 2)", world);
    else if (!x.s || !x.r || !x.req || (x.mode == BSEND && !bbuf))
        rc = EXIT_FAILURE, fprintf(stderr, "%s: out of memory\n", c->prog);
    else if (x.me == 0 && bench_cli_open(c, "-o", c->out_path, &af, &out))
        rc = EXIT_FAILURE;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!rc) {
        if (bbuf)   /* one message in flight: room for it */
            MPI_Buffer_attach(bbuf, bsize);
        memset(x.s, 1, (size_t)max);
        watchdog_start(c->setup.cfg.timeout_s, x.me == 0);
        int brc = x.me == 0 ? lead(c, &x, &stop, out) : (follow(&x, &stop), 0);
        watchdog_stop();
        rc = bench_cli_status(brc);
        if (x.me == 0 && bench_cli_commit(c, &af, out, c->out_path, brc, "sizes"))
            rc = EXIT_FAILURE;
        if (brc == BENCH_ERR_TIMEOUT)
            MPI_Abort(MPI_COMM_WORLD, rc);
        if (bbuf)
            MPI_Buffer_detach(&bbuf, &bsize);
    } else if (af.fp)
        atomic_file_abort(&af);
    free(x.s), free(x.r), free(x.req), free(bbuf);
    mpistop_close(&stop);
    MPI_Finalize();
    return rc;
}

static const char *p2p_help(const bench_cli *c, char *epilog, size_t size)
{
    (void)c;
    printf("Usage: mpirun -np 2 mpibench --p2p MODE [OPTIONS]\n"
           "Times one of MPI's point-to-point calls between ranks 0 and 1, each size a point\n"
           "measured as pp's are (batches until the standard error is small enough).\n\n");
    snprintf(epilog, size, "\nModes (a row's pattern column; its times, docs/formats.md):\n"
             "  bsend, rsend, issend, iprobe  ping-pong: half a round trip\n"
             "  sendrecv, sendrecv-replace    both ranks call at once: one call\n"
             "  bw                            osu_bw's windows, each acknowledged: time /"
             " --window\n                                a message; size / time is the"
             " bandwidth\n"
             "  bibw                          osu_bibw's windows: time / (2 --window) a"
             " message;\n                                size / time is the bidirectional"
             " bandwidth\n"
             "Exit status: 0 success, 1 runtime failure, 2 usage error, 130 interrupted.\n\n"
             "Examples:\n  mpirun -np 2 mpibench --p2p rsend --sizes 8..65536 -o rsend.tsv\n"
             "  mpirun -np 2 mpibench --p2p bw --sizes 8..1048576 -o bw.tsv\n");
    return epilog;
}

const bench_pattern_desc bench_pattern_p2p = {
    .name = "p2p", .scope = BENCH_IN_P2P, .default_sizes = "1..65536",
    .check = p2p_check, .run = p2p_run, .help = p2p_help,
};
