/* Tests for trace/expand.c: a traced collective's messages, every rank's
 * sends of the families scitrace expands with, checked against properties
 * of the algorithms over n = 1..40 and every root, and against MPICH's
 * 8-rank binomial broadcast tree written out by hand; the choices of Open
 * MPI 4.1's tuned component and of MPICH, row by row of their sources;
 * --algorithm's parsing. */
#include <criterion/criterion.h>
#include <string.h>

#include "trace/expand.h"
#include "trace/tracekinds.h"

#define MAX_N 40

typedef struct edges {
    int count[MAX_N][MAX_N];   /* messages src -> dst */
    uint64_t size[MAX_N][MAX_N];
} edges;

/* All ranks' sends of one call of kind under algorithm alg. */
static void expand_all(edges *e, int kind, int n, int root, uint64_t m, const char *alg)
{
    expand_choice c = {0};
    expand_cache x = {0};
    const coll_sched *s;
    char why[200];
    memset(e, 0, sizeof *e);
    c.alg[expand_op(kind)] = alg;
    for (int r = 0; r < n; r++) {
        cr_assert_eq(expand_schedule(&x, &c, kind, n, root, r, m, &s, why, sizeof why), 0,
                     "%s n %d root %d: %s", trace_kind_name(kind), n, root, why);
        long lo, hi;
        expand_rank_msgs(s, r, &lo, &hi);
        cr_assert_eq(hi - lo, s->count, "rank %d's schedule holds its own operations only", r);
        for (long k = lo; k < hi; k++) {
            cr_assert_eq(s->msgs[k].rank, r);
            if (s->msgs[k].send) {
                e->count[r][s->msgs[k].peer]++;
                e->size[r][s->msgs[k].peer] = (uint64_t)s->msgs[k].bytes;
            }
        }
    }
    expand_cache_free(&x);
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
            expand_all(&e, TRACE_K_BCAST, n, root, 100, "binomial");
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
    expand_all(&e, TRACE_K_BCAST, 8, 0, 8, "binomial");
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
            expand_all(&b, TRACE_K_BCAST, n, root, 8, "binomial");
            expand_all(&r, TRACE_K_REDUCE, n, root, 8, "binomial");
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
        expand_all(&e, TRACE_K_ALLREDUCE, n, 0, 64, "recursive_doubling");
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
        expand_all(&e, TRACE_K_ALLTOALL, n, 0, 32, "linear");
        for (int s = 0; s < n; s++)
            for (int t = 0; t < n; t++)
                cr_assert_eq(e.count[s][t], s != t);
        expand_all(&e, TRACE_K_ALLGATHER, n, 0, 32, "ring");
        for (int s = 0; s < n; s++)
            cr_assert_eq(e.count[s][(s + 1) % n], n - 1);
        for (int root = 0; root < n; root++) {
            expand_all(&e, TRACE_K_GATHER, n, root, 32, "linear");
            for (int s = 0; s < n; s++)
                cr_assert_eq(sent(&e, n, s), s == root ? 0 : 1);
            cr_assert_eq(received(&e, n, root), n - 1);
            expand_all(&e, TRACE_K_SCATTER, n, root, 32, "linear");
            cr_assert_eq(sent(&e, n, root), n - 1);
            for (int t = 0; t < n; t++)
                cr_assert_eq(e.count[root][t], t != root);
        }
        expand_all(&e, TRACE_K_BARRIER, n, 0, 0, "dissemination");
        for (int s = 0; s < n; s++) {
            cr_assert_eq(sent(&e, n, s), ceil_log2(n));
            for (int t = 0; t < n; t++)
                cr_assert(e.count[s][t] == 0 || e.size[s][t] == 0);
        }
    }
}

Test(expand, rejects_bad_arguments)
{
    expand_choice c = {0};
    expand_cache x = {0};
    const coll_sched *s;
    char why[200];
    cr_assert_eq(expand_schedule(&x, &c, TRACE_K_SEND, 4, 0, 0, 8, &s, why, sizeof why), -2);
    cr_assert_eq(expand_schedule(&x, &c, TRACE_K_BCAST, 4, 4, 0, 8, &s, why, sizeof why), -2);
    cr_assert_eq(expand_schedule(&x, &c, TRACE_K_BCAST, 4, -1, 0, 8, &s, why, sizeof why), -2);
    cr_assert_eq(expand_schedule(&x, &c, TRACE_K_ALLTOALLV, 4, 0, 0, 8, &s, why, sizeof why), -2);
    cr_assert_eq(expand_schedule(&x, &c, TRACE_K_ALLREDUCE, 0, 0, 0, 8, &s, why, sizeof why), -2);
    cr_assert_eq(expand_schedule(&x, &c, TRACE_K_ALLREDUCE, 4, 0, 4, 8, &s, why, sizeof why), -2);
    cr_assert_eq(x.valid, 0);
}

/* Rows of Open MPI 4.1's coll_tuned_decision_fixed.c (commutative
 * operations) and of MPICH's defaults, read off their sources: what each
 * library runs, and the family generated for it. */
Test(expand, library_choices_as_their_sources_state)
{
    static const struct { const char *lib; int op, n; long m; const char *native, *family; } c[] = {
        {"tuned", COLL_ALLREDUCE, 8, 65536, "rabenseifner", "rabenseifner"},
        {"tuned", COLL_ALLREDUCE, 8, 8191, "recursive_doubling", "recursive_doubling"},
        {"tuned", COLL_ALLREDUCE, 2, 4, "ring", "recursive_doubling"},   /* 1 float < 2 ranks */
        {"tuned", COLL_ALLREDUCE, 300, 4096, "rabenseifner", "rabenseifner"},
        {"tuned", COLL_ALLREDUCE, 300, 4095, "nonoverlapping", "reduce_bcast"},
        {"tuned", COLL_BARRIER, 3, 0, "recursive_doubling", "recursive_doubling"},
        {"tuned", COLL_BARRIER, 5, 0, "linear", "linear"},
        {"tuned", COLL_BARRIER, 100, 0, "bruck", "dissemination"},
        {"tuned", COLL_BCAST, 12, 1048576, "basic_linear", "linear"},
        {"tuned", COLL_BCAST, 5, 4096, "binomial", "bmtree"},
        {"mpich", COLL_BCAST, 5, 4096, "binomial", "binomial"},
        {"tuned", COLL_BCAST, 12, 4, "knomial", "knomial"},
        {"tuned", COLL_BCAST, 2, 16, "pipeline", "chain"},
        {"tuned", COLL_BCAST, 20, 2097152, "scatter_allgather", "scatter_allgather"},
        {"tuned", COLL_REDUCE, 5, 65535, "chain", "chain"},
        {"tuned", COLL_REDUCE, 9, 8191, "binary", "binary"},
        {"tuned", COLL_ALLGATHER, 2, 8, "two_proc", "ring"},
        {"tuned", COLL_ALLGATHER, 12, 8, "recursive_doubling", "bruck"},
        {"tuned", COLL_ALLGATHER, 16, 8, "recursive_doubling", "recursive_doubling"},
        {"tuned", COLL_ALLGATHER, 40, 70000, "ring", "ring"},
        {"tuned", COLL_ALLTOALL, 2, 3, "two_proc", "pairwise"},
        {"tuned", COLL_ALLTOALL, 16, 8, "modified_bruck", "bruck"},
        {"tuned", COLL_ALLTOALL, 7, 600000, "pairwise", "pairwise"},
        {"tuned", COLL_ALLTOALL, 12, 65536, "linear_sync", "linear"},
        {"tuned", COLL_GATHER, 5, 1048576, "linear_sync", "linear_sync"},
        {"tuned", COLL_SCATTER, 9, 8, "binomial", "binomial"},
        {"tuned", COLL_SCATTER, 9, 1048576, "basic_linear", "linear"},
        {"mpich", COLL_ALLREDUCE, 8, 2048, "recursive_doubling", "recursive_doubling"},
        {"mpich", COLL_ALLREDUCE, 8, 2052, "rabenseifner", "rabenseifner"},
        {"mpich", COLL_BCAST, 7, 1048576, "binomial", "binomial"},
        {"mpich", COLL_BCAST, 8, 12288, "scatter_allgather", "scatter_allgather"},
        {"mpich", COLL_ALLGATHER, 8, 8, "recursive_doubling", "recursive_doubling"},
        {"mpich", COLL_ALLGATHER, 6, 8, "bruck", "bruck"},
        {"mpich", COLL_ALLGATHER, 6, 16384, "ring", "ring"},
        {"mpich", COLL_ALLTOALL, 8, 256, "bruck", "bruck"},
        {"mpich", COLL_ALLTOALL, 4, 256, "linear", "linear"},
        {"mpich", COLL_ALLTOALL, 8, 32769, "pairwise", "pairwise"},
        {"mpich", COLL_BARRIER, 5, 0, "dissemination", "dissemination"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char native[40], name[64], want[64];
        const char *family;
        coll_library_pick(c[i].op, c[i].lib, c[i].n, c[i].m, native, sizeof native, &family);
        cr_assert_str_eq(native, c[i].native, "%s %s P=%d %ld B", c[i].lib,
                         coll_op_names[c[i].op], c[i].n, c[i].m);
        cr_assert_str_eq(family, c[i].family, "%s %s P=%d %ld B", c[i].lib,
                         coll_op_names[c[i].op], c[i].n, c[i].m);
        snprintf(want, sizeof want, "%s:%s", c[i].lib, c[i].family);
        cr_assert_str_eq(coll_algorithm(c[i].op, c[i].lib, c[i].n, c[i].m, name, sizeof name),
                         want);
    }
}

Test(expand, algorithm_option_forms)
{
    expand_choice c = {0};
    char why[300];
    cr_assert_eq(expand_choice_add(&c, "mpich", why, sizeof why), 0);
    cr_assert_str_eq(c.lib, "mpich");
    cr_assert_eq(expand_choice_add(&c, "allreduce=ring", why, sizeof why), 0);
    cr_assert_str_eq(c.alg[COLL_ALLREDUCE], "ring");
    cr_assert_null(c.alg[COLL_BCAST]);
    cr_assert_eq(expand_choice_add(&c, "binomial", why, sizeof why), 0);
    for (int op = 0; op < EXPAND_NOPS; op++)   /* every operation that has it, no other */
        cr_assert_eq(c.alg[op] && !strcmp(c.alg[op], "binomial"),
                     op == COLL_BCAST || op == COLL_REDUCE || op == COLL_GATHER ||
                         op == COLL_SCATTER, "%s", coll_op_names[op]);
    cr_assert_eq(expand_choice_add(&c, "allreduce=binomial", why, sizeof why), -1);
    cr_assert(strstr(why, "no algorithm 'binomial' for allreduce"), "%s", why);
    cr_assert_eq(expand_choice_add(&c, "allreduc=ring", why, sizeof why), -1);
    cr_assert(strstr(why, "no collective 'allreduc'"), "%s", why);
    cr_assert_eq(expand_choice_add(&c, "nosuch", why, sizeof why), -1);
    char buf[200];
    cr_assert_str_eq(expand_describe(&c, COLL_ALLREDUCE, 8, 65536, buf, sizeof buf),
                     "ring (--algorithm)");
    cr_assert_str_eq(expand_describe(&c, COLL_ALLTOALL, 8, 32769, buf, sizeof buf),
                     "mpich:pairwise (MPICH runs pairwise)");
    expand_choice ompi = {0};
    cr_assert_str_eq(expand_describe(&ompi, COLL_ALLGATHER, 12, 8, buf, sizeof buf),
                     "tuned:bruck (Open MPI 4.1 tuned runs recursive_doubling, which falls back "
                     "to it here)");
    cr_assert_str_eq(expand_describe(&ompi, COLL_BCAST, 300, 20000, buf, sizeof buf),
                     "tuned:binary (Open MPI 4.1 tuned runs split_binary_tree: the nearest family)");
}
