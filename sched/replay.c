/* replay: the LogGP prediction of a collective schedule (sched/collgen.h). */
#include "sched/collgen.h"
#include "util/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Replay: a rank runs its steps in order; a step starts when the previous
 * one has completed.  Sends start at max(step start, CPU free, last send
 * start + g(m)), hold the CPU for os(m) and are ready at the receiver L
 * later; a receive completes or(m) after max(arrival, CPU free). */

/* One word a message, 8 of the replay's 32 bytes a message: a send's
 * receive (-1: none) until it is timed, a receive's arrival (NaN: not yet). */
typedef union slot {
    long recv;
    double arr;
} slot;

#define STOP_SCAN 0xfffffL   /* the matching's scans look at Ctrl-C every 2^20 */

/* The k-th send a->b meets b's k-th receive from a.  The sends sorted by
 * destination (stably, so by source within it) give, for each rank, its
 * senders' runs; a cursor per sender walks them.  Returns 0, -2, -3. */
static int match_sends(const coll_sched *s, const long *first, slot *sl)
{
    int n = s->ranks, rc = 0;
    long *at = calloc((size_t)n + 1, sizeof *at), *cur = malloc((size_t)n * sizeof *cur);
    int *seen = malloc((size_t)n * sizeof *seen);
    long *order = NULL;
    if (!at || !cur || !seen)
        goto out;
    for (long k = 0; k < s->count; k++)
        if (s->msgs[k].send)
            at[s->msgs[k].peer + 1]++;
    for (int r = 0; r < n; r++) {
        at[r + 1] += at[r];
        seen[r] = -1;
    }
    if (!(order = malloc((size_t)(at[n] ? at[n] : 1) * sizeof *order)))
        goto out;
    for (long k = 0; k < s->count; k++) {   /* the rank's sends in order, by destination */
        if (s->msgs[k].send)
            order[at[s->msgs[k].peer]++] = k;
        if (s->msgs[k].send)
            sl[k].recv = -1;
        else
            sl[k].arr = NAN;
    }
    for (int r = n; r > 0; r--)   /* at[r]: back to the start of destination r's run */
        at[r] = at[r - 1];
    at[0] = 0;
    for (int r = 0; r < n && !rc; r++) {
        for (long j = at[r]; j < at[r + 1]; j++) {
            int src = s->msgs[order[j]].rank;
            if (seen[src] != r)
                seen[src] = r, cur[src] = j;
        }
        for (long k = first[r]; k < first[r + 1]; k++) {
            const coll_msg *m = &s->msgs[k];
            if (m->send || m->peer < 0 || m->peer >= n || seen[m->peer] != r)
                continue;
            long j = cur[m->peer];
            if (j < at[r + 1] && s->msgs[order[j]].rank == m->peer) {
                sl[order[j]].recv = k;
                cur[m->peer]++;
            }
        }
        if (!(r & 63) && s->stop && s->stop())
            rc = -3;
    }
    free(at), free(cur), free(seen), free(order);
    return rc;
out:
    free(at), free(cur), free(seen), free(order);
    return -2;
}

double coll_predict(const coll_sched *s, const coll_logp *p, double *per_rank)
{
    return coll_predict_from(s, p, NULL, per_rank);
}

/* A step's receive and when it arrives: they are taken in order of
 * arrival, the earlier message first on a tie. */
typedef struct arrival {
    double t;
    long k;
} arrival;

static int by_arrival(const void *a, const void *b)
{
    const arrival *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : (x->k > y->k) - (x->k < y->k);
}

/* Times the sends of step [lo, hi) of rank r. */
static void send_step(const coll_sched *s, const coll_logp *p, int r, long lo, long hi,
                      slot *sl, double *start, double *cpu, double *nic, double *end)
{
    for (long k = lo; k < hi; k++) {
        const coll_msg *m = &s->msgs[k];
        if (!m->send)
            continue;
        double t = fmax(fmax(start[r], cpu[r]), nic[r] + p->g(p->ctx, m->bytes));
        double os = p->os(p->ctx, m->bytes);
        double L = p->Lm ? p->Lm(p->ctx, m->bytes) : p->L;
        /* L < 0: the blocking send call spans the delivery, and while it
         * waits MPI progresses the rank's posted receives (an exchange
         * costs one message, not os + or); the call still ends at os */
        nic[r] = t;
        cpu[r] = t + (L < 0 ? fmax(0, os + L) : os);
        if (sl[k].recv >= 0)
            sl[sl[k].recv].arr = t + os + L;
        end[r] = fmax(end[r], t + os);
    }
}

double coll_predict_from(const coll_sched *s, const coll_logp *p, const double *t0,
                         double *per_rank)
{
    int n = s->ranks;
    slot *sl = malloc((size_t)(s->count ? s->count : 1) * sizeof *sl);
    char *sdone = calloc((size_t)n, 1);
    long *first = calloc((size_t)n + 1, sizeof *first), *pos = calloc((size_t)n, sizeof *pos);
    double *cpu = calloc((size_t)n, sizeof *cpu), *nic = calloc((size_t)n, sizeof *nic);
    double *start = calloc((size_t)n, sizeof *start), *end = calloc((size_t)n, sizeof *end);
    arrival *got = NULL;
    size_t ngot = 0, capgot = 0;
    double result = -2;
    if (!sl || !sdone || !first || !pos || !cpu || !nic || !start || !end)
        goto out;
    for (long k = 0; k < s->count; k++)
        first[s->msgs[k].rank + 1] = k + 1;
    for (int r = 0; r < n; r++) {
        if (first[r + 1] < first[r])
            first[r + 1] = first[r];
        pos[r] = first[r];
        nic[r] = -INFINITY;
        start[r] = cpu[r] = end[r] = t0 ? t0[r] : 0;
    }
    if ((result = match_sends(s, first, sl)))
        goto out;
    for (int progress = 1; progress;) {
        progress = 0;
        for (int r = 0; r < n; r++) {
            if (s->stop && s->stop()) {
                result = -3;
                goto out;
            }
            while (pos[r] < first[r + 1]) {
                long lo = pos[r], hi = lo;
                while (hi < first[r + 1] && s->msgs[hi].step == s->msgs[lo].step)
                    hi++;
                if (!sdone[r]) {   /* the step's sends go first, its receives wait */
                    send_step(s, p, r, lo, hi, sl, start, cpu, nic, end);
                    sdone[r] = 1;
                    progress = 1;
                }
                ngot = 0;
                long k = lo;
                for (; k < hi && (s->msgs[k].send || !isnan(sl[k].arr)); k++) {
                    if (s->msgs[k].send)
                        continue;
                    if (UTIL_GROW(got, ngot, capgot, 64)) {
                        result = -2;
                        goto out;
                    }
                    got[ngot++] = (arrival){sl[k].arr, k};
                }
                if (k < hi)   /* a receive still waits for its send */
                    break;
                if (ngot > 1)
                    qsort(got, ngot, sizeof *got, by_arrival);
                for (size_t i = 0; i < ngot; i++) {
                    cpu[r] = fmax(fmax(cpu[r], start[r]), got[i].t) +
                             p->orr(p->ctx, s->msgs[got[i].k].bytes);
                    end[r] = fmax(end[r], cpu[r]);
                }
                start[r] = end[r];
                pos[r] = hi;
                sdone[r] = 0;
            }
        }
    }
    result = 0;
    for (int r = 0; r < n && result >= 0; r++) {
        if (pos[r] < first[r + 1])
            result = -1;
        else
            result = fmax(result, end[r]);
        if (per_rank)
            per_rank[r] = end[r];
    }
out:
    free(sl), free(sdone), free(first), free(pos), free(cpu), free(nic), free(start), free(end),
        free(got);
    return result;
}
