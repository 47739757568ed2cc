/* collpredict: collectives predicted from a LogP file (sim/collpredict.h):
 * the engine's replay of the schedule on the file's per-size parameters. */
#include "sim/collpredict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/collgen.h"
#include "sim/engine.h"

typedef struct lp_ctx {
    const logp_data *lp;
    int bad;            /* a size outside the file's rows was asked for */
    long bad_size;      /* the last such */
    /* The last size's four values: a collective has a size or two, and
     * each of its messages asks for them (33 million at 4096 processes). */
    long memo_size;
    int memo_have;      /* bit w: memo[w] holds value w at memo_size */
    double memo[4];
} lp_ctx;

/* os, or, g, or the size's own L(m) = RTT(m)/2 - os(m) - or(m) (LogP/MPI) */
static double value(const logp_row *r, int which)
{
    switch (which) {
    case 0: return r->os_ns;
    case 1: return r->or_ns;
    case 2: return r->g_ns;
    }
    return r->rtt_ns > 0 ? r->rtt_ns / 2 - r->os_ns - r->or_ns : NAN;   /* no round trip: header L */
}

/* Linear between the file's rows (ascending sizes are not assumed). */
static double interp(lp_ctx *c, long m, int which)
{
    const logp_data *d = c->lp;
    const logp_row *lo = NULL, *hi = NULL, *small = NULL;
    for (long i = 0; i < d->count; i++) {
        const logp_row *r = &d->rows[i];
        if (!small || r->size_bytes < small->size_bytes)
            small = r;
        if (r->size_bytes <= m && (!lo || r->size_bytes > lo->size_bytes))
            lo = r;
        if (r->size_bytes >= m && (!hi || r->size_bytes < hi->size_bytes))
            hi = r;
    }
    if (m == 0 && small)
        lo = hi = small;
    if (!lo || !hi) {
        c->bad = 1, c->bad_size = m;
        return 0;
    }
    double a = value(lo, which), b = value(hi, which);
    if (isnan(a) || isnan(b))
        return d->L_ns;
    if (hi->size_bytes == lo->size_bytes)
        return a;
    return a + (b - a) * (double)(m - lo->size_bytes) / (double)(hi->size_bytes - lo->size_bytes);
}

static double remembered(lp_ctx *c, long m, int which)
{
    if (c->memo_size != m)
        c->memo_size = m, c->memo_have = 0;
    if (!(c->memo_have >> which & 1))
        c->memo[which] = interp(c, m, which), c->memo_have |= 1 << which;
    return c->memo[which];
}

static double f_os(void *c, long m) { return remembered(c, m, 0); }
static double f_or(void *c, long m) { return remembered(c, m, 1); }
static double f_g(void *c, long m) { return remembered(c, m, 2); }
static double f_L(void *c, long m) { return remembered(c, m, 3); }

double coll_predict_sized(const goal_schedule *g, const sim_sized *p, const double *t0,
                          double *per_rank, int (*stop)(void))
{
    sim_config c = {.sized = p, .S = UINT64_MAX, .start = t0, .stop = stop};
    sim_result r;
    if (sim_run(g, &c, &r))
        return -2;
    double end = r.interrupted ? -3 : r.stuck[0] ? -1 : r.makespan;
    for (uint32_t i = 0; per_rank && i < g->ranks; i++)
        per_rank[i] = r.finish[i];
    sim_result_free(&r);
    return end;
}

/* Barrier-synchronised timing (--sync osu and barrier): the loop barrier, op,
 * barrier, op ... replayed until it repeats; a rank's time runs from its
 * own exit of the barrier, which the previous operation's ends stagger. */
#define BARRIER_LAPS 12   /* laps replayed; the stagger settles within 2 */
#define BARRIER_KEPT 4    /* the last laps, averaged per rank as osu_* do */
static double barrier_synced(const goal_schedule *op, const goal_schedule *bar,
                             const sim_sized *p, int mean_of_ranks, int (*stop)(void))
{
    int n = (int)op->ranks;
    double *in = calloc((size_t)n * 4 + 1, sizeof *in), *bend = in + n, *oend = bend + n, *sum = oend + n;
    double worst = -1;
    if (!in)
        return -2;
    for (int it = 0; it < BARRIER_LAPS; it++) {
        double e;   /* -1 deadlock, -2 out of memory, -3 stopped */
        if ((e = coll_predict_sized(bar, p, in, bend, stop)) < 0 ||
            (e = coll_predict_sized(op, p, bend, oend, stop)) < 0) {
            worst = e;
            break;
        }
        double lo = INFINITY;
        for (int r = 0; r < n; r++) {
            sum[r] += it >= BARRIER_LAPS - BARRIER_KEPT ? oend[r] - bend[r] : 0;
            lo = fmin(lo, oend[r]);
        }
        for (int r = 0; r < n; r++)
            in[r] = oend[r] - lo;
        if (it == BARRIER_LAPS - 1) {
            double total = 0;
            for (int r = 0; r < n; r++)
                worst = fmax(worst, sum[r] / BARRIER_KEPT), total += sum[r] / BARRIER_KEPT;
            if (mean_of_ranks)
                worst = total / n;
        }
    }
    free(in);
    return worst;
}

/* The schedule of op/alg (or the default barrier) in memory: 0, or
 * coll_generate's and coll_goal's -1, -2, -3 (why says -2's reason). */
static int schedule(int op, const char *alg, int ranks, int root, long size, int (*stop)(void),
                    goal_schedule *g, char *why, size_t len)
{
    coll_sched s;
    int rc = coll_generate_until(&s, op, alg, ranks, root, size, stop, why, len);
    if (rc)
        return rc;
    rc = coll_goal(&s, g);
    coll_sched_free(&s);
    return rc;
}

int coll_predict_logp(const logp_data *lp, const char *path, int op, const char *alg, int ranks,
                      int root, long size, int barrier, int (*stop)(void), double *ns, char *why,
                      size_t len)
{
    goal_schedule g = {0}, bar = {0};
    char w[160];
    if (isnan(lp->L_ns))
        return snprintf(why, len, "%s: no '# L_ns:' header (not a LogP file of mpibench"
                                  " --pattern logp)", path), 1;
    int rc = schedule(op, alg, ranks, root, size, stop, &g, w, sizeof w);
    if (!rc && barrier)
        rc = schedule(COLL_BARRIER, NULL, ranks, 0, 0, stop, &bar, w, sizeof w);
    lp_ctx c = {lp, 0, 0, 0, 0, {0}};
    sim_sized p = {f_os, f_or, f_g, f_L, &c};
    if (!rc)
        *ns = barrier ? barrier_synced(&g, &bar, &p, barrier == 2, stop) : coll_predict_sized(&g, &p, NULL, NULL, stop);
    goal_free(&g);
    goal_free(&bar);
    if (rc == -3 || (!rc && *ns == -3))
        return -1;
    if (rc)
        return snprintf(why, len, "%s", rc == -1 ? "out of memory" : w), 1;
    if (c.bad) {
        long lo = -1, hi = -1;
        for (long i = 0; i < lp->count; i++) {
            long z = lp->rows[i].size_bytes;
            lo = lo < 0 || z < lo ? z : lo;
            hi = z > hi ? z : hi;
        }
        return snprintf(why, len, "%s: no LogP row covers %ld-byte messages (the file has"
                        " sizes %ld..%ld); measure them with mpibench --pattern logp --max-size",
                        path, c.bad_size, lo, hi), 1;
    }
    if (*ns < 0)
        return snprintf(why, len, "%s", *ns < -1 ? "out of memory" : "the schedule deadlocks"), 1;
    return 0;
}

/* The largest of a row's comma-separated per-rank figures, or -1. */
static double largest(const char *list)
{
    double mx = -1;
    for (const char *p = list; *p;) {
        char *e;
        double v = strtod(p, &e);
        if (e == p)
            return -1;
        mx = fmax(mx, v);
        p = *e == ',' ? e + 1 : e;
        if (*e && *e != ',')
            return -1;
    }
    return mx;
}

int coll_compare_plan_of(const coll_data *d, const char *alg, coll_compare_plan *p)
{
    p->op = -1;
    for (int i = 0; coll_op_names[i]; i++)
        if (!strcmp(coll_op_names[i], d->op))
            p->op = i;
    if (p->op < 0)
        return -1;
    p->alg = alg ? alg : (d->algorithm[0] && strcmp(d->algorithm, "library") ? d->algorithm : NULL);
    p->barrier = !strcmp(d->sync, "barrier") ? 1 : !strcmp(d->sync, "osu") ? 2 : 0;
    /* behind a barrier the replay times each rank from its own exit: the
     * like figure is the largest rank's median (--node-times), not the
     * slowest rank per repetition, which is above it for an exchange */
    p->nodes = p->barrier && d->count > 0 && largest(d->rows[0].node_ns) >= 0;
    return 0;
}

int coll_compare_row(const coll_compare_plan *p, const coll_row *r, const logp_data *lp,
                     const char *lpath, double *measured, double *predicted, char *why, size_t len)
{
    /* the largest rank's median is the slowest rank's figure, whatever the sync */
    int barrier = p->nodes ? 1 : p->barrier;
    if (coll_predict_logp(lp, lpath, p->op, p->alg, (int)r->procs, (int)r->root, r->size, barrier,
                          NULL, predicted, why, len))
        return 1;
    *measured = p->nodes && largest(r->node_ns) >= 0 ? largest(r->node_ns) : r->median_ns;
    return 0;
}
