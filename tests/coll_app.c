/* coll_app: every collective scitrace expands, once each at each size, for
 * the traced-equals-generated tests (tests/test_sched_*.c; not sanitized:
 * it runs with libscitrace.so preloaded).  Usage: coll_app ROOT [OP]
 * SIZE...  Each call runs in its own phase, named OP-SIZE; the rooted ones
 * at root ROOT (mod the ranks); reductions of floats, the others of bytes;
 * with OP, that collective alone (and the v-variants, reduce_scatter, scan
 * and exscan, which only a name runs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libscitrace/scitrace.h"

static const char *only;

/* Whether to run op (then in its phase). */
static int phase(const char *op, long size)
{
    if (only && strcmp(only, op))
        return 0;
    char name[64];
    snprintf(name, sizeof name, "%s-%ld", op, size);
    if (scitrace_phase)
        scitrace_phase(name);
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int first = argc > 2 && (argv[2][0] < '0' || argv[2][0] > '9') ? 3 : 2;
    if (argc <= first) {
        if (me == 0)
            fprintf(stderr, "usage: coll_app ROOT [OP] SIZE...\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    only = first == 3 ? argv[2] : NULL;
    int root = atoi(argv[1]) % p;
    for (int i = first; i < argc; i++) {
        long m = atol(argv[i]);
        char *a = calloc((size_t)m * p + 1, 1), *b = calloc((size_t)m * p + 1, 1);
        int n = (int)m, f = (int)(m / 4);
        if (!a || !b)
            MPI_Abort(MPI_COMM_WORLD, 1);
        if (phase("barrier", m))
            MPI_Barrier(MPI_COMM_WORLD);
        if (phase("bcast", m))
            MPI_Bcast(a, n, MPI_BYTE, root, MPI_COMM_WORLD);
        if (phase("reduce", m))
            MPI_Reduce(a, b, f, MPI_FLOAT, MPI_SUM, root, MPI_COMM_WORLD);
        if (phase("allreduce", m))
            MPI_Allreduce(a, b, f, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (phase("allgather", m))
            MPI_Allgather(a, n, MPI_BYTE, b, n, MPI_BYTE, MPI_COMM_WORLD);
        if (phase("alltoall", m))
            MPI_Alltoall(a, n, MPI_BYTE, b, n, MPI_BYTE, MPI_COMM_WORLD);
        if (phase("gather", m))
            MPI_Gather(a, n, MPI_BYTE, b, n, MPI_BYTE, root, MPI_COMM_WORLD);
        if (phase("scatter", m))
            MPI_Scatter(a, n, MPI_BYTE, b, n, MPI_BYTE, root, MPI_COMM_WORLD);
        /* the ops a trace does not expand: only when named (the committed traces hold the
         * eight above); every count equal, reduce_scatter's floats split as mpibench's */
        int *cnt = calloc((size_t)p, sizeof *cnt), *dsp = calloc((size_t)p, sizeof *dsp);
        if (!cnt || !dsp)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int r = 0; r < p; r++)
            cnt[r] = n, dsp[r] = r * n;
        if (only && phase("gatherv", m))
            MPI_Gatherv(a, n, MPI_BYTE, b, cnt, dsp, MPI_BYTE, root, MPI_COMM_WORLD);
        if (only && phase("scatterv", m))
            MPI_Scatterv(a, cnt, dsp, MPI_BYTE, b, n, MPI_BYTE, root, MPI_COMM_WORLD);
        if (only && phase("allgatherv", m))
            MPI_Allgatherv(a, n, MPI_BYTE, b, cnt, dsp, MPI_BYTE, MPI_COMM_WORLD);
        if (only && phase("alltoallv", m))
            MPI_Alltoallv(a, cnt, dsp, MPI_BYTE, b, cnt, dsp, MPI_BYTE, MPI_COMM_WORLD);
        for (int r = 0; r < p; r++)
            cnt[r] = f / p + (r < f % p);
        if (only && phase("reduce_scatter", m))
            MPI_Reduce_scatter(a, b, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (only && phase("scan", m))
            MPI_Scan(a, b, f, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (only && phase("exscan", m))
            MPI_Exscan(a, b, f, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        free(cnt), free(dsp);
        free(a), free(b);
    }
    if (!only)
        phase("end", 0);
    MPI_Finalize();
    return 0;
}
