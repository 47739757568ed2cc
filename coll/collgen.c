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

int coll_op_parse(const char *name)
{
    for (int i = 0; coll_op_names[i]; i++)
        if (!strcmp(name, coll_op_names[i]))
            return i;
    return -1;
}

static int add(coll_sched *s, int rank, int step, int peer, int send, long bytes)
{
    if (UTIL_GROW(s->msgs, s->count, s->cap, 64))
        return -1;
    s->msgs[s->count++] = (coll_msg){rank, step, peer, send, bytes, 0};
    return 0;
}

static int lowbit(int v, int n) { return v ? (v & -v) : n; }
static int min_i(int a, int b) { return a < b ? a : b; }
#define ADD(...) do { if (add(__VA_ARGS__)) return -1; } while (0)

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

/* Recursive doubling (the whole vector each step), or with halve
 * Rabenseifner's: a reduce-scatter by recursive halving (half the vector
 * still held, to distance 1, 2, 4, ...) and an allgather back by recursive
 * doubling.  The extra ranks of a non-power of two fold in first. */
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
        return tree(s, n, 0, m, 0, 0, 0) ? -1 : tree(s, n, 0, m, 1, 0, 64);
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

static int by_rank_step(const void *a, const void *b)
{
    const coll_msg *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    if (x->step != y->step)
        return x->step - y->step;
    return (x->seq > y->seq) - (x->seq < y->seq);
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
    memset(s, 0, sizeof *s);
    s->ranks = ranks, s->op = op, s->root = root, s->size = size;
    if (op < 0 || op >= COLL_NOPS) {
        snprintf(why, len, "unknown collective");
        return -2;
    }
    char def[40];
    snprintf(def, sizeof def, "%s", algs[op]);
    *strchrnul(def, ',') = 0;
    const char *a = alg ? alg : def;
    if (!in_list(algs[op], a)) {
        snprintf(why, len, "no algorithm '%s' for %s (one of %s)", a, coll_op_names[op], algs[op]);
        return -2;
    }
    if (!strcmp(a, "tuned"))
        a = tuned_allreduce(ranks, size);
    s->alg = a;
    if (!strcmp(a, "recursive_doubling") && op == COLL_ALLGATHER && (ranks & (ranks - 1))) {
        snprintf(why, len, "allgather recursive_doubling needs a power-of-two number of ranks");
        return -2;
    }
    if (build(s, op, a, ranks, root, size)) {
        coll_sched_free(s);
        return -1;
    }
    /* stable: within a step, messages keep the order the builder gave */
    for (long i = 0; i < s->count; i++)
        s->msgs[i].seq = i;
    if (s->count)
        qsort(s->msgs, (size_t)s->count, sizeof *s->msgs, by_rank_step);
    return 0;
}

void coll_sched_free(coll_sched *s)
{
    free(s->msgs);
    s->msgs = NULL;
    s->count = s->cap = 0;
}

/* The tag of each message: its index among the messages of its pair and
 * direction, so that the k-th send from a to b meets b's k-th receive
 * from a (MPI's order), in GOAL and in the replay alike. */
static long *pair_tags(const coll_sched *s)
{
    int n = s->ranks;
    long *tag = malloc((size_t)(s->count ? s->count : 1) * sizeof *tag);
    long *next = calloc((size_t)n * (size_t)n * 2, sizeof *next);
    if (!tag || !next) {
        free(tag);
        free(next);
        return NULL;
    }
    for (long i = 0; i < s->count; i++) {
        const coll_msg *m = &s->msgs[i];
        int src = m->send ? m->rank : m->peer, dst = m->send ? m->peer : m->rank;
        tag[i] = next[((size_t)src * (size_t)n + (size_t)dst) * 2 + (size_t)m->send]++;
    }
    free(next);
    return tag;
}

void coll_write_goal(FILE *fp, const coll_sched *s)
{
    long *tag = pair_tags(s);
    fprintf(fp, "// %s (%s) of %ld bytes on %d ranks, root %d (scitorus collgen)\n",
            coll_op_names[s->op], s->alg ? s->alg : "?", s->size, s->ranks, s->root);
    fprintf(fp, "num_ranks %d\n", s->ranks);
    long i = 0;
    for (int r = 0; r < s->ranks; r++) {
        fprintf(fp, "\nrank %d {\n", r);
        long prev_lo = -1, prev_hi = -1;
        while (i < s->count && s->msgs[i].rank == r) {
            long lo = i;
            while (i < s->count && s->msgs[i].rank == r && s->msgs[i].step == s->msgs[lo].step)
                i++;
            for (long k = lo; k < i; k++) {
                const coll_msg *m = &s->msgs[k];
                fprintf(fp, "l%ld: %s %ldb %s %d tag %ld\n", k, m->send ? "send" : "recv",
                        m->bytes, m->send ? "to" : "from", m->peer, tag ? tag[k] : 0);
                for (long d = prev_lo; d >= 0 && d < prev_hi; d++)
                    fprintf(fp, "l%ld requires l%ld\n", k, d);
            }
            prev_lo = lo, prev_hi = i;
        }
        fprintf(fp, "}\n");
    }
    free(tag);
}

/* Replay: a rank runs its steps in order; a step starts when the previous
 * one has completed.  Sends start at max(step start, CPU free, last send
 * start + g(m)), hold the CPU for os(m) and are ready at the receiver L
 * later; a receive completes or(m) after max(arrival, CPU free). */
/* A send's key: source, destination, tag (pair_tags). */
typedef struct send_key {
    long src, dst, tag, idx;
} send_key;

static int by_key(const void *a, const void *b)
{
    const send_key *x = a, *y = b;
    return x->src != y->src ? (x->src > y->src) - (x->src < y->src)
         : x->dst != y->dst ? (x->dst > y->dst) - (x->dst < y->dst)
                            : (x->tag > y->tag) - (x->tag < y->tag);
}

/* match[k]: the send a receive k meets (-1 for a send, or for none), by a
 * sorted table of the sends: 4096 ranks' alltoall is 33 million messages. */
static int match_sends(const coll_sched *s, const long *tag, long *match)
{
    send_key *keys = malloc((size_t)(s->count ? s->count : 1) * sizeof *keys);
    long n = 0;
    if (!keys)
        return -1;
    for (long k = 0; k < s->count; k++)
        if (s->msgs[k].send)
            keys[n++] = (send_key){s->msgs[k].rank, s->msgs[k].peer, tag[k], k};
    qsort(keys, (size_t)n, sizeof *keys, by_key);
    for (long k = 0; k < s->count; k++) {
        const coll_msg *m = &s->msgs[k];
        send_key want = {m->peer, m->rank, tag[k], 0}, *hit;
        hit = m->send ? NULL : bsearch(&want, keys, (size_t)n, sizeof *keys, by_key);
        match[k] = hit ? hit->idx : -1;
    }
    free(keys);
    return 0;
}

double coll_predict(const coll_sched *s, const coll_logp *p, double *per_rank)
{
    return coll_predict_from(s, p, NULL, per_rank);
}

double coll_predict_from(const coll_sched *s, const coll_logp *p, const double *t0,
                         double *per_rank)
{
    int n = s->ranks;
    size_t cnt = (size_t)(s->count ? s->count : 1);
    long *tag = pair_tags(s), *match = malloc(cnt * sizeof *match);
    double *arr = malloc(cnt * sizeof *arr);
    char *timed = calloc(cnt, 1), *used = calloc(cnt, 1), *sdone = calloc((size_t)n, 1);
    long *first = calloc((size_t)n + 1, sizeof *first), *pos = calloc((size_t)n, sizeof *pos);
    double *cpu = calloc((size_t)n, sizeof *cpu), *nic = calloc((size_t)n, sizeof *nic);
    double *start = calloc((size_t)n, sizeof *start), *end = calloc((size_t)n, sizeof *end);
    double result = -1;
    if (!tag || !match || !arr || !timed || !used || !sdone || !first || !pos || !cpu || !nic ||
        !start || !end)
        goto out;
    if (match_sends(s, tag, match))
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
    for (int progress = 1; progress;) {
        progress = 0;
        for (int r = 0; r < n; r++) {
            while (pos[r] < first[r + 1]) {
                long lo = pos[r], hi = lo;
                while (hi < first[r + 1] && s->msgs[hi].step == s->msgs[lo].step)
                    hi++;
                if (!sdone[r]) {   /* the step's sends go first, its receives wait */
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
                        arr[k] = t + os + L;
                        timed[k] = 1;
                        end[r] = fmax(end[r], t + os);
                    }
                    sdone[r] = 1;
                    progress = 1;
                }
                int ready = 1;
                for (long k = lo; k < hi; k++)
                    if (!s->msgs[k].send && (match[k] < 0 || !timed[match[k]]))
                        ready = 0;
                if (!ready)
                    break;
                for (;;) {   /* the receives in order of arrival */
                    long best = -1;
                    for (long k = lo; k < hi; k++)
                        if (!s->msgs[k].send && !used[k] &&
                            (best < 0 || arr[match[k]] < arr[match[best]]))
                            best = k;
                    if (best < 0)
                        break;
                    used[best] = 1;
                    cpu[r] = fmax(fmax(cpu[r], start[r]), arr[match[best]]) +
                             p->orr(p->ctx, s->msgs[best].bytes);
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
    free(tag), free(match), free(arr), free(timed), free(used), free(sdone), free(first),
        free(pos), free(cpu), free(nic), free(start), free(end);
    return result;
}
