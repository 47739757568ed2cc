/* decide: which algorithm an MPI library runs for a collective, by the
 * number of ranks and the message size (sched/collgen.h, coll_algorithm). */
#include "sched/collgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row: for fewer than below_ranks ranks (0: any number), "SIZE:NAME"
 * words, NAME below SIZE bytes, ended by the NAME for every larger size. */
typedef struct pick_row {
    int below_ranks;
    const char *by;
} pick_row;

/* Open MPI 4.1's coll/tuned fixed decision, commutative operations; the
 * size is the vector's (bcast, reduce, allreduce) or one rank's block. */
static const pick_row ompi_barrier[] = {
    {4, "recursive_doubling"},
    {8, "linear"},
    {64, "recursive_doubling"},
    {256, "bruck"},
    {512, "tree"},
    {1024, "bruck"},
    {4096, "tree"},
    {0, "bruck"},
};
static const pick_row ompi_bcast[] = {
    {4, "32:pipeline 256:binary_tree 512:pipeline 1024:knomial "
        "32768:basic_linear 131072:binary_tree 262144:chain "
        "524288:basic_linear 1048576:binomial binary_tree"},
    {8, "64:binary_tree 128:binomial 2048:binary_tree 8192:binomial "
        "1048576:basic_linear chain"},
    {16, "8:knomial 64:binary_tree 4096:knomial 16384:binary_tree "
        "32768:binomial basic_linear"},
    {32, "4096:knomial 1048576:binomial scatter_allgather"},
    {64, "2048:binomial knomial"},
    {128, "knomial"},
    {256, "2:binomial 16384:binary_tree 32768:basic_linear 65536:binary_tree knomial"},
    {1024, "16384:knomial 32768:split_binary_tree knomial"},
    {2048, "524288:knomial scatter_allgather"},
    {4096, "262144:knomial scatter_allgather"},
    {0, "8192:knomial 16384:binary_tree 262144:knomial scatter_allgather"},
};
static const pick_row ompi_reduce[] = {
    {4, "8:rabenseifner 16:binary 32:pipeline 262144:linear 524288:pipeline "
        "1048576:chain pipeline"},
    {8, "4096:binary 65536:chain 262144:binomial 524288:linear 1048576:binomial linear"},
    {16, "8192:binary binomial"},
    {32, "4096:binary binomial"},
    {256, "binomial"},
    {512, "8192:binomial 16384:in-order_binary binomial"},
    {2048, "binomial"},
    {4096, "512:binomial 1024:in-order_binary 8192:binomial 16384:in-order_binary binomial"},
    {0, "16:binomial 32:in-order_binary 1024:binomial 2048:in-order_binary "
        "8192:binomial 16384:in-order_binary binomial"},
};
static const pick_row ompi_allreduce[] = {
    {4, "8:ring 4096:recursive_doubling 8192:ring 16384:recursive_doubling "
        "65536:ring 262144:segmented_ring rabenseifner"},
    {8, "16:ring 8192:recursive_doubling rabenseifner"},
    {16, "8192:recursive_doubling rabenseifner"},
    {32, "64:segmented_ring 4096:recursive_doubling rabenseifner"},
    {64, "128:segmented_ring rabenseifner"},
    {128, "262144:recursive_doubling rabenseifner"},
    {256, "131072:nonoverlapping 262144:recursive_doubling rabenseifner"},
    {512, "4096:nonoverlapping rabenseifner"},
    {2048, "2048:nonoverlapping 16384:recursive_doubling rabenseifner"},
    {4096, "2048:nonoverlapping 4096:segmented_ring 16384:recursive_doubling rabenseifner"},
    {0, "2048:nonoverlapping 16384:segmented_ring 32768:recursive_doubling rabenseifner"},
};
static const pick_row ompi_allgather[] = {
    {3, "two_proc"},
    {32, "recursive_doubling"},
    {64, "1024:recursive_doubling 65536:neighbor ring"},
    {128, "512:recursive_doubling 65536:neighbor ring"},
    {256, "512:recursive_doubling 131072:neighbor 524288:ring 1048576:neighbor ring"},
    {512, "32:recursive_doubling 128:bruck 1024:recursive_doubling "
        "131072:neighbor 524288:ring 1048576:neighbor ring"},
    {1024, "64:recursive_doubling 256:bruck 2048:recursive_doubling neighbor"},
    {2048, "4:recursive_doubling 8:bruck 16:recursive_doubling 32:bruck "
        "256:recursive_doubling 512:bruck 4096:recursive_doubling neighbor"},
    {4096, "32:bruck 128:recursive_doubling 512:bruck 4096:recursive_doubling neighbor"},
    {0, "2:recursive_doubling 8:bruck 16:recursive_doubling 512:bruck "
        "4096:recursive_doubling neighbor"},
};
static const pick_row ompi_alltoall[] = {
    {3, "2:pairwise 4:two_proc 16:pairwise 64:two_proc 256:pairwise "
        "4096:two_proc 32768:pairwise 262144:linear_sync 1048576:two_proc "
        "pairwise"},
    {8, "8192:linear_sync 16384:linear 65536:linear_sync 524288:linear "
        "1048576:pairwise linear"},
    {16, "262144:linear_sync linear"},
    {32, "4:linear_sync 512:modified_bruck 8192:linear_sync 32768:linear "
        "262144:linear_sync 524288:linear linear_sync"},
    {64, "512:modified_bruck 524288:linear linear_sync"},
    {128, "1024:modified_bruck 2048:linear 4096:linear_sync 262144:linear pairwise"},
    {256, "1024:modified_bruck 2048:linear_sync 262144:linear pairwise"},
    {512, "1024:modified_bruck 8192:linear_sync 32768:linear pairwise"},
    {1024, "512:modified_bruck 8192:linear_sync 16384:linear 131072:linear_sync "
        "262144:linear pairwise"},
    {2048, "512:modified_bruck 1024:linear_sync 2048:linear 16384:linear_sync "
        "262144:linear linear_sync"},
    {4096, "1024:modified_bruck 4096:linear_sync 8192:linear 131072:linear_sync linear"},
    {0, "2048:modified_bruck 8192:linear_sync 16384:linear 32768:linear_sync "
        "65536:linear linear_sync"},
};
static const pick_row ompi_gather[] = {
    {4, "2:linear_sync 4:basic_linear 32768:binomial 65536:basic_linear "
        "131072:binomial linear_sync"},
    {8, "1024:binomial 8192:basic_linear 32768:binomial 262144:basic_linear linear_sync"},
    {256, "binomial"},
    {512, "2048:binomial 8192:basic_linear binomial"},
    {0, "binomial"},
};
static const pick_row ompi_scatter[] = {
    {4, "2:linear_nb 131072:basic_linear 262144:linear_nb basic_linear"},
    {8, "2048:binomial 4096:basic_linear 8192:binomial 32768:basic_linear "
        "1048576:linear_nb basic_linear"},
    {16, "16384:binomial 1048576:linear_nb basic_linear"},
    {32, "16384:binomial 32768:basic_linear linear_nb"},
    {64, "512:binomial 8192:linear_nb 16384:binomial linear_nb"},
    {0, "512:binomial linear_nb"},
};

/* The ops beside the eight (sched/collgen.h): basic linear v-variants and
 * chain scans; allgatherv, alltoallv and reduce_scatter as Open MPI 4.1.4's
 * PML monitoring saw them at P = 2, 3, 4, 5 and 8 and sizes from 8 B to 1 MiB
 * (docs/replay.md lists them; a row's bounds lie between two sizes seen):
 * gatherv_bcast is its default allgatherv, neighbor its neighbor exchange;
 * its alltoallv on 4 ranks or more posts persistent requests (unseen). */
static const pick_row ompi_gatherv[] = {{0, "basic_linear"}};
static const pick_row ompi_scatterv[] = {{0, "basic_linear"}};
static const pick_row ompi_allgatherv[] = {
    {3, "two_proc"},
    {4, "512:gatherv_bcast 16384:ring 262144:bruck ring"},
    {5, "512:gatherv_bcast 4096:neighbor 16384:ring 262144:bruck neighbor"},
    {6, "512:gatherv_bcast 16384:ring 262144:bruck ring"},
    {0, "4096:gatherv_bcast bruck"},
};
static const pick_row ompi_alltoallv[] = {{4, "pairwise"}, {0, "linear"}};
static const pick_row ompi_reduce_scatter[] = {
    {4, "65536:ring 131072:recursive_halving ring"},
    {0, "262144:recursive_halving ring"},
};
static const pick_row ompi_scan[] = {{0, "linear"}};
static const pick_row ompi_exscan[] = {{0, "linear"}};

/* MPICH's default selection: bcast binomial below 12 KiB or 8 ranks, then
 * a scatter and an allgather; Rabenseifner's reduce and allreduce above
 * 2 KiB; allgather by its total (m * P) and powers of two; alltoall Bruck
 * for small blocks on 8 ranks or more; dissemination; binomial gather/scatter. */
static const pick_row mpich_barrier[] = {{0, "dissemination"}};
static const pick_row mpich_bcast[] = {{8, "binomial"}, {0, "12288:binomial scatter_allgather"}};
static const pick_row mpich_reduce[] = {{0, "2049:binomial rabenseifner"}};
static const pick_row mpich_allreduce[] = {{0, "2049:recursive_doubling rabenseifner"}};
static const pick_row mpich_alltoall[] = {{8, "32769:linear pairwise"},
                                          {0, "257:bruck 32769:linear pairwise"}};
static const pick_row mpich_gather[] = {{0, "binomial"}};
static const pick_row mpich_scatter[] = {{0, "binomial"}};
/* linear v-variants (alltoallv's "scattered" posts every message at once), reduce_scatter
 * by recursive halving below 512 KiB in all, then pairwise; recursive doubling scans */
static const pick_row mpich_v[] = {{0, "linear"}};
static const pick_row mpich_reduce_scatter[] = {{0, "524288:recursive_halving pairwise"}};
static const pick_row mpich_scan[] = {{0, "recursive_doubling"}};

static const pick_row *const ompi_rows[COLL_NOPS] = {
    ompi_barrier, ompi_bcast, ompi_reduce, ompi_allreduce,
    ompi_allgather, ompi_alltoall, ompi_gather, ompi_scatter,
    ompi_gatherv, ompi_scatterv, ompi_allgatherv, ompi_alltoallv,
    ompi_reduce_scatter, ompi_scan, ompi_exscan};
static const pick_row *const mpich_rows[COLL_NOPS] = {
    mpich_barrier, mpich_bcast, mpich_reduce, mpich_allreduce,
    NULL, mpich_alltoall, mpich_gather, mpich_scatter,
    mpich_v, mpich_v, NULL, mpich_v, mpich_reduce_scatter, mpich_scan, mpich_scan};

/* The library's name for its pick into buf. */
static void lookup(const pick_row *rows, int n, long m, char *buf, size_t len)
{
    while (rows->below_ranks && n >= rows->below_ranks)
        rows++;
    for (const char *p = rows->by;;) {
        char *colon;
        long below = strtol(p, &colon, 10);
        const char *name = *colon == ':' ? colon + 1 : p;
        size_t l = strcspn(name, " ");
        if (*colon != ':' || m < below) {
            snprintf(buf, len, "%.*s", (int)l, name);
            return;
        }
        p = name + l + 1;
    }
}

static int pow2(int n) { return n > 0 && !(n & (n - 1)); }

/* MPICH's allgather: recursive doubling on powers of two below 512 KiB in
 * all, else Bruck below 80 KiB in all, else the ring. */
static void mpich_allgather(int n, long m, char *buf, size_t len)
{
    long total = m * n;
    snprintf(buf, len, "%s", total < 524288 && pow2(n) ? "recursive_doubling"
                             : total < 81920           ? "bruck" : "ring");
}

/* Open MPI's names -> the family generated for it, and whether that family
 * sends other messages than Open MPI does (1: the nearest we have).  MPICH's
 * names are the families' own, but for its Rabenseifner reduce. */
static const struct family {
    int op;
    const char *native, *family;
    int nearest;
} families[] = {
    {COLL_BARRIER, "bruck", "dissemination", 0}, {COLL_BARRIER, "two_proc", "recursive_doubling", 0},
    {COLL_BARRIER, "tree", "recursive_doubling", 1}, {COLL_BARRIER, "double_ring", "dissemination", 1},
    {COLL_BCAST, "basic_linear", "linear", 0}, {COLL_BCAST, "pipeline", "chain", 0},
    {COLL_BCAST, "binomial", "bmtree", 0},
    {COLL_BCAST, "binary_tree", "binary", 0}, {COLL_BCAST, "split_binary_tree", "binary", 1},
    {COLL_BCAST, "scatter_allgather_ring", "scatter_ring_allgather", 0},
    {COLL_REDUCE, "pipeline", "chain", 0}, {COLL_REDUCE, "in-order_binary", "binary", 1},
    {COLL_REDUCE, "rabenseifner", "binomial", 1},
    {COLL_ALLREDUCE, "segmented_ring", "ring", 1}, {COLL_ALLREDUCE, "nonoverlapping", "reduce_bcast", 1},
    {COLL_ALLREDUCE, "basic_linear", "reduce_bcast", 1},
    {COLL_ALLGATHER, "two_proc", "ring", 0}, {COLL_ALLGATHER, "neighbor", "ring", 1},
    {COLL_ALLGATHER, "linear", "ring", 1},
    {COLL_ALLTOALL, "linear_sync", "linear", 0}, {COLL_ALLTOALL, "two_proc", "pairwise", 0},
    {COLL_ALLTOALL, "modified_bruck", "bruck", 0},
    {COLL_GATHER, "basic_linear", "linear", 0}, {COLL_GATHER, "linear_sync", "linear_sync", 0},
    {COLL_SCATTER, "basic_linear", "linear", 0}, {COLL_SCATTER, "linear_nb", "linear", 0},
    {COLL_GATHERV, "basic_linear", "linear", 0}, {COLL_SCATTERV, "basic_linear", "linear", 0},
    {COLL_ALLGATHERV, "two_proc", "ring", 0}, {COLL_ALLGATHERV, "neighbor", "ring", 1},
    {COLL_REDUCE_SCATTER, "nonoverlapping", "reduce_scatterv", 1},
    {COLL_REDUCE_SCATTER, "butterfly", "recursive_halving", 1},
};

/* Rules the libraries apply after their tables (*nearest = 2): Open MPI's allgather
 * recursive doubling runs Bruck's off powers of two; its ring and
 * Rabenseifner's allreduce need as many elements as ranks (the largest
 * power of two below), or it runs recursive doubling.  Elements: floats,
 * or bytes where m is not a multiple of 4 (what mpibench reduces). */
static const char *family_of(int mpich, int op, const char *native, int n, long m, int *nearest)
{
    *nearest = 0;
    const char *f = native;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i].op == op && !strcmp(families[i].native, native) &&
            (!mpich || (op == COLL_REDUCE && !strcmp(native, "rabenseifner")))) {
            f = families[i].family;
            *nearest = families[i].nearest;
        }
    if ((op == COLL_ALLGATHER || op == COLL_ALLGATHERV) && !strcmp(f, "recursive_doubling") &&
        !pow2(n))
        f = "bruck", *nearest = 2;
    if (op == COLL_ALLREDUCE) {
        long elems = m % 4 ? m : m / 4;
        int p = 1;
        while (p * 2 <= n)
            p *= 2;
        if ((!strcmp(f, "ring") && elems < n) || (!strcmp(f, "rabenseifner") && elems < p))
            f = "recursive_doubling", *nearest = 2;
        /* Open MPI's ring gives the first elems mod n blocks an element more
         * (the ring here splits bytes evenly); its Rabenseifner folds the
         * extra ranks in with halves both ways (redscat_allgather; the
         * rabenseifner here, as MPICH, hands the odd rank the whole) */
        else if (!mpich && ((!strcmp(f, "ring") && elems % n) ||
                            (!strcmp(f, "rabenseifner") && p != n)))
            *nearest = 1;
    }
    return f;
}

int coll_library_pick(int op, const char *lib, int ranks, long size, char *native, size_t nlen,
                      const char **family)
{
    int mpich = !strcmp(lib, "mpich"), how;
    if ((op == COLL_ALLGATHER || op == COLL_ALLGATHERV) && mpich)
        mpich_allgather(ranks, size, native, nlen);
    else
        lookup((mpich ? mpich_rows : ompi_rows)[op], ranks, size, native, nlen);
    *family = family_of(mpich, op, native, ranks, size, &how);
    return how;
}

const char *coll_algorithm(int op, const char *alg, int ranks, long size, char *buf, size_t len)
{
    char def[40], native[40];
    const char *a = coll_default_algorithm(op, alg, def, sizeof def), *f;
    if (!strcmp(a, "tuned") || !strcmp(a, "mpich")) {
        coll_library_pick(op, a, ranks, size, native, sizeof native, &f);
        snprintf(buf, len, "%s:%s", a, f);
    } else {
        snprintf(buf, len, "%s", a);
    }
    return buf;
}
