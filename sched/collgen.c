/* collgen: collective algorithms as steps of sends and receives
 * (sched/collgen.h). */
#include "sched/collgen.h"
#include "util/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const coll_op_names[] = {"barrier", "bcast", "reduce", "allreduce", "allgather",
                                     "alltoall", "gather", "scatter", "gatherv", "scatterv",
                                     "allgatherv", "alltoallv", "reduce_scatter", "scan",
                                     "exscan", NULL};

/* First of each list: Open MPI tuned's pick for a few ranks and small
 * messages (two ranks: every algorithm is one exchange or one message);
 * "tuned" and "mpich" pick a family as those libraries do (sched/decide.c). */
static const char *const algs[COLL_NOPS] = {
    "dissemination,recursive_doubling,linear,tuned,mpich",
    "binomial,linear,chain,binary,bmtree,knomial,scatter_allgather,scatter_ring_allgather,tuned,"
    "mpich",
    "binomial,linear,chain,binary,tuned,mpich",
    "tuned,recursive_doubling,ring,rabenseifner,reduce_bcast,redscat_allgather,mpich",
    "ring,recursive_doubling,bruck,tuned,mpich",
    "linear,pairwise,bruck,tuned,mpich", "linear,binomial,linear_sync,tuned,mpich",
    "linear,binomial,tuned,mpich", "linear,tuned,mpich", "linear,tuned,mpich",
    "ring,recursive_doubling,bruck,gatherv_bcast,tuned,mpich", "linear,pairwise,tuned,mpich",
    "ring,recursive_halving,pairwise,reduce_scatterv,tuned,mpich",
    "linear,recursive_doubling,tuned,mpich", "linear,recursive_doubling,tuned,mpich"};

const char *coll_algorithms(int op)
{
    return op >= 0 && op < COLL_NOPS ? algs[op] : NULL;
}

const char *coll_default_algorithm(int op, const char *alg, char *buf, size_t len)
{
    if (alg)
        return alg;
    snprintf(buf, len, "%s", algs[op]);
    *strchrnul(buf, ',') = 0;
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
    if (s->only && rank != s->only - 1)
        return 0;
    if (!(s->count & STOP_EVERY) && s->stop && s->stop())
        return -3;
    if (UTIL_GROW(s->msgs, s->count, s->cap, 64))
        return -1;
    s->msgs[s->count++] = (coll_msg){rank, step, peer, send, bytes};
    return 0;
}

/* The ranks a loop generates: all, or the one coll_generate_rank asks for.  Only a loop
 * whose body adds rank r's operations alone iterates so; the others (a root's operations
 * added beside each rank's) run over all ranks and add() keeps the one rank's. */
#define R_FIRST(s) ((s)->only ? (s)->only - 1 : 0)
#define R_END(s, n) ((s)->only ? (s)->only : (n))

static int lowbit(int v, int n) { return v ? (v & -v) : n; }
static int min_i(int a, int b) { return a < b ? a : b; }
#define ADD(...) do { int rc_ = add(__VA_ARGS__); if (rc_) return rc_; } while (0)

/* Binomial tree rooted at rt (vrank vr = (r - rt) mod n): the parent of vr
 * is vr - lowbit(vr), its children vr + mask for the masks below lowbit. */
static int tree(coll_sched *s, int n, int rt, long m, int down, int sized, int step0)
{
    for (int r = R_FIRST(s); r < R_END(s, n); r++) {
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
 * of a non-power of two fold in first (docs/replay.md, 'Collectives'). */
static int recursive_doubling(coll_sched *s, int n, long m, int halve)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p;
    for (int r = R_FIRST(s); r < R_END(s, n); r++) {
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

/* Open MPI's Rabenseifner (redscat_allgather): of each pair of extra ranks
 * below 2 rem the odd one trades halves with the even one, hands it its
 * reduced half and waits for the whole result; the even ranks and those
 * from 2 rem on halve and double as vranks (rank / 2, rank - rem). */
static int redscat_allgather(coll_sched *s, int n, long m)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p;
    long lh = m / 2, rh = m - m / 2;
    for (int r = R_FIRST(s); r < R_END(s, n); r++) {
        int vr = r < 2 * rem ? r / 2 : r - rem, step = 1;
        if (r < 2 * rem && r % 2) {
            ADD(s, r, 0, r - 1, 1, lh);
            ADD(s, r, 0, r - 1, 0, rh);
            ADD(s, r, 1, r - 1, 1, rh);
            ADD(s, r, 2, r - 1, 0, m);
            continue;
        }
        if (r < 2 * rem) {
            ADD(s, r, 0, r + 1, 1, rh);
            ADD(s, r, 0, r + 1, 0, lh);
            ADD(s, r, 1, r + 1, 0, rh);
            step = 2;
        }
        for (int pass = 0; pass < 2; pass++)   /* halving out to p/2, doubling back */
            for (int mask = pass ? p >> 1 : 1; mask >= 1 && mask < p;
                 mask = pass ? mask >> 1 : mask << 1, step++) {
                int vd = vr ^ mask, peer = vd < rem ? vd * 2 : vd + rem;
                ADD(s, r, step, peer, 1, m / (2L * mask));
                ADD(s, r, step, peer, 0, m / (2L * mask));
            }
        if (r < 2 * rem)
            ADD(s, r, step, r + 1, 1, m);
    }
    return 0;
}

/* Every rank exchanges with the ranks k away, k = 1.. (pairwise, ring),
 * or with r xor 2^k carrying 2^k blocks (recursive doubling). */
static int exchange(coll_sched *s, int n, long m, int kind, int step0)
{
    for (int r = R_FIRST(s); r < R_END(s, n); r++)
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

/* A tree other than the binomial one, in vranks (vr = (r - rt) mod n):
 * chain (the parent of v is v - 1); binary, Open MPI's: level l holds 2^l
 * ranks in order, and the children of v on level l are v + 2^l and
 * v + 2^(l+1); bmtree, Open MPI's binomial broadcast tree: the parent of v
 * is v less its highest bit; k-nomial of radix k (binomial with k - 1
 * children a level).  Down: the parent's message, then one child a step;
 * up: one child a step, then the parent. */
enum { T_CHAIN, T_BINARY, T_BMTREE, T_KNOMIAL };
static int parent_of(int v, int kind, int k)
{
    if (kind == T_CHAIN)
        return v - 1;
    if (kind == T_BINARY) {   /* v on level L: back 2^(L-1) at a time to level L - 1 */
        int level = 1;
        while ((2 << level) - 1 <= v)
            level++;
        int p = v;
        while (v > 2 && p >= (1 << level) - 1)
            p -= 1 << (level - 1);
        return v > 2 ? p : 0;
    }
    if (kind == T_BMTREE) {
        int high = 1;
        while (high * 2 <= v)
            high *= 2;
        return v - high;
    }
    int mask = 1;
    while (v % (mask * k) == 0)
        mask *= k;
    return v - (v / mask % k) * mask;
}

static int gtree(coll_sched *s, int n, int rt, long m, int down, int kind, int k, int step0)
{
    for (int r = R_FIRST(s); r < R_END(s, n); r++) {
        int vr = (r - rt + n) % n, step = step0;
        if (down && vr)
            ADD(s, r, step++, (parent_of(vr, kind, k) + rt) % n, 0, m);
        for (int c = vr + 1; c < n; c++)   /* nearest child first */
            if (parent_of(c, kind, k) == vr)
                ADD(s, r, step++, (c + rt) % n, down, m);
        if (!down && vr)
            ADD(s, r, step++, (parent_of(vr, kind, k) + rt) % n, 1, m);
    }
    return 0;
}

/* The radix of knomial: Open MPI tuned's default. */
#define KNOMIAL_RADIX 4

/* Bruck: in round k every rank sends to the rank 2^k away, alltoall the
 * blocks whose index has bit k set, allgather the 2^k blocks it holds. */
static int bruck(coll_sched *s, int n, long m, int alltoall)
{
    for (int r = R_FIRST(s); r < R_END(s, n); r++)
        for (int k = 1, step = 0; k < n; k <<= 1, step++) {
            long blocks = 0;
            for (int j = 0; alltoall && j < n; j++)
                blocks += (j & k) != 0;
            if (!alltoall)
                blocks = min_i(k, n - k);
            int ahead = (r + k) % n, behind = (r - k + n) % n;
            ADD(s, r, step, alltoall ? ahead : behind, 1, blocks * m);
            ADD(s, r, step, alltoall ? behind : ahead, 0, blocks * m);
        }
    return 0;
}

/* Barriers of zero-byte messages: recursive doubling among the largest
 * power of two p, the ranks from p up checking in with rank - p before and
 * released by it after; linear: all to rank 0, then rank 0 to all. */
static int barrier(coll_sched *s, int n, const char *a)
{
    if (!strcmp(a, "linear")) {
        for (int r = 1; r < n; r++) {
            ADD(s, 0, 0, r, 0, 0);
            ADD(s, r, 0, 0, 1, 0);
            ADD(s, r, 1, 0, 0, 0);
        }
        for (int r = 1; r < n; r++)
            ADD(s, 0, r, r, 1, 0);
        return 0;
    }
    if (!strcmp(a, "recursive_doubling")) {
        int p = 1;
        while (p * 2 <= n)
            p *= 2;
        for (int r = R_FIRST(s); r < R_END(s, n); r++) {
            int step = 0;
            if (r >= p) {
                ADD(s, r, 0, r - p, 1, 0);
                ADD(s, r, 1, r - p, 0, 0);
                continue;
            }
            if (r + p < n)
                ADD(s, r, step++, r + p, 0, 0);
            for (int mask = 1; mask < p; mask <<= 1, step++) {
                ADD(s, r, step, r ^ mask, 1, 0);
                ADD(s, r, step, r ^ mask, 0, 0);
            }
            if (r + p < n)
                ADD(s, r, step, r + p, 1, 0);
        }
        return 0;
    }
    for (int r = R_FIRST(s); r < R_END(s, n); r++)
        for (int k = 1, step = 0; k < n; k <<= 1, step++) {
            ADD(s, r, step, (r + k) % n, 1, 0);
            ADD(s, r, step, (r - k + n) % n, 0, 0);
        }
    return 0;
}

/* Open MPI's synchronised linear gather: the root, one rank after the
 * other, sends it an empty message and takes its block, then an empty
 * rest (no segment size: the first segment is the whole block). */
static int gather_sync(coll_sched *s, int n, int rt, long m)
{
    for (int r = 0, k = 0; r < n; r++) {
        if (r == rt)
            continue;
        ADD(s, rt, k, r, 1, 0);
        ADD(s, rt, k, r, 0, m);
        ADD(s, rt, k++, r, 0, 0);
        ADD(s, r, 0, rt, 0, 0);
        ADD(s, r, 1, rt, 1, m);
        ADD(s, r, 2, rt, 1, 0);
    }
    return 0;
}

/* A tree of a's name, down (bcast, scatter) or up (reduce, gather). */
static int named_tree(coll_sched *s, const char *a, int n, int rt, long m, int down, int sized)
{
    if (!strcmp(a, "linear"))
        return linear(s, n, rt, m, down);
    if (!strcmp(a, "chain"))
        return gtree(s, n, rt, m, down, T_CHAIN, 0, 0);
    if (!strcmp(a, "binary"))
        return gtree(s, n, rt, m, down, T_BINARY, 0, 0);
    if (!strcmp(a, "bmtree"))
        return gtree(s, n, rt, m, down, T_BMTREE, 0, 0);
    if (!strcmp(a, "knomial"))
        return gtree(s, n, rt, m, down, T_KNOMIAL, KNOMIAL_RADIX, 0);
    return tree(s, n, rt, m, down, sized, 0);
}

/* A broadcast as a binomial scatter of m / n blocks from the root, then an
 * allgather of them: the ring, or (powers of two) recursive doubling
 * between vranks, 2^k blocks with vrank xor 2^k. */
static int scatter_allgather(coll_sched *s, int n, int rt, long m, int ring)
{
    long b = m / n;
    int rc = tree(s, n, rt, b, 1, 1, 0);
    if (rc || ring || (n & (n - 1)))
        return rc ? rc : exchange(s, n, b, 1, 64);
    for (int r = R_FIRST(s); r < R_END(s, n); r++)
        for (int k = 1, step = 64; k < n; k <<= 1, step++) {
            int peer = ((((r - rt + n) % n) ^ k) + rt) % n;
            ADD(s, r, step, peer, 1, b * k);
            ADD(s, r, step, peer, 0, b * k);
        }
    return 0;
}

/* reduce_scatter: rank i's block, bytes of the m / 4 floats split over n ranks. */
static long block_of(long m, int n, int i)
{
    long f = m / 4;
    return 4 * (f / n + (i < f % n));
}

/* The blocks of vranks lo..hi-1 of the folded recursive halving: a vrank below rem holds
 * the blocks of ranks 2v and 2v + 1, the others that of rank v + rem. */
static long vblocks(long m, int n, int rem, int lo, int hi)
{
    long b = 0;
    for (int v = lo; v < hi; v++)
        b += v < rem ? block_of(m, n, 2 * v) + block_of(m, n, 2 * v + 1) : block_of(m, n, v + rem);
    return b;
}

/* reduce_scatter.  ring: in step k rank r passes block r-1-k to r+1 (each block's sum
 * travels the ring to its owner); pairwise: step k, block r+k to r+k, its own from r-k;
 * recursive_halving: the even ranks below 2 rem hand the odd ones their vector and get
 * their block back last, the others exchange the half they do not keep, distance p/2
 * first; reduce_scatterv: a binomial reduce to rank 0, then a linear scatter. */
static int reduce_scatter(coll_sched *s, const char *a, int n, long m)
{
    long total = 4 * (m / 4);
    if (!strcmp(a, "reduce_scatterv")) {
        int rc = tree(s, n, 0, total, 0, 0, 0);
        for (int r = 1; !rc && r < n; r++) {
            rc = add(s, 0, 64 + r, r, 1, block_of(m, n, r));
            rc = rc ? rc : add(s, r, 64, 0, 0, block_of(m, n, r));
        }
        return rc;
    }
    if (strcmp(a, "recursive_halving"))
        for (int r = R_FIRST(s); r < R_END(s, n); r++)
            for (int k = 1; k < n; k++) {
                int ring = !strcmp(a, "ring");
                int to = (r + (ring ? 1 : k)) % n, from = (r - (ring ? 1 : k) + n) % n;
                ADD(s, r, k, to, 1, block_of(m, n, ring ? (r - k + n) % n : to));
                ADD(s, r, k, from, 0, block_of(m, n, ring ? (r - k - 1 + 2 * n) % n : r));
            }
    if (strcmp(a, "recursive_halving"))
        return 0;
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p;
    for (int r = R_FIRST(s); r < R_END(s, n); r++) {
        int vr = r < 2 * rem ? r / 2 : r - rem, step = 1, lo = 0;
        /* as Open MPI's and MPICH's, no message where no element goes */
        if (r < 2 * rem && r % 2 == 0) {
            if (total)
                ADD(s, r, 0, r + 1, 1, total);
            if (block_of(m, n, r))
                ADD(s, r, 1, r + 1, 0, block_of(m, n, r));
            continue;
        }
        if (r < 2 * rem && total)
            ADD(s, r, 0, r - 1, 0, total);
        for (int mask = p >> 1; mask >= 1; mask >>= 1, step++) {
            int vd = vr ^ mask, peer = vd < rem ? vd * 2 + 1 : vd + rem, up = vr & mask;
            int keep = up ? lo + mask : lo, give = up ? lo : lo + mask;
            long out = vblocks(m, n, rem, give, give + mask), in = vblocks(m, n, rem, keep,
                                                                           keep + mask);
            if (out)
                ADD(s, r, step, peer, 1, out);
            if (in)
                ADD(s, r, step, peer, 0, in);
            lo = keep;
        }
        if (r < 2 * rem && block_of(m, n, r - 1))
            ADD(s, r, step, r - 1, 1, block_of(m, n, r - 1));
    }
    return 0;
}

/* scan and exscan.  linear: a chain, rank r takes r-1's prefix and passes its own on;
 * recursive_doubling: in round k every rank exchanges its partial sum with r xor 2^k,
 * where that rank exists. */
static int scan(coll_sched *s, const char *a, int n, long m)
{
    for (int r = R_FIRST(s); r < R_END(s, n); r++) {
        if (!strcmp(a, "linear")) {
            if (r > 0)
                ADD(s, r, 0, r - 1, 0, m);
            if (r + 1 < n)
                ADD(s, r, 1, r + 1, 1, m);
            continue;
        }
        for (int k = 1, step = 0; k < n; k <<= 1, step++)
            if ((r ^ k) < n) {
                ADD(s, r, step, r ^ k, 1, m);
                ADD(s, r, step, r ^ k, 0, m);
            }
    }
    return 0;
}

static int build(coll_sched *s, int op, const char *a, int n, int rt, long m);

/* Appends op's schedule by a, its steps from step0 on (after what s holds). */
static int append_after(coll_sched *s, int op, const char *a, int n, int rt, long m, int step0)
{
    coll_sched t = {.ranks = n, .op = op, .root = rt, .size = m, .stop = s->stop, .only = s->only};
    int rc = build(&t, op, a, n, rt, m);
    for (long i = 0; !rc && i < t.count; i++)
        rc = add(s, t.msgs[i].rank, t.msgs[i].step + step0, t.msgs[i].peer, t.msgs[i].send,
                 t.msgs[i].bytes);
    free(t.msgs);
    return rc;
}

/* Open MPI's default allgatherv: a linear gather to rank 0, then a broadcast of the whole
 * vector from it by the algorithm its tuned broadcast picks for that size. */
static int gatherv_bcast(coll_sched *s, int n, long m)
{
    char native[40];
    const char *family;
    coll_library_pick(COLL_BCAST, "tuned", n, m * n, native, sizeof native, &family);
    int rc = linear(s, n, 0, m, 0);
    return rc ? rc : append_after(s, COLL_BCAST, family, n, 0, m * n, 1);
}

static int build(coll_sched *s, int op, const char *a, int n, int rt, long m)
{
    switch (op) {
    case COLL_BARRIER: return barrier(s, n, a);
    case COLL_BCAST:
        if (!strncmp(a, "scatter_", 8))
            return scatter_allgather(s, n, rt, m, a[8] == 'r');
        return named_tree(s, a, n, rt, m, 1, 0);
    case COLL_REDUCE: return named_tree(s, a, n, rt, m, 0, 0);
    case COLL_GATHER:
        return !strcmp(a, "linear_sync") ? gather_sync(s, n, rt, m) : named_tree(s, a, n, rt, m, 0, 1);
    case COLL_SCATTER: return named_tree(s, a, n, rt, m, 1, 1);
    case COLL_ALLREDUCE:
        if (!strcmp(a, "recursive_doubling") || !strcmp(a, "rabenseifner"))
            return recursive_doubling(s, n, m, a[1] == 'a');
        if (!strcmp(a, "redscat_allgather"))
            return redscat_allgather(s, n, m);
        if (!strcmp(a, "ring"))   /* a reduce-scatter, then an allgather, blocks of m / n */
            return exchange(s, n, m / n, 1, 0) ? -1 : exchange(s, n, m / n, 1, n - 1);
        /* reduce to 0, then broadcast from 0, steps after the reduce's */
        {
            int rc = tree(s, n, 0, m, 0, 0, 0);
            return rc ? rc : tree(s, n, 0, m, 1, 0, 64);
        }
    case COLL_ALLGATHER:
        if (!strcmp(a, "bruck"))
            return bruck(s, n, m, 0);
        return exchange(s, n, m, !strcmp(a, "ring") ? 1 : 2, 0);
    case COLL_GATHERV: return linear(s, n, rt, m, 0);
    case COLL_SCATTERV: return linear(s, n, rt, m, 1);
    case COLL_ALLGATHERV:
        return !strcmp(a, "gatherv_bcast") ? gatherv_bcast(s, n, m)
                                           : build(s, COLL_ALLGATHER, a, n, rt, m);
    case COLL_ALLTOALLV: return build(s, COLL_ALLTOALL, a, n, rt, m);
    case COLL_REDUCE_SCATTER: return reduce_scatter(s, a, n, m);
    case COLL_SCAN:
    case COLL_EXSCAN: return scan(s, a, n, m);
    case COLL_ALLTOALL:
        if (!strcmp(a, "pairwise"))
            return exchange(s, n, m, 0, 0);
        if (!strcmp(a, "bruck"))
            return bruck(s, n, m, 1);
        for (int r = R_FIRST(s); r < R_END(s, n); r++)
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
    const char *a = coll_default_algorithm(op, alg, def, sizeof def);
    if (!in_list(algs[op], a)) {
        snprintf(why, len, "no algorithm '%s' for %s (one of %s)", a, coll_op_names[op], algs[op]);
        return -2;
    }
    if (!strcmp(a, "recursive_doubling") && (op == COLL_ALLGATHER || op == COLL_ALLGATHERV) &&
        (ranks & (ranks - 1))) {
        snprintf(why, len, "%s recursive_doubling needs a power-of-two number of ranks",
                 coll_op_names[op]);
        return -2;
    }
    return 0;
}

static int generate(coll_sched *s, int op, const char *alg, int ranks, int root, long size,
                    int (*stop)(void), int only, char *why, size_t len)
{
    memset(s, 0, sizeof *s);
    s->ranks = ranks, s->op = op, s->root = root, s->size = size, s->stop = stop, s->only = only;
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

int coll_generate_until(coll_sched *s, int op, const char *alg, int ranks, int root,
                        long size, int (*stop)(void), char *why, size_t len)
{
    return generate(s, op, alg, ranks, root, size, stop, 0, why, len);
}

int coll_generate_rank(coll_sched *s, int op, const char *alg, int ranks, int root, long size,
                       int rank, char *why, size_t len)
{
    if (rank < 0 || rank >= ranks) {
        snprintf(why, len, "rank %d outside 0..%d", rank, ranks - 1);
        return -2;
    }
    return generate(s, op, alg, ranks, root, size, NULL, rank + 1, why, len);
}

void coll_sched_free(coll_sched *s)
{
    free(s->msgs);
    s->msgs = NULL;
    s->count = s->cap = 0;
}

