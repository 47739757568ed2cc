/* Tests for trace/expand.c: every rank's sends of a collective, checked
 * against properties of the named algorithms over n = 1..40 and every root,
 * and against MPICH's 8-rank binomial broadcast tree written out by hand. */
#include <criterion/criterion.h>
#include <string.h>

#include "trace/expand.h"
#include "trace/tracekinds.h"

#define MAX_N 40

typedef struct edges {
    int count[MAX_N][MAX_N];   /* messages src -> dst */
    uint64_t size[MAX_N][MAX_N];
    int src;
} edges;

static void emit(void *ctx, int dst, uint64_t size)
{
    edges *e = ctx;
    e->count[e->src][dst]++;
    e->size[e->src][dst] = size;
}

/* All ranks' sends of one call. */
static void expand_all(edges *e, int kind, int n, int root, uint64_t m)
{
    memset(e, 0, sizeof *e);
    for (int r = 0; r < n; r++) {
        e->src = r;
        cr_assert_eq(expand_collective(kind, n, r, root, m, emit, e), 0, "%s n %d root %d",
                     trace_kind_name(kind), n, root);
    }
}

static int received(const edges *e, int n, int dst)
{
    int c = 0;
    for (int s = 0; s < n; s++)
        c += e->count[s][dst];
    return c;
}

static int sent(const edges *e, int n, int src)
{
    int c = 0;
    for (int d = 0; d < n; d++)
        c += e->count[src][d];
    return c;
}

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

Test(expand, bcast_is_a_spanning_tree_from_the_root)
{
    static edges e;
    for (int n = 1; n <= MAX_N; n++)
        for (int root = 0; root < n; root++) {
            expand_all(&e, TRACE_K_BCAST, n, root, 100);
            int depth[MAX_N], reached = 1;
            for (int r = 0; r < n; r++) {
                cr_assert_eq(received(&e, n, r), r == root ? 0 : 1, "n %d root %d rank %d", n,
                             root, r);
                depth[r] = -1;
            }
            depth[root] = 0;
            /* breadth-first from the root: every rank reached, depth <= ceil(log2 n) */
            for (int d = 0; d < n; d++)
                for (int s = 0; s < n; s++)
                    for (int t = 0; t < n; t++)
                        if (depth[s] == d && e.count[s][t]) {
                            cr_assert_eq(e.size[s][t], 100);
                            depth[t] = d + 1;
                            reached++;
                            cr_assert_leq(depth[t], ceil_log2(n));
                        }
            cr_assert_eq(reached, n, "n %d root %d", n, root);
        }
}

Test(expand, bcast_matches_mpich_binomial_tree_on_8_ranks)
{
    static edges e;
    static const int tree[][2] = {{0, 4}, {0, 2}, {0, 1}, {4, 6}, {4, 5}, {2, 3}, {6, 7}};
    expand_all(&e, TRACE_K_BCAST, 8, 0, 8);
    int total = 0;
    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++)
        cr_assert_eq(e.count[tree[i][0]][tree[i][1]], 1, "%d -> %d", tree[i][0], tree[i][1]);
    for (int r = 0; r < 8; r++)
        total += sent(&e, 8, r);
    cr_assert_eq(total, 7);
}

Test(expand, reduce_is_the_broadcast_tree_reversed)
{
    static edges b, r;
    for (int n = 1; n <= MAX_N; n++)
        for (int root = 0; root < n; root++) {
            expand_all(&b, TRACE_K_BCAST, n, root, 8);
            expand_all(&r, TRACE_K_REDUCE, n, root, 8);
            for (int s = 0; s < n; s++)
                for (int t = 0; t < n; t++)
                    cr_assert_eq(r.count[s][t], b.count[t][s], "n %d root %d %d->%d", n, root, s, t);
        }
}

/* Recursive doubling leaves every rank with every contribution: simulated
 * by rounds, each rank's knowledge a bit mask. */
Test(expand, allreduce_counts_and_symmetry)
{
    static edges e;
    for (int n = 1; n <= MAX_N; n++) {
        int p = 1 << (31 - __builtin_clz((unsigned)n)), rem = n - p, lg = ceil_log2(p);
        expand_all(&e, TRACE_K_ALLREDUCE, n, 0, 64);
        for (int r = 0; r < n; r++) {
            int expect = r < 2 * rem ? (r % 2 == 0 ? 1 : lg + 1) : lg;
            cr_assert_eq(sent(&e, n, r), expect, "n %d rank %d", n, r);
            cr_assert_eq(received(&e, n, r), expect, "n %d rank %d", n, r);
            for (int t = 0; t < n; t++)
                cr_assert_eq(e.count[r][t], e.count[t][r], "n %d %d<->%d", n, r, t);
        }
        if (rem == 0)   /* a power of two: partners r XOR 2^k */
            for (int r = 0; r < n; r++)
                for (int k = 1; k < n; k <<= 1)
                    cr_assert_eq(e.count[r][r ^ k], 1);
    }
}

Test(expand, alltoall_allgather_gather_scatter_barrier)
{
    static edges e;
    for (int n = 1; n <= MAX_N; n++) {
        expand_all(&e, TRACE_K_ALLTOALL, n, 0, 32);
        for (int s = 0; s < n; s++)
            for (int t = 0; t < n; t++)
                cr_assert_eq(e.count[s][t], s != t);
        expand_all(&e, TRACE_K_ALLGATHER, n, 0, 32);
        for (int s = 0; s < n; s++)
            cr_assert_eq(e.count[s][(s + 1) % n], n - 1);
        for (int root = 0; root < n; root++) {
            expand_all(&e, TRACE_K_GATHER, n, root, 32);
            for (int s = 0; s < n; s++)
                cr_assert_eq(sent(&e, n, s), s == root ? 0 : 1);
            cr_assert_eq(received(&e, n, root), n - 1);
            expand_all(&e, TRACE_K_SCATTER, n, root, 32);
            cr_assert_eq(sent(&e, n, root), n - 1);
            for (int t = 0; t < n; t++)
                cr_assert_eq(e.count[root][t], t != root);
        }
        expand_all(&e, TRACE_K_BARRIER, n, 0, 0);
        for (int s = 0; s < n; s++) {
            cr_assert_eq(sent(&e, n, s), ceil_log2(n));
            for (int t = 0; t < n; t++)
                cr_assert(e.count[s][t] == 0 || e.size[s][t] == 0);
        }
    }
}

Test(expand, rejects_bad_arguments)
{
    edges e;
    e.src = 0;
    cr_assert_eq(expand_collective(TRACE_K_SEND, 4, 0, 0, 8, emit, &e), -1);
    cr_assert_eq(expand_collective(TRACE_K_BCAST, 4, 4, 0, 8, emit, &e), -1);
    cr_assert_eq(expand_collective(TRACE_K_BCAST, 4, 0, 4, 8, emit, &e), -1);
    cr_assert_eq(expand_collective(TRACE_K_ALLTOALLV, 4, 0, 0, 8, emit, &e), -1);
    cr_assert_eq(expand_collective(TRACE_K_ALLREDUCE, 0, 0, 0, 8, emit, &e), -1);
}
