/* collgen: collective algorithms as steps of sends and receives, GOAL
 * text, and their LogGP replay (coll/collgen.h). */
#include "coll/collgen.h"
#include "util/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const coll_op_names[] = {"barrier", "bcast", "reduce", "allreduce", "allgather",
                                     "alltoall", "gather", "scatter", NULL};

/* First of each list: Open MPI tuned's pick for a few ranks and small
 * messages (two ranks: every algorithm is one exchange or one message);
 * allreduce's "tuned" picks by size and ranks as Open MPI 4.1 does (tuned_allreduce). */
static const char *const algs[COLL_NOPS] = {
    "dissemination", "binomial,linear", "binomial,linear",
    "tuned,recursive_doubling,ring,rabenseifner,reduce_bcast", "ring,recursive_doubling",
    "linear,pairwise", "linear,binomial", "linear,binomial"};

/* Open MPI 4.1's coll/tuned fixed decision for a commutative allreduce: per bound
 * on the ranks, the algorithm below each size bound (bytes).  Its segmented ring
 * runs as the ring here: without a segment size it falls back to the ring. */
static const struct tuned_rule {
    int below_ranks;
    struct { long below; const char *alg; } by[5];
} tuned_rules[] = {
    {4, {{8, "ring"}, {4096, "recursive_doubling"}, {8192, "ring"}, {16384, "recursive_doubling"},
         {262144, "ring"}}},
    {8, {{16, "ring"}, {8192, "recursive_doubling"}}},
    {16, {{8192, "recursive_doubling"}}},
    {32, {{64, "ring"}, {4096, "recursive_doubling"}}},
    {64, {{128, "ring"}}},
    {128, {{262144, "recursive_doubling"}}},
    {256, {{131072, "reduce_bcast"}, {262144, "recursive_doubling"}}},
    {512, {{4096, "reduce_bcast"}}},
    {2048, {{2048, "reduce_bcast"}, {16384, "recursive_doubling"}}},
    {4096, {{2048, "reduce_bcast"}, {4096, "ring"}, {16384, "recursive_doubling"}}},
    {1 << 30, {{2048, "reduce_bcast"}, {16384, "ring"}, {32768, "recursive_doubling"}}},
};

/* Above every size bound, Rabenseifner's.  The ring and Rabenseifner's need
 * as many elements as ranks (powers of two) or Open MPI runs recursive
 * doubling; mpibench reduces floats, or bytes where m is not a multiple of 4. */
static const char *tuned_allreduce(int n, long m)
{
    const struct tuned_rule *t = tuned_rules;
    while (n >= t->below_ranks)
        t++;
    const char *a = "rabenseifner";
    for (int i = 0; i < 5 && t->by[i].alg; i++)
        if (m < t->by[i].below) {
            a = t->by[i].alg;
            break;
        }
    long elems = m % 4 ? m : m / 4;
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    if ((!strcmp(a, "ring") && elems < n) || (!strcmp(a, "rabenseifner") && elems < p))
        a = "recursive_doubling";
    return a;
}

const char *coll_algorithms(int op)
{
    return op >= 0 && op < COLL_NOPS ? algs[op] : NULL;
}

/* alg, or the op's default (the first of its list, into buf). */
static const char *alg_or_default(int op, const char *alg, char *buf, size_t len)
{
    if (alg)
        return alg;
    snprintf(buf, len, "%s", algs[op]);
    *strchrnul(buf, ',') = 0;
    return buf;
}

const char *coll_algorithm(int op, const char *alg, int ranks, long size, char *buf, size_t len)
{
    char def[40];
    const char *a = alg_or_default(op, alg, def, sizeof def);
    if (!strcmp(a, "tuned"))
        snprintf(buf, len, "tuned:%s", tuned_allreduce(ranks, size));
    else
        snprintf(buf, len, "%s", a);
    return buf;
}

int coll_op_parse(const char *name)
{
    for (int i = 0; coll_op_names[i]; i++)
        if (!strcmp(name, coll_op_names[i]))
            return i;
    return -1;
}

/* Ctrl-C is looked at every 2^16 messages: a 4096-process alltoall is 33
 * million of them, a second or so to build. */
#define STOP_EVERY 0xffffL
static int add(coll_sched *s, int rank, int step, int peer, int send, long bytes)
{
    if (!(s->count & STOP_EVERY) && s->stop && s->stop())
        return -3;
    if (UTIL_GROW(s->msgs, s->count, s->cap, 64))
        return -1;
    s->msgs[s->count++] = (coll_msg){rank, step, peer, send, bytes};
    return 0;
}

static int lowbit(int v, int n) { return v ? (v & -v) : n; }
static int min_i(int a, int b) { return a < b ? a : b; }
#define ADD(...) do { int rc_ = add(__VA_ARGS__); if (rc_) return rc_; } while (0)

/* Binomial tree rooted at rt (vrank vr = (r - rt) mod n): the parent of vr
 * is vr - lowbit(vr), its children vr + mask for the masks below lowbit. */
static int tree(coll_sched *s, int n, int rt, long m, int down, int sized, int step0)
{
    for (int r = 0; r < n; r++) {
        int vr = (r - rt + n) % n, lb = lowbit(vr, n), step = step0;
        int top = 1;
        while (top < lb && top < n)
            top <<= 1;
        long mine = sized ? (long)min_i(lb, n - vr) * m : m;
        if (down && vr)
            ADD(s, r, step++, (vr - lb + rt) % n, 0, mine);
        /* down: children far to near; up: near to far (smallest subtree first) */
        for (int k = 0, mask = down ? top >> 1 : 1; k < 31 && mask > 0 && mask < lb;
             k++, mask = down ? mask >> 1 : mask << 1) {
            if (vr + mask >= n)
                continue;
            long b = sized ? (long)min_i(mask, n - vr - mask) * m : m;
            ADD(s, r, step++, (vr + mask + rt) % n, down, b);
        }
        if (!down && vr)
            ADD(s, r, step++, (vr - lb + rt) % n, 1, mine);
    }
    return 0;
}

/* The root sends to (or receives from) everyone; sends one after another,
 * receives all posted at once. */
static int linear(coll_sched *s, int n, int rt, long m, int down)
{
    for (int r = 0, k = 0; r < n; r++) {
        if (r == rt)
            continue;
        ADD(s, rt, down ? k++ : 0, r, down, m);
        ADD(s, r, 0, rt, !down, m);
    }
    return 0;
}

/* Recursive doubling (the whole vector each step), or with halve Rabenseifner's
 * (half the vector held, to distance 1, 2, 4, ..., then back); the extra ranks
 * of a non-power of two fold in first (docs/model.md, 'Collectives'). */
static int recursive_doubling(coll_sched *s, int n, long m, int halve)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p;
    for (int r = 0; r < n; r++) {
        int nr = r < 2 * rem ? r / 2 : r - rem, step = 1;
        if (r < 2 * rem && r % 2 == 0) {   /* hands its data on, gets the result */
            ADD(s, r, 0, r + 1, 1, m);
            ADD(s, r, 1, r + 1, 0, m);
            continue;
        }
        if (r < 2 * rem)
            ADD(s, r, 0, r - 1, 0, m);
        for (int pass = 0; pass < (halve ? 2 : 1); pass++)   /* halving: back p/2 .. 1 */
            for (int mask = pass ? p >> 1 : 1; mask >= 1 && mask < p;
                 mask = pass ? mask >> 1 : mask << 1, step++) {
                int nd = nr ^ mask, peer = nd < rem ? nd * 2 + 1 : nd + rem;
                long b = halve ? m / (2L * mask) : m;
                ADD(s, r, step, peer, 1, b);
                ADD(s, r, step, peer, 0, b);
            }
        if (r < 2 * rem)
            ADD(s, r, step, r - 1, 1, m);
    }
    return 0;
}

/* Every rank exchanges with the ranks k away, k = 1.. (pairwise, ring),
 * or with r xor 2^k carrying 2^k blocks (recursive doubling). */
static int exchange(coll_sched *s, int n, long m, int kind, int step0)
{
    for (int r = 0; r < n; r++)
        for (int k = 1, step = step0; kind == 2 ? k < n : step < step0 + n - 1; step++) {
            int to, from;
            long b = m;
            if (kind == 0) {   /* pairwise */
                to = (r + k) % n, from = (r - k + n) % n;
                k++;
            } else if (kind == 1) {   /* ring */
                to = (r + 1) % n, from = (r - 1 + n) % n;
            } else {
                to = from = r ^ k;
                b = m * k;
                k <<= 1;
            }
            ADD(s, r, step, to, 1, b);
            ADD(s, r, step, from, 0, b);
        }
    return 0;
}

static int build(coll_sched *s, int op, const char *a, int n, int rt, long m)
{
    switch (op) {
    case COLL_BARRIER:
        for (int r = 0; r < n; r++)
            for (int k = 1, step = 0; k < n; k <<= 1, step++) {
                ADD(s, r, step, (r + k) % n, 1, 0);
                ADD(s, r, step, (r - k + n) % n, 0, 0);
            }
        return 0;
    case COLL_BCAST: return !strcmp(a, "linear") ? linear(s, n, rt, m, 1) : tree(s, n, rt, m, 1, 0, 0);
    case COLL_REDUCE: return !strcmp(a, "linear") ? linear(s, n, rt, m, 0) : tree(s, n, rt, m, 0, 0, 0);
    case COLL_GATHER: return !strcmp(a, "linear") ? linear(s, n, rt, m, 0) : tree(s, n, rt, m, 0, 1, 0);
    case COLL_SCATTER: return !strcmp(a, "linear") ? linear(s, n, rt, m, 1) : tree(s, n, rt, m, 1, 1, 0);
    case COLL_ALLREDUCE:
        if (!strcmp(a, "recursive_doubling") || !strcmp(a, "rabenseifner"))
            return recursive_doubling(s, n, m, a[1] == 'a');
        if (!strcmp(a, "ring"))   /* a reduce-scatter, then an allgather, blocks of m / n */
            return exchange(s, n, m / n, 1, 0) ? -1 : exchange(s, n, m / n, 1, n - 1);
        /* reduce to 0, then broadcast from 0, steps after the reduce's */
        {
            int rc = tree(s, n, 0, m, 0, 0, 0);
            return rc ? rc : tree(s, n, 0, m, 1, 0, 64);
        }
    case COLL_ALLGATHER: return exchange(s, n, m, !strcmp(a, "ring") ? 1 : 2, 0);
    case COLL_ALLTOALL:
        if (!strcmp(a, "pairwise"))
            return exchange(s, n, m, 0, 0);
        for (int r = 0; r < n; r++)
            for (int j = 0; j < n; j++)
                if (j != r) {
                    ADD(s, r, 0, j, 1, m);
                    ADD(s, r, 0, j, 0, m);
                }
        return 0;
    }
    return -1;
}

/* One stable counting-sort pass of from into to by rank (by_rank) or step,
 * whose values lie in 0..nkeys-1. */
static int sort_pass(coll_msg *to, const coll_msg *from, long count, int by_rank, long nkeys)
{
    long *at = calloc((size_t)nkeys + 1, sizeof *at);
    if (!at)
        return -1;
    for (long i = 0; i < count; i++)
        at[(by_rank ? from[i].rank : from[i].step) + 1]++;
    for (long k = 0; k < nkeys; k++)
        at[k + 1] += at[k];
    for (long i = 0; i < count; i++)
        to[at[by_rank ? from[i].rank : from[i].step]++] = from[i];
    free(at);
    return 0;
}

/* Into rank order, steps ascending, ties as generated.  The large
 * schedules come out of their builders in that order already: no copy. */
static int sort_by_rank_step(coll_sched *s)
{
    long sorted = 1, maxstep = 0;
    for (long i = 0; i < s->count; i++) {
        const coll_msg *a = &s->msgs[i], *b = &s->msgs[i ? i - 1 : 0];
        maxstep = a->step > maxstep ? a->step : maxstep;
        if (b->rank > a->rank || (b->rank == a->rank && b->step > a->step))
            sorted = 0;
    }
    if (sorted)
        return 0;
    coll_msg *tmp = malloc((size_t)s->count * sizeof *tmp);
    int rc = !tmp || sort_pass(tmp, s->msgs, s->count, 0, maxstep + 1) ||
             sort_pass(s->msgs, tmp, s->count, 1, s->ranks);
    free(tmp);
    return rc ? -1 : 0;
}

/* Is name one of the comma-separated words in list? */
static int in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && !strncmp(p, name, len))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

int coll_generate(coll_sched *s, int op, const char *alg, int ranks, int root, long size,
                  char *why, size_t len)
{
    return coll_generate_until(s, op, alg, ranks, root, size, NULL, why, len);
}

int coll_validate(int op, const char *alg, int ranks, char *why, size_t len)
{
    if (op < 0 || op >= COLL_NOPS) {
        snprintf(why, len, "unknown collective");
        return -2;
    }
    char def[40];
    const char *a = alg_or_default(op, alg, def, sizeof def);
    if (!in_list(algs[op], a)) {
        snprintf(why, len, "no algorithm '%s' for %s (one of %s)", a, coll_op_names[op], algs[op]);
        return -2;
    }
    if (!strcmp(a, "recursive_doubling") && op == COLL_ALLGATHER && (ranks & (ranks - 1))) {
        snprintf(why, len, "allgather recursive_doubling needs a power-of-two number of ranks");
        return -2;
    }
    return 0;
}

int coll_generate_until(coll_sched *s, int op, const char *alg, int ranks, int root,
                        long size, int (*stop)(void), char *why, size_t len)
{
    memset(s, 0, sizeof *s);
    s->ranks = ranks, s->op = op, s->root = root, s->size = size, s->stop = stop;
    if (coll_validate(op, alg, ranks, why, len))
        return -2;
    coll_algorithm(op, alg, ranks, size, s->alg, sizeof s->alg);
    const char *pick = strchr(s->alg, ':');   /* tuned's */
    int rc = build(s, op, pick ? pick + 1 : s->alg, ranks, root, size);
    if (!rc && sort_by_rank_step(s))
        rc = -1;
    if (rc)
        coll_sched_free(s);
    return rc;
}

void coll_sched_free(coll_sched *s)
{
    free(s->msgs);
    s->msgs = NULL;
    s->count = s->cap = 0;
}

/* The tag of each message: its index among the messages of its pair and
 * direction, so that the k-th send from a to b meets b's k-th receive
 * from a (MPI's order).  Counted per rank (next: 2 entries a peer). */
void coll_write_goal(FILE *fp, const coll_sched *s)
{
    long *next = calloc((size_t)s->ranks * 2, sizeof *next);
    fprintf(fp, "// %s (%s) of %ld bytes on %d ranks, root %d (scitorus collgen)\n",
            coll_op_names[s->op], s->alg, s->size, s->ranks, s->root);
    fprintf(fp, "num_ranks %d\n", s->ranks);
    long i = 0;
    for (int r = 0; r < s->ranks; r++) {
        fprintf(fp, "\nrank %d {\n", r);
        long prev_lo = -1, prev_hi = -1;
        if (next)
            memset(next, 0, (size_t)s->ranks * 2 * sizeof *next);
        while (i < s->count && s->msgs[i].rank == r) {
            long lo = i;
            while (i < s->count && s->msgs[i].rank == r && s->msgs[i].step == s->msgs[lo].step)
                i++;
            for (long k = lo; k < i; k++) {
                const coll_msg *m = &s->msgs[k];
                fprintf(fp, "l%ld: %s %ldb %s %d tag %ld\n", k, m->send ? "send" : "recv",
                        m->bytes, m->send ? "to" : "from", m->peer,
                        next ? next[(size_t)m->peer * 2 + (size_t)m->send]++ : 0);
                for (long d = prev_lo; d >= 0 && d < prev_hi; d++)
                    fprintf(fp, "l%ld requires l%ld\n", k, d);
            }
            prev_lo = lo, prev_hi = i;
        }
        fprintf(fp, "}\n");
    }
    free(next);
}

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
