/* collective_time: one point of mpibench --op (mpibench/collective.h). */
#include "mpibench/collective.h"
#include "benchdata/stats.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/backend.h"
#include "bench/pattern.h"
#include "sched/collgen.h"

static double now_ns(void) { return MPI_Wtime() * 1e9; }

static double mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The buffers: size bytes per rank, P blocks where the op gathers. */
typedef struct bufs {
    char *a, *b;
    coll_sched sched;          /* --algorithm's schedule */
    MPI_Request *req;
    int *counts, *displs;      /* the v-variants' (all equal, as osu_*v's); reduce_scatter's */
} bufs;

/* The v-variants' counts: size bytes from every rank (osu_gatherv & co.); reduce_scatter's:
 * size / 4 floats split over the ranks, the remainder to the first (osu_reduce_scatter). */
static void set_counts(const coll_opts *o, int np, long m, bufs *b)
{
    long floats = m / 4, portion = floats / np, rest = floats % np;
    for (int i = 0; i < np; i++) {
        b->counts[i] = o->op == COLL_REDUCE_SCATTER
                           ? (int)(floats < np ? i < floats : portion + (i < rest)) : (int)m;
        b->displs[i] = (int)(i * m);
    }
}

/* SKaMPI's master-worker: the root hands each worker a task of m bytes and
 * collects their m-byte answers in the order they come. */
static int master_worker(const coll_opts *o, MPI_Comm comm, long m, bufs *b)
{
    int me, np, root = (int)o->root;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    if (me != root) {
        MPI_Recv(b->b, (int)m, MPI_CHAR, root, 3, comm, MPI_STATUS_IGNORE);
        return MPI_Send(b->a, (int)m, MPI_CHAR, root, 3, comm);
    }
    for (int w = 0; w < np; w++)
        if (w != root)
            MPI_Send(b->a, (int)m, MPI_CHAR, w, 3, comm);
    for (int k = 1; k < np; k++)
        MPI_Recv(b->b, (int)m, MPI_CHAR, MPI_ANY_SOURCE, 3, comm, MPI_STATUS_IGNORE);
    return MPI_SUCCESS;
}

/* Reductions on floats as osu_reduce/osu_allreduce do (size/4 of them);
 * a size that is no multiple of 4 reduces bytes with MPI_BOR. */
static int run_op(const coll_opts *o, MPI_Comm comm, long m, bufs *b)
{
    int root = (int)o->root;
    int cnt = (int)m;
    MPI_Datatype rt = m % 4 ? MPI_BYTE : MPI_FLOAT;
    MPI_Op rop = m % 4 ? MPI_BOR : MPI_SUM;
    int rc = (int)(m % 4 ? m : m / 4);
    switch (o->op) {
    case COLL_BARRIER: return MPI_Barrier(comm);
    case COLL_BCAST: return MPI_Bcast(b->a, cnt, MPI_CHAR, root, comm);
    case COLL_REDUCE: return MPI_Reduce(b->a, b->b, rc, rt, rop, root, comm);
    case COLL_ALLREDUCE: return MPI_Allreduce(b->a, b->b, rc, rt, rop, comm);
    case COLL_ALLGATHER: return MPI_Allgather(b->a, cnt, MPI_CHAR, b->b, cnt, MPI_CHAR, comm);
    case COLL_ALLTOALL: return MPI_Alltoall(b->a, cnt, MPI_CHAR, b->b, cnt, MPI_CHAR, comm);
    case COLL_GATHER: return MPI_Gather(b->a, cnt, MPI_CHAR, b->b, cnt, MPI_CHAR, root, comm);
    case COLL_SCATTER: return MPI_Scatter(b->a, cnt, MPI_CHAR, b->b, cnt, MPI_CHAR, root, comm);
    case COLL_GATHERV:
        return MPI_Gatherv(b->a, cnt, MPI_CHAR, b->b, b->counts, b->displs, MPI_CHAR, root, comm);
    case COLL_SCATTERV:
        return MPI_Scatterv(b->a, b->counts, b->displs, MPI_CHAR, b->b, cnt, MPI_CHAR, root, comm);
    case COLL_ALLGATHERV:
        return MPI_Allgatherv(b->a, cnt, MPI_CHAR, b->b, b->counts, b->displs, MPI_CHAR, comm);
    case COLL_ALLTOALLV:
        return MPI_Alltoallv(b->a, b->counts, b->displs, MPI_CHAR, b->b, b->counts, b->displs,
                             MPI_CHAR, comm);
    case COLL_REDUCE_SCATTER:
        return MPI_Reduce_scatter(b->a, b->b, b->counts, MPI_FLOAT, MPI_SUM, comm);
    case COLL_SCAN: return MPI_Scan(b->a, b->b, rc, rt, rop, comm);
    case COLL_EXSCAN: return MPI_Exscan(b->a, b->b, rc, rt, rop, comm);
    case COLL_COMM_DUP: {
        MPI_Comm c2;   /* SKaMPI frees outside its timing; here the free is timed with it */
        int e = MPI_Comm_dup(comm, &c2);
        return e == MPI_SUCCESS ? MPI_Comm_free(&c2) : e;
    }
    case COLL_COMM_SPLIT: {
        MPI_Comm c2;
        int me, e;
        MPI_Comm_rank(comm, &me);
        if ((e = MPI_Comm_split(comm, me % 2, me, &c2)) != MPI_SUCCESS)
            return e;
        return MPI_Comm_free(&c2);
    }
    case COLL_MASTER_WORKER: return master_worker(o, comm, m, b);
    }
    return MPI_ERR_OP;
}

/* --algorithm: this rank's part of the schedule, step by step (each step's
 * receives and sends posted together, then waited for); --inject-os
 * busy-waits before every send, the delay a test injects. */
static int run_sched(const coll_opts *o, MPI_Comm comm, bufs *b)
{
    int me;
    MPI_Comm_rank(comm, &me);
    const coll_sched *s = &b->sched;
    long i = 0;
    while (i < s->count && s->msgs[i].rank < me)
        i++;
    while (i < s->count && s->msgs[i].rank == me) {
        long lo = i;
        int n = 0;
        while (i < s->count && s->msgs[i].rank == me && s->msgs[i].step == s->msgs[lo].step)
            i++;
        for (long k = lo; k < i; k++)
            if (!s->msgs[k].send)
                MPI_Irecv(b->b, (int)s->msgs[k].bytes, MPI_CHAR, s->msgs[k].peer, 0, comm,
                          &b->req[n++]);
        for (long k = lo; k < i; k++) {
            if (!s->msgs[k].send)
                continue;
            if (o->inject_os_ns > 0) {
                double until = mono_ns() + o->inject_os_ns;
                while (mono_ns() < until)
                    ;
            }
            MPI_Isend(b->a, (int)s->msgs[k].bytes, MPI_CHAR, s->msgs[k].peer, 0, comm,
                      &b->req[n++]);
        }
        if (MPI_Waitall(n, b->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return -1;
    }
    return 0;
}

static int once(const coll_opts *o, MPI_Comm comm, long m, bufs *b)
{
    return o->algorithm ? run_sched(o, comm, b) : run_op(o, comm, m, b);
}

/* Offset of each rank's clock to rank 0's, from the round trip with the
 * smallest time of 32 (SKaMPI): remote - (send + receive) / 2. */
static double clock_offset(MPI_Comm comm, int me, int np)
{
    double off = 0;
    for (int r = 1; r < np; r++) {
        double best = INFINITY, est = 0, t;
        for (int k = 0; k < 32; k++) {
            if (me == 0) {
                double t0 = now_ns();
                MPI_Send(&t0, 1, MPI_DOUBLE, r, 1, comm);
                MPI_Recv(&t, 1, MPI_DOUBLE, r, 1, comm, MPI_STATUS_IGNORE);
                double t1 = now_ns();
                if (t1 - t0 < best)
                    best = t1 - t0, est = t - 0.5 * (t0 + t1);
            } else if (me == r) {
                MPI_Recv(&t, 1, MPI_DOUBLE, 0, 1, comm, MPI_STATUS_IGNORE);
                t = now_ns();
                MPI_Send(&t, 1, MPI_DOUBLE, 0, 1, comm);
            }
        }
        if (me == 0)
            MPI_Send(&est, 1, MPI_DOUBLE, r, 2, comm);
        else if (me == r)
            MPI_Recv(&off, 1, MPI_DOUBLE, 0, 2, comm, MPI_STATUS_IGNORE);
    }
    return off;
}

/* osu_*'s untimed (skip) and timed repetitions at m bytes: 200 and 1000
 * up to 8192 elements, 10 and 100 above and for osu_barrier; the
 * reductions count floats. */
static void osu_counts(int op, long m, long *skip, long *iters)
{
    int floats = (op == COLL_REDUCE || op == COLL_ALLREDUCE || op == COLL_REDUCE_SCATTER ||
                  op == COLL_SCAN || op == COLL_EXSCAN) && m % 4 == 0;
    int large = op == COLL_BARRIER || (floats ? m / 4 : m) > 8192;
    *skip = large ? 10 : 200;
    *iters = large ? 100 : 1000;
}

/* Statistics of the samples after cutting the lower and upper quantile q. */
static void summarise(double *x, long n, double q, double rel, coll_point *pt)
{
    bench_summary s;
    bench_summarise_cut(x, n, q, rel, &s);
    pt->reps = s.kept;
    pt->min_ns = s.min, pt->max_ns = s.max, pt->median_ns = s.median;
    pt->mean_ns = s.mean, pt->sd_ns = s.sd, pt->ci95_ns = s.ci95, pt->noisy = s.noisy;
}

int coll_measure(const coll_opts *o, mpistop *stop, MPI_Comm comm, long m, coll_point *pt)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    long skip, iters;
    osu_counts(o->op, m, &skip, &iters);
    long warmup = o->warmup < 0 ? skip : o->warmup;
    long max_samples = o->max_samples > 0 ? o->max_samples
                       : o->min_samples > iters ? o->min_samples : iters;
    long min_samples = o->min_samples < 0 ? (iters < max_samples ? iters : max_samples)
                                          : o->min_samples;
    /* osu: the first --min-samples repetitions in one run, as osu_*'s loop */
    long batch = o->batch > 0 ? o->batch : min_samples < 4096 ? min_samples : 4096;
    long cap = max_samples + batch;
    size_t bytes = (size_t)(m > 0 ? m : 1) * (size_t)np;
    /* page-aligned and written, as OSU's buffers are: a calloc'd block of a
     * page straddles two (make bench-coll compares with osu_bcast & co.) */
    bufs b = {(char *)bench_page_alloc(bytes), (char *)bench_page_alloc(bytes), {0}, NULL,
              calloc((size_t)np, sizeof(int)), calloc((size_t)np, sizeof(int))};
    if (b.a)
        memset(b.a, 1, bytes);
    double *mine = calloc((size_t)batch * 2, sizeof *mine);   /* time, missed */
    double *all = me == 0 ? calloc((size_t)batch * 2 * (size_t)np, sizeof *all) : NULL;
    double *rep_ns = me == 0 ? calloc((size_t)cap, sizeof *rep_ns) : NULL;
    double *nodes = me == 0 ? calloc((size_t)cap * (size_t)np, sizeof *nodes) : NULL;
    int rc = 0;
    char why[160];
    if (!b.a || !b.b || !b.counts || !b.displs || !mine ||
        (me == 0 && (!all || !rep_ns || !nodes)))
        rc = BENCH_ERR_SYSTEM;
    else if (o->algorithm &&
             (coll_generate(&b.sched, o->op, o->algorithm, np, (int)o->root, m, why, sizeof why) ||
              !(b.req = calloc((size_t)(2 * np + 2), sizeof *b.req))))
        rc = BENCH_ERR_SYSTEM;
    if (!rc)
        set_counts(o, np, m, &b);
    memset(pt, 0, sizeof *pt);
    pt->size = m;
    double off = 0, window = 0;
    if (!rc && o->sync == COLL_SYNC_WINDOW) {
        off = clock_offset(comm, me, np);
        /* the window: twice the slowest of 8 barrier-synchronised runs + 5 us */
        double worst = 0;
        for (int k = 0; k < 8 && !rc; k++) {
            MPI_Barrier(comm);
            double t0 = now_ns();
            rc = once(o, comm, m, &b) ? BENCH_ERR_SYSTEM : 0;
            worst = fmax(worst, now_ns() - t0);
        }
        MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
        window = 2 * worst + 5000;
    }
    /* the first repetitions after a new buffer are slow, and one of them
     * moves the mean of a thousand short ones */
    for (long k = 0; k < warmup && !rc; k++) {
        MPI_Barrier(comm);
        once(o, comm, m, &b);
    }
    long n = 0;
    double started = mono_ns();
    int stopped = 0;
    for (int more = !rc; more;) {
        double t0g = 0;
        if (o->sync == COLL_SYNC_WINDOW) {
            if (me == 0)
                t0g = now_ns() + 20000 + 2 * window;
            MPI_Bcast(&t0g, 1, MPI_DOUBLE, 0, comm);
        } else {
            once(o, comm, m, &b);   /* warm-up, as osu_* skip their first */
        }
        for (long i = 0; i < batch; i++) {
            double t0, t1;
            if (o->sync == COLL_SYNC_WINDOW) {
                double start = t0g + (double)i * window + off;   /* my clock */
                /* waiting, keep MPI progressing: a rendezvous the peer
                 * still completes needs this rank's acknowledgement (64 KiB
                 * exchanges measured the whole window without it) */
                int flag;
                while ((t0 = now_ns()) < start)
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
                mine[2 * i + 1] = t0 - start > 0.1 * window;   /* missed its window */
                once(o, comm, m, &b);
                t1 = now_ns();
                mine[2 * i] = t1 - start;
            } else {
                MPI_Barrier(comm);
                t0 = now_ns();
                once(o, comm, m, &b);
                t1 = now_ns();
                mine[2 * i] = t1 - t0;
                mine[2 * i + 1] = 0;
            }
        }
        MPI_Gather(mine, (int)batch * 2, MPI_DOUBLE, all, (int)batch * 2, MPI_DOUBLE, 0, comm);
        stopped = mpistop_poll(stop);   /* rank 0's answer; the others pass theirs on */
        if (me == 0) {
            long missed = 0;
            for (long i = 0; i < batch; i++) {
                double mx = 0, sum = 0;
                int miss = 0;
                for (int r = 0; r < np; r++) {
                    double t = all[(size_t)r * (size_t)batch * 2 + (size_t)(2 * i)];
                    mx = fmax(mx, t), sum += t;
                    miss |= all[(size_t)r * (size_t)batch * 2 + (size_t)(2 * i + 1)] != 0;
                }
                if (miss) {
                    pt->dropped++, missed++;
                    continue;
                }
                for (int r = 0; r < np; r++)
                    nodes[(size_t)r * (size_t)cap + (size_t)n] =
                        all[(size_t)r * (size_t)batch * 2 + (size_t)(2 * i)];
                /* osu: the mean over ranks, whose mean over repetitions is the
                 * mean of the ranks' means, osu_*'s Avg Latency */
                rep_ns[n++] = o->sync == COLL_SYNC_OSU ? sum / np : mx;
            }
            if (missed * 4 > batch)
                window *= 2;   /* a quarter late: the window is too short */
            double *tmp = malloc((size_t)n * sizeof *tmp);
            more = 1;
            if (tmp && n >= 2) {
                memcpy(tmp, rep_ns, (size_t)n * sizeof *tmp);
                summarise(tmp, n, o->cut_quantile, o->rel_error, pt);
                more = !(n >= min_samples && !pt->noisy &&
                         pt->ci95_ns / 1.96 <= o->rel_error * pt->mean_ns);
            }
            free(tmp);
            if (n >= max_samples || mono_ns() - started > o->timeout_s * 1e9 || stopped)
                more = 0;
        }
        double state[3] = {window, more, stopped};
        MPI_Bcast(state, 3, MPI_DOUBLE, 0, comm);
        window = state[0], more = state[1] != 0, stopped = state[2] != 0;
    }
    if (!rc && stopped)
        rc = BENCH_ERR_INTERRUPT;   /* a point cut short is no point */
    if (me == 0 && !rc) {
        if (n < 1)
            rc = BENCH_ERR_TIMEOUT;
        else {
            summarise(rep_ns, n, o->cut_quantile, o->rel_error, pt);
            for (int r = 0; r < np && r < COLL_MAX_PROCS; r++) {
                double *x = nodes + (size_t)r * (size_t)cap;
                pt->node_mean_ns[r] = gsl_stats_mean(x, 1, (size_t)n);
                gsl_sort(x, 1, (size_t)n);
                pt->node_ns[r] = gsl_stats_median_from_sorted_data(x, 1, (size_t)n);
            }
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    coll_sched_free(&b.sched);
    free(b.a), free(b.b), free(b.req), free(b.counts), free(b.displs);
    free(mine), free(all), free(rep_ns), free(nodes);
    return rc;
}
